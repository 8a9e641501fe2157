"""The console commands as a games master uses them: `judge init`, `judge game …`, `judge status`
and `judge deliver` read the daemon's config (no passwords needed), refuse a missing store instead
of starting an empty one, and the store is private (0600, WAL/SHM too, owned like its folder).
The systemd unit passes `systemd-analyze verify`. All through the real CLI in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

JUDGE = "judge@example.test"


def judge_cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None,
              extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(extra_env or {})
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], input=stdin, capture_output=True, timeout=120,
                          env=env, cwd=cwd)


def write_toml(path: Path, db: Path, code: str = "CFG") -> Path:
    path.write_text(f"""
[judge]
address = "{JUDGE}"
name = "Config Judge"
db_path = "{db.name}"
[judge.options]
code = "{code}"
password_cost = 10
[imap]
host = "127.0.0.1"
user = "{JUDGE}"
password_env = "JUDGE_IMAP_PASSWORD_NOT_SET"
[smtp]
host = "127.0.0.1"
user = "{JUDGE}"
password_file = "/nonexistent/secret"
""", encoding="utf-8")
    return path


def test_a_missing_store_is_an_error_not_a_new_empty_judge(tmp_path: Path) -> None:
    db = tmp_path / "typo.sqlite"
    for args in (["game", "list"], ["game", "show", "g"], ["game", "process", "g"], ["game", "rollback", "g"],
                 ["game", "create", "g", "--password", "pw", "--master", "m@example.test"], ["status"],
                 ["serve", "--sendmail", "true", "--once"]):
        out = judge_cli(*args, "--db", str(db))
        assert out.returncode == 1, (args, out)
        assert f"no judge database at {db}".encode() in out.stderr, (args, out.stderr)
        assert b"judge init" in out.stderr
        assert not db.exists(), args
    toml = write_toml(tmp_path / "judge.toml", db)
    for args in (["status", "--config", str(toml)], ["game", "list", "--config", str(toml)]):
        out = judge_cli(*args)
        assert out.returncode == 1 and b"no judge database at" in out.stderr, (args, out)
    toml.write_text(toml.read_text().replace('password_file = "/nonexistent/secret"', 'password = "x"'))
    # the daemon (which does need its passwords) refuses to start on it
    out = judge_cli("serve", "--config", str(toml), extra_env={"JUDGE_IMAP_PASSWORD_NOT_SET": "x"})
    assert out.returncode == 2 and b"judge init --config" in out.stderr, out
    assert not db.exists()


def test_game_and_status_and_deliver_read_the_daemon_config_without_passwords(tmp_path: Path) -> None:
    from judge.demo.robots import make_mail

    db = tmp_path / "judge.sqlite"
    toml = write_toml(tmp_path / "judge.toml", db)
    out = judge_cli("init", "--config", str(toml))
    assert out.returncode == 0 and b"created" in out.stdout, out
    out = judge_cli("game", "create", "cfg", "--password", "pw", "--master", "m@example.test", "--config", str(toml))
    assert out.returncode == 0, out.stderr
    out = judge_cli("game", "list", "--config", str(toml), cwd=tmp_path.parent)  # db_path relative to the file
    assert out.returncode == 0 and b"cfg" in out.stdout, out
    out = judge_cli("deliver", "--config", str(toml), stdin=make_mail("p@example.test", JUDGE, "SIGNON ?cfg pw1", "join"))
    assert out.returncode == 0 and out.stdout.strip() == b"handled", out
    out = judge_cli("status", "--config", str(toml))
    assert out.returncode == 0, out.stderr
    st = json.loads(out.stdout)
    assert st["db"] == str(db) and st["games"] == {"forming": 1} and st["outbox"]["pending"] >= 1
    assert st["mail"]["note"] == "the daemon has not run yet"
    import sqlite3

    with sqlite3.connect(db) as conn:
        (message,) = conn.execute("SELECT message FROM outbox WHERE recipients LIKE '%p@example.test%'").fetchone()
    from email import message_from_bytes, policy

    reply = message_from_bytes(message, policy=policy.default)
    assert str(reply["From"]) == f"Config Judge <{JUDGE}>"  # name and address from [judge]
    assert "CFG:cfg" in str(reply["Subject"]), reply["Subject"]  # the code from [judge.options]


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_init_makes_a_private_store_owned_like_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "var-lib-judge"
    folder.mkdir()
    if os.geteuid() == 0:
        os.chown(folder, 65534, 65534)  # the service user's folder; root runs `judge init` in it
    db = folder / "judge.sqlite"
    out = judge_cli("init", "--db", str(db))
    assert out.returncode == 0, out.stderr
    # open it as the daemon does, so the WAL and shared-memory files exist
    from judge.game.store import Store

    s = Store(db)
    s.conn.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    try:
        for f in files:
            assert f.exists() and mode(f) == 0o600, (f, oct(mode(f)))
            if os.geteuid() == 0:
                assert (f.stat().st_uid, f.stat().st_gid) == (65534, 65534), f
    finally:
        s.close()
    out = judge_cli("init", "--db", str(db))
    assert out.returncode == 0 and b"checked" in out.stdout


def test_systemd_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd; .ci/run installs it)")
    unit = (Path(__file__).resolve().parent.parent / "deploy" / "judge.service").read_text()
    assert "ExecStart=/opt/judge/venv/bin/judge " in unit
    # verify checks that ExecStart's program exists: point it at this environment's `judge`
    exe = shutil.which("judge") or "/bin/true"
    (tmp_path / "judge.service").write_text(unit.replace("/opt/judge/venv/bin/judge", exe))
    out = subprocess.run([tool, "verify", str(tmp_path / "judge.service")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    # warnings (an unknown key, a key in the wrong section) exit 0 too: there must be none
    assert out.stderr.strip() == "", out.stderr
