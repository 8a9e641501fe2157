"""The coastline data of seeds/coast_running.toml (``[coastlines]``) and its checks."""

from __future__ import annotations

import pytest

from judge.engine.modules.coast_running import (CoastlineError, coastlines_for, coastlines_from_map,
                                                coastlines_from_table, run_routes)
from judge.variant import load_variant


@pytest.fixture(scope="module")
def variant():
    return load_variant("coast_running")


@pytest.fixture(scope="module")
def cl(variant):
    return coastlines_for(variant, variant.map)


def test_every_coastal_province_has_its_coastlines(variant, cl):
    m = variant.map
    coastal = {p for p, prov in m.provinces.items() if prov.terrain == "coast"}
    assert set(cl.of_prov) == coastal
    assert len(variant.raw["coastlines"]) == len(coastal) == 42


def test_table_agrees_with_the_standard_fleet_moves(variant, cl):
    derived = coastlines_from_map(variant.map)
    assert cl.borders == derived.borders
    assert cl.joins == derived.joins


@pytest.mark.parametrize("prov,coasts", [("stp", ("stp/nc", "stp/sc")), ("spa", ("spa/nc", "spa/sc")),
                                         ("bul", ("bul/ec", "bul/sc"))])
def test_double_coasted_provinces_have_two_coastlines_that_do_not_join(cl, prov, coasts):
    assert sorted(cl.of_prov[prov]) == sorted(coasts)
    a, b = coasts
    assert b not in cl.joins[a] and a not in cl.joins[b]


@pytest.mark.parametrize("prov,sea_a,sea_b", [("den", "nth", "bal"), ("kie", "hel", "bal"),
                                              ("swe", "ska", "bot"), ("con", "bla", "aeg")])
def test_fleet_permeable_provinces_have_one_coastline_touching_both_seas(cl, prov, sea_a, sea_b):
    assert cl.of_prov[prov] == (prov,)
    assert {sea_a, sea_b} <= cl.borders[prov]


def test_routes_rum_to_gre_use_both_coasts_of_bulgaria(cl):
    assert run_routes(cl, "rum", "gre", ["bul/ec", "bul/sc", "con"]) == [("bul/ec", "con", "bul/sc")]


def test_a_one_sided_entry_is_refused(variant):
    table = {k: dict(v) for k, v in variant.raw["coastlines"].items()}
    table["Yor"] = {"coast": ["Nth", "Edi", "Lon", "Wal"]}  # Wales's coastline does not list Yorkshire
    with pytest.raises(CoastlineError, match="Yor.*Wal|Wal.*Yor"):
        coastlines_from_table(table, variant.map)


def test_wrong_coast_names_are_refused(variant):
    table = {k: dict(v) for k, v in variant.raw["coastlines"].items()}
    table["Spa"] = {"coast": ["Mao"]}
    with pytest.raises(CoastlineError, match="coastlines.Spa"):
        coastlines_from_table(table, variant.map)


def test_a_missing_province_is_refused(variant):
    table = {k: dict(v) for k, v in variant.raw["coastlines"].items()}
    del table["Tun"]
    with pytest.raises(CoastlineError, match="Tun has no entry"):
        coastlines_from_table(table, variant.map)
