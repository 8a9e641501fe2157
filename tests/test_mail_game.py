"""A whole game by mail: players' messages go into the judge's Dovecot mailbox, the daemon hands
them to the real game service, and the replies and reports reach the players' own Dovecot
mailboxes through SMTP. Deadlines are seconds long, so one late power and the scheduler's
deadline processing are part of the game."""

from __future__ import annotations

import asyncio
import email
import random
import re
from email import policy
from pathlib import Path

import pytest

from mailservers import (POWERS, Dovecot, SmtpSink, daemon_config, dovecot, mail, running_daemon,  # noqa: F401
                         smtp_sink, text_of, until, workdir)

pytestmark = pytest.mark.mail
GAME = "mailgame"


class Inboxes:
    """What each player has received so far, read over IMAP from their own mailbox."""

    def __init__(self, dovecot: Dovecot) -> None:
        self.dovecot = dovecot
        self.mail: dict[str, list[email.message.EmailMessage]] = {}
        self.seen: dict[str, set[int]] = {}

    def refresh(self, user: str) -> list[email.message.EmailMessage]:
        seen = self.seen.setdefault(user, set())
        for uid, _, raw in self.dovecot.messages(user):
            if uid not in seen:
                seen.add(uid)
                self.mail.setdefault(user, []).append(email.message_from_bytes(raw, policy=policy.default))
        return self.mail.get(user, [])

    def subjects(self, user: str) -> list[str]:
        return [str(m["Subject"]) for m in self.mail.get(user, [])]


async def test_whole_game_by_mail(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    from judge.mail import Judge, JudgeConfig
    from judge.game import lifecycle as games
    from judge.demo.robots import Robot, make_mail

    cfg = daemon_config(mail, smtp_sink, workdir, service="judge.mail:Judge",
                        judge={"options": {"code": "TEST", "password_cost": 10}},
                        imap={"poll_interval": 1.0})
    robots = [Robot(f"{p}@example.test", f"pw{i}", random.Random(i)) for i, p in enumerate(POWERS)]
    master = "master@example.test"
    inboxes = Inboxes(mail)

    def send(sender: str, body: str, subject: str = "orders") -> None:
        mail.append(make_mail(sender, "judge@example.test", body, subject))

    async with running_daemon(cfg) as d:
        send(master, f"CREATE ?{GAME} masterpw standard move=0.1m retreat=0.1m adjust=0.1m grace=0.05m press=any",
             "new game")
        for r in robots:
            send(r.address, f"SIGNON ?{GAME} {r.password}\n\n-- \nme", "join")

        def started() -> bool:
            for r in robots:
                for m in inboxes.refresh(r.address.split("@")[0]):
                    found = re.search(r"You are (\w+)\.", text_of(m)) if "Game Starting" in str(m["Subject"]) else None
                    if found:
                        r.power = found.group(1)
            return all(r.power for r in robots)

        await until(started, 60, "every player told the game started and their power", step=0.3)
        view = Judge(JudgeConfig(address="judge@example.test", db_path=cfg["judge"]["db_path"], password_cost=10))
        try:
            late = robots[3]
            phases: list[str] = []
            for _ in range(30):
                g = games.get_game(view.store, GAME)
                if g.state != "active":
                    break
                ph = games.current_phase(view.store, g)
                phases.append(ph.short)
                start_year = g.variant.calendar.start.year
                draw = ph.position.phase.year > start_year
                for r in robots:
                    if games.seat_of_power(view.store, g.id, r.power)["status"] == "vacant":
                        continue
                    if r is late and ph.short == "F1901M":
                        continue  # forgets: the deadline passes and the daemon's scheduler processes it
                    body = [f"SIGNON {g.variant.powers[r.power].letter}{GAME} {r.password}", *r.orders(ph.position)]
                    if draw:
                        body.append("SET DRAW")
                    send(r.address, "\n".join(body) + f"\n\n-- \n{r.power}", f"{ph.short} orders")

                def moved_on() -> bool:
                    g2 = games.get_game(view.store, GAME)
                    now = games.current_phase(view.store, g2)
                    return g2.state != "active" or now is None or now.id != ph.id

                await until(moved_on, 60, f"phase {ph.short} processed", step=0.2)
            g = games.get_game(view.store, GAME)
            assert g.state != "active", f"game still running after {phases}"
        finally:
            view.close()
        # every report queued has left by SMTP and reached the mailboxes
        await until(lambda: d.smtp.idle.is_set(), 30, "outbox drained")
        assert d.imap.stats.errors == 0 and d.scheduler.runs >= 1

    assert "F1901M" in phases and len(phases) >= 4
    assert (g.outcome or {}).get("kind") in ("draw", "victory"), g.outcome
    master_subjects = [str(m["Subject"]) for m in inboxes.refresh("master")]
    assert any("Late Notice" in s for s in master_subjects), master_subjects
    for r in robots:
        user = r.address.split("@")[0]
        msgs = inboxes.refresh(user)
        ids = [str(m["Message-ID"]) for m in msgs]
        assert len(ids) == len(set(ids)), f"{user} got a message twice"
        results = [s for s in inboxes.subjects(user) if "Results" in s]
        assert any("S1901M" in s for s in results) and any("F1901M" in s for s in results), inboxes.subjects(user)
        for m in msgs:
            assert m["Auto-Submitted"] and m["Date"] and m["Message-ID"]
    assert mail.count("UNSEEN") == 0
