"""The resolver's inline decisions agree with its general ones.

While a resolver class keeps the core's decision methods, ``MovementResolver.resolve`` takes
them inline (``core_move_succeeds``; holds, void supports and supports and convoys no move goes
against decided before the pass) instead of through ``adjudicate``, ``move_succeeds`` and the
strengths, which rule modules may override. Here every
DATC run and every case of the golden engine corpus is adjudicated both ways: a subclass that
overrides ``move_succeeds`` with the same method (so the inline path is off) must give the
same results and the same next position, byte for byte.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import judge.adjudicate as adjudicate
import judge.engine as engine
from judge.engine.movement import RESOLVED, MovementResolver
from judge.orders import parse_orders
from judge.variant import load_variant

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))
from make_engine_corpus import OUT, replay  # noqa: E402

DATC = json.loads((Path(__file__).parent / "datc" / "datc_v3.json").read_text(encoding="utf-8"))

_general: dict[type, type] = {}


def general_of(cls: type[MovementResolver]) -> type[MovementResolver]:
    """``cls`` with its decisions taken the general way (through the hooks)."""
    if cls not in _general:
        def move_succeeds(self: MovementResolver, i: int) -> bool:
            return cls.move_succeeds(self, i)

        _general[cls] = type(f"General{cls.__name__}", (cls,), {"move_succeeds": move_succeeds})
    return _general[cls]


@pytest.fixture
def general_path(monkeypatch: pytest.MonkeyPatch):
    core_class = engine.resolver_class

    def resolver_class(rules):
        return general_of(core_class(rules))

    def use(on: bool) -> None:
        monkeypatch.setattr(engine, "resolver_class", resolver_class if on else core_class)
    return use


def _datc_runs():
    for case in DATC["cases"]:
        yield case["position"], case["steps"], {}
        for alt in case.get("options", []):
            yield case["position"], alt["steps"], dict(alt["options"])
        for scen in case.get("scenarios", []):
            yield scen["position"], scen["steps"], {}


def _both(general_path, call):
    general_path(False)
    core = call()
    general_path(True)
    general = call()
    general_path(False)
    return core, general


def test_the_general_class_really_takes_the_general_path(general_path):
    general_path(True)
    cls = engine.resolver_class({})
    assert cls is not MovementResolver and cls.move_succeeds is not MovementResolver.move_succeeds
    pos = engine.read_position(
        {"variant": "standard", "phase": "Spring 1901 Movement", "units": {"France": ["A Par"]}},
        load_variant("standard"))
    r = cls(pos, [])
    assert r._core is False
    assert MovementResolver(pos, [])._core is True


def test_every_datc_step_is_the_same_both_ways(general_path):
    steps = 0
    for position, case_steps, options in _datc_runs():
        pos = position if "phase" in position else {**position, "phase": case_steps[0]["phase"]}
        for step in case_steps:
            if pos.get("phase") != step["phase"]:
                break
            core, general = _both(general_path, lambda: adjudicate.run_phase(
                "standard", pos, step["orders"], options))
            assert json.dumps(core) == json.dumps(general), step
            steps += 1
            pos = core["next"]
    assert steps >= 150


def test_every_corpus_case_is_the_same_both_ways(general_path):
    n = 0
    with OUT.open(encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            core, general = _both(general_path, lambda: replay(case)[0])
            assert core == general, case["id"]
            n += 1
    assert n >= 2500


def _standard(units: dict, orders: str):
    pos = engine.read_position({"variant": "standard", "phase": "Spring 1901 Movement", "units": units},
                               load_variant("standard"))
    return pos, [p.order for p in parse_orders(orders, pos) if p.order is not None]


def test_decisions_that_read_no_other_are_set_before_the_pass():
    """A hold, a void support, a support nobody attacks and one cut by a move from another power
    (not by convoy, not from where the support goes) are known before any move is resolved; a
    support attacked from where it goes (cut only by dislodgement) or by convoy is left to the pass."""
    pos, orders = _standard(
        {"France": ["A Par", "A Bur", "A Mar", "A Gas", "A Pic", "F Bre"], "Germany": ["A Mun", "A Ruh"],
         "England": ["A Lon", "F Eng"], "Italy": ["A Ven", "A Tyr"], "Austria": ["A Tri", "A Vie"]},
        "Germany: A Ruh - Bur\nGermany: A Mun S A Ruh - Bur\n"
        "France: A Par H\nFrance: A Bur S A Par\nFrance: A Gas S A Mar - Spa\nFrance: A Mar H\n"
        "France: A Pic H\nFrance: F Bre S A Pic\nEngland: A Lon - Bre\nEngland: F Eng C A Lon - Bre\n"
        "Italy: A Ven - Tri\nItaly: A Tyr S A Ven - Tri\nAustria: A Tri - Tyr\nAustria: A Vie S A Tri - Tyr\n")
    seen = {}

    class Watch(MovementResolver):
        def _lone_moves(self):  # (not a decision step: the class keeps the inline path)
            super()._lone_moves()
            seen.update({p: (self.state[k], self.res[k]) for k, p in enumerate(self.provs)})

    r = Watch(pos, orders)
    assert r._core
    out = r.run()
    assert seen["par"] == (RESOLVED, True) and seen["mar"] == (RESOLVED, True)
    assert seen["gas"] == (RESOLVED, False)  # void: A Mar holds
    assert seen["mun"] == (RESOLVED, True)  # nobody moves to Munich
    assert seen["bur"] == (RESOLVED, False)  # cut outright from the Ruhr
    assert seen["tyr"][0] != RESOLVED  # attacked from Trieste, where its support goes
    assert seen["bre"][0] != RESOLVED  # attacked by convoy
    results = {x.text: (x.result, x.reason) for x in out.results}
    assert results["A Tyr S A Ven - Tri"] == ("fails", "dislodged") and results["F Bre S A Pic"] == ("fails", "cut")
    assert seen["ruh"] == (RESOLVED, True)  # alone into Burgundy, 2 against 1: a lone move
    assert {x.text: x.result for x in out.results}["A Bur S A Par"] == "fails"


def test_a_cycle_s_trials_leave_the_decision_lists_in_place():
    """``solutions`` tries a cycle's outcomes on copies and puts the values back into the lists
    themselves: callers up the stack (``core_move_succeeds``, ``run``) hold them meanwhile."""
    pos, orders = _standard(
        {"Turkey": ["F Ank", "A Con", "A Smy"]},
        "Turkey: F Ank - Con\nTurkey: A Con - Smy\nTurkey: A Smy - Ank\n")  # DATC 6.C.1
    kept = []

    class Watch(MovementResolver):
        def solutions(self, cycle):
            lists = self.state, self.res
            found = super().solutions(cycle)
            kept.append(self.state is lists[0] and self.res is lists[1])
            return found

    r = Watch(pos, orders)
    assert r._core
    out = r.run()
    assert kept and all(kept)
    assert [x.result for x in out.results] == ["succeeds"] * 3


def test_lone_moves_are_set_before_the_pass():
    """A move alone into an empty province, one alone into a province whose unit has moved out
    or failed to, one alone into a province whose unit stays, and moves that meet in an empty
    province, or in one whose unit stays, are decided without a decision of their own; moves
    that meet where one goes by convoy go the usual way."""
    pos, orders = _standard(
        {"Germany": ["A Mun", "A Ber", "A Kie"], "Russia": ["A War"], "Austria": ["A Gal"]},
        "Germany: A Mun - Boh\nGermany: A Ber - Mun\nGermany: A Kie H\nRussia: A War - Gal\n"
        "Austria: A Gal H\n")
    decided = []

    class Watch(MovementResolver):
        def core_move_succeeds(self, i):
            decided.append(self.provs[i])
            return super().core_move_succeeds(i)

    out = Watch(pos, orders).run()
    assert decided == []
    assert [x.result for x in out.results] == ["succeeds", "succeeds", "succeeds", "fails", "succeeds"]
    # moves that meet in an empty province; then a move into a province whose unit bounced there
    pos, orders = _standard(
        {"Germany": ["A Ber", "A Mun", "A Sil"], "Russia": ["A War"], "Austria": ["A Boh", "A Vie"]},
        "Austria: A Boh - Gal\nAustria: A Vie H\nRussia: A War - Gal\nGermany: A Mun - Boh\n"
        "Germany: A Sil S A Mun - Boh\nGermany: A Ber - Pru\n")
    out = Watch(pos, orders).run()
    assert decided == []
    assert [(x.result, x.reason) for x in out.results] == [
        ("fails", "bounced, dislodged"), ("succeeds", ""), ("fails", "bounced"), ("succeeds", ""), ("succeeds", ""),
        ("succeeds", "")]
    pos, orders = _standard({"Germany": ["A Ber", "A Mun"], "Russia": ["A War"]},
                            "Germany: A Ber - Sil\nRussia: A War - Sil\nGermany: A Mun - Boh\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [x.result for x in out.results] == ["fails", "fails", "succeeds"]
    # a move listed before the move out of its province waits for it (a later sweep)
    pos, orders = _standard({"Germany": ["A Ber", "A Mun", "A Kie"], "Austria": ["A Vie"]},
                            "Germany: A Kie - Ber\nGermany: A Ber - Mun\nGermany: A Mun - Boh\nAustria: A Vie - Boh\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [x.result for x in out.results] == ["fails", "fails", "fails", "fails"]
    pos, orders = _standard({"Germany": ["A Ber", "A Mun", "A Kie"]},
                            "Germany: A Kie - Ber\nGermany: A Ber - Mun\nGermany: A Mun - Boh\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [x.result for x in out.results] == ["succeeds"] * 3
    # head to head, alone into each other's province: neither reads the other's decision
    pos, orders = _standard({"Germany": ["A Ber", "A Kie"], "Austria": ["A Mun", "A Sil"], "Russia": ["A War", "A Pru"]},
                            "Germany: A Ber - Mun\nAustria: A Mun - Ber\nGermany: A Kie S A Ber - Mun\n"
                            "Austria: A Sil S A Mun - Ber\nRussia: A War - Pru\nRussia: A Pru - War\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [x.result for x in out.results] == ["fails", "fails", "succeeds", "succeeds",
                                                                  "fails", "fails"]
    pos, orders = _standard({"Germany": ["A Ber", "A Kie"], "Austria": ["A Mun"]},
                            "Germany: A Ber - Mun\nAustria: A Mun - Ber\nGermany: A Kie S A Ber - Mun\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [(x.result, x.reason) for x in out.results] == [
        ("succeeds", ""), ("fails", "bounced, dislodged"), ("succeeds", "")]
    # moves that meet in a province whose unit stays, or failed to move out (here head to head)
    pos, orders = _standard({"Germany": ["A Ber", "A Mun"], "Russia": ["A War"], "Austria": ["A Sil"]},
                            "Germany: A Ber - Sil\nRussia: A War - Sil\nAustria: A Sil H\nGermany: A Mun S A Ber - Sil\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [(x.result, x.reason) for x in out.results] == [
        ("succeeds", ""), ("fails", "bounced"), ("fails", "dislodged"), ("succeeds", "")]
    pos, orders = _standard({"Germany": ["A Ber", "A Mun"], "Russia": ["A War"], "Austria": ["A Sil", "A Pru"]},
                            "Germany: A Ber - Sil\nRussia: A War - Sil\nAustria: A Sil - Ber\n"
                            "Austria: A Pru S A Sil - Ber\nGermany: A Mun S A Ber - Sil\n")
    out = Watch(pos, orders).run()
    assert decided == [] and [x.result for x in out.results] == ["fails"] * 3 + ["succeeds"] * 2
    # moves that meet where one goes by convoy go the usual way
    pos, orders = _standard({"England": ["A Lon", "F Nth"], "France": ["A Pic"]},
                            "England: A Lon - Bel\nEngland: F Nth C A Lon - Bel\nFrance: A Pic - Bel\n")
    out = Watch(pos, orders).run()
    assert set(decided) == {"lon", "pic"} and [x.result for x in out.results] == ["fails", "succeeds", "fails"]
