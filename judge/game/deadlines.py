"""Deadlines: reading and writing times and durations, and the exact event schedule.

Every timed thing (a reminder, a deadline, the end of grace) is one row in ``events`` with its
due time. The scheduler asks for the earliest pending row; nothing sweeps over games. An event
is marked done in the same transaction as its effects, so each runs exactly once even across
restarts, and events that fell due while the judge was down run when it starts again.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
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
    """A deadline as written by a master: ``+2d``/``48h`` from now, ``2025-06-15 23:30``, or in words
    (:func:`parse_date_words`), in the zone ``tz_name`` (the game's)."""
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
    return parse_date_words(t, now, tz_name)


@lru_cache(maxsize=256)
def format_time(t: datetime | None, tz_name: str = "UTC") -> str:
    """njudge's form: ``Tue Jan 06 2004 23:30:00 +0000``. Remembered: every reply of a phase
    shows its deadline and end of grace, two or three times a reply."""
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


# -- dates as masters write them ----------------------------------------------------------------
_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}
_DAYS = {d: i for i, d in enumerate(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))}
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.I)
_NUMERIC_DATE = re.compile(r"^(\d{1,2})([/.])(\d{1,2})(?:\2(\d{2}|\d{4}))?\.?$")
#: a date written without a time of day means the end of that day
END_OF_DAY = (23, 59)


class AmbiguousTime(TimeError):
    """A date with more than one reading (``3/5``): the message names them."""


_MONTH_NAMES = "january february march april may june july august september october november december".split()
_DAY_NAMES = "monday tuesday wednesday thursday friday saturday sunday".split()
_DAY_NUMBER = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\.?$")


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    return next((i + 1 for i, n in enumerate(_MONTH_NAMES) if len(w) >= 3 and n.startswith(w)),
                9 if w == "sept" else None)


def _weekday(word: str) -> int | None:
    """Monday = 0; ``tue``, ``tues``, ``tuesday``, ``thurs``, ``weds`` ..."""
    w = word.lower().rstrip(".")
    return next((i for i, n in enumerate(_DAY_NAMES) if len(w) >= 3 and n.startswith(w)),
                2 if w == "weds" else None)


def _clock(words: list[str]) -> tuple[int, int] | None:
    """``20:00``, ``8pm``, ``8:30 pm``, ``noon``, ``midnight`` (the end of the day)."""
    t = " ".join(words).strip().lower()
    if not t:
        return None
    if t == "noon":
        return 12, 0
    if t == "midnight":
        return END_OF_DAY
    m = _TIME.match(t)
    if not m or (m.group(2) is None and m.group(3) is None):
        raise TimeError(f"not a time of day: {t!r} (write e.g. 20:00 or 8pm)")
    h, mi = int(m.group(1)), int(m.group(2) or 0)
    if m.group(3):
        if not 1 <= h <= 12:
            raise TimeError(f"not a time of day: {t!r}")
        h = h % 12 + (12 if m.group(3).lower() == "pm" else 0)
    if h > 23 or mi > 59:
        raise TimeError(f"not a time of day: {t!r}")
    return h, mi


def _at(day: date, hm: tuple[int, int], tz: timezone | ZoneInfo) -> datetime:
    return datetime.combine(day, time(*hm), tzinfo=tz).astimezone(timezone.utc)


def _next_date(month: int, day: int, year: int | None, today: date) -> date:
    """The date ``day month`` (this year's or, once past, next year's when no year is written)."""
    try:
        if year is not None:
            return date(year, month, day)
        d = date(today.year, month, day)
        return d if d >= today else date(today.year + 1, month, day)
    except ValueError:
        raise TimeError(f"no such date: day {day} of month {month}") from None


def parse_date_words(text: str, now: datetime, tz_name: str = "UTC") -> datetime:
    """A deadline in words, in the zone ``tz_name``: ``Mar 5 23:30``, ``5 March``, ``tue 20:00``,
    ``next friday``, ``tomorrow 18:00``, ``today 8pm``, ``15.6. 23:30``; a numeric date both ways
    readable (``3/5``) raises :class:`AmbiguousTime` naming the readings."""
    tz = zone(tz_name)
    today = now.astimezone(tz).date()
    words = text.replace(",", " ").split()
    lw = [w.lower() for w in words]
    if not words:
        raise TimeError("no date given")
    if lw[0] in ("today", "tonight", "tomorrow"):
        day = today + timedelta(days=1 if lw[0] == "tomorrow" else 0)
        return _at(day, _clock(words[1:]) or END_OF_DAY, tz)
    nxt = lw[0] == "next"
    if nxt:
        words, lw = words[1:], lw[1:]
    wd = _weekday(lw[0]) if lw else None
    if wd is not None:
        hm = _clock(words[1:]) or END_OF_DAY
        ahead = (wd - today.weekday()) % 7
        if nxt and ahead == 0:
            ahead = 7
        t = _at(today + timedelta(days=ahead), hm, tz)
        return t if t > now else _at(today + timedelta(days=ahead + 7), hm, tz)
    if nxt:
        raise TimeError(f"not a time: {text!r} (next what? write e.g. next friday 20:00)")
    m = _NUMERIC_DATE.match(lw[0])
    if m:
        a, sep, b = int(m.group(1)), m.group(2), int(m.group(3))
        year = int(m.group(4)) if m.group(4) else None
        if year is not None and year < 100:
            year += 2000
        hm = _clock(words[1:]) or END_OF_DAY
        if sep == ".":  # 15.6. : day first, as written where dots are used
            return _at(_next_date(b, a, year, today), hm, tz)
        readings = []
        for month, day in ((a, b), (b, a)):
            try:
                readings.append(_at(_next_date(month, day, year, today), hm, tz))
            except TimeError:
                continue
        readings = sorted(set(readings))
        if not readings:
            raise TimeError(f"no such date: {lw[0]!r}")
        if len(readings) > 1:
            shown = " or ".join(format_time(r, tz_name) for r in readings)
            raise AmbiguousTime(f"{lw[0]!r} could be {shown}: write the month as a word (e.g. Mar 5) or "
                                "the date as 2030-03-05")
        return readings[0]
    # Mar 5 [2031] [23:30] or 5 Mar [2031] [23:30]
    month = day_n = year = None
    rest: list[str] = []
    for w in lw:
        d = _DAY_NUMBER.match(w)
        if not rest and month is None and _month(w):
            month = _month(w)
        elif not rest and day_n is None and d and 1 <= int(d.group(1)) <= 31:
            day_n = int(d.group(1))
        elif not rest and year is None and month and day_n and re.fullmatch(r"\d{4}", w):
            year = int(w)
        else:
            rest.append(w)
    if month is None or day_n is None:
        raise TimeError(f"not a time: {text!r} (write e.g. Mar 5 23:30, tue 20:00, next friday, tomorrow 18:00, "
                        "2030-03-05 23:30 or +48h)")
    return _at(_next_date(month, day_n, year, today), _clock(rest) or END_OF_DAY, tz)


# -- a phase's deadline on the master's clock ----------------------------------------------------
#: SET DAYS: seven characters from Sunday, a letter for a day deadlines may fall on, ``-`` for one
#: they may not; a lower-case letter: not before noon on that day (njudge's form)
DAYS_MASK = re.compile(r"^[A-Za-z-]{7}$")


def check_days(mask: str) -> str:
    if not DAYS_MASK.match(mask) or mask == "-------":
        raise TimeError(f"days are seven characters from Sunday, a letter for a day deadlines may fall on and - "
                        f"for one they may not, e.g. -MTWTF- (not {mask!r})")
    return mask


def parse_clock(text: str) -> int | None:
    """SET ... CLOCK: minutes after midnight (``20:00``, ``8pm``, njudge's ``1200``); ``OFF``/``-1``: none."""
    t = text.strip().lower()
    if t in ("off", "none", "-1", "no"):
        return None
    if t.isdigit() and len(t) in (3, 4):  # njudge writes minutes after midnight
        n = int(t)
        if n < 24 * 60:
            return n
    hm = _clock([t])
    assert hm is not None
    return hm[0] * 60 + hm[1]


def phase_deadline(now: datetime, hours: float, clock: int | None, days: str | None, not_before: datetime | None,
                   tz_name: str = "UTC") -> datetime:
    """The deadline of a phase opened at ``now``: at least its normal length (``hours``) ahead and
    never before ``not_before`` (the previous phase's deadline, or SET START), then moved later to
    the first ``clock`` time (minutes after midnight, the game's zone) on a day ``days`` allows.
    Processing time therefore never shifts the time of day, and early processing never pulls a
    deadline earlier than the phase's length or the previous deadline would give."""
    base = now + timedelta(hours=hours)
    if not_before is not None and not_before > base:
        base = not_before
    if clock is None and days is None:
        return base
    tz = zone(tz_name)
    local = base.astimezone(tz)
    for i in range(15):
        day = local.date() + timedelta(days=i)
        ch = days[(day.weekday() + 1) % 7] if days else "X"
        if ch == "-":
            continue
        if clock is not None:
            t = _at(day, divmod(clock, 60), tz)
            if ch.islower() and clock < 12 * 60:
                continue
        else:
            t = base if i == 0 else _at(day, (local.hour, local.minute), tz)
            if ch.islower() and t.astimezone(tz).hour < 12:
                t = _at(day, (12, 0), tz)
        if t >= base:
            return t
    return base
