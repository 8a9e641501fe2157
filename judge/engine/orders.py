"""Order kinds, one small type each.

Locations are internal ids (``"lon"``, ``"stp/nc"``). ``kind`` is the unit kind the player
wrote (``"A"``, ``"F"``, ``"A/F"``) or ``None`` when it was left out; the adjudicator checks it
against the board. ``power`` is the power that gave the order. Variant modules add kinds
beside these (embark, disembark, fast ferry, protect, transform) by subclassing :class:`Order`
and registering with :data:`ORDER_KINDS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from judge.variant import Map


def _u(kind: str | None, loc: str, m: Map) -> str:
    return f"{kind} {m.display(loc)}" if kind else m.display(loc)


@dataclass(slots=True)
class Order:
    """An order of one power (for one unit but for Waive), as the adjudicator reads it.

    A kind with no field of its own (Hold, Disband, Build, Remove, Waive) is a plain subclass
    with empty ``__slots__``, no dataclass of its own: the ``__init__``, ``__repr__`` and
    ``__eq__`` generated here read the instance's class, so they serve it exactly as its own
    would (``tests/test_order_kinds.py``), and each dataclass's methods are compiled from
    source as the module is imported (a tenth of the batch's start-up went to compiling them)."""

    power: str
    kind: str | None
    loc: str

    keyword: ClassVar[str] = ""
    phases: ClassVar[tuple[str, ...]] = ("movement",)
    module: ClassVar[str | None] = None  # rule module that provides it (None: standard)

    def text(self, m: Map) -> str:
        raise NotImplementedError

    @property
    def is_unit_order(self) -> bool:
        return True


class Hold(Order):
    """``A Lon H``: the unit stays."""

    __slots__ = ()  # no field of its own: no dataclass of its own (see Order)

    keyword: ClassVar[str] = "hold"

    def text(self, m: Map) -> str:
        return f"{_u(self.kind, self.loc, m)} H"


@dataclass(slots=True)
class Move(Order):
    """``A Lon - Bel`` (``via convoy`` when written so)."""

    dest: str = ""
    via_convoy: bool = False

    keyword: ClassVar[str] = "move"

    def text(self, m: Map) -> str:
        via = " via convoy" if self.via_convoy else ""
        return f"{_u(self.kind, self.loc, m)} - {m.display(self.dest)}{via}"


@dataclass(slots=True)
class Support(Order):
    """``A Lon S A Yor - Bel`` or, without ``dest``, the support of a unit holding."""

    target_kind: str | None = None
    target: str = ""  # location of the supported unit
    dest: str | None = None  # None: support to hold

    keyword: ClassVar[str] = "support"

    def text(self, m: Map) -> str:
        tail = f" - {m.display(self.dest)}" if self.dest else ""
        return f"{_u(self.kind, self.loc, m)} S {_u(self.target_kind, self.target, m)}{tail}"


@dataclass(slots=True)
class Convoy(Order):
    """``F Nth C A Lon - Bel``."""

    target_kind: str | None = "A"
    target: str = ""
    dest: str = ""

    keyword: ClassVar[str] = "convoy"

    def text(self, m: Map) -> str:
        return f"{_u(self.kind, self.loc, m)} C {_u(self.target_kind or 'A', self.target, m)} - {m.display(self.dest)}"


@dataclass(slots=True)
class Retreat(Order):
    """``A Bel - Pic`` in a retreat phase."""

    dest: str = ""

    keyword: ClassVar[str] = "retreat"
    phases: ClassVar[tuple[str, ...]] = ("retreat",)

    def text(self, m: Map) -> str:
        return f"{_u(self.kind, self.loc, m)} - {m.display(self.dest)}"


class Disband(Order):
    """``A Bel D``: the dislodged unit leaves the board."""

    __slots__ = ()  # no field of its own: no dataclass of its own (see Order)

    keyword: ClassVar[str] = "disband"
    phases: ClassVar[tuple[str, ...]] = ("retreat",)

    def text(self, m: Map) -> str:
        return f"{_u(self.kind, self.loc, m)} D"


class Build(Order):
    """``Build A Par`` in an adjustment phase."""

    __slots__ = ()  # no field of its own: no dataclass of its own (see Order)

    keyword: ClassVar[str] = "build"
    phases: ClassVar[tuple[str, ...]] = ("adjustment",)

    def text(self, m: Map) -> str:
        return f"Build {_u(self.kind, self.loc, m)}"


class Remove(Order):
    """``Remove A Par`` in an adjustment phase."""

    __slots__ = ()  # no field of its own: no dataclass of its own (see Order)

    keyword: ClassVar[str] = "remove"
    phases: ClassVar[tuple[str, ...]] = ("adjustment",)

    def text(self, m: Map) -> str:
        return f"Remove {_u(self.kind, self.loc, m)}"


class Waive(Order):
    """``Waive``: a build not taken."""

    __slots__ = ()  # no field of its own: no dataclass of its own (see Order)

    keyword: ClassVar[str] = "waive"
    phases: ClassVar[tuple[str, ...]] = ("adjustment",)

    def text(self, m: Map) -> str:
        return "Waive"

    @property
    def is_unit_order(self) -> bool:
        return False


#: keyword -> order type; variant modules add theirs here.
ORDER_KINDS: dict[str, type[Order]] = {
    cls.keyword: cls for cls in (Hold, Move, Support, Convoy, Retreat, Disband, Build, Remove, Waive)
}


def register_order_kind(cls: type[Order]) -> type[Order]:
    ORDER_KINDS[cls.keyword] = cls
    return cls


@dataclass(slots=True)
class OrderResult:
    """What became of one order: ``succeeds`` | ``fails`` | ``invalid``, and why.

    The canonical text is made on first use (from ``order`` and ``map``) so that adjudication
    itself does not pay for formatting every order.
    """

    order: Order | None
    power: str
    _text: str | None  # canonical text of the order, or None to derive it
    result: str
    reason: str = ""
    default: bool = False  # given by the judge (unordered unit, civil disorder)
    map: Map | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            assert self.order is not None and self.map is not None
            self._text = self.order.text(self.map)
        return self._text

    def as_json(self) -> dict[str, str]:
        text = self._text if self._text is not None else self.text
        out = {"power": self.power, "order": text, "result": self.result, "reason": self.reason}
        if self.default:
            out["default"] = True  # type: ignore[assignment]
        return out
