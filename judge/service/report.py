"""Report: turn adjudicator results and positions into njudge-like lines for the templates.

Pure functions, no I/O: ``results_context`` and friends return plain data that
``templates/*.txt`` lay out (see :mod:`judge.service.render`).
"""

from __future__ import annotations

from typing import Any

from judge.engine.adjustment import adjustments_due
from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Order, OrderResult, Remove, Retreat, Support, Waive
from judge.engine.position import Position
from judge.variant import Phase, Variant, province_of

KIND_WORD = {"A": "Army", "F": "Fleet", "A/F": "Army/Fleet"}
PHASE_WORD = {"movement": "Movement", "retreat": "Retreat", "adjustment": "Adjustment"}
NEXT_WORD = {"movement": "Movement", "retreat": "Retreats", "adjustment": "Adjustments"}


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


def tag(r: OrderResult) -> str:
    """njudge's failure tag: ``(*bounce*)``, ``(*cut*)``, ``(*dislodged*)`` …"""
    if r.result == "invalid":
        return f"(*invalid: {r.reason}*)" if r.reason else "(*invalid*)"
    reason = r.reason or ""
    parts = []
    for bit in [b.strip() for b in reason.split(",") if b.strip()]:
        if bit.startswith("no order"):
            continue
        if bit == "bounced":
            bit = "bounce"
        elif bit == "disbanded" and r.result == "fails":
            bit = "destroyed"
        elif bit.startswith("void"):
            bit = "void"
        parts.append(bit)
    if r.result == "fails" and not parts:
        parts.append("fails")
    return f"(*{', '.join(parts)}*)" if parts else ""


def result_line(r: OrderResult, pos: Position) -> str:
    if r.order is None:
        body = r.text
    elif r.default and isinstance(r.order, Hold):
        body = f"{_unit(pos, r.order.kind, r.order.loc)}, No Order Processed"
    elif r.default and isinstance(r.order, Disband):
        body = f"{_unit(pos, r.order.kind, r.order.loc)}, No Order Processed (DISBAND)"
    elif r.default and isinstance(r.order, Remove) and "civil disorder" in (r.reason or ""):
        body = "Defaults, r" + describe(r.order, pos)[1:]
    elif r.default and isinstance(r.order, Waive):
        body = "Build waived" if r.text == "Waive" else f"{r.text.replace('Waive', 'Builds waived:')}"
    else:
        body = describe(r.order, pos)
    t = tag(r) if not (r.default and r.result == "succeeds") else ""
    return f"{body}.{' ' + t if t else ''}"


def results_context(game: str, seq: int, pos: Position, results: list[OrderResult], nxt: Position,
                    events: list[str]) -> dict[str, Any]:
    """What ``results.txt`` needs about one processed phase."""
    v = pos.variant
    by_power: dict[str, list[str]] = {p: [] for p in v.powers}
    for r in results:
        by_power.setdefault(r.power, []).append(result_line(r, pos))
    groups = [{"power": p, "lines": lines} for p, lines in by_power.items() if lines]
    dislodged = []
    if nxt.phase.kind == "retreat":
        nm = nxt.map
        for d in sorted(nxt.dislodged.values(), key=lambda d: (d.unit.power, d.unit.loc)):
            who = f"The {v.powers[d.unit.power].adjective} {KIND_WORD.get(d.unit.kind, 'unit')} in {nm.name(d.unit.loc)}"
            if d.retreats:
                opts = [nm.name(r) for r in d.retreats]
                where = opts[0] if len(opts) == 1 else ", ".join(opts[:-1]) + " or " + opts[-1]
                dislodged.append(f"{who} can retreat to {where}.")
            else:
                dislodged.append(f"{who} has no retreat and will be disbanded.")
    year_end = pos.phase.kind != "adjustment" and (nxt.phase.kind == "adjustment" or nxt.phase.year != pos.phase.year)
    return {
        "game": game, "seq": f"{seq:03d}", "kind": PHASE_WORD[pos.phase.kind], "title": phase_title(pos.phase),
        "phase": str(pos.phase), "short": pos.phase.short, "groups": groups, "dislodged": dislodged,
        "events": list(events), "ownership": ownership(nxt) if year_end else None,
        "adjustment": pos.phase.kind == "adjustment",
    }


def ownership(pos: Position) -> dict[str, Any]:
    """Supply-centre owners and the unit balance, for the end-of-year block."""
    v = pos.variant
    m = pos.map
    due = adjustments_due(pos)
    rows = []
    for p in v.powers:
        cs = sorted(m.name(c) for c, o in pos.centres.items() if o == p)
        units = sum(1 for u in pos.units.values() if u.power == p)
        if not cs and not units:
            continue
        d = due.get(p, 0)
        rows.append({"power": p, "centres": cs, "n": len(cs), "units": units,
                     "change": (f"Builds {d:>2} unit{'s' if d != 1 else ''}" if d > 0 else
                                f"Removes {-d:>2} unit{'s' if d != -1 else ''}" if d < 0 else "")})
    unowned = sorted(m.name(c) for c in m.centres if c not in pos.centres)
    return {"rows": rows, "unowned": unowned}


def order_list(pos: Position, power: str, orders: dict[str, Order], rules: dict[str, Any] | None = None) -> list[str]:
    """A power's current orders, one line a unit (or build), unordered units shown as such."""
    kind = pos.phase.kind
    out: list[str] = []
    if kind == "movement":
        from judge.service.orderbook import hidden_units

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


def variant_powers(v: Variant) -> list[str]:
    return list(v.powers)
