"""Daemon configuration: one TOML file, secrets kept out of it.

Each password may be given as ``password_env`` (name of an environment variable, the systemd
``EnvironmentFile=`` / ``LoadCredential=`` way), ``password_file`` (a file whose first line is the
secret; relative paths are taken from ``$CREDENTIALS_DIRECTORY`` when systemd provides one) or, for
tests only, ``password`` inline.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from judge.game.config import check_limits


class ConfigError(ValueError):
    """The configuration file is unusable; the message says which key and why."""


@dataclass(frozen=True)
class JudgeSection:
    address: str
    name: str = "Judge"
    db_path: str = "judge.sqlite"
    #: the daemon's own state (send journal, IMAP contact); default: beside db_path
    state_path: str = ""
    timezone: str = "UTC"
    loop_header: str = "X-Judge-Loop"
    #: "module:callable" building the service from a JudgeConfig-like object; tests swap it
    service: str = "judge.mail:Judge"
    #: a due deadline waits for a complete read of the mailbox begun after it (orders already
    #: delivered must count); after this many seconds of holding it is processed anyway
    deadline_hold_max: float = 86400.0
    #: the game's master is told once a deadline has been held this long (the mailbox is unreadable)
    deadline_hold_notice: float = 60.0
    #: the masters and the admin are warned this many seconds before ``deadline_hold_max`` runs out
    deadline_hold_warn: float = 3600.0
    #: seconds a store access waits for another process's lock (an admin's sqlite3, ``judge game``,
    #: a backup) before the message is tried again later
    busy_timeout: float = 30.0
    #: further JudgeConfig keyword arguments, passed through untouched
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2] or "localhost"

    @property
    def admin(self) -> str:
        """Where the daemon's own troubles are reported: the keeper of ``[judge.options]``."""
        return str(self.options.get("keeper") or "")

    @property
    def resolved_state_path(self) -> str:
        return self.state_path or str(Path(self.db_path).with_suffix(".daemon.sqlite"))


@dataclass(frozen=True)
class ImapSection:
    host: str
    user: str
    password: str = field(repr=False)
    port: int = 993
    #: "tls" (implicit TLS, port 993) or "none" (loopback only); aioimaplib has no STARTTLS
    tls: str = "tls"
    verify: bool = True
    #: PEM file of the CA that signed the server's certificate, when it is not a public one
    ca_file: str = ""
    mailbox: str = "INBOX"
    #: empty: mark handled mail \Seen; otherwise move it into this folder (created if missing)
    processed_folder: str = ""
    #: mail the service could not handle is flagged \Flagged and moved here (created if missing);
    #: empty, or a server that refuses the folder: it is only flagged (and marked done)
    failed_folder: str = "failed"
    idle: bool = True
    #: re-issue IDLE before servers drop it (RFC 2177 says 29 min; providers cut sooner)
    idle_restart: float = 1500.0
    #: check the mailbox at least this often, even while IDLE (a missed push costs at most this)
    poll_interval: float = 60.0
    timeout: float = 30.0
    #: messages per UID FETCH; aioimaplib's parser recurses per response line (~1000 lines fail)
    batch_size: int = 25
    #: bytes per UID FETCH; bounds memory when several 20 MB messages arrive together
    batch_bytes: int = 40 * 1024 * 1024
    #: larger messages are handed over as their header only
    max_message_bytes: int = 30 * 1024 * 1024
    reconnect_min: float = 1.0
    reconnect_max: float = 30.0
    #: while a deadline is held or less than ``urgent_window`` seconds away, back off at most this long
    reconnect_urgent: float = 3.0
    urgent_window: float = 600.0
    #: after a failure to reach the server at all, test the port this often (a bare TCP connect,
    #: no login) and reconnect as soon as it answers, whatever the back-off says
    probe_interval: float = 2.0
    #: a refused login (wrong password, locked account) is retried after this long, doubling up
    #: to auth_retry_max, whatever a deadline wants: quick retries trip fail2ban and lockouts
    auth_retry_min: float = 60.0
    auth_retry_max: float = 1800.0
    #: handled receipt copies (smtp.receipt_to) older than this many days are deleted from the
    #: mailbox (0: as soon as handled), every receipt_prune_interval seconds (0: never)
    receipt_keep_days: int = 2
    receipt_prune_interval: float = 3600.0


@dataclass(frozen=True)
class SmtpSection:
    host: str
    port: int = 587
    #: "starttls", "tls" (implicit, port 465) or "none" (loopback only)
    tls: str = "starttls"
    verify: bool = True
    ca_file: str = ""
    user: str = ""
    password: str = field(default="", repr=False)
    timeout: float = 30.0
    batch_size: int = 50
    #: connections used side by side for one batch (providers may limit concurrent sessions)
    connections: int = 2
    #: look for new outbox items at least this often (the CLI may queue mail behind our back)
    poll_interval: float = 60.0
    #: look this often whether another process (``judge game ...``) changed the store, and if so
    #: for mail it queued (a cheap check of SQLite's data_version; 0: only every poll_interval)
    watch_interval: float = 1.0
    #: after a failure to reach the server, test its port this often and send as soon as it answers
    probe_interval: float = 2.0
    #: per-message retry delay after a transient failure: base * 2**attempts, capped
    retry_base: float = 60.0
    retry_max: float = 3600.0
    reconnect_min: float = 1.0
    reconnect_max: float = 300.0
    #: a refused AUTH (wrong password) is retried after this long, doubling up to auth_retry_max
    auth_retry_min: float = 60.0
    auth_retry_max: float = 1800.0
    #: extra envelope recipient whose copy lands in the judge's IMAP mailbox: proof of acceptance
    #: that settles sends interrupted by a crash (see deploy/README.md); empty disables it
    receipt_to: str = ""
    #: how long an interrupted send waits for its receipt before it is sent again
    receipt_wait: float = 300.0


@dataclass(frozen=True)
class LogSection:
    level: str = "INFO"
    #: "json" (one object per line, for journald/log shippers) or "text"
    format: str = "json"
    file: str = ""


@dataclass(frozen=True)
class DaemonConfig:
    judge: JudgeSection
    imap: ImapSection
    smtp: SmtpSection
    log: LogSection = field(default_factory=LogSection)
    path: str = ""


def _secret(table: dict[str, Any], where: str, required: bool, read: bool = True) -> str:
    given = [k for k in ("password", "password_env", "password_file") if k in table]
    if len(given) > 1:
        raise ConfigError(f"[{where}] give only one of password, password_env, password_file")
    if not read:  # judge status / judge game: the secrets are none of their business
        for k in given:
            table.pop(k)
        return ""
    if "password_env" in table:
        name = table.pop("password_env")
        value = os.environ.get(name)
        if value is None:
            raise ConfigError(f"[{where}] password_env: environment variable {name} is not set")
        return value
    if "password_file" in table:
        p = Path(table.pop("password_file")).expanduser()
        creds = os.environ.get("CREDENTIALS_DIRECTORY")
        if not p.is_absolute() and creds:
            p = Path(creds) / p
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"[{where}] password_file: {exc}") from exc
        lines = text.splitlines()
        return lines[0] if lines else ""
    if "password" in table:
        return str(table.pop("password"))
    if required:
        raise ConfigError(f"[{where}] needs password_env, password_file or password")
    return ""


def _build(cls: type, table: dict[str, Any], where: str) -> Any:
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"[{where}] unknown key(s): {', '.join(unknown)}")
    try:
        return cls(**table)
    except TypeError as exc:  # a missing required key
        raise ConfigError(f"[{where}] {exc}") from exc


def _check_choice(value: str, allowed: tuple[str, ...], key: str) -> None:
    if value not in allowed:
        raise ConfigError(f"{key} = {value!r}: expected one of {', '.join(allowed)}")


def parse_config(data: dict[str, Any], path: str = "", base_dir: Path | None = None,
                 secrets: bool = True) -> DaemonConfig:
    """Build a DaemonConfig from parsed TOML; relative paths are taken from ``base_dir``. With
    ``secrets=False`` no password is read (they come back empty), for the console commands."""
    for section in ("judge", "imap", "smtp"):
        if not isinstance(data.get(section), dict):
            raise ConfigError(f"missing [{section}] table")
    unknown = sorted(set(data) - {"judge", "imap", "smtp", "log"})
    if unknown:
        raise ConfigError(f"unknown table(s): {', '.join(unknown)}")
    judge_t = dict(data["judge"])
    if base_dir is not None:
        for key in ("db_path", "state_path"):
            if judge_t.get(key) and not Path(judge_t[key]).is_absolute():
                judge_t[key] = str(base_dir / judge_t[key])
    imap_t, smtp_t = dict(data["imap"]), dict(data["smtp"])
    imap_t["password"] = _secret(imap_t, "imap", required=True, read=secrets)
    smtp_t["password"] = _secret(smtp_t, "smtp", required=bool(smtp_t.get("user")), read=secrets)
    cfg = DaemonConfig(
        judge=_build(JudgeSection, judge_t, "judge"),
        imap=_build(ImapSection, imap_t, "imap"),
        smtp=_build(SmtpSection, smtp_t, "smtp"),
        log=_build(LogSection, dict(data.get("log", {})), "log"),
        path=path,
    )
    _check_choice(cfg.imap.tls, ("tls", "none"), "imap.tls")
    _check_choice(cfg.smtp.tls, ("starttls", "tls", "none"), "smtp.tls")
    _check_choice(cfg.log.format, ("json", "text"), "log.format")
    if "@" not in cfg.judge.address:
        raise ConfigError(f"judge.address = {cfg.judge.address!r} is not an email address")
    if not 1 <= cfg.smtp.connections <= 16:
        raise ConfigError("smtp.connections must be 1..16")
    if cfg.judge.busy_timeout <= 0:
        raise ConfigError("judge.busy_timeout must be more than 0 seconds")
    for name, section in (("imap", cfg.imap), ("smtp", cfg.smtp)):
        if not 0 < section.auth_retry_min <= section.auth_retry_max:
            raise ConfigError(f"{name}.auth_retry_min must be more than 0 and at most {name}.auth_retry_max")
    if cfg.judge.deadline_hold_warn < 0 or cfg.judge.deadline_hold_max <= 0:
        raise ConfigError("judge.deadline_hold_warn must be 0 or more, judge.deadline_hold_max more than 0")
    if cfg.imap.batch_size < 1 or cfg.imap.batch_size > 200:
        raise ConfigError("imap.batch_size must be 1..200 (aioimaplib fails on ~1000-line responses)")
    try:  # the abuse limits: checked here so that the daemon refuses to start, not its first mail
        check_limits(cfg.judge.options, "judge.options.")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return cfg


def load_config(path: str | os.PathLike[str], secrets: bool = True) -> DaemonConfig:
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{p}: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: {exc}") from exc
    return parse_config(data, str(p), p.resolve().parent, secrets)
