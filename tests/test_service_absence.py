"""Absences (SET ABSENCE, VACATION, HOLIDAY) and pause requests, through the mail path.

The table's clock starts on Monday 2030-01-07 12:00 UTC; phases last 24 hours, so the first
deadline is Tuesday 2030-01-08 12:00.
"""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from judge.game import absence
from test_service_helpers import MASTER, Table, hold_all, flat


def body(table: Table, power: str, out: list) -> str:
    return flat(table.reply_to(table.powers[power], out).body)


def deadline(table: Table) -> str:
    return table.judge.store.scalar("SELECT deadline FROM phases WHERE state = 'open'")


def absences(table: Table) -> list[dict]:
    from judge.game import lifecycle as games

    return games.get_game(table.judge.store, "tg").options.get("absences", [])


def test_an_absence_moves_the_deadline_in_it_and_everyone_is_told(table: Table) -> None:
    table.start_game()
    assert deadline(table).startswith("2030-01-08T12:00")
    out = table.order("France", "SET ABSENCE 2030-01-08 TO 2030-01-10")
    reply = body(table, "France", out)
    assert "Absence set: from Tue Jan 08 2030 00:00:00 +0000 to Fri Jan 11 2030 00:00:00 +0000" in reply
    # the deadline fell in it: a day after France is back, told to every player and the master
    assert deadline(table).startswith("2030-01-12T00:00")
    moved = [m for m in out if "Deadline moved" in m.subject]
    told = {a for m in moved for a in m.to}
    assert set(table.powers.values()) | {MASTER} <= told
    assert "France is away until Fri Jan 11 2030 00:00:00 +0000" in flat(moved[0].body)
    assert "moved to Sat Jan 12 2030 00:00:00 +0000" in flat(moved[0].body)
    assert any("France will be away" in flat(m.body) for m in out if "England" in table.powers and
               table.powers["England"] in m.to)
    # no deadline event before the new deadline: nothing processes on Tuesday
    table.advance(days=2)
    assert table.phase() == "S1901M"
    assert not [m for m in table.mails if "Late" in m.subject]
    out = table.advance(days=2, hours=13)  # Sat Jan 12 01:00: the moved deadline has passed
    assert [m for m in out if "Late" in m.subject]


def test_a_new_phase_deadline_in_an_absence_moves_and_the_results_show_it(table: Table) -> None:
    table.start_game()
    out = table.order("Italy", "SET VACATION Jan 8 13:00 to Jan 10")
    assert "Absence set" in body(table, "Italy", out)
    assert deadline(table).startswith("2030-01-08T12:00")  # before the absence: unchanged
    table.advance(hours=2)
    hold_all(table)
    assert table.phase() == "F1901M"
    # F1901M's deadline (Tue 14:00) falls in Italy's absence: moved to a day after it ends
    assert deadline(table).startswith("2030-01-12T00:00")
    moved = [m for m in table.mails if "Deadline moved" in m.subject]
    assert moved and "F1901M" in moved[-1].subject


def test_the_cap_refuses_and_the_master_sets_it(table: Table) -> None:
    table.start_game()
    out = table.order("Germany", "SET HOLIDAY Jan 8 to Jan 30")
    reply = body(table, "Germany", out)
    assert "*** Error: that absence is 23 days; the master allows 14 days" in reply
    assert absences(table) == [] and deadline(table).startswith("2030-01-08T12:00")
    out = table.order("Germany", "SET MAX ABSENCE 30")
    assert "only the game master" in body(table, "Germany", out)
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET MAX ABSENCE 30")
    assert "at most 30 days" in flat(table.reply_to(MASTER, out).body)
    out = table.order("Germany", "SET HOLIDAY Jan 8 to Jan 30")
    assert "Used 23 of 30 days" in body(table, "Germany", out)
    # a second absence counts against what is left
    out = table.order("Germany", "SET ABSENCE 2030-02-10 TO 2030-02-20")
    assert "you have 7 left" in body(table, "Germany", out)


def test_the_master_ends_or_refuses_and_the_player_cancels(table: Table) -> None:
    table.start_game()
    table.order("France", "SET ABSENCE Jan 7 to Jan 9")  # under way (from now)
    table.order("Austria", "SET ABSENCE Feb 1 to Feb 3")  # to come
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET ABSENCE")
    listing = flat(table.reply_to(MASTER, out).body)
    assert "France: away from" in listing and "Austria: away from" in listing
    table.advance(hours=6)
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET ABSENCE France END\nSET ABSENCE Austria REFUSE\n"
                             "SET ABSENCE Russia END")
    reply = flat(table.reply_to(MASTER, out).body)
    assert "France's absence ended" in reply and "Austria's absence refused" in reply
    assert "*** Error: Russia has no absence set" in reply
    assert any("The master has ended France's absence" in flat(m.body) for m in out if table.powers["France"] in m.to)
    states = {a["power"]: a["state"] for a in absences(table)}
    assert states == {"France": "ended", "Austria": "refused"}
    # France used the six hours it was away
    fr = [a for a in absences(table) if a["power"] == "France"][0]
    assert absence.days(fr) == pytest.approx(0.25)
    # the player cancels their own
    table.order("England", "SET ABSENCE Jan 20 to Jan 22")
    out = table.order("England", "SET ABSENCE CLEAR")
    assert "Your absence is cancelled" in body(table, "England", out)
    out = table.order("England", "SET ABSENCE NONE")
    assert "*** Error: you have no absence set to cancel" in body(table, "England", out)
    assert absence.used_days(__import__("judge.game.lifecycle", fromlist=["x"]).get_game(
        table.judge.store, "tg"), "England", table.rows("SELECT player_id FROM seats WHERE power = 'England'")[0]
        ["player_id"]) == 0


def test_bad_absences_are_refused_with_reasons(table: Table) -> None:
    table.start_game()
    for text, error in (("SET ABSENCE 2030-01-14 TO 2030-01-10", "before it begins"),
                        ("SET ABSENCE Jan 14 to Jan 10", "that absence is 362 days"),  # to next January
                        ("SET ABSENCE Jan 10 25:00 to Jan 12", "not a time of day: '25:00'"),
                        ("SET ABSENCE 2029-12-01 TO 2029-12-05", "over already"),
                        ("SET ABSENCE soon", "not a day: 'soon'"),
                        ("SET ABSENCE Feb 30", "not a day"),
                        ("SET ABSENCE", "No absence set.")):
        out = table.order("Turkey", text)
        assert error in body(table, "Turkey", out), text
    table.order("Turkey", "SET ABSENCE Jan 10 to Jan 12")
    out = table.order("Turkey", "SET ABSENCE Jan 11 to Jan 13")
    assert "overlaps your absence" in body(table, "Turkey", out)
    assert len(absences(table)) == 1


def test_pause_request_goes_to_the_master_who_decides(table: Table) -> None:
    table.start_game()
    out = table.order("Russia", "PAUSE REQUEST my exams this week")
    assert "gone to the master" in body(table, "Russia", out)
    to_master = [m for m in out if MASTER in m.to and "Pause requested" in m.subject]
    assert to_master and "Russia asks you to pause 'tg': my exams this week" in flat(to_master[0].body)
    assert table.game_state() == "active"
    table.send(MASTER, "SIGNON Mtg masterpw\nPAUSE")
    assert table.game_state() == "paused"
    out = table.order("Russia", "PAUSE REQUEST")
    assert "*** Error: game 'tg' is paused, not running" in body(table, "Russia", out)


def test_a_unanimous_pause_vote_pauses_the_game(table: Table) -> None:
    table.start_game()
    out = table.order("Russia", "SET PAUSE VOTE yes")
    assert "only the game master" in body(table, "Russia", out)
    table.send(MASTER, "SIGNON Mtg masterpw\nSET PAUSE VOTE yes")
    powers = sorted(table.powers)
    for p in powers[:-1]:
        out = table.order(p, "REQUEST PAUSE")
        assert "Your vote for a pause is counted" in body(table, p, out)
    # one takes it back, then asks again; the last one's vote pauses the game
    out = table.order(powers[0], "PAUSE REQUEST NO")
    assert "withdrawn" in body(table, powers[0], out)
    table.order(powers[-1], "PAUSE REQUEST")
    assert table.game_state() == "active"
    out = table.order(powers[0], "PAUSE REQUEST")
    assert table.game_state() == "paused"
    assert any("Every player voted for a pause" in flat(m.body) for m in out if MASTER in m.to)
    assert table.judge.next_wakeup() is None


def test_span_reading() -> None:
    now = datetime(2030, 12, 20, 12, tzinfo=timezone.utc)
    start, end = absence.parse_span("Dec 30 to Jan 2", now, "UTC")
    assert (start.date(), end.date()) == (date(2030, 12, 30), date(2031, 1, 3))
    start, end = absence.parse_span("10 January", now, "UTC")
    assert (start.date(), end.date()) == (date(2031, 1, 10), date(2031, 1, 11))
    start, end = absence.parse_span("2031-01-05 - 2031-01-06", now, "Europe/Berlin")
    assert start == datetime(2031, 1, 4, 23, tzinfo=timezone.utc)
    with pytest.raises(absence.AbsenceError):
        absence.parse_span("Juni 5", now, "UTC")


def test_the_bare_word_works_and_help_lists_the_commands(table: Table) -> None:
    table.start_game()
    out = table.order("England", "HOLIDAY Jan 20 until Jan 21\nHELP")
    reply = body(table, "England", out)
    assert "Absence set: from Sun Jan 20 2030" in reply
    assert "ABSENCE <from> TO <to>" in reply and "PAUSE REQUEST [why]" in reply
    out = table.send(MASTER, "SIGNON Mtg masterpw\nHELP\nSET MAX SPEED 3")
    reply = flat(table.reply_to(MASTER, out).body)
    assert "SET MAX ABSENCE <days>" in reply and "SET PAUSE VOTE yes|no" in reply
    assert "*** Error: unknown SET option 'MAX'" in reply


def test_an_absence_set_while_paused_moves_the_deadline_on_resume(table: Table) -> None:
    table.start_game()
    table.send(MASTER, "SIGNON Mtg masterpw\nPAUSE")
    out = table.order("France", "SET ABSENCE Jan 8 to Jan 10")
    assert "Absence set" in body(table, "France", out)
    out = table.send(MASTER, "SIGNON Mtg masterpw\nRESUME")
    assert "resumed; deadline Sat Jan 12 2030 00:00:00 +0000" in flat(table.reply_to(MASTER, out).body)
    assert deadline(table).startswith("2030-01-12T00:00")
    assert [m for m in out if "Deadline moved" in m.subject]


def test_a_rollback_deadline_in_an_absence_moves(table: Table) -> None:
    table.start_game()
    hold_all(table)
    assert table.phase() == "F1901M"
    table.order("Austria", "SET ABSENCE Jan 8 to Jan 9")  # F1901M's Tue 12:00 deadline moves
    assert deadline(table).startswith("2030-01-11T00:00")
    out = table.send(MASTER, "SIGNON Mtg masterpw\nROLLBACK")
    assert table.phase() == "S1901M"
    assert deadline(table).startswith("2030-01-11T00:00")  # now + 24h fell in Austria's absence too
    assert "new deadline Fri Jan 11 2030" in flat(table.reply_to(MASTER, out).body)


def test_an_absence_set_in_grace_leaves_the_grace_period_alone(table: Table) -> None:
    table.start_game()
    out = table.advance(hours=25)  # past the deadline: late notices, grace until Wed 00:00
    assert [m for m in out if "Late" in m.subject]
    out = table.order("France", "SET ABSENCE Jan 8 to Jan 9")
    assert "Absence set" in body(table, "France", out)
    assert not [m for m in out if "Late" in m.subject or "Deadline moved" in m.subject]
    assert len(table.rows("SELECT * FROM events WHERE kind = 'grace' AND state = 'pending'")) == 1
    table.advance(hours=12)
    assert table.phase() != "S1901M"


def test_a_vacant_power_has_no_vote(table: Table) -> None:
    table.start_game()
    table.send(MASTER, "SIGNON Mtg masterpw\nSET PAUSE VOTE yes\nEJECT Turkey")
    for p in sorted(p for p in table.powers if p != "Turkey"):
        assert table.game_state() == "active"
        table.order(p, "PAUSE REQUEST")
    assert table.game_state() == "paused"
