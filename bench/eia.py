"""Empires in Arms clerk: months stepped per second, and dice drawn per second.

    python bench/eia.py [--months 48]

A busy game: every nation builds, stocks stores, forms, sails and moves fleets; France breaks
out of Brest, England pursues; the master enters a battle and a fort attack each month. Also the
at-once check each mailed line gets (judge.eia.step.trial).
"""

from __future__ import annotations

import argparse
import statistics
import time

from judge.eia import clerk, dice
from judge.eia.data import load_tables
from judge.eia.state import new_game, to_json
from judge.eia.step import step, trial

SECRET = "be" * 32
OPENING = """Master: WAR France England
England: FORM E1 FLEET 10 AT London
England: FORM E2 FLEET 10 AT Portsmouth
France: FORM F1 FLEET 8 AT Brest
France: FORM S1 SQUADRON 3 AT Toulon
Master: ADMIRAL England AT London"""


def month(i: int) -> str:
    return "\n".join([
        f"Master: MONEY {n} +30 income" for n in ("England", "France", "Spain", "Russia", "Austria", "Turkey",
                                                   "Prussia")] + [
        "England: BUILD 1 AT London", "France: BUILD 1 AT Toulon", "Spain: BUILD 1 AT Cadiz",
        "Russia: BUILD 1 AT Riga", "Turkey: STORES 1 AT Smyrna", "England: SAIL E1 E2",
        "France: BREAKOUT F1 RETURN VIA Biscay ENGAGE", "England: PURSUE E2 WATCH Brest RETURN",
        "England: TRAIL E2", "England: MOVE E1 TO Channel", "France: SAIL S1",
        "Master: COMBAT AT Channel England E1 VS France F1",
        "Master: FORT Brest VALUE 75 GARRISON MILITIA ATTACKER England E1",
        f"Master: PAPACY {'Turkey' if i % 2 else 'NONE'}"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--months", type=int, default=48)
    args = ap.parse_args()
    state = to_json(new_game(load_tables(), "bench", SECRET))
    state = step(state, OPENING, SECRET)["state"]
    times, rolls = [], 0
    for i in range(args.months):
        t = time.perf_counter()
        out = step(state, month(i), SECRET)
        times.append(time.perf_counter() - t)
        rolls += len(out["rolls"])
        state = out["state"]
    print(f"months stepped: {len(times)}; mean {statistics.mean(times) * 1000:.1f} ms, "
          f"p95 {sorted(times)[int(len(times) * 0.95) - 1] * 1000:.1f} ms per month; "
          f"{len(times) / sum(times):.0f} months/s; {rolls} rolls")
    # the at-once check a mailed line gets: its team's month tried with throwaway dice
    france = "\n".join(line for line in month(0).splitlines() if line.startswith("France:"))
    t = time.perf_counter()
    for _ in range(200):
        trial(state, france)
    print(f"at-once check of a mailed line (France's month, {france.count(chr(10)) + 1} lines): "
          f"{(time.perf_counter() - t) / 200 * 1000:.2f} ms")
    # the clerk's check of each line of a long team mail (two dice-free trials a line, and the
    # search for the line a refusal comes from): the time a 30-line mail takes to answer
    lines = [f"France: {x}" for x in ["FORM F9 FLEET 2 AT Brest", "LOAN 50 TO Spain", "SAIL S1"]
             + [f"BUILD 1 AT {y}" for y in ("Toulon", "Brest", "Marseilles")] * 4
             + [f"CASUS AGAINST Austria grievance {k}" for k in range(15)]]
    t = time.perf_counter()
    for n in range(len(lines)):
        clerk.check(state, lines[:n], lines[n])
    print(f"clerk check of a {len(lines)}-line team mail, line by line: {(time.perf_counter() - t) * 1000:.0f} ms")
    r = dice.Roller(SECRET, "bench", "1805-01")
    t = time.perf_counter()
    for i in range(20000):
        r.roll("fort fire", "England", "F1", "bench", 2)
    print(f"dice: {20000 / (time.perf_counter() - t):.0f} 2D6 rolls/s")


if __name__ == "__main__":
    main()
