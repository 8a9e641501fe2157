"""Every spelling of an order goes the fast way, and reads exactly as the full grammar reads it.

Real phases (the robots' games of ``bench/corpus.py``, and the human games MILA's ``diplomacy``
package ships when it is installed), written again at random the ways other tools and players
write them: each word in random case, dots after words, coasts as ``stp/sc``, ``StP/SC``,
``StP(sc)``, ``stp_sc``, ``spa nc``, ``Spa (nc)``, ``Spa.nc``, power names in any case, MILA's
"via" for "via convoy", and the position's units, centres and powers respelt the same way.
``judge adjudicate``'s result with the fast path must be the full grammar's, and the board after
it the one the canonical text gives.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings, strategies as st

import judge.orders
from judge.adjudicate import run_batch, run_phase
from judge.orders import parse_orders
from judge.orders.canonical import read_line, table_for
from judge.orders.names import names_for
from judge.engine import read_position
from judge.variant import load_variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus import games, human_games, respell  # noqa: E402

V = load_variant("standard")
ROBOTS = list(games(n_games=3, years=8, seed=11))
HUMANS = list(human_games())  # empty without MILA's package
PHASES = ROBOTS + HUMANS
COAST_FORMS = ("{p}/{c}", "{p}/{C}", "{p}({c})", "{p} ({c})", "{p}_{c}", "{p} {c}", "{p}.{c}")


def _case(draw, word: str) -> str:
    how = draw(st.sampled_from(("lower", "upper", "as is", "random")))
    if how == "random":
        flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
        return "".join(ch.upper() if f else ch.lower() for ch, f in zip(word, flips))
    return word.lower() if how == "lower" else word.upper() if how == "upper" else word


def _name(draw, text: str) -> str:
    prov, _, coast = text.partition("/")
    p = _case(draw, prov)
    if not coast:
        return p
    return draw(st.sampled_from(COAST_FORMS)).format(p=p, c=_case(draw, coast), C=coast.upper())


def _line(draw, text: str) -> str:
    head, colon, order = text.rpartition(": ")
    words = order.split()
    out = []
    for i, w in enumerate(words):
        w = _name(draw, w) if "/" in w or (w[0].isupper() and len(w) == 3 and w.lower() != "via") else _case(draw, w)
        if draw(st.integers(0, 9)) == 0:
            w += "."
        out.append(w)
    line = " ".join(out)
    if line.lower().endswith(" convoy") and draw(st.booleans()):
        line = line[:-len(" convoy")]
    if draw(st.integers(0, 5)) == 0:
        line += "."
    return f"{_case(draw, head)}{colon}{line}" if colon else line


def _respelt(draw, case: dict) -> dict:
    pos = case["position"]
    units = {_case(draw, p): [f"{_case(draw, u.split()[0])} {_name(draw, u.split()[1])}" for u in us]
             for p, us in pos["units"].items()}
    centres = {_case(draw, p): [_case(draw, c) for c in cs] for p, cs in pos.get("centers", {}).items()}
    lines = [_line(draw, t) for t in case["orders"].splitlines()]
    return {**case, "position": {**pos, "units": units, "centers": centres}, "orders": "\n".join(lines) + "\n"}


def _full_grammar():
    return mock.patch.multiple(judge.orders, read_line=lambda *a, **k: None,
                               read_run=lambda ctx, table, lines, i, lineno, out: (i, lineno))


def _board(out: dict) -> tuple:
    """The result with the order texts of unread lines (which echo the line as written) left out."""
    orders = [{k: v for k, v in o.items() if not (o["result"] == "invalid" and k == "order")} for o in out["orders"]]
    return orders, out["next"], out.get("destroyed"), out.get("events")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_spelling_reads_as_the_full_grammar_reads_it(data):
    case = PHASES[data.draw(st.integers(0, len(PHASES) - 1), label="phase")]
    respelt = _respelt(data.draw, case)
    fast = run_phase(V, respelt["position"], respelt["orders"])
    with _full_grammar():
        slow = run_phase(V, respelt["position"], respelt["orders"])
    assert fast == slow, respelt["orders"]
    assert _board(fast) == _board(run_phase(V, case["position"], case["orders"]))


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_parsed_lines_agree_line_by_line(data):
    """The same, on what the order reader gives (lines, errors, warnings), for a signed-on
    player too: the order text a mail would carry."""
    case = PHASES[data.draw(st.integers(0, len(PHASES) - 1), label="phase")]
    pos = read_position(case["position"], V, V.rules)
    text = "\n".join(_line(data.draw, t) for t in case["orders"].splitlines())
    power = data.draw(st.sampled_from([None, *V.powers]))
    fast = parse_orders(text, pos, power, check=True)
    slow = parse_orders(text, pos, power, check=True, fast=False)
    assert fast == slow, text
    for p in fast:
        assert p.order is None or p.written in (None, p.order.text(pos.map)), (p.line, p.written)


def test_other_spellings_really_go_the_fast_way():
    """On the bench's respelt corpus nearly every line is read by the fast path (what it
    leaves are the lines the full grammar must judge: orders for units not there, and the like)."""
    rng = random.Random(5)
    taken = [0, 0]
    for case in PHASES:
        for source in (case, respell(case, rng)):
            pos = read_position(source["position"], V, V.rules)
            ctx = judge.orders.Context(pos, pos.map, names_for(V, pos.map), frozenset(), None)
            table = table_for(ctx.names, pos.map)
            for line in source["orders"].splitlines():
                taken[read_line(ctx, line, table) is not None] += 1
    assert taken[True] > 0.97 * sum(taken), taken


def test_the_batch_prints_the_same_with_either_reader():
    rng = random.Random(9)
    lines = [json.dumps(respell(c, rng)) for c in PHASES[:120]]
    fast = [json.dumps(o) for o in run_batch(lines)]
    with _full_grammar():
        slow = [json.dumps(o) for o in run_batch(lines)]
    assert fast == slow and not any('"error"' in o for o in fast)


def test_a_table_that_met_thousands_of_odd_words_still_reads_new_spellings_fast():
    """Found by the full suite: once a map's table had met 5,000 odd words (mail after mail of
    free text), it refused every new spelling for good, and the fast path quietly became the slow
    one for the rest of the process. A full table now starts afresh."""
    pos = read_position(PHASES[0]["position"], V, V.rules)
    ctx = judge.orders.Context(pos, pos.map, names_for(V, pos.map), frozenset(), None)
    table = table_for(ctx.names, pos.map)
    for i in range(6000):  # lines of words no order has
        read_line(ctx, f"A zq{i}x - Bur", table)
    for case in PHASES[:40]:  # other tools' spellings of real phases' orders, as the bench has them
        source = respell(case, random.Random(7))
        board = read_position(source["position"], V, V.rules)
        here = judge.orders.Context(board, board.map, names_for(V, board.map), frozenset(), None)
        lines = source["orders"].splitlines()
        taken = sum(read_line(here, line, table) is not None for line in lines)
        assert taken >= 0.9 * len(lines), (taken, lines)


def _same_as_the_full_check(spellings) -> None:
    """On every map, ``table._spelling(w)`` is what the full parser's check of ``w`` gives, for
    each ``w`` in ``spellings(text, loc, key)`` of each location (printed key ``text``, the
    province's key in lower case ``key``)."""
    from judge.variant import available_variants

    for name in available_variants():
        v = load_variant(name)
        m = v.map
        names = names_for(v, m)
        table = table_for(names, m)
        for text, loc in table.locs.items():
            p = loc.partition("/")[0]
            for w in spellings(text, loc, m.provinces[p].key.lower()):
                full = m.display(loc) if table._reads_as(names, w, p, loc, whole=True) else None
                assert table._spelling(w) == full, (name, text, w, full)


def test_a_printed_key_in_another_case_is_read_as_the_full_parser_reads_it_on_every_map():
    """A location's printed key met in lower case ("lon", "stp/sc") is not checked against the
    full parser again: the check that made the table read the same tokens. It must give what the
    full check gives, on every map."""
    _same_as_the_full_check(lambda text, loc, key: [text.lower()])


def test_a_spelling_taken_on_another_ones_check_is_read_as_the_full_parser_reads_it_on_every_map():
    """"lon.", "stp_sc", "stp(sc)" and their like are taken on the check of a spelling with the
    same tokens ("lon", "stp/sc", "stp sc"), not checked through the full parser again: on every
    map, each must give what its own full check gives."""
    def spellings(text: str, loc: str, key: str) -> list[str]:
        c = loc.partition("/")[2]
        forms = [f"{text.lower()}.", f"{text.lower()}.."]
        if c:
            forms += [f"{key}_{c}", f"{key}({c})", f"{key}_{c}.", f"{key}({c}).", f"{key} {c}.", f"{key}/{c}."]
        return forms

    _same_as_the_full_check(spellings)
