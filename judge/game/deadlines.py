"""Deadlines: reading and writing times and durations, and the exact event schedule.

Every timed thing (a reminder, a deadline, the end of grace) is one row in ``events`` with its
due time. The scheduler asks for the earliest pending row; nothing sweeps over games. An event
is marked done in the same transaction as its effects, so each runs exactly once even across
restarts, and events that fell due while the judge was down run when it starts again.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.game.store import Store, iso

_DURATION = re.compile(r"^\+?\s*(\d+(?:\.\d+)?)\s*(m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|weeks?)?$", re.I)
_UNIT_HOURS = {"m": 1 / 60, "h": 1.0, "d": 24.0, "w": 168.0}


class TimeError(ValueError):
    pass


def parse_duration(text: str) -> float:
    """Hours in ``"48"``, ``"48h"``, ``"2d"``, ``"90m"``, ``"1.5 days"``."""
    m = _DURATION.match(text.strip())
    if not m:
        raise TimeError(f"not a duration: {text!r} (write e.g. 48h, 2d or 90m)")
    n = float(m.group(1))
    unit = (m.group(2) or "h")[0].lower()
    hours = n * _UNIT_HOURS[unit]
    if hours > 24 * 365:
        raise TimeError(f"{text!r} is more than a year")
    return hours


def zone(name: str) -> timezone | ZoneInfo:
    if name.upper() in ("UTC", "GMT", "Z"):
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def parse_when(text: str, now: datetime, tz_name: str = "UTC") -> datetime:
    """A deadline as written by a master: ``+2d``/``48h`` from now, or ``2025-06-15 23:30`` (judge's zone)."""
    t = text.strip()
    if t.startswith("+") or _DURATION.match(t):
        return now + timedelta(hours=parse_duration(t))
    t2 = t.replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M:%S%z", "%Y-%m-%d %H:%M%z", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            d = datetime.strptime(t2, fmt)
        except ValueError:
            continue
        if d.tzinfo is None:
            d = d.replace(tzinfo=zone(tz_name))
        return d.astimezone(timezone.utc)
    raise TimeError(f"not a time: {text!r} (write e.g. 2025-06-15 23:30, +48h or 2d)")


def format_time(t: datetime | None, tz_name: str = "UTC") -> str:
    """njudge's form: ``Tue Jan 06 2004 23:30:00 +0000``."""
    if t is None:
        return "(none)"
    return t.astimezone(zone(tz_name)).strftime("%a %b %d %Y %H:%M:%S %z")


def format_left(delta: timedelta) -> str:
    """``4 days, 23 hours, 30 minutes`` (``0 minutes`` once past)."""
    secs = int(delta.total_seconds())
    if secs <= 0:
        return "the deadline has passed"
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = []
    if days:
        parts.append(f"{days} day{'s' if days != 1 else ''}")
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if minutes or not parts:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    return ", ".join(parts)


def format_hours(hours: float) -> str:
    if hours >= 24 and hours % 24 == 0:
        return f"{int(hours // 24)}d"
    if hours == int(hours):
        return f"{int(hours)}h"
    return f"{round(hours * 60)}m"


# -- the event schedule -----------------------------------------------------------------------
def schedule(store: Store, game_id: int, phase_id: int | None, kind: str, due: datetime) -> int:
    return store.insert("events", game_id=game_id, phase_id=phase_id, kind=kind, due=iso(due), state="pending")


def cancel_events(store: Store, game_id: int, now: datetime, kinds: tuple[str, ...] | None = None) -> None:
    """Cancel a game's pending events (all, or only those of ``kinds``)."""
    if kinds is None:
        store.conn.execute("UPDATE events SET state = 'cancelled', done_at = ? WHERE game_id = ? AND state = 'pending'",
                           (iso(now), game_id))
    else:
        marks = ", ".join("?" for _ in kinds)
        store.conn.execute(f"UPDATE events SET state = 'cancelled', done_at = ? "
                           f"WHERE game_id = ? AND state = 'pending' AND kind IN ({marks})",
                           (iso(now), game_id, *kinds))


def next_due(store: Store) -> datetime | None:
    v = store.scalar("SELECT MIN(due) FROM events WHERE state = 'pending'")
    return None if v is None else datetime.fromisoformat(v)


def due_game_ids(store: Store, until: datetime) -> list[int]:
    """Games with a pending event due by ``until`` (for the daemon's notices while it holds them)."""
    return [r[0] for r in store.all("SELECT DISTINCT game_id FROM events WHERE state = 'pending' AND due <= ? "
                                    "ORDER BY game_id", (iso(until),))]
