"""Deluge II, "Additional Rule Revisions" 2 and 3 a-m, and the five order examples at the end
(../shared/seeds/004_5240fdd735c3ce1b.txt). Deluge II "follows Davis" (rule 7: "All Abstraction
A/F convoy rules apply"), so the rule set is ``davis1984``, on the standard board (the texts'
examples use standard provinces). The text states no outcome for the five examples: the rulings
are in docs/rulings.md, "Army/Fleet module"."""

from __future__ import annotations

import pytest
from test_af_helpers import AGAR, BOTH, DAVIS, play, position


# -- 2. Convoy (Fast Ferry) -------------------------------------------------------------------------------
def test_2_a_failed_convoy_creates_an_a_f():
    """"A fleet that carries an army over one sea space is convoying or fast ferrying. That is classified
    as it's move. If a CONVOY fails, then an A/F is created.\""""
    pos = position({"England": "A Lon, F Eng", "France": "A Bre"})
    out = play(pos, "England: A Lon - Bre\nEngland: F(ENG) convoys A(Lon) - Bre")
    assert out.units("England") == {"A/F Eng"}


# -- 3. Army-Fleet Rules ---------------------------------------------------------------------------------------
def test_3a_a_multi_country_a_f_sends_the_army_home():
    """"a) An A/F may only consist of two units belonging to the same country. IF a resulting move would
    see a creation of a multi-country A/F then the Army is returned to space it embarked from.\""""
    pos = position({"England": "A Lon", "France": "F Eng, A Bre"})
    out = play(pos, "England: A Lon - Bre\nFrance: F Eng C A Lon - Bre")
    assert out.units() == {"England": {"A Lon"}, "France": {"F Eng", "A Bre"}}


def test_3b_an_a_f_has_the_combat_factor_of_a_single_fleet():
    """"b) An A/F has the same "combat factor" as a single fleet; it may attack, support or be
    supported.\""""
    pos = position({"England": "A/F Nth, F Hel", "Germany": "F Den"})
    out = play(pos, "England: A/F Nth - Den\nEngland: F Hel S A/F Nth - Den")
    assert out.result("A/F Nth - Den")[0] == "invalid"  # Denmark is a coastal province
    out = play(pos, "England: F Hel - Den\nEngland: A/F Nth S F Hel - Den")
    assert out.units("England") == {"A/F Nth", "F Den"}
    pos = position({"England": "A/F Nth, F Edi", "Germany": "F Hel, F Den"})
    out = play(pos, "Germany: F Hel - Nth\nGermany: F Den S F Hel - Nth\nEngland: F Edi S A/F Nth")
    assert out.units("England") == {"A/F Nth", "F Edi"}


def test_3c_an_a_f_cannot_convoy():
    """"c) An A/F cannot convoy another army.\""""
    pos = position({"England": "A/F Nth, A Yor"})
    out = play(pos, "England: A Yor - Nwy\nEngland: A/F Nth C A Yor - Nwy")
    assert out.result("A/F Nth FF A Yor - Nwy")[0] == "invalid"
    assert out.units("England") == {"A/F Nth", "A Yor"}


def test_3d_an_army_cannot_board_an_a_f():
    """"d) An Army cannot board an A/F.\""""
    pos = position({"England": "A/F Nth, A Yor"})
    out = play(pos, "England: A Yor E F Nth")
    assert out.result("A Yor E F Nth")[0] == "invalid"
    assert "cannot board an A/F" in out.result("A Yor E F Nth")[1]


def test_3e_an_a_f_only_in_a_sea_space_supports_into_the_coast():
    """"e) An A/F can only exist in a sea space - it cannot be ordered to a coastal province as an entity -
    but it may support some other unit into a coastal province.\""""
    pos = position({"England": "A/F Nth, A Yor", "Germany": "A Hol"})
    out = play(pos, "England: A/F Nth - Hol")
    assert out.result("A/F Nth - Hol")[0] == "invalid"
    out = play(position({"England": "A/F Nth, F Eng", "Germany": "F Bel"}),
               "England: F Eng - Bel\nEngland: A/F Nth S F Eng - Bel")
    assert out.units("England") == {"A/F Nth", "F Bel"}


def test_3e_an_army_boards_only_a_fleet_at_sea():
    pos = position({"Germany": "A Ber, F Kie"})
    out = play(pos, "Germany: A Ber E F Kie")
    assert out.result("A Ber E F Kie")[0] == "invalid"


def test_3f_the_a_f_prevented_from_moving_remains_intact():
    """"f) If an army is ordered to board a fleet, and the A/F is prevented from moving to another sea space
    the A/F remains intact.\""""
    pos = position({"England": "A Yor, F Nth", "Germany": "F Hel"})
    out = play(pos, "England: A Yor E F Nth\nEngland: A/F Nth - Hel")
    assert out.units("England") == {"A/F Nth"}


def test_3g_attacked_from_another_sea_space_the_army_does_not_board():
    """"g) If an army is ordered to board a fleet, and the fleet is attacked from another sea space, or if
    the fleet is ordered to support another unit, the army is considered to have failed to board and it
    remains in its land province. This is true even if the fleet successfully defends itself against
    attack.\""""
    pos = position({"England": "A Yor, F Nth, F Edi", "Germany": "F Hel"})
    out = play(pos, "England: A Yor E F Nth\nGermany: F Hel - Nth")
    assert out.units("England") == {"A Yor", "F Nth", "F Edi"}
    assert out.result("F Hel - Nth") == ("fails", "bounced")  # the fleet defended itself
    out = play(pos, "England: A Yor E F Nth\nEngland: F Nth S F Edi")
    assert out.units("England") == {"A Yor", "F Nth", "F Edi"}


def test_3g_a_fleet_movement_not_carried_out_is_no_attack():
    """3 g "the fleet is attacked from another sea space" against 3 h "If an army's disembarkation
    fails, the A/F remains intact and any orders for fleet movement will not be carried out" (issue
    14): a fleet movement that is not carried out attacks nobody, so the army boards, in Deluge II's
    own rules (af_boarding_attack = sea_space) as under Davis."""
    from judge.adjudicate import run_phase

    orders = "England: A Lon E F Eng\nFrance: A Mao D Bre\nFrance: F Mao - Eng"
    for variant, rules in (("deluge2", {}), ("af_standard", {})):
        pos = {"variant": variant, "phase": "Spring 1901 Movement",
               "units": {"England": ["A Lon", "F Eng"], "France": ["A/F Mao"], "Germany": ["A Bre"]}}
        out = run_phase(variant, pos, orders, rules)
        assert sorted(out["next"]["units"]["England"]) == ["A/F Eng"], (variant, out["orders"])
        assert out["next"]["units"]["France"] == ["A/F Mao"]


def test_3h_the_fleet_lands_the_army_and_supports_or_moves():
    """"h) A fleet which lands an army in a coastal province, before making a move, may then support that
    army to land as its move, or it may move elsewhere. If an army's disembarkation fails, the A/F
    remains intact and any orders for fleet movement will not be carried out.\""""
    pos = position({"England": "A/F Nth", "Germany": "A Hol"})
    out = play(pos, "England: A Nth D Hol\nEngland: F Nth S A Nth D Hol")
    assert out.units("England") == {"A Hol", "F Nth"}
    out = play(pos, "England: A Nth D Bel\nEngland: F Nth - Hel")
    assert out.units("England") == {"A Bel", "F Hel"}
    out = play(pos, "England: A Nth D Hol\nEngland: F Nth - Hel")
    assert out.units("England") == {"A/F Nth"}


def test_3i_a_fleet_may_not_land_one_army_and_pick_up_another():
    """"i) A fleet may not simultaneously land one army and pick up another.\""""
    pos = position({"England": "A/F Nth, A Yor"})
    out = play(pos, "England: A Nth D Bel\nEngland: A Yor E F Nth")
    assert out.result("A Yor E F Nth")[0] == "invalid"
    assert out.units("England") == {"A Bel", "F Nth", "A Yor"}


def test_3j_an_annihilated_a_f_loses_both_units():
    """"j) If an A/F is annihilated, then both units are removed from the board.\""""
    pos = position({"England": "A/F Nth", "Germany": "F Hel, F Den, F Hol"})
    out = play(pos, "Germany: F Hel - Nth\nGermany: F Den S F Hel - Nth")
    out = play(out.next, "")  # no retreat order: disbanded
    assert out.units("England") == set()
    assert out.result("A/F Nth D") == ("succeeds", "no order: disbanded")


@pytest.mark.parametrize("rules", BOTH)
def test_3k_example_an_a_f_can_hold(rules):
    """"k) An A/F can be ordered to HOLD. (ie A Lon embarks F Nth, a/F nth Holds)" (ruling: the army is
    aboard, the A/F in the North Sea)."""
    pos = position({"England": "A Lon, F Nth"})
    out = play(pos, "England: A Lon embarks F Nth\nEngland: a/F nth Holds", rules)
    assert out.result("A/F Nth H") == ("succeeds", "")
    assert out.units("England") == {"A/F Nth"}


def test_3l_dislodged_while_disembarking_the_two_retreat_together():
    """"l) ... If an A/F is dislodged whilst trying to disembark its A, this move fails and the A and F
    must retreat together. If an A/F is dislodged and can only retreat to a land space (no suitable sea
    space being available), the F may retreat but the A is destroyed.\""""
    pos = position({"England": "A/F Nth", "Germany": "F Hel, F Den"})
    out = play(pos, "England: A Nth D Yor\nGermany: F Hel - Nth\nGermany: F Den S F Hel - Nth")
    assert out.result("A Nth D Yor")[0] == "fails"
    assert out.dislodged() == {"A/F Nth": ["Eng", "Nwg", "Ska"]}
    out = play(out.next, "England: A/F Nth - Nwg")
    assert out.units("England") == {"A/F Nwg"}


def test_3m_unsupported_or_supported_occupation_of_the_space_left():
    """"m) Where an A disembarks from the F, and the F then moves away without supporting the A; if the now
    vacated sea space is then occupied by another unsupported F or A/F, the A disembarkation succeeds; if
    the second occupation is supported, the disembarkation fails and the A continues with the F.\""""
    pos = position({"England": "A/F Nth", "Germany": "F Hel, F Den"})
    out = play(pos, "England: A Nth D Yor\nEngland: F Nth - Nwg\nGermany: F Hel - Nth")
    assert out.units() == {"England": {"A Yor", "F Nwg"}, "Germany": {"F Nth", "F Den"}}
    out = play(pos, "England: A Nth D Yor\nEngland: F Nth - Nwg\nGermany: F Hel - Nth\nGermany: F Den S F Hel - Nth")
    assert out.units() == {"England": {"A/F Nwg"}, "Germany": {"F Nth", "F Den"}}


def test_3m_support_from_the_a_fs_own_power_is_not_counted():
    """"... if the second occupation is supported, the disembarkation fails" (ruling): read with the
    rule it restates, Davis IV e, "a move with support by units of other Powers" — other than the
    A/F's. England supporting France into the space England's fleet left does not disrupt England's
    landing."""
    pos = position({"England": "A/F Nth, F Edi", "Germany": "F Hel"})
    out = play(pos, "England: A Nth D Yor\nEngland: F Nth - Nwg\nGermany: F Hel - Nth\nEngland: F Edi S F Hel - Nth")
    assert out.result("A Nth D Yor") == ("succeeds", "")
    assert out.units() == {"England": {"A Yor", "F Nwg", "F Edi"}, "Germany": {"F Nth"}}


# -- the five order examples at the end ---------------------------------------------------------------------------
@pytest.mark.parametrize("rules", BOTH)
def test_example_1_embark_move_disembark(rules):
    """"A(Lon) E F(ENG); A/F(ENG) - MAO; A(MAO) D Por.\""""
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: A(Lon) E F(ENG)\nEngland: A/F(ENG) - MAO\nEngland: A(MAO) D Por", rules)
    assert out.units("England") == {"A Por", "F Mao"}


@pytest.mark.parametrize("rules", BOTH)
def test_example_2_disembark_and_the_fleet_moves_away(rules):
    """"A/F(ENG); A(ENG) D Bre; F(ENG) - NTH.\""""
    pos = position({"England": "A/F Eng"})
    out = play(pos, "England: A(ENG) D Bre\nEngland: F(ENG) - NTH", rules)
    assert out.units("England") == {"A Bre", "F Nth"}


@pytest.mark.parametrize("rules", BOTH)
def test_example_3_the_fleet_supports_the_landing(rules):
    """"A/F(ENG); F(ENG) S A(ENG) D Bre." The fleet's order alone lands the army (ruling: "A fleet which
    lands an army ... may then support that army to land as its move", h): the army's landing is read
    from it, as the judge's order for the army."""
    pos = position({"England": "A/F Eng", "France": "A Bre"})
    out = play(pos, "England: F(ENG) S A(ENG) D Bre", rules)
    assert out.result("A Eng D Bre") == ("succeeds", "no order: landed by its fleet")
    assert out.units("England") == {"A Bre", "F Eng"}
    assert set(out.dislodged()) == {"A Bre"}
    out = play(pos, "England: A(ENG) D Bre\nEngland: F(ENG) S A(ENG) D Bre", rules)  # written out in full
    assert out.units("England") == {"A Bre", "F Eng"}


@pytest.mark.parametrize("rules", BOTH)
def test_example_4_the_fast_ferry(rules):
    """"F(ENG) convoys A(Lon) - Bre." The army of the fleet's power with no order of its own goes by its
    Fast Ferry (ruling: "A fleet that carries an army over one sea space is convoying or fast ferrying.
    That is classified as it's move.", 2)."""
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: F(ENG) convoys A(Lon) - Bre", rules)
    assert out.result("A Lon - Bre") == ("succeeds", "no order: carried by its Fast Ferry")
    assert out.units("England") == {"A Bre", "F Eng"}


def test_example_4_a_foreign_fleet_cannot_move_the_army():
    """Another power's army must be ordered to move by its owner: a ferry alone does not move it."""
    pos = position({"England": "A Lon", "France": "F Eng"})
    out = play(pos, "France: F(ENG) convoys A(Lon) - Bre")
    assert out.result("F Eng FF A Lon - Bre") == ("fails", "void: the army was not ordered so")
    assert out.units("England") == {"A Lon"}


def test_example_5_embark_while_the_fleet_supports():
    """"A(Lon) E F(ENG); F(ENG) S A(Lon) - Bre." (ruling) Davis (Deluge g): the fleet is ordered to
    support, so the army fails to board; Agar: the army boards before the moves. The support itself is
    not possible either way (the army is ordered to board, not to Brest; and the fleet cannot support
    a move it would carry)."""
    pos = position({"England": "A Lon, F Eng"})
    orders = "England: A(Lon) E F(ENG)\nEngland: F(ENG) S A(Lon) - Bre"
    out = play(pos, orders, DAVIS)
    assert out.result("A Lon E F Eng")[0] == "fails"
    assert out.units("England") == {"A Lon", "F Eng"}
    out = play(pos, orders, AGAR)
    assert out.result("A Lon E F Eng") == ("succeeds", "")
    assert out.units("England") == {"A/F Eng"}


def test_af_removals_in_a_winter_with_a_sinking():
    """A Deluge II winter followed by a sinking still applies the A/F removal rules: the army of an
    A/F can be removed alone, and civil disorder counts an A/F as two units."""
    from judge.adjudicate import run_phase

    pos = {"variant": "deluge2", "phase": "Winter 1901 Adjustment",
           "units": {"England": ["A/F Nth", "F Edi"]}, "centers": {"England": ["Edi", "Lvp"]}}
    out = run_phase("deluge2", pos, "England: Remove A Nth")
    assert out["orders"][0]["result"] == "succeeds", out["orders"]
    assert sorted(out["next"]["units"]["England"]) == ["F Edi", "F Nth"]
    pos["centers"] = {"England": ["Edi"]}
    out = run_phase("deluge2", pos, "")
    left = out["next"]["units"].get("England", [])
    assert len(left) == 1, out["orders"]  # three units' worth, one centre: two removals, one unit left


def test_3g_an_attack_from_a_coast_does_not_stop_the_boarding_in_deluge():
    """Deluge II 3 g: the army fails to board "if the fleet is attacked from another sea space";
    Davis III c counts any other power's fleet ("defend its sea space against another Fleet"), so
    the two texts are the switch af_boarding_attack (sea_space in Deluge II, any_fleet by default)."""
    from judge.adjudicate import run_phase

    orders = "England: A Wal E F Eng\nEngland: F Eng H\nFrance: F Bre - Eng"
    deluge = {"variant": "deluge2", "phase": "Spring 1901 Movement",
              "units": {"England": ["A Wal", "F Eng"], "France": ["F Bre"]}}
    out = run_phase("deluge2", deluge, orders)
    assert "A/F Eng" in out["next"]["units"]["England"], out["orders"]
    standard = {**deluge, "variant": "af_standard"}
    out = run_phase("af_standard", standard, orders)
    assert sorted(out["next"]["units"]["England"]) == ["A Wal", "F Eng"], out["orders"]
    out = run_phase("af_standard", standard, orders, {"af_boarding_attack": "sea_space"})
    assert "A/F Eng" in out["next"]["units"]["England"]
