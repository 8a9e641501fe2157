"""The adjudicator: pure functions from (position, orders, rules) to results and the next position.

No I/O here: no files, no database, no mail. Variant rule modules (``judge.engine.modules``)
plug in by name through ``rules["modules"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judge.engine import modules
from judge.engine.adjustment import adjustments_due
from judge.engine.centres import build_centre_owners
from judge.engine.movement import MovementResolver
from judge.engine.orders import Order, OrderResult
from judge.engine.position import Dislodged, Position, Unit
from judge.variant import Phase, Variant


@dataclass
class PhaseResult:
    """What came of a phase: each order's result and the next position to play."""

    phase: Phase
    results: list[OrderResult]
    next: Position
    victory: dict[str, Any] | None = None
    events: list[str] = field(default_factory=list)  # e.g. "Army in Lon drowned"
    #: units dislodged with nowhere to retreat: destroyed with the moves, no retreat phase for them
    destroyed: list[Dislodged] = field(default_factory=list)


def read_position(data: dict[str, Any], variant: Variant, rules: dict[str, Any] | None = None) -> Position:
    """Read a position as a person or another program writes it: a dislodged unit given without
    its ``retreats`` gets the ones the rules (default: the variant's) allow on that board."""
    rules = rules if rules is not None else variant.rules

    def retreats_of(pos: Position, d: Dislodged) -> tuple[str, ...]:
        return modules.retreat_options(pos, d.unit, d.attacker_from, frozenset(), rules)

    return Position.from_json(data, variant, retreats_of=retreats_of)


def resolver_class(rules: dict[str, Any]) -> type[MovementResolver]:
    """The movement resolver with every enabled rule module mixed in."""
    return modules.resolver_for(tuple(rules.get("modules", ())))


def adjudicate(pos: Position, orders: list[Order], rules: dict[str, Any] | None = None) -> PhaseResult:
    """Adjudicate the phase ``pos`` is in with ``orders``; return results and the next position."""
    rules = rules if rules is not None else pos.variant.rules
    if rules.get("modules"):  # (the modules' hooks are asked only where a game plays some)
        pos = modules.at_phase_start(pos, rules)
    kind = pos.phase.kind
    events: list[str] = []
    if kind == "movement":
        resolver = resolver_class(rules)(pos, orders, rules)
        out = resolver.run()
        after = Position(pos.variant, pos.phase, out.units, dict(pos.centres), out.dislodged, _copy_extra(pos))
        if "after_movement" not in resolver._kept:  # (the core's hook does nothing: not called)
            resolver.after_movement(after, out, events)
        results = out.results
        destroyed = destroy_trapped(after) if after.dislodged else []
    else:
        destroyed = []
        phase_rules = modules.adjudicate_retreats if kind == "retreat" else modules.adjudicate_adjustments
        results, units = phase_rules(pos, orders, rules)
        after = Position(pos.variant, pos.phase, units, dict(pos.centres), {}, _copy_extra(pos))
    nxt, victory = advance(after, rules, events)
    return PhaseResult(pos.phase, results, nxt, victory, events, destroyed)


def destroy_trapped(after: Position) -> list[Dislodged]:
    """Take off the board the dislodged units with no retreat (the rules' own answer, modules
    included): "If no place is available for retreat, the dislodged unit is disbanded". A retreat
    phase is then held only for units that have a choice; none left, it is skipped."""
    gone = [p for p, d in after.dislodged.items() if not d.retreats]
    return [after.dislodged.pop(p) for p in gone]


def _copy_extra(pos: Position) -> dict[str, Any]:
    if not pos.extra:  # (most games keep no module state: no comprehension's frame for it)
        return {}
    return {k: (v.copy() if hasattr(v, "copy") else v) for k, v in pos.extra.items()}


def advance(after: Position, rules: dict[str, Any], events: list[str]) -> tuple[Position, dict[str, Any] | None]:
    """From the board at the end of a phase, step the calendar to the next phase that needs orders.

    Retreat phases without dislodged units and adjustment phases with nothing to adjust are
    skipped; supply-centre ownership is updated on entering every adjustment phase, and the
    victory condition checked there. Map changes scheduled after a phase are applied as it ends.
    """
    variant = after.variant
    cal = variant.calendar
    pos = after
    phase = after.phase
    victory = None
    hooks = bool(rules.get("modules"))  # (the modules' hooks are asked only where a game plays some)
    for _ in range(64):  # a calendar year can hold at most a few dozen phases
        for change in variant.changes_after(phase):
            modules.apply_map_change(pos, change, rules, events)
        phase = cal.following(phase)
        if phase.kind == "retreat":
            if pos.dislodged:
                return Position(variant, phase, pos.units, pos.centres, pos.dislodged, pos.extra), victory
            if variant.changes:  # (the board of a skipped phase is made only for a map change after it)
                pos = Position(variant, phase, pos.units, pos.centres, pos.dislodged, pos.extra)
            continue
        pos = Position(variant, phase, pos.units, pos.centres, {}, pos.extra)
        if phase.kind == "adjustment":
            update_ownership(pos)
            victory = check_victory(pos, rules) or victory
            if victory and victory.get("final"):
                return pos, victory
            if adjustments_due(pos) or (hooks and modules.adjustment_needed(pos, rules)):
                return pos, victory
            continue
        if hooks:
            victory = modules.check_end(pos, rules) or victory
        return pos, victory
    raise RuntimeError(f"calendar of {variant.name} has no movement phase")


def update_ownership(pos: Position) -> None:
    """A supply centre belongs to the power whose unit stands in it (after the last move)."""
    is_centre = pos.map.centres
    centres = pos.centres
    for p, u in pos.units.items():
        if p in is_centre:
            centres[p] = u.power
    if not is_centre.issuperset(centres):  # (a set operation: only a map change leaves any)
        for c in [c for c in centres if c not in is_centre]:
            del centres[c]
    if not _has_build_sites(pos.variant):  # (most variants: no build site beside the home centres)
        return
    owners = build_centre_owners(pos)  # build sites that are not centres (1885 II: Sicily)
    if owners:
        for p in owners:
            if p in pos.units:
                owners[p] = pos.units[p].power
        pos.extra["build_centres"] = owners


def _has_build_sites(variant: Variant) -> bool:
    """Does a power of ``variant`` list build sites (build_centre_owners has none to find
    without)? Worked out once a variant (its powers do not change)."""
    has = variant.__dict__.get("_has_build_sites")
    if has is None:
        has = variant.__dict__["_has_build_sites"] = any(p.build_sites for p in variant.powers.values())
    return has


def check_victory(pos: Position, rules: dict[str, Any]) -> dict[str, Any] | None:
    """Victory per the variant: one power alone, or an alliance where the variant allows it."""
    v = pos.variant.victory
    counts: dict[str, int] = {}
    for p in pos.centres.values():
        counts[p] = counts.get(p, 0) + 1
    need = int(v.get("centres", 0) or 0)
    if need and counts:
        most = max(counts.values())
        if most >= need and list(counts.values()).count(most) == 1:  # one power alone has the most
            leader = next(p for p, n in counts.items() if n == most)
            return {"winner": [leader], "kind": "solo", "centres": most, "final": True}
    return modules.check_victory(pos, counts, rules) if rules.get("modules") else None


__all__ = ["adjudicate", "advance", "read_position", "PhaseResult", "Position", "Unit", "Dislodged", "Order", "OrderResult"]
