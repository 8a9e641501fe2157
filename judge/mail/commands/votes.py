"""Draws, concessions, alliances and resignations: how a game ends by agreement."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

from judge.game import lifecycle as games, orderbook
from judge.game.lifecycle import Game
from judge.game.store import dumps
from judge.mail.commands import CommandError, Stop, command, token_powers
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


def vote(h: Handler, yes: bool, tokens: list[str] | tuple[str, ...] = ()) -> None:
    """SET DRAW [powers] / SET NODRAW: this phase's draw vote (njudge's DIAS and NoDIAS draws)."""
    g, power = h.need_power()
    ph = h.need_phase(g)
    st = h.ctx.store
    alive = games.survivors(ph.position)
    dias = games.switch(g, "dias") == "yes"
    listed = [p for p in g.variant.powers if p in named_powers(h, g, list(tokens))]
    if not yes:
        if tokens:
            raise CommandError("NODRAW takes no powers: write SET NODRAW alone (SET DRAW <powers> votes for a draw)")
        if dias:
            st.update("seats", h.session.seat["id"], draw=0, draw_set=None)
            h.say(f"{power} does not vote for a draw.")
        else:  # njudge: in a NoDIAS game NO DRAW is SET DRAW <own power>
            st.update("seats", h.session.seat["id"], draw=0, draw_set=dumps([power]))
            h.say(f"{power} accepts no draw: in this game (draws need not include all survivors) that means "
                  f"{power} accepts only the game conceded to {power} alone.")
        announce(h, g, power)
        if not dias:
            ended(h, g)
        return
    out = [p for p in listed if p not in alive]
    if out:
        raise CommandError(f"{games.join_names(out)} {'is' if len(out) == 1 else 'are'} out of the game: a draw "
                           f"is among the survivors ({games.join_names(alive)}). Your vote was not changed")
    if dias and listed and set(listed) != set(alive):
        raise CommandError(f"draws in '{g.name}' include all survivors (DIAS): the only draw is "
                           f"{games.join_names(alive)}, so a draw of {games.join_names(listed)} cannot be voted for. "
                           f"Write SET DRAW alone to vote for it. Your vote was not changed")
    st.update("seats", h.session.seat["id"], draw=1, draw_set=dumps(listed) if listed else None)
    shown = games.join_names(listed or alive)
    if dias or not listed or set(listed) == set(alive):
        h.say(f"{power} votes for a draw of all survivors ({shown}).")
    elif power in listed:
        h.say(f"{power} votes for a draw of {shown}, or of fewer of them as long as {power} is among them.")
    else:
        h.say(f"{power} votes for a draw of {shown}, or of fewer of them, with or without {power}.")
    h.say("Votes are secret unless the game makes them public, and are reset every phase; a draw passes when "
          "every surviving power with a player accepts it.")
    announce(h, g, power)
    ended(h, g)


def ended(h: Handler, g: Game) -> None:
    """End the game if the votes now agree on a draw (or, NoDIAS, a draw of one: a concession)."""
    if games.check_draw(h.ctx, g) and g.outcome:
        kind = "draw" if g.outcome.get("kind") == "draw" else "concession"
        h.say(f"Every surviving power has accepted the same end: the game is over ({kind}: "
              f"{games.join_names(list(g.outcome.get('powers') or g.outcome.get('winner') or []))}).")


def announce(h: Handler, g: Game, power: str) -> None:
    """In a game with public votes, everyone hears of each vote (secret by default)."""
    if games.switch(g, "draw_votes") != "public":
        return
    seat = h.ctx.store.one("SELECT * FROM seats WHERE id = ?", (h.session.seat["id"],))
    line = next((x for x in games.vote_lines(h.ctx.store, g) if x.startswith(f"{seat['power']}:")), "")
    games.notice(h.ctx, g, f"Vote: {g.variant.powers[power].letter}", f"Votes are public in '{g.name}'. {line}.")


# -- alliances and concessions (1885 II rule 5) --------------------------------------------------------
def named_powers(h: Handler, g: Game, tokens: list[str]) -> set[str]:
    """Powers named by letters run together (``EF``) or by names (``England France``)."""
    v = g.variant
    out: set[str] = set()
    for tok in tokens:
        for part in tok.replace(";", ",").split(","):
            t = part.strip(".+").upper()
            if t in ("", "WITH", "AND", "TO", "&"):
                continue
            found = token_powers(v, t)
            if found is None:
                letters = "".join(p.letter for p in v.powers.values())
                raise CommandError(f"unknown power {part!r}: use power letters ({letters}) or names; "
                                   f"nothing was changed")
            out |= found
    return out


def alliance_seat(h: Handler) -> tuple[Game, str, Any]:
    g, power = h.need_power()
    h.need_phase(g)
    if not games.alliance_sizes(g.variant):
        raise CommandError(f"{g.variant.title} has no alliance victories")
    if h.session.became:
        raise CommandError("only the power's own player may declare or withdraw its alliances")
    return g, power, h.ctx.store.one("SELECT * FROM seats WHERE id = ?", (h.session.seat["id"],))


def alliance_waiting(h: Handler, g: Game, group: list[str]) -> list[str]:
    """Members of ``group`` that have not declared it."""
    st = h.ctx.store
    return [p for p in group if (s := games.seat_of_power(st, g.id, p)) is None or group not in games.seat_alliances(s)]


def alliance_status(h: Handler, g: Game, power: str) -> str:
    seat = h.ctx.store.one("SELECT * FROM seats WHERE id = ?", (h.session.seat["id"],))
    groups = games.seat_alliances(seat)
    if not groups:
        return f"{power} has declared no alliance."
    need = games.alliance_sizes(g.variant)
    lines = [f"{power} has declared:"]
    for group in groups:
        waiting = alliance_waiting(h, g, group)
        state = (f"waiting for {games.join_names(waiting)} to declare it" if waiting else
                 f"in force: {need[len(group)]} centres jointly at the end of a move after which centres "
                 f"change hands win")
        lines.append(f"  {games.join_names(group)} ({state})")
    return "\n".join(lines)


@command("DRAW", who="player", syntax="DRAW [powers]",
         summary="vote for a draw; also SET DRAW. DIAS games (the default): all survivors. NoDIAS games: "
                 "name the powers, e.g. SET DRAW EF or SET DRAW England France", example="DRAW")
def draw(h: Handler, cmd: Command) -> None:
    vote(h, True, cmd.args)


@command("NODRAW", who="player", syntax="NODRAW",
         summary="take back your vote for a draw (NoDIAS games: accept only a concession to you); also SET NODRAW",
         aliases=("NO DRAW",), example="NODRAW")
def nodraw(h: Handler, cmd: Command) -> None:
    vote(h, False)


@command("CONCEDE", who="player", syntax="CONCEDE <powers>",
         summary="concede the game to the largest power (njudge's rule; with the game's CONCESSIONS any: to any "
                 "power, or in 1885 II an alliance); the game ends when all survivors concede to the same", example="CONCEDE France")
def concede(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    ph = h.need_phase(g)
    if not cmd.args:
        raise CommandError("write CONCEDE <power>, e.g. CONCEDE E (or NOCONCEDE to take it back)")
    rule = games.switch(g, "concessions")
    if rule == "none":
        raise CommandError(f"game '{g.name}' does not allow concessions (a draw vote may still end it)")
    to = sorted(named_powers(h, g, cmd.args))
    sizes = games.alliance_sizes(g.variant) if rule == "any" else {}
    largest = games.largest_powers(ph.position)
    if rule == "largest" and (len(to) != 1 or to[0] not in largest):
        example = f"; name it, e.g. CONCEDE {g.variant.powers[largest[0]].letter}" if largest else ""
        raise CommandError(f"in '{g.name}' the game can be conceded only to the largest power on the board "
                           f"({games.join_names(largest) if largest else 'none owns a centre'}){example}. "
                           f"Your vote was not changed")
    if len(to) > 1 and len(to) not in sizes:
        raise CommandError("the game can be conceded to one power only" if not sizes else
                           f"the game can be conceded to one power or to an alliance of "
                           f"{' or '.join(str(n) for n in sorted(sizes))} powers")
    out = [p for p in to if p not in games.survivors(ph.position)]
    if out:
        raise CommandError(f"{games.join_names(out)} {'is' if len(out) == 1 else 'are'} out of the game")
    h.ctx.store.update("seats", h.session.seat["id"], concede=dumps(to))
    announce(h, g, power)
    h.say(f"{power} concedes the game to {games.join_names(to)}. The game ends when every surviving power concedes "
             f"it to the same powers (votes are reset every phase; NOCONCEDE takes it back).")
    if games.check_concession(h.ctx, g):
        h.say(f"Every surviving power has conceded: the game is over, {games.join_names(to)} "
                 f"{'wins' if len(to) == 1 else 'win'}.")


@command("NOCONCEDE", who="player", syntax="NOCONCEDE",
         summary="take back your concession",
         aliases=("NO CONCEDE",), example="NOCONCEDE")
def noconcede(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    h.need_phase(g)
    h.ctx.store.update("seats", h.session.seat["id"], concede=None)
    h.say(f"{power} does not concede the game.")
    announce(h, g, power)


@command("ALLY", who="player", syntax="ALLY <powers>",
         summary="declare an alliance for an alliance victory (1885 II: 34 centres for two, 38 for three)",
         aliases=("ALLIANCE", "DECLARE ALLIANCE"), example="ALLY France Germany")
def ally(h: Handler, cmd: Command) -> None:
    g, power, seat = alliance_seat(h)
    need = games.alliance_sizes(g.variant)
    groups = games.seat_alliances(seat)
    if cmd.args:
        group = sorted(named_powers(h, g, cmd.args) | {power})
        if len(group) not in need:
            sizes = " or ".join(str(n) for n in sorted(need))
            raise CommandError(f"an alliance has {sizes} powers (yours: {', '.join(group)})")
        if group in groups:
            h.say(f"{power} has already declared the alliance of {games.join_names(group)}.")
        else:
            groups.append(group)
            games.set_alliances(h.ctx, g, seat, groups)
            waiting = alliance_waiting(h, g, group)
            if waiting:
                st = h.ctx.store
                letters = "".join(g.variant.powers[p].letter for p in group)
                for p in waiting:  # each power apart: one mail to all would show their addresses to each other
                    to = games.seat_addresses(st, games.seat_of_power(st, g.id, p))
                    if to:
                        games.notice(h.ctx, g, "Alliance proposed",
                                     f"{power} declares an alliance of {games.join_names(group)}. It counts for an "
                                     f"alliance victory once every member has declared it (send ALLY {letters}).",
                                     to=to)
    h.say(alliance_status(h, g, power))


@command("NOALLY", who="player", syntax="NOALLY",
         summary="withdraw your alliance",
         aliases=("NO ALLY", "NOALLIANCE", "NO ALLIANCE", "WITHDRAW ALLIANCE", "WITHDRAW ALLIANCES"), example="NOALLY")
def noally(h: Handler, cmd: Command) -> None:
    g, power, seat = alliance_seat(h)
    groups = games.seat_alliances(seat)
    if cmd.args:
        group = sorted(named_powers(h, g, cmd.args) | {power})
        if group not in groups:
            raise CommandError(f"{power} has not declared the alliance of {games.join_names(group)}")
        keep = [x for x in groups if x != group]
    else:
        keep = []
    if keep != groups:
        games.set_alliances(h.ctx, g, seat, keep)
    h.say(alliance_status(h, g, power))


@command("RESIGN", who="player", syntax="RESIGN",
         summary="leave the game (must be last)",
         aliases=("WITHDRAW",), example="RESIGN")
def resign(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    if h.session.became:
        raise CommandError("the master cannot resign for a power; use EJECT")
    ph = h.need_phase(g)
    if cmd.args:
        raise CommandError(f"{cmd.name} takes no arguments: nothing was changed (NOALLY withdraws an alliance)")
    games.record_departure(h.ctx, g, h.session.seat, "resigned")
    h.ctx.store.update("seats", h.session.seat["id"], status="vacant", password_hash=None, wait=0, draw=0,
                          allies=None, concede=None)
    # orders already given for the phase stand (the player sent them): every mail says so
    given = bool(orderbook.current_orders(h.ctx.store, ph.id, power))
    h.say(f"You have resigned {power} in '{g.name}'." +
          (" The orders you gave for this phase stand." if given else ""))
    h.session.power = None  # no order status for a power no longer played
    opened = (f"{power} has resigned from '{g.name}' and is open for takeover "
              f"(SIGNON {g.variant.powers[power].letter}{g.name} <password>). " +
              ("Until then its units carry out the orders already given for this phase, and then hold." if given
               else "Its units hold until then."))
    games.notice(h.ctx, g, f"Resignation: {g.variant.powers[power].letter}", opened)
    games.tell_standby(h.ctx, g, f"Open for takeover: {g.variant.powers[power].letter}", opened)
    h.touched = True
    raise Stop
