"""The judge's settings: who it is, where its store lives, how it tells the time."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Mapping


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


#: the abuse limits and reply caps (settings of JudgeConfig): whole numbers, at least this
LIMITS = {"reply_limit": 1, "stranger_reply_limit": 1, "same_body_limit": 2, "seat_failures": 1, "sender_failures": 1,
          "max_echo_line": 1, "max_echo_chars": 1, "max_reply_chars": 1, "max_reply_bytes": 1}
#: the abuse windows, in minutes: more than zero
WINDOWS = ("abuse_window_minutes", "same_body_window_minutes")


def check_limits(values: Mapping[str, Any], prefix: str = "") -> None:
    """Raise ValueError naming the first abuse setting in ``values`` that is out of range (keys
    not given are not checked): a judge must not start with a limit that silences everyone or
    nobody by a typo. ``prefix`` says where the setting was written (``judge.options.``)."""
    for key, least in LIMITS.items():
        v = values.get(key, least)
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            raise ValueError(f"{prefix}{key} = {v!r}: must be a whole number of at least {least}")
    for key in WINDOWS:
        v = values.get(key, 1)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"{prefix}{key} = {v!r}: must be a number of minutes greater than 0")


@dataclass
class JudgeConfig:
    """Everything a :class:`~judge.mail.Judge` needs to know about itself.

    ``clock`` is the only source of "now" for the service: tests and ``judge demo`` inject a
    fake clock so deadlines pass without sleeping.
    """

    address: str = "judge@localhost"
    name: str = "Judge"
    db_path: str | Path = "judge.sqlite"
    loop_header: str = "X-Judge-Loop"
    timezone: str = "UTC"
    code: str = "JUDGE"  # njudge's judge code, shown in subjects ("JUDGE:tg - S1901M Results")
    keeper: str | None = None  # the judge keeper's address: told about internal errors
    clock: Callable[[], datetime] = field(default=utc_now)
    # default phase lengths and grace, in hours (a game may change them)
    movement_hours: float = 48.0
    retreat_hours: float = 24.0
    adjustment_hours: float = 24.0
    grace_hours: float = 24.0
    reminder_hours: float = 8.0  # reminder to late powers this long before the deadline
    max_attempts: int = 8  # temporary delivery failures before an outgoing mail is given up
    password_cost: int = 14  # scrypt cost (log2 n) for new password hashes
    # successful password checks kept across restarts (judge/game/passwords.py, SessionFile) in
    # <store>.sessions.sqlite under this secret (a systemd credential name, or a path); "": not kept
    session_key_file: str = ""
    session_hours: float = 24.0  # ... for this long after each full check
    archive_url: str | None = None  # where ``judge publish`` output is served: List-Archive of list mail
    archive_dir: str | None = None  # where ``judge publish --config`` writes it (relative: from the config's folder)
    # Abuse limits (judge/mail/abuse.py; deploy/README.md, *Abuse*). Mail that signs on with a
    # password is always answered; these only quieten answers to mail that does not.
    abuse_window_minutes: float = 60.0  # the window of reply_limit, seat_failures and sender_failures
    reply_limit: int = 30  # answers per window to a sender's mail that does not sign on
    stranger_reply_limit: int = 1  # ... and to an address the judge does not know (cut short)
    same_body_limit: int = 5  # the same text this many times in a row ...
    same_body_window_minutes: float = 10.0  # ... within this long is not answered
    seat_failures: int = 5  # wrong passwords for one seat per window lock it against other addresses
    sender_failures: int = 10  # wrong passwords from one address per window lock that address out
    # reply caps (judge/mail/handler.py): each echoed line, the echo as a whole, the whole reply
    max_echo_line: int = 300
    max_echo_chars: int = 30_000
    max_reply_chars: int = 100_000
    max_reply_bytes: int = 65_536  # the whole reply mail: headers, text and HTML parts
    # sent mail older than this many days keeps its row and header but not its body
    # (judge/game/outbox_trim.py: `judge trim-outbox`, and the daemon once a day); 0: kept whole
    outbox_keep_days: float = 30.0

    def __post_init__(self) -> None:
        self.address = self.address.strip().lower()
        self.db_path = Path(self.db_path)
        check_limits({k: getattr(self, k) for k in (*LIMITS, *WINDOWS)})
        if isinstance(self.session_hours, bool) or not isinstance(self.session_hours, (int, float)) \
                or not 0 < self.session_hours <= 24 * 30:
            raise ValueError(f"session_hours = {self.session_hours!r}: must be a number of hours, more than 0, "
                             "at most 720")
        keep = self.outbox_keep_days
        if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not (keep == 0 or 1 <= keep < 1e5):
            raise ValueError(f"outbox_keep_days = {keep!r}: must be a number of days, at least 1 (or 0: never trim)")

    @property
    def sessions_path(self) -> Path:
        """Where successful password checks are kept across restarts: beside the store."""
        db = Path(self.db_path)
        return db.with_name(f"{db.stem}.sessions.sqlite")

    @property
    def abuse_window(self) -> timedelta:
        return timedelta(minutes=self.abuse_window_minutes)

    @property
    def same_body_window(self) -> timedelta:
        return timedelta(minutes=self.same_body_window_minutes)

    def now(self) -> datetime:
        t = self.clock()
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return t.astimezone(timezone.utc)
