"""Several mails in one commit (``Judge.receive_many``, as the IMAP runner hands over a FETCH
batch): one fsync for the lot, yet each mail is still its own unit, and a kill at any instant
loses no mail the transport was told is stored.

The transport flags or moves its messages only after ``receive_many`` returns, so what matters
is: either the whole batch is in the store, or none of it is; a mail that meets a bug is undone
alone and recorded; a store that fails mid-batch keeps the mails before it, and says so."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge.game.store import BatchLost, transient_cause
from judge.mail import handler
from test_service_helpers import START, Table

ORDERS = {"England": "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor", "France": "F Bre - Mao\nA Par - Bur\nA Mar - Spa",
          "Germany": "F Kie - Den\nA Ber - Kie\nA Mun - Ruh", "Italy": "F Nap - Ion\nA Rom - Apu\nA Ven H",
          "Austria": "A Vie - Gal\nA Bud - Ser\nF Tri - Alb"}


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = Table(tmp_path)
    t.start_game()
    yield t
    t.close()


def order_mails(t: Table) -> list[tuple[bytes, str]]:
    return [(t.raw(t.powers[p], t.signon(p) + "\n" + o), f"test:{p}") for p, o in ORDERS.items()]


def orders_of(t: Table) -> dict[str, int]:
    rows = t.rows("SELECT power, COUNT(*) AS n FROM orders GROUP BY power")
    return {r["power"]: r["n"] for r in rows}


def inbox_ids(t: Table) -> list[str]:
    return [r["message_id"] for r in t.rows("SELECT message_id FROM inbox ORDER BY id")]


def bug_for(monkeypatch: Any, sender: str, bug: Any, before: bool = False) -> None:
    """Handler.run meets ``bug(handler)`` for mail from ``sender``: before its work, or after it
    (its orders written, to be undone with the rest of it)."""
    run = handler.Handler.run

    def buggy(self: Any) -> None:
        if not before:
            run(self)
        if self.mail.sender == sender:
            bug(self)
        if before:
            run(self)

    monkeypatch.setattr(handler.Handler, "run", buggy)


def test_a_batch_is_stored_whole_and_each_mail_once(table: Table) -> None:
    t = table
    before = len(inbox_ids(t))
    mails = order_mails(t)
    mails.append(mails[0])  # the same message twice in one FETCH batch
    out = t.judge.receive_many(mails, now=t.now)
    assert out == ["handled"] * 5 + ["duplicate"]
    assert len(inbox_ids(t)) == before + 5
    assert set(orders_of(t)) == set(ORDERS)
    replies = t.rows("SELECT recipients FROM outbox WHERE kind = 'reply' AND status = 'pending'")
    assert len(replies) == 5  # every order mail answered, the duplicate not
    assert t.judge.receive_many(mails, now=t.now) == ["duplicate"] * 6


def test_a_bug_in_one_mail_undoes_only_that_mail(table: Table, monkeypatch: Any) -> None:
    t = table
    mails = order_mails(t)

    def bug(h: Any) -> None:
        raise KeyError("a bug")

    bug_for(monkeypatch, t.powers["Germany"], bug)
    out = t.judge.receive_many(mails, now=t.now)
    assert out == ["handled", "handled", "failed: internal error (KeyError)", "handled", "handled"]
    assert set(orders_of(t)) == set(ORDERS) - {"Germany"}
    failed = t.rows("SELECT sender, raw FROM inbox WHERE status = 'failed'")
    assert [r["sender"] for r in failed] == [t.powers["Germany"]] and failed[0]["raw"] == mails[2][0]


def test_the_store_failing_mid_batch_keeps_the_mails_before_it(table: Table, monkeypatch: Any) -> None:
    t = table
    mails = order_mails(t)

    def full(h: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    bug_for(monkeypatch, t.powers["France"], full, before=True)
    before = inbox_ids(t)
    out = t.judge.receive_many(mails, now=t.now)
    assert out[0] == "handled" and len(out) == 2  # the rest is not tried: it waits in the mailbox
    assert transient_cause(out[1]) == "disk full"
    assert inbox_ids(t) == before + [inbox_ids(t)[-1]] and set(orders_of(t)) == {"England"}


def test_a_batch_sqlite_rolled_back_is_all_reported_unstored(table: Table, monkeypatch: Any) -> None:
    """SQLite rolls back the whole transaction on some I/O errors: then none of the batch was
    stored, and every mail of it must be reported so (the transport leaves them all unseen)."""
    t = table
    mails = order_mails(t)

    def io_error(h: Any) -> None:
        h.ctx.store.conn.execute("ROLLBACK")  # what SQLite does itself on such an error
        raise sqlite3.OperationalError("disk I/O error")

    run = handler.Handler.run
    bug_for(monkeypatch, t.powers["Germany"], io_error)
    before = inbox_ids(t)
    out = t.judge.receive_many(mails, now=t.now)
    assert len(out) == 3 and all(isinstance(x, BatchLost) for x in out)
    assert {transient_cause(x) for x in out} == {"I/O error"}
    assert inbox_ids(t) == before and orders_of(t) == {}
    monkeypatch.setattr(handler.Handler, "run", run)
    assert t.judge.receive_many(mails, now=t.now) == ["handled"] * 5  # offered again: all taken


CHILD = """
import os, pickle, signal, sys
from datetime import datetime
from judge.mail import Judge, JudgeConfig
from judge.mail import receive

db, mails_file, kill_at, now = sys.argv[1], sys.argv[2], int(sys.argv[3]), datetime.fromisoformat(sys.argv[4])
mails = pickle.load(open(mails_file, "rb"))
j = Judge(JudgeConfig(address="judge@example.test", db_path=db, password_cost=4, code="TEST"))
seen = 0
real = receive.Judge.receive

def receive_then_die(self, raw, source="", now=None):
    global seen
    out = real(self, raw, source, now)
    seen += 1
    if seen == kill_at:  # this mail is done inside the batch's transaction; the commit is not
        os.kill(os.getpid(), signal.SIGKILL)
    return out

receive.Judge.receive = receive_then_die
print(j.receive_many(mails, now=now), flush=True)
"""


@pytest.mark.parametrize("kill_at", [1, 3, 5])
def test_killed_inside_a_batch_none_of_it_is_stored_and_the_retry_takes_each_once(tmp_path: Path,
                                                                                    kill_at: int) -> None:
    import pickle

    t = Table(tmp_path)
    try:
        t.start_game()
        mails = order_mails(t)
        before = inbox_ids(t)
        t.close()
        (tmp_path / "mails.pickle").write_bytes(pickle.dumps(mails))
        child = subprocess.run([sys.executable, "-c", CHILD, str(t.cfg.db_path), str(tmp_path / "mails.pickle"),
                                str(kill_at), START.isoformat()], capture_output=True, text=True, env=dict(os.environ))
        assert child.returncode == -signal.SIGKILL, child.stderr
        assert child.stdout == ""  # it never said the mails were stored: the transport keeps them
        t.reopen()
        assert inbox_ids(t) == before and orders_of(t) == {}
        assert t.judge.receive_many(mails, now=t.now) == ["handled"] * 5
        assert orders_of(t) == {p: 1 for p in ORDERS}  # one submission each
    finally:
        t.close()


def test_store_batch_units_are_savepoints(tmp_path: Path) -> None:
    from judge.game.store import Store

    st = Store(tmp_path / "s.sqlite")
    try:
        st.conn.execute("CREATE TABLE t (x)")
        with st.batch():
            with st.transaction():
                st.conn.execute("INSERT INTO t VALUES (1)")
            with pytest.raises(ValueError):
                with st.transaction():
                    st.conn.execute("INSERT INTO t VALUES (2)")
                    raise ValueError
            with st.transaction():
                with st.transaction():  # nested units are fine inside a batch
                    st.conn.execute("INSERT INTO t VALUES (3)")
            assert st.conn.in_transaction
        assert not st.conn.in_transaction
        assert [r[0] for r in st.conn.execute("SELECT x FROM t ORDER BY x")] == [1, 3]
        with pytest.raises(RuntimeError):
            with st.batch():
                with st.transaction():
                    st.conn.execute("INSERT INTO t VALUES (4)")
                raise RuntimeError  # the batch's own body failing: none of it stays
        assert [r[0] for r in st.conn.execute("SELECT x FROM t ORDER BY x")] == [1, 3]
        with st.transaction():  # outside a batch: a transaction of its own again
            st.conn.execute("INSERT INTO t VALUES (5)")
        assert not st.conn.in_transaction
    finally:
        st.close()


def test_run_due_stops_after_most_events_and_the_next_call_goes_on(tmp_path: Path) -> None:
    """The daemon's scheduler runs a deadline burst a few games per trip, so the SMTP runner can
    send the first games' results meanwhile: ``most`` stops the run there, nothing skipped."""
    from datetime import timedelta

    t = Table(tmp_path)
    try:
        for name in ("ga", "gb", "gc"):
            t.start_game(name)
        due = t.judge.store.scalar("SELECT COUNT(*) FROM events WHERE state = 'pending'")
        assert due >= 3
        later = t.now + timedelta(days=30)
        assert t.judge.run_due(now=later, most=2) == 2
        assert t.judge.store.scalar("SELECT COUNT(*) FROM events WHERE state = 'pending' AND due <= ?",
                                    (later.isoformat(),)) >= 1
        rest = t.judge.run_due(now=later)
        assert rest >= 1 and t.phase("ga") != "S1901M" and t.phase("gc") != "S1901M"
    finally:
        t.close()
