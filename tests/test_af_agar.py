"""Stephen Agar's Universal Army/Fleet Rules Module (../shared/seeds/000_117db4092489bbff.txt), rule
by rule: every example of the text, with the outcome it states (or, where it states none, the
ruling in docs/rulings.md, "Army/Fleet module"). Rule set ``af_rules = "agar"``; where the two
rule sets agree, both are run."""

from __future__ import annotations

import pytest
from test_af_helpers import AGAR, BOTH, DAVIS, play, position


# -- 1) Move Sequence; 3) Embarkation --------------------------------------------------------------------
def test_1_embarkation_is_adjudicated_before_movement_and_cannot_fail():
    """"Embarkations are adjudicated prior to simultaneous movement." (1); "a legal embarkation move
    can never fail" (3): the fleet is attacked and holds, the army boards all the same."""
    pos = position({"England": "A Lon, F Eng", "France": "F Bre"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng H\nFrance: F Bre - Eng", AGAR)
    assert out.result("A Lon E F Eng") == ("succeeds", "")
    assert out.units("England") == {"A/F Eng"}
    assert out.result("F Bre - Eng")[0] == "fails"


def test_1_the_army_leaves_its_province_before_the_moves():
    """Embarkation before movement: the province the army left is empty for the moves."""
    pos = position({"England": "A Lon, F Eng", "Germany": "F Nth"})
    out = play(pos, "England: A Lon E F Eng\nGermany: F Nth - Lon", AGAR)
    assert out.units("Germany") == {"F Lon"}
    assert out.units("England") == {"A/F Eng"}


def test_3_an_army_that_cannot_disembark_stays_aboard():
    """"If an army has embarked on a fleet and cannot disembark for whatever reason, it will remain on
    board as an A/F.\""""
    pos = position({"England": "A Lon, F Eng", "France": "A Bre"})
    for rules in BOTH:
        out = play(pos, "England: A Lon E F Eng\nEngland: A Eng D Bre", rules)
        assert out.result("A Eng D Bre") == ("fails", "bounced")
        assert out.units("England") == {"A/F Eng"}, rules


# -- 2) Fast Ferry --------------------------------------------------------------------------------------
def test_2_a_convoy_crosses_one_sea_space_only():
    """"A convoy ... is limited to the crossing of a single sea space via a single fleet.\""""
    pos = position({"England": "A Lon, F Eng, F Mao"})
    out = play(pos, "England: A Lon - Por\nEngland: F Eng C A Lon - Por\nEngland: F Mao C A Lon - Por", AGAR)
    assert out.result("A Lon - Por")[0] == "invalid"
    assert out.result("F Eng FF A Lon - Por")[0] == "invalid"
    assert out.units("England") == {"A Lon", "F Eng", "F Mao"}


def test_2_fast_ferry_over_one_sea_space():
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: A Lon - Bre\nEngland: F Eng FF A Lon - Bre", AGAR)
    assert out.result("A Lon - Bre") == ("succeeds", "")
    assert out.units("England") == {"A Bre", "F Eng"}


def test_2_a_failed_fast_ferry_forms_an_a_f():
    """"If a fleet attempts to FF. an army, but is unable to disembark the army, then the army
    remains on board the fleet, and an A/F is formed.\""""
    pos = position({"England": "A Lon, F Eng", "France": "A Bre"})
    out = play(pos, "England: A Lon - Bre\nEngland: F Eng FF A Lon - Bre", AGAR)
    assert out.result("A Lon - Bre")[0] == "fails"
    assert "stays aboard" in out.result("A Lon - Bre")[1]
    assert out.units("England") == {"A/F Eng"}
    assert out.units("France") == {"A Bre"}


# -- 4) A/F Operations ------------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", BOTH)
def test_4_example_embark_move_and_disembark(rules):
    """"For example, A(Lon) Embark F(ENG) ; A/F(ENG)-MAO, A(MAO) Disembark Por." (ruling: the army
    lands in Portugal, the fleet ends in the Mid-Atlantic)."""
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: A(Lon) Embark F(ENG)\nEngland: A/F(ENG)-MAO\nEngland: A(MAO) Disembark Por", rules)
    assert out.result("A Lon E F Eng") == ("succeeds", "")
    assert out.result("A/F Eng - Mao") == ("succeeds", "")
    assert out.result("A Mao D Por") == ("succeeds", "")
    assert out.units("England") == {"A Por", "F Mao"}


def test_4_a_convoy_of_more_than_one_sea_space_needs_an_a_f():
    """"A convoy of more than one sea space can only be undertaken by the formation of a A/F": the
    same journey London - Portugal as above, by an A/F over two turns."""
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng - Mao", AGAR)
    assert out.units("England") == {"A/F Mao"}
    out = play(out.next, "England: A Mao D Por\nEngland: F Mao - Nao", AGAR)
    assert out.units("England") == {"A Por", "F Nao"}


def test_4_an_a_f_has_the_combat_value_of_one_unit():
    """"An A/F has the same combat value as a single unit, and may attack, support and be supported".
    """
    pos = position({"England": "A/F Eng, F Iri", "France": "F Mao, F Bre"})
    out = play(pos, "England: A/F Eng - Mao\nFrance: F Mao H", AGAR)
    assert out.result("A/F Eng - Mao") == ("fails", "bounced")  # one against one
    out = play(pos, "England: A/F Eng - Mao\nEngland: F Iri S A/F Eng - Mao", AGAR)
    assert out.units("England") == {"A/F Mao", "F Iri"}
    assert "F Mao" in out.dislodged()
    out = play(pos, "England: F Iri - Mao\nEngland: A/F Eng S F Iri - Mao", AGAR)
    assert out.units("England") == {"A/F Eng", "F Mao"}
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng\nEngland: F Iri S A/F Eng", AGAR)
    assert out.units("England") == {"A/F Eng", "F Iri"}  # supported to hold


def test_4_an_a_f_may_not_run_a_fast_ferry():
    pos = position({"England": "A/F Eng, A Lon"})
    out = play(pos, "England: A Lon - Bre\nEngland: A/F Eng C A Lon - Bre", AGAR)
    assert out.result("A/F Eng FF A Lon - Bre")[0] == "invalid"
    assert out.result("A Lon - Bre")[0] == "invalid"  # no fleet can carry it
    assert out.units("England") == {"A/F Eng", "A Lon"}


def test_4_an_a_f_supports_into_a_coastal_province_but_never_enters_one():
    """"An A/F may support operations in a coastal province, although it itself may never enter a
    coastal province.\""""
    pos = position({"England": "A/F Eng, A Wal", "France": "A Lon"})
    out = play(pos, "England: A Wal - Lon\nEngland: A/F Eng S A Wal - Lon", AGAR)
    assert out.units("England") == {"A/F Eng", "A Lon"}
    out = play(position({"England": "A/F Eng"}), "England: A/F Eng - Bre", AGAR)
    assert out.result("A/F Eng - Bre")[0] == "invalid"
    assert out.units("England") == {"A/F Eng"}


# -- 5) Disembarkations -----------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", BOTH)
def test_5_example_disembark_while_the_fleet_moves_elsewhere(rules):
    """"Thus an army may disembark at the same time as the fleet is moving elsewhere or supporting
    another action. E.g. A(ION) D Tun ; F(ION)-EMS." (ruling: army in Tunis, fleet in the Eastern
    Mediterranean)."""
    pos = position({"Italy": "A/F Ion"})
    out = play(pos, "Italy: A(ION) D Tun\nItaly: F(ION)-EMS", rules)
    assert out.result("A Ion D Tun") == ("succeeds", "")
    assert out.result("F Ion - Eas") == ("succeeds", "")
    assert out.units("Italy") == {"A Tun", "F Eas"}


def test_5_disembark_while_the_fleet_supports_another_action():
    pos = position({"Italy": "A/F Ion, F Adr", "Austria": "A Apu"})
    out = play(pos, "Italy: A Ion D Tun\nItaly: F Adr - Apu\nItaly: F Ion S F Adr - Apu", AGAR)
    assert out.units("Italy") == {"A Tun", "F Ion", "F Apu"}
    assert "A Apu" in out.dislodged()


@pytest.mark.parametrize("rules", BOTH)
def test_5_a_failed_disembarkation_keeps_the_a_f_and_the_fleet_in_place(rules):
    """"However, if disembarkation fails, then the A/F remains intact, and any fleet movement will
    also fail.\""""
    pos = position({"Italy": "A/F Ion", "France": "A Tun"})
    out = play(pos, "Italy: A Ion D Tun\nItaly: F Ion - Eas", rules)
    assert out.result("A Ion D Tun") == ("fails", "bounced")
    assert out.result("F Ion - Eas")[0] == "fails"
    assert "landing failed" in out.result("F Ion - Eas")[1]
    assert out.units("Italy") == {"A/F Ion"}


@pytest.mark.parametrize("rules", BOTH)
def test_5_example_the_fleet_supports_its_own_landing(rules):
    """"E.g. A(BLA) D Sev ; F(BLA) S A(BLA) D Sev, which would displace an unsupported F(Sev).\""""
    pos = position({"Turkey": "A/F Bla", "Russia": "F Sev"})
    out = play(pos, "Turkey: A(BLA) D Sev\nTurkey: F(BLA) S A(BLA) D Sev", rules)
    assert out.result("A Bla D Sev") == ("succeeds", "")
    assert out.result("F Bla S A Bla D Sev") == ("succeeds", "")
    assert out.units("Turkey") == {"A Sev", "F Bla"}
    assert set(out.dislodged()) == {"F Sev"}


def test_5_the_disembarkation_is_independent_of_the_fleet():
    """"If an A/F attempting to disembark an army attempts to move or is dislodged then the
    disembarkation will be unaffected, as it is considered independently of the fleet.\""""
    pos = position({"Turkey": "A/F Bla", "Russia": "F Rum, F Arm"})
    out = play(pos, "Turkey: A Bla D Ank\nTurkey: F Bla H\nRussia: F Rum - Bla\nRussia: F Arm S F Rum - Bla", AGAR)
    assert out.result("A Bla D Ank") == ("succeeds", "")
    assert out.units("Turkey") == {"A Ank"}
    assert set(out.dislodged()) == {"F Bla"}  # the fleet alone: its army is ashore


def test_5_a_fleet_kept_back_by_its_failed_landing_may_retreat_where_it_was_ordered():
    """"if disembarkation fails, then the A/F remains intact, and any fleet movement will also fail":
    the fleet's move never took place, so the North Sea saw no standoff and is open for the retreat
    of the A/F, dislodged in the Channel (the landing, independent of the fleet, just bounced)."""
    pos = position({"England": "A/F Eng", "France": "A Par, F Mao, F Iri"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Nth\nFrance: A Par - Bre\n"
                    "France: F Mao - Eng\nFrance: F Iri S F Mao - Eng", AGAR)
    assert out.result("A Eng D Bre") == ("fails", "bounced")
    assert "landing failed" in out.result("F Eng - Nth")[1]
    assert out.dislodged() == {"A/F Eng": ["Bel", "Lon", "Nth", "Pic", "Wal"]}


def test_5_exception_example():
    """"E.g. ENGLAND : A/F(NTH)-ENG ; A(ENG) D Bre ; F(MAO) S A(ENG) D Bre. FRANCE : F(ENG)-Bre.
    The result will be that the French move to Brest succeeds, and that the English disembarkation
    fails, as otherwise there would be a paradox.\""""
    pos = position({"England": "A/F Nth, F Mao", "France": "F Eng"})
    orders = ("England: A/F(NTH)-ENG\nEngland: A(ENG) D Bre\nEngland: F(MAO) S A(ENG) D Bre\n"
              "France: F(ENG)-Bre")
    out = play(pos, orders, AGAR)
    assert out.result("F Eng - Bre") == ("succeeds", "")
    assert out.result("A Eng D Bre")[0] == "fails"
    assert "exception" in out.result("A Eng D Bre")[1]
    assert out.result("A/F Nth - Eng") == ("succeeds", "")
    assert out.units() == {"England": {"A/F Eng", "F Mao"}, "France": {"F Bre"}}


def test_5_exception_without_the_support():
    """The same with the landing unsupported: equal strength from the same sea space; the
    landing would decide whether its A/F reaches the Channel, so it fails."""
    pos = position({"England": "A/F Nth", "France": "F Eng"})
    out = play(pos, "England: A/F Nth - Eng\nEngland: A Eng D Bre\nFrance: F Eng - Bre", AGAR)
    assert out.units() == {"England": {"A/F Eng"}, "France": {"F Bre"}}


def test_5_a_landing_after_a_move_with_no_effect_on_the_move_takes_place():
    """The exception is only for a landing that would affect its A/F's move."""
    pos = position({"England": "A/F Nth", "France": "F Eng"})
    out = play(pos, "England: A/F Nth - Eng\nEngland: A Eng D Wal\nFrance: F Eng - Bre", AGAR)
    assert out.units() == {"England": {"A Wal", "F Eng"}, "France": {"F Bre"}}


def test_5_a_landing_that_would_help_its_own_a_f_in_fails():
    """The exception again, the landing's effect being the cut of a support that holds its A/F
    out: with the landing the A/F gets in, without it not; the landing fails, the A/F stays out."""
    pos = position({"England": "A/F Nth, F Lon", "France": "F Eng, F Bre"})
    orders = ("England: A/F Nth - Eng\nEngland: F Lon S A/F Nth - Eng\nEngland: A Eng D Bre\n"
              "France: F Bre S F Eng")
    out = play(pos, orders, AGAR)
    assert out.result("A Eng D Bre")[0] == "fails"
    assert out.units() == {"England": {"A/F Nth", "F Lon"}, "France": {"F Eng", "F Bre"}}


# -- 6) Retreats --------------------------------------------------------------------------------------------
def test_6_an_a_f_retreating_to_a_coastal_space_becomes_a_fleet():
    """"If an A/F is forced to retreat into any coastal space, it reverts to a fleet, and the army is
    disbanded.\""""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    out = play(pos, "England: A/F Eng H\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng", AGAR)
    assert "Wal" in out.dislodged()["A/F Eng"] and "Iri" in out.dislodged()["A/F Eng"]
    out = play(out.next, "England: A/F Eng - Wal", AGAR)
    assert out.result("A/F Eng - Wal")[0] == "succeeds"
    assert "army is disbanded" in out.result("A/F Eng - Wal")[1]
    assert out.units("England") == {"F Wal"}


def test_6_an_a_f_with_only_coasts_open_becomes_a_fleet():
    """The same with no sea space open (as Davis IV a: "only the Fleet will survive")."""
    pos = position({"Turkey": "A/F Bla", "Russia": "F Sev, F Rum"})
    out = play(pos, "Russia: F Sev - Bla\nRussia: F Rum S F Sev - Bla", AGAR)
    assert out.dislodged() == {"A/F Bla": ["Ank", "Arm", "Bul/ec", "Con"]}
    out = play(out.next, "Turkey: A/F Bla - Arm", AGAR)
    assert out.units("Turkey") == {"F Arm"}


def test_6_an_a_f_retreating_to_sea_stays_an_a_f():
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng", AGAR)
    out = play(out.next, "England: F Eng - Iri", AGAR)  # "F" names the A/F too
    assert out.units("England") == {"A/F Iri"}


def test_6_an_army_retreats_onto_its_fleet():
    """"An army on land can retreat to an adjacent fleet in a sea space and create an A/F.\""""
    pos = position({"England": "A Wal, F Iri", "France": "A Lon, A Lvp"})
    out = play(pos, "France: A Lon - Wal\nFrance: A Lvp S A Lon - Wal\nEngland: F Iri H", AGAR)
    assert "Iri" in out.dislodged()["A Wal"]
    out = play(out.next, "England: A Wal - Iri", AGAR)
    assert out.result("A Wal - Iri")[0] == "succeeds"
    assert out.units("England") == {"A/F Iri"}


def test_6_a_retreat_position_without_retreats_offers_the_army_its_fleet():
    """"An army on land can retreat to an adjacent fleet in a sea space and create an A/F." (issue 14):
    a retreat position given without ``retreats`` offers the same retreat as the movement phase."""
    pos = position({"England": "F Iri", "France": "A Wal, A Lvp"}, phase="Spring 1901 Retreat",
                   dislodged={"England": [{"unit": "A Wal", "from": "Lon"}]})
    out = play(pos, "England: A Wal - Iri", AGAR)
    assert out.result("A Wal - Iri")[0] == "succeeds"
    assert out.units("England") == {"A/F Iri"}
    out = play(pos, "England: A Wal - Iri", DAVIS)  # no such retreat under Davis
    assert out.result("A Wal - Iri")[0] == "invalid"


def test_6_not_onto_an_a_f_nor_a_foreign_fleet():
    pos = position({"England": "A Wal, A/F Iri", "Germany": "F Eng", "France": "A Lon, A Lvp"})
    out = play(pos, "France: A Lon - Wal\nFrance: A Lvp S A Lon - Wal", AGAR)
    assert out.dislodged()["A Wal"] == ["Yor"]  # not Iri (an A/F), not Eng (Germany's)


# -- 7) Circular Reasoning ------------------------------------------------------------------------------------
def test_7_all_units_involved_stand():
    """"In the event that any movement cannot be adjudicated due to circular reasoning, then all
    units involved will stand in place." A Fast Ferry paradox (DATC 6.F.14's shape): nothing moves,
    where Davis's module (the rulebook convoy) follows the paradox rule of the game (Szykman)."""
    pos = position({"England": "F Lon, F Wal", "France": "A Bre, F Eng"})
    orders = ("England: F Lon S F Wal - Eng\nEngland: F Wal - Eng\nFrance: A Bre - Lon\n"
              "France: F Eng C A Bre - Lon")
    out = play(pos, orders, AGAR)
    assert out.units() == {"England": {"F Lon", "F Wal"}, "France": {"A Bre", "F Eng"}}
    assert out.result("F Wal - Eng") == ("fails", "paradox: all units involved stand")
    assert out.result("F Lon S F Wal - Eng") == ("fails", "paradox: all units involved stand")
    out = play(pos, orders, DAVIS)
    assert out.units("England") == {"F Lon", "F Eng"}
    assert set(out.dislodged()) == {"F Eng"}
