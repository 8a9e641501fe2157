"""The adjudicator's JSON contract, shared by ``judge adjudicate`` and the tests.

``run_phase(variant, position, orders, options)`` takes a position dict and order text and
returns ``{"phase", "orders": [...], "next": position}`` (documented in README.md).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Iterator

from judge.engine import adjudicate, modules, read_position
from judge.orders import parse_orders
from judge.orders.lexer import order_lines
from judge.engine.position import Position, PositionError
from judge.rules import RuleError, merge_rules
from judge.variant import Variant, VariantError, load_variant


class InputError(ValueError):
    """The input could not be read at all (exit status 2)."""


def run_phase(variant: str | Variant, position: dict[str, Any], orders: str, options: dict[str, Any] | None = None
              ) -> dict[str, Any]:
    try:
        v = variant if isinstance(variant, Variant) else load_variant(variant)
    except VariantError as exc:
        raise InputError(str(exc)) from None
    if position.get("variant") and str(position["variant"]).lower() != v.name.lower():
        raise InputError(f"the position is for variant {position['variant']!r}, not {v.name!r}")
    try:
        rules, v = _game_rules(v, options)
        pos = read_position(position, v, rules)
    except (PositionError, RuleError, VariantError) as exc:
        raise InputError(f"position: {exc}" if isinstance(exc, PositionError) else str(exc)) from None
    if "army_fleet" not in rules.get("modules", ()) and (
            "A/F" in {u.kind for u in pos.units.values()} or any(d.unit.kind == "A/F" for d in pos.dislodged.values())):
        raise InputError("position: an A/F unit needs the Army/Fleet rules (variant af_standard, or "
                         "--option modules=army_fleet)")
    def parse(text: str, at: Position) -> list:
        return parse_orders(text, at, rules=rules, warn=False)  # warnings are not printed

    parsed = modules.read_orders(orders, pos, rules, parse, order_lines)
    good = [p.order for p in parsed if p.order is not None]
    result = adjudicate(pos, good, rules)
    m = pos.map
    out_orders: list[dict[str, Any]] = []
    engine_results = iter(result.results)
    take, put = engine_results.__next__, out_orders.append
    for p in parsed:
        order = p.order
        if order is None:
            if not getattr(p, "note", ""):  # (a comment or a remark: no order)
                put({"power": p.power or "", "order": p.line, "result": "invalid", "reason": p.error})
            continue
        r = take()
        if r._text is None and r.order is order and p.written is not None:
            r._text = p.written  # the order as read, unchanged: its canonical text is the line's
        put(r.as_json())
    out_orders.extend(r.as_json() for r in engine_results)
    out: dict[str, Any] = {"phase": str(result.phase), "orders": out_orders, "next": result.next.to_json()}
    if result.victory:
        out["victory"] = result.victory
    if result.events:
        out["events"] = result.events
    if result.destroyed:  # dislodged with nowhere to go: gone with the moves, in no retreat phase
        gone: dict[str, list[str]] = {}
        for d in result.destroyed:
            gone.setdefault(d.unit.power, []).append(d.unit.text(m))
        out["destroyed"] = gone
    del m
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


def result_encoder() -> Callable[[dict[str, Any]], str]:
    """``--batch``'s JSON writer: the text of ``json.dumps(res, ensure_ascii=False)``, by one encoder
    for the run, without the check for circular data (results are fresh trees built from parsed
    JSON, never circular)."""
    return json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def write_batch(lines: Iterable[str], write: Callable[[str], Any]) -> None:
    """``--batch``: each case's result as one line of JSON, through ``write``."""
    encode = result_encoder()
    for res in run_batch(lines):
        write(encode(res) + "\n")


def run_batch(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """``--batch``: each input line a case ``{"id", "variant"?, "position", "orders", "options"?}``."""
    variants: dict[str, Variant] = {}  # loaded once a run
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        case_id: Any = None
        try:
            case = json.loads(line)
            case_id = case.get("id", n)
            position = case["position"]
            variant = case.get("variant") or position.get("variant") or "standard"
            if isinstance(variant, str):
                v = variants.get(variant)
                if v is None:
                    v = variants[variant] = load_variant(variant)
                variant = v
            out = run_phase(variant, position, case.get("orders", ""), case.get("options"))
            out["id"] = case_id
            yield out
        except (InputError, KeyError, TypeError, ValueError, AttributeError) as exc:
            msg = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            yield {"id": case_id if case_id is not None else n, "error": msg}
