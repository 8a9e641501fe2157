"""The order language (issue 3): every notation the issue lists, on the standard board."""

from __future__ import annotations

import pytest

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Waive
from judge.engine import read_position
from judge.engine.position import Position
from judge.orders import ParsedLine, parse_orders
from judge.variant import load_variant

V = load_variant("standard")


def board(units: dict[str, list[str]] | None = None, phase: str = "Spring 1901 Movement", **more) -> Position:
    data = V.start_position() if units is None else {"variant": "standard", "phase": phase, "units": units}
    data = {**data, "phase": phase, **more}
    return read_position(data, V)


START = board()


def one(text: str, pos: Position = START, **kw) -> ParsedLine:
    lines = parse_orders(text, pos, **kw)
    assert len(lines) == 1, [(p.line, p.canonical, p.error) for p in lines]
    return lines[0]


def canonical(text: str, pos: Position = START, **kw) -> str:
    p = one(text, pos, **kw)
    assert p.order is not None, p.error
    return p.canonical


@pytest.mark.parametrize("text", [
    "Lon-Bel", "A Lon-Bel", "A. Lon - Bel", "Army London to Belgium", "a lon moves to bel", "A Lon -> Bel",
    "A(Lon)-Bel", "A (Lon) m Bel", "A LON - BEL", "  a   lon  -  bel  ", "A Lon move to Bel", "A Lon – Bel",
    "England: A Lon-Bel", "ENG A Lon-Bel", "EA Lon-Bel", "English army in London to Belgium", "[England] A Lon - Bel",
    "1. A Lon - Bel", "- A Lon - Bel",
])
def test_move_notations(text):
    pos = board({"England": ["A Lon", "F Nth"]})
    p = one(text, pos)
    assert p.order == Move("England", "A", "lon", "bel", False), p.error
    assert p.canonical == "A Lon - Bel"
    assert p.power == "England"


def test_the_unit_kind_comes_from_the_board():
    assert canonical("Lon-Nth") == "F Lon - Nth"
    assert canonical("Par H") == "A Par H"
    assert canonical("St Pete - Bot") == "F StP/sc - Bot"


@pytest.mark.parametrize("text", ["A Par H", "A Par h", "A Par hold", "A Par holds", "A Par stand", "A Par stands",
                                  "A Par", "Par", "A Par (h)", "French army in Paris", "FA Par", "France: A Par H"])
def test_hold_notations(text):
    p = one(text)
    assert p.order == Hold("France", "A", "par"), p.error


@pytest.mark.parametrize("text,want", [
    ("A Mar S A Par - Bur", "A Mar S A Par - Bur"),
    ("A Mar s A Par-Bur", "A Mar S A Par - Bur"),
    ("A Mar (S) A Par - Bur", "A Mar S A Par - Bur"),
    ("A Mar (s) Par - Bur", "A Mar S A Par - Bur"),
    ("A Mar supports A Par to Bur", "A Mar S A Par - Bur"),
    ("A Mar supports French army in Paris to Burgundy", "A Mar S A Par - Bur"),
    ("A Mar S FA Par - Bur", "A Mar S A Par - Bur"),
    ("A Mar S A Par", "A Mar S A Par"),
    ("A Mar S A Par H", "A Mar S A Par"),
    ("A Mar supports A Par to hold", "A Mar S A Par"),
    ("F Bre S A Par", "F Bre S A Par"),
])
def test_support_notations(text, want):
    assert canonical(text) == want


@pytest.mark.parametrize("text", ["F Nth C A Lon - Bel", "F Nth c A Lon-Bel", "F Nth (c) A Lon - Bel",
                                  "F Nth convoys A Lon to Bel", "F Nth transports A Lon - Bel",
                                  "F Nth T A Lon - Bel", "F Nth C Lon - Bel",
                                  "F Nth convoys English army in London to Belgium"])
def test_convoy_notations(text):
    pos = board({"England": ["A Lon", "F Nth"]})
    assert one(text, pos).order == Convoy("England", "F", "nth", "A", "lon", "bel")


@pytest.mark.parametrize("text", ["A Lon-Nth-Bel", "A Lon - Bel via convoy", "A Lon - Bel (via convoy)",
                                  "A Lon - Bel by convoy", "A Lon - Bel via Nth", "A Lon to Nth to Bel"])
def test_an_army_route_may_be_given_or_left_out(text):
    pos = board({"England": ["A Lon", "F Nth"]})
    assert one(text, pos).order == Move("England", "A", "lon", "bel", True)


def test_only_an_army_goes_by_convoy():
    pos = board({"England": ["A Lon", "F Nth"]})
    p = one("F Nth - Nwg - Nwy", pos)
    assert p.order is None and "only an army moves by convoy" in p.error and p.power == "England"


@pytest.mark.parametrize("text,loc", [
    ("St. Petersburg", "stp"), ("St. Pete.", "stp"), ("StP", "stp"), ("St Pete", "stp"), ("Saint Petersburg", "stp"),
    ("N. Atl.", "nao"), ("Nat", "nao"), ("North Atlantic Ocean", "nao"), ("E.C.", "eng"), ("EC", "eng"),
    ("English Channel", "eng"), ("the English Channel", "eng"), ("Helg", "hel"), ("Holl.", "hol"), ("WMed", "wes"),
    ("Mid", "mao"), ("Mid-Atlantic", "mao"), ("Gulf of Lyon", "lyo"), ("Gulf of Bothnia", "bot"), ("Edinb", "edi"),
    ("lond", "lon"), ("The Netherlands", "hol"), ("Tyrrhenian Sea", "tys"), ("Black", "bla"), ("Nth Sea", "nth"),
    ("Eng Channel", "eng"), ("Nat Ocean", "nao"),
])
def test_province_names(text, loc):
    names = load_variant("standard").map
    pos = board({"England": ["A Yor"]})
    p = one(f"England: A Yor S A Lvp - {text}", pos)
    assert p.order is not None, p.error
    assert p.order.dest == loc, (text, p.order, names.display(p.order.dest))


def test_unknown_province_says_did_you_mean():
    p = one("A Lvp - Lundoon")
    assert p.order is None
    assert p.error == "unknown province 'Lundoon'"
    assert p.suggestions == ["London"]
    p = one("F Nth - Nort", board({"England": ["F Nth"]}))
    assert p.order is None and "could be" in p.error
    assert p.suggestions == ["North Africa", "North Atlantic Ocean", "North Sea"]


@pytest.mark.parametrize("text", ["F Mao - Spa/nc", "F Mao - Spa(nc)", "F Mao - Spa nc", "F Mao - Spa north coast",
                                  "F Mao - Spa (north coast)", "F Mao - Spa/NC", "F Mao - Spa/north",
                                  "F Mao - Spa n.c.", "F Mao - Spain (North Coast)"])
def test_coast_notations(text):
    pos = board({"France": ["F Mao"]})
    assert one(text, pos).order == Move("France", "F", "mao", "spa/nc", False)


def test_coasts_datc_4b():
    pos = board({"France": ["F Mao", "F Gas", "F Spa/sc"], "Turkey": ["F Con"], "Russia": ["F StP/nc"]})
    # 4.B.2: the only coast the fleet can reach is inferred
    assert canonical("F Gas - Spa", pos) == "F Gas - Spa/nc"
    assert canonical("F Con - Bul ec", pos) == "F Con - Bul/ec"
    # 4.B.1: two coasts reachable and none named
    p = one("F Mao - Spa", pos)
    assert p.order is None and p.error == "the coast of Spain must be given (Spa/nc or Spa/sc)"
    assert p.power == "France"
    # a coast that does not exist
    p = one("F Con - Bul/wc", pos)
    assert p.order is None and p.error == "Bulgaria has no west coast (its coasts: Bul/ec or Bul/sc)"
    # the ordered fleet's coast comes from the board (4.B.5: a wrong coast is not held against it)
    assert canonical("F StP - Bar", pos) == "F StP/nc - Bar"
    p = one("F Spa/nc - Lyo", pos)
    assert p.canonical == "F Spa/sc - Lyo" and p.warnings == ["the fleet in Spain is on the south coast"]
    # an army ignores coasts (4.B.6)
    p = one("A Gas - Spa/nc", board({"France": ["A Gas"]}))
    assert p.order == Move("France", "A", "gas", "spa") and p.warnings


def test_several_orders_on_a_line():
    lines = parse_orders("A Par - Bur; A Mar S A Par - Bur, F Bre - Mao. Kie-Den. A Mun H", START)
    assert [p.canonical for p in lines] == ["A Par - Bur", "A Mar S A Par - Bur", "F Bre - Mao", "F Kie - Den",
                                            "A Mun H"]
    assert [p.line for p in lines] == ["A Par - Bur", "A Mar S A Par - Bur", "F Bre - Mao", "Kie-Den", "A Mun H"]


def test_a_bad_order_never_costs_the_good_ones_beside_it():
    lines = parse_orders("A Par - Bur, A Mar - Xyzzy, F Bre - Mao\nGarbage here\nA Mun H", START)
    assert [(p.line, p.canonical, bool(p.error)) for p in lines] == [
        ("A Par - Bur", "A Par - Bur", False), ("A Mar - Xyzzy", "", True), ("F Bre - Mao", "F Bre - Mao", False),
        ("Garbage here", "", True), ("A Mun H", "A Mun H", False)]


def test_what_is_not_orders_gives_nothing():
    text = ("A Par - Bur\n\n# a comment\nF Bre - Mao   # why\n\nOn Mon, 1 Jan 1901, Judge wrote:\n> A Mun - Ruh\n"
            "A Mar H\n-- \nMy signature A Kie H\n")
    got = parse_orders(text, START)
    assert [p.canonical for p in got if not p.note] == ["A Par - Bur", "F Bre - Mao", "A Mar H"]
    # a comment or a quotation on its own line is said to be one (nothing is passed over in silence)
    assert [(p.line, p.note.split(",")[0]) for p in got if p.note] == [("# a comment", "a comment"),
                                                                       ("> A Mun - Ruh", "a quotation")]
    assert parse_orders("", START) == []
    assert parse_orders("\n \n-----\n", START) == []
    text = "A Par - Bur\n-----Original Message-----\nA Mun - Ruh\n"
    assert [p.canonical for p in parse_orders(text, START)] == ["A Par - Bur"]


def test_power_prefixes_and_headers():
    lines = parse_orders("ENGLAND:\nF Lon - Nth\nA Lvp - Yor\nFrance: A Par - Bur. A Mar H\nF Bre - Mao", START)
    assert lines[0].note == "a heading: the orders below are England's"
    lines = lines[1:]
    assert [(p.power, p.canonical) for p in lines] == [
        ("England", "F Lon - Nth"), ("England", "A Lvp - Yor"), ("France", "A Par - Bur"), ("France", "A Mar H"),
        ("England", "F Bre - Mao")]  # the header stands until the next; a prefix only for its line
    assert one("E: F Lon - Nth").power == "England"
    assert one("Englnd: F Lon - Nth").error == "unknown power 'Englnd'"
    # a named power other than the unit's owner is the engine's to refuse (DATC 6.A.?: 'belongs to')
    p = one("Germany: F Lon - Nth")
    assert p.order == Move("Germany", "F", "lon", "nth") and p.power == "Germany"


def test_english_is_a_power_but_english_channel_a_sea():
    pos = board({"France": ["F Eng"], "England": ["A Lon"]})
    assert one("English Channel - Bre", pos).order == Move("France", "F", "eng", "bre")
    assert one("English army in London", pos).order == Hold("England", "A", "lon")
    assert one("ENG A Lon H", pos).order == Hold("England", "A", "lon")
    assert one("Eng H", pos).order == Hold("France", "F", "eng")


def test_a_signed_on_player_orders_only_its_own_units():
    p = one("A Mun - Ruh", power="England")
    assert p.order is None and p.error == "the army in Munich belongs to Germany" and p.power == "England"
    p = one("Germany: A Mun - Ruh", power="England")
    assert p.order is None and p.error == "you play England: you cannot give orders for Germany"
    assert one("F Lon - Nth", power="england").order == Move("England", "F", "lon", "nth")
    assert one("Waive", board(phase="Winter 1901 Adjustment"), power="England").order == Waive("England", None, "")
    with pytest.raises(ValueError):
        parse_orders("A Par H", START, power="Atlantis")


def test_no_such_unit():
    p = one("A Bel - Hol")
    assert p.order is None and p.error == "there is no army in Belgium"
    assert one("Bel - Hol").error == "there is no unit in Belgium"


def test_illegal_but_well_formed_orders_are_kept_for_the_engine():
    p = one("F Lon - Bel")
    assert p.order == Move("England", "F", "lon", "bel") and not p.error
    assert one("A Par - Lon").order == Move("France", "A", "par", "lon")
    assert one("F Lon - Pic", check=True).error == "the fleet in London can't reach Picardy"
    assert one("A Bel - Lon", board({"France": ["A Bel"]}), check=True).error == \
        "the army in Belgium can't reach London"


def test_warnings_for_supports_that_do_not_match():
    lines = parse_orders("A War - Gal\nA Mos S A War - Ukr\nA Mos S A War\nF Sev S A Mos\nA Mos - Ukr", START)
    assert lines[1].warnings == ["the army in Warsaw is ordered to Galicia, not to move to Ukraine"]
    assert lines[2].warnings == ["the army in Warsaw is ordered to move to Galicia, so this support to hold will "
                                 "not count"]
    assert lines[3].warnings == ["the army in Moscow is ordered to move to Ukraine, so this support to hold will "
                                 "not count"]
    assert all(p.order is not None for p in lines)


def test_the_last_order_for_a_unit_wins():
    lines = parse_orders("A Par - Bur\nA Par - Pic\nA Par - Lon", START, check=True)
    # the last *valid* order wins: Pic, since the move to London is illegal
    assert [p.warnings for p in lines] == [["replaced by a later order for the same unit"], [], []]
    assert lines[2].error == "the army in Paris can't reach London"


def test_canonical_and_json():
    p = one("f stp - bot")
    assert p.canonical == "F StP/sc - Bot"
    assert p.as_json() == {"line": "f stp - bot", "power": "Russia", "order": "F StP/sc - Bot"}
    p = one("A Lvp - Lundoon")
    assert p.canonical == ""
    assert p.as_json() == {"line": "A Lvp - Lundoon", "power": "England", "error": "unknown province 'Lundoon'",
                           "suggestions": ["London"]}


@pytest.mark.parametrize("text", ["A Par - Bur", "A Par Bur", "A Par S", "A Par - ", "S A Par", "A Par :", "Build",
                                  "A Par ->", "F Bre C A Par", "F Bre C A Par H"])
def test_errors_are_specific(text):
    p = one(text)
    assert (p.order is None) == (text != "A Par - Bur")
    if p.order is None:
        assert p.error and "Traceback" not in p.error


def test_phase_kinds_decide_what_a_move_means():
    retreat = board({"Germany": ["A Ber"]}, phase="Spring 1901 Retreat",
                    dislodged={"Germany": [{"unit": "A Mun", "from": "Bur"}]})
    for text in ("A Mun-Boh", "A Mun r Boh", "A Mun retreats to Boh", "Mun - Boh", "A Mun R Bohemia"):
        assert one(text, retreat).order == Retreat("Germany", "A", "mun", "boh"), text
    for text in ("disband A Mun", "A Mun d", "A Mun disbands", "A Mun D", "Remove A Mun"):
        assert one(text, retreat).order == Disband("Germany", "A", "mun"), text
    assert one("A Mun", retreat).error.startswith("say where the army in Munich retreats")
    assert one("A Ber - Sil", retreat).error == "there is no dislodged army in Berlin"
    assert one("A Mun r Boh").error.startswith("retreat orders are given only in retreat phases")


def test_adjustment_notations():
    winter = board({"Germany": ["A Ber", "A Mun", "F Kie"], "Russia": ["A War"], "France": ["A Par"]},
                   phase="Winter 1901 Adjustment",
                   centers={"Russia": ["StP", "Mos", "War", "Sev", "Rum"], "Germany": ["Ber", "Kie"],
                            "France": ["Par", "Bre", "Mar"]})
    cases = {
        "Build A Mos": Build("Russia", "A", "mos"),
        "B F Sev": Build("Russia", "F", "sev"),
        "build fleet St Petersburg north coast": Build("Russia", "F", "stp/nc"),
        "Russia: Build F(StP)sc": Build("Russia", "F", "stp/sc"),
        "Build Mos": Build("Russia", "A", "mos"),
        "A Bre": Build("France", "A", "bre"),
        "F Bre b": Build("France", "F", "bre"),
        "Remove A Mun": Remove("Germany", "A", "mun"),
        "R A Mun": Remove("Germany", "A", "mun"),
        "Disband F Kie": Remove("Germany", "F", "kie"),
        "A Mun d": Remove("Germany", "A", "mun"),
        "Germany: Waive": Waive("Germany", None, ""),
        "Germany: W": Waive("Germany", None, ""),
        "waive Germany": Waive("Germany", None, ""),
    }
    for text, want in cases.items():
        assert one(text, winter).order == want, (text, one(text, winter))
    assert one("Waive", winter).error == "say which power waives (e.g. 'England: Waive')"
    assert one("B F StP", winter).error == \
        "say which coast of St Petersburg the fleet is built on (StP/nc or StP/sc)"
    assert one("Build Sev", winter).error == "say which kind of unit to build in Sevastopol (A or F)"
    assert one("A Par", winter).error == "Paris is occupied: to remove the unit there, write 'Remove A Par'"
    lines = parse_orders("France: Build A Par, Build A Mar, Build F Bre, Build A Bre\nRemove A Mun\nRemove F Kie",
                         winter, check=True)
    assert [(p.canonical, p.error, p.warnings) for p in lines] == [
        ("", "Paris is occupied", []), ("Build A Mar", "", []), ("Build F Bre", "", []),
        ("Build A Bre", "", ["France has only 2 builds due"]), ("Remove A Mun", "", []),
        ("Remove F Kie", "", ["Germany has only 1 removal due"])]
    assert one("A Mun - Boh", winter, check=True).error == "move orders are not allowed in an adjustment phase"
