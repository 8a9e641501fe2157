"""Operating the daemon: receipts pruned, reconnect after an outage, `judge status` without
passwords (and a dead pid said so), errors naming host, port and step."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from email.message import EmailMessage
from email import policy
from pathlib import Path

import pytest

from mailservers import (DaemonProcess, Dovecot, SmtpSink, daemon_config, dovecot, mail, order_mail,  # noqa: F401
                         running_daemon, smtp_sink, until, workdir, write_config)

pytestmark = pytest.mark.mail
RECEIPTS = "judge+receipts@example.test"


def judge_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("JUDGE_TEST_UNSET_VARIABLE", None)
    # the stand-in service lives beside the tests
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def copy_of_our_send(message_id: str) -> bytes:
    m = EmailMessage()
    m["From"] = "Judge <judge@example.test>"
    m["To"] = "player@example.test"
    m["Subject"] = "an old reply"
    m["Message-ID"] = message_id
    m["X-Judge-Loop"] = "judge@example.test"
    m.set_content("old\n")
    return m.as_bytes(policy=policy.SMTP)


def receipt_copies(dovecot: Dovecot, mailbox: str = "INBOX") -> list[bytes]:
    return [raw for _, _, raw in dovecot.messages(mailbox=mailbox) if b"X-Judge-Loop" in raw]


@pytest.mark.parametrize("folder", ["", "Processed"], ids=["seen-mode", "move-mode"])
async def test_receipt_copies_are_pruned_but_not_those_still_in_doubt(mail: Dovecot, smtp_sink: SmtpSink,
                                                                      workdir: Path, folder: str) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": RECEIPTS},
                        imap={"receipt_keep_days": 0, "receipt_prune_interval": 1.0, "processed_folder": folder})
    # an interrupted send's copy (its Message-ID is in the journal) must stay until it is settled
    from judge.daemon.state import DaemonState
    from mailservers import parsed_config

    state = DaemonState(parsed_config(cfg).judge.resolved_state_path)
    state.begin_data(99, "digest", "<in-doubt@example.test>")
    state.close()
    mail.append([copy_of_our_send("<in-doubt@example.test>"), copy_of_our_send("<settled@example.test>")],
                flags=r"(\Seen)")
    async with running_daemon(cfg) as d:
        mail.append([order_mail(f"r{i}") for i in range(5)])
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 5, what="five replies")
        # the five copies came back (to judge+receipts), were handled, then pruned with the old one
        await until(lambda: d.imap.stats.receipts >= 5, what="the receipt copies seen")
        await until(lambda: d.receipts.pruned >= 6, timeout=20, what="copies pruned")
        left = receipt_copies(mail, folder or "INBOX")
    assert [b"in-doubt" in raw for raw in left] == [True], left
    # the players' own mail is untouched
    assert mail.count("ALL", mailbox=folder or "INBOX") == 5 + 1


async def test_reconnects_within_ten_seconds_of_the_server_coming_back(mail: Dovecot, smtp_sink: SmtpSink,
                                                                       workdir: Path) -> None:
    """Defaults for back-off (1 s doubling to 30 s): after a 20 s outage the next attempt may be
    up to 30 s away, but the port is probed every 2 s, so the daemon is back within seconds."""
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"reconnect_min": 1.0, "reconnect_max": 30.0,
                                                          "poll_interval": 60.0, "timeout": 5.0})
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.connected.is_set(), what="first session")
        await asyncio.to_thread(mail.stop, False)
        await asyncio.sleep(20.0)
        assert not d.imap.connected.is_set()
        await asyncio.to_thread(mail.start)  # the same port
        back = time.monotonic()
        await until(lambda: d.imap.connected.is_set(), timeout=15, what="reconnect")
        took = time.monotonic() - back
        assert took < 10.0, took
        mail.append(order_mail("after-outage"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="mail read after the outage")


async def test_status_needs_no_password_and_says_the_pid_is_dead(mail: Dovecot, smtp_sink: SmtpSink,
                                                                 workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"timeout": 2.0})
    cfg["imap"]["password"] = "wrong"  # the daemon cannot log in: its error is what status must show
    path = write_config(workdir / "judge.toml", cfg)
    proc = DaemonProcess(path, workdir / "daemon.log")
    proc.start()
    try:
        await until(proc.ready, what="daemon started")
        # refused (imap.login_refused), or no answer within the 2 s timeout (imap.disconnected)
        await until(lambda: any(e in (workdir / "daemon.log").read_bytes()
                                for e in (b"imap.disconnected", b"imap.login_refused")), what="login refused")
    finally:
        proc.kill9()
    log = (workdir / "daemon.log").read_text()
    assert '"step": "login"' in log and f'"port": {mail.imap_port}' in log
    # the status reader has no passwords at all: env var unset, password file unreadable
    cfg["imap"].pop("password")
    cfg["imap"]["password_env"] = "JUDGE_TEST_UNSET_VARIABLE"
    cfg["smtp"]["user"] = "judge"
    cfg["smtp"]["password_file"] = str(workdir / "no-such-secret")
    path = write_config(workdir / "status.toml", cfg)
    out = await asyncio.to_thread(judge_cli, "status", "--config", str(path))
    assert out.returncode == 0, out.stderr
    status = json.loads(out.stdout)
    assert status["mail"]["daemon"].startswith("not running: pid "), status["mail"]
    assert "dead" in status["mail"]["daemon"]
    # (Dovecot delays its answer to a wrong password: a NO, or here a timeout; either way at "login")
    assert status["mail"]["imap_last_error"].startswith(f"login 127.0.0.1:{mail.imap_port}: "), status
    # while the daemon runs, status says so
    proc.start()
    try:
        await until(proc.ready, what="daemon started again")
        out = await asyncio.to_thread(judge_cli, "status", "--config", str(path))
        assert json.loads(out.stdout)["mail"]["daemon"] == f"running (pid {proc.proc.pid})"
        assert await asyncio.to_thread(proc.terminate, 20) == 0
    finally:
        proc.kill9()
    out = await asyncio.to_thread(judge_cli, "status", "--config", str(path))
    assert json.loads(out.stdout)["mail"]["daemon"].startswith("stopped")
