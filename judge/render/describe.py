"""The one order describer: orders and units in words, for every mail that shows them.

Two notations, one place. :class:`Describer` writes the zine report's results
(``F North Sea - Norway``, full province names joined by no-break spaces so wrapping never
splits them, foreign units with their adjective). :func:`describe` writes njudge's words for
the order lists a player gets back (``Fleet London -> North Sea``; :func:`order_list`,
:func:`adjustment_note`). Pure functions of the board: no I/O, no game store.
"""

from __future__ import annotations

from typing import Any

from judge.engine.adjustment import adjustments_due
from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Order, OrderResult, Remove, Retreat, Support, Waive
from judge.engine.position import Position
from judge.render.templates import NBSP, nb
from judge.variant import Map, Phase, Variant, province_of

KIND_WORD = {"A": "Army", "F": "Fleet", "A/F": "Army/Fleet"}
PHASE_WORD = {"movement": "Movement", "retreat": "Retreat", "adjustment": "Adjustment"}



class Describer:
    """Order and unit texts with full province names, foreign units with their adjective."""

    def __init__(self, variant: Variant, m: Map, before: Position):
        self.variant, self.m, self.before = variant, m, before

    def loc(self, loc: str) -> str:
        return nb(self.m.name(loc)) if province_of(loc) in self.m.provinces else loc

    def unit(self, kind: str | None, loc: str, power: str | None = None) -> str:
        """``A London``; ``French A Burgundy`` when the unit is not ``power``'s own."""
        u = self.before.units.get(province_of(loc))
        d = self.before.dislodged.get(province_of(loc))
        if kind is None:
            kind = u.kind if u else d.unit.kind if d else ""
        owner = u.power if u else None
        text = f"{kind}{NBSP}{self.loc(loc)}" if kind else self.loc(loc)
        if power and owner and owner != power and owner in self.variant.powers:
            text = f"{self.variant.powers[owner].adjective}{NBSP}{text}"
        return text

    def order(self, r: OrderResult) -> str:
        o: Order | None = r.order
        if o is None:
            return r.text
        me = self.unit(o.kind, o.loc) if o.loc else ""
        if isinstance(o, Hold):
            return f"{me} H"
        if isinstance(o, Move):
            return f"{me} - {self.loc(o.dest)}" + (" via convoy" if o.via_convoy else "")
        if isinstance(o, Support):
            target = self.unit(o.target_kind, o.target, r.power)
            return f"{me} S {target}" + (f" - {self.loc(o.dest)}" if o.dest else "")
        if isinstance(o, Convoy):
            return f"{me} C {self.unit(o.target_kind or 'A', o.target, r.power)} - {self.loc(o.dest)}"
        if isinstance(o, Retreat):
            return f"{me} - {self.loc(o.dest)}"
        if isinstance(o, Disband):
            return f"{me} disbands"
        if isinstance(o, Build):
            return f"Builds {o.kind or 'A'}{NBSP}{self.loc(o.loc)}"  # never split from its place
        if isinstance(o, Remove):
            return f"Removes {me}"
        if isinstance(o, Waive):
            n = r.text.split()[-1]
            return f"Waives {n} builds" if n.isdigit() else "Waives a build"
        return self.module_order(o, me, r)

    def module_order(self, o: Order, me: str, r: OrderResult) -> str:
        """Order kinds from variant modules, read by their fields; else their own notation."""
        other = getattr(o, "fleet", "") or getattr(o, "army", "")
        dest = getattr(o, "dest", "")
        letter = {"protect": "P", "fast_ferry": "FF", "embark": "E", "disembark": "D"}.get(o.keyword)
        if letter and other and dest:
            return f"{me} {letter} {self.unit(None, other, r.power)} - {self.loc(dest)}"
        if letter and other:
            return f"{me} {letter} {self.unit(None, other, r.power)}"
        if letter and dest:
            return f"{me} {letter} {self.loc(dest)}"
        if o.keyword == "transform":
            coast = getattr(o, "coast", "")
            return f"{me} T {getattr(o, 'new_kind', '')}" + (f" ({self.m.coast_names.get(coast, coast)})" if coast else "")
        return r.text


def phase_title(phase: Phase) -> str:
    """``Spring of 1901``."""
    return f"{phase.season} of {phase.year}"


def unit_kind_at(pos: Position, loc: str, given: str | None) -> str | None:
    p = province_of(loc)
    u = pos.units.get(p)
    if u is None and p in pos.dislodged:
        u = pos.dislodged[p].unit
    return u.kind if u is not None else given


def _unit(pos: Position, kind: str | None, loc: str, owner: str | None = None) -> str:
    k = unit_kind_at(pos, loc, kind)
    word = KIND_WORD.get(k or "", "Unit")
    adj = ""
    if owner is not None:
        u = pos.units.get(province_of(loc))
        if u is not None and u.power != owner:
            adj = pos.variant.powers[u.power].adjective + " "
    return f"{adj}{word} {pos.map.name(loc)}"


def describe(order: Order, pos: Position) -> str:
    """An order in words, njudge style: ``Fleet London -> North Sea``."""
    m = pos.map
    if isinstance(order, Move):
        via = " (via convoy)" if order.via_convoy else ""
        return f"{_unit(pos, order.kind, order.loc)} -> {m.name(order.dest)}{via}"
    if isinstance(order, Retreat):
        return f"{_unit(pos, order.kind, order.loc)} -> {m.name(order.dest)}"
    if isinstance(order, Support):
        tail = f" -> {m.name(order.dest)}" if order.dest else ""
        return f"{_unit(pos, order.kind, order.loc)} SUPPORT {_unit(pos, order.target_kind, order.target, order.power)}{tail}"
    if isinstance(order, Convoy):
        return (f"{_unit(pos, order.kind, order.loc)} CONVOY "
                f"{_unit(pos, order.target_kind or 'A', order.target, order.power)} -> {m.name(order.dest)}")
    if isinstance(order, Hold):
        return f"{_unit(pos, order.kind, order.loc)} HOLD"
    if isinstance(order, Disband):
        return f"{_unit(pos, order.kind, order.loc)} DISBAND"
    if isinstance(order, Build):
        k = order.kind or "A"
        return f"Builds {'an army' if k == 'A' else 'a fleet' if k == 'F' else 'a ' + KIND_WORD.get(k, k).lower()} in {m.name(order.loc)}"
    if isinstance(order, Remove):
        k = unit_kind_at(pos, order.loc, order.kind)
        return f"Removes the {KIND_WORD.get(k or '', 'unit').lower()} in {m.name(order.loc)}"
    if isinstance(order, Waive):
        return "Build waived"
    try:
        return order.text(m)
    except Exception:
        return type(order).__name__


def order_list(pos: Position, power: str, orders: dict[str, Order], rules: dict[str, Any] | None = None) -> list[str]:
    """A power's current orders, one line a unit (or build), unordered units shown as such."""
    kind = pos.phase.kind
    out: list[str] = []
    if kind == "movement":
        from judge.engine.modules.davis1885 import hidden_units

        hidden = {p for p, pw in hidden_units(pos, rules).items() if pw == power}
        provs = [p for p, u in pos.units.items() if u.power == power] + sorted(hidden)
        for prov in sorted(provs, key=pos.map.name):
            if prov in hidden:
                out.extend(_hidden_unit_lines(pos, power, prov, orders, rules))
                continue
            u = pos.units[prov]
            o = orders.get(prov)
            out.append(f"{power}: {describe(o, pos)}." if o else f"{power}: {_unit(pos, u.kind, u.loc)}, No Order Processed.")
    elif kind == "retreat":
        for prov, d in sorted(pos.dislodged.items(), key=lambda kv: pos.map.name(kv[1].unit.loc)):
            if d.unit.power != power:
                continue
            o = orders.get(prov)
            opts = ", ".join(pos.map.name(r) for r in d.retreats) or "none"
            out.append(f"{power}: {describe(o, pos)}." if o else
                       f"{power}: {_unit(pos, d.unit.kind, d.unit.loc)}, No Order Processed (retreats: {opts}).")
    else:
        for o in orders.values():
            out.append(f"{(power + ':'):<26}{describe(o, pos)}.")
    return out


def _hidden_unit_lines(pos: Position, power: str, prov: str, orders: dict[str, Order],
                       rules: dict[str, Any] | None) -> list[str]:
    """A hidden start unit (1885 II): its order with the kind it will take, and how that was told.

    Only its owner sees this (the reply to its orders); the others learn the kind from the results.
    """
    import dataclasses

    from judge.engine.modules.davis1885 import KIND_WORD as CHOSEN, choose_kind

    rules = rules if rules is not None else pos.variant.rules
    k, how = choose_kind(pos, prov, power, list(orders.values()), rules)
    o = orders.get(prov)
    name = pos.map.name(prov)
    if o is None:
        line = f"{power}: Army or Fleet {name}, No Order Processed."
    else:
        line = f"{power}: {describe(dataclasses.replace(o, kind=o.kind or k), pos)}."
    return [line, f"  ({name} is to be {CHOSEN[k]}: {how}; secret until the results)"]


def adjustment_note(pos: Position, power: str, rules: dict[str, Any] | None = None) -> str:
    if pos.phase.kind != "adjustment":
        return ""
    d = adjustments_due(pos).get(power, 0)
    if d > 0:
        from judge.engine.adjustment import build_sites

        rules = rules if rules is not None else pos.variant.rules
        where = "vacant owned centres" if rules.get("build_sites") == "any_owned" else "free home centres"
        sites = ", ".join(pos.map.name(s) for s in build_sites(pos, power, rules)) or "none"
        return f"{power} may build {d} unit{'s' if d != 1 else ''} ({where}: {sites})."
    if d < 0:
        return f"{power} must remove {-d} unit{'s' if d != -1 else ''}."
    return f"{power} has no adjustments to make."


def centre_counts(pos: Position) -> dict[str, int]:
    out = {p: 0 for p in pos.variant.powers}
    for _, o in pos.centres.items():
        out[o] = out.get(o, 0) + 1
    return out
