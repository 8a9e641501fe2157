"""SUMMARY and HISTORY tell the truth, through the mail path: the centre counts of each played year
after its adjustments (never a year not yet played), and HISTORY says no more than it attaches."""

from __future__ import annotations

import re

from mail_scenarios import victory
from judge.mail.handler import MAX_ATTACHMENTS
from test_service_helpers import MASTER, Table, hold_all
from test_service_retreats import flat, table  # noqa: F401  (table: the fixture, a started standard game)

STANDARD_START = {"England": 3, "France": 3, "Germany": 3, "Italy": 3, "Austria": 3, "Russia": 4, "Turkey": 3}
LETTERS = {"England": "E", "France": "F", "Germany": "G", "Italy": "I", "Austria": "A", "Russia": "R", "Turkey": "T"}


def summary_table(t: Table) -> dict[int, dict[str, int]]:
    """The SUMMARY reply's count table, read as a stranger receives it: year -> power -> centres."""
    who = f"stranger{len(t.mails)}@example.test"  # a fresh asker: repeated requests are rate-limited
    body = t.reply_to(who, t.send(who, "SUMMARY tg")).body
    lines = body[body.index("History of supply center counts"):].splitlines()
    head = next(ln for ln in lines if ln.startswith("Year")).split()[1:]
    power_of = {letter: power for power, letter in LETTERS.items()}
    out: dict[int, dict[str, int]] = {}
    for ln in lines:
        cells = ln.split()
        if cells and re.fullmatch(r"\d{4}", cells[0]):
            out[int(cells[0])] = {power_of[h]: int(n) for h, n in zip(head, cells[1:])}
    return out


def test_summary_counts_each_played_year_after_its_adjustments(table: Table) -> None:
    t = table
    assert summary_table(t) == {}  # nothing played yet: no year, not the starting one as "1901"
    # 1901: Germany takes Denmark, Russia loses nothing; Germany builds in the winter
    t.order("Germany", "F Kie - Den\nA Ber H\nA Mun H")
    hold_all(t, skip=("Germany",))
    assert t.phase() == "F1901M"
    assert summary_table(t) == {}  # the spring changes no ownership, and 1901 is not over
    hold_all(t)
    assert t.phase() == "W1901A"
    after_1901 = {**STANDARD_START, "Germany": 4}
    assert summary_table(t) == {1901: after_1901}  # ownership is settled on entering the winter
    t.order("Germany", "Build A Kie")
    assert t.phase() == "S1902M"
    assert summary_table(t) == {1901: after_1901}  # 1902 is not played yet
    # 1902: France takes Belgium (and builds in the winter)
    t.order("France", "A Par - Pic\nF Bre H\nA Mar H")
    hold_all(t, skip=("France",))
    t.order("France", "A Pic - Bel\nF Bre H\nA Mar H")
    hold_all(t, skip=("France",))
    assert t.phase() == "W1902A"
    after_1902 = {**after_1901, "France": 4}
    assert summary_table(t) == {1901: after_1901, 1902: after_1902}


def test_a_year_with_no_adjustment_phase_is_counted_from_the_next_spring(table: Table) -> None:
    t = table
    hold_all(t)
    hold_all(t)
    assert t.phase() == "S1902M"  # nothing to adjust: the winter was skipped
    assert summary_table(t) == {1901: STANDARD_START}


def test_the_last_year_of_a_won_game_is_counted(tmp_path) -> None:
    t = victory(tmp_path)  # England wins with 5 centres in the autumn of 1901: no winter is opened
    try:
        assert summary_table(t) == {1901: {**STANDARD_START, "England": 5}}
    finally:
        t.close()


def history(t: Table, args: str = "", who: str = "") -> tuple[str, list[tuple[str, bytes]]]:
    """HISTORY tg (with ``args``) as a player (or ``who``) gets it: the text and the attached files."""
    who = who or t.powers["Austria"]
    reply = t.reply_to(who, t.send(who, "\n".join(f"HISTORY tg {a}".strip() for a in args.split("\n"))))
    files = [(a.get_filename(), a.get_content()) for a in reply.msg.iter_attachments()]
    return flat(reply.body), files


def test_history_attaches_the_maps_it_mentions(table: Table) -> None:
    t = table
    hold_all(t)
    hold_all(t)
    body, files = history(t)
    assert body.count("The map of the position is attached (tg-S1901M.png).") == 1, body
    assert body.count("The map of the position is attached (tg-F1901M.png).") == 1
    assert [name for name, _ in files] == ["tg-S1901M.png", "tg-F1901M.png"]
    assert all(data.startswith(b"\x89PNG") for _, data in files)
    # the same pictures the results mails carried
    spring = next(m for m in t.to(t.powers["England"]) if "S1901M Results" in m.subject)
    shown = [a.get_content() for a in spring.msg.walk() if a.get_content_type() == "image/png"]
    assert shown and shown[0] == files[0][1]


def test_a_long_history_says_where_the_maps_are_instead(table: Table) -> None:
    t = table
    for _ in range(4):
        hold_all(t)
    assert t.phase() == "S1903M"
    body, files = history(t)
    assert body.count("HISTORY tg") >= 4 and not files
    assert "is attached" not in body, body
    assert "The map of the position is not attached here: HISTORY tg S1902M sends it." in body
    # one phase asked for: its map comes
    body, files = history(t, "S1902M S1902M")
    assert [name for name, _ in files] == ["tg-S1902M.png"] and "is attached (tg-S1902M.png)" in body


def test_maps_attached_to_one_reply_are_few(table: Table) -> None:
    """Many HISTORY lines in one mail bring at most a few maps; an address the judge does not know
    (its one short answer an hour) gets none, and the text says so."""
    t = table
    for _ in range(4):
        hold_all(t)
    body, files = history(t, "\n".join(f"{p} {p}" for p in ("S1901M", "F1901M", "S1902M", "F1902M") * 3))
    assert 0 < len(files) <= MAX_ATTACHMENTS
    assert body.count("is attached (") == len(files) and "is not attached here" in body
    body, files = history(t, "S1902M S1902M", who="stranger@example.test")
    assert not files and "is attached" not in body and "is not attached here" in body


def test_summary_lists_replaced_players_with_their_spans(table: Table) -> None:
    t = table
    hold_all(t)  # S1901M played by everyone
    old = t.powers["France"]
    t.send(old, t.signon("France") + "\nRESIGN")
    hold_all(t, skip=("France",))  # France is vacant: its units hold; F1901M waits for the deadline
    t.advance(hours=25)
    assert t.phase() == "S1902M"
    t.send("newcomer@example.test", "SIGNON ?tg newpw")  # takes over France in S1902M
    t.send(MASTER, "SIGNON Mtg masterpw\nEJECT Germany")  # Germany's player is removed in S1902M
    who = f"stranger{len(t.mails)}@example.test"
    body = t.reply_to(who, t.send(who, "SUMMARY tg")).body
    lines = [ln.strip() for ln in body.splitlines()]
    france = lines.index(next(ln for ln in lines if ln.startswith("France")))
    assert lines[france].startswith("France") and "newcomer" in lines[france]
    assert "@" not in lines[france]  # a public name, never the address, in a look-up without SIGNON
    assert lines[france].endswith("(from S1902M)")
    assert lines[france + 1] == f"before: {old.partition('@')[0]}, S1901M to F1901M (resigned)"
    germany = lines.index(next(ln for ln in lines if ln.startswith("Germany")))
    assert "(vacant)" in lines[germany]
    assert lines[germany + 1] == f"before: {t.powers['Germany'].partition('@')[0]}, S1901M to S1902M (ejected)"
    assert sum(ln.startswith("before:") for ln in lines) == 2  # nobody else was replaced
