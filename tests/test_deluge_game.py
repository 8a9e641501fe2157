"""Deluge II: a scripted game from Winter 1900 to the survivor after Winter 1908, played through
the adjudicator's JSON contract (``judge.adjudicate.run_phase``, what ``judge adjudicate`` runs),
and its last phase through the real command line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from judge.adjudicate import run_phase
from judge.variant import load_variant

OPTIONS: dict = {}  # the seed's own rules, the Army/Fleet module included

ORDERS = {
    "Winter 1900 Adjustment": """
        England: Build F Lon
        England: Build F Edi
        England: Build A Lvp
        France: Build F Bre
        France: Build A Par
        France: Build A Mar
        Germany: Build F Kie
        Germany: Build A Ber
        Germany: Build A Mun
        Italy: Build A Ven
        Italy: Build A Rom
        Italy: Build F Nap
        Austria: Build A Vie
        Austria: Build A Bud
        Austria: Build F Tri
        Russia: Build F StP/nc
        Russia: Build A Mos
        Russia: Build A War
        Russia: Build F Sev
        Turkey: Build F Ank
        Turkey: Build A Con
        Turkey: Build A Smy""",
    "Spring 1901 Movement": """
        England: F Lon - Nth
        England: A Lvp - Wal
        France: A Mar - Spa
        Germany: A Mun - Ruh
        Russia: A War - Ukr""",
    "Fall 1901 Movement": """
        France: F Bre - Pic
        France: A Spa - Por
        Germany: A Ruh - Bur
        Italy: A Rom - Tus""",
    "Winter 1901 Adjustment": "France: Build A Mar",
    "Fall 1902 Movement": "France: A Por - Spa",
    "Winter 1902 Adjustment": "France: Build F Por",
    "Spring 1905 Movement": "Germany: A Bur - Swi",
}


def units(pos: dict, power: str) -> list[str]:
    return pos["units"].get(power, [])


@pytest.fixture(scope="module")
def game():
    pos = load_variant("deluge2").start_position()
    played = []
    for _ in range(60):
        out = run_phase("deluge2", pos, ORDERS.get(pos["phase"], ""), OPTIONS)
        played.append((pos, out))
        pos = out["next"]
        if out.get("victory"):
            break
    return played


def phase(game, name: str) -> dict:
    for _pos, out in game:
        if out["phase"] == name:
            return out
    raise AssertionError(f"{name} was not played: {[o['phase'] for _p, o in game]}")


def test_the_calendar_from_winter_1900_to_spring_1909(game):
    names = [out["phase"] for _p, out in game]
    assert names[0] == "Winter 1900 Adjustment"
    assert names[1:4] == ["Spring 1901 Movement", "Fall 1901 Movement", "Winter 1901 Adjustment"]
    assert names[-1] == "Winter 1908 Adjustment"
    assert game[-1][1]["next"]["phase"] == "Spring 1909 Movement"
    assert all(o["result"] != "invalid" for _p, out in game for o in out["orders"]), [
        o for _p, out in game for o in out["orders"] if o["result"] == "invalid"]


def test_winter_1900_builds(game):
    nxt = phase(game, "Winter 1900 Adjustment")["next"]
    assert units(nxt, "Russia") == ["A Mos", "F Sev", "F StP/nc", "A War"]
    assert sum(len(u) for u in nxt["units"].values()) == 22


def test_first_sinking(game):
    out = phase(game, "Winter 1901 Adjustment")
    ev = out["events"]
    assert "submerged: Belgium, Gascony, Holland, Livonia, London, Venice" in ev
    assert "Italy: A Ven drowned" in ev
    assert "Iceland becomes passable" in ev
    assert "new supply centre Ruhr: Germany (last had a unit there)" in ev
    assert "new supply centre Tyrolia: Austria (within its boundary)" in ev
    assert "new supply centre Wales: England (occupies it)" in ev
    nxt = out["next"]
    assert "F Nth" in units(nxt, "England") and "Lon" not in nxt["centers"]["England"]
    assert "Wal" in nxt["centers"]["England"]


def test_build_in_a_conquered_centre(game):
    out = phase(game, "Winter 1902 Adjustment")
    assert {"power": "France", "order": "Build F Por", "result": "succeeds", "reason": ""} in out["orders"]
    assert "new supply centre Iceland: neutral" in out["events"]
    assert "new supply centre Ukraine: Russia (occupies it)" in out["events"]


def test_fleets_float_and_take_coasts(game):
    out = phase(game, "Winter 1903 Adjustment")
    assert "Austria: F Tri placed on Tri/wc" in out["events"]  # Budapest's sinking splits Trieste
    assert "F StP" in units(out["next"], "Russia")  # St Petersburg sank under the fleet
    assert "new supply centre Piedmont: Italy (within its boundary)" in out["events"]


def test_switzerland_opens_and_becomes_a_centre(game):
    assert "Switzerland becomes passable" in phase(game, "Winter 1904 Adjustment")["events"]
    move = phase(game, "Spring 1905 Movement")
    assert {"power": "Germany", "order": "A Bur - Swi", "result": "succeeds", "reason": ""} in move["orders"]
    out = phase(game, "Winter 1905 Adjustment")
    assert "new supply centre Switzerland: Germany (occupies it)" in out["events"]


def test_the_survivor_wins(game):
    last = game[-1][1]
    assert last["victory"] == {"winner": ["Germany"], "kind": "survivor", "final": True}
    assert {p: u for p, u in last["next"]["units"].items() if u} == {"Germany": ["A Swi"]}
    assert {p: c for p, c in last["next"]["centers"].items() if c} == {"Germany": ["Swi"]}


def test_the_last_phase_through_the_command_line(game, tmp_path):
    before, expected = game[-1]
    (tmp_path / "pos.json").write_text(json.dumps(before), encoding="utf-8")
    (tmp_path / "orders.txt").write_text(ORDERS.get(before["phase"], ""), encoding="utf-8")
    exe = shutil.which("judge")
    cmd = [exe] if exe else [sys.executable, "-m", "judge.cli"]
    cmd += ["adjudicate", "--variant", "deluge2", "--position", str(tmp_path / "pos.json"),
            "--orders", str(tmp_path / "orders.txt")]
    for name, value in OPTIONS.items():
        cmd += ["--option", f"{name}={value}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["victory"] == expected["victory"] == {"winner": ["Germany"], "kind": "survivor", "final": True}
    assert out["next"] == expected["next"]
