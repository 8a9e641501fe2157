"""A send interrupted inside DATA (the daemon killed between the server taking the message and
the outbox row being marked) is settled on restart: by its receipt copy, or by sending it again
with the same Message-ID. The crash is reproduced exactly by writing the journal entry it leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.daemon.service import Factory
from judge.daemon.smtp_out import digest_of, with_date_and_id
from judge.daemon.state import DaemonState
from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot, mail, parsed_config,  # noqa: F401
                         running_daemon, smtp_sink, until, workdir)

pytestmark = pytest.mark.mail
MID = "<interrupted.1@example.test>"


def crash_inside_data(cfg: dict) -> bytes:
    """Queue one reply and leave the journal as a kill during its DATA would. Returns what went out."""
    parsed = parsed_config(cfg)
    j = Factory(parsed.judge)()
    j._reply("player@example.test", "Results", "S1901M results\n")
    item = j.pending_outbox()[0]
    j.close()
    state = DaemonState(parsed.judge.resolved_state_path)
    state.begin_data(item.id, digest_of(item.message), MID)
    state.close()
    return with_date_and_id(item.message, MID)[0]


def sent_status(cfg: dict) -> list[str]:
    import sqlite3

    with sqlite3.connect(cfg["judge"]["db_path"]) as db:
        return [s for (s,) in db.execute("SELECT status FROM outbox")]


async def test_receipt_proves_delivery_so_no_resend(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": "judge+receipts@example.test",
                                                        "receipt_wait": 60.0})
    went_out = crash_inside_data(cfg)
    mail.append(went_out)  # the receipt copy the server had delivered before the crash
    async with running_daemon(cfg) as d:
        await until(lambda: d.smtp.stats.settled_by_receipt == 1, what="settled by its receipt")
    assert smtp_sink.messages == [] and sent_status(cfg) == ["sent"]


async def test_receipt_found_by_searching_the_mailbox(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    # already \Seen, so the IMAP runner (which takes unseen mail) never hands it over: only the
    # SMTP runner's direct search for the Message-ID can find it
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": "judge+receipts@example.test",
                                                        "receipt_wait": 60.0})
    mail.append(crash_inside_data(cfg), flags="(\\Seen)")
    async with running_daemon(cfg) as d:
        await until(lambda: d.smtp.stats.settled_by_receipt == 1, what="settled by the receipt it searched for")
        assert d.imap.stats.receipts == 0
    assert smtp_sink.messages == [] and sent_status(cfg) == ["sent"]


async def test_no_receipt_then_resent_once_with_same_id(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": "judge+receipts@example.test",
                                                        "receipt_wait": 1.0})
    crash_inside_data(cfg)
    async with running_daemon(cfg) as d:
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="the resend")
        assert d.smtp.stats.resent_in_doubt == 1
        await until(lambda: d.smtp.idle.is_set(), what="outbox drained")
    assert [m.message_id for m in smtp_sink.messages] == [MID]
    assert sent_status(cfg) == ["sent"]


async def test_without_receipts_resent_at_once(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    cfg = daemon_config(mail, smtp_sink, workdir)
    crash_inside_data(cfg)
    async with running_daemon(cfg) as d:
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="the resend")
        assert d.smtp.stats.resent_in_doubt == 1
    assert [m.message_id for m in smtp_sink.messages] == [MID]


async def test_stale_entries_are_cleared_on_start(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """Killed after the service recorded the send but before the journal entry was cleared: the
    entry is stale (nothing is in doubt). It is cleared at the start, and nothing is sent again."""
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": "judge+receipts@example.test",
                                                        "receipt_wait": 60.0})
    crash_inside_data(cfg)
    parsed = parsed_config(cfg)
    j = Factory(parsed.judge)()
    [item] = j.pending_outbox()
    j.mark_sent(item.id)
    j._reply("player@example.test", "Still waiting", "another one, in doubt for real\n")
    waiting = j.pending_outbox()[0]
    j.close()
    state = DaemonState(parsed.judge.resolved_state_path)
    state.begin_data(waiting.id, digest_of(waiting.message), "<really-in-doubt@example.test>")
    assert state.journal_size() == 2
    state.close()
    async with running_daemon(cfg) as d:
        await until(lambda: d.smtp.state.journal_item_ids() == [waiting.id], what="the stale entry cleared")
        assert d.smtp.stats.resent_in_doubt == 0
    # the one really in doubt waits for its receipt (60 s); the settled one never went out again
    assert smtp_sink.messages == []
    assert sent_status(cfg) == ["sent", "pending"]
