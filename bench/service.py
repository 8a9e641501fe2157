"""Speed of the game service: order mails handled per second, and a whole robot game.

Run: python bench/service.py  (numbers go to stdout; nothing here is a test)
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


def main() -> None:
    from test_service_helpers import Table

    from judge.demo import run_demo

    with tempfile.TemporaryDirectory() as d:
        t = Table(Path(d))
        t.cfg.password_cost = 14  # the production cost
        t.start_game()
        raws = [t.raw(t.powers["England"], t.signon("England") + "\nF Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
                for _ in range(200)]
        start = time.perf_counter()
        for i, raw in enumerate(raws):
            # 2.5 minutes apart: within the reply quota (30 an hour), so every mail is answered
            t.judge.receive(raw, now=t.now + timedelta(seconds=150 * i))
        secs = time.perf_counter() - start
        print(f"receive: {len(raws)} order mails in {secs:.2f} s ({len(raws) / secs:.0f}/s, "
              f"{1000 * secs / len(raws):.1f} ms each, signon hash check included)")
        t.close()
        start = time.perf_counter()
        summary = run_demo(Path(d) / "demo", seed=1)
        print(f"demo: {time.perf_counter() - start:.2f} s: {summary.split(';')[0]}")


if __name__ == "__main__":
    main()
