"""Fred C. Davis, Jr.'s Army/Fleet Rules Module, 1984 Revision (in
../shared/seeds/001_cc4a6c24c42fb8d2.txt), section by section: every example of the text with the
outcome it states (or, where it states none, the ruling in docs/rulings.md, "Army/Fleet module").
Rule set ``af_rules = "davis1984"``."""

from __future__ import annotations

import pytest
from test_af_helpers import AGAR, BOTH, DAVIS, play, position


# -- I. The Fast Ferry -----------------------------------------------------------------------------------
def test_I_convoy_by_the_rulebook_only_across_one_sea_space():
    """"Convoy by the Diplomacy Rulebook method is allowed only for the crossing of a single sea space.\""""
    pos = position({"England": "A Lon, F Eng, F Mao"})
    out = play(pos, "England: A Lon - Por\nEngland: F Eng C A Lon - Por\nEngland: F Mao C A Lon - Por")
    assert out.result("A Lon - Por")[0] == "invalid"
    assert out.units("England") == {"A Lon", "F Eng", "F Mao"}


def test_Ia_a_fleet_may_ferry_another_powers_army():
    """"A Fleet may convoy an Army belonging to its own country or to any other Power across this
    single space.\""""
    pos = position({"England": "A Lon", "France": "F Eng"})
    out = play(pos, "England: A Lon - Bre\nFrance: F Eng Fast Ferry A Lon - Bre")
    assert out.result("F Eng FF A Lon - Bre") == ("succeeds", "")
    assert out.units() == {"England": {"A Bre"}, "France": {"F Eng"}}


def test_Ib_unsuccessful_disembarkation_same_power_stays_aboard():
    """"In an unsuccessful disembarkation when both units belong to the same Power, the Army will
    remain aboard the Fleet, to become an Army/Fleet.\""""
    pos = position({"England": "A Lon, F Eng", "France": "A Bre"})
    out = play(pos, "England: A Lon - Bre\nEngland: F Eng FF A Lon - Bre")
    assert out.units("England") == {"A/F Eng"}
    assert out.extra["af_rations"] == {"Eng": 1}  # its first move at sea


def test_Ib_unsuccessful_disembarkation_different_powers_goes_home():
    """"If the units belong to different Powers, the Army must return to the land province from which
    it started, since an A/F cannot consist of units from two countries." (both rule sets)"""
    pos = position({"England": "A Lon", "France": "F Eng, A Bre"})
    for rules in BOTH:
        out = play(pos, "England: A Lon - Bre\nFrance: F Eng FF A Lon - Bre", rules)
        assert "returns to Lon" in out.result("A Lon - Bre")[1]
        assert out.units() == {"England": {"A Lon"}, "France": {"F Eng", "A Bre"}}, rules


def test_Ib_the_army_aboard_has_left_its_province():
    """Its army aboard, the province it left is open to an attack (ruling)."""
    pos = position({"England": "A Lon, F Eng", "France": "A Bre", "Germany": "F Nth"})
    out = play(pos, "England: A Lon - Bre\nEngland: F Eng FF A Lon - Bre\nGermany: F Nth - Lon")
    assert out.units("England") == {"A/F Eng"}
    assert out.units("Germany") == {"F Lon"}
    assert out.dislodged() == {}


def test_Ib_a_ferry_whose_fleet_is_dislodged_leaves_the_army_at_home():
    pos = position({"England": "A Lon, F Eng", "France": "A Bre, F Mao, F Iri"})
    out = play(pos, "England: A Lon - Bre\nEngland: F Eng FF A Lon - Bre\n"
                    "France: F Mao - Eng\nFrance: F Iri S F Mao - Eng")
    assert out.result("A Lon - Bre") == ("fails", "no convoy")
    assert out.units("England") == {"A Lon"}
    assert set(out.dislodged()) == {"F Eng"}


# -- II. Army/Fleet convoys ---------------------------------------------------------------------------------
def test_IIa_example_boards_moves_and_disembarks():
    """"(i.e. "A Marseilles boards F Gulf of Lions; A/F Gulf of Lions-Western Med; A disembarks
    Tunis.")" (ruling: the army ends in Tunis, the fleet in the Western Mediterranean)."""
    pos = position({"France": "A Mar, F Lyo"})
    out = play(pos, "France: A Marseilles boards F Gulf of Lions\nFrance: A/F Gulf of Lions-Western Med\n"
                    "France: A Western Med disembarks Tunis")
    assert out.result("A Mar E F Lyo") == ("succeeds", "")
    assert out.result("A/F Lyo - Wes") == ("succeeds", "")
    assert out.result("A Wes D Tun") == ("succeeds", "")
    assert out.units("France") == {"A Tun", "F Wes"}


def test_IIa_an_a_f_consists_of_units_of_one_power():
    """"An A/F can only consist of two units belonging to the same country.\""""
    pos = position({"France": "A Mar", "Italy": "F Lyo"})
    out = play(pos, "France: A Mar E F Lyo")
    assert out.result("A Mar E F Lyo")[0] == "invalid"
    assert "same power" in out.result("A Mar E F Lyo")[1]
    assert out.units() == {"France": {"A Mar"}, "Italy": {"F Lyo"}}


def _rations_game(landing_turn: int | None) -> tuple[list, object]:
    pos = position({"England": "A Lon, F Eng"}, phase="Spring 1902 Movement", centres={"England": "Lon Edi"})
    out = play(pos, "England: A Lon E F Eng")
    seen = [out.extra.get("af_rations")]
    for turn in (2, 3, 4):
        orders = "England: A Eng D Wal" if turn == landing_turn else "England: A/F Eng H"
        out = play(out.next, orders)
        seen.append(out.extra.get("af_rations"))
    return seen, out


def test_IIb_example_rations_four_moves_then_starvation():
    """"e.g. An A which boards a F in Spring 1902 could stay with that F for Spring, Fall, and Spring
    1903, but must be landed before the end of Fall 1903, or it will be removed from the board.
    Removal of the Army will not affect the existence of the Fleet.\""""
    seen, out = _rations_game(None)
    assert seen == [{"Eng": 1}, {"Eng": 2}, {"Eng": 3}, None]
    assert out.units("England") == {"F Eng"}
    assert any("starves" in e for e in out.events)


def test_IIb_example_landed_in_the_fourth_move():
    seen, out = _rations_game(4)
    assert seen[:3] == [{"Eng": 1}, {"Eng": 2}, {"Eng": 3}]
    assert out.units("England") == {"A Wal", "F Eng"}


def test_IIb_build_seasons_are_not_counted():
    """"excluding Build periods": the winter between does not count (a build is due, and waived)."""
    pos = position({"England": "A Lon, F Eng"}, phase="Fall 1902 Movement")
    out = play(pos, "England: A Lon E F Eng")
    assert out.phase == "Winter 1902 Adjustment"
    assert out.extra["af_rations"] == {"Eng": 1}
    out = play(out.next, "")
    assert out.phase == "Spring 1903 Movement" and out.extra["af_rations"] == {"Eng": 1}
    out = play(out.next, "")
    assert out.extra["af_rations"] == {"Eng": 2}


def test_IIb_rations_follow_the_a_f():
    pos = position({"England": "A/F Eng"}, extra={"af_rations": {"Eng": 2}})
    out = play(pos, "England: A/F Eng - Mao")
    assert out.extra["af_rations"] == {"Mao": 3}


def test_IIb_an_a_f_that_retreats_keeps_its_count():
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"}, extra={"af_rations": {"Eng": 2}})
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    assert out.extra["af_rations_retreating"]["Eng"]["moves"] == 3
    out = play(out.next, "England: A/F Eng - Iri")
    assert out.units("England") == {"A/F Iri"}
    out = play(out.next, "")
    assert out.units("England") == {"F Iri"}  # its fourth move
    assert any("starves" in e for e in out.events)


# -- III. Army/Fleet combined operations ---------------------------------------------------------------------
def test_IIIa_an_a_f_fights_as_one_fleet_and_supports_into_land():
    """"An A/F has the same combat factor as a single Fleet. It may attack, support, and be supported.
    It cannot convoy another Army via the Fast Ferry ... It cannot be ordered into a land province as
    an entity, but it may support some other unit into a land province.\""""
    pos = position({"England": "A/F Eng, A Wal, A Lvp", "France": "F Mao"})
    out = play(pos, "England: A/F Eng - Mao")
    assert out.result("A/F Eng - Mao") == ("fails", "bounced")
    out = play(pos, "England: A/F Eng - Lon")
    assert out.result("A/F Eng - Lon")[0] == "invalid"
    out = play(pos, "England: A Wal - Bre\nEngland: A/F Eng C A Wal - Bre")
    assert out.result("A/F Eng FF A Wal - Bre")[0] == "invalid"
    out = play(pos, "England: A Wal - Lon\nEngland: A/F Eng S A Wal - Lon")
    assert out.result("A/F Eng S A Wal - Lon") == ("succeeds", "")
    assert out.units("England") == {"A/F Eng", "A Lon", "A Lvp"}


def test_IIIb_the_a_f_prevented_from_moving_remains_intact():
    """"If an Army is ordered to board a Fleet, and the A/F is then prevented from moving to another sea
    space, the A/F remains intact.\""""
    pos = position({"England": "A Lon, F Eng", "France": "F Mao"})
    out = play(pos, "England: A Lon E F Eng\nEngland: A/F Eng - Mao")
    assert out.result("A/F Eng - Mao") == ("fails", "bounced")
    assert out.units("England") == {"A/F Eng"}


def test_IIIb_the_fleet_ordered_to_hold_forms_the_a_f():
    """"If the Fleet is ordered to "Hold," the A/F will also remain intact.\""""
    pos = position({"England": "A Lon, F Eng"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng H")
    assert out.units("England") == {"A/F Eng"}


def test_IIIc_the_army_fails_to_board_a_fleet_defending_its_space():
    """"If an Army is ordered to board a Fleet, and the Fleet is simultaneously attacked and required to
    defend its sea space against another Fleet, or Fleets, the Army fails to board, and remains in its
    previous land province. This is true even when the Fleet is successful in defending its sea space
    against its attacker(s).\""""
    pos = position({"England": "A Lon, F Eng", "France": "F Mao"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng H\nFrance: F Mao - Eng")
    assert out.result("A Lon E F Eng")[0] == "fails"
    assert "defend" in out.result("A Lon E F Eng")[1]
    assert out.units() == {"England": {"A Lon", "F Eng"}, "France": {"F Mao"}}


def test_IIIc_a_fleet_bounced_elsewhere_must_defend_too():
    """"Defend" means ... "the A/F was forced to remain in the original sea space for any other reason".
    """
    pos = position({"England": "A Lon, F Eng", "France": "F Mao, F Bre"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng - Mao\nFrance: F Bre - Eng")
    assert out.units("England") == {"A Lon", "F Eng"}


def test_IIIc_clarification_the_a_f_moved_out_before_the_fleet_came_in():
    """"This rule does not affect the A/F convoy when the A/F moves successfully to another sea space,
    and another Fleet moves into the original sea space afterwards.\""""
    pos = position({"England": "A Lon, F Eng", "France": "F Bre"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng - Mao\nEngland: A Mao D Por\nFrance: F Bre - Eng")
    assert out.units() == {"England": {"A Por", "F Mao"}, "France": {"F Eng"}}


def test_IIIc_a_move_of_the_fleets_own_power_is_no_attack():
    """"... and the Fleet is simultaneously attacked and required to defend its sea space against
    another Fleet, or Fleets, the Army fails to board" (ruling): a fleet of the same power bouncing
    off it is no attack the fleet must defend against (no naval battle; nor does a power's move cut
    its own support). Against another power's fleet the army does not board."""
    pos = position({"England": "A Lon, F Eng, F Nth"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Nth - Eng")
    assert out.result("A Lon E F Eng") == ("succeeds", "")
    assert out.units("England") == {"A/F Eng", "F Nth"}
    pos = position({"England": "A Lon, F Eng", "Germany": "F Nth"})
    out = play(pos, "England: A Lon E F Eng\nGermany: F Nth - Eng")
    assert out.units("England") == {"A Lon", "F Eng"}


def test_IIIc_the_army_fails_to_board_a_fleet_ordered_to_support():
    """"The Army will also fail to board if the Fleet is ordered to support another unit.\""""
    pos = position({"England": "A Lon, F Eng, F Nth"})
    out = play(pos, "England: A Lon E F Eng\nEngland: F Eng S F Nth")
    assert "support" in out.result("A Lon E F Eng")[1]
    assert out.units("England") == {"A Lon", "F Eng", "F Nth"}


def test_IIId_a_failed_disembarkation_keeps_the_fleet_in_place():
    """"If an Army's attack (disembarkation) on a land province fails, the A/F remains intact. Any order
    for the Fleet to move elsewhere will not take place, as the F is forced to remain in place to
    reboard the Army.\""""
    pos = position({"England": "A/F Eng", "France": "A Bre"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Nth")
    assert out.result("A Eng D Bre") == ("fails", "bounced")
    assert out.result("F Eng - Nth")[0] == "fails"
    assert out.units("England") == {"A/F Eng"}


@pytest.mark.parametrize("rules", BOTH)
def test_IIId_the_fleets_move_that_does_not_take_place_stands_nothing_off(rules):
    """"Any order for the Fleet to move elsewhere will not take place, as the F is forced to remain in
    place to reboard the Army." (Deluge II 3 h "will not be carried out"; Agar 5 "any fleet movement
    will also fail"): the fleet never goes to the North Sea, so it does not stand off another fleet
    moving there, nor cut a support given there."""
    pos = position({"England": "A/F Eng", "France": "A Bre", "Germany": "F Hel"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Nth\nGermany: F Hel - Nth", rules)
    assert out.result("F Eng - Nth")[0] == "fails"
    assert out.result("F Hel - Nth") == ("succeeds", "")
    assert out.units() == {"England": {"A/F Eng"}, "France": {"A Bre"}, "Germany": {"F Nth"}}
    pos = position({"England": "A/F Eng", "France": "A Bre", "Germany": "F Nth, F Hel", "Russia": "F Den"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Nth\nGermany: F Hel - Den\n"
                    "Germany: F Nth S F Hel - Den", rules)
    assert out.result("F Nth S F Hel - Den") == ("succeeds", "")
    assert set(out.dislodged()) == {"F Den"}


def test_IIId_a_fleet_move_that_does_not_take_place_does_not_stop_a_boarding():
    """III d "Any order for the Fleet to move elsewhere will not take place" against III c "the Fleet is
    simultaneously attacked and required to defend its sea space against another Fleet" (issue 14): the
    French A/F's landing in Brest bounces, so its move to the English Channel never happens; it attacks
    nothing (as it cuts no support) and England's army boards. Had the landing succeeded, the move
    would be an attack and the boarding would fail."""
    pos = position({"England": "A Lon, F Eng", "France": "A/F Mao", "Germany": "A Bre"})
    out = play(pos, "England: A Lon E F Eng\nFrance: A Mao D Bre\nFrance: F Mao - Eng")
    assert out.result("A Mao D Bre") == ("fails", "bounced")
    assert out.result("F Mao - Eng")[0] == "fails"
    assert out.result("A Lon E F Eng") == ("succeeds", "")
    assert out.units() == {"England": {"A/F Eng"}, "France": {"A/F Mao"}, "Germany": {"A Bre"}}
    pos = position({"England": "A Lon, F Eng", "France": "A/F Mao"})
    out = play(pos, "England: A Lon E F Eng\nFrance: A Mao D Bre\nFrance: F Mao - Eng")
    assert out.result("A Mao D Bre") == ("succeeds", "")
    assert out.result("A Lon E F Eng")[0] == "fails"
    assert out.units() == {"England": {"A Lon", "F Eng"}, "France": {"A Bre", "F Mao"}}


@pytest.mark.parametrize("rules", BOTH)
def test_IIId_a_fleet_move_that_would_decide_its_own_landing_is_a_paradox(rules):
    """The move that "will not take place" if the landing fails would, if it took place, make the
    landing fail (it stands off the French fleet, which then stays in Brest): no consistent outcome.
    "Any A/F Convoy or Disembarkation order which results in a Paradox ... all involved units Hold"
    (III h; Agar 7)."""
    pos = position({"England": "A/F Eng", "France": "F Bre"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Mao\nFrance: F Bre - Mao", rules)
    for order in ("A Eng D Bre", "F Eng - Mao", "F Bre - Mao"):
        assert out.result(order) == ("fails", "paradox: all units involved stand")
    assert out.units() == {"England": {"A/F Eng"}, "France": {"F Bre"}}


def test_IIIe_a_landed_army_may_be_picked_up_again_next_move():
    """"An Army which is landed after spending one, two or three consecutive moves with an A/F may be
    again picked up by the same Fleet on the next move." Its rations start again."""
    pos = position({"England": "A/F Eng"}, extra={"af_rations": {"Eng": 3}})
    out = play(pos, "England: A Eng D Wal")
    assert out.units("England") == {"A Wal", "F Eng"}
    out = play(out.next, "England: A Wal E F Eng")
    assert out.units("England") == {"A/F Eng"}
    assert out.extra["af_rations"] == {"Eng": 1}


def test_IIIf_a_fleet_may_not_land_one_army_and_pick_up_another():
    """"A Fleet may not simultaneously land one Army and pick up another. All boardings must be made at
    the beginnings of turns.\""""
    pos = position({"England": "A/F Eng, A Lon"})
    out = play(pos, "England: A Eng D Wal\nEngland: A Lon E F Eng")
    assert out.result("A Lon E F Eng")[0] == "invalid"
    assert out.units("England") == {"A Wal", "F Eng", "A Lon"}
    pos = position({"England": "F Eng, A Lon, A Wal"})
    out = play(pos, "England: A Wal - Bre\nEngland: F Eng FF A Wal - Bre\nEngland: A Lon E F Eng")
    assert out.result("A Lon E F Eng")[0] == "invalid"
    assert out.units("England") == {"A Bre", "F Eng", "A Lon"}


def test_IIIg_the_fleet_lands_the_army_then_supports_it():
    """"A Fleet which lands an Army in a land province before making its own move may then support that
    Army into the province for its move.\""""
    pos = position({"England": "A/F Eng", "France": "A Bre"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng S A Eng D Bre")
    assert out.units("England") == {"A Bre", "F Eng"}
    assert set(out.dislodged()) == {"A Bre"}


def test_IIIg_the_fleet_lands_the_army_then_moves_elsewhere():
    """"Or, having landed an Army before moving, it may then move elsewhere.\""""
    pos = position({"England": "A/F Eng"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Mao")
    assert out.units("England") == {"A Bre", "F Mao"}


def test_IIIg_but_may_not_support_another_unit():
    """"It may not support another unit elsewhere." (Davis only: Agar 5 allows it.)"""
    pos = position({"England": "A/F Eng, A Wal", "France": "A Lon"})
    orders = "England: A Eng D Pic\nEngland: A Wal - Lon\nEngland: F Eng S A Wal - Lon"
    out = play(pos, orders, DAVIS)
    assert out.result("F Eng S A Wal - Lon")[0] == "invalid"
    assert out.units("England") == {"A Pic", "F Eng", "A Wal"}
    out = play(pos, orders, AGAR)
    assert out.units("England") == {"A Pic", "F Eng", "A Lon"}


def test_IIIh_example_equal_strength_from_the_same_sea_space_all_hold():
    """"Any A/F Convoy or Disembarkation order which results in a Paradox ... will result in a GM
    finding that all involved units Hold. This includes situations where two different units of
    equal strength attempt to occupy a space from the same sea space, as can happen when an A/F moves
    into a space vacated by a F, and attempts to disembark its A into the same space the F has just
    moved to.\""""
    pos = position({"England": "A/F Nth", "France": "F Eng"})
    out = play(pos, "England: A/F Nth - Eng\nEngland: A Eng D Bre\nFrance: F Eng - Bre")
    for order in ("A/F Nth - Eng", "A Eng D Bre", "F Eng - Bre"):
        assert out.result(order) == ("fails", "paradox: all units involved stand")
    assert out.units() == {"England": {"A/F Nth"}, "France": {"F Eng"}}


@pytest.mark.parametrize("rules", BOTH)
def test_IIIh_the_army_and_its_own_fleet_into_one_province_all_hold(rules):
    """"... two different units of equal strength attempt to occupy a space from the same sea space":
    the army lands in Brest and its fleet is ordered there too. Each would stand the other off, and
    the fleet may move only if the landing succeeds: all hold — the fleet does not go ashore with
    the army aboard (Agar 7 the same)."""
    pos = position({"England": "A/F Eng"})
    out = play(pos, "England: A Eng D Bre\nEngland: F Eng - Bre", rules)
    assert out.result("A Eng D Bre") == ("fails", "paradox: all units involved stand")
    assert out.result("F Eng - Bre") == ("fails", "paradox: all units involved stand")
    assert out.units("England") == {"A/F Eng"}
    assert out.dislodged() == {}


# -- IV. Retreats, dislodgements, annihilation, removals --------------------------------------------------------
def test_IVa_a_dislodged_a_f_retreats_to_a_sea_space():
    """"A dislodged A/F must attempt to Retreat to a sea space.\""""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    assert out.dislodged() == {"A/F Eng": ["Iri", "Nth"]}
    retreat = out.next
    out = play(retreat, "England: A/F Eng - Wal")
    assert out.result("A/F Eng - Wal")[0] == "invalid"
    out = play(retreat, "England: A/F Eng - Nth")
    assert out.units("England") == {"A/F Nth"}


def test_IVa_a_retreat_position_without_retreats_offers_only_the_seas():
    """"A dislodged A/F must attempt to Retreat to a sea space." (issue 14): a retreat position given
    without ``retreats`` has them worked out by the same rule as after a movement phase — Iri and
    Nth, not Wal, Lon, Pic or Bre; with no sea open, the land spaces."""
    pos = position({"France": "F Eng, F Mao"}, phase="Spring 1901 Retreat",
                   dislodged={"England": [{"unit": "A/F Eng", "from": "Bre"}]})
    out = play(pos, "England: A/F Eng - Wal")
    assert out.result("A/F Eng - Wal")[0] == "invalid"
    assert "Iri, Nth" in out.result("A/F Eng - Wal")[1]
    out = play(pos, "England: A/F Eng - Nth")
    assert out.units("England") == {"A/F Nth"}
    pos = position({"Russia": "F Bla"}, phase="Spring 1901 Retreat",
                   dislodged={"Turkey": [{"unit": "A/F Bla", "from": "Sev"}]})
    out = play(pos, "Turkey: A/F Bla - Ank")
    assert out.units("Turkey") == {"F Ank"}


def test_IVa_a_retreat_position_in_1885_uses_the_a_f_rules():
    """The same in 1885 II (rules 7-8 and the 1984 module): an A/F given in a retreat position without
    ``retreats`` goes to a sea space, by the Right-Hand Rule when it has no order (rule 10a)."""
    from judge.adjudicate import run_phase

    pos = {"variant": "1885", "phase": "January 1885 Retreat",
           "units": {"France": ["F Eng", "F Mao", "A Par", "A Mar"], "England": ["F Lon", "F Edi", "F Lvp"]},
           "dislodged": {"England": [{"unit": "A/F Eng", "from": "Bre"}]}}
    bad = run_phase("1885", pos, "England: A/F Eng - Pic")
    assert bad["orders"][0]["result"] == "invalid", bad["orders"]
    assert "retreats: Iri, Nth" in bad["orders"][0]["reason"]
    out = run_phase("1885", pos, "")
    landed = [u for u in out["next"]["units"]["England"] if u.startswith("A/F")]
    assert landed and landed[0].split()[1] in ("Iri", "Nth"), out["orders"]


def test_IVa_if_only_land_is_open_the_fleet_survives_and_the_army_dies():
    """"If the only space open for a Retreat is a land one, only the Fleet will survive, and the A is
    annihilated.\""""
    pos = position({"Turkey": "A/F Bla", "Russia": "F Sev, F Rum"})
    out = play(pos, "Russia: F Sev - Bla\nRussia: F Rum S F Sev - Bla")
    assert out.dislodged() == {"A/F Bla": ["Ank", "Arm", "Bul/ec", "Con"]}
    out = play(out.next, "Turkey: A/F Bla - Ank")
    assert out.units("Turkey") == {"F Ank"}
    assert "army is disbanded" in out.result("A/F Bla - Ank")[1]


def test_IVb_an_annihilated_a_f_loses_both_units():
    """"If an A/F is annihilated, including by an "off-the-Board" move, both units are removed.\""""
    pos = position({"England": "A/F Eng, A Lvp", "France": "F Bre, F Mao"}, phase="Fall 1901 Movement",
                   centres={"England": "Lon Edi Lvp"})
    out = play(pos, "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    out = play(out.next, "England: A/F Eng D")  # off the board
    assert out.units("England") == {"A Lvp"}
    assert out.phase == "Winter 1901 Adjustment"
    out = play(out.next, "England: Build F Lon\nEngland: Build F Edi")
    assert out.units("England") == {"A Lvp", "F Lon", "F Edi"}


def test_IVc_civil_disorder_may_remove_only_the_army_of_an_a_f():
    """"If the loss of a Supply Center requires the removal of a unit ... the GM may, instead, remove an
    Army which is part of an A/F.\""""
    pos = position({"England": "A/F Nth, F Edi"}, phase="Winter 1901 Adjustment", centres={"England": "Lon Edi"})
    out = play(pos, "")
    assert out.units("England") == {"F Nth", "F Edi"}
    assert out.result("Remove A Nth (the army of the A/F)") == ("succeeds", "civil disorder")


def test_IVc_a_player_may_remove_the_army_alone_or_the_whole_a_f():
    pos = position({"England": "A/F Nth, F Edi"}, phase="Winter 1901 Adjustment", centres={"England": "Lon Edi"})
    out = play(pos, "England: Remove A Nth")
    assert out.units("England") == {"F Nth", "F Edi"}
    out = play(pos, "England: Remove A/F Nth")
    assert out.result("Remove A/F Nth")[0] == "invalid"  # two units for one removal due
    pos = position({"England": "A/F Nth, F Edi"}, phase="Winter 1901 Adjustment", centres={"England": "Edi"})
    out = play(pos, "England: Remove A/F Nth")
    assert out.units("England") == {"F Edi"}


def test_IVd_a_supported_landing_fails_when_the_fleet_is_dislodged():
    """"When an A/F attempts to disembark its A, with F support, and the F, instead, is dislodged from its
    sea space, the disembarkation order will fail, even if the A could otherwise successfully disembark
    in the land province to which it has been ordered. The dislodged A and F must retreat together to
    the same sea space.\""""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng S A Eng D Wal\n"
                    "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    assert out.result("A Eng D Wal")[0] == "fails"
    assert "disrupted" in out.result("A Eng D Wal")[1]
    assert out.dislodged() == {"A/F Eng": ["Iri", "Nth"]}


def test_IVd_if_only_land_is_open_the_fleet_retreats_and_the_army_is_annihilated():
    """"If the only available space for a Retreat is a land space, the F will retreat, and the A is
    annihilated.\""""
    pos = position({"Turkey": "A/F Bla", "Russia": "F Sev, F Rum"})
    out = play(pos, "Turkey: A Bla D Arm\nTurkey: F Bla S A Bla D Arm\n"
                    "Russia: F Sev - Bla\nRussia: F Rum S F Sev - Bla")
    assert out.result("A Bla D Arm")[0] == "fails"
    assert "A/F Bla" in out.dislodged()
    out = play(out.next, "Turkey: A/F Bla - Con")
    assert out.units("Turkey") == {"F Con"}


def test_IVd_an_attack_that_does_not_dislodge_the_fleet_only_cuts_its_support():
    """"When an A/F attempts to disembark its A, with F support, and the F, instead, is dislodged ..."
    (ruling): an attack that does not dislodge the fleet does not stop the landing; it cuts the
    fleet's support, as any attack would."""
    pos = position({"England": "A/F Eng", "France": "F Mao"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng S A Eng D Wal\nFrance: F Mao - Eng")
    assert out.result("A Eng D Wal") == ("succeeds", "")
    assert out.result("F Eng S A Eng D Wal") == ("fails", "cut")
    assert out.units() == {"England": {"A Wal", "F Eng"}, "France": {"F Mao"}}


def test_IVe_a_supported_attack_on_the_space_the_fleet_left_stops_the_landing():
    """"If the A/F attempts to disembark its A and have the F simultaneously move to a different space
    without supporting its A, and the F would lose its original sea space due to a move with support by
    units of other Powers, the disembarkation order will fail ... In any such case, the A will accompany
    the F in its ordered move, providing the F was ordered to a sea space.\""""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng - Nth\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng")
    assert out.result("A Eng D Wal")[0] == "fails"
    assert out.result("F Eng - Nth") == ("succeeds", "")
    assert out.units() == {"England": {"A/F Nth"}, "France": {"F Eng", "F Mao"}}


def test_IVe_the_fleet_ordered_to_a_land_space():
    """"If the F was ordered to a land space, the GM will move the A/F to the nearest sea space in
    accordance with the Right-Hand Rule, if no Retreat orders are on file." (ruling: the A/F retreats
    from its space to a sea space next to where the fleet went; without an order, by the game's
    default retreat)."""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    orders = "England: A Eng D Wal\nEngland: F Eng - Lon\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng"
    out = play(pos, orders)
    assert out.dislodged() == {"A/F Eng": ["Nth"]}
    assert out.units("England") == set()
    nxt = play(out.next, "England: A/F Eng - Nth")
    assert nxt.units("England") == {"A/F Nth"}
    out = play(pos, orders, default_retreat="right_hand")
    nxt = play(out.next, "", default_retreat="right_hand")
    assert nxt.units("England") == {"A/F Nth"}


def test_IVe_a_move_of_the_a_fs_own_power_does_not_disrupt_the_landing():
    """"... and the F would lose its original sea space due to a move with support by units of other
    Powers, the disembarkation order will fail" (ruling): an English fleet taking the space England's
    A/F left, even with French support, takes nothing from England; the landing succeeds."""
    pos = position({"England": "A/F Eng, F Mao", "France": "F Bre"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng - Nth\nEngland: F Mao - Eng\nFrance: F Bre S F Mao - Eng")
    assert out.result("A Eng D Wal") == ("succeeds", "")
    assert out.units("England") == {"A Wal", "F Nth", "F Eng"}


def test_IVf_an_unsupported_fleet_into_the_space_left_does_not_stop_the_landing():
    """"However, if the A/F merely disembarks its A into a land province and then moves away without
    supporting the A, and the initial sea space is then occupied by another F or A/F of any
    nationality, which takes the space without support, the disembarkation succeeds.\""""
    pos = position({"England": "A/F Eng", "France": "F Bre"})
    out = play(pos, "England: A Eng D Wal\nEngland: F Eng - Nth\nFrance: F Bre - Eng")
    assert out.units() == {"England": {"A Wal", "F Nth"}, "France": {"F Eng"}}
