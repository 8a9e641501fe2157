"""A judge host with 100,000 games: the same work on a store full of games and on a fresh one.

    python bench/scale.py [--finished 100000] [--running 10000] [--burst 1000] [--mails 200] [--map off]

Set-up (not timed). A template game is played through the real mail path (``judge demo``, two
years of the standard game: orders, press, mails in and out, reports, events). Its rows, every
table's, are copied into the big store ``--finished`` times as finished games and ``--running``
times as running ones (the last phase open, its deadline in the far future), each copy with its
own ids, names, players and message ids, written with executemany in one transaction: the real
schema, so the real code reads them. The map pictures and sent mails of the copies are cut to
1 kB each (the template's own sizes are printed, and what a game costs kept whole).

Then the same work on both stores, the fresh one (empty but for this work) first:

- ``--burst`` games made through the game service, orders in, every deadline the same minute;
- order mails (``--mails``) handled by ``Judge.receive`` (the real service path), and the same
  through the daemon's service thread as its IMAP reader drives it (``ServiceProxy.receive_many``
  then ``pending_outbox`` and ``mark_sent_many`` as the SMTP sender does): the IMAP path without
  the network;
- the deadline burst: ``Judge.run_due`` at that minute;
- LIST, HISTORY and SUMMARY mails;
- ``judge publish`` after the burst, into an archive folder that had every game before the work
  (its record of them: the pages themselves are not written for the big store's copies).

Prints each figure for both stores and their ratio, the machine's load, and the store's size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench"), str(ROOT)]

from judge.game.config import JudgeConfig  # noqa: E402
from judge.game.store import Store  # noqa: E402
from judge.mail.receive import Judge  # noqa: E402

#: id columns: table -> column -> the table whose ids it holds
REFS: dict[str, dict[str, str]] = {
    "players": {"id": "players"},
    "games": {"id": "games", "master_id": "players"},
    "seats": {"id": "seats", "game_id": "games", "player_id": "players"},
    "phases": {"id": "phases", "game_id": "games"},
    "orders": {"id": "orders", "phase_id": "phases"},
    "future_orders": {"id": "future_orders", "game_id": "games"},
    "press": {"id": "press", "game_id": "games"},
    "diary": {"id": "diary", "game_id": "games"},
    "reports": {"phase_id": "phases", "game_id": "games"},
    "events": {"id": "events", "game_id": "games", "phase_id": "phases"},
    "outbox": {"id": "outbox", "game_id": "games"},
    "inbox": {"id": "inbox"},
}
BLOB_CUT = 256
FAR = "2100-01-01T00:00:00+00:00"


def template_store(tmp: Path) -> Path:
    """A whole short game played through the real mail path (``judge demo``)."""
    from judge.demo import run_demo

    run_demo(tmp / "template", seed=1, max_years=2)
    return tmp / "template" / "judge.sqlite"


def fill(db: Path, template: Path, finished: int, running: int) -> dict[str, int]:
    """Copy the template's one game into ``db`` as ``finished`` + ``running`` games (INSERT ...
    SELECT over a series of copy numbers, one statement a table, one transaction); returns the rows
    written per table."""
    Store(db).close()  # the schema, made by the real code
    Store(template).close()  # (a template made by an older judge: brought to this schema)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")  # one big transaction: no WAL as large as the store
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("ATTACH DATABASE ? AS tpl", (str(template),))
    base = {t: int(conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM main.[{t}]").fetchone()[0]) for t in REFS}
    span = {t: int(conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM tpl.[{t}]").fetchone()[0]) for t in REFS}
    span["phases"] = int(conn.execute("SELECT MAX(id) FROM tpl.phases").fetchone()[0])
    last_seq = int(conn.execute("SELECT MAX(seq) FROM tpl.phases").fetchone()[0])
    last_event = int(conn.execute("SELECT MAX(id) FROM tpl.events").fetchone()[0])
    conn.execute("CREATE TEMP TABLE ks (k INTEGER PRIMARY KEY, live INTEGER NOT NULL)")
    conn.executemany("INSERT INTO ks VALUES (?, ?)", [(k, int(k >= finished)) for k in range(finished + running)])
    day = "strftime('%Y-%m-%dT%H:%M:%S+00:00', '2020-01-01', '+' || (ks.k * 7919 % 3000) || ' days')"
    special: dict[tuple[str, str], str] = {
        ("players", "address"): "replace(t.address, '@', '.' || ks.k || '@')",
        ("inbox", "sender"): "replace(t.sender, '@', '.' || ks.k || '@')",
        ("outbox", "recipients"): "replace(t.recipients, '@', '.' || ks.k || '@')",
        ("outbox", "message"): f"substr(t.message, 1, {BLOB_CUT})",
        ("reports", "png"): f"substr(t.png, 1, {BLOB_CUT})",
        ("reports", "svg"): f"substr(t.svg, 1, {BLOB_CUT})",
        ("games", "name"): "printf('%s%06d', CASE WHEN ks.live THEN 'run' ELSE 'old' END, ks.k)",
        ("games", "created"): day, ("games", "started"): day,
        ("games", "finished"): f"CASE WHEN ks.live THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S+00:00', "
                               f"'2020-01-01', '+' || (ks.k * 7919 % 3000 + 90) || ' days') END",
        ("games", "state"): "CASE WHEN ks.live THEN 'active' ELSE t.state END",
        ("games", "outcome"): "CASE WHEN ks.live THEN NULL ELSE t.outcome END",
    }
    live_last = f"ks.live AND t.seq = {last_seq}"
    special.update({("phases", "state"): f"CASE WHEN {live_last} THEN 'open' ELSE t.state END",
                    ("phases", "deadline"): f"CASE WHEN {live_last} THEN '{FAR}' ELSE t.deadline END",
                    ("phases", "processed_at"): f"CASE WHEN {live_last} THEN NULL ELSE t.processed_at END"})
    live_event = f"ks.live AND t.id = {last_event}"  # the running game's next deadline, far away
    special.update({("events", "kind"): f"CASE WHEN {live_event} THEN 'deadline' ELSE t.kind END",
                    ("events", "due"): f"CASE WHEN {live_event} THEN '{FAR}' ELSE t.due END",
                    ("events", "state"): f"CASE WHEN {live_event} THEN 'pending' ELSE t.state END",
                    ("events", "done_at"): f"CASE WHEN {live_event} THEN NULL ELSE t.done_at END"})
    written = {}
    conn.execute("BEGIN")
    for table in REFS:
        cols = [r[1] for r in conn.execute(f"PRAGMA main.table_info([{table}])")]
        exprs = []
        for c in cols:
            target = REFS[table].get(c)
            if (table, c) in special:
                exprs.append(special[(table, c)])
            elif target:
                exprs.append(f"t.[{c}] + {base[target]} + ks.k * {span[target]}")
            elif c == "message_id":
                exprs.append("t.message_id || '.' || ks.k")
            else:
                exprs.append(f"t.[{c}]")
        names = ", ".join(f"[{c}]" for c in cols)
        written[table] = conn.execute(f"INSERT INTO main.[{table}] ({names}) SELECT {', '.join(exprs)} "
                                      f"FROM ks, tpl.[{table}] t").rowcount
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode=WAL")  # as the judge keeps it
    conn.execute("DETACH DATABASE tpl")  # no ANALYZE: the judge never runs it, so its plans are SQLite's defaults
    conn.close()
    return written


# -- the work measured on both stores --------------------------------------------------------------
def _players(judge: Judge, game: str) -> list[tuple[str, str, str]]:
    """(power, address, password) of each seat of a bench game (deadlines.set_up: p<k>.<game>, pw<k>)."""
    rows = judge.store.all("SELECT s.power, p.address FROM seats s JOIN players p ON p.id = s.player_id "
                           "JOIN games g ON g.id = s.game_id WHERE g.name = ? AND s.role = 'player'", (game,))
    return [(r["power"], r["address"], "pw" + r["address"].split(".", 1)[0][1:]) for r in rows]


def order_mails(judge: Judge, n: int, burst: int, now: datetime, tag: str, prefix: str = "g") -> list[bytes]:
    """``n`` order mails, each from a player of another bench game, signed on, with that power's orders."""
    from judge.demo.robots import Robot, make_mail
    from judge.game import lifecycle as games
    from judge.variant import load_variant

    v = load_variant("standard")
    raws = []
    for i in range(n):
        name = f"{prefix}{i % burst}"
        power, addr, pw = _players(judge, name)[(i // burst) % 7]
        g = games.get_game(judge.store, name)
        pos = games.current_phase(judge.store, g).position
        lines = Robot(addr, pw, random.Random(i), power=power, free_form=False, mistakes=0).orders(pos)
        body = f"SIGNON {v.powers[power].letter}{name} {pw}\n" + "\n".join(lines)
        raws.append(make_mail(addr, judge.cfg.address, body, "orders", message_id=f"<{tag}.{i}@bench.test>",
                              date=now))
    return raws


def command_mails(judge: Judge, text: str, n: int, burst: int, now: datetime, tag: str,
                  prefix: str = "g") -> list[bytes]:
    from judge.demo.robots import make_mail

    raws = []
    for i in range(n):
        _, addr, _ = _players(judge, f"{prefix}{i % burst}")[(i // burst) % 7]
        raws.append(make_mail(addr, judge.cfg.address, text.format(game=f"{prefix}{i % burst}"), "info",
                              message_id=f"<{tag}.{i}@bench.test>", date=now))
    return raws


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def imap_standin(cfg: JudgeConfig, raws: list[bytes], now: datetime) -> None:
    """The daemon's path without the network: FETCH batches of 20 handed to the service thread
    (``ServiceProxy.receive_many``), then the SMTP sender's ``pending_outbox``/``mark_sent_many``."""
    from judge.daemon.service import ServiceProxy

    async def run() -> None:
        proxy = ServiceProxy(lambda: Judge(cfg))
        await proxy.open()
        try:
            for k in range(0, len(raws), 20):
                out = await proxy.receive_many([(r, f"INBOX:{k + j}") for j, r in enumerate(raws[k:k + 20])],
                                               lambda: False)
                assert all(x == "handled" for x in out), out
                while items := await proxy.pending_outbox(limit=50):
                    await proxy.mark_sent_many([it.id for it in items])
        finally:
            proxy.close()

    cfg.clock = lambda: now  # type: ignore[method-assign]
    asyncio.run(run())


def published_before(db: Path, out: Path) -> None:
    """``out`` as ``judge publish`` left it after publishing every game now in the store: its record
    of what it published (the list's lines, page by page), not the game pages, which the next run
    does not touch."""
    from judge.game import archive

    conn = sqlite3.connect(db)
    top = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM game_changes").fetchone()[0]
    pages: dict[int, dict[str, Any]] = {}
    for gid, name, variant, state, turns, last in conn.execute(
            "SELECT g.id, g.name, g.variant, g.state, COUNT(p.id), MAX(p.seq) FROM games g "
            "LEFT JOIN phases p ON p.game_id = g.id AND p.state = 'processed' GROUP BY g.id"):
        pages.setdefault(archive._page_of(gid), {})[name] = {
            "name": name, "href": f"{name}/index.html", "variant": variant, "state": state, "outcome": "",
            "current": "", "id": gid, "turns": turns,
            "phases": [{"href": f"{last:03d}-X.html", "name": "last", "short": "X"}] if last else []}
    conn.close()
    (out / archive.STATE_DIR).mkdir(parents=True, exist_ok=True)
    summary = {}
    for page, lines in pages.items():
        archive._write_json(out / archive.STATE_DIR / f"{page}.json", lines)
        names = sorted(lines)
        summary[str(page)] = {"href": archive._page_file(page), "first": names[0], "last": names[-1],
                              "count": len(names)}
    archive._write_json(out / archive.STATE_FILE, {"seq": top, "pages": summary})


def measure(db: Path, burst: int, mails: int, map_mode: str, out: Path, rnd: int) -> dict[str, float]:
    """The work on the store at ``db`` (round ``rnd``: its own games, a month after the last
    round's): seconds per item of each kind."""
    from deadlines import START, set_up

    from judge.game.archive import write_archive

    prefix, start = f"r{rnd}g", START + timedelta(days=30 * rnd)
    Store(db).close()
    published_before(db, out)  # (not timed) every game so far published
    cfg = JudgeConfig(address="judge@bench.test", db_path=db, code="BENCH", password_cost=4,
                      archive_url="https://judge.bench.test/games")
    judge = Judge(cfg)
    deadline = set_up(judge, burst, 1, map_mode, prefix=prefix, start=start)
    before = start + timedelta(hours=1)
    got: dict[str, float] = {}
    raws = order_mails(judge, mails, burst, before, f"recv{rnd}", prefix)
    got["order mail, Judge.receive"] = timed(lambda: [judge.receive(r, now=before) for r in raws]) / mails
    raws = order_mails(judge, mails, burst, before, f"imap{rnd}", prefix)
    judge.close()
    got["order mail, IMAP path stand-in"] = timed(lambda: imap_standin(cfg, raws, before)) / mails
    judge = Judge(cfg)
    got["deadline burst, a game"] = timed(lambda: judge.run_due(now=deadline + timedelta(seconds=30))) / burst
    after = deadline + timedelta(hours=1)
    for what, text in (("LIST", "LIST"), ("HISTORY", "HISTORY {game}"), ("SUMMARY", "SUMMARY {game}")):
        raws = command_mails(judge, text, mails, burst, after, f"{what}{rnd}", prefix)
        got[f"{what} mail"] = timed(lambda: [judge.receive(r, now=after) for r in raws]) / len(raws)
    with judge.store.transaction():  # (not timed) this round's games wait out the next rounds
        judge.store.conn.execute("UPDATE events SET due = ? WHERE state = 'pending' AND due < ?", (FAR, FAR))
    judge.close()
    store = Store(db, readonly=True)
    got["publish after the burst"] = timed(lambda: write_archive(store, out, "BENCH"))
    store.close()
    return got


def measure_all(tmp: Path, args: argparse.Namespace, first: int = 0) -> None:
    """The work on both stores in ``tmp``, ``args.rounds`` rounds from round ``first``; prints the table."""
    runs: dict[str, list[dict[str, float]]] = {"fresh": [], "big": []}
    for rnd in range(first, first + args.rounds):  # the two stores in turn, so a change in the load hits both
        for label in ("fresh", "big"):
            load = os.getloadavg()
            runs[label].append(measure(tmp / f"{label}.sqlite", args.burst, args.mails, args.map,
                                       tmp / f"pub-{label}", rnd))
            print(f"round {rnd - first + 1}, {label} store measured (load average {load[0]:.2f} {load[1]:.2f} "
                  f"{load[2]:.2f} before, {os.getloadavg()[0]:.2f} after)")
    print(f"\n{'what (best of ' + str(args.rounds) + ' rounds)':34} {'fresh':>10} {'big':>10} {'big/fresh':>9}"
          f"   every round, fresh | big")
    for what in runs["fresh"][0]:
        fresh, big = (min(r[what] for r in runs[k]) for k in ("fresh", "big"))
        every = " | ".join(" ".join(f"{r[what] * 1000:.1f}" for r in runs[k]) for k in ("fresh", "big"))
        print(f"{what:34} {fresh * 1000:8.2f}ms {big * 1000:8.2f}ms {big / fresh:8.2f}x   {every}")
    print(f"CPython {sys.version.split()[0]}, {os.cpu_count()} cores, burst {args.burst} games "
          f"(map {args.map}), {args.mails} order mails a path")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finished", type=int, default=100_000)
    ap.add_argument("--running", type=int, default=10_000)
    ap.add_argument("--burst", type=int, default=1000, help="games due at the same minute")
    ap.add_argument("--mails", type=int, default=200, help="order mails on each path")
    ap.add_argument("--map", default="off", choices=["png", "off"], help="maps in the burst's reports")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the work on each store (best kept)")
    ap.add_argument("--reuse", type=int, default=0, metavar="ROUND",
                    help="measure the stores left in --dir again, from this round number on (no fill)")
    ap.add_argument("--dir", default=None, help="where the stores go (default: a temporary folder)")
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="judge-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        if args.reuse:  # the stores of an earlier run with --dir: measured again, not filled again
            measure_all(tmp, args, first=args.reuse)
            return
        t0 = time.perf_counter()
        template = template_store(tmp)
        tsize = template.stat().st_size
        print(f"template game: {tsize / 1e6:.2f} MB whole (maps and sent mail included), "
              f"played in {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        rows = fill(tmp / "big.sqlite", template, args.finished, args.running)
        n = args.finished + args.running
        size = (tmp / "big.sqlite").stat().st_size
        print(f"big store: {args.finished} finished + {args.running} running games, {sum(rows.values()):,} rows "
              f"in {time.perf_counter() - t0:.0f} s; {size / 1e9:.2f} GB, {size / max(n, 1) / 1e3:.0f} kB a game "
              f"(pictures and sent mails cut to {BLOB_CUT} bytes)")
        print("  rows: " + ", ".join(f"{t} {c:,}" for t, c in rows.items()))
        measure_all(tmp, args)
    finally:
        if not args.dir:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
