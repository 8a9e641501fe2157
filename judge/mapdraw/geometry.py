"""Where things go on the map picture: province areas, and the points of units, names and centres.

A board with a map file (``seeds/maps/<map>.json``, made by ``tools/mapgen/mapgen.py`` over
Natural Earth's public-domain coastlines, see docs/maps.md) is drawn from it: each province's
polygons, its unit, label and centre-dot points, and a fleet's point off each coast of a
two-coast province. Borders are the edges two polygons share (the file draws each shared border
once for both sides); an edge of a land area that no other area shares is coastline.

A variant without a map file falls back to the old layout: each province (and each coast of a
two-coast province) is a site at its ``pos``; its area is the part of the frame nearer to it than
to any other site, cut by half-planes in pure Python.
The result is cached per map: drawing a picture only reads it.
"""

from __future__ import annotations

import json
import logging
import math
import weakref
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from judge.resources import seeds_dir
from judge.variant import Map, province_of

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 1000.0, 850.0  # the canvas every variant's coordinates are on
COAST_REACH = 62.0  # a coastal province's area reaches at most this far from its point
SHORE = -2  # edge label: where a coastal area was cut back (the rest is open sea)
NEUTRAL = "~"  # the province of land that belongs to no province (Ireland, Corsica) in a map file
OPEN_SEA = ""  # the other side of a coastline where no sea province lies (open water, the frame)

Point = tuple[float, float]


@dataclass
class Cell:
    prov: str  # province id
    poly: list[Point]
    edges: list[int]  # edges[i] runs poly[i] -> poly[i+1]; the neighbouring site's index, -1 the frame


@dataclass
class Layout:
    width: float
    height: float
    points: dict[str, Point]  # location id ("lon", "stp/nc") -> point
    cells: list[Cell]
    # (prov, prov, a, b): a border segment; the second province is "" where open sea begins
    borders: list[tuple[str, str, Point, Point]] = field(default_factory=list)
    labels: dict[str, Point] = field(default_factory=dict)  # province -> the centre of its name
    dots: dict[str, Point] = field(default_factory=dict)  # supply centre -> its centre dot
    real: bool = False  # drawn from a map file (real coastlines), not the fallback layout

    def at(self, loc: str) -> Point:
        """The point of a location: a coast's own point if it has one, else its province's."""
        return self.points.get(loc) or self.points[province_of(loc)]


_CACHE: "weakref.WeakKeyDictionary[Map, Layout]" = weakref.WeakKeyDictionary()


def layout(m: Map, variant: str | None = None) -> Layout:
    """The picture layout of a map (computed once per map): from the map file drawn for
    ``variant`` (a variant's name) if there is one, else the fallback layout."""
    lay = _CACHE.get(m)
    if lay is None:
        path = map_files().get(variant or "")
        lay = _CACHE[m] = map_layout(m, load_map_file(path)) if path else _make_layout(m)
    return lay


@cache
def map_files(folder: Path | None = None) -> dict[str, Path]:
    """Variant name -> the map file it is drawn on (each file lists its ``variants``)."""
    found: dict[str, Path] = {}
    for path in sorted((folder or seeds_dir() / "maps").glob("*.json")):
        for name in load_map_file(path).get("variants", ()):
            found[name] = path
    return found


@cache
def load_map_file(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def inside(outer: list, holes: list, pt: Point) -> bool:
    """``pt`` inside one of the ``outer`` rings and in none of the ``holes`` (rings of [x, y],
    as map files hold them; even-odd crossing on each ring)."""
    def within(ring: list) -> bool:
        x, y = pt
        odd = False
        for k in range(len(ring)):
            (ax, ay), (bx, by) = ring[k - 1], ring[k]
            if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                odd = not odd
        return odd
    return any(within(r) for r in outer) and not any(within(r) for r in holes)


def _pt(xy: list[float]) -> Point:
    return (float(xy[0]), float(xy[1]))


def map_layout(m: Map, data: dict) -> Layout:
    """The layout drawn from a map file's data: seas first, then the land over them (an island in
    a sea is a hole the land covers), each outline a cell; borders from the shared edges."""
    provs = data["provinces"]
    missing = sorted(set(m.provinces) - set(provs))
    if missing:  # a file out of step with its variant: a picture still, each missing name logged
        log.warning("map file %s: no area for %s", data.get("map"), ", ".join(missing))
    points: dict[str, Point] = {}
    labels: dict[str, Point] = {}
    dots: dict[str, Point] = {}
    cells: list[Cell] = []
    owners: dict[tuple[Point, Point], list[str]] = {}

    def add(prov: str, ring: list[list[float]]) -> None:
        poly = [_pt(xy) for xy in ring]
        cells.append(Cell(prov, poly, []))
        for k in range(len(poly)):
            a, b = poly[k - 1], poly[k]
            owners.setdefault((a, b) if a < b else (b, a), []).append(prov)

    sea_first = sorted(provs, key=lambda p: (provs[p].get("terrain") != "sea", p))
    for p in sea_first:
        e = provs[p]
        for ring in e["outline"]:
            add(p, ring)
        for ring in e.get("holes", ()):  # a hole's edges are borders too; the land in it is drawn over
            poly = [_pt(xy) for xy in ring]
            for k in range(len(poly)):
                a, b = poly[k - 1], poly[k]
                owners.setdefault((a, b) if a < b else (b, a), []).append(p)
        if p in m.provinces:
            points[p] = _pt(e["unit"])
            labels[p] = _pt(e["label"])
            if "dot" in e:
                dots[p] = _pt(e["dot"])
            for coast, xy in e.get("coasts", {}).items():
                points[f"{p}/{coast}"] = _pt(xy)
    for ring in data.get("neutral_land", ()):
        add(NEUTRAL, ring)
    for p in missing:  # drawn at least as a point, so its units and orders still show
        points[p] = labels[p] = (10.0, 10.0)
    borders = []
    for (a, b), who in owners.items():
        names = sorted(set(who))
        if len(names) >= 2:
            borders.append((names[0], names[1], a, b))
        elif names[0] == NEUTRAL or m.terrain.get(names[0], "sea") != "sea":
            borders.append((names[0], OPEN_SEA, a, b))  # land with open water (or the frame) beyond
    return Layout(float(data["width"]), float(data["height"]), points, cells, borders, labels, dots, True)


def province_points(m: Map) -> dict[str, Point]:
    """Each province's point; one without ``pos`` goes to the centroid of its placed neighbours."""
    pts: dict[str, Point] = {p: prov.pos for p, prov in m.provinces.items() if prov.pos is not None}
    missing = [p for p in m.provinces if p not in pts]
    if missing:
        log.warning("map picture: no pos for %s; placed beside their neighbours",
                    ", ".join(m.provinces[p].key for p in missing))
    for _ in range(len(missing)):  # neighbours placed in one round help the next
        left = []
        for p in missing:
            near = [pts[n] for n in m.any_adj.get(p, ()) if n in pts]
            if near:
                x, y = sum(q[0] for q in near) / len(near), sum(q[1] for q in near) / len(near)
                pts[p] = _free_spot(pts, (x, y))
            else:
                left.append(p)
        if len(left) == len(missing):
            break
        missing = left
    for i, p in enumerate(missing):  # nothing placed around them: a row along the bottom
        pts[p] = _free_spot(pts, (30.0 + 60.0 * (i % 16), HEIGHT - 30.0 - 40.0 * (i // 16)))
    return pts


def _free_spot(pts: dict[str, Point], want: Point) -> Point:
    """``want``, or the nearest point on a small spiral round it that no other site is close to."""
    x, y = want
    for k in range(40):
        if all(math.hypot(x - q[0], y - q[1]) > 18 for q in pts.values()):
            break
        a = k * 2.4
        x, y = want[0] + (12 + 3 * k) * math.cos(a), want[1] + (12 + 3 * k) * math.sin(a)
    return (min(max(x, 10.0), WIDTH - 10), min(max(y, 10.0), HEIGHT - 10))


def _make_layout(m: Map) -> Layout:
    points: dict[str, Point] = dict(province_points(m))
    for p, prov in m.provinces.items():
        for coast, xy in prov.coast_pos.items():
            points[f"{p}/{coast}"] = (float(xy[0]), float(xy[1]))
    width = max([WIDTH] + [x + 20 for x, _ in points.values()])
    height = max([HEIGHT] + [y + 20 for _, y in points.values()])
    sites: list[tuple[str, Point]] = []
    seen: set[Point] = set()
    for loc, xy in points.items():
        if xy in seen:  # two sites on one spot would have no area between them
            xy = (xy[0] + 0.5, xy[1] + 0.5)
        seen.add(xy)
        sites.append((province_of(loc), xy))
    cells = voronoi([xy for _, xy in sites], width, height)
    labels = {p: (x, y + 18.3) for p, (x, y) in points.items() if "/" not in p}
    dots = {p: (x + 3.2 * len(m.provinces[p].key) + 7, y + 18.5) for p, (x, y) in points.items() if p in m.centres}
    sea = [m.terrain.get(prov) == "sea" for prov, _ in sites]
    cuts: list[list[tuple[float, float, float]]] = [[] for _ in sites]
    for i, (prov, xy) in enumerate(sites):  # a coast ends in the sea, not at the far sea's edge
        if m.terrain.get(prov) == "coast":
            poly, edges, cuts[i] = _round_off(*cells[i], xy, COAST_REACH, sea)
            cells[i] = (poly, edges)
    out = [Cell(sites[i][0], poly, edges) for i, (poly, edges) in enumerate(cells)]
    borders = []
    for i, c in enumerate(out):
        n = len(c.poly)
        for k, j in enumerate(c.edges):
            a, b = c.poly[k], c.poly[(k + 1) % n]
            if j == SHORE:
                borders.append((c.prov, "", a, b))
            elif j > i and out[j].prov != c.prov:
                seg = _clip_segment(a, b, cuts[j])  # the other side may be cut back too
                if seg:
                    borders.append((c.prov, out[j].prov, *seg))
    return Layout(width, height, points, out, borders, labels, dots)


def voronoi(sites: list[Point], width: float, height: float) -> list[tuple[list[Point], list[int]]]:
    """The Voronoi cell of each site within the frame, with the neighbour across each edge."""
    frame = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
    out = []
    for i, (px, py) in enumerate(sites):
        poly, edges = list(frame), [-1, -1, -1, -1]
        others = sorted((((qx - px) ** 2 + (qy - py) ** 2), j) for j, (qx, qy) in enumerate(sites) if j != i)
        reach = max((vx - px) ** 2 + (vy - py) ** 2 for vx, vy in poly)
        for d2, j in others:
            if d2 > 4 * reach:  # this site and all further ones are beyond the cell
                break
            qx, qy = sites[j]
            a, b = qx - px, qy - py
            c = (a * (px + qx) + b * (py + qy)) / 2  # keep a*x + b*y <= c (the side nearer site i)
            poly, edges = _clip(poly, edges, a, b, c, j)
            if not poly:
                break
            reach = max((vx - px) ** 2 + (vy - py) ** 2 for vx, vy in poly)
        out.append((poly, edges))
    return out


def _round_off(poly: list[Point], edges: list[int], centre: Point, r: float, sea: list[bool]
               ) -> tuple[list[Point], list[int], list[tuple[float, float, float]]]:
    """Cut a coastal cell back to radius ``r`` round ``centre`` in the directions where it
    borders a sea area (toward land it keeps its full extent); returns the cuts made."""
    cx, cy = centre
    planes = []
    for k in range(24):
        a, b = math.cos(k * math.pi / 12), math.sin(k * math.pi / 12)
        j = _exit_edge(poly, edges, centre, (a, b))
        if j >= 0 and sea[j]:
            planes.append((a, b, a * cx + b * cy + r))
    for a, b, c in planes:
        poly, edges = _clip(poly, edges, a, b, c, SHORE)
        if not poly:
            break
    return poly, edges, planes


def _exit_edge(poly: list[Point], edges: list[int], o: Point, d: Point) -> int:
    """The label of the edge through which the ray from ``o`` (inside) along ``d`` leaves."""
    n = len(poly)
    best, label = math.inf, -1
    for k in range(n):
        (px, py), (qx, qy) = poly[k], poly[(k + 1) % n]
        ex, ey = qx - px, qy - py
        den = d[0] * ey - d[1] * ex
        if abs(den) < 1e-12:
            continue
        t = ((px - o[0]) * ey - (py - o[1]) * ex) / den  # distance along the ray
        u = ((px - o[0]) * d[1] - (py - o[1]) * d[0]) / den  # place along the edge
        if t > 0 and -1e-9 <= u <= 1 + 1e-9 and t < best:
            best, label = t, edges[k]
    return label


def _clip_segment(a: Point, b: Point, planes: list[tuple[float, float, float]]) -> tuple[Point, Point] | None:
    """The part of a-b inside every half-plane ``x*pa + y*pb <= pc``, or None."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for pa, pb, pc in planes:
        num, den = pc - (pa * a[0] + pb * a[1]), pa * dx + pb * dy
        if abs(den) < 1e-12:
            if num < 0:
                return None
        elif den > 0:
            t1 = min(t1, num / den)
        else:
            t0 = max(t0, num / den)
        if t0 >= t1:
            return None
    return (a[0] + t0 * dx, a[1] + t0 * dy), (a[0] + t1 * dx, a[1] + t1 * dy)


def _clip(poly: list[Point], edges: list[int], a: float, b: float, c: float, label: int
          ) -> tuple[list[Point], list[int]]:
    """Sutherland-Hodgman clip to ``a*x + b*y <= c``; the new edge gets ``label``."""
    n = len(poly)
    side = [a * x + b * y - c for x, y in poly]
    if all(s <= 1e-9 for s in side):
        return poly, edges
    out: list[Point] = []
    out_edges: list[int] = []
    for k in range(n):
        p, q = poly[k], poly[(k + 1) % n]
        sp, sq = side[k], side[(k + 1) % n]
        if sp <= 0:
            out.append(p)
            out_edges.append(edges[k])
            if sq > 0:
                out.append(_cross(p, q, sp, sq))
                out_edges.append(label)
        elif sq <= 0:
            out.append(_cross(p, q, sp, sq))
            out_edges.append(edges[k])
    return out, out_edges


def _cross(p: Point, q: Point, sp: float, sq: float) -> Point:
    t = sp / (sp - sq)
    return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
