"""Powers for the players of a game that starts: preferences honoured as well as possible.

The method (also in docs/joining.md): among all assignments of distinct powers to the players,
take those that give the most players their first choice; among them, those with the most second
choices; and so on down the lists (a power not on a player's list counts below every listed one).
Between assignments equal on every count, chance decides: the players and powers are shuffled
with the game's seeded random draw and small random weights break the remaining ties.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

#: exact search over the powers' subsets up to this many powers; beyond, first come first served
EXACT_POWERS = 12


def assign(players: Sequence[int], powers: Sequence[str], prefs: dict[int, list[str]],
           rng: random.Random) -> dict[int, str]:
    """A power for each player (``players`` ≤ ``powers`` in number), by the method above."""
    powers = list(powers)
    rng.shuffle(powers)
    if not any(prefs.get(p) for p in players):  # nobody asked: the draw alone, in joining order
        return dict(zip(players, powers))
    order = list(players)
    rng.shuffle(order)
    n = len(powers)
    base = len(order) + 1
    # a listed power's weight: rank 1 outweighs every count of rank 2, and so on; the random tie
    # break (below 1 in all) sits under every rank
    scale = base ** (n + 1)

    def weight(player: int, power: str) -> int:
        ranks = prefs.get(player) or []
        w = base ** (n - ranks.index(power)) if power in ranks else 0
        return w * scale * len(order) + rng.randrange(scale)

    if n > EXACT_POWERS:
        return _greedy(order, powers, prefs)
    w = {(p, q): weight(p, q) for p in order for q in powers}
    # best[mask]: the best total for the first popcount(mask) players using the powers in mask
    best: dict[int, tuple[int, tuple[str, ...]]] = {0: (0, ())}
    for i, p in enumerate(order):
        nxt: dict[int, tuple[int, tuple[str, ...]]] = {}
        for mask, (total, chosen) in best.items():
            for j, q in enumerate(powers):
                if mask >> j & 1:
                    continue
                m2, t2 = mask | 1 << j, total + w[(p, q)]
                if m2 not in nxt or t2 > nxt[m2][0]:
                    nxt[m2] = (t2, chosen + (q,))
        best = nxt
    _, chosen = max(best.values(), key=lambda v: v[0])
    return dict(zip(order, chosen))


def _greedy(order: list[int], powers: list[str], prefs: dict[int, list[str]]) -> dict[int, str]:
    """Many powers (Chaos-sized): round by round, each player in the drawn order takes the first
    still free power of their list at that rank; the rest get the powers left."""
    free, out = list(powers), {}
    for rank in range(len(powers)):
        for p in order:
            ranks = prefs.get(p) or []
            if p not in out and rank < len(ranks) and ranks[rank] in free:
                out[p] = ranks[rank]
                free.remove(ranks[rank])
    for p in order:
        if p not in out:
            out[p] = free.pop(0)
    return out
