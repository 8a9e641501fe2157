"""The mail daemon's command-line pieces: ``judge serve --config`` and ``judge status --config`` call
these, and ``python -m judge.daemon --config`` runs ``daemon_command`` directly."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from judge.daemon.config import ConfigError, load_config


def run_daemon(config_path: str) -> None:
    """Load the config, set up logging and serve until SIGTERM/SIGINT; exit 2 on a bad config."""
    from judge.daemon.logs import setup_logging
    from judge.daemon.runner import serve

    try:
        cfg = load_config(config_path)
    except ConfigError as exc:
        click.echo(f"judge: {exc}", err=True)
        sys.exit(2)
    setup_logging(cfg.log.level, cfg.log.format, cfg.log.file)
    serve(cfg)


def mail_status(config_path: str) -> dict[str, Any]:
    """What the daemon last recorded: IMAP contact, SMTP state, next deadline, interrupted sends."""
    from judge.daemon.state import read_status

    cfg = load_config(config_path)
    path = cfg.judge.resolved_state_path
    if not Path(path).exists():
        return {"state_file": path, "note": "the daemon has not run yet"}
    raw = read_status(path)
    now = time.time()
    out: dict[str, Any] = {"state_file": path, "smtp_in_doubt": raw.pop("smtp_in_doubt")}
    for key, entry in sorted(raw.items()):
        value = entry["value"]
        if key in ("imap_last_contact", "smtp_last_ok", "started", "stopped", "scheduler_next") and value:
            t = float(value)
            ago = f"{now - t:.0f}s ago" if now >= t else f"in {t - now:.0f}s"
            value = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)) + f" ({ago})"
        elif key.endswith("_last_error"):
            value = f"{value} (at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(entry['updated']))})"
        out[key] = value
    return out


def status_with_mail(config_path: str) -> dict[str, Any]:
    """``judge status --config``: the service's queues and deadlines plus the daemon's view."""
    from judge.daemon.service import Factory

    try:
        cfg = load_config(config_path)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    judge = Factory(cfg.judge)()
    try:
        out = dict(judge.status())
    finally:
        if hasattr(judge, "close"):
            judge.close()
    out["mail"] = mail_status(config_path)
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
