"""Retreat phase: where dislodged units may go, and what becomes of them."""

from __future__ import annotations

from judge.engine.orders import Disband, Order, OrderResult, Retreat
from judge.engine.position import Position, Unit
from judge.engine.right_hand import right_hand_retreats
from judge.variant import Map, province_of


def retreat_options(after: Position, unit: Unit, attacker_from: str | None,
                    contested: frozenset[str]) -> tuple[str, ...]:
    """Locations a dislodged unit may retreat to, given the board after the moves.

    Not into an occupied province, the province the attack came from (unless the attack was by
    convoy: DATC 4.A.5 b), or a province left empty by a stand-off.
    """
    m = after.map
    key = (unit.kind == "A", unit.prov if unit.kind == "A" else unit.loc)
    known = map_memo(m, "retreat_candidates")
    cands = known.get(key)
    if cands is None:  # the neighbours in order, each with its province; impassable ones left out
        adj = m.army_adj.get(key[1], ()) if key[0] else m.fleet_adj.get(key[1], ())
        cands = known[key] = tuple((loc, province_of(loc)) for loc in sorted(adj)
                                   if m.terrain.get(province_of(loc)) != "impassable")
    units = after.units
    # (a list made and copied costs less than a generator's frame resumed for each neighbour)
    return tuple([loc for loc, p in cands if p not in units and p != attacker_from and p not in contested])


def map_memo(m: Map, name: str) -> dict:
    """A memo of the adjudicator's, kept on the map (a map lives as long as its variant, and is
    never changed: a map change makes a new one)."""
    memo = m.__dict__.get(name)
    if memo is None:
        memo = m.__dict__[name] = {}
    return memo


def adjudicate_retreats(pos: Position, orders: list[Order], rules: dict | None = None
                        ) -> tuple[list[OrderResult], dict[str, Unit]]:
    """Resolve retreat orders; returns the results and the units after the retreats."""
    m = pos.map
    rules = rules if rules is not None else pos.variant.rules
    results: list[OrderResult] = []
    chosen: dict[str, tuple[Order, int]] = {}  # dislodged province -> (order, result index)
    for o in orders:
        p = province_of(o.loc)
        d = pos.dislodged.get(p)
        reason = ""
        executed: Order | None = None
        if not p:  # a waive, outside the adjustment phase it belongs to
            reason = f"a {type(o).keyword} is given only in an adjustment phase"
        elif d is None:
            reason = f"there is no dislodged unit in {m.name(p)}"
        elif d.unit.power != o.power:
            reason = f"the dislodged unit in {m.name(p)} belongs to {d.unit.power}"
        elif o.kind and o.kind != d.unit.kind:
            reason = f"the dislodged unit in {m.name(p)} is {'an army' if d.unit.kind == 'A' else 'a fleet'}"
        elif isinstance(o, Disband):
            if rules.get("retreat_disband", "allowed") == "forbidden":
                reason = ("this variant allows no order to disband a dislodged unit (\"off the board\"): "
                          "order a retreat to a province, or the judge retreats it by the default rule")
            else:
                executed = Disband(o.power, d.unit.kind, d.unit.loc)
        elif isinstance(o, Retreat):
            dest = _match_option(o.dest, d.retreats)
            if dest is None:
                opts = ", ".join(m.display(r) for r in d.retreats) or "none: it can only disband"
                reason = f"the {'army' if d.unit.kind == 'A' else 'fleet'} in {m.name(p)} can't retreat to {m.name(o.dest)} (retreats: {opts})"
            else:
                executed = Retreat(o.power, d.unit.kind, d.unit.loc, dest)
        else:
            reason = f"{type(o).__name__.lower()} orders are not allowed in a retreat phase"
        if executed is None:
            results.append(OrderResult(o, o.power, o.text(m), "invalid", reason))
            continue
        if p in chosen:
            old = results[chosen[p][1]]
            old.result, old.reason = "invalid", "replaced by a later order for the same unit"
        chosen[p] = (executed, len(results))
        results.append(OrderResult(executed, o.power, executed.text(m), ""))
    unordered = [d for p, d in pos.dislodged.items() if p not in chosen]
    if unordered:
        taken = {province_of(o.dest) for o, _ in chosen.values() if isinstance(o, Retreat)}
        for d, o in zip(unordered, default_retreats(pos, unordered, taken, rules)):
            chosen[d.unit.prov] = (o, len(results))
            results.append(OrderResult(o, d.unit.power, o.text(m), "", "no order", default=True))
    targets: dict[str, list[str]] = {}
    for p, (o, _) in chosen.items():
        if isinstance(o, Retreat):
            targets.setdefault(province_of(o.dest), []).append(p)
    units = dict(pos.units)
    for p, (o, slot) in chosen.items():
        r = results[slot]
        if isinstance(o, Retreat):
            if len(targets[province_of(o.dest)]) > 1:
                r.result, r.reason = "fails", _join(r.reason, "bounced, disbanded")
            else:
                r.result = "succeeds"
                units[province_of(o.dest)] = Unit(o.power, pos.dislodged[p].unit.kind, o.dest)
        else:
            r.result = "succeeds"
            if r.default:
                r.reason = "no order: disbanded"
    return results, units


def default_retreats(pos: Position, unordered: list, taken: set[str], rules: dict) -> list[Order]:
    """The orders given for the dislodged units whose owners sent none, in the same order.

    ``taken``: provinces other dislodged units were ordered to retreat to. Under the Right-Hand
    Rule the units are settled together, so that no default retreat bounces another retreat.
    """
    if rules.get("default_retreat", "disband") == "right_hand":
        dests = right_hand_retreats(pos, unordered, taken)
        return [Retreat(d.unit.power, d.unit.kind, d.unit.loc, dest) if dest is not None
                else Disband(d.unit.power, d.unit.kind, d.unit.loc) for d, dest in zip(unordered, dests)]
    return [Disband(d.unit.power, d.unit.kind, d.unit.loc) for d in unordered]


def _match_option(dest: str, options: tuple[str, ...]) -> str | None:
    if dest in options:
        return dest
    p = province_of(dest)
    same = [o for o in options if province_of(o) == p]
    if "/" not in dest and len(same) == 1:
        return same[0]
    if "/" in dest and len(same) == 1 and "/" not in same[0]:
        return same[0]  # a coast given where the province has none: ignored
    return None


def _join(a: str, b: str) -> str:
    return f"{a}, {b}" if a else b
