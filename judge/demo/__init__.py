"""``judge demo``: a whole short game (standard, or ``--variant``), offline, through the real mail path.

One robot player a power and a robot master write mail into a Maildir inbox; ``judge serve --once``
logic reads it, and the robots read the judge's answers from the outbox Maildir. The clock is
simulated, so deadlines, a late notice and civil disorder happen in seconds. Every results
mail is also written to ``OUT/reports`` as a text file.
"""

from __future__ import annotations

import mailbox
import random
import re
import shutil
import time
from datetime import datetime, timedelta, timezone
from email import message_from_bytes, policy
from pathlib import Path
from typing import Callable

from judge.game import lifecycle as games
from judge.game.config import JudgeConfig
from judge.mail.receive import Judge
from judge.mail.maildir import Folders, run_once
from judge.demo.robots import Robot, free_form_available, make_mail
from judge.variant import load_variant

JUDGE_ADDRESS = "judge@demo.invalid"
GAME = "demo"


class Demo:
    def __init__(self, out: Path, seed: int = 1, max_years: int = 8, echo: Callable[[str], None] | None = None,
                 variant: str = "standard"):
        self.variant = load_variant(variant)
        self.max_years = max_years
        self.plumbing(out, seed, echo)
        self.robots = [Robot(f"player{i + 1}@demo.invalid", f"secret{i + 1}", random.Random(seed * 100 + i))
                       for i in range(len(self.variant.powers))]

    def plumbing(self, out: Path, seed: int, echo: Callable[[str], None] | None) -> None:
        """The mail folders, the simulated clock, the judge's settings and the robots' mailboxes."""
        self.out = out
        self.rng = random.Random(seed)
        self.echo = echo or (lambda s: None)
        self.clock = datetime(2001, 3, 1, 12, 0, tzinfo=timezone.utc)
        self.folders = Folders(out / "mail")
        self.reports = out / "reports"
        self.cfg = JudgeConfig(address=JUDGE_ADDRESS, name="Demo Judge", db_path=out / "judge.sqlite",
                               code="DEMO", clock=lambda: self.clock, password_cost=10)
        self.master = "master@demo.invalid"
        self.seen_outbox: set[str] = set()
        self.mailboxes: dict[str, list[tuple[str, str]]] = {}
        self.n_reports = 0
        self.counts = {"sent": 0, "received": 0}

    # -- mail -------------------------------------------------------------------------------------
    def send(self, sender: str, body: str, subject: str = "orders") -> None:
        mb = mailbox.Maildir(str(self.folders.inbox), create=True)
        mb.add(make_mail(sender, JUDGE_ADDRESS, body, subject, date=self.clock))
        self.counts["sent"] += 1

    def pump(self) -> None:
        """One ``judge serve --once`` pass, then deliver the judge's mail to the robots."""
        run_once(self.judge, self.folders, now=self.clock)
        for sub in ("new", "cur"):
            d = self.folders.outbox / sub
            for f in sorted(d.iterdir()) if d.is_dir() else ():
                if f.name in self.seen_outbox:
                    continue
                self.seen_outbox.add(f.name)
                msg = message_from_bytes(f.read_bytes(), policy=policy.default)
                subject = str(msg["Subject"])
                part = msg.get_body(preferencelist=("plain",))  # type: ignore[attr-defined]
                body = part.get_content() if part is not None else ""
                for addr in [a.strip() for a in str(msg["To"]).split(",")]:
                    self.mailboxes.setdefault(addr, []).append((subject, body))
                    self.counts["received"] += 1
                    if addr == self.master and (" Results" in subject or " Victory" in subject
                                                or "Late Notice" in subject or "Draw" in subject):
                        self.save_report(subject, body)

    def save_report(self, subject: str, body: str) -> None:
        self.n_reports += 1
        m = re.search(r" - (\w+) (.*)$", subject)
        tag = f"{m.group(1)}-{m.group(2)}" if m else "report"
        tag = re.sub(r"[^A-Za-z0-9-]+", "-", tag).strip("-")
        self.reports.mkdir(parents=True, exist_ok=True)
        (self.reports / f"{self.n_reports:03d}-{tag}.txt").write_text(f"Subject: {subject}\n\n{body}", encoding="utf-8")
        first = body.split("\n\n", 2)
        self.echo(f"  {subject}")
        del first

    # -- the game ----------------------------------------------------------------------------------
    def game(self) -> games.Game:
        g = games.get_game(self.judge.store, GAME)
        assert g is not None
        return g

    def run(self) -> str:
        started = time.monotonic()
        self.folders.create()
        self.judge = Judge(self.cfg)
        try:
            return self._run(started)
        finally:
            self.judge.close()

    def _run(self, started: float) -> str:
        style = "free-form" if free_form_available() else "canonical"
        v = self.variant
        self.echo(f"judge demo: {v.title}, {len(self.robots)} robot players, orders in {style} text; "
                  f"mail folders in {self.folders.root}")
        # the standard game is won at 10 centres to keep it short; a variant keeps its own victory rules
        centres = " centres=10" if v.name == "standard" else ""
        self.send(self.master, f"CREATE ?{GAME} masterpw {v.name} move=24h retreat=12h adjust=12h grace=12h"
                               f"{centres} press=any", subject="new game")
        for r in self.robots:
            self.send(r.address, f"Hello judge, please sign me up.\n\nSIGNON ?{GAME} {r.password}\n\n-- \n{r.address}",
                      subject="join")
        self.pump()
        for r in self.robots:
            for subject, body in self.mailboxes.get(r.address, []):
                m = re.search(r"You are (\w+)\.", body)
                if "Game Starting" in subject and m:
                    r.power = m.group(1)
        assert all(r.power for r in self.robots), "the game did not start"
        self.echo("  powers: " + ", ".join(f"{r.power} ({r.address})" for r in self.robots))
        late_robot = self.robots[self.rng.randrange(len(self.robots))]
        phases = 0
        move_ids: list[int] = []  # the movement phases seen, in order
        start_year = self.game().variant.calendar.start.year
        while True:
            g = self.game()
            if g.state != "active":
                break
            ph = games.current_phase(self.judge.store, g)
            assert ph is not None
            pos = ph.position
            phases += 1
            if pos.phase.kind == "movement" and ph.id not in move_ids:
                move_ids.append(ph.id)
            moves = move_ids.index(ph.id) + 1 if ph.id in move_ids else 0
            draw = pos.phase.year >= start_year + self.max_years
            for r in self.robots:
                seat = games.seat_of_power(self.judge.store, g.id, r.power)  # type: ignore[arg-type]
                if seat["status"] == "vacant":
                    continue
                lines = r.orders(pos, g.rules)
                if r is late_robot and pos.phase.kind == "movement" and moves == 2:
                    continue  # one player forgets: the deadline passes, grace runs out, civil disorder
                body = [f"SIGNON {g.variant.powers[r.power].letter}{GAME} {r.password}"]  # type: ignore[index]
                body += lines
                if draw:
                    body.append("SET DRAW")
                if pos.phase.kind == "movement" and r.rng.random() < 0.15:
                    others = [x for x in self.robots if x is not r]
                    friend = r.rng.choice(others)
                    body += [f"PRESS TO {g.variant.powers[friend.power].letter}",  # type: ignore[index]
                             f"{friend.power}, shall we work together this year?", "ENDPRESS"]
                if pos.phase.kind == "movement" and moves == 1 and r is self.robots[0]:
                    body.append("SET WAIT")  # one player waits: the first move runs to its deadline
                if lines or draw or len(body) > 1:
                    self.send(r.address, "\n".join(body) + f"\n\n-- \n{r.power}", subject=f"{ph.short} orders")
            self.pump()
            # let simulated time pass until the phase is processed
            for _ in range(10):
                g = self.game()
                now_ph = games.current_phase(self.judge.store, g)
                if g.state != "active" or now_ph is None or now_ph.id != ph.id:
                    break
                wake = self.judge.next_wakeup()
                if wake is None:
                    break
                self.clock = max(self.clock, wake)
                self.pump()
            self.clock += timedelta(minutes=30)
            if phases > 200:
                break
        g = self.game()
        self.send(self.master, f"SIGNON M{GAME} masterpw\nSUMMARY {GAME}\nHISTORY {GAME}", subject="summary")
        self.pump()
        for subject, body in self.mailboxes.get(self.master, [])[-1:]:
            self.reports.mkdir(parents=True, exist_ok=True)
            (self.reports / "summary-and-history.txt").write_text(f"Subject: {subject}\n\n{body}", encoding="utf-8")
        outcome = g.outcome or {}
        if outcome.get("kind") == "victory":
            how = f"victory for {', '.join(outcome.get('winner', []))}"
        elif outcome.get("kind") == "draw":
            how = f"draw between {', '.join(outcome.get('powers', []))}"
        elif outcome.get("kind") == "concession":
            how = f"concession to {', '.join(outcome.get('winner', []))}"
        elif outcome.get("kind") == "no winner":
            how = f"no winner ({outcome.get('rule', '')})"
        else:
            how = g.state
        secs = time.monotonic() - started
        return (f"Demo finished: {how} after {phases} phases; {self.counts['sent']} mails to the judge, "
                f"{self.counts['received']} from it, {secs:.1f} s. Reports in {self.reports}/, mail in "
                f"{self.folders.root}/, database {self.cfg.db_path}.")


def empty_out(out: Path) -> Path:
    """The demo's folder, emptied of an earlier run's mail, reports and database."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("mail", "reports"):
        shutil.rmtree(out / name, ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        (out / f"judge.sqlite{suffix}").unlink(missing_ok=True)
    return out


def run_demo(out: Path, seed: int = 1, max_years: int = 8, echo: Callable[[str], None] | None = None,
             variant: str = "standard") -> str:
    return Demo(empty_out(out), seed, max_years, echo, variant).run()
