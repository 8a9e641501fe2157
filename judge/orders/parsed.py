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
