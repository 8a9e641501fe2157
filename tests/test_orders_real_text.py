"""The order language against what players really write: the Electronic Protocol's forms, British
postal shorthand, report phrasing pasted back, remarks in brackets, misspellings, abbreviations
of two provinces; an order read whole or refused whole; harmless lines as notes."""

from __future__ import annotations

import pytest

from judge.engine import read_position
from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Support
from judge.engine.position import Position
from judge.orders import ParsedLine, parse_orders
from judge.variant import load_variant

V = load_variant("standard")


def board(units: dict[str, list[str]] | None = None, phase: str = "Spring 1901 Movement", **more) -> Position:
    data = V.start_position() if units is None else {"variant": "standard", "phase": phase, "units": units}
    return read_position({**data, "phase": phase, **more}, V)


START = board()


def one(text: str, pos: Position = START, **kw) -> ParsedLine:
    lines = parse_orders(text, pos, **kw)
    assert len(lines) == 1, [(p.line, p.canonical, p.error, p.note) for p in lines]
    return lines[0]


def read(text: str, pos: Position = START, **kw) -> str:
    p = one(text, pos, **kw)
    assert p.order is not None, p.error or p.note
    return p.canonical


# -- a support with three provinces and no dash -----------------------------------------------------
NORTH = board({"England": ["F Lon", "F Nth", "F Edi"], "France": ["F Bre"]})


def test_three_provinces_and_no_dash_is_a_move_support_where_that_is_the_only_legal_reading():
    p = one("f lon s nth eng", NORTH)
    assert p.order == Support("England", "F", "lon", "F", "nth", "eng")
    assert p.warnings == ["read as 'F Lon S F Nth - Eng' (a support of a move: no dash was written)"]
    assert read("F Edi S F Lon Nth", board({"England": ["F Lon", "F Edi"]})) == "F Edi S F Lon - Nth"


def test_three_provinces_that_are_no_legal_support_are_refused_whole():
    # the fleet in the North Sea cannot be supported into Wales from London: no order is stored
    p = one("f lon s nth wal", NORTH)
    assert p.order is None and p.line == "f lon s nth wal"
    assert p.error.startswith("'f lon s nth wal' is not read: 'F Lon S F Nth - Wal' is not a possible support")
    # nothing in the North Sea: neither reading is an order
    p = one("f lon s nth eng")
    assert p.order is None and "is not read" in p.error


def test_three_provinces_with_a_unit_of_ones_own_in_the_third_are_ambiguous():
    pos = board({"England": ["F Lon", "F Nth", "F Eng"]})
    p = one("F Lon S F Nth Eng", pos, power="England")
    assert p.order is None
    assert "could be 'F Lon S F Nth - Eng' or 'F Lon S F Nth' followed by an order for the unit in English " \
           "Channel" in p.error


@pytest.mark.parametrize("text", ["F Lon S F Nth Eng", "F Lon S F Nth - Eng", "F Lon S Nth-Eng"])
def test_the_issue_example_reads_the_same_with_and_without_the_dash(text):
    assert one(text, NORTH).order == Support("England", "F", "lon", "F", "nth", "eng")


# -- read whole or refused whole ----------------------------------------------------------------------
@pytest.mark.parametrize("text", ["A Par - Bur Pic", "A Par - Bur xyzzy", "A Par H please", "F Bre - Mao soon"])
def test_an_order_with_words_after_it_is_refused_whole(text):
    p = one(text)
    assert p.order is None and p.line == text
    assert "the order is not read" in p.error


def test_orders_side_by_side_still_read():
    lines = parse_orders("A Par - Bur A Mar H; F Bre - Mao, Kie-Den. A Mun H", START)
    assert [p.canonical for p in lines] == ["A Par - Bur", "A Mar H", "F Bre - Mao", "F Kie - Den", "A Mun H"]
    assert {p.source for p in lines} == {"A Par - Bur A Mar H; F Bre - Mao, Kie-Den. A Mun H"}


# -- the Electronic Protocol and other notations ----------------------------------------------------
EP = board({"England": ["A Lvp", "A Yor", "F Lon", "F Nth", "F Edi"], "Germany": ["F Kie"]})


@pytest.mark.parametrize("text,want", [
    ("A LVP SA YOR-EDI", "A Lvp S A Yor - Edi"),
    ("A YOR SF LON-LON", "A Yor S F Lon"),
    ("F NTS CA YOR-BEL", "F Nth C A Yor - Bel"),
    ("F NTS SA YOR-YOR", "F Nth S A Yor"),
    ("F KIE-H", "F Kie H"),
    ("A LPL-holds", "A Lvp H"),
    ("A Lvp - hold", "A Lvp H"),
    ("F EDI-NWS", "F Edi - Nwg"),
    ("A Lvp Std.", "A Lvp H"),
    ("A Yor via NTH to Nwy", "A Yor - Nwy via convoy"),
    ("A Yor via Nth - Bel", "A Yor - Bel via convoy"),
    ("E) A LVP - YOR", "A Lvp - Yor"),
    ("England) F Lon - Eng", "F Lon - Eng"),
    ("A LON - BEL VIA", "A Lon - Bel via convoy"),
    ("A Lvp supports A Yor into Edi", "A Lvp S A Yor - Edi"),
    ("my army in Liverpool goes to Wales", "A Lvp - Wal"),
    ("F Nth convoys the army in Yorkshire into Belgium", "F Nth C A Yor - Bel"),
    ("A Lvp stays put", "A Lvp H"),
    ("A Lvp remains", "A Lvp H"),
    ("F Edi stand still", "F Edi H"),
    ("A Lvp >> Wal", "A Lvp - Wal"),
    ("A Lvp - Wal?", "A Lvp - Wal"),
])
def test_notations(text, want):
    assert read(text, EP) == want


def test_ep_support_kind_must_agree_with_the_unit_written():
    p = one("A Lvp SA F Yor-Edi", EP)
    assert p.order is None and p.error == "the order says army and then fleet"
    assert one("A Lvp SF Yor-Edi", EP, check=True).error == "the unit in Yorkshire is an army, not a fleet"


def test_a_sheet_prefix_names_the_power():
    p = one("E) A LVP - YOR", EP)
    assert p.power == "England"
    # a letter that is not the player's power heads a lettered list: read so, and said
    p = one("b) A Lvp - Yor", EP, power="England")
    assert p.canonical == "A Lvp - Yor" and p.warnings == ["'b)' read as a list marker"]
    assert one("G) A Lvp - Yor", EP, power="England").warnings == ["'G)' read as a list marker"]
    assert one("G) F Kie - Hol", EP).power == "Germany"


def test_a_route_first_needs_a_destination():
    p = one("A Yor via Nth", EP)
    assert p.order is None and "by way of" in p.error


RETREATS = board({"England": ["F Nth"], "France": ["F Tys"], "Germany": ["A Ber"], "Russia": ["F Stp/sc"]},
                 phase="Fall 1910 Retreat",
                 dislodged={"England": [{"unit": "A Hol", "from": "Bel"}],
                            "France": [{"unit": "F Nap", "from": "Rom"}],
                            "Germany": [{"unit": "F Bal", "from": "Bot"}],
                            "Russia": [{"unit": "F Lvn", "from": "Bot"}]})


@pytest.mark.parametrize("text,want", [
    ("England disbanded A HOL", Disband("England", "A", "hol")),
    ("France retreated F NAP-TYS", Retreat("France", "F", "nap", "tys")),
    ("Germany retreats F BAL-LIV", Retreat("Germany", "F", "bal", "lvn")),
    ("F(Lvn) retreat: Bot", Retreat("Russia", "F", "lvn", "bot")),
    ("F(Lvn) retreats to Bot", Retreat("Russia", "F", "lvn", "bot")),
])
def test_report_phrasing_pasted_back(text, want):
    assert one(text, RETREATS).order == want


def test_liv_is_livonia_from_the_baltic_and_liverpool_from_wales():
    p = one("Germany retreats F BAL-LIV", RETREATS)
    assert p.warnings == ["read 'LIV' as Livonia"]
    assert read("F Bal - LIV", board({"Germany": ["F Bal"]})) == "F Bal - Lvn"
    assert read("F Wal - LIV", board({"England": ["F Wal"]})) == "F Wal - Lvp"
    assert one("A Yor - LIV", board({"England": ["A Yor"]})).warnings == []
    assert read("Russia: F LIV - Bal", board({"Russia": ["F Lvn"]})) == "F Lvn - Bal"
    # a unit in each: the abbreviation is not guessed
    p = one("LIV H", board({"England": ["A Lvp"], "Russia": ["A Lvn"]}))
    assert p.order is None and p.error == "'LIV' could be Liverpool or Livonia: write the name out"


WINTER = board({"Turkey": ["A Con"], "France": ["F Gol", "A Bur", "F Bre"], "Germany": ["A Mun"],
                "Austria": ["A Vie"]},
               phase="Winter 1910 Adjustment",
               centers={"Turkey": ["Smy", "Con", "Ank"], "France": ["Par"], "Germany": ["Ber", "Kie", "Mun"],
                        "Austria": ["Vie", "Bud", "Tri"]})


@pytest.mark.parametrize("text,want", [
    ("Turkey builds F SMY", [Build("Turkey", "F", "smy")]),
    ("Germany built F BER", [Build("Germany", "F", "ber")]),
    ("France disbands F GOL and A BUR", [Remove("France", "F", "lyo"), Remove("France", "A", "bur")]),
    ("+ A Bud", [Build("Austria", "A", "bud")]),
    ("* F Bre", [Remove("France", "F", "bre")]),
    ("Austria: + A Bud, + F Tri", [Build("Austria", "A", "bud"), Build("Austria", "F", "tri")]),
])
def test_adjustments_as_reports_and_zines_write_them(text, want):
    assert [p.order for p in parse_orders(text, WINTER)] == want


@pytest.mark.parametrize("text,want", [
    ("Austria: Builds an army in Vienna.", ["Build A Vie"]),
    ("Austria: Build waived.", ["Waive"]),
    ("Austria: waive one build", ["Waive"]),
    ("Austria: waive 2", ["Waive", "Waive"]),
    ("Austria: Builds: A Vie, F Tri", ["Build A Vie", "Build F Tri"]),
    ("Removals: A Mun", ["Remove A Mun"]),
    ("Destroy F Bre", ["Remove F Bre"]),
    ("Germany: Removes the army in Munich.", ["Remove A Mun"]),
])
def test_adjustments_as_results_and_sites_print_them(text, want):
    got = parse_orders(text, WINTER)
    assert [p.canonical for p in got] == want, [p.error for p in got]


def test_a_star_before_an_empty_home_is_a_bullet():
    assert read("* A Ber", WINTER) == "Build A Ber"


# -- remarks in brackets --------------------------------------------------------------------------------
@pytest.mark.parametrize("text,want,remark", [
    ("A(Mun) stands (retreat: Ber)", "A Mun H", "(retreat: Ber)"),
    ("War (build) to Sil", "A War - Sil", "(build)"),
    ("A Par - Bur (*bounce*)", "A Par - Bur", "(*bounce*)"),
])
def test_a_remark_in_brackets_inside_an_order_is_left_out_and_said(text, want, remark):
    pos = board({"Germany": ["A Mun", "A War"], "France": ["A Par"]})
    p = one(text, pos)
    assert p.canonical == want
    assert p.warnings == [f"the remark {remark!r} is not an order: it was left out"]


def test_orders_in_brackets_are_still_orders():
    # reports print failed orders in brackets: pasted back, they are orders
    assert read("(A PAR-BUR)") == "A Par - Bur"
    assert read("A(Par) - Bur (via convoy)", board({"France": ["A Par"]})) == "A Par - Bur via convoy"


# -- misspellings ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,want,word,name", [
    ("A Par - burgandy", "A Par - Bur", "burgandy", "Burgundy"),
    ("A Hol - Beglium", "A Hol - Bel", "Beglium", "Belgium"),
    ("A Mun - Rhur", "A Mun - Ruh", "Rhur", "Ruhr"),
    ("A Pie - Marsellies", "A Pie - Mar", "Marsellies", "Marseilles"),
    ("A Mar - Piedmnt", "A Mar - Pie", "Piedmnt", "Piedmont"),
    ("F Lon S F Edi - Norht Sea", "F Lon S F Edi - Nth", "Norht Sea", "North Sea"),
])
def test_a_clear_misspelling_is_read_and_the_reading_said(text, want, word, name):
    pos = board({"France": ["A Par", "A Mar", "A Pie"], "Germany": ["A Mun", "A Hol"], "England": ["F Lon", "F Edi"]})
    p = one(text, pos)
    assert p.canonical == want and p.warnings == [f"read {word!r} as {name}"]


def test_a_misspelling_close_to_two_provinces_is_refused_naming_both():
    p = one("A Bud - Seria", board({"Austria": ["A Bud"]}))
    assert p.order is None
    assert p.error == "unknown province 'Seria': it could be Serbia or Syria"
    assert p.suggestions == ["Serbia", "Syria"]
    assert one("F Eng - Lyond", board({"England": ["F Eng"]})).error == \
        "unknown province 'Lyond': it could be Gulf of Lyon or London"


def test_short_words_and_keywords_are_never_read_as_provinces():
    for text in ("A Par - Bu", "A Par - hold it", "A Par - Lundoon"):
        assert one(text).order is None, text


# -- harmless lines ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["changed my mind, scrap the north sea:", "(I'll explain in press)",
                                  "[no changes from last turn]", "Here are my orders for this turn:"])
def test_harmless_lines_are_notes(text):
    p = one(text, power="England")
    assert p.order is None and not p.error and p.note
    assert p.line == text


def test_a_broken_order_ending_in_a_colon_stays_an_error():
    p = one("A Par - Bru:")
    assert p.error and not p.note


@pytest.mark.parametrize("text", ["all units hold", "All units hold.", "hold all", "Hold all units",
                                  "all my units stand", "England: all units hold"])
def test_all_units_hold(text):
    lines = parse_orders(text, START, power="England")
    assert sorted(p.canonical for p in lines) == ["A Lvp H", "F Edi H", "F Lon H"]
    assert all(p.power == "England" and p.source == text for p in lines)
    assert lines[0].warnings == ["read as a hold for each of England's 3 units"]


def test_all_units_hold_needs_a_power_and_a_movement_phase():
    assert one("all units hold").error == "say whose units hold (e.g. 'England: all units hold')"
    held = [p.order for p in parse_orders("Germany:\nhold all", START) if not p.note]
    assert sorted(o.loc for o in held) == ["ber", "kie", "mun"] and all(isinstance(o, Hold) for o in held)
    assert one("all units hold", WINTER, power="France").error.startswith("'all units hold' is an order for a "
                                                                          "movement phase")
    assert one("Germany: all units hold", power="England").error == \
        "you play England: you cannot give orders for Germany"


def test_notes_in_judge_parse_json():
    p = one("(just thinking aloud)")
    assert p.as_json() == {"line": "(just thinking aloud)", "note": p.note}


def test_convoy_notations_still_need_an_army():
    p = one("F NTS CA F Lon-Bel", EP)
    assert p.order is None and p.error == "the order says army and then fleet"
    assert one("F Nth C A Yor - Bel", EP).order == Convoy("England", "F", "nth", "A", "yor", "bel")
    assert one("A Lvp - Yor", EP).order == Move("England", "A", "lvp", "yor")


@pytest.mark.parametrize("heading", ["== England ==", "ENGLAND ORDERS", "Orders for England:", "England (Bob Smith)",
                                     "England's orders", "*** ENGLAND ***"])
def test_a_power_heading_is_a_note_and_names_the_power_of_the_orders_below(heading):
    lines = parse_orders(f"{heading}\nF Lon - Nth\nA Par - Bur", START)
    assert lines[0].note == "a heading: the orders below are England's" and not lines[0].error
    assert [(p.power, p.canonical) for p in lines[1:]] == [("England", "F Lon - Nth"), ("England", "A Par - Bur")]


def test_a_lettered_list_with_dots():
    p = one("a. A Par - Bur")
    assert p.canonical == "A Par - Bur" and p.warnings == ["'a.' read as a list marker"]
    assert read("A. Par - Bur") == "A Par - Bur"  # "A." is the army here


@pytest.mark.parametrize("text", ["A Mun - Kie, rest hold", "A Mun - Kie\nall other units hold",
                                  "Germany: A Mun - Kie; the rest hold", "A Mun - Kie. Everything else stands."])
def test_the_rest_hold(text):
    lines = parse_orders(text, START, power="Germany" if not text.startswith("Germany") else None)
    assert sorted(p.canonical for p in lines) == ["A Ber H", "A Mun - Kie", "F Kie H"]
    held = [p for p in lines if p.canonical.endswith(" H")]
    assert held[0].warnings == ["read as a hold for each of Germany's units not ordered otherwise: F Kie, A Ber"]


def test_the_rest_hold_with_nothing_left_is_a_note():
    lines = parse_orders("F Lon - Nth\nA Lvp - Yor\nF Edi - Nwg\nrest hold", START, power="England")
    assert lines[-1].note == "all of England's units have orders: none is left to hold"
    assert one("rest hold").error == "say whose units hold (e.g. 'England: rest hold')"


@pytest.mark.parametrize("text", ["Austria: no builds", "Austria: waive all", "Austria: No builds this year.",
                                  "Austria: waive all my builds"])
def test_no_builds_waives_every_build_the_power_may_make(text):
    lines = parse_orders(text, WINTER)  # Austria: three centres free, one unit, so two builds
    assert [p.canonical for p in lines] == ["Waive", "Waive"] and all(p.power == "Austria" for p in lines)
    assert lines[0].warnings == ["read as 2 waives: every build Austria may make"]


def test_no_builds_with_none_due_is_a_note():
    p = one("no builds", WINTER, power="France")
    assert p.order is None and p.note == "France has no builds to make: nothing to waive"
    assert one("no builds", WINTER).error == "say whose builds are waived (e.g. 'England: no builds')"


def test_a_convoy_written_without_a_dash():
    p = one("F NTS CA YOR BEL", EP)
    assert p.canonical == "F Nth C A Yor - Bel"
    assert p.warnings == ["read Belgium as where the convoyed army goes (no dash was written)"]


def test_a_line_that_cannot_be_read_is_one_error_not_one_a_letter():
    got = parse_orders("F St.P. (s.c.) - G.O.B.", board({"Russia": ["F StP/sc"]}))
    assert len(got) <= 2 and all(p.error for p in got)
    lines = parse_orders("A Par - Xyzzy. Mar-Bur. A Mun H", board({"France": ["A Par", "A Mar"], "Germany": ["A Mun"]}))
    assert [(p.canonical, bool(p.error)) for p in lines] == [("", True), ("A Mar - Bur", False), ("A Mun H", False)]


@pytest.mark.parametrize("text,want,word,as_", [
    ("A Lvp suport A Yor - Edi", "A Lvp S A Yor - Edi", "suport", "support"),
    ("F Nth convoi A Yor - Bel", "F Nth C A Yor - Bel", "convoi", "convoy"),
    ("A Lvp hodls", "A Lvp H", "hodls", "holds"),
])
def test_a_misspelt_order_word_is_read_and_said(text, want, word, as_):
    p = one(text, EP)
    assert p.canonical == want and p.warnings == [f"read {word!r} as {as_!r}"]


def test_a_misspelt_place_of_the_ordered_unit_is_read_only_where_a_unit_stands():
    p = one("A Pairs - Bur")
    assert p.canonical == "A Par - Bur" and p.warnings == ["read 'Pairs' as Paris"]
    assert one("A Pairs - Bur", board({"France": ["A Mar"]})).order is None  # nothing in Paris to order


def test_a_unit_the_judge_listed_as_unordered_pasted_back_is_a_note():
    p = one("England: Fleet London, No Order Processed.")
    assert p.order is None and not p.error and p.note.startswith("a unit listed without an order")
