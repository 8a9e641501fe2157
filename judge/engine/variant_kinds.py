"""Order kinds of the variant rule modules: only their shape here, not their semantics.

Engine data, like the standard kinds in :mod:`judge.engine.orders`: the rule modules
(``judge/engine/modules/<module>.py``) give them meaning, the order language
(:mod:`judge.orders.parser`) reads them, and neither needs the other. Each type carries every
location its orders name. ``module`` names the rule module that must be enabled
(``rules["modules"]``) for the order to be accepted; the parser refuses them otherwise. The A/F unit kind itself
("A/F Eng - Mao") needs no type of its own: it is ``kind="A/F"`` on the standard types.

Canonical texts (what ``text(map)`` prints, and what the parser reads back):

- ``A Lon E F Eng``        embark: the army in London boards the fleet in the English Channel
- ``A Mao D Por``          disembark: the army aboard the A/F in Mid-Atlantic lands in Portugal
- ``F Eng FF A Lon - Bre`` fast ferry: a one-sea-space convoy (the convoy order of A/F games)
- ``A Tun P F Ion - Wes``  protect: the army in Tunis protects the fleet running its coast
- ``A Lon T F``            transform: the army in London becomes a fleet (``A Spa T F/nc``)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.engine.orders import Order, register_order_kind
from judge.variant import Map

ARMY_FLEET = "army_fleet"
COAST_RUNNING = "coast_running"
TRANSFORM = "transform"


def _unit(kind: str | None, loc: str, m: Map) -> str:
    return f"{kind} {m.display(loc)}" if kind else m.display(loc)


@register_order_kind
@dataclass(slots=True)
class Embark(Order):
    """The army at ``loc`` boards the fleet at ``fleet`` (an adjacent sea), forming an A/F."""

    fleet: str = ""

    keyword: ClassVar[str] = "embark"
    module: ClassVar[str | None] = ARMY_FLEET

    def text(self, m: Map) -> str:
        return f"{_unit(self.kind, self.loc, m)} E F {m.display(self.fleet)}"


@register_order_kind
@dataclass(slots=True)
class Disembark(Order):
    """The army aboard an A/F lands from the sea ``loc`` in ``dest``.

    ``loc`` is where the A/F will be when the army lands, which may be where it moves to this
    turn ("A/F Eng - Mao; A Mao D Por"), so no unit need stand there when the order is given.
    """

    dest: str = ""

    keyword: ClassVar[str] = "disembark"
    module: ClassVar[str | None] = ARMY_FLEET

    def text(self, m: Map) -> str:
        return f"{_unit(self.kind, self.loc, m)} D {m.display(self.dest)}"


@register_order_kind
@dataclass(slots=True)
class FastFerry(Order):
    """The fleet at ``loc`` carries the army at ``army`` across its one sea space to ``dest``."""

    army: str = ""
    dest: str = ""

    keyword: ClassVar[str] = "fast_ferry"
    module: ClassVar[str | None] = ARMY_FLEET

    def text(self, m: Map) -> str:
        return f"{_unit(self.kind, self.loc, m)} FF A {m.display(self.army)} - {m.display(self.dest)}"


@register_order_kind
@dataclass(slots=True)
class Protect(Order):
    """The army at ``loc`` protects the fleet at ``fleet`` running its coast to ``dest``."""

    fleet: str = ""
    dest: str = ""

    keyword: ClassVar[str] = "protect"
    module: ClassVar[str | None] = COAST_RUNNING

    def text(self, m: Map) -> str:
        return f"{_unit(self.kind, self.loc, m)} P F {m.display(self.fleet)} - {m.display(self.dest)}"


@register_order_kind
@dataclass(slots=True)
class Transform(Order):
    """The unit at ``loc`` becomes a unit of ``new_kind``; ``coast`` ("nc") where a fleet
    would stand in a province with several coasts."""

    new_kind: str = "F"
    coast: str = ""

    keyword: ClassVar[str] = "transform"
    module: ClassVar[str | None] = TRANSFORM

    def text(self, m: Map) -> str:
        tail = f"/{self.coast}" if self.coast else ""
        return f"{_unit(self.kind, self.loc, m)} T {self.new_kind}{tail}"


VARIANT_KINDS: tuple[type[Order], ...] = (Embark, Disembark, FastFerry, Protect, Transform)
