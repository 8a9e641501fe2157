"""Removals the judge makes when a power orders too few: the units whose loss has least effect.

1885 II rule 10c: "There is no requirement that the GM must remove fleets before armies, or Away
units before Home units, where he finds that such a procedure would result in the gift of a
Supply Center to another Power. In all such cases, the GM is required to remove the unit or units
which, in his judgement, would have the least effect on the course of the game."

The judge's "judgement" is this fixed comparison (written down with its reasons in
``docs/variants/1885.md`` "Default removals" and ``docs/rulings.md`` "1885 II"). For each unit of
the power, looking only at the board as it stands, the judge asks in turn — a unit with the
smaller answer is removed first, the next question only breaks ties:

1. **Gift.** Would its removal hand a centre to another power: does it stand on a supply centre
   (or build centre, 1885's Sicily) its power owns that a unit of another power could enter on
   the next move? (no before yes) — the case the rule names.
2. **Contact.** How many units of other powers is it in contact with (it could move into their
   province, or they into its)? Fewer first: a unit away from the fighting changes least.
3. **Garrison.** Does it stand on a centre (or build centre) its power owns? (no before yes)
   Even unthreatened, an empty centre is open to the next move's surprises.
4. **Reach.** How many supply centres its power does not own could it move into next move?
   Fewer first: it has less power to change who owns what.
5. **Away before home**, the standard rule where nothing above tells the units apart: farthest
   from the nearest centre its power owns first (moves of either kind over land and sea, as in
   the 2023 rule the engine uses elsewhere).
6. **Fleets before armies**, likewise the standard tie-break; an army/fleet (two units) last.
7. The English province name, alphabetically.

None of these depends on the power's other units, so removing several units is removing the
first ones in this order.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from judge.engine.centres import build_centre_owners
from judge.engine.position import Position, Unit
from judge.variant import Map

KIND_ORDER = {"F": 0, "A": 1, "A/F": 2}


def reach(m: Map, u: Unit) -> frozenset[str]:
    """Provinces the unit could move into (or, for an army/fleet, land its army in) next move."""
    if u.kind == "A":
        return m.army_adj.get(u.prov, frozenset())
    return m.fleet_reach.get(u.loc, frozenset())


def owned_places(pos: Position, power: str) -> set[str]:
    """Supply centres and build centres (1885's Sicily) the power owns."""
    places = {c for c, p in pos.centres.items() if p == power}
    places |= {c for c, p in build_centre_owners(pos).items() if p == power}
    return places


def effect_key(pos: Position, u: Unit) -> tuple:
    """How much removing ``u`` would change the game, as a tuple compared in order (smaller: less)."""
    m = pos.map
    mine = owned_places(pos, u.power)
    foreign = [f for f in pos.units.values() if f.power != u.power]
    threatened = any(u.prov in reach(m, f) for f in foreign)
    own_reach = reach(m, u)
    contacts = sum(1 for f in foreign if f.prov in own_reach or u.prov in reach(m, f))
    garrison = u.prov in mine
    gift = garrison and threatened
    targets = sum(1 for p in own_reach if p in m.centres and pos.centres.get(p) != u.power)
    dist = _distance(m, u.prov, {c for c in mine if c in m.centres})
    return (int(gift), contacts, int(garrison), targets, -dist, KIND_ORDER.get(u.kind, 3),
            m.provinces[u.prov].name.lower())


def least_effect_removals(pos: Position, units: Sequence[Unit], count: int) -> list[Unit]:
    """The ``count`` units of ``units`` (one power's) whose removal has the least effect."""
    return sorted(units, key=lambda u: effect_key(pos, u))[:max(count, 0)]


def _distance(m: Map, start: str, goals: set[str]) -> int:
    """Moves (either kind, land and sea) from ``start`` to the nearest of ``goals``."""
    if start in goals:
        return 0
    seen = {start}
    q = deque([(start, 0)])
    while q:
        p, d = q.popleft()
        for n in m.any_adj.get(p, ()):
            if n in goals:
                return d + 1
            if n not in seen:
                seen.add(n)
                q.append((n, d + 1))
    return len(m.provinces) + 1
