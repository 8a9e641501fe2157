"""Deluge II: the seed's data — the board, the two tables and the map after every submergence."""

from __future__ import annotations

import tomllib

import pytest

from judge.engine.modules.deluge import Geometry, GeometryError, derive_maps, sea_runs
from judge.variant import SEEDS_DIR, load_variant

SEED = SEEDS_DIR / "deluge2.toml"

#: Table 1 of the rules (submergences), as printed.
TABLE_1 = {
    1901: "Lon Hol Bel Gas Ven Lvn",
    1902: "Yor Pic Apu Rum Sev Fin Syr Den Lpl",
    1903: "Arm Bre StP Par Tus Nap Bud Kie",
    1904: "Ber Mos Mar Por Rom Vie Bul Gre Pru Ruh Gal Ukr Con",
    1905: "Wal Cly Swe Tri Alb War Ice",
    1906: "Edi Spa Tun Ser Smy Sil Boh",
    1907: "Nwy Mun Pie Tyr NAf Bur Ank",
}
#: Table 2 of the rules (new supply centres), as in the project's text (from W1901).
TABLE_2 = {1901: "Wal Ruh Tyr", 1902: "Ukr Ice", 1903: "Pie", 1904: "Boh Sil", 1905: "Swi", 1906: "NAf", 1907: ""}


@pytest.fixture(scope="module")
def v():
    return load_variant("deluge2")


@pytest.fixture(scope="module")
def raw():
    with open(SEED, "rb") as fh:
        return tomllib.load(fh)


def ids(v, names: str) -> set[str]:
    return {v.map.lookup(n) for n in names.split()}


def map_after(v, year: int):
    return v.map_at(f"Spring {year + 1} Movement")


def fleet(m, loc: str) -> set[str]:
    return set(m.fleet_adj[loc])


# -- the board -------------------------------------------------------------------------------
def test_standard_board_plus_iceland_and_switzerland(v):
    std = load_variant("standard")
    assert set(v.map.provinces) == set(std.map.provinces) | {"ice"}
    for p in std.map.provinces:
        assert v.map.terrain[p] == std.map.terrain[p]
        assert v.map.army_adj.get(p) == std.map.army_adj.get(p)
        assert v.map.fleet_locs[p] == std.map.fleet_locs[p]
    assert v.map.fleet_adj == std.map.fleet_adj
    assert v.map.terrain["ice"] == "impassable" and v.map.terrain["swi"] == "impassable"
    assert len(v.map.centres) == 34


def test_rings_give_back_the_standard_board(raw):
    """The documented procedure (coasts = runs of sea neighbours in each province's ring)
    applied to the standard board reproduces its adjacency exactly, coasts included."""
    defs = Geometry(raw).definitions()
    for key, prov in raw["provinces"].items():
        d = defs[key]
        assert d["terrain"] == prov["terrain"], key
        assert sorted(prov.get("army", []), key=str.lower) == d.get("army", []), key
        if "coasts" in prov:
            assert {c: sorted(x, key=str.lower) for c, x in prov["coasts"].items()} == d["coasts"], key
        else:
            assert sorted(prov.get("fleet", []), key=str.lower) == d.get("fleet", []), key


def test_ring_errors_are_caught(raw):
    bad = {**raw, "deluge": {**raw["deluge"], "rings": {**raw["deluge"]["rings"],
                                                        "Lon": ["Nth", "Yor", "Eng", "Wal"]}}}
    with pytest.raises(GeometryError, match="Lon"):
        Geometry(bad)


def test_sea_runs():
    terrain = {"a": "sea", "b": "land", "c": "sea", "d": "sea", "e": "coast"}
    assert sea_runs(["a", "b", "c", "d", "e"], terrain) == [(2, 3), (0,)]
    assert sea_runs(["a", "c"], terrain) == [(0, 1)]  # an island: one coast all round
    assert sea_runs(["b", "e"], terrain) == []


def test_seed_changes_are_the_derived_maps(raw):
    """The [[changes]] written in the seed are exactly what the tables and rings give."""
    _base, derived = derive_maps(raw)
    assert len(derived) == len(raw["changes"]) == 7
    for ch, d in zip(raw["changes"], derived):
        assert ch.get("remove_centres", []) == d["remove_centres"], ch["after"]
        assert ch.get("provinces", {}) == d["provinces"], ch["after"]


# -- the tables ------------------------------------------------------------------------------
def test_submergence_table(v):
    for year, names in TABLE_1.items():
        before, after = v.map_at(f"Winter {year} Adjustment"), map_after(v, year)
        sunk = {p for p in after.provinces if after.terrain[p] == "sea" and before.terrain[p] != "sea"}
        assert sunk == ids(v, names), year


def test_new_centre_table(v):
    for (after, _m, _removed, added), year in zip(v.changes, range(1901, 1908)):
        assert str(after) == f"Winter {year} Adjustment"
        assert added == ids(v, TABLE_2[year]) - {None}, year


def test_sunk_centres_are_destroyed(v):
    for (after, m, removed, _added), year in zip(v.changes, range(1901, 1908)):
        before = v.map_at(after)
        assert removed == ids(v, TABLE_1[year]) & before.centres
        assert not removed & m.centres
    assert map_after(v, 1907).centres == {"swi"}  # only Switzerland is left above water


def test_centre_counts_year_by_year(v):
    counts = [len(map_after(v, y).centres) for y in range(1901, 1908)]
    assert counts == [33, 31, 26, 17, 13, 7, 1]


# -- each year's map -------------------------------------------------------------------------
def test_w1901_map_venice_example(v):
    """"at the end of winter 1901, venice sinks creating 2 coasts in ROME, Piedmont and Tuscany"."""
    m = map_after(v, 1901)
    assert m.terrain["ven"] == "sea" and "ven" not in m.army_adj
    for p in ("rom", "pie", "tus"):
        assert len(m.fleet_locs[p]) == 2, p
    # the Venice side and the Gulf of Lyon / Tyrrhenian side
    assert fleet(m, "pie/ec") == {"ven", "tyr", "tus/nc"}
    assert fleet(m, "pie/sc") == {"lyo", "mar/sc", "tus/sc"}
    assert fleet(m, "tus/nc") == {"ven", "pie/ec", "rom/nc"}
    assert fleet(m, "tus/sc") == {"lyo", "tys", "pie/sc", "rom/sc"}
    assert fleet(m, "rom/nc") == {"ven", "apu", "tus/nc"}
    assert fleet(m, "rom/sc") == {"tys", "nap", "tus/sc"}
    assert fleet(m, "ven") == {"adr", "apu", "tri", "tyr", "pie/ec", "tus/nc", "rom/nc"}
    assert m.terrain["tyr"] == "coast" and fleet(m, "tyr") == {"ven", "tri", "pie/ec"}
    # the other sinkings of W1901
    assert fleet(m, "lon") == {"nth", "eng", "wal", "yor"}
    assert fleet(m, "hol") == {"nth", "hel", "bel", "kie", "ruh"}
    assert fleet(m, "bel") == {"nth", "eng", "hol", "pic", "ruh", "bur/nc"}
    assert fleet(m, "gas") == {"mao", "bre", "par", "spa/nc", "mar/wc", "bur/wc"}
    assert fleet(m, "lvn") == {"bal", "bot", "pru", "war", "mos", "stp/sc"}
    assert set(m.fleet_locs["mar"]) == {"mar/sc", "mar/wc"}  # Gascony gives Marseilles a west coast
    assert set(m.fleet_locs["bur"]) == {"bur/nc", "bur/wc"}
    assert m.terrain["par"] == "coast" and m.terrain["ruh"] == "coast"
    assert fleet(m, "spa/nc") == {"mao", "por", "gas", "mar/wc"}
    # Iceland is passable after W1901: an island between the North Atlantic and Norwegian Sea
    assert m.terrain["ice"] == "coast" and fleet(m, "ice") == {"nao", "nwg"} and not m.army_adj["ice"]
    assert "ice" in fleet(m, "nao") and "ice" in fleet(m, "nwg")
    assert m.terrain["swi"] == "impassable"


def test_w1902_map(v):
    m = map_after(v, 1902)
    for p in ids(v, TABLE_1[1902]):
        assert m.terrain[p] == "sea" and p not in m.army_adj
    assert fleet(m, "den") == {"nth", "ska", "hel", "bal", "kie", "swe"}
    assert fleet(m, "sev") == {"bla", "rum", "arm/nc", "mos/sc", "ukr"}
    assert set(m.fleet_locs["stp"]) == {"stp/nc", "stp/sc"}  # names kept as the coasts grow
    assert fleet(m, "stp/sc") == {"bot", "fin", "lvn", "mos/wc", "nwy/ec"}
    assert set(m.fleet_locs["nwy"]) == {"nwy/nc", "nwy/ec"}  # Finland opens a Bothnian coast
    assert set(m.fleet_locs["arm"]) == {"arm/nc", "arm/sc"}
    assert fleet(m, "arm/sc") == {"syr", "smy"}
    assert fleet(m, "bul/ec") == {"bla", "rum", "con", "ser"}
    assert fleet(m, "rom/nc") == {"ven", "apu", "nap", "tus/nc"}
    assert m.terrain["ice"] == "coast" and "ice" in m.centres  # new centre W1902


def test_w1903_map(v):
    m = map_after(v, 1903)
    for p in ids(v, TABLE_1[1903]):
        assert m.terrain[p] == "sea"
    assert fleet(m, "stp") >= {"bar", "bot", "fin", "lvn"}  # St Petersburg is one sea now
    assert set(m.fleet_locs["tri"]) == {"tri/ec", "tri/wc"}  # Budapest opens an eastern coast
    assert fleet(m, "tri/ec") == {"bud", "ser", "vie"}
    assert m.fleet_locs["rom"] == ("rom",)  # Tuscany and Naples gone: Rome is an island
    assert fleet(m, "rom") == {"tus", "ven", "apu", "nap", "tys"} and not m.army_adj["rom"]
    assert "pie" in m.centres


def test_w1904_map_and_switzerland(v):
    m = map_after(v, 1904)
    for p in ids(v, TABLE_1[1904]):
        assert m.terrain[p] == "sea"
    assert v.map_at("Fall 1904 Movement").terrain["swi"] == "impassable"
    assert m.terrain["swi"] == "coast"  # passable after W1904, and Marseilles has just sunk
    assert m.army_adj["swi"] == {"bur", "mun", "pie", "tyr"}
    assert fleet(m, "swi") == {"mar", "bur", "pie"}
    assert set(m.fleet_locs["tyr"]) == {"tyr/ec", "tyr/sc"}
    assert {"boh", "sil"} <= m.centres and "swi" not in m.centres


def test_w1905_to_w1907_maps(v):
    m5, m6, m7 = map_after(v, 1905), map_after(v, 1906), map_after(v, 1907)
    assert m5.terrain["ice"] == "sea" and "swi" in m5.centres
    assert fleet(m5, "ice") == {"nao", "nwg"}
    assert m6.terrain["boh"] == "sea" and "naf" in m6.centres
    land7 = {p for p, t in m7.terrain.items() if t != "sea"}
    assert land7 == {"swi"}  # Switzerland alone stands
    assert m7.fleet_locs["swi"] == ("swi",) and not m7.army_adj["swi"]
    assert fleet(m7, "swi") == {"mun", "tyr", "pie", "mar", "bur"}


def test_every_map_is_symmetric(v):
    for _after, m, _r, _a in v.changes:
        for loc, ns in m.fleet_adj.items():
            for n in ns:
                assert loc in m.fleet_adj[n], (loc, n)
        for p, ns in m.army_adj.items():
            for n in ns:
                assert p in m.army_adj[n]


def test_calendar_rules_and_start(v):
    assert str(v.calendar.start) == "Winter 1900 Adjustment"
    start = v.start_position()
    assert all(not us for us in start["units"].values())
    assert start["centers"]["Russia"] == ["StP", "Mos", "War", "Sev"]
    assert v.rules["build_sites"] == "any_owned"
    assert set(v.rules["modules"]) == {"deluge", "transform", "army_fleet"}
    assert v.rules["af_rules"] == "davis1984"
    assert v.victory["survivor_after"] == "Winter 1908 Adjustment" and v.victory["centres"] == 0
