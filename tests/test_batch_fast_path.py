"""``judge adjudicate --batch`` prints the same bytes with the canonical fast path as with the
full order grammar alone, on a fixed corpus of robot games (``bench/corpus.py``: movement,
retreat and adjustment phases in canonical order text)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import judge.orders
from judge.adjudicate import run_batch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus import games  # noqa: E402


def _printed(lines: list[str]) -> str:
    return "".join(json.dumps(out, ensure_ascii=False) + "\n" for out in run_batch(lines))


def test_batch_output_is_byte_identical_with_and_without_the_fast_path(monkeypatch):
    cases = list(games(n_games=8, years=6, seed=7))
    kinds = {c["position"]["phase"].split()[-1] for c in cases}
    assert kinds == {"Movement", "Retreat", "Adjustment"} and len(cases) > 150
    lines = [json.dumps(c) for c in cases]
    fast = _printed(lines)
    monkeypatch.setattr(judge.orders, "read_line", lambda *a, **k: None)  # the full grammar only
    monkeypatch.setattr(judge.orders, "read_run", lambda ctx, table, lines, i, lineno, out: (i, lineno))
    slow = _printed(lines)
    assert fast == slow
    assert fast.count("\n") == len(cases) and '"error"' not in fast
