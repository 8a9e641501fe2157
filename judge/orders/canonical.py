"""A fast path for order lines already in the judge's canonical notation.

Front ends, mappers and ``judge adjudicate --batch`` callers send orders exactly as the judge
prints them ("England: F Lon - Nth", "A Par S A Mar - Bur", "A Lon - Bel via convoy",
"F Nth C A Lon - Bel", "Build F StP/nc", "Waive"). Reading those through the free-form grammar
costs most of an adjudication, so :func:`read_line` reads them with a split and a few dict
look-ups instead. It gives exactly the :class:`ParsedLine` the full parser gives or, for
anything it is not sure of, ``None``: the caller then uses the full parser. It gives up on any
name that is not a location's printed key, a coast to infer, a kind that differs from the
unit's, a unit that is not there, an order a signed-on player may not give, a warning the full
parser would add, and every variant order kind. ``tests/test_order_fast_path.py`` checks the
two agree on random phases of every variant.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Support, Waive
from judge.orders.lexer import tokenize
from judge.orders.names import Names
from judge.orders.parsed import ParsedLine
from judge.orders.variant_kinds import ARMY_FLEET
from judge.variant import Map

if TYPE_CHECKING:
    from judge.orders.parser import Context

_KINDS = ("A", "F")
#: words that may follow a location in canonical text; a name is only fast if none of them
#: changes how the full parser reads it
_FOLLOWERS = ("H", "S", "C", "D", "via", "-")


class Table:
    """Printed location keys ("StP/nc", "Lon") and power names of one map, checked against the
    full parser's own name look-up."""

    def __init__(self, names: Names, m: Map, reserved: frozenset[str]):
        self.locs: dict[str, str] = {}
        self.coasted: dict[str, bool] = {}  # province -> has coasts to choose from
        for p, prov in m.provinces.items():
            self.coasted[p] = bool(prov.coasts)
            for loc in (p, *(f"{p}/{c}" for c in prov.coasts)):
                text = m.display(loc)
                if text.lower() not in reserved and all(
                        self._reads_as(names, f"{text} {f}", p, loc) for f in ("", *_FOLLOWERS)):
                    self.locs[text] = loc
        # "A"/"F" must not also be a power's abbreviation ("A Par" would then be Austria's)
        self.kinds = frozenset(k for k in _KINDS if names.power(k.lower()) is None)

    @staticmethod
    def _reads_as(names: Names, text: str, prov: str, loc: str) -> bool:
        """Does the full parser read the first words of ``text`` as ``loc``, and nothing more?"""
        from judge.orders.parser import RESERVED

        toks = tokenize(text)
        want = 1 if "/" not in loc else 3
        try:
            found = names.province(toks, 0, RESERVED)
        except ValueError:
            return False
        if found != (prov, 1):
            return False
        if "/" in loc:
            c = names.coast(toks, 1)
            return c is not None and c == (loc.partition("/")[2], want)
        return names.coast(toks, 1) is None and (len(toks) == 1 or toks[1].text != "/")


_TABLES: "weakref.WeakKeyDictionary[Map, Table]" = weakref.WeakKeyDictionary()


def table_for(names: Names, m: Map) -> Table:
    t = _TABLES.get(m)
    if t is None:
        from judge.orders.parser import RESERVED

        t = _TABLES[m] = Table(names, m, RESERVED)
    return t


def read_line(ctx: "Context", line: str, powers: dict[str, str], table: Table | None = None
              ) -> ParsedLine | None:
    """The order on ``line`` if it is canonical text the full parser reads the same way; else None.

    ``powers``: the variant's power names as printed ("England"); ``table``: ``table_for`` the
    map (looked up when not given)."""
    words = line.split()
    if not words:
        return None
    named: str | None = None
    w0 = words[0]
    if w0[-1] == ":":
        named = powers.get(w0[:-1])
        if named is None or len(words) == 1:
            return None
        words = words[1:]
    m = ctx.map
    if table is None:
        table = table_for(ctx.names, m)
    locs = table.locs
    pos = ctx.pos
    phase = pos.phase.kind
    explicit = named or ctx.sticky
    n = len(words)
    head = words[0]
    if head == "Waive" and n == 1 and phase == "adjustment":
        power = ctx.power or explicit
        if power is None or (ctx.power and explicit and explicit != ctx.power):
            return None
        return _parsed(line, Waive(power, None, ""), power, m)
    if head in ("Build", "Remove") and n == 3 and phase == "adjustment":
        kind, loc = words[1], locs.get(words[2])
        if kind not in table.kinds or loc is None:
            return None
        prov = loc.partition("/")[0]
        if head == "Build":
            if kind == "A" and loc != prov or kind == "F" and table.coasted[prov] and loc == prov:
                return None
            if explicit is None and ctx.power is None:
                power = pos.centres.get(prov)
                if power is None:
                    return None
            else:
                power = _power(ctx, explicit, None)
                if power is None:
                    return None
            return _parsed(line, Build(power, kind, loc), power, m)
        unit = pos.units.get(prov)
        if unit is None or unit.kind != kind or unit.loc != loc:
            return None
        power = _power(ctx, explicit, unit.power)
        return None if power is None else _parsed(line, Remove(power, kind, loc), power, m)
    if n < 3 or head not in table.kinds:
        return None
    loc = locs.get(words[1])
    if loc is None:
        return None
    prov = loc.partition("/")[0]
    if phase == "retreat":
        d = pos.dislodged.get(prov)
        unit = d.unit if d else None
    elif phase == "movement":
        unit = pos.units.get(prov)
    else:
        return None
    if unit is None or unit.kind != head or unit.loc != loc:
        return None
    power = _power(ctx, explicit, unit.power)
    if power is None:
        return None
    verb = words[2]
    if n == 3:
        if verb == "H" and phase == "movement":
            return _parsed(line, Hold(power, head, loc), power, m)
        if verb == "D" and phase == "retreat":
            return _parsed(line, Disband(power, head, loc), power, m)
        return None
    if verb == "-":
        via = n == 6 and words[4] == "via" and words[5] == "convoy"
        if not (n == 4 or via) or (via and (head != "A" or phase != "movement")):
            return None
        dest = _dest(table, head, words[3])
        if dest is None:
            return None
        if phase == "retreat":
            return _parsed(line, Retreat(power, head, loc, dest), power, m)
        return _parsed(line, Move(power, head, loc, dest, via), power, m)
    if phase != "movement":
        return None
    if verb == "S" and n in (5, 7):
        tkind, target = _target(ctx, words[3], words[4], table)
        if target is None:
            return None
        dest = None
        if n == 7:
            if words[5] != "-":
                return None
            dest = locs.get(words[6])
            if dest is None or ("/" in dest and tkind != "F"):
                return None
        return _parsed(line, Support(power, head, loc, tkind, target, dest), power, m)
    if verb == "C" and n == 7 and words[3] == "A" and words[5] == "-" and ARMY_FLEET not in ctx.modules:
        tkind, target = _target(ctx, "A", words[4], table)
        dest = locs.get(words[6])
        if target is None or dest is None or "/" in dest:
            return None
        return _parsed(line, Convoy(power, head, loc, tkind, target, dest), power, m)
    return None


def _parsed(line: str, order, power: str, m: Map) -> ParsedLine:
    return ParsedLine(line.strip(), order, power, map=m)


def _power(ctx: "Context", explicit: str | None, owner: str | None) -> str | None:
    """Who gives the order (as the full parser decides it); None where it would refuse it."""
    if ctx.power is not None:
        if explicit and explicit != ctx.power or owner is not None and owner != ctx.power:
            return None
        return ctx.power
    return explicit or owner


def _dest(table: Table, kind: str, text: str) -> str | None:
    dest = table.locs.get(text)
    if dest is None:
        return None
    if kind == "A":
        return None if "/" in dest else dest
    if "/" not in dest and table.coasted[dest]:
        return None  # a coast to infer
    return dest


def _target(ctx: "Context", kind: str, text: str, table: Table) -> tuple[str, str | None]:
    """A supported or convoyed unit: its kind as written and where it stands."""
    if kind not in table.kinds:
        return kind, None
    loc = table.locs.get(text)
    if loc is None:
        return kind, None
    unit = ctx.pos.units.get(loc.partition("/")[0])
    if unit is None:
        return kind, None if "/" in loc else loc
    if unit.loc != loc and "/" in loc:
        return kind, None
    return kind, unit.loc
