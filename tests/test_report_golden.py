"""Golden tests: the text report of known turns of every variant in seeds/, compared with
``tests/golden/report_<variant>.txt``. Any difference fails; after a deliberate change, rewrite
the files with ``REGEN_GOLDEN=1 python -m pytest tests/test_report_golden.py`` and review the diff."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from judge.render.zine import render_results
from judge.variant import available_variants
from report_scenarios import known_turns

GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("REGEN_GOLDEN") == "1"


def report_texts(variant: str) -> str:
    parts = []
    for t in known_turns(variant):
        rep = render_results(t.before.variant, t.before, t.result, t.game, pictures=False)
        parts.append(f"Subject: {rep.subject}\n\n{rep.text}")
    return ("\n" + "#" * 72 + "\n\n").join(parts)


@pytest.mark.parametrize("variant", available_variants())
def test_report_text_matches_golden(variant: str) -> None:
    got = report_texts(variant)
    path = GOLDEN / f"report_{variant}.txt"
    if REGEN:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run REGEN_GOLDEN=1 python -m pytest {__file__}"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "rendered"))
        pytest.fail(f"report text differs from {path.name}:\n{diff}")


@pytest.mark.parametrize("variant", available_variants())
def test_report_text_fits_72_columns(variant: str) -> None:
    for line in report_texts(variant).splitlines():
        # only a single word longer than the line (a long URL in press) may stick out
        assert len(line) <= 72 or " " not in line.strip(), line
