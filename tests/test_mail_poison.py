"""No poison mail (issue 13 part 1): a header that decodes to CR/LF, or any mail that meets a bug,
is recorded, set aside (Maildir ``failed/``), answered when that is safe, and the judge goes on
with the mail behind it and with its deadlines. Through ``judge serve --maildir --once`` and
``judge deliver`` as subprocesses (as deployed), and through the service's own Maildir runner;
the IMAP daemon's side is in ``test_mail_badmail.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from judge.mail import handler as handler_mod
from judge.mail.maildir import Folders, incoming
from judge.mail.pipe import EX_OK, deliver
from test_service_helpers import JUDGE, Table

CRLF = b"\r\n"


def raw_mail(sender: str, body: str = "HELP", *headers: str, mid: str | None = None, subject: str = "help") -> bytes:
    head = [f"From: {sender}", f"To: {JUDGE}", f"Subject: {subject}", "Date: Mon, 7 Jan 2030 12:00:00 +0000",
            f"Message-ID: {mid or '<' + os.urandom(6).hex() + '@client.test>'}", *headers]
    return CRLF.join(h.encode("utf-8") for h in head) + CRLF + CRLF + body.encode("utf-8") + CRLF


#: headers whose RFC 2047 words decode to CR/LF, as a hostile sender writes them
POISON = {
    "message-id": raw_mail("p1@example.test", mid="=?utf-8?q?<abc=0D=0ABcc:_victim@evil.test>?="),
    "message-id-b64": raw_mail("p2@example.test", mid="=?utf-8?b?PGFAYj4NCkJjYzogdmljdGltQGV2aWwudGVzdA==?="),
    "references": raw_mail("p3@example.test", "HELP", "References: <a@b> =?utf-8?q?<c=0D=0ABcc:_victim@evil.test>?="),
    "in-reply-to": raw_mail("p4@example.test", "HELP", "In-Reply-To: =?utf-8?q?<x=0Ay@z>?="),
    "subject": raw_mail("p5@example.test", subject="=?utf-8?q?hi=0D=0ABcc:_victim@evil.test?="),
    "from-name": raw_mail("=?utf-8?q?Eve=0D=0ABcc:_victim@evil.test?= <p6@example.test>"),
    "reply-to": raw_mail("p7@example.test", "HELP", "Reply-To: =?utf-8?q?x=0D=0A?= <p7@example.test>"),
    "nul-id": raw_mail("p8@example.test", mid="<a\x00b@c>"),
    # found by the fuzz below: read raw, the second word's pieces looked like "_victim@evil.test?="
    "reply-to-words": raw_mail("p9@example.test", "HELP",
                               "Reply-To: =?utf-8?q?a=0D=0Ab?= =?utf-8?q?Bcc:_victim@evil.test?="),
}


def outgoing(folder: Path) -> list[bytes]:
    d = folder / "outbox" / "new"
    return [f.read_bytes() for f in sorted(d.iterdir())] if d.is_dir() else []


def assert_clean(raw: bytes) -> None:
    """One of our messages: every header a single clean line, nobody smuggled in."""
    msg = message_from_bytes(raw, policy=policy.default)
    assert "victim" not in str(msg["To"]) and msg["Bcc"] is None and msg["Cc"] is None
    for name, value in msg.items():
        assert "\r" not in str(value) and "\n" not in str(value), (name, value)
    assert len([a for a in str(msg["To"]).split(",") if a.strip()]) == 1


def make_db(path: Path) -> None:
    """The judge's database, as an installation has it before mail is piped in."""
    from judge.mail import Judge, JudgeConfig

    Judge(JudgeConfig(db_path=path)).close()


def serve_once(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--maildir", str(folder), "--once"],
                          capture_output=True, timeout=120, env={**os.environ, "JUDGE_DB": ""})


def test_poison_headers_through_judge_serve_maildir_once(tmp_path: Path) -> None:
    folders = Folders(tmp_path / "mail")
    folders.create()
    names = list(POISON) + ["good"]
    for i, name in enumerate(names):
        raw = POISON.get(name) or raw_mail("good@example.test")
        (folders.inbox / "new" / f"{1700000000 + i}.{name}.host").write_bytes(raw)
    run = serve_once(folders.root)
    assert run.returncode == 0, run.stderr.decode()
    assert incoming(folders.inbox) == []
    assert incoming(folders.failed) == []  # sanitised: every one of them was simply handled
    assert len(incoming(folders.processed)) == len(names)
    sent = outgoing(folders.root)
    assert len(sent) == len(names)  # each one answered, once
    for raw in sent:
        assert_clean(raw)
    threaded = [message_from_bytes(r, policy=policy.default) for r in sent]
    assert any(str(m["In-Reply-To"]) == "<abcBcc:victim@evil.test>" for m in threaded)
    assert all(m["In-Reply-To"] is None or "\n" not in str(m["In-Reply-To"]) for m in threaded)
    # and a second run finds nothing to do (no crash loop, no re-answers)
    again = serve_once(folders.root)
    assert again.returncode == 0 and len(outgoing(folders.root)) == len(names)


def test_poison_header_through_judge_deliver(tmp_path: Path) -> None:
    db = tmp_path / "judge.sqlite"
    make_db(db)
    out = tmp_path / "out"
    for raw in POISON.values():
        run = subprocess.run([sys.executable, "-m", "judge.cli", "deliver", "--db", str(db),
                              "--outbox-maildir", str(out)], input=raw, capture_output=True, timeout=120)
        assert run.returncode == 0, run.stderr.decode()
        assert run.stdout.decode().startswith("handled"), run.stdout
    sent = [f.read_bytes() for f in (out / "new").iterdir()]
    assert len(sent) == len(POISON)
    for raw in sent:
        assert_clean(raw)


# -- a bug met by a message ---------------------------------------------------------------------

def bug_on(monkeypatch: pytest.MonkeyPatch, word: str = "TRIGGER-BUG") -> None:
    real = handler_mod.Handler.run

    def run(self: handler_mod.Handler) -> None:
        if word in self.mail.text:
            raise ZeroDivisionError("a bug met by this message")
        real(self)

    monkeypatch.setattr(handler_mod.Handler, "run", run)


def test_a_bug_sets_the_mail_aside_and_the_judge_goes_on(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    bug_on(monkeypatch)
    table.cfg.keeper = "keeper@example.test"
    table.start_game()
    table.drop(table.raw("p0@example.test", "TRIGGER-BUG\nLIST", message_id="<bug-1@example.test>"))
    table.drop(table.raw("p1@example.test", "LIST"))
    out = table.run()
    assert len(incoming(table.folders.failed)) == 1 and incoming(table.folders.inbox) == []
    row = table.rows("SELECT status, raw, detail FROM inbox WHERE message_id = '<bug-1@example.test>'")[0]
    assert row["status"] == "failed" and b"TRIGGER-BUG" in row["raw"] and "ZeroDivisionError" in row["detail"]
    answer = table.reply_to("p0@example.test", out)
    assert "[Error Flag]" in answer.subject and "internal error (ZeroDivisionError)" in answer.body
    assert str(answer.msg["In-Reply-To"]) == "<bug-1@example.test>"
    assert table.to("keeper@example.test", out)
    assert table.reply_to("p1@example.test", out)  # the mail behind it was handled
    # deadlines still run
    assert table.phase() == "S1901M"
    table.advance(hours=40)
    assert table.phase() != "S1901M"
    # moved back into the inbox once the bug is fixed, it is handled
    monkeypatch.undo()
    path = incoming(table.folders.failed)[0]
    os.replace(path, table.folders.inbox / "new" / path.name.split(":")[0])
    out = table.run()
    assert table.rows("SELECT status FROM inbox WHERE message_id = '<bug-1@example.test>'") == [{"status": "handled"}]
    assert incoming(table.folders.failed) == []


def test_a_bug_in_answering_is_recorded_bare(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """Even the internal-error answer fails (the reply cannot be composed): the message is still
    recorded and set aside, nobody is answered, and the next mail is handled."""
    bug_on(monkeypatch)
    from judge.game import lifecycle as games

    real_mail = games.Ctx.mail

    def mail(self, to, subject, text, **kw):  # type: ignore[no-untyped-def]
        if "internal error" in str(text):
            raise ValueError("cannot compose")
        return real_mail(self, to, subject, text, **kw)

    monkeypatch.setattr(games.Ctx, "mail", mail)
    table.drop(table.raw("p0@example.test", "TRIGGER-BUG", message_id="<bug-2@example.test>"))
    table.drop(table.raw("p1@example.test", "LIST"))
    out = table.run()
    assert table.rows("SELECT status FROM inbox WHERE message_id = '<bug-2@example.test>'") == [{"status": "failed"}]
    assert len(incoming(table.folders.failed)) == 1
    assert not table.to("p0@example.test", out) and table.reply_to("p1@example.test", out)


def test_receive_raising_anyway_is_set_aside(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transport does not trust receive() blindly: if it raises (other than the store being
    unavailable), the message is recorded and set aside, in Maildir and in pipe mode."""
    real = table.judge.receive

    def receive(raw: bytes, **kw):  # type: ignore[no-untyped-def]
        if b"TRIGGER-BUG" in raw:
            raise KeyError("receive itself")
        return real(raw, **kw)

    monkeypatch.setattr(table.judge, "receive", receive)
    table.drop(table.raw("p0@example.test", "TRIGGER-BUG", message_id="<bug-3@example.test>"))
    table.drop(table.raw("p1@example.test", "LIST"))
    out = table.run()
    assert len(incoming(table.folders.failed)) == 1 and table.reply_to("p1@example.test", out)
    assert table.rows("SELECT status FROM inbox WHERE message_id = '<bug-3@example.test>'") == [{"status": "failed"}]
    code, status = deliver(table.judge, table.raw("p2@example.test", "TRIGGER-BUG", message_id="<bug-4@example.test>"))
    assert code == EX_OK and status.startswith("failed")
    assert table.rows("SELECT status FROM inbox WHERE message_id = '<bug-4@example.test>'") == [{"status": "failed"}]


# -- fuzzing headers ------------------------------------------------------------------------------

_names = st.sampled_from(["Message-ID", "References", "In-Reply-To", "Subject", "From", "Reply-To", "To", "Cc",
                          "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted", "Return-Path", "X-Junk"])
_words = st.sampled_from(["=?utf-8?q?a=0D=0Ab?=", "=?utf-8?b?DQo=?=", "=?utf-8?q?=00?=", "=?iso-8859-1?q?=E9=0A?=",
                          "<a@b>", "<>", "<x\ty@z>", "p@example.test", "\"Bob\" <bob@example.test>",
                          "=?utf-8?q?Bcc:_victim@evil.test?=", ",", ";", "<", ">", "@", "=?bogus?x?y?=",
                          "text/plain; charset=\"=?utf-8?q?=0A?=\"", "a" * 300])
_values = st.lists(st.one_of(_words, st.text(alphabet=st.characters(blacklist_characters="\r\n\x00"), max_size=30)),
                   max_size=5).map(" ".join)


@st.composite
def hostile_mails(draw) -> bytes:  # type: ignore[no-untyped-def]
    headers = [("From", draw(st.sampled_from(["fuzz@example.test", "\"F\" <fuzz2@example.test>"]))),
               ("Message-ID", draw(st.one_of(_values, st.just("<" + os.urandom(6).hex() + "@fuzz>"))))]
    headers += draw(st.lists(st.tuples(_names, _values), max_size=8))
    head = CRLF.join(f"{n}: {v}".encode("utf-8", "surrogatepass") for n, v in headers)
    return head + CRLF + CRLF + draw(st.sampled_from([b"HELP", b"LIST", b"SIGNON Xnone pw", b""])) + CRLF


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hostile_mails(), min_size=1, max_size=4))
def test_fuzzed_headers_never_fail_the_service(tmp_path_factory: pytest.TempPathFactory, mails: list[bytes]) -> None:
    """receive() itself, many examples: nothing is recorded as failed (no bug met), every answer
    has clean headers and one recipient."""
    t = Table(tmp_path_factory.mktemp("fuzz"))
    try:
        for raw in mails:
            status = t.judge.receive(raw, now=t.now)
            assert not status.startswith("failed"), status
        for item in t.judge.pending_outbox(limit=100, now=t.now):
            assert_clean(item.message)
            assert len(item.recipients) == 1
    finally:
        t.close()


@settings(max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hostile_mails(), min_size=5, max_size=15))
def test_fuzzed_headers_through_serve_and_deliver(tmp_path_factory: pytest.TempPathFactory,
                                                   mails: list[bytes]) -> None:
    """The same hostile mails through the two command-line transports as deployed: every run
    exits 0, the inbox is emptied, nothing is set aside, every answer is clean."""
    root = tmp_path_factory.mktemp("fuzz-cli")
    folders = Folders(root / "mail")
    folders.create()
    for i, raw in enumerate(mails):
        (folders.inbox / "new" / f"{1700000000 + i}.fuzz{i}.host").write_bytes(raw)
    run = serve_once(folders.root)
    assert run.returncode == 0, run.stderr.decode()[-3000:]
    assert incoming(folders.inbox) == [] and incoming(folders.failed) == []
    for raw in outgoing(folders.root):
        assert_clean(raw)
    out = root / "pipe-out"
    make_db(root / "pipe.sqlite")
    for raw in mails[:3]:
        piped = subprocess.run([sys.executable, "-m", "judge.cli", "deliver", "--db", str(root / "pipe.sqlite"),
                                "--outbox-maildir", str(out)], input=raw, capture_output=True, timeout=120)
        assert piped.returncode == 0, piped.stderr.decode()[-3000:]
        assert not piped.stdout.decode().startswith("failed"), piped.stdout
    for f in (out / "new").iterdir() if (out / "new").is_dir() else []:
        assert_clean(f.read_bytes())


def test_the_pieces_of_an_encoded_word_are_no_reply_address() -> None:
    """A Reply-To the header parser refuses is read raw for an address in it; the raw text of an
    encoded word (``=?utf-8?q?Bcc:_victim@evil.test?=``) must not give one: the answer goes to From."""
    from judge.mail.incoming import parse_message, plausible_address

    mail = parse_message(POISON["reply-to-words"], JUDGE)
    assert mail.reply_to == ["p9@example.test"]
    assert not plausible_address("_victim@evil.test?=") and not plausible_address("a@evil..test")
    assert plausible_address("player.one+dip@mail.example-host.co.uk") and plausible_address("gm@localhost")
