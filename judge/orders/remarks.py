"""Lines and parts of lines that are not orders and not mistakes either.

A player's mail holds more than orders: a remark in brackets ("(retreat: Ber)", "(build)",
"(*bounce*)" pasted from a report), a line that introduces what follows ("changed my mind, scrap
the north sea:"), "all units hold". The parser reads every line as orders first; only where
that fails does this module look for a remark, so an order written in brackets ("(A Ven-Rom)",
as reports print failed orders) is still an order, and nothing here slows the reading of
lines that are orders.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from judge.orders.names import Names

_GROUP = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")
_WORD = re.compile(r"[^\W_]")
#: "all units hold", "all hold", "hold all", "hold all units", "all my units stand"
_HOLD_ALL = re.compile(r"(?:(?:all|every)\s+(?:(?:of\s+)?(?:my|our)\s+)?(?:units?\s+)?(?:hold|holds|stand|stands)"
                       r"|(?:hold|stand)\s+all(?:\s+(?:(?:of\s+)?(?:my|our)\s+)?units?)?)(?:\s+(?:this|the)\s+"
                       r"(?:turn|phase|season))?\s*[.!]*", re.I)


#: "..., rest hold", "all other units hold", "everything else stands"
_REST_HOLD = re.compile(r"(?P<head>.*?)[\s,;.]*(?:\band\s+)?(?:(?:the|all|my)\s+)?(?:rest|others|other\s+units?|"
                        r"all\s+others|everything\s+else|every\s+other\s+unit)\s+(?:hold|holds|stand|stands)\s*[.!]*",
                        re.I | re.S)


def rest_hold(line: str) -> str | None:
    """For a line that ends by holding every unit not ordered otherwise ("A Mun - Kie, rest
    hold", "all other units hold"), the orders before that (maybe ""); else None."""
    found = _REST_HOLD.fullmatch(line.strip())
    return None if found is None else found.group("head")


#: "no builds", "no builds this year", "waive all", "waive all my builds"
_NO_BUILDS = re.compile(r"(?:(?:no|zero|0)\s+builds?|waive\s+all(?:\s+(?:(?:of\s+)?my\s+)?builds?)?)"
                        r"(?:\s+(?:this|for\s+now|this\s+(?:year|turn|time|winter|phase)))?\s*[.!]*", re.I)


def waives_all(line: str) -> bool:
    """Does the line (the power's name aside) give up every build due ("no builds")?"""
    return _NO_BUILDS.fullmatch(line.strip()) is not None


def holds_all(line: str) -> bool:
    """Does the line (the power's name aside) say every unit holds?"""
    return _HOLD_ALL.fullmatch(line.strip()) is not None


def without_remarks(line: str) -> Iterator[tuple[str, list[str]]]:
    """The line with bracketed remarks blanked out (offsets kept), fewest remarks first: each
    group alone from the last, then all of them. Groups without a word ("()") are no remarks."""
    groups = [m for m in _GROUP.finditer(line) if _WORD.search(m.group())]
    if not groups:
        return
    tries = [[g] for g in reversed(groups)]
    if len(groups) > 1:
        tries.append(groups)
    for chosen in tries[:6]:
        text = line
        for g in chosen:
            text = text[:g.start()] + " " * (g.end() - g.start()) + text[g.end():]
        yield text, [g.group() for g in chosen]


def is_no_order_line(line: str) -> bool:
    """A unit listed as unordered, as the judge's own order lists print it and players paste
    them back: "England: Fleet London, No Order Processed."."""
    return line.rstrip(" .").lower().endswith(", no order processed")


def is_remark_line(line: str) -> bool:
    """A line that is wholly a remark in brackets: "(I'll explain later)"."""
    s = line.strip()
    return len(s) > 2 and _GROUP.fullmatch(s) is not None


def is_lead_in(line: str) -> bool:
    """A line ending in a colon that introduces what follows ("changed my mind, scrap the north
    sea:", "My orders for this turn:")."""
    return line.rstrip().endswith(":")


_DECORATION = " \t=*-_~#:.<>|"
_HEADING = re.compile(r"(?:(?:my\s+)?orders?\s+(?:for|of)\s+)?([^\W\d_]+?)(?:['’]s)?(?:\s+orders?)?"
                      r"(?:\s*[(\[][^()\[\]]*[)\]])?", re.I)


def power_heading(line: str, names: "Names") -> str | None:
    """The power a heading line names ("== England ==", "ENGLAND ORDERS", "Orders for England",
    "England (Bob Smith)"), else None."""
    s = line.strip(_DECORATION) if len(line) <= 60 else ""
    m = _HEADING.fullmatch(s.strip()) if s else None
    if m is None:
        return None
    word = m.group(1).lower()
    return next((pn.name for key, pn in names.powers.items() if key == word and word in names.full_names), None)
