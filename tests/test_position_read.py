"""``Position.from_json`` reads a position whose names the map's memos know without its checks
(the batch's case); anything else, errors included, is read with every check. A position read
twice (the second time from the memos) gives the same board or the same error."""

from __future__ import annotations

import pytest

from judge.engine import modules
from judge.engine.position import Position, PositionError, Unit
from judge.variant import load_variant

GOOD = {"phase": "Fall 1901 Movement",
        "units": {"England": ["F Lon", "A Lvp"], "russia": ["F StP/sc", "A war"]},
        "centers": {"England": ["Lon", "Lvp"], "RUSSIA": ["stp", "War"]}, "dislodged": {}}


def _read(data):
    try:
        return Position.from_json(data, load_variant("standard"))
    except (PositionError, TypeError, ValueError, AttributeError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("data", [
    GOOD,
    {**GOOD, "extra": {"k": 1}},
    {**GOOD, "units": {**GOOD["units"], "England": ["F Lon", "A Lon"]}},  # two units in one province
    {**GOOD, "units": {**GOOD["units"], "Narnia": ["A Par"]}},
    {**GOOD, "centers": {**GOOD["centers"], "Narnia": ["Par"]}},
    {**GOOD, "centers": {"England": ["Lon", "Yor"]}},  # not a supply centre
    {**GOOD, "units": {"England": ["F Lon", ["A", "Lvp"]]}},
    {**GOOD, "units": {"England": ["F Lon", 7]}},
    {**GOOD, "units": {"England": None}, "centers": {"England": None}},
    {**GOOD, "units": {"England": "F Lon"}},
    {**GOOD, "centers": {"England": [["Lon"]]}},
    {**GOOD, "phase": "Fall 1901 Retreat", "dislodged": {"England": [{"unit": "A Yor", "retreats": ["Wal"]}]}},
    {**GOOD, "dislodged": {"England": [{"unit": "A Yor", "retreats": ["Wal"]}]}},  # not a retreat phase
    {**GOOD, "phase": "Fall 1901 Muddle"},
    {**GOOD, "extra": "bad"},
    {**GOOD, "extra": 5},
    {k: v for k, v in GOOD.items() if k != "centers"},  # the variant's centres
    {k: v for k, v in GOOD.items() if k != "units"},  # the variant's units
])
def test_read_twice_is_read_the_same(data):
    first = _read(data)
    second = _read(data)
    assert first == second
    if isinstance(first, Position):
        assert first.to_json() == second.to_json() and first.units == second.units


def test_well_written_position_reads_as_before():
    pos = _read(GOOD)
    assert pos.units["stp"].loc == "stp/sc" and pos.units["war"].power == "Russia"
    assert pos.centres == {"lon": "England", "lvp": "England", "stp": "Russia", "war": "Russia"}
    assert _read({**GOOD, "units": {**GOOD["units"], "England": ["F Lon", "A Lon"]}}) == (
        PositionError, "units.England: two units in Lon")


def test_positions_share_the_units_they_read_and_the_engine_changes_none():
    """Units are never changed once made, so positions read from the same texts share them (the
    batch reads thousands); a map change that moves a fleet to a coast puts a new unit there."""
    first, second = _read(GOOD), _read({**GOOD, "phase": "Spring 1902 Movement"})
    assert first.units["lon"] is second.units["lon"] and first.units["stp"] is second.units["stp"]
    v = load_variant("standard")
    fleet = Unit("France", "F", "spa")  # no coast given: not where a fleet can stand
    pos = Position(v, first.phase, {"spa": fleet}, {}, {}, {})
    events: list[str] = []
    modules.apply_map_change(pos, (first.phase, v.map, frozenset(), frozenset()), v.rules, events)
    assert fleet.loc == "spa" and pos.units["spa"].loc in ("spa/nc", "spa/sc") and not events


def _fresh(v) -> None:
    """The map's unit memos as a new process has them: no unit text read yet (the centres'
    names are those of ``GOOD``, read before)."""
    _read(GOOD)
    for memo in (v.map.units_read, v.map.units_made):
        memo.clear()


UNSEEN = {**GOOD, "units": {"ENGLAND": ["f LON", "a lvp."], "russia": ["F stp(SC)", "A WAR"],
                            "France": ["F bre", "a Par", "f spa_nc"]}}


@pytest.mark.parametrize("data", [
    UNSEEN,
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["a par", "A Xyz"]}},  # a bad text after new ones
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["F Par"]}},  # a fleet inland
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["F spa"]}},  # a coast left out
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["a par", "f PAR"]}},  # two units in one province
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["a XYZ"]}, "extra": "bad"},  # which error comes first
    {**UNSEEN, "units": {**UNSEEN["units"], "France": ["A Bur"]}, "centers": {"France": ["Bur"]}},
])
def test_unit_texts_never_read_before_read_as_the_full_reader_reads_them(data, monkeypatch):
    """The memo reader learns a unit text it has not met (through ``parse_unit``, as the full
    reader does) rather than giving the position up: the board, or the error, must be the one
    the full reader alone gives, on a map that has read no unit yet."""
    v = load_variant("standard")
    _fresh(v)
    known = Position._read_known(data, v)
    _fresh(v)
    fast = _read(data)
    with monkeypatch.context() as patched:
        patched.setattr(Position, "_read_known", classmethod(lambda cls, d, variant: None))
        _fresh(v)
        slow = _read(data)
    assert fast == slow
    if data is UNSEEN:  # (new texts alone: read by the memo reader, not handed to the full one)
        assert known is not None and known == slow and known.units["spa"].loc == "spa/nc"
