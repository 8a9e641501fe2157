"""Password checks remembered across a restart (``session_key_file``), through the real mail path.

A restart is a new Judge with the process's in-memory cache emptied, as a new process has it.
scrypt is counted (``passwords._scrypt_matches``) to see which sign-ons paid the full check.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from judge.game import passwords
from test_service_helpers import Table


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = passwords._scrypt_matches

    def counted(password: str, stored: str) -> bool:
        calls.append(stored)
        return real(password, stored)

    monkeypatch.setattr(passwords, "_scrypt_matches", counted)
    return calls


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "session_key"
    path.write_bytes(os.urandom(32))
    return path


@pytest.fixture
def keyed(tmp_path: Path, key_file: Path):
    """A started game on a judge that keeps sign-ons across restarts."""
    t = Table(tmp_path, session_key_file=str(key_file))
    t.start_game()
    yield t
    t.close()


def restart(t: Table) -> None:
    """The judge process ends and a new one starts: nothing in memory survives."""
    passwords._VERIFIED.clear()
    t.reopen()


def _ok(t: Table, power: str, orders: str) -> str:
    reply = t.reply_to(t.powers[power], t.order(power, orders))
    assert "Error Flag" not in reply.subject, reply.body
    return reply.body


def test_after_a_restart_a_known_player_signs_on_without_a_full_check(tmp_path: Path, keyed: Table,
                                                                      scrypt_calls: list[str]) -> None:
    t = keyed
    _ok(t, "England", "F Lon - Nth")
    restart(t)
    scrypt_calls.clear()
    _ok(t, "England", "F Lon - Eng")
    _ok(t, "France", "A Par - Bur")  # signed on when joining, within the last day
    assert scrypt_calls == []
    # a wrong password after the restart: the full check, and refused
    out = t.send(t.powers["Italy"], "SIGNON Itg wrongpw\nA Ven - Tyr")
    assert "Error Flag" in t.reply_to(t.powers["Italy"], out).subject
    assert len(scrypt_calls) == 1
    t.close()
    # the file holds neither the passwords nor their hashes, and only its owner may read it
    path = tmp_path / "judge.sessions.sqlite"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("judge.sessions.sqlite*"))
    with sqlite3.connect(tmp_path / "judge.sqlite") as conn:
        hashes = [h for (h,) in conn.execute("SELECT password_hash FROM seats WHERE password_hash IS NOT NULL")]
    assert hashes and not any(h.encode() in raw or h.split("$")[-1].encode() in raw for h in hashes)
    assert not any(f"pw{i}".encode() in raw for i in range(7))


def test_a_changed_password_is_not_remembered_in_its_old_form(keyed: Table, scrypt_calls: list[str]) -> None:
    t = keyed
    _ok(t, "Germany", "A Mun - Ruh")
    addr = t.powers["Germany"]
    old = t.passwords[addr]
    _ok(t, "Germany", "SET PASSWORD newpw")
    t.passwords[addr] = "newpw"
    restart(t)
    out = t.send(addr, f"SIGNON Gtg {old}\nA Mun - Bur")  # the old password, remembered before the change
    assert "Error Flag" in t.reply_to(addr, out).subject
    scrypt_calls.clear()
    _ok(t, "Germany", "A Mun - Bur")  # the new one was remembered when it was set
    _ok(t, "Germany", "A Mun - Sil")
    assert scrypt_calls == []


def test_an_expired_or_foreign_session_gets_the_full_check(tmp_path: Path, key_file: Path,
                                                          scrypt_calls: list[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    t = Table(tmp_path, session_key_file=str(key_file), session_hours=1)
    try:
        t.start_game()
        _ok(t, "Russia", "A Mos - Ukr")
        # more than session_hours later (the file's clock is the real one)
        real_time = passwords.time.time
        monkeypatch.setattr(passwords.time, "time", lambda: real_time() + 3601)
        restart(t)
        scrypt_calls.clear()
        _ok(t, "Russia", "A Mos - Sev")
        assert len(scrypt_calls) == 1
        monkeypatch.setattr(passwords.time, "time", real_time)
        # another secret (the key was replaced): the old rows prove nothing
        key_file.write_bytes(os.urandom(32))
        restart(t)
        scrypt_calls.clear()
        _ok(t, "Russia", "A Mos - Stp")
        assert len(scrypt_calls) == 1
    finally:
        t.close()


def test_without_a_session_key_nothing_outlives_the_process(tmp_path: Path, scrypt_calls: list[str]) -> None:
    t = Table(tmp_path)
    try:
        t.start_game()
        _ok(t, "Turkey", "A Con - Bul")
        restart(t)
        scrypt_calls.clear()
        _ok(t, "Turkey", "A Con - Bul")
        assert len(scrypt_calls) == 1
        assert not list(tmp_path.glob("judge.sessions*"))
    finally:
        t.close()


def test_a_short_session_key_is_refused(tmp_path: Path) -> None:
    short = tmp_path / "k"
    short.write_bytes(b"tooshort")
    with pytest.raises(passwords.PasswordError, match="at least 16 bytes"):
        passwords.read_session_key(short)
    with pytest.raises(passwords.PasswordError, match="session_key_file"):
        passwords.read_session_key(tmp_path / "missing")
    # a credential name is looked up in $CREDENTIALS_DIRECTORY
    (tmp_path / "session_key").write_bytes(b"k" * 32)
    os.environ["CREDENTIALS_DIRECTORY"] = str(tmp_path)
    try:
        assert passwords.read_session_key("session_key") == b"k" * 32
    finally:
        del os.environ["CREDENTIALS_DIRECTORY"]


def test_session_hours_must_be_sensible(tmp_path: Path) -> None:
    from judge.game.config import JudgeConfig

    for bad in (0, -1, 10_000, True, "24"):
        with pytest.raises(ValueError, match="session_hours"):
            JudgeConfig(db_path=tmp_path / "j.sqlite", session_hours=bad)
    assert JudgeConfig(db_path=tmp_path / "j.sqlite").sessions_path == tmp_path / "j.sessions.sqlite"
    assert timedelta(hours=JudgeConfig().session_hours) == timedelta(days=1)
