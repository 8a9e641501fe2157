"""Running a season through the IMAP/SMTP daemon against a real Dovecot (the Maildir door has the
detailed tests: test_service_absence, test_service_replace, test_master_view, test_service_privacy):
a player's absence, a standby address that must confirm, the master's LIST and PREDICT, and a
stranger's WHOGAME that shows public names, never addresses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.demo.robots import make_mail
from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot, mail, running_daemon, smtp_sink,  # noqa: F401
                         text_of, until, workdir)
from test_service_helpers import JUDGE, MASTER, Table


def _cfg(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path, t: Table) -> dict:
    return daemon_config(mail, smtp_sink, workdir, service="judge.mail:Judge",
                         judge={"db_path": str(t.cfg.db_path), "options": {"code": "TEST", "password_cost": 4}},
                         imap={"poll_interval": 1.0})


@pytest.mark.mail
async def test_a_season_by_the_daemon(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    t = Table(workdir)
    t.start_game()
    eng, fra = t.powers["England"], t.powers["France"]
    signon = {p: t.signon(p) for p in ("England", "France")}
    t.close()
    bench, stranger = "bench@example.test", "stranger@example.test"

    def answers(addr: str) -> list:
        return [m for m in smtp_sink.to(addr) if str(m.msg["Subject"]).startswith("Re:")]

    def reply(addr: str, n: int) -> str:
        return " ".join(text_of(answers(addr)[n - 1].msg).split())

    async with running_daemon(_cfg(mail, smtp_sink, workdir, t)):
        mail.append(make_mail(eng, JUDGE, f"{signon['England']}\nSET ABSENCE 2030-01-20 TO 2030-01-22"))
        mail.append(make_mail(bench, JUDGE, "STANDBY tg"))
        mail.append(make_mail(fra, JUDGE, f"{signon['France']}\nA Par - Bur\nA Mar - Spa\nF Bre - Mao"))
        mail.append(make_mail(MASTER, JUDGE, "SIGNON Mtg masterpw\nLIST tg\nPREDICT"))
        mail.append(make_mail(stranger, JUDGE, "WHOGAME tg"))
        await until(lambda: all(answers(a) for a in (eng, bench, fra, MASTER, stranger)), 60, "the five replies")
        assert "absence" in reply(eng, 1).lower() and "Error" not in str(answers(eng)[0].msg["Subject"])
        code = re.search(r"CONFIRM ([A-Z2-7]{16})", reply(bench, 1))
        assert code, reply(bench, 1)
        mail.append(make_mail(bench, JUDGE, f"CONFIRM {code.group(1)}"))
        await until(lambda: len(answers(bench)) >= 2, 30, "the answer to CONFIRM")
        assert "now on the standby list of 'tg'" in reply(bench, 2)
    master = [" ".join(text_of(m.msg).split()) for m in answers(MASTER)]
    listed = next(b for b in master if "PREDICTION" in b)
    assert eng in listed and "France: Army Paris -> Burgundy." in listed, listed  # the master sees it all
    who = reply(stranger, 1)
    assert "p0" in who or "p1" in who  # public names
    assert "@example.test" not in who.replace(stranger, "").replace(JUDGE, ""), who
