"""Mail commands for Empires in Arms games (judge.game.eia), hooked into the handler.

:func:`take` is asked first about every command of a message: it answers CREATE with the
``eia_afa`` kind, SIGNON/OBSERVE/LIST/WHOGAME/HISTORY naming an EiA game, and then every line of
a message signed on to one (team commands, team press, the master's commands). The Diplomacy
handler never sees an EiA game, so it never asks one for a map.
"""

from __future__ import annotations

import logging
import sqlite3
import traceback
from dataclasses import dataclass
from typing import Any

from judge.eia.context import MASTER
from judge.game import deadlines, eia
from judge.game.lifecycle import Game, GameError, get_game, seats
from judge.game.passwords import PasswordError, verify_password
from judge.game.seats import address_of
from judge.game.store import dumps, iso

GAME_WORDS = ("LIST", "WHOGAME", "HISTORY", "SUMMARY")
#: failures of the store itself: the message is offered again, never half-answered
STORE_FAILURES = (sqlite3.Error, OSError, MemoryError)
log = logging.getLogger(__name__)


@dataclass
class EiaSession:
    game: Game
    nation: str | None = None       # the team's nation, or MASTER, or None for an observer
    seat: Any = None


def take(h: Any, cmd: Any) -> bool:
    """Handle ``cmd`` if it belongs to an EiA game; False leaves it to the Diplomacy handler."""
    es: EiaSession | None = getattr(h, "eia", None)
    if es is None:
        game = _target(h, cmd)
        if game is None:
            return False
        if cmd.name != "ORDER":
            h.echo(cmd)
        _run(h, lambda: _outside(h, cmd, game))
        return True
    if cmd.name == "ORDER":
        h.say(f"> {cmd.line}")          # the line first, so an error below it says which line it is
        _run(h, lambda: _line(h, es, cmd))
        return True
    h.echo(cmd)
    _run(h, lambda: _inside(h, es, cmd))
    return True


def _run(h: Any, fn: Any) -> None:
    """Run one line of the message on its own: whatever goes wrong with it is answered under it
    and undone (a savepoint), and the lines after it are still read. A refusal is an error line;
    a bug met by the line (any other exception) is reported too, to the sender and the keeper,
    instead of losing the whole message. Store failures (disk, lock) still abort the message, so
    the transport offers it again."""
    from judge.mail.commands import CommandError, Stop

    ctx = h.ctx
    conn = ctx.store.conn
    processed = len(ctx.processed)
    held = len(ctx.held or ())  # mails held for the end of the message (judge.game.digest): undone too
    conn.execute("SAVEPOINT eia_line")
    try:
        fn()
    except Stop:
        conn.execute("RELEASE eia_line")
        raise
    except (CommandError, GameError, PasswordError, deadlines.TimeError) as exc:
        _undo(ctx, processed, held)
        h.error(str(exc))
    except STORE_FAILURES:
        raise
    except Exception as exc:  # a bug met by this line: it is undone, the others go on
        _undo(ctx, processed, held)
        log.exception("EiA line from %s failed", h.mail.sender)
        told = "; the judge keeper has been told" if ctx.cfg.keeper else ""
        h.error(f"the judge met an internal error ({type(exc).__name__}) on this line, so nothing of it was "
                f"done{told}. The other lines of your message are answered as usual.")
        if ctx.cfg.keeper:
            detail = "".join(traceback.format_exception(exc))[-4000:]
            ctx.mail([ctx.cfg.keeper], f"{ctx.cfg.code}: internal error on a line of {h.mail.message_id}",
                     f"A line of message {h.mail.message_id} from {h.mail.sender} failed and was undone; the "
                     f"rest of the message was handled.\n\n{detail}\n", kind="failure-report")
    else:
        conn.execute("RELEASE eia_line")


def _undo(ctx: Any, processed: int, held: int) -> None:
    ctx.store.conn.execute("ROLLBACK TO eia_line")
    ctx.store.conn.execute("RELEASE eia_line")
    del ctx.processed[processed:]
    if ctx.held is not None:
        del ctx.held[held:]


def _target(h: Any, cmd: Any) -> Game | None:
    """The EiA game a session-less command is about, if any."""
    st = h.ctx.store
    if cmd.name == "CREATE":
        rest = [a for a in cmd.args[2:] if "=" not in a]
        if rest and rest[0].lower() == eia.KIND:
            return Game(0, "", eia.KIND, "new", None, None, {})
        return None
    name = None
    if cmd.name == "SIGNON" and cmd.args:
        # "SIGNON ?game pw France" (joining, no role) has three words like "SIGNON F game pw": the ?
        # says which it is
        name = cmd.args[0][1:] if cmd.args[0].startswith("?") or len(cmd.args) != 3 else cmd.args[1]
    elif cmd.name in ("OBSERVE", *GAME_WORDS) and cmd.args:
        name = cmd.args[0]
    if not name:
        return None
    key = name.lstrip("?").strip().lower()
    game = get_game(st, key)
    h.game_read = (key, game)  # the command's own look-up (SIGNON) needs the same row
    return game if eia.is_eia(game) else None


def _outside(h: Any, cmd: Any, game: Game) -> None:
    from judge.mail.commands import CommandError, Session, Stop

    ctx = h.ctx
    if cmd.name == "CREATE":
        if h.session.signons:
            raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
        g = eia.create(ctx, cmd.args[0], cmd.args[1], [a for a in cmd.args[3:]], h.mail.sender)
        h.session = Session(signons=1)
        h.eia = EiaSession(g, MASTER)
        h.say(f"Game '{g.name}' (Empires in Arms, AFA naval supplement) created; you are its master.\n"
              f"Teams join with:  SIGNON ?{g.name} <password> <nation> [role]\n"
              f"  (role: head of state, diplomat, general, or any other your team agrees on)\n"
              f"Members sign on with their nation's letter ({', '.join(f'{k} {v}' for k, v in eia.LETTERS.items())}):"
              f"  SIGNON F{g.name} <password>\n"
              f"You sign on as master with:  SIGNON M{g.name} <your password>; START begins the game.\n"
              f"Dice commitment: {eia.opts(g)['commitment']}")
        return
    if cmd.name in ("SIGNON", "OBSERVE"):
        if h.session.signons:
            raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
        h.session = Session(signons=1)
        _signon(h, cmd, game)
        return
    if cmd.name in GAME_WORDS:
        h.say(_history(h, game) if cmd.name == "HISTORY" else eia.describe(ctx, game))
        return
    raise Stop


def _signon(h: Any, cmd: Any, game: Game) -> None:
    from judge.mail.commands import BAD_SIGNON, CommandError, Stop

    ctx, st = h.ctx, h.ctx.store
    if cmd.name == "OBSERVE":
        if len(cmd.args) != 2:
            raise CommandError("write OBSERVE game password")
        _observe(h, game, cmd.args[1])
        return
    if len(cmd.args) < 2:
        raise CommandError(f"write SIGNON ?{game.name} <password> <nation> [role] to join a team")
    ident, password = cmd.args[0], cmd.args[1]
    letter = ident[0].upper()
    if letter == "?":
        words = cmd.args[2:]
        mine = [s for s in seats(st, game.id) if s["player_id"] is not None and
                address_of(st, s["player_id"]) == h.mail.sender]
        for s in mine:
            if verify_password(password, s["password_hash"]):
                _enter(h, game, s)
                return
        if mine and not words:
            h.error(BAD_SIGNON)
            raise Stop
        nation = eia.nation_of(words[0]) if words else None
        if nation is None:
            raise CommandError("name your team's nation: SIGNON ?game <password> <nation> [role] (nations: "
                               + ", ".join(eia.LETTERS.values()) + ")")
        seat = eia.join(ctx, game, h.mail.sender, password, nation, eia.role_of(words[1:]))
        h.say(f"You have joined the {nation} team of '{game.name}' as {eia.role(game, seat)}.\n"
              f"Sign on from now on with:  SIGNON {nation[0]}{game.name} <your password>")
        refused = eia.role_allows(game, eia.role(game, seat), "")
        if refused and eia.role(game, seat) not in eia.ROLE_VERBS:
            h.say(f"Note: {refused}.")
        _enter(h, game, seat, quiet=True)
        return
    if letter == "M":
        if not verify_password(password, game.master_hash):
            h.error(BAD_SIGNON)
            raise Stop
        h.eia = EiaSession(game, MASTER)
        h.say(f"Signed on as master of '{game.name}'.")
        return
    if letter == "O":
        _observe(h, game, password)
        return
    nation = eia.LETTERS.get(letter)
    for s in seats(st, game.id):
        if nation and s["power"] == nation and s["status"] == "active" and verify_password(password, s["password_hash"]):
            _enter(h, game, s)
            return
    h.error(BAD_SIGNON)
    raise Stop


def _observe(h: Any, game: Game, password: str) -> None:
    """As in every game: a new observer confirms from the address first; a returning one signs on
    with the throttled password check."""
    from judge.mail.commands.signon import ask_to_observe, check_password, observer_owners, observer_seat

    h.from_only = True  # the observer is the From address
    seat = observer_seat(h, game)
    if seat is None and game.state in ("finished", "terminated"):
        # nothing more will be mailed about it, so no consent is asked: its record is public
        h.eia = EiaSession(game, None, None)
        h.say(f"'{game.name}' is over: its record (HISTORY, ROLLS) is open to all; nothing more is mailed.")
        return
    if seat is None:
        ask_to_observe(h, game, password)
        return
    check_password(h, game, "Observer", password, seat["password_hash"], observer_owners(h, seat))
    h.eia = EiaSession(game, None, seat)
    h.say(f"You are observing '{game.name}': you will receive its gazette.")


def _enter(h: Any, game: Game, seat: Any, quiet: bool = False) -> None:
    from judge.game.lifecycle import seat_addresses

    h.eia = EiaSession(game, seat["power"], seat)
    # team play: the reply (the commands accepted, the press sent) goes to the whole team
    for other in eia.members(h.ctx, game, seat["power"]):
        h.copy_to += [a for a in seat_addresses(h.ctx.store, other) if a != h.mail.sender and a not in h.copy_to]
    if not quiet:
        h.say(f"Signed on as {eia.role(game, seat)} of the {seat['power']} team in '{game.name}'.")


def _line(h: Any, es: EiaSession, cmd: Any) -> None:
    from judge.mail.commands import CommandError

    head = cmd.line.split()[0].upper().rstrip(".")
    if head == "ROLLS":
        h.say(rolls_text(h, _fresh(h, es), es.nation == MASTER))
        return
    if es.nation is None:
        raise CommandError("observers send no commands")
    if head == "COMMANDS" and len(cmd.line.split()) == 1:
        left = eia.standing(h.ctx, _fresh(h, es), es.nation)
        whose = "the master's own" if es.nation == MASTER else f"the {es.nation} team's"
        h.say(f"In for this month ({whose}):" + ("".join(f"\n  {line}" for line in left) if left else " none."))
        return
    if head == "REVEAL":
        if es.nation != MASTER:
            raise CommandError("only the game master may do that")
        game = _fresh(h, es)
        if game.state != "active":
            raise CommandError(f"game '{game.name}' is {game.state}")
        h.say(eia.reveal(h.ctx, game))
        return
    stored, warnings = eia.submit(h.ctx, _fresh(h, es), es.nation, cmd.line, es.seat, h.mail.message_id)
    h.say(f"  accepted for this month: {stored}"
          + "".join(f"\n  but {w}" for w in warnings))


def _fresh(h: Any, es: EiaSession) -> Game:
    g = get_game(h.ctx.store, es.game.name)
    assert g is not None
    es.game = g
    return g


def _inside(h: Any, es: EiaSession, cmd: Any) -> None:
    from judge.mail.commands import CommandError, Stop

    ctx = h.ctx
    game = _fresh(h, es)
    name = cmd.name
    master = es.nation == MASTER
    if name in ("START", "PROCESS", "ROLLBACK", "TERMINATE", "PAUSE", "RESUME", "EJECT") and not master:
        raise CommandError("only the game master may do that")
    if name == "SIGNOFF":
        raise Stop
    if name in ("SIGNON", "CREATE", "OBSERVE"):
        raise CommandError("only one SIGNON, CREATE or OBSERVE per message")
    if name == "HELP":
        h.say(help_text())
    elif name in GAME_WORDS:
        target = game
        if cmd.args:
            other = get_game(ctx.store, cmd.args[0].lstrip("?"))
            if other is None:
                raise CommandError(f"no game named '{cmd.args[0]}'")
            target = other
        if not eia.is_eia(target):
            raise CommandError(f"'{target.name}' is a Diplomacy game: ask about it in a mail of its own")
        h.say(_history(h, target) if name == "HISTORY" else eia.describe(ctx, target))
    elif name in ("PRESS", "BROADCAST"):
        _press(h, es, game, cmd, name == "BROADCAST")
    elif name == "CLEAR":
        if es.nation is None:
            raise CommandError("observers have no commands to clear")
        gone = eia.clear(ctx, game, es.nation, es.seat, " ".join(cmd.args))
        own = not cmd.args and es.nation != MASTER
        h.say(f"{len(gone)} command(s) of {es.nation if es.nation != MASTER else 'the master'} cleared for this month"
              + (" (yours only: your teammates' commands stay; CLEAR <command> clears one of them by name)"
                 if own else "") + (":" + "".join(f"\n  {line}" for line in gone) if gone else "."))
        left = eia.standing(ctx, game, es.nation)
        h.say("Still in for this month:" + ("".join(f"\n  {line}" for line in left) if left else " none."))
    elif name == "START":
        if game.state != "forming":
            raise CommandError(f"game '{game.name}' has already started")
        eia.start(ctx, game)
        h.say(f"Game '{game.name}' started.")
    elif name == "PROCESS":
        if game.state != "active":
            raise CommandError(f"game '{game.name}' is {game.state}")
        out = eia.process(ctx, game, "master")
        h.say(f"{out['month']} processed; the reports are on their way.")
    elif name == "ROLLBACK":
        words = [a for a in cmd.args if a.upper() != "OPEN"]
        opened = len(words) < len(cmd.args)
        ph = eia.rollback(ctx, game, words[0] if words else None, opened)
        eia.notice(ctx, game, f"Rollback to {ph['short']}",
                   f"The master has reopened {ph['name']} of '{game.name}'. It will be stepped again with the "
                   f"commands it had, so its dice come out the same"
                   + ("; the master has opened them to the teams: a team may change its commands (CLEAR, new "
                      "lines), and the gazette will say that the month's commands were changed." if opened else
                      "; only the master may change them now, and the gazette will say if he did."))
        h.say(f"'{game.name}' rolled back to {ph['name']}.")
    elif name == "EJECT":
        if len(cmd.args) != 1:
            raise CommandError("EJECT <member's address>")
        h.say(eia.eject(ctx, game, cmd.args[0]))
    elif name == "PAUSE":
        eia.pause(ctx, game)
        h.say(f"Game '{game.name}' paused.")
    elif name == "RESUME":
        when = eia.resume(ctx, game)
        h.say(f"Game '{game.name}' resumed; deadline {ctx.when(when)}.")
    elif name == "TERMINATE":
        if game.state in ("finished", "terminated"):
            raise CommandError(f"game '{game.name}' is already over")
        text = eia.finish(ctx, game, "ended by the master")
        eia.notice(ctx, game, "Game over", text)
        h.say(f"Game '{game.name}' ended.\n{text}")
    elif name == "SET" and cmd.args and cmd.args[0].upper() == "DEADLINE":
        if not master:
            raise CommandError("only the game master may do that")
        when = eia.set_deadline(ctx, game, " ".join(cmd.args[1:]))
        h.say(f"Deadline for this month set to {ctx.when(when)}.")
    elif name == "SET" and cmd.args and cmd.args[0].upper() == "ROLE":
        if master:
            _set_role_by_master(h, game, cmd.args[1:])
            return
        if es.seat is None or es.nation is None:
            raise CommandError("only a team member has a role")
        if not cmd.args[1:]:
            raise CommandError("write SET ROLE <role> (head of state, diplomat, general, or any other your team "
                               "agrees on)")
        if game.options.get("roles") == "strict":
            raise CommandError("roles are fixed in this game (roles=strict): the master sets them "
                               "(SET ROLE <address> <role>)")
        eia.opts(game)["roles"][str(es.seat["id"])] = eia.role_of(cmd.args[1:])
        eia.save(ctx, game)
        h.say(f"Your role in the {es.nation} team is now {eia.role(game, es.seat)}.")
    else:
        raise CommandError(f"{name} is not used in Empires in Arms games; send HELP")


def _set_role_by_master(h: Any, game: Game, words: list[str]) -> None:
    """The master's SET ROLE <address> <role>: the only way to change a role under roles=strict."""
    from judge.mail.commands import CommandError

    if len(words) < 2:
        raise CommandError("SET ROLE <member's address> <role>")
    address = words[0].lower()
    found = [s for s in eia.members(h.ctx, game) if (address_of(h.ctx.store, s["player_id"]) or "").lower() == address]
    if not found:
        raise CommandError(f"{words[0]} is not a member of a team in '{game.name}'")
    eia.opts(game)["roles"][str(found[0]["id"])] = eia.role_of(words[1:])
    eia.save(h.ctx, game)
    h.say(f"{words[0]} is now {eia.role(game, found[0])} of the {found[0]['power']} team.")


def _press(h: Any, es: EiaSession, game: Game, cmd: Any, broadcast: bool) -> None:
    from judge.mail.commands import CommandError

    ctx = h.ctx
    if es.nation is None:
        raise CommandError("observers cannot send press")
    if not cmd.body.strip():
        raise CommandError("the press message is empty")
    if game.options.get("press") == "none" and es.nation != MASTER:
        tokens = {w.upper().strip(",") for w in cmd.args} - {"TO"}
        if broadcast or tokens - {"M", "MASTER", "TEAM"}:
            raise CommandError(f"game '{game.name}' allows press only to your team and the master")
    targets: set[str] = set()
    if broadcast:
        recipients = eia.everyone(ctx, game)
        words = "everyone"
    else:
        for w in cmd.args:
            w = w.strip(",")
            if w.upper() == "TO" or not w:
                continue
            if w.upper() in ("M", "MASTER", "GM"):
                targets.add(MASTER)
            elif w.upper() == "TEAM":
                if es.nation == MASTER:
                    raise CommandError("the master has no team")
                targets.add(es.nation)
            else:
                nation = eia.nation_of(w)
                if nation is None:
                    raise CommandError(f"{w!r} names no nation (names or letters: "
                                       + ", ".join(f"{k} {v}" for k, v in eia.LETTERS.items()) + ")")
                targets.add(nation)
        if not targets:
            raise CommandError("PRESS needs recipients: PRESS TO <nations>, PRESS TO TEAM, or BROADCAST")
        recipients = eia.press_recipients(ctx, game, es.nation, targets)
        words = ", ".join(sorted(targets))
    sender = es.nation if es.nation == MASTER else f"{es.nation} ({eia.role(game, es.seat)})"
    own = {h.mail.sender}
    seen: set[tuple[str, ...]] = set()
    ph = eia.current(ctx, game)
    subject = f"{ctx.cfg.code}:{game.name} - {ph['short'] if ph else '-'} Press from {es.nation}"
    text = f"Message from {sender} to {words} in '{game.name}':\n\n{cmd.body}"
    for to in recipients:
        key = tuple(to)
        if key in seen or set(to) <= own:
            continue
        seen.add(key)
        ctx.mail(to, subject, text, game_id=game.id, kind="press")
    ctx.store.insert("press", game_id=game.id, phase_name=ph["name"] if ph else None, sender=es.nation,
                     recipients=dumps(sorted(targets) if not broadcast else ["all"]), grey=0,
                     broadcast=int(broadcast), body=cmd.body, message_id=h.mail.message_id, created=iso(ctx.now))
    h.say(f"Message sent to {words}" + (" (every member of each team, and your own team)" if not broadcast else "")
          + ":\n\n" + "\n".join("  " + line for line in cmd.body.split("\n")))


def rolls_text(h: Any, game: Game, master: bool = False) -> str:
    """ROLLS: every roll published so far, as JSON for ``judge dice verify --rolls``."""
    import json

    from judge.eia.dice import public

    rows = h.ctx.store.all("SELECT results, position FROM phases WHERE game_id = ? AND state = 'processed' "
                           "ORDER BY seq", (game.id,))
    current = eia.opts(game)["commitment"]
    months, total = [], 0

    def line(obj: Any) -> str:
        # written without spaces (\u0020 inside strings): mail wraps lines at spaces only
        return json.dumps(obj, separators=(",", ":")).replace(" ", "\\u0020")

    for row in rows:
        # a sealed roll shows its dice once its month's secret is out (or to the master)
        out = game.state == "finished" or master or json.loads(row["position"])["commitment"] != current
        results = json.loads(row["results"])
        rolls = [r if out else public(r) for r in results["rolls"]]
        total += len(rolls)
        # each month with the figures its gazette printed, which judge dice verify checks the rolls against
        head = {k: results[k] for k in ("month", "roll_count", "rolls_digest", "commands_hash") if k in results}
        months.append(line(head)[:-1] + ',"rolls":[\n' + ",\n".join(line(r) for r in rolls) + "\n]}")
    revealed = eia.opts(game).get("revealed") or []
    note = (f"Secrets revealed so far: {', '.join(revealed)}." if revealed else
            "The secret is revealed at the end of the game (or on the master's REVEAL).")
    return (f"The {total} rolls of '{game.name}' so far, month by month. Save the JSON below as rolls.json and run\n"
            f"  judge dice verify --game {game.name} --secret SECRET --commitment COMMITMENT --rolls rolls.json\n"
            f"(add --gazette FILE for each gazette you kept: its printed roll counts are checked too)\n{note}\n\n"
            f"[\n" + ",\n".join(months) + "\n]")


def _history(h: Any, game: Game) -> str:
    rows = h.ctx.store.all("SELECT short, report FROM phases WHERE game_id = ? AND state = 'processed' ORDER BY seq",
                           (game.id,))
    if not rows:
        return f"No month of '{game.name}' has been processed yet."
    return "\n\n".join(f"== {r['short']} ==\n{r['report'] or ''}" for r in rows)


def help_text() -> str:
    from judge.eia.clerk import CLOSE, stage_list
    from judge.eia.context import VERBS as verbs

    players = [v.usage for v in verbs.values() if not v.master]
    masters = [v.usage for v in verbs.values() if v.master]
    return "\n".join([
        "Empires in Arms (AFA naval supplement): one command a line, for your team's nation.",
        "Each line is checked at once (its form, and whether it would pass as things stand) and carried",
        "out at the month's deadline. Your team's private ledger comes with each month's gazette.", "",
        "Team commands:", *[f"  {u}" for u in players], "",
        "The master's commands (a line 'France: BUILD ...' acts for a nation without a team):",
        *[f"  {u}" for u in masters], "  START, PROCESS, ROLLBACK [month] [OPEN], SET DEADLINE <when>, TERMINATE,",
        "  PAUSE, RESUME, EJECT <address>, SET ROLE <address> <role>,",
        "  REVEAL (publish the dice secret and commit to a new one)", "",
        "A month runs stage by stage, not in the order the lines came; within a stage, in the order",
        "they came. A line that needs another's effect must be in an earlier stage (a WAR in the month",
        "of the CASUS GRANT it needs is refused: send it the month after):",
        *[f"  {line}" for line in stage_list()], f"  {CLOSE}.", "",
        "Your team's commands this month:",
        "  COMMANDS             the commands in, numbered, with who sent each",
        "  CLEAR                the commands you sent (a teammate's stay)",
        "  CLEAR <command>      one command of your team, by its words (CLEAR BUILD 2 AT Brest)",
        "  CLEAR <n>            one command of your team, by its number in COMMANDS", "",
        "Also: PRESS TO <nations>|TEAM|M ... ENDPRESS (every member of each team gets it, and your own team",
        "a copy), BROADCAST, SET ROLE <role>, LIST, WHOGAME, HISTORY,",
        "ROLLS (every published roll as JSON, for judge dice verify)."])


def list_row(ctx: Any, game: Game) -> dict[str, Any]:
    """An EiA game's line in LIST (seven teams; its month for the phase)."""
    ph = eia.current(ctx, game)
    teams = sum(1 for n in eia.LETTERS.values() if eia.members(ctx, game, n))
    return {"name": game.name, "variant": game.variant_name, "state": game.state,
            "phase": ph["short"] if ph else "-", "players": teams, "powers": len(eia.LETTERS)}


__all__ = ["take", "list_row", "EiaSession"]
