"""The AFA supplement's tables (``seeds/eia_afa.toml``) loaded and checked.

Kept apart from :mod:`judge.variant`: this is not a Diplomacy map. Every table is validated on
load, and a broken file fails with a message naming the file and the entry.
"""

from __future__ import annotations

import math
import tomllib
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from judge.variant import SEEDS_DIR

KIND = "eia_afa"


class EiaDataError(ValueError):
    """The supplement's data file is missing or malformed."""


@dataclass(frozen=True)
class Yard:
    name: str
    nation: str
    max: int
    note: int | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Nation:
    name: str
    major: bool
    cost: tuple[int, int]        # (new, repair) money per ship
    time: tuple[int, int]        # (new, repair) months
    yards: tuple[Yard, ...]
    capital: str | None = None
    stores_source: str | None = None
    combat_modifier: int = 0


@dataclass(frozen=True)
class Note:
    number: int
    add_time: tuple[int, int] = (0, 0)
    after_ships: int | None = None
    time: tuple[int, int] | None = None
    cost: tuple[int, int] | None = None


@dataclass(frozen=True)
class FortBand:
    low: int
    results: tuple[tuple[int, bool], ...]   # for 2D6 = 2..12: (losses, starred)


@dataclass(frozen=True)
class Tables:
    """Everything in ``seeds/eia_afa.toml``; ``raw`` keeps the scalar rule figures by section."""

    path: Path
    title: str
    start: str
    economic_every: int
    economic_first: str
    nations: dict[str, Nation]
    notes: dict[int, Note]
    fort_bands: tuple[FortBand, ...]
    fleet_fire: tuple[tuple[int, int, int], ...]
    papacy: dict[str, dict[str, int]]
    start_ledgers: dict[str, dict[str, Any]]
    raw: dict[str, Any] = field(repr=False)

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.raw[section]

    @property
    def yards(self) -> dict[str, Yard]:
        return {y.name: y for n in self.nations.values() for y in n.yards}

    @cached_property
    def _yard_names(self) -> dict[str, Yard]:
        """Every yard's name and aliases, folded -> the yard (the first yard in table order wins,
        as a search in that order would): a month's trial looks places up thousands of times."""
        out: dict[str, Yard] = {}
        for y in self.yards.values():
            for name in (y.name, *y.aliases):
                out.setdefault(_fold(name), y)
        return out

    @cached_property
    def _nation_names(self) -> dict[str, Nation]:
        out: dict[str, Nation] = {}
        for n in self.nations.values():
            out.setdefault(_fold(n.name), n)
        return out

    def yard(self, text: str) -> Yard | None:
        return self._yard_names.get(_fold(text))

    def place(self, text: str) -> str:
        """The one name a place is stored and shown under: a yard's name as the table prints it for
        any accepted spelling ("Le Havre", "St Petersburg" -> "Le Harve", "St. Petersburg"); any
        other place (a sea zone, a port without a yard) as written, spaces tidied."""
        yard = self.yard(text)
        return yard.name if yard else " ".join(text.split())

    def same_place(self, a: str, b: str) -> bool:
        """Whether two spellings name one place (compared on the canonical name, folded)."""
        return _fold(self.place(a)) == _fold(self.place(b))

    def stock_cap(self, yard: Yard) -> int:
        """III.C: naval stores per yard up to ``[stores] stock_fraction`` of its capacity, rounded up."""
        num, den = self.raw["stores"]["stock_fraction"]
        return math.ceil(yard.max * num / den)

    def nation(self, text: str) -> Nation | None:
        return self._nation_names.get(_fold(text))

    def fort_band(self, value: int) -> FortBand:
        for band in self.fort_bands:
            if value >= band.low:
                return band
        return self.fort_bands[-1]


@lru_cache(maxsize=4096)
def _fold(text: str) -> str:
    """Names as typed on a phone: case, dots and accents do not matter (Königsberg = Konigsberg)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(plain.replace(".", " ").split()).casefold()


def _pair(where: str, value: Any) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and v >= 0 for v in value)):
        raise EiaDataError(f"{where}: expected [new, repair] as two whole numbers >= 0, got {value!r}")
    return value[0], value[1]


def _int(where: str, value: Any, low: int | None = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or (low is not None and value < low):
        raise EiaDataError(f"{where}: expected a whole number{'' if low is None else f' >= {low}'}, got {value!r}")
    return value


def _month(where: str, value: Any) -> str:
    from judge.eia.calendar import parse_month

    try:
        parse_month(value)
    except ValueError as exc:
        raise EiaDataError(f"{where}: {exc}") from None
    return value


def parse_tables(data: dict[str, Any], path: Path) -> Tables:
    def need(section: str) -> dict[str, Any]:
        value = data.get(section)
        if not isinstance(value, dict):
            raise EiaDataError(f"{path}: missing section [{section}]")
        return value

    if data.get("kind") != KIND:
        raise EiaDataError(f"{path}: kind must be {KIND!r}, got {data.get('kind')!r}")
    cal = need("calendar")
    notes: dict[int, Note] = {}
    for key, body in need("notes").items():
        where = f"{path}: [notes.{key}]"
        number = _int(where, int(key) if str(key).isdigit() else key, 1)
        notes[number] = Note(
            number,
            add_time=_pair(f"{where} add_time", body.get("add_time", [0, 0])),
            after_ships=None if "after_ships" not in body else _int(f"{where} after_ships", body["after_ships"], 1),
            time=_pair(f"{where} time", body["time"]) if "time" in body else None,
            cost=_pair(f"{where} cost", body["cost"]) if "cost" in body else None,
        )
    nations: dict[str, Nation] = {}
    seen_yards: dict[str, str] = {}
    for name, body in need("nations").items():
        where = f"{path}: [nations.{name}]"
        yards = []
        for i, y in enumerate(body.get("yards") or []):
            ywhere = f"{where} yards[{i}]"
            if not isinstance(y, dict) or not isinstance(y.get("name"), str) or not y["name"].strip():
                raise EiaDataError(f"{ywhere}: a yard needs a name")
            note = y.get("note")
            if note is not None and note not in notes:
                raise EiaDataError(f"{ywhere} ({y['name']}): note {note!r} is not in [notes]")
            for label in (y["name"], *y.get("aliases", ())):
                if _fold(label) in seen_yards and seen_yards[_fold(label)] != y["name"]:
                    raise EiaDataError(f"{ywhere}: name {label!r} already used by {seen_yards[_fold(label)]}")
                seen_yards[_fold(label)] = y["name"]
            yards.append(Yard(y["name"], name, _int(f"{ywhere} max", y.get("max"), 1), note,
                              tuple(y.get("aliases", ()))))
        if not yards:
            raise EiaDataError(f"{where}: no yards")
        nations[name] = Nation(
            name, bool(body.get("major", False)), _pair(f"{where} cost", body.get("cost")),
            _pair(f"{where} time", body.get("time")), tuple(yards), body.get("capital"),
            body.get("stores_source"), _int(f"{where} combat_modifier", body.get("combat_modifier", 0), None))
    bands = []
    previous = None
    for i, row in enumerate(need("forts").get("fort_fire", [])):
        where = f"{path}: [forts] fort_fire[{i}]"
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[1], str)):
            raise EiaDataError(f"{where}: expected [lowest value, \"11 results\"]")
        low = _int(where, row[0])
        if previous is not None and low >= previous:
            raise EiaDataError(f"{where}: bands must go from the highest fort value down")
        previous = low
        cells = row[1].split()
        if len(cells) != 11:
            raise EiaDataError(f"{where}: expected 11 results (2D6 = 2..12), got {len(cells)}")
        results = []
        for cell in cells:
            starred = cell.endswith("*")
            digits = cell.rstrip("*")
            if not digits.isdigit():
                raise EiaDataError(f"{where}: bad result {cell!r}")
            results.append((int(digits), starred))
        bands.append(FortBand(low, tuple(results)))
    if not bands or bands[-1].low != 0:
        raise EiaDataError(f"{path}: [forts] fort_fire must end with the band starting at 0")
    fire = []
    covered: list[int] = []
    for i, row in enumerate(need("forts").get("fleet_fire", [])):
        where = f"{path}: [forts] fleet_fire[{i}]"
        lo, hi, dmg = (_int(where, row.get(k)) for k in ("from", "to", "damage"))
        fire.append((lo, hi, dmg))
        covered += range(lo, hi + 1)
    if sorted(covered) != list(range(2, 13)):
        raise EiaDataError(f"{path}: [forts] fleet_fire must cover 2D6 = 2..12 exactly once")
    papacy = {}
    for occupier, costs in need("political").get("papacy", {}).items():
        for payer, cost in costs.items():
            _int(f"{path}: [political.papacy.{occupier}] {payer}", cost)
        papacy[occupier] = dict(costs)
    percent = need("prizes").get("percent")
    if not (isinstance(percent, list) and len(percent) == 6 and all(isinstance(p, int) and 0 <= p <= 100 for p in percent)):
        raise EiaDataError(f"{path}: [prizes] percent must list six percentages (die 1..6)")
    for section in ("shipbuilding", "stores", "transport", "squadrons", "sailing", "breakouts", "afa"):
        need(section)
    for key in ("denied_surcharge", "intercept_share", "stock_fraction"):
        value = need("stores").get(key)
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and v > 0 for v in value)):
            raise EiaDataError(f"{path}: [stores] {key} must be a fraction [numerator, denominator], got {value!r}")
    start = {}
    for nation, body in data.get("start", {}).items():
        if nation not in nations:
            raise EiaDataError(f"{path}: [start.{nation}] is not a nation of the yard table")
        for port in body.get("ships", {}):
            _int(f"{path}: [start.{nation}] ships.{port}", body["ships"][port])
        start[nation] = body
    england = sum(start.get("England", {}).get("ships", {}).values())
    if "England" in start and england != data["afa"]["england_start_ships"]:
        raise EiaDataError(f"{path}: [start.England] has {england} ships; AFA 1 says "
                           f"{data['afa']['england_start_ships']}")
    return Tables(
        path=path, title=str(data.get("title", KIND)),
        start=_month(f"{path}: [calendar] start", cal.get("start")),
        economic_every=_int(f"{path}: [calendar] economic_every", cal.get("economic_every"), 1),
        economic_first=_month(f"{path}: [calendar] economic_first", cal.get("economic_first")),
        nations=nations, notes=notes, fort_bands=tuple(bands), fleet_fire=tuple(fire),
        papacy=papacy, start_ledgers=start, raw=data)


def load_tables_file(path: str | Path) -> Tables:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise EiaDataError(f"{path}: cannot read: {exc}") from None
    return parse_tables(data, path)


@lru_cache(maxsize=4)
def load_tables(name: str = KIND) -> Tables:
    return load_tables_file(SEEDS_DIR / f"{name}.toml")
