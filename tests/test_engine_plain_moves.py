"""The resolver's short cut for plain moves (``Map.plain_moves``) agrees with its full check.

A move in ``plain_moves`` is taken as written without ``check_move``; so each must be one that
``check_move`` accepts unchanged on any board, and every move ``check_move`` accepts unchanged
on a board without fleets (no convoy possible) must be in it.
"""

from __future__ import annotations

import pytest

from judge.engine.movement import Illegal, MovementResolver, _set_up_tables
from judge.engine.position import Position, Unit
from judge.variant import available_variants, load_variant, province_of


@pytest.mark.parametrize("name", available_variants())
def test_plain_moves_are_exactly_the_moves_check_move_takes_as_written(name: str) -> None:
    v = load_variant(name)
    for m in {id(m): m for m in [v.map, *(c[1] for c in v.changes)]}.values():
        start = v.calendar.start
        pos = Position(v, start if not isinstance(start, str) else v.calendar.parse(start), {}, {})
        r = MovementResolver.__new__(MovementResolver)
        r.pos, r.m = pos, m
        dests = [*m.provinces, *(loc for locs in m.fleet_locs.values() for loc in locs if "/" in loc)]
        taken = set()
        for kind in ("A", "F"):
            for p in m.provinces:
                for loc in m.unit_locs(kind, p):
                    u = Unit("X", kind, loc)
                    for d in dests:
                        try:
                            if r.check_move(u, d, False) == d:
                                taken.add((kind, loc, d))
                        except Illegal:
                            pass
        assert m.plain_moves == taken


@pytest.mark.parametrize("name", available_variants())
def test_the_set_up_tables_are_the_maps_provinces_and_plain_moves(name: str) -> None:
    """``prepare`` and ``build`` look locations up in ``_set_up_tables`` instead of ``PROV`` and
    ``Map.plain_moves``: the same answers, for every location of every map."""
    v = load_variant(name)
    for m in {id(m): m for m in [v.map, *(c[1] for c in v.changes)]}.values():
        provs, plain = _set_up_tables(m)
        locs = [*m.provinces, *(loc for locs in m.fleet_locs.values() for loc in locs)]
        assert provs == {loc: province_of(loc) for loc in locs}
        assert {(k, loc, d) for k, by_loc in plain.items() for loc, ds in by_loc.items() for d in ds} == m.plain_moves
