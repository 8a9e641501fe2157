"""Make seeds/maps/<map>.json: the provinces of a board as polygons over real coastlines.

Run from the repository root (needs numpy and Pillow; never imported by the judge)::

    (cd /tmp && npm install world-atlas)        # Natural Earth 1:50m land, as TopoJSON
    python tools/mapgen/mapgen.py --atlas /tmp/node_modules/world-atlas/land-50m.json [standard deluge2]

Land and coastlines: Natural Earth (naturalearthdata.com), public domain, through the npm
package ``world-atlas``. Method: the land is projected (Lambert conformal conic, magnified round
the Low Countries as a board does) and rasterised on the 1000 x 850 canvas; every province grows
from its seed points (``boards.py``) over land (land and coastal provinces) or over water (seas),
nearest seed first, and a pixel is never taken when it would touch a province its owner is not
adjacent to on the board. So borders follow the board's adjacency; what nobody may take is left
as neutral land or open water. The regions are traced into rings whose shared borders are
simplified once for both sides, and each province gets its unit, label and centre-dot points
where they fit inside it. Deliberate exceptions (straits drawn as land, the impassable
provinces) are written into the data with their reason; tests/test_map_geometry.py checks it.
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from boards import BOARDS, BRIDGES, BRIDGES_1885, COASTS, MARKS  # noqa: E402

from judge.mapdraw.geometry import inside  # noqa: E402
from judge.variant import load_variant  # noqa: E402

W, H = 1000, 850
WATER, NEUTRAL_LAND = -1, -2  # labels of what no province took
LABEL_SIZE = 10.5  # the drawing's label font (judge/mapdraw/draw.py)
UNIT_R, DOT_R = 9.5, 4.2


# -- geography -----------------------------------------------------------------------------------
def topo_rings(path: Path) -> list[list[tuple[float, float]]]:
    """The land's rings (lon, lat) from a TopoJSON file: arcs delta-decoded and joined."""
    topo = json.loads(path.read_text())
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs = []
    for arc in topo["arcs"]:
        x = y = 0
        pts = []
        for dx, dy in arc:
            x, y = x + dx, y + dy
            pts.append((x * sx + tx, y * sy + ty))
        arcs.append(pts)
    rings = []

    def ring(ids: list[int]) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for i in ids:
            pts = arcs[i] if i >= 0 else arcs[~i][::-1]
            out.extend(pts[1:] if out else pts)
        return out

    for obj in topo["objects"].values():
        geoms = obj["geometries"] if obj["type"] == "GeometryCollection" else [obj]
        for g in geoms:
            polys = g["arcs"] if g["type"] == "MultiPolygon" else [g["arcs"]] if g["type"] == "Polygon" else []
            for poly in polys:
                for k, r in enumerate(poly):
                    rings.append((k > 0, ring(r)))
    return rings


class Projection:
    """Lambert conformal conic (standard parallels 40 and 62 N, centred on 15 E), magnified round
    the Low Countries and fitted to the canvas."""

    LAT1, LAT2, LAT0, LON0 = 40.0, 62.0, 50.0, 15.0
    FOCUS, MAGNIFY, REACH = (3.0, 51.0), 1.75, 0.55  # lon/lat; how much; radius (projected units)
    WINDOW = (-13.0, 33.0, 46.0, 71.5)  # lon/lat corners the canvas holds (west, south, east, north)

    def __init__(self) -> None:
        p1, p2 = math.radians(self.LAT1), math.radians(self.LAT2)
        self.n = math.log(math.cos(p1) / math.cos(p2)) / math.log(
            math.tan(math.pi / 4 + p2 / 2) / math.tan(math.pi / 4 + p1 / 2))
        self.f = math.cos(p1) * math.tan(math.pi / 4 + p1 / 2) ** self.n / self.n
        self.r0 = self._rho(self.LAT0)
        self.focus = self._lcc(*self.FOCUS)
        w, s, e, n = self.WINDOW
        edge = [self._bent(lon, lat) for lon in np.linspace(w, e, 40) for lat in (s, n)]
        edge += [self._bent(lon, lat) for lat in np.linspace(s, n, 40) for lon in (w, e)]
        xs, ys = [p[0] for p in edge], [p[1] for p in edge]
        # the window's middle part fills the canvas (its curved edges fall off the sides)
        x0, x1 = np.percentile(xs, 8), np.percentile(xs, 92)
        y0, y1 = min(ys), max(ys)
        self.scale = min(W / (x1 - x0), H / (y1 - y0))
        self.x0 = (x0 + x1) / 2 - W / 2 / self.scale
        self.y1 = y1

    def _rho(self, lat: float) -> float:
        return self.f / math.tan(math.pi / 4 + math.radians(lat) / 2) ** self.n

    def _lcc(self, lon: float, lat: float) -> tuple[float, float]:
        rho, th = self._rho(lat), self.n * math.radians(lon - self.LON0)
        return rho * math.sin(th), self.r0 - rho * math.cos(th)

    def _bent(self, lon: float, lat: float) -> tuple[float, float]:
        x, y = self._lcc(lon, lat)
        dx, dy = x - self.focus[0], y - self.focus[1]
        r = math.hypot(dx, dy)
        k = self.MAGNIFY / (1 + (self.MAGNIFY - 1) * r / self.REACH)
        return self.focus[0] + dx * k, self.focus[1] + dy * k

    def __call__(self, lon: float, lat: float) -> tuple[float, float]:
        x, y = self._bent(lon, lat)
        return (x - self.x0) * self.scale, (self.y1 - y) * self.scale


def land_mask(rings, proj: Projection, bridges) -> tuple[np.ndarray, np.ndarray]:
    """Land pixels (True) of the canvas; and the bridge pixels alone."""
    img = Image.new("L", (W, H), 0)
    d = ImageDraw.Draw(img)
    for hole, r in rings:
        lons = [p[0] for p in r]
        lats = [p[1] for p in r]
        if max(lons) < -40 or min(lons) > 75 or max(lats) < 20 or min(lats) > 80:
            continue
        pts = [proj(lon, max(min(lat, 84.0), -80.0)) for lon, lat in r]
        if len(pts) >= 3:
            d.polygon(pts, fill=0 if hole else 1)
    land = np.array(img, dtype=bool)
    bimg = Image.new("L", (W, H), 0)
    bd = ImageDraw.Draw(bimg)
    for _, _, line in bridges:
        bd.line([proj(*p) for p in line], fill=1, width=3)
    bridge = np.array(bimg, dtype=bool) & ~land
    land |= bridge
    # lakes and enclosed water off the canvas's seas (inland seas beyond the board) become land
    water = ~land
    comp = components(water)
    sizes = np.bincount(comp[comp >= 0].ravel())
    for c, size in enumerate(sizes):
        if size < 400:
            land |= comp == c
    return land, bridge


def components(mask: np.ndarray) -> np.ndarray:
    """4-connected components of ``mask`` (-1 outside it)."""
    out = np.full(mask.shape, -1, dtype=np.int32)
    h, w = mask.shape
    n = 0
    for y0, x0 in zip(*np.nonzero(mask)):
        if out[y0, x0] >= 0:
            continue
        stack = [(y0, x0)]
        out[y0, x0] = n
        while stack:
            y, x = stack.pop()
            for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= yy < h and 0 <= xx < w and mask[yy, xx] and out[yy, xx] < 0:
                    out[yy, xx] = n
                    stack.append((yy, xx))
        n += 1
    return out


# -- growing the provinces -------------------------------------------------------------------------
def grow(land: np.ndarray, seeds: dict[str, list[tuple[float, float]]], neutral: dict[str, list],
         terrain: dict[str, str], adj: dict[str, set[str]], proj: Projection) -> tuple[np.ndarray, list[str]]:
    """Each province's pixels, nearest seed first, never touching a province it is not adjacent to."""
    names = list(seeds) + [f"~{n}" for n in neutral]
    index = {n: i for i, n in enumerate(names)}
    on_land = [terrain.get(n, "land") != "sea" for n in names]
    free = [n.startswith("~") or terrain.get(n) == "impassable" for n in names]
    ok = np.zeros((len(names), len(names)), dtype=bool)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            ok[i, j] = i == j or free[i] or free[j] or b in adj.get(a, ())
    label = np.full(land.shape, -1, dtype=np.int32)
    heap: list[tuple[float, int, int, int]] = []
    all_seeds = {**seeds, **{f"~{n}": pts for n, pts in neutral.items()}}
    for name, pts in all_seeds.items():
        i = index[name]
        for lon, lat in pts:
            x, y = proj(lon, lat)
            x, y = int(x), int(y)
            if not (0 <= x < W and 0 <= y < H):
                continue
            spot = nearest(land, x, y, on_land[i])
            if spot:
                heapq.heappush(heap, (0.0, i, spot[1], spot[0]))
            else:
                print(f"  seed of {name} at {lon},{lat} finds no {'land' if on_land[i] else 'water'}")
    lab = label.tolist()
    lnd = land.tolist()
    okl = ok.tolist()
    seeded = set()
    steps = ((1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
             (1, 1, 1.4142), (1, -1, 1.4142), (-1, 1, 1.4142), (-1, -1, 1.4142))
    while heap:
        d, i, y, x = heapq.heappop(heap)
        row = lab[y]
        if row[x] >= 0 or lnd[y][x] != on_land[i]:
            continue
        near = [lab[yy][xx] for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)) if 0 <= yy < H and 0 <= xx < W]
        if d > 0 and i not in near and (i, y, x) not in seeded:
            continue  # reached only diagonally: it comes again from the side
        if any(j >= 0 and not okl[i][j] for j in near):
            continue
        if d == 0:
            seeded.add((i, y, x))
        row[x] = i
        for dx, dy, c in steps:
            xx, yy = x + dx, y + dy
            if 0 <= xx < W and 0 <= yy < H and lab[yy][xx] < 0 and lnd[yy][xx] == on_land[i]:
                heapq.heappush(heap, (d + c, i, yy, xx))
    label = np.array(lab, dtype=np.int32)
    # what nobody took: neutral land or open water; neutral seeds' land is neutral land too
    out = np.where(label >= 0, label, np.where(land, NEUTRAL_LAND, WATER))
    for n in neutral:
        out[out == index[f"~{n}"]] = NEUTRAL_LAND
    return out, names


def nearest(mask: np.ndarray, x: int, y: int, want: bool) -> tuple[int, int] | None:
    for r in range(0, 25):
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                if max(abs(dx), abs(dy)) != r:
                    continue
                xx, yy = x + dx, y + dy
                if 0 <= xx < W and 0 <= yy < H and mask[yy, xx] == want:
                    return xx, yy
    return None


# -- tracing ------------------------------------------------------------------------------------------
def trace(label: np.ndarray) -> dict[int, list[list[tuple[int, int]]]]:
    """Each label's boundary rings (pixel corners, the label on the left going round), with their
    shared stretches simplified identically for both sides."""
    h, w = label.shape
    pad = np.full((h + 2, w + 2), -9, dtype=np.int32)
    pad[1:-1, 1:-1] = label
    # directed edges: label L at pixel (x, y); for each side where the neighbour differs
    nxt: dict[int, dict[tuple[int, int], list[tuple[tuple[int, int], int]]]] = defaultdict(lambda: defaultdict(list))
    P = pad.tolist()
    for y in range(h):
        row, up, down = P[y + 1], P[y], P[y + 2]
        for x in range(w):
            L = row[x + 1]
            if L == -9:
                continue
            if up[x + 1] != L:  # top side, going left to right... orientation: L on the right in y-down
                nxt[L][(x + 1, y)].append(((x, y), up[x + 1]))
            if down[x + 1] != L:
                nxt[L][(x, y + 1)].append(((x + 1, y + 1), down[x + 1]))
            if row[x] != L:
                nxt[L][(x, y)].append(((x, y + 1), row[x]))
            if row[x + 2] != L:
                nxt[L][(x + 1, y + 1)].append(((x + 1, y), row[x + 2]))
    # corners where three labels meet, or two cross diagonally: every side cuts its stretches there
    a, b, c, d = pad[:-1, :-1], pad[:-1, 1:], pad[1:, :-1], pad[1:, 1:]
    distinct = 1 + (b != a) + ((c != a) & (c != b)) + ((d != a) & (d != b) & (d != c))
    diagonal = (a == d) & (b == c) & (a != b)
    nodes = {(int(x), int(y)) for y, x in zip(*np.nonzero((distinct >= 3) | diagonal))}
    cache: dict[tuple, list[tuple[int, int]]] = {}
    out: dict[int, list[list[tuple[int, int]]]] = {}
    for L, edges in nxt.items():
        rings = []
        while edges:
            start = min(edges)
            ring = [start]
            others = []
            v = start
            prev = None
            while True:
                opts = edges[v]
                if len(opts) > 1 and prev is not None:  # a pinch: turn the same way every time
                    opts.sort(key=lambda o: _turn(prev, v, o[0]))
                to, other = opts.pop(0)
                if not opts:
                    del edges[v]
                others.append(other)
                prev, v = v, to
                if v == start:
                    break
                ring.append(v)
            rings.append(simplify_ring(ring, others, nodes, cache))
        out[L] = rings
    return out


def _turn(a, b, c) -> int:
    """Order of preference at a pinch: right turn first (keeps diagonal neighbours apart)."""
    cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
    return 0 if cross < 0 else 1 if cross == 0 else 2


def simplify_ring(ring, others, nodes, cache, tol: float = 1.2):
    """Split the ring where the neighbour changes (or at corners where more meet), simplify each
    stretch with Douglas-Peucker in a direction independent of which side traces it."""
    n = len(ring)
    cuts = [k for k in range(n) if others[k] != others[k - 1] or ring[k] in nodes]
    if not cuts:  # one neighbour all round: cut at the smallest corner and its opposite
        cuts = [0, n // 2]
    out = []
    for a, b in zip(cuts, cuts[1:] + [cuts[0] + n]):
        piece = [ring[k % n] for k in range(a, b + 1)]
        rev = piece[::-1]
        key = tuple(min(piece, rev))
        if key not in cache:
            s = douglas_peucker(list(key), tol)
            if len(s) == 2 and len(key) > 2:  # keep a bend: a sliver's two sides must not become one line
                s = [key[0], key[len(key) // 2], key[-1]]
            cache[key] = s
        s = cache[key]
        if tuple(piece) != key:
            s = s[::-1]
        out.extend(s[:-1])
    return out


def douglas_peucker(pts, tol):
    if len(pts) < 3:
        return pts
    keep = [False] * len(pts)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        (ax, ay), (bx, by) = pts[i], pts[j]
        dx, dy = bx - ax, by - ay
        d = math.hypot(dx, dy)
        best, at = -1.0, -1
        for k in range(i + 1, j):
            px, py = pts[k]
            dist = abs(dx * (ay - py) - dy * (ax - px)) / d if d else math.hypot(px - ax, py - ay)
            if dist > best:
                best, at = dist, k
        if best > tol:
            keep[at] = True
            stack += [(i, at), (at, j)]
    return [p for p, k in zip(pts, keep) if k]


def area(ring) -> float:
    return sum(ring[k - 1][0] * ring[k][1] - ring[k][0] * ring[k - 1][1] for k in range(len(ring))) / 2


# -- points -------------------------------------------------------------------------------------------
def inner_distance(mask: np.ndarray) -> np.ndarray:
    """Distance (pixels) from each pixel of ``mask`` to the nearest pixel outside it."""
    d = np.where(mask, 1e9, 0.0)
    for _ in range(2):  # two chamfer passes each way approximate the Euclidean distance well enough
        for y in range(1, d.shape[0]):
            d[y] = np.minimum(d[y], d[y - 1] + 1)
        for y in range(d.shape[0] - 2, -1, -1):
            d[y] = np.minimum(d[y], d[y + 1] + 1)
        for x in range(1, d.shape[1]):
            d[:, x] = np.minimum(d[:, x], d[:, x - 1] + 1)
        for x in range(d.shape[1] - 2, -1, -1):
            d[:, x] = np.minimum(d[:, x], d[:, x + 1] + 1)
    return d


MARGIN = 1.0  # room kept round each mark; a crowded province is placed again with none


def label_box(key: str, at: tuple[float, float]) -> tuple[float, float, float, float]:
    """The box a label takes, centred on ``at`` (the drawing's 10.5 px font: 6 px a letter)."""
    w = 6.0 * len(key) + 2 * MARGIN
    return at[0] - w / 2, at[1] - 5.0 - MARGIN, at[0] + w / 2, at[1] + 5.0 + MARGIN


def in_rings(rings, pt) -> bool:
    return inside(rings[0], rings[1], pt)


def exact_box(key: str, at: tuple[float, float]) -> tuple[float, float, float, float]:
    """The label's box without margin: what the checks hold to the outline."""
    return at[0] - 3.0 * len(key), at[1] - 5.0, at[0] + 3.0 * len(key), at[1] + 5.0


def corners(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[0], b[3]), (b[2], b[3])]


def place(key: str, region: np.ndarray, taken: list, sc: bool, want: tuple[float, float], rings=None,
          loose: bool = False, units: list = ()):
    """Unit, label and (for a supply centre) centre-dot points inside ``region``, clear of each
    other and of ``taken`` (boxes already placed), nearest ``want`` among the roomy spots; the
    unit clear of the boxes in ``units`` too (other units' markers with room for an arrow)."""
    ys, xs = np.nonzero(region)
    if not len(xs):
        return None
    y0, y1, x0, x1 = ys.min(), ys.max(), xs.min(), xs.max()
    sub = region[y0:y1 + 1, x0:x1 + 1]
    dist = inner_distance(sub)
    inner = sub

    def inside_box(b, margin=1.0):
        bx0, by0, bx1, by1 = (int(math.floor(b[0] - margin)) - x0, int(math.floor(b[1] - margin)) - y0,
                              int(math.ceil(b[2] + margin)) - x0, int(math.ceil(b[3] + margin)) - y0)
        if bx0 < 0 or by0 < 0 or bx1 > inner.shape[1] or by1 > inner.shape[0]:
            return False
        return bool(inner[by0:by1, bx0:bx1].all())

    def clear(b):
        return all(b[2] <= t[0] or t[2] <= b[0] or b[3] <= t[1] or t[3] <= b[1] for t in taken)

    cand = [(float(x + x0) + 0.5, float(y + y0) + 0.5) for y, x in zip(*np.nonzero(dist >= UNIT_R + 1))]
    cand.sort(key=lambda p: math.hypot(p[0] - want[0], p[1] - want[1]))
    lw = 6.0 * len(key) + 2
    # label from the unit: under it first; the dot after the name first, else beside the unit
    label_at = [(0, 16), (0, -16), (lw / 2 + 11, 0), (-lw / 2 - 11, 0), (lw / 2 + 8, 12), (-lw / 2 - 8, 12)]
    if loose:  # a cramped province: the name anywhere near its unit, nearest first
        label_at = sorted(((dx, dy) for dx in range(-36, 37, 3) for dy in range(-30, 31, 3)),
                          key=lambda d: math.hypot(*d))
    roomy = [(float(x + x0) + 0.5, float(y + y0) + 0.5) for y, x in zip(*np.nonzero((dist >= 6) & (dist < UNIT_R + 1)))]
    roomy.sort(key=lambda p: math.hypot(p[0] - want[0], p[1] - want[1]))
    dot_spots = [(float(x + x0) + 0.5, float(y + y0) + 0.5) for y, x in zip(*np.nonzero(dist >= DOT_R + 2))]
    for ux, uy in (cand[:3000] + roomy[:3000])[::(4 if loose else 1)]:
        ubox = (ux - UNIT_R, uy - UNIT_R, ux + UNIT_R, uy + UNIT_R)
        if not clear(ubox) or not all(_apart(ubox, u) for u in units):
            continue
        for lx, ly in label_at:
            lab = (ux + lx, uy + ly)
            lbox = label_box(key, lab)
            if not (inside_box(lbox, MARGIN) and clear(lbox) and _apart(lbox, ubox)):
                continue
            if rings and not all(in_rings(rings, c) for c in corners(exact_box(key, lab)) + [(ux, uy)]):
                continue  # the exact outline, as tests/test_map_geometry.py checks it
            if not sc:
                return (ux, uy), lab, None
            spots = sorted(dot_spots, key=lambda p: math.hypot(p[0] - lab[0] - lw / 2 - 6, p[1] - lab[1]))
            for dot in [(lab[0] + lw / 2 + 6, lab[1]), (lab[0] - lw / 2 - 6, lab[1])] + spots[:400]:
                dbox = (dot[0] - DOT_R - MARGIN, dot[1] - DOT_R - MARGIN, dot[0] + DOT_R + MARGIN, dot[1] + DOT_R + MARGIN)
                if inside_box(dbox, 0.5 * MARGIN) and clear(dbox) and _apart(dbox, lbox) and _apart(dbox, ubox) \
                        and (not rings or in_rings(rings, dot)):
                    return (ux, uy), lab, dot
    return None


#: two units' points at least UNIT_R + UNIT_ROOM apart on one axis: a move arrow's head fits between
#: their markers (judge/mapdraw/draw.py pulls it back clear of both)
UNIT_ROOM = UNIT_R + 15.0


HOME_R = 45.0  # how far from its first seed a province's marks are looked for first


def home_part(region: np.ndarray, want: tuple[float, float]) -> np.ndarray | None:
    """The pixels of ``region`` within ``HOME_R`` of ``want`` (the first seed: Naples' city, not
    Sicily, which the picture joins to Calabria across the strait) on the connected part holding
    it (or nearest it); None when that is the whole region."""
    ys, xs = np.nonzero(region)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    comp = components(region[y0:y1, x0:x1])
    k = int(np.argmin((xs + 0.5 - want[0]) ** 2 + (ys + 0.5 - want[1]) ** 2))
    gy, gx = np.mgrid[y0:y1, x0:x1]
    near = (comp == comp[ys[k] - y0, xs[k] - x0]) & ((gx + 0.5 - want[0]) ** 2 + (gy + 0.5 - want[1]) ** 2 <= HOME_R ** 2)
    if near.sum() == len(xs):
        return None
    part = np.zeros_like(region)
    part[y0:y1, x0:x1] = near
    return part


def _apart(a, b) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


# -- the whole map ----------------------------------------------------------------------------------
def make(name: str, atlas: Path) -> dict:
    global MARGIN
    variants, seeds, neutral = BOARDS[name]
    v = load_variant(variants[0])
    m = v.map
    assert set(seeds) == set(m.provinces), set(seeds) ^ set(m.provinces)
    proj = Projection()
    rings = topo_rings(atlas)
    bridges = [b for b in (BRIDGES_1885 if name == "1885" else BRIDGES) if all(p in m.provinces for p in b[1])]
    land, bridge = land_mask(rings, proj, bridges)
    adj = {p: set(m.any_adj[p]) for p in m.provinces}
    label, names = grow(land, seeds, neutral, m.terrain, adj, proj)
    for i, p in enumerate(names):
        if not p.startswith("~") and not (label == i).any():
            print(f"  {p}: no pixels")
    traced = trace(label)
    provinces: dict[str, dict] = {}
    taken: list = []
    coast_pts: dict[str, tuple[float, float]] = {}
    for loc, ll in COASTS.items():
        p, coast = loc.split("/")
        if coast not in (m.provinces[p].coasts if p in m.provinces else ()):
            continue
        coast_pts[loc] = snap_coast(loc, proj(*ll), label, names, m)
        x, y = coast_pts[loc]
        taken.append((x - UNIT_R - 1, y - UNIT_R - 1, x + UNIT_R + 1, y + UNIT_R + 1))
    order = sorted(names, key=lambda p: (label == names.index(p)).sum())  # small provinces first
    unit_pts = list(coast_pts.values())
    for p in order:
        if p.startswith("~"):
            continue
        i = names.index(p)
        rings = parts(traced.get(i, []))
        region = polygon_mask(*rings)  # what the picture fills, as the checks see it
        prov = m.provinces[p]
        ys, xs = np.nonzero(region)
        want = proj(*MARKS.get(name, {}).get(p, seeds[p][0]))
        got = None
        # near its first seed on the part holding it (Naples' mainland, not Sicily; Denmark's
        # Jutland), then anywhere: players look for the mark where the board has it
        for where in [w for w in (home_part(region, want), region) if w is not None]:
            for unit_room in ((UNIT_ROOM, 0.0) if where is region else (UNIT_ROOM,)):
                units = [(x - unit_room, y - unit_room, x + unit_room, y + unit_room) for x, y in unit_pts]
                got = got or place(prov.key, where, taken, prov.sc, want, rings, units=units)
                if got is None:
                    for MARGIN in (0.5, 0.0):
                        got = got or place(prov.key, where, taken, prov.sc, want, rings, units=units)
                    MARGIN = 1.0
                    if got:
                        print(f"  {p}: crowded, placed with half margins")
                if got is None:  # cramped: the name anywhere near the unit, no margins
                    MARGIN = 0.0
                    got = place(prov.key, where, taken, prov.sc, want, rings, loose=True, units=units)
                    MARGIN = 1.0
                    if got:
                        print(f"  {p}: cramped, its name placed anywhere near its unit")
                if got and where is region and home_part(region, want) is not None:
                    print(f"  {p}: no room on the part holding its first seed")
                if got and unit_room == 0.0:
                    print(f"  {p}: its unit close to a neighbour's")
                if got:
                    break
            if got:
                break
        if got is None:
            print(f"  {p}: left where it falls")
        if got is None:
            cy, cx = float(ys.mean()), float(xs.mean())
            got = ((cx, cy), (cx, cy + 17), (cx + 15, cy + 17) if prov.sc else None)
        unit, lab, dot = got
        unit_pts.append(unit)
        for pt, r in ((unit, UNIT_R + 1), (dot, DOT_R + 1)):
            if pt:
                taken.append((pt[0] - r, pt[1] - r, pt[0] + r, pt[1] + r))
        taken.append(label_box(prov.key, lab))
        entry: dict = {"name": prov.name, "terrain": prov.terrain, "unit": rnd(unit), "label": rnd(lab)}
        if dot:
            entry["dot"] = rnd(dot)
        coasts = {loc.split("/")[1]: rnd(xy) for loc, xy in coast_pts.items() if loc.startswith(p + "/")}
        if coasts:
            entry["coasts"] = coasts
        entry["outline"], entry["holes"] = parts(traced.get(i, []))
        provinces[p] = entry
    neutral_land = parts(traced.get(NEUTRAL_LAND, []), min_area=12)[0]
    land_rings = parts(trace(np.where(land & ~bridge, 0, WATER).astype(np.int32)).get(0, []), min_area=6)
    exceptions = [{"provinces": list(b[1]), "drawn": "land across the strait", "reason": b[0]}
                  for b in bridges]
    for p, prov in m.provinces.items():
        if prov.terrain == "impassable":
            exceptions.append({"provinces": [p], "drawn": "borders its neighbours",
                               "reason": f"{prov.name} is impassable: it touches provinces no unit crosses to"})
    return {
        "map": name,
        "variants": list(variants),
        "source": "Coastlines: Natural Earth 1:50m land (public domain), via the npm package world-atlas; "
                  "provinces grown from hand-placed seeds by tools/mapgen/mapgen.py",
        "projection": "Lambert conformal conic 40/62 N, centre 15 E, magnified round the Low Countries",
        "width": W, "height": H,
        "exceptions": exceptions,
        "provinces": dict(sorted(provinces.items())),
        "neutral_land": neutral_land,
        "land": land_rings[0],
        "land_holes": land_rings[1],
    }


def polygon_mask(outer, holes) -> np.ndarray:
    img = Image.new("L", (W, H), 0)
    d = ImageDraw.Draw(img)
    for r in outer:
        d.polygon([tuple(p) for p in r], fill=1)
    for r in holes:
        d.polygon([tuple(p) for p in r], fill=0)
    return np.array(img, dtype=bool)


def snap_coast(loc: str, want, label, names, m) -> tuple[float, float]:
    """The water spot nearest ``want`` in a sea this coast's fleet reaches, within 16 pixels of
    the province and at least a unit's radius from any land."""
    p = loc.split("/")[0]
    seas = [names.index(s) for s in m.fleet_reach[loc] if m.terrain.get(s) == "sea"]
    prov = label == names.index(p)
    sea = np.isin(label, seas)
    near_prov = inner_distance(~prov) <= 16
    off_land = inner_distance(label < 0) if False else inner_distance(np.isin(label, seas) | (label == WATER))
    for room in (UNIT_R + 1, 6, 2):  # a unit's room from the land if the water has it
        ys, xs = np.nonzero(sea & near_prov & (off_land >= room))
        if len(xs):
            break
    else:
        print(f"  {loc}: no water spot near the coast")
        return want
    k = int(np.argmin((xs - want[0]) ** 2 + (ys - want[1]) ** 2))
    return float(xs[k]) + 0.5, float(ys[k]) + 0.5


def parts(rings, min_area: float = 2.0) -> tuple[list, list]:
    """Rings as lists of [x, y]: the outer ones (negative shoelace area as traced, y down) and the holes."""
    outer, holes = [], []
    for r in rings:
        a = area(r)
        if abs(a) >= min_area:
            (outer if a < 0 else holes).append([list(map(float, pt)) for pt in r])
    return outer, holes


def rnd(p) -> list[float]:
    return [round(p[0], 1), round(p[1], 1)]


def write(data: dict, path: Path) -> None:
    """JSON with one ring or one point per line: readable, and a diff shows what moved."""
    def ring(r):
        return "[" + ", ".join(f"[{x:g}, {y:g}]" for x, y in r) + "]"

    lines = ["{"]
    for k in ("map", "variants", "source", "projection", "width", "height"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(data[k])},")
    lines.append('  "exceptions": [')
    lines.append(",\n".join("    " + json.dumps(e) for e in data["exceptions"]))
    lines.append("  ],")
    lines.append('  "provinces": {')
    provs = []
    for p, e in data["provinces"].items():
        body = [f"      {json.dumps(k)}: {json.dumps(e[k])}" for k in e if k not in ("outline", "holes")]
        for k in ("outline", "holes"):
            body.append(f'      "{k}": [' + "".join("\n        " + ring(r) + ("," if n < len(e[k]) - 1 else "")
                                                  for n, r in enumerate(e[k])) + ("\n      ]" if e[k] else "]"))
        provs.append(f"    {json.dumps(p)}: {{\n" + ",\n".join(body) + "\n    }")
    lines.append(",\n".join(provs))
    lines.append("  },")
    for k in ("neutral_land", "land", "land_holes"):
        lines.append(f'  "{k}": [\n' + ",\n".join("    " + ring(r) for r in data[k]) + "\n  ]" +
                     ("," if k != "land_holes" else ""))
    lines.append("}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--atlas", type=Path, default=Path("/tmp/node_modules/world-atlas/land-50m.json"))
    ap.add_argument("maps", nargs="*", default=list(BOARDS))
    args = ap.parse_args()
    for name in args.maps:
        print(name)
        data = make(name, args.atlas)
        out = ROOT / "seeds" / "maps" / f"{name}.json"
        out.parent.mkdir(exist_ok=True)
        write(data, out)
        json.loads(out.read_text())
        print(f"  wrote {out.relative_to(ROOT)} ({out.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
