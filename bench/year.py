"""A year of a judge host's traffic, compressed into minutes: a slice of the host simulated whole.

    python bench/year.py [--games 10000] [--scale 0.002] [--days 365] [--seed 1]

A host with ``--games`` running games is simulated as ``--games x --scale`` games (10 by default),
each with seven robot players (judge/demo/robots.py), through the real game service
(``Judge.receive_many`` in batches of ten as the daemon's IMAP runner hands them over,
``Judge.run_due`` as its scheduler calls it, the outbox read and marked sent as its SMTP runner
does), on an SQLite file, under a simulated clock that runs a year in hourly steps:

- orders: each player mails at a random moment of the phase (48 h moves, 24 h retreats and
  adjustments); a quarter send a second, revised mail; 4 % send nothing (the deadline, grace and
  civil disorder then run on the clock); the phase is processed early when all are in;
- press: in a movement phase each player sends a press mail with probability 0.3;
- joins: a finished game is replaced by a new one (a master's CREATE, seven SIGNONs over a day);
  games are drawn by vote from their thirteenth game year on;
- replacements: each phase a player resigns with probability 0.003; a newcomer takes the power
  over by mail within a day.

Only the service's own work is timed (CPU seconds of this process: time.process_time), by kind,
and scaled up by ``1 / --scale`` to the whole host: mails a year, CPU a year, the average load,
and the busiest simulated hour. IMAP/SMTP transport costs are not in it (bench/mail.py measures
those: the daemon's CPU per mail). Everything printed is measured in this run.
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.demo.robots import Robot, make_mail  # noqa: E402
from judge.game import lifecycle as games  # noqa: E402
from judge.game.outbox_trim import Trimmed, trim  # noqa: E402
from judge.mail import Judge, JudgeConfig  # noqa: E402

JUDGE = "judge@year.test"
START = datetime(2030, 1, 1, tzinfo=timezone.utc)
BATCH = 20  # the daemon's messages per commit (judge/daemon/imap_in.py RECEIVE_CHUNK)


@dataclass
class Seat:
    robot: Robot
    letter: str = ""


@dataclass
class Game:
    name: str
    master: str
    seats: dict[str, Seat] = field(default_factory=dict)  # power -> seat
    phase_id: int | None = None
    started: bool = False


class Year:
    def __init__(self, n_games: int, seed: int, db: Path) -> None:
        self.now = START
        self.rng = random.Random(seed)
        self.cfg = JudgeConfig(address=JUDGE, db_path=db, code="YEAR", clock=lambda: self.now)
        self.judge = Judge(self.cfg)
        self.queue: list[tuple[datetime, int, str, str, str, str]] = []  # (when, n, kind, sender, body, game)
        self.n = 0
        self.games: dict[str, Game] = {}
        self.made = 0
        self.cpu: Counter[str] = Counter()
        self.mails_in: Counter[str] = Counter()
        self.mails_out: Counter[str] = Counter()
        self.hours: Counter[int] = Counter()  # CPU seconds by simulated hour
        self.events = 0
        self.finished = 0
        for _ in range(n_games):
            self.new_game(spread=timedelta(days=2))

    # -- traffic --------------------------------------------------------------------------------
    def mail(self, when: datetime, kind: str, sender: str, body: str, game: str) -> None:
        self.n += 1
        heapq.heappush(self.queue, (when, self.n, kind, sender, body, game))

    def new_game(self, spread: timedelta = timedelta(hours=2)) -> None:
        self.made += 1
        name = f"y{self.made}"
        g = Game(name, f"gm{self.made}@host.test")
        self.games[name] = g
        at = self.now + spread * self.rng.random()
        self.mail(at, "create", g.master, f"CREATE ?{name} masterpw standard move=48h retreat=24h adjust=24h "
                                          f"grace=24h press=any", name)
        for k in range(7):
            r = Robot(f"p{k}.{name}@players.test", f"pw{k}x{self.made}", random.Random(self.rng.random()),
                      free_form=False)
            g.seats[f"?{k}"] = Seat(r)
            self.mail(at + timedelta(hours=24 * self.rng.random()), "join", r.address,
                      f"SIGNON ?{name} {r.password}", name)

    def look(self) -> None:
        """After a step: games that started, phases that changed, games that ended."""
        st = self.judge.store
        for g in list(self.games.values()):
            game = games.get_game(st, g.name)
            if game is None:
                continue
            if game.state in ("finished", "terminated"):
                self.finished += 1
                del self.games[g.name]
                self.new_game()
                continue
            if game.state != "active":
                continue
            if not g.started:
                g.started = True
                by_addr = {s.robot.address: s for s in g.seats.values()}
                g.seats = {}
                for s in games.seats(st, game.id):
                    if s["power"] and s["role"] == "player":
                        addr = games.address_of(st, s["player_id"])
                        if addr in by_addr:
                            seat = by_addr[addr]
                            seat.robot.power = s["power"]
                            seat.letter = game.variant.powers[s["power"]].letter
                            g.seats[s["power"]] = seat
            ph = games.current_phase(st, game)
            if ph is None or ph.id == g.phase_id:
                continue
            g.phase_id = ph.id
            self.plan_phase(g, game, ph)

    def plan_phase(self, g: Game, game: games.Game, ph: games.PhaseRow) -> None:
        left = (ph.deadline - self.now) if ph.deadline else timedelta(hours=24)
        movement = ph.position.phase.kind == "movement"
        for power, seat in list(g.seats.items()):
            rng = seat.robot.rng
            if rng.random() < 0.003:  # leaves; a newcomer takes the power over within a day
                self.mail(self.now + left * 0.1 * rng.random(), "resign", seat.robot.address,
                          f"SIGNON {seat.letter}{g.name} {seat.robot.password}\nRESIGN", g.name)
                new = Robot(f"r{self.n}.{g.name}@players.test", f"npw{self.n}", random.Random(rng.random()),
                            power=power, free_form=False)
                g.seats[power] = Seat(new, seat.letter)
                self.mail(self.now + left * 0.1 + timedelta(hours=24 * rng.random()), "takeover", new.address,
                          f"SIGNON {seat.letter}{g.name} {new.password}", g.name)
                continue
            if rng.random() < 0.04:
                continue  # sends nothing this phase
            for i in range(2 if rng.random() < 0.25 else 1):
                self.mail(self.now + left * (0.05 + 0.9 * rng.random()), "orders", seat.robot.address,
                          f"{g.name}\t{power}\t{ph.id}", g.name)
            if movement and rng.random() < 0.3:
                friend = rng.choice([p for p in g.seats if p != power])
                self.mail(self.now + left * rng.random(), "press", seat.robot.address,
                          f"SIGNON {seat.letter}{g.name} {seat.robot.password}\nPRESS TO {g.seats[friend].letter}\n"
                          f"{friend}, shall we work together this year? I hold if you hold.\nENDPRESS", g.name)

    def orders_body(self, spec: str) -> str | None:
        """The orders for a planned mail, written now (None: the phase has moved on meanwhile)."""
        name, power, phase_id = spec.split("\t")
        g, st = self.games.get(name), self.judge.store
        game = games.get_game(st, name)
        if g is None or game is None or game.state != "active" or power not in g.seats:
            return None
        ph = games.current_phase(st, game)
        if ph is None or ph.id != int(phase_id):
            return None
        seat = g.seats[power]
        lines = [f"SIGNON {seat.letter}{name} {seat.robot.password}", *seat.robot.orders(ph.position, game.rules)]
        if ph.position.phase.year >= game.variant.calendar.start.year + 12:
            lines.append("SET DRAW")
        return "\n".join(lines)

    # -- the clock ---------------------------------------------------------------------------------
    def step(self, hour: int) -> None:
        batch: list[tuple[bytes, str]] = []
        while self.queue and self.queue[0][0] <= self.now:
            _, n, kind, sender, body, _ = heapq.heappop(self.queue)
            if kind == "orders":
                body = self.orders_body(body)  # type: ignore[assignment]
                if body is None:
                    continue
            self.mails_in[kind] += 1
            batch.append((make_mail(sender, JUDGE, body, kind, message_id=f"<y{n}@players.test>", date=self.now),
                          f"year:{n}"))
        t = time.process_time()
        for i in range(0, len(batch), BATCH):
            self.judge.receive_many(batch[i:i + BATCH], now=self.now)
        t1 = time.process_time()
        ran = self.judge.run_due(now=self.now)
        self.events += ran
        t2 = time.process_time()
        while True:
            items = self.judge.pending_outbox(limit=500, now=self.now)
            if not items:
                break
            self.mails_out["mail"] += len(items)
            self.judge.mark_sent_many([it.id for it in items], now=self.now)
        t3 = time.process_time()
        self.cpu["receive"] += t1 - t
        self.cpu["deadlines"] += t2 - t1
        self.cpu["outbox"] += t3 - t2
        self.hours[hour] += t3 - t
        if batch or ran:  # nothing else starts, changes or ends a game
            self.look()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10_000, help="running games at the host simulated")
    ap.add_argument("--scale", type=float, default=0.001, help="the slice of the host simulated whole")
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trim-days", type=int, default=30,
                    help="trim sent mail older than this once a day, as the daemon does (0: keep it whole)")
    args = ap.parse_args()
    n = max(1, round(args.games * args.scale))
    factor = args.games / n
    load = os.getloadavg()[0]
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        y = Year(n, args.seed, Path(tmp) / "judge.sqlite")
        rss0 = rss_mb()
        trimmed, half = Trimmed(), 0
        for hour in range(args.days * 24):
            y.now = START + timedelta(hours=hour)
            y.step(hour)
            if args.trim_days and hour % 24 == 23:
                t = time.process_time()
                trimmed.add(trim(y.judge.store, timedelta(days=args.trim_days), y.now))
                y.cpu["trim"] += time.process_time() - t
            if hour == args.days * 12:  # the growth from here on is the steady one (a trim window filled)
                y.judge.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                half = (Path(tmp) / "judge.sqlite").stat().st_size
            if hour % (24 * 30) == 0 and hour:
                print(f"  day {hour // 24}: {sum(y.mails_in.values())} mails in, {sum(y.mails_out.values())} out, "
                      f"{y.events} events, {y.finished} games over, service CPU {sum(y.cpu.values()):.1f} s, "
                      f"wall {time.perf_counter() - wall:.0f} s, {rss_mb():.0f} MB resident", flush=True)
        y.judge.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = (Path(tmp) / "judge.sqlite").stat().st_size
        sent = y.judge.store.scalar("SELECT COALESCE(SUM(LENGTH(message)), 0) FROM outbox")
        rss1 = rss_mb()
        y.judge.close()
    wall = time.perf_counter() - wall
    cpu = sum(y.cpu.values())
    ins, outs = sum(y.mails_in.values()), sum(y.mails_out.values())
    print(f"simulated: {n} running games (1/{factor:.0f} of a {args.games:,}-game host) for {args.days} days, "
          f"in {wall:.0f} s of wall time (load average before: {load:.1f}, after: {os.getloadavg()[0]:.1f}, "
          f"on {os.cpu_count()} cores; CPython {sys.version.split()[0]})")
    print(f"  mails in: {ins:,} ({', '.join(f'{k} {v:,}' for k, v in y.mails_in.most_common())}); "
          f"mails out: {outs:,}; deadline/reminder/grace events run: {y.events:,}; games over: {y.finished} "
          f"(each replaced by a new one)")
    print(f"  service CPU: {cpu:.1f} s: receiving {y.cpu['receive']:.1f} s "
          f"({1000 * y.cpu['receive'] / max(ins, 1):.2f} ms a mail in), deadlines {y.cpu['deadlines']:.1f} s "
          f"({1000 * y.cpu['deadlines'] / max(y.events, 1):.1f} ms an event), outbox {y.cpu['outbox']:.1f} s; "
          f"store {size / 2**20:.0f} MB, of which the outbox's mails {sent / 2**20:.0f} MB; "
          f"resident memory {rss0:.0f} -> {rss1:.0f} MB")
    steady = (size - half) / (args.days / 2)
    if args.trim_days:
        print(f"  trimmed once a day (sent mail older than {args.trim_days} days keeps its header): "
              f"{trimmed.mails:,} mails, {trimmed.freed / 2**20:.0f} MB of bodies freed and reused by the store, "
              f"in {y.cpu['trim']:.1f} s of CPU")
    print(f"  the store grew {steady / 2**20:.2f} MB a day over the second half of the run "
          f"= {steady * factor * 365 / 2**30:,.0f} GB a year for the whole host"
          + (f" (sent mail trimmed after {args.trim_days} days)" if args.trim_days else " (sent mail kept whole)"))
    busiest = max(y.hours.values())
    year = cpu * factor * 365 / args.days
    print(f"the whole host, scaled up x{factor:.0f}: {ins * factor * 365 / args.days:,.0f} mails in and "
          f"{outs * factor * 365 / args.days:,.0f} out a year ({ins * factor / (args.days * 86400):.1f} in a second on "
          f"average); service CPU {year / 3600:,.0f} core-hours a year = {100 * year / (365 * 86400):.1f} % of one "
          f"core on average; the busiest hour {busiest * factor:,.0f} CPU s = {100 * busiest * factor / 3600:.0f} % "
          f"of one core; the store grows {size * factor * 365 / args.days / 2**30:,.0f} GB a year")


if __name__ == "__main__":
    main()
