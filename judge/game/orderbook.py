"""Orders for one phase: read a power's order text, check it, store it, merge it.

Each accepted submission is one ``orders`` row (the raw text and the accepted orders as JSON).
A power's current orders are all its rows replayed in order, the last valid order for a unit
winning (njudge's rule); an invalid order never replaces a valid one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import lru_cache
from typing import Any

from judge.engine import adjudicate, resolver_class
from judge.engine.adjustment import adjustments_due, build_sites
from judge.engine.modules import read_orders
from judge.engine.modules.davis1885 import hidden_units
from judge.engine.movement import MovementResolver
from judge.engine.orders import ORDER_KINDS, Build, Order, Remove, Waive
from judge.engine.position import Position
from judge.orders import parse_orders
from judge.orders.lexer import order_lines
from judge.game.store import Store, dumps, iso, loads
from judge.variant import province_of

log = logging.getLogger(__name__)


def parse_order_text(text: str, pos: Position, power: str, rules: dict[str, Any] | None = None) -> list[Any]:
    """Read a power's order text with the order language (checked against the board).

    A rule module may read the text itself where the board alone cannot (1885 II: the first
    move's orders for hidden start units), through :func:`judge.engine.modules.read_orders`.
    """
    rules = rules if rules is not None else pos.variant.rules

    def parse(t: str, p: Position) -> list[Any]:
        return parse_orders(t, p, power=power, check=True, rules=rules)

    return read_orders(text, pos, rules, parse, order_lines)


# -- stored form -----------------------------------------------------------------------------------
def to_dict(order: Order, m: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"type": order.keyword}
    for name in _field_order(type(order)):
        d[name] = getattr(order, name)
    d["text"] = order.text(m)
    return d


@lru_cache(maxsize=None)
def _field_order(cls: type) -> tuple[str, ...]:
    """An order class's field names in order (``dataclasses.fields`` walks them afresh each call)."""
    return tuple(f.name for f in fields(cls))  # type: ignore[arg-type]


@lru_cache(maxsize=None)
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(_field_order(cls))


def from_dict(d: dict[str, Any]) -> Order:
    cls = ORDER_KINDS[d["type"]]
    names = _field_names(cls)
    return cls(**{k: v for k, v in d.items() if k in names})


def order_key(order: Order, taken: dict[str, Order]) -> str:
    """The slot an order fills: its unit's province; each waive its own slot."""
    if isinstance(order, Waive) or not order.is_unit_order:
        n = 1
        while f"{order.keyword}#{n}" in taken:
            n += 1
        return f"{order.keyword}#{n}"
    return province_of(order.loc)


def current_orders(store: Store, phase_id: int, power: str) -> dict[str, Order]:
    return _replay(_active_rows(store, phase_id, power))


def _active_rows(store: Store, phase_id: int, power: str) -> list[tuple[int, list[Order]]]:
    """The power's active submissions, oldest first: (row id, its orders)."""
    return [(row["id"], [from_dict(d) for d in loads(row["orders"], [])])
            for row in store.all("SELECT id, orders FROM orders WHERE phase_id = ? AND power = ? "
                                 "AND state = 'active' ORDER BY id", (phase_id, power))]


def _replay(rows: list[tuple[int, list[Order]]]) -> dict[str, Order]:
    """The current orders: the submissions replayed in order, the last order for a slot winning."""
    out: dict[str, Order] = {}
    for _, orders in rows:
        for o in orders:
            out[order_key(o, out)] = o
    return out


def orders_by_power(store: Store, phase_id: int) -> dict[str, dict[str, Order]]:
    """:func:`current_orders` of every power with orders, in one query (a power without any
    is absent)."""
    out: dict[str, dict[str, Order]] = {}
    for row in store.all("SELECT power, orders FROM orders WHERE phase_id = ? AND state = 'active' ORDER BY id",
                         (phase_id,)):
        mine = out.setdefault(row["power"], {})
        for d in loads(row["orders"], []):
            o = from_dict(d)
            mine[order_key(o, mine)] = o
    return out


def all_orders(store: Store, phase_id: int, powers: list[str]) -> list[Order]:
    out: list[Order] = []
    for p in powers:
        out.extend(current_orders(store, phase_id, p).values())
    return out


# -- what a power must order --------------------------------------------------------------------------
def needed(pos: Position, power: str, rules: dict[str, Any] | None = None) -> int:
    """How many orders ``power`` must give this phase (0: nothing to order)."""
    return needed_by_power(pos, [power], rules)[power]


def needed_by_power(pos: Position, powers: list[str], rules: dict[str, Any] | None = None) -> dict[str, int]:
    """:func:`needed` for each of ``powers``: in a movement phase every unit, hidden ones too, in
    one walk of the board; in a retreat phase each dislodged unit with a retreat; in an adjustment
    phase each build it may make (no more than it has sites for) or removal it owes."""
    kind = pos.phase.kind
    if kind == "movement":  # (counted with list.count: a few powers asked, a few dozen units)
        owners = [u.power for u in pos.units.values()]
        owners += hidden_units(pos, rules).values()
        return {p: owners.count(p) for p in powers}
    if kind == "retreat":
        return {p: len(_to_retreat(pos, p)) for p in powers}
    due = adjustments_due(pos)
    return {p: min(d, len(build_sites(pos, p, rules))) if (d := due.get(p, 0)) > 0 else -d for p in powers}


def _to_retreat(pos: Position, power: str) -> dict[str, Any]:
    """The dislodged units ``power`` must give an order: those with a retreat. A unit with nowhere
    to go has no choice (the engine destroys it with the moves; a retreat phase stored before it
    did so, or given to the judge, may still hold one): it is disbanded without an order."""
    return {p: d for p, d in pos.dislodged.items() if d.unit.power == power and d.retreats}


def missing(pos: Position, power: str, orders: dict[str, Order], rules: dict[str, Any] | None = None) -> int:
    """How many of the orders ``power`` needs are still missing."""
    kind = pos.phase.kind
    if kind == "movement":
        hidden = sum(1 for p, pw in hidden_units(pos, rules).items() if pw == power and p not in orders)
        return sum(1 for p, u in pos.units.items() if u.power == power and p not in orders) + hidden
    if kind == "retreat":
        return sum(1 for p in _to_retreat(pos, power) if p not in orders)
    due = adjustments_due(pos).get(power, 0)
    if due > 0:
        given = sum(1 for o in orders.values() if isinstance(o, (Build, Waive)))
        return max(0, needed(pos, power, rules) - given)
    if due < 0:
        given = sum(_removal_size(pos, o) for o in orders.values() if isinstance(o, Remove))
        return max(0, -due - given)
    return 0


def _removal_size(pos: Position, order: Remove) -> int:
    """Units a removal takes: an army/fleet counts as two, unless only its army is removed (``Remove A Eng``)."""
    u = pos.units.get(province_of(order.loc))
    return 2 if u is not None and u.kind == "A/F" and order.kind != "A" else 1


# -- submitting ---------------------------------------------------------------------------------------
@dataclass
class LineReport:
    line: str
    text: str = ""  # the order as understood (canonical)
    error: str = ""
    warnings: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    source: str = ""  # the whole line the order was on (several orders may share one)
    lineno: int = 0  # which line of the orders (0: unknown)
    note: str = ""  # a line that is no order and no mistake


@dataclass
class Submission:
    lines: list[LineReport]
    accepted: int = 0
    #: the power's current orders once this submission is stored (as :func:`current_orders`
    #: reads them then); None when the text could not be read
    current: dict[str, Order] | None = None

    @property
    def errors(self) -> int:
        return sum(1 for x in self.lines if x.error)


def trial_reasons(pos: Position, orders: list[Order], rules: dict[str, Any]) -> list[str]:
    """For each order, why the adjudicator would refuse it ('' if it would not)."""
    try:
        res = adjudicate(pos, orders, rules).results
    except Exception:  # never let one bad order stop the judge
        log.exception("trial adjudication failed")
        return ["the judge could not check this order; please write it another way"] * len(orders)
    out = []
    for i in range(len(orders)):
        r = res[i] if i < len(res) else None
        if r is not None and r.result == "invalid":
            out.append(r.reason or "invalid order")
        else:
            out.append("")
    return out


def _checked_alone(pos: Position, rules: dict[str, Any]) -> bool:
    """Is every order's legality already known from the parser's engine verdict
    (judge.orders.review), so that a trial adjudication of the whole set can refuse nothing more?
    So in a movement phase under the core rules: the core resolver checks each order against the
    board alone (no module hook looks at the other orders, nor changes the board first), the very
    check the parser ran on every new order; only new orders are refused, and the others cannot
    change their verdict."""
    return pos.phase.kind == "movement" and not rules.get("modules") and resolver_class(rules) is MovementResolver


def submit(store: Store, phase_id: int, pos: Position, power: str, text: str, rules: dict[str, Any],
           message_id: str, now: datetime) -> Submission:
    """Read ``text`` as ``power``'s orders for the phase; store the valid ones."""
    m = pos.map
    try:
        parsed = parse_order_text(text, pos, power, rules)
    except Exception:
        log.exception("order parser failed")
        return Submission([LineReport(text.strip(), error="the judge could not read these orders")])
    reports: list[LineReport] = []
    rows = _active_rows(store, phase_id, power)  # read once: the merge, supersede and the result use them
    before = _replay(rows)
    merged = dict(before)
    fresh: dict[str, tuple[Order, LineReport]] = {}
    for p in parsed:
        rep = LineReport(str(getattr(p, "line", "")).strip(),
                         warnings=list(getattr(p, "warnings", None) or []),
                         suggestions=list(getattr(p, "suggestions", None) or []),
                         source=str(getattr(p, "source", "") or "").strip(), lineno=int(getattr(p, "lineno", 0) or 0),
                         note=str(getattr(p, "note", "") or ""))
        reports.append(rep)
        order = getattr(p, "order", None)
        if order is None and rep.note:
            continue
        if order is None:
            rep.error = str(getattr(p, "error", "") or "cannot read this order")
            continue
        rep.text = order.text(m)
        if getattr(p, "power", None) and p.power != power or order.power != power:
            owner = p.power or order.power
            rep.error = f"{owner}'s units are not yours to order (you are {power})"
            continue
        if pos.phase.kind not in type(order).phases:
            rep.error = f"{order.keyword} orders are not allowed in a {pos.phase.kind} phase"
            continue
        key = order_key(order, merged)
        merged[key] = order
        fresh[key] = (order, rep)
    # check the whole set as the adjudicator will see it; a refused new order leaves the old one
    for _ in range(2 if fresh and not _checked_alone(pos, rules) else 0):
        keys = list(merged)
        reasons = trial_reasons(pos, list(merged.values()), rules)
        bad = [(k, r) for k, r in zip(keys, reasons) if r and k in fresh and merged[k] is fresh[k][0]]
        if not bad:
            break
        for k, r in bad:
            fresh[k][1].error = r
            if k in before:
                merged[k] = before[k]
            else:
                del merged[k]
            del fresh[k]
    _refuse_extra_builds(pos, power, rules, before, merged, fresh)
    accepted = [o for k, (o, rep) in fresh.items() if merged.get(k) is o]
    if accepted:
        stored = dumps([to_dict(o, m) for o in accepted])
        row_id = store.insert("orders", phase_id=phase_id, power=power, raw=text, message_id=message_id,
                              created=iso(now), state="active", orders=stored)
        rows.append((row_id, [from_dict(d) for d in loads(stored, [])]))  # as a read of the row gives them
        _supersede_rows(store, rows)
    return Submission(reports, len(accepted), _replay(rows))


def _refuse_extra_builds(pos: Position, power: str, rules: dict[str, Any], before: dict[str, Order],
                         merged: dict[str, Order], fresh: dict[str, tuple[Order, "LineReport"]]) -> None:
    """Builds (and waives) beyond the number due are refused at once, the last ones written first,
    naming how many are due: the adjudicator would only fail them at the deadline, silently."""
    if pos.phase.kind != "adjustment" or adjustments_due(pos).get(power, 0) <= 0:
        return
    allowed = needed(pos, power, rules)
    extra = sum(1 for o in merged.values() if isinstance(o, (Build, Waive))) - allowed
    for k in reversed(list(fresh)):
        if extra <= 0:
            return
        order, rep = fresh[k]
        if merged.get(k) is not order or not isinstance(order, (Build, Waive)):
            continue
        due = adjustments_due(pos)[power]
        why = (f"{power} may build {allowed} unit{'s' if allowed != 1 else ''} this phase"
               + (f" ({due} due, but only {allowed} home centre{'s' if allowed != 1 else ''} free)" if due != allowed
                  else "") + f", and this would be build number {allowed + extra}: refused. To change a build, "
               f"send CLEAR and all your builds again")
        rep.error = why
        if k in before:
            merged[k] = before[k]
        else:
            del merged[k]
        del fresh[k]
        extra -= 1


def supersede(store: Store, phase_id: int, power: str) -> None:
    """Mark 'superseded' the power's earlier submissions whose every order a later one replaced.

    The current orders (the last order per unit over the active rows) stay exactly the same; the
    rows stay for the record. It keeps the active rows few however often a player re-sends."""
    _supersede_rows(store, _active_rows(store, phase_id, power))


def _supersede_rows(store: Store, rows: list[tuple[int, list[Order]]]) -> None:
    """:func:`supersede` over the power's active rows (oldest first), as read or just written;
    the rows it marks are dropped from ``rows`` (the current orders replay the same without them)."""
    covered: set[str] = set()
    stale: list[int] = []
    for row_id, orders in reversed(rows):
        keys: set[str] = set()
        for o in orders:  # (one loop: this runs for every order mail)
            if not o.is_unit_order:
                break  # waives fill numbered slots: keep those rows as they are
            keys.add(province_of(o.loc))
        else:
            if keys <= covered:
                stale.append(row_id)
            covered |= keys
    for row_id in stale:
        store.conn.execute("UPDATE orders SET state = 'superseded' WHERE id = ?", (row_id,))
    rows[:] = [r for r in rows if r[0] not in stale]


def clear(store: Store, phase_id: int, power: str) -> int:
    cur = store.conn.execute("UPDATE orders SET state = 'cleared' WHERE phase_id = ? AND power = ? AND state = 'active'",
                             (phase_id, power))
    return cur.rowcount
