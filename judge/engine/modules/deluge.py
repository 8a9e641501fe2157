"""Deluge II (Tim Sharrock and Stephen Agar): a map that sinks.

Rules text: ``../shared/seeds/004_5240fdd735c3ce1b.txt``; notes: ``docs/variants/deluge2.md``;
rulings: ``docs/rulings.md`` (section "Deluge II"). The variant's data is ``seeds/deluge2.toml``.

Two halves:

* **Geometry** (pure functions over the seed's TOML data). Each land or coastal province lists its
  neighbours in clockwise order around its border (``[deluge.rings]``, ``"#"`` for the edge of the
  board). From those rings and the terrain in force, :func:`derive_maps` works out every map of the
  game: a coast is a maximal run of consecutive sea neighbours in the ring; a province with two or
  more runs has that many coasts (except the straits in ``[deluge].single_coast``: Kiel,
  Constantinople, Denmark, Sweden, single-coasted on the standard board); a fleet on a coast can move
  to the seas of its run and along the shore to the land neighbours that end the run (on their
  matching coast). Applied to the standard board this gives back exactly the standard map (a test
  checks it), so the same procedure is trusted for the maps after each submergence. The
  ``[[changes]]`` of the seed hold the result, written out in full; ``python -m
  judge.engine.modules.deluge`` prints them again from the tables (``submerge``, ``open``,
  ``add_centres``) after a game master changes a table.

* **Rules** (the rule module ``deluge``): builds on coasts the coming sinking creates, drowning,
  coasts for established fleets, ownership of new supply centres, the survivor rule.
"""

from __future__ import annotations

import math
from typing import Any

from judge.engine import modules
from judge.engine.adjustment import adjustments_due
from judge.engine.modules import RuleModule
from judge.engine.orders import Build, Order, OrderResult, Waive
from judge.engine.position import Position, Unit
from judge.variant import Map, province_of

EDGE = "#"
COMPASS = {"nc": (0.0, -1.0), "ec": (1.0, 0.0), "sc": (0.0, 1.0), "wc": (-1.0, 0.0)}  # y grows downwards


class GeometryError(ValueError):
    """Ring data that does not fit the map (names the province and the problem)."""


# ================================================================== geometry (pure data)
def sea_runs(ring: list[str], terrain: dict[str, str]) -> list[tuple[int, ...]]:
    """Maximal runs of consecutive sea neighbours in a cyclic ring, as tuples of ring indices.

    A ring that is all sea is one run (an island)."""
    n = len(ring)
    sea = [terrain.get(x.lower()) == "sea" for x in ring]
    if all(sea):
        return [tuple(range(n))]
    start = sea.index(False)
    out: list[tuple[int, ...]] = []
    cur: list[int] = []
    for k in range(1, n + 1):
        i = (start + k) % n
        if sea[i]:
            cur.append(i)
        elif cur:
            out.append(tuple(cur))
            cur = []
    return out


class Geometry:
    """The board's state during derivation: terrain, supply centres and named coasts."""

    def __init__(self, raw: dict[str, Any]):
        self.raw = raw
        provs = raw["provinces"]
        self.keys = {k.lower(): k for k in provs}
        dl = raw.get("deluge", {})
        self.rings = {k.lower(): [x if x == EDGE else x.lower() for x in ring]
                      for k, ring in dl.get("rings", {}).items()}
        self.single = {k.lower() for k in dl.get("single_coast", [])}
        self.terrain = {k.lower(): p["terrain"] for k, p in provs.items()}
        self.sc = {k.lower(): bool(p.get("sc", False)) for k, p in provs.items()}
        self.pos = {k.lower(): tuple(p["pos"]) for k, p in provs.items() if "pos" in p}
        self.base_sea_adj = {k.lower(): {x.lower() for x in p.get("fleet", []) if provs[self._key(x)]["terrain"] == "sea"}
                             for k, p in provs.items() if p["terrain"] == "sea"}
        self.check_rings()
        # coast name -> ring indices of the coast's runs; "" for a single coast
        self.coasts: dict[str, dict[str, frozenset[int]]] = {}
        for p, prov in provs.items():
            pid = p.lower()
            if self.terrain[pid] != "coast":
                continue
            runs = sea_runs(self.rings[pid], self.terrain)
            if not prov.get("coasts"):
                self.coasts[pid] = {"": frozenset(i for r in runs for i in r)}
                continue
            named: dict[str, frozenset[int]] = {}
            for c, locs in prov["coasts"].items():
                seas = {x.lower() for x in locs if self.terrain[province_of(x.lower())] == "sea"}
                match = [r for r in runs if {self.rings[pid][i] for i in r} == seas]
                if len(match) != 1:
                    raise GeometryError(f"{p}: coast {c} does not match one run of its ring")
                named[c] = frozenset(match[0])
            self.coasts[pid] = named

    def _key(self, name: str) -> str:
        return self.keys[province_of(name.lower())]

    def check_rings(self) -> None:
        """Every land/coast province has a ring; consecutive ring neighbours meet; rings agree
        with each other on every meeting point of three land provinces (same orientation)."""
        for pid, t in self.terrain.items():
            if t in ("land", "coast") and pid not in self.rings:
                raise GeometryError(f"{self.keys[pid]}: no ring in [deluge.rings]")
        for pid, ring in self.rings.items():
            if pid not in self.terrain:
                raise GeometryError(f"rings: unknown province {pid!r}")
            for x in ring:
                if x != EDGE and x not in self.terrain:
                    raise GeometryError(f"{self.keys[pid]}: ring names unknown province {x!r}")
            n = len(ring)
            for i in range(n):
                a, b = ring[i], ring[(i + 1) % n]
                if EDGE in (a, b) or a == b:
                    continue
                # (a, b) clockwise around pid: a's ring has (b, pid), b's ring has (pid, a)
                for x, pair in ((a, (b, pid)), (b, (pid, a))):
                    if x in self.rings and not _has_pair(self.rings[x], *pair):
                        raise GeometryError(f"{self.keys[pid]}: ring has {self.keys[a]}, {self.keys[b]} but "
                                            f"{self.keys[x]}'s ring lacks {self.keys[pair[0]]}, {self.keys[pair[1]]}")

    # -- one step of the calendar ------------------------------------------------------------
    def apply(self, submerge: list[str], open_: list[str], add_centres: list[str]) -> list[str]:
        """Sink and open provinces; recompute terrain and coasts. Returns the destroyed centres."""
        destroyed = []
        for k in submerge:
            p = k.lower()
            if self.sc[p]:
                destroyed.append(self.keys[p])
            self.terrain[p] = "sea"
            self.sc[p] = False
            self.coasts.pop(p, None)
        for k in open_:
            self.terrain[k.lower()] = "land"
        for k in add_centres:
            self.sc[k.lower()] = True
        for pid, ring in self.rings.items():
            t = self.terrain[pid]
            if t in ("sea", "impassable"):
                continue
            runs = sea_runs(ring, self.terrain)
            self.terrain[pid] = "coast" if runs else "land"
            if not runs:
                self.coasts.pop(pid, None)
                continue
            self.coasts[pid] = self._name_coasts(pid, runs)
        return destroyed

    def _name_coasts(self, pid: str, runs: list[tuple[int, ...]]) -> dict[str, frozenset[int]]:
        if pid in self.single or len(runs) == 1:
            return {"": frozenset(i for r in runs for i in r)}
        old = self.coasts.get(pid, {})
        names: dict[str, frozenset[int]] = {}
        unnamed: list[tuple[int, ...]] = []
        for r in runs:  # a run keeps the name of the old coast it grew from
            inherited = sorted(c for c, idx in old.items() if c and idx <= set(r))
            if inherited and inherited[0] not in names:
                names[inherited[0]] = frozenset(r)
            else:
                unnamed.append(r)
        # the rest are named by compass direction (from the province to the mean of the run's seas)
        ring = self.rings[pid]
        here = self.pos.get(pid, (0.0, 0.0))
        prefs = []
        for r in unnamed:
            pts = [self.pos[ring[i]] for i in r if ring[i] in self.pos]
            cx = sum(x for x, _ in pts) / len(pts) - here[0]
            cy = sum(y for _, y in pts) / len(pts) - here[1]
            length = math.hypot(cx, cy) or 1.0
            for c, (dx, dy) in COMPASS.items():
                prefs.append(((cx * dx + cy * dy) / length, c, r))
        for _score, c, r in sorted(prefs, key=lambda t: (-t[0], t[1])):
            if c in names or frozenset(r) in names.values():
                continue
            names[c] = frozenset(r)
        return dict(sorted(names.items()))

    # -- definitions -------------------------------------------------------------------------
    def loc(self, pid: str, ring_index: int | None = None) -> str:
        """Printed fleet location of a province (with the coast holding ``ring_index``)."""
        named = self.coasts.get(pid, {})
        key = self.keys[pid]
        if "" in named or not named:
            return key
        for c, idx in named.items():
            if ring_index in idx:
                return f"{key}/{c}"
        raise GeometryError(f"{key}: no coast holds ring position {ring_index}")

    def coast_moves(self, pid: str, coast: str) -> set[str]:
        """Fleet moves from one coast of a coastal province (printed locations)."""
        ring = self.rings[pid]
        n = len(ring)
        idx = self.coasts[pid][coast]
        runs = [r for r in sea_runs(ring, self.terrain) if set(r) <= idx]
        out: set[str] = set()
        for r in runs:
            out.update(self.loc(ring[i]) for i in r)  # the seas of the run
            if len(r) == n:
                continue  # an island: no shore neighbours
            left, right = ring[(r[0] - 1) % n], ring[(r[-1] + 1) % n]
            s_first, s_last = ring[r[0]], ring[r[-1]]
            for q, pair in ((left, (s_first, pid)), (right, (pid, s_last))):
                if q == EDGE or self.terrain.get(q) != "coast":
                    continue
                j = _pair_index(self.rings[q], *pair)
                if j is None:
                    raise GeometryError(f"{self.keys[pid]}: {self.keys[q]}'s ring lacks the meeting point "
                                        f"with {self.keys[pid]} on {self.keys[pair[0] if pair[0] != pid else pair[1]]}")
                sea_i = j if pair[0] != pid else (j + 1) % len(self.rings[q])
                out.add(self.loc(q, sea_i))
        return out

    def definitions(self) -> dict[str, dict[str, Any]]:
        """Every province's full definition (TOML-shaped) for the board as it stands."""
        provs = self.raw["provinces"]
        fleet_of: dict[str, set[str]] = {}  # printed location -> printed locations
        for pid, named in self.coasts.items():
            for c in named:
                here = f"{self.keys[pid]}/{c}" if c else self.keys[pid]
                moves = self.coast_moves(pid, c)
                fleet_of[here] = moves
                for m in moves:
                    if self.terrain[province_of(m.lower())] == "sea":
                        fleet_of.setdefault(m, set()).add(here)
        for pid, t in self.terrain.items():
            if t != "sea":
                continue
            here = self.keys[pid]
            adj = fleet_of.setdefault(here, set())
            if pid in self.base_sea_adj:
                adj |= {self.keys[x] for x in self.base_sea_adj[pid]}
            else:  # a sunk province: its sea neighbours
                adj |= {self.keys[x] for x in self.rings[pid] if x != EDGE and self.terrain[x] == "sea"}
        for here, adj in list(fleet_of.items()):  # sea-sea symmetry
            if self.terrain[province_of(here.lower())] == "sea":
                for m in adj:
                    if self.terrain[province_of(m.lower())] == "sea":
                        fleet_of.setdefault(m, set()).add(here)
        out: dict[str, dict[str, Any]] = {}
        for key, prov in provs.items():
            pid = key.lower()
            t = self.terrain[pid]
            d: dict[str, Any] = {"name": prov["name"], "aliases": list(prov.get("aliases", [])), "terrain": t,
                                 "sc": self.sc[pid]}
            if t in ("land", "coast"):
                d["army"] = sorted({self.keys[x] for x in self.rings[pid]
                                    if x != EDGE and self.terrain[x] in ("land", "coast")}, key=str.lower)
            if t == "coast" and "" not in self.coasts[pid]:
                d["coasts"] = {c: sorted(fleet_of[f"{key}/{c}"], key=str.lower) for c in self.coasts[pid]}
            elif t in ("coast", "sea"):
                d["fleet"] = sorted(fleet_of.get(key, set()), key=str.lower)
            if "pos" in prov:
                d["pos"] = list(prov["pos"])
            out[key] = d
        return out


def _has_pair(ring: list[str], a: str, b: str) -> bool:
    return _pair_index(ring, a, b) is not None


def _pair_index(ring: list[str], a: str, b: str) -> int | None:
    """Index i with ring[i] == a and ring[i+1] == b (cyclic); None if absent or ambiguous."""
    n = len(ring)
    hits = [i for i in range(n) if ring[i] == a and ring[(i + 1) % n] == b]
    return hits[0] if len(hits) == 1 else None


def derive_maps(raw: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """The base board and, for every ``[[changes]]`` entry, the provinces it redefines.

    Each change is read for ``submerge`` (provinces that sink), ``open`` (impassable provinces
    that become passable) and ``add_centres``; returns ``(base_definitions, [change, ...])`` where
    each change is ``{"after", "submerge", "open", "add_centres", "remove_centres", "provinces"}``
    with only the provinces whose definition changed.
    """
    geo = Geometry(raw)
    before = geo.definitions()
    base = before
    out = []
    for ch in raw.get("changes", []):
        sub = list(ch.get("submerge", []))
        opened = list(ch.get("open", []))
        added = list(ch.get("add_centres", []))
        destroyed = geo.apply(sub, opened, [])
        now = geo.definitions()
        changed = {k: d for k, d in now.items() if d != before[k]}
        for k in added:  # new centres are switched on by add_centres itself
            geo.sc[k.lower()] = True
        after_sc = geo.definitions()
        out.append({"after": ch["after"], "submerge": sub, "open": opened, "add_centres": added,
                    "remove_centres": destroyed, "provinces": changed})
        before = after_sc
    return base, out


def changes_toml(raw: dict[str, Any]) -> str:
    """The ``[[changes]]`` section of the seed, written out from its tables."""
    _base, changes = derive_maps(raw)
    lines: list[str] = []
    for ch in changes:
        lines += ["[[changes]]", f'after = "{ch["after"]}"',
                  f"submerge = {_toml_list(ch['submerge'])}",
                  f"remove_centres = {_toml_list(ch['remove_centres'])}",
                  f"add_centres = {_toml_list(ch['add_centres'])}"]
        if ch["open"]:
            lines.append(f"open = {_toml_list(ch['open'])}")
        lines.append("")
        for key, d in ch["provinces"].items():
            lines.append(f"[changes.provinces.{key}]")
            lines.append(f'name = "{d["name"]}"')
            lines.append(f"aliases = {_toml_list(d['aliases'])}")
            lines.append(f'terrain = "{d["terrain"]}"')
            lines.append(f"sc = {'true' if d['sc'] else 'false'}")
            if "army" in d:
                lines.append(f"army = {_toml_list(d['army'])}")
            if "fleet" in d:
                lines.append(f"fleet = {_toml_list(d['fleet'])}")
            for c, locs in d.get("coasts", {}).items():
                lines.append(f"coasts.{c} = {_toml_list(locs)}")
            if "pos" in d:
                lines.append(f"pos = [{d['pos'][0]}, {d['pos'][1]}]")
            lines.append("")
    return "\n".join(lines)


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{x}"' for x in items) + "]"


# ================================================================== rules (the module)
LAST_UNIT = "deluge_last_unit"  # pos.extra: province -> last power with a unit there (future centres)


def _alive(pos: Position) -> set[str]:
    """Powers still in the game: with a unit or a supply centre."""
    return {u.power for u in pos.units.values()} | set(pos.centres.values())


def _future_centres(pos: Position) -> frozenset[str]:
    """Provinces some later change of the map turns into supply centres."""
    key = pos.variant.calendar.order_key(pos.phase)
    out: set[str] = set()
    for after, _m, _removed, added in pos.variant.changes:
        if pos.variant.calendar.order_key(after) >= key:
            out |= added
    return frozenset(out)


def record_presence(pos: Position, units) -> None:
    """Remember, for each province that will become a supply centre, the last power with a unit
    there (rule 5 (2)); kept in ``pos.extra["deluge_last_unit"]``."""
    watch = _future_centres(pos)
    if not watch:
        return
    last = dict(pos.extra.get(LAST_UNIT) or {})
    for u in units:
        if u.prov in watch:
            last[u.prov] = u.power
    if last:
        pos.extra[LAST_UNIT] = last


def at_phase_start(pos: Position, rules: dict[str, Any]) -> Position | None:
    """Rule 5 (2) from the position itself: its units and dislodged units (which stood where they
    were dislodged from at the start of the move) are the last there so far. A position the judge
    made has them already; one handed to it (a winter whose unit in a coming centre is removed)
    may not."""
    watch = _future_centres(pos)
    if not watch:
        return None
    last = dict(pos.extra.get(LAST_UNIT) or {})
    noted = dict(last)
    for u in (*(d.unit for d in pos.dislodged.values()), *pos.units.values()):  # the dislodged were there first
        if u.prov in watch:
            noted[u.prov] = u.power
    if noted == last:
        return None
    out = pos.copy()
    out.extra[LAST_UNIT] = noted
    return out


class DelugeResolver:
    """Mixin for the movement resolver: record who stood where during spring and autumn."""

    def after_movement(self, after: Position, out, events: list[str]) -> None:
        super().after_movement(after, out, events)  # type: ignore[misc]
        record_presence(after, self.pos.units.values())  # type: ignore[attr-defined]
        record_presence(after, after.units.values())


def next_map(pos: Position) -> Map:
    """The map that will be in force once the phase ``pos`` is in has been processed."""
    changes = pos.variant.changes_after(pos.phase)
    return changes[-1][1] if changes else pos.map


def adjudicate_adjustments(pos: Position, orders: list[Order], rules: dict[str, Any]):
    """Builds when a sinking follows (Additional Rule Revisions, 1): a fleet built in a province
    that the sinking will give several coasts must name the coast it will stand on then.

    Returns None (the standard adjudication) when no map change follows this phase."""
    if pos.phase == pos.variant.calendar.start and _opening(pos):
        return opening_builds(pos, orders, rules)
    if not pos.variant.changes_after(pos.phase):
        return None
    cur, nxt = pos.map, next_map(pos)
    passed: list[Order] = []
    mine: dict[int, OrderResult] = {}
    coast_of: dict[int, str] = {}  # index in ``passed`` -> declared location on the next map
    for k, o in enumerate(orders):
        p = province_of(o.loc) if o.loc else ""
        splits = (isinstance(o, Build) and o.kind == "F" and p in cur.provinces and cur.terrain[p] == "coast"
                  and len(nxt.fleet_locs.get(p, ())) > 1 and cur.fleet_locs[p] != nxt.fleet_locs[p])
        if not splits:
            passed.append(o)
            continue
        opts = " or ".join(nxt.display(loc) for loc in nxt.fleet_locs[p])
        if "/" not in o.loc or o.loc not in nxt.fleet_locs[p]:
            why = ("say on which coast" if "/" not in o.loc else "there is no such coast; say on which coast")
            mine[k] = OrderResult(
                o, o.power, None, "invalid",
                f"{why} of {cur.name(p)} the fleet will stand after this winter's sinking ({opts})", map=cur)
            continue
        coast_of[len(passed)] = o.loc
        passed.append(Build(o.power, "F", p))
    # the other enabled modules (the A/F rules' removals) judge the rest, as without a sinking
    others = {**rules, "modules": tuple(m for m in rules.get("modules", ()) if m != "deluge")}
    results, units = modules.adjudicate_adjustments(pos, passed, others)
    for i, loc in coast_of.items():
        r = results[i]
        if r.result == "succeeds":
            p = province_of(loc)
            units[p] = Unit(r.power, "F", loc)  # the coast of the coming map; on_map_change keeps it
        r.order = Build(r.power, "F", loc)  # a build that fails is reported with its coast too
        r._text = None
        r.map = cur
    merged: list[OrderResult] = []
    it = iter(results)
    for k in range(len(orders)):
        merged.append(mine[k] if k in mine else next(it))
    merged.extend(it)
    return merged, units


def _fleet_coast(old: Map, new: Map, loc: str) -> str | None:
    """Where an established fleet at ``loc`` stands on the new map: on the coast that continues
    the coastline it was on (the side its last move reached it from)."""
    p = province_of(loc)
    locs = new.fleet_locs.get(p, ())
    if not locs:
        return None
    if len(locs) == 1:
        return locs[0]
    was = {x for x in old.fleet_reach.get(loc, ()) if old.terrain.get(x) == "sea"}

    def score(cand: str) -> tuple[int, int]:
        seas = {x for x in new.fleet_reach.get(cand, ()) if new.terrain.get(x) == "sea"}
        return (1 if was <= seas else 0, len(was & seas))

    return max(locs, key=score)


def new_centre_owner(pos: Position, prov: str) -> tuple[str | None, str]:
    """Owner of a supply centre formed now, and which clause of rule 5 gave it."""
    alive = _alive(pos)
    u = pos.units.get(prov)
    if u is not None:
        return u.power, "occupies it"
    last = (pos.extra.get(LAST_UNIT) or {}).get(prov)
    if last and last in alive:
        return last, "last had a unit there"
    bounds = {k.lower(): v for k, v in pos.variant.raw.get("deluge", {}).get("boundaries", {}).items()}
    owner = bounds.get(prov)
    if owner:
        pw = pos.variant.power(owner)
        if pw is not None and pw.name in alive:
            return pw.name, "within its boundary"
    return None, "neutral"


def on_map_change(pos: Position, change, rules: dict[str, Any], events: list[str]) -> bool:
    """The sinking after a winter: armies in sunk provinces drown, fleets stay (now at sea) or
    are put on a coast, sunk centres go, new centres form and get their owners."""
    _after, new, _removed, added = change
    old = pos.map
    sunk = [p for p in old.provinces if new.terrain[p] == "sea" and old.terrain[p] != "sea"]
    opened = [p for p in old.provinces if old.terrain[p] == "impassable" and new.terrain[p] != "impassable"]
    if sunk:
        events.append("submerged: " + ", ".join(old.name(p) for p in sorted(sunk, key=lambda p: old.name(p))))
    for p in opened:
        events.append(f"{old.name(p)} becomes passable")
    for p, u in sorted(pos.units.items()):
        if u.kind == "A":
            if new.can_hold("A", u.loc):
                continue
            del pos.units[p]
            events.append(f"{u.power}: A {old.display(u.loc)} drowned")
            continue
        if new.can_hold("F", u.loc):
            continue
        loc = _fleet_coast(old, new, u.loc)
        if loc is None:  # cannot happen when provinces only sink; kept for master-made tables
            del pos.units[p]
            events.append(f"{u.power}: {u.kind} {old.display(u.loc)} removed (no water left)")
            continue
        pos.units[p] = Unit(u.power, u.kind, loc)
        if "/" in loc:
            events.append(f"{u.power}: {u.kind} {old.display(u.loc)} placed on {new.display(loc)}")
    for c in list(pos.centres):
        if c not in new.centres:
            del pos.centres[c]
    last = dict(pos.extra.get(LAST_UNIT) or {})
    for c in sorted(added):
        owner, why = new_centre_owner(pos, c)
        if owner:
            pos.centres[c] = owner
            events.append(f"new supply centre {new.name(c)}: {owner} ({why})")
        else:
            pos.centres.pop(c, None)
            events.append(f"new supply centre {new.name(c)}: neutral")
        last.pop(c, None)
    if last:
        pos.extra[LAST_UNIT] = last
    else:
        pos.extra.pop(LAST_UNIT, None)
    return True


def check_victory(pos: Position, counts: dict[str, int], rules: dict[str, Any]) -> dict | None:
    """On entering a winter: note who stands where after the autumn retreats (rule 5 (2))."""
    record_presence(pos, pos.units.values())
    return None


def check_end(pos: Position, rules: dict[str, Any]) -> dict | None:
    """Rule 8: the winner is the survivor (if any) after Winter 1908 (``survivor_after``)."""
    end = pos.variant.victory.get("survivor_after")
    if not end:
        return None
    cal = pos.variant.calendar
    alive = sorted(_alive(pos))
    over = cal.order_key(pos.phase) > cal.order_key(cal.parse(str(end)))
    if not over and alive:
        return None
    if len(alive) == 1:
        return {"winner": alive, "kind": "survivor", "final": True}
    if not alive:
        return {"winner": [], "kind": "no survivor", "final": True}
    return {"winner": [], "kind": "no single survivor", "survivors": alive, "final": True}


def _opening(pos: Position) -> dict[str, list[str]]:
    return pos.variant.raw.get("deluge", {}).get("opening", {})


def opening_builds(pos: Position, orders: list[Order], rules: dict[str, Any]):
    """Winter 1900 (rule 1): players choose the kind of unit for each home centre. A home centre its
    owner leaves unbuilt gets the regular game's unit there (rule 0, "Regular Diplomacy rules apply
    except when they don't"), from the seed's ``[deluge.opening]``, not a waived build: a power
    that misses the first deadline still starts the game with its units."""
    others = {**rules, "modules": tuple(m for m in rules.get("modules", ()) if m != "deluge")}
    results, units = modules.adjudicate_adjustments(pos, orders, others)
    m = pos.map
    out: list[OrderResult] = []
    for r in results:
        if not (r.default and isinstance(r.order, Waive)):
            out.append(r)
            continue
        placed = 0
        left = adjustments_due(pos).get(r.power, 0) - sum(
            1 for x in out if x.power == r.power and isinstance(x.order, Build) and x.result == "succeeds")
        for text in _opening(pos).get(r.power, ()):
            if placed >= left:
                break
            kind, _, where = text.partition(" ")
            loc = where.strip().lower()
            prov = province_of(loc)
            if prov in units or pos.centres.get(prov) != r.power:
                continue
            units[prov] = Unit(r.power, kind.upper(), loc)
            out.append(OrderResult(Build(r.power, kind.upper(), loc), r.power, None, "succeeds",
                                   "no order: the regular game's unit (Winter 1900)", default=True, map=m))
            placed += 1
        if not placed:
            out.append(r)
    return out, units


MODULE = RuleModule("deluge", resolver_mixin=DelugeResolver, on_map_change=on_map_change,
                    check_victory=check_victory, check_end=check_end, at_phase_start=at_phase_start,
                    adjudicate_adjustments=adjudicate_adjustments)


if __name__ == "__main__":  # pragma: no cover - a data tool for game masters
    import sys
    import tomllib

    from judge.variant import SEEDS_DIR

    path = sys.argv[1] if len(sys.argv) > 1 else str(SEEDS_DIR / "deluge2.toml")
    with open(path, "rb") as fh:
        sys.stdout.write(changes_toml(tomllib.load(fh)))
