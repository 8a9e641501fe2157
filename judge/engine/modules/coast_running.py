"""Coast-Running (Eric Verheiden): armies protect fleets running their coastlines.

Rules text: ``../shared/seeds/002_d8800235afaf96fe.txt``; rulings: ``docs/rulings.md``
(section "Coast-Running"); data: ``seeds/coast_running.toml`` (the ``[coastlines]`` table,
documented in ``docs/variant-format.md``).

An army in a coastal province may give up its move to *protect* (``A Tun P F Ion - Wes``) one
fleet running the province's coastline(s): the fleet, if it stands next to such a coastline, may
move along it to any space the coastline borders. A string of protecting armies carries a fleet
along a chain of coastlines; the string must be unbroken (each coastline joins the next). The
fleet-permeable Den, Kie, Swe and Con have one coastline touching both their seas; StP, Spa and
Bul have two coastlines that do not join, so a run may use both only by going round through a
neighbour (``Bul/ec - Con - Bul/sc``).

In the resolver a run is a *carried* move, the convoy machinery with the roles swapped: the
protect orders are its carriers and a protect order's decision is "the army stays" (protection
cannot be cut; a dislodged protecting army breaks the run). Runs follow ``convoy_paradox`` like
convoys (the variant sets ``convoyed_attack_yields``: a run that would affect an attack on any
of its protecting armies does not take place).

Multi-route disruption follows the 1971 rulebook, for runs and convoys alike: a run (convoy)
fails if *any* army (fleet) on any of its minimal routes is dislodged ("Ambiguous routes for
coastal runs are handled in the same way as ambiguous convoy routes"; the Kie/Den example).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from judge.engine.modules import RuleModule
from judge.engine.movement import CONVOY, RESOLVED, UNRESOLVED, Illegal, _a
from judge.engine.orders import Order, OrderResult
from judge.engine.position import Unit
from judge.engine.variant_kinds import Protect
from judge.variant import Map, province_of


class CoastlineError(ValueError):
    """Coastline data that does not fit the map (names the province and the problem)."""


# ================================================================== coastline geometry
@dataclass(frozen=True)
class Coastlines:
    """The coastlines of a map. A coastline's id is the fleet location it belongs to
    (``"tun"``, ``"bul/ec"``); ``borders[c]`` are the locations it borders (seas and coastal
    locations); two coastlines join when each borders the other's location."""

    borders: dict[str, frozenset[str]]
    of_prov: dict[str, tuple[str, ...]]  # province -> its coastlines
    joins: dict[str, frozenset[str]]

    def touching(self, loc: str, allowed: Iterable[str]) -> list[str]:
        return [c for c in allowed if loc in self.borders[c]]


def coastlines_from_table(table: dict[str, Any], m: Map) -> Coastlines:
    """Read and check the ``[coastlines]`` table against the map ``m``."""
    borders: dict[str, frozenset[str]] = {}
    of_prov: dict[str, list[str]] = {}
    for key, lines in table.items():
        p = m.lookup(key)
        if p is None:
            raise CoastlineError(f"coastlines.{key}: no such province")
        prov = m.provinces[p]
        if prov.terrain != "coast":
            raise CoastlineError(f"coastlines.{key}: {prov.name} is not a coastal province")
        if not isinstance(lines, dict) or not lines:
            raise CoastlineError(f"coastlines.{key}: give its coastline(s), e.g. coast = [...]")
        expected = set(prov.coasts) if prov.coasts else {"coast"}
        if set(lines) != expected:
            raise CoastlineError(f"coastlines.{key}: coastlines must be {sorted(expected)}, not {sorted(lines)}")
        for name, spaces in lines.items():
            cid = p if name == "coast" else f"{p}/{name}"
            locs = set()
            for s in spaces:
                loc = _loc(s, m)
                if loc is None:
                    raise CoastlineError(f"coastlines.{key}.{name}: {s!r} is not a place a fleet can be")
                if province_of(loc) == p:
                    raise CoastlineError(f"coastlines.{key}.{name}: a coastline cannot border its own province")
                locs.add(loc)
            borders[cid] = frozenset(locs)
            of_prov.setdefault(p, []).append(cid)
    for p, prov in m.provinces.items():
        if prov.terrain == "coast" and p not in of_prov and m.fleet_locs.get(p):
            raise CoastlineError(f"coastlines: {prov.key} has no entry")
    joins: dict[str, frozenset[str]] = {}
    for c, bs in borders.items():
        js = set()
        for b in bs:
            if m.terrain[province_of(b)] == "coast":
                if b not in borders:
                    raise CoastlineError(f"coastlines: {m.display(c)} borders {m.display(b)}, which is no coastline")
                if c not in borders[b]:
                    raise CoastlineError(f"coastlines: {m.display(c)} lists {m.display(b)} but not the other way")
                js.add(b)
        joins[c] = frozenset(js)
    return Coastlines(borders, {p: tuple(cs) for p, cs in of_prov.items()}, joins)


def coastlines_from_map(m: Map) -> Coastlines:
    """Default for a variant without a table: each coastal fleet location is one coastline,
    bordering the places a fleet there can move to."""
    table: dict[str, Any] = {}
    for p, prov in m.provinces.items():
        if prov.terrain != "coast" or not m.fleet_locs.get(p):
            continue
        table[prov.key] = {(loc.partition("/")[2] or "coast"): [m.display(x) for x in m.fleet_adj.get(loc, ())]
                           for loc in m.fleet_locs[p]}
    return coastlines_from_table(table, m)


def _loc(text: str, m: Map) -> str | None:
    name, _, coast = str(text).partition("/")
    p = m.lookup(name)
    if p is None:
        return None
    loc = f"{p}/{coast.lower()}" if coast else p
    return loc if loc in m.fleet_locs.get(p, ()) and m.terrain[p] in ("sea", "coast") else None


_CACHE: dict[tuple[int, int], tuple[Any, Map, Coastlines]] = {}


def coastlines_for(variant: Any, m: Map) -> Coastlines:
    """The coastlines of ``m`` from the variant's ``[coastlines]`` table (cached)."""
    key = (id(variant), id(m))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is variant and hit[1] is m:
        return hit[2]
    table = getattr(variant, "raw", {}).get("coastlines")
    cl = coastlines_from_table(table, m) if table else coastlines_from_map(m)
    _CACHE[key] = (variant, m, cl)
    return cl


def chordless_routes(starts: Callable[[str], bool], ends: Callable[[str], bool],
                     joined: Callable[[str, str], bool], nodes: Iterable[str]) -> list[tuple[str, ...]]:
    """Every minimal (chordless) route through ``nodes``: a chain of joined nodes whose first
    touches the start and last the end, with no shortcut (no node but the first touches the
    start, none but the last the end, no two non-consecutive nodes joined)."""
    nodes = list(nodes)
    out: list[tuple[str, ...]] = []

    def extend(path: list[str]) -> None:
        last = path[-1]
        if ends(last):
            out.append(tuple(path))
            return
        for q in nodes:
            if q in path or not joined(last, q) or starts(q):
                continue
            if any(joined(p, q) for p in path[:-1]):
                continue
            path.append(q)
            extend(path)
            path.pop()

    for first in nodes:
        if starts(first):
            extend([first])
    return out


def run_routes(cl: Coastlines, start: str, dest: str, coastlines: Iterable[str]) -> list[tuple[str, ...]]:
    """Minimal runs from fleet location ``start`` to location ``dest`` along ``coastlines``.
    A run never uses a coastline of its destination province (an army cannot protect an
    attack on itself)."""
    dp = province_of(dest)
    allowed = [c for c in coastlines if province_of(c) != dp]
    b, j = cl.borders, cl.joins
    return chordless_routes(lambda c: start in b[c], lambda c: dest in b[c], lambda x, y: y in j[x], allowed)


def break_point(cl: Coastlines, m: Map, start: str, dest: str, coastlines: Iterable[str]) -> str:
    """Why no run leads from ``start`` to ``dest``: where the string of coastlines breaks."""
    dp = province_of(dest)
    allowed = {c for c in coastlines if province_of(c) != dp}

    def closure(seed: set[str]) -> set[str]:
        seen, stack = set(seed), list(seed)
        while stack:
            c = stack.pop()
            for q in cl.joins[c]:
                if q in allowed and q not in seen:
                    seen.add(q)
                    stack.append(q)
        return seen

    a = closure({c for c in allowed if start in cl.borders[c]})
    z = closure({c for c in allowed if dest in cl.borders[c]})
    if any(province_of(c) == dp for c in coastlines):
        why = break_point(cl, m, start, dest, [c for c in coastlines if province_of(c) != dp])
        return why + f" (the army in {m.name(dp)} cannot protect a run into its own province)"
    if not a:
        return f"no army stands on a coastline next to {m.name(start)}"
    if not z:
        return f"no army stands on a coastline bordering {m.name(dest)}"
    near_a = set().union(*(cl.borders[c] for c in a))
    near_z = set().union(*(cl.borders[c] for c in z))
    gaps = sorted(g for g in near_a & near_z if m.terrain[province_of(g)] == "sea")
    why = "the string of protecting armies is broken"
    if gaps:
        why += " in " + " / ".join(m.name(g) for g in gaps)
    split = sorted({province_of(c) for c in a} & {province_of(c) for c in z})
    if split:  # both coasts of one province, but nothing joins them
        return "no run passes " + ", ".join(m.name(p) for p in split) + " from one coast to the other"
    return why


# ================================================================== the resolver mixin
def _is_protect(o: Order) -> bool:
    return isinstance(o, Protect)


class CoastRunningResolver:
    """Mixed in before :class:`MovementResolver` when the ``coast_running`` module is on."""

    # -- geometry on the board --------------------------------------------------------------
    def coastlines(self: Any) -> Coastlines:
        cl = getattr(self, "_coastlines", None)
        if cl is None:
            cl = self._coastlines = coastlines_for(self.pos.variant, self.m)
        return cl

    def army_coastlines(self: Any, exclude: str | None = None) -> list[str]:
        """Coastlines of the provinces where an army now stands (any power)."""
        cl = self.coastlines()
        out: list[str] = []
        for p, u in self.pos.units.items():
            if u.kind == "A" and p != exclude:
                out.extend(cl.of_prov.get(p, ()))
        return out

    def run_dest_locs(self: Any, dest: str) -> tuple[str, ...]:
        p = province_of(dest)
        if "/" in dest:
            return (dest,) if dest in self.m.fleet_locs.get(p, ()) else ()
        return self.m.fleet_locs.get(p, ())

    def run_reaches(self: Any, start: str, dest: str, exclude: str | None = None) -> list[str]:
        """Locations of ``dest`` a fleet at ``start`` could reach by a run of armies on the board."""
        cl = self.coastlines()
        lines = self.army_coastlines(exclude)
        return [d for d in self.run_dest_locs(dest) if run_routes(cl, start, d, lines)]

    # -- legality ---------------------------------------------------------------------------
    def check_move(self: Any, unit: Unit, dest: str, via_convoy: bool) -> str:
        try:
            return super().check_move(unit, dest, via_convoy)  # type: ignore[misc]
        except Illegal:
            if unit.kind != "F":
                raise
            m = self.m
            dp = province_of(dest)
            if dp == unit.prov or m.terrain.get(dp) not in ("sea", "coast"):
                raise
            reach = m.fleet_adj.get(unit.loc, frozenset())
            if "/" not in dest and any(loc in reach for loc in m.fleet_locs.get(dp, ())):
                raise  # a coast to choose among direct moves (DATC 4.B.1): not a run question
            found = self.run_reaches(unit.loc, dest)
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                names = " or ".join(m.display(x) for x in found)
                raise Illegal(f"the coast of {m.name(dp)} must be given ({names})") from None
            target = dest if "/" in dest else (self.run_dest_locs(dest) or (dest,))[0]
            why = break_point(self.coastlines(), m, unit.loc, target, self.army_coastlines())
            raise Illegal(f"the fleet in {m.name(unit.loc)} can't reach {m.name(dest)}, "
                          f"not even by coast-running: {why}") from None

    def target_can_reach(self: Any, target: Unit, dest: str, exclude: str) -> bool:
        if super().target_can_reach(target, dest, exclude):  # type: ignore[misc]
            return True
        if target.kind != "F" or province_of(dest) == target.prov:
            return False
        return bool(self.run_reaches(target.loc, dest, exclude))

    def check_other(self: Any, order: Order, unit: Unit) -> Order:
        if not _is_protect(order):
            return super().check_other(order, unit)  # type: ignore[misc]
        m = self.m
        if unit.kind != "A":
            raise Illegal(f"only an army can protect; the unit in {m.name(unit.loc)} is {_a(unit.kind)}")
        if m.terrain[unit.prov] != "coast":
            raise Illegal(f"only an army in a coastal province can protect; {m.name(unit.prov)} has no coast")
        fp = province_of(order.fleet)  # type: ignore[attr-defined]
        fleet = self.pos.units.get(fp)
        if fleet is None:
            raise Illegal(f"there is no unit in {m.name(fp)} to protect")
        if fleet.kind != "F":
            raise Illegal(f"only a fleet can run a coast; the unit in {m.name(fp)} is {_a(fleet.kind)}")
        dest = order.dest  # type: ignore[attr-defined]
        dp = province_of(dest)
        if dp == fp:
            raise Illegal("a fleet cannot run to its own province")
        if dp == unit.prov:
            raise Illegal("an army cannot protect a run into its own province")
        if m.terrain.get(dp) not in ("sea", "coast"):
            raise Illegal(f"a fleet cannot run to {m.name(dp)}, an inland province")
        cl = self.coastlines()
        lines = self.army_coastlines()
        mine = set(cl.of_prov.get(unit.prov, ()))
        targets = self.run_dest_locs(dest)
        routes = [r for d in targets for r in run_routes(cl, fleet.loc, d, lines)]
        if not routes:
            why = break_point(cl, m, fleet.loc, targets[0] if targets else dest, lines)
            raise Illegal(f"the fleet in {m.name(fleet.loc)} cannot run to {m.name(dest)}: {why}")
        if not any(mine.intersection(r) for r in routes):
            raise Illegal(f"the army in {m.name(unit.prov)} is not on any coast-running route from "
                          f"{m.name(fleet.loc)} to {m.name(dest)}")
        fleet_loc = fleet.loc
        if order.kind == "A" and order.fleet == fleet_loc:  # type: ignore[attr-defined]
            return order
        return Protect(order.power, "A", unit.loc, fleet_loc, dest)

    # -- set-up -----------------------------------------------------------------------------
    def build_carriers(self: Any, moves_by_route: dict[tuple[str, str], int]) -> None:
        super().build_carriers(moves_by_route)  # type: ignore[misc]
        m = self.m
        order, power, void = self.order, self.power, self.void
        self.protects: set[int] = set()
        self.runs: set[int] = set()
        self.off_route: set[int] = set()  # protect orders matching a run but on none of its routes
        self.unused: set[int] = set()  # foreign protection of a move the fleet makes directly
        protects_for: dict[tuple[str, str], list[int]] = {}
        for i, o in enumerate(order):
            if _is_protect(o):
                self.protects.add(i)
                key = (province_of(o.fleet), province_of(o.dest))  # type: ignore[attr-defined]
                j = moves_by_route.get(key)
                coast_ok = j is None or "/" not in o.dest or o.dest == order[j].dest  # type: ignore[attr-defined]
                if j is not None and order[j].kind == "F" and coast_ok:  # a named coast must match (DATC 4.B.4)
                    protects_for.setdefault(key, []).append(i)
                else:
                    void.add(i)  # the fleet is not ordered to run there
        cl = self.coastlines()
        for key, i in moves_by_route.items():
            o = order[i]
            if o.kind == "A":
                if self.carried[i]:
                    self.keep_on_routes(i, self.convoy_route_members(i))
                continue
            if o.kind != "F":
                continue
            cs = protects_for.get(key, [])
            direct = o.dest in m.fleet_adj.get(o.loc, ())  # type: ignore[attr-defined]
            if direct and not any(power[c] == power[i] for c in cs):
                void.update(cs)  # a direct move does not use foreign protection (as DATC 4.A.3)
                self.unused.update(cs)
                continue
            self.carried[i] = True
            self.runs.add(i)
            lines = [c for k in cs for c in cl.of_prov.get(self.src[k], ())]
            routes = run_routes(cl, o.loc, o.dest, lines)  # type: ignore[attr-defined]
            on_route = {province_of(c) for r in routes for c in r}
            self.carriers[i] = cs
            self.keep_on_routes(i, on_route)

    def keep_on_routes(self: Any, i: int, on_route: set[str]) -> None:
        """Carriers of move ``i`` are the carry orders on one of its minimal routes; any
        other matching carry order is void."""
        keep = [c for c in self.carriers[i] if self.src[c] in on_route]
        for c in self.carriers[i]:
            if c not in keep:
                self.void.add(c)
                self.off_route.add(c)
        self.carriers[i] = keep

    def convoy_route_members(self: Any, i: int) -> set[str]:
        """Sea provinces of the convoy orders for army move ``i`` on a minimal route."""
        adj = self.m.fleet_reach_prov
        src, dest = self.src[i], self.dst[i]
        seas = [self.src[c] for c in self.carriers[i]]
        routes = chordless_routes(lambda p: src in adj.get(p, ()), lambda p: dest in adj.get(p, ()),
                                  lambda x, y: y in adj.get(x, ()), seas)
        return {p for r in routes for p in r}

    # -- decisions --------------------------------------------------------------------------
    def adjudicate(self: Any, i: int) -> bool:
        if i in self.protects:
            return self.stays(i)  # protection cannot be cut; only dislodging the army breaks it
        return super().adjudicate(i)  # type: ignore[misc]

    def chain_ok(self: Any, i: int, cs: list[int]) -> bool:
        """1971 rulebook (DATC 4.A.1 a): a carried move fails if any carrier on any of its
        minimal routes is dislodged."""
        return all(self.resolve(c) for c in cs)

    def break_paradox(self: Any, cycle: list[int]) -> None:
        """Szykman with the roles swapped too: runs whose protecting armies are part of the
        paradox do not take place."""
        held = {d for d in cycle if d in self.protects}
        broken = {j for j in self.runs if any(c in held for c in self.carriers[j])}
        if not broken:
            return super().break_paradox(cycle)  # type: ignore[misc]
        convoys = {d for d in cycle if self.code[d] == CONVOY}
        broken |= {j for j in range(len(self.order)) if self.carried[j] and j not in self.runs
                   and any(c in convoys for c in self.carriers[j])}
        self.forced_fail |= broken
        for d in cycle:
            if self.state[d] != RESOLVED:
                self.state[d] = UNRESOLVED

    # -- results ----------------------------------------------------------------------------
    def fill_results(self: Any, results: list[OrderResult | None], dislodged: dict) -> None:
        super().fill_results(results, dislodged)  # type: ignore[misc]
        for p, slot in self.result_slot.items():
            r = results[slot]
            if r is None or r.result == "invalid":
                continue
            i = self.idx_of[p]
            if i in self.runs and not self.res[i] and not self.path_ok(i):
                r.reason = "protection paradox: no protection" if i in self.forced_fail else "no protection"
                if p in dislodged:
                    r.reason += ", dislodged"
            elif i in self.off_route and i not in self.protects:
                r.result, r.reason = "fails", "void: the fleet is on no route of the convoy"
                if p in dislodged:
                    r.reason += ", dislodged"
            elif i in self.protects:
                if p in dislodged:
                    r.result, r.reason = "fails", "dislodged"
                elif i in self.off_route:
                    r.result, r.reason = "fails", "void: the army is on no route of the run"
                elif i in self.unused:
                    r.result, r.reason = "fails", "void: the fleet moves there directly, not by a run"
                elif i in self.void:
                    r.result, r.reason = "fails", "void: the fleet was not ordered so"
                elif any(i in self.carriers[j] and j in self.forced_fail for j in self.runs):
                    r.result, r.reason = "fails", "protection paradox: the army holds"
                else:
                    r.result, r.reason = "succeeds", ""

MODULE = RuleModule("coast_running", resolver_mixin=CoastRunningResolver)

__all__ = ["MODULE", "CoastRunningResolver", "Coastlines", "CoastlineError", "coastlines_from_table",
           "coastlines_from_map", "coastlines_for", "run_routes", "chordless_routes"]
