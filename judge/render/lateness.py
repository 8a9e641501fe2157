"""What a late power is told: the orders still due (builds and removals by name in an adjustment
phase) and what becomes of a power still late when the grace period ends (the game's NMR setting).
Shared by the orders status closing a reply, the late notice and the Game Starting mail's settings,
so all say the same."""

from __future__ import annotations

from judge.engine.adjustment import adjustments_due
from judge.engine.position import Position


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def adjustments_still_due(pos: Position, power: str, missing: int) -> str:
    """``2 builds due`` / ``1 removal due``: the adjustment orders ``power`` still owes."""
    return f"{_n(missing, 'build' if adjustments_due(pos).get(power, 0) > 0 else 'removal')} due"


def still_due(pos: Position, power: str, missing: int) -> str:
    """The orders ``power`` still owes, as a player reads them: ``France: 2 builds due``,
    ``Italy: 1 removal due`` in an adjustment phase, else ``1 missing``."""
    if pos.phase.kind == "adjustment":
        return f"{power}: {adjustments_still_due(pos, power, missing)}"
    return f"{missing} missing"


#: what the engine does with the orders a power in civil disorder did not give, by phase kind
CIVIL_DISORDER = {
    "movement": "its unordered units hold",
    "retreat": "its unordered dislodged units disband",
    "adjustment": "builds it did not order are waived; removals it did not order are chosen by the "
                  "civil disorder rule",
}


def processed_by(end: str) -> str:
    """When a phase past its deadline is processed; ``end``: when grace ends, as the reader needs it
    ("at the end of the grace period, Tue ..." in a reply, "when grace ends" in the settings)."""
    return (f"The phase is processed as soon as every power's orders are complete, or {end}, with the "
            "orders given by then.")


def grace_rule(length: str) -> str:
    """What grace means, for the settings: ``length`` ("1 day") after each deadline."""
    return (f"{length} after each deadline: a power whose orders are not complete by the deadline is late, "
            f"but its orders still count until grace ends. {processed_by('when grace ends')}")


def after_grace(nmr: str, kind: str | None, now: bool = False, when: str = " then") -> str:
    """What happens at the end of grace to a power still without complete orders (``nmr``: the
    game's SET NMR, ``cd`` or ``wait``; ``kind``: the phase's kind, None for every kind (the
    settings); ``now``: grace has ended; ``when``: the words after "still late")."""
    late = "A power still late" + ("" if now else when)
    if nmr == "wait":
        return f"{late} is opened for takeover, and the phase waits for its new player (or for the master's PROCESS)."
    what = "; ".join(CIVIL_DISORDER.values()) if kind is None else CIVIL_DISORDER.get(kind, CIVIL_DISORDER["movement"])
    return f"{late} is put in civil disorder: {what}."


def missed_phases(abandon: int) -> str:
    """The takeover rule, for a power that has sent no orders at all this phase."""
    return (f"A power that sends no orders at all for {_n(abandon, 'phase')} in a row is opened for "
            "takeover.")
