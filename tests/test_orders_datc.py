"""The order language reads every order line of the DATC data (tests/datc/datc_v3.json) as the
adjudicator's canonical notation: one order per line, the line's power, and the line's own text
back as the canonical order -- except where the parser settles a coast itself (DATC 4.B) or the
line names no unit, listed here with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.engine.position import Position
from judge.orders import parse_orders
from judge.variant import load_variant

DATA = json.loads((Path(__file__).parent / "datc" / "datc_v3.json").read_text(encoding="utf-8"))
V = load_variant("standard")

#: (case, line) -> canonical order, or the error for a line that is no order of this board
SETTLED_BY_THE_PARSER = {
    ("6.B.1", "France: F Por - Spa"): "error: the coast of Spain must be given (Spa/nc or Spa/sc)",  # 4.B.1
    ("6.B.2", "France: F Gas - Spa"): "F Gas - Spa/nc",  # 4.B.2: the only reachable coast
    ("6.B.10", "France: F Spa/nc - Lyo"): "F Spa/sc - Lyo",  # 4.B.5: the unit's coast is on the board
    ("6.B.11", "France: F Spa/sc - Lyo"): "F Spa/nc - Lyo",
    ("6.B.12", "France: A Gas - Spa/nc"): "A Gas - Spa",  # 4.B.6: an army ignores coasts
    ("6.B.14", "Russia: Build F StP"):
        "error: say which coast of St Petersburg the fleet is built on (StP/nc or StP/sc)",  # 4.B.7
    ("6.D.30", "Russia: F Con - Bul"): "error: the coast of Bulgaria must be given (Bul/ec or Bul/sc)",
    ("6.I.4", "Russia: Build A StP/nc"): "Build A StP",
    ("6.J.1", "France: Remove F Lyo"): "error: there is no fleet in Gulf of Lyon",
}


def _first_steps():
    for case in DATA["cases"]:
        runs = [(case["position"], case["steps"])]
        runs += [(case["position"], alt["steps"]) for alt in case.get("options", [])]
        runs += [(scen["position"], scen["steps"]) for scen in case.get("scenarios", [])]
        for position, steps in runs:
            yield case["id"], position, steps[0]


@pytest.mark.parametrize("cid,position,step", list(_first_steps()), ids=lambda x: x if isinstance(x, str) else "")
def test_datc_lines_read_as_canonical(cid, position, step):
    pos = Position.from_json({**position, "variant": "standard"}, V)
    lines = step["orders"].split("\n") if step["orders"] else []
    parsed = parse_orders(step["orders"], pos)
    assert [p.line for p in parsed] == lines
    for line, p in zip(lines, parsed):
        power, _, text = line.partition(": ")
        assert p.power == power
        got = p.canonical if p.order is not None else f"error: {p.error}"
        assert got == SETTLED_BY_THE_PARSER.get((cid, line), text), line
