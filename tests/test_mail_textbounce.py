"""Plain-text bounces (judge/mail/textbounce.py): the failed recipient of each format the judge
reads is recorded and the master told once, through the real Maildir path (``Table``); delay
warnings, a player quoting a bounce and addresses the judge never wrote to record nothing; the
parser never raises. The notices are worded as each mail server words them; every one names the
failed player, and the copy of the judge's mail below it names every player (which must not count)."""

from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import given, settings, strategies as st

from judge.mail.incoming import parse_message
from judge.mail.textbounce import FORMATS, text_bounce_failures
from test_mail_abuse import dsn
from test_service_helpers import JUDGE, MASTER, Table

PLAYERS = [f"p{i}@example.test" for i in range(7)]


#: the Message-ID of the judge's mail that bounced (the end-to-end tests set it to one the judge sent)
SENT = "<results-1.judge@example.test>"


def copy_of_our_mail() -> str:
    """The judge's results mail as a bounce quotes it: its To names all seven players."""
    return (f"Return-Path: <{JUDGE}>\nFrom: Judge <{JUDGE}>\nTo: {', '.join(PLAYERS)}\n"
            f"Subject: TEST:tg - S1901M Results\nMessage-ID: {SENT}\nAuto-Submitted: auto-generated\n\n"
            f"Results for Spring 1901.\n")


def raw(head: str, body: str) -> bytes:
    return (head.strip("\n") + "\n\n" + body).replace("\n", "\r\n").encode()


def qmail(rcpt: str, n: int) -> bytes:
    # qmail-send writes no Message-ID: the judge keys it by a hash of its bytes
    return raw(f"""
Return-Path: <>
Received: (qmail {n}1234 invoked for bounce); 7 Jan 2030 12:00:0{n} -0000
Date: 7 Jan 2030 12:00:0{n} -0000
From: MAILER-DAEMON@mx.example.test
To: {JUDGE}
Subject: failure notice
""", f"""Hi. This is the qmail-send program at mx.example.test.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<{rcpt}>:
192.0.2.25 does not like recipient.
Remote host said: 550 5.1.1 <{rcpt}>: Recipient address rejected: User unknown
Giving up on 192.0.2.25.

--- Below this line is a copy of the message.

{copy_of_our_mail()}""")


def exim(rcpt: str, n: int) -> bytes:
    return raw(f"""
Return-path: <>
From: Mail Delivery System <Mailer-Daemon@mx.example.test>
To: {JUDGE}
Subject: Mail delivery failed: returning message to sender
Message-Id: <E1tAbC{n}-0001xy-AB@mx.example.test>
Date: Mon, 07 Jan 2030 12:00:0{n} +0000
X-Failed-Recipients: {rcpt}
Auto-Submitted: auto-replied
""", f"""This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {rcpt}
    host mail.example.test [192.0.2.25]
    SMTP error from remote mail server after RCPT TO:<{rcpt}>:
    550 5.1.1 <{rcpt}>: Recipient address rejected: User unknown

------ This is a copy of the message, including all the headers. ------

{copy_of_our_mail()}""")


def sendmail(rcpt: str, n: int) -> bytes:
    """An old sendmail's text-only notice (newer ones send multipart/report)."""
    return raw(f"""
Return-Path: <>
From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.test>
To: <{JUDGE}>
Subject: Returned mail: see transcript for details
Message-Id: <203001071200.{n}@mx.example.test>
Auto-Submitted: auto-generated (failure)
""", f"""The original message was received at Mon, 7 Jan 2030 12:00:00 GMT
from judge.example.test [192.0.2.1]

   ----- The following addresses had permanent fatal errors -----
<{rcpt}>
    (reason: 550 5.1.1 <{rcpt}>... User unknown)

   ----- Transcript of session follows -----
... while talking to mail.example.test.:
>>> DATA
<<< 550 5.1.1 <{rcpt}>... User unknown
550 5.1.1 <{rcpt}>... User unknown

   ----- Original message follows -----

{copy_of_our_mail()}""")


def exchange(rcpt: str, n: int) -> bytes:
    return raw(f"""
From: postmaster@corp.example.test
To: {JUDGE}
Subject: Undeliverable: TEST:tg - S1901M Results
Message-ID: <ndr-{n}@corp.example.test>
Auto-Submitted: auto-replied
Content-Type: text/plain; charset="us-ascii"
""", f"""Delivery has failed to these recipients or groups:

{rcpt} ({rcpt})
The e-mail address you entered couldn't be found. Please check the recipient's e-mail address and try to resend the message. If the problem continues, please contact your helpdesk.



Diagnostic information for administrators:

Generating server: mail.corp.example.test

{rcpt}
#550 5.1.1 RESOLVER.ADR.RecipNotFound; not found ##

Original message headers:

{copy_of_our_mail()}""")


def exchange2003(rcpt: str, n: int) -> bytes:
    """Its notice in a text part, the message that bounced attached whole."""
    return raw(f"""
From: System Administrator <postmaster@corp.example.test>
To: {JUDGE}
Subject: Undeliverable: TEST:tg - S1901M Results
Message-ID: <ndr2003-{n}@corp.example.test>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="X{n}"
""", f"""--X{n}
Content-Type: text/plain; charset="iso-8859-1"

Your message did not reach some or all of the intended recipients.

      Subject:\tTEST:tg - S1901M Results
      Sent:\t1/7/2030 12:00 PM

The following recipient(s) cannot be reached:

      {rcpt} on 1/7/2030 12:01 PM
            The e-mail account does not exist at the organization this message was sent to.  Check the e-mail address, or contact the recipient directly to find out the correct address.
            <mail.corp.example.test #5.1.1>

--X{n}
Content-Type: message/rfc822

{copy_of_our_mail()}
--X{n}--
""")


def domino(rcpt: str, n: int) -> bytes:
    return raw(f"""
From: Postmaster@domino.example.test
To: {JUDGE}
Subject: DELIVERY FAILURE: User {rcpt} not listed in Domino Directory
Message-ID: <OF{n}ABC.12345678-ON65257F@domino.example.test>
Auto-Submitted: auto-generated
""", f"""Your message

  Subject: TEST:tg - S1901M Results

was not delivered to:

  {rcpt}

because:

  User {rcpt} ({rcpt}) not listed in Domino Directory

{copy_of_our_mail()}""")


def google_head(kind: str, mid: str) -> str:
    return f"""Return-Path: <>
From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>
To: {JUDGE}
Subject: Delivery Status Notification ({kind})
Message-ID: <{mid}>"""


def gmail(rcpt: str, n: int) -> bytes:
    """Gmail's words without its report part (as relayed by a gateway that keeps only the text)."""
    return raw(google_head("Failure", f"gm-{n}@mx.google.com") + "\nAuto-Submitted: auto-replied", f"""
** Address not found **

Your message wasn't delivered to {rcpt} because the address couldn't be found, or is unable to receive mail.

Learn more here: https://support.google.com/mail/?p=NoSuchUser

The response was:

550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking the recipient's email address for typos or unnecessary spaces. https://support.google.com/mail/?p=NoSuchUser

----- Original message -----

{copy_of_our_mail()}""")


def gmail_old(rcpt: str, n: int) -> bytes:
    return raw(google_head("Failure", f"gmold-{n}@mail.gmail.com"), f"""Delivery to the following recipient failed permanently:

     {rcpt}

Technical details of permanent failure:
Google tried to deliver your message, but it was rejected by the server for the recipient domain example.test by mail.example.test. [192.0.2.25].

The error that the other server returned was:
550 5.1.1 <{rcpt}>: Recipient address rejected: User unknown

----- Original message -----

{copy_of_our_mail()}""")


def postfix_text(rcpt: str, n: int) -> bytes:
    """Postfix's notice read as text: a report that lost its message/delivery-status part."""
    return raw(f"""
Return-Path: <>
From: MAILER-DAEMON@mx.example.test (Mail Delivery System)
To: {JUDGE}
Subject: Undelivered Mail Returned to Sender
Message-ID: <pf-{n}@mx.example.test>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="P{n}"
""", f"""--P{n}
Content-Description: Notification
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.test.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients. It's attached below.

For further assistance, please send mail to postmaster.

If you do so, please include this problem report. You can
delete your own text from the attached returned message.

                   The mail system

<{rcpt}>: host mail.example.test[192.0.2.25] said: 550 5.1.1
    <{rcpt}>: Recipient address rejected: User unknown (in reply to RCPT TO
    command)

--P{n}
Content-Description: Undelivered Message
Content-Type: message/rfc822

{copy_of_our_mail()}
--P{n}--
""")


PERMANENT: dict[str, Callable[[str, int], bytes]] = {
    "qmail": qmail, "exim": exim, "sendmail": sendmail, "exchange": exchange, "exchange2003": exchange2003,
    "domino": domino, "gmail": gmail, "gmail_old": gmail_old, "postfix_text": postfix_text,
}


# -- delay warnings: same senders, same look, nothing failed yet ----------------------------------

def exim_delay(rcpt: str, n: int) -> bytes:
    return raw(f"""
Return-path: <>
From: Mail Delivery System <Mailer-Daemon@mx.example.test>
To: {JUDGE}
Subject: Warning: message 1tAbC{n}-0001xy-AB delayed 24 hours
Message-Id: <E1tDelay{n}-0001xy-AB@mx.example.test>
Auto-Submitted: auto-replied
""", f"""This message was created automatically by mail delivery software.
A message that you sent has not yet been delivered to one or more of its
recipients after more than 24 hours on the queue on mx.example.test.

The message identifier is:     1tAbC{n}-0001xy-AB
The subject of the message is: TEST:tg - S1901M Results
The date of the message is:    Mon, 07 Jan 2030 12:00:00 +0000

The address to which the message has not yet been delivered is:

  {rcpt}
    host mail.example.test [192.0.2.25]
    Delay reason: SMTP error from remote mail server after RCPT TO:<{rcpt}>:
    451 4.3.0 <{rcpt}>: Temporary lookup failure

No action is required on your part. Delivery attempts will continue for
some time, and this warning may be repeated at intervals if the message
remains undelivered. Eventually the mail delivery software will give up,
and when that happens, the message will be returned to you.
""")


def qmail_delay(rcpt: str, n: int) -> bytes:
    """Stock qmail sends no delay warnings; the patched ones that do keep its opening and say the
    error is temporary instead of "This is a permanent error"."""
    return qmail(rcpt, n).replace(b"This is a permanent error; I've given up. Sorry it didn't work out.",
                                  b"This is a temporary error; I'm still trying. You need not resend it.")


def sendmail_delay(rcpt: str, n: int) -> bytes:
    return raw(f"""
Return-Path: <>
From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.test>
To: <{JUDGE}>
Subject: Warning: could not send message for past 4 hours
Message-Id: <203001071600.{n}@mx.example.test>
Auto-Submitted: auto-generated (warning-timeout)
""", f"""    **********************************************
    **      THIS IS A WARNING MESSAGE ONLY      **
    **  YOU DO NOT NEED TO RESEND YOUR MESSAGE  **
    **********************************************

The original message was received at Mon, 7 Jan 2030 12:00:00 GMT
from judge.example.test [192.0.2.1]

   ----- The following addresses had transient non-fatal errors -----
<{rcpt}>

   ----- Transcript of session follows -----
<{rcpt}>... Deferred: Connection timed out with mail.example.test.
Warning: message still undelivered after 4 hours
Will keep trying until message is 5 days old
""")


def exchange_delay(rcpt: str, n: int) -> bytes:
    return raw(f"""
From: postmaster@corp.example.test
To: {JUDGE}
Subject: Delivery delayed:TEST:tg - S1901M Results
Message-ID: <delay-{n}@corp.example.test>
Auto-Submitted: auto-replied
""", f"""Delivery is delayed to these recipients or groups:

{rcpt} ({rcpt})

Subject: TEST:tg - S1901M Results

This message hasn't been delivered yet. Delivery will continue to be attempted.

The server will keep trying to deliver this message for the next 1 days, 19 hours and 53 minutes. You'll be notified if the message can't be delivered by that time.
""")


def gmail_delay(rcpt: str, n: int) -> bytes:
    return raw(google_head("Delay", f"gmdelay-{n}@mx.google.com"), f"""
** Delivery incomplete **

There was a temporary problem delivering your message to {rcpt}. Gmail will retry for 46 more hours. You'll be notified if the delivery fails permanently.

The response was:

451 4.3.0 Temporary failure, please try again later.
""")


def postfix_delay(rcpt: str, n: int) -> bytes:
    return postfix_text(rcpt, n).replace(
        b"I'm sorry to have to inform you that your message could not\r\nbe delivered to one or more recipients. "
        b"It's attached below.",
        b"####################################################################\r\n"
        b"# THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #\r\n"
        b"####################################################################\r\n\r\n"
        b"Your message could not be delivered for more than 4 hour(s).\r\nIt will be retried until it is 5 day(s) old.")


DELAYED: dict[str, Callable[[str, int], bytes]] = {
    "exim": exim_delay, "qmail": qmail_delay, "sendmail": sendmail_delay, "exchange": exchange_delay,
    "gmail": gmail_delay, "postfix": postfix_delay,
}


# -- the parser, on the mail as the judge reads it ------------------------------------------------

@pytest.mark.parametrize("fmt", sorted(PERMANENT))
def test_each_format_names_only_the_failed_recipient(fmt: str) -> None:
    """Not the other players named in the copy of the judge's mail below the notice."""
    mail = parse_message(PERMANENT[fmt]("p3@example.test", 1), JUDGE)
    assert mail.ignore and mail.bounced == ["p3@example.test"]


@pytest.mark.parametrize("fmt", sorted(DELAYED))
def test_a_delay_warning_names_nobody(fmt: str) -> None:
    mail = parse_message(DELAYED[fmt]("p3@example.test", 1), JUDGE)
    assert mail.ignore and mail.bounced == []


def test_a_notice_naming_two_failed_recipients_names_both() -> None:
    body = exim("p1@example.test", 1).replace(b"  p1@example.test\r\n", b"  p1@example.test\r\n    550 unknown\r\n"
                                              b"  P2@Example.test\r\n")
    assert parse_message(body, JUDGE).bounced == ["p1@example.test", "p2@example.test"]



def test_a_notice_names_the_failed_address_in_the_form_the_judge_stores():
    # MTAs name an internationalized domain in its xn-- form; the judge stores (and wrote to) the
    # U-label form, as it does for the addresses a delivery status notification names
    mail = parse_message(qmail("X@xn--bcher-kva.de", 1), JUDGE)
    assert mail.bounced == ["x@bücher.de"]

def test_a_player_quoting_a_bounce_is_no_bounce() -> None:
    body = "Look what I got:\n\n> " + qmail("p3@example.test", 1).decode().replace("\r\n", "\n> ")
    mail = parse_message(raw(f"From: p1@example.test\nTo: {JUDGE}\nSubject: orders\nMessage-ID: <q@x>", body), JUDGE)
    assert not mail.ignore and mail.bounced == []


def test_gmail_names_a_domain_that_does_not_exist() -> None:
    body = gmail("p3@nowhere.example.test", 1).replace(
        b"because the address couldn't be found", b"because the domain nowhere.example.test couldn't be found")
    assert parse_message(body, JUDGE).bounced == ["p3@nowhere.example.test"]


@pytest.mark.parametrize("headers", ["List-Id: <diplomacy.lists.example.test>", "Precedence: bulk",
                                     "X-Autoreply: yes"])
def test_machine_mail_that_is_no_bounce_is_not_read_as_one(headers: str) -> None:
    """Ignored (a list's copy of a post, a bulk mail, an auto-reply), but a person's words: a
    bounce pasted into it names nobody."""
    notice = exim("p3@example.test", 1).decode().replace("\r\n", "\n").split("\n\n", 1)[1]
    mail = parse_message(raw(f"From: p1@example.test\nTo: {JUDGE}\nSubject: bounce?\nMessage-ID: <l@x>\n{headers}",
                             "Anyone know why this bounced?\n\n" + notice), JUDGE)
    assert mail.ignore and mail.bounced == []


def test_the_bounce_text_is_read_only_where_no_report_part_says_otherwise() -> None:
    """A report whose delivery-status part says "delayed" is a delay, whatever its words."""
    delayed = dsn("p3@example.test", 1).replace(b"Action: failed", b"Action: delayed")
    assert parse_message(delayed, JUDGE).bounced == []


JUNK = st.one_of(
    st.text(max_size=3000),
    st.lists(st.sampled_from([
        "I'm afraid I wasn't able to deliver your message to the following addresses.", "This is a permanent error",
        "The following address(es) failed:", "Delivery has failed to these recipients or groups:",
        "was not delivered to:", "because:", "<", ">:", "@", "a@b.c", "<x@y.z>:", "  ", "\n", "\r", "(", ")",
        "Your message wasn't delivered to ", " because the address couldn't be found", "x" * 2000, "@" * 500,
        "----- The following addresses had permanent fatal errors -----", "\u2019", "\x00", "é@ü.test",
    ]), max_size=60).map("".join),
)


@settings(max_examples=300, deadline=None)
@given(JUNK)
def test_the_parser_never_raises_and_returns_only_addresses(text: str) -> None:
    got = text_bounce_failures(text)
    assert all("@" in a and a == a.lower() and " " not in a for a in got)


@pytest.mark.parametrize("text", ["", "\n" * 10_000, "@" * 200_000, "a" * 200_000, ("x" * 63 + "@") * 5000,
                                  "The following address(es) failed:\n" + "  " + "a" * 300_000 + "@b.c\n",
                                  "Delivery has failed to these recipients or groups:\n" + "w " * 100_000 + "a@b.c"])
def test_the_parser_on_hostile_texts(text: str) -> None:
    assert text_bounce_failures(text) in ([], ["a@b.c"])


def test_every_format_has_a_sample() -> None:
    assert {f.name for f in FORMATS} <= {k.split("_")[0].rstrip("0123456789") for k in PERMANENT}


# -- end to end, through the Maildir --------------------------------------------------------------

@pytest.mark.parametrize("fmt", sorted(PERMANENT))
def test_a_text_bounce_is_recorded_and_the_master_told_once(table: Table, fmt: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    table.start_game()
    eng = table.powers["England"]
    monkeypatch.setitem(globals(), "SENT", str(table.to(eng)[-1].msg["Message-ID"]))
    table.drop(PERMANENT[fmt](eng, 1))
    out = table.run()
    table.drop(PERMANENT[fmt](eng, 2))
    out += table.run()
    assert [r["address"] for r in table.rows("SELECT address FROM bounces ORDER BY id")] == [eng, eng]
    told = [m for m in table.to(MASTER, out) if "Dead address" in m.subject]
    assert len(told) == 1 and eng in told[0].body and "England" in told[0].body
    assert [m for m in out if m not in told] == []  # nobody else hears of it; the bounce is never answered
    assert {r["status"] for r in table.rows("SELECT status FROM inbox")} >= {"ignored"}


@pytest.mark.parametrize("fmt", sorted(DELAYED))
def test_a_text_delay_warning_records_nothing(table: Table, fmt: str) -> None:
    table.start_game()
    table.drop(DELAYED[fmt](table.powers["England"], 1))
    out = table.run()
    assert table.rows("SELECT id FROM bounces") == [] and out == []


def test_a_players_mail_quoting_a_bounce_is_handled_as_their_mail(table: Table) -> None:
    table.start_game()
    eng, fra = table.powers["England"], table.powers["France"]
    quoted = "\n".join("> " + line for line in exim(fra, 1).decode().splitlines())
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth\n\nDid France leave? I got this:\n\n" + quoted)
    assert "Movement orders for Spring of 1901" in table.reply_to(eng, out).body
    assert table.rows("SELECT id FROM bounces") == [] and not [m for m in out if "Dead address" in m.subject]


def test_a_bounce_naming_an_address_the_judge_never_wrote_to_records_nothing(table: Table) -> None:
    table.start_game()
    for i, fmt in enumerate(sorted(PERMANENT)):
        table.drop(PERMANENT[fmt]("stranger@elsewhere.example.test", i))
    table.drop(dsn("stranger@elsewhere.example.test", 99))  # a report the same
    out = table.run()
    assert table.rows("SELECT id FROM bounces") == [] and out == []
    assert len(table.rows("SELECT id FROM inbox WHERE status = 'ignored'")) >= len(PERMANENT) + 1
