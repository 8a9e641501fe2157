"""Trimming sent mail (judge/game/outbox_trim.py, `judge trim-outbox`, the daemon's daily round):
only mail sent before the cutoff loses its body, its row and header stay; unsent, retrying and
failed mail is never touched; a bounce naming a trimmed mail is still believed; HISTORY, SUMMARY
and `judge status` answer as before; a dry run changes nothing; a kill mid-trim loses nothing.
All on a real SQLite file, the mail through the real Maildir path."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from judge.daemon.outbox_trimmer import OutboxTrimmer
from judge.daemon.service import ServiceProxy
from judge.daemon.state import DaemonState
from judge.game import outbox
from judge.game.config import JudgeConfig
from judge.game.outbox_trim import MARK, header_block, trim
from judge.mail import Judge
from test_mail_abuse import dsn
from test_service_helpers import Table, hold_all
from test_service_summary import history

#: the game is played in the past, so the console command (on the real clock) finds old mail
PAST = datetime(2025, 1, 6, 12, 0, tzinfo=timezone.utc)
MONTH = timedelta(days=30)


def played(tmp: Path) -> Table:
    """A game started at PAST (sign-on mails), its first results two days later."""
    t = Table(tmp)
    t.now = PAST
    t.start_game()
    t.now = PAST + timedelta(days=2)
    hold_all(t)
    assert t.phase() == "F1901M"
    return t


def outbox_rows(store_or_path) -> dict[int, dict]:
    if isinstance(store_or_path, Path):
        db = sqlite3.connect(store_or_path)
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM outbox").fetchall()
        db.close()
    else:
        rows = store_or_path.all("SELECT * FROM outbox")
    return {r["id"]: dict(r) for r in rows}


def assert_trimmed_from(new: dict, old: dict) -> None:
    """The row kept as it was but for its body: the header block as sent, after one added line."""
    msg = bytes(new["message"])
    first, _, rest = msg.partition(b"\r\n")
    assert first.startswith(MARK) and first.endswith(f"; was {len(old['message'])} bytes".encode())
    assert rest == header_block(bytes(old["message"]))
    assert len(msg) < len(old["message"])
    for key in ("status", "recipients", "message_id", "sent_at", "created", "attempts", "game_id", "kind"):
        assert new[key] == old[key], key


@pytest.fixture
def table(tmp_path):
    t = played(tmp_path)
    yield t
    t.close()


def test_only_mail_sent_before_the_cutoff_is_trimmed(table: Table) -> None:
    t = table
    before = outbox_rows(t.judge.store)
    assert {r["status"] for r in before.values()} == {"sent"}
    early = {i for i, r in before.items() if r["sent_at"] < (PAST + timedelta(days=1)).isoformat()}
    late = set(before) - early
    assert early and late
    results = [i for i in late if "Results" in bytes(before[i]["message"])[:2000].decode("utf-8", "replace")]
    assert results and all(len(before[i]["message"]) > 20_000 for i in results)  # the map rides along

    # a day after the sign-ons' 30 days: they go, the results (sent the day after) stay whole
    done = trim(t.judge.store, MONTH, PAST + MONTH + timedelta(days=1))
    after = outbox_rows(t.judge.store)
    assert done.mails == len(early) and set(after) == set(before)
    for i in early:
        assert_trimmed_from(after[i], before[i])
    for i in late:
        assert after[i] == before[i]
    assert done.freed == sum(len(before[i]["message"]) - len(after[i]["message"]) for i in early) > 0

    # later the results go too, and a run again finds nothing more to do
    done = trim(t.judge.store, MONTH, PAST + MONTH + timedelta(days=3))
    assert done.mails == len(late) and done.freed > 20_000 * len(results)
    again = outbox_rows(t.judge.store)
    for i in before:
        assert_trimmed_from(again[i], before[i])
    assert trim(t.judge.store, MONTH, PAST + MONTH + timedelta(days=30)).mails == 0
    assert outbox_rows(t.judge.store) == again


def test_unsent_retrying_and_failed_mail_is_never_touched(table: Table) -> None:
    t = table
    store, cfg = t.judge.store, t.cfg
    eng = t.powers["England"]
    with store.transaction():
        waiting = outbox.queue(store, cfg, [eng], "TEST: waiting", "not sent yet\n" * 200, PAST)
        retrying = outbox.queue(store, cfg, [eng], "TEST: retrying", "the server said later\n" * 200, PAST)
        given_up = outbox.queue(store, cfg, ["gone@example.test"], "TEST: gone", "never arrives\n" * 200, PAST)
    t.judge.mark_failed(retrying, "451 try again later", False, PAST)
    t.judge.mark_failed(given_up, "550 no such user", True, PAST)
    kept = {i: outbox_rows(store)[i] for i in (waiting, retrying, given_up)}
    assert [kept[i]["status"] for i in (waiting, retrying, given_up)] == ["pending", "pending", "failed"]

    far = PAST + timedelta(days=400)
    done = trim(store, MONTH, far)
    rows = outbox_rows(store)
    assert done.mails == sum(1 for r in rows.values() if r["status"] == "sent") > 0
    for i in kept:
        assert rows[i] == kept[i]
    # and the waiting mail still goes out whole
    due = {item.id: item.message for item in t.judge.pending_outbox(limit=100, now=far)}
    assert due == {waiting: bytes(kept[waiting]["message"]), retrying: bytes(kept[retrying]["message"])}


def test_a_bounce_of_a_trimmed_mail_is_still_recognised(table: Table) -> None:
    t = table
    eng = t.powers["England"]
    results = [m for m in t.to(eng) if "S1901M Results" in m.subject]
    assert results
    mid = str(results[-1].msg["Message-ID"])
    t.now = PAST + timedelta(days=60)
    assert trim(t.judge.store, MONTH, t.now).mails > 0
    row = t.judge.store.one("SELECT message FROM outbox WHERE message_id = ?", (mid,))
    assert bytes(row["message"]).startswith(MARK)
    t.drop(dsn(eng, 1, mid))
    t.run()
    assert [r["address"] for r in t.rows("SELECT address FROM bounces")] == [eng]


def test_history_and_summary_answer_as_before(table: Table) -> None:
    t = table
    fra = t.powers["France"]
    hist, files = history(t)
    summary = t.reply_to(fra, t.send(fra, "SUMMARY tg")).body
    assert files and "S1901M" in hist
    assert trim(t.judge.store, MONTH, t.now + timedelta(days=31)).mails > 0
    assert history(t) == (hist, files)
    assert t.reply_to(fra, t.send(fra, "SUMMARY tg")).body == summary


def judge_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, timeout=120)


def dump(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def test_the_console_command_and_its_dry_run(tmp_path: Path) -> None:
    t = played(tmp_path)
    t.close()
    db = tmp_path / "judge.sqlite"
    before, rows = dump(db), outbox_rows(db)
    status = json.loads(judge_cli("status", "--db", str(db)).stdout)["outbox"]

    dry = judge_cli("trim-outbox", "--db", str(db), "--older-than", "30d", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    said = json.loads(dry.stdout)
    assert said["dry_run"] and said["mails"] == len(rows) and said["freed"] > 20_000
    assert dump(db) == before

    real = judge_cli("trim-outbox", "--db", str(db), "--older-than", "4w", "--chunk", "7")
    assert real.returncode == 0, real.stderr
    done = json.loads(real.stdout)
    assert (done["mails"], done["freed"]) == (said["mails"], said["freed"])
    after = outbox_rows(db)
    for i in rows:
        assert_trimmed_from(after[i], rows[i])
    assert json.loads(judge_cli("status", "--db", str(db)).stdout)["outbox"] == status
    assert json.loads(judge_cli("trim-outbox", "--db", str(db)).stdout)["mails"] == 0  # default: 30 days


@pytest.mark.parametrize("age", ["12h", "0d", "thirty", "-3d", ""])
def test_an_age_under_a_day_or_unreadable_is_refused(tmp_path: Path, age: str) -> None:
    t = played(tmp_path)
    t.close()
    db = tmp_path / "judge.sqlite"
    before = dump(db)
    got = judge_cli("trim-outbox", "--db", str(db), "--older-than", age)
    assert got.returncode == 2 and "--older-than" in got.stderr
    assert dump(db) == before


def test_the_keep_days_setting_is_checked() -> None:
    assert JudgeConfig(outbox_keep_days=0).outbox_keep_days == 0
    for bad in (0.5, -1, True, "30"):
        with pytest.raises(ValueError, match="outbox_keep_days"):
            JudgeConfig(outbox_keep_days=bad)


def test_a_kill_mid_trim_leaves_the_store_consistent(tmp_path: Path) -> None:
    t = played(tmp_path)
    store = t.judge.store
    with store.transaction():  # a busy host's outbox: the game's mail many times over
        for _ in range(60):
            store.conn.execute("INSERT INTO outbox (sender, recipients, message, status, attempts, next_attempt, "
                               "created, sent_at, game_id, kind, message_id) SELECT sender, recipients, message, "
                               "status, attempts, next_attempt, created, sent_at, game_id, kind, message_id "
                               "FROM outbox WHERE id <= 120")
        pending = outbox.queue(store, t.cfg, [t.powers["Italy"]], "TEST: waiting", "still to go\n" * 300, PAST)
    t.close()
    db = tmp_path / "judge.sqlite"
    rows = outbox_rows(db)
    sent = [i for i, r in rows.items() if r["status"] == "sent"]
    assert len(sent) > 5000

    proc = subprocess.Popen([sys.executable, "-m", "judge.cli", "trim-outbox", "--db", str(db), "--chunk", "3"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    watch = sqlite3.connect(db, timeout=30)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if watch.execute("SELECT count(*) FROM outbox WHERE next_attempt IS NULL").fetchone()[0] >= 30:
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        watch.close()
    assert proc.returncode == -signal.SIGKILL, "the trim ended before it could be killed"

    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    mid = outbox_rows(db)
    trimmed = [i for i in sent if bytes(mid[i]["message"]).startswith(MARK)]
    assert 30 <= len(trimmed) < len(sent)
    for i in sent:  # each row whole or trimmed, never half
        if i in trimmed:
            assert_trimmed_from(mid[i], rows[i])
            assert mid[i]["next_attempt"] is None
        else:
            assert mid[i] == rows[i]
    assert mid[pending] == rows[pending]

    again = judge_cli("trim-outbox", "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["mails"] == len(sent) - len(trimmed)
    end = outbox_rows(db)
    for i in sent:
        assert_trimmed_from(end[i], rows[i])
    assert end[pending] == rows[pending]


def test_the_daemon_trims_once_a_round_through_its_service_thread(tmp_path: Path) -> None:
    t = played(tmp_path)
    t.close()
    rows = outbox_rows(tmp_path / "judge.sqlite")

    async def go(keep_days: float) -> OutboxTrimmer:
        cfg = JudgeConfig(address=t.cfg.address, db_path=t.cfg.db_path, outbox_keep_days=keep_days)
        service = ServiceProxy(lambda: Judge(cfg))
        await service.open()
        state = DaemonState(tmp_path / "state.sqlite")
        stop = asyncio.Event()
        trimmer = OutboxTrimmer(service, state, stop, interval=3600, first=0.01)
        task = asyncio.create_task(trimmer.run())
        for _ in range(500):
            if trimmer.rounds or task.done():
                break
            await asyncio.sleep(0.01)
        stop.set()
        await task
        await asyncio.to_thread(service.close)
        state.close()
        return trimmer

    off = asyncio.run(go(0))  # switched off: the runner ends, nothing changes
    assert off.rounds == 0 and outbox_rows(tmp_path / "judge.sqlite") == rows
    on = asyncio.run(go(30))
    assert on.rounds == 1 and on.total.mails == len(rows)
    after = outbox_rows(tmp_path / "judge.sqlite")
    for i in rows:
        assert_trimmed_from(after[i], rows[i])


def test_the_trim_reads_the_index_not_the_table(table: Table) -> None:
    """A daily run reads the rows still to trim, not the millions trimmed before."""
    seen: list[str] = []
    table.judge.store.conn.set_trace_callback(seen.append)
    try:
        trim(table.judge.store, MONTH, PAST + timedelta(days=90), chunk=5)
    finally:
        table.judge.store.conn.set_trace_callback(None)
    reads = {s for s in seen if s.startswith("SELECT") and "FROM outbox" in s}
    assert reads
    for sql in reads:
        plan = " ".join(r[-1] for r in table.judge.store.all("EXPLAIN QUERY PLAN " + sql))
        assert "SCAN" not in plan and "TEMP B-TREE" not in plan, (sql, plan)
        assert "INDEX" in plan or "INTEGER PRIMARY KEY" in plan, (sql, plan)
