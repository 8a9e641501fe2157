"""Variant data: the standard map loads, and broken data fails with a message naming file and entry."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from judge.variant import SEEDS_DIR, VariantError, available_variants, load_variant, load_variant_file

STANDARD = (SEEDS_DIR / "standard.toml").read_text(encoding="utf-8")


def test_standard_map_counts():
    v = load_variant("standard")
    m = v.map
    playable = [p for p in m.provinces.values() if p.terrain != "impassable"]
    assert len(playable) == 75
    assert len(m.centres) == 34
    assert sum(len(p.units) for p in v.powers.values()) == 22
    assert {p.abbrev for p in v.powers.values()} == {"ENG", "FRA", "GER", "ITA", "AUS", "RUS", "TUR"}
    assert str(v.calendar.start) == "Spring 1901 Movement"
    assert v.victory["centres"] == 18


@pytest.mark.parametrize("alias,key", [
    ("MAO", "mao"), ("mid", "mao"), ("Mid-Atlantic", "mao"), ("NAT", "nao"), ("nao", "nao"),
    ("NRG", "nwg"), ("nwg", "nwg"), ("LYO", "lyo"), ("GOL", "lyo"), ("Gulf of Lyon", "lyo"),
    ("ENG", "eng"), ("ECH", "eng"), ("English Channel", "eng"), ("St. Petersburg", "stp"),
    ("stp", "stp"), ("North Africa", "naf"), ("helgoland bight", "hel"),
])
def test_common_aliases(alias, key):
    assert load_variant("standard").map.lookup(alias) == key


def test_coasts_and_adjacency():
    m = load_variant("standard").map
    assert m.fleet_locs["stp"] == ("stp/nc", "stp/sc")
    assert m.fleet_adj["stp/nc"] == {"bar", "nwy"}
    assert "spa/sc" in m.fleet_adj["mar"] and "spa/nc" not in m.fleet_adj["mar"]
    assert {"bul/ec", "bul/sc"} <= m.fleet_adj["con"]
    assert "kie" in m.fleet_adj["ber"] and "ber" in m.army_adj["kie"]
    assert not m.army_adj.get("swi") and m.terrain["swi"] == "impassable"


def test_every_variant_in_seeds_loads():
    for name in available_variants():
        load_variant(name)  # raises VariantError with a clear message if broken


def _broken(tmp_path: Path, text: str, name: str = "broken") -> VariantError:
    text = re.sub(r'(?m)^name = "standard"', f'name = "{name}"', text, count=1)
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VariantError) as exc:
        load_variant_file(path)
    assert str(path) in str(exc.value) or path.name in str(exc.value)
    return exc.value


def _replace_list(text: str, province: str, field: str, new: str) -> str:
    """Swap one province's adjacency list in the TOML text."""
    data = tomllib.loads(text)
    assert field in data["provinces"][province]
    block = re.search(rf"(?ms)^\[provinces\.{province}\]\n.*?(?=^\[)", text)
    assert block
    fixed = re.sub(rf"(?m)^{field}\s*=\s*\[.*?\]", f"{field} = {new}", block.group(0), count=1)
    return text.replace(block.group(0), fixed)


def test_asymmetric_adjacency_is_named(tmp_path):
    bad = _replace_list(STANDARD, "Lon", "fleet", '["Wal", "Yor", "Nth"]')  # drops Eng, Eng still lists Lon
    err = _broken(tmp_path, bad)
    assert "Eng" in str(err) and "Lon" in str(err) and "symmetric" in str(err)


def test_unknown_province_is_named(tmp_path):
    bad = _replace_list(STANDARD, "Lon", "army", '["Wal", "Yor", "Xyz"]')
    err = _broken(tmp_path, bad)
    assert "provinces.Lon.army" in str(err) and "Xyz" in str(err)


def test_missing_coast_is_named(tmp_path):
    bad = _replace_list(STANDARD, "Gas", "fleet", '["Bre", "Mao", "Spa"]')
    err = _broken(tmp_path, bad)
    assert "Gas" in str(err) and "coast" in str(err)


def test_sc_count_mismatch(tmp_path):
    bad = re.sub(r"(?m)^sc_count = 34", "sc_count = 35", STANDARD)
    err = _broken(tmp_path, bad)
    assert "sc_count" in str(err) and "34" in str(err)


def test_duplicate_alias(tmp_path):
    bad = _replace_list(STANDARD, "Lon", "aliases", '["Edinburgh"]')
    err = _broken(tmp_path, bad)
    assert "alias" in str(err) and "Edi" in str(err)


def test_unit_on_wrong_terrain(tmp_path):
    bad = STANDARD.replace('"F Lon"', '"F Mun"', 1)
    err = _broken(tmp_path, bad)
    assert "powers.England.units" in str(err) and "Mun" in str(err)


def test_unknown_variant_lists_known():
    with pytest.raises(VariantError) as exc:
        load_variant("nonesuch")
    assert "standard" in str(exc.value)


def test_calendar_parse_and_follow():
    cal = load_variant("standard").calendar
    p = cal.parse("fall 1901 retreats")
    assert str(p) == "Fall 1901 Retreat"
    assert str(cal.following(p)) == "Winter 1901 Adjustment"
    assert str(cal.following(cal.parse("Winter 1901 Adjustment"))) == "Spring 1902 Movement"
    with pytest.raises(ValueError):
        cal.parse("Summer 1901 Movement")


def test_other_calendars_are_checked_and_named(tmp_path):
    """``[calendars.<name>]`` (the rule switch ``calendar``, 1885 II rule 4's two readings): a bad
    one is named in the error; the variant's own is always ``default`` too."""
    bad = STANDARD + '\n[calendars.short]\nseasons = [{name = "Spring", phases = ["moves"]}]\n'
    err = _broken(tmp_path, bad)
    assert "calendars.short.seasons[0]" in str(err)
    bad = STANDARD + '\n[calendars.default]\nseasons = [{name = "Spring", phases = ["movement"]}]\n'
    assert "defined already" in str(_broken(tmp_path, bad))
    good = STANDARD + ('\n[calendars.no_retreats]\nstart = "Spring 1901 Movement"\nseasons = ['
                       '{name = "Spring", phases = ["movement"]}, {name = "Fall", phases = ["movement"]}, '
                       '{name = "Winter", phases = ["adjustment"]}]\n')
    path = tmp_path / "twocal.toml"
    path.write_text(re.sub(r'(?m)^name = "standard"', 'name = "twocal"', good, count=1), encoding="utf-8")
    v = load_variant_file(path)
    assert list(v.calendars) == ["default", "no_retreats"] and v.calendar_name == "default"
    w = v.with_rules({"calendar": "no_retreats"})
    assert w.calendar_name == "no_retreats" and w.with_rules({"calendar": "no_retreats"}) is w
    assert v.with_rules({"calendar": "default"}) is v and w.with_rules({}) is v
    assert str(w.calendar.following(w.calendar.parse("Spring 1901 Movement"))) == "Fall 1901 Movement"
    with pytest.raises(VariantError, match="no calendar 'weekly'"):
        v.with_rules({"calendar": "weekly"})
