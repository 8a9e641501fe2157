"""A game's standing over time, as SUMMARY and the archive show it: supply-centre counts year by
year, and who held each power before its present player (with the phases they played it)."""

from __future__ import annotations

from typing import Any

from judge.render import describe


def centre_years(positions: list[Any], outcome: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Centre counts per played year, after its adjustments: ownership is worked out on entering
    a year's adjustment phase, so a year's figures are those of its adjustment phase, or (no
    adjustment was due) of the first phase of the next year; a finished game keeps its last in
    its outcome. A year still being played has none yet."""
    counts: dict[int, dict[str, int]] = {}
    played = {p.phase.year for p in positions}
    for pos in positions:
        y = pos.phase.year
        if pos.phase.kind == "adjustment":
            counts.setdefault(y, describe.centre_counts(pos))
        elif y - 1 in played:
            counts.setdefault(y - 1, describe.centre_counts(pos))
    if outcome and outcome.get("centres") and outcome.get("centres_year") is not None:
        counts.setdefault(int(outcome["centres_year"]), dict(outcome["centres"]))
    return [{"year": y, "counts": counts[y]} for y in sorted(counts)]


def departures(options: dict[str, Any], power: str) -> list[dict[str, Any]]:
    """The players who left ``power`` (resigned, ejected, opened for takeover), first first: each
    with ``player_id``, ``from`` and ``to`` (the phases they played it) and ``why``."""
    return [b for b in options.get("players_before") or [] if b.get("power") == power]
