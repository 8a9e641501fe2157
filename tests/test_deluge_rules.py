"""Deluge II: the rules, phase by phase, on the engine directly (pure unit tests).

Rules text: ../shared/seeds/004_5240fdd735c3ce1b.txt. The A/F rules (rule 7, revisions 2 and 3)
belong to the Army/Fleet module; their tests here skip until that module exists.
"""

from __future__ import annotations


import pytest

from judge.engine import adjudicate
from judge.engine.modules.deluge import LAST_UNIT
from judge.engine.position import Position
from judge.orders import parse_orders as parse_canonical
from judge.engine.variant_kinds import Transform
from judge.rules import merge_rules
from judge.variant import load_variant

V = load_variant("deluge2")
RULES = merge_rules(V.rules, {})  # the seed's rules, the Army/Fleet module included


def position(phase: str, units: dict, centres: dict | None = None, extra: dict | None = None) -> Position:
    data: dict = {"variant": "deluge2", "phase": phase, "units": units}
    if centres is not None:
        data["centers"] = centres
    if extra:
        data["extra"] = extra
    return Position.from_json(data, V)


def play(pos: Position, text: str = "", *more):
    parsed = parse_canonical(text, pos)
    assert all(p.order for p in parsed), [p.error for p in parsed]
    return adjudicate(pos, [p.order for p in parsed] + list(more), RULES)


def units(res) -> dict[str, list[str]]:
    return {k: v for k, v in res.next.to_json()["units"].items() if v}


def centres(res) -> dict[str, list[str]]:
    return {k: v for k, v in res.next.to_json()["centers"].items() if v}


def result_of(res, text: str):
    for r in res.results:
        if r.text == text:
            return r
    raise AssertionError(f"no result for {text!r}: {[r.text for r in res.results]}")


# -- rule 1: Winter 1900 ---------------------------------------------------------------------------
def test_winter_1900_players_choose_their_units():
    pos = Position.from_json(V.start_position(), V)
    assert str(pos.phase) == "Winter 1900 Adjustment" and not pos.units
    res = play(pos, """Russia: Build F StP/nc
Russia: Build F Sev
Russia: Build A Mos
Russia: Build F War
England: Build A Lon
England: Build A Edi
England: Build F Lvp
Turkey: Build F Con""")
    assert str(res.next.phase) == "Spring 1901 Movement"
    assert result_of(res, "Build F War").result == "invalid"  # no fleet inland in Warsaw
    # a home centre left unbuilt gets the regular game's unit (rule 0), not a waived build
    assert sorted(units(res)["Russia"]) == ["A Mos", "A War", "F Sev", "F StP/nc"]
    assert result_of(res, "Build A War").reason.startswith("no order")
    assert units(res)["England"] == ["A Edi", "A Lon", "F Lvp"]
    assert sorted(units(res)["Turkey"]) == ["A Smy", "F Ank", "F Con"]
    res = play(pos, "")  # a power that misses the first deadline still starts with its units
    assert sorted(units(res)["Austria"]) == ["A Bud", "A Vie", "F Tri"]


# -- rule 6: builds in any vacant owned centre ----------------------------------------------------
def test_builds_in_any_vacant_owned_centre():
    pos = position("Winter 1902 Adjustment", {"France": ["A Par"], "England": ["F Nth"]},
                   {"France": ["Par", "Spa", "Tun", "Mun"], "England": ["Edi", "Nwy"]})
    res = play(pos, "France: Build A Par\nFrance: Build F Spa/sc\nFrance: Build F Tun\nFrance: Build A Mun\n"
                    "England: Build A Edi")
    assert result_of(res, "Build A Par").result == "invalid"  # occupied
    assert set(units(res)["France"]) == {"A Par", "F Spa/sc", "F Tun", "A Mun"}  # none a French home centre
    assert "F Nth" in units(res)["England"] and "A Edi" in units(res)["England"]


def test_no_build_in_a_centre_not_owned():
    pos = position("Winter 1902 Adjustment", {"France": ["A Par"]}, {"France": ["Par", "Spa"], "Germany": ["Mun"]})
    res = play(pos, "France: Build A Mun")
    assert result_of(res, "Build A Mun").result == "invalid"


# -- rules 3 and 4: submergence, drowning, destroyed centres -------------------------------------
def test_armies_in_sinking_provinces_drown_fleets_stay_at_sea():
    pos = position("Winter 1901 Adjustment",
                   {"Italy": ["A Ven", "F Rom"], "England": ["A Lon", "F Edi"], "Germany": ["F Hol", "A Kie"],
                    "Russia": ["A Lvn"], "France": ["F Gas", "A Par"]},
                   {"Italy": ["Ven", "Rom"], "England": ["Lon", "Edi"], "Germany": ["Hol", "Kie"],
                    "France": ["Par", "Mar"], "Russia": ["Mos"]})
    res = play(pos)
    assert str(res.next.phase) == "Spring 1902 Movement"
    u = units(res)
    assert "Russia" not in u  # A Lvn drowned
    assert u["Italy"] == ["F Rom/sc"]  # A Ven drowned; F Rom held on the Tyrrhenian side
    assert u["England"] == ["F Edi"]
    assert u["Germany"] == ["F Hol", "A Kie"] or set(u["Germany"]) == {"F Hol", "A Kie"}
    assert set(u["France"]) == {"F Gas", "A Par"}
    assert res.next.map.terrain["hol"] == "sea"
    assert any("A Ven drowned" in e for e in res.events) and any("A Lon drowned" in e for e in res.events)
    assert any(e.startswith("submerged: ") and "Venice" in e for e in res.events)


def test_a_sunk_centre_does_not_count_at_the_next_winter():
    pos = position("Winter 1901 Adjustment", {"Italy": ["F Ven", "F Rom", "F Nap"]},
                   {"Italy": ["Ven", "Rom", "Nap"]})
    res = play(pos)
    assert centres(res)["Italy"] == ["Nap", "Rom"]
    fall = position("Fall 1902 Movement", units(res), centres(res))
    res = play(fall)
    assert str(res.next.phase) == "Winter 1902 Adjustment"
    from judge.engine.adjustment import adjustments_due
    assert adjustments_due(res.next) == {"Italy": -1}  # three fleets, two centres left



def test_a_centre_sinking_this_winter_still_counts_for_its_adjustments():
    """"Submergences occur every year after any adjustments in Winter": Venice counts for Italy's
    Winter 1901 builds (four centres, three units) and may be built in; the army drowns after."""
    pos = position("Winter 1901 Adjustment", {"Italy": ["F Nap", "F Rom", "F Tys"]},
                   {"Italy": ["Ven", "Rom", "Nap", "Tun"]})
    from judge.engine.adjustment import adjustments_due
    assert adjustments_due(pos) == {"Italy": 1}
    res = play(pos, "Italy: Build A Ven")
    assert result_of(res, "Build A Ven").result == "succeeds"
    assert "Italy: A Ven drowned" in res.events
    assert centres(res)["Italy"] == ["Nap", "Rom", "Tun"]
    fall = position("Fall 1902 Movement", units(res), centres(res))
    nxt = play(fall).next  # three centres, three units: Venice is gone, Winter 1902 has nothing to adjust
    assert str(nxt.phase) == "Spring 1903 Movement" and len(nxt.units) == 3

# -- Additional Rule Revisions, 1: coasts ---------------------------------------------------------
def test_established_fleets_get_the_coast_of_their_fall_move():
    """"If France had move a fleet to piedmont, it would be placed on the gulf of lyon coast side.
    If a fleet had been moved to Tuscany, it would be placed on the gulf of lyon coast side.\""""
    pos = position("Fall 1901 Movement", {"France": ["F Mar", "F Lyo"], "Italy": ["F Rom"]},
                   {"France": ["Mar", "Par"], "Italy": ["Rom"]})
    res = play(pos, "F Mar - Pie\nF Lyo - Tus")
    nxt = res.next
    if nxt.phase.kind == "adjustment":
        res = adjudicate(nxt, [], RULES)
        nxt = res.next
    assert str(nxt.phase) == "Spring 1902 Movement"
    u = units(res)
    assert set(u["France"]) == {"F Pie/sc", "F Tus/sc"}
    assert u["Italy"] == ["F Rom/sc"]
    assert nxt.map.fleet_adj["pie/sc"] >= {"lyo"} and "ven" in nxt.map.fleet_adj["pie/ec"]


def test_fleet_built_where_the_sinking_makes_coasts_must_name_one():
    pos = position("Winter 1901 Adjustment", {"Italy": ["F Nap"], "France": ["F Spa/sc"]},
                   {"Italy": ["Nap", "Rom", "Ven"], "France": ["Spa", "Mar", "Par"]})
    res = play(pos, "Italy: Build F Rom\nItaly: Build F Ven\nFrance: Build A Par")
    rom = result_of(res, "Build F Rom")
    assert rom.result == "invalid" and "Rom/nc or Rom/sc" in rom.reason
    assert parse_canonical("France: Build F Mar/xc", pos)[0].error  # no such coast: not read
    u = units(res)
    assert set(u["Italy"]) == {"F Nap", "F Ven"}  # a fleet built in Venice floats when it sinks
    res = play(pos, "Italy: Build F Rom/nc\nFrance: Build F Mar/wc")
    assert result_of(res, "Build F Rom/nc").result == "succeeds"
    assert result_of(res, "Build F Mar/wc").result == "succeeds"
    u = units(res)
    assert "F Rom/nc" in u["Italy"] and "F Mar/wc" in u["France"]
    assert res.next.map.fleet_adj["rom/nc"] == {"ven", "apu", "tus/nc"}


def test_a_fleet_build_on_a_coming_coast_that_fails_is_reported_with_its_coast():
    """Regression: a build on a coast of the coming map that failed (too many builds) was reported
    as "Build F Rom", a text that names no coast and reads back as an invalid order."""
    pos = position("Winter 1901 Adjustment", {"Italy": ["F Nap", "A Ven"]}, {"Italy": ["Nap", "Rom", "Ven"]})
    res = play(pos, "Italy: Build F Rom/nc\nItaly: Build F Rom/sc")
    assert [(r.text, r.result) for r in res.results] == [("Build F Rom/nc", "succeeds"), ("Build F Rom/sc", "fails")]


def test_ruling_no_fleet_built_where_only_the_coming_sinking_makes_a_coast():
    """Builds come before the sinking ("Submergences occur every year after any adjustments in
    Winter"): Paris and Warsaw are inland when France and Russia build in Winter 1901, although
    Gascony and Livonia sink after it."""
    pos = position("Winter 1901 Adjustment", {}, {"France": ["Par", "Bre"], "Russia": ["War"]})
    res = play(pos, "France: Build F Par\nRussia: Build F War\nFrance: Build F Bre")
    assert result_of(res, "Build F Par").result == "invalid" and "inland" in result_of(res, "Build F Par").reason
    assert result_of(res, "Build F War").result == "invalid"
    assert units(res) == {"France": ["F Bre"]}


def test_ruling_fleet_built_where_the_sinking_merges_the_coasts_names_a_coast_of_today():
    """Only provinces that "will have multi coasts" need a coast of the coming map; in Winter 1903
    Rome still has two coasts (DATC 4.B.7 applies) and becomes an island with one after it."""
    pos = position("Winter 1903 Adjustment", {}, {"Italy": ["Rom"]})
    assert "coast" in parse_canonical("Italy: Build F Rom", pos)[0].error
    res = play(pos, "Italy: Build F Rom/nc")
    assert result_of(res, "Build F Rom/nc").result == "succeeds"
    assert units(res) == {"Italy": ["F Rom"]} and res.next.map.fleet_locs["rom"] == ("rom",)

def test_standard_coast_rules_without_a_sinking():
    pos = position("Winter 1900 Adjustment", {}, None)
    err = parse_canonical("Russia: Build F StP", pos)[0].error
    assert "coast" in err  # DATC 4.B.7: name the coast (the order language refuses it at once)
    from judge.engine.orders import Build

    res = play(pos, "", Build("Russia", "F", "stp"))
    assert result_of(res, "Build F StP").result == "invalid"  # and the engine too


# -- rule 5: new supply centres and their owners ---------------------------------------------------
def test_new_centre_goes_to_the_occupier():
    pos = position("Winter 1901 Adjustment", {"France": ["A Wal"], "England": ["F Edi"]},
                   {"France": ["Par"], "England": ["Edi"]})
    res = play(pos)
    assert "Wal" in centres(res)["France"]  # (1) occupied by France, although in England's boundary
    assert any("Wales: France (occupies it)" in e for e in res.events)


def test_new_centre_goes_to_the_last_power_with_a_unit_there():
    pos = position("Fall 1901 Movement", {"France": ["A Ruh"], "Germany": ["A Mun"]},
                   {"France": ["Par"], "Germany": ["Mun"]})
    res = play(pos, "A Ruh - Bur")  # nothing to adjust: the winter passes, the centre forms
    assert str(res.next.phase) == "Spring 1902 Movement"
    assert "Ruh" in centres(res)["France"]  # (2), not Germany whose boundary holds it
    assert any("Ruhr: France (last had a unit there)" in e for e in res.events)
    assert LAST_UNIT not in res.next.extra  # nothing left to watch for the W1901 centres


def test_last_unit_counts_spring_presence_and_retreats():
    pos = position("Spring 1901 Movement", {"Austria": ["A Tyr"], "Italy": ["A Pie"]},
                   {"Austria": ["Vie"], "Italy": ["Rom"]})
    res = play(pos, "A Tyr - Boh")
    assert res.next.extra[LAST_UNIT]["tyr"] == "Austria"
    # a retreat into Tyrolia in the autumn, then the unit is removed in the winter
    pos = position("Fall 1901 Retreat", {"Austria": ["A Boh"], "Italy": ["F Nap"]},
                   {"Austria": ["Vie"], "Italy": ["Nap"]}, extra={LAST_UNIT: {"tyr": "Austria"}})
    pos.dislodged = {}
    data = pos.to_json()
    data["dislodged"] = {"Italy": [{"unit": "A Ven", "from": "Tri", "retreats": ["Tyr", "Pie"]}]}
    pos = Position.from_json(data, V)
    res = play(pos, "A Ven - Tyr")
    assert res.next.extra[LAST_UNIT]["tyr"] == "Italy"  # recorded on entering the winter
    assert str(res.next.phase) == "Winter 1901 Adjustment"
    res = play(res.next, "Italy: Remove A Tyr")
    assert "Tyr" in centres(res)["Italy"]


def test_last_unit_counts_from_a_winter_position_handed_to_the_judge():
    """Rule 5: a new centre "comes under the control of ... (2) the last country to have a unit in that
    province (spring or autumn)" (issue 14). Handed a Winter 1901 position with a French army in the
    Ruhr that France removes, the judge counts that army from the position itself: Ruhr goes to France
    by clause 2, not to Germany by clause 3 (its boundary)."""
    pos = position("Winter 1901 Adjustment", {"France": ["A Ruh", "A Par"], "Germany": ["A Mun"]},
                   {"France": ["Par"], "Germany": ["Mun"]})
    assert LAST_UNIT not in pos.extra
    res = play(pos, "France: Remove A Ruh")
    assert result_of(res, "Remove A Ruh").result == "succeeds"
    assert "Ruh" in centres(res)["France"], res.events
    assert any("Ruhr: France (last had a unit there)" in e for e in res.events)
    assert LAST_UNIT not in pos.extra  # the position handed in is not changed
    from judge.adjudicate import run_phase  # the same through the JSON contract

    out = run_phase("deluge2", {"variant": "deluge2", "phase": "Winter 1901 Adjustment",
                                "units": {"France": ["A Ruh", "A Par"], "Germany": ["A Mun"]},
                                "centers": {"France": ["Par"], "Germany": ["Mun"]}}, "France: Remove A Ruh")
    assert "Ruh" in out["next"]["centers"]["France"]


def test_new_centre_goes_to_the_power_whose_boundary_holds_it():
    pos = position("Winter 1901 Adjustment", {"Austria": ["A Vie"], "Germany": ["A Mun"]},
                   {"Austria": ["Vie"], "Germany": ["Mun"]})
    res = play(pos)
    assert "Tyr" in centres(res)["Austria"] and "Ruh" in centres(res)["Germany"]  # (3)
    assert any("Tyrolia: Austria (within its boundary)" in e for e in res.events)
    assert "wal" not in res.next.centres  # England is out of the game: Wales stays neutral


def test_new_centre_with_no_claim_is_neutral():
    pos = position("Winter 1902 Adjustment", {"England": ["F Nth"]}, {"England": ["Edi"]})
    res = play(pos)
    assert "ice" in res.next.map.centres and "ice" not in res.next.centres  # (4) Iceland: neutral
    assert any("Iceland: neutral" in e for e in res.events)


def test_new_centre_schedule_is_data():
    """The sources disagree (W1901 in the project's text, W1902 on Agar's site): the table is the
    seed's add_centres lists, so a game master moves a name to change it."""
    added = {str(a): sorted(ad) for a, _m, _r, ad in V.changes}
    assert added["Winter 1901 Adjustment"] == ["ruh", "tyr", "wal"]


# -- rule 8: the survivor ---------------------------------------------------------------------------
def test_survivor_after_winter_1908_wins():
    pos = position("Winter 1908 Adjustment", {"Germany": ["A Swi"], "England": ["F Nth"], "Turkey": ["F Bla"]},
                   {"Germany": ["Swi"]})
    res = play(pos)
    assert units(res) == {"Germany": ["A Swi"]}  # the others' fleets go: they own no centre
    assert res.victory == {"winner": ["Germany"], "kind": "survivor", "final": True}
    assert str(res.next.phase) == "Spring 1909 Movement"


def test_no_survivor_no_winner():
    pos = position("Winter 1908 Adjustment", {"England": ["F Nth"]}, {})
    res = play(pos)
    assert res.victory == {"winner": [], "kind": "no survivor", "final": True}


def test_the_game_goes_on_until_winter_1908():
    pos = position("Fall 1908 Movement", {"Germany": ["A Swi"], "England": ["F Nth"]}, {"Germany": ["Swi"]})
    res = play(pos)
    assert str(res.next.phase) == "Winter 1908 Adjustment" and res.victory is None
    pos = position("Winter 1907 Adjustment", {"Germany": ["A Swi"]}, {"Germany": ["Swi"]})
    res = play(pos)
    assert res.victory is None and str(res.next.phase) == "Spring 1908 Movement"


# -- rule 2: transformation ------------------------------------------------------------------------
def T(power: str, loc: str, coast: str = "", new_kind: str = "F") -> Transform:
    return Transform(power, "A", loc, new_kind, coast)


def test_transform_succeeds_unless_dislodged():
    pos = position("Spring 1901 Movement", {"England": ["A Lvp", "A Wal"], "France": ["A Bre", "A Par"]})
    res = play(pos, "France: A Bre - Pic", T("England", "lvp"), T("England", "wal"))
    assert set(units(res)["England"]) == {"F Lvp", "F Wal"}
    assert [r.result for r in res.results if isinstance(r.order, Transform)] == ["succeeds", "succeeds"]
    assert any("A Lvp becomes F Lvp" in e for e in res.events)


def test_transform_fails_when_dislodged():
    pos = position("Spring 1901 Movement", {"France": ["A Pic", "A Bre"], "Germany": ["A Bel", "A Bur"]})
    res = play(pos, "Germany: A Bel - Pic\nGermany: A Bur S A Bel - Pic", T("France", "pic"))
    r = [r for r in res.results if isinstance(r.order, Transform)][0]
    assert r.result == "fails" and "dislodged" in r.reason
    assert "pic" in res.next.dislodged and res.next.dislodged["pic"].unit.kind == "A"  # still an army
    # a transforming army can be supported to hold, like any unit that does not move
    res = play(pos, "Germany: A Bel - Pic\nGermany: A Bur S A Bel - Pic\nFrance: A Bre S A Pic", T("France", "pic"))
    assert "F Pic" in units(res)["France"]


def test_transform_attacked_but_not_dislodged():
    pos = position("Spring 1901 Movement", {"France": ["A Pic"], "Germany": ["A Bel"]})
    res = play(pos, "Germany: A Bel - Pic", T("France", "pic"))
    assert units(res)["France"] == ["F Pic"]


def test_transform_legality():
    pos = position("Spring 1901 Movement", {"France": ["A Par", "F Bre", "A Spa"], "Italy": ["A Rom"]})
    res = play(pos, "", T("France", "par"), Transform("France", "F", "bre", "A", ""), T("France", "spa"),
               T("Italy", "rom", new_kind="A"))
    reasons = [r.reason for r in res.results if isinstance(r.order, Transform)]
    assert [r.result for r in res.results if isinstance(r.order, Transform)] == ["invalid"] * 4
    assert "coastal" in reasons[0]
    assert "not an army" in reasons[1] or "only an army" in reasons[1]  # never fleet to army
    assert "Spa/nc or Spa/sc" in reasons[2]
    assert "only into a fleet" in reasons[3]
    res = play(pos, "", T("France", "spa", "sc"))
    assert "F Spa/sc" in units(res)["France"]


def test_transform_on_a_coast_made_by_the_sinking():
    pos = position("Spring 1902 Movement", {"Italy": ["A Pie"]}, {"Italy": ["Rom"]})
    res = play(pos, "", T("Italy", "pie", "ec"))
    assert units(res)["Italy"] == ["F Pie/ec"]


def test_transform_order_is_read_by_the_order_language():
    try:
        from judge.orders import parse_orders
    except ImportError:
        pytest.skip("the order language (judge/orders) has no parse_orders yet")
    pos = position("Spring 1901 Movement", {"England": ["A Lvp"]})
    parsed = parse_orders("England: A Lvp T F", pos)
    assert isinstance(parsed[0].order, Transform), parsed[0]
    res = adjudicate(pos, [parsed[0].order], RULES)
    assert units(res)["England"] == ["F Lvp"]


# -- rule 7 and revisions 2, 3: the text's five order examples (A/F module) ------------------------
EXAMPLES = [
    ("A Lon E F Eng\nA/F Eng - Mao\nA Mao D Por", {"England": ["A Lon", "F Eng"]}, {"A Por", "F Mao"}),
    ("A/F Eng\nA Eng D Bre\nF Eng - Nth", {"England": ["A/F Eng"]}, {"A Bre", "F Nth"}),
    ("A/F Eng\nF Eng S A Eng D Bre", {"England": ["A/F Eng"]}, {"A Bre", "F Eng"}),
    ("F Eng C A Lon - Bre", {"England": ["A Lon", "F Eng"]}, {"A Bre", "F Eng"}),
    ("A Lon E F Eng\nF Eng S A Lon - Bre", {"England": ["A Lon", "F Eng"]}, {"A Lon", "F Eng"}),
]


@pytest.mark.parametrize("text,start,end", EXAMPLES)
def test_af_order_examples_of_the_text(text, start, end):
    try:
        from judge.orders import parse_orders
    except ImportError:
        pytest.skip("the order language (judge/orders) has no parse_orders yet")
    pos = position("Spring 1901 Movement", start)
    parsed = parse_orders("\n".join(f"England: {line}" for line in text.splitlines()), pos)
    assert all(p.order is not None for p in parsed), [getattr(p, "error", "") for p in parsed]
    res = adjudicate(pos, [p.order for p in parsed], RULES)
    assert len(res.results) >= len(parsed)
    assert set(units(res)["England"]) == end


def test_an_army_saved_by_turning_into_a_fleet():
    """The point of rule 2: an army in a province about to sink becomes a fleet and floats."""
    pos = position("Fall 1901 Movement", {"Italy": ["A Ven", "A Rom"]}, {"Italy": ["Ven", "Rom"]})
    res = play(pos, "", T("Italy", "ven"))
    if res.next.phase.kind == "adjustment":
        res = adjudicate(res.next, [], RULES)
    assert str(res.next.phase) == "Spring 1902 Movement"
    assert units(res)["Italy"] == ["A Rom", "F Ven"]
    assert res.next.map.terrain["ven"] == "sea"


def test_an_army_fleet_at_sea_is_untouched_by_the_sinking():
    pos = position("Winter 1901 Adjustment", {"England": ["A/F Nth", "A Lon"]}, {"England": ["Edi", "Lon", "Lvp"]})
    res = play(pos)
    assert units(res)["England"] == ["A/F Nth"]
