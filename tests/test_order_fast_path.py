"""The canonical fast path of the order language reads exactly what the full grammar reads.

Random phases of every variant (the generators of ``test_engine_invariants``): the robots'
free-form lines, the canonical text of every order they give (with and without the power's
prefix, after an "England:" header line), and canonical text made wrong on purpose (a kind
that is not the unit's, a coast left out, another power's unit for a signed-on player), and
canonical text in other tools' spellings (lower and upper case, ``(sc)``, ``_sc``, a full stop). Each
text is read with and without the fast path; the :class:`ParsedLine` lists must be equal,
warnings and errors included. The fast path must also really be taken.
"""

from __future__ import annotations

import random
import re

import pytest

import judge.orders
from judge.adjudicate import run_phase
from judge.orders import parse_orders
from judge.engine import read_position
from judge.orders.canonical import read_line, read_run, table_for
from judge.orders.names import names_for
from judge.variant import load_variant

from tests.test_engine_invariants import CONFIGS, IDS, Board, order_lines, random_position


def _variants(rng: random.Random, b: Board, lines: list[str]) -> list[str]:
    """Canonical text of the orders ``lines`` give, with prefixes, headers and plausible slips."""
    parsed = parse_orders("\n".join(lines), b.pos, rules=b.rules, fast=False)
    out: list[str] = []
    last_power = None
    for p in parsed:
        if p.order is None:
            out.append(p.line)
            continue
        text = p.canonical
        r = rng.random()
        if r < 0.5:
            out.append(f"{p.power}: {text}")
        elif r < 0.6 and p.power != last_power:
            out += [f"{p.power}:", text]  # a header line, then bare orders
        elif r < 0.7:
            out.append(text.replace("A ", "F ", 1) if text.startswith("A ") else text.replace("F ", "A ", 1))
        elif r < 0.75:
            out.append(text.split("/")[0] if "/" in text else text + " H")
        elif r < 0.82:  # other tools' spellings: lower case, coasts in brackets, a full stop
            out.append(re.sub(r"/(\w+)", r"(\1)", text.lower()) if "/" in text else text.lower() + ".")
        elif r < 0.87:
            out.append(f"{p.power.upper()}: {text.upper().replace('/', '_')}")
        else:
            out.append(text)
        last_power = p.power
    rng.shuffle(out) if rng.random() < 0.3 else None
    return out


def _same(b: Board, text: str, power: str | None = None) -> None:
    fast = parse_orders(text, b.pos, power, rules=b.rules, check=True)
    slow = parse_orders(text, b.pos, power, rules=b.rules, check=True, fast=False)
    assert fast == slow, text
    assert [p.canonical for p in fast] == [p.canonical for p in slow]
    for p in fast:  # the text the fast path hands on is the order's canonical text
        assert p.order is None or p.written in (None, p.order.text(b.m)), (p.line, p.written)


@pytest.mark.parametrize("vname,options", CONFIGS, ids=IDS)
def test_fast_path_agrees_with_the_full_parser(vname, options, monkeypatch):
    taken = [0, 0]

    def counting(ctx, line, table=None, *where):
        got = read_line(ctx, line, table, *where)
        taken[got is not None] += 1
        return got

    def counting_runs(ctx, table, lines, i, lineno, out):
        got = read_run(ctx, table, lines, i, lineno, out)
        taken[True] += got[0] - i
        return got

    monkeypatch.setattr(judge.orders, "read_line", counting)
    monkeypatch.setattr(judge.orders, "read_run", counting_runs)
    rng = random.Random(f"fast-{vname}-{options}")
    v = load_variant(vname)
    for game in range(12):
        pos_json = v.start_position() if game % 3 == 0 else random_position(vname, options, rng)
        for _ in range(8):
            b = Board(vname, options, pos_json)
            lines = order_lines(b, rng)
            _same(b, "\n".join(lines))
            canon = _variants(rng, b, lines)
            _same(b, "\n".join(canon))
            powers = sorted({u.power for u in b.pos.units.values()}) or list(v.powers)
            _same(b, "\n".join(canon), rng.choice(powers))
            out = run_phase(vname, pos_json, "\n".join(canon), options)
            if out.get("victory", {}).get("final"):
                break
            pos_json = out["next"]
    assert taken[True] > 200, taken  # the fast path was really used
    assert taken[False] > 20, taken  # and refused what it must


@pytest.mark.parametrize("vname,options", CONFIGS, ids=IDS)
def test_a_line_met_after_its_other_spellings_reads_as_the_full_grammar_reads_it(vname, options):
    """On a map where a line whose lower-case text was respelt before reads as that respelling
    (``Table.case_free``: no canonical reading of its own), canonical text met after the same
    orders in upper and lower case, with and without a full stop, must still read as the full
    grammar reads it."""
    rng = random.Random(f"case-{vname}-{options}")
    v = load_variant(vname)
    for game in range(4):
        b = Board(vname, options, v.start_position() if game == 0 else random_position(vname, options, rng))
        table = table_for(names_for(v, b.m), b.m)
        assert table.case_free or vname != "standard"
        parsed = parse_orders("\n".join(order_lines(b, rng)), b.pos, rules=b.rules, fast=False)
        canon = [f"{p.power}: {p.canonical}" for p in parsed if p.order is not None]
        for spelt in ([line.upper() for line in canon], [line.lower() + "." for line in canon],
                      [line.lower() for line in canon], canon, [line.replace(": ", ":  ") for line in canon]):
            _same(b, "\n".join(spelt))


def test_fast_lines_are_the_common_canonical_forms():
    v = load_variant("standard")
    b = Board("standard", None, v.start_position())
    text = ("England: F Lon - Nth\nEngland: A Lvp - Edi via convoy\nEngland: F Edi C A Lvp - Nwy\n"
            "France: A Par S A Mar - Bur\nA Mar H\nRussia: F StP/sc - Bot\nF Sev S A Mos\n")
    ctx = judge.orders.Context(b.pos, b.m, judge.orders.names_for(v, b.m), frozenset(), None)
    assert all(read_line(ctx, line) is not None for line in text.splitlines())
    # other tools' spellings of canonical text go the fast way too
    other = ("f lon - nth", "A Par - Bur.", "ENGLAND: F LON - NTH", "russia: f stp_sc - bot", "F StP(sc) H",
             "F Stp/SC - Bot", "f stp sc - bot", "F StP (sc) H", "A Lvp - Edi VIA", "A Par. S A Mar. - Bur")
    assert all(read_line(ctx, line) is not None for line in other)
    # not canonical in any spelling, or not sure: the full parser decides
    for line in ("F Lon-Nth", "F London - North Sea", "F StP - Bot", "F Bre - Spa", "A Mar - Spa/nc", "Germany:",
                 "F stp__sc - bot", "A Par - Bur…", "Eng: F Lon H"):
        assert read_line(ctx, line) is None, line
    _same(b, text)
    _same(b, "\n".join(other))


def test_only_plain_lines_have_a_shape_and_indented_lines_are_still_read_the_fast_way(monkeypatch):
    """``read_run`` takes a line with a shape for a plain line (``lexer.is_plain``: its own
    check is left out), so no other line has one; ``parse_orders`` hands ``read_line`` an
    indented or list-marked line without its indent, which it then reads the fast way."""
    v = load_variant("standard")
    b = Board("standard", None, v.start_position())
    ctx = judge.orders.Context(b.pos, b.m, judge.orders.names_for(v, b.m), frozenset(), None)
    table = table_for(ctx.names, b.m)
    for line in ("  F Lon - Nth", "\tA Par H", "F Lon - Nth # sure", "England: F Lon - Nth:", "> F Lon - Nth", ""):
        assert table.first_shape(line) is None and read_line(ctx, line) is None, line
    assert table.first_shape("F Lon - Nth") is not None
    full = []
    monkeypatch.setattr(judge.orders, "_read", lambda ctx, line, toks: full.append(line) or [])
    got = parse_orders("  F Lon - Nth\n1. A Lvp - Yor\n- F Edi - Nwg\nA Par H # sure\n", b.pos, rules=b.rules)
    assert not full and [p.canonical for p in got] == ["F Lon - Nth", "A Lvp - Yor", "F Edi - Nwg", "A Par H"]


def test_a_follower_put_after_a_name_is_what_tokenize_gives():
    """The table checks each name before each word that may follow it with the name's tokens
    and the follower's put after them, not a second tokenizing: they must be the same tokens."""
    from dataclasses import astuple

    from judge.orders.canonical import _FOLLOWERS, _followed
    from judge.orders.lexer import tokenize

    m = load_variant("standard").map
    texts = [m.display(loc) for p, prov in m.provinces.items() for loc in (p, *(f"{p}/{c}" for c in prov.coasts))]
    texts += ["bur.", "stp(sc)", "stp_sc", "spa nc", "Spa (nc)", "spa.nc", "St. P", "a.", "x-", "a<b", "mid-atl",
              "N. Atl.", "lon=", "Liv'", "É", "tyr…"]
    for text in texts:
        toks = tokenize(text)
        for f in ("", *_FOLLOWERS):
            assert [astuple(t) for t in _followed(toks, text, f)] == [astuple(t) for t in tokenize(f"{text} {f}")], \
                (text, f)


def test_an_order_line_made_without_the_class_call_is_the_class_calls():
    from dataclasses import fields

    from judge.engine.orders import Move
    from judge.orders.parsed import ParsedLine, read_order

    m = load_variant("standard").map
    order = Move("England", "F", "lon", "nth", False)
    fast = read_order("F Lon - Nth", order, "England", m, "F Lon - Nth", "England: F Lon - Nth", 3)
    slow = ParsedLine("F Lon - Nth", order, "England", map=m, written="F Lon - Nth", source="England: F Lon - Nth",
                      lineno=3)
    assert [getattr(fast, f.name) for f in fields(ParsedLine)] == [getattr(slow, f.name) for f in fields(ParsedLine)]
    assert fast.warnings is not read_order("x", order, "England", m, None).warnings  # lists of its own


def test_lines_keep_their_source_and_number_either_way():
    """Comments, quotations, list marks, blank lines and a signature around canonical lines: each
    parsed line has the same line as written and number with and without the fast path (which
    reads the orders block itself rather than through ``source_lines``)."""
    from judge.orders.lexer import source_lines

    v = load_variant("standard")
    b = Board("standard", None, v.start_position())
    text = ("England:\n  F Lon - Nth  \n\n# plan B\n> F Lon - Eng\n1. A Lvp - Yor\n* F Edi - Nwg\n"
            "France: A Par - Bur # sure\nOn Monday, Bob wrote:\nA Mar H\t\nF Bre - Mao\n-- \nA Mun - Bur\n")
    fast = parse_orders(text, b.pos, rules=b.rules)
    slow = parse_orders(text, b.pos, rules=b.rules, fast=False)
    assert fast == slow
    assert [(p.source, p.lineno) for p in fast] == [(p.source, p.lineno) for p in slow]
    numbered = {n: s for n, (s, _) in enumerate(source_lines(text), 1)}
    assert all(numbered[p.lineno] == p.source for p in fast) and len(fast) >= 8
    assert not any("Mun" in p.line for p in fast)  # after the signature


def test_the_orders_the_short_way_makes_without_the_class_call_are_the_class_calls():
    from dataclasses import fields

    from judge.engine.orders import Hold, Move, Support
    from judge.orders.parser import Context

    v = load_variant("standard")
    pos = read_position(v.start_position(), v)
    m = pos.map
    ctx = Context(pos, m, names_for(v, m), frozenset(), None, rules=v.rules)
    table = table_for(ctx.names, m)
    for line, want in (("F Lon - Nth", Move("England", "F", "lon", "nth", False)),
                       ("england: a lvp h", Hold("England", "A", "lvp")),
                       ("A Par S A Mar - Bur", Support("France", "A", "par", "A", "mar", "bur")),
                       ("F Bre S A Par", Support("France", "F", "bre", "A", "par", None)),
                       ("A Mos S F StP", Support("Russia", "A", "mos", "F", "stp/sc", None))):  # the unit's coast
        out: list = []
        assert read_run(ctx, table, [line], 0, 6, out) == (1, 7)
        parsed = out[0]
        got = parsed.order
        assert type(got) is type(want) and got == want
        assert [getattr(got, f.name) for f in fields(want)] == [getattr(want, f.name) for f in fields(want)]
        # the line made without the class call is the one the general way makes through it
        general = read_line(ctx, line, table, line, 7)
        assert [getattr(parsed, f.name) for f in fields(general)] == [getattr(general, f.name) for f in fields(general)]
        for made in (got, parsed):
            for cls in type(made).__mro__:  # every slot set (an unset one would raise here)
                for slot in getattr(cls, "__slots__", ()):
                    getattr(made, slot)
    assert read_line(ctx, "A Mos S F StP", table).written is None  # (not the text written: no coast in it)
    for line in ("A Mos S F StP/nc", "F Lon - Nth via convoy", "A Bur - Par", "England:"):
        assert read_run(ctx, table, [line, "F Lon - Nth"], 0, 0, []) == (0, 0), line  # the general way's


@pytest.mark.parametrize("vname,options", CONFIGS, ids=IDS)
def test_a_run_of_lines_reads_each_as_the_general_way_reads_it(vname, options):
    """``read_run`` (the short way for runs of moves, holds and supports) gives, for each line it
    reads, every field of what ``read_line``'s general way gives, for any player signed on or
    none and after a heading; it stops at the first line it does not read."""
    from dataclasses import fields

    from judge.orders.parser import Context

    rng = random.Random(f"run-{vname}-{options}")
    v = load_variant(vname)
    read = [0, 0]
    for game in range(6):
        b = Board(vname, options, v.start_position() if game == 0 else random_position(vname, options, rng))
        lines = _variants(rng, b, order_lines(b, rng))
        table = table_for(names_for(v, b.m), b.m)
        powers = sorted({u.power for u in b.pos.units.values()})
        for power in (None, *powers[:2]):
            for sticky in (None, *powers[:1]):
                ctx = Context(b.pos, b.m, names_for(v, b.m), frozenset(b.rules.get("modules", ())), power,
                              sticky=sticky, rules=b.rules)
                for at, line in enumerate(lines):
                    out: list = []
                    stop, lineno = read_run(ctx, table, lines, at, at, out)
                    read[stop > at] += 1
                    for k, p in enumerate(out):
                        general = read_line(ctx, lines[at + k].rstrip(), table, lines[at + k].rstrip(), at + k + 1)
                        assert general is not None, lines[at + k]
                        assert [getattr(p, f.name) for f in fields(p)] == [getattr(general, f.name)
                                                                           for f in fields(general)], lines[at + k]
                    assert lineno == stop and (stop == len(lines) or len(out) == stop - at)
    assert read[True] > 20, read  # (random phases: retreats and adjustments among them)


@pytest.mark.parametrize("vname,options", CONFIGS, ids=IDS)
def test_a_line_all_in_lower_case_is_never_canonical_text(vname, options):
    """``Table.first_shape`` sends a line all in lower case straight to its respelling, without
    reading it as canonical text first: on every map, the canonical reading of the canonical
    text of random phases' orders, written in lower case (the power's name too), finds nothing."""
    rng = random.Random(f"lower-{vname}-{options}")
    v = load_variant(vname)
    read = 0  # texts the table reads as canonical text as written (so their lower case is a real check)
    for game in range(4):
        b = Board(vname, options, v.start_position() if game == 0 else random_position(vname, options, rng))
        table = table_for(names_for(v, b.m), b.m)
        for p in parse_orders("\n".join(order_lines(b, rng)), b.pos, rules=b.rules, fast=False):
            if p.order is None:
                continue
            for text in (p.canonical, f"{p.power}: {p.canonical}"):
                read += table._first_canonical(text, text.split()) is not None
                low = text.lower()
                assert low == text or table._first_canonical(low, low.split()) is None, low
    assert read > 20


def test_cases_on_maps_that_alternate_read_each_against_its_own_map():
    """``parse_orders`` keeps the last map's names and table at hand: cases on two maps in turn
    still read each against its own (a name only one of them has, a unit only one board holds)."""
    boards = [Board(name, None, load_variant(name).start_position()) for name in ("standard", "1885")]
    texts = {}
    for b in boards:
        lines = [f"{u.power}: {u.text(b.m)} H" for u in b.pos.units.values()]
        texts[b.m] = "\n".join(lines)
    for b in (*boards, *boards, boards[0]):
        fast = parse_orders(texts[b.m], b.pos, rules=b.rules)
        assert fast == parse_orders(texts[b.m], b.pos, rules=b.rules, fast=False)
        assert all(p.order is not None and p.map is b.m for p in fast), [p.line for p in fast]
        assert judge.orders._last[0] is b.m and judge.orders._last[2] is table_for(names_for(b.pos.variant, b.m), b.m)


@pytest.mark.parametrize("vname,options", CONFIGS, ids=IDS)
def test_the_orders_lines_share_are_never_changed_by_what_reads_them(vname, options):
    """``read_run`` hands every line that names its power and reads as the same order one order
    object, made once with the line's shape (``canonical._made``): nothing that reads orders
    after it (the engine, the rule modules, the output) may change it. Random games of every
    variant are read and adjudicated with their powers named on each line; after them each
    shared order still equals one made afresh from its shape."""
    from judge.orders import canonical

    rng = random.Random(f"shared-{vname}-{options}")
    v = load_variant(vname)
    for game in range(6):
        pos_json = v.start_position() if game % 2 == 0 else random_position(vname, options, rng)
        for _ in range(6):
            b = Board(vname, options, pos_json)
            parsed = parse_orders("\n".join(order_lines(b, rng)), b.pos, rules=b.rules, fast=False)
            named = [f"{p.power}: {p.canonical}" for p in parsed if p.order is not None]
            for _ in range(2):  # the second time the lines' shared orders are taken
                out = run_phase(vname, pos_json, "\n".join(named), options)
            if out.get("victory", {}).get("final"):
                break
            pos_json = out["next"]
    where = {"-": 6, "H": 5, "S": 9}  # the shared order's place in a shape of each kind
    shared = 0
    for table in list(canonical._TABLES.values()):
        for shape in [*table.shapes.values(), *table.canon.values()]:
            if shape is None or shape[1] not in where or shape[where[shape[1]]] is None:
                continue
            shared += 1
            assert shape[where[shape[1]]] == canonical._made(shape), shape
    assert shared > 20, shared
