"""Adjustment phase: builds, removals, waives and civil disorder."""

from __future__ import annotations

from collections import deque

from judge.engine.centres import build_centre_owners
from judge.engine.least_effect import least_effect_removals
from judge.engine.orders import Build, Order, OrderResult, Remove, Waive
from judge.engine.position import Position, Unit
from judge.variant import province_of


def unit_count(u: Unit) -> int:
    """How many units a piece counts as at adjustments (an A/F is two)."""
    return 2 if u.kind == "A/F" else 1


def adjustments_due(pos: Position) -> dict[str, int]:
    """Power -> builds (positive) or removals (negative) due."""
    diff = dict.fromkeys(pos.variant.powers, 0)  # one pass over the board, not one a power
    for u in pos.units.values():
        p = u.power
        if p in diff:
            diff[p] -= 2 if u.kind == "A/F" else 1  # (unit_count, without a call a unit)
    for p in pos.centres.values():
        if p in diff:
            diff[p] += 1
    return {power: d for power, d in diff.items() if d}


def build_sites(pos: Position, power: str, rules: dict | None = None) -> list[str]:
    """Vacant owned centres where ``power`` may build now."""
    rules = rules if rules is not None else pos.variant.rules
    p = pos.variant.powers[power]
    if rules.get("build_sites") == "any_owned":
        sites = [c for c, o in pos.centres.items() if o == power]
    else:
        owners = build_centre_owners(pos) if p.build_sites else {}
        sites = [c for c in (*p.home, *p.build_sites) if pos.centres.get(c, owners.get(c)) == power]
    return sorted(s for s in dict.fromkeys(sites) if s not in pos.units)


def adjudicate_adjustments(pos: Position, orders: list[Order], rules: dict | None = None
                           ) -> tuple[list[OrderResult], dict[str, Unit]]:
    rules = rules if rules is not None else pos.variant.rules
    m = pos.map
    due = adjustments_due(pos)
    units = dict(pos.units)
    results: list[OrderResult] = []
    used: dict[str, int] = {p: 0 for p in due}
    for o in orders:
        power = o.power
        need = due.get(power, 0)
        text = o.text(m)
        reason = ""
        result = "invalid"
        if isinstance(o, (Build, Waive)):
            if need <= 0:
                reason = f"{power} has no builds due"
            elif used[power] >= need:
                reason = f"{power} has only {need} build{'s' if need > 1 else ''} due"
                result = "fails"  # a legal order beyond the count: the first ones are used (4.D.4)
            elif isinstance(o, Build):
                reason = _build_problem(pos, units, o, rules)
                if not reason and province_of(o.loc) in units:
                    reason, result = f"a unit is already built in {m.name(o.loc)}", "fails"  # 6.I.7
            if not reason:
                used[power] += 1
                if isinstance(o, Build):
                    units[province_of(o.loc)] = Unit(power, o.kind or "A", o.loc)
                results.append(OrderResult(o, power, text, "succeeds"))
                continue
        elif isinstance(o, Remove):
            p = province_of(o.loc)
            u = units.get(p)
            if need >= 0:
                reason = f"{power} has no removals due"
            elif used[power] >= -need:
                reason = f"{power} has only {-need} removal{'s' if need < -1 else ''} due"
                result = "fails"  # 4.D.6: removals are taken in order
            elif u is None and p in pos.units and pos.units[p].power == power:
                reason, result = f"the unit in {m.name(p)} is already removed", "fails"  # 6.J.2
            elif u is None or p not in pos.units:
                reason = f"there is no unit in {m.name(p)}"
            elif u.power != power:
                reason = f"the unit in {m.name(p)} belongs to {u.power}"
            elif o.kind and o.kind != u.kind:
                reason = f"the unit in {m.name(p)} is {'an army' if u.kind == 'A' else 'a fleet'}"
            if not reason:
                used[power] += 1
                del units[p]
                results.append(OrderResult(Remove(power, u.kind, u.loc), power, f"Remove {u.text(m)}", "succeeds"))  # type: ignore[union-attr]
                continue
        else:
            reason = f"{type(o).__name__.lower()} orders are not allowed in an adjustment phase"
        results.append(OrderResult(o, power, text, result, reason))
    for power, need in due.items():
        if need > 0 and used[power] < need:
            left = need - used[power]
            results.append(OrderResult(Waive(power, None, ""), power, "Waive" if left == 1 else f"Waive {left}",
                                       "succeeds", "no order: build waived", default=True))
        elif need < 0 and used[power] < -need:
            for u in civil_disorder_removals(pos, units, power, -need - used[power], rules):
                del units[u.prov]
                results.append(OrderResult(Remove(power, u.kind, u.loc), power, f"Remove {u.text(m)}",
                                           "succeeds", "civil disorder", default=True))
    return results, units


def _build_problem(pos: Position, units: dict[str, Unit], o: Build, rules: dict) -> str:
    m = pos.map
    p = province_of(o.loc)
    kind = o.kind
    if kind not in ("A", "F"):
        return "say which kind of unit to build (A or F)"
    owners = build_centre_owners(pos) if p not in m.centres else {}
    if p not in m.centres and p not in owners:
        return f"{m.name(p)} is not a supply centre"
    if pos.centres.get(p, owners.get(p)) != o.power:
        return f"{o.power} does not own {m.name(p)}"
    if rules.get("build_sites") != "any_owned":
        pw = pos.variant.powers[o.power]
        if p not in pw.home and p not in pw.build_sites:
            return f"{m.name(p)} is not a home centre of {o.power}"
    if p in units and p in pos.units:
        return f"{m.name(p)} is occupied"
    if kind == "A" and m.terrain[p] not in ("land", "coast"):
        return f"an army cannot be built in {m.name(p)}"
    if kind == "F":
        if m.terrain[p] != "coast" and m.terrain[p] != "sea":
            return f"a fleet cannot be built in {m.name(p)}, an inland province"
        if m.provinces[p].coasts and "/" not in o.loc:  # DATC 4.B.7
            coasts = " or ".join(m.display(c) for c in m.fleet_locs[p])
            return f"say which coast of {m.name(p)} the fleet is built on ({coasts})"
        if "/" in o.loc and o.loc not in m.fleet_locs[p]:
            return f"{m.name(p)} has no such coast"
    return ""


def civil_disorder_removals(pos: Position, units: dict[str, Unit], power: str, count: int,
                            rules: dict | None = None) -> list[Unit]:
    """Units removed when a power fails to order enough removals.

    2023 rules (DATC 4.D.8): the units farthest from the nearest owned supply centre go first,
    distance counted with armies and fleets both crossing land and sea; fleets before armies at
    equal distance; then alphabetically by the English province name.
    """
    rules = rules if rules is not None else pos.variant.rules
    rule = rules.get("civil_disorder", "distance_2023")
    mine = [u for u in units.values() if u.power == power and u.prov in pos.units]
    if rule == "least_effect":
        return least_effect_removals(pos, mine, count)
    m = pos.map
    owned = {c for c, p in pos.centres.items() if p == power}
    dist = _distances(m.any_adj, owned)
    far = len(m.provinces) + 1

    def key(u: Unit) -> tuple[int, int, str]:
        return (-dist.get(u.prov, far), 0 if u.kind != "A" else 1, m.provinces[u.prov].name.lower())

    return sorted(mine, key=key)[:count]


def _distances(adj: dict[str, frozenset[str]], sources: set[str]) -> dict[str, int]:
    dist = {s: 0 for s in sources}
    q = deque(sources)
    while q:
        p = q.popleft()
        for n in adj.get(p, ()):
            if n not in dist:
                dist[n] = dist[p] + 1
                q.append(n)
    return dist
