"""What a rule module sees while a month is stepped: the state, the tables, the dice, and the
events it reports; plus the command registry the rule modules fill."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from judge.eia.data import Tables
from judge.eia.dice import Roller
from judge.eia.state import Entry, Ledger, State, Unit

MASTER = "Master"
PUBLIC = "all"


class Rejected(Exception):
    """A command refused: the message says why; nothing of the command was applied."""


class Malformed(Rejected):
    """Refused for its own words (a missing part, a word where a number goes, a yard or nation
    that does not exist): no state or dice could make it good, so the judge refuses it when it
    arrives by mail instead of storing it for the deadline."""


@dataclass
class Command:
    nation: str                  # a nation's name, or MASTER
    verb: str
    words: list[str]
    line: str
    number: int = 0

    def text(self) -> str:
        return " ".join(self.words)


@dataclass
class Ctx:
    state: State
    tables: Tables
    roller: Roller
    events: list[dict[str, Any]] = field(default_factory=list)
    scratch: dict[str, Any] = field(default_factory=dict)     # what one month's commands leave for later ones

    # -- reporting ------------------------------------------------------------------------------
    def say(self, text: str, to: list[str] | str = PUBLIC, kind: str = "event") -> None:
        targets = [to] if isinstance(to, str) else sorted(set(to))
        self.events.append({"kind": kind, "to": targets, "text": text})

    def roll(self, kind: str, nation: str, subject: str, purpose: str, count: int = 1,
             modifiers: dict[str, int] | None = None) -> int:
        """A roll keyed by what it is for: ``kind`` (judge.eia.dice.KINDS), the nation rolling and its
        ``subject`` in canonical names (a unit's id, a yard's table name; never free text such as a
        sea zone as the master spelled it). ``purpose`` is the words the gazette shows."""
        return self.roller.roll(kind, nation, subject, purpose, count, 6, modifiers)

    # -- look-ups -------------------------------------------------------------------------------
    def nation_name(self, text: str) -> str:
        nation = self.tables.nation(text)
        if not nation:
            raise Malformed(f"no nation called {text!r}")
        return nation.name

    def ledger(self, name: str) -> Ledger:
        name = self.nation_name(name)
        if name not in self.state.nations:
            raise Rejected(f"{name} is not a major power with a ledger; its controller builds for it")
        return self.state.nations[name]

    def place(self, text: str) -> str:
        """The name ``text``'s place is stored under: a yard's table name for any accepted spelling; any
        other place as first written in this game (so "kiel" finds "Kiel"), else as written."""
        canon = self.tables.place(text)
        if self.tables.yard(canon):
            return canon
        for known in self.state.places():
            if self.tables.same_place(known, canon):
                return known
        return canon

    def same_place(self, a: str, b: str) -> bool:
        return self.tables.same_place(a, b)

    def controller(self, nation: str) -> str:
        """The major power that plays ``nation`` ("" for an uncontrolled minor)."""
        if nation in self.state.nations:
            return nation
        return self.state.control.get(nation, "")

    def unit(self, nation: str, ident: str) -> Unit:
        led = self.ledger(nation)
        ident = ident.strip(".,;:!")
        for key, unit in led.units.items():
            if key.casefold() == ident.casefold():
                return unit
        raise Rejected(f"{led.nation} has no fleet or squadron {ident!r}")

    def at_war_with_england(self, nation: str) -> bool:
        return nation != "England" and self.state.at_war(nation, "England")

    # -- the ledger's history -------------------------------------------------------------------
    def change(self, nation: str, kind: str, delta: int, reason: str, public: bool = False) -> None:
        """Add ``delta`` to a nation's money, manpower, political (pp) or victory (vp) points."""
        led = self.ledger(nation)
        attr = {"money": "money", "manpower": "manpower", "pp": "pp", "vp": "vp"}[kind]
        setattr(led, attr, getattr(led, attr) + delta)
        led.history.append(Entry(self.state.month, kind, delta, reason))
        label = {"money": "money", "manpower": "manpower", "pp": "political points",
                 "vp": "victory points"}[kind]
        self.say(f"{led.nation}: {delta:+d} {label} ({reason})", PUBLIC if public else [led.nation], kind)

    def afford(self, nation: str, money: int, manpower: int, what: str) -> None:
        led = self.ledger(nation)
        if led.money < money or led.manpower < manpower:
            raise Rejected(f"{what} costs {money} money and {manpower} manpower; "
                           f"{led.nation} has {led.money} money and {led.manpower} manpower")

    def pay(self, nation: str, money: int, manpower: int, what: str) -> None:
        self.afford(nation, money, manpower, what)
        if money:
            self.change(nation, "money", -money, what)
        if manpower:
            self.change(nation, "manpower", -manpower, what)


# -- the command registry ------------------------------------------------------------------------
Handler = Callable[[Ctx, Command], None]


@dataclass(frozen=True)
class Verb:
    name: str
    stage: int                   # commands run stage by stage, in the order given within a stage
    master: bool                 # only the games master may give it
    usage: str
    handler: Handler


#: verb -> its definition; filled by the rule modules (see judge.eia.rules)
VERBS: dict[str, Verb] = {}

#: stages, in the order a month is stepped (docs/variants/eia.md §2)
STAGE_SETUP, STAGE_TREASURY, STAGE_YARDS, STAGE_SAIL, STAGE_PURSUIT, STAGE_MOVE, STAGE_COMBAT, \
    STAGE_POLITICS = range(8)


def command(name: str, stage: int, usage: str, master: bool = False) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        VERBS[name] = Verb(name, stage, master, usage, fn)
        return fn
    return register


def number(word: str, what: str, low: int = 0) -> int:
    if not re.fullmatch(r"[+-]?\d+", word or ""):
        raise Malformed(f"{what}: expected a number, got {word!r}")
    value = int(word)
    if value < low:
        raise Malformed(f"{what} must be at least {low}, got {value}")
    return value


def split_at(words: list[str], *keywords: str) -> dict[str, list[str]]:
    """Words grouped by keyword: ``split_at("3 AT Brest FOR Spain".split(), "AT", "FOR")`` ->
    ``{"": ["3"], "AT": ["Brest"], "FOR": ["Spain"]}``. Keywords match case-insensitively."""
    out: dict[str, list[str]] = {"": []}
    current = ""
    keys = {k.upper() for k in keywords}
    for w in words:
        if w.upper() in keys:
            current = w.upper()
            if current in out:      # "BUILD 2 AT Brest and 3 AT Toulon" must not quietly build at Toulon
                raise Malformed(f"{current} appears twice: write one command a line")
            out[current] = []
        else:
            out[current].append(w)
    return out
