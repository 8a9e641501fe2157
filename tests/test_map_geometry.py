"""The map files (seeds/maps/*.json) against their variants: borders exactly where the board has
adjacencies (the listed exceptions aside), every mark inside its province and clear of the others,
seas on water and land on land, and the powers' colours apart for colour-blind readers."""

from __future__ import annotations

import itertools
import math

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFilter

from judge.mapdraw.geometry import NEUTRAL, OPEN_SEA, inside, load_map_file, map_files, map_layout
from judge.variant import available_variants, load_variant

UNIT_R, DOT_R = 9.5, 4.2  # the drawing's unit marker (half its width) and centre dot
BOARDS = sorted(map_files().items())


def label_box(key: str, at: tuple[float, float]) -> tuple[float, float, float, float]:
    w = 6.0 * len(key)  # the 10.5 px label font: about 6 px a letter, 10 px high
    return at[0] - w / 2, at[1] - 5.0, at[0] + w / 2, at[1] + 5.0


def mask(data: dict, outer: list, holes: list = ()) -> Image.Image:
    img = Image.new("L", (int(data["width"]), int(data["height"])), 0)
    d = ImageDraw.Draw(img)
    for r in outer:
        d.polygon([tuple(p) for p in r], fill=255)
    for r in holes:
        d.polygon([tuple(p) for p in r], fill=0)
    return img


#: (variant, map file, the phase a map of the variant comes into force after; "" its first map)
MAPS = [(v, path, "") for v, path in BOARDS] + [
    (v, path, str(after)) for v, path in BOARDS for after, _, _, _ in load_variant(v).changes]


@pytest.mark.parametrize("variant,path,after", MAPS, ids=[f"{v} {a}".strip() for v, _, a in MAPS])
def test_borders_are_the_boards_adjacencies(variant, path, after) -> None:
    """On every map of the variant: Deluge II's sunk provinces are seas with new coasts."""
    v = load_variant(variant)
    m = next(c for a, c, _, _ in v.changes if str(a) == after) if after else v.map
    data = load_map_file(path)
    lay = map_layout(m, data)
    free = {p for p in m.provinces if m.terrain[p] == "impassable"}
    straits = {frozenset(e["provinces"]) for e in data["exceptions"] if len(e["provinces"]) == 2}
    shared: dict[frozenset, float] = {}
    for p, q, a, b in lay.borders:
        if NEUTRAL in (p, q) or OPEN_SEA in (p, q):
            continue
        key = frozenset((p, q))
        shared[key] = shared.get(key, 0.0) + math.dist(a, b)
    drawn = {k for k, length in shared.items() if length >= 1.0 and not k & free}
    board = {frozenset((p, q)) for p in m.provinces for q in m.any_adj[p] if p != q and p not in free and q not in free}
    assert drawn - board == set(), "drawn as neighbours, not adjacent on the board"
    assert board - drawn - straits == set(), "adjacent on the board, no border drawn"


@pytest.mark.parametrize("variant,path", BOARDS, ids=[v for v, _ in BOARDS])
def test_marks_inside_their_province_and_clear_of_each_other(variant, path) -> None:
    m = load_variant(variant).map
    data = load_map_file(path)
    boxes = []
    for p, e in data["provinces"].items():
        outer, holes = e["outline"], e.get("holes", [])
        key = m.provinces[p].key
        ux, uy = e["unit"]
        assert inside(outer, holes, (ux, uy)), f"{p}: unit point outside"
        lb = label_box(key, tuple(e["label"]))
        for corner in ((lb[0], lb[1]), (lb[2], lb[1]), (lb[0], lb[3]), (lb[2], lb[3])):
            assert inside(outer, holes, corner), f"{p}: label reaches outside"
        boxes += [(f"{p} unit", (ux - UNIT_R, uy - UNIT_R, ux + UNIT_R, uy + UNIT_R)), (f"{p} label", lb)]
        if m.provinces[p].sc:
            dx, dy = e["dot"]
            assert inside(outer, holes, (dx, dy)), f"{p}: centre dot outside"
            boxes.append((f"{p} dot", (dx - DOT_R, dy - DOT_R, dx + DOT_R, dy + DOT_R)))
        assert set(e.get("coasts", {})) == set(m.provinces[p].coasts)
        for coast, (cx, cy) in e.get("coasts", {}).items():
            seas = [s for s in m.fleet_reach[f"{p}/{coast}"] if m.terrain[s] == "sea"]
            home = [s for s in seas if inside(data["provinces"][s]["outline"], data["provinces"][s].get("holes", []), (cx, cy))]
            assert home, f"{p}/{coast}: not in the water of a sea its fleet reaches"
            near = min(math.dist((cx, cy), pt) for r in outer for pt in r)
            assert near <= 20, f"{p}/{coast}: {near:.0f} px from its coast"
            boxes.append((f"{p}/{coast} unit", (cx - UNIT_R, cy - UNIT_R, cx + UNIT_R, cy + UNIT_R)))
    # every mark is drawn at one scale with the map (the mail's 0.75 too): apart here, apart there
    for (n1, a), (n2, b) in itertools.combinations(boxes, 2):
        if n1.split()[0] == n2.split()[0] and n1.endswith("unit") and n2.endswith("unit"):
            continue
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], f"{n1} overlaps {n2}"


@pytest.mark.parametrize("variant,path", BOARDS, ids=[v for v, _ in BOARDS])
def test_seas_on_water_land_on_land(variant, path) -> None:
    m = load_variant(variant).map
    data = load_map_file(path)
    land = mask(data, data["land"], data.get("land_holes", []))
    # islands of no province (Corsica, the Dalmatian islands) lie in a sea's outline and are drawn over it
    islands = ImageChops.subtract(land, mask(data, data["neutral_land"]))
    for p, e in data["provinces"].items():
        # one pixel in from the outline: a border pixel is half land, half sea
        area = mask(data, e["outline"], e.get("holes", [])).filter(ImageFilter.MinFilter(3))
        total = area.histogram()[255]
        both = ImageChops.multiply(area, land if m.terrain[p] != "sea" else islands).histogram()[255]
        on_land = both / total
        if m.terrain[p] == "sea":
            assert on_land <= 0.05, f"{p}: {on_land:.0%} of the sea on land"
        else:
            assert on_land >= 0.95, f"{p}: {1 - on_land:.0%} of the land province on water"


# -- colour-blind readers ----------------------------------------------------------------------------
# Machado, Oliveira and Fernandes (2009), severity 1.0, on linear RGB
PROTANOPIA = ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998))
DEUTERANOPIA = ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881))
MIN_DELTA_E = 12.0  # CIE76: about the difference a reader tells apart at a glance on a small marker


def _lin(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(colour: str, matrix=None) -> tuple[float, float, float]:
    rgb = [_lin(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5)]
    if matrix:
        rgb = [min(max(sum(matrix[i][j] * rgb[j] for j in range(3)), 0.0), 1.0) for i in range(3)]
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.9505
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.089
    f = [t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def test_simulation_sees_red_and_green_alike() -> None:
    """The check can fail: a red and a green far apart to most eyes are close under deuteranopia."""
    assert math.dist(_lab("#d62728"), _lab("#7f7f00")) > 40
    assert math.dist(_lab("#d62728", DEUTERANOPIA), _lab("#7f7f00", DEUTERANOPIA)) < MIN_DELTA_E


@pytest.mark.parametrize("variant", available_variants())
@pytest.mark.parametrize("vision", [None, PROTANOPIA, DEUTERANOPIA], ids=["normal", "protanopia", "deuteranopia"])
def test_power_colours_apart_for_colour_blind_readers(variant: str, vision) -> None:
    powers = load_variant(variant).powers
    for (a, pa), (b, pb) in itertools.combinations(powers.items(), 2):
        d = math.dist(_lab(pa.colour, vision), _lab(pb.colour, vision))
        assert d >= MIN_DELTA_E, f"{a} {pa.colour} and {b} {pb.colour}: delta E {d:.1f}"


@pytest.mark.parametrize("variant,path", [(v, p) for v, p in BOARDS if load_variant(v).changes])
def test_a_sunk_province_is_drawn_as_sea_from_the_phase_it_sinks(variant, path) -> None:
    import io

    from judge.engine import Position
    from judge.mapdraw import draw_png
    from judge.mapdraw.canvas import _rgb
    from judge.mapdraw.draw import LAND, SEA

    v = load_variant(variant)
    data = load_map_file(path)
    after, m, _, _ = v.changes[0]
    sunk = sorted(p for p in m.provinces if m.is_sea(p) and not v.map.is_sea(p))
    assert sunk
    empty = {"variant": v.name, "units": {}, "centers": {}, "dislodged": {}}
    before = Position.from_json({**empty, "phase": str(after)}, v)
    later = Position.from_json({**empty, "phase": str(v.calendar.following(after))}, v)
    assert later.map is m
    for pos, colour, other in ((before, LAND, SEA), (later, SEA, LAND)):
        img = Image.open(io.BytesIO(draw_png(v, pos))).convert("RGB")
        for p in sunk:
            x, y = data["provinces"][p]["unit"]  # no unit there: the area's own colour (in the PNG's palette)
            got = img.getpixel((int(x), int(y)))
            assert math.dist(got, _rgb(colour)) < math.dist(got, _rgb(other)) / 3, (p, pos.phase, got)


# -- order arrows ----------------------------------------------------------------------------------
def _overlap(poly: list, other: list) -> bool:
    """Two convex polygons overlap (separating axes; touching is apart)."""
    for shape in (poly, other):
        for i in range(len(shape)):
            (x1, y1), (x2, y2) = shape[i], shape[(i + 1) % len(shape)]
            nx, ny = y2 - y1, x1 - x2
            a = [nx * x + ny * y for x, y in poly]
            b = [nx * x + ny * y for x, y in other]
            if max(a) <= min(b) + 1e-6 or max(b) <= min(a) + 1e-6:
                return False
    return True


def _square(x: float, y: float, r: float) -> list:
    return [(x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)]


def head_clashes(variant, position, results) -> list[str]:
    """What the move arrows' heads of a picture of ``results`` cover: another head, a unit
    marker, a name or a centre dot (the marks as the map file places them)."""
    from judge.mapdraw.draw import arrow_heads
    from judge.mapdraw.geometry import layout

    m = variant.map_at(position.phase)
    lay = layout(m, variant.name)
    marks = [(f"unit {u.loc}", _square(*lay.at(u.loc), UNIT_R)) for u in position.units.values()]
    for p, prov in m.provinces.items():
        if p in lay.labels and m.terrain[p] != "impassable":
            x0, y0, x1, y1 = label_box(prov.key, lay.labels[p])
            marks.append((f"name {p}", [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))
        if prov.sc and p in lay.dots:
            marks.append((f"dot {p}", _square(*lay.dots[p], DOT_R)))
    heads = [(str(r.order), head) for r, _, _, head in arrow_heads(m, lay, position, results)]
    out = [f"{a} head on {b} head" for (a, h1), (b, h2) in itertools.combinations(heads, 2) if _overlap(h1, h2)]
    out += [f"{a} head on {b}" for a, h in heads for b, box in marks if _overlap(h, box)]
    return out


def _turns():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent))
    from report_scenarios import random_game, standard_1901

    return [("standard 1901", standard_1901())] + [(v, random_game(v, 12)) for v in available_variants()]


@pytest.mark.parametrize("name,turns", _turns(), ids=lambda x: x if isinstance(x, str) else "")
def test_arrow_heads_clear_of_each_other_and_the_marks(name, turns) -> None:
    """Mid-game boards of every variant (seeded random orders, a dozen phases, bounces and
    dislodgements among them): no head covers another, a unit marker, a name or a centre dot."""
    clashes, heads = [], 0
    for t in turns:
        clashes += [f"{t.before.phase}: {c}" for c in head_clashes(t.before.variant, t.before, t.result.results)]
        heads += sum(1 for r in t.result.results if getattr(r.order, "dest", None))
    assert heads >= 20
    assert clashes == []


def test_the_head_check_catches_a_head_on_a_marker() -> None:
    """The check can fail: arrows drawn with the old fixed cut (no pulling back) cover markers
    and names on the same boards."""
    from judge.mapdraw import draw

    turns = _turns()[1][1]
    saved = draw.arrow_geometry
    try:
        draw.arrow_geometry = lambda a, b, avoid=(): saved(a, b, [])
        found = [c for t in turns for c in head_clashes(t.before.variant, t.before, t.result.results)]
    finally:
        draw.arrow_geometry = saved
    assert found
