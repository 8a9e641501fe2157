"""Real order lines (tests/data/order_corpus.txt: Electronic Protocol game reports, a postal
handbook, other judges' and programs' documentation, each line under its source) read as the
orders their writers meant, on a board with the units they name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge.engine import read_position
from judge.engine.position import Position
from judge.orders import parse_orders
from judge.orders.names import names_for
from judge.variant import load_variant, province_of

V = load_variant("standard")
NAMES = names_for(V, V.map)
CORPUS = Path(__file__).parent / "data" / "order_corpus.txt"
PHASES = {"movement": "Spring 1901 Movement", "retreat": "Fall 1901 Retreat", "adjustment": "Winter 1901 Adjustment"}
_UNIT = re.compile(r"\b([AF]) ([A-Z][A-Za-z]{1,2}(?:/[nsew]c)?)\b")


@dataclass
class Case:
    source: str
    phase: str
    power: str | None
    text: str
    want: list[str]
    lineno: int


def cases() -> list[Case]:
    out: list[Case] = []
    source, phase, power = "", "movement", None
    for n, raw in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@source "):
            source, power = line[8:], None
        elif line.startswith("@phase "):
            phase = line[7:].strip()
        elif line.startswith("@power "):
            power = line[7:].strip()
        else:
            text, _, want = line.rpartition(" => ")
            assert text and want and source, f"line {n}: '<order> => <canonical>' under an @source"
            out.append(Case(source, phase, power, text, [w.strip() for w in want.split(" | ")], n))
    return out


def whose(case: Case) -> str:
    if case.power:
        return case.power
    first = re.split(r"[\s:)]", case.text.strip(), maxsplit=1)[0].lower()
    found = NAMES.power(first)
    return found.name if found else "England"


def board(case: Case) -> Position:
    """The units the expected orders name (the first of each a dislodged one in a retreat phase;
    the place of a build an empty home centre)."""
    power = whose(case)
    m = V.map
    units: list[str] = []
    dislodged: list[dict[str, str]] = []
    centres: list[str] = []
    taken: set[str] = set()
    for order in case.want:
        if order.startswith("Build "):
            centres.append(order.split()[2].partition("/")[0])
            continue
        for i, (kind, loc) in enumerate(_UNIT.findall(order)):
            prov = province_of(loc.lower())
            if prov in taken:
                continue
            taken.add(prov)
            if case.phase == "retreat" and i == 0:
                dest = order.split(" - ")[1].partition("/")[0].lower() if " - " in order else ""
                attacker = sorted(set(m.any_adj[prov]) - {dest})[0]
                dislodged.append({"unit": f"{kind} {loc}", "from": m.display(attacker)})
            else:
                units.append(f"{kind} {loc}")
    data = {"variant": "standard", "phase": PHASES[case.phase], "units": {power: units}}
    if dislodged:
        data["dislodged"] = {power: dislodged}
    if centres:
        data["centers"] = {power: centres}
    return read_position(data, V)


CASES = cases()


def test_the_corpus_is_real_and_sourced():
    assert len(CASES) >= 50
    sources = {c.source for c in CASES}
    assert len(sources) >= 8 and all(" | " in s for s in sources)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.lineno}:{c.text[:40]}" for c in CASES])
def test_each_line_reads_as_its_writer_meant(case: Case):
    got = parse_orders(case.text, board(case))
    assert [p.error for p in got if p.error] == [], case.source
    assert [p.canonical for p in got] == case.want, case.source
