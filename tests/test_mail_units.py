"""The daemon's pure parts: IMAP response parsing, headers, addresses, config, time. No servers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from judge.daemon.aio import Backoff
from judge.daemon.config import ConfigError, load_config, parse_config
from judge.daemon.imap_in import parse_fetch_literals, parse_search, parse_sizes, receipt_message_id
from judge.daemon.scheduler import seconds_until
from judge.daemon.smtp_out import valid_address, with_date_and_id

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lines, uids", [
    ([b"", b"Search completed (0.001 + 0.000 secs)."], []),      # Dovecot, nothing found
    ([b"SEARCH completed"], []),                                   # no untagged line at all
    ([b"3 5 8", b"Search completed"], [3, 5, 8]),
    ([b"4 EXISTS", b"1 RECENT", b"9 10", b"Search completed"], [9, 10]),  # pushes mixed in
    ([b"SEARCH 7", b"done"], [7]),
])
def test_parse_search(lines: list[bytes], uids: list[int]) -> None:
    assert parse_search(lines) == uids


def test_parse_fetch_literals_uid_before_or_after() -> None:
    lines = [b"1 FETCH (UID 11 BODY[] {3}", bytearray(b"abc"), b")",
             b"2 FETCH (BODY[] {2}", bytearray(b"de"), b" UID 12)",
             b"3 FETCH (FLAGS (\\Seen))", b"Fetch completed"]
    assert parse_fetch_literals(lines) == {11: b"abc", 12: b"de"}


def test_parse_sizes() -> None:
    assert parse_sizes([b"1 FETCH (UID 4 RFC822.SIZE 120)", b"2 FETCH (RFC822.SIZE 99 UID 5)", b"ok"]) == {
        4: 120, 5: 99}


def _judge_section():
    return parse_config(_table()).judge


def _table(**over: dict) -> dict:
    t = {"judge": {"address": "judge@example.test", "db_path": "/tmp/x.sqlite"},
         "imap": {"host": "imap.example.test", "user": "judge", "password": "pw"},
         "smtp": {"host": "smtp.example.test"}}
    for k, v in over.items():
        t.setdefault(k, {}).update(v)
    return t


def test_receipt_recognised_only_for_our_own_mail() -> None:
    j = _judge_section()
    ours = b"From: Judge <judge@example.test>\r\nX-Judge-Loop: judge@example.test\r\nMessage-ID: <a@b>\r\n\r\nx"
    assert receipt_message_id(ours, j) == "<a@b>"
    assert receipt_message_id(ours.replace(b"X-Judge-Loop", b"X-Other"), j) is None
    assert receipt_message_id(ours.replace(b"Judge <judge@", b"<player@"), j) is None
    assert receipt_message_id(b"\xff\xfe junk without headers", j) is None


def test_date_and_message_id_added_only_when_missing() -> None:
    bare = b"From: a@b.test\r\nSubject: x\r\n\r\nbody\r\n"
    out, mid = with_date_and_id(bare, "<id@x>")
    assert out.startswith(b"Date: ") and b"\r\nMessage-ID: <id@x>\r\n" in out and out.endswith(bare)
    assert mid == "<id@x>"
    full = b"Date: Mon, 1 Jan 2024 00:00:00 +0000\nMessage-ID: <keep@x>\n\nbody\n"
    assert with_date_and_id(full, "<other@x>") == (full, "<keep@x>")


@pytest.mark.parametrize("addr, ok", [
    ("player@example.test", True), ("a.b+c@sub.example.test", True),
    ("victim@example.test\r\nRCPT TO:<evil@x>", False), ("a b@example.test", False),
    ("<a@example.test>", False), ("no-at-sign", False), ("a@b@c", False), ("x@" + "a" * 260, False),
])
def test_valid_address(addr: str, ok: bool) -> None:
    assert valid_address(addr) is ok


def test_config_secrets_from_env_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IMAP_PW", "from-env")
    (tmp_path / "smtp.secret").write_text("from-file\nignored\n")
    cfg = parse_config(_table(imap={"password": None}, smtp={"user": "u", "password_file": str(tmp_path / "smtp.secret")})
                       | {"imap": {"host": "h", "user": "u", "password_env": "IMAP_PW"}})
    assert (cfg.imap.password, cfg.smtp.password) == ("from-env", "from-file")
    assert "from-env" not in repr(cfg)  # secrets stay out of logs
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    cfg = parse_config(_table(smtp={"user": "u", "password_file": "smtp.secret"}))
    assert cfg.smtp.password == "from-file"


@pytest.mark.parametrize("over, message", [
    ({"imap": {"password_env": "SURELY_NOT_SET_ANYWHERE"}}, "not set"),
    ({"imap": {"tls": "starttls"}}, "imap.tls"),
    ({"smtp": {"colour": "blue"}}, "unknown key"),
    ({"judge": {"address": "nobody"}}, "not an email address"),
    ({"imap": {"batch_size": 1000}}, "batch_size"),
])
def test_config_errors(over: dict, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    t = _table(**over)
    if "password_env" in t["imap"]:
        del t["imap"]["password"]
    with pytest.raises(ConfigError, match=message):
        parse_config(t)


def test_example_config_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # its passwords are systemd credentials (LoadCredential=), read from $CREDENTIALS_DIRECTORY
    (tmp_path / "imap_password").write_text("x\n")
    (tmp_path / "smtp_password").write_text("y\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    cfg = load_config(REPO / "deploy" / "judge.toml")
    assert cfg.imap.tls == "tls" and cfg.smtp.tls == "starttls"
    assert (cfg.imap.password, cfg.smtp.password) == ("x", "y")


def test_seconds_until() -> None:
    now = 1_700_000_000.0
    aware = datetime.fromtimestamp(now, timezone.utc) + timedelta(seconds=90)
    assert seconds_until(aware, now) == pytest.approx(90)
    assert seconds_until(aware.replace(tzinfo=None), now) == pytest.approx(90)  # naive = UTC
    assert seconds_until(now - 5, now) == pytest.approx(-5)
    assert seconds_until(aware.isoformat(), now) == pytest.approx(90)
    assert seconds_until(None, now) is None


def test_backoff_grows_and_caps() -> None:
    b = Backoff(1.0, 8.0)
    delays = [b.next() for _ in range(8)]
    assert all(0.5 <= d <= 8.0 for d in delays) and max(delays[4:]) > 2.0
    b.reset()
    assert b.next() <= 1.0
