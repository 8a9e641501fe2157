"""The board between phases: units, supply-centre owners, dislodged units.

Positions are read from and written to the documented position JSON::

    {"variant": "standard", "phase": "Spring 1901 Movement",
     "units": {"England": ["F Lon", "A Lvp", "F StP/sc"]},
     "centers": {"England": ["Lon", "Edi", "Lvp"]},
     "dislodged": {"Germany": [{"unit": "A Mun", "from": "Boh", "retreats": ["Sil", "Tyr"]}]}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any, Callable

from judge.variant import PROV, Map, Phase, Variant

UNIT_KINDS = ("A", "F", "A/F")
KIND_WORD = {"A": "army", "F": "fleet", "A/F": "army/fleet"}


class PositionError(ValueError):
    """A position that cannot be read (names the bad entry)."""


class Unit:
    """A unit on the board. ``prov`` (the province without coast) is kept beside ``loc``. A unit
    is never changed once made (a unit that moves or changes is a new one): positions share them,
    the next board the units that stayed, and positions read the same unit text the same object."""

    __slots__ = ("power", "kind", "loc", "prov")

    def __init__(self, power: str, kind: str, loc: str):
        self.power = power
        self.kind = kind  # "A", "F" or "A/F"
        self.loc = loc  # internal location id ("stp/nc"); a unit changing coast keeps its province
        self.prov = PROV[loc]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and (self.power, self.kind, self.loc) == (other.power, other.kind, other.loc)

    def __hash__(self) -> int:
        return hash((self.power, self.kind, self.loc))

    def __repr__(self) -> str:
        return f"Unit({self.power!r}, {self.kind!r}, {self.loc!r})"

    def text(self, m: Map) -> str:
        return f"{self.kind} {m.display(self.loc)}"


@dataclass(slots=True)
class Dislodged:
    """A unit dislodged in the last movement, waiting for its retreat."""

    unit: Unit
    attacker_from: str | None  # province the dislodging attack came from (None: by convoy)
    retreats: tuple[str, ...]  # locations the unit may retreat to


@dataclass
class Position:
    """The board of one phase of a game of ``variant``."""

    variant: Variant
    phase: Phase
    units: dict[str, Unit]  # province id -> unit
    centres: dict[str, str]  # province id -> owning power
    dislodged: dict[str, Dislodged] = field(default_factory=dict)  # province id -> dislodged unit
    extra: dict[str, Any] = field(default_factory=dict)  # variant module state (e.g. A/F rations)

    @property
    def map(self) -> Map:
        v = self.variant
        return v.map_at(self.phase) if v.changes else v.map  # most variants never change their map

    def copy(self) -> "Position":
        return Position(self.variant, self.phase, dict(self.units), dict(self.centres), dict(self.dislodged),
                        {k: (v.copy() if hasattr(v, "copy") else v) for k, v in self.extra.items()})

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centres_of(self, power: str) -> list[str]:
        return [c for c, p in self.centres.items() if p == power]

    # -- JSON --------------------------------------------------------------------------------
    @classmethod
    def from_json(cls, data: dict[str, Any], variant: Variant, *,
                  retreats_of: Callable[["Position", Dislodged], tuple[str, ...]] | None = None) -> "Position":
        """Read a position. A dislodged unit given without ``retreats`` gets ``retreats_of(position,
        dislodged)``; without ``retreats_of`` that is an error. Which retreats a unit has depends on
        the rules (the A/F module has its own), so the board does not decide it:
        :func:`judge.engine.read_position` reads a position with the rules' answer."""
        if type(data) is dict:
            pos = cls._read_known(data, variant)
            if pos is not None:
                return pos
        if not isinstance(data, dict):
            raise PositionError("position must be a JSON object")
        try:
            phase = variant.calendar.parse(str(data.get("phase", variant.calendar.start)))
        except ValueError as exc:
            raise PositionError(f"phase: {exc}") from None
        m = variant.map_at(phase)
        extra = dict(data.get("extra") or {})
        raw_units = data.get("units")
        if raw_units is None:  # no units: the variant's start (with its hidden start units, in its first phase)
            start = variant.start_position()
            raw_units = start["units"]
            if phase == variant.calendar.start:
                extra = {**start.get("extra", {}), **extra}
        units: dict[str, Unit] = {}
        known = m.units_read  # parse_unit's memo, looked at here first (a few hundred texts a map)
        for pname, ulist in (raw_units or {}).items():
            power = _power(variant, pname, "units")
            for text in ulist or ():
                hit = known.get(text) if type(text) is str else None
                u = Unit(power, hit[0], hit[1]) if hit is not None else parse_unit(text, m, power, f"units.{pname}")
                if u.prov in units:
                    raise PositionError(f"units.{pname}: two units in {m.provinces[u.prov].key}")
                units[u.prov] = u
        centres: dict[str, str] = {}
        raw_centres = data.get("centers", data.get("centres"))
        if raw_centres is None:
            for p in variant.powers.values():
                for c in p.centres:
                    centres[c] = p.name
        else:
            read = m.centres_read  # centre names read well before -> province id
            for pname, clist in raw_centres.items():
                power = _power(variant, pname, "centers")
                for c in clist or ():
                    pid = read.get(c) if type(c) is str else None
                    if pid is None:
                        pid = m.lookup(c)
                        if pid is None:
                            raise PositionError(f"centers.{pname}: unknown province {c!r}")
                        if pid not in m.centres:
                            raise PositionError(f"centers.{pname}: {m.provinces[pid].key} is not a supply centre")
                        if type(c) is str and len(read) < 4096:
                            read[c] = pid
                    centres[pid] = power
        dislodged: dict[str, Dislodged] = {}
        unknown_options: list[str] = []
        for pname, dlist in (data.get("dislodged") or {}).items():
            power = _power(variant, pname, "dislodged")
            for d in dlist or ():
                if isinstance(d, str):
                    d = {"unit": d}
                u = parse_unit(str(d.get("unit", "")), m, power, f"dislodged.{pname}")
                src = d.get("from")
                src_id = None
                if src:
                    src_id = m.lookup(src)
                    if src_id is None:
                        raise PositionError(f"dislodged.{pname}: unknown province {src!r}")
                if "retreats" in d:
                    retreats = tuple(parse_loc(r, m, f"dislodged.{pname}.retreats") for r in d["retreats"])
                    dislodged[u.prov] = Dislodged(u, src_id, retreats)
                else:
                    dislodged[u.prov] = Dislodged(u, src_id, ())
                    unknown_options.append(u.prov)
        if dislodged and phase.kind != "retreat":
            raise PositionError(f"dislodged: units are dislodged only in a retreat phase, not in {phase}")
        pos = cls(variant, phase, units, centres, dislodged, extra)
        if unknown_options:  # retreat options not given: the caller's rules work them out
            if retreats_of is None:
                raise PositionError(f"dislodged: the retreats of the unit in {m.display(unknown_options[0])} "
                                    "are not given")
            for prov in unknown_options:
                d = pos.dislodged[prov]
                pos.dislodged[prov] = Dislodged(d.unit, d.attacker_from, retreats_of(pos, d))
        return pos

    @classmethod
    def _read_known(cls, data: dict[str, Any], variant: Variant) -> "Position | None":
        """``from_json`` of a position written only with what positions read before have taught the
        map's memos (unit texts, centre names, power names), no dislodged unit, nothing repeated;
        else None, and from_json reads it with every check and its messages. The batch reads one
        position a phase, almost always such a one."""
        raw_units, raw_centres = data.get("units"), data.get("centers", data.get("centres"))
        if type(raw_units) is not dict or type(raw_centres) is not dict or data.get("dislodged"):
            return None
        try:
            phase = variant.calendar.parse(str(data.get("phase", variant.calendar.start)))
        except ValueError:
            return None
        m = variant.map_at(phase)
        power_of, known, read, made = variant.power, m.units_read, m.centres_read, m.units_made
        named = variant.__dict__.get("_power_index") or {}  # Variant.power's own memo, looked at here first
        units: dict[str, Unit] = {}
        centres: dict[str, str] = {}
        given = 0  # units written: more than the board holds when two stand in one province
        try:
            for pname, ulist in raw_units.items():
                p = named.get(pname) or power_of(pname)
                if p is None or type(ulist) is not list:
                    return None
                power = p.name
                mine = made.get(power)
                if mine is None:
                    mine = made[power] = {}
                for text in ulist:
                    try:
                        u = mine[text]  # a unit read before is shared, not made again (a fifth of this reading)
                    except KeyError:
                        if text not in known and not _learnt(text, m):
                            return None
                        kind, loc = known[text]  # (bounded: only the texts units_read holds are kept)
                        u = mine[text] = Unit(power, kind, loc)
                    units[u.prov] = u
                given += len(ulist)
            if given != len(units):
                return None
            for pname, clist in raw_centres.items():
                p = named.get(pname) or power_of(pname)
                if p is None or type(clist) is not list:
                    return None
                power = p.name
                for c in clist:
                    centres[read[c]] = power
        except (KeyError, TypeError):  # a name not read before (or no string: a list...)
            return None
        extra = data.get("extra")
        return cls(variant, phase, units, centres, {}, dict(extra) if extra else {})

    def to_json(self) -> dict[str, Any]:
        m = self.map
        shown = m.display
        texts = m.units_written  # (kind, loc) -> "F StP/sc", per map
        units: dict[str, list[str]] = {p: [] for p in self.variant.powers}
        for u in sorted(self.units.values(), key=_loc_of):
            text = texts.get((u.kind, u.loc))
            if text is None:
                text = texts[(u.kind, u.loc)] = f"{u.kind} {shown(u.loc)}"
            if u.power in units:
                units[u.power].append(text)
            else:
                units[u.power] = [text]
        centres: dict[str, list[str]] = {p: [] for p in self.variant.powers}
        for c, p in sorted(self.centres.items()):
            if p in centres:
                centres[p].append(shown(c))
            else:
                centres[p] = [shown(c)]
        out: dict[str, Any] = {"variant": self.variant.name, "phase": str(self.phase), "units": units,
                               "centers": centres, "dislodged": self._dislodged_json(m)}
        if self.extra:
            out["extra"] = self.extra
        return out

    def json_text(self) -> str:
        """The text of ``json.dumps(self.to_json(), ensure_ascii=False)``, written straight from the
        board: the batch writes one position a phase, and with unit and centre names kept quoted
        per map it needs neither to_json's lists nor the encoder's pass over them."""
        m = self.map
        quoted = _quoted_powers(self.variant)
        units: dict[str, list[str]] = {p: [] for p in self.variant.powers}
        texts = m.units_quoted  # kind -> loc -> '"F StP/sc"', per map (two lookups: no key tuple to make and hash)
        for u in sorted(self.units.values(), key=_loc_of):
            try:
                units[u.power].append(texts[u.kind][u.loc])
            except KeyError:  # a unit not written before on this map (or of a power the variant does not know)
                units.setdefault(u.power, []).append(_unit_quoted(u, m))
        centres: dict[str, list[str]] = {p: [] for p in self.variant.powers}
        names = m.shown_quoted  # province id -> '"StP"', per map
        owners = self.centres
        owner_of = owners.get
        # the map's centres in order, each looked up, cost less than the owned ones sorted each phase
        for c in m.centres_sorted if m.centres.issuperset(owners) else sorted(owners):
            p = owner_of(c)
            if p is None:  # (not owned)
                continue
            try:
                centres[p].append(names[c])
            except KeyError:
                centres.setdefault(p, []).append(names.setdefault(c, _quote(m.display(c))))
        dislodged = self._dislodged_text(m, quoted) if self.dislodged else "{}"
        extra = f', "extra": {_encode(self.extra)}' if self.extra else ""
        return (f'{{"variant": {_quote(self.variant.name)}, "phase": {_quote(str(self.phase))}, '
                f'"units": {_lists_text(units, quoted)}, "centers": {_lists_text(centres, quoted)}, '
                f'"dislodged": {dislodged}{extra}}}')

    def _dislodged_text(self, m: Map, quoted: dict[str, str]) -> str:
        """The text of ``_encode(self._dislodged_json(m))``, from json_text's per-map memos (most
        positions the batch writes are retreat phases)."""
        names = m.shown_quoted
        lists: dict[str, list[str]] = {}
        for d in sorted(self.dislodged.values(), key=_unit_loc_of):
            u = d.unit
            unit = _unit_quoted(u, m)
            src = d.attacker_from
            src_text = (names.get(src) or names.setdefault(src, _quote(m.display(src)))) if src else "null"
            retreats = ", ".join([names.get(r) or names.setdefault(r, _quote(m.display(r))) for r in d.retreats])
            lists.setdefault(u.power, []).append(f'{{"unit": {unit}, "from": {src_text}, "retreats": [{retreats}]}}')
        return _lists_text(lists, quoted)

    def _dislodged_json(self, m: Map) -> dict[str, list[dict[str, Any]]]:
        dislodged: dict[str, list[dict[str, Any]]] = {}
        for d in sorted(self.dislodged.values(), key=lambda d: d.unit.loc):
            dislodged.setdefault(d.unit.power, []).append({
                "unit": d.unit.text(m),
                "from": m.display(d.attacker_from) if d.attacker_from else None,
                "retreats": [m.display(r) for r in d.retreats],
            })
        return dislodged


#: the JSON text of a string and of any value, as ``json.dumps(value, ensure_ascii=False)`` writes them
_quote = encode_basestring
_encode = json.JSONEncoder(ensure_ascii=False).encode


def _quoted_powers(variant: Variant) -> dict[str, str]:
    """The variant's power names as JSON strings (kept on the variant)."""
    quoted = variant.__dict__.get("_quoted_powers")
    if quoted is None:
        quoted = variant.__dict__["_quoted_powers"] = {p: _quote(p) for p in variant.powers}
    return quoted


def _unit_quoted(u: Unit, m: Map) -> str:
    """A unit's text as JSON ('"F StP/sc"'), kept per map."""
    of_kind = m.units_quoted.get(u.kind)
    if of_kind is None:
        of_kind = m.units_quoted[u.kind] = {}
    text = of_kind.get(u.loc)
    if text is None:
        text = of_kind[u.loc] = _quote(u.text(m))
    return text


def _lists_text(lists: dict[str, list[str]], quoted: dict[str, str]) -> str:
    """A dict of power -> list of JSON strings, as JSON text."""
    return "{" + ", ".join([f"{quoted.get(p) or _quote(p)}: [{', '.join(items)}]" for p, items in lists.items()]) + "}"


_loc_of = attrgetter("loc")  # sort key: a unit's location
_unit_loc_of = attrgetter("unit.loc")  # sort key: a dislodged unit's location


def _power(variant: Variant, name: str, entry: str) -> str:
    p = variant.power(name)
    if p is None:
        raise PositionError(f"{entry}: unknown power {name!r} (powers: {', '.join(variant.powers)})")
    return p.name


def _learnt(text: Any, m: Map) -> bool:
    """Has ``parse_unit`` read the unit text ``text`` well and remembered it (``m.units_read``)?
    ``_read_known`` asks it of a text no position taught the map yet, rather than giving the
    whole position up to ``from_json`` (which reads every unit again, and raises the error a bad
    text has, in its place among the position's other checks)."""
    if type(text) is not str:
        return False
    try:
        parse_unit(text, m, "", "")
    except PositionError:
        return False
    return text in m.units_read  # (not when the memo is full)


def parse_loc(text: str, m: Map, entry: str) -> str:
    """A location as positions write it: "StP/sc", and the coast forms other tools write
    ("stp/SC", "StP(sc)", "stp_sc", "Spa.nc"), names in any case."""
    raw = str(text).strip()
    p, _, coast = raw.partition("/")
    if not coast and raw.endswith(")") and "(" in raw:
        p, _, coast = raw[:-1].partition("(")
    elif not coast and ("_" in raw or "." in raw) and m.lookup(raw) is None:  # "stp_sc", "Spa.nc"
        p, _, coast = raw.replace(".", "_").rstrip("_").rpartition("_")
    pid = m.lookup(p)
    if pid is None:
        raise PositionError(f"{entry}: unknown province {text!r}")
    coast = coast.strip(" .").lower()
    if coast:
        if coast not in m.provinces[pid].coasts:
            raise PositionError(f"{entry}: {m.provinces[pid].key} has no coast {coast!r}")
        return f"{pid}/{coast}"
    return pid


def parse_unit(text: str, m: Map, power: str, entry: str) -> Unit:
    # positions repeat the same few hundred unit texts: each one read well is remembered, per map
    known = m.units_read
    hit = known.get(text) if isinstance(text, str) else None
    if hit is not None:
        return Unit(power, hit[0], hit[1])
    u = _parse_unit(text, m, power, entry)
    if len(known) < 4096:
        known[text] = (u.kind, u.loc)
    return u


def _parse_unit(text: str, m: Map, power: str, entry: str) -> Unit:
    parts = str(text).split()
    if len(parts) == 3 and "/" not in parts[1]:  # "F spa nc", "F Spa (nc)"
        parts = [parts[0], f"{parts[1]}/{parts[2].strip('()')}"]
    if len(parts) != 2 or parts[0].upper() not in UNIT_KINDS:
        raise PositionError(f"{entry}: bad unit {text!r} (write e.g. 'A Lvp', 'F StP/sc')")
    kind = parts[0].upper()
    loc = parse_loc(parts[1], m, entry)
    check_kind = "F" if kind == "A/F" else kind
    if not m.can_hold(check_kind, loc):
        if check_kind == "F" and "/" not in loc and m.provinces[loc].coasts:
            raise PositionError(f"{entry}: fleet in {m.provinces[loc].key} must name its coast")
        raise PositionError(f"{entry}: {KIND_WORD[kind]} cannot stand in {m.display(loc)}")
    if kind == "A/F":
        m.__dict__["af_read"] = True  # (see af_read)
    return Unit(power, kind, loc)


def af_read(m: Map) -> bool:
    """Has a unit text read on ``m`` named an army/fleet? Every unit of a position read from JSON
    was read by ``_parse_unit`` on its map (or made from its memo, units_read): without one, no
    position read on ``m`` holds an A/F, and the batch need not look at its units to know it."""
    return "af_read" in m.__dict__
