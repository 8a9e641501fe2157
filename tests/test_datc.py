"""DATC v3.0 (Lucas B. Kruijswijk's Diplomacy Adjudicator Test Cases, chapter 6) against the
adjudicator.

The cases live in tests/datc/datc_v3.json (see tests/datc/README.md for the format, the
provenance and the rule choices).  One pytest case per DATC id ("6.A.1"), plus one per
alternative rule option the DATC text gives an outcome for ("6.F.14[1971]") and one per
extra situation inside a case ("6.J.9[Skagerrak]").

For every step the runner calls

    judge.adjudicate.run_phase(variant="standard", position=..., orders=..., options=...)

and compares the per-order results that the case asserts, the complete set of units on
the board afterwards and the set of dislodged units.  Chained steps (movement followed by
retreat) feed out["next"] into the next step.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DATA_FILE = Path(__file__).parent / "datc" / "datc_v3.json"
DATA = json.loads(DATA_FILE.read_text(encoding="utf-8"))

import judge.adjudicate as adjudicate


def _runs():
    """(test id, title, position, steps, options) for every run in the data file."""
    runs = []
    for case in DATA["cases"]:
        cid, title = case["id"], case["title"]
        runs.append((cid, title, case["position"], case["steps"], {}))
        for alt in case.get("options", []):
            label = ",".join(str(v) for v in alt["options"].values())
            runs.append((f"{cid}[{label}]", title, case["position"], alt["steps"],
                         dict(alt["options"])))
        for scen in case.get("scenarios", []):
            runs.append((f"{cid}[{scen['label']}]", title, scen["position"], scen["steps"], {}))
    return runs


RUNS = _runs()


def _line_index(lines: list[str], key: str) -> int:
    """Index of the order line a results key names ("<line>" or "<line> #n")."""
    m = re.fullmatch(r"(.*) #(\d+)", key)
    line, nth = (m.group(1), int(m.group(2))) if m else (key, 1)
    seen = 0
    for i, text in enumerate(lines):
        if text == line:
            seen += 1
            if seen == nth:
                return i
    raise AssertionError(f"bad test data: results key {key!r} is not an order line")


def _norm_units(units: dict | None) -> dict[str, list[str]]:
    out = {}
    for power, us in (units or {}).items():
        if us:
            out[power.lower()] = sorted(" ".join(u.split()).lower() for u in us)
    return out


def _dislodged_units(dislodged: dict | None) -> list[str]:
    found = []
    for power, entries in (dislodged or {}).items():
        for entry in entries or []:
            unit = entry["unit"] if isinstance(entry, dict) else entry
            found.append(" ".join(unit.split()).lower())
    return sorted(found)


def _first_position(position: dict) -> dict:
    return {
        "variant": "standard",
        "phase": position["phase"],
        "units": position["units"],
        "centers": position.get("centers", {}),
        "dislodged": position.get("dislodged", {}),
    }


@pytest.mark.parametrize("run", RUNS, ids=[r[0] for r in RUNS])
def test_datc(run):
    test_id, title, position, steps, options = run
    pos = _first_position(position)
    destroyed: dict = {}
    for n, step in enumerate(steps):
        where = f"DATC {test_id} ({title}), step {n + 1} [{step['phase']}]"
        if pos.get("phase") != step["phase"] and step["phase"].endswith("Retreat") and destroyed:
            # the case orders a unit with no retreat, which the judge destroyed with the moves:
            # its retreat phase is replayed from that board so that the order is still judged
            pos = dict(pos, phase=step["phase"], dislodged={
                power: [{"unit": u, "retreats": []} for u in units] for power, units in destroyed.items()})
        if pos.get("phase") != step["phase"]:
            pytest.fail(f"{where}: the engine's next phase is {pos.get('phase')!r}, "
                        f"but the case expects {step['phase']!r}")
        text = step["orders"]
        lines = text.split("\n") if text else []
        out = adjudicate.run_phase(variant="standard", position=pos, orders=text,
                                   options=options)
        problems = []
        reported = out.get("orders", [])
        if len(reported) < len(lines):
            problems.append(f"the engine reports {len(reported)} orders for {len(lines)} "
                            f"input lines")
        for key, want in step["expect"].get("results", {}).items():
            i = _line_index(lines, key)
            if i >= len(reported):
                continue
            got = reported[i].get("result")
            if got != want:
                reason = reported[i].get("reason", "")
                problems.append(f"{key!r}: expected {want}, got {got}"
                                + (f" ({reason})" if reason else ""))
        nxt = out.get("next") or {}
        want_units = _norm_units(step["expect"]["units"])
        got_units = _norm_units(nxt.get("units"))
        if got_units != want_units:
            problems.append(f"units after the step differ:\n      expected {want_units}\n"
                            f"      got      {got_units}")
        want_dis = sorted(" ".join(u.split()).lower() for u in step["expect"].get("dislodged", []))
        # a unit dislodged with no retreat is destroyed with the moves (no retreat phase for it)
        got_dis = sorted(_dislodged_units(nxt.get("dislodged")) + _dislodged_units(out.get("destroyed")))
        if got_dis != want_dis:
            problems.append(f"dislodged units differ: expected {want_dis}, got {got_dis}")
        if problems:
            orders_report = "\n".join(
                f"      {o.get('power')}: {o.get('order')} -> {o.get('result')}"
                + (f" ({o['reason']})" if o.get("reason") else "")
                for o in reported)
            pytest.fail(f"{where}:\n  - " + "\n  - ".join(problems)
                        + f"\n    orders given:\n      " + "\n      ".join(lines)
                        + f"\n    engine reported:\n{orders_report}", pytrace=False)
        pos = dict(nxt)
        pos.setdefault("variant", "standard")
        destroyed = out.get("destroyed") or {}
