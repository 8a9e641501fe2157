"""A table of players around a judge, for the service tests: mail goes through real Maildir folders.

The clock is injected (``table.now``); nothing sleeps. Passwords use a low scrypt cost so the
suite stays fast (the cost is stored with each hash, so this changes nothing else).
"""

from __future__ import annotations

import mailbox
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email import message_from_bytes, policy
from email.utils import parseaddr
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from judge.mail import Judge, JudgeConfig
from judge.mail.maildir import Folders, run_once
from judge.demo.robots import make_mail

JUDGE = "judge@example.test"
MASTER = "gm@example.test"
START = datetime(2030, 1, 7, 12, 0, tzinfo=timezone.utc)


@dataclass
class Mail:
    to: list[str]
    subject: str
    body: str
    msg: EmailMessage


class Table:
    def __init__(self, tmp: Path, **settings: Any):
        """``settings``: further JudgeConfig settings (abuse limits, say)."""
        self.tmp = tmp
        self.now = START
        self.folders = Folders(tmp / "mail")
        self.folders.create()
        self.cfg = JudgeConfig(**{"address": JUDGE, "db_path": tmp / "judge.sqlite", "clock": lambda: self.now,
                                  "password_cost": 4, "code": "TEST", "reminder_hours": 8, **settings})
        self.judge = Judge(self.cfg)
        self.seen: set[str] = set()
        self.mails: list[Mail] = []
        self.powers: dict[str, str] = {}  # power -> address
        self.passwords: dict[str, str] = {}  # address -> password
        self.n = 0

    def close(self) -> None:
        self.judge.close()

    def reopen(self) -> None:
        self.judge.close()
        self.judge = Judge(self.cfg)

    # -- mail ----------------------------------------------------------------------------------
    def raw(self, sender: str, body: str, subject: str = "orders", headers: dict[str, str] | None = None,
            message_id: str | None = None) -> bytes:
        self.n += 1
        return make_mail(sender, JUDGE, body, subject, message_id=message_id or f"<m{self.n}.{parseaddr(sender)[1] or sender}>",
                         date=self.now, headers=headers)

    def drop(self, raw: bytes) -> None:
        mailbox.Maildir(str(self.folders.inbox)).add(raw)

    def send(self, sender: str, body: str, subject: str = "orders", **kw: object) -> list[Mail]:
        """Mail the judge, run it once, return the mails it sent."""
        self.drop(self.raw(sender, body, subject, **kw))  # type: ignore[arg-type]
        return self.run()

    def run(self) -> list[Mail]:
        run_once(self.judge, self.folders, now=self.now)
        new: list[Mail] = []
        d = self.folders.outbox / "new"
        for f in sorted(d.iterdir()):
            if f.name in self.seen:
                continue
            self.seen.add(f.name)
            msg = message_from_bytes(f.read_bytes(), policy=policy.default)
            new.append(Mail([a.strip() for a in str(msg["To"]).split(",")], str(msg["Subject"]),
                            msg.get_body(("plain",)).get_content(), msg))  # type: ignore[attr-defined,union-attr]
        self.mails += new
        return new

    def advance(self, **delta: float) -> list[Mail]:
        self.now += timedelta(**delta)
        return self.run()

    def to(self, addr: str, mails: list[Mail] | None = None) -> list[Mail]:
        return [m for m in (self.mails if mails is None else mails) if addr in m.to]

    # -- a game --------------------------------------------------------------------------------
    def start_game(self, name: str = "tg", options: str = "move=24h retreat=12h adjust=12h grace=12h",
                   setup: str = "") -> None:
        """``setup``: lines the master sends (signed on) while the game forms, before anyone joins."""
        self.send(MASTER, f"CREATE ?{name} masterpw standard {options}")
        if setup:
            self.send(MASTER, f"SIGNON M{name} masterpw\n{setup}")
        for i in range(7):
            addr = f"p{i}@example.test"
            self.passwords[addr] = f"pw{i}"
            self.send(addr, f"SIGNON ?{name} pw{i}")
        for m in self.mails:
            found = re.search(r"You are (\w+)\.", m.body)
            if "Game Starting" in m.subject and found:
                self.powers[found.group(1)] = m.to[0]
        assert len(self.powers) == 7

    def signon(self, power: str, game: str = "tg") -> str:
        from judge.variant import load_variant

        letter = load_variant("standard").powers[power].letter
        addr = self.powers[power]
        return f"SIGNON {letter}{game} {self.passwords[addr]}"

    def order(self, power: str, orders: str, game: str = "tg", extra: str = "") -> list[Mail]:
        body = self.signon(power, game) + "\n" + orders.strip() + ("\n" + extra if extra else "")
        return self.send(self.powers[power], body)

    def reply_to(self, addr: str, mails: list[Mail]) -> Mail:
        got = [m for m in mails if addr in m.to and m.subject.startswith("Re:")]
        assert got, f"no reply to {addr} in {[m.subject for m in mails]}"
        return got[-1]

    def rows(self, sql: str, params: tuple = ()) -> list[dict]:
        return [dict(r) for r in self.judge.store.all(sql, params)]

    def game_state(self, name: str = "tg") -> str:
        return self.judge.store.scalar("SELECT state FROM games WHERE name = ?", (name,))

    def phase(self, name: str = "tg") -> str:
        return self.judge.store.scalar("SELECT p.short FROM phases p JOIN games g ON g.id = p.game_id "
                                       "WHERE g.name = ? AND p.state = 'open'", (name,))


def flat(text: str) -> str:
    """The text with the judge's line wrapping undone: compare words."""
    return " ".join(text.split())


def hold_all(table: Table, skip: tuple[str, ...] = ()) -> None:
    """Every power except ``skip`` sends complete hold orders for the current movement phase."""
    from judge.game import lifecycle as games

    g = games.get_game(table.judge.store, "tg")
    ph = games.current_phase(table.judge.store, g)
    pos = ph.position
    for power in table.powers:
        if power in skip:
            continue
        lines = [f"{u.kind} {pos.map.display(u.loc)} H" for u in pos.units.values() if u.power == power]
        if lines:
            table.order(power, "\n".join(lines))


def acquaint(table: Table, addr: str) -> None:
    """Make ``addr`` an address the judge knows (the master of a game of its own), so the answer
    limits of people apply to it, not the one short answer an hour a stranger gets."""
    name = "k" + "".join(ch for ch in addr.partition("@")[0] if ch.isalnum())
    out = table.send(addr, f"CREATE ?{name} pw{name}")
    assert f"Game '{name}'" in table.reply_to(addr, out).body


def observe(table: Table, addr: str, game: str = "tg", password: str = "watchpw") -> None:
    """``addr`` becomes an observer as anyone does: OBSERVE, then CONFIRM with the code the judge
    mailed to that address."""
    out = table.send(addr, f"OBSERVE {game} {password}")
    body = table.reply_to(addr, out).body
    code = re.search(r"CONFIRM ([A-Z2-7]{16})", body)
    assert code, body
    out = table.send(addr, f"CONFIRM {code.group(1)}")
    assert f"You are observing '{game}'" in table.reply_to(addr, out).body
