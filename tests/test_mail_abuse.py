"""Abuse paths closed (issue 13 part 3), through the real Maildir path (``Table``): one reply
address, capped replies, loops with responders that set no headers, passwords never echoed,
proof for SET NAME/OBSERVE/CREATE, observers leaving, wrong-password lock-outs, bounces."""

from __future__ import annotations

import re
from datetime import timedelta


from test_service_helpers import JUDGE, MASTER, Table, acquaint, observe, flat

# The defaults of the abuse settings (JudgeConfig; tests/test_mail_abuse_settings.py sets them),
# written out: these tests run an unconfigured judge, so they show the defaults at work.
WINDOW, REPLY_LIMIT, SAME_BODY_LIMIT, SAME_BODY_WINDOW = timedelta(hours=1), 30, 5, timedelta(minutes=10)
SEAT_FAILURES, SENDER_FAILURES, MAX_ECHO_CHARS, MAX_REPLY_CHARS = 5, 10, 30_000, 100_000


def whole(m) -> str:  # type: ignore[no-untyped-def]
    """Every part of a mail as text (plain and HTML), to look for what must not be there."""
    return "\n".join(p.get_content() for p in m.msg.walk() if p.get_content_maintype() == "text")


# -- one address ----------------------------------------------------------------------------------

def test_a_reply_to_of_200_addresses_is_not_fanned_out(table: Table) -> None:
    crowd = ", ".join(f"victim{i}@example.test" for i in range(200))
    out = table.send("p@example.test", "HELP", headers={"Reply-To": crowd})
    assert [m.to for m in out] == [["p@example.test"]]


def test_a_single_reply_to_is_honoured(table: Table) -> None:
    out = table.send("p@work.example.test", "LIST", headers={"Reply-To": "Pat <p@home.example.test>"})
    assert [m.to for m in out] == [["p@home.example.test"]]


def test_create_and_observe_answer_the_from_address_only(table: Table) -> None:
    """The master or observer recorded is the From address; the answer (with what it made) goes there."""
    out = table.send(MASTER, "CREATE ?tg masterpw standard", headers={"Reply-To": "elsewhere@example.test"})
    assert [m.to for m in out] == [[MASTER]]
    out = table.send("watcher@example.test", "OBSERVE tg watchpw", headers={"Reply-To": "other@example.test"})
    assert [m.to for m in out] == [["watcher@example.test"]]


def test_set_address_takes_at_most_three(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    many = ", ".join(f"a{i}@example.test" for i in range(10))
    out = table.send(eng, table.signon("England") + f"\nSET ADDRESS {many}")
    assert "at most 3 addresses" in table.reply_to(eng, out).body
    assert table.rows("SELECT addresses FROM seats WHERE power = 'England'") == [{"addresses": None}]


# -- size -----------------------------------------------------------------------------------------

def test_a_junk_mail_gets_a_capped_reply_with_a_note(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    junk = "\n".join(f"zz{i} qq" for i in range(12_000))  # ~100 000 characters, every line an error
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth\n" + junk)
    reply = table.reply_to(eng, out)
    assert len(reply.body) < MAX_ECHO_CHARS + 5_000
    assert len(bytes(reply.msg)) < 300_000  # text and HTML together
    assert "This reply was cut here" in reply.body and "error lines" in reply.body
    assert "Movement orders for Spring of 1901" in reply.body  # the order status is kept
    assert "F London -> North Sea" in reply.body or "F Lon" in reply.body
    assert table.rows("SELECT count(*) AS n FROM orders WHERE power = 'England' AND state = 'active'")[0]["n"] == 1


def test_a_mail_of_repeated_commands_gets_a_capped_reply(table: Table) -> None:
    out = table.send("p@example.test", "HELP\n" * 20_000)
    reply = table.reply_to("p@example.test", out)
    assert len(reply.body) < MAX_REPLY_CHARS + 10_000 and len(bytes(reply.msg)) < 400_000
    assert "This reply was cut here" in reply.body


def test_a_very_long_line_is_echoed_cut(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nA " + "x" * 50_000)
    reply = table.reply_to(eng, out)
    assert "x" * 301 not in reply.body and "[...]" in reply.body


# -- loops ----------------------------------------------------------------------------------------

def test_replies_per_sender_are_limited_per_hour(table: Table) -> None:
    sender = "chatty@example.test"
    acquaint(table, sender)
    got = []
    for i in range(REPLY_LIMIT + 5):
        got += table.send(sender, f"HELP\nthanks {i}")  # different texts: only the quota stops it
    assert len(got) == REPLY_LIMIT
    note = "in the next hour is still acted on, but answered only if it signs on with a password or sends back a CONFIRM code"
    assert note not in flat(got[-2].body) and note in flat(got[-1].body)
    quiet = table.rows("SELECT detail FROM inbox WHERE sender = ? AND replied IS NULL", (sender,))
    assert len(quiet) == 5 and all("not answered" in r["detail"] for r in quiet)
    table.now += WINDOW
    assert len(table.send(sender, "LIST")) == 1  # the quota is per hour


def test_signed_on_mail_beyond_the_quota_is_acted_on_and_answered(table: Table) -> None:
    """A loop cannot sign on (no answer of ours shows a password): players are never silenced."""
    table.start_game()
    eng = table.powers["England"]
    for i in range(REPLY_LIMIT):
        table.send(eng, f"LIST\nping {i}")
    assert table.send(eng, "LIST\none more") == []
    out = table.order("England", "F Lon - Nth")
    assert "Error" not in table.reply_to(eng, out).subject
    assert table.rows("SELECT count(*) AS n FROM orders WHERE power = 'England' AND state = 'active'")[0]["n"] == 1
    # and signed-on answers do not use up the quota of a fresh sender
    fra = table.powers["France"]
    for _ in range(REPLY_LIMIT + 2):
        table.order("France", "A Par - Bur")
    assert len(table.send(fra, "LIST")) == 1


def test_a_responder_sending_the_same_text_is_not_answered(table: Table) -> None:
    """An autoresponder without Auto-Submitted or Precedence: the same text again and again."""
    bot = "away@example.test"
    acquaint(table, bot)
    text = "Thank you for your message. I am out of the office until Monday."
    answered = [len(table.send(bot, text, subject=f"Re: {i}")) for i in range(SAME_BODY_LIMIT + 2)]
    assert answered == [1] * (SAME_BODY_LIMIT - 1) + [0, 0, 0]
    rows = table.rows("SELECT detail FROM inbox WHERE sender = ? AND replied IS NULL", (bot,))
    assert len(rows) == 3 and all("same text" in r["detail"] for r in rows)
    # after a quiet spell it is answered again
    table.now += SAME_BODY_WINDOW
    assert len(table.send(bot, text)) == 1


def test_a_player_repeating_a_signed_on_mail_is_still_answered(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    for _ in range(SAME_BODY_LIMIT + 1):
        out = table.order("England", "F Lon - Nth")
        assert table.to(eng, out)


# -- passwords ------------------------------------------------------------------------------------

def test_no_reply_ever_shows_a_password(table: Table) -> None:
    acquaint(table, "o@example.test")
    acquaint(table, "q@example.test")
    table.send(MASTER, "CREATE ?pg Sekr3tMaster standard")
    out = table.send(MASTER, "SIGNON Mpg Sekr3tMaster\nSET PASSWORD Sekr3tNew1\nSET PASSWORD=Sekr3tNew2\n"
                             "SET NAME Gamesmaster")
    out += table.send("p@example.test", "SIGNON ?pg Sekr3tJoin")
    out += table.send("o@example.test", "OBSERVE pg Sekr3tObs\nUNOBSERVE")
    out += table.send("o@example.test", "OBSERVE pg Sekr3tObs2")
    out += table.send("o@example.test", "UNOBSERVE pg Sekr3tObs2")
    out += table.send("q@example.test", "SIGNON France pg Sekr3tFrance")  # the three-word form
    out += table.send("q@example.test", "signon ?pg two Sekr3tWords")  # a password with a space
    out += table.send("q@example.test", "LOGIN Fpg Sekr3tLogin")
    out += table.send("q@example.test", "SIGNON Fpg Sekr3t words")  # a password with a space, no "?"
    assert out
    for m in out:
        assert "Sekr3t" not in whole(m), m.subject
    assert "> SIGNON Mpg ****" in out[0].body and "> SET PASSWORD ****" in out[0].body


def test_wrong_passwords_lock_the_seat_for_others_and_tell_its_owner(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    evil = "guesser@example.test"
    acquaint(table, evil)
    acquaint(table, "guesser2@example.test")
    out = []
    for i in range(SEAT_FAILURES):
        out += table.send(evil, f"SIGNON Etg guess{i}")
    notices = [m for m in table.to(eng, out) if "Wrong passwords: England" in m.subject]
    assert len(notices) == 1 and evil in notices[0].body
    # now even the right password from that address is refused, with a clear message
    out = table.send(evil, table.signon("England") + "\nF Lon - Nth")
    reply = table.reply_to(evil, out)
    assert "Too many wrong passwords" in reply.body and "refused until" in reply.body
    assert table.rows("SELECT count(*) AS n FROM orders")[0]["n"] == 0
    # more guesses: no second notice
    out = table.send("guesser2@example.test", "SIGNON Etg again")
    assert not [m for m in table.to(eng, out) if "Wrong passwords" in m.subject]
    # the owner is not locked out by other people's guesses
    out = table.order("England", "F Lon - Nth")
    assert "Error" not in table.reply_to(eng, out).subject
    # after the window the lock is gone
    table.now += WINDOW
    out = table.send("guesser2@example.test", table.signon("England"))
    assert "Signed on as England" in table.reply_to("guesser2@example.test", out).body


def test_a_sender_guessing_everywhere_is_locked_out(table: Table) -> None:
    table.start_game()
    evil = "spray@example.test"
    acquaint(table, evil)
    letters = "EFGIART"
    for i in range(SENDER_FAILURES):
        table.send(evil, f"SIGNON {letters[i % 7]}tg guess{i}")
    out = table.send(evil, "SIGNON Mtg masterpw")
    assert "Too many wrong passwords" in table.reply_to(evil, out).body


# -- proof of address ---------------------------------------------------------------------------

def test_set_name_needs_a_signon(table: Table) -> None:
    out = table.send("p0@example.test", "SET NAME Impostor")
    assert "sign on first" in table.reply_to("p0@example.test", out).body
    assert table.rows("SELECT name FROM players WHERE address = 'p0@example.test'") in ([], [{"name": None}])


def test_an_observer_can_leave(table: Table) -> None:
    table.start_game()
    obs = "watcher@example.test"
    observe(table, obs, "tg", "watchpw")
    out = table.send(obs, "UNOBSERVE tg wrongpw")  # no password is needed, so none is checked
    reply = table.reply_to(obs, out)
    assert "You no longer observe 'tg'" in reply.body and "wrongpw" not in whole(reply)
    assert table.rows("SELECT id FROM seats WHERE role = 'observer'") == []
    out = table.send(MASTER, "SIGNON Mtg masterpw\nBROADCAST\nhello all\nENDPRESS")
    assert not table.to(obs, out)


# -- bounces --------------------------------------------------------------------------------------

def sent_id(table: Table, rcpt: str) -> str:
    """The Message-ID of the last mail the judge sent to ``rcpt``."""
    return str(table.to(rcpt)[-1].msg["Message-ID"])


def dsn(rcpt: str, n: int, mid: str = "<none@example.test>") -> bytes:
    """A bounce as Postfix writes it (RFC 3464 multipart/report), of the judge's message ``mid``."""
    return (f"""Return-Path: <>
From: MAILER-DAEMON@mx.example.test (Mail Delivery System)
To: {JUDGE}
Subject: Undelivered Mail Returned to Sender
Message-ID: <bounce-{n}@mx.example.test>
Auto-Submitted: auto-replied
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
 boundary="B{n}"

--B{n}
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.test.
I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

--B{n}
Content-Description: Delivery report
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.test
X-Postfix-Queue-ID: 4F2A1{n}
Arrival-Date: Mon,  7 Jan 2030 12:00:00 +0000 (UTC)

Final-Recipient: rfc822; {rcpt}
Original-Recipient: rfc822;{rcpt}
Action: failed
Status: 5.1.1
Remote-MTA: dns; mail.example.test
Diagnostic-Code: smtp; 550 5.1.1 <{rcpt}>: Recipient address rejected

--B{n}
Content-Description: Undelivered Message Headers
Content-Type: text/rfc822-headers

From: Judge <{JUDGE}>
To: {rcpt}
Subject: TEST:tg - S1901M Results
Message-ID: {mid}

--B{n}--
""").replace("\n", "\r\n").encode()


def test_a_bounce_is_recorded_and_the_master_told_once(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    table.drop(dsn(eng, 1, sent_id(table, eng)))
    out = table.run()
    table.drop(dsn(eng, 2, sent_id(table, eng)))
    out += table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces ORDER BY id")] == [eng, eng]
    told = [m for m in table.to(MASTER, out) if "Dead address" in m.subject]
    assert len(told) == 1 and eng in told[0].body and "England" in told[0].body
    assert not table.to(eng, out) and not table.to("mailer-daemon@mx.example.test", out)  # never answered
    assert {r["status"] for r in table.rows("SELECT status FROM inbox WHERE sender LIKE 'mailer-daemon%'")} == {"ignored"}


def test_a_delay_notice_is_not_a_dead_address(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    table.drop(dsn(eng, 3, sent_id(table, eng)).replace(b"Action: failed", b"Action: delayed"))
    out = table.run()
    assert table.rows("SELECT id FROM bounces") == [] and not table.to(MASTER, out)
