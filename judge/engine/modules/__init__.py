"""Rule modules: variant rules that plug into the adjudicator, one small module per rule.

A module is ``judge/engine/modules/<name>.py`` defining ``MODULE = RuleModule(...)``. Enabled
by name in a variant's or game's ``rules.modules``. A module may supply:

- ``resolver_mixin``: a class mixed in before :class:`MovementResolver`: new order kinds'
  legality and decisions, by overriding the resolver's hooks (``movement.HOOKS``; never its steps
  ``prepare``, ``build``, ``run``, ``outcome``), plus methods of its own;
- ``on_map_change(pos, change, rules, events)``: what happens to units when the map changes;
- ``adjustment_needed(pos, rules)``: force an adjustment phase that counts alone would skip;
- ``check_victory(pos, counts, rules)`` / ``check_end(pos, rules)``: extra ways a game ends;
- ``adjudicate_adjustments(pos, orders, rules)``: take over an adjustment phase (return
  ``(results, units)`` like :func:`judge.engine.adjustment.adjudicate_adjustments`, or None to
  leave it to the standard rules);
- ``adjudicate_retreats(pos, orders, rules)``: take over a retreat phase (return ``(results,
  units)`` like :func:`judge.engine.retreat.adjudicate_retreats`, or None);
- ``read_orders(text, pos, rules, parse, lines)``: read order text where the board alone cannot
  (1885 II: orders for hidden start units); ``lines(text)`` gives its order lines; return parsed
  lines like ``parse(text, pos)``, or None;
- ``retreat_options(after, unit, attacker_from, contested, rules)``: where a dislodged unit may
  retreat (like :func:`judge.engine.retreat.retreat_options`), or None for the standard answer;
- ``at_phase_start(pos, rules)``: note module state from the position a phase starts from (a
  position handed to the judge carries only what it says); return a new position, or None.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable

from judge.engine import adjustment, retreat
from judge.engine.movement import MovementResolver
from judge.engine.position import Position, Unit
from judge.variant import province_of


@dataclass(frozen=True)
class RuleModule:
    name: str
    resolver_mixin: type | None = None
    on_map_change: Callable[..., bool] | None = None
    adjustment_needed: Callable[..., bool] | None = None
    check_victory: Callable[..., dict | None] | None = None
    check_end: Callable[..., dict | None] | None = None
    adjudicate_adjustments: Callable[..., tuple | None] | None = None
    adjudicate_retreats: Callable[..., tuple | None] | None = None
    read_orders: Callable[..., list | None] | None = None
    retreat_options: Callable[..., tuple | None] | None = None
    at_phase_start: Callable[..., Position | None] | None = None


class UnknownModule(ValueError):
    pass


@lru_cache(maxsize=None)
def get_module(name: str) -> RuleModule:
    try:
        mod = importlib.import_module(f"judge.engine.modules.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"judge.engine.modules.{name}":
            raise UnknownModule(f"unknown rule module {name!r}") from None
        raise
    return mod.MODULE


@lru_cache(maxsize=None)
def resolver_for(names: tuple[str, ...]) -> type[MovementResolver]:
    mixins = tuple(m.resolver_mixin for m in map(get_module, names) if m.resolver_mixin)
    if not mixins:
        return MovementResolver
    return type("Resolver_" + "_".join(names), (*mixins, MovementResolver), {})


def _modules(rules: dict[str, Any]) -> list[RuleModule]:
    return [get_module(n) for n in rules.get("modules", ())]


def apply_map_change(pos: Position, change, rules: dict[str, Any], events: list[str]) -> None:
    """Switch ``pos`` to the map after ``change``; drop destroyed centres; units that can no
    longer stand where they are are removed (armies in a province that became sea drown)."""
    _after, new_map, removed, _added = change
    for c in removed:
        pos.centres.pop(c, None)
    for m in _modules(rules):
        if m.on_map_change and m.on_map_change(pos, change, rules, events):
            return
    for p, u in list(pos.units.items()):
        kind = "F" if u.kind == "A/F" else u.kind
        if new_map.can_hold(kind, u.loc):
            continue
        locs = new_map.unit_locs(kind, province_of(u.loc))
        if kind == "F" and locs:
            pos.units[p] = Unit(u.power, u.kind, locs[0])  # a new unit: positions share theirs
            continue
        del pos.units[p]
        events.append(f"{u.power}: {u.kind} {p} removed ({'drowned' if kind == 'A' else 'stranded'})")


def at_phase_start(pos: Position, rules: dict[str, Any]) -> Position:
    """The position a phase is adjudicated from, with what the enabled modules note from it."""
    for m in _modules(rules):
        if m.at_phase_start:
            pos = m.at_phase_start(pos, rules) or pos
    return pos


def adjustment_needed(pos: Position, rules: dict[str, Any]) -> bool:
    return any(m.adjustment_needed(pos, rules) for m in _modules(rules) if m.adjustment_needed)


def _first(rules: dict[str, Any], hook: str, *args: Any) -> Any:
    """The first non-empty answer of an enabled module's ``hook``, or None."""
    for m in _modules(rules):
        fn = getattr(m, hook)
        if fn:
            out = fn(*args)
            if out:
                return out
    return None


def check_victory(pos: Position, counts: dict[str, int], rules: dict[str, Any]) -> dict | None:
    return _first(rules, "check_victory", pos, counts, rules)


def check_end(pos: Position, rules: dict[str, Any]) -> dict | None:
    return _first(rules, "check_end", pos, rules)


def adjudicate_adjustments(pos: Position, orders: list, rules: dict[str, Any]) -> tuple:
    """The adjustment phase: the first enabled module that takes it over, else the standard rules."""
    return (_first(rules, "adjudicate_adjustments", pos, orders, rules)
            or adjustment.adjudicate_adjustments(pos, orders, rules))


def adjudicate_retreats(pos: Position, orders: list, rules: dict[str, Any]) -> tuple:
    """The retreat phase: the first enabled module that takes it over, else the standard rules."""
    return _first(rules, "adjudicate_retreats", pos, orders, rules) or retreat.adjudicate_retreats(pos, orders, rules)


def retreat_options(after: Position, unit: Unit, attacker_from: str | None, contested: frozenset[str],
                    rules: dict[str, Any]) -> tuple[str, ...]:
    """Where a dislodged unit may retreat on the board ``after`` the moves: the first enabled
    module's answer (the A/F rules), else the standard rule."""
    for m in _modules(rules):
        if m.retreat_options:
            out = m.retreat_options(after, unit, attacker_from, contested, rules)
            if out is not None:
                return out
    return retreat.retreat_options(after, unit, attacker_from, contested)


def read_orders(text: str, pos: Position, rules: dict[str, Any], parse: Callable[[str, Position], list],
                lines: Callable[[str], Iterable[str]] = str.splitlines) -> list:
    """Order text -> parsed lines: ``parse(text, pos)`` unless an enabled module reads it itself
    (line by line: ``lines`` is the order language's split of the text into order lines)."""
    out = _first(rules, "read_orders", text, pos, rules, parse, lines)
    return out if out is not None else parse(text, pos)
