"""The adjudicator's JSON contract, shared by ``judge adjudicate`` and the tests.

``run_phase(variant, position, orders, options)`` takes a position dict and order text and
returns ``{"phase", "orders": [...], "next": position}`` (documented in README.md).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any, Callable, Iterable, Iterator, TypeVar

from judge.engine import PhaseResult, adjudicate, modules, read_position
from judge.orders import parse_orders
from judge.orders.lexer import order_lines
from judge.engine.position import Position, PositionError, af_read
from judge.rules import RuleError, merge_rules
from judge.variant import Map, Variant, VariantError, load_variant

T = TypeVar("T")


class InputError(ValueError):
    """The input could not be read at all (exit status 2)."""


def run_phase(variant: str | Variant, position: dict[str, Any], orders: str, options: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    parsed, result, m = _adjudicated(variant, position, orders, options)
    out: dict[str, Any] = {"phase": str(result.phase), "orders": json.loads(f"[{_entries_text(parsed, result)}]"),
                           "next": result.next.to_json()}
    out.update(_outcome(result, m))
    return out


def _phase_text(variant: str | Variant, position: dict[str, Any], orders: str, options: dict[str, Any] | None,
                case_id: Any) -> str:
    """``--batch``'s line for a case: the text of ``json.dumps({**run_phase(...), "id": case_id},
    ensure_ascii=False)``, written piece by piece (the orders and the next position are most of
    the output; the encoder's pass over dicts built only for it was a sixth of a phase)."""
    parsed, result, m = _adjudicated(variant, position, orders, options)
    q = _quote
    entries = _entries_text(parsed, result)
    rest = ""
    if result.victory or result.events or result.destroyed:  # (most phases have none of them)
        rest = "".join([f", {q(k)}: {_encode(v)}" for k, v in _outcome(result, m).items()])
    return (f'{{"phase": {q(str(result.phase))}, "orders": [{entries}], "next": {result.next.json_text()}{rest}, '
            f'"id": {_id_text(case_id)}}}')


_DEFAULT_TRUE = ', "default": true}'  # the end of an order's entry given by the judge
# An entry's pieces repeat from phase to phase (seven powers, some hundreds of order texts, a few
# outcomes): each is quoted once and looked up after, which is a third of writing "orders" off.
# Kept per process and emptied when one holds _PIECES_MAX (order texts can be any text).
# power -> order text -> '{"power": "England", "order": "A Bud - Ser"' (the text given by a power
# is one look-up more than the text alone, but one piece less to join for each entry)
_starts: dict[str, dict[str, str]] = {}
# default -> result -> reason -> ', "result": ..., "reason": ...}' (three look-ups with keys at hand
# cost less than a key tuple made, hashed and compared for each entry)
_tails: dict[bool, dict[str, dict[str, str]]] = {}
_PIECES_MAX = 8192


def _entries_text(parsed: list, result: PhaseResult) -> str:
    """The text of "orders" (the one writer of them: run_phase reads its dicts back from it): for
    each line read, in the order written, then for each of the judge's own orders, the text of
    ``json.dumps({"power", "order", "result", "reason"[, "default": true]}, ensure_ascii=False)``.
    A line that could not be read is "invalid"; an order read as written keeps the line's text.
    Written in one walk of the results, straight from them (no list of them, no tuple an entry)."""
    starts, tails = _starts, _tails
    out: list[str] = []
    put = out.append
    engine_results = iter(result.results)
    take = engine_results.__next__
    for p in parsed:
        order = p.order
        if order is None:
            if not getattr(p, "note", ""):  # (a comment or a remark: no order)
                put(_entry_text(p.power or "", p.line, "invalid", p.error, False))
            continue
        r = take()
        text = r._text
        if text is None:  # the order as read, unchanged: its canonical text is the line's
            text = r._text = p.written if r.order is order and p.written is not None else r.text
        try:
            put(f"{starts[r.power][text]}{tails[r.default][r.result][r.reason]}")
        except KeyError:  # a piece not written before
            put(_entry_text(r.power, text, r.result, r.reason, r.default))
    for r in engine_results:
        text = r._text
        if text is None:
            text = r._text = r.text
        try:
            put(f"{starts[r.power][text]}{tails[r.default][r.result][r.reason]}")
        except KeyError:
            put(_entry_text(r.power, text, r.result, r.reason, r.default))
    return ", ".join(out)


def _entry_text(power: str, text: str, res: str, reason: str, default: bool) -> str:
    q = _quote
    by_result = _tails.get(default) or _tails.setdefault(default, {})  # (results are the engine's few)
    by_reason = by_result.get(res) or by_result.setdefault(res, {})
    if len(_starts) >= _PIECES_MAX:  # (a line that could not be read may name any power)
        _starts.clear()
    by_text = _starts.get(power) or _starts.setdefault(power, {})
    for memo in (by_text, by_reason):
        if len(memo) >= _PIECES_MAX:
            memo.clear()
    start = by_text.get(text) or by_text.setdefault(text, f'{{"power": {q(power)}, "order": {q(text)}')
    tail = by_reason.get(reason) or by_reason.setdefault(
        reason, f', "result": {q(res)}, "reason": {q(reason)}{_DEFAULT_TRUE if default else "}"}')
    return f"{start}{tail}"


#: the JSON text of a string and of any value, as ``json.dumps(value, ensure_ascii=False)`` writes them
_quote = encode_basestring
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def _id_text(case_id: Any) -> str:
    """A case's id as JSON: most are numbers or strings, written without setting up the encoder."""
    if type(case_id) is int:
        return int.__repr__(case_id)  # (as the encoder writes an int)
    return _quote(case_id) if type(case_id) is str else _encode(case_id)


def _adjudicated(variant: str | Variant, position: dict[str, Any], orders: str, options: dict[str, Any] | None
                 ) -> tuple[list, PhaseResult, Map]:
    """Read the case and adjudicate it: the parsed order lines, the result and the board's map."""
    try:
        v = variant if isinstance(variant, Variant) else load_variant(variant)
    except VariantError as exc:
        raise InputError(str(exc)) from None
    named = position.get("variant")
    if named and named != v.name and str(named).lower() != v.name.lower():
        raise InputError(f"the position is for variant {position['variant']!r}, not {v.name!r}")
    try:
        rules, v = _game_rules(v, options)
        pos = read_position(position, v, rules)
    except (PositionError, RuleError, VariantError) as exc:
        raise InputError(f"position: {exc}" if isinstance(exc, PositionError) else str(exc)) from None
    if "army_fleet" not in rules.get("modules", ()) and af_read(pos.map) and (
            "A/F" in {u.kind for u in pos.units.values()}
            or (pos.dislodged and any(d.unit.kind == "A/F" for d in pos.dislodged.values()))):
        raise InputError("position: an A/F unit needs the Army/Fleet rules (variant af_standard, or "
                         "--option modules=army_fleet)")
    def parse(text: str, at: Position) -> list:
        return parse_orders(text, at, rules=rules, warn=False)  # warnings are not printed

    parsed = modules.read_orders(orders, pos, rules, parse, order_lines)
    return parsed, adjudicate(pos, [p.order for p in parsed if p.order is not None], rules), pos.map


def _outcome(result: PhaseResult, m: Map) -> dict[str, Any]:
    """What the output holds after "next", when there is any: victory, events, destroyed units."""
    out: dict[str, Any] = {}
    if result.victory:
        out["victory"] = result.victory
    if result.events:
        out["events"] = result.events
    if result.destroyed:  # dislodged with nowhere to go: gone with the moves, in no retreat phase
        gone: dict[str, list[str]] = {}
        for d in result.destroyed:
            gone.setdefault(d.unit.power, []).append(d.unit.text(m))
        out["destroyed"] = gone
    return out


def _game_rules(v: Variant, options: dict[str, Any] | None) -> tuple[dict[str, Any], Variant]:
    """The rules a game plays (the variant's, then ``options``) and the variant with the calendar
    they name. Without options they are the same for every case of a variant: worked out once
    and remembered on it while its rules stay as they were (a fresh copy of the dict each time)."""
    if options:
        rules = merge_rules(v.rules, options)
        return rules, v.with_rules(rules)
    memo = v.__dict__.get("_plain_rules")
    if memo is None or memo[0] != v.rules:
        rules = merge_rules(v.rules, None)
        memo = v.__dict__["_plain_rules"] = (dict(v.rules), rules, v.with_rules(rules))
    return dict(memo[1]), memo[2]


def write_batch(lines: Iterable[str], write: Callable[[str], Any]) -> None:
    """``--batch``: each case's result as one line of JSON, through ``write``: the text of
    :func:`run_batch`'s dicts, written without building them."""
    for text in _batch(lines, _phase_text, _error_text):
        write(text + "\n")


def run_batch(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """``--batch``: each input line a case ``{"id", "variant"?, "position", "orders", "options"?}``."""
    return _batch(lines, _phase_dict, _error_dict)


def _phase_dict(variant: Variant, position: dict[str, Any], orders: str, options: dict[str, Any] | None,
                case_id: Any) -> dict[str, Any]:
    out = run_phase(variant, position, orders, options)
    out["id"] = case_id
    return out


def _error_dict(case_id: Any, message: str) -> dict[str, Any]:
    return {"id": case_id, "error": message}


def _error_text(case_id: Any, message: str) -> str:
    return _encode(_error_dict(case_id, message))


_scan = json.decoder.JSONDecoder().scan_once  # the C scanner json.loads ends in
_JSON_SPACE = " \t\n\r"  # the whitespace JSON allows around a value


def _loads(line: str) -> Any:
    """``json.loads(line)``: a line that is one JSON value, with JSON's whitespace at most after
    it, read by the scanner itself (without the two regular-expression matches around it: a
    tenth of reading a case); any other line by json.loads, for its value or its error."""
    if type(line) is str:
        try:
            value, end = _scan(line, 0)
        except StopIteration:  # (no value at the start: json.loads says where)
            pass
        else:
            if end == len(line) or not line[end:].strip(_JSON_SPACE):
                return value
    return json.loads(line)


def _batch(lines: Iterable[str], phase: Callable[..., T], error: Callable[[Any, str], T]) -> Iterator[T]:
    """Each case's ``phase(variant, position, orders, options, id)``, or ``error(id, message)``."""
    variants: dict[str, Variant] = {}  # loaded once a run
    for n, line in enumerate(lines, 1):
        if not line or line.isspace():  # (the test of ``not line.strip()`` without copying the line)
            continue
        case_id: Any = None
        try:
            case = _loads(line)
            case_id = case.get("id", n)
            position = case["position"]
            variant = case.get("variant") or position.get("variant") or "standard"
            if isinstance(variant, str):
                v = variants.get(variant)
                if v is None:
                    v = variants[variant] = load_variant(variant)
                variant = v
            yield phase(variant, position, case.get("orders", ""), case.get("options"), case_id)
        except (InputError, KeyError, TypeError, ValueError, AttributeError) as exc:
            msg = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            yield error(case_id if case_id is not None else n, msg)
