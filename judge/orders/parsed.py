"""What the order language gives back for each order it finds."""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.engine.orders import Order
from judge.variant import Map


@dataclass(slots=True)
class ParsedLine:
    line: str  # the source text of this order
    order: Order | None  # None when the text could not be read (see ``error``)
    power: str | None  # the power giving the order, when known
    # (the fields keep their order: the canonical fast path passes them in place)
    error: str = ""  # specific message when order is None (and the line is no note)
    suggestions: list[str] = field(default_factory=list)  # "did you mean" candidates
    warnings: list[str] = field(default_factory=list)  # legal but pointless, or read with a guess
    map: Map | None = field(default=None, repr=False, compare=False)  # for ``canonical``
    #: the order's canonical text when the reader already has it (the canonical fast path), so
    #: the adjudicator's results need not format it again; None: work it out from the order
    written: str | None = field(default=None, repr=False, compare=False)
    #: the whole line the player wrote this order on (several orders may share it); "" if unknown
    source: str = field(default="", compare=False)
    lineno: int = field(default=0, compare=False)  # which line of the orders block (from 1; 0: unknown)
    #: a line that is no order and no mistake (a remark in brackets, "changed my mind:"): order
    #: and error are then both empty, and the reply shows the note
    note: str = ""

    @property
    def canonical(self) -> str:
        """Canonical text of the order ("A Lon - Bel", "F StP/nc - Bar"); "" for an error."""
        if self.order is None or self.map is None:
            return ""
        return self.order.text(self.map)

    def as_json(self) -> dict[str, object]:
        """The ``judge parse`` form: line, power, and the order or the error."""
        out: dict[str, object] = {"line": self.line}
        if self.power:
            out["power"] = self.power
        if self.order is not None:
            out["order"] = self.canonical
        elif self.note:
            out["note"] = self.note
        else:
            out["error"] = self.error
            out["suggestions"] = list(self.suggestions)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


_new = object.__new__


def read_order(line: str, order: Order, power: str, m: Map, written: str | None, source: str = "",
               lineno: int = 0) -> ParsedLine:
    """``ParsedLine(line, order, power, map=m, written=written, source=source, lineno=lineno)``,
    the line of an order read without a remark, made without the class call: the canonical fast
    path makes one for most lines of every batch case, and a dataclass's ``__init__`` called
    through the class costs half as much again as the object itself. Every field is set
    (``tests/test_order_fast_path.py`` checks it against the class call)."""
    p = _new(ParsedLine)
    p.line = line  # (one store a field: more than three at once go through a tuple made for it)
    p.order = order
    p.power = power
    p.error = ""
    p.suggestions = []
    p.warnings = []
    p.map = m
    p.written = written
    p.source = source
    p.lineno = lineno
    p.note = ""
    return p
