"""A German Outlook reply quoting the old orders, through the other two doors: the pipe
(``judge deliver``) and the IMAP/SMTP daemon against a real Dovecot. Only the new orders are
applied, and the reply says what was left out (the Maildir door: tests/test_service_newtext.py)."""

from __future__ import annotations

import email
import mailbox
from email import policy
from pathlib import Path

import pytest
from click.testing import CliRunner

import client_mails as cm
from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot, mail, running_daemon, smtp_sink,  # noqa: F401
                         text_of, until, workdir)
from test_service_helpers import JUDGE, Table

NEW = ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]
OLD = ["F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"]
NEW_LIST = {"England: Fleet London -> North Sea.", "England: Fleet Edinburgh -> Norwegian Sea.",
            "England: Army Liverpool -> Yorkshire."}


def _game_with_old_orders(tmp: Path) -> tuple[Table, str, bytes]:
    """A game where England has sent the old orders, and England's Outlook reply to the judge's answer."""
    t = Table(tmp)
    t.start_game()
    addr = t.powers["England"]
    first = t.reply_to(addr, t.order("England", "\n".join(OLD)))
    old = first.body.split("\n") + ["", f"Von: Bob Player <{addr}>", "Gesendet: Montag, 7. Januar 2030 12:00",
                                    f"An: The Judge <{JUDGE}>", "Betreff: orders", "", t.signon("England")] + OLD
    raw = cm.outlook_desktop("de", [t.signon("England")] + NEW + ["", "Viele Grüße", "Bob"], old,
                             sender=f"Bob Player <{addr}>")
    t.close()
    return t, addr, raw


def _check(reply_text: str) -> None:
    reply_text = reply_text.replace("\r\n", "\n")  # as sent by SMTP
    orders = {l for l in reply_text.split("\n") if l.startswith("England: ")}
    assert orders == NEW_LIST, reply_text
    flat = " ".join(reply_text.split())
    assert "quoted lines (an earlier message, from 'Von: The Judge <judge@example.test>')" in flat
    assert "Ignored your sign-off 'Viele Grüße Bob'." in flat
    assert "No errors encountered." in reply_text


def test_pipe(tmp_path: Path) -> None:
    from judge.cli import main

    t, addr, raw = _game_with_old_orders(tmp_path)
    out = tmp_path / "pipe-out"
    r = CliRunner().invoke(main, ["deliver", "--db", str(t.cfg.db_path), "--outbox-maildir", str(out)], input=raw)
    assert r.exit_code == 0 and "handled" in r.output, r.output
    replies = [email.message_from_bytes(m.as_bytes(), policy=policy.default) for m in mailbox.Maildir(str(out))]
    mine = [m for m in replies if addr in str(m["To"])]
    assert len(mine) == 1 and "[Error Flag]" not in str(mine[0]["Subject"])
    _check(text_of(mine[0]))  # type: ignore[arg-type]


def _daemon(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path, t: Table) -> dict:
    """The daemon's settings for the judge of table ``t``."""
    return daemon_config(mail, smtp_sink, workdir, service="judge.mail:Judge",
                         judge={"db_path": str(t.cfg.db_path), "options": {"code": "TEST", "password_cost": 4}},
                         imap={"poll_interval": 1.0})


@pytest.mark.mail
async def test_daemon_with_dovecot(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    t, addr, raw = _game_with_old_orders(workdir)
    cfg = _daemon(mail, smtp_sink, workdir, t)
    async with running_daemon(cfg):
        mail.append(raw)
        await until(lambda: len(smtp_sink.to(addr)) == 1, 30, "the reply to England")
    reply = smtp_sink.to(addr)[0].msg
    assert "[Error Flag]" not in str(reply["Subject"])
    _check(text_of(reply))


@pytest.mark.mail
async def test_daemon_with_dovecot_in_other_languages(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """A Japanese Outlook reply (ISO-2022-JP) quoting the old orders, and a mail with a byte-order
    mark before SIGNON and a line of underscores between its orders: all new orders read."""
    t = Table(workdir)
    t.start_game()
    addr = t.powers["England"]
    first = t.reply_to(addr, t.order("England", "\n".join(OLD)))
    old = first.body.split("\n") + ["", t.signon("England")] + OLD
    japanese = cm.outlook_desktop("ja", [t.signon("England")] + NEW + ["", "よろしくお願いします"], old, sender=addr)
    bom = (f"From: {addr}\r\nTo: {JUDGE}\r\nSubject: =?utf-8?b?5Zue5aSNOiBvcmRlcnM=?=\r\nMessage-ID: <bom-daemon@x>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           f"\ufeff{t.signon('England')}\r\n{NEW[0]}\r\n{'_' * 32}\r\n{NEW[1]}\r\n{NEW[2]}\r\n").encode()
    t.close()
    cfg = _daemon(mail, smtp_sink, workdir, t)
    async with running_daemon(cfg):
        mail.append(japanese)
        await until(lambda: len(smtp_sink.to(addr)) == 1, 30, "the reply to the Japanese mail")
        mail.append(bom)
        await until(lambda: len(smtp_sink.to(addr)) == 2, 30, "the reply to the mail with a byte-order mark")
    ja, marked = (text_of(m.msg).replace("\r\n", "\n") for m in smtp_sink.to(addr))  # type: ignore[arg-type]
    for text in (ja, marked):
        assert {l for l in text.split("\n") if l.startswith("England: ")} == NEW_LIST, text
        assert "No errors encountered." in text
    assert "quoted lines (an earlier message, from '差出人: The Judge <judge@example.test>')" in " ".join(ja.split())
    assert "Ignored your sign-off 'よろしくお願いします'." in ja
    assert f"Ignored a separator line '{'_' * 32}'." in marked
    assert all(str(m.msg["Subject"]) == "Re: TEST:tg - S1901M orders" for m in smtp_sink.to(addr))
