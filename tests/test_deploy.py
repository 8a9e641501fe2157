"""deploy/: the systemd unit a sysadmin accepts, and the exit status it relies on.

``systemd-analyze security`` rates the unit file itself (``--offline=true``: no running systemd
needed); the unit's passwords are credentials named by the example configuration; every kind of
bad configuration makes the daemon exit 2, the status on which the unit stops restarting.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from judge.daemon.config import load_config
from judge.game.passwords import read_session_key
from judge.game.store import SCHEMA_VERSION, Store

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "deploy" / "judge.service"
EXAMPLE = ROOT / "deploy" / "judge.toml"
EXEC = "/opt/judge/venv/bin/judge"


def _unit_settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def _local_unit(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at this environment's judge (verify checks that it exists)."""
    exe = shutil.which("judge") or "/bin/true"
    path = tmp_path / "judge.service"
    path.write_text(UNIT.read_text().replace(EXEC, exe))
    return path


def _analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd; .ci/run installs it)")
    return tool


def test_unit_security_exposure_is_at_most_2(tmp_path: Path) -> None:
    tool = _analyze()
    unit = _local_unit(tmp_path)
    out = subprocess.run([tool, "security", "--offline=true", "--no-pager", str(unit)], capture_output=True,
                         text=True, timeout=120)
    found = re.search(r"Overall exposure level for judge\.service: (\d+\.\d+)", out.stdout)
    assert found, (out.returncode, out.stdout[-2000:], out.stderr)
    assert float(found.group(1)) <= 2.0, out.stdout
    # the same bound as systemd checks it (exposure x 10): a CI gate in one command
    gate = subprocess.run([tool, "security", "--offline=true", "--threshold=20", "--no-pager", str(unit)],
                          capture_output=True, text=True, timeout=120)
    assert gate.returncode == 0, gate.stdout[-2000:]
    # what the rating rests on, checked by name so a lost line is named
    for item in ("CapabilityBoundingSet=~CAP_SYS_ADMIN", "PrivateUsers=", "ProtectKernelLogs=", "ProtectClock=",
                 "ProtectHostname=", "ProtectProc=", "RestrictNamespaces=~user", "RestrictRealtime=",
                 "RestrictSUIDSGID=", "LockPersonality=", "SystemCallArchitectures=", "RemoveIPC=",
                 "NoNewPrivileges="):
        line = next((l for l in out.stdout.splitlines() if item in l), "")
        assert line.lstrip().startswith("✓"), (item, line)


def test_unit_runs_the_venv_judge_and_stops_restarting_on_a_bad_config() -> None:
    s = _unit_settings()
    assert s["ExecStart"] == [f"{EXEC} serve --config /etc/judge/judge.toml"]
    assert s["Restart"] == ["always"] and s["RestartPreventExitStatus"] == ["2"]
    assert s["CapabilityBoundingSet"] == [""] and s["AmbientCapabilities"] == [""]
    assert "EnvironmentFile" not in s  # no secrets in the environment (it is inherited and logged)
    assert s["SystemCallFilter"] == ["@system-service"] and s["SystemCallArchitectures"] == ["native"]


def test_unit_credentials_are_the_passwords_the_example_config_reads(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    creds = dict(v.split(":", 1) for v in _unit_settings()["LoadCredential"])
    assert set(creds) == {"imap_password", "smtp_password", "session_key"}
    assert all(p.startswith("/etc/judge/") for p in creds.values())
    # what systemd does: each credential a file in $CREDENTIALS_DIRECTORY, named as in the unit
    (tmp_path / "imap_password").write_text("imap secret\n")
    (tmp_path / "smtp_password").write_text("smtp secret")
    (tmp_path / "session_key").write_bytes(b"s" * 32)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    cfg = load_config(EXAMPLE)
    assert (cfg.imap.password, cfg.smtp.password) == ("imap secret", "smtp secret")
    assert cfg.judge.options["session_key_file"] == "session_key"
    assert read_session_key(cfg.judge.options["session_key_file"]) == b"s" * 32


# -- exit 2: the configuration must be fixed ---------------------------------------------------------
CONFIG = """[judge]
address = "judge@example.test"
db_path = "{db}"
{options}
[imap]
host = "127.0.0.1"
port = 9
tls = "none"
user = "judge"
password_file = "imap_password"
[smtp]
host = "127.0.0.1"
port = 9
tls = "none"
"""


def _serve(tmp_path: Path, text: str, creds: bool = True) -> subprocess.CompletedProcess:
    config = tmp_path / "judge.toml"
    config.write_text(text)
    (tmp_path / "creds").mkdir(exist_ok=True)
    if creds:
        (tmp_path / "creds" / "imap_password").write_text("pw\n")
    env = {**os.environ, "CREDENTIALS_DIRECTORY": str(tmp_path / "creds"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--config", str(config)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", ["toml", "option", "credential", "session key", "store", "newer store"])
def test_a_bad_configuration_exits_2_with_the_reason(tmp_path: Path, case: str) -> None:
    db = tmp_path / "judge.sqlite"
    Store(db).close()
    text, creds, reason = CONFIG.format(db=db, options=""), True, ""
    if case == "toml":
        text, reason = text.replace('port = 9\ntls = "none"\nuser', 'port = 9\ntls = none\nuser', 1), "Invalid value"
    elif case == "option":
        text, reason = CONFIG.format(db=db, options="[judge.options]\nno_such_setting = 1"), "no_such_setting"
    elif case == "credential":
        creds, reason = False, "imap_password"
    elif case == "session key":
        text, reason = CONFIG.format(db=db, options='[judge.options]\nsession_key_file = "session_key"'), "session_key"
    elif case == "store":
        text, reason = CONFIG.format(db=tmp_path / "typo.sqlite", options=""), "no judge database"
    else:
        with sqlite3.connect(db) as conn:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        reason = "newer than this program"
    out = _serve(tmp_path, text, creds)
    assert out.returncode == 2, (case, out.returncode, out.stderr[-2000:])
    assert reason in out.stderr and "Traceback" not in out.stderr, out.stderr
