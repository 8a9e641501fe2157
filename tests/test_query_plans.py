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
from datetime import datetime, timedelta
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
SCAN = re.compile(r"\bSCAN (?:TABLE )?(?!CONSTANT ROW)(\w+)(?: USING (?:COVERING )?INDEX \w+)?"  # (a row of literals)
                  r"|^SEARCH (?:TABLE )?(\w+)$")  # a MIN/MAX with no index to search: every row read
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
    step[0] = "order mail, daemon batch"  # as the IMAP reader hands a FETCH batch over
    assert set(judge.receive_many([(r, f"INBOX:{k}") for k, r in enumerate(order_mail_kinds(judge, before))],
                                  now=before)) == {"handled"}
    step[0] = "mail out"  # as the SMTP sender drains the outbox, a delivery that failed once included
    items = judge.pending_outbox(limit=50, now=before)
    assert len(items) > 2
    judge.mark_failed(items[0].id, "451 try again later", False, now=before)
    judge.mark_sent(items[1].id, now=before)
    judge.mark_sent_many([it.id for it in items[2:]], now=before)
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


def order_mail_kinds(judge: Judge, now: datetime) -> list[bytes]:
    """The mails a player sends in a running game besides a first set of orders: orders again
    (they replace the first), orders for the next phase, press and a broadcast beside orders, a
    diary entry, a wrong password, orders without SIGNON, SET ADDRESS and then a mail from that
    address."""
    from judge.demo.robots import make_mail

    addr, pw = next((a, p) for power, a, p in scale._players(judge, "g1") if power == "France")
    sign = f"SIGNON Fg1 {pw}\n"
    other = "other." + addr
    bodies = [(addr, sign + "A PAR - BUR\nA MAR - SPA\nF BRE - MAO"),
              (addr, sign + "A PAR H\nFALL 1901\nA PAR - PIC"),
              (addr, sign + "A MAR H\nPRESS TO ENGLAND\nShall we?\nENDPRESS"),
              (addr, sign + "BROADCAST\nPeace to all.\nENDPRESS\nF BRE H"),
              (addr, sign + "DIARY\nEngland will not last.\nENDDIARY"),
              (addr, f"SIGNON Fg1 not-{pw}\nA PAR H"),
              (addr, "A PAR H"),
              (addr, sign + f"SET ADDRESS {other}"),
              (other, sign + "A PAR - BUR")]
    return [make_mail(sender, judge.cfg.address, body, "orders", message_id=f"<kind.{k}@bench.test>", date=now)
            for k, (sender, body) in enumerate(bodies)]


def test_the_scenario_ran_the_hot_statements(statements: dict[str, str]) -> None:
    steps = set(statements.values())
    assert {"order mail", "order mail, daemon batch", "mail out", "deadline burst", "LIST", "HISTORY {game}", "SUMMARY {game}", "publish"} <= steps
    assert any("game_changes" in s for s, step in statements.items() if step == "publish")
    assert any("FROM events" in s for s in statements)
    for kind in ("INSERT INTO [press]", "INSERT INTO [future_orders]", "INSERT INTO [diary]",
                 "INSERT INTO [auth_failures]", "UPDATE [seats] SET [addresses]", "UPDATE outbox SET status = 'sent'"):
        assert any(kind in s for s in statements), kind  # the order mails of every kind were handled
    assert len(statements) > 50


def full_scans(store: Store, sql: str) -> list[str]:
    """The tables a statement reads whole (``SCAN t``, with or without an index) or in one state
    (an index search on the state column alone), small tables and the fine cases aside."""
    plan = store.all(f"EXPLAIN QUERY PLAN {sql}")
    out = []
    for row in plan:
        m = SCAN.search(row["detail"]) or STATE_ONLY.search(row["detail"])
        table = m and next(t for t in m.groups() if t)
        if table and table not in SMALL_TABLES and not table.startswith("sqlite_"):
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


def trigger_statements(store: Store) -> dict[str, str]:
    """Each statement of each trigger (a trigger's plan is not in its statement's EXPLAIN QUERY
    PLAN), the row's values (``new.x``, ``old.x``) written in as a literal -> the trigger's name."""
    out = {}
    for name, sql in store.all("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"):
        body = re.search(r"\bBEGIN\b(.*)\bEND\s*$", sql, re.S | re.I)
        assert body, sql
        for stmt in body.group(1).split(";"):
            if stmt.strip():
                out[re.sub(r"\b(?:new|old)\.\w+", "1", stmt.strip(), flags=re.I)] = name
    return out


def test_no_trigger_scans_a_growing_table(tmp_path: Path) -> None:
    """The triggers run with the hot statements (every order written marks its game changed)."""
    store = Store(tmp_path / "plans.sqlite")
    stmts = trigger_statements(store)
    assert any("game_changes" in s for s in stmts) and any("seat_addresses" in s for s in stmts)
    bad = [f"[{name}] {sql}\n    " + "\n    ".join(scans) for sql, name in stmts.items()
           if (scans := full_scans(store, sql))]
    store.close()
    assert not bad, "whole-table scans in triggers:\n" + "\n".join(bad)


def test_the_trigger_check_sees_a_scan(tmp_path: Path) -> None:
    store = Store(tmp_path / "plans.sqlite")
    store.conn.execute("CREATE TRIGGER bad AFTER UPDATE ON orders BEGIN "
                       "UPDATE games SET state = state WHERE variant = new.phase_id; END")
    stmts = trigger_statements(store)
    assert [full_scans(store, sql) for sql, name in stmts.items() if name == "bad"] == [["SCAN games"]]
    store.close()


def test_the_check_sees_a_scan(tmp_path: Path) -> None:
    store = Store(tmp_path / "plans.sqlite")
    assert full_scans(store, "SELECT * FROM games WHERE variant = 'standard'")
    assert full_scans(store, "SELECT COUNT(*) FROM inbox")
    assert not full_scans(store, "SELECT * FROM games WHERE name = 'x'")
    assert not full_scans(store, "SELECT * FROM settings")
    assert not full_scans(store, "SELECT 1, (SELECT COALESCE(MAX(seq), 0) FROM game_changes)")  # a row of literals
    assert full_scans(store, "SELECT MAX(processed_at) FROM phases WHERE state = 'processed'")  # no index on either
    assert not full_scans(store, "SELECT MAX(seq) FROM phases WHERE game_id = 1")
    assert full_scans(store, "SELECT * FROM outbox WHERE status = 'sent'")  # every mail ever sent
    assert not full_scans(store, "SELECT * FROM events WHERE state = 'pending' AND due <= '2030' ORDER BY due LIMIT 1")
    store.close()
