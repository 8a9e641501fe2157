"""Faults with real servers: kill -9, SMTP outage, IMAP server gone mid-IDLE, refused mail."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path

import pytest

from mailservers import (DaemonProcess, Dovecot, SmtpSink, daemon_config, dovecot, kill_run, mail,  # noqa: F401
                         order_mail, running_daemon, smtp_sink, until, workdir, write_config)

pytestmark = pytest.mark.mail


def outbox(db_path: str) -> list[tuple[int, str, int, str]]:
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT id, status, attempts, coalesce(error, '') FROM outbox ORDER BY id").fetchall()


async def test_kill9_five_times_loses_nothing(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    report, tokens = await kill_run(mail, smtp_sink, workdir, kills=5, mails=60, seed=5)
    assert report.problems(tokens) == [], report
    assert report.starts == 6


async def test_sigterm_is_a_clean_stop(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir)
    proc = DaemonProcess(write_config(workdir / "judge.toml", cfg), workdir / "daemon.log")
    proc.start()
    try:
        mail.append([order_mail(f"s{i}") for i in range(10)])
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 10, what="10 replies")
        assert await asyncio.to_thread(proc.terminate, 20) == 0  # the sink shares this loop: do not block it
    finally:
        proc.kill9()
    text = (workdir / "daemon.log").read_text()
    assert '"event": "daemon.stopped"' in text


async def test_smtp_outage_then_everything_delivered(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    await smtp_sink.stop()
    cfg = daemon_config(mail, smtp_sink, workdir)
    async with running_daemon(cfg) as d:
        mail.append([order_mail(f"o{i}") for i in range(20)])
        await until(lambda: d.imap.stats.handled == 20, what="orders received while SMTP is down")
        await asyncio.sleep(2.0)  # several failed connection attempts
        assert smtp_sink.messages == []
        await smtp_sink.start()
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 20, what="queued replies after the outage")
    rows = outbox(cfg["judge"]["db_path"])
    # an outage is the server's fault, not the messages': no attempt is charged against them
    assert [(s, a) for _, s, a, _ in rows] == [("sent", 0)] * 20
    assert len({m.message_id for m in smtp_sink.messages}) == 20


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["dropped", "BYE"])
async def test_imap_sessions_killed_mid_idle(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path, sig: int) -> None:
    # poll_interval is long, so only the lost-connection handling can bring the daemon back quickly
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 30.0})
    async with running_daemon(cfg) as d:
        mail.append(order_mail("before"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="first reply")
        sessions = d.imap.stats.sessions
        await asyncio.sleep(0.3)  # in IDLE now
        assert mail.kill_imap_sessions(sig) >= 1
        await until(lambda: d.imap.stats.sessions > sessions and d.imap.connected.is_set(), what="reconnect")
        mail.append(order_mail("after"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, what="reply after reconnect")


async def test_imap_server_restarted_mid_idle(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 30.0})
    async with running_daemon(cfg) as d:
        mail.append(order_mail("one"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="first reply")
        await asyncio.sleep(0.3)
        await asyncio.to_thread(mail.stop, False)  # master and its sessions gone; mail kept
        await asyncio.sleep(1.0)  # the daemon is now failing to reconnect
        assert not d.imap.connected.is_set()
        await asyncio.to_thread(mail.start)
        mail.append(order_mail("two"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, timeout=30, what="reply after restart")


async def test_refusals_permanent_and_transient(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    smtp_sink.refuse = lambda rcpt: "550 5.1.1 no such user" if rcpt.startswith("gone@") else None
    smtp_sink.fail_data = ["451 4.3.0 try again later"]
    cfg = daemon_config(mail, smtp_sink, workdir)
    async with running_daemon(cfg) as d:
        mail.append([order_mail("a", sender="gone@example.test"), order_mail("b")])
        await until(lambda: d.smtp.stats.permanent == 1 and d.smtp.stats.sent == 1, timeout=20,
                    what="one refused for good, one delivered after a 451")
        assert d.smtp.stats.transient == 1
    rows = outbox(cfg["judge"]["db_path"])
    assert sorted((s, a) for _, s, a, _ in rows) == [("failed", 1), ("sent", 1)]
    assert any("550" in e for *_, e in rows)


async def test_header_injection_in_recipient_is_refused(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir)
    from mailservers import StandInJudge, parsed_config
    from judge.daemon.service import Factory

    j = Factory(parsed_config(cfg).judge)()
    assert isinstance(j, StandInJudge)
    j._reply("player@example.test", "x", "y")
    # a recipient smuggling an SMTP command, as a careless service might queue it
    j.db.execute("INSERT INTO outbox(sender, rcpts, message) SELECT sender, ?, message FROM outbox",
                 ("victim@example.test\r\nRCPT TO:<evil@example.test>",))
    j.close()
    async with running_daemon(cfg) as d:
        await until(lambda: d.smtp.stats.permanent == 1 and d.smtp.stats.sent == 1, what="one refused, one sent")
    assert [m.rcpts for m in smtp_sink.messages] == [["player@example.test"]]


async def test_a_service_exception_leaves_the_message_unseen(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    mail.append([order_mail("ok1"), order_mail("bad", extra="RAISE-IN-SERVICE"), order_mail("ok2")])
    cfg = daemon_config(mail, smtp_sink, workdir)
    async with running_daemon(cfg) as d:
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, what="the two good ones answered")
        await until(lambda: d.imap.stats.errors == 1, what="the failure counted")
        await asyncio.sleep(0.5)
        assert d.imap.stats.errors == 1  # not retried in a loop
        assert mail.count("UNSEEN") == 1  # kept for a later try, never dropped
        mail.append(order_mail("ok3"))  # and the daemon carries on
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 3, what="later mail answered")


async def test_a_message_that_always_raises_is_set_aside(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: receive() raising for one message again and again (a bug, not the store) is
    not retried forever: after MAX_RECEIVE_ERRORS tries it is flagged and moved to the failed
    folder (created if missing), the service is asked to record it, and later mail flows."""
    from judge.daemon import imap_in

    monkeypatch.setattr(imap_in, "FAILED_RETRY", 0.2)
    mail.append([order_mail("ok1"), order_mail("bad", extra="RAISE-IN-SERVICE")])
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 0.3, "idle": False})
    async with running_daemon(cfg) as d:
        await until(lambda: mail.count("ALL", mailbox="failed") == 1, what="the bad one set aside")
        assert d.imap.stats.errors == imap_in.MAX_RECEIVE_ERRORS
        assert mail.count("UNSEEN") == 0
        mail.append(order_mail("ok2"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, what="later mail answered")
        await asyncio.sleep(1.0)
        assert d.imap.stats.errors == imap_in.MAX_RECEIVE_ERRORS  # not tried again
    [(_, flags, raw)] = mail.messages(mailbox="failed")
    assert b"RAISE-IN-SERVICE" in raw and b"\\Flagged" in flags


async def test_transient_errors_are_never_poison(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A store that is unavailable (sqlite3/OS errors) is not the message's fault: retried, never set aside."""
    from judge.daemon import imap_in
    from mailservers import StandInJudge

    monkeypatch.setattr(imap_in, "STORE_RETRY_MIN", 0.1)
    monkeypatch.setattr(imap_in, "STORE_RETRY_MAX", 0.2)
    real = StandInJudge.receive

    def receive(self, raw: bytes, source: str = "") -> str:  # type: ignore[no-untyped-def]
        if b"LOCKED" in raw:
            raise sqlite3.OperationalError("database is locked")
        return real(self, raw, source)

    monkeypatch.setattr(StandInJudge, "receive", receive)
    mail.append(order_mail("locked", extra="LOCKED"))
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 0.2, "idle": False})
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.stats.errors > imap_in.MAX_RECEIVE_ERRORS + 1, what="several retries")
        assert mail.count("UNSEEN") == 1 and mail.count("ALL", mailbox="failed") == 0


async def test_without_a_failed_folder_poison_is_flagged_and_left_seen(mail: Dovecot, smtp_sink: SmtpSink,
                                                                      workdir: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """failed_folder = "": the poison mail stays in the INBOX, \\Flagged and \\Seen, never fetched again."""
    from judge.daemon import imap_in

    monkeypatch.setattr(imap_in, "FAILED_RETRY", 0.2)
    mail.append(order_mail("bad", extra="RAISE-IN-SERVICE"))
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"poll_interval": 0.3, "idle": False, "failed_folder": ""})
    async with running_daemon(cfg) as d:
        await until(lambda: mail.count("FLAGGED") == 1, what="the bad one flagged")
        await asyncio.sleep(1.0)
        assert d.imap.stats.errors == imap_in.MAX_RECEIVE_ERRORS
    assert mail.count("UNSEEN") == 0 and mail.count("ALL", mailbox="failed") == 0
