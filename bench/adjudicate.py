"""Adjudicator speed: play many random standard games and time every phase.

    python bench/adjudicate.py [--games 200] [--years 10] [--seed 1]

Robot orders are random but sensible (moves to neighbours, supports of neighbours' moves and
holds, convoys along the coast). Only the adjudicator call is timed: ``judge.engine.adjudicate``
from parsed orders to results and the next position. Prints mean and p95 ms per movement,
retreat and adjustment phase, movement phases with 30+ units separately, and phases per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.engine import adjudicate  # noqa: E402
from judge.engine.adjustment import adjustments_due, build_sites  # noqa: E402
from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Support  # noqa: E402
from judge.engine.position import Position  # noqa: E402
from judge.variant import load_variant, province_of  # noqa: E402


def movement_orders(pos: Position, rng: random.Random) -> list:
    m = pos.map
    orders = []
    planned: dict[str, str] = {}
    units = list(pos.units.values())
    rng.shuffle(units)
    for u in units:
        r = rng.random()
        if u.kind == "A":
            dests = sorted(m.army_adj.get(u.prov, ()))
        else:
            dests = sorted(m.fleet_adj.get(u.loc, ()))
        if r < 0.55 and dests:
            d = rng.choice(dests)
            orders.append(Move(u.power, u.kind, u.loc, d))
            planned[u.prov] = province_of(d)
        elif r < 0.85:
            # support a neighbour: its planned move if it can reach it, else its hold
            reach = m.army_adj.get(u.prov, ()) if u.kind == "A" else m.fleet_reach.get(u.loc, ())
            friends = [v for v in pos.units.values() if v.prov in reach]
            if friends:
                f = rng.choice(friends)
                d = planned.get(f.prov)
                if d and d in reach and d != u.prov:
                    orders.append(Support(u.power, u.kind, u.loc, f.kind, f.loc, d))
                else:
                    orders.append(Support(u.power, u.kind, u.loc, f.kind, f.loc, None))
            else:
                orders.append(Hold(u.power, u.kind, u.loc))
        elif r < 0.9 and u.kind == "F" and m.is_sea(u.prov):
            armies = [v for v in pos.units.values() if v.kind == "A" and v.prov in m.fleet_reach_prov[u.prov]]
            if armies:
                a = rng.choice(armies)
                coasts = [p for p in m.fleet_reach_prov[u.prov] if m.is_coastal(p) and p != a.prov]
                if coasts:
                    d = rng.choice(coasts)
                    orders.append(Convoy(u.power, "F", u.loc, "A", a.prov, d))
                    if a.prov not in planned:
                        orders.append(Move(a.power, "A", a.loc, d))
                        planned[a.prov] = d
                    continue
            orders.append(Hold(u.power, u.kind, u.loc))
        else:
            orders.append(Hold(u.power, u.kind, u.loc))
    return orders


def retreat_orders(pos: Position, rng: random.Random) -> list:
    out = []
    for d in pos.dislodged.values():
        if d.retreats and rng.random() < 0.8:
            out.append(Retreat(d.unit.power, d.unit.kind, d.unit.loc, rng.choice(d.retreats)))
        else:
            out.append(Disband(d.unit.power, d.unit.kind, d.unit.loc))
    return out


def adjustment_orders(pos: Position, rng: random.Random) -> list:
    m = pos.map
    out = []
    for power, n in adjustments_due(pos).items():
        if n > 0:
            sites = build_sites(pos, power)
            rng.shuffle(sites)
            for s in sites[:n]:
                if m.fleet_locs.get(s) and rng.random() < 0.4:
                    out.append(Build(power, "F", rng.choice(m.fleet_locs[s])))
                else:
                    out.append(Build(power, "A", s))
        else:
            mine = [u for u in pos.units.values() if u.power == power]
            rng.shuffle(mine)
            for u in mine[: -n - 1]:  # leave one removal to civil disorder
                out.append(Remove(power, u.kind, u.loc))
    return out


def full_board(v, rng: random.Random) -> Position:
    """A 34-unit position: a unit on every supply centre, owners and kinds drawn at random."""
    m = v.map
    powers = list(v.powers)
    units: dict[str, list[str]] = {p: [] for p in powers}
    for c in sorted(m.centres):
        owner = rng.choice(powers)
        locs = m.fleet_locs.get(c, ())
        if locs and rng.random() < 0.4:
            units[owner].append(f"F {m.display(rng.choice(locs))}")
        else:
            units[owner].append(f"A {m.display(c)}")
    return Position.from_json({"variant": "standard", "phase": "Spring 1905 Movement", "units": units}, v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    v = load_variant("standard")
    rng = random.Random(args.seed)
    times: dict[str, list[float]] = {"movement": [], "retreat": [], "adjustment": []}
    big: list[float] = []
    units_seen: list[int] = []
    clock = time.perf_counter
    for _ in range(args.games):
        pos = Position.from_json(v.start_position(), v)
        while pos.phase.year < 1901 + args.years:
            kind = pos.phase.kind
            if kind == "movement":
                orders = movement_orders(pos, rng)
            elif kind == "retreat":
                orders = retreat_orders(pos, rng)
            else:
                orders = adjustment_orders(pos, rng)
            t0 = clock()
            res = adjudicate(pos, orders)
            dt = (clock() - t0) * 1000
            times[kind].append(dt)
            if kind == "movement":
                units_seen.append(len(pos.units))
                if len(pos.units) >= 30:
                    big.append(dt)
            if res.victory and res.victory.get("final"):
                break
            pos = res.next

    full: list[float] = []
    for _ in range(args.games * 5):
        pos = full_board(v, rng)
        orders = movement_orders(pos, rng)
        t0 = clock()
        adjudicate(pos, orders)
        full.append((clock() - t0) * 1000)

    def line(name: str, xs: list[float]) -> str:
        if not xs:
            return f"{name:<28} (none)"
        xs = sorted(xs)
        p95 = xs[int(0.95 * (len(xs) - 1))]
        return f"{name:<28} n={len(xs):6d}  mean {statistics.fmean(xs):.4f} ms  p95 {p95:.4f} ms"

    total = sum(len(x) for x in times.values())
    total_ms = sum(sum(x) for x in times.values())
    print(f"standard map, {args.games} random games of up to {args.years} years, CPython {sys.version.split()[0]}")
    for k in ("movement", "retreat", "adjustment"):
        print(line(f"{k} phase", times[k]))
    print(line("movement, 30+ units", big))
    print(line("movement, 34 units (full)", full))
    print(f"{'units per movement phase':<28} mean {statistics.fmean(units_seen):.1f}, max {max(units_seen)}")
    print(f"{'phases per second':<28} {total / (total_ms / 1000):,.0f}")


if __name__ == "__main__":
    main()
