"""Every order written in the seed rule texts (../shared/seeds/000, 001, 002, 004) parses to what
its text means, on a board where the example makes sense. Remarks in brackets that follow the
examples ("(F Holl dislodged)") are commentary, not orders, and are left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.engine.position import Position
from judge.orders import parse_orders
from judge.variant import load_variant

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
STANDARD = load_variant("standard")
AF = {"modules": ("army_fleet",)}
COAST_RUNNING = {"modules": ("coast_running",)}
DELUGE = {"modules": ("army_fleet", "transform")}


def read(text: str, units: dict[str, list[str]], rules: dict | None = None, variant: str = "standard",
         phase: str | None = None, **more) -> list[tuple[str | None, str]]:
    """(power, canonical order) for each order of ``text``; an error fails the test."""
    v = load_variant(variant)
    pos = Position.from_json({"variant": variant, "phase": phase or str(v.calendar.start), "units": units, **more}, v)
    lines = parse_orders(text, pos, rules=rules)
    assert all(p.order is not None for p in lines), [(p.line, p.error) for p in lines if p.order is None]
    return [(p.power, p.canonical) for p in lines]


# -- 001: Coast-Running (Verheiden); standard board, zine notation ----------------------------------
COAST_RUNNING_EXAMPLES = [
    ("ENGLAND: F Lon (S) F Nth. A Yor-Holl. F Nth (e) A Yor-Holl.\nF Helg (s) A Yor-Holl.\n"
     "GERMANY: F Holl-Nth. F Bel (s) F Holl-Nth.",
     {"England": ["F Lon", "F Nth", "A Yor", "F Hel"], "Germany": ["F Hol", "F Bel"]},
     [("England", "F Lon S F Nth"), ("England", "A Yor - Hol"), ("England", "F Nth C A Yor - Hol"),
      ("England", "F Hel S A Yor - Hol"), ("Germany", "F Hol - Nth"), ("Germany", "F Bel S F Hol - Nth")]),
    ("F Ion-WMed. A Tun P F Ion-WMed.", {"Italy": ["F Ion", "A Tun"]},
     [("Italy", "F Ion - Wes"), ("Italy", "A Tun P F Ion - Wes")]),
    ("F Edi-Nat. A Cly P F Edi-Nat.", {"England": ["F Edi", "A Cly"]},
     [("England", "F Edi - Nao"), ("England", "A Cly P F Edi - Nao")]),
    ("F Tri-Ion. A Ven P F Tri-Ion. A Apu P F Tri-Ion.", {"Italy": ["F Tri", "A Ven", "A Apu"]},
     [("Italy", "F Tri - Ion"), ("Italy", "A Ven P F Tri - Ion"), ("Italy", "A Apu P F Tri - Ion")]),
    ("F StP nc - E.C. A Nwy P F StP-EC. A Lon P F StP-EC.", {"Russia": ["F StP/nc", "A Nwy", "A Lon"]},
     [("Russia", "F StP/nc - Eng"), ("Russia", "A Nwy P F StP/nc - Eng"), ("Russia", "A Lon P F StP/nc - Eng")]),
    ("F Bal-Nth. A Kie P F Bal-Nth. A Holl P F Bal-Nth.", {"Germany": ["F Bal", "A Kie", "A Hol"]},
     [("Germany", "F Bal - Nth"), ("Germany", "A Kie P F Bal - Nth"), ("Germany", "A Hol P F Bal - Nth")]),
    ("F Rum-Gre. A Bul P F Rum-Gre. A Con P F Rum-Gre.", {"Turkey": ["F Rum", "A Bul", "A Con"]},
     [("Turkey", "F Rum - Gre"), ("Turkey", "A Bul P F Rum - Gre"), ("Turkey", "A Con P F Rum - Gre")]),
    ("IF Ion-WMed. IA Tun P IF Ion-WMed. FF Mid-WMed.", {"Italy": ["F Ion", "A Tun"], "France": ["F Mao"]},
     [("Italy", "F Ion - Wes"), ("Italy", "A Tun P F Ion - Wes"), ("France", "F Mao - Wes")]),
    ("RF Bla-Aeg. TA Con P RF Bla-Aeg. TF Smy (S) RF Bla-Aeg. AF Aeg (h).",
     {"Russia": ["F Bla"], "Turkey": ["A Con", "F Smy"], "Austria": ["F Aeg"]},
     [("Russia", "F Bla - Aeg"), ("Turkey", "A Con P F Bla - Aeg"), ("Turkey", "F Smy S F Bla - Aeg"),
      ("Austria", "F Aeg H")]),
    ("AF Alb-Aeg. AA Gre P AF Alb-Aeg. TA Bul-Gre.", {"Austria": ["F Alb", "A Gre"], "Turkey": ["A Bul"]},
     [("Austria", "F Alb - Aeg"), ("Austria", "A Gre P F Alb - Aeg"), ("Turkey", "A Bul - Gre")]),
    ("FF Pic-Nth. FA Bel P FF Pic-Nth. GA Ruh-Bel. GF Holl (S) GA Ruh-Bel.",
     {"France": ["F Pic", "A Bel"], "Germany": ["A Ruh", "F Hol"]},
     [("France", "F Pic - Nth"), ("France", "A Bel P F Pic - Nth"), ("Germany", "A Ruh - Bel"),
      ("Germany", "F Hol S A Ruh - Bel")]),
    ("GF Helg-Bal. GA Kie P GF Helg-Bal. GA Den P GF Helg-Bal. EF Nth-Den.\nRF Swe (S) EF Nth-Den.",
     {"Germany": ["F Hel", "A Kie", "A Den"], "England": ["F Nth"], "Russia": ["F Swe"]},
     [("Germany", "F Hel - Bal"), ("Germany", "A Kie P F Hel - Bal"), ("Germany", "A Den P F Hel - Bal"),
      ("England", "F Nth - Den"), ("Russia", "F Swe S F Nth - Den")]),
]


@pytest.mark.parametrize("text,units,want", COAST_RUNNING_EXAMPLES)
def test_coast_running_examples(text, units, want):
    assert read(text, units, COAST_RUNNING) == want


def test_coast_running_examples_in_the_coast_running_variant():
    text, units, want = COAST_RUNNING_EXAMPLES[7]
    assert read(text, units, variant="coast_running") == want


def test_coast_running_example_with_a_coast_left_out():
    """"EF Por-Spa" names no coast though a fleet in Portugal reaches both (DATC 4.B.1): an
    error that says so; the other three orders of the example stand."""
    v = STANDARD
    pos = Position.from_json({"variant": "standard", "phase": "Spring 1901 Movement",
                              "units": {"France": ["F Mar", "A Spa"], "England": ["F Por", "F Mao"]}}, v)
    lines = parse_orders("FF Mar-Mid. FA Spa P FF Mar-Mid. EF Por-Spa. EF Mid (s) EF Por-Spa.", pos,
                         rules=COAST_RUNNING)
    assert [(p.power, p.canonical, p.error) for p in lines] == [
        ("France", "F Mar - Mao", ""), ("France", "A Spa P F Mar - Mao", ""),
        ("England", "", "the coast of Spain must be given (Spa/nc or Spa/sc)"), ("England", "F Mao S F Por - Spa", "")]


def test_the_e_of_the_convoy_example_is_read_as_convoy():
    v = STANDARD
    pos = Position.from_json({"variant": "standard", "phase": "Spring 1901 Movement",
                              "units": {"England": ["F Nth", "A Yor"]}}, v)
    [p] = parse_orders("F Nth (e) A Yor-Holl", pos, rules=COAST_RUNNING)
    assert p.canonical == "F Nth C A Yor - Hol" and p.warnings == ["'e' after a fleet read as convoy"]


# -- 000: the universal Army/Fleet module (Agar) -----------------------------------------------------
AGAR_EXAMPLES = [
    ("A(Lon) Embark F(ENG) ; A/F(ENG)-MAO, A(MAO) Disembark Por.", {"England": ["A Lon", "F Eng"]},
     [("England", "A Lon E F Eng"), ("England", "A/F Eng - Mao"), ("England", "A Mao D Por")]),
    ("A(ION) D Tun ; F(ION)-EMS.", {"Italy": ["A/F Ion"]},
     [("Italy", "A Ion D Tun"), ("Italy", "F Ion - Eas")]),
    ("A(BLA) D Sev ; F(BLA) S A(BLA) D Sev", {"Turkey": ["A/F Bla"], "Russia": ["F Sev"]},
     [("Turkey", "A Bla D Sev"), ("Turkey", "F Bla S A Bla - Sev")]),
    ("ENGLAND : A/F(NTH)-ENG ; A(ENG) D Bre ; F(MAO) S A(ENG) D Bre.\nFRANCE : F(ENG)-Bre.",
     {"England": ["A/F Nth", "F Mao"], "France": ["F Eng"]},
     [("England", "A/F Nth - Eng"), ("England", "A Eng D Bre"), ("England", "F Mao S A Eng - Bre"),
      ("France", "F Eng - Bre")]),
]


@pytest.mark.parametrize("text,units,want", AGAR_EXAMPLES)
def test_army_fleet_examples(text, units, want):
    assert read(text, units, AF) == want


# -- 002: Deluge II (A/F and transformation) ---------------------------------------------------------
DELUGE_EXAMPLES = [
    ("A(Lon) E F(ENG); A/F(ENG) - MAO; A(MAO) D Por.", {"England": ["A Lon", "F Eng"]},
     [("England", "A Lon E F Eng"), ("England", "A/F Eng - Mao"), ("England", "A Mao D Por")]),
    ("A/F(ENG); A(ENG) D Bre; F(ENG) - NTH.", {"England": ["A/F Eng"]},
     [("England", "A/F Eng H"), ("England", "A Eng D Bre"), ("England", "F Eng - Nth")]),
    ("A/F(ENG); F(ENG) S A(ENG) D Bre.", {"England": ["A/F Eng"]},
     [("England", "A/F Eng H"), ("England", "F Eng S A Eng - Bre")]),
    ("F(ENG) convoys A(Lon) - Bre.", {"England": ["A Lon", "F Eng"]}, [("England", "F Eng FF A Lon - Bre")]),
    ("A(Lon) E F(ENG); F(ENG) S A(Lon) - Bre.", {"England": ["A Lon", "F Eng"]},
     [("England", "A Lon E F Eng"), ("England", "F Eng S A Lon - Bre")]),
    ("A Lon embarks F Nth, a/F nth Holds", {"England": ["A Lon", "F Nth"]},
     [("England", "A Lon E F Nth"), ("England", "A/F Nth H")]),
    ("A Lon transforms into a fleet", {"England": ["A Lon"]}, [("England", "A Lon T F")]),
]


@pytest.mark.parametrize("text,units,want", DELUGE_EXAMPLES)
def test_deluge_examples(text, units, want):
    assert read(text, units, DELUGE) == want


def test_deluge_build_with_a_coast():
    """Rule 1: "Russia may build F(StP)nc"."""
    assert read("Russia: build F(StP)nc", {}, DELUGE, phase="Winter 1901 Adjustment",
                centers={"Russia": ["StP"]}) == [("Russia", "Build F StP/nc")]


def test_deluge_examples_in_the_deluge_variant():
    if not (SEEDS / "deluge2.toml").exists():
        pytest.skip("seeds/deluge2.toml is not written yet")
    assert read("A(Lon) E F(ENG); A/F(ENG) - MAO; A(MAO) D Por.", {"England": ["A Lon", "F Eng"]},
                variant="deluge2", phase="Spring 1901 Movement") == DELUGE_EXAMPLES[0][2]


# -- 004: 1885 II (Davis) ------------------------------------------------------------------------------
def needs_1885() -> None:
    if not (SEEDS / "1885.toml").exists():
        pytest.skip("seeds/1885.toml is not written yet")


def test_1885_army_fleet_example():
    """A-II-a: "A Marseilles boards F Gulf of Lions; A/F Gulf of Lions-Western Med; A disembarks
    Tunis." -- the army lands from the sea its A/F was ordered to."""
    needs_1885()
    assert read("A Marseilles boards F Gulf of Lions; A/F Gulf of Lions-Western Med; A disembarks Tunis.",
                {"France": ["A Mar", "F Lyo"]}, variant="1885") == [
        ("France", "A Mar E F Lyo"), ("France", "A/F Lyo - Wes"), ("France", "A Wes D Tun")]


def test_1885_starting_units_read_as_holds():
    """Rule 3 lists units the way orders name them: "AUSTRIA: A Cluj, F Split"."""
    needs_1885()
    assert read("AUSTRIA: A Cluj, F Split\nSPAIN: A Madrid, A Cadiz, F Valencia",
                {"Austria": ["A Clu", "F Spl"], "Spain": ["A Mad", "A Cad", "F Val"]}, variant="1885") == [
        ("Austria", "A Clu H"), ("Austria", "F Spl H"), ("Spain", "A Mad H"), ("Spain", "A Cad H"),
        ("Spain", "F Val H")]


def test_1885_new_abbreviations():
    """Rule 12: "Cro. = Croatia, Dres. = Dresden, Mac. = Macedonia, Nav. = Navarre, Swa. = Swabia"."""
    needs_1885()
    assert read("Cro. - Mac.\nA Dres. H\nNav. - Gas. A Swa. - Mun.",
                {"Austria": ["A Cro"], "Germany": ["A Dre", "A Swa"], "Spain": ["A Nav"]}, variant="1885") == [
        ("Austria", "A Cro - Mac"), ("Germany", "A Dre H"), ("Spain", "A Nav - Gas"), ("Germany", "A Swa - Mun")]
    v = load_variant("1885")
    names = {"Cro.": "cro", "Dres.": "dre", "Mac.": "mac", "Nav.": "nav", "Swa.": "swa"}
    assert {k: v.map.lookup(k) for k in names} == names


def test_a_variant_kind_the_variant_lacks():
    pos = Position.from_json({"variant": "standard", "phase": "Spring 1901 Movement",
                              "units": {"England": ["A Lon", "F Eng"], "Italy": ["A Tun", "F Ion"]}}, STANDARD)
    errors = [p.error for p in parse_orders("A Lon E F Eng\nA(Eng) D Bre\nF Eng FF A Lon - Bre\nA/F Eng H\n"
                                            "A Tun P F Ion - WMed\nA Lon T F", pos)]
    assert errors == ["this variant has no embark orders", "this variant has no disembark orders",
                      "this variant has no fast ferry orders", "this variant has no army/fleet units",
                      "this variant has no protect orders", "this variant has no transform orders"]


def test_af_is_settled_by_the_board():
    pos = Position.from_json({"variant": "standard", "phase": "Spring 1901 Movement",
                              "units": {"England": ["A/F Nth", "F Eng"], "Austria": ["F Aeg"]}}, STANDARD)
    lines = parse_orders("AF Nth - Eng\nAF Aeg H\nAF Eng H", pos, rules=AF)
    assert [(p.power, p.canonical) for p in lines[:2]] == [("England", "A/F Nth - Eng"), ("Austria", "F Aeg H")]
    assert lines[2].order is None and "'AF' is ambiguous" in lines[2].error
    # without the A/F module "AF" is only the Austrian fleet; "FF" before a unit is the French fleet
    assert [p.canonical for p in parse_orders("AF Aeg H\nFF Eng - Bre", pos)] == ["F Aeg H", "F Eng - Bre"]
