"""The game state and each nation's ledger, as dataclasses that round-trip through JSON."""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field
from typing import Any

from judge.eia import dice
from judge.eia.data import Tables


@dataclass
class Unit:
    """A fleet or a squadron counter (VI: a squadron holds 2 to 6 ships)."""

    id: str
    kind: str                    # "fleet" | "squadron"
    ships: int
    at: str                      # a port or a sea zone; "off map" / "West Indies" when gone
    in_port: bool = True
    start_at: str = ""           # where it began the month (VII: combined fleets must START stacked)
    zones: int = 0               # sea zones moved this month (VI.A.1: a squadron moves 8)
    away: str = ""               # "" | "to_west_indies" | "west_indies" | "off_map"
    back_from: str = ""          # first month it may come back on the map (IX A.1, B.1)
    arrives: str = ""            # month it reaches the West Indies (IX A.1: "This takes two months.")
    exit_zone: str = ""          # where it left the map (IX A.2, B.2)


@dataclass
class Work:
    """Ships on the stocks: new construction or repair of prizes/damaged ships (I)."""

    id: str
    yard: str
    ships: int
    kind: str                    # "new" | "repair"
    started: str
    done: str                    # the month the ships are ready in port
    owner: str                   # who receives them (II: the buyer of a contract)
    builder: str                 # who controls the yard


@dataclass
class Prizes:
    """Prizes and own damaged ships sailing back for repair (IV.B: 3 sea zones a month)."""

    id: str
    captured: int
    damaged: int
    to_port: str
    zones_left: int
    battle: str = ""


@dataclass
class Breakout:
    """A sealed breakout order (IX.A), written before the sail roll."""

    nation: str
    unit: str
    orders: str                  # "west_indies" | "return"
    exit_zone: str
    month: str
    port: str
    engage: bool = False         # IX.C.3: if trailed, try to intercept back to force combat
    revealed_to: list[str] = field(default_factory=list)


@dataclass
class Corps:
    """A corps carried by fleets (V): months at sea counted, cavalry doubled."""

    id: str
    infantry: int
    cavalry: int
    fleets: list[str]
    months: int = 0
    since: str = ""


@dataclass
class Entry:
    """One change of points or money with its reason (the ledger's history)."""

    month: str
    kind: str                    # "pp" | "vp" | "money" | "manpower" | "ships"
    delta: int
    reason: str


@dataclass
class Ledger:
    nation: str
    money: int = 0
    manpower: int = 0
    pp: int = 0
    vp: int = 0
    docked: dict[str, int] = field(default_factory=dict)      # ships laid up in port, not in a unit
    damaged: dict[str, int] = field(default_factory=dict)     # prizes/damaged ships waiting in port for REPAIR
    units: dict[str, Unit] = field(default_factory=dict)
    works: list[Work] = field(default_factory=list)
    prizes: list[Prizes] = field(default_factory=list)
    stores: dict[str, int] = field(default_factory=dict)      # naval stores stocked per yard (III.C)
    corps: dict[str, Corps] = field(default_factory=dict)
    admirals: list[str] = field(default_factory=list)         # ports where a fleet admiral is (VIII)
    militia: int = 0
    provinces_ceded: list[str] = field(default_factory=list)
    history: list[Entry] = field(default_factory=list)

    def ships(self) -> int:
        return (sum(self.docked.values()) + sum(u.ships for u in self.units.values()))


@dataclass
class State:
    game: str
    month: str
    commitment: str
    nations: dict[str, Ledger]
    control: dict[str, str] = field(default_factory=dict)     # minor nation -> controlling major ("" none)
    wars: list[list[str]] = field(default_factory=list)       # pairs at war, sorted
    peace: dict[str, str] = field(default_factory=dict)       # "A|B" -> enforced peace lasts until month
    denied: list[list[str]] = field(default_factory=list)     # [source, nation]: III.A sources denied
    papacy: str = ""                                          # occupier (XIV)
    egypt: str = ""                                           # controller (XVI)
    egypt_hostile: bool = False
    egypt_money_due: int = 0
    continental: dict[str, str] = field(default_factory=dict) # nation -> "major" | "minor" (XV)
    poland: str = ""                                          # creator, while Poland exists (XIII)
    tsar_released: bool = False                               # XVII.A, C
    invaded: bool = False                                     # AFA 2.B
    prussian_built: int = 0                                   # note 3
    announced: dict[str, int] = field(default_factory=dict)   # yard -> last announced figure (I.C)
    breakouts: list[Breakout] = field(default_factory=list)
    casus: list[dict[str, str]] = field(default_factory=list) # AFA 5: questions put to the master
    next_id: int = 1

    def pair(self, a: str, b: str) -> list[str]:
        return sorted([a, b])

    def at_war(self, a: str, b: str) -> bool:
        return self.pair(a, b) in self.wars

    def places(self) -> list[str]:
        """Every place name the state holds (ports with ships, admirals, stores; where units are)."""
        out: list[str] = []
        for led in self.nations.values():
            out += [*led.docked, *led.damaged, *led.stores, *led.admirals]
            out += [u.at for u in led.units.values()] + [p.to_port for p in led.prizes]
        return out

    def new_id(self, prefix: str) -> str:
        self.next_id += 1
        return f"{prefix}{self.next_id - 1}"


def canonical_places(state: State, tables: Tables) -> None:
    """Store every port under its one canonical name (:meth:`Tables.place`), merging counts kept under
    two spellings: a state written before ports were canonicalised ("Le Havre" for the table's
    "Le Harve", "St Petersburg") reads the same as one written now."""
    def merged(counts: dict[str, int]) -> dict[str, int]:
        out: dict[str, int] = {}
        for port, n in counts.items():
            key = tables.place(port)
            out[key] = out.get(key, 0) + n
        return out

    for led in state.nations.values():
        led.docked, led.damaged, led.stores = merged(led.docked), merged(led.damaged), merged(led.stores)
        led.admirals = [tables.place(p) for p in led.admirals]
        for unit in led.units.values():
            unit.at, unit.start_at = tables.place(unit.at), tables.place(unit.start_at)
        for group in led.prizes:
            group.to_port = tables.place(group.to_port)
        for work in led.works:
            work.yard = tables.place(work.yard)
    for b in state.breakouts:
        b.port = tables.place(b.port)
    state.announced = {tables.place(k): v for k, v in state.announced.items()}


# -- JSON ---------------------------------------------------------------------------------------
def to_json(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        return {f.name: to_json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {k: to_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_json(v) for v in obj]
    return obj


@functools.cache
def _fields(tp: Any) -> tuple[dict[str, Any], set[str]]:
    """A dataclass's field types and names (get_type_hints is slow: once per class)."""
    return typing.get_type_hints(tp), {f.name for f in dataclasses.fields(tp)}


def _build(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object")
        hints, known = _fields(tp)
        extra = set(value) - known
        if extra:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        return tp(**{k: _build(hints[k], v, f"{where}.{k}") for k, v in value.items()})
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list")
        (arg,) = typing.get_args(tp)
        return [_build(arg, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object")
        _, arg = typing.get_args(tp)
        return {str(k): _build(arg, v, f"{where}.{k}") for k, v in value.items()}
    if tp is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise ValueError(f"{where}: expected a whole number, got {value!r}")
    if tp is str and not isinstance(value, str):
        raise ValueError(f"{where}: expected text, got {value!r}")
    if tp is bool and not isinstance(value, bool):
        raise ValueError(f"{where}: expected true or false, got {value!r}")
    return value


def from_json(data: Any) -> State:
    """A state from its JSON form; raises ValueError naming the bad field."""
    return _build(State, data, "state")


def new_game(tables: Tables, game: str, secret_hex: str, start: str | None = None) -> State:
    """The opening state: the ledgers of [start] (England's 80 ships, AFA 1) and the dice commitment."""
    nations = {}
    for name, nation in tables.nations.items():
        if not nation.major:
            continue
        body = tables.start_ledgers.get(name, {})
        led = Ledger(name, money=int(body.get("money", 0)), manpower=int(body.get("manpower", 0)),
                     docked={p: n for p, n in body.get("ships", {}).items() if n})
        if name == "England":
            led.militia = tables["afa"]["militia_permanent"]
        nations[name] = led
    control = {n: "" for n, nation in tables.nations.items() if not nation.major}
    return State(game=game, month=start or tables.start, commitment=dice.commitment(secret_hex),
                 nations=nations, control=control)
