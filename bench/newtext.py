"""Reading the new text of a mail: time per mail for real replies and for hostile bodies.

    python bench/newtext.py [--repeat 20]

Times ``parse_message`` (MIME, HTML, format=flowed, quote and sign-off detection) on the client
replies of tests/client_mails.py, and ``new_text`` on bodies of the largest size read
(``MAX_BODY_CHARS``) built to make a careless scanner quadratic: thousands of blank lines
between quotes, of attributions, of report titles, of header-like lines. Prints ms per mail.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import client_mails as cm  # noqa: E402
from judge.mail.incoming import MAX_BODY_CHARS, parse_message  # noqa: E402
from judge.mail.newtext import new_text  # noqa: E402


def _fill(unit: str) -> str:
    return (unit * (MAX_BODY_CHARS // len(unit) + 1))[:MAX_BODY_CHARS]


HOSTILE = {
    "blank lines between quotes": "> a\n" + "\n" * (MAX_BODY_CHARS - 8) + "> b\n",
    "blank lines, no quote": "A Lon H\n" + "\n" * (MAX_BODY_CHARS - 8),
    "attributions": _fill("On 1 Jan 2026, J <j@x> wrote:\n> x\n"),
    "report titles": _fill("Game tg - Standard - Spring 1901 Movement\n==========\n"),
    "judge headers": _fill(":: Judge: T  Game: g  Variant: v\n"),
    "judge footers": _fill("No errors encountered.\n"),
    "judge mails and blank lines": _fill(":: Judge: T  Game: g  Variant: v\n\nNo errors encountered.\n\n"),
    "press notices": _fill("Message from E to F in 'g':\n"),
    "header-like lines": _fill("From: x\nTo: y\n"),
    "sign-off words": _fill("Thanks\n"),
    "orders": _fill("A Lon - Nth\n"),
    # the shapes read in any language: field runs with dates, a long line that almost is an
    # attribution or a field, separators, PGP armour without its end, invisible characters
    "field runs with a date": _fill("Kutoka: 24 Nov 2026 10:00 j@x.test\nKwa: b\nMada: c\n"),
    "one long field line with a date": "Label: 2026 10:00 " + "a" * (MAX_BODY_CHARS - 30) + ":",
    "one long line with a date and a colon": "2026 10:00 " + "a.b" * (MAX_BODY_CHARS // 3 - 10) + ":",
    "separators over fields": _fill("_____\nOd: j\nWysłano: 2026\n"),
    "pgp armour without an end": _fill("-----BEGIN PGP SIGNATURE-----\n-----BEGIN PGP MESSAGE-----\n"),
    "invisible characters": _fill("\u200b\ufeffＡ\u200e"),
    "names and phone lines": _fill("Bob\niPhoneから送信\n"),
}


def _time(fn: object, arg: object, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(arg)  # type: ignore[operator]
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.mean(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    new = ["SIGNON Etg pw1", "F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor", "", "Thanks, Bob"]
    old = ["SIGNON Etg pw1", "F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"] * 10
    clients = cm.all_clients(new, old)
    allt = []
    for raw in clients.values():
        allt.append(_time(parse_message, raw, args.repeat)[0])
    print(f"parse_message, {len(clients)} client replies: mean {statistics.mean(allt):.2f} ms, "
          f"max {max(allt):.2f} ms per mail")
    for name, body in HOSTILE.items():
        mean, p95 = _time(new_text, body, max(3, args.repeat // 4))
        print(f"new_text, {len(body)} chars of {name}: mean {mean:.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()
