"""A Coast-Running game played phase by phase through ``judge adjudicate --variant coast_running``
(a real subprocess per phase, each phase's ``next`` position fed to the next phase).

Two years from the standard opening: runs through Constantinople (both coasts of Bulgaria
reached that way), a run round Spain's south coast, builds, and a run that dislodges a fleet
followed by its retreat.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from judge.variant import load_variant

PHASES: list[tuple[str, str]] = [
    ("Spring 1901 Movement", """England: F Lon - Nth
England: F Edi - Nwg
England: A Lvp - Yor
France: F Bre - Mid
France: A Par - Bur
France: A Mar - Spa
Germany: F Kie - Den
Germany: A Ber - Kie
Germany: A Mun - Ruh
Italy: F Nap - Ion
Italy: A Rom - Apu
Italy: A Ven H
Austria: F Tri - Alb
Austria: A Vie - Gal
Austria: A Bud - Ser
Russia: F StP/sc - Bot
Russia: A Mos - Ukr
Russia: A War - Gal
Russia: F Sev - Bla
# Ankara to the Aegean along the coast of Constantinople
Turkey: F Ank - Aeg
Turkey: A Con P F Ank - Aeg
Turkey: A Smy - Arm
"""),
    ("Fall 1901 Movement", """England: F Nth C A Yor - Nwy
England: A Yor - Nwy
England: F Nwg - Bar
France: F Mid - Por
France: A Spa H
France: A Bur - Bel
Germany: F Den - Swe
Germany: A Kie - Hol
Germany: A Ruh S A Kie - Hol
Italy: F Ion - Tun
Italy: A Apu H
Italy: A Ven H
Austria: F Alb - Gre
Austria: A Ser S F Alb - Gre
Austria: A Vie - Gal
Russia: F Bot S F Den - Swe
Russia: A Ukr - Rum
Russia: F Bla S A Ukr - Rum
Russia: A War - Gal
# the Aegean fleet runs Constantinople's coast round to Bulgaria's south coast (protected, own power)
Turkey: F Aeg - Bul/sc
Turkey: A Con P F Aeg - Bul
Turkey: A Arm - Sev
"""),
    ("Winter 1901 Adjustment", """England: Build F Edi
France: Build F Bre
France: Build A Mar
Germany: Build F Kie
Germany: Build A Ber
Italy: Build F Nap
Austria: Build A Bud
Turkey: Build F Smy
Turkey: Build A Ank
"""),
    ("Spring 1902 Movement", """France: F Por - Lyo
France: A Spa P F Por - Lyo
Italy: F Nap - Tys
Austria: F Gre - Aeg
"""),
    ("Fall 1902 Movement", """Russia: F Bla - Aeg
Turkey: A Con P F Bla - Aeg
Turkey: F Bul/sc S F Bla - Aeg
Austria: F Aeg H
"""),
    ("Fall 1902 Retreat", "Austria: F Aeg - Gre\n"),
]


def adjudicate(tmp_path: Path, n: int, position: dict, orders: str) -> dict:
    pos_file = tmp_path / f"pos{n}.json"
    pos_file.write_text(json.dumps(position))
    orders_file = tmp_path / f"orders{n}.txt"
    orders_file.write_text(orders)
    r = subprocess.run([sys.executable, "-m", "judge.cli", "adjudicate", "--variant", "coast_running",
                        "--position", str(pos_file), "--orders", str(orders_file)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_coast_running_game_through_the_cli(tmp_path: Path):
    position = load_variant("coast_running").start_position()
    outs = []
    for n, (phase, orders) in enumerate(PHASES):
        assert position["phase"] == phase
        out = adjudicate(tmp_path, n, position, orders)
        assert out["phase"] == phase
        bad = [o for o in out["orders"] if o["result"] == "invalid"]
        assert not bad, bad
        outs.append(out)
        position = out["next"]

    def unit_list(out: dict, power: str) -> list[str]:
        return sorted(out["next"]["units"][power])

    def result(out: dict, order: str) -> str:
        return next(o["result"] for o in out["orders"] if o["order"] == order)

    s1901, f1901, w1901, s1902, f1902, r1902 = outs
    assert result(s1901, "A Con P F Ank - Aeg") == "succeeds"
    assert unit_list(s1901, "Turkey") == ["A Arm", "A Con", "F Aeg"]
    assert result(f1901, "F Aeg - Bul/sc") == "succeeds"
    assert "F Bul/sc" in unit_list(f1901, "Turkey")
    assert f1901["next"]["phase"] == "Winter 1901 Adjustment"
    assert "F Smy" in unit_list(w1901, "Turkey")
    assert result(s1902, "F Por - Lyo") == "succeeds"
    assert "F Lyo" in unit_list(s1902, "France")
    assert result(f1902, "F Bla - Aeg") == "succeeds"
    assert result(f1902, "F Aeg H") == "fails"
    dis = f1902["next"]["dislodged"]["Austria"]
    assert dis[0]["unit"] == "F Aeg" and "Gre" in dis[0]["retreats"]
    assert f1902["next"]["phase"] == "Fall 1902 Retreat"
    assert "F Gre" in unit_list(r1902, "Austria")
    assert "F Aeg" in unit_list(r1902, "Russia")
    assert position["phase"] in ("Winter 1902 Adjustment", "Spring 1903 Movement")
