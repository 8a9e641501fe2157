"""The Army/Fleet module beyond the texts' examples: the unit in positions and JSON, order legality,
the game option that switches the module on, cycles, and the adjustment count. Rulings:
docs/rulings.md, "Army/Fleet module"."""

from __future__ import annotations

import pytest
from test_af_helpers import AGAR, BOTH, DAVIS, play, position

from judge.adjudicate import run_phase


# -- the unit and the position JSON ----------------------------------------------------------------------
def test_position_json_round_trip_keeps_the_a_f_and_its_rations():
    pos = position({"England": "A/F Eng, A Lon"}, extra={"af_rations": {"Eng": 2}})
    out = play(pos, "England: A/F Eng - Mao\nEngland: A Lon H")
    assert out.next["units"]["England"] == ["A Lon", "A/F Mao"]
    assert out.extra == {"af_rations": {"Mao": 3}}
    again = play(out.next, "England: A/F Mao H")  # its fourth move at sea
    assert again.units("England") == {"A Lon", "F Mao"}
    assert "af_rations" not in again.extra


def test_the_fleets_order_written_with_F_is_the_a_fs_order():
    out = play(position({"England": "A/F Eng"}), "England: F Eng - Mao")
    assert out.units("England") == {"A/F Mao"}


def test_an_order_for_the_a_f_written_before_boarding():
    """The fleet an army boards this turn may be ordered as the A/F it becomes (the texts' notation)."""
    out = play(position({"England": "A Lon, F Eng"}), "England: A Lon E F Eng\nEngland: A/F Eng H")
    assert out.result("A/F Eng H") == ("succeeds", "")
    assert out.units("England") == {"A/F Eng"}


# -- the option ----------------------------------------------------------------------------------------------
def test_the_game_option_switches_the_module_on_for_the_standard_variant():
    pos = {"variant": "standard", "phase": "Spring 1901 Movement", "units": {"England": ["A Lon", "F Eng", "F Mao"]}}
    orders = "England: A Lon - Por\nEngland: F Eng C A Lon - Por\nEngland: F Mao C A Lon - Por"
    off = run_phase("standard", pos, orders)
    assert "A Por" in off["next"]["units"]["England"]
    on = run_phase("standard", pos, orders, {"modules": "army_fleet"})
    assert "A Lon" in on["next"]["units"]["England"]
    assert [o["result"] for o in on["orders"]][:3] == ["invalid", "invalid", "invalid"]
    pos = {"variant": "standard", "phase": "Spring 1901 Movement", "units": {"England": ["A Lon", "F Eng"]}}
    on = run_phase("standard", pos, "England: A Lon E F Eng\nEngland: A/F Eng - Mao\nEngland: A Mao D Por",
                   {"modules": "army_fleet", "af_rules": "agar"})
    assert set(on["next"]["units"]["England"]) == {"A Por", "F Mao"}


def test_the_variant_runs_a_game_with_the_module():
    out = play(position({"England": "A Lon, F Eng"}, phase="Fall 1901 Movement",
                        centres={"England": "Lon Edi Lvp"}), "England: A Lon E F Eng")
    assert out.phase == "Winter 1901 Adjustment"  # three centres, two units in one A/F: one build
    out = play(out.next, "England: Build A Lon")
    assert out.units("England") == {"A/F Eng", "A Lon"}
    assert out.phase == "Spring 1902 Movement"


def test_an_a_f_counts_as_two_units():
    pos = position({"England": "A/F Nth, F Lon"}, phase="Fall 1901 Movement", centres={"England": "Lon Edi Lvp"})
    out = play(pos, "")
    assert out.phase == "Spring 1902 Movement"  # three centres, three units: no adjustment


# -- legality ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("orders,which,why", [
    ("England: A Yor E F Nth\nEngland: A Edi E F Nth", "A Yor E F Nth", "two armies"),
    ("England: A Yor E F Nth\nEngland: F Nth - Lon", "A Yor E F Nth", "A/F"),
    ("England: A Yor E F Nth\nEngland: F Nth C A Edi - Nwy", "A Yor E F Nth", "convoy"),
    ("England: A Lvp E F Nth", "A Lvp E F Nth", "not on a coast next to"),
    ("England: A Yor D Hol", None, None),
    ("England: A Nth D Hol", "A Nth D Hol", "no army of England"),
    ("England: F Nth S A Nth D Hol", "F Nth S A Nth - Hol", "itself"),
])
def test_illegal_orders(orders, which, why):
    pos = position({"England": "A Yor, A Edi, A Lvp, F Nth"})
    out = play(pos, orders)
    if which is None:
        assert all(o["result"] == "invalid" for o in out.out["orders"] if not o.get("default"))
        return
    result, reason = out.result(which)
    assert result == "invalid"
    if why:
        assert why in reason


def test_a_landing_only_next_to_the_sea_space():
    out = play(position({"England": "A/F Nth"}), "England: A Nth D Wal")
    assert out.result("A Nth D Wal")[0] == "invalid"
    assert out.units("England") == {"A/F Nth"}


def test_a_disembarking_army_written_as_a_move():
    out = play(position({"England": "A/F Nth"}), "England: A Nth - Yor")
    assert out.result("A Nth D Yor") == ("succeeds", "")
    assert out.units("England") == {"A Yor", "F Nth"}


def test_an_a_f_order_keeps_the_coast_it_names():
    """Regression: "A/F Mao - Spa/sc" lost its coast in the order language (an A/F was read as an
    army there), so the fleet of an A/F could not be sent to one coast of Spain while its army
    lands, nor an A/F retreat to one coast of Spain."""
    out = play(position({"France": "A/F Mao"}), "France: A/F Mao - Spa/sc\nFrance: A Mao D Por")
    assert out.result("A/F Mao - Spa/sc") == ("succeeds", "")
    assert out.units("France") == {"A Por", "F Spa/sc"}
    pos = position({"England": "F Mao, F Wes, F Gas, F Por, F Naf, F Iri, F Eng, F Bre"}, phase="Spring 1901 Retreat",
                   dislodged={"France": [{"unit": "A/F Mao", "from": "Nao"}]})
    out = play(pos, "France: A/F Mao - Spa/sc")
    assert out.result("A/F Mao - Spa/sc")[0] == "succeeds"
    assert out.units("France") == {"F Spa/sc"}


def test_a_landing_written_before_the_move_of_its_a_f():
    """Regression: a landing from the sea an A/F moves to, written without a power before the A/F's
    move, could not be read ("say which power gives this order"); the order of the lines mattered."""
    for orders in ("A Nth D Lon\nA/F Nwg - Nth", "A/F Nwg - Nth\nA Nth D Lon"):
        out = play(position({"England": "A/F Nwg"}), orders)
        assert out.result("A Nth D Lon") == ("succeeds", "")
        assert out.units("England") == {"A Lon", "F Nth"}


def test_an_a_f_that_stays_for_its_army_and_is_dislodged_says_so():
    """Regression: the fleet's move that does not take place because its army's landing failed
    (Agar 5) was reported without "dislodged" when the A/F was then dislodged."""
    pos = position({"England": "A/F Eng", "France": "A Bre", "Germany": "F Nth, F Bel"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Mao\nFrance: A Bre H\nGermany: F Nth - Eng\n"
                    "Germany: F Bel S F Nth - Eng", AGAR)
    assert out.result("F Eng - Mao") == ("fails", "the army's landing failed: the fleet stays to take it back "
                                                    "aboard, dislodged")
    assert set(out.dislodged()) == {"A/F Eng"}


def test_support_to_hold_an_army_that_boards_is_void():
    pos = position({"England": "A Lon, F Eng, A Wal"})
    out = play(pos, "England: A Lon E F Eng\nEngland: A Wal S A Lon")
    assert out.result("A Wal S A Lon")[0] == "fails"
    assert out.units("England") == {"A/F Eng", "A Wal"}


def test_a_supported_landing_from_another_power():
    pos = position({"England": "A/F Eng", "France": "F Pic", "Germany": "A Bel"})
    out = play(pos, "England: A Eng D Bel\nFrance: F Pic S A Eng D Bel")
    assert out.units() == {"England": {"A Bel", "F Eng"}, "France": {"F Pic"}}
    assert set(out.dislodged()) == {"A Bel"}


@pytest.mark.parametrize("rules", BOTH)
def test_a_landing_and_a_move_of_equal_strength_stand_each_other_off(rules):
    """A landing is a move of one unit: against a French army moving to Brest both bounce, the army
    stays aboard and Brest is left contested; with its fleet's support the landing gets in."""
    pos = position({"England": "A/F Eng", "France": "A Par"})
    out = play(pos, "England: A Eng D Bre\nFrance: A Par - Bre", rules)
    assert out.result("A Eng D Bre") == ("fails", "bounced")
    assert out.result("A Par - Bre") == ("fails", "bounced")
    assert out.units() == {"England": {"A/F Eng"}, "France": {"A Par"}}
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng S A Eng D Bre\nFrance: A Par - Bre", rules)
    assert out.units() == {"England": {"A Bre", "F Eng"}, "France": {"A Par"}}


def test_a_landing_cuts_support():
    """A landing is an attack: it cuts a support in the province it lands in — unless (Davis) the
    A/F's space is taken and the landing is disrupted."""
    pos = position({"England": "A/F Eng, A Bur, A Gas", "France": "A Par, A Pic, F Bre, F Mao"})
    orders = ("England: A Eng D Pic\nEngland: A Bur - Par\nEngland: A Gas S A Bur - Par\n"
              "France: A Pic S A Par\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    out = play(pos, orders, DAVIS)
    assert out.result("A Pic S A Par") == ("succeeds", "")
    assert out.result("A Bur - Par") == ("fails", "bounced")
    out = play(pos, orders, AGAR)
    assert out.result("A Pic S A Par") == ("fails", "cut")
    assert out.result("A Bur - Par") == ("succeeds", "")
    assert out.result("A Eng D Pic") == ("fails", "bounced")


# -- cycles ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", BOTH)
def test_circular_movement_through_a_landing(rules):
    """A rotation of fleets with the A/F's fleet in it, its army landing: everyone moves."""
    pos = position({"England": "A/F Eng", "France": "F Mao", "Germany": "F Iri"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng - Mao\nFrance: F Mao - Iri\nGermany: F Iri - Eng", rules)
    assert out.units() == {"England": {"A Wal", "F Mao"}, "France": {"F Iri"}, "Germany": {"F Eng"}}


@pytest.mark.parametrize("rules", BOTH)
def test_a_cycle_with_one_consistent_outcome_is_no_paradox_in_any_order(rules):
    """Regression: Turkey boards F Bla, lands in Rumania and moves the fleet on to Constantinople
    while Russia's F Rum moves into the Black Sea. Only one outcome agrees with itself (all four
    orders succeed), but when the boarding was written (or its army listed) first the resolver met
    the cycle at the boarding, found that neither of its guesses agreed with itself and called it a
    paradox (Davis: all units stand)."""
    lines = ["Turkey: A Sev E F Bla", "Turkey: F Bla - Con", "Turkey: A Bla D Rum", "Russia: F Rum - Bla"]
    for orders in (lines, lines[::-1]):
        for army_first in (True, False):
            pos = position({"Turkey": "A Sev, F Bla" if army_first else "F Bla, A Sev", "Russia": "F Rum"})
            out = play(pos, "\n".join(orders), rules)
            assert out.units() == {"Turkey": {"A Rum", "F Con"}, "Russia": {"F Bla"}}, (orders, army_first)


@pytest.mark.parametrize("rules", BOTH)
def test_a_rotation_carrying_a_boarding_army_does_not_depend_on_the_order_of_the_orders(rules):
    """Regression: F Nth, F Eng and F Bel rotate while A Nwy boards F Nth and lands in Holland. The
    cycle has two consistent outcomes (all move, or none); which rule took it (circular movement,
    or Davis III h: all stand) depended on which decision the resolver met first. Now the whole
    cycle is judged: Davis, a cycle with a boarding and a landing: all stand; Agar (the boarding
    comes first): circular movement, everyone moves."""
    lines = ["Russia: A Nth D Hol", "Russia: A Nwy E F Nth", "Russia: F Nth - Eng", "England: F Eng - Bel",
             "France: F Bel - Nth"]
    want = ({"Russia": {"A Hol", "F Eng"}, "England": {"F Bel"}, "France": {"F Nth"}} if rules == AGAR else
            {"Russia": {"A Nwy", "F Nth"}, "England": {"F Eng"}, "France": {"F Bel"}})
    for orders in (lines, lines[1:] + lines[:1], lines[::-1]):
        for units in ("F Nth, A Nwy", "A Nwy, F Nth"):
            out = play(position({"Russia": units, "England": "F Eng", "France": "F Bel"}), "\n".join(orders), rules)
            assert out.units() == want, (orders, units)


def test_a_swap_through_a_landing_is_circular_movement_in_any_order():
    """Regression: Italy's army lands in Tunis from the Western Mediterranean while F Tun moves
    there and Italy's fleet goes on to the Tyrrhenian Sea, which Turkey's fleet also wants but
    keeps out of to take back its army bouncing in Marseilles (whose support the landing cuts).
    Two consistent outcomes, all move or none: circular movement, everyone moves. Which of them was
    taken depended on which decision of the cycle the resolver met first."""
    lines = ["Italy: A Wes D Tun", "Italy: F Wes - Tys", "Turkey: A Lyo D Mar", "Turkey: F Lyo - Tys",
             "Austria: F Tun - Wes", "Austria: A Mar S A Pie"]
    for orders in (lines, [lines[i] for i in (0, 2, 5, 1, 3, 4)]):
        pos = position({"Italy": "A/F Wes", "Turkey": "A/F Lyo", "Austria": "F Tun, A Mar", "England": "A Pie"})
        out = play(pos, "\n".join(orders))
        assert out.units() == {"Italy": {"A Tun", "F Tys"}, "Turkey": {"A/F Lyo"}, "Austria": {"F Wes", "A Mar"},
                               "England": {"A Pie"}}, orders


@pytest.mark.parametrize("rules", BOTH)
def test_the_army_of_a_failed_fast_ferry_stays_aboard_the_same_fleet_in_any_order(rules):
    """Regression: with two fleets of its power ferrying it, the army that cannot land stayed
    aboard the fleet whose order came first; now the one whose space comes first by name."""
    pos = position({"England": "A Lon, F Nth, F Eng", "France": "A Bel"})
    for ferries in (["England: F Eng FF A Lon - Bel", "England: F Nth FF A Lon - Bel"],
                    ["England: F Nth FF A Lon - Bel", "England: F Eng FF A Lon - Bel"]):
        out = play(pos, "\n".join(["England: A Lon - Bel", *ferries]), rules)
        assert out.units("England") == {"A/F Eng", "F Nth"}


@pytest.mark.parametrize("rules", BOTH)
def test_circular_movement_of_an_a_f(rules):
    pos = position({"England": "A/F Eng", "France": "F Mao", "Germany": "F Iri"})
    out = play(pos, "England: A/F Eng - Mao\nFrance: F Mao - Iri\nGermany: F Iri - Eng\nEngland: A Mao D Por", rules)
    assert out.units() == {"England": {"A Por", "F Mao"}, "France": {"F Iri"}, "Germany": {"F Eng"}}


# -- adjustments and retreats ----------------------------------------------------------------------------------
def test_a_retreating_a_f_that_starves_retreats_as_a_fleet():
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"}, extra={"af_rations": {"Eng": 3}})
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    assert out.dislodged() == {"F Eng": ["Bel", "Iri", "Lon", "Nth", "Pic", "Wal"]}
    assert any("starves" in e for e in out.events)


def test_removing_the_army_then_the_fleet():
    pos = position({"England": "A/F Nth, F Edi"}, phase="Winter 1901 Adjustment", centres={"England": "Edi"})
    out = play(pos, "England: Remove A Nth\nEngland: Remove F Nth")
    assert out.units("England") == {"F Edi"}


def test_civil_disorder_takes_the_whole_a_f_when_the_army_is_not_enough():
    pos = position({"England": "A/F Nth", "France": "F Bre"}, phase="Winter 1901 Adjustment",
                   centres={"France": "Bre"})
    out = play(pos, "")
    assert out.units("England") == set()
    assert out.result("Remove A/F Nth") == ("succeeds", "civil disorder")


def test_civil_disorder_with_two_removals_due():
    pos = position({"England": "A/F Nth, A Yor"}, phase="Winter 1901 Adjustment", centres={"England": "Edi"})
    out = play(pos, "")
    assert out.units("England") == {"F Nth"}


@pytest.mark.parametrize("rules", BOTH)
def test_the_module_leaves_other_phases_alone(rules):
    pos = position({"England": "F Nth, F Edi"}, phase="Winter 1901 Adjustment", centres={"England": "Edi"})
    out = play(pos, "England: Remove F Nth", rules)
    assert out.units("England") == {"F Edi"}
    pos = position({"England": "A Wal", "France": "A Lon, A Lvp"})
    out = play(pos, "France: A Lon - Wal\nFrance: A Lvp S A Lon - Wal", rules)
    out = play(out.next, "England: A Wal - Yor", rules)
    assert out.units("England") == {"A Yor"}


def test_davis_is_the_default_rule_set():
    pos = position({"England": "A Lon, F Eng", "France": "F Bre"})
    out = run_phase("af_standard", pos, "England: A Lon E F Eng\nFrance: F Bre - Eng")  # no af_rules option
    assert set(out["next"]["units"]["England"]) == {"A Lon", "F Eng"}  # Davis III c: the army does not board
