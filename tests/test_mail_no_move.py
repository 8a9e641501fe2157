"""The daemon against a server without MOVE (older Exchange/Domino, some hosted IMAP): handled mail
goes to the processed folder by UID COPY + STORE \\Deleted + EXPUNGE. The same private Dovecot as
the other mail tests, told to advertise a capability list without MOVE (and, in the second run,
without UIDPLUS too, so without UID EXPUNGE). Dovecot still accepts the commands it no longer
advertises, so what is tested is the daemon's choice by capability, plus the crash windows
between the three steps."""

from __future__ import annotations

import asyncio
import email
import imaplib
import sqlite3
from email import policy
from pathlib import Path
from typing import Any

import aioimaplib
import pytest

from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot_missing, mail, order_mail,  # noqa: F401
                         running_daemon, smtp_sink, until, workdir)

pytestmark = pytest.mark.mail

#: Dovecot 2.3's own list after login, less MOVE
NO_MOVE = ("IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE SORT SORT=DISPLAY THREAD=REFERENCES THREAD=REFS "
           "THREAD=ORDEREDSUBJECT MULTIAPPEND URL-PARTIAL CATENATE UNSELECT CHILDREN NAMESPACE UIDPLUS "
           "LIST-EXTENDED I18NLEVEL=1 CONDSTORE QRESYNC ESEARCH ESORT SEARCHRES WITHIN CONTEXT=SEARCH "
           "LIST-STATUS BINARY SNIPPET=FUZZY PREVIEW=FUZZY PREVIEW STATUS=SIZE SAVEDATE LITERAL+ NOTIFY")
#: an old server: IDLE, but neither MOVE nor UIDPLUS
PLAIN = "IMAP4rev1 LITERAL+ IDLE NAMESPACE CHILDREN"
PROCESSED = "Processed"


@pytest.fixture(scope="module", params=[NO_MOVE, PLAIN], ids=["no-move", "no-move-no-uidplus"])
def dovecot(request: pytest.FixtureRequest) -> Any:
    """This module's Dovecot advertises no MOVE (the ``mail`` and ``smtp_sink`` fixtures use it)."""
    reason = dovecot_missing()
    if reason:
        pytest.skip(reason)
    d = Dovecot(capabilities=request.param).start()
    yield d
    d.stop()


def caps(dovecot: Dovecot) -> tuple[set[str], set[str]]:
    c = imaplib.IMAP4(dovecot.host, dovecot.imap_port, timeout=30)
    try:
        before = {x.upper() for x in c.capabilities}
        c.login("judge@example.test", "secret")
        typ, data = c.capability()
        assert typ == "OK"
        return before, {x.upper() for x in data[0].decode().split()}
    finally:
        c.logout()


def tokens(db_path: str) -> list[str]:
    with sqlite3.connect(db_path) as db:
        return sorted(t for (t,) in db.execute("SELECT token FROM orders"))


def message_id(raw: bytes) -> str:
    return "".join(str(email.message_from_bytes(raw, policy=policy.default)["Message-ID"] or "").split())


def replies_per_mail(sink: SmtpSink) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in sink.messages:
        key = "".join(str(m.msg["In-Reply-To"] or "").split())
        out[key] = out.get(key, 0) + 1
    return out


def test_the_server_really_advertises_no_move(dovecot: Dovecot) -> None:
    before, after = caps(dovecot)
    assert "MOVE" not in before and "MOVE" not in after
    assert "IDLE" in after


async def test_orders_moved_by_copy_and_answered_once(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    sent = [f"c{i:02d}" for i in range(12)]
    raws = [order_mail(t) for t in sent]
    mail.append(raws)
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"processed_folder": PROCESSED, "batch_size": 5})
    async with running_daemon(cfg) as d:
        await until(lambda: mail.count(mailbox=PROCESSED) == 12, what="all moved")
        assert d.imap.use_move is False  # what the daemon saw after login
        late = order_mail("late")
        mail.append(late)  # while the daemon idles
        await until(lambda: mail.count(mailbox=PROCESSED) == 13, what="the late one moved")
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 13, what="13 replies")
        await asyncio.sleep(0.5)
    assert mail.count() == 0  # expunged, not merely \Deleted
    assert tokens(cfg["judge"]["db_path"]) == sorted(sent + ["late"])
    assert sorted(replies_per_mail(smtp_sink).values()) == [1] * 13
    # the copies in the folder are whole and not marked deleted
    kept = mail.messages(mailbox=PROCESSED)
    assert sorted(message_id(r) for *_, r in kept) == sorted(message_id(r) for r in raws + [late])
    assert not any(b"\\Deleted" in f for _, f, _ in kept)


async def test_commands_to_the_game_service_answered_once(mail: Dovecot, smtp_sink: SmtpSink,
                                                          workdir: Path) -> None:
    """The real service (judge.mail) behind the copy fallback: each command gets exactly one answer."""
    from judge.demo.robots import make_mail

    cfg = daemon_config(mail, smtp_sink, workdir, service="judge.mail:Judge",
                        judge={"options": {"code": "TEST", "password_cost": 10}},
                        imap={"processed_folder": PROCESSED})
    raws = [make_mail("master@example.test", "judge@example.test",
                      "CREATE ?nomove masterpw standard press=any", "new game"),
            make_mail("player@example.test", "judge@example.test", "HELP", "help"),
            make_mail("england@example.test", "judge@example.test", "LIST nomove", "list")]
    async with running_daemon(cfg) as d:
        for raw in raws:  # in this order: the game exists before it is listed
            mail.append(raw)
            await until(lambda: mail.count() == 0 and d.imap.stats.handled >= 1, what="taken out of the INBOX")
        await until(lambda: mail.count(mailbox=PROCESSED) == 3, what="all three in the processed folder")
        await smtp_sink.wait_for(lambda: all(replies_per_mail(smtp_sink).get(message_id(r)) for r in raws),
                                 what="every command answered")
        assert d.imap.stats.handled == 3
        await asyncio.sleep(1.0)  # time for a second answer, if any were to come
    per_mail = replies_per_mail(smtp_sink)
    assert [per_mail.get(message_id(r)) for r in raws] == [1, 1, 1]
    assert mail.count() == 0


def _interrupt(monkeypatch: pytest.MonkeyPatch, mail: Dovecot, step: str) -> list[str]:
    """Cut the daemon's IMAP connection (SIGKILL to its Dovecot session) once, just before the
    ``step`` of the COPY fallback reaches the server: what a crash or a dropped line does there."""
    real_uid, real_expunge = aioimaplib.IMAP4.uid, aioimaplib.IMAP4.expunge
    cut: list[str] = []

    def maybe_cut(name: str) -> None:
        if name == step and not cut:
            cut.append(name)
            mail.kill_imap_sessions()

    async def uid(self: Any, command: str, *criteria: str, **kw: Any) -> Any:
        if command.lower() == "store" and "Deleted" in " ".join(criteria):
            maybe_cut("store")
        elif command.lower() == "expunge":
            maybe_cut("expunge")
        return await real_uid(self, command, *criteria, **kw)

    async def expunge(self: Any, *args: Any, **kw: Any) -> Any:
        if not kw.get("by_uid"):  # UID EXPUNGE comes through uid() above
            maybe_cut("expunge")
        return await real_expunge(self, *args, **kw)

    monkeypatch.setattr(aioimaplib.IMAP4, "uid", uid)
    monkeypatch.setattr(aioimaplib.IMAP4, "expunge", expunge)
    return cut


@pytest.mark.parametrize("step", ["store", "expunge"], ids=["after-copy", "after-store"])
async def test_connection_cut_inside_the_fallback(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                  monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """Cut after the COPY (a copy in both folders, unflagged in the INBOX) or after the STORE (the
    INBOX copy \\Deleted but not expunged): the daemon reconnects, nothing is applied or answered
    twice, and the INBOX ends empty."""
    cut = _interrupt(monkeypatch, mail, step)
    sent = ["x1", "x2", "x3"]
    raws = [order_mail(t) for t in sent + ["after"]]
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"processed_folder": PROCESSED})
    async with running_daemon(cfg) as d:
        sessions = d.imap.stats.sessions
        mail.append(raws[:3])
        await until(lambda: bool(cut) and d.imap.stats.sessions > sessions, what="the cut and a new session")
        await until(lambda: mail.count() == 0, what="the INBOX emptied after the reconnect")
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 3, what="three replies")
        mail.append(raws[3])
        await until(lambda: d.imap.stats.handled == 4, what="later mail handled")
        await until(lambda: mail.count() == 0, what="and moved")
        await asyncio.sleep(0.5)
    assert tokens(cfg["judge"]["db_path"]) == sorted(sent + ["after"])
    assert sorted(replies_per_mail(smtp_sink).values()) == [1] * 4
    kept = {message_id(r) for *_, r in mail.messages(mailbox=PROCESSED)}
    assert kept == {message_id(r) for r in raws}  # none lost on the way


@pytest.mark.parametrize("left", ["copy", "deleted"])
async def test_restart_after_a_crash_between_copy_and_expunge(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                              left: str) -> None:
    """A daemon killed between the steps, then started again: the mailboxes as the crash left
    them (``copy``: the message in both folders; ``deleted``: also \\Deleted in the INBOX, not
    expunged). The restarted daemon answers nothing twice and leaves the INBOX empty."""
    raw = order_mail("r1")
    mail.append(raw)
    cfg = daemon_config(mail, smtp_sink, workdir, imap={"processed_folder": PROCESSED})
    async with running_daemon(cfg):
        await until(lambda: mail.count(mailbox=PROCESSED) == 1, what="handled and moved")
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 1, what="answered")
    # the INBOX copy as the crash left it (the daemon reads with PEEK: no \Seen before the STORE)
    mail.append(raw, flags=r"(\Seen \Deleted)" if left == "deleted" else None)
    async with running_daemon(cfg) as d:
        r2 = order_mail("r2")
        mail.append(r2)
        await until(lambda: d.imap.stats.handled == 1, what="the new mail handled")
        await until(lambda: mail.count() == 0, what="the INBOX emptied")
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, what="the new mail answered")
        await asyncio.sleep(0.5)
        assert d.imap.stats.duplicate == (1 if left == "copy" else 0)
    assert tokens(cfg["judge"]["db_path"]) == ["r1", "r2"]
    assert sorted(replies_per_mail(smtp_sink).values()) == [1, 1]
    kept = [message_id(r) for *_, r in mail.messages(mailbox=PROCESSED)]
    assert set(kept) == {message_id(raw), message_id(r2)}


@pytest.mark.parametrize("processed", [PROCESSED, ""], ids=["processed-folder", "seen-mode"])
async def test_poison_mail_set_aside_without_move(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path,
                                                  monkeypatch: pytest.MonkeyPatch, processed: str) -> None:
    from judge.daemon import imap_in

    monkeypatch.setattr(imap_in, "FAILED_RETRY", 0.2)
    mail.append([order_mail("ok1"), order_mail("bad", extra="RAISE-IN-SERVICE")])
    cfg = daemon_config(mail, smtp_sink, workdir,
                        imap={"poll_interval": 0.3, "idle": False, "processed_folder": processed})
    async with running_daemon(cfg) as d:
        await until(lambda: mail.count("ALL", mailbox="failed") == 1, what="the bad one set aside")
        assert d.imap.use_move is False
        mail.append(order_mail("ok2"))
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 2, what="later mail answered")
        await asyncio.sleep(1.0)
        assert d.imap.stats.errors == imap_in.MAX_RECEIVE_ERRORS  # not tried again
    [(_, flags, raw)] = mail.messages(mailbox="failed")
    assert b"RAISE-IN-SERVICE" in raw and b"\\Flagged" in flags and b"\\Deleted" not in flags
    left = mail.messages()
    if processed:
        assert left == [] and mail.count(mailbox=PROCESSED) == 2
    else:  # seen mode: the good ones stay, \Seen; the bad one is gone from the INBOX
        assert len(left) == 2 and all(b"\\Seen" in f and b"\\Deleted" not in f for _, f, _ in left)
    assert tokens(cfg["judge"]["db_path"]) == ["ok1", "ok2"]


async def test_receipt_copies_pruned_without_move(mail: Dovecot, smtp_sink: SmtpSink, workdir: Path) -> None:
    """The receipt pruner deletes from the processed folder with the same EXPUNGE as the fallback."""
    from email.message import EmailMessage

    old = EmailMessage()
    old["From"] = "Judge <judge@example.test>"
    old["To"] = "player@example.test"
    old["Subject"] = "an old reply"
    old["Message-ID"] = "<settled@example.test>"
    old["X-Judge-Loop"] = "judge@example.test"
    old.set_content("old\n")
    mail.append(old.as_bytes(policy=policy.SMTP), flags=r"(\Seen)")
    cfg = daemon_config(mail, smtp_sink, workdir, smtp={"receipt_to": "judge+receipts@example.test"},
                        imap={"receipt_keep_days": 0, "receipt_prune_interval": 1.0, "processed_folder": PROCESSED})
    async with running_daemon(cfg) as d:
        mail.append([order_mail(f"p{i}") for i in range(3)])
        await smtp_sink.wait_for(lambda: len(smtp_sink.messages) == 3, what="three replies")
        await until(lambda: d.imap.stats.receipts >= 4, what="the receipt copies seen and moved")
        await until(lambda: d.receipts.pruned >= 4, what="the copies pruned")
    assert mail.count() == 0
    kept = mail.messages(mailbox=PROCESSED)
    assert len(kept) == 3 and not any(b"X-Judge-Loop" in raw for *_, raw in kept)
