"""Forgery and reflection closed at the mail door: whose mail it is (the address in angle
brackets, not a display name that looks like one), wrong passwords counted against the source
of the guesses and never against the owner, consent by a code for OBSERVE and SET NAME, bounces
believed only for mail the judge really sent, answers limited per recipient and per stranger,
replies and their subjects capped, hostile structure and mislabelled charsets. Through the real
Maildir path (``Table``: Judge.receive), ``judge serve --maildir --once`` and ``judge deliver``
as subprocesses; the daemon's side is in test_mail_badmail.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from judge.mail import abuse
from judge.mail.incoming import parse_message
from judge.mail.maildir import Folders, incoming
from mailservers import (DaemonProcess, Dovecot, ThreadedSink, daemon_config, dovecot,  # noqa: F401
                         text_of, write_config)
from test_mail_abuse import dsn, observe, sent_id, whole
from test_mail_textbounce import exim, qmail
from test_service_helpers import JUDGE, MASTER, Table, acquaint

CRLF = b"\r\n"
EVIL = "evil@attacker.test"
REPLY_LIMIT, SENDER_FAILURES, SEAT_FAILURES = 30, 10, 5


def mail(from_header: str, body: str, *headers: str, subject: str = "orders", mid: str | None = None) -> bytes:
    head = [f"From: {from_header}", f"To: {JUDGE}", f"Subject: {subject}", "Date: Mon, 7 Jan 2030 12:00:00 +0000",
            f"Message-ID: {mid or '<' + os.urandom(6).hex() + '@client.test>'}", *headers]
    return CRLF.join(h.encode("utf-8") for h in head) + CRLF + CRLF + body.encode("utf-8") + CRLF


def send_raw(table: Table, raw: bytes) -> list:  # type: ignore[type-arg]
    table.drop(raw)
    return table.run()


# -- whose mail it is -------------------------------------------------------------------------------

@pytest.mark.parametrize("header", [
    "p2@x.test <evil@attacker.test>",                       # the display name an unquoted address
    "p2@x.test<evil@attacker.test>",
    "p2@x.test\r\n <evil@attacker.test>",                   # folded
    "Bob p2@x.test <evil@attacker.test>",
    '"p2@x.test" <evil@attacker.test>',                     # quoted: a display name, as it should be
    "=?utf-8?q?p2=40x=2Etest?= <evil@attacker.test>",       # encoded word
    "=?utf-8?q?=0D=0A<p2@x.test>?= <evil@attacker.test>",   # an encoded word holding angle brackets
    "(p2@x.test <p2@x.test>) <evil@attacker.test>",         # a comment holding them
    "p2@x.test \u00e9t\u00e9 <evil@attacker.test>",         # raw UTF-8 (RFC 6532), as Gmail sends it
    "Jos\u00e9 p2@x.test <evil@attacker.test>",
])
def test_the_sender_is_the_address_in_angle_brackets(header: str) -> None:
    m = parse_message(mail(header, "HELP"), JUDGE)
    assert (m.sender, m.reply_to, m.ignore) == (EVIL, [EVIL], None)


@pytest.mark.parametrize("header", ["p2@x.test evil@attacker.test", "<p2@x.test> <evil@attacker.test>",
                                    '"p2@x.test" evil@attacker.test'])
def test_a_malformed_from_naming_two_addresses_names_nobody(header: str) -> None:
    m = parse_message(mail(header, "HELP"), JUDGE)
    assert (m.sender, m.ignore) == ("", "no sender address")


def test_a_reply_to_with_an_address_for_a_name_is_read_the_same_way() -> None:
    m = parse_message(mail("p@example.test", "HELP", "Reply-To: p2@x.test <evil@attacker.test>"), JUDGE)
    assert (m.sender, m.reply_to) == ("p@example.test", [EVIL])


def test_an_ordinary_from_is_unchanged() -> None:
    for header, addr in (("Pat <p@example.test>", "p@example.test"), ("p@example.test", "p@example.test"),
                         ("p@example.test (Pat)", "p@example.test"), ('"Doe, Pat" <P@Example.TEST>', "p@example.test"),
                         ("Jos\u00e9 <jos\u00e9@correo.es>", "jos\u00e9@correo.es")):
        assert parse_message(mail(header, "HELP"), JUDGE).sender == addr


def test_a_player_named_in_a_display_name_is_not_that_player(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = send_raw(table, mail(f"{eng} <{EVIL}>", "SIGNON Etg guess"))
    assert [m.to for m in out] == [[EVIL]]  # answered where the mail came from, not to the player
    assert "Invalid password" in out[0].body
    assert table.rows("SELECT sender FROM auth_failures") == [{"sender": EVIL}]
    assert table.rows("SELECT sender FROM inbox ORDER BY id DESC LIMIT 1") == [{"sender": EVIL}]


def test_a_display_name_cannot_unsubscribe_an_observer_through_judge_deliver(tmp_path: Path) -> None:
    """UNOBSERVE needs no password, so who wrote it matters: the real path, as deployed."""
    table = Table(tmp_path)
    table.start_game()
    obs = "watcher@example.test"
    observe(table, obs, "tg", "watchpw")
    table.close()
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "judge.cli", "deliver", "--db", str(table.cfg.db_path),
                          "--outbox-maildir", str(out)], input=mail(f"{obs} <{EVIL}>", "UNOBSERVE tg"),
                         capture_output=True, timeout=120)
    assert run.returncode == 0 and run.stdout.decode().startswith("handled"), run.stderr.decode()
    sent = [message_from_bytes(f.read_bytes(), policy=policy.default) for f in (out / "new").iterdir()]
    assert [str(m["To"]) for m in sent] == [EVIL]
    assert "do not observe 'tg'" in sent[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    table.reopen()
    assert len(table.rows("SELECT id FROM seats WHERE role = 'observer'")) == 1


# -- wrong passwords: the source, never the owner -------------------------------------------------

def test_guesses_in_a_players_name_never_lock_the_player_out(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    for i in range(SENDER_FAILURES + SEAT_FAILURES + 3):  # forged: the player's own From, no Reply-To
        out = send_raw(table, mail(eng, f"SIGNON Etg guess{i}\nF Lon - Nth"))
        assert all(m.to == [eng] for m in out)  # every answer goes to the owner: the guesser sees nothing
        assert not any("Too many wrong passwords" in m.body for m in out)
    assert not [m for m in table.mails if "Wrong passwords" in m.subject]
    out = table.order("England", "F Lon - Nth")  # the owner, with the right password
    reply = table.reply_to(eng, out)
    assert "Signed on as England" in reply.body and "Error" not in reply.subject
    assert table.rows("SELECT count(*) AS n FROM orders WHERE power = 'England' AND state = 'active'")[0]["n"] == 1


def test_a_forger_reading_the_answers_elsewhere_is_the_source_and_is_locked(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    acquaint(table, EVIL)
    out = []
    for i in range(SEAT_FAILURES):
        out += send_raw(table, mail(eng, f"SIGNON Etg guess{i}", f"Reply-To: {EVIL}"))
    assert {tuple(m.to) for m in out if m.subject.startswith("Re:")} == {(EVIL,)}
    notices = [m for m in table.to(eng, out) if "Wrong passwords: England" in m.subject]
    assert len(notices) == 1 and EVIL in notices[0].body  # the owner is told who reads the answers
    # the right password, with the answers going to the guesser: refused
    out = send_raw(table, mail(eng, table.signon("England") + "\nF Lon - Nth", f"Reply-To: {EVIL}"))
    assert "Too many wrong passwords" in table.reply_to(EVIL, out).body
    assert table.rows("SELECT count(*) AS n FROM orders")[0]["n"] == 0
    # the owner, answered at home, is never locked out
    out = table.order("England", "F Lon - Nth")
    assert "Signed on as England" in table.reply_to(eng, out).body
    assert table.rows("SELECT count(*) AS n FROM orders")[0]["n"] == 1


def test_a_source_guessing_everywhere_is_locked_but_the_owners_keep_their_seats(table: Table) -> None:
    table.start_game()
    acquaint(table, EVIL)
    letters = "EFGIART"
    for i in range(SENDER_FAILURES):
        send_raw(table, mail(EVIL, f"SIGNON {letters[i % 7]}tg guess{i}"))
    out = send_raw(table, mail(EVIL, "SIGNON Mtg masterpw"))
    assert "Too many wrong passwords" in table.reply_to(EVIL, out).body
    for power in ("England", "France"):
        out = table.order(power, "")
        assert "Signed on as" in table.reply_to(table.powers[power], out).body


# -- consent: OBSERVE and SET NAME ----------------------------------------------------------------

def code_in(body: str) -> str:
    found = re.search(r"CONFIRM ([A-Z2-7]{16})", body)
    assert found, body
    return found.group(1)


def test_observe_needs_the_addresses_consent(table: Table) -> None:
    table.start_game()
    obs = "watcher@example.test"
    out = table.send(obs, "OBSERVE tg watchpw", headers={"Reply-To": "elsewhere@example.test"})
    assert [m.to for m in out] == [[obs]]  # the code goes to the address to be subscribed, only
    code = code_in(out[0].body)
    assert table.rows("SELECT id FROM seats WHERE role = 'observer'") == []
    out = table.send(MASTER, "SIGNON Mtg masterpw\nBROADCAST\nbefore consent\nENDPRESS")
    assert not table.to(obs, out)  # nothing before CONFIRM
    out = table.send(EVIL, f"CONFIRM {code}")  # someone else with the code: refused
    assert "sent to another address" in out[0].body
    out = table.send(obs, f"CONFIRM {code}", headers={"Reply-To": "elsewhere@example.test"})
    assert [m.to for m in out] == [[obs]] and "You are observing 'tg'" in out[0].body
    out = table.send(MASTER, "SIGNON Mtg masterpw\nBROADCAST\nafter consent\nENDPRESS")
    assert [m for m in table.to(obs, out) if "after consent" in m.body]
    out = table.send(obs, f"CONFIRM {code}")  # used once
    assert "no such confirmation code" in out[0].body
    # and the observer's password works for coming back
    out = table.send(obs, "SIGNON Otg watchpw")
    assert "Signed on as observer" in table.reply_to(obs, out).body


def test_a_confirmation_code_expires(table: Table) -> None:
    table.start_game()
    obs = "late@example.test"
    code = code_in(table.send(obs, "OBSERVE tg pw")[0].body)
    table.now += timedelta(days=3, minutes=1)
    out = table.send(obs, f"CONFIRM {code.lower()}")
    assert "has expired" in out[0].body
    assert table.rows("SELECT id FROM seats WHERE role = 'observer'") == []


def test_a_forged_observe_costs_its_victim_one_mail_an_hour(table: Table) -> None:
    table.start_game()
    victim = "victim@example.test"
    got = []
    for i in range(5):  # different forgers, different texts: only the victim is the same
        got += send_raw(table, mail(victim, f"OBSERVE tg pw{i}\nLIST"))
    assert len(table.to(victim, got)) == 1
    assert table.rows("SELECT id FROM seats WHERE role = 'observer'") == []


def test_an_observer_leaves_without_a_password(table: Table) -> None:
    table.start_game()
    obs = "watcher@example.test"
    observe(table, obs, "tg", "watchpw")
    out = table.send(obs, "UNOBSERVE tg", headers={"Reply-To": "elsewhere@example.test"})
    assert [m.to for m in out] == [[obs]] and "You no longer observe 'tg'" in out[0].body
    assert table.rows("SELECT id FROM seats WHERE role = 'observer'") == []
    out = table.send(obs, "UNOBSERVE tg")
    assert "do not observe 'tg'" in out[0].body


def test_set_name_takes_a_code_sent_back_from_the_address(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nSET NAME Lord Byron")
    reply = table.reply_to(eng, out)
    assert table.rows("SELECT name FROM players WHERE address = ?", (eng,)) == [{"name": ""}]
    out = table.send(eng, f"CONFIRM {code_in(reply.body)}")
    assert "Reports now name you Lord Byron" in table.reply_to(eng, out).body
    assert table.rows("SELECT name FROM players WHERE address = ?", (eng,)) == [{"name": "Lord Byron"}]


def test_a_password_chosen_a_minute_ago_does_not_name_anyone(table: Table) -> None:
    """A forger joins a forming game in the victim's name (a password of the forger's choosing)
    and tries to rename the victim: the code goes to the victim, who ignores it."""
    table.send(MASTER, "CREATE ?fg masterpw standard")
    victim = "famous@example.test"
    table.send(victim, "CREATE ?own ownpw")  # a known address with a public life
    out = send_raw(table, mail(victim, "SIGNON ?fg forgerpw\nSET NAME I cheat", f"Reply-To: {EVIL}"))
    assert [m.to for m in out if m.subject.startswith("Re:")] == [[victim]]  # the code: to the victim only
    out = send_raw(table, mail(victim, "SIGNON ?fg forgerpw\nCONFIRM AAAAAAAAAAAAAAAA"))
    assert table.rows("SELECT name FROM players WHERE address = ?", (victim,)) == [{"name": ""}]


def test_confirm_is_in_help(table: Table) -> None:
    out = table.send("new@example.test", "HELP")
    assert "CONFIRM code" in out[0].body and "UNOBSERVE game" in out[0].body


# -- bounces name a mail the judge sent there --------------------------------------------------------

def test_a_dsn_counts_only_for_a_message_sent_to_that_address(table: Table) -> None:
    table.start_game()
    eng, fra = table.powers["England"], table.powers["France"]
    table.drop(dsn(eng, 1))  # names no mail of ours
    table.drop(dsn(eng, 2, sent_id(table, fra)))  # names a mail that went to France, not England
    table.drop(dsn(eng, 3, "<forged.judge@example.test>"))  # an id of our domain we never used
    out = table.run()
    assert table.rows("SELECT id FROM bounces") == [] and not table.to(MASTER, out)
    table.drop(dsn(eng, 4, sent_id(table, eng)))
    out = table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces")] == [eng]
    assert [m for m in table.to(MASTER, out) if "Dead address" in m.subject]


def test_a_plain_text_bounce_counts_only_for_a_message_sent_to_that_address(
        table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    import test_mail_textbounce as tb

    table.start_game()
    eng, fra = table.powers["England"], table.powers["France"]
    monkeypatch.setattr(tb, "SENT", sent_id(table, fra))
    table.drop(qmail(eng, 1))
    table.drop(exim(eng, 2))
    table.run()
    assert table.rows("SELECT id FROM bounces") == []
    monkeypatch.setattr(tb, "SENT", sent_id(table, eng))
    table.drop(exim(eng, 3))
    table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces")] == [eng]


def test_a_bounce_naming_our_mail_in_its_in_reply_to_counts(table: Table) -> None:
    """Gmail's and Exchange's notices thread to the mail that failed."""
    table.start_game()
    eng = table.powers["England"]
    bounce = (f"Return-Path: <>\nFrom: Mail Delivery Subsystem <mailer-daemon@googlemail.com>\nTo: {JUDGE}\n"
              f"Subject: Delivery Status Notification (Failure)\nMessage-ID: <gm-9@mx.google.com>\n"
              f"In-Reply-To: {sent_id(table, eng)}\nReferences: {sent_id(table, eng)}\n\n"
              f"** Address not found **\n\nYour message wasn't delivered to {eng} because the address couldn't "
              f"be found, or is unable to receive mail.\n")
    table.drop(bounce.replace("\n", "\r\n").encode())
    table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces")] == [eng]


def test_a_bounce_returning_our_mail_base64_encoded_counts(table: Table) -> None:
    """Some servers attach the message that failed as a base64 file: its Message-ID is read there."""
    import base64

    table.start_game()
    eng = table.powers["England"]
    original = f"From: {JUDGE}\r\nTo: {eng}\r\nSubject: TEST:tg\r\nMessage-ID: {sent_id(table, eng)}\r\n\r\nhi\r\n"
    wrapped = base64.encodebytes(original.encode()).decode().replace("\n", "\r\n")
    bounce = (f"Return-Path: <>\r\nFrom: postmaster@mx.example.test\r\nTo: {JUDGE}\r\nSubject: Undeliverable\r\n"
              f"Message-ID: <b64-1@mx.example.test>\r\nMIME-Version: 1.0\r\n"
              f'Content-Type: multipart/mixed; boundary="Z"\r\n\r\n--Z\r\nContent-Type: text/plain\r\n\r\n'
              f"Delivery has failed to these recipients or groups:\r\n\r\n{eng}\r\n\r\n"
              f"--Z\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n"
              f'Content-Disposition: attachment; filename="original.eml"\r\n\r\n{wrapped}--Z--\r\n')
    assert sent_id(table, eng) not in bounce
    table.drop(bounce.encode())
    table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces")] == [eng]


# -- reflection and amplification ----------------------------------------------------------------

def test_forty_senders_with_one_reply_to_are_one_recipient(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]  # a known address: the people's limit applies
    got = []
    for i in range(40):
        got += send_raw(table, mail(f"sender{i}@example.test", f"HELP\nping {i}", f"Reply-To: {eng}"))
    assert len(table.to(eng, got)) == REPLY_LIMIT
    victim = "stranger@victim.test"  # one the judge does not know: one answer
    got = []
    for i in range(40):
        got += send_raw(table, mail(f"other{i}@example.test", f"LIST\nping {i}", f"Reply-To: {victim}"))
    assert len(table.to(victim, got)) == 1
    # the player is still answered when signing on
    out = table.order("England", "F Lon - Nth")
    assert "Signed on as England" in table.reply_to(eng, out).body


def test_a_stranger_gets_one_short_answer_an_hour(table: Table) -> None:
    stranger = "curious@example.test"
    first = table.send(stranger, "HELP\n" * 10)
    assert len(first) == 1 and len(first[0].body) < abuse.UNKNOWN_REPLY_CHARS + 2_000
    assert "This reply was cut here" in first[0].body
    assert ("sends an address it does not know one answer per hour, and this is it: mail you send in the next hour "
            "is still acted on, but answered only if it signs on with a password or sends back a CONFIRM code the judge mailed.") in " ".join(first[0].body.split())
    assert table.send(stranger, "LIST") == [] and table.send(stranger, "HELP") == []
    assert table.rows("SELECT detail FROM inbox WHERE sender = ? AND replied IS NULL", (stranger,))[0]["detail"] \
        .startswith("not answered")
    table.now += timedelta(hours=1)
    assert len(table.send(stranger, "LIST")) == 1


def test_5000_commands_give_a_capped_reply_that_counts_what_it_cut(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\n" + "HELP\n" * 5000)
    reply = table.reply_to(eng, out)
    assert len(bytes(reply.msg)) <= 64 * 1024  # text, HTML and headers together
    cut = re.search(r"the answers to (\d+) more of your lines", " ".join(reply.body.split()))
    assert cut and 4900 < int(cut.group(1)) < 5000
    assert "Movement orders for Spring of 1901" in reply.body
    assert reply.msg.get_body(("html",)) is not None


def test_27_kb_of_junk_in_is_not_787_kb_out(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    junk = "\n".join(f"A{i} <b>&amp;</b> \u2603\u2603" for i in range(2_000))
    assert 25_000 < len(junk.encode()) < 60_000
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth\n" + junk)
    reply = table.reply_to(eng, out)
    assert len(bytes(reply.msg)) <= 64 * 1024
    flat = " ".join(reply.body.split())
    assert "error lines" in flat and "the answers to" in flat and "Fleet London -> North Sea" in reply.body


def test_text_past_the_reading_limit_is_counted_in_the_reply(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    filler = "\n".join("x" * 99 for _ in range(1_000))  # 100 000 characters of filler
    out = table.send(eng, table.signon("England") + "\n" + filler + "\nF Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    body = table.reply_to(eng, out).body
    assert re.search(r"the rest \(\d+ more lines\) was not read, and nothing in it was acted on", " ".join(body.split()))
    assert "Fleet Edinburgh -> Norwegian Sea" not in body


def test_the_subject_echoed_is_capped_and_carries_no_password(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    password = table.passwords[eng]
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth", subject=f"Re: SIGNON Etg {password}")
    reply = table.reply_to(eng, out)
    assert password not in reply.subject and "SIGNON Etg ****" in reply.subject
    out = table.send(eng, table.signon("England"), subject=f"my orders, password {password} " + "x" * 500)
    reply = table.reply_to(eng, out)
    assert password not in reply.subject and len(reply.subject) < 160
    assert password not in whole(reply)
    out = table.send(MASTER, "CREATE ?sg Hunter2pw standard", subject="CREATE ?sg Hunter2pw standard")
    assert "Hunter2pw" not in table.reply_to(MASTER, out).subject


# -- hostile structure ------------------------------------------------------------------------------

def nested(depth: int, sender: str, body: str = "HELP") -> bytes:
    head = mail(sender, "", "MIME-Version: 1.0", 'Content-Type: multipart/mixed; boundary="b0"').rstrip(CRLF)
    out = [head, b""]
    for i in range(depth):
        out += [b"--b%d" % i, b'Content-Type: multipart/mixed; boundary="b%d"' % (i + 1), b""]
    out += [b"--b%d" % depth, b"Content-Type: text/plain", b"", body.encode()]
    for i in range(depth, -1, -1):
        out += [b"--b%d--" % i]
    return CRLF.join(out) + CRLF


def serve_once(folder: Path) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--maildir", str(folder), "--once"],
                          capture_output=True, timeout=300, env={**os.environ, "JUDGE_DB": ""})


def test_mime_nested_hundreds_deep_is_set_aside_with_its_bytes_and_answered(tmp_path: Path) -> None:
    folders = Folders(tmp_path / "mail")
    folders.create()
    deep = {300: nested(300, "deep@example.test"), 3000: nested(3000, "deeper@example.test"),
            10: nested(10, "shallow@example.test", "LIST")}
    for i, (depth, raw) in enumerate(deep.items()):
        (folders.inbox / "new" / f"{1700000000 + i}.d{depth}.host").write_bytes(raw)
    run = serve_once(folders.root)
    assert run.returncode == 0, run.stderr.decode()
    assert sorted(p.read_bytes() for p in incoming(folders.failed)) == sorted([deep[300], deep[3000]])
    assert [p.read_bytes() for p in incoming(folders.processed)] == [deep[10]]
    sent = [message_from_bytes(f.read_bytes(), policy=policy.default) for f in (folders.outbox / "new").iterdir()]
    by = {str(m["To"]): m.get_body(("plain",)).get_content() for m in sent}  # type: ignore[union-attr]
    for who in ("deep@example.test", "deeper@example.test"):
        assert "set aside unread" in by[who] and "nested more than 50 levels" in " ".join(by[who].split())
    assert "> LIST" in by["shallow@example.test"]  # ten levels: read and answered as usual
    from judge.game.store import Store

    st = Store(folders.root / "judge.sqlite")
    kept = st.all("SELECT raw FROM inbox WHERE status = 'failed'")
    assert sorted(bytes(r["raw"]) for r in kept) == sorted([deep[300], deep[3000]])
    st.close()


def test_a_deep_mail_through_judge_deliver_is_kept_as_failed(tmp_path: Path) -> None:
    from judge.mail import Judge, JudgeConfig

    db = tmp_path / "judge.sqlite"
    Judge(JudgeConfig(db_path=db)).close()
    raw = nested(500, "deep@example.test")
    run = subprocess.run([sys.executable, "-m", "judge.cli", "deliver", "--db", str(db), "--outbox-maildir",
                          str(tmp_path / "out")], input=raw, capture_output=True, timeout=120)
    assert run.returncode == 0 and run.stdout.decode().startswith("failed:"), (run.stdout, run.stderr)
    judge = Judge(JudgeConfig(db_path=db))
    try:
        assert [bytes(r["raw"]) for r in judge.store.all("SELECT raw FROM inbox WHERE status = 'failed'")] == [raw]
    finally:
        judge.close()
    sent = [f.read_bytes() for f in (tmp_path / "out" / "new").iterdir()]
    assert len(sent) == 1 and b"set aside unread" in sent[0]


def test_a_deep_mail_through_judge_receive_keeps_its_bytes(table: Table) -> None:
    raw = nested(400, "deep@example.test")
    assert table.judge.receive(raw, source="test").startswith("failed:")
    assert [bytes(r["raw"]) for r in table.rows("SELECT raw FROM inbox WHERE status = 'failed'")] == [raw]
    assert table.judge.receive(raw, source="test").startswith("failed:")  # offered again: still kept, not "handled"


def test_thousands_of_attachments_do_not_suppress_the_answer(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    m = EmailMessage()
    m["From"], m["To"], m["Subject"], m["Message-ID"] = eng, JUDGE, "orders", "<many@client.test>"
    m.set_content(table.signon("England") + "\nF Lon - Nth\n")
    for i in range(3000):
        m.add_attachment(b"x", maintype="application", subtype="octet-stream", filename=f"f{i}.bin")
    out = send_raw(table, m.as_bytes())
    reply = table.reply_to(eng, out)
    flat = " ".join(reply.body.split())
    assert "Attachments are not read: f0.bin" in flat and "and 2990 more" in flat
    assert "Fleet London -> North Sea" in reply.body
    assert table.rows("SELECT count(*) AS n FROM orders WHERE power = 'England'")[0]["n"] == 1


# -- a charset mislabelled as us-ascii ----------------------------------------------------------

@pytest.mark.parametrize("charset_header", ["Content-Type: text/plain; charset=us-ascii", "Content-Type: text/plain",
                                            None])
@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_8bit_text_labelled_ascii_is_read_as_utf8_or_cp1252(table: Table, charset_header: str | None,
                                                             encoding: str) -> None:
    table.start_game()
    eng = table.powers["England"]
    text = table.signon("England") + "\nF Lon - Nth\nA Lvp - Yor  \u2013 \u201cM\u00fcnchen\u201d\n"
    head = [f"From: {eng}", f"To: {JUDGE}", "Subject: orders", f"Message-ID: <cs-{encoding}@client.test>",
            "MIME-Version: 1.0", "Content-Transfer-Encoding: 8bit"] + ([charset_header] if charset_header else [])
    raw = CRLF.join(h.encode() for h in head) + CRLF + CRLF + text.replace("\n", "\r\n").encode(encoding)
    out = send_raw(table, raw)
    body = table.reply_to(eng, out).body
    assert "\u2013 \u201cM\u00fcnchen" in body and "\ufffd" not in body


def test_ascii_or_utf8_under_an_unknown_charset_label_reads_anything_else_is_not_guessed() -> None:
    for body, text in (("HELP", "HELP"), ("LIST M\u00fcnchen", "LIST M\u00fcnchen")):
        m = parse_message(mail("p@example.test", body, "Content-Type: text/plain; charset=x-unknown-8bit"), JUDGE)
        assert (m.text, m.error) == (text, None)
    raw = mail("p@example.test", "LIST", "Content-Type: text/plain; charset=x-unknown-8bit").replace(b"LIST", b"LIST \xfc")
    m = parse_message(raw, JUDGE)
    assert m.error is not None and "x-unknown-8bit" in m.error


@pytest.mark.parametrize("charset", ["us-ascii", "UTF-8", "utf8", "iso-8859-1", "ISO-8859-15", "windows-1252", "koi8-r",
                                     "utf-7", "utf-16", "cp037", "x-unknown-8bit", '""', None])
@pytest.mark.parametrize("cte", ["7bit", "8bit", "quoted-printable", "base64"])
def test_a_text_part_reads_as_the_stdlib_decodes_it(charset: str | None, cte: str) -> None:
    """The text of a part is what ``get_content`` gives wherever the stdlib can read it: ASCII
    bytes are read at once under a charset that reads them as ASCII (UTF-7's "+", UTF-16 and
    EBCDIC do not), 8-bit text under its own label by the stdlib; under a label nobody knows,
    ASCII still reads. (8-bit text labelled ASCII, or not labelled: the tests above.)"""
    from judge.mail.feedparse import parse_bytes
    from judge.mail.incoming import _READ_POLICY, read_body

    for data in (b"HELP\nA Par - Bur +AGE- x=3D\n", "LIST M\u00fcnchen\n".encode("utf-8"),
                 "LIST M\u00fcnchen\n".encode("latin-1"), "HELP \u0416\n".encode("koi8-r")):
        if cte == "7bit" and not data.isascii():
            continue
        msg = EmailMessage()
        msg["From"], msg["Message-ID"] = "p@example.test", "<t@example.test>"
        msg.set_content(data, maintype="text", subtype="plain", cte=cte)
        del msg["Content-Type"]
        msg["Content-Type"] = "text/plain" + (f"; charset={charset}" if charset else "")
        raw = msg.as_bytes()
        got, _, error = read_body(parse_bytes(raw, _READ_POLICY))  # type: ignore[arg-type]
        label = (charset or "us-ascii").lower()
        if not data.isascii() and label in ("us-ascii", "x-unknown-8bit", '""'):
            continue
        try:
            want = message_from_bytes(raw, policy=policy.default).get_content()  # type: ignore[attr-defined]
        except LookupError:
            if charset == '""':  # no name at all: the sender is told the judge cannot read it
                assert got == "" and error is not None and "character set" in error
                continue
            want = data.decode("ascii")  # a label nobody knows: ASCII reads as ASCII
        assert (got, error) == (want.replace("\r\n", "\n"), None), (data, charset, cte)


def test_a_latin1_byte_undefined_in_cp1252_still_reads(table: Table) -> None:
    m = parse_message(mail("p@example.test", "HELP").replace(b"HELP", b"HELP \x81\x8d caf\xe9"), JUDGE)
    assert m.text.startswith("HELP \x81\x8d caf\u00e9")


# -- the daemon, against the real Dovecot ------------------------------------------------------------

@pytest.mark.mail
def test_the_daemon_reads_the_angle_address_and_answers_a_reflected_stranger_once(dovecot: Dovecot,
                                                                                  tmp_path: Path) -> None:
    """As deployed: IMAP in, SMTP out, the real game service. Forgers naming one stranger as
    Reply-To get that stranger one answer; a display name that looks like an address is not the
    sender; a mail nested too deep lands in the failed folder, bytes and all."""
    dovecot.clear()
    sink = ThreadedSink(deliver_to=dovecot)
    cfg = daemon_config(dovecot, sink.sink, tmp_path, service="judge.mail:Judge",
                        judge={"options": {"password_cost": 10}}, imap={"poll_interval": 1.0})
    proc = DaemonProcess(write_config(tmp_path / "judge.toml", cfg), tmp_path / "daemon.log")
    victim = "victim@stranger.test"
    deep = nested(200, "deep@client.test")
    dovecot.append([mail(f"forger{i}@client.test", f"HELP\nping {i}", f"Reply-To: {victim}") for i in range(6)]
                   + [mail(f"p2@x.test <{EVIL}>", "LIST"), deep, mail("last@client.test", "LIST")])
    proc.start()
    try:
        end = time.monotonic() + 60
        while not (sink.sink.to("last@client.test") and sink.sink.to(EVIL) and sink.sink.to("deep@client.test")):
            assert proc.alive() and time.monotonic() < end, "the daemon did not answer"
            time.sleep(0.1)
        time.sleep(1.0)  # anything still to come would be an answer too many
        assert len(sink.sink.to(victim)) == 1
        assert not sink.sink.to("p2@x.test")
        assert "set aside unread" in text_of(sink.sink.to("deep@client.test")[0].msg)
        assert [raw for _, _, raw in dovecot.messages(mailbox="failed")] == [deep]
        assert proc.terminate() == 0
    finally:
        proc.kill9()
        sink.close()
