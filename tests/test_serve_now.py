"""``judge serve --maildir DIR --once --now WHEN``: the judge runs as if its clock said WHEN, through
the real CLI and a Maildir: deadlines due by then are processed, the mail it writes is dated then;
a time it cannot read, or one before what it has already processed, is refused and changes nothing."""

from __future__ import annotations

import email
import email.policy
import email.utils
import mailbox
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from click.testing import CliRunner

from judge.cli import main
from judge.demo.robots import make_mail

POWERS = ("England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey")


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), env={"JUDGE_CODE": "TRY", "JUDGE_ADDRESS": "judge@example.test",
                                                     "JUDGE_DB": None, "JUDGE_TIMEZONE": "Europe/Paris"})
    return res.exit_code, res.output


def started_game(root: Path) -> None:
    """A standard game 'tn' (48-hour moves, 24 hours' grace) that every power has joined, started by
    the Maildir judge at the real time."""
    db = str(root / "judge.sqlite")
    assert run("init", "--db", db)[0] == 0
    code, out = run("game", "create", "tn", "--password", "masterpw", "--master", "gm@example.test", "--db", db)
    assert code == 0, out
    box = mailbox.Maildir(str(root / "inbox"), create=True)
    for p in POWERS:
        box.add(make_mail(f"{p.lower()}@example.test", "judge@example.test",
                          f"SIGNON ?tn pw{p}\nSET PREFERENCE {p}\n", "join"))
    code, out = run("serve", "--maildir", str(root), "--once")
    assert code == 0 and '"handled": 7' in out, out


def outbox(root: Path) -> list[email.message.EmailMessage]:
    return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)  # type: ignore[misc]
            for p in sorted((root / "outbox" / "new").iterdir())]


def results(root: Path) -> list[email.message.EmailMessage]:
    return [m for m in outbox(root) if str(m["Subject"]) == "TRY:tn - S1901M Results"]


def test_now_processes_the_deadline_and_dates_the_mail_then(tmp_path: Path) -> None:
    started_game(tmp_path)
    mailbox.Maildir(str(tmp_path / "inbox")).add(make_mail(
        "england@example.test", "judge@example.test", "SIGNON Etn pwEngland\nF Lon - Nth\n", "orders"))
    # a day on: the deadline has not come; England's orders are taken, dated then
    when = datetime.now(timezone.utc) + timedelta(days=1)
    text = when.astimezone(timezone(timedelta(hours=1))).strftime("%Y-%m-%d %H:%M+01:00")
    code, out = run("serve", "--maildir", str(tmp_path), "--once", "--now", text)
    assert code == 0 and '"handled": 1' in out and '"events": 0' in out, out
    reply = [m for m in outbox(tmp_path) if str(m["To"]) == "england@example.test"][-1]
    dated = email.utils.parsedate_to_datetime(str(reply["Date"]))
    assert abs(dated - when) < timedelta(minutes=1), (dated, when)
    assert not results(tmp_path)
    # three days on, in the judge's zone (Europe/Paris): past the deadline and its grace
    later = (datetime.now(timezone.utc) + timedelta(days=3, hours=1)).astimezone(
        __import__("zoneinfo").ZoneInfo("Europe/Paris"))
    code, out = run("serve", "--maildir", str(tmp_path), "--once", "--now", later.strftime("%Y-%m-%d %H:%M"))
    assert code == 0, out
    sent = results(tmp_path)
    assert len(sent) == 8, (out, [str(m["Subject"]) for m in outbox(tmp_path)][-12:])  # seven players and the master
    assert abs(email.utils.parsedate_to_datetime(str(sent[0]["Date"])) - later) < timedelta(minutes=1)
    body = sent[0].get_body(("plain",)).get_content()
    assert "North Sea" in body, body
    # the next phase runs its full length from the time --now gave
    code, out = run("game", "list", "--db", str(tmp_path / "judge.sqlite"))
    assert "F1901M" in out, out


def test_now_refuses_nonsense_and_a_clock_going_back(tmp_path: Path) -> None:
    started_game(tmp_path)
    before = sorted(p.name for p in (tmp_path / "outbox" / "new").iterdir())
    for bad in ("banana", "2026-13-45 25:00", ""):
        code, out = run("serve", "--maildir", str(tmp_path), "--once", "--now", bad)
        assert code == 2 and "--now" in out and ("not a time" in out or "no date" in out), (bad, out)
    code, out = run("serve", "--maildir", str(tmp_path), "--now", "+3d")  # without --once
    assert code == 2 and "--now goes with --once" in out, out
    assert sorted(p.name for p in (tmp_path / "outbox" / "new").iterdir()) == before
    code, out = run("serve", "--maildir", str(tmp_path), "--once", "--now", "+3d")
    assert code == 0 and len(results(tmp_path)) == 8, out
    code, out = run("serve", "--maildir", str(tmp_path), "--once", "--now", "+1d")
    assert code == 2 and "does not go back" in out, out


def test_game_advance_brings_the_deadline_then_the_end_of_grace_to_now(tmp_path: Path) -> None:
    """``judge game advance``, the master's console tool: as the deadline passing, then as the end of
    grace, each mail saying the times it happened at."""
    db = str(tmp_path / "judge.sqlite")
    code, out = run("game", "advance", "tn", "--db", db)
    assert code == 1 and "no judge database" in out, out
    started_game(tmp_path)
    mailbox.Maildir(str(tmp_path / "inbox")).add(make_mail(
        "england@example.test", "judge@example.test", "SIGNON Etn pwEngland\nF Lon - Nth\nA Lvp - Yor\nF Edi - Nwg\n",
        "orders"))
    assert run("serve", "--maildir", str(tmp_path), "--once")[0] == 0
    code, out = run("game", "advance", "tn", "--db", db)
    assert code == 0 and "tn S1901M: the deadline has passed; grace ends" in out, out
    run("serve", "--maildir", str(tmp_path), "--once")
    late = [m for m in outbox(tmp_path) if "Late Notice" in str(m["Subject"])]
    assert len(late) == 8 and "England" not in str(late[0]["Subject"]), [str(m["Subject"]) for m in late]
    assert not any("Reminder" in str(m["Subject"]) for m in outbox(tmp_path))  # the deadline came: no reminder
    assert not results(tmp_path)
    code, out = run("game", "advance", "tn", "--db", db)
    assert code == 0 and out.strip() == "tn S1901M processed; now F1901M", out
    run("serve", "--maildir", str(tmp_path), "--once")
    sent = results(tmp_path)
    assert len(sent) == 8 and "North Sea" in sent[0].get_body(("plain",)).get_content()
    # the next phase has its full length from now, with its own deadline waiting
    code, out = run("game", "list", "--db", db)
    assert re.search(r"^tn +standard +active +F1901M ", out, re.M), out


def test_game_advance_refuses_a_game_without_a_deadline(tmp_path: Path) -> None:
    db = str(tmp_path / "judge.sqlite")
    assert run("init", "--db", db)[0] == 0
    assert run("game", "create", "tn", "--password", "masterpw", "--master", "gm@example.test", "--db", db)[0] == 0
    code, out = run("game", "advance", "tn", "--db", db)
    assert code == 1 and "'tn' is forming" in out, out
    code, out = run("game", "advance", "nosuch", "--db", db)
    assert code == 1 and "no game named 'nosuch'" in out, out
