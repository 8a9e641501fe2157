"""Map pictures with orders on them: CPU milliseconds of the results mail's PNG (``mail_png``) for
the written standard 1901 and a dozen phases of seeded random orders per variant
(``tests/report_scenarios.py``), and the cost of placing the move arrows' heads
(``judge.mapdraw.draw.arrow_heads``) alone. Run from the repository root."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from report_scenarios import random_game, standard_1901  # noqa: E402

from judge.mapdraw.draw import arrow_heads  # noqa: E402
from judge.mapdraw.geometry import layout  # noqa: E402
from judge.render.zine import mail_png  # noqa: E402


def main() -> None:
    games = [("standard 1901", standard_1901())] + [
        (v, random_game(v, 12)) for v in ("standard", "af_standard", "coast_running", "deluge2", "1885")]
    for name, turns in games:
        ts, sizes, heads = [], [], []
        for t in turns:
            args = (t.before.variant, t.before, t.result.results, t.before.phase, name)
            mail_png(*args)
            for _ in range(3):
                c0 = time.process_time()
                picture = mail_png(*args)
                ts.append(time.process_time() - c0)
            sizes.append(len(picture))
            m = t.before.variant.map_at(t.before.phase)
            lay = layout(m, t.before.variant.name)
            c0 = time.process_time()
            arrow_heads(m, lay, t.before, t.result.results)
            heads.append(time.process_time() - c0)
        print(f"{name:14} mail PNG median {statistics.median(ts) * 1000:5.1f} ms CPU, max {max(ts) * 1000:5.1f};"
              f" largest {max(sizes) / 1024:4.1f} kB; arrow heads {statistics.mean(heads) * 1000:4.2f} ms")


if __name__ == "__main__":
    main()
