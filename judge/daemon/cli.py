"""The mail daemon's command-line pieces: ``judge serve --config`` and ``judge status --config`` call
these, and ``python -m judge.daemon --config`` runs ``daemon_command`` directly."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import click

from judge.daemon.config import ConfigError, DaemonConfig, load_config
from judge.game.store import describe_cause, transient_cause


def run_daemon(config_path: str) -> None:
    """Load the config, set up logging and serve until SIGTERM/SIGINT; exit 2 on a bad config."""
    from judge.daemon.logs import setup_logging
    from judge.daemon.runner import serve
    from judge.daemon.service import Factory
    from judge.game.passwords import PasswordError, read_session_key
    from judge.game.store import SCHEMA_VERSION, schema_version

    # exit 2 means "fix the configuration": the unit does not restart on it (RestartPreventExitStatus)
    try:
        cfg = load_config(config_path)
        service_cfg = Factory(cfg.judge).check()
        if getattr(service_cfg, "session_key_file", ""):
            read_session_key(service_cfg.session_key_file)
    except (ConfigError, PasswordError) as exc:
        click.echo(f"judge: {exc}", err=True)
        sys.exit(2)
    except (TypeError, ValueError) as exc:  # an unknown key in [judge.options], a limit out of range
        click.echo(f"judge: {config_path}: [judge.options]: {exc}", err=True)
        sys.exit(2)
    if not Path(cfg.judge.db_path).is_file():
        # a wrong db_path must not start an empty judge that tells every player "no such game"
        click.echo(f"judge: no judge database at {cfg.judge.db_path} (db_path in {config_path}); "
                   f"create it with `judge init --config {config_path}`", err=True)
        sys.exit(2)
    if schema_version(cfg.judge.db_path) > SCHEMA_VERSION:  # an older program on a newer store
        click.echo(f"judge: {cfg.judge.db_path} has schema {schema_version(cfg.judge.db_path)}, newer than "
                   f"this program's ({SCHEMA_VERSION}); install the judge that wrote it, or go back to "
                   f"the backup made before that upgrade", err=True)
        sys.exit(2)
    setup_logging(cfg.log.level, cfg.log.format, cfg.log.file)
    serve(cfg)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, belongs to another user (the service user)
        return True
    return True


def mail_status(config_path: str, cfg: DaemonConfig | None = None) -> dict[str, Any]:
    """What the daemon last recorded: pid (and whether it still runs), IMAP contact and errors,
    SMTP state, next deadline, held deadlines, interrupted sends."""
    from judge.daemon.state import read_status

    cfg = cfg or load_config(config_path, secrets=False)
    path = cfg.judge.resolved_state_path
    if not Path(path).exists():
        return {"state_file": path, "note": "the daemon has not run yet"}
    raw = read_status(path)
    now = time.time()
    out: dict[str, Any] = {"state_file": path, "smtp_in_doubt": raw.pop("smtp_in_doubt")}
    for key, entry in sorted(raw.items()):
        value = entry["value"]
        if key in ("imap_last_contact", "imap_read_through", "smtp_last_ok", "started", "stopped",
                   "scheduler_next") and value:
            t = float(value)
            ago = f"{now - t:.0f}s ago" if now >= t else f"in {t - now:.0f}s"
            value = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) + f" ({ago})"
        elif key.endswith(("_error", "_crashed")) and value:
            value = f"{value} (at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(entry['updated']))})"
        out[key] = value
    pid = raw.get("pid", {}).get("value")
    if pid:
        stopped = float(raw.get("stopped", {}).get("value") or 0)
        started = float(raw.get("started", {}).get("value") or 0)
        if stopped >= started:
            out["daemon"] = f"stopped (pid {pid} exited cleanly)"
        elif pid_alive(int(pid)):
            out["daemon"] = f"running (pid {pid})"
            problems = current_problems(raw, started)
            if problems:
                out["daemon"] += ", in trouble: " + "; ".join(problems)
        else:
            out["daemon"] = f"not running: pid {pid} is dead (killed or crashed; no clean stop recorded)"
    return out


def current_problems(raw: dict[str, Any], started: float) -> list[str]:
    """What is wrong now, as the running daemon last recorded it: a store it cannot write, a
    deadline held, a server it cannot use (an error newer than the last success), a runner that
    crashed since the start."""
    def value(key: str) -> str:
        return str(raw.get(key, {}).get("value") or "")

    def updated(key: str) -> float:
        return float(raw.get(key, {}).get("updated") or 0.0)

    out = []
    for key, label in (("store_error", "store"), ("scheduler_hold", "deadline held"),
                       ("scheduler_last_error", "deadlines")):
        if value(key):
            out.append(f"{label}: {value(key)}")
    for key, ok, label in (("imap_last_error", "imap_last_contact", "IMAP"), ("smtp_last_error", "smtp_last_ok", "SMTP")):
        if value(key) and updated(key) >= max(updated(ok), started):
            out.append(f"{label}: {value(key)}")
    for key in sorted(k for k in raw if k.endswith("_crashed")):
        if value(key) and updated(key) >= started:
            out.append(f"{key.removesuffix('_crashed')} runner crashed: {value(key)}")
    return out


def status_with_mail(config_path: str) -> dict[str, Any]:
    """``judge status --config``: the service's queues and deadlines plus the daemon's view.
    Reads no password: it works without the daemon's secrets."""
    from judge.daemon.service import Factory
    from judge.game.store import SchemaMismatch

    try:
        cfg = load_config(config_path, secrets=False)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if not Path(cfg.judge.db_path).is_file():
        raise click.ClickException(f"no judge database at {cfg.judge.db_path} (db_path in {config_path})")
    try:
        try:
            judge = Factory(cfg.judge)(readonly=True)  # a look never migrates the store
        except SchemaMismatch as exc:
            raise click.ClickException(str(exc)) from None
        try:
            out = dict(judge.status())
        finally:
            if hasattr(judge, "close"):
                judge.close()
    except sqlite3.Error as exc:  # the daemon's view is wanted all the more when the store is locked
        cause = transient_cause(exc)
        if cause is None:
            raise
        out = {"db": cfg.judge.db_path, "store_error": f"{describe_cause(cause, cfg.judge.db_path)}: {exc}"}
    out["mail"] = mail_status(config_path, cfg)
    return out


@click.command("daemon")
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False, exists=True),
              help="Daemon configuration (TOML); see deploy/judge.toml.")
@click.option("--status", "show_status", is_flag=True, help="Print what the daemon last recorded and exit.")
def daemon_command(config_path: str, show_status: bool) -> None:
    """Run the IMAP/SMTP mail daemon (until SIGTERM/SIGINT)."""
    if show_status:
        click.echo(json.dumps(mail_status(config_path), indent=2))
        return
    run_daemon(config_path)
