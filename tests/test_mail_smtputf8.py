"""Internationalized addresses (RFC 6531/6532): a player writing from ``josé@correo.test`` (a raw
UTF-8 header, as Gmail, Outlook.com and Apple Mail send it) or from an IDNA domain plays and is
answered, through the Maildir door and through the daemon's SMTP sender (SMTPUTF8 when the server
offers it; an ``xn--`` domain when it does not; a permanent, logged failure when nothing can carry
the address)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from judge.game.addresses import ascii_address, canonical_address
from judge.mail.incoming import parse_message
from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot, mail, running_daemon, until,  # noqa: F401
                         workdir)
from test_service_helpers import JUDGE, MASTER, Table

JOSE = "josé@correo.test"


def utf8_mail(sender: str, body: str, mid: str, subject: str = "orders", *headers: str) -> bytes:
    """A mail as Gmail sends it for an internationalized address: raw UTF-8 header fields and body."""
    head = [f"From: {sender}", f"To: {JUDGE}", f"Subject: {subject}", "Date: Mon, 7 Jan 2030 12:00:00 +0000",
            f"Message-ID: {mid}", "MIME-Version: 1.0", 'Content-Type: text/plain; charset="UTF-8"',
            "Content-Transfer-Encoding: 8bit", *headers]
    return ("\r\n".join(head) + "\r\n\r\n" + body + "\r\n").encode("utf-8")


# -- reading ------------------------------------------------------------------------------------
@pytest.mark.parametrize("sender, stored", [
    ("José Pérez <josé@correo.test>", JOSE),  # raw UTF-8, display name and address
    ("=?utf-8?q?Jos=C3=A9_P=C3=A9rez?= <JOSÉ@Correo.Test>", JOSE),  # RFC 2047 name, raw address
    ("用户 <用户@例子.中国>", "用户@例子.中国"),
    ("x@bücher.de", "x@bücher.de"),
    ("X <X@XN--BCHER-KVA.DE>", "x@bücher.de"),  # the A-label form is the same player
    ("x@BÜCHER.de", "x@bücher.de"),
    ("Jose\u0301 <jose\u0301@correo.test>", JOSE),  # decomposed é: one form (NFC)
])
def test_internationalized_senders_are_read_in_one_form(sender: str, stored: str) -> None:
    m = parse_message(utf8_mail(sender, "HELP", "<a@client.test>"), JUDGE)
    assert (m.sender, m.reply_to, m.ignore, m.error) == (stored, [stored], None, None)


@pytest.mark.parametrize("raw_from", [
    b"From: Bad <jos\xe9@correo.test>",  # Latin-1 bytes, not UTF-8: no address
    "From: <jo\u202ese@correo.test>".encode(),  # a bidi override in the local part
    "From: <jo\u00a0se@correo.test>".encode(),  # a no-break space
    "From: <josé@correo..test>".encode(),  # no host name
    "From: <josé@>".encode(),
])
def test_unsafe_internationalized_senders_are_no_address(raw_from: bytes) -> None:
    m = parse_message(raw_from + b"\r\nMessage-ID: <b@client.test>\r\n\r\nHELP\r\n", JUDGE)
    assert m.reply_to == [] and m.ignore == "no sender address"


def test_auto_replies_from_internationalized_senders_are_still_ignored() -> None:
    m = parse_message(utf8_mail("josé@correo.test", "away", "<c@client.test>", "Abwesend",
                                "Auto-Submitted: auto-replied"), JUDGE)
    assert m.sender == JOSE and m.ignore == "Auto-Submitted: auto-replied"
    m = parse_message(utf8_mail("postmaster@例子.中国", "bounce", "<d@client.test>"), JUDGE)
    assert m.ignore == "machine sender postmaster@例子.中国"


def test_the_ascii_form_for_servers_without_smtputf8() -> None:
    assert ascii_address("x@bücher.de") == "x@xn--bcher-kva.de"
    assert ascii_address("user@例子.中国") == "user@xn--fsqu00a.xn--fiqs8s"
    assert ascii_address(JOSE) is None and ascii_address("用户@example.test") is None
    assert canonical_address("a@straße.de") == "a@straße.de"  # IDNA 2008: not "strasse"
    assert ascii_address("a@straße.de") == "a@xn--strae-oqa.de"


# -- the Maildir door ----------------------------------------------------------------------------
def test_maildir_reply_signon_and_whogame(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        t.drop(utf8_mail("José Pérez <josé@correo.test>", "HELP", "<help@correo.test>", "help"))
        reply = t.reply_to(JOSE, t.run())
        assert str(reply.msg["To"]) == JOSE and reply.to == [JOSE]
        raw = [f.read_bytes() for f in (t.folders.outbox / "new").iterdir()]
        assert any(b"\nTo: jos\xc3\xa9@correo.test\n" in r for r in raw)  # RFC 6532 raw UTF-8, no encoded word

        t.send(MASTER, "CREATE ?tg masterpw standard move=24h retreat=12h adjust=12h grace=12h")
        t.drop(utf8_mail("José <JOSÉ@Correo.Test>", "SIGNON ?tg josépw", "<join@correo.test>"))
        joined = t.reply_to(JOSE, t.run())
        assert "[Error Flag]" not in joined.subject, joined.body
        t.drop(utf8_mail("Bücher <x@xn--bcher-kva.de>", "SIGNON ?tg xpw", "<join2@bücher.test>"))
        assert "[Error Flag]" not in t.reply_to("x@xn--bcher-kva.de", t.run()).subject
        assert {r["address"] for r in t.rows("SELECT address FROM players")} >= {JOSE, "x@bücher.de"}

        who = t.reply_to(MASTER, t.send(MASTER, "SIGNON Mtg masterpw\nWHOGAME tg")).body  # the master sees addresses
        assert JOSE in who and "x@bücher.de" in who, who
        # the same player by the other spelling of the domain: one seat, not a second
        t.drop(utf8_mail("x@BÜCHER.de", "SIGNON ?tg xpw\nWHOGAME tg", "<who2@bücher.test>"))  # own address
        again = t.reply_to("x@xn--bcher-kva.de", t.run()).body
        assert again.count("x@bücher.de") == 1, again
    finally:
        t.close()


# -- the daemon's SMTP sender ----------------------------------------------------------------------
class Records(logging.Handler):
    """The daemon's log records, fields and all (what the master reads in the JSON log)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def events(self, name: str) -> list[dict]:
        return [getattr(r, "judge_fields", {}) for r in self.records if r.getMessage() == name]


def _judge_cfg(mail: Dovecot, sink: SmtpSink, workdir: Path) -> dict:
    Table(workdir).close()  # the judge's store, as ``judge init`` makes it
    return daemon_config(mail, sink, workdir, service="judge.mail:Judge",
                         judge={"db_path": str(workdir / "judge.sqlite"),
                                "options": {"code": "TEST", "password_cost": 4}},
                         imap={"poll_interval": 1.0}, smtp={"retry_base": 0.1, "retry_max": 0.2})


def _outbox(workdir: Path) -> list[tuple[str, str, int, str]]:
    with sqlite3.connect(workdir / "judge.sqlite") as db:
        return db.execute("SELECT recipients, status, attempts, coalesce(last_error, '') FROM outbox "
                          "ORDER BY id").fetchall()


@pytest.mark.mail
async def test_smtputf8_server_gets_the_utf8_envelope(mail: Dovecot, workdir: Path) -> None:
    sink = await SmtpSink(enable_SMTPUTF8=True).start()
    try:
        async with running_daemon(_judge_cfg(mail, sink, workdir)):
            mail.append([utf8_mail("José Pérez <josé@correo.test>", "HELP", "<h1@correo.test>", "help"),
                         utf8_mail("x@bücher.de", "HELP", "<h2@bücher.test>", "help")])
            await until(lambda: len(sink.messages) == 2, 30, "both replies")
    finally:
        await sink.stop()
    assert sorted(r for m in sink.messages for r in m.rcpts) == sorted([JOSE, "x@bücher.de"])
    jose = sink.to(JOSE)[0]
    assert jose.mail_from == JUDGE and b"\nTo: jos\xc3\xa9@correo.test\r" in jose.raw
    assert [s for _, s, _, _ in _outbox(workdir)] == ["sent", "sent"]


@pytest.mark.mail
async def test_without_smtputf8_idna_goes_as_xn_and_a_utf8_mailbox_fails_once(mail: Dovecot,
                                                                                workdir: Path) -> None:
    sink = await SmtpSink().start()  # aiosmtpd without SMTPUTF8
    records = Records()
    logging.getLogger("judge.daemon.smtp").addHandler(records)
    try:
        async with running_daemon(_judge_cfg(mail, sink, workdir)) as d:
            mail.append([utf8_mail("José Pérez <josé@correo.test>", "HELP", "<h1@correo.test>", "help"),
                         utf8_mail("x@bücher.de", "HELP", "<h2@bücher.test>", "help")])
            await until(lambda: d.smtp.stats.sent == 1 and d.smtp.stats.permanent == 1, 30,
                        "the IDNA reply sent, José's given up")
            # a few more rounds of the sender: nothing is tried again
            for _ in range(3):
                d.smtp.wake.set()
                await until(lambda: d.smtp.idle.is_set(), 10, "an empty outbox")
            assert d.smtp.stats.permanent == 1 and d.smtp.stats.transient == 0
    finally:
        logging.getLogger("judge.daemon.smtp").removeHandler(records)
        await sink.stop()
    assert [m.rcpts for m in sink.messages] == [["x@xn--bcher-kva.de"]]
    assert b"\nTo: x@xn--bcher-kva.de\r" in sink.messages[0].raw and sink.messages[0].raw.isascii()
    rows = {r: (s, a, e) for r, s, a, e in _outbox(workdir)}
    status, attempts, error = rows['["josé@correo.test"]']
    reason = "josé@correo.test: needs SMTPUTF8, which 127.0.0.1"
    assert (status, attempts) == ("failed", 1) and error.startswith(reason), rows
    failed = records.events("smtp.failed")
    assert len(failed) == 1 and failed[0]["permanent"] and failed[0]["error"].startswith(reason)


def test_a_player_stored_by_an_xn_address_becomes_the_one_form(tmp_path: Path) -> None:
    """An earlier judge stored ``x@xn--bcher-kva.de`` as written; opening the database gives it the
    stored form, so the player writing from ``x@bücher.de`` is still that player."""
    t = Table(tmp_path)
    try:
        t.send(MASTER, "CREATE ?tg masterpw standard")
        t.send("x@example.test", "SIGNON ?tg xpw")
        path = t.judge.store.path
        t.judge.close()
        with sqlite3.connect(str(path), isolation_level=None) as conn:
            conn.execute("UPDATE players SET address = 'x@xn--bcher-kva.de' WHERE address = 'x@example.test'")
            conn.execute("INSERT INTO players(address) VALUES ('y@xn--bcher-kva.de'), ('y@bücher.de')")
            conn.execute("PRAGMA user_version = 6")
        conn.close()
        t.reopen()
        assert {r["address"] for r in t.rows("SELECT address FROM players")} == {
            MASTER, "x@bücher.de", "y@xn--bcher-kva.de", "y@bücher.de"}  # both stored already: both stay
        t.drop(utf8_mail("x@bücher.de", "SIGNON ?tg xpw\nWHOGAME tg", "<who@bücher.test>"))  # own address
        assert "x@bücher.de" in t.reply_to("x@xn--bcher-kva.de", t.run()).body
    finally:
        t.close()
