"""A corpus of realistic phases for the end-to-end benches and the batch-output test.

    python bench/corpus.py --games 100 --years 10 --seed 1 > cases.jsonl

Standard games played by the judge's robot players (judge/demo/robots.py: greedy for supply
centres, supports for their own attacks, the odd wrong order) writing canonical order text, one
``judge adjudicate --batch`` case a phase: ``{"id", "position", "orders"}`` where ``orders`` is
the text, one ``Power: order`` line each, exactly as a mapper or a front end would send it. One
robot a power, no press, no draws: a game goes on for ``years`` years or until someone wins.
Deterministic for a given seed.

``mila_case(case)`` turns a case into what MILA's ``diplomacy`` engine reads (upper-case
location names, the phase as ``S1901M``), for the side-by-side figure in ``bench/adjudicate.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.engine import adjudicate  # noqa: E402
from judge.engine.position import Position  # noqa: E402
from judge.orders import parse_orders  # noqa: E402
from judge.demo.robots import Robot  # noqa: E402
from judge.variant import load_variant  # noqa: E402


def games(n_games: int = 100, years: int = 10, seed: int = 1, variant: str = "standard"
          ) -> Iterator[dict[str, Any]]:
    """Every phase of ``n_games`` robot games as a batch case (movement, retreat, adjustment)."""
    v = load_variant(variant)
    rng = random.Random(seed)
    n = 0
    for g in range(n_games):
        robots = [Robot(f"r{i}@bench.invalid", "x", random.Random(rng.random()), power=p, free_form=False)
                  for i, p in enumerate(v.powers)]
        pos = Position.from_json(v.start_position(), v)
        while pos.phase.year < v.calendar.start.year + years:
            lines = [f"{r.power}: {line}" for r in robots for line in r.orders(pos)]
            text = "\n".join(lines) + ("\n" if lines else "")
            n += 1
            yield {"id": n, "game": g, "position": pos.to_json(), "orders": text}
            parsed = parse_orders(text, pos)
            res = adjudicate(pos, [p.order for p in parsed if p.order is not None])
            if res.victory and res.victory.get("final"):
                break
            pos = res.next


def mila_phase(phase: str) -> str:
    """"Spring 1901 Movement" -> "S1901M" (MILA's short phase names)."""
    season, year, kind = phase.split()
    return f"{season[0]}{year}{kind[0]}".upper()


def mila_case(case: dict[str, Any]) -> dict[str, Any]:
    """The same phase for MILA's engine: units, centres, (dislodged), orders per power."""
    pos = case["position"]
    orders: dict[str, list[str]] = {}
    for line in case["orders"].splitlines():
        power, _, order = line.partition(":")
        orders.setdefault(power.strip().upper(), []).append(order.strip().upper().replace(" VIA CONVOY", " VIA"))
    return {"id": case["id"], "phase": mila_phase(pos["phase"]),
            "units": {p.upper(): [u.upper() for u in us] for p, us in pos["units"].items()},
            "centers": {p.upper(): [c.upper() for c in cs] for p, cs in pos.get("centers", {}).items()},
            "orders": orders}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--movement-only", action="store_true", help="only the movement phases")
    args = ap.parse_args()
    for case in games(args.games, args.years, args.seed):
        if args.movement_only and not case["position"]["phase"].endswith("Movement"):
            continue
        print(json.dumps(case))


if __name__ == "__main__":
    main()
