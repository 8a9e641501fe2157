"""After reading: the engine's verdict on each order (``check=True``) and the warnings that need
the whole set of orders (supports and convoys that do not match what the unit was ordered to do,
orders replaced by a later one).

The verdict is the engine's own legality check, not a second copy of it: the movement resolver's
set-up (``prepare``, which checks each order as adjudication will), the retreat adjudicator on
each order, and the adjustment adjudicator on all of them in order. When an enabled rule module
has no engine code yet, no verdict is given rather than a wrong one (its orders may be legal
only under its rules).
"""

from __future__ import annotations

from typing import Any

from judge.engine import modules, resolver_class
from judge.engine.modules import UnknownModule
from judge.engine.orders import Convoy, Hold, Move, Order, Support
from judge.engine.retreat import adjudicate_retreats
from judge.engine.position import KIND_WORD, Position
from judge.orders.parsed import ParsedLine
from judge.engine.variant_kinds import Disembark, FastFerry, Protect
from judge.variant import Map, province_of

REPLACED = "replaced by a later order for the same unit"
REPLACED_BY = "replaced by a later order"  # the engine's reason for an order that was legal but replaced


def engine_verdicts(lines: list[ParsedLine], pos: Position, rules: dict[str, Any]) -> None:
    """Turn each order the engine would refuse into an error carrying the engine's reason."""
    phase = pos.phase.kind
    wrong_phase = [p for p in lines if p.order is not None and phase not in type(p.order).phases]
    for p in wrong_phase:
        _refuse(p, f"{type(p.order).keyword.replace('_', ' ')} orders are not allowed in {_a(phase)} phase")
    todo = [p for p in lines if p.order is not None]
    try:
        if phase == "movement":
            _movement(todo, pos, rules)
        elif phase == "retreat":
            _retreats(todo, pos, rules)
        else:
            _adjustments(todo, pos, rules)
    except (UnknownModule, ImportError):
        pass  # a rule module without engine code yet: its rules decide, so no verdict
    _mark_replaced(lines)


def _movement(todo: list[ParsedLine], pos: Position, rules: dict[str, Any]) -> None:
    """The resolver's own set-up (``prepare``) checks every order as adjudication will."""
    resolver = resolver_class(rules)(pos, [p.order for p in todo], rules)
    results = resolver.prepare()
    for p, result in zip(todo, results):
        if result is not None and result.result == "invalid" and not result.reason.startswith(REPLACED_BY):
            _refuse(p, result.reason)


def _retreats(todo: list[ParsedLine], pos: Position, rules: dict[str, Any]) -> None:
    for p in todo:
        assert p.order is not None
        result = adjudicate_retreats(pos, [p.order], rules)[0][0]
        if result.result == "invalid":
            _refuse(p, result.reason)


def _adjustments(todo: list[ParsedLine], pos: Position, rules: dict[str, Any]) -> None:
    """Builds and removals count against what is due, so they are judged together, in order
    (DATC 4.D.4, 4.D.6: the first legal orders are used)."""
    orders = [p.order for p in todo]
    results, _ = modules.adjudicate_adjustments(pos, orders, rules)
    aligned = len(results) >= len(orders) and all(
        type(r.order) is type(o) and r.order.loc == o.loc for r, o in zip(results, orders))  # type: ignore[union-attr]
    if not aligned:
        return  # a rule module that reports in its own order: no verdict rather than a wrong one
    for p, result in zip(todo, results):
        if result.result == "invalid":
            _refuse(p, result.reason)
        elif result.result == "fails":  # legal, but beyond what is due: it will not be used
            p.warnings.append(result.reason)


def _refuse(p: ParsedLine, reason: str) -> None:
    p.order, p.error = None, reason


def _mark_replaced(lines: list[ParsedLine]) -> None:
    """The last good order for a unit wins; say so on the earlier ones."""
    last: dict[tuple[str, str], ParsedLine] = {}
    for p in lines:
        o = p.order
        if o is None or not o.is_unit_order or type(o).phases == ("adjustment",):
            continue
        key = (o.power, province_of(o.loc))
        if key in last:
            last[key].warnings.append(REPLACED)
        last[key] = p


def mismatch_warnings(lines: list[ParsedLine], pos: Position) -> None:
    """Supports, convoys and protections for a unit that these orders send elsewhere: legal, but
    they will not help (the supported unit's own order decides)."""
    m = pos.map
    last: dict[str, Order] = {}  # province -> the order its unit will carry out (the last one)
    lands: dict[str, set[str]] = {}  # province -> where an army aboard an A/F there lands
    for p in lines:
        o = p.order
        if isinstance(o, Disembark):
            lands.setdefault(province_of(o.loc), set()).add(province_of(o.dest))
        elif o is not None and o.is_unit_order:
            last[province_of(o.loc)] = o
    goes: dict[str, set[str]] = {p: set(d) for p, d in lands.items()}  # province -> where its unit moves
    does: dict[str, str] = {}  # province -> what else its unit is ordered to do
    for here, o in last.items():
        if isinstance(o, Move):
            goes.setdefault(here, set()).add(province_of(o.dest))
        else:
            does[here] = "hold" if isinstance(o, Hold) else type(o).keyword.replace("_", " ")
    for p in lines:
        o = p.order
        if isinstance(o, Support):
            target, goal = o.target, o.dest
        elif isinstance(o, (Convoy, FastFerry)):
            target, goal = (o.target if isinstance(o, Convoy) else o.army), o.dest
        elif isinstance(o, Protect):
            target, goal = o.fleet, o.dest
        else:
            continue
        tp = province_of(target)
        dests = goes.get(tp, set())
        if not dests and tp not in does:
            continue  # not ordered here: nothing to compare with
        unit = pos.units.get(tp)
        what = f"the {KIND_WORD[unit.kind] if unit else 'unit'} in {m.name(tp)}"
        if goal is None:
            if dests and tp not in does:
                p.warnings.append(f"{what} is ordered to move to {_names(m, dests)}, so this support to hold "
                                  "will not count")
        elif province_of(goal) not in dests:
            doing = f"ordered to {_names(m, dests)}" if dests else f"ordered to {does[tp]}"
            p.warnings.append(f"{what} is {doing}, not to move to {m.name(province_of(goal))}")


def _names(m: Map, provs: set[str]) -> str:
    return " and ".join(sorted(m.name(p) for p in provs))


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"
