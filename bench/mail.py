"""Mail daemon throughput and deadline latency on loopback, with real servers.

    python bench/mail.py [--mails 600] [--deadlines 20] [--service both|judge|standin]

A private Dovecot (tests/servers/dovecot.sh) holds the judge's mailbox; an aiosmtpd sink on this
process's loop takes the judge's mail; the daemon runs as its own process (``python -m
judge.daemon``), as deployed. Prints, labelled by service:

- order mails per second, IMAP -> SQLite -> SMTP: from the first APPEND of a stream of order
  mails to the sink taking the last reply (one reply per order, so every mail made the whole trip);
- deadline latency: from a deadline passing to its report being accepted by the SMTP sink.

``--service judge`` is the real game service: seven players sign on to a game and six of them
keep sending orders (the game waits for the seventh), with scrypt cost 2^10; its deadlines are
set by the master (``SET DEADLINE``, no grace) and each one processes a whole phase.
``--service standin`` is the tests' small SQLite service, which measures the transport alone; it
overstates what a judge can do 4-5 times, so the default (``both``) prints the real service
first and the stand-in after it. Needs Debian's dovecot-imapd and dovecot-lmtpd.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from mailservers import (POWERS, DaemonProcess, Dovecot, Received, SmtpSink, daemon_config,  # noqa: E402
                         dovecot_missing, order_mail, text_of, until, write_config)


def append_stream(dovecot: Dovecot, raws: list[bytes], started: list[float]) -> None:
    c = dovecot.imap("judge")
    try:
        started.append(time.time())
        for r in raws:
            c.append("INBOX", None, None, r)
    finally:
        c.logout()


class Counter:
    """How many sink messages match, looking only at new ones (the sink shares this loop)."""

    def __init__(self, sink: SmtpSink, pred: Callable[[Received], bool]) -> None:
        self.sink, self.pred, self.seen, self.n = sink, pred, 0, 0

    def __call__(self) -> int:
        for m in self.sink.messages[self.seen:]:
            self.n += bool(self.pred(m))
        self.seen = len(self.sink.messages)
        return self.n


async def judge_setup(dovecot: Dovecot, sink: SmtpSink) -> list[tuple[str, str, str]]:
    """Create a game by mail and sign seven players on; returns (address, power, password)."""
    import re

    from judge.demo.robots import make_mail

    dovecot.append(make_mail("master@example.test", "judge@example.test",
                             "CREATE ?bench masterpw standard move=48h press=any", "new game"))
    players = [(f"{p}@example.test", f"pw{i}") for i, p in enumerate(POWERS)]
    dovecot.append([make_mail(a, "judge@example.test", f"SIGNON ?bench {pw}", "join") for a, pw in players])
    await until(lambda: sum("Game Starting" in str(m.msg["Subject"]) for m in sink.messages) >= 7, 60,
                "the game to start", step=0.1)
    out = []
    for a, pw in players:
        for m in sink.to(a):
            found = re.search(r"You are (\w+)\.", text_of(m.msg)) if "Game Starting" in str(m.msg["Subject"]) else None
            if found:
                out.append((a, found.group(1), pw))
    return out


def judge_orders(players: list[tuple[str, str, str]], n: int) -> list[bytes]:
    from judge.demo.robots import make_mail

    starts = {"Austria": ["A Vie - Gal", "A Bud - Ser", "F Tri - Alb"], "England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"],
              "France": ["F Bre - Mao", "A Par - Bur", "A Mar - Spa"], "Germany": ["F Kie - Den", "A Ber - Kie", "A Mun - Ruh"],
              "Italy": ["F Nap - Ion", "A Rom - Apu", "A Ven H"], "Russia": ["A Mos - Ukr", "A War - Gal", "F Sev - Bla", "F Stp/sc - Bot"],
              "Turkey": ["F Ank - Bla", "A Con - Bul", "A Smy - Arm"]}
    busy = players[:6]  # the seventh never orders, so the phase waits and every mail is a plain order mail
    out = []
    for i in range(n):
        addr, power, pw = busy[i % len(busy)]
        body = f"SIGNON {power[0]}bench {pw}\n" + "\n".join(starts.get(power, [])) + "\n"
        out.append(make_mail(addr, "judge@example.test", body, f"orders {i}"))
    return out


async def run(args: argparse.Namespace, service_name: str) -> None:
    reason = dovecot_missing()
    if reason:
        sys.exit(f"bench/mail.py: {reason}")
    load = os.getloadavg()[0]  # other work on the machine skews every figure below
    dovecot = Dovecot().start()
    work = Path(tempfile.mkdtemp(prefix="judge-bench."))
    sink = await SmtpSink().start()
    proc = None
    label = "real game service" if service_name == "judge" else "stand-in service (transport only)"
    try:
        service = "mailservers:StandInJudge" if service_name == "standin" else "judge.mail:Judge"
        cfg = daemon_config(dovecot, sink, work, service=service, judge={"options": {"password_cost": 10}}
                            if service_name == "judge" else {}, log={"level": args.log_level},
                            imap={"batch_size": 50}, smtp={"batch_size": 50})
        proc = DaemonProcess(write_config(work / "judge.toml", cfg), work / "daemon.log")
        proc.start()
        await until(proc.ready, 30, "the daemon to start")
        if service_name == "judge":
            players = await judge_setup(dovecot, sink)
            raws = judge_orders(players, args.mails)
            expect = Counter(sink, lambda m: "orders" in str(m.msg["Subject"]))
        else:
            raws = [order_mail(f"b{i:06d}") for i in range(args.mails)]
            expect = lambda: len(sink.to("player@example.test"))  # noqa: E731
        base = expect()
        started: list[float] = []
        feeder = threading.Thread(target=append_stream, args=(dovecot, raws, started))
        feeder.start()
        await until(lambda: expect() - base >= args.mails, 600, "all replies", step=0.02)
        last = max(m.at for m in sink.messages)
        feeder.join()
        secs = last - started[0]
        print(f"{label}: {args.mails} order mails IMAP -> SQLite -> SMTP in {secs:.2f} s "
              f"= {args.mails / secs:.0f} mails/s  (load average before: {load:.1f} on {os.cpu_count()} cores)",
              flush=True)
        if args.deadlines:
            if service_name == "standin":
                await deadline_latency(dovecot, sink, cfg["judge"]["db_path"], args.deadlines, label)
            else:
                await judge_deadline_latency(dovecot, sink, cfg["judge"]["db_path"], min(args.deadlines, 5), label)
    finally:
        if proc is not None and proc.alive():
            proc.terminate()
        await sink.stop()
        dovecot.stop()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


async def judge_deadline_latency(dovecot: Dovecot, sink: SmtpSink, db_path: str, n: int, label: str) -> None:
    """The master sets a deadline 3 s ahead (no grace; one power never orders, so only the deadline
    processes the phase); latency = the first results mail accepted by SMTP - the deadline."""
    from judge.demo.robots import make_mail

    lat = []
    for i in range(n):
        mark = len(sink.messages)  # only what comes from now on
        dovecot.append(make_mail("master@example.test", "judge@example.test",
                                 "SIGNON Mbench masterpw\nSET GRACE 0\nSET DEADLINE +0.05m\n", f"deadline {i}"))
        await until(lambda: sum(str(m.msg["Subject"]).startswith("Re: ") and f"deadline {i}" in str(m.msg["Subject"])
                                for m in sink.to("master@example.test")) >= 1, 60, "the master's answer", step=0.02)
        with sqlite3.connect(db_path) as db:
            due, short = db.execute("SELECT e.due, p.short FROM events e JOIN phases p ON p.id = e.phase_id "
                                    "WHERE e.state = 'pending' AND e.kind = 'deadline'").fetchone()
        due_t = datetime.fromisoformat(due).timestamp()
        ours = lambda m: str(m.msg["Subject"]).endswith(f" - {short} Results")  # noqa: E731
        await until(lambda: any(ours(m) for m in sink.messages[mark:]), 60, f"the {short} results mail", step=0.01)
        first = min(m.at for m in sink.messages[mark:] if ours(m))
        lat.append((first - due_t) * 1000)
    lat.sort()
    print(f"{label}: deadline -> first results mail at SMTP over {n} phases: median {statistics.median(lat):.0f} ms, "
          f"min {lat[0]:.0f} ms, max {lat[-1]:.0f} ms", flush=True)


async def deadline_latency(dovecot: Dovecot, sink: SmtpSink, db_path: str, n: int, label: str) -> None:
    """Deadlines 0.5-2.5 s after the mail that sets them; latency = SMTP arrival - due time."""
    rng = random.Random(7)
    tokens = [f"d{i:03d}" for i in range(n)]
    got: dict[str, float] = {}
    seen = len(sink.messages)
    dovecot.append([order_mail(f"x{t}", extra=f"DEADLINE {rng.uniform(0.5, 2.5):.3f} {t}") for t in tokens])

    def arrivals() -> int:
        # only the new messages: parsing thousands on every poll would stall this loop, and with
        # it the sink's arrival clock
        nonlocal seen
        for m in sink.messages[seen:]:
            subject = str(m.msg["Subject"])
            if subject.startswith("Deadline "):
                got[subject.split()[-1]] = m.at
        seen = len(sink.messages)
        return len(got)

    await until(lambda: arrivals() >= n, 60, "every deadline report", step=0.02)
    with sqlite3.connect(db_path) as db:
        due = dict(db.execute("SELECT token, due FROM deadlines"))
    lat = sorted((got[t] - due[t]) * 1000 for t in tokens)
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
    print(f"{label}: deadline -> SMTP latency over {n} deadlines: median {statistics.median(lat):.1f} ms, "
          f"p95 {p95:.1f} ms, max {lat[-1]:.1f} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=600)
    ap.add_argument("--deadlines", type=int, default=20, help="deadlines timed (the real service: at most 5)")
    ap.add_argument("--service", choices=("both", "judge", "standin"), default="both",
                    help="the real game service, the tests' stand-in, or both (default; the real one first)")
    ap.add_argument("--log-level", default="INFO")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (config, database, daemon log)")
    args = ap.parse_args()
    for name in (("judge", "standin") if args.service == "both" else (args.service,)):
        asyncio.run(run(args, name))


if __name__ == "__main__":
    main()
