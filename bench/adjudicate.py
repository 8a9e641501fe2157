"""Adjudicator speed: play many random standard games and time every phase.

    python bench/adjudicate.py [--games 200] [--years 10] [--seed 1]
    python bench/adjudicate.py --end-to-end [--phases 3000] [--runs 3] [--seed 1]

Robot orders are random but sensible (moves to neighbours, supports of neighbours' moves and
holds, convoys along the coast). Only the adjudicator call is timed: ``judge.engine.adjudicate``
from parsed orders to results and the next position. Prints mean and p95 ms per movement,
retreat and adjustment phase, movement phases with 30+ units separately, and phases per second.

``--end-to-end`` times text in -> JSON out instead, on the movement phases of robot games and of
the human games MILA's package ships (``bench/corpus.py``), each in canonical text and as other
tools write it (``respell``): ``judge adjudicate --batch`` as one whole process (start-up, reading
the JSON cases and their order text, adjudicating, writing JSON), and the same cases in process
(``write_batch``, the command's own loop, into a writer that drops the lines, with the
collector as the command sets it), timed in a fresh process of its own each run
(``bench/judge_in_process.py``): not in the bench's, whose heap holds its corpora and MILA's
engine. When MILA's
``diplomacy`` engine is installed (``pip install -e '.[bench]'``) it runs the same phases as one
whole process too (``bench/mila_batch.py``), all interleaved run by run so they see the same
machine load: each of the judge's whole-process figures is the mean of a run just before and one
just after MILA's run of the same corpus, so that a ratio is not a drift of the machine's speed
between two runs half a minute apart. The boards after each phase are compared. Prints the median and the range over the runs, and the load average before and after.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

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


def spread(xs: list[float], unit: str = "", fmt: str = ".2f") -> str:
    """"median (min-max)" of repeated measurements."""
    return f"{statistics.median(xs):{fmt}}{unit} ({min(xs):{fmt}}-{max(xs):{fmt}})"


def end_to_end(args: argparse.Namespace) -> None:
    import importlib.util
    import json
    import os
    import subprocess
    import tempfile

    from corpus import games, human_games, mila_case, respell, spelling  # bench/corpus.py
    load_before = os.getloadavg()
    robots = []
    for case in games(n_games=10**6, years=args.years, seed=args.seed):
        if case["position"]["phase"].endswith("Movement"):
            robots.append(case)
            if len(robots) >= args.phases:
                break
    corpora = {"robots": robots}
    people = list(human_games("M"))  # MILA's package ships them: none without it
    if people:  # the same phases again, to the same number of cases (ids anew; each round new games)
        rounds = 1 + max(c["game"] for c in people)
        corpora["human"] = [{**people[i % len(people)], "id": i + 1,
                             "game": people[i % len(people)]["game"] + rounds * (i // len(people))}
                            for i in range(args.phases)]
    rng = random.Random(args.seed)
    spelt = {(name, "canonical"): cases for name, cases in corpora.items()}
    for name, cases in corpora.items():  # each game written one tool's way, drawn at random
        ways: dict[int, tuple] = {}
        for c in cases:
            ways.setdefault(c["game"], spelling(rng))
        spelt[(name, "other tools'")] = [respell(c, rng, ways[c["game"]]) for c in cases]
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    for var in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"):  # as installed: byte code cached (the
        env.pop(var, None)  # warm-up run writes it), output buffered
    mila = importlib.util.find_spec("diplomacy") is not None
    with tempfile.TemporaryDirectory() as tmp:
        commands: dict[tuple[str, str], list[str]] = {}
        for (name, spelling), cases in spelt.items():
            path = Path(tmp, f"judge-{name}-{len(commands)}.jsonl")
            path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
            commands[(name, spelling)] = [sys.executable, "-m", "judge", "adjudicate", "--batch", str(path)]
        if mila:
            for name, cases in corpora.items():
                path = Path(tmp, f"mila-{name}.jsonl")
                path.write_text("".join(json.dumps(mila_case(c)) + "\n" for c in cases), encoding="utf-8")
                commands[(name, "MILA")] = [sys.executable, str(Path(__file__).with_name("mila_batch.py")), str(path)]
        wall: dict[tuple[str, str], list[float]] = {k: [] for k in commands}
        outputs: dict[tuple[str, str], str] = {}
        empty = Path(tmp, "empty.jsonl")
        empty.write_text("", encoding="utf-8")
        for cmd in commands.values():  # warm-up: byte code cached, files in the page cache
            subprocess.run([*cmd[:-1], str(empty)], env=env, capture_output=True, check=True)
        def timed(key: tuple[str, str]) -> float:
            t0 = time.perf_counter()
            done = subprocess.run(commands[key], env=env, capture_output=True, text=True, check=True)
            took = time.perf_counter() - t0
            outputs[key] = done.stdout
            return took

        # in process: the command's own loop timed in a fresh process of its own
        # (bench/judge_in_process.py), not in this one, whose heap holds the corpora and MILA's engine
        inproc: dict[tuple[str, str], list[float]] = {k: [] for k in spelt}
        driver = str(Path(__file__).with_name("judge_in_process.py"))

        def in_process(key: tuple[str, str]) -> float:
            done = subprocess.run([sys.executable, driver, commands[key][-1]], env=env, capture_output=True,
                                  text=True, check=True)
            return float(done.stdout) * 1000

        for _ in range(args.runs):
            for name in corpora:  # interleaved: all see the same load
                ours = [key for key in commands if key[0] == name and key[1] != "MILA"]
                before = {key: timed(key) for key in ours}
                for key in ours:  # (between the whole-process runs: the same moment's machine)
                    inproc[key].append(in_process(key))
                if not mila:
                    for key in ours:
                        wall[key].append(before[key])
                    continue
                # MILA's run (15-20 s) bracketed by ours just before and just after it, each of ours
                # counted as the mean of the two: the machine's speed drifts by up to a third within
                # minutes, and a ratio of two runs half a minute apart would measure the drift
                wall[(name, "MILA")].append(timed((name, "MILA")))
                for key in ours:
                    wall[key].append((before[key] + timed(key)) / 2)
    load_after = os.getloadavg()

    n = args.phases
    print(f"end to end: {n} movement phases a corpus, {args.runs} runs, CPython {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores (shared); load average {', '.join(f'{x:.2f}' for x in load_before)} at the start, "
          f"{', '.join(f'{x:.2f}' for x in load_after)} at the end")
    print(f"  robots: robot games (standard, seed {args.seed})" + (
        f"; human: the {len(people)} movement phases of the 3 human games in MILA's package, cycled" if people else
        "; human games: MILA's package is not installed (pip install -e '.[bench]')"))
    print("  in process: the command's loop (write_batch) alone, in a fresh process each run, timed between the "
          "whole-process runs")
    if mila:
        print("  whole process: each of the judge's runs the mean of one just before and one just after MILA's "
              "run of the same corpus")
    print("  other tools': each game one tool's way, drawn at random: names in lower or upper case, coasts as "
          "stp/sc, StP/SC, StP(sc), stp_sc, spa nc; 'via'; a full stop after each order (bench/corpus.py respell)")
    print(f"{'corpus':<8} {'spelling':<13} {'in process':<26} {'whole process':<36} {'vs MILA, run by run':<22} "
          "boards as MILA's")
    for (name, spelling), xs in wall.items():
        if spelling == "MILA":
            continue
        per = [x / n * 1000 for x in xs]
        row = (f"{name:<8} {spelling:<13} {spread(inproc[(name, spelling)], ' ms', '.3f'):<26} "
               f"{spread(xs, ' s') + ' = ' + spread(per, ' ms', '.2f'):<36} ")
        if mila:
            ratios = [m / j for m, j in zip(wall[(name, "MILA")], xs)]
            agree = compare_boards(outputs[(name, spelling)], outputs[(name, "MILA")])
            row += f"{spread(ratios, 'x', '.1f'):<22} {agree}/{n}"
        print(row)
    if mila:
        for name in corpora:
            xs = wall[(name, "MILA")]
            print(f"{name:<8} {'MILA':<13} {'':<26} {spread(xs, ' s') + ' = ' + spread([x / n * 1000 for x in xs], ' ms', '.2f')}")
    else:
        print("MILA's engine is not installed (pip install -e '.[bench]'): no side-by-side figure")


def compare_boards(judge_out: str, mila_out: str) -> int:
    """Phases after which both engines leave the same units where (dislodged units left out)."""
    import json

    same = 0
    for j, m in zip(judge_out.splitlines(), mila_out.splitlines()):
        jd, md = json.loads(j), json.loads(m)
        ours = {p.upper(): sorted(u.upper() for u in us) for p, us in jd["next"]["units"].items() if us}
        theirs = {p: sorted(u for u in us if not u.startswith("*")) for p, us in md["units"].items()}
        same += ours == {p: us for p, us in theirs.items() if us}
    return same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end-to-end", action="store_true", help="time text in -> JSON out (and MILA's engine)")
    ap.add_argument("--phases", type=int, default=3000, help="--end-to-end: movement phases")
    ap.add_argument("--runs", type=int, default=3, help="--end-to-end: runs of each")
    args = ap.parse_args()
    if args.end_to_end:
        end_to_end(args)
        return
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
