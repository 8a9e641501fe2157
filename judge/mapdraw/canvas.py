"""Two canvases with the same few drawing calls: SVG text, and a cairo bitmap for PNG.

The map is painted once through these calls, so the SVG and the PNG show the same picture;
painting straight onto cairo is much faster than converting the SVG.
"""

from __future__ import annotations

import io
import math
import weakref
from typing import Any, Callable
from xml.sax.saxutils import escape, quoteattr

from judge.mapdraw.geometry import Point

FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
PNG_COLOURS = 32
Dash = tuple[float, ...]


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    try:
        return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
    except ValueError:
        return (136, 136, 136)


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _pts(pts: list[Point]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in pts)


class SvgCanvas:
    def __init__(self, width: float, height: float):
        self.width, self.height = width, height
        self.out: list[str] = []

    @staticmethod
    def _stroke(stroke: str | None, width: float, dash: Dash | None, opacity: float, cap: str = "butt") -> str:
        if not stroke:
            return ""
        s = f' stroke="{stroke}" stroke-width="{_n(width)}"'
        if dash:
            s += f' stroke-dasharray="{" ".join(_n(d) for d in dash)}"'
        if cap != "butt":
            s += f' stroke-linecap="{cap}"'
        if opacity < 1:
            s += f' stroke-opacity="{_n(opacity)}"'
        return s

    @staticmethod
    def _fill(fill: str | None, opacity: float) -> str:
        if not fill:
            return ' fill="none"'
        return f' fill="{fill}"' + (f' fill-opacity="{_n(opacity)}"' if opacity < 1 else "")

    def polygon(self, pts: list[Point], fill: str | None, stroke: str | None = None, width: float = 1.0,
                fill_opacity: float = 1.0) -> None:
        self.out.append(f'<polygon points="{_pts(pts)}"{self._fill(fill, fill_opacity)}'
                        f'{self._stroke(stroke, width, None, 1)}/>')

    def layer(self, key: object, draw: Callable[["SvgCanvas"], None], transparent: bool = False) -> None:
        """What ``draw`` paints, written once for ``key`` (what it depends on) and kept (see
        :meth:`CairoCanvas.layer`)."""
        keep = _LAYERS.setdefault(key, {}) if _weakable(key) else {}
        elements = keep.get(("svg", transparent))
        if elements is None:
            sub = SvgCanvas(self.width, self.height)
            draw(sub)
            elements = keep[("svg", transparent)] = tuple(sub.out)
        self.out.extend(elements)

    def segments(self, segs: list[tuple[Point, Point]], stroke: str, width: float, opacity: float = 1.0,
                 cap: str = "butt", crisp: bool = False) -> None:
        if segs:  # (``crisp`` is for the PNG's bytes; an SVG stays smooth)
            d = "".join(f"M{_n(a[0])},{_n(a[1])}L{_n(b[0])},{_n(b[1])}" for a, b in segs)
            self.out.append(f'<path d="{d}" fill="none"{self._stroke(stroke, width, None, opacity, cap)}/>')

    def line(self, a: Point, b: Point, stroke: str, width: float, dash: Dash | None = None,
             opacity: float = 1.0, cap: str = "butt") -> None:
        self.out.append(f'<line x1="{_n(a[0])}" y1="{_n(a[1])}" x2="{_n(b[0])}" y2="{_n(b[1])}"'
                        f'{self._stroke(stroke, width, dash, opacity, cap)}/>')

    def circle(self, c: Point, r: float, fill: str | None, stroke: str | None = None, width: float = 1.0,
               dash: Dash | None = None, opacity: float = 1.0, fill_opacity: float | None = None) -> None:
        fo = opacity if fill_opacity is None else fill_opacity
        self.out.append(f'<circle cx="{_n(c[0])}" cy="{_n(c[1])}" r="{_n(r)}"{self._fill(fill, fo)}'
                        f'{self._stroke(stroke, width, dash, opacity)}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str | None, stroke: str | None = None,
             width: float = 1.0, rx: float = 0.0, fill_opacity: float = 1.0) -> None:
        r = f' rx="{_n(rx)}"' if rx else ""
        self.out.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{r}'
                        f'{self._fill(fill, fill_opacity)}{self._stroke(stroke, width, None, 1)}/>')

    def text(self, x: float, y: float, s: str, size: float, fill: str = "#222222", anchor: str = "start",
             bold: bool = False, italic: bool = False, halo: bool = False) -> None:
        a = f' font-size="{_n(size)}"'
        if anchor != "start":
            a += f' text-anchor="{anchor}"'
        if bold:
            a += ' font-weight="bold"'
        if italic:
            a += ' font-style="italic"'
        body = escape(s)
        if halo:  # drawn twice: cairosvg knows no paint-order
            self.out.append(f'<text x="{_n(x)}" y="{_n(y)}"{a} fill="none" stroke="#ffffff" stroke-width="3" '
                            f'stroke-opacity="0.8" stroke-linejoin="round">{body}</text>')
        self.out.append(f'<text x="{_n(x)}" y="{_n(y)}"{a} fill="{fill}">{body}</text>')

    def result(self) -> str:
        w, h = _n(self.width), _n(self.height)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
                f'font-family={quoteattr(FONT)}>')
        return "\n".join([head, *self.out, "</svg>"]) + "\n"


#: cached layers: key (the map) -> (size, scale, transparent) -> cairo surface, or ("svg", transparent)
#: -> SVG elements
_LAYERS: "weakref.WeakKeyDictionary[Any, dict[tuple, Any]]" = weakref.WeakKeyDictionary()


_BLOCKS_KEPT = 16


def _keep_freed_blocks(image_module: Any) -> None:
    """Let Pillow keep a few freed image blocks for the next picture (by default it returns
    every block to the system): each picture's images are the same few sizes, and fresh memory
    cost a millisecond a picture in page faults. Never lowers a larger setting made elsewhere."""
    core = image_module.core
    if core.get_blocks_max() < _BLOCKS_KEPT:
        core.set_blocks_max(_BLOCKS_KEPT)


def _weakable(key: object) -> bool:
    try:
        weakref.ref(key)
    except TypeError:
        return False
    return True


#: zlib level of a picture compressed harder: 8, not the best (9), which took three times as long
#: on a real coastline's picture (150 ms) for 2 % fewer bytes
HARD_LEVEL = 8


class CairoCanvas:
    """The same calls painted on a cairo image (cairocffi)."""

    def __init__(self, width: float, height: float, scale: float = 1.0):
        import cairocffi as cairo

        surface = cairo.ImageSurface(cairo.FORMAT_RGB24, math.ceil(width * scale), math.ceil(height * scale))
        self._start(cairo, surface, width, height, scale)

    def _start(self, cairo: Any, surface: Any, width: float, height: float, scale: float) -> None:
        self.cairo = cairo
        self.width, self.height, self.scale = width, height, scale
        self.surface = surface
        self.ctx = cairo.Context(self.surface)
        self.ctx.scale(scale, scale)
        self.ctx.set_line_join(cairo.LINE_JOIN_ROUND)
        self._colours: dict[str, tuple[float, float, float]] = {}
        # the stroke settings last given to cairo: each is set only when it changes (every call
        # into cairo costs a few microseconds, and most strokes of a picture share them)
        self._width: float | None = None
        self._dash: Dash | None = None
        self._cap: str | None = None

    def _source(self, colour: str, opacity: float = 1.0) -> None:
        rgb = self._colours.get(colour)
        if rgb is None:
            r, g, b = _rgb(colour)
            rgb = self._colours[colour] = (r / 255, g / 255, b / 255)
        if opacity < 1:
            self.ctx.set_source_rgba(*rgb, opacity)
        else:
            self.ctx.set_source_rgb(*rgb)

    def _paint(self, fill: str | None, stroke: str | None, width: float, dash: Dash | None = None,
               opacity: float = 1.0, fill_opacity: float | None = None, cap: str = "butt") -> None:
        ctx = self.ctx
        if fill:
            self._source(fill, opacity if fill_opacity is None else fill_opacity)
            if stroke:
                ctx.fill_preserve()
            else:
                ctx.fill()
        if stroke:
            self._source(stroke, opacity)
            if width != self._width:
                ctx.set_line_width(width)
                self._width = width
            dash = tuple(dash) if dash else ()
            if dash != self._dash:
                ctx.set_dash(list(dash))
                self._dash = dash
            if cap != self._cap:
                ctx.set_line_cap(self.cairo.LINE_CAP_ROUND if cap == "round" else self.cairo.LINE_CAP_BUTT)
                self._cap = cap
            ctx.stroke()

    def polygon(self, pts: list[Point], fill: str | None, stroke: str | None = None, width: float = 1.0,
                fill_opacity: float = 1.0) -> None:
        ctx = self.ctx
        ctx.move_to(*pts[0])
        for p in pts[1:]:
            ctx.line_to(*p)
        ctx.close_path()
        self._paint(fill, stroke, width, fill_opacity=fill_opacity)

    def layer(self, key: object, draw: Callable[["CairoCanvas"], None], transparent: bool = False) -> None:
        """What ``draw`` paints, painted once for ``key`` (what it depends on) and this scale, then
        kept: the map's areas, borders and names are the same in every picture of that map, and
        their strokes were most of a picture's cost. ``transparent``: a layer over what is there."""
        keep = _LAYERS.setdefault(key, {}) if _weakable(key) else {}
        size = (self.surface.get_width(), self.surface.get_height())
        surface = keep.get((size, self.scale, transparent))
        if surface is None:
            surface = self.cairo.ImageSurface(self.cairo.FORMAT_ARGB32 if transparent else self.cairo.FORMAT_RGB24,
                                              *size)
            sub = CairoCanvas.__new__(CairoCanvas)
            sub._start(self.cairo, surface, self.width, self.height, self.scale)
            draw(sub)
            surface.flush()
            keep[(size, self.scale, transparent)] = surface
        ctx = self.ctx
        ctx.save()
        ctx.identity_matrix()
        ctx.set_source_surface(surface, 0, 0)
        ctx.paint()
        ctx.restore()

    def segments(self, segs: list[tuple[Point, Point]], stroke: str, width: float, opacity: float = 1.0,
                 cap: str = "butt", crisp: bool = False) -> None:
        """``crisp``: without antialiasing. A real coastline's thousands of short strokes,
        antialiased, were a third of a mail picture's bytes; crisp, they compress as the old
        straight borders did."""
        for a, b in segs:
            self.ctx.move_to(*a)
            self.ctx.line_to(*b)
        if crisp:
            self.ctx.set_antialias(self.cairo.ANTIALIAS_NONE)
        self._paint(None, stroke, width, opacity=opacity, cap=cap)
        if crisp:
            self.ctx.set_antialias(self.cairo.ANTIALIAS_DEFAULT)

    def line(self, a: Point, b: Point, stroke: str, width: float, dash: Dash | None = None,
             opacity: float = 1.0, cap: str = "butt") -> None:
        self.ctx.move_to(*a)
        self.ctx.line_to(*b)
        self._paint(None, stroke, width, dash, opacity, cap=cap)

    def circle(self, c: Point, r: float, fill: str | None, stroke: str | None = None, width: float = 1.0,
               dash: Dash | None = None, opacity: float = 1.0, fill_opacity: float | None = None) -> None:
        self.ctx.new_sub_path()
        self.ctx.arc(c[0], c[1], r, 0, 2 * math.pi)
        self._paint(fill, stroke, width, dash, opacity, fill_opacity)

    def rect(self, x: float, y: float, w: float, h: float, fill: str | None, stroke: str | None = None,
             width: float = 1.0, rx: float = 0.0, fill_opacity: float = 1.0) -> None:
        ctx = self.ctx
        if rx:
            rx = min(rx, w / 2, h / 2)
            ctx.new_sub_path()
            ctx.arc(x + w - rx, y + rx, rx, -math.pi / 2, 0)
            ctx.arc(x + w - rx, y + h - rx, rx, 0, math.pi / 2)
            ctx.arc(x + rx, y + h - rx, rx, math.pi / 2, math.pi)
            ctx.arc(x + rx, y + rx, rx, math.pi, 3 * math.pi / 2)
            ctx.close_path()
        else:
            ctx.rectangle(x, y, w, h)
        self._paint(fill, stroke, width, fill_opacity=fill_opacity)

    def text(self, x: float, y: float, s: str, size: float, fill: str = "#222222", anchor: str = "start",
             bold: bool = False, italic: bool = False, halo: bool = False) -> None:
        cairo, ctx = self.cairo, self.ctx
        ctx.select_font_face("DejaVu Sans", cairo.FONT_SLANT_ITALIC if italic else cairo.FONT_SLANT_NORMAL,
                             cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL)
        ctx.set_font_size(size)
        if anchor != "start":
            advance = ctx.text_extents(s)[4]
            x -= advance / 2 if anchor == "middle" else advance
        ctx.move_to(x, y)
        if halo:
            ctx.text_path(s)
            self._paint(None, "#ffffff", 3, opacity=0.8)  # a white edge, then the letters on top
            ctx.move_to(x, y)
        self._source(fill)
        ctx.show_text(s)

    def result(self, budget: int | None = None, colours: int = PNG_COLOURS, keep: tuple[str, ...] = (),
               palette: Any = None, hard: bool = False) -> bytes:
        """PNG bytes: a palette image of ``colours`` colours where Pillow is there (32: under half
        the size of 128; the map has a dozen flat colours, and text and lines stay legible).
        ``budget``: bytes above which the PNG is compressed harder (zlib level HARD_LEVEL: a tenth smaller).
        ``keep``: colours the palette must have exactly (the powers': a unit covers few pixels,
        and the colours chosen by counting pixels would give it a neighbour's). ``palette``: a
        Pillow "P" image (:meth:`palette`) to take instead of choosing from this picture. ``hard``:
        that level at once (a map whose mail pictures are known to go over the budget: the same
        bytes as compressing twice, for one encoding)."""
        self.surface.flush()
        try:
            from PIL import Image
        except ImportError:
            buf = io.BytesIO()
            self.surface.write_to_png(buf)
            return buf.getvalue()
        _keep_freed_blocks(Image)
        img = self._image(Image)
        if palette is None:
            palette = self._choose_palette(Image, img, colours, keep)
        pal = img.quantize(palette=palette, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        if hard:
            pal.save(buf, "PNG", compress_level=HARD_LEVEL)
            return buf.getvalue()
        # zlib level 5, not the default 6: a third less time for 3 % more bytes, which the shorter
        # palette gives back
        pal.save(buf, "PNG", optimize=False, compress_level=5)
        if budget is not None and buf.tell() > budget:
            buf = io.BytesIO()
            pal.save(buf, "PNG", compress_level=HARD_LEVEL)
        return buf.getvalue()

    def _image(self, image_module: Any) -> Any:
        s = self.surface
        # read straight from cairo's pixels (the decoder copies them as it converts BGRX to RGB)
        return image_module.frombuffer("RGB", (s.get_width(), s.get_height()), s.get_data(), "raw", "BGRX",
                                       s.get_stride(), 1)

    @staticmethod
    def _choose_palette(image_module: Any, img: Any, colours: int, keep: tuple[str, ...]) -> Any:
        Image = image_module
        # the colours are chosen from every third pixel of every third row (the picture's own colours,
        # a ninth of the work), then each pixel takes the nearest: four times faster than choosing
        # from all of them, and the same to the eye
        sample = img.resize((max(1, img.width // 3), max(1, img.height // 3)), Image.Resampling.NEAREST)
        kept = [c for colour in dict.fromkeys(keep) for c in _rgb(colour)]
        chosen = max(1, colours - len(kept) // 3)
        found = sample.quantize(chosen, method=Image.Quantize.FASTOCTREE).getpalette()[:3 * chosen]
        # a chosen colour next to a kept one is dropped: Pillow's colour look-up works on a few
        # bits less than the colour, and would hand the kept colour's pixels to its near twin
        exact = [kept[i:i + 3] for i in range(0, len(kept), 3)]
        entries = kept + [c for i in range(0, len(found), 3) for c in found[i:i + 3]
                          if all(max(abs(a - b) for a, b in zip(found[i:i + 3], k)) > 6 for k in exact)]
        palette = Image.new("P", (1, 1))
        palette.putpalette(entries)  # only the colours used: the PNG's palette is 32 entries, not 256
        return palette

    def palette(self, colours: int = PNG_COLOURS, keep: tuple[str, ...] = ()) -> Any:
        """The palette :meth:`result` would choose for this picture, to give other pictures of the
        same map (None without Pillow)."""
        self.surface.flush()
        try:
            from PIL import Image
        except ImportError:
            return None
        return self._choose_palette(Image, self._image(Image), colours, keep)
