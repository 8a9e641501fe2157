"""The guides' generated parts: every mail command (from the registry HELP is written from) and
every game option (:mod:`judge.game.game_options`), each with its example.

``python -m judge.mail.docs_gen`` rewrites the parts of ``docs/players.md`` and ``docs/masters.md``
between their ``<!-- BEGIN GENERATED name -->`` and ``<!-- END GENERATED name -->`` lines;
``--check`` only says whether they are current (tests/test_docs_generated.py fails when not), so
the guides cannot drift from what the judge does.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from judge.game.game_options import GAME_OPTIONS
from judge.mail.commands import load

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
WHO_TITLE = {"anyone": "Anyone, signed on or not", "observer": "Observers", "player": "Players, after SIGNON",
             "master": "The master, after SIGNON M<game>"}
#: guide -> (generated part, the kinds of user whose commands it lists)
PARTS: dict[str, dict[str, tuple[str, ...]]] = {
    "players.md": {"commands": ("anyone", "observer", "player")},
    "masters.md": {"commands": ("master",), "options": ()},
}
MARK = re.compile(r"(<!-- BEGIN GENERATED (\w+)[^\n]*-->\n)(.*?)(<!-- END GENERATED \2 -->)", re.S)


def _code(text: str) -> str:
    return "```\n" + text.strip("\n") + "\n```\n"


def commands_part(who: tuple[str, ...]) -> str:
    """Every command and form ``who`` may use: its syntax, what it does, other spellings, an example."""
    out: list[str] = []
    specs = load()
    for w in who:
        entries = []
        for spec in specs.values():
            if spec.who == w:
                also = f" Also written {', '.join(spec.aliases)}." if spec.aliases else ""
                entries.append((spec.syntax, spec.summary + "." + also, spec.example))
            entries += [(syntax, summary + ".", example) for fw, syntax, summary, example in spec.forms if fw == w]
        if not entries:
            continue
        out.append(f"### {WHO_TITLE[w]}\n")
        for syntax, summary, example in entries:
            out.append(f"**`{syntax}`**: {summary.replace('..', '.')}\n\n{_code(example)}")
    return "\n".join(out)


def set_form(option: str) -> str:
    """``move=72h`` as the master's SET: ``SET MOVE 72h``."""
    name, _, value = option.partition("=")
    return f"SET {name.upper()} {value}"


def options_part() -> str:
    """The game options: one row each, with its CREATE and SET example."""
    rows = ["| option | values | default | what it sets | when | example |", "|---|---|---|---|---|---|"]
    for o in GAME_OPTIONS:
        also = f" (also {', '.join(o.aliases)})" if o.aliases else ""
        when = "any time" if o.anytime else "before the start"
        values = o.values.replace("|", " \\| ")
        rows.append(f"| `{o.name}`{also} | {values} | {o.default_on()} | {o.meaning} | {when} "
                    f"| `{o.example}`, `{set_form(o.example)}` |")
    return "\n".join(rows) + "\n"


def render(name: str, text: str) -> str:
    """``text`` (a guide) with its generated parts written anew."""
    parts = PARTS[name]

    def part(m: re.Match[str]) -> str:
        kind = m.group(2)
        if kind not in parts:
            raise ValueError(f"docs/{name}: no generated part {kind!r} (known: {', '.join(parts)})")
        body = commands_part(parts[kind]) if kind == "commands" else options_part()
        return m.group(1) + body.rstrip("\n") + "\n" + m.group(4)

    out, n = MARK.subn(part, text)
    if n != len(parts):
        raise ValueError(f"docs/{name}: {n} generated parts, expected {len(parts)} ({', '.join(parts)})")
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name in PARTS:
        path = DOCS / name
        old = path.read_text(encoding="utf-8")
        new = render(name, old)
        if new != old:
            stale.append(name)
            if not check:
                path.write_text(new, encoding="utf-8")
    if stale:
        verb = "out of date" if check else "rewritten"
        print(f"{verb}: {', '.join('docs/' + s for s in stale)}" + (" (run python -m judge.mail.docs_gen)" if check else ""))
    return 1 if check and stale else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
