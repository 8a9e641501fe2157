"""Movement phase adjudication.

The resolver follows Lucas Kruijswijk's "The Math of Adjudication" (DATC, chapter 5): one
decision per order (a move succeeds; a support is given; a convoying fleet stays), resolved
recursively with a guess for decisions in a dependency cycle; a short cycle's consistent outcomes
are then counted whole (:meth:`MovementResolver.solutions`), so that the result does not depend
on the order of the orders. A cycle with exactly one consistent outcome takes it; one with two
consistent outcomes of only moves is circular movement (all move); any other cycle is a convoy
paradox, broken by the configured rule (Szykman by default: the convoys of the paradox fail).

The resolver is generic over "carried" moves: a move that needs carriers (an army's convoy
fleets; a coast-running fleet's protecting armies) succeeds only along an unbroken chain of
carriers. Rule modules mix a class into :class:`MovementResolver` that overrides some of its
:data:`HOOKS` (and adds methods of its own); the steps themselves (``prepare``, ``build``,
``run``, ``resolve``, ``outcome``) are the core's, the same for every variant
(``tests/test_engine_hooks.py`` checks that no module replaces them).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from itertools import count
from typing import Collection, Iterable, Sequence

from judge.engine.orders import Convoy, Hold, Move, Order, OrderResult, Support
from judge.engine import retreat
from judge.engine.position import Dislodged, Position, Unit
from judge.variant import PROV, Map, province_of

HOLD, MOVE, SUPPORT, CONVOY, OTHER = 0, 1, 2, 3, 4
UNRESOLVED, GUESSING, RESOLVED = 0, 1, 2
_CODE: dict[type, int] = {Move: MOVE, Hold: HOLD, Support: SUPPORT, Convoy: CONVOY}


def _set_up_tables(m: Map) -> tuple[dict[str, str], dict[str, dict[str, frozenset[str]]]]:
    """The province of each of ``m``'s locations, and ``m.plain_moves`` as kind -> location ->
    destinations; made once a map. ``prepare`` and ``build`` read them for every order: ``PROV``,
    a dict subclass, answers a subscript through a method call (some 250 instructions more than a
    plain dict's), and a (kind, location, destination) tuple made and compared item by item costs
    more than two look-ups by keys at hand."""
    memo = retreat.map_memo(m, "set_up_tables")
    if not memo:
        provs = {p: p for p in m.provinces}
        provs.update((loc, p) for p, locs in m.fleet_locs.items() for loc in locs)
        plain: dict[str, dict[str, set[str]]] = {}
        for kind, loc, dest in m.plain_moves:
            plain.setdefault(kind, {}).setdefault(loc, set()).add(dest)
        memo["tables"] = provs, {k: {loc: frozenset(d) for loc, d in by_loc.items()} for k, by_loc in plain.items()}
    return memo["tables"]


_NO_PLAIN: dict[str, frozenset[str]] = {}  # ``_set_up_tables``' plain moves of a kind that has none


class Illegal(Exception):
    """An order that could never be valid (DATC 4.E.1): it is ignored, the unit holds."""


class _Unsettled(Exception):
    """A trial outcome of a cycle that runs into another undecided cycle (see ``only_solution``)."""


@dataclass
class MovementOutcome:
    results: list[OrderResult]
    units: dict[str, Unit]  # after the moves (dislodged units removed)
    dislodged: dict[str, Dislodged]
    contested: frozenset[str]  # provinces left empty by a stand-off
    moved: dict[str, str] = field(default_factory=dict)  # from province -> to location (successful moves)


#: The methods of :class:`MovementResolver` a rule module's mixin may override, by step. Orders
#: are read (``read_order``, ``survey``; ``side_order`` for orders that are not their unit's own,
#: settled with the rest in ``settle``), checked (``check*`` …), indexed as decisions
#: (``code_of``, ``build_carriers``, ``extend_index``), decided (``adjudicate`` and the
#: strengths; ``backup_rule``, ``break_paradox`` for cycles) and turned into the board after the
#: moves (``unit_after``, ``can_stand``, ``strand``, ``arrival``, ``retreat_options``,
#: ``fill_results``, ``after_movement``).
HOOKS = frozenset({
    "starting_board", "read_order", "survey", "side_order", "settle",
    "check", "check_other", "check_move", "check_support", "check_convoy", "convoy_possible",
    "can_reach_for_support", "target_can_reach", "carrier_kinds",
    "code_of", "build_carriers", "extend_index",
    "adjudicate", "path_ok", "chain_ok", "hold_strength", "attack_strength", "prevent_strength",
    "move_succeeds", "backup_rule", "break_paradox", "decisions_final",
    "unit_after", "can_stand", "strand", "arrival", "retreat_options", "fill_results", "after_movement",
})


class MovementResolver:
    """Adjudicates one movement phase. Build it, then call :meth:`run`."""

    stale = False  # a paradox rule changed decisions others may have read: resolve all again

    def __init__(self, position: Position, orders: Iterable[Order], rules: dict | None = None):
        self.rules = rules if rules is not None else position.variant.rules
        self.input_orders = list(orders)
        self.pos = self.starting_board(position)
        self.m: Map = self.pos.map
        self.paradox_rule = self.rules.get("convoy_paradox", "szykman")
        # moves legal on any board, taken as written (a module with its own check_move checks all)
        kept = self._kept = _kept(type(self))
        self._plain = self.m.plain_moves if "check_move" in kept else frozenset()
        self._core = _CORE_STEPS <= kept  # the decisions are the core's own: resolve() may take them inline
        # supports checked before on this map, when the check is the core's (see check_support)
        self._support_memo: dict | None = (
            retreat.map_memo(self.m, "support_checks")
            if "can_reach_for_support" in kept and "target_can_reach" in kept else None)

    def starting_board(self, position: Position) -> Position:
        """Hook: the board the moves start from (1885 II: with the hidden start units placed)."""
        return position

    # ------------------------------------------------------------------ legality (4.E.1)
    def check(self, order: Order, unit: Unit | None) -> Order:
        """Return the order as it will be executed, or raise :class:`Illegal` with a reason."""
        m = self.m
        if not order.loc:  # a waive, outside the adjustment phase it belongs to
            raise Illegal(f"a {type(order).keyword} is given only in an adjustment phase")
        if unit is None:
            raise Illegal(f"there is no unit in {m.name(order.loc)}")
        if unit.power != order.power:
            raise Illegal(f"the unit in {m.name(unit.prov)} belongs to {unit.power}")
        if order.kind and order.kind != unit.kind:
            raise Illegal(f"the unit in {m.name(unit.prov)} is {_a(unit.kind)}, not {_a(order.kind)}")
        t = type(order)
        same_unit = order.kind == unit.kind and order.loc == unit.loc
        if t is Hold:
            return order if same_unit else Hold(order.power, unit.kind, unit.loc)
        if t is Move:
            if same_unit and not order.via_convoy and (unit.kind, unit.loc, order.dest) in self._plain:
                return order
            dest = self.check_move(unit, order.dest, order.via_convoy)
            via = order.via_convoy and unit.kind == "A"
            if same_unit and dest == order.dest and via == order.via_convoy:
                return order
            return Move(order.power, unit.kind, unit.loc, dest, via)
        if isinstance(order, Support):
            return self.check_support(order, unit)
        if isinstance(order, Convoy):
            return self.check_convoy(order, unit)
        return self.check_other(order, unit)

    def check_other(self, order: Order, unit: Unit) -> Order:
        raise Illegal(f"{type(order).__name__.lower()} orders are not allowed in a movement phase")

    def check_move(self, unit: Unit, dest: str, via_convoy: bool) -> str:
        m = self.m
        dp = province_of(dest)
        src = unit.prov
        t = m.terrain.get(dp)
        if dp == src:
            raise Illegal(f"the {_w(unit.kind)} in {m.name(src)} cannot move to its own province")
        if t is None or t == "impassable":
            raise Illegal(f"{m.name(dp)} cannot be entered")
        if unit.kind == "A":
            if t == "sea":
                raise Illegal(f"an army cannot move to {m.name(dp)}, a sea")
            if dp in m.army_adj.get(src, ()) and not via_convoy:
                return dp  # a coast given for an army is ignored (DATC 4.B.6)
            if t == "coast" and m.terrain[src] == "coast" and self.convoy_possible(src, dp):
                return dp
            if dp in m.army_adj.get(src, ()):
                return dp
            raise Illegal(f"the army in {m.name(src)} can't reach {m.name(dp)}")
        # fleet
        if t == "land":
            raise Illegal(f"a fleet cannot move to {m.name(dp)}, an inland province")
        reach = m.fleet_adj.get(unit.loc, frozenset())
        coasts = m.provinces[dp].coasts
        if not coasts:
            if dp in reach:
                return dp
            raise Illegal(f"the fleet in {m.name(unit.loc)} can't reach {m.name(dp)}")
        possible = [loc for loc in m.fleet_locs[dp] if loc in reach]
        if "/" in dest:
            if dest in reach:
                return dest
            if possible:  # DATC 4.B.3: a move to an impossible coast is illegal
                raise Illegal(f"the fleet in {m.name(unit.loc)} can't reach {m.name(dest)}")
            raise Illegal(f"the fleet in {m.name(unit.loc)} can't reach {m.name(dp)}")
        if len(possible) == 1:  # DATC 4.B.2: the only coast it can reach
            return possible[0]
        if not possible:
            raise Illegal(f"the fleet in {m.name(unit.loc)} can't reach {m.name(dp)}")
        names = " or ".join(m.display(p) for p in possible)
        raise Illegal(f"the coast of {m.name(dp)} must be given ({names})")  # DATC 4.B.1

    def convoy_possible(self, src: str, dest: str, exclude: str | None = None) -> bool:
        """Could some convoy route of fleets now on the board carry an army src → dest?"""
        m = self.m
        seas = self._fleet_seas()
        start = [p for p in m.fleet_reach_prov.get(src, ()) if p in seas and p != exclude]
        seen = set(start)
        stack = list(start)
        while stack:
            p = stack.pop()
            if dest in m.fleet_reach_prov.get(p, ()):
                return True
            for q in m.fleet_reach_prov.get(p, ()):
                if q in seas and q not in seen and q != exclude:
                    seen.add(q)
                    stack.append(q)
        return False

    def _fleet_seas(self) -> frozenset[str]:
        seas = getattr(self, "_seas_cache", None)
        if seas is None:
            units, kinds = self.pos.units, self.carrier_kinds()
            # (the units at sea found by a set operation: a step only for those, not for every unit)
            seas = frozenset(p for p in units.keys() & self.m.seas if units[p].kind in kinds)
            self._seas_cache = seas
        return seas

    def carrier_kinds(self) -> tuple[str, ...]:
        return ("F",)

    def check_support(self, order: Support, unit: Unit) -> Support:
        """The support as it will be executed; the order itself when it already says so. Whether a
        support is legal and what it becomes depends only on the supporting unit, the supported
        unit, the kind and destination written, and (for an army's move that is not to a
        neighbour) on the fleets that could convoy it: every answer that does not depend on the
        fleets is remembered per map, keyed by those."""
        tp = PROV[order.target]
        target = self.pos.units.get(tp)
        memo = self._support_memo
        if memo is not None and target is not None:
            key = (unit.kind, unit.loc, target.kind, target.loc, order.target_kind, order.dest)
            dest = memo.get(key, _UNKNOWN)
            if dest is _UNKNOWN:
                executed = self._check_support(order, unit, tp, target)
                dest = executed.dest
                if (not order.dest or target.kind != "A"
                        or PROV[order.dest] in self.m.army_adj.get(target.prov, ())) and len(memo) < 65536:
                    memo[key] = dest  # not by convoy: the same on any board
            if (order.kind == unit.kind and order.loc == unit.loc and order.target_kind == target.kind
                    and order.target == target.loc and order.dest == dest):
                return order
            return Support(order.power, unit.kind, unit.loc, target.kind, target.loc, dest)
        return self._check_support(order, unit, tp, target)

    def _check_support(self, order: Support, unit: Unit, tp: str, target: Unit | None) -> Support:
        m = self.m
        if target is None:
            raise Illegal(f"there is no unit in {m.name(tp)} to support")
        if tp == unit.prov:
            raise Illegal("a unit cannot support itself")
        if order.target_kind and order.target_kind != target.kind:
            raise Illegal(f"the unit in {m.name(tp)} is {_a(target.kind)}, not {_a(order.target_kind)}")
        goal = province_of(order.dest) if order.dest else tp
        if not self.can_reach_for_support(unit, goal):
            raise Illegal(f"the {_w(unit.kind)} in {m.name(unit.loc)} can't reach {m.name(goal)} to support")
        dest = None
        if order.dest:
            dp = province_of(order.dest)
            if dp == unit.prov:
                raise Illegal("a unit cannot support a move into its own province")
            if dp == tp:
                raise Illegal("a unit cannot move to its own province")
            if not self.target_can_reach(target, order.dest, exclude=unit.prov):
                raise Illegal(f"the {_w(target.kind)} in {m.name(target.loc)} can't reach {m.name(dp)}")
            dest = order.dest if "/" in order.dest and target.kind == "F" else dp
        return Support(order.power, unit.kind, unit.loc, target.kind, target.loc, dest)

    def can_reach_for_support(self, unit: Unit, goal: str) -> bool:
        m = self.m
        if unit.kind == "A":
            return goal in m.army_adj.get(unit.prov, ())
        return goal in m.fleet_reach.get(unit.loc, ())

    def target_can_reach(self, target: Unit, dest: str, exclude: str) -> bool:
        m = self.m
        dp = province_of(dest)
        if target.kind == "A":
            if dp in m.army_adj.get(target.prov, ()):
                return True
            return (m.terrain.get(dp) == "coast" and m.terrain[target.prov] == "coast"
                    and self.convoy_possible(target.prov, dp, exclude=exclude))
        reach = m.fleet_adj.get(target.loc, frozenset())
        if "/" in dest:  # DATC 4.B.4: a coast in a support must be possible
            return dest in reach
        return dp in m.fleet_reach.get(target.loc, ())

    def check_convoy(self, order: Convoy, unit: Unit) -> Convoy:
        m = self.m
        if unit.kind != "F" or m.terrain[unit.prov] != "sea":
            raise Illegal(f"only a fleet at sea can convoy; the {_w(unit.kind)} in {m.name(unit.loc)} cannot")
        tp = province_of(order.target)
        army = self.pos.units.get(tp)
        if army is None:
            raise Illegal(f"there is no unit in {m.name(tp)} to convoy")
        if army.kind != "A":
            raise Illegal(f"only armies can be convoyed; the unit in {m.name(tp)} is {_a(army.kind)}")
        dp = province_of(order.dest)
        if m.terrain.get(dp) != "coast" or m.terrain[tp] != "coast" or dp == tp:
            raise Illegal(f"no army can be convoyed from {m.name(tp)} to {m.name(dp)}")
        if not self.fleet_on_some_route(tp, dp, unit.prov):
            raise Illegal(f"the fleet in {m.name(unit.prov)} is not on any convoy route from "
                          f"{m.name(tp)} to {m.name(dp)}")
        return Convoy(order.power, "F", unit.loc, "A", tp, dp)

    def fleet_on_some_route(self, src: str, dest: str, fleet: str) -> bool:
        """Is ``fleet`` on a minimal (chordless) convoy route src → dest? (DATC 6.G.19)"""
        m = self.m
        seas = self._fleet_seas()
        adj = m.fleet_reach_prov

        def extend(path: list[str]) -> bool:
            last = path[-1]
            if dest in adj.get(last, ()):
                return fleet in path
            for q in adj.get(last, ()):
                if q not in seas or q in path:
                    continue
                # chordless: q may touch only the last node of the path and not the source
                if src in adj.get(q, ()) or any(q in adj.get(p, ()) for p in path[:-1]):
                    continue
                path.append(q)
                if extend(path):
                    return True
                path.pop()
            return False

        for first in adj.get(src, ()):
            if first in seas and extend([first]):
                return True
        return False

    # ------------------------------------------------------------------ set-up
    def prepare(self) -> list[OrderResult | None]:
        """Check every order; choose each unit's order (the last legal one wins). The result of the
        k-th order given is ``results[k]``; the orders the judge gives come after them."""
        m = self.m
        units = self.pos.units
        self.order_of: dict[str, Order] = {}  # province -> executed order
        self.result_slot: dict[str, int] = {}  # province -> index of its result
        inputs = self.input_orders
        kept = self._kept
        if "read_order" not in kept:
            inputs = [self.read_order(o) for o in inputs]
        if "survey" not in kept:
            self.survey(inputs)
        results: list[OrderResult | None] = [None] * len(inputs)
        side: list[tuple[int, Order]] = []
        side_order = None if "side_order" in kept else self.side_order
        prov_of = PROV
        provs, plain_from = _set_up_tables(m)
        check, take = self.check, self.take
        own_check = "check" in kept
        if not own_check or "check_move" not in kept:
            plain_from = {}  # (as ``self._plain``: a module's own check_move checks every move)
        own_take = "take" in kept
        supports_seen = self._support_memo if own_check and "check_support" in kept else None
        order_of, result_slot = self.order_of, self.result_slot
        new_result = object.__new__
        for slot, order in enumerate(inputs):
            if side_order is not None and side_order(order):
                side.append((slot, order))
                continue
            # What check() would give, without the call. Each kind of order has its branch, so that
            # each read of an order's field sees one type (3.11 specialises only such reads). A
            # location is looked up in the map's plain dict (``_set_up_tables``), or in ``PROV``
            # when it is none of the map's (a KeyError costs nothing until it is raised).
            t = type(order)
            executed: Order | None = None
            if t is Move:
                try:
                    unit = units.get(provs[order.loc])
                except KeyError:
                    unit = units.get(prov_of[order.loc])
                if (own_check and unit is not None and order.power == unit.power and order.kind == unit.kind
                        and order.loc == unit.loc and not order.via_convoy
                        and order.dest in plain_from.get(unit.kind, _NO_PLAIN).get(unit.loc, ())):
                    executed = order
            elif t is Support:
                try:
                    unit = units.get(provs[order.loc])
                except KeyError:
                    unit = units.get(prov_of[order.loc])
                if (supports_seen is not None and unit is not None and order.power == unit.power
                        and order.kind == unit.kind and order.loc == unit.loc):
                    try:
                        target = units.get(provs[order.target])  # check_support's memo, as it reads it
                    except KeyError:
                        target = units.get(prov_of[order.target])
                    if (target is not None and order.target_kind == target.kind and order.target == target.loc
                            and supports_seen.get((unit.kind, unit.loc, target.kind, target.loc, target.kind,
                                                   order.dest), _UNKNOWN) == order.dest):
                        executed = order
            elif t is Hold:
                try:
                    unit = units.get(provs[order.loc])
                except KeyError:
                    unit = units.get(prov_of[order.loc])
                if (own_check and unit is not None and order.power == unit.power and order.kind == unit.kind
                        and order.loc == unit.loc):
                    executed = order
            else:
                unit = units.get(prov_of[order.loc])
            if executed is None:
                try:
                    executed = check(order, unit)
                except Illegal as exc:
                    results[slot] = OrderResult(order, order.power, order.text(m), "invalid", str(exc))
                    continue
                prov = prov_of[executed.loc]
                power = order.power
            else:  # (the order as written: its unit's province and power)
                prov = unit.prov  # type: ignore[union-attr]
                power = unit.power  # type: ignore[union-attr]
            if own_take and prov not in result_slot:  # take(), inline: most orders are for a unit not ordered before
                order_of[prov] = executed
                result_slot[prov] = slot
            else:
                take(executed, slot, results)
            # OrderResult(...), its fields set here (see _RESULT_FIELDS); one store a field: seven
            # stored at once would go through a tuple made and freed for it
            r = results[slot] = new_result(OrderResult)
            r.order = executed
            r.power = power
            r._text = None
            r.result = ""
            r.reason = ""
            r.default = False
            r.map = m
        own_settle = "settle" in kept and not side
        if not own_settle:
            self.settle(side, results)
        # the units without an order; with only the core's checks every order taken is its unit's, so
        # as many orders as units leave none out (most phases): no set is built then
        missing = (units.keys() - order_of.keys()  # (a set operation: most have none)
                   if len(order_of) != len(units) or not (own_take and own_settle and _CHECKS <= kept) else ())
        unordered = [u for p, u in units.items() if p in missing] if missing else []
        if len(unordered) > 1:  # by power and place, whatever order the board was built in (as stored)
            unordered.sort(key=_power_and_place)
        for unit in unordered:
            self.give(unit.prov, Hold(unit.power, unit.kind, unit.loc), "no order", results)
        return results

    def read_order(self, order: Order) -> Order:
        """Hook: the order as the module reads it, before anything else (A/F: ``A Eng - Bre`` from a
        sea space is a landing)."""
        return order

    def survey(self, orders: list[Order]) -> None:
        """Hook: look over all the orders as given, before any is checked (what a module's checks
        depend on: which fleets armies board, which units are ordered to support)."""

    def side_order(self, order: Order) -> bool:
        """Hook: is ``order`` not its unit's own order but one beside it (an A/F's army's landing)?
        Such orders are left to :meth:`settle`."""
        return False

    def settle(self, side: list[tuple[int, Order]], results: list[OrderResult | None]) -> None:
        """Hook: the rules between orders, once every unit's order is checked: check the side orders
        (their results go in ``results[slot]``), :meth:`drop` orders that other orders make
        impossible, :meth:`give` the orders the judge gives. Units still without an order hold."""
        assert not side

    def give(self, prov: str | None, order: Order, reason: str, results: list[OrderResult | None]) -> int:
        """The judge gives ``order`` (the unit's in ``prov``; with None, an order beside the units'
        own); returns the index of its result."""
        slot = len(results)
        if prov is not None:
            self.order_of[prov] = order
            self.result_slot[prov] = slot
        results.append(OrderResult(order, order.power, None, "", reason, True, self.m))
        return slot

    def drop(self, prov: str, reason: str, results: list[OrderResult | None]) -> None:
        """The order checked for the unit in ``prov`` is invalid after all, for ``reason``."""
        r = results[self.result_slot.pop(prov)]
        assert r is not None
        r.result, r.reason = "invalid", reason
        del self.order_of[prov]

    def take(self, executed: Order, slot: int, results: list[OrderResult | None]) -> None:
        """``executed`` becomes its unit's order, its result at ``slot``; an earlier order for the
        same unit is replaced (the last legal one wins)."""
        prov = PROV[executed.loc]
        if prov in self.result_slot:
            old = results[self.result_slot[prov]]
            assert old is not None
            old.result, old.reason = "invalid", "replaced by a later order for the same unit"
        self.order_of[prov] = executed
        self.result_slot[prov] = slot

    def build(self) -> None:
        """Index the executed orders for the resolver (moves, then supports and head-to-heads)."""
        units = self.pos.units
        prov = PROV
        prov_at = _set_up_tables(self.m)[0]  # (``prov`` for a location not on the map: see prepare)
        provs = list(self.order_of)
        self.provs = provs
        n = len(provs)
        idx_of = self.idx_of = dict(zip(provs, range(n)))
        order = self.order = list(self.order_of.values())
        self.power = [units[p].power for p in provs]  # (cheaper than map() through two C calls an item)
        # the decision kinds by order type, without a loop in Python (a module's types: code_of)
        code = self.code = list(map(_CODE.get, map(type, order)))
        if None in code:
            code[:] = [self.code_of(o) if c is None else c for c, o in zip(code, order)]
        self.src = list(provs)  # (grows with the decisions a module adds: add_decision)
        dst: list[str | None] = [None] * n
        self.dst = dst
        self.carried = [False] * n  # a move that needs carriers (convoy)
        # carry orders matching a carried move, and support orders given to order i: a list only
        # where there are some (most orders have none; a shared empty tuple costs nothing)
        self.carriers: list[Sequence[int]] = [()] * n
        h2h = self.h2h = [-1] * n
        supports: list[Sequence[int]] = [()] * n
        self.supports = supports
        into: dict[str, list[int]] = {}
        self.into = into
        self.forced_fail: set[int] = set()  # carried moves broken by a paradox rule
        self.void: set[int] = set()
        moves = [i for i, c in enumerate(code) if c == MOVE]
        support_idx = [i for i, c in enumerate(code) if c == SUPPORT]
        # the routes of the moves, for build_carriers; with the core's and no convoy order a move
        # is carried only where it must be or says so, marked here without them
        moves_by_route: dict[tuple[str, str], int] | None = (
            {} if "build_carriers" not in self._kept or CONVOY in code else None)
        carried = self.carried
        army_adj = self.m.army_adj
        for i in moves:
            o = order[i]
            try:
                d = prov_at[o.dest]  # type: ignore[attr-defined]
            except KeyError:
                d = prov[o.dest]  # type: ignore[attr-defined]
            dst[i] = d
            if d in into:
                into[d].append(i)
            else:
                into[d] = [i]
            if moves_by_route is not None:
                moves_by_route[(provs[i], d)] = i
            elif o.kind == "A" and (o.via_convoy or d not in army_adj.get(provs[i], ())):  # type: ignore[attr-defined]
                carried[i] = True
            else:  # (not carried) meets head to head the move out of d, when that one is indexed (j < i) and not carried
                j = idx_of.get(d)
                if j is not None and dst[j] == provs[i] and not carried[j]:
                    h2h[i], h2h[j] = j, i
        if moves_by_route is not None:
            self.build_carriers(moves_by_route)
            carried = self.carried
            for i in moves:  # the head-to-head battles, once the carried moves are known
                if not carried[i]:
                    j = idx_of.get(dst[i])  # type: ignore[arg-type]
                    if j is not None and code[j] == MOVE and dst[j] == provs[i] and not carried[j]:
                        h2h[i] = j
        void = self.void
        for i in support_idx:
            o = order[i]
            try:
                j = idx_of.get(prov_at[o.target])  # type: ignore[attr-defined]
            except KeyError:
                j = idx_of.get(prov[o.target])  # type: ignore[attr-defined]
            if j is None:
                void.add(i)
                continue
            dest = o.dest  # type: ignore[attr-defined]
            if dest is None:
                if code[j] == MOVE:
                    void.add(i)  # support to hold a unit that moves
                    continue
            elif code[j] != MOVE or dst[j] != dest and dst[j] != prov[dest]:  # (a province is its own: no look-up)
                void.add(i)
                continue
            elif "/" in dest and order[j].dest != dest:  # type: ignore[attr-defined]
                void.add(i)  # DATC 6.B.9: a coast in a support must match
                continue
            if supports[j]:
                supports[j].append(i)  # type: ignore[attr-defined]
            else:
                supports[j] = [i]
        if "extend_index" not in self._kept:
            self.extend_index()

    def extend_index(self) -> None:
        """Hook: index a module's own orders once the core's are (decisions beside the units'
        own orders are added with :meth:`add_decision`)."""

    def add_decision(self, order: Order, c: int, src: str, dest: str | None) -> int:
        """Add a decision of kind ``c`` for ``order`` that is not a unit's own order (an A/F's
        landing, or its path); returns its index."""
        i = len(self.order)
        self.order.append(order)
        self.power.append(order.power)
        self.code.append(c)
        self.src.append(src)
        self.dst.append(dest)
        self.carried.append(False)
        self.carriers.append([])
        self.h2h.append(-1)
        self.supports.append([])
        if c == MOVE and dest is not None:
            self.into.setdefault(dest, []).append(i)
        return i

    def code_of(self, order: Order) -> int:
        """Decision kind of an order type the core does not know (rule modules' subclasses)."""
        for cls, c in _CODE.items():
            if isinstance(order, cls):
                return c
        return OTHER

    def build_carriers(self, moves_by_route: dict[tuple[str, str], int]) -> None:
        """Decide which moves go by convoy and which convoy orders carry them (DATC 4.A.3)."""
        m = self.m
        order, carried = self.order, self.carried
        convoys_for: dict[tuple[str, str], list[int]] = {}
        if CONVOY in self.code:
            for i in [i for i, c in enumerate(self.code) if c == CONVOY]:
                o = order[i]
                assert isinstance(o, Convoy)
                key = (o.target, o.dest)
                if key in moves_by_route:
                    convoys_for.setdefault(key, []).append(i)
                else:
                    self.void.add(i)  # the army is not ordered to go there
        army_adj = m.army_adj
        for key, i in moves_by_route.items():
            o = order[i]
            if o.kind != "A":
                continue
            src, d = key
            cs = convoys_for.get(key) if convoys_for else None
            if cs is None:  # no convoy orders for it: carried only where it must be or says so
                if o.via_convoy or d not in army_adj.get(src, ()):  # type: ignore[attr-defined]
                    carried[i] = True
                continue
            if d not in army_adj.get(src, ()):
                self.carried[i] = True
            elif o.via_convoy or any(self.power[c] == self.power[i] for c in cs):  # type: ignore[attr-defined]
                self.carried[i] = True
            if self.carried[i]:
                self.carriers[i] = cs
            else:
                for c in cs:
                    self.void.add(c)  # an adjacent move by land does not use the convoy

    # ------------------------------------------------------------------ resolution
    def run(self) -> MovementOutcome:
        results = self.prepare()
        self.build()
        n = len(self.order)
        self.state = [UNRESOLVED] * n
        self.res = [False] * n
        self.deps: list[int] = []
        self._entered = [-1] * n  # decision -> when resolve() began to guess it
        self._ticks = count(1)  # resolve()'s clock
        state, res = self.state, self.res
        if self._core:
            # The core's decisions that read no other decision are known before the pass: a unit
            # that does not move, support or convoy holds; a void support is not given; a support
            # or convoy that no move goes against stands; a support attacked by a move that needs no
            # carrier, from another power and not from where the support goes, is cut. (Resolved now or when first read, they
            # take the same value and record no dependency, so every other decision is the same.)
            code, void, into, src = self.code, self.void, self.into, self.src
            for i in range(n):
                c = code[i]
                if c == MOVE:
                    continue
                if c == SUPPORT:
                    if i in void:
                        state[i] = RESOLVED  # (res[i] is False)
                        continue
                    if src[i] in into:
                        if self._cut_outright(i, into[src[i]]):
                            state[i] = RESOLVED  # (res[i] is False)
                        continue
                elif c == CONVOY and src[i] in into:
                    continue
                state[i], res[i] = RESOLVED, True
            self._lone_moves()
        resolve = self.resolve
        # from the first decision still open (none is, in most phases, after those made before the pass)
        for i in range(state.index(UNRESOLVED) if UNRESOLVED in state else n, n):
            if state[i] != RESOLVED:  # (not resolved on the way by another decision)
                resolve(i)
        if self.paradox_rule == "convoyed_attack_yields":
            self.apply_convoyed_attack_yields()
        while self.stale:
            self.stale = False
            self.resolve_all()
        if "decisions_final" not in self._kept:
            self.decisions_final()
        return self.outcome(results)

    def _cut_outright(self, i: int, movers: list[int]) -> bool:
        """Is support ``i`` cut by a move that reads no other decision (``support_given``, read
        only as far as it reads none)? The first attack from another power, not from the province
        the support goes into, cuts it; ``support_given`` would meet no attack that reads a decision
        before it (one by convoy reads its carriers: then the support is left to the pass)."""
        power, src, carried = self.power, self.src, self.carried
        me = power[i]
        dest = self.order[i].dest  # type: ignore[attr-defined]
        target = province_of(dest) if dest else None
        for k in movers:
            if power[k] == me or src[k] == target:
                continue
            return not carried[k]
        return False

    def _lone_moves(self) -> None:
        """Decide before the pass the core's moves that are alone into their province and whose
        outcome rests only on decisions already made: a move not by convoy into a province that
        is empty or whose unit has already moved out (not head to head) succeeds; one into a
        province whose unit stays (or failed to move out, or meets it head to head) fails against its
        own power's unit, and otherwise succeeds when its attack beats the hold (or defend strength),
        once every support of the two is decided
        (moves that meet: ``_meeting_moves``). ``core_move_succeeds`` would read just those
        decisions and give the same answer, with no dependency recorded; so every other decision
        is the same. A move waits for the move out of its province: the sweeps go on while one
        decides something."""
        # the first sweep reads the dict's items as they are (no list of pairs made for it); ``into``
        # does not change while the sweeps run
        pending: Collection[tuple[str, list[int]]] = self.into.items()
        while pending:
            waiting = self._lone_moves_sweep(pending)
            if len(waiting) == len(pending):
                break
            pending = waiting

    def _lone_moves_sweep(self, pending: Iterable[tuple[str, list[int]]]) -> list[tuple[str, list[int]]]:
        """One sweep of ``_lone_moves``; returns the provinces whose unit's move is not decided yet
        (a later sweep may decide them once it is)."""
        state, res, code, idx_of, supports = self.state, self.res, self.code, self.idx_of, self.supports
        carried, h2h, power = self.carried, self.h2h, self.power
        waiting = []
        for d, movers in pending:
            j = idx_of.get(d)
            if len(movers) != 1:
                if j is None:
                    self._meeting_moves(movers)
                elif code[j] != MOVE:
                    self._meeting_moves(movers, j)
                elif state[j] != RESOLVED:
                    waiting.append((d, movers))
                elif res[j]:
                    self._meeting_moves(movers)
                else:
                    self._meeting_moves(movers, j)
                continue
            i = movers[0]
            if carried[i] or state[i] == RESOLVED:
                continue
            if j is None:
                pass
            else:
                moves = code[j] == MOVE
                failed = False  # the unit in d failed to move out (its hold strength is 1)
                if moves and h2h[i] != j:
                    if state[j] != RESOLVED:
                        waiting.append((d, movers))
                        continue
                    failed = not res[j]
                # the unit in d stays, failed to move out, or meets i head to head (its own decision
                # is not read then): i's attack, without pj's supports, against its hold or defend strength
                if not moves or failed or h2h[i] == j:
                    if power[j] == power[i]:
                        state[i] = RESOLVED  # no self-dislodgement (res[i] is False)
                        continue
                    pj, attack, held = power[j], 1, 1
                    for s in supports[i]:
                        if state[s] != RESOLVED:
                            break
                        if res[s] and power[s] != pj:
                            attack += 1
                    else:
                        for s in (() if failed else supports[j]):
                            if state[s] != RESOLVED:
                                break
                            if res[s]:
                                held += 1
                        else:
                            state[i], res[i] = RESOLVED, attack > held
                    continue
            for s in supports[i]:
                if state[s] != RESOLVED:
                    break
            else:
                state[i], res[i] = RESOLVED, True
        return waiting

    def _meeting_moves(self, movers: list[int], j: int = -1) -> None:
        """Decide before the pass moves that meet in a province, when none is by convoy and every
        support of them (and of the unit ``j`` in the province) is decided. With ``j`` -1 the
        province is empty or its unit has moved out (none of the moves is then head to head): the
        strongest succeeds if it is alone. Otherwise ``j`` stays or failed to move out (one of the
        moves may meet it head to head): a move succeeds when its attack (without the supports of
        ``j``'s power; none against ``j``'s own power) beats ``j``'s hold strength (1 for a failed
        move; its defend strength head to head) and every other's prevent strength. This is what
        ``core_move_succeeds`` gives reading just those decisions."""
        state, res, supports, carried, power, h2h = (self.state, self.res, self.supports, self.carried,
                                                     self.power, self.h2h)
        held, pj, failed = 0, None, False
        if j >= 0:
            held = 1
            for s in supports[j]:
                if state[s] != RESOLVED:
                    return
                if res[s]:
                    held += 1
            pj, failed = power[j], self.code[j] == MOVE
        attacks, prevents = [], []
        for k in movers:
            if carried[k] or state[k] == RESOLVED or (j < 0 and h2h[k] >= 0):
                return
            a = n = 1
            for s in supports[k]:
                if state[s] != RESOLVED:
                    return
                if res[s]:
                    n += 1
                    if power[s] != pj:
                        a += 1
            attacks.append(a)
            prevents.append(n)
        ranked = sorted(prevents, reverse=True)  # (two moves at least)
        first, second = ranked[0], ranked[1]
        for k, a, n in zip(movers, attacks, prevents):
            state[k] = RESOLVED
            if power[k] == pj:
                res[k] = False  # no self-dislodgement
                continue
            # beats the unit in the province and the strongest prevent strength of the others
            res[k] = a > (1 if failed and h2h[k] != j else held) and a > (second if n == first else first)

    def decisions_final(self) -> None:
        """Hook: every decision is final; note what follows from them before the board is drawn."""

    def resolve(self, i: int) -> bool:
        # (``state`` and ``res`` are changed in place while this runs; only resolve_all and the
        # trials of ``solutions`` put other lists in their place, never under a caller's feet)
        state, res = self.state, self.res
        st = state[i]
        if st == RESOLVED:
            return res[i]
        deps = self.deps
        if st == GUESSING:
            # Always record the dependency, even if ``i`` is listed already: the caller's result
            # rests on a guess and must not be marked resolved.
            deps.append(i)
            return res[i]
        mark = len(deps)
        res[i] = False
        state[i] = GUESSING
        me = self._entered[i] = next(self._ticks)  # when it began to be guessed
        if self._core:  # adjudicate(), inline
            c = self.code[i]
            first = (self.core_move_succeeds(i) if c == MOVE else self.support_given(i) if c == SUPPORT
                     else self.stays(i) if c == CONVOY else True)
        else:
            first = self.adjudicate(i)
        if len(deps) == mark:
            if state[i] != RESOLVED:
                res[i] = first
                state[i] = RESOLVED
            return first
        entered = self._entered
        if min(entered[d] for d in deps[mark:]) < me:
            # part of a cycle found higher up (it rests on a guess made before this one, by a
            # decision that is still being resolved): keep the guess for now
            deps.append(i)
            self.res[i] = first
            return first
        # i heads a cycle: try the other guess
        seen = deps[mark:]
        for d in seen:
            self.state[d] = UNRESOLVED
        del deps[mark:]
        self.res[i] = True
        self.state[i] = GUESSING
        second = self.adjudicate(i)
        cycle = list(dict.fromkeys([i, *seen, *deps[mark:]]))
        for d in deps[mark:]:
            self.state[d] = UNRESOLVED
        del deps[mark:]
        found = None if self._trial else self.solutions(cycle)
        if found is None:  # the guesses for the head alone decide
            if first == second:
                self.res[i] = first
                self.state[i] = RESOLVED
                return first
            if self._trial:
                raise _Unsettled  # a cycle inside a trial of ``solutions``: that trial cannot tell
        elif len(found) == 1:
            for k, d in enumerate(cycle):
                self.res[d], self.state[d] = bool(found[0] >> k & 1), RESOLVED
            return self.res[i]
        self.cycle_outcomes = found  # for the backup rule of a rule module
        try:
            self.backup_rule(cycle)
        finally:
            self.cycle_outcomes = None
        return self.resolve(i)

    _trial = False
    cycle_outcomes: list[int] | None = None  # the consistent outcomes of the cycle given to backup_rule

    def solutions(self, cycle: list[int]) -> list[int] | None:
        """The consistent outcomes of a cycle (bit k: decision ``cycle[k]``), or None when they
        cannot be told (a long cycle, or one that runs into another undecided cycle).

        Guessing the head alone is not enough where a decision inside the cycle heads a cycle of
        its own: its value is then taken from its own first guess, and the head's two guesses may
        agree (or both contradict themselves) although the cycle has two outcomes (or one). So the
        outcome does not depend on which decision the resolver meets first, that is on the order
        of the orders, the cycle's outcomes are counted: exactly one is taken; none or several go
        to the backup rule (circular movement, paradox)."""
        if len(cycle) > 10:
            return None
        # the trials work on copies; the lists themselves are restored in place, since callers
        # up the stack (core_move_succeeds, run) hold them while this runs
        lists = self.state, self.res
        state, res, mark = list(self.state), list(self.res), len(self.deps)
        found: list[int] = []
        self._trial = True
        try:
            for bits in range(1 << len(cycle)):
                self.state, self.res = list(state), list(res)
                for k, d in enumerate(cycle):
                    self.res[d], self.state[d] = bool(bits >> k & 1), RESOLVED
                try:
                    if all(self.adjudicate(d) == self.res[d] for d in cycle):
                        found.append(bits)
                except _Unsettled:
                    return None
                finally:
                    del self.deps[mark:]
        finally:
            self._trial = False
            lists[0][:], lists[1][:] = state, res
            self.state, self.res = lists
        return found

    def backup_rule(self, cycle: list[int]) -> None:
        """Two consistent outcomes (or none) for a cycle: circular movement or a paradox."""
        code = self.code
        if all(code[d] == MOVE for d in cycle) and not any(self.carried[d] and self.carriers_in(d, cycle)
                                                          for d in cycle):
            for d in cycle:  # circular movement: everyone moves
                self.res[d] = True
                self.state[d] = RESOLVED
            return
        self.break_paradox(cycle)

    def carriers_in(self, move: int, cycle: list[int]) -> bool:
        return any(c in cycle for c in self.carriers[move])

    def break_paradox(self, cycle: list[int]) -> None:
        """Szykman: the convoys that are part of the paradox fail (their armies do not move)."""
        broken = set()
        for d in cycle:
            if self.code[d] == CONVOY:
                for j in range(len(self.order)):
                    if self.carried[j] and d in self.carriers[j]:
                        broken.add(j)
        if not broken:
            broken = {d for d in cycle if self.code[d] == MOVE and self.carried[d]}
        if not broken:  # defensive: should not happen with the standard order kinds
            broken = {d for d in cycle if self.code[d] == MOVE}
        self.forced_fail |= broken
        for d in cycle:
            if self.state[d] != RESOLVED:
                self.state[d] = UNRESOLVED

    # -- decisions ------------------------------------------------------------------------
    def adjudicate(self, i: int) -> bool:
        c = self.code[i]
        if c == MOVE:
            return self.move_succeeds(i)
        if c == SUPPORT:
            return self.support_given(i)
        if c == CONVOY:
            return self.stays(i)
        return True

    def path_ok(self, i: int) -> bool:
        """Can move ``i`` take place at all: a carried move needs an unbroken chain of carriers. (A
        move that cannot has no strength, cuts nothing and is no head-to-head battle; rule modules
        may cancel other moves so.)"""
        if not self.carried[i]:
            return True
        if i in self.forced_fail:
            return False
        cs = self.carriers[i]
        if not cs:
            return False
        return self.chain_ok(i, cs)

    def chain_ok(self, i: int, cs: list[int]) -> bool:
        """DATC 4.A.1 b: some route of carriers that stay joins the move's two ends."""
        m = self.m
        src, dest = self.src[i], self.dst[i]
        open_ = {self.src[c] for c in cs if self.resolve(c)}
        if not open_:
            return False
        adj = m.fleet_reach_prov
        frontier = [p for p in adj.get(src, ()) if p in open_]
        seen = set(frontier)
        while frontier:
            p = frontier.pop()
            if dest in adj.get(p, ()):
                return True
            for q in adj.get(p, ()):
                if q in open_ and q not in seen:
                    seen.add(q)
                    frontier.append(q)
        return False

    def count_supports(self, i: int, exclude_power: str | None = None) -> int:
        n = 1
        for s in self.supports[i]:
            if exclude_power is not None and self.power[s] == exclude_power:
                continue
            if self.resolve(s):
                n += 1
        return n

    def hold_strength(self, prov: str) -> int:
        j = self.idx_of.get(prov)
        if j is None:
            return 0
        if self.code[j] == MOVE:
            return 0 if self.resolve(j) else 1
        return self.count_supports(j)

    def attack_strength(self, i: int) -> int:
        if not self.path_ok(i):
            return 0
        j = self.idx_of.get(self.dst[i])  # type: ignore[arg-type]
        if j is None or (self.code[j] == MOVE and self.h2h[i] != j and self.resolve(j)):
            return self.count_supports(i)
        if self.power[j] == self.power[i]:
            return 0  # no self-dislodgement (DATC 6.D.10)
        return self.count_supports(i, exclude_power=self.power[j])

    def prevent_strength(self, i: int) -> int:
        if not self.path_ok(i):
            return 0
        j = self.h2h[i]
        if j >= 0 and self.resolve(j):
            return 0
        return self.count_supports(i)

    def move_succeeds(self, i: int) -> bool:
        attack = self.attack_strength(i)
        if attack == 0:
            return False
        d = self.dst[i]
        j = self.h2h[i]
        if j >= 0 and self.path_ok(j):  # (a move that does not take place is no head-to-head battle)
            if attack <= self.count_supports(j):  # defend strength
                return False
        elif attack <= self.hold_strength(d):  # type: ignore[arg-type]
            return False
        for k in self.into[d]:  # type: ignore[index]
            if k != i and attack <= self.prevent_strength(k):
                return False
        return True

    def core_move_succeeds(self, i: int) -> bool:
        """:meth:`move_succeeds` with the core's strengths written out in it (used only while no
        module overrides them: see ``_core``): the same decisions read in the same order, so the
        same result and the same guesses; ``tests/test_engine_core_decisions.py`` holds the two equal.
        A decision already resolved is read from ``res`` without the call (``resolve`` would only
        return it)."""
        resolve, state, res = self.resolve, self.state, self.res
        carried, supports, power, h2h = self.carried, self.supports, self.power, self.h2h
        if carried[i] and not self.path_ok(i):
            return False  # attack strength 0
        d = self.dst[i]
        j = self.idx_of.get(d)  # type: ignore[arg-type]
        h = h2h[i]
        attack = 1
        if j is None or (self.code[j] == MOVE and h != j and (res[j] if state[j] == RESOLVED else resolve(j))):
            for s in supports[i]:
                if res[s] if state[s] == RESOLVED else resolve(s):
                    attack += 1
        else:
            pj = power[j]
            if pj == power[i]:
                return False  # no self-dislodgement (DATC 6.D.10)
            for s in supports[i]:
                if power[s] != pj and (res[s] if state[s] == RESOLVED else resolve(s)):
                    attack += 1
        if j is not None:  # the unit in the destination: a head-to-head's defend strength (h is j), or its hold strength
            if (h >= 0 and (not carried[h] or self.path_ok(h))) or self.code[j] != MOVE:
                held = 1
                for s in supports[j]:
                    if res[s] if state[s] == RESOLVED else resolve(s):
                        held += 1
                if attack <= held:
                    return False
            elif not (res[j] if state[j] == RESOLVED else resolve(j)) and attack <= 1:
                return False  # it moves away: 1 if it fails
        into = self.into[d]  # type: ignore[index]
        if len(into) == 1:
            return True  # no other move into d
        for k in into:
            if k == i or (carried[k] and not self.path_ok(k)):
                continue  # prevent strength 0
            jj = h2h[k]
            if jj >= 0 and (res[jj] if state[jj] == RESOLVED else resolve(jj)):
                continue
            prevent = 1
            for s in supports[k]:
                if res[s] if state[s] == RESOLVED else resolve(s):
                    prevent += 1
            if attack <= prevent:
                return False
        return True

    def support_given(self, i: int) -> bool:
        if i in self.void:
            return False
        o = self.order[i]
        assert isinstance(o, Support)
        here = self.src[i]
        into = self.into.get(here)
        if not into:
            return True
        target = province_of(o.dest) if o.dest else None
        me = self.power[i]
        rest = []
        for k in into:
            if self.power[k] == me:
                continue  # a unit cannot cut the support of its own power
            if self.src[k] == target:
                rest.append(k)  # an attack from the target province cuts only by dislodging
                continue
            if self.carried[k] and self.paradox_rule == "1971" and self.attacks_own_convoy(k, o):
                # XII.5 takes precedence over the dislodge rule (DATC 6.F.17): this attack
                # neither cuts the support nor, by dislodging, removes it.
                continue
            if not self.path_ok(k):
                continue  # a move that does not take place (a broken convoy) cuts nothing
            return False
        for k in rest:
            if self.resolve(k):
                return False  # dislodged
        return True

    def attacks_own_convoy(self, k: int, support: Support) -> bool:
        """1971 rule XII.5: is ``support`` for an attack on a fleet convoying army move ``k``?"""
        if support.dest is None:
            return False
        d = province_of(support.dest)
        return any(self.src[c] == d for c in self.carriers[k])

    def stays(self, i: int) -> bool:
        """A unit that does not move stays unless some move into its province succeeds."""
        for k in self.into.get(self.src[i], ()):
            if self.resolve(k):
                return False
        return True

    # -- Coast-Running's convoy rule --------------------------------------------------------
    def apply_convoyed_attack_yields(self) -> None:
        """A carried attack that would affect an attack on any of its carriers does not take place."""
        changed = True
        while changed:
            changed = False
            for i in range(len(self.order)):
                if not self.carried[i] or i in self.forced_fail or not self.path_ok(i):
                    continue
                carrier_provs = {self.src[c] for c in self.carriers[i]}
                watched = [k for p in carrier_provs for k in self.into.get(p, ())]
                if not watched:
                    continue
                with_move = [self.res[k] for k in watched]
                alt = self.counterfactual(without={i})
                if [alt[k] for k in watched] != with_move:
                    self.forced_fail.add(i)
                    self.resolve_all()
                    changed = True

    def counterfactual(self, without: set[int]) -> list[bool]:
        saved = (self.state, self.res, set(self.forced_fail))
        self.forced_fail |= without
        self.resolve_all()
        out = list(self.res)
        self.state, self.res, self.forced_fail = saved
        return out

    def resolve_all(self) -> None:
        n = len(self.order)
        self.state = [UNRESOLVED] * n
        self.res = [False] * n
        self.deps = []
        self._entered = [-1] * n
        for i in range(n):
            self.resolve(i)

    def after_movement(self, after: Position, out: MovementOutcome, events: list[str]) -> None:
        """Hook for rule modules: adjust the board after the moves (e.g. transformations)."""

    # ------------------------------------------------------------------ outcome
    def outcome(self, results: list[OrderResult | None]) -> MovementOutcome:
        units = self.pos.units
        code, res, order, idx_of, into = self.code, self.res, self.order, self.idx_of, self.into
        after_hook = "unit_after" not in self._kept
        stand_hook = "can_stand" not in self._kept
        unit_after, can_stand = self.unit_after, self.can_stand
        new_units: dict[str, Unit] = {}
        moved: dict[str, str] = {}
        dislodged_units: list[tuple[Unit, int]] = []
        stranded: list[tuple[Unit, str]] = []
        staying: dict[str, Unit] = {}
        placed = retreat.map_memo(self.m, "units_placed")
        for p, u in units.items():  # the units that moved come first on the new board, then the rest
            j = idx_of[p]
            if after_hook:
                after_u = unit_after(p, u)
                if after_u is None:
                    continue
                u = after_u
            if code[j] == MOVE and res[j]:
                loc = order[j].dest  # type: ignore[attr-defined]
                moved[p] = loc
                if stand_hook and not can_stand(u, loc):
                    stranded.append((u, loc))
                    continue
                try:  # units never change: the same unit in the same place is shared (see _placed)
                    moving = placed[loc][u.power][u.kind]
                except KeyError:
                    moving = _placed(placed, u, loc)
                new_units[moving.prov] = moving
                continue
            if p in into:  # (most units are attacked by no move: asked without a call)
                for k in reversed(into[p]):  # the last successful move into p dislodges the unit
                    if res[k]:
                        dislodged_units.append((u, k))
                        break
                else:
                    staying[p] = u
            else:
                staying[p] = u
        new_units.update(staying)
        for i in range(len(self.provs), len(order)):  # moves beside the units' own orders
            if code[i] == MOVE and res[i]:
                arrived = self.arrival(i)
                if arrived is not None:
                    new_units[arrived.prov] = arrived
        # a province left empty where a move with some strength bounced; with the core's strengths
        # a move's prevent strength is at least 1 unless it cannot take place or lost head to head
        contested = set()
        core = self._core
        state, carried, h2h = self.state, self.carried, self.h2h
        for d, movers in into.items():
            if d in new_units:
                continue
            for k in movers:
                if res[k]:
                    break  # a move arrived there (and its unit cannot stand there)
            else:
                for k in movers:
                    if core:
                        if carried[k] and not self.path_ok(k):
                            continue
                        jj = h2h[k]
                        if jj < 0 or not (res[jj] if state[jj] == RESOLVED else self.resolve(jj)):
                            contested.add(d)
                            break
                    elif self.prevent_strength(k) > 0:
                        contested.add(d)
                        break
        contested_f = frozenset(contested)
        dislodged: dict[str, Dislodged] = {}
        if dislodged_units or stranded:
            after = Position(self.pos.variant, self.pos.phase, new_units, self.pos.centres)
            for u, k in dislodged_units:
                attacker_from = None if self.carried[k] else self.src[k]
                dislodged[u.prov] = Dislodged(u, attacker_from,
                                              self.retreat_options(after, u, attacker_from, contested_f))
            if stranded:
                self.strand(stranded, after, contested_f, dislodged)
        self.fill_results(results, dislodged)
        return MovementOutcome(list(filter(None, results)), new_units, dislodged, contested_f, moved)

    def unit_after(self, prov: str, unit: Unit) -> Unit | None:
        """Hook: the unit in ``prov`` as it ends the moves, where it is (its kind may change: an A/F
        whose army landed is a fleet); None when it ends them aboard another unit."""
        return unit

    def can_stand(self, unit: Unit, loc: str) -> bool:
        """Hook (with :meth:`unit_after`): may ``unit``, after a successful move, stand in ``loc``?"""
        return True

    def strand(self, stranded: list[tuple[Unit, str]], after: Position, contested: frozenset[str],
               dislodged: dict[str, Dislodged]) -> None:
        """Hook: place the units that moved where they cannot stand (see :meth:`can_stand`), as
        dislodged units (keyed by the province they left) or on the board ``after``."""
        raise AssertionError("a module that says a unit cannot stand must place it")

    def arrival(self, i: int) -> Unit | None:
        """Hook: the unit a successful move beside the units' own orders (:meth:`add_decision`) puts
        on the board (an A/F's army that lands), or None."""
        return None

    def retreat_options(self, after: Position, unit: Unit, attacker_from: str | None,
                        contested: frozenset[str]) -> tuple[str, ...]:
        """Hook: where a dislodged unit may retreat on the board ``after`` the moves."""
        return retreat.retreat_options(after, unit, attacker_from, contested)

    def fill_results(self, results: list[OrderResult | None], dislodged: dict[str, Dislodged]) -> None:
        code, res, carried, void = self.code, self.res, self.carried, self.void
        # (result_slot has the keys of order_of, in the same order: the decisions 0, 1, ...)
        for i, slot in enumerate(self.result_slot.values()):
            r = results[slot]
            if r is None or r.result == "invalid":
                continue
            c = code[i]
            if c == MOVE:
                if res[i]:
                    r.result = "succeeds"
                else:
                    r.result = "fails"
                    if carried[i] and not self.path_ok(i):
                        r.reason = "no convoy" if i not in self.forced_fail else "convoy paradox: no convoy"
                    else:
                        r.reason = "bounced"
            elif c == SUPPORT:
                if i in void:
                    r.result, r.reason = "fails", "void: the supported unit was not ordered so"
                elif res[i]:
                    r.result = "succeeds"
                else:
                    r.result, r.reason = "fails", "cut"
            elif c == CONVOY:
                if i in void:
                    r.result, r.reason = "fails", "void: the army was not ordered so"
                elif not res[i]:
                    r.result, r.reason = "fails", "dislodged"
                elif self.forced_fail and any(i in self.carriers[j] and j in self.forced_fail
                                              for j in range(len(self.order))):
                    r.result, r.reason = "fails", "convoy paradox: the fleet holds"
                else:
                    r.result = "succeeds"
            else:
                r.result = "succeeds"
        if not dislodged:
            return
        # the dislodged units' orders say so (few a phase: a pass of their own)
        result_slot, idx_of = self.result_slot, self.idx_of
        for p in dislodged:
            slot = result_slot.get(p)
            if slot is None:
                continue
            r = results[slot]
            if r is None or r.result == "invalid":
                continue
            i = idx_of[p]
            c = code[i]
            if c == MOVE:
                if not res[i]:
                    r.reason += ", dislodged"
            elif c == SUPPORT:
                if i not in void and not res[i]:
                    r.reason = "dislodged"  # (not "cut")
            elif c != CONVOY:
                r.result = "fails"
            if "dislodged" not in r.reason:  # a void or given support, a void convoy too
                r.reason = (r.reason + ", " if r.reason else "") + "dislodged"


_UNKNOWN = object()  # not in a memo


def _placed(placed: dict[str, dict[str, dict[str, Unit]]], u: Unit, loc: str) -> Unit:
    """``u``'s kind and power in ``loc``: the unit a move puts there, made once a map (``placed``:
    location -> power -> kind -> unit, bounded by the map's locations and the powers that moved)."""
    by_power = placed.get(loc)
    if by_power is None:
        by_power = placed[loc] = {}
    by_kind = by_power.get(u.power)
    if by_kind is None:
        by_kind = by_power[u.power] = {}
    moving = by_kind.get(u.kind)
    if moving is None:
        moving = by_kind[u.kind] = Unit(u.power, u.kind, loc)
    return moving


#: OrderResult's fields, which ``prepare`` sets itself on the result of each order it takes (the
#: dataclass's __init__, called from C, runs in a frame of its own: some 400 instructions a result).
#: Checked on import, so that a field added to OrderResult cannot be left unset there.
_RESULT_FIELDS = ("order", "power", "_text", "result", "reason", "default", "map")
if tuple(f.name for f in fields(OrderResult)) != _RESULT_FIELDS:
    raise ImportError("OrderResult's fields changed: update MovementResolver.prepare and _RESULT_FIELDS")

#: the methods :meth:`MovementResolver.resolve` and ``run`` take inline while a class keeps them all
_CORE_STEPS = frozenset(("adjudicate", "move_succeeds", "attack_strength", "hold_strength", "prevent_strength",
                         "count_supports", "path_ok", "support_given", "stays", "resolve"))
#: the checks of orders: while a class keeps them all, each order taken is for the unit in its province
_CHECKS = frozenset(("check", "check_move", "check_support", "check_convoy", "check_other"))
_KEPT: dict[type, frozenset[str]] = {}  # resolver class -> the hooks and steps it keeps as the core's


def _kept(cls: type) -> frozenset[str]:
    """The hooks and decision steps ``cls`` does not override, worked out once a class (reading
    a class attribute is slow in 3.11: such a read is never specialised)."""
    kept = _KEPT.get(cls)
    if kept is None:
        kept = _KEPT[cls] = frozenset(name for name in HOOKS | _CORE_STEPS | {"take"}
                                      if getattr(cls, name) is getattr(MovementResolver, name))
    return kept


def _power_and_place(u: Unit) -> tuple[str, str]:
    return (u.power, u.loc)


def _w(kind: str) -> str:
    return {"A": "army", "F": "fleet", "A/F": "army/fleet"}.get(kind, kind)


def _a(kind: str) -> str:
    w = _w(kind)
    return f"an {w}" if w[0] in "aeiou" else f"a {w}"
