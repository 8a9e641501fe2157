"""Mail in and the command language, piece by piece; the CLI transports; the demo."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judge.cli import main
from judge.mail.language import parse_commands
from judge.game.deadlines import TimeError, format_left, parse_duration
from judge.mail.incoming import clean_subject, parse_message
from judge.game.passwords import hash_password, verify_password
from judge.demo.robots import make_mail

import pytest


def test_subject_cleaning() -> None:
    assert clean_subject("Re: RE: Fwd: [Error Flag] TEST:tg - S1901M orders") == "TEST:tg - S1901M orders"
    assert clean_subject("AW: [You are late!] hi") == "hi"


def test_parse_plain_mail_strips_signature_and_quotes() -> None:
    raw = make_mail("Bob <Bob@Example.TEST>", "judge@example.test",
                    "SIGNON Etg pw\nA Lvp - Yor\n\n-- \nBob\nA Lon - Wal\n", subject="Re: orders")
    m = parse_message(raw, "judge@example.test")
    assert m.sender == "bob@example.test" and m.reply_to == ["bob@example.test"]
    assert m.ignore is None and m.error is None
    assert "A Lvp - Yor" in m.text and "Wal" not in m.text and "Bob" not in m.text
    assert m.subject == "orders"


def test_reply_to_wins_and_base64_is_decoded() -> None:
    raw = (b"From: a@example.test\r\nReply-To: b@example.test\r\nMessage-ID: <b64@x>\r\n"
           b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: base64\r\n\r\n"
           b"TElTVCDpdOk=\r\n")
    m = parse_message(raw)
    assert m.reply_to == ["b@example.test"]
    assert m.text.strip() == "LIST \u00e9t\u00e9"


def test_multipart_prefers_plain_text() -> None:
    raw = (b"From: a@example.test\r\nMessage-ID: <mp@x>\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: multipart/alternative; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\n"
           b"HELP\r\n--XX\r\nContent-Type: text/html\r\n\r\n<p>LIST</p>\r\n--XX--\r\n")
    assert parse_message(raw).text.strip() == "HELP"


def test_no_text_part_is_a_clear_error() -> None:
    raw = (b"From: a@example.test\r\nMessage-ID: <img@x>\r\nContent-Type: image/png\r\n"
           b"Content-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n")
    m = parse_message(raw)
    assert m.error and "no text part" in m.error


def test_missing_message_id_gets_a_stable_one() -> None:
    raw = b"From: a@example.test\r\nSubject: x\r\n\r\nHELP\r\n"
    assert parse_message(raw).message_id == parse_message(raw).message_id


def test_commands_and_press_blocks() -> None:
    cmds = parse_commands("sign on Etg pw\nF Lon - Nth\npress to FG grey\nhello\n  there\nendpress\n"
                          "set wait\nBROADCAST\nto all\nSIGNOFF\nA Lvp - Yor")
    assert [c.name for c in cmds] == ["SIGNON", "ORDER", "PRESS", "SET", "BROADCAST", "SIGNOFF"]
    assert cmds[0].args == ["Etg", "pw"]
    assert cmds[2].args == ["to", "FG", "grey"] and cmds[2].body == "hello\n  there" and cmds[2].closed
    assert cmds[4].body == "to all" and not cmds[4].closed
    assert [c.name for c in parse_commands("Hello judge, please sign me up.\nHELLO ?tg pw")] == ["ORDER", "SIGNON"]


def test_durations_and_passwords() -> None:
    assert parse_duration("48") == 48 and parse_duration("2d") == 48 and parse_duration("90m") == 1.5
    with pytest.raises(TimeError):
        parse_duration("soon")
    from datetime import timedelta
    assert format_left(timedelta(days=4, hours=23, minutes=30)) == "4 days, 23 hours, 30 minutes"
    h = hash_password("s3cret", cost=4)
    assert verify_password("s3cret", h) and not verify_password("s3cret ", h)
    assert not verify_password("x", "not-a-hash") and not verify_password("x", None)


def test_serve_once_and_deliver_and_status(tmp_path: Path) -> None:
    import mailbox

    root = tmp_path / "md"
    mailbox.Maildir(str(tmp_path / "md"), create=True)
    (root / "inbox").parent.mkdir(exist_ok=True)
    inbox = mailbox.Maildir(str(root / "inbox"), create=True)
    inbox.add(make_mail("a@example.test", "judge@localhost", "HELP", message_id="<cli-1@x>"))
    runner = CliRunner()
    r = runner.invoke(main, ["serve", "--maildir", str(root), "--once"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.strip().splitlines()[-1])["handled"] == 1
    assert len(list((root / "outbox" / "new").iterdir())) == 1
    assert len(list((root / "processed" / "cur").iterdir())) == 1
    db = str(root / "judge.sqlite")
    raw = make_mail("b@example.test", "judge@localhost", "CREATE ?pipe pw", message_id="<cli-2@x>")
    r = runner.invoke(main, ["deliver", "--db", db, "--outbox-maildir", str(tmp_path / "out")], input=raw)
    assert r.exit_code == 0 and "handled" in r.output
    r = runner.invoke(main, ["deliver", "--db", db], input=raw)
    assert r.exit_code == 0 and "duplicate" in r.output
    r = runner.invoke(main, ["game", "list", "--db", db])
    assert "pipe" in r.output and "forming" in r.output
    r = runner.invoke(main, ["game", "create", "cons", "--password", "pw", "--master", "m@example.test", "--db", db,
                             "--option", "press=grey"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["game", "process", "cons", "--db", db])
    assert "started" in r.output
    r = runner.invoke(main, ["game", "show", "cons", "--db", db])
    assert json.loads(r.output)["phase"] == "Spring 1901 Movement"
    r = runner.invoke(main, ["game", "rollback", "cons", "--db", db])
    assert r.exit_code != 0 and "nothing to roll back" in r.output
    r = runner.invoke(main, ["status", "--db", db])
    st = json.loads(r.output)
    assert st["games"] == {"forming": 1, "active": 1} and st["next_wakeup"]


def test_demo_plays_a_whole_game(tmp_path: Path) -> None:
    from judge.demo import run_demo

    summary = run_demo(tmp_path / "demo-out", seed=2, max_years=3)
    assert summary.startswith("Demo finished: ")
    assert "victory" in summary or "draw" in summary
    reports = sorted(p.name for p in (tmp_path / "demo-out" / "reports").iterdir())
    assert reports[0] == "001-S1901M-Results.txt"
    assert any("Late-Notice" in r for r in reports)
    assert "summary-and-history.txt" in reports


def test_maildir_inbox_is_read_in_arrival_order(tmp_path: Path) -> None:
    from judge.mail.maildir import incoming

    new = tmp_path / "new"
    new.mkdir()
    names = ["1700000000.M96215P7Q1.host", "1700000000.M104522P7Q2.host", "1700000001.M5P7Q3.host"]
    for n in reversed(names):
        (new / n).write_text("x")
    assert [p.name for p in incoming(tmp_path)] == names  # microseconds are not zero-padded
