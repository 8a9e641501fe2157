"""The order language: free-form player text → engine orders, read against the board.

    from judge.orders import parse_orders, ParsedLine
    lines = parse_orders(text, pos, power=None)

One :class:`ParsedLine` per order found, in order (several orders on one line give several);
blank lines, comments and whatever follows the orders block (signature, quoted reply) give
nothing. A line that cannot be read gives a specific error and never costs the good orders
beside it. ``check=True`` adds the engine's verdict on each order as an error ("the army in
Belgium can't reach London"); the adjudicator itself passes ``check=False`` and judges them.

Modules: ``lexer`` (the orders block of a mail, tokens), ``names`` (provinces, coasts, powers),
``parser`` (the grammar, and what is checked while reading), ``review`` (the engine's verdicts
and the warnings that need all the orders), ``cli`` (``judge parse``). The variant rule modules'
order kinds (embark, disembark, fast ferry, protect, transform) are engine types
(:mod:`judge.engine.variant_kinds`); the parser reads them.
"""

from __future__ import annotations

from typing import Any

from judge.engine.position import Position
from judge.engine.variant_kinds import ARMY_FLEET  # importing it registers the variant order kinds
from judge.orders.canonical import read_line, table_for
from judge.orders.lexer import order_lines, tokenize
from judge.orders.names import names_for
from judge.orders.parsed import ParsedLine
from judge.orders.parser import Context, LineReader
from judge.orders.review import engine_verdicts, mismatch_warnings

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
    names = names_for(variant, m)
    mods = frozenset(rules.get("modules", ()))
    lines = list(order_lines(text))
    ctx = Context(pos, m, names, mods, power)
    if ARMY_FLEET in mods:  # a landing may be written before the move of the A/F it lands from
        first = Context(pos, m, names, mods, power)
        for line in lines:
            toks = tokenize(line)
            if any(t.word for t in toks):
                LineReader(first, line, toks).read()
        ctx.af_moves = dict(first.af_moves)
    table = table_for(names, m)
    out: list[ParsedLine] = []
    for line in lines:
        parsed = read_line(ctx, line, table) if fast else None
        if parsed is not None:
            out.append(parsed)
            continue
        toks = tokenize(line)
        if any(t.word for t in toks):
            out.extend(LineReader(ctx, line, toks).read())
    if check:
        engine_verdicts(out, pos, rules)
    if warn:
        mismatch_warnings(out, pos)
    return out
