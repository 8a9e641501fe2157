"""`judge parse`: order text on stdin, what the judge understood as JSON (issue 3's CLI contract)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.variant import load_variant

ORDERS = """England: F Lon-Nth
A Bel - Lon
A Lvp - Lundoon
F Edi - Nwg, A Lvp S F Edi - Nwg
-- 
signature: A Lvp - Yor
"""


def judge(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def position(tmp_path: Path) -> Path:
    data = load_variant("standard").start_position()
    data["units"]["France"].append("A Bel")
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(data))
    return path


def test_parse_prints_each_order_or_its_error(position: Path):
    r = judge("parse", "--variant", "standard", "--position", str(position), stdin=ORDERS)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        {"line": "England: F Lon-Nth", "power": "England", "order": "F Lon - Nth"},
        {"line": "A Bel - Lon", "power": "France", "error": "the army in Belgium can't reach London",
         "suggestions": []},
        {"line": "A Lvp - Lundoon", "power": "England", "error": "unknown province 'Lundoon'",
         "suggestions": ["London"]},
        {"line": "F Edi - Nwg", "power": "England", "order": "F Edi - Nwg"},
        {"line": "A Lvp S F Edi - Nwg", "power": "England",
         "error": "the army in Liverpool can't reach Norwegian Sea to support", "suggestions": []},
    ]


def test_parse_for_one_power_without_the_engine_check(position: Path):
    r = judge("parse", "--position", str(position), "--power", "France", "--no-check",
              stdin="A Bel - Lon\nA Par - Bur\nF Lon - Nth\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        {"line": "A Bel - Lon", "power": "France", "order": "A Bel - Lon"},
        {"line": "A Par - Bur", "power": "France", "order": "A Par - Bur"},
        {"line": "F Lon - Nth", "power": "France", "error": "the fleet in London belongs to England",
         "suggestions": []},
    ]


def test_parse_with_a_rule_module_option(position: Path):
    r = judge("parse", "--position", str(position), "--option", "modules=transform", "--no-check",
              stdin="England: A Lvp T F\n")
    assert json.loads(r.stdout) == [{"line": "England: A Lvp T F", "power": "England", "order": "A Lvp T F"}]


def test_parse_input_errors(tmp_path: Path, position: Path):
    r = judge("parse", "--position", str(tmp_path / "missing.json"), stdin="A Par H")
    assert r.returncode == 2 and "judge parse:" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"variant": "standard", "units": {"Atlantis": ["A Par"]}}')
    r = judge("parse", "--position", str(bad), stdin="A Par H")
    assert r.returncode == 2 and "unknown power 'Atlantis'" in r.stderr
    r = judge("parse", "--position", str(position), "--power", "Atlantis", stdin="A Par H")
    assert r.returncode == 2 and "unknown power 'Atlantis'" in r.stderr


def test_parse_reads_the_position_in_the_calendar_option(tmp_path: Path):
    """``judge parse`` reads a position as ``judge adjudicate`` does: with ``calendar=build_months``
    (1885 II rule 4, the eight-moves reading) March has no move, so a March move position is an
    input error; in the default calendar it is read, and so are its orders."""
    pos = tmp_path / "pos.json"
    pos.write_text(json.dumps({"variant": "1885", "phase": "March 1886 Movement",
                               "units": {"Turkey": ["A Con"]}, "centers": {"Turkey": ["Con"]}}))
    r = judge("parse", "--position", str(pos), "--no-check", stdin="A Con - Bul\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["order"] == "A Con - Bul"
    r = judge("parse", "--position", str(pos), "--option", "calendar=build_months", stdin="A Con - Bul\n")
    assert r.returncode == 2 and "judge parse:" in r.stderr and "March" in r.stderr
    r = judge("parse", "--position", str(pos), "--option", "calendar=weekly", stdin="A Con - Bul\n")
    assert r.returncode == 2 and "no calendar 'weekly'" in r.stderr
