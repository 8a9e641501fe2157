"""Variants as data: load ``seeds/<name>.toml`` into a validated :class:`Variant`.

The format is documented in ``docs/variant-format.md``. Internally every location is a
lower-case string: a province key (``"lon"``) or a province key and coast (``"stp/nc"``).
Those strings are what the adjudicator works with; :meth:`Map.display` turns them back into
the printed form (``"StP/nc"``).
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from judge.resources import seeds_dir
from judge.rules import RuleError, merge_rules

SEEDS_DIR = seeds_dir()
TERRAINS = ("land", "coast", "sea", "impassable")
PHASE_KINDS = ("movement", "retreat", "adjustment")
#: the name of a variant's own calendar when ``[calendar]`` gives none (rule switch ``calendar``)
DEFAULT_CALENDAR = "default"
#: position ``extra`` key: start units not yet on the board, display name -> power (1885 II rule 3)
HIDDEN_UNITS = "hidden_units"
DEFAULT_COASTS = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}


class VariantError(ValueError):
    """A seed file that cannot be loaded; the message names the file and the bad entry."""


_IGNORED_IN_NAMES = re.compile(r"[\s.'’_-]+")  # (compiled once: a variant's load normalises every alias twice)


def norm(name: str) -> str:
    """Normalise a name for case-, dot- and space-insensitive lookup."""
    return _IGNORED_IN_NAMES.sub("", name.lower())


@dataclass(frozen=True, slots=True)
class Province:
    """A province of the map as the seed describes it."""

    key: str  # printed key, e.g. "StP"
    name: str
    terrain: str
    sc: bool
    coasts: tuple[str, ...]  # coast names ("nc", "sc") for a multi-coast province, else ()
    aliases: tuple[str, ...]
    pos: tuple[float, float] | None = None
    coast_pos: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.key.lower()


class Map:
    """Provinces and adjacency, with the look-up tables the adjudicator needs precomputed."""

    def __init__(self, provinces: dict[str, Province], army: dict[str, frozenset[str]],
                 fleet: dict[str, frozenset[str]], coast_names: dict[str, str]):
        self.provinces = provinces  # id -> Province
        self.army_adj = army  # province id -> province ids
        self.fleet_adj = fleet  # location -> locations
        self.coast_names = coast_names
        self.terrain = {p: prov.terrain for p, prov in provinces.items()}
        self.centres = frozenset(p for p, prov in provinces.items() if prov.sc)
        self.centres_sorted = tuple(sorted(self.centres))  # (in the order of their ids)
        self.seas = frozenset(p for p, t in self.terrain.items() if t == "sea")
        # fleet locations of a province: ("stp/nc", "stp/sc") or ("lon",); () for land-locked
        self.fleet_locs: dict[str, tuple[str, ...]] = {}
        for p, prov in provinces.items():
            if prov.coasts:
                self.fleet_locs[p] = tuple(f"{p}/{c}" for c in prov.coasts)
            elif prov.terrain in ("coast", "sea"):
                self.fleet_locs[p] = (p,)
            else:
                self.fleet_locs[p] = ()
        # location -> provinces a fleet there can reach (coast dropped)
        self.fleet_reach = {loc: frozenset(province_of(t) for t in ts) for loc, ts in fleet.items()}
        # province -> provinces a fleet on any of its coasts can reach (supports, convoy chains)
        self.fleet_reach_prov: dict[str, frozenset[str]] = {}
        for p, locs in self.fleet_locs.items():
            reach: set[str] = set()
            for loc in locs:
                reach |= self.fleet_reach.get(loc, frozenset())
            self.fleet_reach_prov[p] = frozenset(reach)
        # any unit kind, used for civil-disorder distances and right-hand retreats
        self.any_adj = {p: self.army_adj.get(p, frozenset()) | self.fleet_reach_prov.get(p, frozenset())
                        for p in provinces}
        # (kind, location, destination) of every move that is legal as written on any board, by
        # land or by sea without a convoy: the resolver takes these without working out why
        plain: set[tuple[str, str, str]] = set()
        for src, adj in army.items():
            plain.update(("A", src, d) for d in adj if d != src and self.terrain.get(d) in ("land", "coast"))
        for loc, ts in fleet.items():
            src = province_of(loc)
            for dest in ts:
                dp = province_of(dest)
                if dp == src or self.terrain.get(dp) not in ("sea", "coast"):
                    continue
                if ("/" in dest) == bool(provinces[dp].coasts):
                    plain.add(("F", loc, dest))
        self.plain_moves = frozenset(plain)
        self._looked_up: dict[str, str | None] = {}  # lookup() memo: name as written -> id
        self._shown: dict[str, str] = {}  # display() memo: location -> printed key
        self.units_read: dict[str, tuple[str, str]] = {}  # position.parse_unit memo: "F StP/sc" -> (kind, loc)
        self.units_made: dict[str, dict[str, Any]] = {}  # Position._read_known memo: power -> text -> Unit
        self.units_written: dict[tuple[str, str], str] = {}  # Position.to_json memo: (kind, loc) -> "F StP/sc"
        self.centres_read: dict[str, str] = {}  # Position.from_json memo: a supply centre as written -> id
        self.units_quoted: dict[str, dict[str, str]] = {}  # Position.json_text memo: kind -> loc -> '"F StP/sc"'
        self.shown_quoted: dict[str, str] = {}  # Position.json_text memo: location id -> '"StP/sc"'
        self._alias: dict[str, str] = {}
        for p, prov in provinces.items():
            for a in (prov.key, prov.name, *prov.aliases):
                self._alias.setdefault(norm(a), p)

    # -- names ---------------------------------------------------------------------------
    def lookup(self, name: str) -> str | None:
        """Province id for a key, full name or alias (any case, dots and spaces ignored)."""
        try:
            return self._looked_up[name]
        except KeyError:
            found = self._alias.get(norm(name))
            if len(self._looked_up) < 4096:  # the names positions use; not whatever mail brings
                self._looked_up[name] = found
            return found

    def aliases(self) -> dict[str, str]:
        return dict(self._alias)

    def display(self, loc: str) -> str:
        try:
            return self._shown[loc]
        except KeyError:
            p, _, coast = loc.partition("/")
            key = self.provinces[p].key
            shown = self._shown[loc] = f"{key}/{coast}" if coast else key
            return shown

    def name(self, loc: str) -> str:
        p, _, coast = loc.partition("/")
        full = self.provinces[p].name
        return f"{full} ({self.coast_names.get(coast, coast)})" if coast else full

    # -- geometry ------------------------------------------------------------------------
    def is_sea(self, p: str) -> bool:
        return self.terrain[p] == "sea"

    def is_coastal(self, p: str) -> bool:
        return self.terrain[p] == "coast"

    def can_hold(self, kind: str, loc: str) -> bool:
        """May a unit of ``kind`` stand at ``loc`` (a fleet needs the coast if there are several)?"""
        p = province_of(loc)
        t = self.terrain.get(p)
        if t is None or t == "impassable":
            return False
        if kind == "A":
            return t in ("land", "coast") and "/" not in loc
        return loc in self.fleet_locs.get(p, ())

    def unit_locs(self, kind: str, p: str) -> tuple[str, ...]:
        if kind == "A":
            return (p,) if self.terrain.get(p) in ("land", "coast") else ()
        return self.fleet_locs.get(p, ())


def province_of(loc: str) -> str:
    i = loc.find("/")
    return loc if i < 0 else loc[:i]


class _ProvinceCache(dict):
    """``PROV[loc]``: the province of a location, as a dict look-up (the resolver's hot path)."""

    def __missing__(self, loc: str) -> str:
        p = self[loc] = province_of(loc)
        return p


PROV: dict[str, str] = _ProvinceCache()


# -- calendar ----------------------------------------------------------------------------------
MONTHS = frozenset(("january", "february", "march", "april", "may", "june", "july", "august",
                    "september", "october", "november", "december"))


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of the calendar: ``Spring 1901 Movement``."""

    season: str
    year: int
    kind: str  # movement | retreat | adjustment

    def __str__(self) -> str:
        return f"{self.season} {self.year} {self.kind.capitalize()}"

    @property
    def short(self) -> str:
        """njudge-style code: S1901M, F1901R, W1901A (first letter of the season).

        A season named after a month gets its first three letters (Jan1885M, Jun1885A,
        Jul1885M): one letter would be ambiguous in a calendar of months (1885 II).
        """
        head = self.season[:3].capitalize() if self.season.lower() in MONTHS else self.season[0].upper()
        return f"{head}{self.year}{self.kind[0].upper()}"


class Calendar:
    def __init__(self, seasons: list[tuple[str, tuple[str, ...]]], start: Phase):
        self.seasons = seasons
        self.start = start
        self._season_index = {s.lower(): i for i, (s, _) in enumerate(seasons)}
        self._abbrev: dict[str, str] = {}
        for s, _ in seasons:
            self._abbrev.setdefault(s[:3].lower(), s)
        self._parsed: dict[str, Phase] = {}  # parse() memo: every position names its phase
        self._next: dict[Phase, Phase] = {}  # following() memo

    def parse(self, text: str) -> Phase:
        """Parse ``"Spring 1901 Movement"`` (also ``"spring 1901 moves"``, ``"S1901M"``)."""
        try:
            return self._parsed[text]
        except (KeyError, TypeError):
            pass
        phase = self._parse(text)
        if isinstance(text, str) and len(self._parsed) < 4096:
            self._parsed[text] = phase
        return phase

    def _parse(self, text: str) -> Phase:
        t = text.strip()
        m = re.fullmatch(r"([A-Za-z]+)\s*(\d{3,4})\s*([A-Za-z]+)", t)
        if not m:
            raise ValueError(f"not a phase name: {text!r} (expected e.g. 'Spring 1901 Movement')")
        season_txt, year, kind_txt = m.group(1).lower(), int(m.group(2)), m.group(3).lower()
        season = None
        if season_txt in self._season_index:
            season = self.seasons[self._season_index[season_txt]][0]
        elif season_txt[:3] in self._abbrev and len(season_txt) >= 3:
            season = self._abbrev[season_txt[:3]]
        else:
            matches = [s for s, _ in self.seasons if s.lower().startswith(season_txt)]
            # A month needs three letters even where fewer would do here: "S1886M" or "F1885M"
            # mean Spring and Fall in the standard codes, not September and February (1885 II).
            if len(matches) == 1 and (len(season_txt) >= 3 or matches[0].lower() not in MONTHS):
                season = matches[0]
            elif len(matches) == 1:
                raise ValueError(f"season {m.group(1)!r} in {text!r} is too short: write a month with at least "
                                 f"three letters ({matches[0][:3]})")
            elif matches:
                raise ValueError(f"ambiguous season {m.group(1)!r} in {text!r} "
                                 f"({', '.join(matches)}: write at least three letters)")
        if season is None:
            raise ValueError(f"unknown season {m.group(1)!r} in {text!r}")
        kinds = [k for k in PHASE_KINDS if k.startswith(kind_txt[:1])]
        if kind_txt.startswith(("build", "adj", "winter", "b")):
            kinds = ["adjustment"]
        if len(kinds) != 1:
            raise ValueError(f"unknown phase kind {m.group(3)!r} in {text!r}")
        phase = Phase(season, year, kinds[0])
        if kinds[0] not in self.phases_of(season):
            raise ValueError(f"{season} has no {kinds[0]} phase in this variant")
        return phase

    def phases_of(self, season: str) -> tuple[str, ...]:
        return self.seasons[self._season_index[season.lower()]][1]

    def order_key(self, phase: Phase) -> tuple[int, int, int]:
        si = self._season_index[phase.season.lower()]
        return (phase.year, si, self.seasons[si][1].index(phase.kind))

    def following(self, phase: Phase) -> Phase:
        """The phase after ``phase`` in the calendar (nothing skipped)."""
        nxt = self._next.get(phase)
        if nxt is None:
            nxt = self._following(phase)
            if len(self._next) < 4096:
                self._next[phase] = nxt
        return nxt

    def _following(self, phase: Phase) -> Phase:
        si = self._season_index[phase.season.lower()]
        kinds = self.seasons[si][1]
        ki = kinds.index(phase.kind)
        if ki + 1 < len(kinds):
            return Phase(phase.season, phase.year, kinds[ki + 1])
        year = phase.year
        si += 1
        if si == len(self.seasons):
            si, year = 0, year + 1
        season, kinds = self.seasons[si]
        return Phase(season, year, kinds[0])


# -- powers and variant ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Power:
    """A power of the variant as the seed describes it."""

    name: str
    abbrev: str
    letter: str
    adjective: str
    home: tuple[str, ...]  # province ids
    build_sites: tuple[str, ...]
    units: tuple[str, ...]  # "F Lon" as written
    centres: tuple[str, ...]
    colour: str
    choice_units: tuple[str, ...] = ()


@dataclass
class Variant:
    """A loaded seed: the map, the powers, the rules and the calendar of one variant."""

    name: str
    title: str
    path: Path
    map: Map
    powers: dict[str, Power]  # by name, in file order
    rules: dict[str, Any]
    victory: dict[str, Any]
    calendar: Calendar
    changes: list[tuple[Phase, Map, frozenset[str], frozenset[str]]]  # (after, map, removed, added)
    raw: dict[str, Any]
    # every calendar the variant may be played with, by name (the rule switch ``calendar``); the
    # first is ``[calendar]``, the variant's own
    calendars: dict[str, Calendar] = field(default_factory=dict)

    @property
    def calendar_name(self) -> str:
        """The name of the calendar this variant object plays (``[calendar] name``)."""
        for name, cal in self.calendars.items():
            if cal is self.calendar:
                return name
        return DEFAULT_CALENDAR

    def calendar_named(self, name: str | None) -> Calendar:
        """The calendar called ``name`` (empty or ``default``: the variant's own); VariantError if none."""
        key = str(name or "").strip().lower()
        if key in ("", DEFAULT_CALENDAR):
            return next(iter(self.calendars.values()), self.calendar)
        for n, cal in self.calendars.items():
            if n.lower() == key:
                return cal
        raise VariantError(f"variant {self.name} has no calendar {name!r} (calendars: "
                           f"{', '.join(self.calendars) or DEFAULT_CALENDAR})")

    def with_rules(self, rules: dict[str, Any]) -> "Variant":
        """This variant as the game's rules play it: with the calendar the rule ``calendar`` names.
        The same object for the same choice (positions compare variants by identity)."""
        cal = self.calendar_named(rules.get("calendar"))
        if cal is self.calendar:
            return self
        shared = self.__dict__.setdefault("_with_calendar", {id(self.calendar): self})
        v = shared.get(id(cal))
        if v is None:
            v = shared[id(cal)] = replace(self, calendar=cal)
            v.__dict__["_with_calendar"] = shared
        return v

    def power(self, name: str) -> Power | None:
        """A power by name, abbreviation, adjective or letter (any case)."""
        index = self.__dict__.get("_power_index")
        if index is None:
            index = {}
            for p in self.powers.values():
                for key in (p.letter.lower(), norm(p.adjective), norm(p.abbrev), norm(p.name)):
                    index[key] = p  # later keys win: a full name beats another power's letter
            for p in self.powers.values():  # the name as printed, without normalising it again
                index.setdefault(p.name, index[norm(p.name)])
            self.__dict__["_power_index"] = index
        got = index.get(name)
        if got is None:
            got = index.get(norm(name))
            if got is not None and len(index) < 1024:  # "ENGLAND", "england": as other tools write it
                index[name] = got
        return got

    def map_at(self, phase: Phase | str) -> Map:
        """The map in force during ``phase`` (after every change scheduled before it)."""
        if not self.changes:  # most variants: one map (every position read asks)
            return self.map
        if isinstance(phase, str):
            phase = self.calendar.parse(phase)
        key = self.calendar.order_key(phase)
        m = self.map
        for after, changed, _, _ in self.changes:
            if self.calendar.order_key(after) < key:
                m = changed
        return m

    def changes_after(self, phase: Phase) -> list[tuple[Phase, Map, frozenset[str], frozenset[str]]]:
        """Map changes that take effect right after ``phase`` is processed."""
        if not self.changes:  # most variants (asked at every phase's end)
            return []
        return [c for c in self.changes if c[0] == phase]

    def start_position(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variant": self.name,
            "phase": str(self.calendar.start),
            "units": {p.name: list(p.units) for p in self.powers.values()},
            "centers": {p.name: [self.map.display(c) for c in p.centres] for p in self.powers.values()},
            "dislodged": {},
        }
        hidden = {self.map.display(c): p.name for p in self.powers.values() for c in p.choice_units}
        if hidden:  # start units whose kind the owner tells with the first orders (1885 II rule 3)
            out["extra"] = {HIDDEN_UNITS: hidden}
        return out


# -- loading ------------------------------------------------------------------------------------
#: (name, seeds_dir) -> (SEEDS_DIR when seeds_dir is None, the seed file, its mtime, the variant):
#: load_variant's answers, each given again while its file's mtime is unchanged
_LOADED: dict[tuple[str, Any], tuple[Path | None, str, int, Variant]] = {}


def load_variant(name: str, seeds_dir: Path | None = None) -> Variant:
    """Load ``seeds/<name>.toml`` (cached per file); raise :class:`VariantError` if invalid.

    Every order mail loads its game's variant: a variant loaded before comes back for one
    ``stat`` of its file (an edited seed, a later mtime, is read again), without the Path
    arithmetic and the Path-keyed cache look-ups of a first load."""
    known = _LOADED.get((name, seeds_dir))
    if known is not None and (seeds_dir is not None or known[0] is SEEDS_DIR):
        try:
            if os.stat(known[1]).st_mtime_ns == known[2]:
                return known[3]
        except OSError:  # gone: said below
            pass
    directory = Path(seeds_dir) if seeds_dir else SEEDS_DIR
    path = directory / f"{name.lower()}.toml"
    try:
        mtime = path.stat().st_mtime_ns  # before reading it: a change after this is seen next time
    except OSError:
        if path.exists():
            raise
        known_names = ", ".join(available_variants(directory))
        raise VariantError(f"unknown variant {name!r} (known variants: {known_names})") from None
    if _kind(path, mtime) != "diplomacy":
        raise VariantError(f"{path.name} is not a Diplomacy variant (kind = {_kind(path, mtime)!r})")
    v = _load_path(path, mtime)
    if len(_LOADED) >= 64:
        _LOADED.clear()
    _LOADED[(name, seeds_dir)] = (SEEDS_DIR if seeds_dir is None else None, str(path), mtime, v)
    return v


def forget_loaded_variants() -> None:
    """Drop every variant loaded (as a new process starts): for tests of a first load."""
    _LOADED.clear()
    _load_path.cache_clear()
    _kind.cache_clear()


def load_variant_file(path: str | Path) -> Variant:
    path = Path(path)
    return _load_path(path, path.stat().st_mtime_ns)


def available_variants(seeds_dir: Path | None = None) -> list[str]:
    """Diplomacy variants only: a seed whose top-level ``kind`` names another game is left out."""
    return sorted(p.stem for p in (seeds_dir or SEEDS_DIR).glob("*.toml")
                  if _kind(p, p.stat().st_mtime_ns) == "diplomacy")


_TABLE_HEADER = re.compile(r"^[ \t]*\[", re.M)


@lru_cache(maxsize=64)
def _kind(path: Path, _mtime: int) -> str:
    """The seed's ``kind`` (default ``diplomacy``); unreadable files count as Diplomacy so they fail loudly."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return "diplomacy"
    data = _cached_seed(path, text)
    if data is not None:
        kind = data.get("kind", "diplomacy")
    else:
        import tomllib  # (only to read a seed: most processes take it from the cache below)

        try:
            # top-level keys come before the first table header: read only those (the file is read
            # whole just after); cut inside a multi-line value the head does not parse: read it all
            head = _TABLE_HEADER.split(text, 1)[0]
            try:
                kind = tomllib.loads(head).get("kind", "diplomacy")
            except tomllib.TOMLDecodeError:
                kind = tomllib.loads(text).get("kind", "diplomacy")
        except tomllib.TOMLDecodeError:
            return "diplomacy"
    return kind if isinstance(kind, str) else "diplomacy"


@lru_cache(maxsize=64)
def _load_path(path: Path, _mtime: int) -> Variant:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise VariantError(f"{path}: cannot read: {exc}") from None
    data = _cached_seed(path, text)
    if data is None:
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise VariantError(f"{path}: cannot read: {exc}") from None
        _cache_seed(path, text, data)
    return _Loader(path, data).variant()


# A seed's parsed TOML is kept beside it (``__pycache__/<name>.toml.marshal``, with the text it was
# read from), as Python keeps byte code: reading the TOML was most of a process's first phase and
# tomllib a tenth of its start-up. Used only for the very same text; written only where Python
# writes byte code (not under PYTHONDONTWRITEBYTECODE), never an error when it cannot be.
def _seed_cache(path: Path) -> Path:
    return path.parent / "__pycache__" / f"{path.name}.marshal"


def _cached_seed(path: Path, text: str) -> dict[str, Any] | None:
    import marshal

    try:
        kept = marshal.loads(_seed_cache(path).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if type(kept) is not tuple or len(kept) != 2 or kept[0] != text or type(kept[1]) is not dict:
        return None
    return kept[1]


def _cache_seed(path: Path, text: str, data: dict[str, Any]) -> None:
    import marshal
    import os

    if sys.dont_write_bytecode:
        return
    try:
        blob = marshal.dumps((text, data))  # (ValueError: a value marshal does not take, e.g. a date)
        cache = _seed_cache(path)
        cache.parent.mkdir(exist_ok=True)
        part = cache.with_name(f"{cache.name}.{os.getpid()}")
        part.write_bytes(blob)
        os.replace(part, cache)  # whole or not at all, whoever reads it meanwhile
    except (OSError, ValueError):
        pass


class _Loader:
    def __init__(self, path: Path, data: dict[str, Any]):
        self.path = path
        self.data = data
        try:
            self.where = str(path.relative_to(SEEDS_DIR.parent))
        except ValueError:
            self.where = str(path)

    def fail(self, entry: str, message: str) -> VariantError:
        return VariantError(f"{self.where}: {entry}: {message}")

    def variant(self) -> Variant:
        d = self.data
        meta = d.get("variant", {})
        name = str(meta.get("name", self.path.stem))
        if name.lower() != self.path.stem.lower():
            raise self.fail("variant.name", f"{name!r} does not match the file name {self.path.stem!r}")
        coast_names = dict(DEFAULT_COASTS)
        coast_names.update(d.get("coast_names", {}))
        provinces_raw = d.get("provinces")
        if not isinstance(provinces_raw, dict) or not provinces_raw:
            raise self.fail("provinces", "no provinces defined")
        # [variant] not_centres: provinces marked `sc = true` that this variant plays without a
        # centre (1885 II: one of 47 candidates), so the choice is one line of data
        not_centres = meta.get("not_centres", [])
        if not_centres:
            provinces_raw = dict(provinces_raw)
            for key in not_centres:
                k = self._find_key(provinces_raw, str(key), "variant.not_centres")
                provinces_raw[k] = {**provinces_raw[k], "sc": False}
        base = self.build_map(provinces_raw, coast_names, "provinces")
        calendar = self.calendar(d.get("calendar", {}))
        calendars = {str(d.get("calendar", {}).get("name", DEFAULT_CALENDAR)).lower(): calendar}
        for cname, craw in (d.get("calendars") or {}).items():
            if cname.lower() in calendars or cname.lower() == DEFAULT_CALENDAR:
                raise self.fail(f"calendars.{cname}", "a calendar of that name is defined already")
            calendars[cname.lower()] = self.calendar(craw, f"calendars.{cname}")
        changes = []
        current = dict(provinces_raw)
        for i, ch in enumerate(d.get("changes", [])):
            entry = f"changes[{i}]"
            try:
                after = calendar.parse(str(ch["after"]))
                for other in calendars.values():  # a map change must fall on a phase of every calendar
                    other.parse(str(ch["after"]))
            except (KeyError, ValueError) as exc:
                raise self.fail(f"{entry}.after", str(exc)) from None
            for key, prov in ch.get("provinces", {}).items():
                current[key] = prov
            for key in ch.get("remove_centres", []):
                k = self._find_key(current, key, f"{entry}.remove_centres")
                current[k] = {**current[k], "sc": False}
            for key in ch.get("add_centres", []):
                k = self._find_key(current, key, f"{entry}.add_centres")
                current[k] = {**current[k], "sc": True}
            m = self.build_map(current, coast_names, f"{entry}.provinces")
            removed = frozenset(self._find_key(current, k, entry).lower() for k in ch.get("remove_centres", []))
            added = frozenset(self._find_key(current, k, entry).lower() for k in ch.get("add_centres", []))
            changes.append((after, m, removed, added))
        try:
            rules = merge_rules(d.get("rules", {}))
        except RuleError as exc:
            raise self.fail("rules", str(exc)) from None
        powers = self.powers(d.get("powers", {}), base)
        sc_count = meta.get("sc_count")
        if sc_count is not None and len(base.centres) != int(sc_count):
            raise self.fail("variant.sc_count", f"{sc_count} declared but the map has {len(base.centres)} supply centres")
        victory = dict(d.get("victory", {}))
        if "centres" not in victory:
            victory["centres"] = len(base.centres) // 2 + 1
        return Variant(name=name, title=str(meta.get("title", name)), path=self.path, map=base, powers=powers,
                       rules=rules, victory=victory, calendar=calendar, changes=changes, raw=d,
                       calendars=calendars)

    def _find_key(self, provinces: dict[str, Any], key: str, entry: str) -> str:
        for k in provinces:
            if k.lower() == key.lower():
                return k
        raise self.fail(entry, f"unknown province {key!r}")

    def calendar(self, cal: dict[str, Any], entry: str = "calendar") -> Calendar:
        seasons_raw = cal.get("seasons") or [
            {"name": "Spring", "phases": ["movement", "retreat"]},
            {"name": "Fall", "phases": ["movement", "retreat"]},
            {"name": "Winter", "phases": ["adjustment"]},
        ]
        seasons = []
        for i, s in enumerate(seasons_raw):
            phases = tuple(str(p).lower() for p in s.get("phases", ()))
            bad = [p for p in phases if p not in PHASE_KINDS]
            if not phases or bad:
                raise self.fail(f"{entry}.seasons[{i}]", f"phases must be some of {PHASE_KINDS}, got {list(phases)}")
            seasons.append((str(s["name"]), phases))
        provisional = Calendar(seasons, Phase(seasons[0][0], 1901, seasons[0][1][0]))
        try:
            start = provisional.parse(str(cal.get("start", f"{seasons[0][0]} 1901 {seasons[0][1][0]}")))
        except ValueError as exc:
            raise self.fail(f"{entry}.start", str(exc)) from None
        return Calendar(seasons, start)

    def build_map(self, raw: dict[str, Any], coast_names: dict[str, str], entry: str) -> Map:
        keys = {k.lower(): k for k in raw}
        provinces: dict[str, Province] = {}
        for key, pr in raw.items():
            e = f"{entry}.{key}"
            terrain = pr.get("terrain")
            if terrain not in TERRAINS:
                raise self.fail(f"{e}.terrain", f"must be one of {TERRAINS}, got {terrain!r}")
            coasts = tuple(str(c).lower() for c in pr.get("coasts", {}))
            for c in coasts:
                if c not in coast_names:
                    raise self.fail(f"{e}.coasts", f"unknown coast {c!r} (declare it in [coast_names])")
            if coasts and terrain != "coast":
                raise self.fail(f"{e}.coasts", "only a coastal province can have coasts")
            if coasts and "fleet" in pr:
                raise self.fail(f"{e}.fleet", "a province with coasts lists its fleet moves under coasts.<coast>")
            pos = tuple(pr["pos"]) if "pos" in pr else None
            cpos = {c: tuple(v) for c, v in pr.get("coast_pos", {}).items()}
            provinces[key.lower()] = Province(key=key, name=str(pr.get("name", key)), terrain=terrain,
                                              sc=bool(pr.get("sc", False)), coasts=coasts,
                                              aliases=tuple(str(a) for a in pr.get("aliases", ())),
                                              pos=pos, coast_pos=cpos)  # type: ignore[arg-type]

        def loc_of(name: str, e: str, fleet: bool = True) -> str:
            p, _, coast = name.lower().partition("/")
            if p not in provinces:
                raise self.fail(e, f"unknown province {name!r}")
            if coast and coast not in provinces[p].coasts:
                raise self.fail(e, f"{provinces[p].key} has no coast {coast!r}")
            if fleet and not coast and provinces[p].coasts:
                raise self.fail(e, f"{name!r} must name a coast of {provinces[p].key} ({', '.join(provinces[p].coasts)})")
            return f"{p}/{coast}" if coast else p

        army: dict[str, frozenset[str]] = {}
        fleet: dict[str, frozenset[str]] = {}
        for key, pr in raw.items():
            p = key.lower()
            t = provinces[p].terrain
            e = f"{entry}.{key}"
            if "army" in pr:
                if t not in ("land", "coast") and pr["army"]:
                    raise self.fail(f"{e}.army", f"a {t} province cannot have army moves")
                army[p] = frozenset(loc_of(n, f"{e}.army", fleet=False) for n in pr["army"])
                for n in army[p]:
                    if "/" in n:
                        raise self.fail(f"{e}.army", "army moves do not name coasts")
            elif t in ("land", "coast"):
                army[p] = frozenset()
            if provinces[p].coasts:
                for c in provinces[p].coasts:
                    fleet[f"{p}/{c}"] = frozenset(loc_of(n, f"{e}.coasts.{c}") for n in pr["coasts"][c])
            elif "fleet" in pr:
                if t not in ("coast", "sea") and pr["fleet"]:
                    raise self.fail(f"{e}.fleet", f"a {t} province cannot have fleet moves")
                fleet[p] = frozenset(loc_of(n, f"{e}.fleet") for n in pr["fleet"])
            elif t in ("coast", "sea"):
                fleet[p] = frozenset()
        # symmetry and sanity
        for p, ns in army.items():
            for n in ns:
                if n == p:
                    raise self.fail(f"{entry}.{provinces[p].key}.army", "a province cannot neighbour itself")
                if provinces[n].terrain not in ("land", "coast"):
                    raise self.fail(f"{entry}.{provinces[p].key}.army", f"{provinces[n].key} is {provinces[n].terrain}, not land")
                if p not in army.get(n, ()):
                    raise self.fail(f"{entry}.{provinces[p].key}.army",
                                    f"{provinces[n].key!r} does not list {provinces[p].key!r} (adjacency must be symmetric)")
        for loc, ns in fleet.items():
            for n in ns:
                where = f"{entry}.{_entry_of(provinces, loc)}"
                if province_of(n) == province_of(loc):
                    raise self.fail(where, "a province cannot neighbour itself")
                if loc not in fleet.get(n, ()):
                    raise self.fail(where, f"{_disp(provinces, n)!r} does not list {_disp(provinces, loc)!r} (adjacency must be symmetric)")
        for p, prov in provinces.items():
            if prov.terrain in ("coast", "sea"):
                for loc in (f"{p}/{c}" for c in prov.coasts) if prov.coasts else (p,):
                    if not fleet.get(loc) and prov.terrain == "sea":
                        raise self.fail(f"{entry}.{_entry_of(provinces, loc)}", "sea space is not reachable by any fleet")
                    if prov.coasts and not fleet.get(loc):
                        raise self.fail(f"{entry}.{_entry_of(provinces, loc)}", "coast is not reachable by any fleet")
        seen: dict[str, str] = {}
        for p, prov in provinces.items():
            for a in {norm(x) for x in (prov.key, prov.name, *prov.aliases)}:
                if a in seen and seen[a] != p:
                    raise self.fail(f"{entry}.{prov.key}.aliases",
                                    f"alias {a!r} also names {provinces[seen[a]].key}")
                seen[a] = p
        del keys
        return Map(provinces, army, fleet, coast_names)

    def powers(self, raw: dict[str, Any], m: Map) -> dict[str, Power]:
        if not raw:
            raise self.fail("powers", "no powers defined")
        out: dict[str, Power] = {}
        letters: dict[str, str] = {}
        owned: dict[str, str] = {}
        for name, pw in raw.items():
            e = f"powers.{name}"

            def prov_list(field_name: str, default: Iterable[str] = ()) -> tuple[str, ...]:
                res = []
                for n in pw.get(field_name, default):
                    p = m.lookup(n)
                    if p is None:
                        raise self.fail(f"{e}.{field_name}", f"unknown province {n!r}")
                    res.append(p)
                return tuple(res)

            home = prov_list("home")
            for h in home:
                if not m.provinces[h].sc:
                    raise self.fail(f"{e}.home", f"{m.provinces[h].key} is not a supply centre")
            centres = prov_list("centres", pw.get("home", ()))
            for c in centres:
                if not m.provinces[c].sc:
                    raise self.fail(f"{e}.centres", f"{m.provinces[c].key} is not a supply centre")
                if c in owned:
                    raise self.fail(f"{e}.centres", f"{m.provinces[c].key} is also owned by {owned[c]}")
                owned[c] = name
            units = tuple(str(u) for u in pw.get("units", ()))
            for u in units:
                parts = u.split()
                if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
                    raise self.fail(f"{e}.units", f"bad unit {u!r} (write e.g. 'F Lon' or 'F StP/sc')")
                p, _, coast = parts[1].partition("/")
                pid = m.lookup(p)
                if pid is None:
                    raise self.fail(f"{e}.units", f"unknown province in {u!r}")
                loc = f"{pid}/{coast.lower()}" if coast else pid
                if not m.can_hold(parts[0].upper(), loc):
                    raise self.fail(f"{e}.units", f"a {'fleet' if parts[0].upper() == 'F' else 'army'} cannot stand at {parts[1]}")
            letter = str(pw.get("letter", name[0])).upper()
            if letter in letters:
                raise self.fail(f"{e}.letter", f"{letter!r} is also the letter of {letters[letter]}")
            letters[letter] = name
            out[name] = Power(name=name, abbrev=str(pw.get("abbrev", name[:3].upper())), letter=letter,
                              adjective=str(pw.get("adjective", name)), home=home,
                              build_sites=prov_list("build_sites"), units=units, centres=centres,
                              colour=str(pw.get("colour", "#888888")), choice_units=prov_list("choice_units"))
        return out


def _entry_of(provinces: dict[str, Province], loc: str) -> str:
    p, _, coast = loc.partition("/")
    return f"{provinces[p].key}.coasts.{coast}" if coast else f"{provinces[p].key}.fleet"


def _disp(provinces: dict[str, Province], loc: str) -> str:
    p, _, coast = loc.partition("/")
    return f"{provinces[p].key}/{coast}" if coast else provinces[p].key
