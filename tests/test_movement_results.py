"""What the movement resolver writes of each order and of the board after the moves: the results of
dislodged units' orders, provinces left empty by a bounce, units without an order (pure unit
tests through the batch's JSON contract)."""

from __future__ import annotations

from judge.adjudicate import run_phase


def phase(units: dict, orders: str) -> dict:
    return run_phase("standard", {"variant": "standard", "phase": "Spring 1901 Movement", "units": units}, orders)


def results(out: dict) -> dict[str, tuple[str, str]]:
    return {r["order"]: (r["result"], r["reason"]) for r in out["orders"]}


def test_each_kind_of_order_of_a_dislodged_unit_says_so():
    out = phase({"France": ["A Bur"], "Germany": ["A Mun", "A Ruh", "A Sil", "A Gal"], "Russia": ["A War", "A Pru"],
                 "Italy": ["A Ven"], "Austria": ["A Tri", "A Tyr", "A Pie"],
                 "England": ["F Nth", "F Lon"], "Turkey": ["F Hel", "F Den"]},
                "France: A Bur H\nGermany: A Mun - Bur\nGermany: A Ruh S A Mun - Bur\n"
                "Russia: A War S A Pru\nRussia: A Pru H\nGermany: A Sil - War\nGermany: A Gal S A Sil - War\n"
                "Italy: A Ven - Tri\nAustria: A Tri H\nAustria: A Tyr - Ven\nAustria: A Pie S A Tyr - Ven\n"
                "England: F Nth S F Lon\nEngland: F Lon - Eng\nTurkey: F Hel - Nth\nTurkey: F Den S F Hel - Nth")
    got = results(out)
    assert got["A Bur H"] == ("fails", "dislodged")
    assert got["A War S A Pru"] == ("fails", "dislodged")  # not "cut": the supporting unit is gone
    assert got["A Ven - Tri"] == ("fails", "bounced, dislodged")
    assert got["F Nth S F Lon"] == ("fails", "void: the supported unit was not ordered so, dislodged")
    assert got["A Pru H"] == ("succeeds", "")
    assert got["A Tri H"] == ("succeeds", "")
    for move in ("A Mun - Bur", "A Sil - War", "A Tyr - Ven", "F Lon - Eng", "F Hel - Nth"):
        assert got[move] == ("succeeds", "")
    dislodged = {d["unit"] for ds in out["next"]["dislodged"].values() for d in ds}
    assert dislodged == {"A Bur", "A War", "A Ven", "F Nth"}


def test_a_support_cut_without_dislodging_says_cut():
    out = phase({"Russia": ["A War", "A Pru"], "Germany": ["A Sil"]},
                "Russia: A War S A Pru\nRussia: A Pru H\nGermany: A Sil - War")
    assert results(out)["A War S A Pru"] == ("fails", "cut")
    assert results(out)["A Sil - War"] == ("fails", "bounced")


def test_a_province_left_empty_by_a_bounce_is_no_retreat_but_a_lost_head_to_head_leaves_none():
    """Gascony: two moves bounce there, so the French army dislodged from Burgundy cannot retreat to
    it. Picardy: the move to it lost head to head (no strength to prevent), so it stays open."""
    out = phase({"France": ["A Bur", "A Spa", "A Pic"], "Italy": ["A Mar"], "Germany": ["A Mun", "A Ruh"],
                 "England": ["A Bel"]},
                "France: A Bur H\nGermany: A Mun - Bur\nGermany: A Ruh S A Mun - Bur\n"
                "France: A Spa - Gas\nItaly: A Mar - Gas\n"
                "France: A Pic - Bel\nEngland: A Bel - Pic")
    got = results(out)
    assert got["A Spa - Gas"] == got["A Mar - Gas"] == ("fails", "bounced")
    assert got["A Pic - Bel"] == got["A Bel - Pic"] == ("fails", "bounced")
    d = out["next"]["dislodged"]["France"][0]
    assert d["unit"] == "A Bur" and d["from"] == "Mun"
    assert set(d["retreats"]) == {"Par"}  # not Gas (bounce), Pic, Bel, Mar (held), Ruh, Mun


def test_a_move_that_lost_head_to_head_leaves_its_target_open_to_retreats():
    """Holland, left by the German army that wins the battle with Belgium, is not contested by the
    French army that lost it (a prevent strength of 0): the army dislodged from Kiel may go there."""
    out = phase({"France": ["A Bel", "A Kie"], "Germany": ["A Hol", "F Nth", "A Ber", "A Den", "A Ruh"]},
                "Germany: A Hol - Bel\nGermany: F Nth S A Hol - Bel\nFrance: A Bel - Hol\n"
                "France: A Kie H\nGermany: A Ber - Kie\nGermany: A Den S A Ber - Kie\nGermany: A Ruh H")
    got = results(out)
    assert got["A Hol - Bel"] == ("succeeds", "")
    assert got["A Bel - Hol"] == ("fails", "bounced, dislodged")
    retreats = {d["unit"]: set(d["retreats"]) for d in out["next"]["dislodged"]["France"]}
    assert retreats["A Kie"] == {"Hol", "Mun"}  # not Ber (the attacker's), Den, Ruh (held)
    assert retreats["A Bel"] == {"Pic", "Bur"}  # not Hol (the attacker's)


def test_a_unit_ordered_twice_keeps_the_last_order_and_a_unit_without_one_holds():
    out = phase({"France": ["A Par", "A Mar"]}, "France: A Par - Bur\nFrance: A Par - Pic")
    assert [(r["order"], r["result"], r["reason"], r.get("default", False)) for r in out["orders"]] == [
        ("A Par - Bur", "invalid", "replaced by a later order for the same unit", False),
        ("A Par - Pic", "succeeds", "", False),
        ("A Mar H", "succeeds", "no order", True)]
