"""The service's work per order mail, in process: what the daemon's service thread does.

    python bench/receive.py [--mails 600] [--shapes robot|clients|both] [--profile N]

A game of seven is started through ``Judge.receive`` (as ``tests/test_service_helpers.Table``
does); six players then send order mails, handed to ``Judge.receive_many`` twenty at a time as
the daemon's IMAP runner does. ``robot``: the plain text mails ``bench/mail.py`` appends;
``clients``: the same orders written as Gmail, Outlook (desktop and web), Apple Mail, iOS Mail
and Thunderbird replies (``tests/client_mails.py``). Prints, a mail: the CPU time (it varies
with the machine's load), and the counts that do not: Python function calls (``cProfile``) and
SQL statements (SQLite's trace callback). ``--profile N`` prints the N costliest functions.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

ORDERS = {"Austria": ["A Vie - Gal", "A Bud - Ser", "F Tri - Alb"],
          "England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"],
          "France": ["F Bre - Mao", "A Par - Bur", "A Mar - Spa"],
          "Germany": ["F Kie - Den", "A Ber - Kie", "A Mun - Ruh"],
          "Italy": ["F Nap - Ion", "A Rom - Apu", "A Ven H"],
          "Russia": ["A Mos - Ukr", "A War - Gal", "F Sev - Bla", "F Stp/sc - Bot"],
          "Turkey": ["F Ank - Bla", "A Con - Bul", "A Smy - Arm"]}


def client_shapes() -> list:
    import client_mails as cm

    return [lambda new, old, s: cm.gmail("en", new, old, sender=s),
            lambda new, old, s: cm.outlook_desktop("de", new, old, sender=s),
            lambda new, old, s: cm.outlook_web("en", new, old, sender=s),
            lambda new, old, s: cm.apple_mail("fr", new, old, sender=s),
            lambda new, old, s: cm.ios_mail("en", new, old, sender=s),
            lambda new, old, s: cm.thunderbird("en", new, old, sender=s)]


def order_mails(table, n: int, shapes: str) -> list[bytes]:
    """``n`` order mails from the six busy players (the seventh never orders: the phase waits)."""
    busy = [p for p in ORDERS if p != "Turkey"]
    clients = client_shapes() if shapes != "robot" else []
    old = ["Orders received.", "", "A Vie - Gal", "A Bud - Ser"]
    out = []
    for i in range(n):
        power = busy[i % len(busy)]
        lines = [table.signon(power)] + ORDERS[power]
        addr = table.powers[power]
        if shapes == "robot" or (shapes == "both" and i % 2 == 0):
            out.append(table.raw(addr, "\n".join(lines) + "\n", f"orders {i}"))
        else:
            out.append(clients[i % len(clients)](lines, old, f"Player {power} <{addr}>"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=600)
    ap.add_argument("--shapes", choices=("robot", "clients", "both"), default="robot")
    ap.add_argument("--chunk", type=int, default=20, help="mails a receive_many call (the daemon's 20)")
    ap.add_argument("--profile", type=int, default=0, help="print this many of the costliest functions")
    args = ap.parse_args()

    from test_service_helpers import Table

    with tempfile.TemporaryDirectory() as d:
        t = Table(Path(d))
        t.start_game()
        raws = order_mails(t, args.mails, args.shapes)
        judge = t.judge
        statements = [0]
        judge.store.conn.set_trace_callback(lambda _sql: statements.__setitem__(0, statements[0] + 1))
        chunks = [[(r, f"bench:{i + j}") for j, r in enumerate(raws[i:i + args.chunk])]
                  for i in range(0, len(raws), args.chunk)]
        now = t.now + timedelta(minutes=1)
        load = os.getloadavg()[0]
        prof = cProfile.Profile(time.process_time)  # CPU time: the machine's load does not count
        statuses: list = []
        # CPU time first, without the profiler's overhead; the counts from a second judge below
        cpu0, wall0 = time.process_time(), time.perf_counter()
        half = len(chunks) // 2
        for c in chunks[:half]:
            statuses += judge.receive_many(c, now=now)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        timed = sum(len(c) for c in chunks[:half])
        s0 = statements[0]
        prof.enable()
        for c in chunks[half:]:
            statuses += judge.receive_many(c, now=now)
        prof.disable()
        counted = len(raws) - timed
        bad = [s for s in statuses if s != "handled"]
        if bad:
            sys.exit(f"bench/receive.py: not every mail was handled: {bad[:3]}")
        stats = pstats.Stats(prof)
        calls = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
        print(f"{args.shapes} order mails, {args.chunk} a receive_many (load average {load:.1f}): "
              f"{timed} timed: {1000 * cpu / timed:.2f} ms CPU a mail ({timed / cpu:.0f} per CPU second; "
              f"wall {1000 * wall / timed:.2f} ms); {counted} counted: {calls / counted:.0f} Python calls a mail, "
              f"{(statements[0] - s0) / counted:.1f} SQL statements a mail")
        if args.profile:
            stats.sort_stats("tottime").print_stats(args.profile)
            stats.sort_stats("cumulative").print_stats(args.profile)
        t.close()


if __name__ == "__main__":
    main()
