"""Mail daemon throughput and deadline latency on loopback, with real servers.

    python bench/mail.py [--mails 600] [--deadlines 20] [--service both|judge|standin] [--burst 1000]

A private Dovecot (tests/servers/dovecot.sh) holds the judge's mailbox; an aiosmtpd sink on this
process's loop takes the judge's mail; the daemon runs as its own process (``python -m
judge.daemon``), as deployed. Prints, labelled by service:

- order mails per second, IMAP -> SQLite -> SMTP: from the first APPEND of a stream of order
  mails to the sink taking the last reply (one reply per order, so every mail made the whole trip);
- the daemon's CPU time per order mail (user + system, from /proc: load on the machine does not
  inflate it as it does the rate), and its resident memory sampled through the stream (a run of
  ``--mails 10000`` shows whether it stays flat);
- deadline latency: from a deadline passing to its report being accepted by the SMTP sink;
- ``--burst N`` (real service): N games due the same second, each processed by the daemon's
  scheduler, its results mailed through SMTP: the time from the deadline to each game's first
  results mail at the sink (median, p95, last), and the burst's time per game.

``--service judge`` is the real game service: seven players sign on to a game and six of them
keep sending orders (the game waits for the seventh), with scrypt cost 2^10; its deadlines are
set by the master (``SET DEADLINE``, no grace) and each one processes a whole phase.
``--service standin`` is the tests' small SQLite service, which measures the transport with a
minimal service of its own (it once overstated what a judge does 4-5 times; since the real
service's passes it does not); the default (``both``) prints the real service first and the
stand-in after it, each labelled. Needs Debian's dovecot-imapd and dovecot-lmtpd.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from mailservers import (POWERS, DaemonProcess, Dovecot, Received, SmtpSink, daemon_config,  # noqa: E402
                         dovecot_missing, order_mail, text_of, until, write_config)


def proc_cpu(pid: int, reaped: bool = False) -> float:
    """User + system CPU seconds of a process so far (Linux /proc); with ``reaped``, those of
    the children it has waited for too."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15 if reaped else 13]) / os.sysconf("SC_CLK_TCK")


def dovecot_cpu(dovecot: Dovecot) -> float:
    """CPU seconds of our Dovecot so far: its master with the sessions it has reaped, and the
    sessions still open (the IMAP session serving the daemon, the one taking the APPENDs)."""
    total = 0.0
    for pid in [dovecot.master_pid(), *dovecot.child_pids()]:
        try:
            total += proc_cpu(pid, reaped=True)
        except (OSError, ValueError):
            pass
    return total


def proc_rss(pid: int) -> int:
    """Resident memory of a process in kB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def append_stream(dovecot: Dovecot, raws: list[bytes], started: list[float]) -> None:
    c = dovecot.imap("judge")
    try:
        started.append(time.time())
        for r in raws:
            c.append("INBOX", None, None, r)
        started.append(time.time())
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
        if args.burst and service_name == "judge":
            burst_setup(cfg["judge"]["db_path"], args.burst)  # not timed
        proc.start()
        await until(proc.ready, 30, "the daemon to start")
        if service_name == "judge":
            players = await judge_setup(dovecot, sink)
            raws = judge_orders(players, args.mails)
            # the Subject line read from the raw header, not the whole message parsed: this
            # process shares the 2 cores with the daemon, and parsing every reply slowed its sink
            expect = Counter(sink, lambda m: b"orders" in subject_line(m.raw))
        else:
            raws = [order_mail(f"b{i:06d}") for i in range(args.mails)]
            expect = lambda: len(sink.to("player@example.test"))  # noqa: E731
        base = expect()
        started: list[float] = []
        pid = proc.proc.pid if proc.proc else 0
        cpu0, own0, dove0 = proc_cpu(pid), os.times(), dovecot_cpu(dovecot)
        rss: list[tuple[int, int]] = [(0, proc_rss(pid))]
        step = max(args.mails // 10, 1)

        def progress() -> bool:
            done = expect() - base
            if done >= rss[-1][0] + step:
                rss.append((done, proc_rss(pid)))
            return done >= args.mails

        feeder = threading.Thread(target=append_stream, args=(dovecot, raws, started))
        feeder.start()
        await until(progress, 1800, "all replies", step=0.02)
        last = max(m.at for m in sink.messages)
        cpu = proc_cpu(pid) - cpu0
        own1, dove = os.times(), dovecot_cpu(dovecot) - dove0
        own = own1.user + own1.system - own0.user - own0.system
        rss.append((args.mails, proc_rss(pid)))
        feeder.join()
        secs = last - started[0]
        print(f"{label}: {args.mails} order mails IMAP -> SQLite -> SMTP in {secs:.2f} s "
              f"= {args.mails / secs:.0f} mails/s  (load average before: {load:.1f}, after: "
              f"{os.getloadavg()[0]:.1f}, on {os.cpu_count()} cores)", flush=True)
        print(f"{label}: daemon CPU {cpu:.2f} s = {1000 * cpu / args.mails:.2f} ms a mail "
              f"(so {args.mails / cpu:.0f} mails per CPU second); resident memory by mails done: "
              + ", ".join(f"{n}: {kb / 1024:.1f} MB" for n, kb in rss), flush=True)
        print(f"{label}: the 2 cores' other work a mail meanwhile: Dovecot {1000 * dove / args.mails:.2f} ms, "
              f"this bench (APPENDs, SMTP sink) {1000 * own / args.mails:.2f} ms; the last APPEND done "
              f"after {started[1] - started[0]:.2f} s", flush=True)
        if args.burst and service_name == "judge":
            await burst_latency(sink, cfg["judge"]["db_path"], args.burst, label, pid)
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


def subject_line(raw: bytes) -> bytes:
    """The raw Subject header of a message (its first line), b"" if none."""
    head = raw[:raw.find(b"\r\n\r\n")]
    i = head.find(b"\nSubject:")
    return b"" if i < 0 else head[i + 1:head.find(b"\n", i + 1)]


_RESULTS = re.compile(rb"\nSubject: [^:\r\n]*:(g\d+) - \S+ Results")


def burst_setup(db_path: str, n: int) -> None:
    """``n`` games with every order in and one player waiting (bench/deadlines.py's set-up),
    written into the daemon's store; their deadlines are set to the burst's second later."""
    sys.path.insert(0, str(ROOT / "bench"))
    from deadlines import set_up

    from judge.mail import Judge, JudgeConfig

    judge = Judge(JudgeConfig(address="judge@example.test", db_path=db_path, code="BENCH", password_cost=4))
    try:
        set_up(judge, n, 1, "png")
    finally:
        judge.close()


async def burst_latency(sink: SmtpSink, db_path: str, n: int, label: str, pid: int) -> None:
    """Every game's deadline set to the same second a little ahead (reminders dropped); the
    daemon's scheduler processes them one after another and the SMTP runner sends the results."""
    from judge.game.store import iso

    lead = 3.0
    due_t = time.time() + lead
    due = iso(datetime.fromtimestamp(due_t, timezone.utc))
    with sqlite3.connect(db_path) as db:
        db.execute("DELETE FROM events WHERE state = 'pending' AND kind != 'deadline' "
                   "AND game_id IN (SELECT id FROM games WHERE name LIKE 'g%')")
        db.execute("UPDATE events SET due = ? WHERE state = 'pending' AND kind = 'deadline' "
                   "AND game_id IN (SELECT id FROM games WHERE name LIKE 'g%')", (due,))
        db.execute("UPDATE phases SET deadline = ? WHERE state = 'open' "
                   "AND game_id IN (SELECT id FROM games WHERE name LIKE 'g%')", (due,))
    load = os.getloadavg()[0]
    first: dict[str, float] = {}
    seen = 0
    cpu0 = proc_cpu(pid)

    def arrivals() -> int:
        nonlocal seen
        for m in sink.messages[seen:]:
            found = _RESULTS.search(m.raw[:8192])
            if found:
                first.setdefault(found.group(1).decode(), m.at)
        seen = len(sink.messages)
        return len(first)

    await until(lambda: arrivals() >= n, 1800, "every game's results", step=0.05)
    cpu = proc_cpu(pid) - cpu0
    lat = sorted((t - due_t) * 1000 for t in first.values())
    span = (lat[-1] - lat[0]) / 1000
    print(f"{label}: burst of {n} games due the same second (load average before: {load:.1f}, after: "
          f"{os.getloadavg()[0]:.1f}): deadline -> each game's first results mail at SMTP: median "
          f"{statistics.median(lat):.0f} ms, p95 {lat[int(0.95 * (n - 1))]:.0f} ms, last {lat[-1]:.0f} ms; "
          f"{1000 * lat[-1] / 1000 / n:.1f} ms a game over the whole burst "
          f"({n / (lat[-1] / 1000):.1f} games/s; first to last {span:.1f} s); daemon CPU {cpu:.1f} s "
          f"= {1000 * cpu / n:.1f} ms a game", flush=True)


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
    ap.add_argument("--burst", type=int, default=0, help="also a deadline burst of this many games (real service)")
    ap.add_argument("--log-level", default="INFO")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (config, database, daemon log)")
    args = ap.parse_args()
    for name in (("judge", "standin") if args.service == "both" else (args.service,)):
        asyncio.run(run(args, name))


if __name__ == "__main__":
    main()
