"""The map picture: province areas, centres in their owners' colours, units and orders.

Drawn from the variant's province coordinates only (no map art). ``position`` is the board
shown; ``results`` are the orders of the phase just adjudicated, drawn over it: arrows for moves
and retreats (solid when they succeeded, dashed when they failed), dotted support lines, convoy
marks, a star where a move bounced, a red ring round a dislodged unit (drawn beside the unit
that took its place), a cross where a unit was destroyed or removed, a ring round a new build.
The same painting goes to an SVG canvas or a cairo one (:mod:`judge.mapdraw.canvas`).
"""

from __future__ import annotations

import math
import weakref

from judge.engine import Position
from judge.engine.orders import Build, Convoy, Disband, Hold, Order, OrderResult, Remove, Support, Waive
from judge.mapdraw.canvas import PNG_COLOURS, CairoCanvas, SvgCanvas, _rgb
from judge.mapdraw.geometry import NEUTRAL, Layout, Point, layout
from judge.variant import Map, Phase, Variant, province_of

SEA, LAND, BLOCKED = "#b8d2e6", "#efe8d6", "#a3a3a3"
COASTLINE, LAND_BORDER, SEA_BORDER = "#54708a", "#b9ab8c", "#d3e3ef"
FAIL_RED, INK, GREY = "#c0201a", "#1a1a1a", "#888888"
LEGEND_H = 64
TINT = 0.38  # an owned centre's area: this much of the owner's colour over the land
UNIT_R = 9.5

Canvas = SvgCanvas | CairoCanvas


def draw_svg(variant: Variant, position: Position, results: list[OrderResult] | None = None,
             phase: Phase | str | None = None, title: str | None = None) -> str:
    """An SVG picture of ``position`` on the map in force during ``phase`` (default: its phase)."""
    m, lay, phase = _map(variant, position, phase)
    canvas = SvgCanvas(lay.width, lay.height + LEGEND_H)
    paint(canvas, variant, m, lay, position, results, title or f"{variant.title}: {phase}")
    return canvas.result()


def draw_png(variant: Variant, position: Position, results: list[OrderResult] | None = None,
             phase: Phase | str | None = None, title: str | None = None, scale: float = 1.0,
             budget: int | None = None, hard: bool = False) -> bytes:
    """The same picture as PNG (painted with cairo), for mail clients that block SVG; ``budget``:
    bytes above which it is compressed harder (a mail's picture); ``hard``: compressed harder at once."""
    m, lay, phase = _map(variant, position, phase)
    canvas = CairoCanvas(lay.width, lay.height + LEGEND_H, scale)
    paint(canvas, variant, m, lay, position, results, title or f"{variant.title}: {phase}")
    # 32 colours, the powers' own and their areas' tints among them (a power whose areas are
    # small on the real map, England's, would lose its tint to a neighbour's otherwise); with more
    # than seven powers the palette grows: 1885 II's nine take 40
    keep = [p.colour for p in variant.powers.values()]
    extra = max(0, len(keep) - 7)
    keep += [_tint(c) for c in keep]
    colours = PNG_COLOURS + 4 * extra
    palette = _palette(variant, m, lay, scale, colours, tuple(keep)) if m is variant.map else None
    return canvas.result(budget, colours, tuple(keep), palette, hard)


#: map -> (variant, scale, colours, kept colours) -> the palette its PNG pictures take
_PALETTES: "weakref.WeakKeyDictionary[Map, dict[tuple, object]]" = weakref.WeakKeyDictionary()


def _palette(variant: Variant, m: Map, lay: Layout, scale: float, colours: int, keep: tuple[str, ...]) -> object:
    """One palette for every PNG of this map, chosen once from the variant's opening position
    (the map's areas, names, centres, units and legend) with the order marks' red kept too:
    choosing a palette and mapping each picture to a fresh one was a third of a picture's cost,
    and a palette Pillow has mapped to before keeps its colour look-ups. Depends only on the map
    and the variant, never on which game was drawn first."""
    per_map = _PALETTES.setdefault(m, {})
    key = (variant.name, scale, colours, keep)  # (a map shared by two variants: each its own)
    if key not in per_map:
        start = Position.from_json(variant.start_position(), variant)
        canvas = CairoCanvas(lay.width, lay.height + LEGEND_H, scale)
        paint(canvas, variant, m, lay, start, None, f"{variant.title}: {start.phase}")
        per_map[key] = canvas.palette(colours, (*keep, FAIL_RED))
    return per_map[key]


def _tint(colour: str) -> str:
    """The colour of an owned centre's area: ``TINT`` of the owner's colour over the land."""
    a, b = _rgb(colour), _rgb(LAND)
    return "#" + "".join(f"{round(a[i] * TINT + b[i] * (1 - TINT)):02x}" for i in range(3))


def _map(variant: Variant, position: Position, phase: Phase | str | None) -> tuple[Map, Layout, Phase]:
    if isinstance(phase, str):
        phase = variant.calendar.parse(phase)
    phase = phase or position.phase
    m = variant.map_at(phase)
    return m, layout(m, variant.name), phase


def paint(c: Canvas, variant: Variant, m: Map, lay: Layout, position: Position,
          results: list[OrderResult] | None, title: str) -> None:
    colours = {name: p.colour for name, p in variant.powers.items()}
    w, h = lay.width, lay.height
    # what every picture of this map shows is painted once per map (the canvas keeps it)
    c.layer(m, lambda k: _ground(k, m, lay))
    _tints(c, m, lay, position.centres, colours)
    c.layer(m, lambda k: _lines_and_names(k, m, lay), transparent=True)
    _centres(c, m, lay, position.centres, colours)
    if results:
        _orders(c, m, lay, results, colours, position)
    for u in position.units.values():
        _unit(c, lay.at(u.loc), u.kind, colours.get(u.power, GREY))
    for d in position.dislodged.values():
        x, y = lay.at(d.unit.loc)
        _unit(c, (x + 13, y + 11), d.unit.kind, colours.get(d.unit.power, GREY), scale=0.8)
        c.circle((x + 13, y + 11), 11, None, FAIL_RED, 2)
    c.rect(0.5, 0.5, w - 1, h - 1, None, "#333333", 1)
    _title(c, title)
    _legend(c, variant, position, w, h)


def _ink(colour: str) -> str:
    """Black or white, whichever reads on ``colour``."""
    r, g, b = _rgb(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def _terrain_fill(m: Map, p: str) -> str:
    t = "land" if p == NEUTRAL else m.terrain.get(p, "sea")
    return SEA if t == "sea" else BLOCKED if t == "impassable" else LAND


def _ground(c: Canvas, m: Map, lay: Layout) -> None:
    """The frame, the sea, and every area in its terrain's colour."""
    c.rect(0, 0, lay.width, lay.height + LEGEND_H, "#ffffff")
    c.rect(0, 0, lay.width, lay.height, SEA)
    for cell in lay.cells:
        if not cell.poly or (cell.prov not in m.provinces and cell.prov != NEUTRAL):
            continue
        fill = _terrain_fill(m, cell.prov)
        c.polygon(cell.poly, fill, fill, 0.6)  # the outline in the fill colour hides seams


def _tints(c: Canvas, m: Map, lay: Layout, centres: dict[str, str], colours: dict[str, str]) -> None:
    """An owned supply centre's area tinted with its owner's colour (38 % over the land)."""
    for cell in lay.cells:
        owner = centres.get(cell.prov)
        if owner and cell.poly and cell.prov in m.centres:
            c.polygon(cell.poly, colours.get(owner, GREY), None, fill_opacity=TINT)


def _lines_and_names(c: Canvas, m: Map, lay: Layout) -> None:
    """Borders (coastlines stronger), the faint adjacency lines, and the provinces' names."""
    coast, inland, sea = [], [], []
    for p, q, a, b in lay.borders:
        sp = m.is_sea(p) if p in m.terrain else p != NEUTRAL
        sq = m.is_sea(q) if q in m.terrain else q != NEUTRAL  # "": open sea
        (sea if sp and sq else coast if sp != sq else inland).append((a, b))
    crisp = lay.real  # the real map's many short strokes (see CairoCanvas.segments)
    c.segments(sea, SEA_BORDER, 1, cap="round", crisp=crisp)
    c.segments(inland, LAND_BORDER, 1, cap="round", crisp=crisp)
    c.segments(coast, COASTLINE, 1.6 if not lay.real else 1.3, cap="round", crisp=crisp)
    if not lay.real:  # real coastlines show which provinces meet; the fallback's areas need the hint
        _adjacency(c, m, lay)
    for p, prov in m.provinces.items():
        if p in lay.labels and not (m.terrain[p] == "impassable" and not prov.sc):
            x, y = lay.labels[p]
            c.text(x, y + 3.7, prov.key, 10.5, "#222222", "middle", italic=m.is_sea(p), halo=True)


def _adjacency(c: Canvas, m: Map, lay: Layout) -> None:
    segs = [(lay.points[p], lay.points[n]) for p, ns in m.any_adj.items() for n in ns
            if p < n and p in lay.points and n in lay.points]
    c.segments(segs, "#000000", 0.8, opacity=0.09)


def _centres(c: Canvas, m: Map, lay: Layout, centres: dict[str, str], colours: dict[str, str]) -> None:
    """Each supply centre's mark beside its name, filled with its owner's colour (white: unowned)."""
    for p, prov in m.provinces.items():
        if prov.sc and p in lay.dots:
            owner = centres.get(p)
            c.circle(lay.dots[p], 4.2, colours.get(owner, GREY) if owner else "#ffffff", "#222222", 1)


def _unit(c: Canvas, at: Point, kind: str, colour: str, scale: float = 1.0) -> None:
    x, y = at
    r = UNIT_R * scale
    if kind == "A":
        c.circle(at, r, colour, INK, 1.2)
    elif kind == "F":
        c.rect(x - r, y - r, 2 * r, 2 * r, colour, INK, 1.2, rx=2.5)
    else:  # A/F and anything a module adds
        c.rect(x - 1.4 * r, y - r, 2.8 * r, 2 * r, colour, INK, 1.2, rx=r)
    size = (11 if len(kind) == 1 else 8) * scale
    c.text(x, y + size * 0.36, kind, size, _ink(colour), "middle", bold=True)


# -- orders ---------------------------------------------------------------------------------------
def _line(a: Point, b: Point, cut_start: float, cut_end: float, offset: float = 0.0) -> tuple[Point, Point]:
    """The segment a-b shortened at both ends and moved ``offset`` to its right."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    ox, oy = -uy * offset, ux * offset
    cut_start, cut_end = min(cut_start, d / 3), min(cut_end, d / 3)
    return ((a[0] + ux * cut_start + ox, a[1] + uy * cut_start + oy),
            (b[0] - ux * cut_end + ox, b[1] - uy * cut_end + oy))


HEAD_LEN, HEAD_HALF = 10.0, 5.5  # a move arrow's head: its length and half its width
ARROW_OFFSET = 3.0  # a move arrow runs this far right of the line between the unit points


Box = tuple[float, float, float, float]


def arrow_geometry(a: Point, b: Point, avoid: list[Box] = ()) -> tuple[Point, Point, list[Point]]:
    """A move arrow from ``a`` to ``b`` (unit points): the shaft's start, the head's base and the
    head's triangle (tip first). It leaves the unit marker's square round ``a`` and runs a little
    right of the line, so opposite moves stay apart; its head goes as near ``b`` as it can without
    touching any box in ``avoid`` (markers, names, dots, heads drawn before): pulled back along
    the line while the shaft keeps a few pixels, else moved further right or left of it, else
    drawn smaller (two units' points close together). When no place is clear, the one touching
    fewest."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    edge = UNIT_R / max(abs(ux), abs(uy), 1e-9)  # from a unit point to its square's edge, this way
    cut_start = min(edge + 1, d / 3)
    best: tuple[int, Point, Point, list[Point]] | None = None
    for size in (1.0, 0.7, 0.5):  # a smaller head only where a full one finds no clear place
        length, half = HEAD_LEN * size, HEAD_HALF * size
        last = d - cut_start - length - 4
        for off in (ARROW_OFFSET, ARROW_OFFSET + 4, ARROW_OFFSET - 4, ARROW_OFFSET + 8, ARROW_OFFSET - 8):
            ox, oy = -uy * off, ux * off
            start = (a[0] + ux * cut_start + ox, a[1] + uy * cut_start + oy)
            end = min(2.0, last)
            while True:
                tip = (b[0] - ux * end + ox, b[1] - uy * end + oy)
                base = (tip[0] - ux * length, tip[1] - uy * length)
                head = [tip, (base[0] - uy * half, base[1] + ux * half), (base[0] + uy * half, base[1] - ux * half)]
                hits = sum(1 for box in avoid if touches(head, box))
                if not hits:
                    return start, base, head
                if best is None or hits < best[0]:
                    best = (hits, start, base, head)
                end += 1.5
                if end > last:
                    break
    assert best is not None
    return best[1], best[2], best[3]


def touches(poly: list[Point], box: Box) -> bool:
    """Whether the convex polygon ``poly`` and the box overlap (separating axes)."""
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    if max(xs) <= box[0] or min(xs) >= box[2] or max(ys) <= box[1] or min(ys) >= box[3]:
        return False
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    for i in range(len(poly)):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % len(poly)]
        nx, ny = y2 - y1, x1 - x2
        own = [nx * x + ny * y for x, y in poly]
        other = [nx * x + ny * y for x, y in corners]
        if max(own) <= min(other) or max(other) <= min(own):
            return False
    return True


def mark_boxes(m: Map, lay: Layout, position: Position) -> list[Box]:
    """The boxes of what a head must not cover: unit markers, names and centre dots."""
    boxes: list[Box] = []
    for u in position.units.values():
        x, y = lay.at(u.loc)
        boxes.append((x - UNIT_R, y - UNIT_R, x + UNIT_R, y + UNIT_R))
    for p, prov in m.provinces.items():
        if p in lay.labels and not (m.terrain[p] == "impassable" and not prov.sc):
            x, y = lay.labels[p]
            w = 3.0 * len(prov.key)  # the 10.5 px name: about 6 px a letter, 10 px high
            boxes.append((x - w, y - 5.0, x + w, y + 5.0))
        if prov.sc and p in lay.dots:
            x, y = lay.dots[p]
            boxes.append((x - 4.2, y - 4.2, x + 4.2, y + 4.2))
    return boxes


def arrow_heads(m: Map, lay: Layout, position: Position, results: list[OrderResult]
                ) -> list[tuple[OrderResult, Point, Point, list[Point]]]:
    """Each move arrow as drawn: its result, shaft start, head base and head; each head clear of
    the marks and of the heads placed before it where the arrow's length allows."""
    avoid = mark_boxes(m, lay, position)
    out = []
    for (a, b), r in move_arrows(lay, results):
        reach = math.dist(a, b) + 20
        near = [bx for bx in avoid if abs((bx[0] + bx[2]) / 2 - b[0]) < reach and abs((bx[1] + bx[3]) / 2 - b[1]) < reach]
        start, base, head = arrow_geometry(a, b, near)
        xs, ys = [p[0] for p in head], [p[1] for p in head]
        avoid.append((min(xs), min(ys), max(xs), max(ys)))
        out.append((r, start, base, head))
    return out


def _arrow(c: Canvas, start: Point, base: Point, head: list[Point], colour: str, dashed: bool) -> Point:
    """A move arrow (see :func:`arrow_geometry`); returns the tip."""
    dash = (6.0, 4.0) if dashed else None
    c.line(start, base, INK, 4.6, dash, opacity=0.55)
    c.line(start, base, colour, 3, dash)
    c.polygon(head, colour, INK, 0.9)
    return head[0]


def _star(c: Canvas, at: Point, r: float = 8.0) -> None:
    """The bounce mark."""
    c.polygon([(at[0] + (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 8),
                at[1] + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 8)) for k in range(16)],
              FAIL_RED, "#ffffff", 1)


def _cross(c: Canvas, at: Point, r: float = 7.0) -> None:
    x, y = at
    c.segments([((x - r, y - r), (x + r, y + r)), ((x - r, y + r), (x + r, y - r))], FAIL_RED, 3, cap="round")


def _moves(lay: Layout, results: list[OrderResult]) -> dict[str, tuple[Point, Point]]:
    """Unit province -> its move line (unit point to destination point)."""
    moves: dict[str, tuple[Point, Point]] = {}
    for r in results:
        o = r.order
        dest = getattr(o, "dest", None)
        if o is not None and dest and not _helped(o) and _known(lay, o.loc, dest):
            moves[province_of(o.loc)] = (lay.at(o.loc), lay.at(dest))
    return moves


def move_arrows(lay: Layout, results: list[OrderResult]) -> list[tuple[tuple[Point, Point], OrderResult]]:
    """The move arrows a picture of ``results`` draws: (unit point, destination point) and the result."""
    moves = _moves(lay, results)
    out = []
    for r in results:
        o = r.order
        if o is None or r.result == "invalid" or isinstance(o, (Hold, Waive)) or not _known(lay, o.loc):
            continue
        if not isinstance(o, Support) and not _helped(o) and getattr(o, "dest", None) and province_of(o.loc) in moves:
            out.append((moves[province_of(o.loc)], r))
    return out


def _orders(c: Canvas, m: Map, lay: Layout, results: list[OrderResult], colours: dict[str, str],
            position: Position) -> None:
    moves = _moves(lay, results)
    marks: list[tuple[str, Point]] = []  # drawn over the arrows
    for r in results:
        o = r.order
        if o is None or r.result == "invalid" or isinstance(o, (Hold, Waive)) or not _known(lay, o.loc):
            continue
        colour = colours.get(r.power, GREY)
        failed = r.result == "fails"
        here = lay.at(o.loc)
        fade = 0.5 if failed else 1.0
        if isinstance(o, Support) and _known(lay, o.target):
            target = province_of(o.target)
            if o.dest and target in moves:
                a, b = moves[target]
                aim = (a[0] + (b[0] - a[0]) * 0.6, a[1] + (b[1] - a[1]) * 0.6)
            else:
                aim = lay.at(o.target)
            p1, p2 = _line(here, aim, UNIT_R + 1, 0 if o.dest else UNIT_R + 3)
            c.line(p1, p2, colour, 2.2, (1.5, 3.5), fade, cap="round")
            c.circle(p2, 3, colour, INK, 0.8, opacity=fade)
            if failed:
                marks.append(("cut", ((p1[0] * 2 + p2[0]) / 3, (p1[1] * 2 + p2[1]) / 3)))
        elif _helped(o):  # convoy, and module kinds that carry or guard another unit's move
            other, dest = _helped(o), getattr(o, "dest", None)
            if province_of(other) in moves:
                a, b = moves[province_of(other)]
            elif dest and _known(lay, other, dest):
                a, b = lay.at(other), lay.at(dest)
            else:
                continue
            p1, p2 = _line(here, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), UNIT_R + 1, 0)
            c.line(p1, p2, colour, 2, (7.0, 3.0, 1.5, 3.0), fade)
            c.circle(p2, 5, "#ffffff", colour, 2.2)
        elif isinstance(o, (Disband, Remove)):
            marks.append(("gone", here))
        elif isinstance(o, Build):
            if r.result == "succeeds":
                c.circle(here, 14, "#ffffff", colour, 2.5, (4.0, 2.0), fill_opacity=0.7)
        if "dislodged" in r.reason or "disbanded" in r.reason:
            if not any(d.unit.loc == o.loc for d in position.dislodged.values()):
                marks.append(("lost", (here[0] + 13, here[1] + 11)))
    for r, start, base, head in arrow_heads(m, lay, position, results):
        tip = _arrow(c, start, base, head, colours.get(r.power, GREY), r.result == "fails")
        if "bounce" in r.reason:
            marks.append(("bounce", tip))
    for kind, at in marks:
        if kind == "bounce":
            _star(c, at)
        else:
            _cross(c, at, {"cut": 4.5, "lost": 5.5}.get(kind, 7.0))


def _helped(o: Order) -> str:
    """The unit whose move this order carries or guards (convoy; a module's ferry or protect)."""
    if isinstance(o, Convoy):
        return o.target
    if getattr(o, "dest", None):
        return getattr(o, "army", None) or getattr(o, "fleet", None) or ""
    return ""


def _known(lay: Layout, *locs: str) -> bool:
    return all(province_of(loc) in lay.points for loc in locs)


# -- title and legend ---------------------------------------------------------------------------
def _title(c: Canvas, text: str) -> None:
    c.rect(8, 8, 8.4 * len(text) + 16, 24, "#ffffff", "#333333", 0.8, rx=3, fill_opacity=0.85)  # bold 13 px
    c.text(16, 25, text, 13, "#111111", bold=True)


def _legend(c: Canvas, variant: Variant, position: Position, w: float, h: float) -> None:
    units: dict[str, int] = {}
    centres: dict[str, int] = {}
    for u in position.units.values():
        units[u.power] = units.get(u.power, 0) + 1
    for p in position.centres.values():
        centres[p] = centres.get(p, 0) + 1
    step = min(150.0, (w - 20) / max(len(variant.powers), 1))
    y = h + 20
    for i, (name, pw) in enumerate(variant.powers.items()):
        x = 14 + i * step
        c.rect(x, y - 9, 12, 12, pw.colour, INK, 0.8, rx=2)
        label = f"{name} {centres.get(name, 0)}/{units.get(name, 0)}"
        c.text(x + 16, y + 1, label, 11 if step >= 7.2 * len(label) + 18 else 9.5, "#222222")
    y = h + 48
    grey = "#444444"
    c.text(14, y + 4, "centres/units", 10, grey)
    x = 104.0
    for name, width, dash, cap in (("move", 3.0, None, "butt"), ("failed", 3.0, (6.0, 4.0), "butt"),
                                   ("support", 2.2, (1.5, 3.5), "round"), ("convoy", 2.0, (7.0, 3.0, 1.5, 3.0), "butt")):
        c.line((x, y), (x + 28, y), grey, width, dash, cap=cap)
        c.text(x + 33, y + 4, name, 10, grey)
        x += 33 + 6.5 * len(name) + 16
    _star(c, (x + 6, y))
    c.text(x + 18, y + 4, "bounce", 10, grey)
    x += 70
    c.circle((x + 6, y), 7, None, FAIL_RED, 2)
    c.text(x + 18, y + 4, "dislodged", 10, grey)
    x += 80
    _cross(c, (x + 6, y), 5)
    c.text(x + 18, y + 4, "destroyed or removed", 10, grey)
    x += 140
    c.circle((x + 6, y), 4.2, "#ffffff", "#222222", 1)
    c.text(x + 16, y + 4, "supply centre", 10, grey)
