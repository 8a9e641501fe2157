"""``judge adjudicate --batch`` writes each line as JSON text directly (without building the dicts
of :func:`judge.adjudicate.run_batch` for an encoder): the same bytes as ``json.dumps`` of those
dicts, on every kind of phase and on the awkward values a case may carry."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from judge.adjudicate import run_batch, write_batch
from judge.engine.position import Dislodged, Position
from judge.variant import load_variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus import games, respell  # noqa: E402


def _both(lines: list[str]) -> tuple[str, str]:
    written: list[str] = []
    write_batch(lines, written.append)
    return "".join(written), "".join(json.dumps(out, ensure_ascii=False) + "\n" for out in run_batch(lines))


def test_robot_games_every_kind_of_phase_and_spelling():
    cases = list(games(n_games=6, years=6, seed=11))
    rng = random.Random(3)
    cases += [respell(c, rng) for c in cases[::3]]
    kinds = {c["position"]["phase"].split()[-1] for c in cases}
    assert kinds == {"Movement", "Retreat", "Adjustment"}
    text, dumped = _both([json.dumps(c) for c in cases])
    assert text == dumped
    assert text.count("\n") == len(cases) and '"error"' not in text


POSITION = {"variant": "standard", "phase": "Fall 1901 Movement",
            "units": {"England": ["F Lon", "A Lvp"], "France": ["A Par"], "Russia": ["F StP/sc"]},
            "centers": {"England": ["Lon"], "Russia": ["StP", "Mos"]}}


def test_awkward_ids_order_texts_and_errors():
    orders = 'England: F Lon - Nth\nFrance: A Par - "Bur\\"\nEngland: A Lvp - Lyon \u00e9t\u00e9 \U0001F600\n\x07bell'
    cases = [
        {"id": "\u00e9\"\\\n\u2028", "position": POSITION, "orders": orders},
        {"id": [1, {"b": None, "a": 1.5e300}], "position": POSITION, "orders": orders},
        {"id": 2**70, "position": {**POSITION, "phase": "Fall 1901 Retreat",
                                   "dislodged": {"France": [{"unit": "A Bur", "from": "Mun",
                                                             "retreats": ["Gas", "Pic"]}]}}},
        {"id": True, "position": {**POSITION, "phase": "Winter 1901 Adjustment", "extra": {"note": ["\u00e9", 1]}},
         "orders": "England: Build F Edi\nFrance: Build A Mar"},
        {"position": POSITION, "orders": orders},  # no id: the line's number
        {"id": "trapped", "position": {"phase": "Spring 1902 Movement",  # a unit destroyed with the moves
                                       "units": {"Austria": ["A Apu", "A Rom"], "Italy": ["A Nap"]}},
         "orders": "Austria: A Apu - Nap\nAustria: A Rom S A Apu - Nap"},
        {"id": "x", "position": {**POSITION, "units": {"Narnia": ["A Par"]}}},  # an error
        {"id": "y"},  # no position
    ]
    lines = [json.dumps(c, ensure_ascii=bool(i % 2)) for i, c in enumerate(cases)] + ["{oops", "[1]", "  "]
    text, dumped = _both(lines)
    assert text == dumped and '"destroyed": {"Italy": ["A Nap"]}' in text and '"default": true' in text
    assert text.count('"error"') == 4 and text.count("\n") == len(lines) - 1


def test_entries_written_the_same_when_their_pieces_are_forgotten(monkeypatch):
    """The quoted pieces of order entries are kept per process, emptied when full: writing with
    them emptied all the time gives the same text."""
    import judge.adjudicate as adjudicate

    lines = [json.dumps(c) for c in games(n_games=2, years=3, seed=5)]
    text, dumped = _both(lines)
    monkeypatch.setattr(adjudicate, "_PIECES_MAX", 2)
    for memo in ("_starts", "_tails"):
        monkeypatch.setattr(adjudicate, memo, {})
    again, _ = _both(lines)
    assert text == dumped == again and len(adjudicate._starts) <= 2
    assert all(len(by_text) <= 2 for by_text in adjudicate._starts.values())


def test_position_json_text_is_the_text_of_to_json():
    """Every board the robots reach, and boards with dislodged units, module state and a power
    the variant does not know (as variant modules may leave)."""
    v = load_variant("standard")
    for case in games(n_games=2, years=4, seed=5):
        pos = Position.from_json(case["position"], v)
        assert pos.json_text() == json.dumps(pos.to_json(), ensure_ascii=False)
    pos = Position.from_json({**POSITION, "phase": "Fall 1901 Retreat", "extra": {"k": {"\u00e9": [1, 2.5]}},
                              "dislodged": {"France": [{"unit": "A Bur", "from": "Mun", "retreats": []}]}}, v)
    pos.units["bre"] = type(pos.units["lon"])("Atlantis", "F", "bre")
    pos.centres["bre"] = "Atlantis"
    assert pos.json_text() == json.dumps(pos.to_json(), ensure_ascii=False)
    assert '"Atlantis": ["F Bre"]' in pos.json_text()


def test_dislodged_units_text_is_the_text_of_to_json():
    """Dislodged units of several powers, by convoy (no "from"), with coasts among their retreats,
    with none, and of a power the variant does not know: written as the encoder writes them."""
    v = load_variant("standard")
    pos = Position.from_json({"phase": "Spring 1902 Retreat", "units": {"England": ["F Nwy"], "France": ["A Par"]},
                              "centers": {}, "dislodged": {
                                  "Russia": [{"unit": "F Bot", "from": "Swe", "retreats": ["StP/sc", "Fin"]},
                                             {"unit": "A Mos", "retreats": []}],
                                  "Turkey": [{"unit": "F Bul/ec", "from": None, "retreats": ["Con"]}]}}, v)
    pos.dislodged["par"] = Dislodged(type(pos.units["nwy"])("Atlantis", "A", "gas"), "bur", ("pic",))
    for _ in range(2):  # the second time from the map's memos
        assert pos.json_text() == json.dumps(pos.to_json(), ensure_ascii=False)
    assert '"from": null' in pos.json_text() and '"StP/sc"' in pos.json_text()


def test_army_fleet_units_need_their_rules():
    """An A/F unit on the board or among the dislodged is refused without the Army/Fleet rules,
    and read with them (by option or by variant)."""
    moves = {"phase": "Spring 1901 Movement", "units": {"England": ["A/F Lon", "A Lvp"]}, "centers": {}}
    retreat = {"phase": "Spring 1901 Retreat", "units": {"England": ["A Lvp"]}, "centers": {},
               "dislodged": {"England": [{"unit": "A/F Lon", "from": "Wal", "retreats": ["Yor"]}]}}
    cases = [{"id": 1, "position": moves}, {"id": 2, "position": retreat},
             {"id": 3, "position": moves, "options": {"modules": ["army_fleet"]}},
             {"id": 4, "position": moves, "variant": "af_standard"}]
    out = list(run_batch([json.dumps(c) for c in cases]))
    need = "position: an A/F unit needs the Army/Fleet rules (variant af_standard, or --option modules=army_fleet)"
    assert [o.get("error") for o in out] == [need, need, None, None]
    text, dumped = _both([json.dumps(c) for c in cases])
    assert text == dumped


def test_blank_lines_are_skipped_and_counted():
    """Empty and all-blank lines (tabs, a no-break or ideographic space) give no result but keep
    their number: a case without an id is named by its line."""
    lines = ["", " \t\n", "\u00a0\u3000\n", "{}\n", "\n", '{"id": "x"}\n']
    text, dumped = _both(lines)
    assert text == dumped
    assert [json.loads(t)["id"] for t in text.splitlines()] == [4, "x"]


_STANDARD = load_variant("standard")
_PROVINCES = sorted(_STANDARD.map.provinces)


@given(st.dictionaries(st.sampled_from(_PROVINCES), st.sampled_from([*_STANDARD.powers, "Atlantis"]), max_size=40))
@settings(max_examples=200, deadline=None)
def test_centres_written_in_order_whoever_owns_them(owners):
    """json_text writes the centres by looking up the map's centres in order (no sort a phase) when
    every owned province is one of them, and sorts the owned ones otherwise (a board a map change
    left with others): either way the text of to_json, for any owners, powers unknown included."""
    pos = Position(_STANDARD, _STANDARD.calendar.start, {}, owners, {}, {})
    assert pos.json_text() == json.dumps(pos.to_json(), ensure_ascii=False)


def test_a_map_that_read_no_army_fleet_yet_still_refuses_one():
    """The batch asks a map whether it ever read an A/F unit before it looks for one on the board:
    the first A/F a map reads is one it has read, so the board is refused all the same."""
    v = load_variant("standard")
    v.map.__dict__.pop("af_read", None)
    for memo in (v.map.units_read, v.map.units_made):
        memo.clear()
    case = {"id": 1, "position": {"phase": "Spring 1901 Movement", "units": {"England": ["A/F Lon"]}, "centers": {}}}
    assert "A/F unit needs the Army/Fleet rules" in next(run_batch([json.dumps(case)]))["error"]
    assert "A/F unit needs the Army/Fleet rules" in next(run_batch([json.dumps({**case, "id": 2})]))["error"]


_JSON_PIECES = st.sampled_from(['{"id": 1}', '[1, 2]', '"x"', "1", "1.5e3", "NaN", "-Infinity", "null", "{", "}", '"',
                                "[1,", "{'a': 1}", "\u00e9", "\\u00e9", " ", "\t", "\n", "\r", "\x0c", "\u00a0", "\x0b", ""])


@given(st.lists(_JSON_PIECES, max_size=6).map("".join))
@settings(max_examples=400, deadline=None)
def test_a_case_is_read_as_json_loads_reads_it(line):
    """The batch reads a line with the JSON scanner itself: the value, or the error, is always
    the one json.loads gives (whitespace JSON allows, and whitespace it does not, before and after)."""
    from judge.adjudicate import _loads
    try:
        want: object = json.loads(line)
    except ValueError as exc:
        want = ("error", str(exc))
    try:
        got: object = _loads(line)
    except ValueError as exc:
        got = ("error", str(exc))
    assert repr(got) == repr(want)
