"""Just's Right-Hand Rule: where a dislodged unit goes when its owner sends no retreat order.

1885 II rule 10a: "Retreats are made by Just's Right-Hand Rule if a player fails to submit a
retreat order." No text giving the rule's exact procedure survives (``reference/variants.md``
§7.2: only its name and that it is "not complete" where more than three spaces meet at a point),
so the judge uses its own, written down in ``docs/variants/1885.md`` ("Default retreats") and
``docs/rulings.md`` ("1885 II"):

1. **Geometry.** Every province has a map position ``pos = [x, y]`` in its seed file (picture
   coordinates: x to the right, y *down*). The *bearing* from province P to province Q is the
   angle of the line from P's position to Q's, measured clockwise on the picture.
2. **Facing.** The dislodged unit faces the province its attacker came from. When that is not
   known (the attack came by convoy) it faces north, the top of the map.
3. **Turning right.** From that facing it turns clockwise (to its right hand) and takes the first
   of its retreat options that it meets: options are ordered by how far clockwise their bearing
   lies from the facing, strictly after it (an option exactly behind the attacker's line comes
   last). Equal bearings: the nearer position first, then the province key alphabetically.
   Provinces without a position come after all others, alphabetically.
4. **Army/fleets** (Davis A/F rule IV a, e: "must attempt to Retreat to a sea space ... in
   accordance with the Right-Hand Rule") take the first *sea* option met, and a land option only
   when no sea is open.
5. **Several units without orders** (rule 10b: "A unit will be forced off the board only if the
   GM finds no other move for it"): a default retreat never goes where another unit was ordered
   to retreat, nor where an earlier default went, since two retreats to one space are both
   annihilated. The units are settled one at a time, the one with the fewest spaces left first
   (ties: province key), each taking its first space by steps 2-4. A unit left with no space is
   disbanded.

Why clockwise from the attacker: a unit giving way to an attack steps aside, not back along the
attacker's line, and the rule's name says which side: facing the attacker, its right hand. This
orders a province's neighbours the way one walks round its border, so at the four-point meeting
of Naples, Sicily, the Tyrrhenian and the Ionian Sea (rule 9) each space meets the diagonal
neighbour (the one it touches only at the point) between its two edge neighbours, in the order
the four spaces lie round that point: Naples, Ionian, Sicily, Tyrrhenian.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from judge.engine.position import Dislodged, Position
from judge.variant import Map, province_of

TAU = 2 * math.pi
NORTH = -math.pi / 2  # picture coordinates: y grows downward, so "up" is -90 degrees
_EPS = 1e-9


def bearing(m: Map, frm: str, to: str) -> float | None:
    """Clockwise angle (radians, on the picture) of the line from province ``frm`` to ``to``."""
    a, b = m.provinces[frm].pos, m.provinces[to].pos
    if a is None or b is None or tuple(a) == tuple(b):
        return None
    return math.atan2(b[1] - a[1], b[0] - a[0])


def facing(m: Map, prov: str, attacker_from: str | None) -> float:
    """The direction a dislodged unit in ``prov`` faces: towards its attacker, else north."""
    if attacker_from is not None:
        b = bearing(m, prov, attacker_from)
        if b is not None:
            return b
    return NORTH


def right_hand_order(m: Map, prov: str, options: Iterable[str], reference: float) -> list[str]:
    """``options`` (locations next to ``prov``) in the order met turning clockwise from ``reference``."""
    here = m.provinces[prov].pos

    def key(loc: str) -> tuple[int, float, float, str]:
        p = province_of(loc)
        b = bearing(m, prov, p)
        k = m.provinces[p].key.lower()
        if b is None or here is None:
            return (1, 0.0, 0.0, k)
        turn = (b - reference) % TAU
        if turn < _EPS or turn > TAU - _EPS:
            turn = TAU  # straight along the facing: met last
        there = m.provinces[p].pos
        return (0, turn, math.dist(here, there), k)  # type: ignore[arg-type]

    return sorted(options, key=key)


def preference(pos: Position, d: Dislodged) -> list[str]:
    """The retreat options of ``d`` in Right-Hand Rule order (steps 1-4 of the module doc)."""
    m = pos.map
    prov = d.unit.prov
    order = right_hand_order(m, prov, d.retreats, facing(m, prov, d.attacker_from))
    if d.unit.kind == "A/F":
        order.sort(key=lambda loc: 0 if m.terrain[province_of(loc)] == "sea" else 1)  # stable
    return order


def right_hand_retreat(pos: Position, d: Dislodged, taken: Iterable[str] = ()) -> str | None:
    """Where ``d`` retreats under the Right-Hand Rule, avoiding provinces in ``taken``; None: no space."""
    blocked = set(taken)
    for loc in preference(pos, d):
        if province_of(loc) not in blocked:
            return loc
    return None


def right_hand_retreats(pos: Position, unordered: Sequence[Dislodged], taken: Iterable[str] = ()
                        ) -> list[str | None]:
    """Default retreats for every unit in ``unordered`` (step 5): one location or None each, in order.

    ``taken`` holds the provinces other dislodged units were ordered to retreat to.
    """
    blocked = set(taken)
    prefs = {d.unit.prov: preference(pos, d) for d in unordered}
    left = {d.unit.prov for d in unordered}
    out: dict[str, str | None] = {}
    m = pos.map
    while left:
        def free(p: str) -> list[str]:
            return [loc for loc in prefs[p] if province_of(loc) not in blocked]

        p = min(left, key=lambda q: (len(free(q)), m.provinces[q].key.lower()))
        left.discard(p)
        options = free(p)
        out[p] = options[0] if options else None
        if options:
            blocked.add(province_of(options[0]))
    return [out[d.unit.prov] for d in unordered]
