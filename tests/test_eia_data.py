"""The supplement's tables as data (seeds/eia_afa.toml) and the verifiable dice."""

from __future__ import annotations

import collections
import copy
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
    assert [t.stock_cap(t.yard(y)) for y in ("London", "Brest", "Le Harve", "Zara", "Cartagena")] == [8, 3, 2, 1, 1]


def test_III_C_the_stock_fraction_is_read_from_the_data():
    """No figure lives in two places: a table with another [stores] stock_fraction changes the cap
    (and the refusal's words), and a malformed fraction is refused when the data is loaded."""
    import dataclasses

    t = load_tables()
    half = dataclasses.replace(t, raw={**t.raw, "stores": {**t.raw["stores"], "stock_fraction": [1, 2]}})
    assert [half.stock_cap(half.yard(y)) for y in ("London", "Brest", "Le Harve", "Zara")] == [15, 5, 4, 1]
    from judge.eia.data import parse_tables
    raw = {**t.raw, "stores": {**t.raw["stores"], "stock_fraction": [1, 0]}}
    with pytest.raises(EiaDataError, match="stock_fraction"):
        parse_tables(raw, t.path)


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
def _by_hand(key: bytes, msg: bytes) -> int:
    import hmac
    return next(b for b in hmac.new(key, msg, hashlib.sha256).digest() if b < 252) % 6 + 1


def test_a_roll_is_the_hmac_of_its_key_and_its_dice():
    """A roll is HMAC(secret, game, month, nation, subject, kind, occurrence, count, sides) written as
    netstrings (docs/variants/eia.md §4), recomputed here by hand; the words shown beside it are not
    part of it."""
    key = bytes.fromhex("11" * 32)
    want = _by_hand(key, b"10:eia-dice-3,1:g,7:1805-01,6:France,2:S1,10:leave port,1:1,1:1,1:6,")
    r = dice.Roller("11" * 32, "g", "1805-01")
    assert r.roll("leave port", "France", "S1", "France S1 leaves Brest") == want
    assert r.rolls[0] == {"seq": 1, "month": "1805-01", "key": ["France", "S1", "leave port", 1], "count": 1,
                          "sides": 6, "purpose": "France S1 leaves Brest", "dice": [want], "result": want}
    other = dice.Roller("11" * 32, "g", "1805-01")
    other.roll("prizes", "England", "", "prizes after the battle at the Channel")
    assert other.roll("leave port", "France", "S1", "any words at all") == want        # order and words: no matter


def test_a_purpose_with_separators_never_collides_with_another_roll():
    """Length-prefixed fields: no two keys (or dice counts) share a message, whatever the names hold."""
    key = ("a", "b", "c", 1)
    msgs = {dice.message("g|1805-01", "1", key, 1, 6), dice.message("g", "1805-01|1", key, 1, 6),
            dice.message("g", "1805-01", ("a,b", "", "c", 1), 1, 6),
            dice.message("g", "1805-01", ("a", "b,", "c", 1), 1, 6),
            dice.message("g", "1805-01", key, 2, 6), dice.message("g", "1805-01", key, 1, 7),
            dice.message("g", "1805-01", ("a", "b", "c", 2), 1, 6), dice.legacy_message("g", "1805-01", 1, "c")}
    assert len(msgs) == 8
    block = dice.message("g", "1805-01", ("a", "b", "c", 1), 1, 6) + dice.netstring("1")
    assert block not in msgs


def test_legacy_months_keep_their_recorded_dice():
    """Months rolled before keys (eia-dice-2: game, month, seq, purpose) are replayed and verified under
    that scheme: a rollback of such a month gives the dice it was published with."""
    key = bytes.fromhex("11" * 32)
    want = _by_hand(key, b"10:eia-dice-2,1:g,7:1805-01,1:1,4:sail,")
    r = dice.Roller("11" * 32, "g", "1805-01", scheme=dice.LEGACY)
    assert r.roll("leave port", "France", "S1", "sail") == want
    assert r.rolls[0] == {"seq": 1, "month": "1805-01", "purpose": "sail", "dice": [want], "result": want}
    assert dice.verify("g", "11" * 32, r.rolls) == []
    assert dice.verify("g", "11" * 32, r.rolls, need_anchors=True) == []           # no count was printed then
    bad = [dict(r.rolls[0], dice=[want % 6 + 1], result=want % 6 + 1)]
    assert any("published dice" in p for p in dice.verify("g", "11" * 32, bad))


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


def _month_rolls(*kinds: tuple) -> list[dict]:
    r = dice.Roller("22" * 32, "g", "1805-02")
    for k in kinds:
        r.roll(*k)
    return [dict(x) for x in r.rolls]


def test_verify_catches_a_changed_die_and_a_wrong_secret():
    good = _month_rolls(("fort fire", "England", "F1", "fort", 2),
                        ("combat", "France", "S1", "c", 1, 6, {"squadron": -1}))
    figures = dice.rule_figures(load_tables().raw)
    assert dice.verify("g", "22" * 32, good, dice.commitment("22" * 32), figures=figures) == []
    bad = [dict(x) for x in good]
    bad[0]["dice"] = [7 - d for d in bad[0]["dice"]] if bad[0]["dice"] != [7 - d for d in bad[0]["dice"]] else [1, 1]
    assert any("published dice" in p for p in dice.verify("g", "22" * 32, bad))
    assert any("commitment" in p for p in dice.verify("g", "22" * 32, good, dice.commitment("33" * 32)))
    assert dice.verify("other game", "22" * 32, good)


def test_verify_catches_a_roll_left_out_or_published_twice():
    """A month's rolls run 1, 2, 3 ...; a key's occurrences 1, 2 ... in order; and the month holds as many
    rolls as its gazette printed."""
    rolls = _month_rolls(("prizes", "England", "", "a"), ("prizes", "England", "", "b"), ("prizes", "France", "", "c"))
    assert dice.verify("g", "22" * 32, rolls) == []
    assert any("2 missing" in p for p in dice.verify("g", "22" * 32, [rolls[0], rolls[2]]))
    twice = rolls + [dict(rolls[1], purpose="b again")]
    assert any("more than once" in p for p in dice.verify("g", "22" * 32, twice))
    swapped = [dict(rolls[0], seq=2), dict(rolls[1], seq=1), rolls[2]]
    assert any("occurrence 2 of England  prizes follows 0" in p for p in dice.verify("g", "22" * 32, swapped))
    anchors = {"1805-02": dice.Anchor(**dice.month_anchor(rolls))}
    assert dice.verify("g", "22" * 32, rolls, anchors=anchors) == []
    assert any("2 rolls published, the step output printed 3" in p
               for p in dice.verify("g", "22" * 32, rolls[:2], anchors=anchors))
    assert any("no roll count" in p for p in dice.verify("g", "22" * 32, rolls[:2], need_anchors=True))


def test_a_sealed_roll_is_withheld_from_the_public_and_its_dice_are_required_once_the_secret_is_out():
    r = dice.Roller("22" * 32, "g", "1805-02")
    r.roll("prizes", "France", "", "a")
    r.pick("yard figure", "France", "Brest", "announced number at Brest", 2, 12, sealed=["France", "Master"])
    r.roll("prizes", "England", "", "c")
    shown = [dice.public(x) for x in r.rolls]
    assert shown[1] == {"seq": 2, "month": "1805-02", "key": ["France", "Brest", "yard figure", 1],
                        "purpose": "announced number at Brest", "sealed": ["France", "Master"]}
    assert any("its dice are not published" in p for p in dice.verify("g", "22" * 32, shown))
    assert dice.verify("g", "22" * 32, [dict(x) for x in r.rolls], figures=dice.rule_figures(load_tables().raw)) == []
    # the public digest is the same whether the sealed roll is given with or without its dice
    assert dice.month_anchor(shown) == dice.month_anchor(r.rolls)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], capture_output=True, text=True, timeout=120)


TAMPER_MONTH = ("Master: WAR France England\nMaster: ADMIRAL France AT Brest\nSpain: BUILD 2 AT Cadiz\n"
                "France: STORES 1 AT Toulon\n"
                "France: FORM S1 SQUADRON 3 AT Brest\nFrance: FORM F2 FLEET 6 AT Toulon\nFrance: SAIL S1\n"
                "France: SAIL F2\nEngland: FORM F1 FLEET 20 AT London\n"
                "Master: FORT Brest VALUE 45 GARRISON FULL ATTACKER England F1\n")


@pytest.fixture(scope="module")
def stepped(tmp_path_factory) -> tuple[Path, str, str, dict]:
    """One month with every kind of record verify must hold: 2D6 fort rolls, a sealed yard figure,
    an admiral's +2, public 1D6 rolls."""
    tmp = tmp_path_factory.mktemp("dice")
    secret = "44" * 32
    made = _cli("eia", "new", "--game", "g9", "--secret", secret)
    assert made.returncode == 0, made.stderr
    (tmp / "s.json").write_text(made.stdout)
    (tmp / "c.txt").write_text(TAMPER_MONTH)
    out = _cli("eia", "step", "--state", str(tmp / "s.json"), "--commands", str(tmp / "c.txt"), "--secret", secret)
    assert out.returncode == 0, out.stderr
    return tmp, secret, json.loads(made.stdout)["commitment"], json.loads(out.stdout)


def _verify(tmp: Path, data: object, *extra: str) -> subprocess.CompletedProcess:
    path = tmp / "r.json"
    path.write_text(json.dumps(data))
    return _cli("dice", "verify", "--game", "g9", "--secret", "44" * 32, "--rolls", str(path), *extra)


def test_judge_dice_verify_cli(stepped):
    tmp, secret, commitment, data = stepped
    kinds = {r["key"][2] for r in data["rolls"]}
    assert {"fort fire", "fleet fire", "yard figure", "leave port", "stores shipment"} <= kinds
    assert data["roll_count"] == len(data["rolls"]) and len(data["commands_hash"]) == 64
    ok = _verify(tmp, data, "--commitment", commitment)
    assert ok.returncode == 0 and "all match" in ok.stdout, ok.stdout
    # without the commitment it refuses, unless told it only checks consistency (and then says so)
    refused = _verify(tmp, data)
    assert refused.returncode == 2 and "--commitment" in refused.stderr and "--consistency-only" in refused.stderr
    only = _verify(tmp, data, "--consistency-only")
    assert only.returncode == 0 and "WARNING: consistency only: the secret was not checked" in only.stdout
    wrong = _verify(tmp, data, "--commitment", dice.commitment("45" * 32))
    assert wrong.returncode == 1 and "does not match the commitment" in wrong.stdout
    # the commands listed must give the committed hash
    changed = dict(data, commands=data["commands"][:-1])
    bad = _verify(tmp, changed, "--commitment", commitment)
    assert bad.returncode == 1 and "do not give the committed hash" in bad.stdout


def test_every_roll_of_a_month_recomputed_from_the_documented_scheme_alone(stepped):
    """An independent reading of docs/variants/eia.md §4 (HMAC-SHA256 over netstrings, bytes below the
    largest multiple of the sides, the next block with one field more) gives every roll of a month,
    with the keys the table there names."""
    import hmac

    def ns(text: str) -> bytes:
        raw = text.encode()
        return b"%d:%s," % (len(raw), raw)

    def roll(secret: str, month: str, nation: str, subject: str, kind: str, n: int, count: int, sides: int) -> list:
        fields = ("eia-dice-3", "g9", month, nation, subject, kind, str(n), str(count), str(sides))
        msg = b"".join(ns(f) for f in fields)
        out, block = [], 0
        while len(out) < count:
            data = msg if block == 0 else msg + ns(str(block))
            for byte in hmac.new(bytes.fromhex(secret), data, hashlib.sha256).digest():
                if len(out) < count and byte < 256 - 256 % sides:
                    out.append(byte % sides + 1)
            block += 1
        return out

    tmp, secret, commitment, data = stepped
    expected = {("leave port", "France", "S1"), ("leave port", "France", "F2"), ("stores shipment", "France", "Toulon"),
                ("yard figure", "Spain", "Cadiz"), ("fort fire", "England", "F1"), ("fleet fire", "England", "F1")}
    assert {(r["key"][2], r["key"][0], r["key"][1]) for r in data["rolls"]} == expected
    for r in data["rolls"]:
        nation, subject, kind, n = r["key"]
        assert r["dice"] == roll(secret, "1805-01", nation, subject, kind, n, r["count"], r["sides"]), r
        assert r["result"] == sum(r["dice"]) + sum((r.get("why") or {}).values())
    forts = [r["key"][3] for r in data["rolls"] if r["key"][2] == "fort fire"]
    assert forts == list(range(1, len(forts) + 1))


def _first(data: dict, kind: str, **having) -> dict:
    return next(r for r in data["rolls"] if r["key"][2] == kind and all(r.get(k) == v for k, v in having.items()))


def _tamper_cut(r: dict) -> None:          # a 2D6 roll cut to one die, the result made to fit
    r["dice"] = r["dice"][:1]
    r["result"] = r["dice"][0] + r.get("modifier", 0)


def _tamper_cut_and_count(r: dict) -> None:
    _tamper_cut(r)
    r["count"] = 1


def _tamper_empty(r: dict) -> None:
    r["dice"] = []
    r["result"] = r.get("modifier", 0)


def _tamper_modifier(r: dict) -> None:     # an invented modifier, the result made to fit
    r["modifier"] = r.get("modifier", 0) + 1
    r["result"] += 1


def _tamper_modifier_with_a_reason(r: dict) -> None:      # the admiral's +2 given to a fleet without one
    r["modifier"], r["why"], r["result"] = 2, {"admiral": 2}, r["result"] + 2


def _tamper_admiral_plus_3(r: dict) -> None:
    r["modifier"], r["why"], r["result"] = 3, {"admiral": 3}, r["result"] + 1


def _tamper_sealed(r: dict) -> None:       # a public roll relabelled sealed
    r["sealed"] = ["France", "Master"]


def _tamper_sealed_and_hidden(r: dict) -> None:
    r["sealed"] = ["France", "Master"]
    for k in ("dice", "count", "sides", "result"):
        r.pop(k)


@pytest.mark.parametrize("kind,having,tamper,says", [
    ("fort fire", {}, _tamper_cut, "2 dice rolled, 1 published"),
    ("fort fire", {}, _tamper_cut_and_count, "a fort fire roll is 2D6, not 1D6"),
    ("fleet fire", {}, _tamper_empty, "2 dice rolled, 0 published"),
    ("stores shipment", {}, _tamper_modifier,
     "modifier +1 has no rule behind it (the rules' modifiers it names: none)"),
    ("leave port", {"purpose": "France F2 leaves Toulon"}, _tamper_modifier_with_a_reason,
     "the rolls are not those the record of 1805-01 printed"),
    ("stores shipment", {}, _tamper_modifier_with_a_reason, "no rule gives a stores shipment roll that modifier"),
    ("leave port", {"purpose": "France S1 leaves Brest"}, _tamper_admiral_plus_3,
     "'admiral' is +2 in the rules, not +3"),
    ("stores shipment", {}, _tamper_sealed, "marked sealed, but only a yard's figure is sealed"),
    ("leave port", {}, _tamper_sealed_and_hidden, "its dice are not published"),
])
def test_judge_dice_verify_catches_each_tampering(stepped, kind, having, tamper, says):
    """Each way to doctor a published roll after the fact fails verify with exit 1, naming it."""
    tmp, secret, commitment, data = stepped
    doctored = copy.deepcopy(data)
    tamper(_first(doctored, kind, **having))
    bad = _verify(tmp, doctored, "--commitment", commitment)
    assert bad.returncode == 1 and says in bad.stdout, bad.stdout
    only = _verify(tmp, doctored, "--consistency-only")
    assert only.returncode == 1


def test_judge_dice_verify_catches_a_deleted_last_roll(stepped):
    """The month's roll count is printed in the gazette (and kept in the step output): a last roll
    deleted leaves no gap in the numbers, but the count no longer matches."""
    tmp, secret, commitment, data = stepped
    doctored = copy.deepcopy(data)
    doctored["rolls"].pop()
    bad = _verify(tmp, doctored, "--commitment", commitment)
    assert bad.returncode == 1 and f"{data['roll_count'] - 1} rolls published, the record of 1805-01 printed " \
        f"{data['roll_count']}" in bad.stdout
    # the count edited too: the gazette as mailed still holds the true count and digest
    doctored = dict(doctored, **dice.month_anchor(doctored["rolls"]))
    assert _verify(tmp, doctored, "--commitment", commitment).returncode == 0      # a consistent forgery ...
    gazette = tmp / "gazette.txt"
    gazette.write_text(f"Dice of 1805-01: {data['roll_count']} rolls,\n  digest {data['rolls_digest']}\n"
                       f"Commands of 1805-01 committed: {data['commands_hash']}\n")
    bad = _verify(tmp, doctored, "--commitment", commitment, "--gazette", str(gazette))
    assert bad.returncode == 1 and "printed" in bad.stdout                        # ... the gazette catches
    ok = _verify(tmp, data, "--commitment", commitment, "--gazette", str(gazette))
    assert ok.returncode == 0, ok.stdout
    # a bare list of rolls holds no count: verify says so, and passes it only when told consistency only
    bare = _verify(tmp, data["rolls"][:-1], "--commitment", commitment)
    assert bare.returncode == 1 and "no roll count to check against" in bare.stdout
    assert _verify(tmp, data["rolls"][:-1], "--commitment", commitment, "--gazette", str(gazette)).returncode == 1
    assert _verify(tmp, data["rolls"], "--consistency-only").returncode == 0


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
