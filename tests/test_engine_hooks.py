"""The resolver's hook API: rule modules plug in through the hooks only, and the hooks do what
their contract says (pure unit tests)."""

from __future__ import annotations

import inspect
import pkgutil
from typing import Any

import pytest

import judge.engine.modules as rule_modules
from judge.engine import adjudicate, read_position
from judge.engine.modules import get_module, resolver_for
from judge.engine.movement import HOOKS, MOVE, MovementResolver
from judge.engine.orders import Hold, Move, Order, OrderResult, Waive
from judge.engine.position import Position, PositionError, Unit
from judge.variant import load_variant

V = load_variant("standard")
CORE_STEPS = ("prepare", "build", "run", "resolve", "outcome", "solutions", "take", "give", "drop",
              "add_decision")


def overridden_core_methods(mixin: type) -> set[str]:
    """The core resolver's methods ``mixin`` defines again (its own new methods are its business)."""
    core = {name for name, _ in inspect.getmembers(MovementResolver, callable)}
    return {name for name, value in vars(mixin).items()
            if callable(value) or isinstance(value, (property, staticmethod, classmethod))} & core


def rule_module_names() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(rule_modules.__path__))


def test_every_rule_module_is_checked():
    names = rule_module_names()
    assert {"army_fleet", "coast_running", "davis1885", "deluge", "transform"} <= set(names)
    assert any(get_module(n).resolver_mixin for n in names)


@pytest.mark.parametrize("name", rule_module_names())
def test_rule_modules_override_only_hooks(name):
    mixin = get_module(name).resolver_mixin
    if mixin is None:
        pytest.skip(f"{name} has no resolver mixin")
    wrong = overridden_core_methods(mixin) - HOOKS
    assert not wrong, f"{name} replaces the resolver's own steps {sorted(wrong)}: use the hooks (movement.HOOKS)"


def test_the_check_sees_a_module_that_replaces_a_step():
    class Greedy:
        def outcome(self, results):  # the whole board after the moves: not a hook
            raise NotImplementedError

        def __init__(self, *args):
            raise NotImplementedError

        def check_move(self, unit, dest, via_convoy):  # a hook
            raise NotImplementedError

        def helper(self):  # the module's own
            raise NotImplementedError

    assert overridden_core_methods(Greedy) - HOOKS == {"outcome", "__init__"}


def test_hooks_name_methods_of_the_core_and_no_step():
    assert all(callable(getattr(MovementResolver, h, None)) for h in HOOKS)
    assert not HOOKS & set(CORE_STEPS)


def test_the_a_f_module_works_through_hooks():
    mixin = get_module("army_fleet").resolver_mixin
    used = overridden_core_methods(mixin)
    assert {"read_order", "side_order", "survey", "settle", "extend_index", "unit_after", "arrival",
            "can_stand", "strand", "decisions_final"} <= used
    assert "prepare" not in used and "outcome" not in used


# -- the hooks' contracts, with a toy module -------------------------------------------------------
def board(units: dict[str, list[str]], phase: str = "Spring 1901 Movement") -> Position:
    return Position.from_json({"variant": "standard", "phase": phase, "units": units}, V)


def run(mixin: type, pos: Position, orders: list[Order]) -> Any:
    cls = type("Toy", (mixin, MovementResolver), {})
    r = cls(pos, orders, V.rules)
    return r, r.run()


def test_read_order_and_give():
    class EveryHoldMarches:
        """A toy rule: a unit ordered to hold moves to Burgundy instead, and an army in Munich with
        no order is given a move to Ruhr by the judge."""

        def read_order(self, order: Order) -> Order:
            if isinstance(order, Hold) and order.loc == "par":
                return Move(order.power, order.kind, order.loc, "bur")
            return order

        def settle(self, side, results):
            if "mun" not in self.order_of:
                self.give("mun", Move("Germany", "A", "mun", "ruh"), "no order: marches", results)

    pos = board({"France": ["A Par"], "Germany": ["A Mun"]})
    _, out = run(EveryHoldMarches, pos, [Hold("France", "A", "par")])
    assert {p: u.loc for p, u in out.units.items()} == {"bur": "bur", "ruh": "ruh"}
    given = [r for r in out.results if r.default]
    assert [(r.power, r.text, r.reason, r.result) for r in given] == [
        ("Germany", "A Mun - Ruh", "no order: marches", "succeeds")]


def test_side_orders_are_settled_beside_the_units_own_orders():
    class Shout:
        """A toy order beside the units' own: a waive in a movement phase is kept for settle, which
        marks it invalid itself; the units' own orders are unaffected."""

        def side_order(self, order: Order) -> bool:
            return not order.loc

        def settle(self, side, results):
            for slot, order in side:
                results[slot] = OrderResult(order, order.power, "shout", "invalid", "heard", map=self.m)

    pos = board({"France": ["A Par"]})
    _, out = run(Shout, pos, [Waive("France", None, ""), Move("France", "A", "par", "bur")])
    assert [(r.text, r.result, r.reason) for r in out.results] == [
        ("shout", "invalid", "heard"), ("A Par - Bur", "succeeds", "")]


def test_drop_makes_a_checked_order_invalid_and_the_unit_holds():
    class NoMovesFromParis:
        def settle(self, side, results):
            if isinstance(self.order_of.get("par"), Move):
                self.drop("par", "Paris stays home", results)

    pos = board({"France": ["A Par"]})
    _, out = run(NoMovesFromParis, pos, [Move("France", "A", "par", "bur")])
    assert [(r.text, r.result, r.reason, r.default) for r in out.results] == [
        ("A Par - Bur", "invalid", "Paris stays home", False), ("A Par H", "succeeds", "no order", True)]
    assert "par" in out.units


def test_a_decision_beside_the_units_arrives_and_dislodges():
    class Paratroop:
        """A toy decision beside the units' own orders: an army drops into Burgundy; its arrival
        puts a unit on the board and dislodges the one standing there."""

        def extend_index(self):
            self.drop_i = self.add_decision(Move("England", "A", "lon", "bur"), MOVE, "lon", "bur")

        def adjudicate(self, i):
            return True if i == self.drop_i else super().adjudicate(i)

        def arrival(self, i):
            return Unit("England", "A", "bur") if i == self.drop_i else None

    pos = board({"France": ["A Bur"], "England": ["F Lon"]})
    _, out = run(Paratroop, pos, [])
    assert out.units["bur"] == Unit("England", "A", "bur")
    assert out.dislodged["bur"].unit == Unit("France", "A", "bur")
    assert out.units["lon"] == Unit("England", "F", "lon")


def test_unit_after_can_stand_and_strand():
    class Balloon:
        """A toy: an army that moves to Burgundy cannot stand there and is placed back where it
        came from; a fleet ends the moves as an army."""

        def unit_after(self, prov, unit):
            return Unit(unit.power, "A", unit.loc) if unit.kind == "F" else unit

        def can_stand(self, unit, loc):
            return loc != "bur"

        def strand(self, stranded, after, contested, dislodged):
            for u, _loc in stranded:
                after.units[u.prov] = u

    pos = board({"France": ["A Par", "F Bre"]})
    _, out = run(Balloon, pos, [Move("France", "A", "par", "bur")])
    assert out.units == {"par": Unit("France", "A", "par"), "bre": Unit("France", "A", "bre")}
    assert out.moved == {"par": "bur"}


def test_a_module_that_strands_must_place_the_unit():
    class Careless:  # (can_stand alone, without unit_after, is heard too)
        def can_stand(self, unit, loc):
            return False

    with pytest.raises(AssertionError, match="must place it"):
        run(Careless, board({"France": ["A Par"]}), [Move("France", "A", "par", "bur")])


def test_starting_board_is_what_the_moves_start_from():
    class Reinforced:
        def starting_board(self, position):
            position = position.copy()
            position.units["bur"] = Unit("France", "A", "bur")
            return position

    pos = board({"France": ["A Par"]})
    r, out = run(Reinforced, pos, [])
    assert "bur" in out.units and "bur" not in pos.units and r.pos is not pos


# -- reading a position: the retreats are the rules' answer ----------------------------------------
RETREAT = {"variant": "standard", "phase": "Spring 1901 Retreat", "units": {"France": ["A Bur"]},
           "dislodged": {"Germany": [{"unit": "A Mun", "from": "Bur"}]}}


def test_a_position_without_retreats_needs_the_rules():
    with pytest.raises(PositionError, match="retreats of the unit in Mun are not given"):
        Position.from_json(RETREAT, V)
    pos = read_position(RETREAT, V)
    assert pos.dislodged["mun"].retreats == ("ber", "boh", "kie", "ruh", "sil", "tyr")
    assert adjudicate(pos, []).results[0].reason == "no order: disbanded"


def test_read_position_asks_the_enabled_modules():
    # Agar 6: a dislodged army on the coast may retreat onto a fleet of its power (A/F rules only)
    data = {"variant": "standard", "phase": "Spring 1901 Retreat",
            "units": {"France": ["A Pic"], "England": ["F Eng"]},
            "dislodged": {"England": [{"unit": "A Bre", "from": "Pic"}]}}
    plain = read_position(data, V).dislodged["bre"].retreats
    agar = read_position(data, V, {**V.rules, "modules": ("army_fleet",), "af_rules": "agar"}).dislodged["bre"].retreats
    assert "eng" not in plain and "eng" in agar
    assert resolver_for(("army_fleet",)) is not MovementResolver
