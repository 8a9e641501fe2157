"""Read results written in njudge's layout back into orders, results and the board's facts.

``read_njudge(text, variant)`` takes a results mail (or any text holding one: header lines,
quoting and other paragraphs around it are passed over) laid out as njudge writes it, and as
:mod:`judge.render.njudge_layout` writes ours, and returns an :class:`NjudgeResults`: the phase,
every unit's order as an engine :class:`~judge.engine.orders.Order` with the tags njudge gave
its result, the dislodged units and where they may go, the supply-centre owners and the balance
table, the next phase and its deadline. It serves the round-trip tests of our layout and the
import of a game played on an njudge judge.

A line inside a results block that cannot be read is an error (:class:`NjudgeReadError`, with
its line number and the reason): a reader that skipped it would hand back a game with a unit
missing. Province names are read as the variant's map knows them (full names, abbreviations,
dots and spaces ignored, so ``St. Petersburg`` is St Petersburg); coasts as ``(north coast)``.

Pure code: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, Support, Waive
from judge.engine.variant_kinds import Disembark, Embark, FastFerry, Protect, Transform
from judge.render.njudge_layout import BOARDS, FERRY, KIND_WORD, LANDS, PROTECT
from judge.variant import Map, Phase, Variant

TITLE = re.compile(r"^\s*(Movement|Retreat|Adjustment)\s+(?:results|orders)\s+for\s+([A-Za-z]+)\s+of\s+(\d+)\.\s*"
                   r"\(([^()\s]+)\.(\d+)\)\s*$", re.I)
NEXT = re.compile(r"^\s*The next phase of '(.+)' will be (Movement|Retreats|Adjustments|Bids) for ([A-Za-z]+) "
                  r"of (\d+)\.\s*$", re.I)
DEADLINE = re.compile(r"^\s*The deadline for orders will be (.+?)\.?\s*$", re.I)
ORDER_LINE = re.compile(r"^([A-Za-z][\w.'-]*(?: [A-Za-z][\w.'-]*)*):\s+(\S.*?)\s*$")
BALANCE = re.compile(r"^([A-Za-z][\w.' -]*?):\s+(\d+)\s+Supply\s+centers?,\s+(\d+)\s+Units?:\s+(Builds|Removes)\s+"
                     r"(\d+)\s+units?\.\s*(?:\(\*\s*(.*?)\s*\*\))?\s*$", re.I)
TAGGED = re.compile(r"^(.*?)\.(?:\s*\(\*(.*?)\*\))?$")
KINDS = sorted(((w, k) for k, w in KIND_WORD.items()), key=lambda wk: -len(wk[0]))  # Army/Fleet before Army
DISLODGED = re.compile(r"^The\s+(\S+)\s+(Army/Fleet|Army|Fleet|Wing)\s+(?:in|over)\s+(.+?)\s+"
                       r"(?:can\s+retreat\s+to\s+(.+)|with\s+no\s+valid\s+retreats\s+was\s+destroyed)\.$", re.I)
#: movement keywords, as they follow the unit: the first one found splits the line
KEYWORDS = (" -> ", " SUPPORT ", " CONVOY ", f" {PROTECT} ", f" {FERRY} ", f" {BOARDS} ", f" {LANDS} ",
            " TRANSFORMS TO ", " HOLD", " DISBAND", ", No Order Processed")
PHASE_KIND = {"movement": "movement", "retreat": "retreat", "adjustment": "adjustment", "retreats": "retreat",
              "adjustments": "adjustment"}


class NjudgeReadError(ValueError):
    """A line of an njudge results block that could not be read."""

    def __init__(self, lineno: int, line: str, reason: str):
        super().__init__(f"line {lineno}: {reason}: {line.strip()!r}")
        self.lineno, self.line, self.reason = lineno, line, reason


@dataclass
class ReadOrder:
    """One order line: whose, the order, njudge's result tags, and whether the judge gave it."""

    power: str
    order: Order
    tags: tuple[str, ...] = ()
    default: bool = False  # "No Order Processed", "Defaults, removing ..."
    line: str = ""


@dataclass
class ReadDislodged:
    power: str
    kind: str
    loc: str
    retreats: tuple[str, ...]  # empty: destroyed, no valid retreats


@dataclass
class Balance:
    centres: int
    units: int
    change: int  # builds (positive) or removals (negative)
    marker: str = ""  # "VICTORY!!", "CD"


@dataclass
class NjudgeResults:
    game: str
    seq: int
    phase: Phase
    orders: list[ReadOrder] = field(default_factory=list)
    dislodged: list[ReadDislodged] = field(default_factory=list)
    ownership: dict[str, list[str]] | None = None  # power -> centre ids; "Unowned" too
    balance: dict[str, Balance] = field(default_factory=dict)
    next_phase: Phase | None = None
    deadline: str | None = None
    notes: list[str] = field(default_factory=list)  # the other paragraphs, as written


class _Places:
    """Province and unit names of one map, as njudge writes them."""

    def __init__(self, variant: Variant, m: Map):
        self.variant, self.m = variant, m
        self.coasts = {v.lower(): k for k, v in m.coast_names.items()}
        self.adjectives = sorted(((p.adjective, p.name) for p in variant.powers.values()), key=lambda a: -len(a[0]))

    def place(self, text: str) -> str:
        """``Spain (south coast)`` -> ``spa/sc``; ``the North Sea`` -> ``nth``."""
        t = text.strip()
        coast = ""
        mc = re.fullmatch(r"(.+?)\s*[(/]\s*([a-z ]+?)\s*\)?", t, re.I)
        if mc and mc.group(2).lower() in self.coasts:
            t, coast = mc.group(1), self.coasts[mc.group(2).lower()]
        elif mc and mc.group(2).lower() in self.m.coast_names:
            t, coast = mc.group(1), mc.group(2).lower()
        if t.lower().startswith("the ") and self.m.lookup(t) is None:
            t = t[4:]
        p = self.m.lookup(t)
        if p is None:
            raise ValueError(f"no province {t!r} on the map")
        return f"{p}/{coast}" if coast else p

    def unit(self, text: str) -> tuple[str | None, str, str]:
        """``Austrian Army Serbia`` -> (Austria, A, ser); the owner is None for one's own."""
        t = text.strip()
        owner = None
        for adj, name in self.adjectives:
            if t.startswith(adj + " "):
                owner, t = name, t[len(adj) + 1:]
                break
        for word, kind in KINDS:
            if t.lower().startswith(word.lower() + " "):
                return owner, kind, self.place(t[len(word) + 1:])
        raise ValueError(f"no unit kind (Army, Fleet) in {text.strip()!r}")

    def power(self, text: str) -> str | None:
        p = self.variant.power(text.strip())
        return p.name if p is not None else None


def split_tags(rest: str) -> tuple[str, tuple[str, ...]]:
    """``Army Vienna -> Galicia. (*bounce, dislodged*)`` -> the order and its tags."""
    m = TAGGED.match(rest.strip())
    if not m:
        raise ValueError("an order line ends with a full stop")
    tags = tuple(t.strip() for t in (m.group(2) or "").split(",") if t.strip())
    return m.group(1).strip(), tags


def movement_order(pl: _Places, power: str, body: str) -> tuple[Order, bool]:
    """One movement order line's text (after the power, before the full stop)."""
    cut = min(((body.find(k), k) for k in KEYWORDS if body.find(k) > 0), default=None)
    if cut is None:
        raise ValueError("no order word (->, SUPPORT, CONVOY, HOLD ...) after the unit")
    at, word = cut
    unit_text, rest = body[:at], body[at + len(word):].strip()
    if word == f" {LANDS} ":  # the army aboard an A/F lands: the sea is where the A/F will be
        _, kind, loc = pl.unit(unit_text)
        return Disembark(power, kind, loc, dest=pl.place(rest)), False
    _, kind, loc = pl.unit(unit_text)
    if word == " HOLD" and not rest:
        return Hold(power, kind, loc), False
    if word == ", No Order Processed" and not rest:
        return Hold(power, kind, loc), True
    if word == " DISBAND" and not rest:
        return Disband(power, kind, loc), False
    if word == " -> ":
        steps = [s.strip() for s in rest.split(" -> ")]
        dest = pl.place(steps[-1])
        return Move(power, kind, loc, dest=dest, via_convoy=len(steps) > 1), False
    if word in (" SUPPORT ", " CONVOY ", f" {PROTECT} ", f" {FERRY} "):
        target_text, _, dest_text = rest.partition(" -> ")
        _, tkind, target = pl.unit(target_text)
        dest = pl.place(dest_text) if dest_text else None
        if word == " SUPPORT ":
            return Support(power, kind, loc, target_kind=tkind, target=target, dest=dest), False
        if dest is None:
            raise ValueError(f"{word.strip()} needs '-> destination'")
        if word == " CONVOY ":
            return Convoy(power, kind, loc, target_kind=tkind, target=target, dest=dest), False
        if word == f" {PROTECT} ":
            return Protect(power, kind, loc, fleet=target, dest=dest), False
        return FastFerry(power, kind, loc, army=target, dest=dest), False
    if word == f" {BOARDS} ":
        _, _, fleet = pl.unit(rest)
        return Embark(power, kind, loc, fleet=fleet), False
    if word == " TRANSFORMS TO ":
        mk = re.fullmatch(r"(Army/Fleet|Army|Fleet)(?:\s*\(([a-z ]+)\))?", rest, re.I)
        if not mk:
            raise ValueError("TRANSFORMS TO needs Army or Fleet")
        new = next(k for w, k in KINDS if w.lower() == mk.group(1).lower())
        coast = pl.coasts.get((mk.group(2) or "").lower(), "")
        return Transform(power, kind, loc, new_kind=new, coast=coast), False
    raise ValueError(f"cannot read {word.strip()!r} here")


def retreat_order(pl: _Places, power: str, rest: str) -> ReadOrder:
    """``Army  Bulgaria -> Constantinople (*bounce, destroyed*).``"""
    text = rest.strip()
    if not text.endswith("."):
        raise ValueError("a retreat line ends with a full stop")
    text = text[:-1]
    tags: tuple[str, ...] = ()
    mt = re.fullmatch(r"(.*?)\s*\(\*(.*?)\*\)", text)
    if mt:
        text, tags = mt.group(1), tuple(t.strip() for t in mt.group(2).split(",") if t.strip())
    text = " ".join(text.split())
    if text.endswith(", No Order Processed (DISBAND)"):
        _, kind, loc = pl.unit(text[: -len(", No Order Processed (DISBAND)")])
        return ReadOrder(power, Disband(power, kind, loc), tags, True, rest)
    if text.endswith(" DISBAND"):
        _, kind, loc = pl.unit(text[: -len(" DISBAND")])
        return ReadOrder(power, Disband(power, kind, loc), tags, False, rest)
    unit_text, sep, dest = text.partition(" -> ")
    if not sep:
        raise ValueError("a retreat is '-> place', DISBAND or 'No Order Processed'")
    _, kind, loc = pl.unit(unit_text)
    return ReadOrder(power, Retreat(power, kind, loc, dest=pl.place(dest)), tags, False, rest)


def adjustment_orders(pl: _Places, power: str, rest: str) -> list[ReadOrder]:
    """``Builds an army in Vienna.``, ``Removes the fleet in the North Sea.``, ``Build waived.`` ..."""
    text = " ".join(rest.split())
    mb = re.fullmatch(r"Builds (?:an?|the) (army/fleet|army|fleet|wing) (?:in|over) (.+)\.", text, re.I)
    if mb:
        kind = next(k for w, k in KINDS if w.lower() == mb.group(1).lower())
        return [ReadOrder(power, Build(power, kind, pl.place(mb.group(2))), (), False, rest)]
    mr = re.fullmatch(r"(Removes|Defaults, removing) the (army/fleet|army|fleet|wing) (?:in|over) (.+)\.", text, re.I)
    if mr:
        kind = next(k for w, k in KINDS if w.lower() == mr.group(2).lower())
        default = mr.group(1).lower().startswith("defaults")
        return [ReadOrder(power, Remove(power, kind, pl.place(mr.group(3))), (), default, rest)]
    if re.fullmatch(r"Build waived\.", text, re.I):
        return [ReadOrder(power, Waive(power, None, ""), (), False, rest)]
    mw = re.fullmatch(r"(\d*)\s*(?:unusable )?builds? (waived|pending)\.", text, re.I)
    if mw:
        n = int(mw.group(1) or 1)
        return [ReadOrder(power, Waive(power, None, ""), (mw.group(2).lower(),), True, rest) for _ in range(n)]
    mt = re.fullmatch(r"Transform the (army/fleet|army|fleet) (?:in|over) (.+?) to (?:an?) (army/fleet|army|fleet)"
                      r"(?: \(([a-z ]+)\))?\.", text, re.I)
    if mt:
        kind = next(k for w, k in KINDS if w.lower() == mt.group(1).lower())
        new = next(k for w, k in KINDS if w.lower() == mt.group(3).lower())
        coast = pl.coasts.get((mt.group(4) or "").lower(), "")
        return [ReadOrder(power, Transform(power, kind, pl.place(mt.group(2)), new_kind=new, coast=coast), (), False,
                          rest)]
    raise ValueError("not an adjustment (Builds, Removes, Defaults, Build waived, Transform)")


def _phase(variant: Variant, season: str, year: str, kind: str) -> Phase:
    seasons = {s.lower(): s for s, _ in variant.calendar.seasons}
    name = seasons.get(season.lower())
    if name is None:
        raise ValueError(f"{season!r} is not a season of {variant.title}")
    return Phase(name, int(year), PHASE_KIND[kind.lower()])


def read_njudge(text: str, variant: Variant) -> NjudgeResults:
    """The results block in ``text`` (the first one), read against ``variant``'s map."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines) if TITLE.match(line)), None)
    if start is None:
        raise NjudgeReadError(1, lines[0] if lines else "", "no 'Movement/Retreat/Adjustment results for' line")
    mt = TITLE.match(lines[start])
    assert mt is not None
    try:
        phase = _phase(variant, mt.group(2), mt.group(3), mt.group(1))
    except ValueError as exc:
        raise NjudgeReadError(start + 1, lines[start], str(exc)) from None
    out = NjudgeResults(mt.group(4), int(mt.group(5)), phase)
    pl = _Places(variant, variant.map_at(phase))
    section = "orders"
    i = start + 1
    while i < len(lines):
        line = lines[i].rstrip()
        lineno = i + 1
        i += 1
        if not line.strip() or line.startswith("::"):
            continue
        try:
            if line.strip().lower() == "the following units were dislodged:":
                section = "dislodged"
                continue
            if line.strip().lower() == "ownership of supply centers:":
                section, out.ownership = "ownership", {}
                continue
            mn = NEXT.match(line)
            if mn:
                out.next_phase = _phase(variant, mn.group(3), mn.group(4), mn.group(2))
                section = "end"
                continue
            md = DEADLINE.match(line)
            if md:
                out.deadline = md.group(1)
                continue
            if section == "dislodged" and line.startswith("The "):
                while i < len(lines) and lines[i].strip() and not lines[i].startswith("The "):
                    line += " " + lines[i].strip()  # njudge wraps these sentences
                    i += 1
                out.dislodged.append(_dislodged(pl, line))
                continue
            if section == "ownership":
                mb = BALANCE.match(line)
                if mb:
                    who = pl.power(mb.group(1))
                    if who is None:
                        raise ValueError(f"no power {mb.group(1)!r} in {variant.title}")
                    n = int(mb.group(5))
                    out.balance[who] = Balance(int(mb.group(2)), int(mb.group(3)),
                                               n if mb.group(4).lower() == "builds" else -n, mb.group(6) or "")
                    continue
                mo = ORDER_LINE.match(line)
                if mo and (pl.power(mo.group(1)) or mo.group(1).lower() == "unowned"):
                    who = pl.power(mo.group(1)) or "Unowned"
                    body = mo.group(2)
                    while i < len(lines) and lines[i][:1] in (" ", "\t") and lines[i].strip():
                        body += " " + lines[i].strip()  # a wrapped list goes on indented
                        i += 1
                    names = [n.strip() for n in body.rstrip(".").split(",") if n.strip()]
                    out.ownership[who] = [pl.place(n.strip("()")) for n in names]  # type: ignore[index]
                    continue
            mo = ORDER_LINE.match(line)
            power = pl.power(mo.group(1)) if mo else None
            if section == "orders" and mo and power:
                rest = mo.group(2)
                if phase.kind == "movement":
                    body, tags = split_tags(rest)
                    order, default = movement_order(pl, power, body)
                    out.orders.append(ReadOrder(power, order, tags, default, line))
                else:
                    read = [retreat_order(pl, power, rest)] if phase.kind == "retreat" else \
                        adjustment_orders(pl, power, rest)
                    for ro in read:
                        ro.line = line
                    out.orders += read
                continue
        except ValueError as exc:
            raise NjudgeReadError(lineno, line, str(exc)) from None
        para = [line.strip()]
        while i < len(lines) and lines[i].strip() and not NEXT.match(lines[i]) and not DEADLINE.match(lines[i]):
            para.append(lines[i].strip())
            i += 1
        note = " ".join(para)
        out.notes.append(note[1:-1] if note.startswith("(") and note.endswith(")") else note)
    return out


def _dislodged(pl: _Places, line: str) -> ReadDislodged:
    m = DISLODGED.match(" ".join(line.split()))
    if not m:
        raise ValueError("not 'The <adjective> <unit> in <place> can retreat to ...' or '... was destroyed'")
    adj = m.group(1)
    power = next((name for a, name in pl.adjectives if a.lower() == adj.lower()), None) or pl.power(adj)
    if power is None:
        raise ValueError(f"no power with the adjective {adj!r}")
    kind = next(k for w, k in KINDS if w.lower() == m.group(2).lower())
    where = m.group(3)
    retreats = tuple(pl.place(x) for x in re.split(r"\s+or\s+", m.group(4))) if m.group(4) else ()
    return ReadDislodged(power, kind, pl.place(where), retreats)


__all__ = ["Balance", "NjudgeReadError", "NjudgeResults", "ReadDislodged", "ReadOrder", "read_njudge"]
