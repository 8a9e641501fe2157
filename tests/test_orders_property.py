"""Robustness of the order language (hypothesis): it never raises on any text, and every order it
reads comes back as canonical text that reads as the same order."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.engine import read_position
from judge.engine.position import Position
from judge.orders import parse_orders
from judge.variant import load_variant

V = load_variant("standard")
START = read_position(V.start_position(), V)
RETREAT = read_position({"variant": "standard", "phase": "Spring 1901 Retreat",
                              "units": {"Germany": ["A Ber"], "France": ["A Mun"]},
                              "dislodged": {"Germany": [{"unit": "A Mun", "from": "Bur"}],
                                            "Russia": [{"unit": "F Nwy", "from": "Nth"}]}}, V)
WINTER = read_position({"variant": "standard", "phase": "Winter 1901 Adjustment",
                             "units": {"Germany": ["A Ber", "A Mun", "F Kie"], "Russia": ["A War"]},
                             "centers": {"Russia": ["StP", "Mos", "War", "Sev"], "Germany": ["Ber", "Kie"]}}, V)
AF_RULES = {"modules": ("army_fleet", "coast_running", "transform")}
POSITIONS = [START, RETREAT, WINTER]

WORDS = ["A", "F", "A/F", "army", "fleet", "Lon", "Bel", "StP", "nc", "sc", "/", "(", ")", "-", "->", "S", "C", "H",
         "D", "E", "P", "T", "FF", "AF", "EF", "to", "via", "convoy", "Build", "Remove", "Waive", "England:",
         "English", "Channel", "St.", "Pete.", "Spa", "Bul", "ec", "north", "coast", ";", ",", ".", "the", "Mun",
         "Boh", "Kie", "Nth", "Eng", "Mao", "Por", "Tun", "Ion", "WMed", "Lonodn", "ENG", "Germany", "moves",
         "transforms", "into", "a", "holds", "disband", "retreats", "#", ">", "-- ", "\n", "\x00", "\t", "é", "東京",
         "SA", "SF", "CA", "Std.", "+", "*", "and", "all", "units", "hold", "LIV", "Norw", "Beglium", "burgandy",
         "E)", "b)", "(build)", "(retreat:", "retreated", "disbanded", "builds", "Seria", "NTS", "Lvn", "Bal",
         "Builds:", "waive", "two", "2", "Destroy", "VIA", "into", "my", "<", "<A", "Lpl>", "rest", "others", "else", "no", "builds"]
order_soup = st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join)
any_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


def roundtrip(pos: Position, rules: dict | None, text: str) -> None:
    for p in parse_orders(text, pos, rules=rules):
        assert (p.order is None) == bool(p.error or p.note) and not (p.error and p.note)
        if p.order is None:
            continue
        again = parse_orders(f"{p.order.power}: {p.canonical}", pos, rules=rules)
        assert [q.order for q in again] == [p.order], (text, p.line, p.canonical, [q.error for q in again])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(any_text, order_soup), which=st.integers(0, 2), af=st.booleans(), check=st.booleans())
def test_never_raises_and_canonical_reads_back(text, which, af, check):
    pos = POSITIONS[which]
    rules = AF_RULES if af else None
    for p in parse_orders(text, pos, check=check, rules=rules):
        assert isinstance(p.line, str) and p.line
    roundtrip(pos, rules, text)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_generated_orders_read_back(seed):
    """Orders written the canonical way from the board (moves, supports, convoys to anywhere
    near) are read as such, and their canonical text is the same."""
    rng = random.Random(seed)
    m = START.map
    units = list(START.units.values())
    lines = []
    for u in rng.sample(units, 6):
        here = u.text(m)
        there = m.provinces[rng.choice(sorted(m.any_adj[u.prov]))].key
        other = rng.choice(units)
        r = rng.random()
        if r < 0.4:
            lines.append(f"{here} - {there}")
        elif r < 0.7:
            lines.append(f"{here} S {other.text(m)} - {there}")
        elif r < 0.85:
            lines.append(f"{here} C A {m.display(other.prov)} - {there}")
        else:
            lines.append(f"{here} H")
    text = "\n".join(lines)
    roundtrip(START, None, text)


def test_huge_lines_and_control_characters():
    junk = "".join(random.Random(7).choice("abcdefghij -;,.()/:\x00\x07\u202e東é") for _ in range(100_000))
    for pos in POSITIONS:
        out = parse_orders(junk, pos)
        assert all(p.order is None or p.canonical for p in out)
    long_order = "A Par - Bur " + "x" * 100_000
    out = parse_orders(long_order, START)  # read whole or refused whole: junk after an order refuses it
    assert len(out) == 1 and out[0].order is None and len(out[0].error) < 300
    out = parse_orders(("A Par - Bur, " * 10_000) + "\n", START, check=True)
    assert len(out) == 10_000 and out[-1].canonical == "A Par - Bur"
