"""A player's absence (SET ABSENCE, njudge's VACATION/HOLIDAY) and the players' pause requests.

Absences live in the game's options (``absences``: a list of dicts with the power, the player's
id, ``from``/``to`` as ISO times and a ``state``: ``on``, ``ended``, ``cancelled`` or ``refused``),
so a game stored before needs nothing new. An absence belongs to the player, not the power: a
replacement taking the power over is not away. Nothing here sends mail; the callers announce.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import TYPE_CHECKING, Any

from judge.game import deadlines
from judge.game.store import from_iso, iso

if TYPE_CHECKING:
    from judge.game.lifecycle import Game

#: SET MAX ABSENCE's default: days of absence a player may take in one game, all absences together
DEFAULT_MAX_DAYS = 14
#: a deadline moved past an absence lands this long after the absence ends: a day to write orders
AFTER_RETURN = timedelta(hours=24)

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DAY_MONTH = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([a-z]+)\.?,?(?:\s+(\d{4}))?$", re.I)
_MONTH_DAY = re.compile(r"^([a-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?$", re.I)
_ISO_DAY = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_CLOCK = re.compile(r",?\s+(\d{1,2}):(\d{2})$")
_SPLIT = re.compile(r"\s+(?:to|until|till|through|thru)\s+|\s+-\s+", re.I)


class AbsenceError(ValueError):
    """The absence asked for is refused; nothing was changed."""


@dataclass(frozen=True)
class Moved:
    """A deadline moved past one absence."""
    power: str
    until: datetime  # the absence's end


def _month(word: str) -> int | None:
    """January, Jan, Sept: a month's name or its first three letters or more."""
    w = word.lower()
    hits = [i + 1 for i, m in enumerate(_MONTHS) if len(w) >= 3 and m.startswith(w)]
    return hits[0] if hits else None


def _day(text: str, today: date, after: date | None) -> date | None:
    """A calendar day as people write it: ``2030-01-10``, ``Jan 10``, ``10 January 2030``. A day
    without a year is the next one on or after ``after`` (or today)."""
    t = text.strip()
    year: str | None
    m = _ISO_DAY.match(t)
    if m:
        y, mo, d = (int(x) for x in m.groups())
        return _valid(y, mo, d, t)
    m = _DAY_MONTH.match(t)
    if m:
        d_s, mon, year = m.groups()
    else:
        m = _MONTH_DAY.match(t)
        if not m:
            return None
        mon, d_s, year = m.groups()
    mo = _month(mon)
    if mo is None:
        return None
    d = int(d_s)
    if year:
        return _valid(int(year), mo, d, t)
    base = after or today
    for y in (base.year, base.year + 1):
        try:
            day = date(y, mo, d)
        except ValueError:
            continue
        if day >= base:
            return day
    raise AbsenceError(f"not a day: {text.strip()!r}")


def _valid(y: int, mo: int, d: int, text: str) -> date:
    try:
        return date(y, mo, d)
    except ValueError:
        raise AbsenceError(f"not a day: {text!r}") from None


def parse_span(text: str, now: datetime, tz_name: str) -> tuple[datetime, datetime]:
    """``<from> TO <to>`` (or a single day) → the absence's start and end in UTC. A day alone
    means the whole day in the game's time zone (from its midnight to the next); a time of day
    is read as SET DEADLINE reads one."""
    parts = _SPLIT.split(text.strip(), maxsplit=1)
    if not parts[0]:
        raise AbsenceError("write SET ABSENCE <from> TO <to>, e.g. SET ABSENCE 2030-01-10 TO 2030-01-14 "
                           "or SET ABSENCE Jan 10 TO Jan 14")
    tz = deadlines.zone(tz_name)
    today = now.astimezone(tz).date()

    def point(word: str, after: date | None, end: bool) -> datetime:
        clock = _CLOCK.search(word)  # "Jan 10 18:00": that day at that time
        day = _day(word[:clock.start()] if clock else word, today, after)
        if day is not None and clock is not None:
            hour, minute = int(clock.group(1)), int(clock.group(2))
            if hour > 23 or minute > 59:
                raise AbsenceError(f"not a time of day: {clock.group(0).strip()!r}")
            return datetime.combine(day, time(hour, minute), tzinfo=tz).astimezone(timezone.utc)
        if day is not None:
            return datetime.combine(day + timedelta(days=int(end)), time(0), tzinfo=tz).astimezone(timezone.utc)
        try:
            return deadlines.parse_when(word, now, tz_name)
        except deadlines.TimeError:
            raise AbsenceError(f"not a day: {word.strip()!r} (write e.g. 2030-01-10, Jan 10 or 10 January)") from None

    start = point(parts[0], None, False)
    end = point(parts[1], start.astimezone(tz).date(), True) if len(parts) > 1 else point(parts[0], None, True)
    if end <= start:
        raise AbsenceError("the absence ends before it begins")
    if end <= now:
        raise AbsenceError("that absence is over already")
    return max(start, now), end


# -- the game's record ---------------------------------------------------------------------------------
def absences(game: Game) -> list[dict[str, Any]]:
    return game.options.setdefault("absences", [])


def max_days(game: Game) -> float:
    return float(game.options.get("max_absence_days", DEFAULT_MAX_DAYS))


def days(a: dict[str, Any]) -> float:
    """Days an absence counts against the cap (a refused one: none)."""
    if a["state"] == "refused":
        return 0.0
    return (from_iso(a["to"]) - from_iso(a["from"])).total_seconds() / 86400  # type: ignore[operator]


def used_days(game: Game, power: str, player_id: int) -> float:
    return sum(days(a) for a in absences(game) if a["power"] == power and a["player_id"] == player_id)


def add(game: Game, power: str, player_id: int, start: datetime, end: datetime) -> dict[str, Any]:
    """Record an absence, within the cap and overlapping none of the player's own."""
    mine = [a for a in absences(game) if a["power"] == power and a["player_id"] == player_id and a["state"] == "on"]
    for a in mine:
        if start < from_iso(a["to"]) and from_iso(a["from"]) < end:  # type: ignore[operator]
            raise AbsenceError("that overlaps your absence already set; SET ABSENCE CLEAR first to change it")
    length = (end - start).total_seconds() / 86400
    left = max_days(game) - used_days(game, power, player_id)
    if length > left + 1e-9:
        raise AbsenceError(f"that absence is {length:g} days; the master allows {max_days(game):g} days of absence "
                           f"per player in this game and you have {max(left, 0):g} left")
    a = {"power": power, "player_id": player_id, "from": iso(start), "to": iso(end), "state": "on"}
    absences(game).append(a)
    return a


def stop(game: Game, power: str, player_id: int | None, now: datetime, state: str) -> list[dict[str, Any]]:
    """End (``ended``, ``cancelled``) or refuse (``refused``) the power's absences that have not
    ended: one under way ends now (the days taken still count), one to come is dropped."""
    out = []
    for a in absences(game):
        if a["power"] != power or a["state"] != "on" or (player_id is not None and a["player_id"] != player_id):
            continue
        if from_iso(a["to"]) <= now:  # type: ignore[operator]
            continue
        if state != "refused" and from_iso(a["from"]) < now:  # type: ignore[operator]
            a["to"] = iso(now)
            a["state"] = state
        else:
            a["state"] = "refused" if state == "refused" else "cancelled"
            a["to"] = a["from"] if state != "refused" else a["to"]
        out.append(a)
    return out


def current(game: Game, now: datetime, power: str | None = None) -> list[dict[str, Any]]:
    """Absences set and not over, the power's or everyone's."""
    return [a for a in absences(game) if a["state"] == "on" and from_iso(a["to"]) > now  # type: ignore[operator]
            and (power is None or a["power"] == power)]


def move_past(game: Game, deadline: datetime, holders: dict[str, int]) -> tuple[datetime, list[Moved]]:
    """``deadline`` moved past every absence it falls in (of a player still holding the power:
    ``holders`` power → player id), each time to :data:`AFTER_RETURN` after the absence ends."""
    moved: list[Moved] = []
    while True:
        hit = [a for a in absences(game) if a["state"] == "on" and holders.get(a["power"]) == a["player_id"]
               and from_iso(a["from"]) <= deadline < from_iso(a["to"])]  # type: ignore[operator]
        if not hit:
            return deadline, moved
        a = max(hit, key=lambda a: a["to"])
        until = from_iso(a["to"])
        assert until is not None
        deadline = until + AFTER_RETURN
        moved.append(Moved(a["power"], until))


# -- pause requests --------------------------------------------------------------------------------------
def pause_vote(game: Game) -> bool:
    """SET PAUSE VOTE yes: a unanimous request of the players pauses the game (default: the master decides)."""
    return game.options.get("pause_vote", "no") == "yes"


def pause_requests(game: Game) -> list[str]:
    return game.options.setdefault("pause_requests", [])
