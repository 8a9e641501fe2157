"""Replacing players: a power whose player misses phases is opened for takeover and announced (to
the game and to the judge's standby list); ``nmr=wait`` games wait for the replacement instead of
playing the power in civil disorder; what a new player is sent on taking a power over.

Kept in the game's options JSON: ``abandon`` (phases missed in a row that open a power, default
:data:`ABANDON_DEFAULT`), ``nmr`` (``cd`` or ``wait``), ``missed`` (power → phases missed in a row),
``awaiting`` (powers a waiting game waits for), ``standby`` (player ids told of every opening).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from judge.engine.position import Position
from judge.game import orderbook
from judge.game.seats import address_of, seats
from judge.game.store import Store, loads
from judge.render import describe

if TYPE_CHECKING:
    from judge.game.lifecycle import Game

#: phases missed in a row (no order at all received for a phase that needed some) that open a power
ABANDON_DEFAULT = 2
#: what becomes of a power still without orders at the end of grace: civil disorder, or the game waits
NMR_MODES = ("cd", "wait")
NMR_ALIASES = {"nmr": "cd", "civil": "cd", "nonmr": "wait", "no_nmr": "wait", "waits": "wait"}


def abandon_after(game: Game) -> int:
    return int(game.options.get("abandon") or ABANDON_DEFAULT)


def nmr_mode(game: Game) -> str:
    return str(game.options.get("nmr") or "cd")


def set_option(game: Game, key: str, value: str) -> str:
    """``SET ABANDON n`` / ``SET NMR cd|wait`` (any time, by the master); returns the note."""
    v = value.strip().lower()
    if key == "abandon":
        if not v.isdigit() or not 1 <= int(v) <= 99:
            raise ValueError(f"abandon takes a number of phases from 1 to 99, not {value!r}")
        game.options["abandon"] = int(v)
        return (f"A power whose player sends no orders for {int(v)} "
                f"{'phase' if int(v) == 1 else 'phases'} in a row is opened for takeover.")
    v = NMR_ALIASES.get(v, v)
    if v not in NMR_MODES:
        raise ValueError(f"nmr takes cd or wait, not {value!r}")
    game.options["nmr"] = v
    return ("NMR set to cd: a power without orders at the end of grace is played in civil disorder."
            if v == "cd" else
            "NMR set to wait: a power without orders at the end of grace is opened for takeover and "
            "the game waits for its new player (or for the master's PROCESS).")


# -- counting missed phases -------------------------------------------------------------------------
def count_missed(store: Store, game: Game, ph: Any, pos: Position, now: datetime) -> list[str]:
    """As a phase is processed: a played power that owed orders and sent none has missed one more
    phase in a row (if its deadline had come, or the power was already in civil disorder: a phase
    the master processes early is missed by nobody still playing); one that sent any starts again
    from none. Returns the powers that reach the game's limit (to be opened once the phase is done)."""
    missed: dict[str, int] = game.options.setdefault("missed", {})
    due = []
    for s in seats(store, game.id):
        p = s["power"]
        if not p or s["player_id"] is None or s["status"] not in ("active", "cd"):
            continue
        if orderbook.needed(pos, p, game.rules) <= 0:
            continue  # nothing to order (no retreat, no build): neither missed nor kept
        if orderbook.current_orders(store, ph.id, p):
            missed.pop(p, None)
            continue
        if s["status"] == "active" and ph.deadline is not None and now < ph.deadline:
            continue
        missed[p] = int(missed.get(p, 0)) + 1
        if missed[p] >= abandon_after(game):
            due.append(p)
    return due


# -- the standby list ---------------------------------------------------------------------------------
def standby_addresses(store: Store, game: Game) -> list[str]:
    return [a for pid in game.options.get("standby") or [] if (a := address_of(store, pid))]


# -- what a new player is sent --------------------------------------------------------------------------
def position_text(pos: Position) -> str:
    """Every power's units and supply centres, one line each."""
    lines = []
    for p in pos.variant.powers:
        units = [f"{describe.KIND_WORD[u.kind]} {pos.map.name(u.loc)}"
                 for u in sorted(pos.units.values(), key=lambda u: u.loc) if u.power == p]
        centres = sorted(pos.map.name(c) for c, o in pos.centres.items() if o == p)
        if units or centres:
            lines.append(f"{p}: {', '.join(units) or 'no units'}; {len(centres)} "
                         f"{'centre' if len(centres) == 1 else 'centres'}: {', '.join(centres) or 'none'}.")
    return "\n".join(lines)


def press_since(store: Store, game: Game, power: str) -> list[str]:
    """The press sent to ``power`` (or broadcast) since its last player left (since the start if
    it never had one), as its readers were shown it (grey press without its writer)."""
    left = [b.get("at") or "" for b in game.options.get("players_before") or [] if b.get("power") == power]
    since = max(left) if left else ""
    out = []
    for r in store.all("SELECT * FROM press WHERE game_id = ? AND created > ? ORDER BY id", (game.id, since)):
        if not (r["broadcast"] or power in (loads(r["recipients"], []) or [])):
            continue  # who really received it; what they were shown of it below
        to = loads(r["shown_to"], None) or loads(r["recipients"], []) or []
        sender = "(grey press)" if r["grey"] else (r["shown_from"] or r["sender"])
        who = "everyone" if r["broadcast"] else ", ".join(to)
        out.append(f"From {sender} to {who}, {r['phase_name'] or 'before the start'}:\n"
                   + "\n".join("  " + line for line in str(r["body"]).split("\n")))
    return out
