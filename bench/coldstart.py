"""Cold start: the backlog a restarted daemon finds, answered with and without remembered sign-ons.

    python bench/coldstart.py [--games 50] [--mails 300]

A judge had been running: ``--games`` standard games, each with a master and seven players who
joined with the default scrypt cost (2^14) and sent their orders. Then the daemon is stopped,
``--mails`` order mails pile up in its mailbox (spread over the games, each from a different
player), and it is started again. Measured, with a private Dovecot and an SMTP sink on loopback,
as ``python -m judge.daemon`` (how the unit runs it):

- cold: from the daemon's start to the SMTP sink taking the last reply, in mails/s (start-up
  included; the figure without start-up follows in brackets);
- warm: the same daemon, another ``--mails`` order mails from the same players, from the first
  APPEND to the last reply (as ``bench/mail.py`` measures).

Both once without ``session_key_file`` (a player's first sign-on after the restart pays the full
scrypt check) and once with it (successful checks kept in ``<store>.sessions.sqlite``).
The games are set up in-process through ``Judge.receive`` (the real mail path, without IMAP).
Needs Debian's dovecot-imapd and dovecot-lmtpd.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from mailservers import (DaemonProcess, Dovecot, SmtpSink, daemon_config, dovecot_missing,  # noqa: E402
                         until, write_config)

JUDGE = "judge@example.test"
FIRST_ORDERS = {"Austria": "A Vie - Gal", "England": "F Lon - Nth", "France": "A Par - Bur",
                "Germany": "A Mun - Ruh", "Italy": "A Ven - Tyr", "Russia": "A Mos - Ukr", "Turkey": "A Con - Bul"}
LETTERS = {power: power[0] for power in FIRST_ORDERS}  # the standard map's power letters


def set_up(db: Path, key_file: Path, games: int) -> list[tuple[str, str, str, str]]:
    """The games as a running judge left them; returns (game, address, power, password) a seat."""
    from judge.demo.robots import make_mail
    from judge.game.passwords import _VERIFIED
    from judge.mail import Judge, JudgeConfig

    judge = Judge(JudgeConfig(address=JUDGE, db_path=db, session_key_file=str(key_file)))
    seats = []
    try:
        for g in range(games):
            name = f"cold{g}"
            judge.receive(make_mail(f"gm{g}@example.test", JUDGE, f"CREATE ?{name} masterpw standard move=48h"))
            for i in range(7):
                judge.receive(make_mail(f"p{g}x{i}@example.test", JUDGE, f"SIGNON ?{name} pw{g}x{i}"))
            rows = judge.store.all("SELECT s.power, p.address FROM seats s JOIN players p ON p.id = s.player_id "
                                   "JOIN games g ON g.id = s.game_id WHERE g.name = ? AND s.role = 'player'", (name,))
            assert len(rows) == 7, f"{name}: {len(rows)} players joined"
            for r in rows:
                password = f"pw{r['address'].split('@')[0][1:]}"
                seats.append((name, r["address"], r["power"], password))
                judge.receive(make_mail(r["address"], JUDGE, f"SIGNON {LETTERS[r['power']]}{name} {password}\n"
                                        f"{FIRST_ORDERS[r['power']]}\n"))
    finally:
        judge.close()
        _VERIFIED.clear()
    return seats


def backlog(seats: list[tuple[str, str, str, str]], n: int, round_: int) -> tuple[list[bytes], set[str]]:
    """``n`` order mails, each from a different player, the games taken in turn."""
    from judge.demo.robots import make_mail

    by_game: dict[str, list[tuple[str, str, str, str]]] = {}
    for s in seats:
        by_game.setdefault(s[0], []).append(s)
    order = [seat for i in range(7) for seats_ in by_game.values() for seat in seats_[i:i + 1]]
    if n > len(order):
        raise SystemExit(f"--mails {n}: only {len(order)} players")
    raws, senders = [], set()
    for game, addr, power, password in order[:n]:
        hold = FIRST_ORDERS[power].split(" - ")[0] + " H"
        raws.append(make_mail(addr, JUDGE, f"SIGNON {LETTERS[power]}{game} {password}\n{hold}\n", f"orders {round_}"))
        senders.add(addr)
    return raws, senders


def replies(sink: SmtpSink, senders: set[str], since: int) -> int:
    return sum(1 for m in sink.messages[since:] if set(m.rcpts) & senders)


async def measure(dovecot: Dovecot, work: Path, store: Path, seats: list, key_file: Path | None,
                  mails: int) -> tuple[float, float, float]:
    sink = await SmtpSink().start()
    proc = None
    try:
        options = {"session_key_file": str(key_file)} if key_file else {}
        cfg = daemon_config(dovecot, sink, work, service="judge.mail:Judge",
                            judge={"db_path": str(store), "options": options},
                            imap={"batch_size": 50}, smtp={"batch_size": 50})
        raws, senders = backlog(seats, mails, 1)
        dovecot.append(raws)  # waiting in the mailbox before the daemon starts
        proc = DaemonProcess(write_config(work / "judge.toml", cfg), work / "daemon.log")
        t0 = time.time()
        proc.start()
        await until(proc.ready, 60, "the daemon to start", step=0.02)
        ready = time.time()
        await until(lambda: replies(sink, senders, 0) >= mails, 900, "every reply", step=0.05)
        last = max(m.at for m in sink.messages)
        cold, cold_run = mails / (last - t0), mails / (last - ready)
        # warm: the same daemon, the same players again
        raws, senders = backlog(seats, mails, 2)
        base = len(sink.messages)
        t1 = time.time()
        dovecot.append(raws)
        await until(lambda: replies(sink, senders, base) >= mails, 900, "every warm reply", step=0.05)
        warm = mails / (max(m.at for m in sink.messages[base:]) - t1)
        return cold, cold_run, warm
    finally:
        if proc is not None and proc.alive():
            proc.terminate()
        await sink.stop()


async def run(args: argparse.Namespace) -> None:
    reason = dovecot_missing()
    if reason:
        sys.exit(f"bench/coldstart.py: {reason}")
    work = Path(tempfile.mkdtemp(prefix="judge-coldstart."))
    try:
        key_file = work / "session_key"
        key_file.write_bytes(os.urandom(32))
        t = time.time()
        seats = set_up(work / "setup.sqlite", key_file, args.games)
        print(f"set up {args.games} games, {len(seats)} players (scrypt 2^14) in {time.time() - t:.0f} s", flush=True)
        for label, key in (("without session_key_file", None), ("with session_key_file", key_file)):
            load = os.getloadavg()[0]
            mode = work / ("with" if key else "without")
            mode.mkdir()
            store = mode / "judge.sqlite"
            shutil.copy(work / "setup.sqlite", store)
            if key:
                shutil.copy(work / "setup.sessions.sqlite", mode / "judge.sessions.sqlite")
            dovecot = Dovecot().start()
            try:
                cold, cold_run, warm = await measure(dovecot, mode, store, seats, key, args.mails)
            finally:
                dovecot.stop()
            print(f"{label}: {args.mails} waiting order mails after a restart: {cold:.0f} mails/s "
                  f"({cold_run:.0f} without the daemon's start-up); then warm: {warm:.0f} mails/s  "
                  f"(load average before: {load:.1f} on {os.cpu_count()} cores)", flush=True)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--mails", type=int, default=300)
    ap.add_argument("--keep", action="store_true", help="keep the work folder (configs, stores, daemon logs)")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
