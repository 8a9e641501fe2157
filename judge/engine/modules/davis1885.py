"""1885 II (Fred C. Davis Jr., 1973/1976): the rules that are neither map data nor A/F rules.

Enabled by ``modules = ["davis1885", ...]`` in ``seeds/1885.toml``. Written down, with the rule
sentences, in ``docs/variants/1885.md`` and ``docs/rulings.md`` ("1885 II").

**Hidden start units (rule 3).** "The unit in Rome may be either an A or F. Player does not have
to reveal nature of the unit before the first move." (likewise St Petersburg and Sevastopol for
Russia, Norway for Sweden). The start position does not show these units (``choice_units`` in the
seed; ``units`` lists only the fixed ones). The choice is made *with the first move's orders*,
which are secret until the move is adjudicated, and the results reveal it:

- the start position lists them in ``extra["hidden_units"]`` (``Variant.start_position()``, and a
  position JSON without ``units``, which is the start); in the variant's first phase
  (``calendar.start``) each listed province that holds no unit and is owned by its power holds
  that power's hidden unit. A position that does not list them has none: an explicit position is
  what it says;
- only its owner's orders tell; its kind is the one written in the last order for it that names
  a kind (``F Rom - Tys``, ``A Rom H``, or just ``F Rom``, a hold);
- else the kind its owner writes for it in another order (``F Nap S F Rom - Tys``);
- else the kind that alone makes one of its orders legal, then one of its owner's orders about it,
  the last such order deciding (``Rom - Tys`` can only be a fleet's move; ``Nap S Rom - Tys``
  can only support a fleet);
- else the default in ``[davis1885] choice_default`` of the seed (the kind the Regular rules put
  there: A Rome, F St Petersburg, F Sevastopol; Norway, which has no Regular unit, follows Italy,
  "(Same as Italy)": an army);
- the unit is then on the board for the whole first move like any other, and an event names it.

**Alliance victory (rules 5b, 5c).** "Any two players may obtain an 'Alliance Victory' if they
jointly own at least 34 Centers at the end of a 'Fall' move" (three: 38). The judge cannot know
who is allied, so an alliance is *declared*: the position's ``extra["alliances"]`` lists the
declared alliances (each a list of power names, recorded by the game service once every member
has declared it, and dropped when any member withdraws). At the end of every "Fall" move (on
entering an adjustment phase, after ownership is updated) a declared alliance of two or three
powers owning jointly at least the ``[victory] alliances`` number wins and the game ends. A solo
victory (24, rule 5a) is checked first. Several qualifying alliances: the one with fewer powers,
then more centres, then the alphabetically first list wins. :func:`alliance_victory` answers the
same question for one group, for a service that takes claims during the adjustment phase instead.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable

from judge.engine.modules import RuleModule, resolver_for
from judge.engine.movement import Illegal, MovementOutcome
from judge.engine.orders import Order
from judge.engine.position import Position, Unit
from judge.variant import HIDDEN_UNITS, Variant, norm, province_of

NAME = "davis1885"
KIND_WORD = {"A": "an army", "F": "a fleet"}


# -- rule 3: hidden start units ------------------------------------------------------------------
def hidden_units(pos: Position, rules: dict[str, Any] | None = None) -> dict[str, str]:
    """Province -> power of units that are ordered but not yet on the board (none without this module)."""
    rules = rules if rules is not None else pos.variant.rules
    if "davis1885" not in rules.get("modules", ()):
        return {}
    return pending_choices(pos)


def pending_choices(pos: Position) -> dict[str, str]:
    """Province id -> power, for the hidden start units not yet on the board: the ones the position
    lists in ``extra["hidden_units"]`` (the start position does), in the variant's first phase, in
    a province still empty and owned by that power. A position that does not list them is what it
    says: the judge adds no unit to it."""
    v = pos.variant
    listed = pos.extra.get(HIDDEN_UNITS)
    if not listed or pos.phase != v.calendar.start:
        return {}
    m = pos.map
    out: dict[str, str] = {}
    for name, power in listed.items():
        p, pw = m.lookup(str(name)), v.power(str(power))
        if p is None or pw is None or p not in pw.choice_units:
            continue
        if p not in pos.units and pos.centres.get(p) == pw.name:
            out[p] = pw.name
    return out


def choice_defaults(variant: Variant) -> dict[str, str]:
    """Province id -> "A" | "F": the kind a hidden unit takes when its orders do not tell."""
    raw = (variant.raw.get(NAME) or {}).get("choice_default") or {}
    out: dict[str, str] = {}
    for name, kind in raw.items():
        p = variant.map.lookup(name)
        if p is not None and str(kind).upper() in ("A", "F"):
            out[p] = str(kind).upper()
    return out


def choose_kind(pos: Position, prov: str, power: str, orders: Iterable[Order],
                rules: dict[str, Any]) -> tuple[str, str]:
    """The kind of the hidden unit in ``prov`` and how it was told: (``"A"``|``"F"``, reason).

    Only its owner's orders tell: first the kind written in the unit's own orders, then the kind
    written for it in the owner's other orders (``F Nap S F Rom - Tys``); then the kind that
    alone makes one of its own orders legal, then one of the owner's orders about it
    (``Nap S Rom - Tys``); the last order deciding at each step. Else the default.
    """
    orders = [o for o in orders if o.power == power]
    mine = [o for o in orders if province_of(o.loc) == prov]
    about = [o for o in orders if province_of(o.loc) != prov and province_of(getattr(o, "target", "") or "") == prov]
    stated = [o.kind for o in mine if o.kind in ("A", "F")]
    if stated:
        return stated[-1], "as ordered"  # type: ignore[return-value]
    named = [o.target_kind for o in about if getattr(o, "target_kind", None) in ("A", "F")]
    if named:
        return named[-1], "as named in its owner's orders"  # type: ignore[return-value]
    others = tuple(n for n in rules.get("modules", ()) if n != NAME)
    check_cls = resolver_for(others)
    for group, what in ((mine, "its order"), (about, "the order")):
        for o in reversed(group):
            legal = []
            for kind in ("A", "F"):
                unit = Unit(power, kind, prov)
                if not pos.map.can_hold(kind, prov):
                    continue
                trial = pos.copy()
                trial.units[prov] = unit
                actor = trial.units.get(province_of(o.loc))
                if actor is None or actor.power != power:
                    continue
                try:
                    check_cls(trial, [], rules).check(o, actor)
                except Illegal:
                    continue
                legal.append(kind)
            if len(legal) == 1:
                return legal[0], f"the only kind that can carry out {what} {o.text(pos.map)}"
    kind = choice_defaults(pos.variant).get(prov, "A")
    return kind, "no kind given: the default"


def place_choices(pos: Position, orders: list[Order], rules: dict[str, Any]) -> tuple[Position, list[str]]:
    """The position with the hidden start units on the board, and one event line for each."""
    pending = pending_choices(pos)
    if not pending:
        return pos, []
    m = pos.map
    out = pos.copy()
    events = []
    for prov, power in sorted(pending.items()):
        kind, how = choose_kind(pos, prov, power, orders, rules)
        out.units[prov] = Unit(power, kind, prov)
        events.append(f"{power}: the unit in {m.name(prov)} is {KIND_WORD[kind]} "
                      f"(chosen before the first move; {how})")
    return out, events


def read_orders(text: str, pos: Position, rules: dict[str, Any], parse: Callable[[str, Position], list],
                lines: Callable[[str], Iterable[str]] = str.splitlines) -> list | None:
    """Read the first move's orders, which may name hidden units the board does not show yet.

    Each line is read twice, against the board with every hidden unit an army and with every
    one a fleet. Where both readings agree the line is taken as read; where they differ only in
    a unit kind ("A" in one, "F" in the other) the kind was not written but filled in from the
    board, and is left open (None). A line that reads on only one of the two boards is taken
    from that one; one that reads on neither, from the board as it is, for its error. Which kind
    each hidden unit is, is then decided from these orders by the engine (:func:`choose_kind`).
    ``lines`` splits the text into order lines (the order language's idea of the orders block,
    passed in: the engine does not read mail).
    """
    pending = pending_choices(pos)
    if not pending:
        return None
    worlds = []
    for kind in ("A", "F"):
        w = pos.copy()
        for prov, power in pending.items():
            w.units[prov] = Unit(power, kind, prov)
        worlds.append(w)
    out: list = []
    for line in lines(text):
        as_a, as_f = (parse(line, w) for w in worlds)
        ok_a = bool(as_a) and all(p.order is not None for p in as_a)
        ok_f = bool(as_f) and all(p.order is not None for p in as_f)
        if ok_a and ok_f and len(as_a) == len(as_f):
            for pa, pf in zip(as_a, as_f):
                pa.order = _unwritten_kinds_open(pa.order, pf.order)
            out.extend(as_a)
        elif ok_a or ok_f:
            out.extend(as_a if ok_a else as_f)
        else:
            out.extend(parse(line, pos))
    return out


def _unwritten_kinds_open(a: Order, f: Order) -> Order:
    """``a`` with every unit kind that reads "A" here and "F" in ``f`` set to None (not written)."""
    if type(a) is not type(f):
        return a
    changes = {fl.name: None for fl in dataclasses.fields(a)
               if getattr(a, fl.name) == "A" and getattr(f, fl.name) == "F"}
    return dataclasses.replace(a, **changes) if changes else a


class HiddenStartUnits:
    """Resolver mixin: put the hidden start units on the board before the first move."""

    def starting_board(self: Any, position: Position) -> Position:
        position, self.revealed = place_choices(position, self.input_orders, self.rules)
        return position

    def after_movement(self, after: Position, out: MovementOutcome, events: list[str]) -> None:
        super().after_movement(after, out, events)  # type: ignore[misc]
        after.extra.pop(HIDDEN_UNITS, None)  # on the board now, or never (their provinces were taken)
        events.extend(self.revealed)


# -- rules 5b, 5c: alliance victories --------------------------------------------------------------
def declared_alliances(pos: Position) -> list[tuple[str, ...]]:
    """The declared alliances in ``pos.extra["alliances"]``, as sorted tuples of power names.

    Entries naming an unknown power, or fewer than two different powers, are ignored.
    """
    out = []
    for group in pos.extra.get("alliances") or ():
        if isinstance(group, str):
            group = group.replace(",", " ").split()
        names = []
        for name in group or ():
            p = pos.variant.power(str(name))
            if p is None:
                names = []
                break
            names.append(p.name)
        members = tuple(sorted(set(names)))
        if len(members) >= 2 and members not in out:
            out.append(members)
    return out


def alliance_victory(pos: Position, members: Iterable[str], counts: dict[str, int] | None = None
                     ) -> dict[str, Any] | None:
    """The alliance victory of ``members`` if they jointly own enough centres now, else None."""
    members = tuple(sorted(set(members)))
    need = {int(a["powers"]): int(a["centres"]) for a in pos.variant.victory.get("alliances", ())}
    if len(members) not in need:
        return None
    if counts is None:
        counts = {}
        for p in pos.centres.values():
            counts[p] = counts.get(p, 0) + 1
    total = sum(counts.get(p, 0) for p in members)
    if total < need[len(members)]:
        return None
    return {"winner": list(members), "kind": "alliance", "centres": total, "final": True}


def check_victory(pos: Position, counts: dict[str, int], rules: dict[str, Any]) -> dict[str, Any] | None:
    wins = [v for g in declared_alliances(pos) if (v := alliance_victory(pos, g, counts))]
    if not wins:
        return None
    return min(wins, key=lambda v: (len(v["winner"]), -v["centres"], [norm(w) for w in v["winner"]]))


MODULE = RuleModule(NAME, resolver_mixin=HiddenStartUnits, check_victory=check_victory, read_orders=read_orders)
