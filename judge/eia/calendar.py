"""EiA months: a game turn is a month, written ``YYYY-MM``; the economic step closes every Nth month."""

from __future__ import annotations

import re

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


def parse_month(text: object) -> tuple[int, int]:
    m = _MONTH.match(text) if isinstance(text, str) else None
    if not m or not 1 <= int(m.group(2)) <= 12:
        raise ValueError(f"a month is written YYYY-MM (e.g. 1805-01), not {text!r}")
    return int(m.group(1)), int(m.group(2))


def index(month: str) -> int:
    year, mon = parse_month(month)
    return year * 12 + mon - 1


def from_index(i: int) -> str:
    return f"{i // 12:04d}-{i % 12 + 1:02d}"


def add(month: str, months: int) -> str:
    return from_index(index(month) + months)


def between(earlier: str, later: str) -> int:
    return index(later) - index(earlier)


def title(month: str) -> str:
    year, mon = parse_month(month)
    return f"{MONTHS[mon - 1]} {year}"


def is_economic(month: str, first: str, every: int) -> bool:
    """The economic step closes ``month`` (``first`` and every ``every`` months after it)."""
    d = between(first, month)
    return d >= 0 and d % every == 0
