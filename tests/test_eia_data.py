"""The supplement's tables as data (seeds/eia_afa.toml) and the verifiable dice."""

from __future__ import annotations

import collections
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from judge.eia import dice
from judge.eia.data import EiaDataError, load_tables, load_tables_file
from judge.variant import SEEDS_DIR, VariantError, available_variants, load_variant


def test_the_eia_seed_is_not_listed_as_a_diplomacy_variant():
    assert "eia_afa" not in available_variants()
    with pytest.raises(VariantError, match="not a Diplomacy variant"):
        load_variant("eia_afa")


def test_yard_table_of_section_I():
    """I: "England 10/2 12/3 Portsmouth 15 Plymouth 15 London 30 Dublin 5 note 1 Glasgow 5 note 1"."""
    t = load_tables()
    eng = t.nations["England"]
    assert (eng.cost, eng.time) == ((10, 2), (12, 3))
    assert [(y.name, y.max, y.note) for y in eng.yards] == [
        ("Portsmouth", 15, None), ("Plymouth", 15, None), ("London", 30, None), ("Dublin", 5, 1), ("Glasgow", 5, 1)]
    assert (t.nations["Prussia"].cost, t.nations["Prussia"].time) == ((18, 6), (20, 6))
    assert (t.nations["Denmark"].cost, t.nations["Denmark"].time) == ((12, 3), (12, 2))
    assert t.yard("Havana (Cuba)").max == 20 and t.yard("lisbon").name == "Libson"
    assert sum(len(n.yards) for n in t.nations.values()) == 34
    assert t.notes[1].add_time == (3, 1) and t.notes[2].add_time == (4, 2)
    assert (t.notes[3].after_ships, t.notes[3].time, t.notes[3].cost) == (8, (15, 5), (18, 5))


# The supplement's tables as the seed text prints them (facts, copied so the tests need no file).
YARD_TABLE = (
    "England 10/2 12/3 Portsmouth 15 Plymouth 15 London 30 Dublin 5 note 1 Glasgow 5 note 1 France 10/2 12/3 "
    "Brest 10 Le Harve 8 note 1 Toulon 10 Marseilles 10 Cherbourg 5 note 1 Spain 10/2 12/3 Cadiz 20 Havana (Cuba) "
    "20 Corunna 4 note 2 Barcelona 4 note 2 Cartagena 2 note 2 Prussia 18/6 20/6 Danzig 4 note 3 Konigsburg 2 "
    "note 3 Stetin 3 note 3 Austria 14/4 16/4 Trieste 5 Zara 1 Russia 12/3 14/4 St. Petersburg 15 Archangel 4 "
    "note 1 Riga 5 Sevastopol 4 Turkey 12/3 14/4 Constantinople 10 Sinope 2 Smyrna 5 Venice 15/5 15/5 Venice 8 "
    "Naples 15/5 15/5 Naples 4 Denmark 12/3 12/2 Copenhagen 10 Hamburg 4 Sweden 10/2 12/3 Karlskrona 10 "
    "Holland 12/3 12/2 Amsterdam 10 Portugal 12/3 12/2 Libson 10")
FORT_TABLE = (
    "110+ 22 20 18 16 14 14 12 10 10 8 6* 110-109 20 19 17 15 14 13 12 10 9 7 5* 90-99 18 17 15 14 12 11 10 9 8 "
    "6 4* 80-89 16 15 13 12 11 10 9 8 7 5 4* 70-79 14 13 12 10 10 9 8 7 6 5 4* 60-69 12 11 10 9 9 8 7 6 5 5 4* "
    "50-59 10 10 9 8 7 7 6 5 4 3* 3* 40-49 8 7 7 6 6 5 5 4 4 3* 3* 30-39 6 6 5 5 5 4 4* 4* 3* 3* 3* 20-29 4 4 3 "
    "3 3 3 2* 2* 2* 2* 2* 10-19 2 2 2 2 1 1 1* 1* 0* 0* 0* 0-9 1 1 1 1 1 1 0* 0* 0* 0* 0*")
PAPACY_TABLE = "AUSTRIA na 0 0 FRANCE 0 na 0 SPAIN 0 0 na ENGLAND 1 2 1 PRUSSIA 2 1 2 RUSSIA 1 1 2 TURKEY 3 2 2"


def test_I_every_nation_and_yard_as_the_table_prints_them():
    """I: "COUNTRY COST TIME LOCATION MAXIMUM NUMBER" for all thirteen nations and 34 yards, with
    B's reading: "COST: 14/4 = 14 money points per ship for new construction and 4 ... to repair"."""
    import re

    t = load_tables()
    rows = re.findall(r"([A-Z][a-z]+) (\d+)/(\d+) (\d+)/(\d+) (.*?)(?= [A-Z][a-z]+ \d+/\d+ |$)", YARD_TABLE)
    assert len(rows) == 13 and len(t.nations) == 13
    for nation, c_new, c_rep, t_new, t_rep, yards in rows:
        n = t.nations[nation]
        assert (n.cost, n.time) == ((int(c_new), int(c_rep)), (int(t_new), int(t_rep))), nation
        printed = [(name.strip(), int(mx), int(note) if note else None)
                   for name, mx, note in re.findall(r"(\D+?) (\d+)(?: note (\d))?(?= |$)", yards)]
        assert [(t.yard(name).name, y.max, y.note) for (name, _, _), y in zip(printed, n.yards)] == \
            [(y.name, mx, note) for (_, mx, note), y in zip(printed, n.yards)], nation
        assert len(printed) == len(n.yards), nation


def test_XI_the_whole_fort_table_as_printed():
    """XI: "Defensive Fire from the Fort - Combat Losses to the Fleet Table (Die Roll 2D6)", every
    cell, starred or not; and "Result: 2 3-6 7-10 11-12 Damage to Fort: 7 4 2 0"."""
    import re

    t = load_tables()
    rows = re.findall(r"(\d+)(?:\+|-\d+) ((?:\d+\*? ?){11})", FORT_TABLE)
    assert len(rows) == 12
    for band, (low, cells) in zip(t.fort_bands, rows):
        want = tuple((int(c.rstrip("*")), c.endswith("*")) for c in cells.split())
        assert band.results == want, low
    assert [b.low for b in t.fort_bands] == [110, 100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0]
    assert t.fleet_fire == ((2, 2, 7), (3, 6, 4), (7, 10, 2), (11, 12, 0))
    assert t["forts"]["fleet_factors_per_shot"] == 10
    assert (t["forts"]["militia_only_modifier"], t["forts"]["no_garrison_modifier"]) == (1, 6)


def test_XIV_the_whole_papacy_table_as_printed():
    """XIV: "Nation occupying the Papacy / Cost to Austria, Cost to France, Cost to Spain"."""
    t = load_tables()
    words = PAPACY_TABLE.split()
    for i in range(0, len(words), 4):
        occupier = words[i].title()
        for payer, cell in zip(("Austria", "France", "Spain"), words[i + 1:i + 4]):
            if cell == "na":
                assert payer == occupier and payer not in t.papacy[occupier]
            else:
                assert t.papacy[occupier][payer] == int(cell), (occupier, payer)


def test_the_supplement_figures_in_the_data():
    """IV.A 30..80 %, IV.B 3 sea zones, V.A 3 months, VI.A 2-6 ships and 8 zones, VIII 2 / 4 / +2,
    IX.C 1, IX.C.3 5, IX.E 3, IX.A.1 two months, IX.B.1 four months, III.A 1/3, III.B 1-3 and 1/2,
    III.C 1/4, X -1, XII.C 2, XVII.B 2, AFA 1 80, AFA 2 10 and 15."""
    t = load_tables()
    assert t["prizes"] == {"percent": [30, 40, 50, 60, 70, 80], "zones_per_month": 3}
    assert t["transport"]["max_months_at_sea"] == 3 and t["transport"]["cavalry_factor"] == 2
    assert t["squadrons"] == {"min_ships": 2, "max_ships": 6, "move_zones": 8, "combat_modifier": -1}
    assert t["sailing"] == {"fleet_needs": 2, "squadron_needs": 4, "admiral_bonus": 2}
    assert t["breakouts"] == {"west_indies_months": 2, "pursuit_west_indies_months": 4, "intercept_max": 1,
                              "counter_intercept_max": 5, "west_indies_intercept_max": 3}
    st = t["stores"]
    assert (st["denied_surcharge"], st["intercept_on"], st["intercept_share"], st["stock_fraction"]) == \
        ([1, 3], [1, 2, 3], [1, 2], [1, 4])
    assert t.nations["Venice"].combat_modifier == -1
    assert t["political"]["surrender_min_home_provinces"] == 2 and t["political"]["tsar_victory_pp"] == 2
    assert t["afa"] == {"england_start_ships": 80, "militia_permanent": 10, "militia_invasion": 15}
    assert [t.yard(y).stock_cap for y in ("London", "Brest", "Le Harve", "Zara", "Cartagena")] == [8, 3, 2, 1, 1]


def test_fort_table_of_section_XI():
    """XI: the 2D6 defensive fire table; "110-109" is the 100-109 band."""
    t = load_tables()
    assert t.fort_band(115).results[0] == (22, False) and t.fort_band(115).results[-1] == (6, True)
    assert t.fort_band(100).results[0] == (20, False)
    assert t.fort_band(55).results[-2:] == ((3, True), (3, True))
    assert t.fort_band(5).results[6] == (0, True)
    assert [d for _, _, d in t.fleet_fire] == [7, 4, 2, 0]


def test_papacy_table_of_section_XIV():
    t = load_tables()
    assert t.papacy["Turkey"] == {"Austria": 3, "France": 2, "Spain": 2}
    assert t.papacy["England"] == {"Austria": 1, "France": 2, "Spain": 1}


def test_a_broken_table_fails_with_file_and_entry(tmp_path: Path):
    text = (SEEDS_DIR / "eia_afa.toml").read_text(encoding="utf-8")
    bad = tmp_path / "eia_afa.toml"
    bad.write_text(text.replace('{ name = "Zara", max = 1 }', '{ name = "Zara", max = 0 }'), encoding="utf-8")
    with pytest.raises(EiaDataError, match=r"nations.Austria\] yards\[1\] max"):
        load_tables_file(bad)
    bad.write_text(text.replace("London = 30, Portsmouth = 25", "London = 30, Portsmouth = 45"), encoding="utf-8")
    with pytest.raises(EiaDataError, match="AFA 1"):
        load_tables_file(bad)
    bad.write_text(text.replace('"12 11 10 9 9 8 7 6 5 5 4*"', '"12 11 10 9 9 8 7 6 5 5"'), encoding="utf-8")
    with pytest.raises(EiaDataError, match="11 results"):
        load_tables_file(bad)


# -- dice ----------------------------------------------------------------------------------------
def test_a_roll_is_the_hmac_of_game_month_sequence_purpose():
    """The issue: "every roll = HMAC(secret, game|month|sequence|purpose)"; the fields are written
    as netstrings (docs/variants/eia.md §4), recomputed here by hand."""
    key = bytes.fromhex("11" * 32)
    import hmac
    digest = hmac.new(key, b"10:eia-dice-2,1:g,7:1805-01,1:1,4:sail,", hashlib.sha256).digest()
    first = next(b for b in digest if b < 252)
    r = dice.Roller("11" * 32, "g", "1805-01")
    assert r.roll("sail") == first % 6 + 1
    assert r.rolls[0] == {"seq": 1, "month": "1805-01", "purpose": "sail", "dice": [first % 6 + 1],
                          "result": first % 6 + 1}


def test_a_purpose_with_separators_never_collides_with_another_roll():
    """The issue: HMAC(secret, game|month|sequence|purpose). Written with bare '|' separators, game
    "g|1805-01" month "1" and game "g" month "1805-01|1" gave one message, and so did the second block
    of "sail" and the first of purpose "sail|1"; length-prefixed fields keep every roll apart."""
    msgs = {dice.message("g|1805-01", "1", 2, "x"), dice.message("g", "1805-01|1", 2, "x"),
            dice.message("g", "1805-01", 1, "2|x"), dice.message("g", "1805-01", 12, "x"),
            dice.message("g", "1805-01", 1, "sail|1"), dice.message("g", "1805-01", 1, "sail")}
    assert len(msgs) == 6
    # the stream's next block (a sixth field) is no roll's first block, whatever its purpose
    block = dice.message("g", "1805-01", 1, "sail") + dice.netstring("1")
    assert block not in msgs and block != dice.message("g", "1805-01", 1, "sail4:1,")


def test_dice_map_without_bias_exactly():
    """Rejection sampling, counted over every byte: each face of a d6, d11 or d7 keeps the same number
    of byte values (252/6, 253/11, 252/7) and no other byte is ever used."""
    for sides in (6, 7, 11, 2, 256):
        limit = 256 - 256 % sides
        per_face = collections.Counter(b % sides + 1 for b in range(256) if b < limit)
        assert set(per_face.values()) == {limit // sides} and len(per_face) == sides
    # a stream of 32 bytes all >= 252 must move to the next block rather than use them
    key = b"k" * 32
    for i in range(300):
        msg = str(i).encode()
        import hmac as _h
        first = _h.new(key, msg, hashlib.sha256).digest()
        used = [b % 6 + 1 for b in first if b < 252][:3]
        assert dice.faces(key, msg, 3)[:len(used)] == used


def test_dice_are_unbiased_by_rejection_sampling():
    """Bytes 252..255 are never used for a d6: every face is equally likely."""
    key = b"k" * 32
    counts = collections.Counter()
    for i in range(6000):
        counts.update(dice.faces(key, str(i).encode(), 2))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert max(counts.values()) - min(counts.values()) < 400   # 12000 dice, sd about 41 per face
    # a stream of rejected bytes moves on to the next block instead of biasing
    assert all(1 <= f <= 11 for f in dice.faces(key, b"x", 50, 11))


def test_verify_catches_a_changed_die_and_a_wrong_secret():
    r = dice.Roller("22" * 32, "g", "1805-02")
    r.roll("a", 2)
    r.roll("b", 1, modifier=2)
    good = [dict(x) for x in r.rolls]
    assert dice.verify("g", "22" * 32, good, dice.commitment("22" * 32)) == []
    bad = [dict(x) for x in r.rolls]
    bad[0]["dice"] = [7 - d for d in bad[0]["dice"]] if bad[0]["dice"] != [7 - d for d in bad[0]["dice"]] else [1, 1]
    assert any("published dice" in p for p in dice.verify("g", "22" * 32, bad))
    assert any("commitment" in p for p in dice.verify("g", "22" * 32, good, dice.commitment("33" * 32)))
    assert dice.verify("other game", "22" * 32, good)


def test_verify_catches_a_roll_left_out_or_published_twice():
    """A month's rolls run 1, 2, 3 ...: a judge that left out a bad roll and rolled again would leave
    a gap; one that published a roll twice under two purposes, a duplicate."""
    r = dice.Roller("22" * 32, "g", "1805-02")
    for p in ("a", "b", "c"):
        r.roll(p)
    rolls = [dict(x) for x in r.rolls]
    assert dice.verify("g", "22" * 32, rolls) == []
    assert any("2 missing" in p for p in dice.verify("g", "22" * 32, [rolls[0], rolls[2]]))
    twice = rolls + [dict(rolls[1], purpose="b again")]
    assert any("more than once" in p for p in dice.verify("g", "22" * 32, twice))


def test_a_sealed_roll_is_withheld_from_the_public_and_still_holds_its_number():
    r = dice.Roller("22" * 32, "g", "1805-02")
    r.roll("a")
    r.pick("announced number at Brest", 2, 12, sealed=["France", "Master"])
    r.roll("c")
    shown = [dice.public(x) for x in r.rolls]
    assert shown[1] == {"seq": 2, "month": "1805-02", "purpose": "announced number at Brest",
                        "sealed": ["France", "Master"]}
    assert dice.verify("g", "22" * 32, shown) == []           # nothing to compare, no gap either
    assert dice.verify("g", "22" * 32, [dict(x) for x in r.rolls]) == []


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, timeout=120)


def test_judge_dice_verify_cli(tmp_path: Path):
    secret = "44" * 32
    state = tmp_path / "s.json"
    made = _cli("eia", "new", "--game", "g9", "--secret", secret)
    assert made.returncode == 0, made.stderr
    state.write_text(made.stdout)
    cmds = tmp_path / "c.txt"
    cmds.write_text("Master: WAR France England\nFrance: BUILD 2 AT Brest\nFrance: FORM S1 SQUADRON 3 AT Brest\n"
                    "France: SAIL S1\n")
    out = _cli("eia", "step", "--state", str(state), "--commands", str(cmds), "--secret", secret)
    assert out.returncode == 0, out.stderr
    rolls = tmp_path / "r.json"
    rolls.write_text(out.stdout)
    commitment = json.loads(made.stdout)["commitment"]
    ok = _cli("dice", "verify", "--game", "g9", "--secret", secret, "--rolls", str(rolls), "--commitment", commitment)
    assert ok.returncode == 0 and "all match" in ok.stdout
    data = json.loads(out.stdout)
    data["rolls"][-1]["result"] += 1
    rolls.write_text(json.dumps(data))
    bad = _cli("dice", "verify", "--game", "g9", "--secret", secret, "--rolls", str(rolls))
    assert bad.returncode == 1 and "problem" in bad.stdout
    # a tampered die (the result changed to match it) and a roll left out fail too
    data = json.loads(out.stdout)
    data["rolls"][0]["dice"] = [7 - data["rolls"][0]["dice"][0]]
    data["rolls"][0]["result"] = data["rolls"][0]["dice"][0] + data["rolls"][0].get("modifier", 0)
    rolls.write_text(json.dumps(data))
    bad = _cli("dice", "verify", "--game", "g9", "--secret", secret, "--rolls", str(rolls))
    assert bad.returncode == 1 and "published dice" in bad.stdout
    data = json.loads(out.stdout)
    del data["rolls"][0]
    rolls.write_text(json.dumps(data))
    bad = _cli("dice", "verify", "--game", "g9", "--secret", secret, "--rolls", str(rolls))
    assert bad.returncode == 1 and "missing" in bad.stdout


def test_judge_eia_step_refuses_a_bad_state_or_another_secret(tmp_path: Path):
    made = _cli("eia", "new", "--game", "g9", "--secret", "44" * 32)
    state = tmp_path / "s.json"
    state.write_text(made.stdout)
    wrong = _cli("eia", "step", "--state", str(state), "--secret", "45" * 32)
    assert wrong.returncode == 2 and "does not match this game's commitment" in wrong.stderr
    data = json.loads(made.stdout)
    data["nations"]["France"]["money"] = "lots"
    state.write_text(json.dumps(data))
    bad = _cli("eia", "step", "--state", str(state), "--secret", "44" * 32)
    assert bad.returncode == 2 and "state.nations.France.money: expected a whole number" in bad.stderr
    state.write_text("{not json")
    assert _cli("eia", "step", "--state", str(state), "--secret", "44" * 32).returncode == 2
