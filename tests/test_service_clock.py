"""Deadlines on the master's clock, through the mail path: dates as masters write them, clock
times and days, SET START, reminder timing, no reminder after the deadline, the late count."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from judge.game import deadlines, lifecycle as games
from tests.test_service_helpers import MASTER, START, Table, hold_all

UTC = timezone.utc


def deadline(table: Table, name: str = "tg") -> datetime:
    v = table.judge.store.scalar("SELECT p.deadline FROM phases p JOIN games g ON g.id = p.game_id "
                                 "WHERE g.name = ? AND p.state = 'open'", (name,))
    return datetime.fromisoformat(v).astimezone(UTC)


def master(table: Table, lines: str) -> str:
    return table.reply_to(MASTER, table.send(MASTER, "SIGNON Mtg masterpw\n" + lines)).body


def start_with(table: Table, setup: str) -> None:
    """A game whose master sends ``setup`` while it forms; seven players fill it (at START)."""
    table.start_game(setup=setup)
    body = table.reply_to(MASTER, table.mails).body               # the master's reply to the setup
    assert "SET" in body and "Error" not in body, body


# -- SET DEADLINE reads dates as masters write them ------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("tue 20:00", datetime(2030, 1, 8, 20, 0, tzinfo=UTC)),          # START is Monday 7 January 2030, 12:00
    ("tomorrow 18:00", datetime(2030, 1, 8, 18, 0, tzinfo=UTC)),
    ("next friday", datetime(2030, 1, 11, 23, 59, tzinfo=UTC)),
    ("Jan 9 23:30", datetime(2030, 1, 9, 23, 30, tzinfo=UTC)),
    ("9 January 8pm", datetime(2030, 1, 9, 20, 0, tzinfo=UTC)),
    ("2030-01-10 06:15", datetime(2030, 1, 10, 6, 15, tzinfo=UTC)),
    ("mon 11:00", datetime(2030, 1, 14, 11, 0, tzinfo=UTC)),         # today's 11:00 is past: next Monday
])
def test_set_deadline_reads_dates_in_words_and_says_how(table, text, expected):
    table.start_game()
    body = master(table, f"SET DEADLINE {text}")
    assert f"Read '{text}' as {deadlines.format_time(expected)}." in body, body
    assert deadline(table) == expected


def test_an_ambiguous_date_is_refused_with_its_readings_and_changes_nothing(table):
    table.start_game()
    before = deadline(table)
    body = " ".join(master(table, "SET DEADLINE 3/5 10:00").split())  # (the reply wraps lines)
    assert "'3/5' could be Tue Mar 05 2030 10:00:00 +0000 or Fri May 03 2030 10:00:00 +0000" in body, body
    assert deadline(table) == before
    body = master(table, "SET DEADLINE next blursday")
    assert "not a time: 'next blursday'" in body
    assert deadline(table) == before


def test_dates_are_read_in_the_games_zone(table):
    table.start_game()
    assert "Europe/Berlin" in master(table, "SET TIMEZONE Europe/Berlin")
    body = master(table, "SET DEADLINE tomorrow 18:00")
    assert "Read 'tomorrow 18:00' as Tue Jan 08 2030 18:00:00 +0100." in body, body
    assert deadline(table) == datetime(2030, 1, 8, 17, 0, tzinfo=UTC)
    assert "unknown time zone 'Mars/Olympus'" in master(table, "SET TIMEZONE Mars/Olympus")


# -- the clock: deadlines land on the master's time and days, whenever the judge processes ---------
def test_deadlines_stay_on_the_clock_and_early_processing_never_pulls_them_earlier(table):
    # 23 hours, a little under a day, as njudge's 71: processing a little late keeps the day
    start_with(table, "SET MOVE 23h\nSET MOVE CLOCK 20:00\nSET DAYS -MTWTF-")
    # opened Monday 12:00 with 23 hours: Tuesday 11:00, moved on to the clock's 20:00
    assert deadline(table) == datetime(2030, 1, 8, 20, 0, tzinfo=UTC)
    table.advance(hours=1, minutes=7)                       # everyone orders early, at 13:07
    hold_all(table)
    assert table.phase() == "F1901M"
    # Monday 13:07 + 23h is Tuesday 12:07, before the last deadline (Tuesday 20:00): not earlier than it
    assert deadline(table) == datetime(2030, 1, 8, 20, 0, tzinfo=UTC)
    table.now = datetime(2030, 1, 8, 20, 0, tzinfo=UTC)     # the judge processes at the deadline...
    hold_all(table)
    # no adjustments are needed after holds: S1902M, 23 hours on, moved to Wednesday 20:00
    assert table.phase() == "S1902M"
    assert deadline(table) == datetime(2030, 1, 9, 20, 0, tzinfo=UTC)
    table.now = datetime(2030, 1, 9, 20, 50, tzinfo=UTC)    # processing late in the evening
    hold_all(table)
    assert deadline(table) == datetime(2030, 1, 10, 20, 0, tzinfo=UTC)  # still 20:00, not 20:50
    table.now = datetime(2030, 1, 10, 22, 0, tzinfo=UTC)    # two hours late: 23 hours on is Friday 21:00,
    hold_all(table)                                         # past Friday's 20:00; a phase is never shorter
    # than its length, and Saturday and Sunday are not days: Monday
    assert deadline(table) == datetime(2030, 1, 14, 20, 0, tzinfo=UTC)


def test_resume_lands_on_the_clock(table):
    start_with(table, "SET CLOCK 20:00")
    master(table, "PAUSE")
    table.advance(hours=50)                                 # Wednesday 14:00: a full day on is Thursday 14:00
    body = master(table, "RESUME")
    assert deadline(table) == datetime(2030, 1, 10, 20, 0, tzinfo=UTC), body


def test_clock_and_days_words_are_checked(table):
    table.start_game()
    assert "seven characters from Sunday" in master(table, "SET DAYS MTWTF")
    assert "seven characters from Sunday" in master(table, "SET DAYS -------")
    assert "not a time of day" in master(table, "SET RETREAT CLOCK 25:00")
    body = master(table, "SET RETREAT CLOCK 12:00")
    assert "retreat phases now fall at 12:00" in body, body
    g = games.get_game(table.judge.store, "tg")
    assert g.options["clock"] == {"retreat": 720}
    assert "no longer set to a clock time" in master(table, "SET RETREAT CLOCK OFF")
    body = " ".join(master(table, "SET ADJUST CLOCK 1410").split())   # njudge's form: minutes after midnight
    assert "Read 1410 as njudge's minutes after midnight. Deadlines of adjustment phases now fall at 23:30" in body
    assert "not a time of day" in master(table, "SET CLOCK 2000")
    assert "now last 3d" in master(table, "SET MOVE NEXT 72")  # njudge's form: hours


def test_set_start_gives_the_first_phase_its_full_length_from_then(table):
    start_with(table, "SET START Jan 20 18:00")
    assert deadline(table) == datetime(2030, 1, 21, 18, 0, tzinfo=UTC)
    assert "has started already" in master(table, "SET START Jan 25 18:00")


# -- reminders -------------------------------------------------------------------------------------
def test_set_remind_moves_the_reminder(table):
    table.start_game()
    assert "12h before each deadline" in master(table, "SET REMIND 12 before")
    hold_all(table, skip=("Turkey",))
    out = table.advance(hours=11, minutes=30)               # deadline at +24h: 12h before is +12h
    assert not [m for m in out if "Reminder" in m.subject]
    out = table.advance(minutes=31)
    assert [m for m in out if "Reminder" in m.subject and table.powers["Turkey"] in m.to]
    assert "No reminders" in master(table, "SET REMIND off")


def test_a_judge_running_late_sends_no_reminder_after_the_deadline(table):
    table.start_game()
    hold_all(table, skip=("Turkey",))
    out = table.advance(hours=30)                           # down past the reminder and the deadline
    assert not [m for m in out if "Reminder" in m.subject], [m.subject for m in out]
    assert not [m for m in table.mails if "the deadline has passed" in m.body]
    assert [m for m in out if "Late" in m.subject]          # the late notice says it instead


def test_the_master_sees_how_often_each_player_was_late(table):
    table.start_game()
    hold_all(table, skip=("Turkey", "England"))
    table.advance(hours=24)                                 # the deadline: Turkey and England late
    table.send(MASTER, "SIGNON Mtg masterpw\nSET DEADLINE +2h")  # a new deadline: still once a phase
    table.advance(hours=3)
    table.order("England", "F Lon H\nF Edi H\nA Lvp H")    # England late, but in time for the grace
    table.advance(hours=12)                                 # grace ends: processed, Turkey in civil disorder
    assert table.phase() == "F1901M"
    hold_all(table, skip=("Turkey", "England"))
    table.advance(hours=24)                                 # England late again
    body = master(table, "WHOGAME tg")
    lines = body.splitlines()

    def line(power: str) -> str:
        return next(ln for ln in lines if table.powers[power] in ln)
    assert "late 2 times" in line("England"), body
    assert "late 1 time" in line("Turkey"), body
    assert "late" not in line("France"), body
    turkey = table.powers["Turkey"]
    players = table.send(turkey, "WHOGAME tg")              # players see no count
    assert "late" not in table.reply_to(turkey, players).body.split("Players in")[1]


# -- the computation itself -------------------------------------------------------------------------
def test_phase_deadline_in_a_zone_across_summer_time():
    # Europe/London, the clock at 20:00: before and after the change on 31 March 2030
    now = datetime(2030, 3, 30, 9, 0, tzinfo=UTC)
    t = deadlines.phase_deadline(now, 24, 20 * 60, None, None, "Europe/London")
    assert t == datetime(2030, 3, 31, 19, 0, tzinfo=UTC)    # 20:00 BST
    # a lower-case day: not before noon; a clock of 09:00 skips it
    t = deadlines.phase_deadline(datetime(2030, 1, 6, 0, 0, tzinfo=UTC), 1, 9 * 60, "-mTWTF-", None)
    assert t == datetime(2030, 1, 8, 9, 0, tzinfo=UTC)
    assert deadlines.phase_deadline(START, 24, None, None, START + timedelta(days=3)) == START + timedelta(days=3)
