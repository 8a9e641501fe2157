"""Order-language speed: parse 50-order mails and print orders per second.

    python bench/parse.py [--mails 400] [--check]

Each mail is 50 orders drawn at random from the notations players use (canonical, long-hand,
zine initials, abbreviations with dots, coasts, a misspelt province now and then) against the
standard opening position, several orders to a line as often as one. Times ``parse_orders``
only, without (and with ``--check``, also with) the engine's verdict on each order.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge.engine.position import Position  # noqa: E402
from judge.orders import parse_orders  # noqa: E402
from judge.variant import load_variant  # noqa: E402

ORDERS = [
    "England: F Lon - Nth", "F Edi-Nrg", "Army Liverpool to Yorkshire", "EF Lon - E.C.", "A Lvp S F Edi - Nwg",
    "France: A Par - Bur", "A. Mar (S) A. Par - Bur", "F Bre - Mid", "FA Par H", "French fleet in Brest holds",
    "Germany: A Ber - Kie", "F Kie-Den", "a mun moves to ruh", "GA Mun S GF Kie - Den", "A Ber-Sil",
    "Italy: A Ven H", "A Rom - Apu", "F Nap - Ion", "IF Nap - Tyrrhenian Sea", "A(Ven)-Tyr",
    "Austria: A Vie - Gal", "A Bud - Ser", "F Tri - Alb", "AA Vie S AA Bud - Ser", "A Vie -> Bohemia",
    "Russia: F StP/sc - Bot", "F St. Pete. (south coast) - Gulf of Bothnia", "A Mos - Ukr", "A War - Gal",
    "F Sev - Bla", "RF Sev - Rum",
    "Turkey: F Ank - Bla", "A Con - Bul", "A Smy - Arm", "TA Con S TA Smy - Ank", "F Ank C A Smy - Con",
    "A Par - Lonodn", "A Bud - Rumania", "F Lon - Nth Sea",
]


def mail(rng: random.Random, n: int = 50) -> str:
    lines, line = [], []
    for _ in range(n):
        line.append(rng.choice(ORDERS))
        if rng.random() < 0.5:
            lines.append("; ".join(line))
            line = []
    if line:
        lines.append("; ".join(line))
    return "\n".join(lines) + "\n-- \nsent from a phone\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mails", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="also time parse_orders(..., check=True)")
    args = ap.parse_args()
    v = load_variant("standard")
    pos = Position.from_json(v.start_position(), v)
    rng = random.Random(args.seed)
    mails = [mail(rng) for _ in range(args.mails)]
    for check in (False, True) if args.check else (False,):
        parse_orders(mails[0], pos, check=check)  # name tables are built once per map
        per_order: list[float] = []
        orders = 0
        start = time.perf_counter()
        for text in mails:
            t = time.perf_counter()
            n = len(parse_orders(text, pos, check=check))
            per_order.append((time.perf_counter() - t) / n)
            orders += n
        total = time.perf_counter() - start
        label = "check=True " if check else "check=False"
        print(f"{label}: {orders} orders in {args.mails} mails: {orders / total:,.0f} orders/s; "
              f"per order mean {statistics.mean(per_order) * 1e6:.0f} µs, "
              f"p95 {statistics.quantiles(per_order, n=20)[-1] * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
