"""The order language: free-form player text → engine orders, read against the board.

    from judge.orders import parse_orders, ParsedLine
    lines = parse_orders(text, pos, power=None)

One :class:`ParsedLine` per order found, in order (several orders on one line give several,
each with the whole line as ``source``). Blank lines and whatever follows the orders block (a
signature, a forwarded message) give nothing. An order is read whole or refused whole, with a
specific error, and never costs the good orders beside it. A line that is no order and no
mistake (a comment, a quotation, a remark in brackets, a line ending in a colon that introduces
what follows) gives one ParsedLine with a ``note``; a remark in brackets inside an order line
is left out, and said so. ``check=True`` adds the engine's verdict on each order as an error
("the army in Belgium can't reach London"); the adjudicator itself passes ``check=False`` and
judges them.

Modules: ``lexer`` (the orders block of a mail, tokens), ``names`` (provinces, coasts, powers),
``parser`` (the grammar, and what is checked while reading), ``remarks`` (remarks, lead-in lines,
"all units hold"), ``review`` (the engine's verdicts and the warnings that need all the orders),
``cli`` (``judge parse``). What is read, and why: ``docs/order-language.md``. The variant rule
modules' order kinds (embark, disembark, fast ferry, protect, transform) are engine types
(:mod:`judge.engine.variant_kinds`); the parser reads them.
"""

from __future__ import annotations

from typing import Any, Callable

from judge.engine.position import Position
from judge.engine.variant_kinds import ARMY_FLEET  # importing it registers the variant order kinds
from judge.orders.canonical import read_line, read_run, table_for
from judge.engine.adjustment import adjustments_due, build_sites
from judge.engine.orders import Hold, Waive
from judge.variant import province_of
from judge.orders.lexer import END, other_line, source_lines, tokenize
from judge.orders.names import names_for
from judge.orders.parsed import ParsedLine
from judge.orders.parser import Context, LineReader

__all__ = ["parse_orders", "ParsedLine"]


def parse_orders(text: str, pos: Position, power: str | None = None, *, check: bool = False,
                 rules: dict[str, Any] | None = None, fast: bool = True, warn: bool = True
                 ) -> list[ParsedLine]:
    """Read every order in ``text`` against ``pos``.

    ``power``: the signed-on player; orders for other powers' units are then errors.
    ``rules``: the game's rules (default: the variant's); ``rules["modules"]`` decides which
    variant order kinds exist. ``check``: also report orders the engine would refuse.
    ``fast``: read lines in canonical notation without the full grammar (same result,
    ``judge.orders.canonical``); False only to compare the two. ``warn=False`` leaves out the
    warnings that need all the orders (supports for a unit ordered elsewhere): the adjudicator
    does not print them.
    """
    variant = pos.variant
    m = pos.map
    if power is not None:
        found = variant.power(power)
        if found is None:
            raise ValueError(f"unknown power {power!r} (powers: {', '.join(variant.powers)})")
        power = found.name
    rules = rules if rules is not None else variant.rules
    global _last
    last = _last
    if last[0] is m:
        names, table = last[1], last[2]
    else:  # (each is kept per map: asked once for a run of cases on the same map, not through a weak dict each)
        names = names_for(variant, m)
        table = table_for(names, m)
        _last = (m, names, table)
    mods = frozenset(rules.get("modules", ()))
    ctx = Context(pos, m, names, mods, power, rules=rules)
    if ARMY_FLEET in mods:  # a landing may be written before the move of the A/F it lands from
        first = Context(pos, m, names, mods, power)
        for _, line in source_lines(text):
            toks = tokenize(line)  # (a comment's "" has no tokens)
            if any(t.word for t in toks):
                LineReader(first, line, toks).read()
        ctx.af_moves = dict(first.af_moves)
    out: list[ParsedLine] = []
    rest: list[tuple[int, ParsedLine]] = []  # where "the rest hold" was written, and for whom
    lineno = 0
    # ``source_lines`` written out: most lines are orders in canonical text, read by ``read_run``
    # (or ``read_line``) in a few dict look-ups, and a generator's pairs would cost a good part of
    # that again
    lines = text.splitlines()
    i, n = 0, len(lines)
    while i < n:
        if fast:  # (the runs of plain moves, holds and supports: most lines)
            i, lineno = read_run(ctx, table, lines, i, lineno, out)
            if i == n:
                break
        raw = lines[i]
        i += 1
        line = raw.rstrip()
        if line[:1].isalpha() and line[-1] != ":" and "#" not in line:  # ``is_plain``, not indented
            source = line
        else:  # (an indented plain line too: ``other_line`` gives it the same pair)
            got = other_line(raw)
            if got is None:
                continue
            if got is END:
                break
            source, line = got
        lineno += 1
        if not line:  # "# a comment", "> a quotation"
            what = "a quotation" if source.startswith(">") else "a comment"
            out.append(ParsedLine(source, None, ctx.power or ctx.sticky, map=m, source=source, lineno=lineno,
                                  note=f"{what}, not an order: nothing was done with it"))
            continue
        # (read without its indent or list mark: the fast path reads only plain lines)
        parsed = read_line(ctx, line.lstrip(), table, source, lineno) if fast else None
        if parsed is not None:
            out.append(parsed)
            continue
        toks = tokenize(line)
        if any(t.word for t in toks) or "+" in line:
            for p in _read(ctx, line, toks):
                p.source, p.lineno = source, lineno
                if p.note == _REST:
                    rest.append((len(out), p))
                else:
                    out.append(p)
    for at, p in reversed(rest):
        out[at:at] = _hold_the_rest(ctx, p, out)
    if check or warn:  # (not the adjudicator's: imported when first needed)
        from judge.orders.review import engine_verdicts, mismatch_warnings

        if check:
            engine_verdicts(out, pos, rules)
        if warn:
            mismatch_warnings(out, pos)
    return out


#: the map of the last ``parse_orders`` call and its ``names_for`` and ``table_for`` (which keep them
#: as long as the map lives: the same objects)
_last: tuple[Any, Any, Any] = (None, None, None)


def _read(ctx: Context, line: str, toks: list) -> list[ParsedLine]:
    """One line's orders; where the plain reading fails, the readings of what players write
    besides orders (``judge.orders.remarks``)."""
    reader = LineReader(ctx, line, toks)
    got = reader.read()
    if all(p.order is not None or p.note for p in got):
        return got
    # (imported here: a batch of orders as tools write them never needs these readings)
    from judge.orders.remarks import (is_lead_in, is_no_order_line, is_remark_line, power_heading, rest_hold,
                                      without_remarks)

    low = line.lower()
    if "all" in low:
        held = _hold_all(ctx, line)
        if held is not None:
            return held
    if "build" in low or "waive" in low:
        waived = _waive_all(ctx, line)
        if waived is not None:
            return waived
    if ("rest" in low or "other" in low or "else" in low) and (head := rest_hold(line)) is not None:
        before = LineReader(ctx, head, tokenize(head)).read() if head.strip() else []
        if all(p.order is not None for p in before):
            power = next((p.power for p in before if p.power), None) or ctx.power or ctx.sticky
            return before + [ParsedLine(line.strip(), None, power, map=ctx.map, note=_REST)]
    if is_no_order_line(line):
        return [ParsedLine(line.strip(), None, ctx.power or ctx.sticky, map=ctx.map,
                           note="a unit listed without an order (as the judge prints it), not an order: nothing was "
                                "done with it")]
    if not any(p.order is not None for p in got):
        named = power_heading(line, ctx.names)
        if named is not None:  # "== England ==", "ENGLAND ORDERS", "England (Bob)": the orders below are its
            ctx.sticky = named
            return [reader.heading(named)]
        what = "a remark" if is_remark_line(line) else "a line leading into what follows" if (
            is_lead_in(line) and not reader.starts_unit(0) and not reader.is_loc(0)) else ""
        if what:
            return [ParsedLine(line.strip(), None, ctx.power or ctx.sticky, map=ctx.map,
                               note=f"{what}, not an order: nothing was done with it")]
    for text, remarks in without_remarks(line):
        again = LineReader(ctx, text, tokenize(text)).read()
        if again and all(p.order is not None for p in again):
            for p in again:
                p.line = " ".join(p.line.split())
            again[0].warnings.extend(f"the remark {r!r} is not an order: it was left out" for r in remarks)
            return again
    return got


_REST = "the rest hold"  # a mark, replaced by the holds once every line is read


def _hold_the_rest(ctx: Context, mark: ParsedLine, out: list[ParsedLine]) -> list[ParsedLine]:
    """"..., rest hold": a hold for each of the power's units no order in the mail is for."""
    m, power, line = ctx.map, mark.power, mark.line
    if power is None:
        return [_at(mark, ParsedLine(line, None, None, "say whose units hold (e.g. 'England: rest hold')", map=m))]
    if ctx.phase != "movement":
        return [_at(mark, ParsedLine(line, None, power, f"'rest hold' is an order for a movement phase; this is "
                                     f"{ctx.pos.phase}", map=m))]
    ordered = {province_of(p.order.loc) for p in out if p.order is not None and p.order.power == power
               and p.order.is_unit_order}
    units = [u for u in ctx.pos.units.values() if u.power == power and u.prov not in ordered]
    if not units:
        return [_at(mark, ParsedLine(line, None, power, map=m, note=f"all of {power}'s units have orders: "
                                     "none is left to hold"))]
    held = [_at(mark, ParsedLine(line, Hold(power, u.kind, u.loc), power, map=m)) for u in units]
    held[0].warnings.append(f"read as a hold for each of {power}'s units not ordered otherwise: "
                            + ", ".join(u.text(m) for u in units))
    return held


def _at(mark: ParsedLine, p: ParsedLine) -> ParsedLine:
    p.source, p.lineno = mark.source, mark.lineno
    return p


def _whose(ctx: Context, line: str, says: Callable[[str], bool], say: str) -> str | list[ParsedLine] | None:
    """Whose line it is, when it ``says`` its thing alone or after a power's name (the power
    named, else the player's or the heading's); None when it says something else; the error,
    as the line's reading, when it names another power than the player's or none can be told."""
    head, colon, rest = line.partition(":")
    named = ctx.names.power(head.strip().lower()) if colon else None
    if not says(rest if named else line):
        return None
    power = named.name if named else ctx.power or ctx.sticky
    if named and ctx.power and power != ctx.power:
        return [ParsedLine(line.strip(), None, ctx.power, f"you play {ctx.power}: you cannot give orders for "
                           f"{power}", map=ctx.map)]
    if power is None:
        return [ParsedLine(line.strip(), None, None, f"say {say}", map=ctx.map)]
    return power


def _waive_all(ctx: Context, line: str) -> list[ParsedLine] | None:
    """"No builds", "waive all": a waive for each build the power may make."""
    from judge.orders.remarks import waives_all

    power = _whose(ctx, line, waives_all, "whose builds are waived (e.g. 'England: no builds')")
    if not isinstance(power, str):
        return power
    m = ctx.map
    due = adjustments_due(ctx.pos).get(power, 0) if ctx.phase == "adjustment" else 0
    n = min(due, len(build_sites(ctx.pos, power, ctx.rules)))
    if n <= 0:
        return [ParsedLine(line.strip(), None, power, map=m, note=f"{power} has no builds to make: nothing to waive")]
    out = [ParsedLine(line.strip(), Waive(power, None, ""), power, map=m) for _ in range(n)]
    out[0].warnings.append(f"read as {n} waive{'s' if n > 1 else ''}: every build {power} may make")
    return out


def _hold_all(ctx: Context, line: str) -> list[ParsedLine] | None:
    """"All units hold", "hold all" (after a power's name, or for the player signed on): a hold
    for every unit of the power; None when the line says something else."""
    from judge.orders.remarks import holds_all

    power = _whose(ctx, line, holds_all, "whose units hold (e.g. 'England: all units hold')")
    if not isinstance(power, str):
        return power
    m = ctx.map
    if ctx.phase != "movement":
        return [ParsedLine(line.strip(), None, power, f"'all units hold' is an order for a movement phase; this "
                           f"is {ctx.pos.phase}", map=m)]
    units = [u for u in ctx.pos.units.values() if u.power == power]
    if not units:
        return [ParsedLine(line.strip(), None, power, f"{power} has no units to hold", map=m)]
    out = [ParsedLine(line.strip(), Hold(power, u.kind, u.loc), power, map=m) for u in units]
    out[0].warnings.append(f"read as a hold for each of {power}'s {len(units)} units")
    return out
