"""MILA's ``diplomacy`` engine as one whole process, the counterpart of ``judge adjudicate --batch``.

    python bench/mila_batch.py CASES.jsonl > OUT.jsonl

Each input line is a case from ``bench/corpus.py``'s ``mila_case`` (units, centres, phase and
the order text of each power, in MILA's notation); each output line the phase's order results
and the board after it (``units``: MILA marks a dislodged unit with ``*``), as JSON. One ``Game``
is set up anew for each case: what a judge built on that engine would do for each game's phase.
Needs ``pip install diplomacy`` (the ``bench`` extra); never a dependency of the judge.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from diplomacy import Game

    out = sys.stdout
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            g = Game()
            g.clear_units()
            g.clear_centers()
            g.set_current_phase(case["phase"])
            for power, units in case["units"].items():
                g.set_units(power, units)
            for power, centres in case["centers"].items():
                g.set_centers(power, centres)
            for power, orders in case["orders"].items():
                g.set_orders(power, orders)
            g.process()
            results = g.result_history[g.result_history.last_key()]
            state = g.get_state()
            out.write(json.dumps({"id": case["id"], "phase": g.get_current_phase(),
                                  "results": {u: [str(r) for r in rs] for u, rs in results.items()},
                                  "units": state["units"], "centers": state["centers"]}) + "\n")


if __name__ == "__main__":
    main()
