"""No hot query reads a whole table that grows with the games.

The statements are collected, not listed by hand: a store holding a few hundred copies of a
played game (bench/scale.py's filler, the real schema) gets the work a busy host does (order mails,
a deadline burst, LIST/HISTORY/SUMMARY, the mail out, ``judge publish``'s queries) with SQLite's
trace callback on the connection, and every distinct statement is put to EXPLAIN QUERY PLAN.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import scale  # noqa: E402
from deadlines import START, set_up  # noqa: E402

from judge.game.archive import write_archive
from judge.game.config import JudgeConfig
from judge.game.store import Store
from judge.mail import abuse
from judge.mail.receive import Judge

#: tables that stay small however many games there are, with why a scan of them is fine
SMALL_TABLES = {
    "settings": "a handful of keys of the judge's own",
    "moving": "temporary: the games being moved by archive-games",
    "sqlite_master": "the schema",
    "json_each": "the JSON list of the one row at hand (a message's recipients, a seat's addresses)",
}
#: statements that read everything on purpose, with why they are not hot
NOT_HOT = [
    (re.compile(r"^PRAGMA|^BEGIN|^COMMIT|^ROLLBACK|^SAVEPOINT|^RELEASE|^EXPLAIN", re.I), "not a query"),
]
LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+\b|X'[0-9A-Fa-f]*'")
SCAN = re.compile(r"\bSCAN (?:TABLE )?(\w+)(?: USING (?:COVERING )?INDEX \w+)?")
#: an index search on a state alone reads every row in that state: every running game's, every
#: pending event's (the deadline burst once read all 11,000 pending events for each game it ran)
STATE_ONLY = re.compile(r"\bSEARCH (?:TABLE )?(\w+) USING (?:COVERING )?INDEX \w+ \((?:state|status)=\?\)")
#: state-only searches that are fine, with why
STATE_ONLY_FINE = [
    (re.compile(r"FROM games WHERE state = 'forming'"), "games open to join: a few on any host"),
    (re.compile(r"FROM games WHERE state = '\w+' ORDER BY id DESC LIMIT \d+"),
     "LIST: the newest running games, read in the index's order and stopped at the limit"),
    (re.compile(r"SELECT COUNT\(\*\) FROM games WHERE state IN \('active', 'paused'\)"),
     "LIST's count of the running games: index entries only, no row read"),
    (re.compile(r"SELECT MIN\(due\) FROM events WHERE state = 'pending'"),
     "the first entry of the index (state, due): SQLite reads that one entry for a MIN"),
]


@pytest.fixture(scope="module")
def statements(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every distinct statement of the scenario -> the test step that ran it."""
    tmp = tmp_path_factory.mktemp("plans")
    template = scale.template_store(tmp)
    db = tmp / "judge.sqlite"
    scale.fill(db, template, 200, 20)
    seen: dict[str, str] = {}
    shapes: set[str] = set()
    step = ["set-up"]

    def trace(sql: str) -> None:
        shape = LITERAL.sub("?", sql.strip())
        if shape not in shapes:  # one example of each statement, its values written in
            shapes.add(shape)
            seen[sql.strip()] = step[0]

    cfg = JudgeConfig(address="judge@bench.test", db_path=db, code="BENCH", password_cost=4,
                      archive_url="https://judge.bench.test/games")
    judge = Judge(cfg)
    deadline = set_up(judge, 4, 1, "off")
    judge.store.conn.set_trace_callback(trace)
    before = START + timedelta(hours=1)
    step[0] = "order mail"
    for raw in scale.order_mails(judge, 8, 4, before, "o"):
        assert judge.receive(raw, now=before) == "handled"
    step[0] = "mail out"
    items = judge.pending_outbox(limit=50, now=before)
    assert items
    judge.mark_sent_many([it.id for it in items], now=before)
    step[0] = "deadline burst"
    assert judge.run_due(now=deadline + timedelta(seconds=30)) >= 4
    after = deadline + timedelta(hours=1)
    for what in ("LIST", "LIST {game}", "HISTORY {game}", "SUMMARY {game}", "WHOGAME {game}"):
        step[0] = what
        for raw in scale.command_mails(judge, what, 2, 4, after, what.split()[0] + str(len(what))):
            assert judge.receive(raw, now=after) == "handled"
    step[0] = "next wake-up"
    judge.next_wakeup()
    step[0] = "publish"  # incremental: the games changed since the last run (the first run reads all)
    judge.store.conn.set_trace_callback(None)
    write_archive(judge.store, tmp / "site", "BENCH")
    judge.store.conn.set_trace_callback(trace)
    for raw in scale.order_mails(judge, 4, 4, after, "p"):  # the games change again
        judge.receive(raw, now=after)
    write_archive(judge.store, tmp / "site", "BENCH")
    step[0] = "bounce"  # what a delivery status notification asks (judge/mail/receive.py _bounced)
    judge.store.conn.set_trace_callback(None)
    sent = judge.store.one("SELECT message_id, recipients FROM outbox ORDER BY id DESC LIMIT 1")
    judge.store.conn.set_trace_callback(trace)
    addr = json.loads(sent["recipients"])[0]
    assert abuse.sent_to(judge.store, addr, [sent["message_id"]])
    assert abuse.games_of(judge.store, addr)
    assert abuse.known(judge.store, addr)
    judge.close()
    return seen


def test_the_scenario_ran_the_hot_statements(statements: dict[str, str]) -> None:
    steps = set(statements.values())
    assert {"order mail", "mail out", "deadline burst", "LIST", "HISTORY {game}", "SUMMARY {game}", "publish"} <= steps
    assert any("game_changes" in s for s, step in statements.items() if step == "publish")
    assert any("FROM events" in s for s in statements)
    assert len(statements) > 50


def full_scans(store: Store, sql: str) -> list[str]:
    """The tables a statement reads whole (``SCAN t``, with or without an index) or in one state
    (an index search on the state column alone), small tables and the fine cases aside."""
    plan = store.all(f"EXPLAIN QUERY PLAN {sql}")
    out = []
    for row in plan:
        m = SCAN.search(row["detail"]) or STATE_ONLY.search(row["detail"])
        if m and m.group(1) not in SMALL_TABLES and not m.group(1).startswith("sqlite_"):
            if m.re is STATE_ONLY and any(p.search(sql) for p, _ in STATE_ONLY_FINE):
                continue
            out.append(row["detail"])
    return out


def test_no_hot_query_scans_a_growing_table(statements: dict[str, str], tmp_path: Path) -> None:
    store = Store(tmp_path / "plans.sqlite")  # the schema only: a plan needs no rows
    store.conn.execute("CREATE TEMP TABLE moving (id INTEGER PRIMARY KEY)")
    bad = []
    for sql, step in statements.items():
        if any(p.search(sql) for p, _ in NOT_HOT):
            continue
        scans = full_scans(store, sql)
        if scans:
            bad.append(f"[{step}] {sql[:300]}\n    " + "\n    ".join(scans))
    store.close()
    assert not bad, "whole-table scans in hot queries:\n" + "\n".join(bad)


def test_the_check_sees_a_scan(tmp_path: Path) -> None:
    store = Store(tmp_path / "plans.sqlite")
    assert full_scans(store, "SELECT * FROM games WHERE variant = 'standard'")
    assert full_scans(store, "SELECT COUNT(*) FROM inbox")
    assert not full_scans(store, "SELECT * FROM games WHERE name = 'x'")
    assert not full_scans(store, "SELECT * FROM settings")
    assert full_scans(store, "SELECT * FROM outbox WHERE status = 'sent'")  # every mail ever sent
    assert not full_scans(store, "SELECT * FROM events WHERE state = 'pending' AND due <= '2030' ORDER BY due LIMIT 1")
    store.close()
