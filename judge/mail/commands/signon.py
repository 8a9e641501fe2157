"""Making a game and entering one: as master, power or observer."""

from __future__ import annotations

import functools
from typing import Any, TYPE_CHECKING

from judge.game import eia, lifecycle as games, replacements
from judge.game.lifecycle import Game
from judge.game.passwords import check_new_password, hash_password, verify_password
from judge.game.store import iso
from judge.game.public_names import clean_display_name, unique_name
from judge.game.seats import anonymous, person_label, seat_and_address
from judge.mail import abuse, confirm
from judge.mail.commands import BAD_SIGNON, CommandError, Session, Stop, command
from judge.game.cold_store import archived_message
from judge.mail.commands.master import co_master_seat, drop_co_masters
from judge.mail.language import Command
from judge.variant import available_variants

if TYPE_CHECKING:
    from judge.mail.handler import Handler


def lookup_or_stop(h: Handler, name: str, found: Game | None = None) -> Game:
    """The game ``name`` (``found``: already read), or the error and :class:`Stop`."""
    g = found or h.game_named(name.lstrip("?"))
    if g is None:
        h.error(f"No such game '{name.lstrip('?').lower()}'. Send LIST for the games on this judge.")
        raise Stop
    elsewhere = archived_message(g.name, g.options)
    if elsewhere:
        h.error(elsewhere[0].upper() + elsewhere[1:])
        raise Stop
    return g


def fail_signon(h: Handler) -> None:
    h.error(BAD_SIGNON)
    raise Stop


def check_password(h: Handler, g: Game, label: str, password: str, stored: str | None, owners: list[str]) -> None:
    """Verify a password for one seat (``label``: a power, ``Master``, ``Observer``), throttled:
    after too many wrong ones the seat is locked against other addresses (and its owners told
    once), and a source guessing everywhere is locked out of every check (:mod:`abuse`). The
    source of a guess is where its answer goes (a guesser must read the answers): a forger
    writing in the owner's name, answered at the owner's address, learns nothing and locks
    nobody out; the owner with the right password always gets in."""
    st, now, cfg = h.ctx.store, h.ctx.now, h.ctx.cfg
    sender = h.mail.sender if h.from_only or not h.mail.reply_to else h.mail.reply_to[0]
    until = abuse.locked_until(st, cfg, g.id, label, sender, owners, now)
    if until is not None:
        h.error(f"Too many wrong passwords: password checks for {label} in '{g.name}' answered at your "
                f"address are refused until {h.ctx.when(until)}.")
        raise Stop
    if verify_password(password, stored):
        return
    if abuse.record_failure(st, cfg, g.id, label, sender, owners, now) and owners:
        who = ", ".join(a for a in abuse.failure_senders(st, cfg, g.id, label, now) if a not in owners)
        games.notice(h.ctx, g, f"Wrong passwords: {label}",
                     f"{cfg.seat_failures} wrong passwords for {label} in '{g.name}' within the "
                     f"last {abuse.spell(cfg.abuse_window)}, "
                     f"from {who}. Sign-ons to {label} from other addresses are refused until "
                     f"{h.ctx.when(now + cfg.abuse_window)}; yours still work. If you did not send these, "
                     f"nothing needs doing, but a longer password (SET PASSWORD) does no harm.", to=owners)
    fail_signon(h)


def seat_owners(h: Handler, seat: Any, own: str | None = None) -> list[str]:
    """The addresses that own a seat: its player's (``own``, when read already), and where its
    mail goes."""
    own = own or games.address_of(h.ctx.store, seat["player_id"])
    return list(dict.fromkeys([*([own] if own else []), *games.seat_addresses(h.ctx.store, seat, own)]))


def signon_power(h: Handler, g: Game, power: str, password: str) -> None:
    st = h.ctx.store
    if g.state == "forming":
        h.error(f"Game '{g.name}' has not started: powers are assigned at the start. "
                   f"Use SIGNON ?{g.name} <password> to join it.")
        raise Stop
    seat, own = seat_and_address(st, g.id, power)
    if seat is None:
        fail_signon(h)
    if seat["status"] == "vacant":
        if g.state not in ("active", "paused"):
            fail_signon(h)
        take_over(h, g, seat, password)
        return
    check_password(h, g, power, password, seat["password_hash"], seat_owners(h, seat, own))
    enter_seat(h, g, seat, own=own)
    h.future_pending = seat["future_pending"]


def take_over(h: Handler, g: Game, seat: Any, password: str) -> None:
    st = h.ctx.store
    check_new_password(password)
    h.from_only = True
    pid = games.player_id(h.ctx, h.mail.sender)
    st.update("seats", seat["id"], player_id=pid, password_hash=hash_password(password, h.ctx.cfg.password_cost),
              status="active", wait=1, draw=0, addresses=None, allies=None, concede=None,
              joined=iso(h.ctx.now))
    seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
    letter = g.variant.powers[seat["power"]].letter
    games.taken_over(h.ctx, g, seat["power"])
    h.say(f"You have taken over {seat['power']} in '{g.name}'. Sign on from now on with:\n\n"
          f"  SIGNON {letter}{g.name} <your password>\n\n(WAIT is set for you this phase: send SET NOWAIT "
          f"when your orders are complete.) {public_name(h, g, pid)}")
    h.say(welcome(h, g, seat["power"]))
    games.notice(h.ctx, g, f"New Player Signon: {letter}",  # the new player has this reply instead
                 f"{seat['power']} in game '{g.name}' has been taken over by a new player.",
                 but=games.seat_addresses(st, seat))
    enter_seat(h, g, seat, quiet=True)


def public_name(h: Handler, g: Game, pid: int, master: bool = False) -> str:
    """Name a player who has just joined ``g``: a player the judge has no name for yet gets the
    display name of their From field (:func:`clean_display_name`), else their mailbox name; a name
    another seat of ``g`` already shows gets "(2)" after it. Returns the sentence for the reply:
    the name, where it came from, and how to change it (SET NAME, confirmed from the address)."""
    st = h.ctx.store
    row = st.one("SELECT name, address FROM players WHERE id = ?", (pid,))
    mailbox = str(row["address"]).partition("@")[0]
    others = {n for s in games.seats(st, g.id, None) if s["player_id"] not in (None, pid)
              if (n := person_label(st, s["player_id"]))}
    if g.master_id not in (None, pid):
        others.add(person_label(st, g.master_id) or "")
    had = (row["name"] or "").strip()
    # (an Empires in Arms game has no Diplomacy variant: its nations are the names a name may not be)
    powers = frozenset(eia.LETTERS.values()) if eia.is_eia(g) else frozenset(g.variant.powers)
    given = None if had else clean_display_name(h.mail.sender_name, str(row["address"]), powers)
    name = unique_name(had or given or mailbox, others)
    if name != (had or mailbox):  # the plain mailbox name is not stored: reports fall back to it
        st.update("players", pid, name=name)
    if had:
        whence = "the name you have on this judge"
    elif given:
        whence = "the name your mail program sends with your address"
    else:
        whence = "your mailbox name" + (": the name your mail program sends is not one to show"
                                        if h.mail.sender_name.strip() else ": your mail program sends no name")
    clash = (f" ('{had or given or mailbox}' is already how another player in '{g.name}' is shown)"
             if name != (had or given or mailbox) else "")
    change = "SET NAME <your name> changes it (the judge then mails you a code to CONFIRM)."
    if anonymous(g) and not master:  # (an anonymous game names its master: players write to them)
        return (f"'{g.name}' is anonymous: no one sees your name until it is over; then you are shown as "
                f"'{name}' ({whence}){clash}. {change}")
    return f"Others see you as '{name}' ({whence}){clash}. {change}"


def welcome(h: Handler, g: Game, power: str) -> str:
    """The position and the press the power received while it had no player, for its new player."""
    ph = games.current_phase(h.ctx.store, g)
    parts = [f"\nThe position ({ph.name}):\n{replacements.position_text(ph.position)}"] if ph is not None else []
    press = replacements.press_since(h.ctx.store, g, power)
    parts.append(f"Press to {power} since its last player left:\n\n" + "\n\n".join(press) if press else
                 f"No press has been sent to {power} since its last player left.")
    return "\n\n".join(parts)


def set_standby(h: Handler, g: Game, on: bool) -> bool:
    """Put the From address on the game's standby list, or take it off; False if nothing changed."""
    pid = games.player_id(h.ctx, h.mail.sender)
    listed: list[int] = g.options.setdefault("standby", [])
    if on == (pid in listed):
        return False
    if on:
        listed.append(pid)
    else:
        listed.remove(pid)
    games.save_options(h.ctx, g)
    return True


def enter_seat(h: Handler, g: Game, seat: Any, quiet: bool = False, own: str | None = None) -> None:
    """``own``: the seat's player's address, given by a plain sign-on that has read it already."""
    st = h.ctx.store
    if seat["status"] == "cd":
        st.update("seats", seat["id"], status="active")
        seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
        games.notice(h.ctx, g, f"{seat['power']} returns", f"{seat['power']} is no longer in civil disorder.")
    h.session = Session(game=g, seat=seat, power=seat["power"] if seat["role"] == "player" else None,
                           signons=1)
    addresses = games.seat_addresses(st, seat, own)
    if h.mail.sender not in addresses:
        h.copy_to = addresses
    # a plain sign-on (``own`` given) only read g and the seat: as the store holds them, until
    # another command runs (a take-over or a join changes more)
    h.session_fresh = own is not None
    if not quiet:
        what = seat["power"] or ("observer" if seat["role"] == "observer" else "player (power not yet assigned)")
        h.say(f"Signed on as {what} in '{g.name}'.")


def signon_join(h: Handler, g: Game, password: str, invitation: str | None = None) -> None:
    st = h.ctx.store
    pid = st.scalar("SELECT id FROM players WHERE address = ?", (h.mail.sender,))
    mine = [s for s in games.seats(st, g.id) if pid is not None and s["player_id"] == pid]
    if mine:
        for s in mine[1:]:
            if verify_password(password, s["password_hash"]):
                enter_seat(h, g, s)
                return
        s = mine[0]
        check_password(h, g, s["power"] or f"seat {s['id']}", password, s["password_hash"],
                            seat_owners(h, s))
        enter_seat(h, g, s)
        return
    h.from_only = True
    if g.state == "forming" and len(games.seats(st, g.id)) >= len(g.variant.powers):  # full, after UNSTART
        raise CommandError(f"game '{g.name}' has a player for every power and waits for its master's START")
    join_hash = g.options.get("join_hash")  # SET JOIN PASSWORD: an invitation-only game
    if join_hash and not invitation:
        h.error(f"'{g.name}' is by invitation: write SIGNON ?{g.name} <your password> <the join password> "
                "(the master gives the join password)")
        raise Stop
    if join_hash:  # a wrong one counts as a wrong password: guessing is throttled, the master told
        master = games.master_address(st, g)
        check_password(h, g, "Join password", str(invitation), join_hash, [master] if master else [])
    if g.state == "forming":
        check_new_password(password)
        seat = games.join(h.ctx, g, h.mail.sender, password)
        filled = len(games.seats(st, g.id))
        need = len(g.variant.powers)
        h.session = Session(game=g, seat=seat, signons=1)
        named = " " + public_name(h, g, seat["player_id"])
        master = games.master_address(st, g)
        if master:  # the master sees who joined, address and all (they may need to reach them)
            who = person_label(st, seat["player_id"]) or h.mail.sender.partition("@")[0]
            games.notice(h.ctx, g, "New Player Signon", f"{who} <{h.mail.sender}> has joined '{g.name}' "
                         f"({filled} of {need}).", to=[master])
        if filled >= need:  # started once the mail is read, so a SET PREFERENCE after this line counts
            def start() -> None:
                games.start(h.ctx, g)
                h.session.seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
                h.session.power = h.session.seat["power"]
                h.say(f"You were the last of the {need} players to join '{g.name}': the game has started and "
                      f"you are {h.session.power}. Keep your password.{named}")
            h.after_read.append(start)
        else:
            h.say(f"You have joined '{g.name}' ({filled} of {need} players). Your power is assigned when "
                  f"the game starts; keep your password.{named}")
        return
    if g.state not in ("active", "paused"):
        h.error(f"Game '{g.name}' is over.")
        raise Stop
    vacant = [s for s in games.seats(st, g.id) if s["status"] == "vacant"]
    if not vacant:
        h.error(f"Game '{g.name}' has no vacant power to take over.")
        raise Stop
    order = list(g.variant.powers)
    vacant.sort(key=lambda s: order.index(s["power"]))
    take_over(h, g, vacant[0], password)


def observer_seat(h: Handler, g: Game) -> Any:
    """The From address's observer seat in ``g``, or None."""
    pid = h.ctx.store.scalar("SELECT id FROM players WHERE address = ?", (h.mail.sender,))
    if pid is None:
        return None
    return h.ctx.store.one("SELECT * FROM seats WHERE game_id = ? AND role = 'observer' AND player_id = ?",
                           (g.id, pid))


def observer_owners(h: Handler, seat: Any) -> list[str]:
    return list(dict.fromkeys([h.mail.sender, *(seat_owners(h, seat) if seat else [])]))


def signon_observer(h: Handler, g: Game, password: str) -> None:
    seat = observer_seat(h, g)
    check_password(h, g, "Observer", password, seat["password_hash"] if seat else None, observer_owners(h, seat))
    enter_seat(h, g, seat)


@functools.lru_cache(maxsize=1)
def _power_names() -> frozenset[str]:
    """Every power name of every variant, lower case (to read ``SIGNON France game pw``)."""
    from judge.variant import load_variant

    return frozenset(p.lower() for v in available_variants() for p in load_variant(v).powers)


@command("CREATE", who="anyone", syntax="CREATE ?game password [variant] [option=value ...]",
         summary="make a game; you become its master", example="CREATE ?first secret standard move=72h press=grey")
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
             f"(or when you send START).\n{public_name(h, g, g.master_id, master=True)}")


@command("SIGNON", who="anyone", syntax="SIGNON ?game password",
         summary="join a forming game (or take over a vacant power)",
         aliases=("SIGN ON", "HELLO", "LOGIN", "LOG IN"),
         forms=(
             ("anyone", "SIGNON %game", "join the game's standby list (as STANDBY game)", "SIGNON %first"),
             ("anyone", "SIGNON ?game password joinpassword", "join a game the master opened by invitation (SET JOIN PASSWORD)", "SIGNON ?first secret tuesday-club"),
             ("anyone", "SIGNON <letter><game> password", "sign on as a power (E, F, G, I, A, R, T in Standard), M for the master, O for an observer", "SIGNON Efirst secret"),
         ), example="SIGNON ?first secret")
def signon(h: Handler, cmd: Command) -> None:
    if h.session.signons:
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    h.session.signons += 1
    args = cmd.args
    if len(args) == 3 and args[0].startswith("?"):  # SIGNON ?game password joinpassword
        signon_join(h, lookup_or_stop(h, args[0]), args[1], args[2])
        return
    if len(args) >= 3 and args[0].lower() not in _power_names():
        # "SIGNON Fgame my pass": a password of several words; never echo any of them
        h.error("a password is one word: write SIGNON <power letter><game> <password>, e.g. "
                   "SIGNON Fmygame secret")
        raise Stop
    if len(args) == 3:
        power_name, name, password = args
        g = lookup_or_stop(h, name)
        p = g.variant.power(power_name)
        if p is None:
            fail_signon(h)
        signon_power(h, g, p.name, password)  # type: ignore[union-attr]
        return
    if len(args) in (1, 2) and args[0].startswith("%") and len(args[0]) > 1:
        standby_on(h, lookup_or_stop(h, args[0][1:]))  # njudge's standby form (a password is not needed)
        return
    if len(args) != 2 or len(args[0]) < 2:
        h.error("write SIGNON <power letter><game> <password>, e.g. SIGNON Fmygame secret "
                   "(or SIGNON ?game password to join a game)")
        raise Stop
    ident, password = args
    letter, name = ident[0].upper(), ident[1:]
    found = h.game_named(name) if letter != "?" else None
    if letter != "?" and found is None and h.game_named(ident):
        whole = ident.lower()  # "SIGNON northsea pw": the game's name with no letter before it
        h.error(f"to join '{whole}' write SIGNON ?{whole} <password> (the ? asks for a place in the game); "
                f"once you have a power, sign on with its letter before the name, e.g. SIGNON F{whole} <password>")
        raise Stop
    g = lookup_or_stop(h, name, found)
    if letter == "?":
        signon_join(h, g, password)
        return
    powers = {p.letter.upper(): p.name for p in g.variant.powers.values()}
    if letter in powers:
        signon_power(h, g, powers[letter], password)
    elif letter == "M":
        master = games.master_address(h.ctx.store, g)
        co = observer_seat(h, g)
        if co is not None and co_master_seat(g, h.mail.sender) == co["id"]:
            # a co-master (PROMOTE) signs on with the password of its observer seat
            check_password(h, g, "Master", password, co["password_hash"], [h.mail.sender])
        else:
            check_password(h, g, "Master", password, g.master_hash, [master] if master else [])
        h.session = Session(game=g, master=True, signons=1)
        h.say(f"Signed on as master of '{g.name}'.")
    elif letter == "O":
        signon_observer(h, g, password)
    else:
        fail_signon(h)


def standby_on(h: Handler, g: Game) -> None:
    if g.state in ("finished", "terminated"):
        raise CommandError(f"game '{g.name}' is over")
    h.from_only = True  # the list holds the From address: the answer goes there only
    pid = h.ctx.store.scalar("SELECT id FROM players WHERE address = ?", (h.mail.sender,))
    if pid is not None and pid in g.options.get("standby", []):
        h.say(f"You ({h.mail.sender}) were already on the standby list of '{g.name}'. STANDBY {g.name} OFF "
              f"takes you off the list.")
        return
    # as for OBSERVE: the address consents first, so a forged From subscribes nobody
    confirm.request(h, "standby", g.id, {}, f"To be on the standby list of '{g.name}' (the judge mails you when "
                    f"one of its powers is open for takeover)", "Until then you are not on it.")


@command("STANDBY", who="anyone", syntax="STANDBY game [OFF]",
         summary="be told when a power of a game is open for takeover, once you CONFIRM from your address "
                 "(SIGNON %game works too); OFF: stop",
         aliases=("STAND BY",), example="STANDBY first")
def standby(h: Handler, cmd: Command) -> None:
    if not cmd.args or len(cmd.args) > 2 or (len(cmd.args) == 2 and cmd.args[1].upper() not in ("ON", "OFF")):
        raise CommandError("write STANDBY game (to be told when a power opens) or STANDBY game OFF")
    g = lookup_or_stop(h, cmd.args[0])
    if len(cmd.args) == 2 and cmd.args[1].upper() == "OFF":
        h.from_only = True
        gone = set_standby(h, g, False)
        h.say(f"You ({h.mail.sender}) {'are no longer' if gone else 'were not'} on the standby list of '{g.name}'.")
        return
    standby_on(h, g)


@command("OBSERVE", who="anyone", syntax="OBSERVE game password",
         summary="watch a game (results and broadcasts) once you CONFIRM from your address; the password "
                 "is yours, for coming back",
         aliases=("WATCH",), example="OBSERVE first secret")
def observe(h: Handler, cmd: Command) -> None:
    """Watch a game. The address must consent first: the answer (to the From address only)
    carries a code, and only ``CONFIRM <code>`` sent back from that address makes it an observer,
    so a forged From cannot subscribe anyone to a game's mail."""
    if h.session.signons:
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    if len(cmd.args) != 2:
        raise CommandError("write OBSERVE game password")
    h.session.signons += 1
    g = lookup_or_stop(h, cmd.args[0])
    h.from_only = True  # the observer is the From address: the answer (and its code) goes there only
    seat = observer_seat(h, g)
    if seat is not None:
        check_password(h, g, "Observer", cmd.args[1], seat["password_hash"], observer_owners(h, seat))
        enter_seat(h, g, seat, quiet=True)
        h.say(f"You are observing '{g.name}': you will receive its results and broadcasts.")
        return
    ask_to_observe(h, g, cmd.args[1])


def ask_to_observe(h: Handler, g: Game, password: str) -> None:
    """A new observer's first step (any kind of game): the From address is mailed a code, and
    nothing more happens until ``CONFIRM <code>`` comes back from it."""
    if g.state in ("finished", "terminated"):
        raise CommandError(f"game '{g.name}' is over")
    check_new_password(password)
    confirm.request(h, "observe", g.id, {"password_hash": hash_password(password, h.ctx.cfg.password_cost)},
                    f"To observe '{g.name}'", f"Until then the judge sends you nothing about '{g.name}'.")


@command("CONFIRM", who="anyone", syntax="CONFIRM code",
         summary="send back, from your address, the code the judge mailed you (to observe a game, for STANDBY, "
                 "or for SET NAME)", example="CONFIRM 5LXQ2R7KMZ3HW4PA")
def confirm_code(h: Handler, cmd: Command) -> None:
    if len(cmd.args) != 1:
        raise CommandError("write CONFIRM <code>, with the code from the judge's mail")
    st = h.ctx.store
    h.from_only = True
    try:
        c = confirm.take(st, cmd.args[0], h.mail.sender, h.ctx.now)
    except confirm.ConfirmError as exc:
        raise CommandError(str(exc)) from None
    h.session.proved = True
    pid = games.player_id(h.ctx, h.mail.sender)
    if c.kind == "name":
        asked = str(c.payload.get("name", ""))
        # unique among the people of every game not over that this player is in, as at sign-on
        others = {n for (other,) in st.all(
            "SELECT DISTINCT s2.player_id FROM seats s1 JOIN games g ON g.id = s1.game_id AND g.state NOT IN "
            "('finished', 'terminated') JOIN seats s2 ON s2.game_id = g.id WHERE s1.player_id = ? "
            "AND s2.player_id IS NOT NULL AND s2.player_id != ?", (pid, pid)) if (n := person_label(st, other))}
        name = unique_name(asked, others) if asked else ""
        st.update("players", pid, name=name)
        clash = f" ('{asked}' is already how another player in one of your games is shown)" if name != asked else ""
        h.say(f"Reports now name you {name}{clash}." if name else "Reports now name you by your mailbox name.")
        return
    g = games.game_by_id(st, c.game_id) if c.game_id is not None else None
    if g is None or g.state in ("finished", "terminated"):
        raise CommandError(f"the game you asked to {'stand by for' if c.kind == 'standby' else 'observe'} is over")
    if c.kind == "standby":
        set_standby(h, g, True)
        h.say(f"You ({h.mail.sender}) are now on the standby list of '{g.name}': the judge mails you when one of "
              f"its powers is open for takeover. STANDBY {g.name} OFF takes you off the list.")
        return
    if observer_seat(h, g) is None:
        st.insert("seats", game_id=g.id, power=None, role="observer", player_id=pid,
                  password_hash=c.payload.get("password_hash"), status="active", wait=0, draw=0,
                  joined=iso(h.ctx.now))
    h.say(f"You are observing '{g.name}': you will receive its results and broadcasts. "
          f"To stop: UNOBSERVE {g.name}\n{public_name(h, g, pid)}")  # WHOGAME lists observers by name


@command("UNOBSERVE", who="anyone", syntax="UNOBSERVE game",
         summary="stop watching a game (no password needed)",
         aliases=("UNWATCH", "STOP OBSERVING"), example="UNOBSERVE first")
def unobserve(h: Handler, cmd: Command) -> None:
    """An observer leaves: ``UNOBSERVE game`` from the observing address (a password after the
    game's name, as this command once needed, is neither needed nor checked), or ``UNOBSERVE``
    after signing on as one. The answer goes to the From address only."""
    st = h.ctx.store
    h.from_only = True
    if cmd.args:
        g = lookup_or_stop(h, cmd.args[0])
        seat = observer_seat(h, g)
        if seat is None:
            raise CommandError(f"you ({h.mail.sender}) do not observe '{g.name}'")
    elif h.session.seat is not None and h.session.seat["role"] == "observer":
        g, seat = h.need_game(), h.session.seat
    else:
        raise CommandError("write UNOBSERVE game")
    st.conn.execute("DELETE FROM seats WHERE id = ?", (seat["id"],))
    drop_co_masters(h, g, games.seat_addresses(st, seat))
    h.session = Session(signons=h.session.signons)
    h.say(f"You no longer observe '{g.name}': the judge sends you nothing more about it.")
