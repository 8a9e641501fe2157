"""Mail flows IMAP -> service -> SMTP through the daemon, against a real Dovecot and aiosmtpd."""

from __future__ import annotations

import email
import sqlite3
from email import policy

import pytest

from mailservers import (Dovecot, SmtpSink, dovecot, mail, order_mail, running_daemon, smtp_sink,  # noqa: F401
                         daemon_config, until, workdir)

pytestmark = pytest.mark.mail


def tokens(db_path: str) -> list[str]:
    with sqlite3.connect(db_path) as db:
        return [t for (t,) in db.execute("SELECT token FROM orders ORDER BY token")]


async def test_orders_answered_and_flagged(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    sent = [f"t{i:03d}" for i in range(40)]
    mail.append([order_mail(t) for t in sent])
    cfg = daemon_config(mail, smtp_sink, workdir)
    async with running_daemon(cfg) as d:
        await until(lambda: len(smtp_sink.to("player@example.test")) == 40, what="40 replies")
        await until(lambda: mail.count("UNSEEN") == 0, what="all flagged")
        assert d.imap.stats.handled == 40
    assert tokens(cfg["judge"]["db_path"]) == sorted(sent)
    replies = smtp_sink.to("player@example.test")
    ids = [r.message_id for r in replies]
    assert len(set(ids)) == 40 and all(ids)
    for r in replies:
        assert r.msg["Date"] and r.msg["In-Reply-To"]
    # delivered into the player's real mailbox too
    assert mail.count(user="player") == 40


async def test_processed_folder_mode(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    mail.append([order_mail(f"m{i}") for i in range(5)])
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"processed_folder": "Processed"})
    async with running_daemon(cfg):
        await until(lambda: mail.count(mailbox="Processed") == 5, what="moved")
        assert mail.count() == 0
        mail.append(order_mail("late"))  # arrives while the daemon idles
        await until(lambda: mail.count(mailbox="Processed") == 6, what="late one moved")
    assert tokens(cfg["judge"]["db_path"]) == sorted([f"m{i}" for i in range(5)] + ["late"])


async def test_oversized_message_handed_over_as_header_only(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    big = order_mail("big", extra="x" * 300_000)
    mail.append([order_mail("small1"), big, order_mail("small2")])
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"max_message_bytes": 100_000})
    async with running_daemon(cfg) as d:
        await until(lambda: mail.count("UNSEEN") == 0 and len(smtp_sink.messages) == 3, what="all three answered")
        assert d.imap.stats.handled == 3
    assert tokens(cfg["judge"]["db_path"]) == ["small1", "small2"]  # the big one's body never reached it
    answer = [m for m in smtp_sink.messages if "big" in str(m.msg["Subject"])][0]
    assert "no orders" in answer.msg.get_content()


async def test_status_command_reports_imap_contact(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    from click.testing import CliRunner

    from judge.cli import main
    from mailservers import write_config

    cfg = daemon_config(mail, smtp_sink, workdir)
    path = write_config(workdir / "judge.toml", cfg)
    async with running_daemon(cfg):
        mail.append(order_mail("st"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1)
    result = CliRunner().invoke(main, ["status", "--config", str(path)])
    assert result.exit_code == 0, result.output
    import json

    out = json.loads(result.output)
    assert "ago" in out["mail"]["imap_last_contact"] and out["mail"]["smtp_in_doubt"] == 0


async def test_a_thousand_waiting_messages(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    """aioimaplib fails on responses of ~1000 lines (its parser recurses per line): the daemon
    must FETCH in bounded batches, however much mail is waiting when it starts."""
    smtp_sink.deliver_to = None  # the replies are not the point here
    mail.append([order_mail(f"w{i:04d}") for i in range(1100)])
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"batch_size": 200})
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.stats.handled == 1100, 60, "1100 handled")
    assert len(tokens(cfg["judge"]["db_path"])) == 1100


async def test_mail_fetched_in_small_groups(mail: Dovecot, smtp_sink: SmtpSink, workdir) -> None:
    """Groups of two messages (batch_bytes), seven sizes a FETCH and an oversized message among
    them: every message is handled once, answered once and flagged."""
    size = len(order_mail("g00"))
    sent = [f"g{i:02d}" for i in range(30)]
    raws = [order_mail(t) for t in sent]
    raws.insert(13, order_mail("huge", extra="x" * 300_000))
    mail.append(raws)
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"batch_size": 7, "batch_bytes": 2 * size + 10,
                                                        "max_message_bytes": 100_000})
    async with running_daemon(cfg) as d:
        await until(lambda: d.imap.stats.handled == 31 and mail.count("UNSEEN") == 0, 60, "31 handled, all flagged")
        await until(lambda: len(smtp_sink.messages) == 31, what="31 replies")
        assert d.imap.stats.errors == 0 and d.imap.stats.duplicate == 0
    assert tokens(cfg["judge"]["db_path"]) == sorted(sent)
    subjects = sorted(str(m.msg["Subject"]) for m in smtp_sink.messages)
    assert len(set(subjects)) == 31
