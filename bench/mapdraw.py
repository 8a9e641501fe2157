"""Map-picture figures: mean milliseconds per SVG and per PNG for each variant's start position
(warm: the map layout and the layers every picture shares are kept after the first picture), the
layout's own first cost (the map file read, or the fallback's Voronoi areas), and the PNG as
results mails carry it (at the map's mail scale and compression, ``judge.render.zine.mail_fit``)."""

from __future__ import annotations

import time

from judge.engine import Position
from judge.mapdraw import draw_png, draw_svg
from judge.mapdraw.geometry import _make_layout, load_map_file, map_files, map_layout
from judge.render.zine import MAIL_PNG_BUDGET, mail_fit
from judge.variant import available_variants, load_variant


def mean_ms(fn, n: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1000


def main() -> None:
    try:
        import cairocffi  # noqa: F401
        png = True
    except (ImportError, OSError):
        png = False
    print(f"{'variant':16} {'layout ms':>10} {'SVG ms':>8} {'PNG ms':>8} {'PNG kB':>8} {'mail ms':>8} {'mail kB':>8}")
    for name in available_variants():
        v = load_variant(name)
        pos = Position.from_json(v.start_position(), v)
        path = map_files().get(name)
        # the first picture's cost of the layout: the file parsed and its polygons' borders found
        lay = mean_ms(lambda: (load_map_file.cache_clear(), map_layout(v.map, load_map_file(path))) if path
                      else _make_layout(v.map), 5)
        svg = mean_ms(lambda: draw_svg(v, pos), 20)
        png_ms = mean_ms(lambda: draw_png(v, pos), 5) if png else float("nan")
        size = len(draw_png(v, pos)) / 1024 if png else float("nan")
        scale, hard = mail_fit(v, v.map) if png else (1.0, False)  # as results mails draw it
        mail_ms = mean_ms(lambda: draw_png(v, pos, scale=scale, budget=MAIL_PNG_BUDGET, hard=hard), 5) if png else float("nan")
        mail = len(draw_png(v, pos, scale=scale, budget=MAIL_PNG_BUDGET, hard=hard)) / 1024 if png else float("nan")
        print(f"{name:16} {lay:10.1f} {svg:8.1f} {png_ms:8.1f} {size:8.0f} {mail_ms:8.1f} {mail:8.0f}")


if __name__ == "__main__":
    main()
