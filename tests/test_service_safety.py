"""Never twice, never to a robot, never for a wrong password, never lost in a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_service_helpers import JUDGE, MASTER, Table, hold_all

STATE_TABLES = ("games", "seats", "phases", "orders", "future_orders", "press", "events")


def snapshot(table: Table) -> dict[str, list]:
    return {t: table.rows(f"SELECT * FROM [{t}] ORDER BY id") for t in STATE_TABLES}


def test_duplicate_message_is_not_acted_on_twice(table: Table) -> None:
    table.start_game()
    raw = table.raw(table.powers["England"], table.signon("England") +
                    "\nF Lon - Nth\nBROADCAST\nHello all\nENDPRESS", message_id="<dup-1@example.test>")
    assert table.judge.receive(raw) == "handled"
    before = snapshot(table)
    n_out = len(table.rows("SELECT id FROM outbox"))
    assert table.judge.receive(raw) == "duplicate"
    table.drop(raw)  # and once more through the Maildir
    table.run()
    assert snapshot(table) == before
    assert len(table.rows("SELECT id FROM outbox")) == n_out
    assert len(table.rows("SELECT id FROM press")) == 1
    assert table.rows("SELECT status FROM inbox WHERE message_id = '<dup-1@example.test>'") == [{"status": "handled"}]


@pytest.mark.parametrize("headers, sender", [
    ({"Auto-Submitted": "auto-replied"}, "p0@example.test"),
    ({"Auto-Submitted": "auto-generated; owner-email=x@y"}, "p0@example.test"),
    ({"Precedence": "bulk"}, "p0@example.test"),
    ({"Precedence": "junk"}, "p0@example.test"),
    ({"Precedence": "list"}, "p0@example.test"),
    ({"X-Judge-Loop": "other-judge@example.test"}, "p0@example.test"),
    ({}, "MAILER-DAEMON@example.test"),
    ({}, "postmaster@example.test"),
    ({}, JUDGE),
])
def test_auto_replies_and_bounces_are_never_answered(table: Table, headers: dict, sender: str) -> None:
    out = table.send(sender, "HELP\nLIST", subject="Out of office", headers=headers)
    assert out == []
    assert table.rows("SELECT id FROM outbox") == []
    assert table.rows("SELECT status FROM inbox") == [{"status": "ignored"}]


def test_auto_submitted_no_is_answered(table: Table) -> None:
    out = table.send("p0@example.test", "HELP", headers={"Auto-Submitted": "no"})
    assert len(out) == 1


def test_wrong_password_changes_nothing(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    table.order("England", "F Lon - Nth")
    before = snapshot(table)
    out = table.send(eng, "SIGNON Etg wrongpw\nF Lon - Eng\nSET WAIT\nSET PASSWORD stolen\nRESIGN")
    reply = table.reply_to(eng, out)
    assert "Invalid password or power ID specified." in reply.body
    assert "[Error Flag]" in reply.subject
    assert snapshot(table) == before
    # and the attacker's password does not work afterwards
    out = table.send("evil@example.test", "SIGNON Etg stolen\nA Lvp - Yor")
    assert snapshot(table) == before
    # passwords are stored hashed
    from judge.game.passwords import verify_password

    seat = table.rows("SELECT password_hash FROM seats WHERE power = 'England'")[0]
    assert seat["password_hash"].startswith("scrypt$")
    assert verify_password(table.passwords[eng], seat["password_hash"])
    assert not verify_password("wrongpw", seat["password_hash"])


def test_signon_from_another_address_copies_the_owner(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.send("laptop@example.test", table.signon("England") + "\nF Lon - Nth")
    reply = table.reply_to("laptop@example.test", out)
    copy = table.reply_to(eng, out)  # the owner's copy comes apart: neither sees the other's address
    assert reply.to == ["laptop@example.test"] and copy.to == [eng] and copy.body == reply.body


def test_unreadable_mail_gets_a_clear_error_and_changes_nothing(table: Table) -> None:
    table.start_game()
    before = snapshot(table)
    raw = (b"From: p0@example.test\r\nTo: judge@example.test\r\nSubject: orders\r\nMessage-ID: <cs@x>\r\n"
           b"Content-Type: text/plain; charset=x-unknown\r\n\r\nSIGNON Etg pw0\r\nF Lon - Nth \x8e\xfe\r\n")
    table.drop(raw)
    out = table.run()
    assert "x-unknown" in table.reply_to("p0@example.test", out).body
    assert snapshot(table) == before
    # garbage bytes: no crash, no answer without a sender
    table.drop(b"\x00\xff garbage \r\n\r\n\xfe")
    table.run()
    assert snapshot(table) == before


def test_html_quoted_printable_and_quoted_replies(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    html = ("<html><body><p>" + table.signon("England") + "</p><p>F Lon - Nth<br>F Edi - Nwg</p>"
            "<blockquote>F Lon - Eng</blockquote></body></html>")
    raw = (f"From: {eng}\r\nTo: {JUDGE}\r\nSubject: Re: Re: [Error Flag] TEST:tg - S1901M orders\r\n"
           f"Message-ID: <html-1@x>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n"
           f"Content-Transfer-Encoding: quoted-printable\r\n\r\n").encode() + \
        html.replace("=", "=3D").encode()
    table.drop(raw)
    out = table.run()
    body = table.reply_to(eng, out).body
    assert "Fleet London -> North Sea" in body and "English Channel" not in body
    quoted = (table.signon("England") + "\nA Lvp - Yor\n\nOn Mon, Jan 7, 2030 at 12:00, Judge <judge@example.test> wrote:\n"
              "> A Lvp - Wal\n> F Lon - Eng\n")
    out = table.send(eng, quoted)
    body = table.reply_to(eng, out).body
    assert "Army Liverpool -> Yorkshire" in body and "Wales" not in body


CRASH_SCRIPT = textwrap.dedent("""
    import os, sys
    from datetime import datetime, timezone
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from judge.mail import Judge, JudgeConfig
    from judge.mail.maildir import Folders, run_once
    now = datetime.fromisoformat({now!r})
    cfg = JudgeConfig(address={judge!r}, db_path={db!r}, clock=lambda: now, password_cost=4, code="TEST")
    j = Judge(cfg)
    steps = [0]
    def power_cut():
        steps[0] += 1
        if steps[0] >= {after}:
            os._exit(9)  # the process dies here, mid-transaction: no cleanup, no rollback
        return 0
    j.store.conn.set_progress_handler(power_cut, 20)
    run_once(j, Folders(Path({root!r})), now=now)
    print("finished")
""")


def _two_order_mails(t: Table) -> list[bytes]:
    return [
        t.raw(t.powers["England"], t.signon("England") + "\nF Lon - Nth\nF Edi - Nwg\nA Lvp - Yor\n"
              "PRESS TO F\nbonjour\nENDPRESS", message_id="<crash-1@x>"),
        t.raw(t.powers["France"], t.signon("France") + "\nA Par - Bur\nA Mar - Spa\nF Bre - Mao",
              message_id="<crash-2@x>"),
    ]


def _outcome(t: Table) -> dict:
    return {
        "orders": [(r["power"], r["orders"]) for r in t.rows("SELECT power, orders FROM orders ORDER BY id")],
        "press": [r["body"] for r in t.rows("SELECT body FROM press")],
        "inbox": sorted((r["message_id"], r["status"]) for r in t.rows("SELECT message_id, status FROM inbox")),
        "mail": sorted(json.dumps(json.loads(r["recipients"])) + r["kind"] for r in
                       t.rows("SELECT recipients, kind FROM outbox WHERE kind IN ('reply', 'press')")),
    }


def test_crash_mid_transaction_loses_nothing(tmp_path: Path) -> None:
    """A judge killed at many instants while handling mail: after a restart all is as if it had not died."""
    ref = Table(tmp_path / "ref")
    ref.start_game()
    ref.n = 100
    for raw in _two_order_mails(ref):
        ref.drop(raw)
    ref.run()
    want = _outcome(ref)
    ref.close()
    crashed = 0
    for after in range(1, 90, 8):  # SQLite VM steps (x20) before the power is cut
        crash = Table(tmp_path / f"crash{after}")
        crash.start_game()
        crash.now = ref.now
        crash.n = 100
        for raw in _two_order_mails(crash):
            crash.drop(raw)
        crash.close()
        script = CRASH_SCRIPT.format(tests=str(Path(__file__).parent), now=crash.now.isoformat(), judge=JUDGE,
                                     db=str(crash.cfg.db_path), root=str(crash.folders.root), after=after)
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
        assert proc.returncode in (0, 9), proc.stderr
        crashed += proc.returncode == 9
        # restart: whatever was not committed is still in the inbox and is handled now, once
        crash.reopen()
        crash.run()
        assert not list((crash.folders.inbox / "new").iterdir())
        assert not list((crash.folders.inbox / "cur").iterdir())
        assert _outcome(crash) == want, f"after a crash at step {after}"
        crash.close()
    assert crashed >= 5  # the power cut really fell inside the work, many times


def test_store_error_inside_the_transaction_keeps_the_message(table: Table) -> None:
    """An error inside the transaction (here: SQLite interrupted) rolls everything back and keeps the mail."""
    table.start_game()
    before = snapshot(table)
    n_out = len(table.rows("SELECT id FROM outbox"))
    table.judge.store.conn.set_progress_handler(lambda: 1, 1)  # every statement is interrupted
    table.drop(table.raw(table.powers["England"], table.signon("England") + "\nF Lon - Nth"))
    try:
        table.run()
    except Exception:
        pass
    table.judge.store.conn.set_progress_handler(None, 1)
    assert snapshot(table) == before
    assert len(table.rows("SELECT id FROM outbox")) == n_out
    assert len(list((table.folders.inbox / "new").iterdir())) == 1  # still waiting
    table.run()
    assert len(table.rows("SELECT id FROM orders")) == 1
    assert not list((table.folders.inbox / "new").iterdir())


def test_outbox_backoff_and_permanent_failure_tells_the_master(table: Table) -> None:
    from datetime import timedelta

    table.start_game()
    table.judge.receive(table.raw(MASTER, "SIGNON Mtg masterpw\nBROADCAST\nWelcome!\nENDPRESS"), now=table.now)
    later = table.now + timedelta(minutes=6)
    press = [i for i in table.judge.pending_outbox(limit=500, now=table.now)
             if b"Broadcast" in i.message and MASTER not in i.recipients]
    assert len(press) == 7
    first, second = press[0], press[1]
    table.judge.mark_failed(first.id, "451 try later", permanent=False, now=table.now)
    assert first.id not in [i.id for i in table.judge.pending_outbox(limit=500, now=table.now)]
    assert first.id in [i.id for i in table.judge.pending_outbox(limit=500, now=later)]
    # a permanent failure of a game mail is recorded and reported to the game master
    table.judge.mark_failed(second.id, "550 no such user", permanent=True, now=table.now)
    pending = table.judge.pending_outbox(limit=500, now=later)
    assert second.id not in [i.id for i in pending]
    report = [i for i in pending if MASTER in i.recipients and b"not delivered" in i.message]
    assert len(report) == 1 and b"550 no such user" in report[0].message
    assert table.rows("SELECT status, last_error FROM outbox WHERE id = ?", (second.id,)) == \
        [{"status": "failed", "last_error": "550 no such user"}]
    table.judge.mark_sent(first.id, now=later)
    assert table.rows("SELECT status FROM outbox WHERE id = ?", (first.id,)) == [{"status": "sent"}]
