"""Map-picture figures: mean milliseconds per SVG and per PNG for each variant's start position
(warm: the map layout and the layers every picture shares are kept after the first picture), the
layout's own first cost, and the PNG as results mails carry it (750 pixels wide)."""

from __future__ import annotations

import time

from judge.engine import Position
from judge.mapdraw import draw_png, draw_svg
from judge.mapdraw.geometry import _make_layout
from judge.render.zine import MAIL_PNG_BUDGET, MAIL_SCALE
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
        lay = mean_ms(lambda: _make_layout(v.map), 5)
        svg = mean_ms(lambda: draw_svg(v, pos), 20)
        png_ms = mean_ms(lambda: draw_png(v, pos), 5) if png else float("nan")
        size = len(draw_png(v, pos)) / 1024 if png else float("nan")
        mail_ms = mean_ms(lambda: draw_png(v, pos, scale=MAIL_SCALE, budget=MAIL_PNG_BUDGET), 5) if png else float("nan")
        mail = len(draw_png(v, pos, scale=MAIL_SCALE, budget=MAIL_PNG_BUDGET)) / 1024 if png else float("nan")
        print(f"{name:16} {lay:10.1f} {svg:8.1f} {png_ms:8.1f} {size:8.0f} {mail_ms:8.1f} {mail:8.0f}")


if __name__ == "__main__":
    main()
