"""The mail commands' registry (issue 15): every command the language reads is registered once,
with who may use it, its syntax and a summary, and HELP, written from the registry, names them all."""

from __future__ import annotations

import re


from judge.mail import handler  # noqa: F401  (imports every command module, as the judge does)
from judge.mail.commands import FAMILIES, REGISTRY, WHO, help_lines, load
from judge.mail.language import KEYWORDS, match_keyword


def test_every_word_the_language_reads_is_a_registered_command_or_alias():
    load()
    registered = {name: name for name in REGISTRY}
    registered.update({alias: spec.name for spec in REGISTRY.values() for alias in spec.aliases})
    assert registered == KEYWORDS


def test_every_command_has_who_syntax_and_summary_and_a_family_module():
    specs = load()
    assert {s.family for s in specs.values()} == set(FAMILIES)  # no family without a command
    for spec in specs.values():
        assert spec.who in WHO, spec.name
        assert spec.summary.strip(), f"{spec.name} has no summary"
        # the syntax starts with the command as a player would write it
        parsed = match_keyword(spec.syntax.replace("?game", "xgame"))
        assert parsed is not None and parsed[0] == spec.name, (spec.name, spec.syntax)
        assert spec.run.__module__ == f"judge.mail.commands.{spec.family}"
        for who, syntax, summary, _example in spec.forms:
            assert who in WHO and summary.strip() and syntax.split()[0] == spec.name.split()[0], (spec.name, syntax)


def test_help_lines_are_the_registry_in_72_columns():
    for who in ("anyone", "player", "master"):
        lines = help_lines(who)
        assert all(len(line) <= 72 for line in lines)
        starts = {line.split()[0] for line in lines if not line.startswith(" " * 4)}
        assert {s.syntax.split()[0] for s in REGISTRY.values() if s.who == who} <= starts


def test_help_by_mail_names_every_command_under_who_may_use_it(table):
    reply = table.reply_to("someone@example.test", table.send("someone@example.test", "HELP"))
    body = reply.body
    sections = re.split(r"\n(?=Anyone:|A signed-on player may also use:|The game master may also use:)", body)
    by_heading = {s.split("\n", 1)[0]: s for s in sections}
    heading = {"anyone": "Anyone:", "player": "A signed-on player may also use:",
               "master": "The game master may also use:"}
    for spec in REGISTRY.values():
        section = by_heading[heading[spec.who]]
        assert re.search(rf"^  {re.escape(spec.syntax)}(?=\s|$)", section, re.M), f"HELP does not show {spec.syntax}"
    # what help.txt says around the commands is still there
    assert "After SIGNON, every line that is not a command is an order" in body
    assert "Deadlines: a phase is processed as soon as" in body
