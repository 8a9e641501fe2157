"""A game's timed event (reminder, deadline, end of grace), sent to its own kind of game.

Diplomacy games run theirs in :mod:`judge.game.lifecycle`, Empires in Arms games (months, not
phases) in :mod:`judge.game.eia`, which builds on the lifecycle; choosing between them here
keeps the lifecycle from importing the module built on it.
"""

from __future__ import annotations

from typing import Any

from judge.game import eia as eia_games, lifecycle
from judge.game.lifecycle import Ctx


def run_event(ctx: Ctx, ev: Any) -> None:
    game = lifecycle.game_by_id(ctx.store, ev["game_id"])
    if game.variant_name == "eia_afa":
        eia_games.run_event(ctx, game, ev)
    else:
        lifecycle.run_phase_event(ctx, game, ev)
