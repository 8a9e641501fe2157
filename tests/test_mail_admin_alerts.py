"""Failures the admin sees: a refused IMAP login (an ERROR at once, a notice to the keeper, a
full back-off even with a deadline near), a held deadline whose cap is announced before it runs
out, SMTP back within seconds of its server, and a full disk (named in `judge status` and in the
master's notice, and no order lost)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot, mail, order_mail, running_daemon,  # noqa: F401
                         smtp_sink, text_of, until, workdir, write_config)
from test_mail_deadlines import (append_at, deadline_mail, england_moved, make_game, next_whole_second, order,
                                 real_config, spring_results)

pytestmark = pytest.mark.mail
ADMIN = "admin@example.test"
OPTIONS = {"code": "TEST", "password_cost": 10, "keeper": ADMIN}


def subjects(sink: SmtpSink, to: str | None = None) -> list[str]:
    return [str(m.msg["Subject"]) for m in (sink.to(to) if to else sink.messages)]


async def test_refused_login_is_an_error_a_notice_and_a_full_back_off(mail: Dovecot, smtp_sink: SmtpSink,
                                                                      workdir: Path) -> None:
    cfg = real_config(mail, smtp_sink, workdir, judge={"options": OPTIONS},
                      imap={"reconnect_urgent": 0.3, "urgent_window": 600.0})
    make_game(cfg["judge"]["db_path"], next_whole_second(30.0))  # a deadline is near: no excuse either
    cfg["imap"]["password"] = "wrong"
    async with running_daemon(cfg) as d:
        await smtp_sink.wait_for(lambda: any("IMAP login refused" in s for s in subjects(smtp_sink, ADMIN)),
                                 timeout=15, what="the admin told")
        assert d.imap.login_refused
        [notice] = smtp_sink.to(ADMIN)
        body = text_of(notice.msg)
        assert f"127.0.0.1:{mail.imap_port}" in body and "judge@example.test" in body and "password" in body
        assert "secret" not in body and "wrong" not in body  # never the password itself
        await asyncio.sleep(6.0)
        # one try, then the long wait (auth_retry_min is a minute): no hammering of the server
        assert d.imap.stats.sessions == 1
        assert len(smtp_sink.to(ADMIN)) == 1
        assert d.state.snapshot()["imap_last_error"]["value"].startswith(f"login 127.0.0.1:{mail.imap_port}: ")


async def test_hold_expiry_is_announced_before_it_happens(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, judge={"deadline_hold_notice": 0.5, "deadline_hold_max": 6.0,
                                                         "deadline_hold_warn": 3.0})
    async with running_daemon(cfg) as d:
        mail.append(deadline_mail("d1", 2.0))
        await until(lambda: d.imap.stats.handled == 1, what="deadline set")
    cfg["imap"]["password"] = "wrong"
    async with running_daemon(cfg) as d:
        await smtp_sink.wait_for(lambda: "Deadline d1" in subjects(smtp_sink), timeout=20, what="processed at the cap")
    mine = [s for s in subjects(smtp_sink, "player@example.test") if s.startswith("Deadline")]
    assert mine[0].startswith("Deadline held: mailbox "), mine
    assert mine[1].startswith("Deadline still held: processed in "), mine
    assert mine[2:] == ["Deadline processed without a mailbox read", "Deadline d1"], mine


async def test_smtp_is_back_within_seconds_of_its_server(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """The default back-off grows to 300 s; the port is knocked on every 2 s meanwhile."""
    await smtp_sink.stop()
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"reconnect_min": 1.0, "reconnect_max": 300.0})
    async with running_daemon(cfg) as d:
        mail.append(order_mail("while-down"))
        await until(lambda: d.imap.stats.handled == 1, what="order handled while SMTP is down")
        await asyncio.sleep(20.0)  # the back-off has grown past 8 s by now
        await smtp_sink.start()
        back = time.monotonic()
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, timeout=30, what="sent after the outage")
        assert time.monotonic() - back < 6.0


# --- a full disk ----------------------------------------------------------------------------------------
def small_disk(size: str = "64m") -> str | None:
    """A tmpfs of ``size`` (root only); None where it cannot be had."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return None
    d = tempfile.mkdtemp(prefix="judge-fulldisk.")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", d],
                      capture_output=True).returncode != 0:
        os.rmdir(d)
        return None
    return d


def fill(folder: str) -> Path:
    """Fill the disk up to the last byte."""
    path = Path(folder, "filler")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return path


def judge_status(config: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "judge.cli", "status", "--config", str(config)], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


async def test_a_full_disk_is_named_and_costs_no_order(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    disk = small_disk()
    if disk is None:
        pytest.skip("needs root to mount a small tmpfs")
    try:
        db = str(Path(disk, "judge.sqlite"))
        cfg = real_config(mail, smtp_sink, workdir, judge={"db_path": db, "deadline_hold_notice": 1.0,
                                                            "options": OPTIONS})
        deadline = next_whole_second(8.0)
        seats = make_game(db, deadline)
        config = write_config(workdir / "judge.toml", cfg)
        async with running_daemon(cfg) as d:
            await until(lambda: d.imap.connected.is_set(), what="IMAP session")
            import sqlite3

            with sqlite3.connect(db) as c:  # every write from now on needs new room
                c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            filler = await asyncio.to_thread(fill, disk)
            await asyncio.to_thread(append_at, mail, deadline - 3.0, order(seats["England"], "E", "F Lon - Nth"))
            await until(lambda: "full" in d.imap.store_error, timeout=15, what="the full disk noticed")
            await asyncio.sleep(max(0.0, deadline + 1.0 - time.time()))
            assert spring_results(db) is None
            for who in ("master@example.test", ADMIN):
                await smtp_sink.wait_for(lambda: any("disk full" in s for s in subjects(smtp_sink, who)),
                                         timeout=15, what=f"the hold notice naming the full disk to {who}")
            status = await asyncio.to_thread(judge_status, config)
            assert "disk holding the store" in status["mail"]["store_error"], status["mail"]
            assert "in trouble" in status["mail"]["daemon"] and "full" in status["mail"]["daemon"], status["mail"]
            filler.unlink()  # room again
            await until(lambda: spring_results(db) is not None, timeout=40, what="processed once there is room")
            assert england_moved(spring_results(db))
            assert d.imap.store_error == ""
    finally:
        subprocess.run(["umount", "-l", disk], check=False)
        os.rmdir(disk)


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
async def test_refused_smtp_auth_backs_off_fully(mail: Dovecot, workdir: Path) -> None:
    """The same for SMTP AUTH: one try, then the long back-off (auth_retry_min), not every few seconds."""
    from aiosmtpd.smtp import AuthResult

    tries: list[int] = []  # the SMTP session of each AUTH (aiosmtplib tries PLAIN, then LOGIN, in one)

    def refuse(server: object, session: object, envelope: object, mechanism: str, data: object) -> AuthResult:
        tries.append(id(session))
        return AuthResult(success=False, handled=False, message="535 5.7.8 Authentication credentials invalid")

    sink = await SmtpSink(authenticator=refuse, auth_required=True, auth_require_tls=False).start()
    try:
        cfg = daemon_config(mail, sink, workdir, smtp={"user": "judge", "password": "wrong"})
        async with running_daemon(cfg) as d:
            mail.append(order_mail("needs-a-reply"))
            await until(lambda: len(tries) >= 1, what="the first AUTH")
            await asyncio.sleep(5.0)
            assert len(set(tries)) == 1, tries
            assert "SMTPAuthenticationError" in d.state.snapshot()["smtp_last_error"]["value"]
        assert sink.messages == []
    finally:
        await sink.stop()
