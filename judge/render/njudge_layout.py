"""Results in njudge's own plain-text layout, for the tools that read njudge results.

``render_njudge(variant, before, result, game=..., seq=...)`` writes one phase's results the way
the njudge judge lays them out, so that programs written for njudge mail (map makers such as
Mapper, jDip's game import, archive sites) read ours: the title line
``Movement results for Spring of 1901.  (game.001)``, one line per unit and power, the failure
tags ``(*bounce*)``, ``(*cut*)``, ``(*void*)``, ``(*no convoy*)``, ``(*dislodged*)``, the list
of dislodged units, the retreat and adjustment lines (power name padded to column 26), the
supply-centre ownership block with its balance table, and the next phase and its deadline.

Layout facts (not code) from njudge 1.7.6 and from archived njudge results mails; the
choices where this judge differs from njudge are in ``docs/reports.md``. Lines a reader takes
as records (orders, retreats, adjustments, the balance table) are never wrapped: jDip's import
reads one order per line. :mod:`judge.render.njudge_reader` reads the layout back.

Pure code: no I/O, no game store.
"""

from __future__ import annotations

import textwrap
from typing import Iterable

from judge.engine import PhaseResult, Position
from judge.engine.adjustment import unit_count
from judge.engine.position import Unit
from judge.engine.orders import (Build, Convoy, Disband, Hold, Move, Order, OrderResult, Remove, Retreat, Support,
                                 Waive)
from judge.engine.variant_kinds import Disembark, Embark, FastFerry, Protect, Transform
from judge.variant import Map, Phase, Variant, province_of

#: unit kinds as njudge names them (the A/F of the Army/Fleet module as njudge's data files spell it)
KIND_WORD = {"A": "Army", "F": "Fleet", "A/F": "Army/Fleet"}
#: retreat and adjustment lines: the power name and its colon padded so the text starts at column 26
LPOWER = 24
#: njudge wraps its prose (dislodged units, ownership lists) before column 79
WIDTH = 78
#: the engine's reasons for a failed movement order -> njudge's tag words
TAG_WORDS = {"bounced": "bounce", "cut": "cut", "dislodged": "dislodged", "no convoy": "no convoy",
             "convoy paradox: no convoy": "no convoy"}
#: module order keywords (njudge has TRANSFORMS TO; the others follow its SUPPORT/CONVOY style)
PROTECT, FERRY, BOARDS, LANDS = "PROTECT", "FERRY", "BOARDS", "LANDS IN"
PHASE_TITLE = {"movement": "Movement", "retreat": "Retreat", "adjustment": "Adjustment"}
NEXT_WORD = {"movement": "Movement", "retreat": "Retreats", "adjustment": "Adjustments"}


def title(phase: Phase, game: str, seq: int) -> str:
    """``Movement results for Spring of 1901.  (game.001)``."""
    return f"{PHASE_TITLE[phase.kind]} results for {phase.season} of {phase.year}.  ({game}.{seq:03d})"


def result_tags(r: OrderResult) -> list[str]:
    """The words njudge puts between ``(*`` and ``*)`` after a movement order: why it failed,
    and ``dislodged``. A reason of a variant's rule module is kept in its own words (commas
    turned to semicolons, so that the tags still split on commas)."""
    reason = r.reason.strip()
    dislodged = reason == "dislodged" or reason.endswith(", dislodged")
    head = reason[: -len("dislodged")].rstrip(", ") if dislodged else reason
    tags: list[str] = []
    if r.result != "succeeds" and head and not head.startswith(("no order", "civil disorder")):
        if head in TAG_WORDS:
            tags.append(TAG_WORDS[head])
        elif head.startswith("void"):
            tags.append("void")
        else:
            tags.append(" ".join(head.replace(",", ";").replace("*", "").replace("(", "[").replace(")", "]").split()))
    elif r.result != "succeeds" and not head and not dislodged:
        tags.append("failed")
    if dislodged:
        tags.append("dislodged")
    return tags


class _Words:
    """Units and places of one board in njudge's words."""

    def __init__(self, variant: Variant, m: Map, before: Position):
        self.variant, self.m, self.before = variant, m, before

    def place(self, loc: str) -> str:
        return self.m.name(loc)

    def in_place(self, loc: str) -> str:
        """``in the North Sea``, ``in Vienna``."""
        return ("in the " if self.m.is_sea(province_of(loc)) else "in ") + self.place(loc)

    def unit_at(self, loc: str) -> Unit | None:
        p = province_of(loc)
        u = self.before.units.get(p)
        if u is None and p in self.before.dislodged:
            u = self.before.dislodged[p].unit
        return u

    def unit(self, kind: str | None, loc: str, power: str | None = None) -> str:
        """``Army Vienna``; ``Austrian Army Serbia`` when the unit is not ``power``'s own. The unit
        on the board gives its kind and coast where there is one."""
        u = self.unit_at(loc)
        if u is not None:
            kind, loc = u.kind, u.loc if province_of(u.loc) == province_of(loc) else loc
        word = KIND_WORD.get(kind or "", "Army")
        adj = ""
        if power is not None and u is not None and u.power != power and u.power in self.variant.powers:
            adj = self.variant.powers[u.power].adjective + " "
        return f"{adj}{word} {self.place(loc)}"

    def article(self, kind: str | None) -> str:
        """``an army``, ``a fleet``, ``an army/fleet`` (what a build makes)."""
        word = KIND_WORD.get(kind or "A", "Army").lower()
        return ("an " if word[0] in "aeiou" else "a ") + word


def convoy_route(m: Map, order: Move, results: Iterable[OrderResult]) -> list[str] | None:
    """The sea spaces an army goes by, as njudge writes a convoy (``-> North Sea -> Belgium``):
    the fleets ordered to convoy this move, in order from the army to its landing; None when the
    move goes by land, [] when it is carried but no fleet was ordered for it.

    The move is carried as the engine decides it (DATC 4.A.3): when it says so, when it cannot go
    by land, or when a fleet of its own power convoys it."""
    if order.kind not in ("A", None):
        return None
    src, dst = province_of(order.loc), province_of(order.dest)
    fleets: dict[str, str] = {}
    for r in results:
        c = r.order
        if isinstance(c, Convoy) and r.result != "invalid" and province_of(c.target) == src \
                and province_of(c.dest) == dst:
            fleets[province_of(c.loc)] = r.power
    adjacent = dst in m.army_adj.get(src, ())
    if not (order.via_convoy or not adjacent or order.power in fleets.values()):
        return None
    # the shortest chain of those fleets from the army's coast to the landing
    paths: dict[str, list[str]] = {}
    frontier = [f for f in sorted(fleets) if f in m.any_adj.get(src, ())]
    for f in frontier:
        paths[f] = [f]
    while frontier:
        nxt: list[str] = []
        for f in frontier:
            if dst in m.any_adj.get(f, ()):
                return paths[f]
            for g in sorted(fleets):
                if g not in paths and g in m.any_adj.get(f, ()):
                    paths[g] = paths[f] + [g]
                    nxt.append(g)
        frontier = nxt
    return []


def movement_line(w: _Words, r: OrderResult, results: list[OrderResult]) -> str:
    """One unit's line of the movement results (without the power)."""
    o: Order | None = r.order
    assert o is not None
    me = w.unit(o.kind, o.loc)
    if isinstance(o, Hold):
        body = f"{me}, No Order Processed" if r.default else f"{me} HOLD"
    elif isinstance(o, Move):
        route = convoy_route(w.m, o, results) or []
        body = me + "".join(f" -> {w.place(s)}" for s in route) + f" -> {w.place(o.dest)}"
    elif isinstance(o, Support):
        body = f"{me} SUPPORT {w.unit(o.target_kind, o.target, r.power)}"
        if o.dest:
            body += f" -> {w.place(o.dest)}"
    elif isinstance(o, Convoy) and getattr(o, "ff", False):  # the A/F module's Fast Ferry, as its order reads
        body = f"{me} {FERRY} {w.unit('A', o.target, r.power)} -> {w.place(o.dest)}"
    elif isinstance(o, Convoy):
        body = f"{me} CONVOY {w.unit(o.target_kind or 'A', o.target, r.power)} -> {w.place(o.dest)}"
    elif isinstance(o, Transform):
        coast = f" ({w.m.coast_names.get(o.coast, o.coast)})" if o.coast else ""
        body = f"{me} TRANSFORMS TO {KIND_WORD.get(o.new_kind, o.new_kind)}{coast}"
    elif isinstance(o, Protect):
        body = f"{me} {PROTECT} {w.unit('F', o.fleet, r.power)} -> {w.place(o.dest)}"
    elif isinstance(o, FastFerry):
        body = f"{me} {FERRY} {w.unit('A', o.army, r.power)} -> {w.place(o.dest)}"
    elif isinstance(o, Embark):
        body = f"{me} {BOARDS} {w.unit('F', o.fleet, r.power)}"
    elif isinstance(o, Disembark):
        body = f"{KIND_WORD.get(o.kind or 'A', 'Army')} {w.place(o.loc)} {LANDS} {w.place(o.dest)}"
    elif isinstance(o, Disband):
        body = f"{me} DISBAND"
    else:  # an order kind of a rule module this layout does not know: the judge's own notation
        body = f"{me} ORDER {r.text}"
    tags = result_tags(r)
    return body + "." + (f" (*{', '.join(tags)}*)" if tags else "")


def retreat_line(w: _Words, r: OrderResult) -> str:
    o = r.order
    assert o is not None
    u = w.unit_at(o.loc)
    kind, loc = (u.kind, u.loc) if u is not None else (o.kind or "A", o.loc)
    body = f"{KIND_WORD.get(kind, 'Army'):<5} {w.place(loc)}"
    if isinstance(o, Retreat):
        body += f" -> {w.place(o.dest)}"
        if r.result != "succeeds":
            head = r.reason.split(",")[0].split(":")[0].strip()
            why = "bounce" if head in ("bounced", "") else " ".join(head.replace("*", "").split())
            body += f" (*{why}, destroyed*)"
    elif r.default:
        body += ", No Order Processed (DISBAND)"
    else:
        body += " DISBAND"
    return body + "."


def adjustment_line(w: _Words, r: OrderResult) -> list[str]:
    o = r.order
    if isinstance(o, Build):
        return [f"Builds {w.article(o.kind)} in {w.place(o.loc)}."]
    if isinstance(o, Remove):  # the kind removed as the order has it: only the army of an A/F may go
        u = w.unit_at(o.loc)
        kind, loc = (o.kind or (u.kind if u is not None else None)), (u.loc if u is not None else o.loc)
        what = KIND_WORD.get(kind or "A", "Army").lower()
        return [f"Defaults, removing the {what} {w.in_place(loc)}." if r.default else
                f"Removes the {what} {w.in_place(loc)}."]
    if isinstance(o, Waive):
        n = r.text.split()[-1]
        return ["Build waived."] * (int(n) if n.isdigit() else 1)
    if isinstance(o, Transform):
        u = w.unit_at(o.loc)
        kind = u.kind if u is not None else o.kind
        coast = f" ({w.m.coast_names.get(o.coast, o.coast)})" if o.coast else ""
        return [f"Transform the {KIND_WORD.get(kind or 'A', 'Army').lower()} {w.in_place(o.loc)} to "
                f"{w.article(o.new_kind)}{coast}."]
    return [f"{r.text}."]


def padded(power: str) -> str:
    """``Turkey:`` and spaces up to column 26, as njudge writes retreats and adjustments."""
    return f"{power}: " + " " * max(0, LPOWER - len(power))


def wrap_prose(text: str, indent: int = 0) -> list[str]:
    """njudge's wrapping of a long sentence: at a space before column 79. A continuation line
    of the dislodged list never starts with "the" (readers take such a line as a new unit)."""
    lines = textwrap.wrap(text, WIDTH, subsequent_indent=" " * indent, break_long_words=False,
                          break_on_hyphens=False)
    out: list[str] = []
    for line in lines:
        if out and line.strip().lower().startswith("the") and not indent:
            head, _, last = out[-1].rpartition(" ")
            if head:
                out[-1], line = head, f"{last} {line.strip()}"
        out.append(line)
    return out


def _ownership_crossed(variant: Variant, result: PhaseResult) -> bool:
    """Was ownership worked out after this phase (an adjustment phase entered, or passed over)?"""
    cal = variant.calendar
    if result.phase.kind == "adjustment":
        return False
    phase, end = result.phase, result.next.phase
    for _ in range(64):
        phase = cal.following(phase)
        if phase.kind == "adjustment":
            return True
        if phase == end or cal.order_key(phase) >= cal.order_key(end):
            return False
    return False


def ownership_block(variant: Variant, result: PhaseResult, before: Position, cd: Iterable[str]) -> list[str]:
    """``Ownership of supply centers:``, each power's centres, then the balance table."""
    after = result.next
    m = after.map
    names = list(variant.powers)
    width = max(len(n) for n in [*names, "Unowned"]) + 4
    out = ["Ownership of supply centers:", ""]
    owned: dict[str, list[str]] = {}
    for c, p in after.centres.items():
        owned.setdefault(p, []).append(m.name(c))
    unowned = [m.name(c) for c in m.centres if c not in after.centres]
    for who, centres in [*((p, owned.get(p, [])) for p in names), ("Unowned", unowned)]:
        if centres:
            out += wrap_prose(f"{who}:".ljust(width) + ", ".join(sorted(centres)) + ".", indent=width)
    out.append("")
    winners = set((result.victory or {}).get("winner") or []) if (result.victory or {}).get("kind") == "solo" else set()
    cd = set(cd)
    was = {p for p in before.centres.values()}
    for p in names:
        nc = len(owned.get(p, []))
        nu = sum(unit_count(u) for u in after.units.values() if u.power == p)
        if not (nc or nu or p in was):
            continue
        diff = abs(nc - nu)
        row = (f"{p}:".ljust(width - 1) + f"{nc:2d} Supply center{'s,' if nc != 1 else ', '} "
               f"{nu:2d} Unit{'s:' if nu != 1 else ': '}  {'Builds ' if nc >= nu else 'Removes'} "
               f"{diff:2d} unit{'s' if diff != 1 else ''}.")
        pad = " " if diff == 1 else ""
        if p in winners:
            row += f"{pad}  (* VICTORY!! *)"
        elif p in cd:
            row += f"{pad}  (* CD *)"
        out.append(row)
    return out


def dislodged_block(w: _Words, result: PhaseResult) -> list[str]:
    """``The following units were dislodged:`` and a sentence per unit."""
    nxt = result.next
    entries: dict[str, tuple[str, str, str, tuple[str, ...]]] = {}  # prov -> (power, kind, loc, retreats)
    if nxt.phase.kind == "retreat":
        for p, d in nxt.dislodged.items():
            entries[p] = (d.unit.power, d.unit.kind, d.unit.loc, tuple(d.retreats))
    for r in result.results:
        if r.order is not None and r.result != "invalid" and "dislodged" in result_tags(r):
            p = province_of(r.order.loc)
            u = w.unit_at(r.order.loc)
            if p not in entries and u is not None:
                entries[p] = (u.power, u.kind, u.loc, ())  # no retreat phase for it: destroyed
    if not entries:
        return []
    order = {n: i for i, n in enumerate(w.variant.powers)}
    out = ["The following units were dislodged:", ""]
    for p, (power, kind, loc, retreats) in sorted(entries.items(),
                                                  key=lambda kv: (order.get(kv[1][0], 99), w.place(kv[1][2]))):
        adj = w.variant.powers[power].adjective if power in w.variant.powers else power
        head = f"The {adj} {KIND_WORD.get(kind, 'Army')} {w.in_place(loc)}"
        text = (f"{head} can retreat to {' or '.join(w.place(x) for x in retreats)}." if retreats else
                f"{head} with no valid retreats was destroyed.")
        out += wrap_prose(text)
    return out


def victory_line(result: PhaseResult) -> str:
    v = result.victory
    if not v:
        return ""
    winners = [str(x) for x in v.get("winner", [])]
    if v.get("kind") == "solo" and winners:
        return f"The game is over: {winners[0]} wins with {v.get('centres', '?')} supply centers."
    return f"The game is over ({v.get('kind', 'over')}): {' and '.join(winners) or 'nobody'}."


def render_njudge(variant: Variant, before: Position, result: PhaseResult, *, game: str, seq: int,
                  deadline: str | None = None, cd: Iterable[str] = ()) -> str:
    """One phase's results in njudge's layout (plain text, one final newline).

    ``before``: the board the orders were given on; ``seq``: the phase's number in the game
    (njudge's ``game.001``); ``deadline``: the next phase's deadline as njudge writes it
    (``Tue Jan 06 2004 23:30:00 +0000``), None when there is none; ``cd``: powers in civil
    disorder. ``result.victory`` and ``result.events`` are the game's end and the notes."""
    phase = result.phase
    kind = phase.kind
    m = variant.map_at(phase)
    w = _Words(variant, m, before)
    out = [title(phase, game, seq), ""]
    shown = [r for r in result.results if r.order is not None and r.result != "invalid"]
    order = {n: i for i, n in enumerate(variant.powers)}
    shown.sort(key=lambda r: order.get(r.power, len(order)))  # stable: within a power, the engine's order

    def by_place(r: OrderResult) -> tuple[int, str]:
        return order.get(r.power, len(order)), w.place(r.order.loc)  # type: ignore[union-attr]

    if kind == "movement":
        last = None
        for r in sorted(shown, key=by_place):
            if last is not None and r.power != last:
                out.append("")
            last = r.power
            out.append(f"{r.power}: {movement_line(w, r, result.results)}")
        block = dislodged_block(w, result)
        if block:
            out += ["", ""] + block
    elif kind == "retreat":
        for r in sorted(shown, key=by_place):
            out.append(padded(r.power) + retreat_line(w, r))
    else:
        for r in shown:
            out += [padded(r.power) + line for line in adjustment_line(w, r)]
    if _ownership_crossed(variant, result):
        out += [""] + ownership_block(variant, result, before, cd)
    over = bool(result.victory) and (result.victory or {}).get("final", True)
    notes = [e for e in result.events if e]
    if over:
        notes.append(victory_line(result))
    for note in notes:  # in brackets: no reader takes a note ("Sweden: the unit ...") for an order line
        out += [""] + wrap_prose(f"({note})")
    if not over:
        nxt = result.next.phase
        out += ["", f"The next phase of '{game}' will be {NEXT_WORD[nxt.kind]} for {nxt.season} of {nxt.year}."]
        if deadline:
            out.append(f"The deadline for orders will be {deadline}.")
    return "\n".join(line.rstrip() for line in out) + "\n"


__all__ = ["KIND_WORD", "convoy_route", "render_njudge", "result_tags", "title"]
