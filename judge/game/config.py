"""The judge's settings: who it is, where its store lives, how it tells the time."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


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
    archive_url: str | None = None  # where ``judge publish`` output is served: List-Archive of list mail

    def __post_init__(self) -> None:
        self.address = self.address.strip().lower()
        self.db_path = Path(self.db_path)

    def now(self) -> datetime:
        t = self.clock()
        if t.tzinfo is None:
            t = t.replace(tzinfo=timezone.utc)
        return t.astimezone(timezone.utc)
