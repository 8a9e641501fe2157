"""A judge host with 100,000 games: the same work on a store full of games and on a fresh one.

    python bench/scale.py [--finished 100000] [--running 10000] [--burst 1000] [--mails 200] [--map off]

Set-up (not timed). A template game is played through the real mail path (``judge demo``, two
years of the standard game: orders, press, mails in and out, reports, events). Its rows, every
table's, are copied into the big store ``--finished`` times as finished games and ``--running``
times as running ones (the last phase open, its deadline in the far future), each copy with its
own ids, names, players and message ids, written with executemany in one transaction: the real
schema, so the real code reads them. The map pictures and sent mails of the copies are cut to
1 kB each (the template's own sizes are printed, and what a game costs kept whole).

Then the same work on both stores, each store's steps timed in turn (a block of 20 mails on the
fresh store, the same on the big one, the next block ...), so that a change in the machine's load
lands on both alike (on a shared machine the load moves within seconds, and timing one store after
the other made ratios from 0.6x to 1.45x out of the same work):

- ``--burst`` games made through the game service, orders in, every deadline the same minute;
- order mails (``--mails``) handled by ``Judge.receive`` (the real service path), and the same
  through the daemon's service thread as its IMAP reader drives it (``ServiceProxy.receive_many``
  then ``pending_outbox`` and ``mark_sent_many`` as the SMTP sender does): the IMAP path without
  the network. The daemon keeps its connection for days, so each store's service is opened and
  given 20 mails before the timed ones; likewise the first 20 mails of every kind are not timed;
- the deadline burst: ``Judge.run_due`` at that minute, 20 events a call as the daemon runs it;
- LIST, HISTORY and SUMMARY mails;
- ``judge publish`` after the burst, into an archive folder that had every game before the work
  (its record of them: the pages themselves are not written for the big store's copies); one call
  a store, each round another store first.

Prints each figure for both stores and their ratio, each round's, the machine's load, and the
store's size.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
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


def interleaved(steps: dict[str, list[Callable[[], Any]]], warm: int = 0) -> dict[str, float]:
    """Each store's steps in turn, timed one by one (the fresh store's first, the big store's first,
    the fresh store's second ...): a change in the machine's load lands on both stores alike. The
    first ``warm`` steps of each are not timed (the code's first run: imports, caches, the
    connection's pages). Returns each store's total seconds."""
    total = {label: 0.0 for label in steps}
    for k, round_ in enumerate(zip(*steps.values(), strict=True)):
        for label, step in zip(steps, round_):
            seconds = timed(step)
            total[label] += seconds if k >= warm else 0.0
    return total


def blocks(items: list[Any], size: int = 20) -> list[list[Any]]:
    return [items[k:k + size] for k in range(0, len(items), size)]


def imap_standin(cfgs: dict[str, JudgeConfig], raws: dict[str, list[bytes]], warm: dict[str, list[bytes]],
                 now: datetime) -> dict[str, float]:
    """The daemon's path without the network, on each store: FETCH batches of 20 handed to its
    service thread (``ServiceProxy.receive_many``), then the SMTP sender's ``pending_outbox`` and
    ``mark_sent_many`` until the outbox is empty. Each service is opened and given the ``warm``
    mails first (not timed): the daemon keeps its connection for days, so its page cache is warm;
    then the two stores' batches are timed in turn. Returns each store's total seconds."""
    from judge.daemon.service import ServiceProxy

    async def batch(proxy: ServiceProxy, mails: list[bytes], k: int) -> None:
        out = await proxy.receive_many([(r, f"INBOX:{k}.{j}") for j, r in enumerate(mails)], lambda: False)
        assert all(x == "handled" for x in out), out
        while items := await proxy.pending_outbox(limit=50):
            await proxy.mark_sent_many([it.id for it in items])

    async def run() -> dict[str, float]:
        proxies = {label: ServiceProxy(functools.partial(Judge, cfg)) for label, cfg in cfgs.items()}
        try:
            for label, proxy in proxies.items():
                await proxy.open()
                await batch(proxy, warm[label], -1)
            total = {label: 0.0 for label in proxies}
            for k, round_ in enumerate(zip(*(blocks(raws[label]) for label in proxies), strict=True)):
                for label, mails in zip(proxies, round_):
                    t0 = time.perf_counter()
                    await batch(proxies[label], mails, k)
                    total[label] += time.perf_counter() - t0
            return total
        finally:
            for proxy in proxies.values():
                proxy.close()

    for cfg in cfgs.values():
        cfg.clock = lambda: now  # type: ignore[method-assign]
    return asyncio.run(run())


def published_before(db: Path, out: Path) -> None:
    """``out`` as ``judge publish`` left it after publishing every game now in the store: its record
    of what it published (the list's lines, page by page), not the game pages, which the next run
    does not touch."""
    from judge.game import archive

    conn = sqlite3.connect(db)
    top = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM game_changes").fetchone()[0]
    latest = conn.execute("SELECT MAX(processed_at) FROM phases WHERE state = 'processed'").fetchone()[0]
    pages: dict[int, dict[str, Any]] = {}
    for gid, name, variant, state, turns, last in conn.execute(
            "SELECT g.id, g.name, g.variant, g.state, COUNT(p.id), MAX(p.seq) FROM games g "
            "LEFT JOIN phases p ON p.game_id = g.id AND p.state = 'processed' GROUP BY g.id"):
        line: dict[str, Any] = {k: [] if k in ("players", "joined") else "" for k in archive.LINE_KEYS}
        pages.setdefault(archive._page_of(gid), {})[name] = line | {
            "name": name, "href": f"{name}/index.html", "variant": variant, "state": state, "anonymous": False,
            "id": gid, "turns": turns,
            "phases": [{"href": f"{last:03d}-X.html", "name": "last", "short": "X"}] if last else []}
    conn.close()
    (out / archive.STATE_DIR).mkdir(parents=True, exist_ok=True)
    summary = {}
    for page, lines in pages.items():
        archive._write_json(out / archive.STATE_DIR / f"{page}.json", lines)
        names = sorted(lines)
        summary[str(page)] = {"href": archive._page_file(page), "first": names[0], "last": names[-1],
                              "count": len(names)}
    archive._write_json(out / archive.STATE_FILE, {"seq": top, "pages": summary, "latest": latest})


def measure(dbs: dict[str, Path], burst: int, mails: int, map_mode: str, outs: dict[str, Path],
            rnd: int) -> dict[str, dict[str, float]]:
    """The work on each store (round ``rnd``: its own games, a month after the last round's),
    the stores' steps timed in turn (:func:`interleaved`): seconds per item of each kind, a store."""
    from deadlines import START, set_up

    from judge.game.archive import write_archive

    prefix, start = f"r{rnd}g", START + timedelta(days=30 * rnd)
    cfgs, judges, got = {}, {}, {label: {} for label in dbs}  # type: ignore[var-annotated]
    deadline = start
    for label, db in dbs.items():  # (not timed) every game so far published; this round's games made
        Store(db).close()
        published_before(db, outs[label])
        cfgs[label] = JudgeConfig(address="judge@bench.test", db_path=db, code="BENCH", password_cost=4,
                                  archive_url="https://judge.bench.test/games")
        judges[label] = Judge(cfgs[label])
        deadline = set_up(judges[label], burst, 1, map_mode, prefix=prefix, start=start)

    def record(what: str, total: dict[str, float], n: int) -> None:
        for label, seconds in total.items():
            got[label][what] = seconds / n

    before = start + timedelta(hours=1)
    raws = {label: order_mails(j, mails + 20, burst, before, f"recv{rnd}", prefix) for label, j in judges.items()}
    record("order mail, Judge.receive", interleaved(  # the first 20 mails a store not timed
        {label: [functools.partial(lambda j, b: [j.receive(r, now=before) for r in b], judges[label], b)
                 for b in blocks(raws[label])] for label in judges}, warm=1), mails)
    warm = {label: order_mails(j, 20, burst, before, f"warm{rnd}", prefix) for label, j in judges.items()}
    raws = {label: order_mails(j, mails, burst, before, f"imap{rnd}", prefix) for label, j in judges.items()}
    for j in judges.values():
        j.close()  # one connection a store, as under the daemon
    record("order mail, IMAP path stand-in", imap_standin(cfgs, raws, warm, before), mails)
    judges = {label: Judge(cfg) for label, cfg in cfgs.items()}
    due = deadline + timedelta(seconds=30)
    total, left = dict.fromkeys(judges, 0.0), list(judges)
    while left:  # chunks of 20 events, the stores in turn, as the daemon's scheduler runs a burst (most=...)
        for label in list(left):
            t0 = time.perf_counter()
            if judges[label].run_due(now=due, most=20) < 20:
                left.remove(label)
            total[label] += time.perf_counter() - t0
    record("deadline burst, a game", total, burst)
    after = deadline + timedelta(hours=1)
    for what, text in (("LIST", "LIST"), ("HISTORY", "HISTORY {game}"), ("SUMMARY", "SUMMARY {game}")):
        raws = {label: command_mails(j, text, mails + 20, burst, after, f"{what}{rnd}", prefix)
                for label, j in judges.items()}
        record(f"{what} mail", interleaved(
            {label: [functools.partial(lambda j, b: [j.receive(r, now=after) for r in b], judges[label], b)
                     for b in blocks(raws[label])] for label in judges}, warm=1), mails)
    for j in judges.values():
        with j.store.transaction():  # (not timed) this round's games wait out the next rounds
            j.store.conn.execute("UPDATE events SET due = ? WHERE state = 'pending' AND due < ?", (FAR, FAR))
        j.close()
    order = list(dbs) if rnd % 2 == 0 else list(reversed(dbs))  # one call a store: each round another first
    stores = {label: Store(dbs[label], readonly=True) for label in order}
    record("publish after the burst", interleaved(
        {label: [functools.partial(write_archive, st, outs[label], "BENCH")] for label, st in stores.items()}), 1)
    for st in stores.values():
        st.close()
    return got


def measure_all(tmp: Path, args: argparse.Namespace, first: int = 0) -> None:
    """The work on both stores in ``tmp``, ``args.rounds`` rounds from round ``first``; prints the table."""
    labels = ("fresh", "big")
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
    for rnd in range(first, first + args.rounds):
        load = os.getloadavg()
        got = measure({label: tmp / f"{label}.sqlite" for label in labels}, args.burst, args.mails, args.map,
                      {label: tmp / f"pub-{label}" for label in labels}, rnd)
        for label in labels:
            runs[label].append(got[label])
        print(f"round {rnd - first + 1} measured (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after)", flush=True)
    print(f"\n{'what (best of ' + str(args.rounds) + ' rounds)':34} {'fresh':>10} {'big':>10} {'big/fresh':>9}"
          f"   each round: fresh ms | big ms | big/fresh")
    for what in runs["fresh"][0]:
        fresh, big = (min(r[what] for r in runs[k]) for k in labels)
        every = " | ".join(" ".join(f"{r[what] * 1000:.1f}" for r in runs[k]) for k in labels)
        ratios = " ".join(f"{b[what] / f[what]:.2f}" for f, b in zip(runs["fresh"], runs["big"]))
        print(f"{what:34} {fresh * 1000:8.2f}ms {big * 1000:8.2f}ms {big / fresh:8.2f}x   {every} | {ratios}")
    print(f"CPython {sys.version.split()[0]}, {os.cpu_count()} cores, burst {args.burst} games "
          f"(map {args.map}), {args.mails} order mails a path; the two stores' steps timed in turn (blocks of 20 "
          f"mails, the burst in chunks of 20 events), the first 20 mails of each kind a store not timed (the daemon "
          f"stand-in: its service opened and given them first, as a daemon that has run for days)")


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
