"""Coast-Running (Eric Verheiden): every example of the rule text, and the rulings.

Rule text: ../shared/seeds/002_d8800235afaf96fe.txt; rulings: docs/rulings.md ("Coast-Running").
Each test plays one movement phase through the engine's JSON contract,
``judge.adjudicate.run_phase("coast_running", position, orders)``. Orders are written as in the
text where the judge reads that notation (``Mid``, ``WMed``, ``Helg``, ``Holl``, ``Nat``).
"""

from __future__ import annotations

import pytest

from judge.adjudicate import run_phase


def play(units: dict[str, list[str]], orders: str, options: dict | None = None, variant: str = "coast_running"):
    """Adjudicate ``orders`` (one a line, in order) on a board of ``units``; return the output
    and the (result, reason) of each order line, in input order."""
    pos = {"variant": variant, "phase": "Spring 1901 Movement", "units": units}
    out = run_phase(variant, pos, orders, options)
    lines = [ln for ln in orders.splitlines() if ln.split("#", 1)[0].strip()]
    res = [(o["result"], o["reason"]) for o in out["orders"][:len(lines)]]
    return out, res


def board(out) -> dict[str, list[str]]:
    return {p: sorted(us) for p, us in out["next"]["units"].items() if us}


def dislodged(out) -> dict[str, dict]:
    return {d["unit"]: d for ds in out["next"].get("dislodged", {}).values() for d in ds}


# ============================================================ the convoy rule replacing XII.5
NORTH_SEA_UNITS = {"England": ["F Lon", "A Yor", "F Nth", "F Helg"], "Germany": ["F Holl", "F Bel"]}


def test_north_sea_supported_convoying_fleet_no_brannan_holland_dislodged():
    """"The unsuccessful supported attack on EF Nth does not stand off the supported convoy
    attack" (F Holl dislodged; no part of Brannan's Rule)."""
    out, res = play(NORTH_SEA_UNITS, """England: F Lon S F Nth
England: A Yor - Holl
England: F Nth C A Yor - Holl
England: F Helg S A Yor - Holl
Germany: F Holl - Nth
Germany: F Bel S F Holl - Nth""")
    assert res[1] == ("succeeds", "")
    assert res[4][0] == "fails"
    assert board(out)["England"] == ["A Hol", "F Hel", "F Lon", "F Nth"]
    assert list(dislodged(out)) == ["F Hol"]


def test_north_sea_unsupported_convoying_fleet_dislodged_army_stays():
    """"if EF Nth were unsupported, it would be dislodged ... EA Yor would then remain in its
    original position"."""
    out, res = play(NORTH_SEA_UNITS, """England: F Lon H
England: A Yor - Holl
England: F Nth C A Yor - Holl
England: F Helg S A Yor - Holl
Germany: F Holl - Nth
Germany: F Bel S F Holl - Nth""")
    assert res[1] == ("fails", "no convoy")
    assert res[4] == ("succeeds", "")
    assert list(dislodged(out)) == ["F Nth"]
    assert "A Yor" in board(out)["England"]
    assert board(out)["Germany"] == ["F Bel", "F Nth"]


def test_north_sea_unsupported_regardless_of_supports_for_the_convoyed_attack():
    """"... regardless of how many supports were given to the convoyed attack, as opposed to the
    convoying fleet"."""
    units = {"England": ["F Lon", "A Yor", "F Nth", "F Helg", "A Ruh"], "Germany": ["F Holl", "F Bel"]}
    out, res = play(units, """England: F Lon H
England: A Yor - Holl
England: F Nth C A Yor - Holl
England: F Helg S A Yor - Holl
England: A Ruh S A Yor - Holl
Germany: F Holl - Nth
Germany: F Bel S F Holl - Nth""")
    assert res[1] == ("fails", "no convoy")
    assert list(dislodged(out)) == ["F Nth"]
    assert "A Yor" in board(out)["England"]


# ============================================================ legal and illegal runs
def test_run_ion_to_wmed_protected_by_tunis():
    """F Ion-WMed. A Tun P F Ion-WMed."""
    out, res = play({"Italy": ["F Ion", "A Tun"]}, "F Ion - WMed\nA Tun P F Ion - WMed")
    assert res == [("succeeds", ""), ("succeeds", "")]
    assert board(out)["Italy"] == ["A Tun", "F Wes"]


def test_run_edi_to_nat_protected_by_clyde():
    """F Edi-Nat. A Cly P F Edi-Nat."""
    out, res = play({"England": ["F Edi", "A Cly"]}, "F Edi - Nat\nA Cly P F Edi - Nat")
    assert res == [("succeeds", ""), ("succeeds", "")]
    assert board(out)["England"] == ["A Cly", "F Nao"]


def test_multiple_run_tri_to_ion_by_venice_and_apulia():
    """F Tri-Ion. A Ven P F Tri-Ion. A Apu P F Tri-Ion. (a string of protecting armies)"""
    out, res = play({"Austria": ["F Tri"], "Italy": ["A Ven", "A Apu"]},
                    "F Tri - Ion\nA Ven P F Tri - Ion\nA Apu P F Tri - Ion")
    assert res == [("succeeds", "")] * 3
    assert board(out)["Austria"] == ["F Ion"]


def test_illegal_run_stp_to_english_channel_string_broken_in_north_sea():
    """F StP nc - E.C. A Nwy P F StP-EC. A Lon P F StP-EC. ("The string of protecting armies is
    broken in the North Sea, so the move is illegal.")"""
    out, res = play({"Russia": ["F StP/nc"], "England": ["A Nwy", "A Lon"]},
                    "F StP/nc - Eng\nA Nwy P F StP/nc - Eng\nA Lon P F StP/nc - Eng")
    assert [r for r, _ in res] == ["invalid"] * 3
    assert "broken in North Sea" in res[0][1]
    assert "not even by coast-running" in res[0][1]
    assert board(out) == {"England": ["A Lon", "A Nwy"], "Russia": ["F StP/nc"]}


def test_run_bal_to_nth_through_kiel_and_holland():
    """F Bal-Nth. A Kie P F Bal-Nth. A Holl P F Bal-Nth. (through fleet-permeable Kiel)"""
    out, res = play({"Germany": ["F Bal", "A Kie", "A Holl"]},
                    "F Bal - Nth\nA Kie P F Bal - Nth\nA Holl P F Bal - Nth")
    assert res == [("succeeds", "")] * 3
    assert "F Nth" in board(out)["Germany"]


def test_run_rum_to_gre_both_coasts_of_bulgaria_with_con_between():
    """F Rum-Gre. A Bul P F Rum-Gre. A Con P F Rum-Gre. ("Legal, since F Rum may run both coasts
    of Bulgaria with fleet-permeable Con. between.")"""
    out, res = play({"Russia": ["F Rum"], "Turkey": ["A Bul", "A Con"]},
                    "F Rum - Gre\nA Bul P F Rum - Gre\nA Con P F Rum - Gre")
    assert res == [("succeeds", "")] * 3
    assert board(out)["Russia"] == ["F Gre"]


# ============================================================ the six adjudicated examples
def test_example_ion_and_mid_both_stay():
    """IF Ion-WMed. IA Tun P IF Ion-WMed. FF Mid-WMed. (Both end up in their original positions.)"""
    out, res = play({"Italy": ["F Ion", "A Tun"], "France": ["F Mid"]},
                    "IF Ion-WMed\nIA Tun P IF Ion-WMed\nFF Mid-WMed")
    assert res[0] == ("fails", "bounced")
    assert res[2] == ("fails", "bounced")
    assert board(out) == {"France": ["F Mao"], "Italy": ["A Tun", "F Ion"]}


def test_example_austrian_fleet_in_aegean_dislodged():
    """RF Bla-Aeg. TA Con P RF Bla-Aeg. TF Smy (S) RF Bla-Aeg. AF Aeg (h). (dislodged)"""
    out, res = play({"Russia": ["F Bla"], "Turkey": ["A Con", "F Smy"], "Austria": ["F Aeg"]},
                    "RF Bla-Aeg\nTA Con P RF Bla-Aeg\nTF Smy S RF Bla-Aeg\nAF Aeg H")
    assert res[:3] == [("succeeds", "")] * 3
    assert res[3] == ("fails", "dislodged")
    assert board(out)["Russia"] == ["F Aeg"]
    assert list(dislodged(out)) == ["F Aeg"]


def test_example_protection_not_cut_by_bul_gre():
    """AF Alb-Aeg. AA Gre P AF Alb-Aeg. TA Bul-Gre. (Protection may not be cut.)"""
    out, res = play({"Austria": ["F Alb", "A Gre"], "Turkey": ["A Bul"]},
                    "AF Alb-Aeg\nAA Gre P AF Alb-Aeg\nTA Bul-Gre")
    assert res == [("succeeds", ""), ("succeeds", ""), ("fails", "bounced")]
    assert board(out)["Austria"] == ["A Gre", "F Aeg"]


def test_example_dislodged_bel_disrupts_run():
    """FF Pic-Nth. FA Bel P FF Pic-Nth. GA Ruh-Bel. GF Holl (S) GA Ruh-Bel. (FA Bel dislodged,
    thus disrupting the coastal run.)"""
    out, res = play({"France": ["F Pic", "A Bel"], "Germany": ["A Ruh", "F Holl"]},
                    "FF Pic-Nth\nFA Bel P FF Pic-Nth\nGA Ruh-Bel\nGF Holl S GA Ruh-Bel")
    assert res[0] == ("fails", "no protection")
    assert res[1] == ("fails", "dislodged")
    assert board(out)["France"] == ["F Pic"]
    assert list(dislodged(out)) == ["A Bel"]


def test_example_ambiguous_kie_den_route_fleet_stays():
    """GF Helg-Bal. GA Kie P. GA Den P. EF Nth-Den. RF Swe (S) EF Nth-Den. (GA Denmark is
    dislodged. The route being ambiguous, the fleet does not move.) The route through Kiel alone
    stays open, yet the run fails."""
    out, res = play({"Germany": ["F Helg", "A Kie", "A Den"], "England": ["F Nth"], "Russia": ["F Swe"]},
                    "GF Helg-Bal\nGA Kie P GF Helg-Bal\nGA Den P GF Helg-Bal\nEF Nth-Den\nRF Swe S EF Nth-Den")
    assert res[0] == ("fails", "no protection")
    assert res[1] == ("succeeds", "")
    assert res[2] == ("fails", "dislodged")
    assert board(out)["Germany"] == ["A Kie", "F Hel"]
    assert not dislodged(out) and out["destroyed"] == {"Germany": ["A Den"]}  # nowhere to retreat


def test_example_mar_may_not_cut_support_of_mid():
    """FF Mar-Mid. FA Spa P FF Mar-Mid. EF Por-Spa. EF Mid (s) EF Por-Spa. (FA Spa dislodged. FF
    Mar may not cut the support of EF Mid and so affect the attack on its protecting army.)
    The text leaves out the coast of Spain the fleet from Portugal goes to; the judge needs one."""
    out, res = play({"France": ["F Mar", "A Spa"], "England": ["F Por", "F Mid"]},
                    "FF Mar-Mid\nFA Spa P FF Mar-Mid\nEF Por-Spa/sc\nEF Mid S EF Por-Spa")
    assert res[0][0] == "fails" and "no protection" in res[0][1]
    assert res[1] == ("fails", "dislodged")
    assert res[2] == ("succeeds", "")
    assert res[3] == ("succeeds", "")  # the support is not cut
    assert board(out)["France"] == ["F Mar"]
    assert list(dislodged(out)) == ["A Spa"]


# ============================================================ rulings (docs/rulings.md)
def test_ruling_protecting_army_may_belong_to_another_power():
    """TA Con protects RF Bla: any power's army may protect any power's fleet."""
    out, res = play({"Russia": ["F Bla"], "Turkey": ["A Con"]}, "F Bla - Aeg\nA Con P F Bla - Aeg")
    assert res == [("succeeds", ""), ("succeeds", "")]


def test_ruling_run_may_end_on_a_named_coast_of_a_double_coasted_province():
    out, res = play({"Turkey": ["F Ank", "A Con"]}, "F Ank - Bul/sc\nA Con P F Ank - Bul")
    assert res == [("succeeds", ""), ("succeeds", "")]
    assert board(out)["Turkey"] == ["A Con", "F Bul/sc"]


def test_ruling_run_coast_must_be_given_when_two_are_possible():
    out, res = play({"Turkey": ["F Ank", "A Con"]}, "F Ank - Bul\nA Con P F Ank - Bul")
    assert res[0][0] == "invalid" and "coast of Bulgaria must be given" in res[0][1]
    assert board(out)["Turkey"] == ["A Con", "F Ank"]


def test_ruling_without_a_coast_the_directly_reachable_coast_is_taken():
    """F Aeg - Bul reaches Bul/sc directly; an own army's protection makes it a run to Bul/sc."""
    out, res = play({"Turkey": ["F Aeg", "A Con"]}, "F Aeg - Bul\nA Con P F Aeg - Bul")
    assert res == [("succeeds", ""), ("succeeds", "")]
    assert board(out)["Turkey"] == ["A Con", "F Bul/sc"]


def test_ruling_no_run_through_spain_from_coast_to_coast():
    out, res = play({"France": ["F Gas", "A Spa"]}, "F Gas - Wes\nA Spa P F Gas - Wes")
    assert [r for r, _ in res] == ["invalid", "invalid"]
    assert "no run passes Spain from one coast to the other" in res[0][1]


def test_ruling_both_coasts_of_spain_joined_through_portugal():
    out, res = play({"France": ["F Gas", "A Spa", "A Por"]}, "F Gas - Wes\nA Spa P F Gas - Wes\nA Por P F Gas - Wes")
    assert res == [("succeeds", "")] * 3
    assert "F Wes" in board(out)["France"]


def test_ruling_run_through_sweden():
    out, res = play({"Russia": ["F Bot", "A Swe"]}, "F Bot - Ska\nA Swe P F Bot - Ska")
    assert res == [("succeeds", ""), ("succeeds", "")]


def test_ruling_army_cannot_protect_a_run_into_its_own_province():
    out, res = play({"Russia": ["F Rum"], "Turkey": ["A Bul", "A Con"]},
                    "F Rum - Bul/sc\nA Bul P F Rum - Bul\nA Con P F Rum - Bul")
    assert [r for r, _ in res] == ["invalid"] * 3
    assert "into its own province" in res[1][1]


def test_ruling_protect_order_legality():
    units = {"Italy": ["F Ion", "A Tun", "A Rom", "A Bur", "F Nap", "A Pie"], "France": ["F Mao"]}
    out, res = play(units, """A Rom P F Ion - Wes
A Bur P F Ion - Wes
F Nap P F Ion - Wes
A Tun P F Mao - Lyo
A Pie P A Tun - Wes""")
    assert res[0][0] == "invalid" and "not on any coast-running route" in res[0][1]
    assert res[1][0] == "invalid" and "coastal" in res[1][1]
    assert res[2][0] == "invalid"  # only an army protects
    assert res[3][0] == "invalid"  # Tunis is on no route from Mao to Lyo
    assert res[4][0] == "invalid"  # only a fleet runs


def test_ruling_protection_of_a_fleet_not_ordered_so_is_void():
    out, res = play({"Italy": ["F Ion", "A Tun"]}, "F Ion H\nA Tun P F Ion - Wes")
    assert res[1] == ("fails", "void: the fleet was not ordered so")


def test_ruling_adjacent_move_with_own_protection_is_a_run_and_may_swap():
    """As DATC 4.A.3 for convoys: protection by an army of the fleet's own power makes a move to
    an adjacent space a run; a run is no head-to-head battle."""
    out, res = play({"Italy": ["F Wes", "A Tun"], "France": ["F Tys"]},
                    "Italy: F Wes - Tys\nItaly: A Tun P F Wes - Tys\nFrance: F Tys - Wes")
    assert res == [("succeeds", "")] * 3
    assert board(out) == {"France": ["F Wes"], "Italy": ["A Tun", "F Tys"]}


def test_ruling_adjacent_move_with_foreign_protection_is_a_direct_move():
    out, res = play({"Italy": ["F Wes"], "Turkey": ["A Tun"], "France": ["F Tys"]},
                    "Italy: F Wes - Tys\nTurkey: A Tun P F Wes - Tys\nFrance: F Tys - Wes")
    assert res[0] == ("fails", "bounced")
    assert res[1] == ("fails", "void: the fleet moves there directly, not by a run")
    assert res[2] == ("fails", "bounced")


def test_ruling_disrupted_run_stands_nothing_off():
    """"the fleet may have no effect upon the province to which it was ordered": no stand-off."""
    out, res = play({"France": ["F Pic", "A Bel"], "Germany": ["A Ruh", "F Holl"], "England": ["F Edi"]},
                    "FF Pic-Nth\nFA Bel P FF Pic-Nth\nGA Ruh-Bel\nGF Holl S GA Ruh-Bel\nEF Edi-Nth")
    assert res[0] == ("fails", "no protection")
    assert res[4] == ("succeeds", "")
    assert board(out)["England"] == ["F Nth"]


def test_ruling_disrupted_run_cuts_no_support():
    out, res = play({"France": ["F Pic", "A Bel"], "Germany": ["A Ruh", "F Holl", "F Nth"]},
                    "FF Pic-Nth\nFA Bel P FF Pic-Nth\nGA Ruh-Bel\nGF Holl S GA Ruh-Bel\nGF Nth S GA Ruh-Bel")
    assert res[0] == ("fails", "no protection")
    assert res[4] == ("succeeds", "")  # not cut


def test_ruling_failed_run_fleet_may_still_be_dislodged_at_home():
    """"returned to its original space unharmed": the failed run does the fleet no harm, but like
    any unit whose move failed it can be dislodged where it stands."""
    out, res = play({"Italy": ["F Ion", "A Tun"], "France": ["F Mid"], "Turkey": ["F Eas", "F Aeg"]},
                    "IF Ion-WMed\nIA Tun P IF Ion-WMed\nFF Mid-WMed\nTF Eas-Ion\nTF Aeg S TF Eas-Ion")
    assert res[0] == ("fails", "bounced, dislodged")
    assert list(dislodged(out)) == ["F Ion"]


def test_ruling_protecting_army_may_be_supported_to_hold_and_the_run_goes_on():
    out, res = play({"France": ["F Mar", "A Spa", "F Lyo"], "England": ["F Por", "F Mid"]},
                    "FF Mar-Mid\nFA Spa P FF Mar-Mid\nFF Lyo S FA Spa\nEF Por-Spa/sc\nEF Mid S EF Por-Spa")
    assert res[0] == ("fails", "bounced")  # the run takes place and bounces in Mid
    assert res[1] == ("succeeds", "")
    assert res[3] == ("fails", "bounced")
    assert res[4] == ("fails", "cut")  # Spain holds either way, so the run may cut the support


def test_ruling_run_may_not_dislodge_a_supporter_of_the_attack_on_its_protector():
    """"however directly or indirectly": dislodging the supporter would affect the attack on the
    protecting army, so the run does not take place."""
    out, res = play({"France": ["F Mar", "A Spa", "F Bre"], "England": ["F Por", "F Mid"]},
                    "FF Mar-Mid\nFA Spa P FF Mar-Mid\nFF Bre S FF Mar-Mid\nEF Por-Spa/sc\nEF Mid S EF Por-Spa")
    assert res[0][0] == "fails"
    assert res[3] == ("succeeds", "")
    assert list(dislodged(out)) == ["A Spa"]
    assert "F Mao" in board(out)["England"]


def test_ruling_protection_off_every_route_is_void_and_its_loss_harmless():
    """Kiel's army is on a route of the board (Kie-Holl) but not of the orders (Holland does not
    protect), so it is in no string: its dislodgement does not disrupt the run through Denmark."""
    units = {"Germany": ["F Bal", "A Kie", "A Den"], "England": ["A Holl"], "Russia": ["A Ber", "A Mun"]}
    out, res = play(units, """Germany: F Bal - Nth
Germany: A Kie P F Bal - Nth
Germany: A Den P F Bal - Nth
Russia: A Ber - Kie
Russia: A Mun S A Ber - Kie""")
    assert res[0] == ("succeeds", "")
    assert res[1] == ("fails", "dislodged")
    assert res[2] == ("succeeds", "")
    assert "F Nth" in board(out)["Germany"]


def test_ruling_off_route_protection_reported_void():
    units = {"Germany": ["F Bal", "A Kie", "A Den"], "England": ["A Holl"]}
    out, res = play(units, "F Bal - Nth\nA Kie P F Bal - Nth\nA Den P F Bal - Nth")
    assert res[1] == ("fails", "void: the army is on no route of the run")


def test_a_dislodged_fleet_whose_convoy_is_on_no_route_says_it_was_dislodged():
    """Regression: the convoy of F Nao (F Mao, which would complete the route, holds) is void and
    the fleet is dislodged; its result said only "void"."""
    units = {"England": ["A Cly", "F Nao", "F Mao"], "France": ["F Nwg", "F Iri"]}
    out, res = play(units, "England: A Cly - Bre\nEngland: F Nao C A Cly - Bre\nEngland: F Mao H\n"
                           "France: F Nwg - Nao\nFrance: F Iri S F Nwg - Nao")
    assert res[1] == ("fails", "void: the fleet is on no route of the convoy, dislodged")
    assert set(dislodged(out)) == {"F Nao"}


def test_ruling_multi_route_convoy_fails_if_one_route_is_disrupted():
    """1971 rulebook (DATC 4.A.1 a), the same as ambiguous runs: DATC 6.F.9 in this variant."""
    units = {"England": ["F Eng", "F Nth", "A Lon"], "France": ["F Bre", "F Mid"]}
    orders = """England: F Eng C A Lon - Bel
England: F Nth C A Lon - Bel
England: A Lon - Bel
France: F Bre S F Mid - Eng
France: F Mid - Eng"""
    out, res = play(units, orders)
    assert res[2] == ("fails", "no convoy")
    assert "A Lon" in board(out)["England"]
    std, res_std = play(units, orders, variant="standard")
    assert res_std[2] == ("succeeds", "")  # the standard judge follows the 1982 rule (DATC preference)


def test_ruling_unit_dislodged_by_a_run_may_retreat_to_the_fleets_space():
    """As DATC 4.A.5 for convoys: the run does not come from its starting space."""
    out, res = play({"Italy": ["F Wes", "A Tun", "F Ion"], "France": ["F Tys"]},
                    "Italy: F Wes - Tys\nItaly: A Tun P F Wes - Tys\nItaly: F Ion S F Wes - Tys\nFrance: F Tys H")
    assert res[0] == ("succeeds", "")
    assert "Wes" in dislodged(out)["F Tys"]["retreats"]


def test_ruling_support_of_a_run_needs_a_possible_run():
    out, res = play({"Russia": ["F Bla"], "Turkey": ["F Smy"], "Austria": ["F Aeg"]},
                    "RF Bla-Aeg\nTF Smy S RF Bla-Aeg")
    assert res[0][0] == "invalid"
    assert res[1][0] == "invalid"


def test_ruling_protect_orders_need_the_module():
    out, res = play({"Italy": ["F Ion", "A Tun"]}, "F Ion - Wes\nA Tun P F Ion - Wes", variant="standard")
    assert [r for r, _ in res] == ["invalid", "invalid"]


@pytest.mark.parametrize("text", ["A Tun P F Ion - Wes", "A Tun protects F Ion - WMed", "IA Tun P IF Ion-WMed"])
def test_protect_notations(text):
    out, res = play({"Italy": ["F Ion", "A Tun"]}, f"F Ion - Wes\n{text}")
    assert res == [("succeeds", ""), ("succeeds", "")]
    assert out["orders"][1]["order"] == "A Tun P F Ion - Wes"


# ============================================================ review of issue 6: more runs and rulings
@pytest.mark.parametrize("units,orders,prov", [
    ({"Russia": ["F Bar", "A StP"]}, "F Bar - Bot\nA StP P F Bar - Bot", "St Petersburg"),
    ({"Russia": ["F Bla", "A Bul"]}, "F Bla - Aeg\nA Bul P F Bla - Aeg", "Bulgaria"),
])
def test_no_run_through_st_petersburg_or_bulgaria(units, orders, prov):
    """"coast-running is possible ... but not through double-coasted provinces (StP, Spa and Bul)"."""
    out, res = play(units, orders)
    assert [r for r, _ in res] == ["invalid", "invalid"]
    assert f"no run passes {prov} from one coast to the other" in res[0][1]


def test_run_string_ending_on_the_far_coast_of_st_petersburg():
    """"Multiple coast-running is possible with a string of protecting armies (unbroken)": through
    fleet-permeable Sweden and along Finland to the south coast, the only coast the string reaches."""
    out, res = play({"England": ["F Ska", "A Swe", "A Fin"]},
                    "F Ska - StP\nA Swe P F Ska - StP\nA Fin P F Ska - StP")
    assert res == [("succeeds", "")] * 3
    assert board(out)["England"] == ["A Fin", "A Swe", "F StP/sc"]


def test_run_string_protector_attacked_but_not_dislodged():
    """"Protection given by coastal armies may not be cut": Apulia, attacked and not dislodged,
    still carries the run."""
    out, res = play({"Austria": ["F Tri"], "Italy": ["A Ven", "A Apu"], "Turkey": ["F Nap"]},
                    "Austria: F Tri - Ion\nItaly: A Ven P F Tri - Ion\nItaly: A Apu P F Tri - Ion\nTurkey: F Nap - Apu")
    assert res == [("succeeds", "")] * 3 + [("fails", "bounced")]
    assert board(out)["Austria"] == ["F Ion"]


def test_run_may_not_cut_the_support_of_an_attack_on_the_second_army_of_its_string():
    """"a convoyed army's attack would affect the outcome of an attack on any of its convoying
    fleets ... the convoyed attack does not take place", with 'fleet' and 'army' swapped: the run
    into the Ionian Sea would cut the support of the attack on Apulia, so it does not happen."""
    out, res = play({"Austria": ["F Tri"], "Italy": ["A Ven", "A Apu"], "Turkey": ["F Ion", "F Nap"]},
                    "Austria: F Tri - Ion\nItaly: A Ven P F Tri - Ion\nItaly: A Apu P F Tri - Ion\n"
                    "Turkey: F Nap - Apu\nTurkey: F Ion S F Nap - Apu")
    assert res[0][0] == "fails" and "no protection" in res[0][1]
    assert res[2] == ("fails", "dislodged")
    assert res[3] == ("succeeds", "") and res[4] == ("succeeds", "")  # the support is not cut
    assert list(dislodged(out)) == ["A Apu"]
    assert board(out)["Austria"] == ["F Tri"]


def test_run_may_not_cut_a_support_that_keeps_its_protector_standing():
    """"however directly or indirectly", the other way round: cutting the Turkish support that holds
    Tunis would let the French attack dislodge the protecting army, so the run does not take place
    and Tunis stands."""
    out, res = play({"Italy": ["F Ion", "A Tun"], "France": ["F Wes", "F NAf"], "Turkey": ["F Tys"]},
                    "Italy: F Ion - Tys\nItaly: A Tun P F Ion - Tys\nFrance: F NAf - Tun\n"
                    "France: F Wes S F NAf - Tun\nTurkey: F Tys S A Tun")
    assert res[0][0] == "fails" and "no protection" in res[0][1]
    assert res[2] == ("fails", "bounced")
    assert res[4] == ("succeeds", "")  # not cut
    assert not dislodged(out)
    assert board(out)["Italy"] == ["A Tun", "F Ion"]


def test_ruling_protect_naming_another_coast_is_void():
    """A protect order names the run it protects; a coast it names must be the fleet's (as a
    support's coast must match, DATC 4.B.4)."""
    out, res = play({"Turkey": ["F Ank", "A Con"]}, "F Ank - Bul/sc\nA Con P F Ank - Bul/ec")
    assert res[0] == ("fails", "no protection")
    assert res[1] == ("fails", "void: the fleet was not ordered so")
    assert board(out)["Turkey"] == ["A Con", "F Ank"]
    out, res = play({"Turkey": ["F Ank", "A Con"]}, "F Ank - Bul(sc)\nA Con P F Ank - Bul/SC")  # the same coast
    assert res == [("succeeds", ""), ("succeeds", "")]


def test_ruling_a_fleet_cannot_run_to_the_other_coast_of_its_own_province():
    """Running "both coasts of a double-coasted province" is passing through; a move (a run too)
    goes to another province, so F Spa/nc cannot run round Portugal to Spa/sc."""
    out, res = play({"France": ["F Spa/nc", "A Por"]}, "F Spa/nc - Spa/sc\nA Por P F Spa/nc - Spa/sc")
    assert [r for r, _ in res] == ["invalid", "invalid"]
    assert "own province" in res[0][1] and "own province" in res[1][1]
    assert board(out)["France"] == ["A Por", "F Spa/nc"]
