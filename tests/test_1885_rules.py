"""1885 II rules, one group of tests per rule (docs/variants/1885.md, docs/rulings.md "1885 II").

Positions go through ``judge.adjudicate.run_phase``, the engine's JSON contract. The A/F module
(``army_fleet``, another task) is listed in the variant's modules; until it exists these tests run
with the variant's other rules only (``OPTIONS``), and the A/F tests are skipped.
"""

from __future__ import annotations

import math

import pytest

from judge.adjudicate import InputError, run_phase
from judge.engine.least_effect import effect_key, least_effect_removals
from judge.engine.modules import UnknownModule, get_module
from judge.engine.modules.davis1885 import alliance_victory, declared_alliances
from judge.engine import read_position
from judge.engine.position import Position
from judge.engine.right_hand import bearing, facing, right_hand_order, right_hand_retreat
from judge.variant import load_variant

V = load_variant("1885")
M = V.map


def _has_module(name: str) -> bool:
    try:
        get_module(name)
    except (UnknownModule, ImportError, AttributeError):  # not written yet, or half written
        return False
    return True


AF = _has_module("army_fleet")
OPTIONS = {} if AF else {"modules": "davis1885"}
needs_af = pytest.mark.skipif(not AF, reason="the army_fleet module (Davis 1984 A/F rules, issue 5) "
                                             "is not written yet")


def play(position: dict, orders: str = "", **options) -> dict:
    return run_phase("1885", {"variant": "1885", **position}, orders, {**OPTIONS, **options})


def start() -> dict:
    return V.start_position()


def results(out: dict) -> dict[str, tuple[str, str]]:
    return {r["order"]: (r["result"], r["reason"]) for r in out["orders"]}


def units(out: dict, power: str) -> list[str]:
    return out["next"]["units"][power]


def centres(**by_power: str) -> dict[str, list[str]]:
    return {p: c.split() for p, c in by_power.items()}


def pos_at(phase: str, units: dict[str, str], centers: dict[str, list[str]] | None = None, **extra) -> dict:
    out: dict = {"phase": phase, "units": {p: [f"{u[0]} {u[2:]}" for u in us.split(", ")] if us else []
                                           for p, us in units.items()}}
    if centers is not None:
        out["centers"] = centers
    out.update(extra)
    return out


def hold_all(position: dict) -> dict:
    """The position after a movement phase in which nobody orders anything."""
    return play(position)["next"]


# -- rule 4: the calendar ----------------------------------------------------------------------------
def test_calendar_through_a_year():
    cal = V.calendar
    phase, seen = cal.start, []
    while phase.year == 1885:
        seen.append(str(phase))
        phase = cal.following(phase)
    assert str(phase) == "January 1886 Movement"
    months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December"]
    expected = []
    for mo in months:
        if mo in ("March", "June", "September", "December"):
            expected.append(f"{mo} 1885 Adjustment")
        expected += [f"{mo} 1885 Movement", f"{mo} 1885 Retreat"]
    assert seen == expected


def test_short_phase_codes_unambiguous_for_months():
    cal = V.calendar
    phase, codes = cal.start, []
    for _ in range(28):
        codes.append(phase.short)
        assert cal.parse(phase.short) == phase
        phase = cal.following(phase)
    assert len(set(codes)) == 28
    assert codes[:5] == ["Jan1885M", "Jan1885R", "Feb1885M", "Feb1885R", "Mar1885A"]
    with pytest.raises(ValueError, match="ambiguous season 'J'"):
        cal.parse("J1885M")
    std = load_variant("standard").calendar
    assert [std.parse(c).short for c in ("S1901M", "F1901R", "W1901A")] == ["S1901M", "F1901R", "W1901A"]


def test_month_codes_need_three_letters():
    """Rule 4: "each subsequent move will take place during a single month" — there is no Spring or
    Fall to abbreviate, so a standard-style S1886M or F1885M must not quietly mean September or
    February (a PHASE command would queue the orders months away)."""
    cal = V.calendar
    for code in ("S1886M", "F1885M", "Se1885M", "D1885A", "O1885R"):
        with pytest.raises(ValueError, match="too short"):
            cal.parse(code)
    assert str(cal.parse("Sep1886M")) == "September 1886 Movement"
    assert str(cal.parse("Sept 1886 Movement")) == "September 1886 Movement"
    assert str(cal.parse("feb1885r")) == "February 1885 Retreat"
    std = load_variant("standard").calendar  # one letter stays fine where the seasons are not months
    assert str(std.parse("S1901M")) == "Spring 1901 Movement" and str(std.parse("F1901M")) == "Fall 1901 Movement"


def test_calendar_option_build_months_eight_moves_a_year():
    """Rule 4 "each subsequent move will take place during a single month. The Build/Removal seasons
    will be in March, June, September and December" with rule 10a "a 'Spring' type move (e.g.
    January, April)" also reads as eight moves a year, the build months having no move (issue 14):
    the switch ``calendar = build_months``. Its phase names and short codes read and parse back."""
    cal = V.with_rules({"calendar": "build_months"}).calendar
    phase, seen = cal.start, []
    while phase.year == 1885:
        seen.append(str(phase))
        assert cal.parse(phase.short) == phase and cal.parse(str(phase)) == phase
        phase = cal.following(phase)
    assert str(phase) == "January 1886 Movement"
    expected = []
    for mo in ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December"):
        if mo in ("March", "June", "September", "December"):
            expected.append(f"{mo} 1885 Adjustment")
        else:
            expected += [f"{mo} 1885 Movement", f"{mo} 1885 Retreat"]
    assert seen == expected
    assert [cal.parse(c).short for c in ("Mar1885A", "Apr1885M", "Dec1885A")] == ["Mar1885A", "Apr1885M", "Dec1885A"]
    with pytest.raises(ValueError, match="March has no movement phase"):
        cal.parse("Mar1885M")
    assert V.calendar_name == "monthly_moves"  # the default: a move in every month


def test_calendar_option_through_the_json_contract():
    """``--option calendar=...``: February's move is followed by the March builds (rule 11 "after
    February 1885 ... in March") in both readings; then April's move (build_months) or March's
    (monthly_moves, the default). A month without a move is refused in build_months, and a variant
    with one calendar refuses another."""
    p = pos_at("February 1885 Movement", {"Turkey": "A Mac, A Con, A Smy, F Sin"},
               centres(Turkey="Con Smy Sin Mac"))
    for option, after in (("build_months", "April 1885 Movement"), ("monthly_moves", "March 1885 Movement"),
                          (None, "March 1885 Movement")):
        opts = {"calendar": option} if option else {}
        feb = play(p, "Turkey: A Mac - Gre", **opts)
        assert feb["next"]["phase"] == "March 1885 Adjustment", option
        mar = play(feb["next"], "Turkey: Build A Con", **opts)
        assert mar["next"]["phase"] == after, option
    with pytest.raises(InputError, match="no movement phase"):
        play(pos_at("March 1885 Movement", {"Turkey": "A Con"}), calendar="build_months")
    with pytest.raises(InputError, match="no calendar 'eight'.*monthly_moves, build_months"):
        play(p, calendar="eight")
    with pytest.raises(InputError, match="standard has no calendar 'build_months'"):
        run_phase("standard", {"phase": "Spring 1901 Movement", "units": {}}, "", {"calendar": "build_months"})


def test_spring_type_move_changes_no_ownership_fall_type_move_does():
    # a hand-made Turkish army in Macedonia walks into Greece in January, a "Spring" move
    p = pos_at("January 1885 Movement", {"Turkey": "A Mac, A Con, A Smy, F Sin"})
    jan = play(p, "Turkey: A Mac - Gre")
    assert jan["next"]["phase"] == "February 1885 Movement"
    assert "Gre" not in jan["next"]["centers"]["Turkey"]
    feb = play(jan["next"])  # February is a "Fall" move: ownership updated entering March
    assert feb["next"]["phase"] == "March 1885 Adjustment"
    assert "Gre" in feb["next"]["centers"]["Turkey"]


def test_fall_moves_are_february_may_august_november():
    cal = V.calendar
    falls = []
    phase = cal.start
    while phase.year == 1885:
        nxt = cal.following(cal.following(phase)) if phase.kind == "movement" else None
        if nxt is not None and nxt.kind == "adjustment":
            falls.append(phase.season)
        phase = cal.following(phase)
    assert falls == ["February", "May", "August", "November"]


# -- rule 3: hidden start units ----------------------------------------------------------------------
def test_start_position_hides_the_choice_units():
    s = start()
    assert s["units"]["Italy"] == ["F Nap", "A Ven"]
    assert s["units"]["Russia"] == ["A Mos", "A War"]
    assert s["units"]["Sweden"] == ["A Sto", "F Mal"]


def test_an_explicit_position_gets_no_hidden_start_units():
    """Rule 3 "The unit in Rome may be either an A or F. Player does not have to reveal nature of the
    unit before the first move" is about the start of the game (issue 14): a January 1885 position
    that lists its units is what it says, and the judge adds no hidden unit to it (Italy, Russia and
    Sweden, owning their centres, have no unit here). Only a position without units is the start."""
    p = pos_at("January 1885 Movement", {"Turkey": "A Mac, A Con, A Smy, F Sin", "Italy": "F Nap"})
    out = play(p, "Italy: F Nap - Tys")
    assert units(out, "Italy") == ["F Tys"]
    assert units(out, "Russia") == [] and units(out, "Sweden") == []
    assert not [e for e in out.get("events", []) if "chosen before the first move" in e]
    assert "Rom" in out["next"]["centers"]["Italy"]  # owned, not occupied
    bad = play(p, "Italy: F Rom - Tys")  # no unit to order there
    assert bad["orders"][0]["result"] == "invalid" and "no fleet in Rome" in bad["orders"][0]["reason"]
    # a position without units is the start: the fixed units and the hidden ones
    out = play({"phase": "January 1885 Movement"}, "Italy: F Rom - Tys\nRussia: A Sev - Ukr")
    assert set(units(out, "Italy")) == {"F Nap", "A Ven", "F Tys"}
    assert "A Ukr" in units(out, "Russia") and "A Nwy" in units(out, "Sweden")
    assert "hidden_units" not in out["next"].get("extra", {})  # on the board now


def test_the_start_position_lists_its_hidden_units():
    s = start()
    assert s["extra"]["hidden_units"] == {"Rom": "Italy", "StP": "Russia", "Sev": "Russia", "Nwy": "Sweden"}
    out = play(s, "Italy: A Rom - Apu")
    assert "A Apu" in units(out, "Italy")
    assert "hidden_units" not in out["next"].get("extra", {})


def test_hidden_units_revealed_by_the_first_move():
    out = play(start(), "Italy: F Rom - Tys\nRussia: A Sev - Ukr\nRussia: F StP - Bot\nSweden: A Nwy - Fin")
    r = results(out)
    assert r["F Rom - Tys"][0] == "succeeds"
    assert r["A Sev - Ukr"][0] == "succeeds"
    assert r["F StP - Bot"][0] == "succeeds"
    assert r["A Nwy - Fin"][0] == "succeeds"
    assert "F Tys" in units(out, "Italy")
    assert {"A Ukr", "F Bot"} <= set(units(out, "Russia"))
    assert any("the unit in Rome is a fleet" in e for e in out["events"])


def test_hidden_kind_inferred_from_an_order_that_fits_one_kind():
    out = play(start(), "Italy: Rom - Tys\nRussia: Sev - Ukr\nSweden: Nwy - Ska")
    assert "F Tys" in units(out, "Italy")
    assert "A Ukr" in units(out, "Russia")
    assert "F Ska" in units(out, "Sweden")
    assert any("only kind" in e and "Rome" in e for e in out["events"])


def test_hidden_kind_defaults_when_orders_do_not_tell():
    out = play(start(), "Italy: Rom H")  # both kinds can hold
    assert "A Rom" in units(out, "Italy")
    assert {"F StP", "F Sev"} <= set(units(out, "Russia"))  # the Regular rules' fleets
    assert "A Nwy" in units(out, "Sweden")  # "(Same as Italy)"
    r = results(out)
    assert r["A Rom H"] == ("succeeds", "")  # the results show the unit's kind


def test_hidden_kind_stated_wins_even_if_its_order_fails():
    out = play(start(), "Italy: F Rom - Apu")  # a fleet in Rome cannot reach Apulia
    r = results(out)
    assert r["F Rom - Apu"][0] == "invalid"
    assert "F Rom" in units(out, "Italy")


def test_hidden_kind_named_in_its_owners_other_orders():
    """Rule 3: "The unit in Rome may be either an A or F. Player does not have to reveal nature of
    the unit before the first move." The nature is the player's choice: a kind he writes for the
    unit in another of his orders tells it as well as the unit's own order."""
    out = play(start(), "Italy: F Nap S F Rom")  # no order for Rome itself
    assert results(out)["F Nap S F Rom"] == ("succeeds", "")
    assert "F Rom" in units(out, "Italy")
    assert any("the unit in Rome is a fleet" in e and "owner's orders" in e for e in out["events"])
    # no kind written at all: only a fleet in Rome can be supported into the Tyrrhenian
    out = play(start(), "Italy: F Nap S Rom - Tys\nRussia: A Mos S StP - Lvn")
    assert "F Rom" in units(out, "Italy")
    assert "F StP" in units(out, "Russia")  # both kinds can reach Livonia: the default
    # the unit's own order comes first
    out = play(start(), "Italy: A Rom H\nItaly: F Nap S F Rom")
    assert "A Rom" in units(out, "Italy")


def test_hidden_kind_not_told_by_another_powers_orders():
    """Rule 3: the choice is the owner's ("Player does not have to reveal nature of the unit");
    what another power guesses in its orders does not make it."""
    s = start()
    s["units"]["France"] = ["F Bre", "A Par", "A Mar", "F Tus"]  # hand-made: a French fleet in Tuscany
    out = play(s, "France: F Tus S F Rom - Tys")
    assert "A Rom" in units(out, "Italy")  # the default, not France's "F"


def test_hidden_unit_defends_its_province_during_the_first_move():
    out = play(start(), "Italy: A Ven - Rom\nItaly: A Rom H")
    assert results(out)["A Ven - Rom"] == ("fails", "bounced")


def test_orders_for_hidden_units_are_read():
    from judge.engine.modules.davis1885 import read_orders
    from judge.orders import parse_orders as parse
    from judge.orders.lexer import order_lines

    pos = Position.from_json(start(), V)
    got = read_orders("Italy: F Rom - Tys  # the fleet\nRussia: Sev - Ukr\nSweden: A Nwy H\nFrance: A Par - Bur\n"
                      "-- \nItaly: A Rom H", pos, V.rules, parse, order_lines)
    assert [(p.order.kind, p.order.loc) for p in got] == [("F", "rom"), (None, "sev"), ("A", "nwy"), ("A", "par")]
    assert read_orders("France: A Par - Bur", Position.from_json(hold_all(start()), V), V.rules, parse) is None


def test_no_hidden_units_after_the_first_move():
    feb = hold_all(start())
    assert "A Rom" in feb["units"]["Italy"]
    feb["units"]["Italy"] = ["F Nap", "A Ven"]  # Rome left empty by then: it stays empty
    out = play(feb)
    assert out["next"]["units"]["Italy"] == ["F Nap", "A Ven"]


# -- rule 11: Macedonia and Archangel -----------------------------------------------------------------
def test_rule_11_builds_in_march_in_any_home_centre():
    feb = play(hold_all(start()), "Turkey: A Con - Bul")["next"]
    assert feb["phase"] == "March 1885 Adjustment"
    out = play(feb, "Turkey: Build F Con\nRussia: Build A Mos")
    r = results(out)
    assert r["Build F Con"][0] == "succeeds"  # a home centre other than Macedonia itself
    assert r["Build A Mos"][0] == "invalid"  # occupied
    out = play(feb, "Turkey: Build A Mac\nRussia: Build F Arc")
    assert results(out)["Build A Mac"][0] == "succeeds" and results(out)["Build F Arc"][0] == "succeeds"


def test_rule_11_no_build_once_macedonia_is_lost():
    s = start()
    s["units"]["Austria"] = ["A Vie", "A Bud", "A Clu", "A Ser"]  # hand-made: an Austrian army in Serbia
    jan = play(s, "Austria: A Ser - Mac")
    feb = play(jan["next"])  # still in Macedonia at the end of February
    assert feb["next"]["phase"] == "March 1885 Adjustment"
    assert "Mac" in feb["next"]["centers"]["Austria"]
    out = play(feb["next"])
    assert not any(r["power"] == "Turkey" for r in out["orders"])  # no build or waive for Turkey


def test_rule_11_a_january_visit_does_not_take_macedonia():
    s = start()
    s["units"]["Austria"] = ["A Vie", "A Bud", "A Clu", "A Ser"]
    jan = play(s, "Austria: A Ser - Mac")
    feb = play(jan["next"], "Austria: A Mac - Gre")  # gone again by the end of February
    assert "Mac" in feb["next"]["centers"]["Turkey"]
    out = play(feb["next"], "Turkey: Build A Mac")
    assert results(out)["Build A Mac"][0] == "succeeds"


# -- rule 6: Sicily, Ireland, Portugal ------------------------------------------------------------------
ITALY4 = centres(Italy="Nap Rom Ven Tun")


def test_italy_builds_in_sicily():
    p = pos_at("March 1885 Adjustment", {"Italy": "A Rom, F Nap, A Tun"}, ITALY4)
    out = play(p, "Italy: Build F Sic")
    assert results(out)["Build F Sic"][0] == "succeeds"
    assert "F Sic" in units(out, "Italy")


def test_sicily_is_no_supply_centre():
    p = pos_at("March 1885 Adjustment", {"Italy": "A Rom, F Nap, A Ven"}, centres(Italy="Nap Rom Ven"))
    out = play(p, "Italy: Build F Sic")
    assert results(out)["Build F Sic"] == ("invalid", "Italy has no builds due")
    with pytest.raises(Exception, match="not a supply centre"):
        play(pos_at("March 1885 Adjustment", {"Italy": "A Rom"}, centres(Italy="Sic")))


def test_sicily_changes_owner_like_a_centre():
    p = pos_at("February 1885 Movement", {"Italy": "A Rom, F Nap, A Tun", "France": "F Tys"}, ITALY4)
    out = play(p, "France: F Tys - Sic")
    nxt = out["next"]
    assert nxt["phase"] == "March 1885 Adjustment"
    assert nxt["extra"]["build_centres"] == {"sic": "France"}
    out = play(nxt, "Italy: Build A Sic")  # the French fleet stands there
    assert results(out)["Build A Sic"][0] == "invalid"
    nxt["units"]["France"] = []  # even when empty, Sicily stays French until Italy retakes it
    out = play(nxt, "Italy: Build A Sic")
    assert results(out)["Build A Sic"] == ("invalid", "Italy does not own Sicily")


def test_sicily_italian_from_the_start_without_a_record():
    p = pos_at("February 1885 Movement", {"Italy": "A Rom, F Nap, A Tun"}, ITALY4)
    nxt = play(p)["next"]
    assert nxt["extra"]["build_centres"] == {"sic": "Italy"}


def test_ireland_and_portugal_build_sites():
    p = pos_at("March 1885 Adjustment", {"England": "F Lon, F Edi, F Lvp", "Spain": "A Mad, A Cad, F Val",
                                         "France": "A Par, A Mar, F Bre"},
               centres(England="Lon Edi Lvp Ire", Spain="Mad Cad Val Por", France="Par Mar Bre Swi"))
    out = play(p, "England: Build F Ire\nSpain: Build A Por\nFrance: Build A Swi")
    r = results(out)
    assert r["Build F Ire"][0] == "succeeds"
    assert r["Build A Por"][0] == "succeeds"
    assert r["Build A Swi"] == ("invalid", "Switzerland is not a home centre of France")


def test_ireland_only_for_england():
    p = pos_at("March 1885 Adjustment", {"France": "A Par, A Mar, F Bre"}, centres(France="Par Mar Bre Ire"))
    out = play(p, "France: Build F Ire")
    assert results(out)["Build F Ire"] == ("invalid", "Ireland is not a home centre of France")


# -- rule 5: victory ---------------------------------------------------------------------------------------
ALL = sorted(M.provinces[c].key for c in M.centres)


def owning(counts: dict[str, int]) -> dict[str, list[str]]:
    free = iter(ALL)
    return {p: [next(free) for _ in range(n)] for p, n in counts.items()}


def fall_move(counts: dict[str, int], alliances=None, month="February") -> dict:
    p = pos_at(f"{month} 1885 Movement", {}, owning(counts))
    if alliances is not None:
        p["extra"] = {"alliances": alliances}
    return play(p)


def test_solo_victory_24():
    out = fall_move({"France": 24, "England": 10})
    assert out["victory"] == {"winner": ["France"], "kind": "solo", "centres": 24, "final": True}
    assert "victory" not in fall_move({"France": 23, "England": 10})


def test_victory_only_at_the_end_of_a_fall_move():
    assert "victory" not in fall_move({"France": 30}, month="January")
    assert "victory" in fall_move({"France": 30}, month="May")


def test_two_power_alliance_victory_34():
    out = fall_move({"England": 17, "France": 17, "Germany": 5}, [["France", "England"]])
    assert out["victory"] == {"winner": ["England", "France"], "kind": "alliance", "centres": 34, "final": True}
    assert "victory" not in fall_move({"England": 17, "France": 16}, [["England", "France"]])


def test_three_power_alliance_victory_38():
    out = fall_move({"England": 13, "France": 13, "Germany": 12}, [["England", "France", "Germany"]])
    assert out["victory"]["winner"] == ["England", "France", "Germany"]
    assert out["victory"]["centres"] == 38
    assert "victory" not in fall_move({"England": 13, "France": 13, "Germany": 11},
                                      [["England", "France", "Germany"]])


def test_alliance_must_be_declared():
    assert "victory" not in fall_move({"England": 20, "France": 20})
    assert "victory" not in fall_move({"England": 20, "France": 20}, [["England", "Germany"]])
    # the pair has 34, but the declared alliance is the three of them, which needs 38
    assert "victory" not in fall_move({"England": 17, "France": 17, "Germany": 3},
                                      [["England", "France", "Germany"]])


def test_alliance_victory_choice_between_several():
    out = fall_move({"England": 18, "France": 17, "Germany": 4},
                    [["England", "France", "Germany"], ["France", "England"]])
    assert out["victory"]["winner"] == ["England", "France"]


def test_solo_victory_before_alliance():
    out = fall_move({"England": 24, "France": 12}, [["England", "France"]])
    assert out["victory"]["kind"] == "solo"


def test_declared_alliances_are_checked():
    p = Position.from_json(pos_at("February 1885 Movement", {}, extra={
        "alliances": [["eng", "France"], "Germany, Italy", ["England", "Atlantis"], ["France"]]}), V)
    assert declared_alliances(p) == [("England", "France"), ("Germany", "Italy")]
    assert alliance_victory(p, ["Germany", "Italy", "Spain", "Turkey"]) is None  # four: no such victory


# -- rule 9: direct passage -----------------------------------------------------------------------------
def test_army_crosses_between_naples_and_sicily():
    out = play(pos_at("April 1885 Movement", {"Italy": "A Nap, A Sic"}), "A Nap - Sic\nA Sic - Nap")
    r = results(out)  # a swap without convoy: head to head, both bounce
    assert r["A Nap - Sic"][0] == "fails" and r["A Sic - Nap"][0] == "fails"
    out = play(pos_at("April 1885 Movement", {"Italy": "A Nap"}), "A Nap - Sic")
    assert units(out, "Italy") == ["A Sic"]
    out = play(pos_at("April 1885 Movement", {"Italy": "A Sic"}), "A Sic - Nap")
    assert units(out, "Italy") == ["A Nap"]


def test_fleets_cross_the_four_point_meeting():
    out = play(pos_at("April 1885 Movement", {"Italy": "F Nap, F Tys", "France": "F Sic"}),
               "Italy: F Nap - Ion\nItaly: F Tys - Sic\nFrance: F Sic - Tys")
    r = results(out)
    assert r["F Nap - Ion"][0] == "succeeds"
    assert r["F Tys - Sic"][0] == "fails" and r["F Sic - Tys"][0] == "fails"  # head to head
    out = play(pos_at("April 1885 Movement", {"Italy": "F Tys, F Nap"}), "F Tys - Ion\nF Nap - Sic")
    assert sorted(units(out, "Italy")) == ["F Ion", "F Sic"]


def test_supports_across_the_four_point_meeting():
    # an army in Sicily supports a fleet into Naples; a fleet in the Tyrrhenian supports it too
    p = pos_at("April 1885 Movement", {"Italy": "A Sic, F Ion, F Tys", "Austria": "F Nap, A Apu"})
    out = play(p, "Italy: F Ion - Nap\nItaly: A Sic S F Ion - Nap\nItaly: F Tys S F Ion - Nap\n"
                  "Austria: A Apu S F Nap")
    r = results(out)
    assert r["F Ion - Nap"][0] == "succeeds"
    assert "F Nap" in out["next"]["dislodged"]["Austria"][0]["unit"]
    # and an army in Naples supports a fleet from the Ionian into Sicily
    p = pos_at("April 1885 Movement", {"Italy": "A Nap, F Ion", "France": "F Sic"})
    out = play(p, "Italy: F Ion - Sic\nItaly: A Nap S F Ion - Sic")
    assert results(out)["F Ion - Sic"][0] == "succeeds"


def test_sicily_has_no_other_land_route():
    out = play(pos_at("April 1885 Movement", {"Italy": "A Sic"}), "A Sic - Tun")
    assert results(out)["A Sic - Tun"][0] == "invalid"


# -- rule 10a: Just's Right-Hand Rule -------------------------------------------------------------------
FOUR_ROUND_THE_POINT = ["nap", "ion", "sic", "tys"]  # clockwise round the meeting point on the map


@pytest.mark.parametrize("prov", FOUR_ROUND_THE_POINT)
def test_four_point_meeting_order(prov):
    """Seen from each of the four, the other three are met in the order they lie round the point."""
    i = FOUR_ROUND_THE_POINT.index(prov)
    expected = FOUR_ROUND_THE_POINT[i + 1:] + FOUR_ROUND_THE_POINT[:i]
    others = [p for p in FOUR_ROUND_THE_POINT if p != prov]
    got = right_hand_order(M, prov, others, facing(M, prov, None))
    k = got.index(expected[0])
    assert got[k:] + got[:k] == expected


@pytest.mark.parametrize("prov, attacker, first", [
    ("nap", "ion", "sic"), ("nap", "sic", "tys"), ("nap", "tys", "rom"),
    ("sic", "nap", "ion"), ("sic", "ion", "tys"), ("sic", "tys", "nap"),
    ("tys", "nap", "ion"), ("tys", "ion", "sic"), ("tys", "sic", "tun"),
    ("ion", "nap", "apu"), ("ion", "tys", "nap"), ("ion", "sic", "tun"),
])
def test_right_hand_at_the_four_point_meeting(prov, attacker, first):
    options = [p for p in M.fleet_reach[prov] if p != attacker]
    assert right_hand_order(M, prov, options, facing(M, prov, attacker))[0] == first


def test_right_hand_turns_clockwise_from_the_attacker():
    # Budapest attacked from Galicia (north-east): turning right it meets Cluj, then Rumania, Serbia ...
    options = sorted(M.army_adj["bud"] - {"gal"})
    assert right_hand_order(M, "bud", options, facing(M, "bud", "gal")) == ["clu", "rum", "ser", "cro", "vie"]
    # the bearing is measured clockwise on the picture, y downward: east 0, south +90
    assert math.isclose(bearing(M, "nap", "sic"), math.atan2(752 - 708, 478 - 506))


def _retreat_phase(dislodged: dict, units: dict, orders: str = "") -> dict:
    return play({"phase": "April 1885 Retreat", "units": units, "dislodged": dislodged}, orders)


def test_default_retreat_in_a_game():
    p = pos_at("April 1885 Movement", {"Austria": "A Bud", "Russia": "A Gal, A Rum"})
    out = play(p, "Russia: A Gal - Bud\nRussia: A Rum S A Gal - Bud")
    d = out["next"]["dislodged"]["Austria"][0]
    assert d["from"] == "Gal" and set(d["retreats"]) == {"Clu", "Ser", "Cro", "Vie"}
    out = play(out["next"])  # no retreat order: Right-Hand Rule
    r = [o for o in out["orders"] if o.get("default")]
    assert r == [{"power": "Austria", "order": "A Bud - Clu", "result": "succeeds", "reason": "no order",
                  "default": True}]
    assert units(out, "Austria") == ["A Clu"]


def test_default_retreat_at_the_four_point_meeting_in_a_game():
    p = pos_at("April 1885 Movement", {"Italy": "F Nap, A Rom", "France": "F Ion, F Tys"})
    out = play(p, "France: F Ion - Nap\nFrance: F Tys S F Ion - Nap")
    out = play(out["next"])
    assert "F Sic" in units(out, "Italy")  # facing the Ionian, Sicily is on its right hand


def test_convoyed_attack_faces_north():
    p = read_position({"variant": "1885", "phase": "April 1885 Retreat",
                            "units": {"England": ["A Bre"]},
                            "dislodged": {"France": [{"unit": "F Bre", "from": None}]}}, V)
    d = p.dislodged["bre"]
    assert set(d.retreats) == {"eng", "mao", "gas", "pic"}
    assert right_hand_retreat(p, d) == "pic"  # north-east of Brest is met first turning from north


# Austria: A Bud attacked from Rumania, A Vie from Tyrolia; A Ser blocks Serbia. Bud can go to
# Croatia (first, turning right from Rumania) or Cluj; Vie only to Croatia.
CLASH = pos_at("April 1885 Movement", {"Austria": "A Bud, A Vie, A Ser", "Russia": "A Gal, A Rum",
                                       "Italy": "A Tyr", "Germany": "A Boh"})
CLASH_ORDERS = "Russia: A Rum - Bud\nRussia: A Gal S A Rum - Bud\nItaly: A Tyr - Vie\nGermany: A Boh S A Tyr - Vie"


def test_default_retreats_settled_together():
    nxt = play(CLASH, CLASH_ORDERS)["next"]
    assert {d["unit"]: (d["from"], set(d["retreats"])) for d in nxt["dislodged"]["Austria"]} == {
        "A Bud": ("Rum", {"Cro", "Clu"}), "A Vie": ("Tyr", {"Cro"})}
    out = play(nxt)
    # each would take Croatia alone, and both would be lost in the clash; Vienna, with the
    # fewer spaces, is settled first, and Budapest takes its next space to the right
    assert results(out) == {"A Vie - Cro": ("succeeds", "no order"), "A Bud - Clu": ("succeeds", "no order")}
    assert sorted(units(out, "Austria")) == ["A Clu", "A Cro", "A Ser"]


def test_default_retreat_avoids_an_ordered_retreat():
    nxt = play(CLASH, CLASH_ORDERS)["next"]
    out = play(nxt, "Austria: A Bud - Cro")
    # Vienna's only space is taken by an order: rather than annihilate both, it alone goes
    assert results(out) == {"A Bud - Cro": ("succeeds", ""), "A Vie D": ("succeeds", "no order: disbanded")}
    out = play(nxt, "Austria: A Vie - Cro")
    assert results(out) == {"A Vie - Cro": ("succeeds", ""), "A Bud - Clu": ("succeeds", "no order")}


def test_disband_order_rejected_rule_10b():
    dis = {"Austria": [{"unit": "A Bud", "from": "Gal"}]}
    out = _retreat_phase(dis, {"Russia": ["A Gal"]}, "Austria: A Bud D")
    r = out["orders"]
    assert r[0]["result"] == "invalid" and "off the board" in r[0]["reason"]
    assert r[1]["order"] == "A Bud - Clu" and r[1]["default"]
    # with the switch off (the standard rule) the disband is accepted
    out = play({"phase": "April 1885 Retreat", "units": {"Russia": ["A Gal"]}, "dislodged": dis},
               "Austria: A Bud D", retreat_disband="allowed")
    assert out["orders"][0]["result"] == "succeeds" and units(out, "Austria") == []


def test_retreat_after_a_fall_move_comes_before_the_builds():
    # rule 10a: after February the retreat is settled first, and the builds count its result
    p = pos_at("February 1885 Movement", {"Austria": "A Vie, A Bud, A Clu, A Ser",
                                          "Turkey": "A Bul, A Mac, A Con, A Smy, F Sin"})
    out = play(p, "Turkey: A Bul - Ser\nTurkey: A Mac S A Bul - Ser")
    assert out["next"]["phase"] == "February 1885 Retreat"
    out = play(out["next"], "Austria: A Ser - Rum")
    assert out["next"]["phase"] == "March 1885 Adjustment"
    assert "Rum" in out["next"]["centers"]["Austria"] and "Ser" in out["next"]["centers"]["Turkey"]
    out = play(out["next"], "Austria: Build A Spl")
    assert results(out)["Build A Spl"][0] == "succeeds"  # Austria: 5 centres, 4 units


def test_unit_with_nowhere_to_go_is_annihilated():
    dis = {"Italy": [{"unit": "F Sic", "from": "Nap", "retreats": []}]}
    out = _retreat_phase(dis, {"France": ["F Nap", "F Ion", "F Tys"]}, "Italy: F Sic D")
    r = out["orders"]
    assert r[0]["result"] == "invalid"
    assert r[1]["order"] == "F Sic D" and r[1]["reason"] == "no order: disbanded"


def test_bad_retreat_falls_back_to_the_right_hand_rule():
    dis = {"Austria": [{"unit": "A Bud", "from": "Gal"}]}
    out = _retreat_phase(dis, {"Russia": ["A Gal"]}, "Austria: A Bud - Gal")
    assert results(out)["A Bud - Gal"][0] == "invalid"
    assert units(out, "Austria") == ["A Clu"]


# -- rule 10c: removals with least effect -------------------------------------------------------------------
def _board(units: dict[str, str], cents: dict[str, list[str]], phase="March 1885 Adjustment", **extra) -> Position:
    return read_position({"variant": "1885", **pos_at(phase, units, cents), **({"extra": extra} if extra else {})}, V)


def test_removal_spares_a_threatened_centre_and_the_front():
    # Austria: A Vie (own centre, Russian A Gal next door: a gift), A Tyr (in contact with the
    # Italian A Ven), F Adr (quiet, nothing foreign in reach). Least effect: the quiet fleet.
    p = _board({"Austria": "A Vie, A Tyr, F Adr", "Russia": "A Gal", "Italy": "A Ven"},
               centres(Austria="Vie", Russia="Mos War", Italy="Rom"))
    mine = [u for u in p.units.values() if u.power == "Austria"]
    order = [u.prov for u in sorted(mine, key=lambda u: effect_key(p, u))]
    assert order == ["adr", "tyr", "vie"]
    assert [u.prov for u in least_effect_removals(p, mine, 2)] == ["adr", "tyr"]


def test_removal_not_fleets_first_when_that_gifts_a_centre():
    # Fleets first would remove F Spl and give Split to the Italian fleet in the Adriatic.
    p = _board({"Austria": "F Spl, A Boh", "Italy": "F Adr"}, centres(Austria="Spl"))
    mine = [u for u in p.units.values() if u.power == "Austria"]
    assert [u.prov for u in least_effect_removals(p, mine, 1)] == ["boh"]


def test_removal_sicily_counts_as_a_centre_to_guard():
    p = _board({"Italy": "A Sic, A Tus", "France": "F Tys"}, centres(Italy="Rom"))  # Sicily: Italy's from the start
    mine = [u for u in p.units.values() if u.power == "Italy"]
    assert effect_key(p, p.units["sic"])[0] == 1  # removing it would give Sicily to France
    assert [u.prov for u in least_effect_removals(p, mine, 1)] == ["tus"]


def test_removal_ties_broken_by_distance_then_fleets_then_name():
    # nothing foreign anywhere, no centre in reach or underfoot: the standard order decides —
    # farther from an owned centre first (Brest: two moves), then fleets, then by name
    p = _board({"England": "F Bre, A Yor, F Wal, F Cly"}, centres(England="Lon Edi Lvp"))
    mine = [u for u in p.units.values() if u.power == "England"]
    assert [u.prov for u in least_effect_removals(p, mine, 4)] == ["bre", "cly", "wal", "yor"]


def test_civil_disorder_in_an_adjustment_phase():
    p = pos_at("March 1885 Adjustment", {"Austria": "A Vie, A Tyr, F Adr", "Russia": "A Gal", "Italy": "A Ven"},
               centres(Austria="Vie Bud", Russia="Mos War Sev", Italy="Rom Nap Ven"))
    out = play(p)
    r = [o for o in out["orders"] if o["power"] == "Austria"]
    assert r == [{"power": "Austria", "order": "Remove F Adr", "result": "succeeds", "reason": "civil disorder",
                  "default": True}]


# -- rules 7, 8 and the A/F module --------------------------------------------------------------------------
@needs_af
def test_convoy_over_two_seas_needs_an_army_fleet():
    p = pos_at("April 1885 Movement", {"England": "A Lon, F Eng, F Mao"})
    out = play(p, "England: A Lon - Por\nEngland: F Eng C A Lon - Por\nEngland: F Mao C A Lon - Por")
    assert units(out, "England")[0] != "A Por"
    assert "A Lon" in units(out, "England")


@needs_af
def test_fast_ferry_over_one_sea():
    p = pos_at("April 1885 Movement", {"England": "A Lon, F Eng"})
    out = play(p, "England: A Lon - Bre\nEngland: F Eng C A Lon - Bre")
    assert "A Bre" in units(out, "England")
