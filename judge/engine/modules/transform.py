"""Transformation (Deluge II rule 2): an army on the coast turns into a fleet.

"Any army in a coastal province may, instead of being ordered to move or support, be ordered to
turn into a fleet. Such a transformation will be successful provided the unit is not dislodged
that move." Conversions go one way only: a fleet never becomes an army (the rules' summary:
"the conversion of armies to fleets (but not vice versa)").

The order (``A Lon T F``, type :class:`judge.engine.variant_kinds.Transform`) counts as a hold
in the movement: the army keeps its province, may be supported to hold, and is dislodged like any
holding unit. After the moves every transforming army that was not dislodged is replaced by a
fleet of the same power in the same place; in a province with several coasts the order must name
the coast (``A Spa T F/nc``).
"""

from __future__ import annotations

from judge.engine.modules import RuleModule
from judge.engine.movement import Illegal, MovementOutcome
from judge.engine.orders import Order
from judge.engine.position import Position, Unit
from judge.engine.variant_kinds import Transform


class TransformResolver:
    """Mixin for :class:`judge.engine.movement.MovementResolver`."""

    def check_other(self, order: Order, unit: Unit) -> Order:
        if not isinstance(order, Transform):
            return super().check_other(order, unit)  # type: ignore[misc]
        m = self.m  # type: ignore[attr-defined]
        where = m.name(unit.loc)
        if order.new_kind.upper() != "F":
            raise Illegal("only an army can be transformed, and only into a fleet")
        if unit.kind != "A":
            raise Illegal(f"only an army can be transformed; the unit in {where} is not an army")
        if m.terrain[unit.prov] != "coast":
            raise Illegal(f"an army can become a fleet only in a coastal province; {where} is not coastal")
        locs = m.fleet_locs[unit.prov]
        coast = order.coast.lower().strip("/")
        if m.provinces[unit.prov].coasts:
            if not coast:
                names = " or ".join(m.display(loc) for loc in locs)
                raise Illegal(f"say on which coast of {where} the fleet will stand ({names})")
            if f"{unit.prov}/{coast}" not in locs:
                raise Illegal(f"{where} has no coast {coast!r}")
        else:
            coast = ""  # a coast given for a province with one coast is ignored
        return Transform(order.power, "A", unit.loc, "F", coast)

    def after_movement(self, after: Position, out: MovementOutcome, events: list[str]) -> None:
        super().after_movement(after, out, events)  # type: ignore[misc]
        m = self.m  # type: ignore[attr-defined]
        for prov, order in self.order_of.items():  # type: ignore[attr-defined]
            if not isinstance(order, Transform) or prov in out.dislodged:
                continue
            unit = after.units.get(prov)
            if unit is None or unit.kind != "A" or unit.power != order.power:
                continue
            loc = f"{prov}/{order.coast}" if order.coast else prov
            after.units[prov] = Unit(unit.power, "F", loc)
            events.append(f"{unit.power}: A {m.display(prov)} becomes F {m.display(loc)}")


MODULE = RuleModule("transform", resolver_mixin=TransformResolver)
