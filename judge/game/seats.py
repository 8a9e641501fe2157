"""Who sits where: the seats of a game and the addresses and public names behind them.

Plain queries on the store, read by the game's lifecycle, its results mail, Empires in Arms
games and the archive alike (kept apart from :mod:`judge.game.lifecycle` so that the results
mail and the archive need not import the module that sends them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.game.store import Store, loads

if TYPE_CHECKING:
    from judge.game.lifecycle import Game


def address_of(store: Store, pid: int | None) -> str | None:
    if pid is None:
        return None
    return store.scalar("SELECT address FROM players WHERE id = ?", (pid,))


def seats(store: Store, game_id: int, role: str | None = "player") -> list[Any]:
    if role is None:
        return store.all("SELECT * FROM seats WHERE game_id = ? ORDER BY id", (game_id,))
    return store.all("SELECT * FROM seats WHERE game_id = ? AND role = ? ORDER BY id", (game_id, role))


def seat_of_power(store: Store, game_id: int, power: str) -> Any:
    return store.one("SELECT * FROM seats WHERE game_id = ? AND role = 'player' AND power = ?", (game_id, power))


def seat_addresses(store: Store, seat: Any) -> list[str]:
    extra = loads(seat["addresses"], [])
    if extra:
        return list(extra)
    a = address_of(store, seat["player_id"])
    return [a] if a else []


def master_address(store: Store, game: "Game") -> str | None:
    return address_of(store, game.master_id)


def player_label(store: Store, seat: Any) -> str | None:
    """How a seat's player is named in public reports: the name they set, else the mailbox
    name (never the whole address); None for a vacant seat."""
    if seat is None or seat["player_id"] is None or seat["status"] == "vacant":
        return None
    row = store.one("SELECT name, address FROM players WHERE id = ?", (seat["player_id"],))
    if row is None:
        return None
    return (row["name"] or "").strip() or str(row["address"]).partition("@")[0]
