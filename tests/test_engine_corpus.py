"""The golden engine corpus: every case of ``tests/golden/engine_corpus.jsonl`` adjudicated by
today's engine must give exactly the stored outcome (order results, next position, events).

The corpus pins the adjudicator's outcomes so that refactors of the engine (the movement
resolver, the rule modules' hooks, the Army/Fleet module) can be checked to change none: some
three thousand phases of robot games and dense random scenarios around seas and coasts, under
the Army/Fleet rules of Davis and of Agar, Deluge II, 1885 II, Coast Running and the standard
rules with each ``convoy_paradox``, with their retreat and adjustment phases.

A failure here means an adjudication changed. If that is a deliberate rule change, regenerate:

    python tests/golden/make_engine_corpus.py

and justify it in the commit message (which rule changed, why the new outcomes are right, how
many cases changed). Never regenerate to make a refactor pass.
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from make_engine_corpus import OUT, coverage, replay  # noqa: E402

SHOWN = 5  # failing cases whose differences are printed in full


@lru_cache(maxsize=1)
def corpus() -> tuple[dict[str, Any], ...]:
    with OUT.open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def diff(case: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """What differs between the stored and today's outcome of ``case``, line by line."""
    want = case["expected"]
    out: list[str] = []
    if want["results"] != got["results"]:
        for i in range(max(len(want["results"]), len(got["results"]))):
            w = want["results"][i] if i < len(want["results"]) else None
            g = got["results"][i] if i < len(got["results"]) else None
            if w != g:
                out.append(f"  result {i}: expected {w}\n            got      {g}")
    for key in sorted(set(want["next"]) | set(got["next"])):
        w, g = want["next"].get(key), got["next"].get(key)
        if w != g:
            out.append(f"  next.{key}: expected {json.dumps(w)}\n           got      {json.dumps(g)}")
    for key in ("events", "victory", "destroyed"):
        if want.get(key) != got.get(key):
            out.append(f"  {key}: expected {want.get(key)}\n          got      {got.get(key)}")
    return out


def test_every_case_adjudicates_as_recorded():
    failed: list[str] = []
    shown: list[str] = []
    for case in corpus():
        try:
            got, _ = replay(case)
        except Exception as exc:  # a crash is a changed outcome too: name the case
            failed.append(case["id"])
            if len(shown) < SHOWN:
                shown.append(f"case {case['id']} ({case['variant']}, {case['position']['phase']}; "
                             f"orders: {case['orders']}):\n  raised {exc!r}")
            continue
        if got != case["expected"]:
            failed.append(case["id"])
            if len(shown) < SHOWN:
                lines = diff(case, got) or ["  (outcomes differ only in form)"]
                shown.append(f"case {case['id']} ({case['variant']}, {case['position']['phase']}; "
                             f"orders: {case['orders']}):\n" + "\n".join(lines))
    assert not failed, (f"{len(failed)} of {len(corpus())} golden cases adjudicate differently "
                        f"(ids: {', '.join(failed[:40])}{' ...' if len(failed) > 40 else ''})\n\n"
                        + "\n\n".join(shown))


def test_the_diff_names_what_changed():
    case = next(c for c in corpus() if c["expected"]["results"])
    got = json.loads(json.dumps(case["expected"]))
    got["results"][0][2] = "changed"
    got["next"]["phase"] = "changed"
    lines = diff(case, got)
    assert len(lines) == 2 and "result 0" in lines[0] and "next.phase" in lines[1]


def test_the_corpus_keeps_its_teeth():
    """The corpus is large and covers the Army/Fleet order kinds, both ways, under every rule
    set: a regeneration that loses them fails here."""
    cases = corpus()
    assert len(cases) >= 2500
    assert len({c["id"] for c in cases}) == len(cases)
    cov = coverage(list(cases))
    for kind in ("embark", "landing", "landing support", "fast ferry", "A/F move", "A/F hold or support",
                 "support", "convoy"):
        for result in ("succeeds", "fails"):
            assert cov.get(f"{kind} {result}", 0) >= 20, (kind, result, cov)
    for key in ("paradox", "dislodged A/F", "A/F removal succeeds", "retreat phase", "adjustment phase"):
        assert cov.get(key, 0) >= 50, (key, cov)
    played = {(c["variant"], c["rules"]["af_rules"], c["rules"]["convoy_paradox"],
               c["rules"]["af_boarding_attack"]) for c in cases}
    for rules in [("af_standard", "davis1984", "szykman", "any_fleet"), ("af_standard", "agar", "szykman", "any_fleet"),
                  ("af_standard", "davis1984", "1971", "any_fleet"), ("af_standard", "agar", "1971", "any_fleet"),
                  ("af_standard", "davis1984", "szykman", "sea_space"), ("deluge2", "davis1984", "szykman", "sea_space"),
                  ("deluge2", "davis1984", "szykman", "any_fleet"), ("deluge2", "agar", "szykman", "sea_space"),
                  ("1885", "davis1984", "1971", "any_fleet")]:
        assert rules in played, rules
    for variant in ("standard", "coast_running"):
        assert {c["rules"]["convoy_paradox"] for c in cases if c["variant"] == variant} == {
            "szykman", "1971", "convoyed_attack_yields"}, variant
    af = [c for c in cases if "army_fleet" in c["rules"]["modules"]]
    for rules in ("davis1984", "agar"):  # each A/F rule set lands armies both ways
        mine = coverage([c for c in af if c["rules"]["af_rules"] == rules])
        assert mine.get("landing succeeds", 0) >= 20 and mine.get("landing fails", 0) >= 20, (rules, mine)
        assert mine.get("paradox", 0) >= 10, (rules, mine)
