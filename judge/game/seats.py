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


def seat_and_address(store: Store, game_id: int, power: str) -> tuple[Any, str | None]:
    """:func:`seat_of_power`, and :func:`address_of` its player, in one query (a sign-on reads
    both); the seat row carries that address beside its own columns, as ``player_address``, and
    how many orders for later phases the power has waiting, as ``future_pending``."""
    seat = store.one("SELECT s.*, p.address AS player_address, (SELECT COUNT(*) FROM future_orders f WHERE "
                     "f.game_id = s.game_id AND f.state = 'pending' AND f.power = s.power) AS future_pending "
                     "FROM seats s LEFT JOIN players p ON p.id = s.player_id "
                     "WHERE s.game_id = ? AND s.role = 'player' AND s.power = ?", (game_id, power))
    return seat, seat["player_address"] if seat is not None else None


def seat_addresses(store: Store, seat: Any, own: str | None = None) -> list[str]:
    """Where a seat's mail goes: SET ADDRESS's list, else its player's own address (``own``: that
    address, when the caller has read it already)."""
    extra = loads(seat["addresses"], [])
    if extra:
        return list(extra)
    a = own or address_of(store, seat["player_id"])
    return [a] if a else []


def master_address(store: Store, game: "Game") -> str | None:
    return address_of(store, game.master_id)


def player_label(store: Store, seat: Any) -> str | None:
    """How a seat's player is named in public reports: the name they set, else the mailbox
    name (never the whole address); None for a vacant seat."""
    if seat is None or seat["player_id"] is None or seat["status"] == "vacant":
        return None
    return person_label(store, seat["player_id"])


def person_label(store: Store, pid: int | None) -> str | None:
    """A person's public name: the name they set, else their mailbox name."""
    row = store.one("SELECT name, address FROM players WHERE id = ?", (pid,)) if pid is not None else None
    if row is None:
        return None
    return (row["name"] or "").strip() or str(row["address"]).partition("@")[0]


# -- who may see whom -------------------------------------------------------------------------------
#: how a player of an anonymous game that is not over is shown to players and observers
ANONYMOUS_LABEL = "anonymous"


def anonymous(game: "Game") -> bool:
    """An anonymous (gunboat) game not yet over: players and observers see no names or addresses."""
    return ((game.options.get("switches") or {}).get("anonymous") == "yes"
            and game.state not in ("finished", "terminated"))


def addresses_public(game: "Game") -> bool:
    """Whether everyone may see the addresses (the master's ``SET ADDRESSES public``; off by default)."""
    return (game.options.get("switches") or {}).get("addresses") == "public" and not anonymous(game)


def public_label(store: Store, game: "Game", seat: Any) -> str | None:
    """How a seat's occupant is named to players, observers and the archive: the public name, or
    :data:`ANONYMOUS_LABEL` in an anonymous game not yet over; None for a vacant seat."""
    label = player_label(store, seat)
    return ANONYMOUS_LABEL if label is not None and anonymous(game) else label


def shown_person(store: Store, game: "Game", seat: Any, *, master: bool = False, own: bool = False) -> str | None:
    """A seat's occupant as one reader may see them: the master, and the occupant on their own seat,
    see the public name and the address; everyone else the public name (and the address where the
    game made addresses public), or nothing but :data:`ANONYMOUS_LABEL` in an anonymous game.
    None for a vacant seat."""
    label = player_label(store, seat)
    if label is None:
        return None
    if master or own or addresses_public(game):
        shown = ", ".join(dict.fromkeys(a for a in [address_of(store, seat["player_id"]), *seat_addresses(store, seat)]
                                        if a))
        return f"{label} <{shown}>" if shown else label
    return ANONYMOUS_LABEL if anonymous(game) else label


def shown_master(store: Store, game: "Game", *, master: bool = False) -> str | None:
    """The game's master as a reader may see them: the public name (players reach the master by
    PRESS TO MASTER), with the address for the master or where the game made addresses public."""
    label = person_label(store, game.master_id)
    if label is None:
        return None
    return f"{label} <{master_address(store, game)}>" if master or addresses_public(game) else label
