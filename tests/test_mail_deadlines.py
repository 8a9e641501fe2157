"""Deadlines are honest: orders already in the mailbox at a deadline count.

The daemon (against the tests' real Dovecot and aiosmtpd) processes a deadline only after a
complete read of the mailbox that began after it. Before this rule, an order delivered 0.2 s
before a deadline (Dovecot's IDLE push comes about 0.5 s after delivery) was NMR, and so was an
order delivered while the daemon could not reach its IMAP server. A mailbox that stays unreadable
holds the deadline; the master is told, and after ``deadline_hold_max`` the game is processed
anyway (and the master told that too)."""

from __future__ import annotations

import asyncio
import json
import mailbox
import os
import socket
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from mailservers import (POWERS, Dovecot, SmtpSink, daemon_config, dovecot, mail, order_mail,  # noqa: F401
                         running_daemon, smtp_sink, until, workdir)

pytestmark = pytest.mark.mail
GAME = "dl"
JUDGE_OPTIONS = {"code": "TEST", "password_cost": 10}


# --- a real game, set up straight in the store (fast), then run by the daemon ------------------------
def make_game(db_path: str, deadline: float) -> dict[str, str]:
    """A started standard game whose Spring 1901 deadline is ``deadline`` (a whole second), no grace.
    Returns power -> player address."""
    from judge.mail import Judge, JudgeConfig
    from judge.game import lifecycle as games
    from judge.game.lifecycle import Ctx
    from judge.demo.robots import make_mail

    j = Judge(JudgeConfig(address="judge@example.test", db_path=db_path, **JUDGE_OPTIONS))
    try:
        j.console().create(GAME, "masterpw", "standard", ["grace=0"], "master@example.test")
        for i, p in enumerate(POWERS):
            assert j.receive(make_mail(f"{p}@example.test", "judge@example.test", f"SIGNON ?{GAME} pw{p}",
                                       "join")) == "handled"
        g = games.get_game(j.store, GAME)
        assert g.state == "active"
        seats = {s["power"]: games.address_of(j.store, s["player_id"]) for s in games.seats(j.store, g.id, None)
                 if s["power"]}
        with j.store.transaction():
            ph = games.current_phase(j.store, g)
            games.set_deadline(Ctx(j.store, j.cfg, j.cfg.now()), g, ph,
                               datetime.fromtimestamp(deadline, timezone.utc))
        j.store.conn.execute("DELETE FROM outbox")  # the start-of-game mail is not what these tests check
        return seats
    finally:
        j.close()


def order(power_address: str, letter: str, text: str) -> bytes:
    from judge.demo.robots import make_mail

    return make_mail(power_address, "judge@example.test", f"SIGNON {letter}{GAME} pw{power_address.split('@')[0]}\n"
                     f"{text}\n", "orders")


def spring_results(db_path: str) -> list[dict[str, Any]] | None:
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT p.results FROM phases p JOIN games g ON g.id = p.game_id "
                         "WHERE g.name = ? AND p.short = 'S1901M' AND p.state = 'processed'", (GAME,)).fetchone()
    return json.loads(row[0]) if row and row[0] else None


def england_moved(results: list[dict[str, Any]]) -> bool:
    return any(r.get("power") == "England" and "Nth" in r.get("order", "") and not r.get("default")
               and r.get("result") == "succeeds" for r in results)


def append_at(dovecot: Dovecot, when: float, raw: bytes) -> float:
    """APPEND ``raw`` to the judge's INBOX at ``when`` (logged in beforehand); the time it was done."""
    c = dovecot.imap("judge")
    try:
        time.sleep(max(0.0, when - time.time()))
        typ, data = c.append("INBOX", None, None, raw)
        assert typ == "OK", data
        return time.time()
    finally:
        c.logout()


def next_whole_second(after: float) -> float:
    return float(int(time.time() + after) + 1)


def real_config(mail: Dovecot, sink: SmtpSink, workdir: Path, **over: dict[str, Any]) -> dict[str, Any]:
    judge = {"options": JUDGE_OPTIONS, **over.pop("judge", {})}
    # a long poll interval: only IDLE, the deadline sweep or a reconnect can bring the order in
    imap = {"poll_interval": 30.0, **over.pop("imap", {})}
    return daemon_config(mail, sink, workdir, service="judge.mail:Judge", judge=judge, imap=imap, **over)


async def test_order_delivered_just_before_the_deadline_counts(mail: Dovecot, smtp_sink: SmtpSink,
                                                               workdir: Path) -> None:
    cfg = real_config(mail, smtp_sink, workdir)
    db = cfg["judge"]["db_path"]
    deadline = next_whole_second(4.0)
    seats = make_game(db, deadline)
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.connected.is_set(), what="IMAP session")
        delivered = await asyncio.to_thread(append_at, mail, deadline - 0.2, order(seats["England"], "E", "F Lon - Nth"))
        assert delivered < deadline - 0.1
        await until(lambda: spring_results(db) is not None, timeout=30, what="Spring 1901 processed")
        results = spring_results(db)
        assert england_moved(results), (d.imap.stats, mail.messages(), results)
        assert d.scheduler is not None and d.scheduler.hold is None


def deliver_to_maildir(dovecot: Dovecot, raw: bytes, user: str = "judge") -> None:
    """What the MTA does while the IMAP server is down: the message lands in the mailbox anyway."""
    home = Path(dovecot.dir, "home", user)
    box = mailbox.Maildir(str(home / "Maildir"), create=True)
    key = box.add(raw)
    st = home.stat()
    for root, dirs, files in os.walk(home / "Maildir"):
        for name in dirs + files:
            os.chown(os.path.join(root, name), st.st_uid, st.st_gid)
    os.chown(home / "Maildir", st.st_uid, st.st_gid)
    assert key


async def test_imap_down_at_the_deadline_holds_until_the_order_is_read(mail: Dovecot, smtp_sink: SmtpSink,
                                                                       workdir: Path) -> None:
    """Dovecot is down from before the order arrives until after the deadline (in the field:
    2 minutes before it). The deadline waits; once the server is back the order is read and
    counted, and the game is processed."""
    smtp_sink.deliver_to = None  # the sink's LMTP delivery needs Dovecot; SMTP itself stays up
    cfg = real_config(mail, smtp_sink, workdir, judge={"deadline_hold_notice": 1.0})
    db = cfg["judge"]["db_path"]
    deadline = next_whole_second(5.0)
    seats = make_game(db, deadline)
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.connected.is_set(), what="IMAP session")
        await asyncio.to_thread(mail.stop, False)
        await until(lambda: not d.imap.connected.is_set(), what="the daemon notices the outage")
        deliver_to_maildir(mail, order(seats["England"], "E", "F Lon - Nth"))
        await asyncio.sleep(max(0.0, deadline + 3.0 - time.time()))
        assert spring_results(db) is None, "processed while the mailbox could not be read"
        assert d.scheduler is not None and d.scheduler.held()
        # the master hears of the hold (SMTP works; only IMAP is down)
        await smtp_sink.wait_for(lambda: any("held" in str(m.msg["Subject"]).lower()
                                             for m in smtp_sink.to("master@example.test")),
                                 what="hold notice to the master")
        back = time.monotonic()
        await asyncio.to_thread(mail.start)
        await until(lambda: spring_results(db) is not None, timeout=30, what="processed once IMAP is back")
        assert time.monotonic() - back < 10.0
        assert england_moved(spring_results(db))
        assert not d.scheduler.held()


# --- the hold's mechanics with the tests' small stand-in service ---------------------------------------
class SilentServer:
    """Accepts TCP connections and never says a word (a hung IMAP server, a black-holing proxy)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


def deadline_mail(token: str, seconds: float) -> bytes:
    return order_mail(token, extra=f"DEADLINE {seconds} {token}")


@pytest.mark.parametrize("fault", ["silent server", "wrong password"])
async def test_unreadable_mailbox_holds_then_processes_at_the_cap(mail: Dovecot, smtp_sink: SmtpSink,
                                                                  workdir: Path, fault: str) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, judge={"deadline_hold_notice": 0.5, "deadline_hold_max": 4.0},
                        imap={"timeout": 1.0})
    # the deadline is set by mail while the mailbox is readable (stand-in: "DEADLINE secs token")
    async with running_daemon(cfg) as d:
        mail.append(deadline_mail("d1", 2.0))
        await until(lambda: d.imap.stats.handled == 1, what="deadline set")
    silent = SilentServer()
    try:
        if fault == "silent server":
            cfg["imap"]["port"] = silent.port
            step = "greeting"
        else:
            cfg["imap"]["password"] = "wrong"
            step = "login"
        async with running_daemon(cfg) as d:
            await asyncio.sleep(2.5)
            assert d.scheduler.held(), "a deadline ran although the mailbox was never read"
            assert not [m for m in smtp_sink.messages if str(m.msg["Subject"]) == "Deadline d1"]
            await smtp_sink.wait_for(lambda: any("held" in str(m.msg["Subject"]).lower()
                                                 for m in smtp_sink.messages), what="hold notice")
            await smtp_sink.wait_for(lambda: any(str(m.msg["Subject"]) == "Deadline d1" for m in smtp_sink.messages),
                                     timeout=15, what="processed at the cap")
            notices = [str(m.msg["Subject"]) for m in smtp_sink.messages]
            assert any("without a mailbox read" in s for s in notices), notices
            error = d.imap.state.snapshot()["imap_last_error"]["value"]
            assert error.startswith(f"{step} 127.0.0.1:{cfg['imap']['port']}:"), error
    finally:
        silent.close()


async def test_a_read_after_the_deadline_is_required(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """The final sweep: at the deadline the daemon reads the mailbox again even though nothing
    told it new mail had come (no IDLE push yet, poll far away)."""
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 30.0, "idle": False})
    async with running_daemon(cfg) as d:
        mail.append(deadline_mail("d2", 1.5))
        await until(lambda: d.imap.stats.handled == 1, what="deadline set")
        await asyncio.sleep(1.0)
        mail.append(order_mail("late-but-on-time"))  # before the deadline; no push without IDLE
        await smtp_sink.wait_for(lambda: any(str(m.msg["Subject"]) == "Deadline d2" for m in smtp_sink.messages),
                                 what="deadline processed")
        subjects = [str(m.msg["Subject"]) for m in smtp_sink.messages]
        # the order was read (and answered) before the deadline was processed
        assert subjects.index("Re: orders late-but-on-time") < subjects.index("Deadline d2"), subjects


async def test_back_off_is_short_while_a_deadline_is_near(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """A server that does not answer backs off from reconnect_min (10 s here); with a deadline
    less than urgent_window away the wait is capped at reconnect_urgent (0.3 s), so the mailbox
    is read as soon as it can be."""
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"reconnect_min": 10.0, "reconnect_max": 30.0,
                                                          "reconnect_urgent": 0.3, "urgent_window": 60.0,
                                                          "timeout": 1.0})
    async with running_daemon(cfg) as d:
        mail.append(deadline_mail("far", 600.0))  # outside the window
        await until(lambda: d.imap.stats.handled == 1, what="deadline set")
    silent = SilentServer()
    try:
        cfg["imap"]["port"] = silent.port
        async with running_daemon(cfg) as d:
            await asyncio.sleep(3.0)
            assert d.imap.stats.sessions == 1, "no deadline near: the 10 s back-off applies"
        cfg["imap"]["port"] = mail.imap_port
        async with running_daemon(cfg) as d:
            mail.append(deadline_mail("near", 30.0))  # inside the window
            await until(lambda: d.imap.stats.handled == 1, what="near deadline set")
        cfg["imap"]["port"] = silent.port
        async with running_daemon(cfg) as d:
            # each greeting times out after 1 s; each retry follows within 0.3 s
            await until(lambda: d.imap.stats.sessions >= 4, timeout=12, what="quick retries near a deadline")
    finally:
        silent.close()
