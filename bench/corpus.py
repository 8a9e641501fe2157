"""A corpus of realistic phases for the end-to-end benches and the batch-output test.

    python bench/corpus.py --games 100 --years 10 --seed 1 > cases.jsonl

Standard games played by the judge's robot players (judge/demo/robots.py: greedy for supply
centres, supports for their own attacks, the odd wrong order) writing canonical order text, one
``judge adjudicate --batch`` case a phase: ``{"id", "position", "orders"}`` where ``orders`` is
the text, one ``Power: order`` line each, exactly as a mapper or a front end would send it. One
robot a power, no press, no draws: a game goes on for ``years`` years or until someone wins.
Deterministic for a given seed.

``human_games()`` gives the phases of real games people played, the same way: the three
standard games (by players of a web server, with their press) that MILA's ``diplomacy`` package
ships as test data (``diplomacy/tests/network/*.json``, read from the installed package, never
copied here), their positions and orders turned into the judge's canonical text.

``respell(case, rng)`` writes a case the ways other tools and players do: names in lower or upper
case, coasts as ``stp/sc``, ``StP(sc)``, ``stp_sc``, ``Spa/NC``, ``spa nc``, power names in any
case, "via" for "via convoy", the odd trailing dot. It reads as the same phase.

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


_SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
_KINDS = {"M": "Movement", "R": "Retreat", "A": "Adjustment"}


def human_game_files() -> list[Path]:
    """The game records MILA's ``diplomacy`` package ships (empty when it is not installed)."""
    import importlib.util

    spec = importlib.util.find_spec("diplomacy")
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(Path(next(iter(spec.submodule_search_locations)), "tests", "network").glob("*.json"))


def human_games(kinds: str = "MRA") -> Iterator[dict[str, Any]]:
    """Every phase of the human games in MILA's test data as a batch case (phases of the ``kinds``
    given: M, R, A); retreat phases without a dislodged unit and adjustments without an order
    (which MILA records and the judge skips) are left out."""
    v = load_variant("standard")
    m = v.map
    n = 0

    def loc(text: str) -> str:
        prov, _, coast = text.partition("/")
        pid = m.lookup(prov)
        if pid is None:
            raise ValueError(f"unknown province {text!r}")
        return m.display(f"{pid}/{coast.lower()}" if coast else pid)

    def unit(text: str) -> str:
        kind, where = text.split()
        return f"{kind} {loc(where)}"

    def order(text: str, kind: str) -> str:
        w = text.split()
        if w == ["WAIVE"]:
            return "Waive"
        u = unit(" ".join(w[:2]))
        if kind == "A":
            return f"{'Build' if w[2] == 'B' else 'Remove'} {u}"
        if w[2] in ("-", "R"):
            return f"{u} - {loc(w[3])}" + (" via convoy" if w[-1] == "VIA" else "")
        if w[2] in ("S", "C"):
            rest = f" - {loc(w[6])}" if len(w) == 7 else ""
            return f"{u} {w[2]} {unit(' '.join(w[3:5]))}{rest}"
        return f"{u} {w[2]}"  # H, D

    for g, path in enumerate(human_game_files()):
        for phase in json.loads(path.read_text(encoding="utf-8"))["phases"]:
            name, state = phase["name"], phase["state"]
            kind = name[-1]
            orders = {p: os for p, os in phase["orders"].items() if os}
            if kind not in kinds or kind == "R" and not any(u.startswith("*") for us in state["units"].values()
                                                            for u in us) or kind == "A" and not orders:
                continue
            units: dict[str, list[str]] = {}
            dislodged: dict[str, list[dict[str, Any]]] = {}
            for power, us in state["units"].items():
                for u in us:
                    if u.startswith("*"):
                        where = [loc(r) for r in state["retreats"][power].get(u[1:], [])]
                        dislodged.setdefault(power.title(), []).append({"unit": unit(u[1:]), "retreats": where})
                    else:
                        units.setdefault(power.title(), []).append(unit(u))
            position = {"variant": "standard", "phase": f"{_SEASONS[name[0]]} {name[1:5]} {_KINDS[kind]}",
                        "units": units, "dislodged": dislodged,
                        "centers": {p.title(): [loc(c) for c in cs] for p, cs in state["centers"].items()}}
            lines = [f"{p.title()}: {order(o, kind)}" for p, os in orders.items() for o in os]
            n += 1
            yield {"id": n, "game": g, "position": position, "orders": "".join(line + "\n" for line in lines)}


_COAST_FORMS = ("{p}/{c}", "{p}/{C}", "{p}({c})", "{p}_{c}", "{p} {c}")


def spelling(rng: random.Random) -> tuple[int, str, bool, bool, int]:
    """One tool's way of writing: names in lower case, upper case, or kinds as printed and names
    in lower case ("F ank"); its coast form; "via" for "via convoy"; a full stop after each
    order; the case of power names."""
    return rng.randrange(3), rng.choice(_COAST_FORMS), rng.random() < 0.5, rng.random() < 0.2, rng.randrange(3)


def respell(case: dict[str, Any], rng: random.Random, way: tuple | None = None) -> dict[str, Any]:
    """``case`` written as other tools and players write it (see the module's doc): all of it the
    one ``way`` (``spelling()``), as a tool writes a game, or without it each line and each unit
    of the position a way drawn at random."""
    def word(w: str, style: int) -> str:
        return w.lower() if style == 0 else w.upper() if style == 1 else w

    def name(text: str, style: int, form: str) -> str:
        prov, _, coast = text.partition("/")
        p = word(prov, style if style < 2 else 0)
        return form.format(p=p, c=word(coast, style), C=coast.upper()) if coast else p

    def line(text: str) -> str:
        style, form, via, dot, power_case = way or spelling(rng)
        head, colon, order = text.rpartition(": ")
        words = []
        for w in order.split():
            if w[0].isupper() and len(w) > 1 and w not in ("Build", "Remove", "Waive"):
                words.append(name(w, style, form))
            else:
                words.append(w if style == 2 and w in ("A", "F") else word(w, style & 1 or 0))
        out = " ".join(words)
        if via and out.lower().endswith(" convoy"):
            out = out[:-len(" convoy")]  # "A LON - BEL VIA", as MILA writes it
        if dot:
            out += "."
        return f"{word(head, power_case)}{colon}{out}" if colon else out

    def unit(text: str) -> str:
        style, form, _, _, _ = way or spelling(rng)
        kind, where = text.split()
        return f"{word(kind, style & 1 or 0) if style < 2 else kind} {name(where, style, form.replace(' ', '_'))}"

    pos = case["position"]
    respelt = {**pos, "units": {p.lower(): [unit(u) for u in us] for p, us in pos["units"].items()},
               "centers": {p.upper(): [c.lower() for c in cs] for p, cs in pos.get("centers", {}).items()}}
    return {**case, "position": respelt, "orders": "".join(line(t) + "\n" for t in case["orders"].splitlines())}


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
    ap.add_argument("--human", action="store_true", help="the human games of MILA's test data instead")
    ap.add_argument("--respell", action="store_true", help="written as other tools write it (respell())")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for case in human_games() if args.human else games(args.games, args.years, args.seed):
        if args.respell:
            case = respell(case, rng)
        if args.movement_only and not case["position"]["phase"].endswith("Movement"):
            continue
        print(json.dumps(case))


if __name__ == "__main__":
    main()
