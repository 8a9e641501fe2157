"""Helpers for the Army/Fleet module tests (``tests/test_af_*.py``), and tests of the helpers.

Every test drives the engine through ``judge.adjudicate.run_phase`` — the JSON contract of
``judge adjudicate`` — on the variant ``af_standard`` (the standard board with
``modules = ["army_fleet"]``), choosing the rule set with the option ``af_rules``. Orders are
the texts' own notation, read by the order language.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.adjudicate import run_phase

VARIANT = "af_standard"
DAVIS, AGAR = "davis1984", "agar"
BOTH = (DAVIS, AGAR)


def position(units: dict[str, str], phase: str = "Spring 1901 Movement", centres: dict[str, str] | None = None,
             extra: dict[str, Any] | None = None, dislodged: dict[str, list] | None = None) -> dict[str, Any]:
    """A position dict; units and centres as ``{"England": "A/F Nth, F Lon"}``."""
    pos: dict[str, Any] = {"variant": VARIANT, "phase": phase,
                           "units": {p: [u.strip() for u in s.split(",") if u.strip()] for p, s in units.items()}}
    if centres is not None:
        pos["centers"] = {p: s.split() for p, s in centres.items()}
    if extra:
        pos["extra"] = extra
    if dislodged:
        pos["dislodged"] = dislodged
    return pos


@dataclass
class Outcome:
    out: dict[str, Any]

    @property
    def next(self) -> dict[str, Any]:
        return self.out["next"]

    def units(self, power: str | None = None) -> set[str] | dict[str, set[str]]:
        """The units on the board after the phase: one power's, or all (powers with units)."""
        if power is not None:
            return set(self.next["units"].get(power, []))
        return {p: set(us) for p, us in self.next["units"].items() if us}

    def result(self, text: str) -> tuple[str, str]:
        """(result, reason) of the order whose canonical text is ``text``."""
        found = [(r["result"], r["reason"]) for r in self.out["orders"] if r["order"] == text]
        assert found, f"no order {text!r} in {[r['order'] for r in self.out['orders']]}"
        return found[-1]

    def dislodged(self) -> dict[str, list[str]]:
        """Dislodged unit -> its retreat options."""
        return {d["unit"]: d["retreats"] for ds in self.next.get("dislodged", {}).values() for d in ds}

    @property
    def phase(self) -> str:
        return self.next["phase"]

    @property
    def events(self) -> list[str]:
        return self.out.get("events", [])

    @property
    def extra(self) -> dict[str, Any]:
        return self.next.get("extra", {})


def play(pos: dict[str, Any], orders: str, rules: str = DAVIS, **options: Any) -> Outcome:
    """Adjudicate ``orders`` (one per line, each ``Power: order``) in ``pos`` under ``rules``."""
    return Outcome(run_phase(VARIANT, pos, orders, {"af_rules": rules, **options}))


def units_of(pos: dict[str, Any]) -> dict[str, set[str]]:
    return {p: set(us) for p, us in pos["units"].items() if us}


# -- the helpers themselves ------------------------------------------------------------------------------
def test_position_reads_units_and_centres():
    pos = position({"England": "A/F Nth, F Lon"}, centres={"England": "Lon Edi"})
    assert pos["units"] == {"England": ["A/F Nth", "F Lon"]}
    assert pos["centers"] == {"England": ["Lon", "Edi"]}


def test_play_runs_the_variant_with_the_module():
    out = play(position({"England": "A/F Nth"}), "England: A/F Nth H")
    assert out.result("A/F Nth H") == ("succeeds", "")
    assert out.units("England") == {"A/F Nth"}
    assert out.phase == "Fall 1901 Movement"
