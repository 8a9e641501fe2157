"""A store that another process holds locked (an admin's sqlite3 shell, `judge game ...`, a
backup) or that cannot be written (a full disk) never costs orders.

Through the daemon, the tests' real Dovecot and aiosmtpd and the real game service: the lock is
a second process holding ``BEGIN IMMEDIATE`` (or SQLite's exclusive locking mode) on the game's
store for longer than the daemon's busy timeout, across a deadline. An order mailed before the
deadline must count for that phase, and the master must hear the real cause while it waits."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from mailservers import (Dovecot, SmtpSink, dovecot, mail, order_mail, running_daemon, smtp_sink,  # noqa: F401
                         until, workdir, write_config)
from test_mail_deadlines import (append_at, england_moved, make_game, next_whole_second, order, real_config,
                                 spring_results)

pytestmark = pytest.mark.mail
ADMIN = "admin@example.test"

HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
if sys.argv[3] == "exclusive":  # readers are shut out too, as by an admin's PRAGMA locking_mode
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
    db.execute("BEGIN EXCLUSIVE")
    db.execute("CREATE TABLE IF NOT EXISTS admin_was_here (x)")
else:
    db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
db.close()
"""


def hold_lock(db_path: str, seconds: float, mode: str = "immediate") -> subprocess.Popen[str]:
    """Another process holding the store's write lock for ``seconds`` (returns once it holds it)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, db_path, str(seconds), mode], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def subjects(sink: SmtpSink, to: str) -> list[str]:
    return [str(m.msg["Subject"]) for m in sink.to(to)]


def text_to(sink: SmtpSink, to: str, word: str) -> str:
    from mailservers import text_of

    return "\n".join(text_of(m.msg) for m in sink.to(to) if word in str(m.msg["Subject"]))


async def test_order_mailed_during_a_lock_across_the_deadline_counts(mail: Dovecot, smtp_sink: SmtpSink,
                                                                     workdir: Path) -> None:
    """The lock (10 s) outlasts the busy timeout (1 s) and the deadline; the order arrives 2 s
    before the deadline, while the store is locked. It is applied to Spring 1901, which waits for
    it; the master and the admin are told the store is locked (straight through SMTP: the store
    cannot queue a notice then).

    (SQLite's exclusive locking mode, which shuts out readers too, cannot be had in WAL mode while
    the daemon has the store open: the console tests below meet it.)"""
    cfg = real_config(mail, smtp_sink, workdir,
                      judge={"busy_timeout": 1.0, "deadline_hold_notice": 1.0,
                             "options": {"code": "TEST", "password_cost": 10, "keeper": ADMIN}})
    db = cfg["judge"]["db_path"]
    deadline = next_whole_second(6.0)
    seats = make_game(db, deadline)
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.connected.is_set(), what="IMAP session")
        holder = await asyncio.to_thread(hold_lock, db, max(1.0, deadline + 7.0 - time.time()))
        try:
            sent = await asyncio.to_thread(append_at, mail, deadline - 2.0, order(seats["England"], "E", "F Lon - Nth"))
            assert sent < deadline
            await asyncio.sleep(max(0.0, deadline + 2.5 - time.time()))
            assert holder.poll() is None, "the lock ended too soon for this test"
            assert spring_results(db) is None, "processed while the order could not be stored"
            assert "locked by another process" in d.imap.store_error
            assert d.state is not None
            assert "locked by another process" in d.state.snapshot()["store_error"]["value"]
            # judge status, run beside it, says what is wrong (the store's own tables are readable)
            status = await asyncio.to_thread(judge_status, write_config(workdir / "judge.toml", cfg))
            assert status["mail"]["daemon"].startswith("running (pid "), status["mail"]
            assert "in trouble: store: the store" in status["mail"]["daemon"], status["mail"]
            assert "games" in status  # the service's own part too
            assert d.scheduler is not None and d.scheduler.held()
            for who in ("master@example.test", ADMIN):
                await smtp_sink.wait_for(lambda: any("store locked" in s for s in subjects(smtp_sink, who)),
                                         timeout=10, what=f"hold notice naming the lock to {who}")
            assert "locked by another process" in text_to(smtp_sink, "master@example.test", "held")
            # one message each: a master never sees another master's (or the admin's) address
            held = [m for m in smtp_sink.messages if "held" in str(m.msg["Subject"])]
            assert all(len(m.rcpts) == 1 and len(m.msg.get_all("To")) == 1 for m in held), [m.rcpts for m in held]
            assert "Game 'dl'" in text_to(smtp_sink, "master@example.test", "held")
            assert d.notices is not None and d.notices.sent_direct >= 2
            assert holder.poll() is None, "the notices came only after the lock"
        finally:
            await asyncio.to_thread(holder.wait)
        await until(lambda: spring_results(db) is not None, timeout=40, what="Spring 1901 processed after the lock")
        assert england_moved(spring_results(db)), "the order mailed before the deadline was not applied to it"
        assert d.imap.store_error == "" and not d.scheduler.held()
        assert mail.count("UNSEEN") == 0 and mail.count("ALL", mailbox="failed") == 0


async def test_mail_queued_by_the_cli_leaves_within_seconds(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """`judge game process` in another process queues the results; the daemon sees the store
    change (its data_version) and sends them long before its 60 s outbox poll."""
    cfg = real_config(mail, smtp_sink, workdir, smtp={"poll_interval": 60.0})
    db = cfg["judge"]["db_path"]
    make_game(db, time.time() + 3600)
    async with running_daemon(cfg) as d:
        await until(lambda: d.smtp is not None and d.smtp.idle.is_set(), what="outbox drained")
        await asyncio.sleep(0.5)
        out = await asyncio.to_thread(judge_cli, "game", "process", "dl", "--db", db, "--code", "TEST")
        assert out.returncode == 0, out.stderr
        began = time.monotonic()
        await smtp_sink.wait_for(lambda: len(smtp_sink.to("master@example.test")) >= 1, timeout=10,
                                 what="results queued by the CLI")
        assert time.monotonic() - began < 5.0


def judge_status(config: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "judge.cli", "status", "--config", str(config)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# --- the console during a lock ----------------------------------------------------------------------
def judge_cli(*args: str, busy_timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if busy_timeout is not None:
        env["JUDGE_BUSY_TIMEOUT"] = str(busy_timeout)
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def console_game(workdir: Path) -> str:
    db = str(workdir / "console.sqlite")
    assert judge_cli("init", "--db", db).returncode == 0
    out = judge_cli("game", "create", "cg", "--password", "pw", "--master", "m@example.test", "--db", db)
    assert out.returncode == 0, out.stderr
    return db


@pytest.mark.parametrize("mode", ["immediate", "exclusive"])
def test_cli_during_a_lock_says_so_in_one_line(workdir: Path, mode: str) -> None:
    db = console_game(workdir)
    holder = hold_lock(db, 6.0, mode)
    try:
        out = judge_cli("game", "process", "cg", "--db", db, busy_timeout=1.0)
    finally:
        holder.wait()
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert "locked by another process" in lines[0] and db in lines[0] and "try again" in lines[0], lines
    # nothing happened: the game is still forming and can be processed now
    out = judge_cli("game", "process", "cg", "--db", db)
    assert out.returncode == 0 and out.stdout.strip() == "cg started", out


def test_cli_waits_for_a_lock_shorter_than_the_busy_timeout(workdir: Path) -> None:
    db = console_game(workdir)
    holder = hold_lock(db, 2.0)
    try:
        began = time.monotonic()
        out = judge_cli("game", "process", "cg", "--db", db, busy_timeout=20.0)
        waited = time.monotonic() - began
    finally:
        holder.wait()
    assert out.returncode == 0 and out.stdout.strip() == "cg started", out
    assert waited >= 1.0  # it did wait for the other process


def test_store_transaction_retries_a_lock_that_skips_the_busy_handler(workdir: Path, monkeypatch: Any) -> None:
    """Some SQLITE_BUSY answers come at once, without the busy handler (a WAL being recovered by
    another process, a stale snapshot): BEGIN is tried again until the busy timeout is spent."""
    import sqlite3

    from judge.game.store import Store, StoreLocked

    st = Store(workdir / "s.sqlite", busy_timeout=1.0)
    calls = []

    class Conn:
        in_transaction = False

        def __init__(self, real: sqlite3.Connection, fail: int) -> None:
            self.real, self.fail = real, fail

        def execute(self, sql: str, *a: Any) -> Any:
            if sql == "BEGIN IMMEDIATE":
                calls.append(time.monotonic())
                if len(calls) <= self.fail:
                    raise sqlite3.OperationalError("database is locked")
            return self.real.execute(sql, *a)

    real = st.conn
    st.conn = Conn(real, fail=3)  # type: ignore[assignment]
    with st.transaction():
        pass
    assert len(calls) == 4
    calls.clear()
    st.conn = Conn(real, fail=10**6)  # type: ignore[assignment]
    began = time.monotonic()
    with pytest.raises(StoreLocked, match="locked by another process"):
        with st.transaction():
            pass
    assert 0.9 <= time.monotonic() - began < 3.0
    st.conn = real
    st.close()


def test_transient_causes_are_named() -> None:
    import errno
    import sqlite3

    from judge.game.store import describe_cause, transient_cause

    assert transient_cause(sqlite3.OperationalError("database is locked")) == "locked"
    assert transient_cause(sqlite3.OperationalError("database or disk is full")) == "disk full"
    assert transient_cause(sqlite3.OperationalError("disk I/O error")) == "I/O error"
    assert transient_cause(OSError(errno.ENOSPC, "No space left on device")) == "disk full"
    assert transient_cause(MemoryError()) == "out of memory"
    # a bug or a damaged file: retrying cannot mend it
    assert transient_cause(sqlite3.IntegrityError("UNIQUE constraint failed: inbox.message_id")) is None
    assert transient_cause(sqlite3.DatabaseError("database disk image is malformed")) is None
    assert transient_cause(ValueError("locked")) is None
    assert describe_cause("disk full", "/x/j.sqlite") == "the disk holding the store /x/j.sqlite is full"


async def test_a_send_the_store_cannot_record_is_not_sent_again(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                                monkeypatch: Any) -> None:
    """The server took the reply, then the store would not record it (locked past the busy
    timeout): it is recorded once the store is free, not sent a second time as a send in doubt."""
    import sqlite3

    from mailservers import StandInJudge, daemon_config

    real = StandInJudge.mark_sent
    refusals = []

    def mark_sent(self: StandInJudge, item_id: int) -> None:
        if len(refusals) < 2:
            refusals.append(item_id)
            raise sqlite3.OperationalError("database is locked")
        real(self, item_id)

    monkeypatch.setattr(StandInJudge, "mark_sent", mark_sent)
    cfg = daemon_config(mail, smtp_sink, workdir)
    async with running_daemon(cfg) as d:
        mail.append(order_mail("once"))
        await until(lambda: len(refusals) == 2 and d.smtp.idle.is_set(), what="recorded after two refusals")
        await asyncio.sleep(0.5)
        assert d.smtp.stats.resent_in_doubt == 0 and d.smtp.state.journal_size() == 0
    assert len(smtp_sink.messages) == 1
    with sqlite3.connect(cfg["judge"]["db_path"]) as db:
        assert db.execute("SELECT status FROM outbox").fetchall() == [("sent",)]


def test_a_broken_constraint_is_poison_not_a_store_fault(workdir: Path, monkeypatch: Any) -> None:
    """A bug that breaks a constraint (IntegrityError) is no reason to offer the message again and
    again: it is recorded as failed and answered at once, like any other bug; a locked store is
    raised to the transport, which offers the message again."""
    import sqlite3

    from judge.demo.robots import make_mail
    from judge.mail import Judge, JudgeConfig
    from judge.mail import handler

    def broken(self: Any) -> None:
        raise sqlite3.IntegrityError("UNIQUE constraint failed: orders.id")

    j = Judge(JudgeConfig(address="judge@example.test", db_path=str(workdir / "j.sqlite")))
    try:
        monkeypatch.setattr(handler.Handler, "run", broken)
        status = j.receive(make_mail("p@example.test", "judge@example.test", "HELP", "help"))
        assert status == "failed: internal error (IntegrityError)"

        def locked(self: Any) -> None:
            raise sqlite3.OperationalError("database is locked")

        monkeypatch.setattr(handler.Handler, "run", locked)
        with pytest.raises(sqlite3.OperationalError):
            j.receive(make_mail("p@example.test", "judge@example.test", "HELP again", "help"))
        assert j.store.scalar("SELECT count(*) FROM inbox") == 1  # the locked one left no trace
    finally:
        j.close()
