"""The rule modules, in the supplement's order, and the month's hooks they add.

Importing this module registers every command (judge.eia.context.VERBS)."""

from __future__ import annotations

from typing import Callable

from judge.eia import (afa, breakouts, fleets, forts, honours, politics, prizes, sailing, shipbuilding,
                       stores, transport, treasury)
from judge.eia.context import STAGE_PURSUIT, STAGE_YARDS, Ctx

Hook = Callable[[Ctx], None]

#: after every command of a stage has run
AFTER_STAGE: dict[int, list[Hook]] = {
    STAGE_YARDS: [shipbuilding.announcements],
    STAGE_PURSUIT: [breakouts.resolve],
}
#: when the month closes, before the calendar moves on
CLOSE_MONTH: list[Hook] = [transport.close_month, prizes.close_month, breakouts.close_month,
                           politics.close_month]
#: when the next month opens
OPEN_MONTH: list[Hook] = [shipbuilding.complete]

__all__ = ["afa", "breakouts", "fleets", "forts", "honours", "politics", "prizes", "sailing", "shipbuilding",
           "stores", "transport", "treasury", "AFTER_STAGE", "CLOSE_MONTH", "OPEN_MONTH"]
