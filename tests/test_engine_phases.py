"""The calendar around the resolver: which phase comes next, ownership, defaults, victory."""

from __future__ import annotations

from judge.adjudicate import run_phase


def pos(phase: str, units: dict, centers: dict | None = None, dislodged: dict | None = None) -> dict:
    p = {"variant": "standard", "phase": phase, "units": units}
    if centers is not None:
        p["centers"] = centers
    if dislodged is not None:
        p["dislodged"] = dislodged
    return p


def test_spring_without_dislodgements_skips_the_retreat_phase():
    out = run_phase("standard", pos("Spring 1901 Movement", {"England": ["F Lon"]}), "F Lon - Nth")
    assert out["next"]["phase"] == "Fall 1901 Movement"


def test_dislodgement_leads_to_retreat_phase_with_options():
    out = run_phase("standard", pos("Spring 1901 Movement", {"Germany": ["A Mun"], "Austria": ["A Boh", "A Tyr"]}),
                    "Austria: A Boh - Mun\nAustria: A Tyr S A Boh - Mun")
    nxt = out["next"]
    assert nxt["phase"] == "Spring 1901 Retreat"
    d = nxt["dislodged"]["Germany"][0]
    assert d["unit"] == "A Mun" and d["from"] == "Boh"
    assert "Boh" not in d["retreats"] and "Tyr" not in d["retreats"]
    assert set(d["retreats"]) == {"Ber", "Bur", "Kie", "Ruh", "Sil"}


def test_a_dislodged_unit_with_a_void_support_or_convoy_says_it_was_dislodged():
    """Regression: a void support (or convoy) of a unit that was dislodged was reported only as
    void, so the result did not say the unit was dislodged."""
    p = pos("Spring 1901 Movement", {"Austria": ["A Vie", "A Bud"], "Italy": ["A Tri"],
                                     "England": ["F Nth", "A Lon"], "France": ["F Eng", "F Bel"]})
    out = run_phase("standard", p, "Italy: A Tri S A Vie\nAustria: A Vie - Tri\nAustria: A Bud S A Vie - Tri\n"
                                   "England: F Nth C A Lon - Bel\nFrance: F Eng - Nth\nFrance: F Bel S F Eng - Nth")
    res = {o["order"]: (o["result"], o["reason"]) for o in out["orders"]}
    assert res["A Tri S A Vie"] == ("fails", "void: the supported unit was not ordered so, dislodged")
    assert res["F Nth C A Lon - Bel"] == ("fails", "void: the army was not ordered so, dislodged")
    assert {d["unit"] for ds in out["next"]["dislodged"].values() for d in ds} == {"A Tri", "F Nth"}


def test_unordered_retreat_disbands_and_two_retreats_to_one_place_both_die():
    p = pos("Spring 1901 Retreat", {"Austria": ["A Mun"], "France": ["A Bur"]},
            dislodged={"Germany": [{"unit": "A Ber", "from": "Pru", "retreats": ["Kie", "Sil"]}],
                       "Russia": [{"unit": "A Boh", "from": "Vie", "retreats": ["Sil", "Gal"]}],
                       "Italy": [{"unit": "A Ruh", "from": "Bur", "retreats": ["Hol"]}]})
    out = run_phase("standard", p, "Germany: A Ber - Sil\nRussia: A Boh - Sil")
    res = {o["order"]: o for o in out["orders"]}
    assert res["A Ber - Sil"]["result"] == "fails" and res["A Boh - Sil"]["result"] == "fails"
    assert res["A Ruh D"]["default"] and res["A Ruh D"]["result"] == "succeeds"
    nxt = out["next"]
    assert nxt["phase"] == "Fall 1901 Movement"
    assert not nxt["units"].get("Germany") and not nxt["units"].get("Russia") and not nxt["units"].get("Italy")


def test_retreat_to_a_place_not_in_the_options_is_invalid():
    p = pos("Spring 1901 Retreat", {"Austria": ["A Mun"]},
            dislodged={"Germany": [{"unit": "A Ber", "from": "Mun", "retreats": ["Kie", "Sil", "Pru"]}]})
    out = run_phase("standard", p, "Germany: A Ber - Mun\nGermany: A Ber - Kie")
    assert out["orders"][0]["result"] == "invalid" and "Mun" in out["orders"][0]["reason"] or "Munich" in out["orders"][0]["reason"]
    assert out["orders"][1]["result"] == "succeeds"
    assert out["next"]["units"]["Germany"] == ["A Kie"]


def test_fall_move_changes_ownership_and_leads_to_adjustment():
    p = pos("Fall 1901 Movement", {"England": ["F Nth", "A Lvp", "F Edi"]},
            {"England": ["Lon", "Edi", "Lvp"], "Russia": ["Nwy"]})
    out = run_phase("standard", p, "England: F Nth - Nwy")
    nxt = out["next"]
    assert nxt["phase"] == "Winter 1901 Adjustment"
    assert "Nwy" in nxt["centers"]["England"] and not nxt["centers"].get("Russia")


def test_spring_occupation_does_not_change_ownership():
    p = pos("Spring 1901 Movement", {"England": ["F Nth"]}, {"England": ["Lon"], "Russia": ["Nwy"]})
    out = run_phase("standard", p, "England: F Nth - Nwy")
    assert out["next"]["centers"]["Russia"] == ["Nwy"]


def test_ownership_counts_units_after_fall_retreats():
    p = pos("Fall 1901 Retreat", {"Austria": ["A Vie"]}, {"Germany": ["Mun"]},
            {"Germany": [{"unit": "A Boh", "from": "Gal", "retreats": ["Mun"]}]})
    out = run_phase("standard", p, "Germany: A Boh - Mun")
    assert out["next"]["centers"]["Germany"] == ["Mun"]
    assert out["next"]["phase"] == "Spring 1902 Movement"  # no adjustments due: skipped


def test_missing_builds_are_waived_and_nothing_due_skips_winter():
    p = pos("Winter 1901 Adjustment", {"England": ["F Nth"]}, {"England": ["Lon", "Edi"]})
    out = run_phase("standard", p, "")
    assert [o["order"] for o in out["orders"]] == ["Waive"]
    assert out["orders"][0]["default"]
    assert out["next"]["phase"] == "Spring 1902 Movement"


def test_builds_need_owned_vacant_home_centre():
    p = pos("Winter 1901 Adjustment", {"England": ["F Lon"], "Russia": []},
            {"England": ["Lon", "Edi", "Lvp", "Nwy"]})
    out = run_phase("standard", p, "England: Build A Nwy\nEngland: Build F Lon\nEngland: Build F Edi\n"
                                    "England: Build A Lvp\nEngland: Build A Yor")
    res = [(o["order"], o["result"]) for o in out["orders"]]
    assert res[0][1] == "invalid"  # not a home centre
    assert res[1][1] == "invalid"  # occupied
    assert res[2][1] == "succeeds" and res[3][1] == "succeeds"
    assert res[4][1] in ("invalid", "fails")  # no builds left and not a centre
    assert sorted(out["next"]["units"]["England"]) == ["A Lvp", "F Edi", "F Lon"]


def test_solo_victory_is_reported():
    centres = ["Lon", "Edi", "Lvp", "Nwy", "Swe", "Den", "Hol", "Bel", "Kie", "Ber", "Mun", "Par", "Bre", "Mar",
               "Spa", "Por", "Stp"]
    p = pos("Fall 1910 Movement", {"England": ["F Nth", "A Ruh"]}, {"England": centres})
    out = run_phase("standard", p, "England: A Ruh - Mun\nEngland: F Nth H")
    assert "victory" not in out  # Mun was already English: 17 centres
    p["centers"] = {"England": [c for c in centres if c != "Mun"]}
    p["units"]["Germany"] = []
    out = run_phase("standard", p, "England: A Ruh - Ruh")
    assert "victory" not in out
    p["units"] = {"England": ["F Nth", "A Ruh"]}
    p["centers"] = {"England": centres[:-1], "Germany": ["Vie"]}
    out = run_phase("standard", p, "England: F Nth - Nwy\nEngland: A Ruh - Vie")  # Ruh-Vie illegal, Nwy owned
    assert "victory" not in out
    p["units"] = {"England": ["A Boh"]}
    p["centers"] = {"England": centres[:-1]}  # 16 + Vie = 17: not yet
    out = run_phase("standard", p, "England: A Boh - Vie")
    assert "victory" not in out
    p["centers"] = {"England": centres}  # 17 + Vie = 18
    out = run_phase("standard", p, "England: A Boh - Vie")
    assert out["victory"]["winner"] == ["England"] and out["victory"]["centres"] == 18


def test_civil_disorder_removal_when_removals_missing():
    p = pos("Winter 1901 Adjustment", {"Russia": ["A Lvn", "A Swe"]}, {"Russia": ["StP"]})
    out = run_phase("standard", p, "")
    assert out["orders"][0]["order"] == "Remove A Swe" and out["orders"][0]["reason"] == "civil disorder"


def test_game_options_reach_the_adjustment_phase():
    p = pos("Winter 1901 Adjustment", {"England": ["F Lon"]}, {"England": ["Lon", "Nwy"]})
    out = run_phase("standard", p, "England: Build A Nwy")
    assert out["orders"][0]["result"] == "invalid"
    out = run_phase("standard", p, "England: Build A Nwy", {"build_sites": "any_owned"})
    assert out["orders"][0]["result"] == "succeeds"


def test_a_waive_outside_an_adjustment_phase_is_invalid_not_a_crash():
    move = run_phase("standard", {"variant": "standard", "phase": "Spring 1901 Movement"}, "England: Waive\n")
    retreat = run_phase("standard", {"variant": "standard", "phase": "Spring 1901 Retreat", "units": {"Austria": ["A Mun"]},
                                     "dislodged": {"Germany": [{"unit": "A Mun", "from": "Boh"}]}}, "England: Waive\n")
    for out in (move, retreat):
        assert out["orders"][0] == {"power": "England", "order": "Waive", "result": "invalid",
                                    "reason": "a waive is given only in an adjustment phase"}
