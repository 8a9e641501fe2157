"""Making a game and entering one: as master, power or observer."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from judge.game import lifecycle as games
from judge.game.passwords import check_new_password, hash_password
from judge.game.store import iso
from judge.mail.commands import CommandError, Session, Stop, command
from judge.mail.language import Command
from judge.variant import available_variants

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@functools.lru_cache(maxsize=1)
def _power_names() -> frozenset[str]:
    """Every power name of every variant, lower case (to read ``SIGNON France game pw``)."""
    from judge.variant import load_variant

    return frozenset(p.lower() for v in available_variants() for p in load_variant(v).powers)


@command("CREATE", who="anyone", syntax="CREATE ?game password [variant] [option=value ...]",
         summary="make a game; you become its master")
def create(h: Handler, cmd: Command) -> None:
    if h.session.signons:
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    if len(cmd.args) < 2:
        raise CommandError("write CREATE ?name password [variant] [option=value ...]")
    name, password = cmd.args[0], cmd.args[1]
    variant = "standard"
    rest = cmd.args[2:]
    if rest and "=" not in rest[0]:
        variant, rest = rest[0], rest[1:]
    g = games.create_game(h.ctx, name, password, variant, rest, h.mail.sender)
    h.from_only = True  # the master recorded is the From address: the answer goes there only
    h.session = Session(game=g, master=True, signons=1)
    h.say(f"Game '{g.name}' ({g.variant.title}) created; you are its master.\n"
             f"Players join with:  SIGNON ?{g.name} <password of their choice>\n"
             f"You sign on as master with:  SIGNON M{g.name} <your password>\n"
             f"The game starts when all {len(g.variant.powers)} powers have players "
             f"(or when you send START).")


@command("SIGNON", who="anyone", syntax="SIGNON ?game password",
         summary="join a forming game (or take over a vacant power)",
         aliases=("SIGN ON", "HELLO", "LOGIN", "LOG IN"),
         forms=(
             ("anyone", "SIGNON <letter><game> password", "sign on as a power (E, F, G, I, A, R, T in Standard), M for the master, O for an observer"),
         ))
def signon(h: Handler, cmd: Command) -> None:
    if h.session.signons:
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    h.session.signons += 1
    args = cmd.args
    if len(args) >= 3 and args[0].lower() not in _power_names():
        # "SIGNON Fgame my pass": a password of several words; never echo any of them
        h.error("a password is one word: write SIGNON <power letter><game> <password>, e.g. "
                   "SIGNON Fmygame secret")
        raise Stop
    if len(args) == 3:
        power_name, name, password = args
        g = h.lookup_or_stop(name)
        p = g.variant.power(power_name)
        if p is None:
            h.fail_signon()
        h.signon_power(g, p.name, password)  # type: ignore[union-attr]
        return
    if len(args) != 2 or len(args[0]) < 2:
        h.error("write SIGNON <power letter><game> <password>, e.g. SIGNON Fmygame secret "
                   "(or SIGNON ?game password to join a game)")
        raise Stop
    ident, password = args
    letter, name = ident[0].upper(), ident[1:]
    g = h.lookup_or_stop(name)
    if letter == "?":
        h.signon_join(g, password)
        return
    powers = {p.letter.upper(): p.name for p in g.variant.powers.values()}
    if letter in powers:
        h.signon_power(g, powers[letter], password)
    elif letter == "M":
        master = games.master_address(h.ctx.store, g)
        h.check_password(g, "Master", password, g.master_hash, [master] if master else [])
        h.session = Session(game=g, master=True, signons=1)
        h.say(f"Signed on as master of '{g.name}'.")
    elif letter == "O":
        h.signon_observer(g, password)
    else:
        h.fail_signon()


@command("OBSERVE", who="anyone", syntax="OBSERVE game password",
         summary="watch a game (results and broadcasts); the password is yours, for leaving or coming back",
         aliases=("WATCH",))
def observe(h: Handler, cmd: Command) -> None:
    if h.session.signons:
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    if len(cmd.args) != 2:
        raise CommandError("write OBSERVE game password")
    h.session.signons += 1
    g = h.lookup_or_stop(cmd.args[0])
    st = h.ctx.store
    pid = games.player_id(h.ctx, h.mail.sender)
    seat = st.one("SELECT * FROM seats WHERE game_id = ? AND role = 'observer' AND player_id = ?", (g.id, pid))
    h.from_only = True  # the observer recorded is the From address: the answer goes there only
    if seat is not None:
        h.check_password(g, "Observer", cmd.args[1], seat["password_hash"], [h.mail.sender])
    else:
        check_new_password(cmd.args[1])
        sid = st.insert("seats", game_id=g.id, power=None, role="observer", player_id=pid,
                        password_hash=hash_password(cmd.args[1], h.ctx.cfg.password_cost), status="active",
                        wait=0, draw=0, joined=iso(h.ctx.now))
        seat = st.one("SELECT * FROM seats WHERE id = ?", (sid,))
    h.enter_seat(g, seat, quiet=True)
    h.say(f"You are observing '{g.name}': you will receive its results and broadcasts.")


@command("UNOBSERVE", who="anyone", syntax="UNOBSERVE game password",
         summary="stop watching a game",
         aliases=("UNWATCH", "STOP OBSERVING"))
def unobserve(h: Handler, cmd: Command) -> None:
    """An observer leaves: ``UNOBSERVE game password``, or ``UNOBSERVE`` after signing on as one."""
    st = h.ctx.store
    if len(cmd.args) == 2:
        if h.session.signons:
            raise CommandError("only one SIGNON, CREATE, OBSERVE or UNOBSERVE per message")
        h.session.signons += 1
        g = h.lookup_or_stop(cmd.args[0])
        pid = st.scalar("SELECT id FROM players WHERE address = ?", (h.mail.sender,))
        seat = st.one("SELECT * FROM seats WHERE game_id = ? AND role = 'observer' AND player_id = ?",
                      (g.id, pid)) if pid is not None else None
        h.check_password(g, "Observer", cmd.args[1], seat["password_hash"] if seat else None,
                            [h.mail.sender])
    elif not cmd.args and h.session.seat is not None and h.session.seat["role"] == "observer":
        g, seat = h.need_game(), h.session.seat
    else:
        raise CommandError("write UNOBSERVE game password (or UNOBSERVE after OBSERVE game password)")
    st.conn.execute("DELETE FROM seats WHERE id = ?", (seat["id"],))
    h.session = Session(signons=1)
    h.say(f"You no longer observe '{g.name}': the judge sends you nothing more about it.")
