"""Draws, concessions, alliances and resignations: how a game ends by agreement."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.game import lifecycle as games
from judge.game.store import dumps
from judge.mail.commands import CommandError, Stop, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("DRAW", who="player", syntax="DRAW",
         summary="vote for a draw (all survivors must agree); also SET DRAW")
def draw(h: Handler, cmd: Command) -> None:
    h.vote(True)


@command("NODRAW", who="player", syntax="NODRAW",
         summary="take back your vote for a draw; also SET NODRAW",
         aliases=("NO DRAW",))
def nodraw(h: Handler, cmd: Command) -> None:
    h.vote(False)


@command("CONCEDE", who="player", syntax="CONCEDE <powers>",
         summary="concede the game to a power (or, in 1885, an alliance); ends when all survivors agree")
def concede(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    ph = h.need_phase(g)
    if not cmd.args:
        raise CommandError("write CONCEDE <power>, e.g. CONCEDE E (or NOCONCEDE to take it back)")
    to = sorted(h.named_powers(g, cmd.args))
    sizes = games.alliance_sizes(g.variant)
    if len(to) > 1 and len(to) not in sizes:
        raise CommandError("the game can be conceded to one power only" if not sizes else
                           f"the game can be conceded to one power or to an alliance of "
                           f"{' or '.join(str(n) for n in sorted(sizes))} powers")
    out = [p for p in to if p not in games.survivors(ph.position)]
    if out:
        raise CommandError(f"{games.join_names(out)} {'is' if len(out) == 1 else 'are'} out of the game")
    h.ctx.store.update("seats", h.session.seat["id"], concede=dumps(to))
    h.say(f"{power} concedes the game to {games.join_names(to)}. The game ends when every surviving power concedes "
             f"it to the same powers (votes are reset every phase; NOCONCEDE takes it back).")
    if games.check_concession(h.ctx, g):
        h.say(f"Every surviving power has conceded: the game is over, {games.join_names(to)} "
                 f"{'wins' if len(to) == 1 else 'win'}.")


@command("NOCONCEDE", who="player", syntax="NOCONCEDE",
         summary="take back your concession",
         aliases=("NO CONCEDE",))
def noconcede(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    h.need_phase(g)
    h.ctx.store.update("seats", h.session.seat["id"], concede=None)
    h.say(f"{power} does not concede the game.")


@command("ALLY", who="player", syntax="ALLY <powers>",
         summary="declare an alliance for an alliance victory (1885 II: 34 centres for two, 38 for three)",
         aliases=("ALLIANCE", "DECLARE ALLIANCE"))
def ally(h: Handler, cmd: Command) -> None:
    g, power, seat = h.alliance_seat()
    need = games.alliance_sizes(g.variant)
    groups = games.seat_alliances(seat)
    if cmd.args:
        group = sorted(h.named_powers(g, cmd.args) | {power})
        if len(group) not in need:
            sizes = " or ".join(str(n) for n in sorted(need))
            raise CommandError(f"an alliance has {sizes} powers (yours: {', '.join(group)})")
        if group in groups:
            h.say(f"{power} has already declared the alliance of {games.join_names(group)}.")
        else:
            groups.append(group)
            games.set_alliances(h.ctx, g, seat, groups)
            waiting = h.alliance_waiting(g, group)
            if waiting:
                st = h.ctx.store
                to = [a for p in waiting for a in games.seat_addresses(st, games.seat_of_power(st, g.id, p))]
                letters = "".join(g.variant.powers[p].letter for p in group)
                if to:
                    games.notice(h.ctx, g, "Alliance proposed",
                                 f"{power} declares an alliance of {games.join_names(group)}. It counts for an "
                                 f"alliance victory once every member has declared it (send ALLY {letters}).",
                                 to=to)
    h.say(h.alliance_status(g, power))


@command("NOALLY", who="player", syntax="NOALLY",
         summary="withdraw your alliance",
         aliases=("NO ALLY", "NOALLIANCE", "NO ALLIANCE", "WITHDRAW ALLIANCE", "WITHDRAW ALLIANCES"))
def noally(h: Handler, cmd: Command) -> None:
    g, power, seat = h.alliance_seat()
    groups = games.seat_alliances(seat)
    if cmd.args:
        group = sorted(h.named_powers(g, cmd.args) | {power})
        if group not in groups:
            raise CommandError(f"{power} has not declared the alliance of {games.join_names(group)}")
        keep = [x for x in groups if x != group]
    else:
        keep = []
    if keep != groups:
        games.set_alliances(h.ctx, g, seat, keep)
    h.say(h.alliance_status(g, power))


@command("RESIGN", who="player", syntax="RESIGN",
         summary="leave the game (must be last)",
         aliases=("WITHDRAW",))
def resign(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    if h.session.became:
        raise CommandError("the master cannot resign for a power; use EJECT")
    h.need_phase(g)
    if cmd.args:
        raise CommandError(f"{cmd.name} takes no arguments: nothing was changed (NOALLY withdraws an alliance)")
    h.ctx.store.update("seats", h.session.seat["id"], status="vacant", password_hash=None, wait=0, draw=0,
                          allies=None, concede=None)
    h.say(f"You have resigned {power} in '{g.name}'.")
    games.notice(h.ctx, g, f"Resignation: {g.variant.powers[power].letter}",
                 f"{power} has resigned from '{g.name}' and is open for takeover "
                 f"(SIGNON ?{g.name} <password>). Its units hold until then.")
    h.touched = True
    raise Stop
