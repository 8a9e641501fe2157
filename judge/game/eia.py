"""Empires in Arms games (the AFA supplement) in the game service: teams, months, reports.

An EiA game is a row of ``games`` with variant ``eia_afa``; each team member is a ``seats`` row of
its nation (several per nation: team play), with the member's role kept in the game's options. A
month is a ``phases`` row whose position is the clerk's state (judge.eia.state); the month's
commands are ``orders`` rows, one per line, in the order they came. At the deadline the month is
stepped by :func:`judge.eia.step.step`, the same function as ``judge eia step``; the public zine
(announcements and every roll) goes to everyone, each team's private ledger to every member of
the team, and the full record to the master. The dice secret stays in the database until the
master reveals it or the game ends.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

from judge.eia import calendar, clerk, dice, summary
from judge.eia.context import MASTER, PUBLIC, VERBS
from judge.eia.data import load_tables
from judge.eia.state import from_json, new_game, to_json
from judge.eia.step import MASTER_NAMES, step
from judge.game import deadlines
from judge.game.lifecycle import (Ctx, Game, GameError, audience, master_address, new_game_name, player_id,
                                seat_addresses, seats, tell_all)
from judge.game.passwords import PasswordError, check_new_password, hash_password
from judge.render.templates import render
from judge.game.seats import address_of, public_label
from judge.game.store import dumps, from_iso, iso, loads

KIND = "eia_afa"
#: the most commands a nation (or the master) has in for one month: each new line is checked with
#: all of them, so a mail of thousands of lines must not tie the judge up
MAX_COMMANDS = 100
#: sign-on letters of the seven major powers (M is the master, O an observer)
LETTERS = {"E": "England", "F": "France", "S": "Spain", "P": "Prussia", "A": "Austria", "R": "Russia", "T": "Turkey"}
#: the supplement's suggested division of labour; any other role a team agrees on is taken as written
ROLES = {"HEAD": "head of state", "HOS": "head of state", "HEAD OF STATE": "head of state",
         "ECONOMICS": "head of state", "ECONOMICS MINISTER": "head of state", "DIPLOMAT": "diplomat",
         "GENERAL": "general", "FIELD COMMANDER": "general", "COMMANDER": "general"}


#: roles=strict: the commands each of the supplement's three roles may send for its team. The head of
#: state is also the economics minister ("Head of State/Economics Minister") and may send any of them.
ROLE_VERBS = {
    "head of state": None,
    "diplomat": {"CONTRACT", "LOAN", "CEDE", "CASUS", "TRADE", "DENY", "ALLOW"},
    "general": {"FORM", "DOCK", "SAIL", "BREAKOUT", "PURSUE", "INTERCEPT", "TRAIL", "MOVE", "RETURN", "TRANSPORT",
                "LAND"},
}


def role_allows(game: Game, member_role: str, verb: str) -> str | None:
    """None if a member of ``member_role`` may send ``verb``; else why not (roles=strict only)."""
    if game.options.get("roles") != "strict":
        return None
    if member_role not in ROLE_VERBS:
        return (f"in this game only the head of state, the diplomat and the general send commands (roles=strict); "
                f"you are {member_role}: ask the master to SET ROLE for you")
    allowed = ROLE_VERBS[member_role]
    if allowed is None or verb in allowed:
        return None
    owners = [r for r, verbs in ROLE_VERBS.items() if verbs is None or verb in verbs]
    return f"{verb} is for the {' or the '.join(owners)} of your team (roles=strict); you are the {member_role}"


def is_eia(game: Game | None) -> bool:
    return game is not None and game.variant_name == KIND


def nation_of(word: str) -> str | None:
    w = word.strip().rstrip(":,.")
    if len(w) == 1:
        return LETTERS.get(w.upper())
    return next((n for n in LETTERS.values() if n.casefold() == w.casefold()), None)


def role_of(words: list[str]) -> str:
    text = " ".join(words).strip()
    if not text:
        return "member"
    return ROLES.get(text.upper(), text[:30].lower())


def opts(game: Game) -> dict[str, Any]:
    return game.options.setdefault("eia", {})


def save(ctx: Ctx, game: Game) -> None:
    ctx.store.update("games", game.id, options=dumps(game.options))


# -- creating and joining -------------------------------------------------------------------------
def create(ctx: Ctx, name: str, password: str, options: list[str], master: str) -> Game:
    name = new_game_name(ctx, name)
    try:
        check_new_password(password)
    except PasswordError as exc:
        raise GameError(str(exc)) from None
    settings: dict[str, Any] = {"month_hours": 72.0, "grace_hours": 0.0, "press": "white", "team": 1, "months": 0,
                                "roles": "free"}
    for opt in options:
        key, sep, value = opt.partition("=")
        key = key.strip().lower()
        if not sep:
            raise GameError(f"options are written name=value, not {opt!r}")
        try:
            if key == "month":
                settings["month_hours"] = deadlines.parse_duration(value)
                if settings["month_hours"] <= 0:
                    raise GameError("a month must last longer than that")
            elif key in ("team", "months"):
                if not value.isdigit() or not (1 if key == "team" else 0) <= int(value) <= (6 if key == "team" else 600):
                    raise GameError(f"{key} takes a number ({'1-6 members' if key == 'team' else 'months, 0 = until END'})")
                settings[key] = int(value)
            elif key == "press":
                if value.lower() not in ("white", "none"):
                    raise GameError("press is white or none in EiA games")
                settings["press"] = value.lower()
            elif key == "roles":
                if value.lower() not in ("free", "strict"):
                    raise GameError("roles is free (any member sends any command) or strict (ROLE_VERBS)")
                settings["roles"] = value.lower()
            else:
                raise GameError(f"unknown option {key!r} for an EiA game (month=, team=, months=, press=, roles=)")
        except deadlines.TimeError as exc:
            raise GameError(str(exc)) from None
    secret = dice.new_secret()
    settings["eia"] = {"secret": secret, "commitment": dice.commitment(secret), "roles": {}, "revealed": []}
    mid = player_id(ctx, master)
    gid = ctx.store.insert("games", name=name, variant=KIND, state="forming", master_id=mid,
                           master_hash=hash_password(password, ctx.cfg.password_cost), options=dumps(settings),
                           created=iso(ctx.now))
    return Game(gid, name, KIND, "forming", mid, None, settings)


def notice(ctx: Ctx, game: Game, title: str, text: str, short: str | None = None,
           to: list[list[str]] | None = None) -> None:
    """A short notice (templates/notice.txt) to everyone in the game, or to the address lists ``to``."""
    subject, body = render("notice.txt", code=ctx.cfg.code, game=game.name, short=short,
                           variant="Empires in Arms (AFA naval supplement)", title=title, text=text, deadline=None)
    for addresses in audience(ctx.store, game) if to is None else to:
        ctx.mail(addresses, subject, body, game_id=game.id)


def members(ctx: Ctx, game: Game, nation: str | None = None) -> list[Any]:
    return [s for s in seats(ctx.store, game.id) if s["player_id"] is not None and s["status"] == "active"
            and (nation is None or s["power"] == nation)]


def role(game: Game, seat: Any) -> str:
    return opts(game)["roles"].get(str(seat["id"]), "member")


def join(ctx: Ctx, game: Game, address: str, password: str, nation: str, member_role: str) -> Any:
    if game.state not in ("forming", "active"):
        raise GameError(f"game '{game.name}' is {game.state}")
    team = members(ctx, game, nation)
    if len(team) >= int(game.options["team"]):
        raise GameError(f"the {nation} team is full ({game.options['team']} members)")
    check_new_password(password)
    sid = ctx.store.insert("seats", game_id=game.id, power=nation, role="player", player_id=player_id(ctx, address),
                           password_hash=hash_password(password, ctx.cfg.password_cost), status="active",
                           wait=0, draw=0, joined=iso(ctx.now))
    opts(game)["roles"][str(sid)] = member_role
    save(ctx, game)
    seat = ctx.store.one("SELECT * FROM seats WHERE id = ?", (sid,))
    if team:
        notice(ctx, game, "New team member", f"{address} has joined the {nation} team of '{game.name}' as "
               f"{member_role}.", to=[seat_addresses(ctx.store, other) for other in team])
    if game.state == "forming" and all(len(members(ctx, game, n)) >= int(game.options["team"])
                                       for n in LETTERS.values()):
        start(ctx, game)
    return seat


def eject(ctx: Ctx, game: Game, address: str) -> str:
    """The master's EJECT <address>: a team member (or observer) leaves the game; the team's place is
    open to a new member (SIGNON ?game <password> <nation> [role]). A team left empty is the
    master's to play, as a nation without a team."""
    pid = ctx.store.scalar("SELECT id FROM players WHERE address = ?", (address.strip().lower(),))
    seat = None if pid is None else ctx.store.one(
        "SELECT * FROM seats WHERE game_id = ? AND player_id = ? AND status = 'active'", (game.id, pid))
    if seat is None:
        raise GameError(f"{address} is not in a team of '{game.name}' (EJECT <member's address>)")
    gone = seat_addresses(ctx.store, seat)
    ctx.store.update("seats", seat["id"], status="vacant", player_id=None, password_hash=None)
    opts(game)["roles"].pop(str(seat["id"]), None)
    save(ctx, game)
    label = f"the {seat['power']} team" if seat["power"] else "the observers"
    notice(ctx, game, "Ejected", f"The master has removed you from {label} of '{game.name}'.", to=[gone])
    if seat["power"]:
        team = members(ctx, game, seat["power"])
        left = (f"The master has removed {', '.join(gone)} from the {seat['power']} team of '{game.name}'. "
                f"A new member joins with SIGNON ?{game.name} <password> {seat['power']} [role]"
                + ("." if team else "; until then the master plays the nation."))
        notice(ctx, game, f"Ejected from {seat['power']}", left,
               to=[seat_addresses(ctx.store, s) for s in team] + ([[m]] if (m := master_address(ctx.store, game))
                                                                  else []))
    return f"{', '.join(gone)} removed from {label}."


def roster(ctx: Ctx, game: Game) -> list[str]:
    out = []
    for nation in LETTERS.values():
        team = [f"{public_label(ctx.store, game, s)} ({role(game, s)})"  # public names: addresses are private
                for s in members(ctx, game, nation)]
        out.append(f"{nation}: {', '.join(team) if team else '(no team: the master plays it)'}")
    return out


# -- months ----------------------------------------------------------------------------------------
def current(ctx: Ctx, game: Game) -> Any:
    return ctx.store.one("SELECT * FROM phases WHERE game_id = ? AND state = 'open' ORDER BY seq DESC LIMIT 1",
                         (game.id,))


def schedule(ctx: Ctx, game: Game, ph_id: int, deadline: Any) -> None:
    """The month's reminder and deadline events (any earlier ones cancelled)."""
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    remind = deadline - timedelta(hours=ctx.cfg.reminder_hours)
    if remind > ctx.now:
        deadlines.schedule(ctx.store, game.id, ph_id, "reminder", remind)
    deadlines.schedule(ctx.store, game.id, ph_id, "deadline", deadline)


def set_deadline(ctx: Ctx, game: Game, text: str) -> Any:
    """The master's SET DEADLINE for the open month."""
    ph = current(ctx, game)
    if ph is None or game.state != "active":
        raise GameError(f"game '{game.name}' has no open month")
    when = deadlines.parse_when(text, ctx.now, ctx.cfg.timezone)
    if when <= ctx.now:
        raise GameError(f"the deadline must be in the future (now: {ctx.when(ctx.now)})")
    ctx.store.update("phases", ph["id"], deadline=iso(when), grace_end=iso(when))
    schedule(ctx, game, ph["id"], when)
    notice(ctx, game, "Deadline changed", f"The master has set the deadline for {ph['name']} to {ctx.when(when)}.",
           short=ph["short"])
    return when


def open_month(ctx: Ctx, game: Game, state: dict[str, Any], deadline: Any = None) -> Any:
    seq = int(ctx.store.scalar("SELECT COALESCE(MAX(seq), 0) FROM phases WHERE game_id = ?", (game.id,))) + 1
    deadline = deadline or ctx.now + timedelta(hours=float(game.options["month_hours"]))
    pid = ctx.store.insert("phases", game_id=game.id, seq=seq, name=calendar.title(state["month"]),
                           short=state["month"], position=dumps(state), state="open", opened=iso(ctx.now),
                           deadline=iso(deadline), grace_end=iso(deadline))
    schedule(ctx, game, pid, deadline)
    return ctx.store.one("SELECT * FROM phases WHERE id = ?", (pid,))


def start(ctx: Ctx, game: Game) -> None:
    state = to_json(new_game(load_tables(), game.name, opts(game)["secret"]))
    game.state = "active"
    ctx.store.update("games", game.id, state="active", started=iso(ctx.now))
    ph = open_month(ctx, game, state)
    subject, text = render("eia_starting.txt", code=ctx.cfg.code, game=game.name, short=state["month"],
                           title=ph["name"], deadline=ctx.when(from_iso(ph["deadline"])), roster=roster(ctx, game),
                           commitment=opts(game)["commitment"])
    tell_all(ctx, game, subject, text, kind="start")


def submit(ctx: Ctx, game: Game, nation: str, line: str, seat: Any, message_id: str) -> tuple[str, list[str]]:
    """Store one command line for the month; returns what the judge understood and any warnings.

    The line is tried at once with the team's other commands of the month against the month's
    opening state, with throwaway dice (never the game's, so the reply reveals no roll). Refused
    for its own words (judge.eia.context.Malformed) it is not stored; refused for the state as it
    stands (money, a unit still in port ...) it is stored with a warning, since the master's entries
    or the month's dice may yet change that. What it does is decided at the deadline."""
    ph = current(ctx, game)
    if ph is None or game.state not in ("active", "paused"):
        raise GameError(f"game '{game.name}' is {game.state}: no month is open")
    replay_guard(game, nation)
    text = line.strip()
    who = nation
    if nation == MASTER:
        head, sep, rest = text.partition(":")
        acting = nation_of(head) if sep else None
        if acting or (sep and head.strip().casefold() in MASTER_NAMES):
            who, text = (acting or MASTER), rest.strip()
    else:
        head, sep, rest = text.partition(":")
        named = nation_of(head) if sep else None
        if named == nation:  # "France: BUILD 2 AT Brest" from the French team
            text = rest.strip()
        elif named:
            raise GameError(f"you are on the {nation} team: {named}'s commands come from the {named} team "
                            f"(or the master, for a nation without one)")
    words = text.split()
    if not words:
        raise GameError("an empty command")
    verb = VERBS.get(words[0].upper())
    if verb is None and words[0].endswith(":"):
        raise GameError(f"{words[0][:-1]!r} names no nation: start the line with your nation's name or letter, "
                        f"or with the command itself")
    if verb is None:
        raise GameError(f"unknown command {words[0]!r}"
                        + (clerk.did_you_mean(words[0], words[1:], nation=who) or ": send HELP for the EiA commands"))
    if verb.master and who != MASTER:
        raise GameError(f"only the games master gives {verb.name}")
    if seat is not None and nation != MASTER:
        refused = role_allows(game, role(game, seat), verb.name)
        if refused:
            raise GameError(refused)
    stored = f"{who}: {verb.name} {' '.join(words[1:])}".strip()
    if len(month_commands(ctx, ph["id"], who)) >= MAX_COMMANDS:
        raise GameError(f"{who} has {MAX_COMMANDS} commands in for this month, the most the clerk takes: "
                        f"CLEAR some, or write them as fewer lines")
    same = duplicate(ctx, ph["id"], who, stored)
    if same is not None:
        raise GameError(f"{stored} is already in for this month (sent by {same}); it was not stored twice. If "
                        f"both are meant, write one line for the total, or CLEAR the first")
    result = clerk.check(loads(ph["position"]), month_commands(ctx, ph["id"], who), stored)
    if result.error:
        raise GameError(result.error)
    ctx.store.insert("orders", phase_id=ph["id"], power=who, raw=stored,
                     orders=dumps({"by": seat["id"] if seat is not None else None,
                                   "role": role(game, seat) if seat is not None else "master"}),
                     message_id=message_id, created=iso(ctx.now), state="active")
    replay_change(ctx, game, nation, "a line added")
    return stored, result.warnings


def standing(ctx: Ctx, game: Game, nation: str) -> list[str]:
    """The month's commands in for ``nation`` (or the master's own), each with who sent it."""
    ph = current(ctx, game)
    if ph is None:
        return []
    rows = ctx.store.all("SELECT raw, orders FROM orders WHERE phase_id = ? AND power = ? AND state = 'active' "
                         "ORDER BY id", (ph["id"], nation))
    return [f"{i}. {r['raw']}  ({sender_label(ctx, loads(r['orders']) or {})})" for i, r in enumerate(rows, 1)]


def _same(line: str) -> str:
    """A command line as compared for duplicates and CLEAR: case, spacing and end dots ignored."""
    return " ".join(line.casefold().replace(",", " ").split()).rstrip(".")


def duplicate(ctx: Ctx, ph_id: int, who: str, stored: str) -> str | None:
    """Who sent the same command already this month (a teammate, or the sender himself), if anyone."""
    rows = ctx.store.all("SELECT raw, orders FROM orders WHERE phase_id = ? AND power = ? AND state = 'active' "
                         "ORDER BY id", (ph_id, who))
    for row in rows:
        if _same(row["raw"]) == _same(stored):
            return sender_label(ctx, loads(row["orders"]) or {})
    return None


def sender_label(ctx: Ctx, meta: dict[str, Any]) -> str:
    if meta.get("by") is None:
        return "the master"
    seat = ctx.store.one("SELECT player_id FROM seats WHERE id = ?", (meta["by"],))
    who = address_of(ctx.store, seat["player_id"]) if seat is not None and seat["player_id"] is not None else None
    return f"{who or 'a former member'} ({meta.get('role', 'member')})"


def month_commands(ctx: Ctx, ph_id: int, nation: str | None = None) -> list[str]:
    rows = ctx.store.all("SELECT raw, power FROM orders WHERE phase_id = ? AND state = 'active' ORDER BY id", (ph_id,))
    return [r["raw"] for r in rows if nation is None or r["power"] == nation]


def clear(ctx: Ctx, game: Game, nation: str, seat: Any = None, line: str = "") -> list[str]:
    """CLEAR: the sender's own commands of the month (a teammate's stay), or with ``line`` the one
    command of the team written so (``CLEAR BUILD 2 AT Brest``) or numbered so in the list
    COMMANDS gives (``CLEAR 2``), whoever sent it; under
    roles=strict only a command the member's role may give. The master's CLEAR takes the master's
    own lines, or one named line of any nation (``CLEAR Spain: BUILD 1 AT Cadiz``). Returns the
    lines cleared."""
    ph = current(ctx, game)
    if ph is None:
        raise GameError(f"game '{game.name}' has no open month")
    replay_guard(game, nation)
    rows = ctx.store.all("SELECT id, raw, power, orders FROM orders WHERE phase_id = ? AND state = 'active' "
                         "ORDER BY id", (ph["id"],))
    by = seat["id"] if seat is not None and nation != MASTER else None
    if not line.strip():
        ids = [r for r in rows if (loads(r["orders"]) or {}).get("by") == by
               and (nation == MASTER or r["power"] == nation)]
    else:
        text = line.strip()
        head, sep, rest = text.partition(":")
        named = nation_of(head) if sep else None
        if sep and (named or head.strip().casefold() in MASTER_NAMES):
            text = rest
            if nation != MASTER and named != nation:
                raise GameError(f"you clear only your team's commands ({nation}), not {head.strip()}'s")
        power = nation if nation != MASTER else (named or MASTER) if sep else MASTER
        team = [r for r in rows if r["power"] == power]
        if text.strip().isdigit():      # CLEAR 2: the second line of the list the replies give
            k = int(text)
            ids = team[k - 1:k] if k >= 1 else []
        else:
            ids = [r for r in team if _same(r["raw"].partition(":")[2]) == _same(text)][-1:]
        if not ids:
            listing = "; ".join(f"{i}. {r['raw']}" for i, r in enumerate(team, 1)) or "none"
            raise GameError(f"no command {text.strip()!r} is in for {power} this month (in: {listing})")
        if seat is not None and nation != MASTER:
            refused = role_allows(game, role(game, seat), ids[0]["raw"].partition(":")[2].split()[0])
            if refused:
                raise GameError(refused)
    for r in ids:
        ctx.store.update("orders", r["id"], state="cleared")
    if ids:
        replay_change(ctx, game, nation, "lines cleared")
    return [r["raw"] for r in ids]


def process(ctx: Ctx, game: Game, reason: str) -> dict[str, Any]:
    """Step the open month with the commands in; mail the zine, the ledgers and the master's record."""
    ph = current(ctx, game)
    if ph is None:
        raise GameError(f"game '{game.name}' has no open month")
    state = loads(ph["position"])
    replay = opts(game).pop("replay", None)
    out = step(state, "\n".join(month_commands(ctx, ph["id"])), opts(game)["secret"],
               scheme=(replay or {}).get("scheme", dice.SCHEME))
    if replay is not None:
        save(ctx, game)
        out["replay"] = replay_note(replay, out)
    ctx.store.update("phases", ph["id"], state="processed", processed_at=iso(ctx.now),
                     results=dumps({k: v for k, v in out.items() if k != "state"}))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    ctx.processed.append(f"{game.name} {ph['short']}")
    limit = int(game.options.get("months") or 0)
    done = bool(limit) and int(ph["seq"]) >= limit
    # the late notice: teams (with members) that sent nothing this month, named in the gazette
    silent = [n for n in LETTERS.values() if members(ctx, game, n) and not month_commands(ctx, ph["id"], n)]
    deadline = None if done else ctx.now + timedelta(hours=float(game.options["month_hours"]))
    subject, zine = gazette(ctx, game, out, finish(ctx, game, "the last month of the game") if done else None,
                            silent, deadline)
    ctx.store.update("phases", ph["id"], report=str(zine))
    tell_all(ctx, game, subject, zine, kind="results")
    for nation in LETTERS.values():
        team = members(ctx, game, nation)
        if team:
            subject, text = ledger(ctx, game, out, nation)
            for s in team:
                ctx.mail(seat_addresses(ctx.store, s), subject, text, game_id=game.id, kind="ledger")
    m = master_address(ctx.store, game)
    if m:
        ctx.mail([m], *record(ctx, game, out), game_id=game.id, kind="ledger")
    if not done:
        open_month(ctx, game, out["state"], deadline)
    return out


def finish(ctx: Ctx, game: Game, why: str) -> str:
    game.state = "finished"
    game.outcome = {"kind": "ended", "why": why}
    ctx.store.update("games", game.id, state="finished", finished=iso(ctx.now), outcome=dumps(game.outcome))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    return reveal_text(game, opts(game)["secret"], final=True)


def pause(ctx: Ctx, game: Game) -> None:
    """The master's PAUSE: no reminder or deadline runs; teams may still send commands."""
    if game.state != "active":
        raise GameError(f"game '{game.name}' is {game.state}, not running")
    game.state = "paused"
    ctx.store.update("games", game.id, state="paused")
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    notice(ctx, game, "Paused", f"The master has paused '{game.name}'. No deadline runs until it resumes; "
           f"commands sent meanwhile count for the month.")


def resume(ctx: Ctx, game: Game) -> Any:
    """RESUME: the month's deadline is the old one or a full month from now, whichever is later (as
    for a Diplomacy game), with its reminder."""
    if game.state != "paused":
        raise GameError(f"game '{game.name}' is not paused")
    game.state = "active"
    ctx.store.update("games", game.id, state="active")
    ph = current(ctx, game)
    if ph is None:
        raise GameError(f"game '{game.name}' has no open month")
    when = max(from_iso(ph["deadline"]), ctx.now + timedelta(hours=float(game.options["month_hours"])))
    ctx.store.update("phases", ph["id"], deadline=iso(when), grace_end=iso(when))
    schedule(ctx, game, ph["id"], when)
    notice(ctx, game, "Resumed", f"The master has resumed '{game.name}'. The deadline for {ph['name']} is "
           f"{ctx.when(when)}.", short=ph["short"])
    return when


def reveal_text(game: Game, secret: str, final: bool) -> str:
    return (f"The dice secret of '{game.name}' is now revealed:\n  {secret}\n"
            f"(SHA-256 {dice.commitment(secret)}, the commitment published at the start"
            + (")." if final else " or at the last reveal).") +
            f"\nCheck every roll:  judge dice verify --game {game.name} --secret {secret} --commitment "
            f"{dice.commitment(secret)} --rolls ROLLS.json --gazette GAZETTE.txt ...")


def reveal(ctx: Ctx, game: Game) -> str:
    """The master's REVEAL: publish the secret; the game goes on with a new secret and commitment."""
    o = opts(game)
    if o.get("replay"):
        # a new secret would give the rolled-back month new dice: a re-roll by another name
        raise GameError(f"{o['replay']['month']} was rolled back and is open again: it keeps its secret, so that it "
                        f"is stepped with the same dice. REVEAL once it has been processed")
    old = o["secret"]
    o.setdefault("revealed", []).append(old)
    o["secret"] = dice.new_secret()
    o["commitment"] = dice.commitment(o["secret"])
    save(ctx, game)
    ph = current(ctx, game)
    if ph is not None:
        state = loads(ph["position"])
        state["commitment"] = o["commitment"]
        ctx.store.update("phases", ph["id"], position=dumps(state))
    text = reveal_text(game, old, final=False) + f"\nFrom now on the dice commit to:\n  {o['commitment']}"
    notice(ctx, game, "Dice secret revealed", text)
    return text


def run_event(ctx: Ctx, game: Game, ev: Any) -> None:
    ph = current(ctx, game)
    if game.state != "active" or ph is None or ph["id"] != ev["phase_id"]:
        return
    if ev["kind"] == "reminder":
        for nation in LETTERS.values():
            if month_commands(ctx, ph["id"], nation):
                continue
            notice(ctx, game, "Reminder", f"No commands from the {nation} team yet for {ph['name']}; the "
                   f"deadline is {ctx.when(from_iso(ph['deadline']))}.", short=ph["short"],
                   to=[seat_addresses(ctx.store, s) for s in members(ctx, game, nation)])
        _income_reminder(ctx, game, ph)
        return
    if ev["kind"] in ("deadline", "grace"):
        process(ctx, game, "deadline")


def _income_reminder(ctx: Ctx, game: Game, ph: Any) -> None:
    """Before the deadline of a month that closes with an economic step, the master is reminded to
    enter the nations' income if no MONEY or MANPOWER line of the master's is in yet."""
    m = master_address(ctx.store, game)
    if not m or not summary.economic_due(loads(ph["position"]), load_tables()):
        return
    entered = [c for c in month_commands(ctx, ph["id"]) if c.partition(":")[2].split()[:1] in (["MONEY"], ["MANPOWER"])]
    if entered:
        return
    notice(ctx, game, "Income before the economic step",
           f"{ph['name']} closes with an economic step, and no MONEY or MANPOWER entry of yours is in yet: enter "
           f"each nation's income (MONEY <nation> +n income) before the deadline, "
           f"{ctx.when(from_iso(ph['deadline']))}.", short=ph["short"], to=[[m]])


def rollback(ctx: Ctx, game: Game, target: str | None, opened: bool = False) -> Any:
    """Reopen a processed month (default the last). The dice of a month are fixed by the secret, so
    stepping it again with the same commands gives the same rolls: rollback is no re-roll. Months
    whose secret has been revealed cannot be reopened (their dice are public knowledge)."""
    done = ctx.store.all("SELECT * FROM phases WHERE game_id = ? AND state = 'processed' ORDER BY seq", (game.id,))
    if not done:
        raise GameError("no month has been processed yet: nothing to roll back")
    row = done[-1]
    if target:
        rows = [r for r in done if target.strip().lower() in (r["short"].lower(), r["name"].lower(), str(r["seq"]))]
        if not rows:
            raise GameError(f"no processed month {target!r} (processed: {', '.join(r['short'] for r in done)})")
        row = rows[-1]
    if game.state == "finished" or loads(row["position"])["commitment"] != opts(game)["commitment"]:
        raise GameError(f"the dice secret of {row['short']} has been revealed: it cannot be played again")
    ctx.store.conn.execute("UPDATE phases SET state = 'undone' WHERE game_id = ? AND seq > ? AND state IN "
                           "('open', 'processed')", (game.id, row["seq"]))
    ctx.store.update("phases", row["id"], state="undone")
    ph = open_month(ctx, game, loads(row["position"]))
    # the month replays the commands it was stepped with, in their order: the same dice
    for o in ctx.store.all("SELECT * FROM orders WHERE phase_id = ? AND state = 'active' ORDER BY id", (row["id"],)):
        ctx.store.insert("orders", phase_id=ph["id"], power=o["power"], raw=o["raw"], orders=o["orders"],
                         message_id=o["message_id"], created=o["created"], state="active")
    first = loads(row["results"] or "{}")
    keyed = all("key" in r for r in first.get("rolls", []))
    # OPEN: the master lets the teams change their commands too (his explicit act, noted in the gazette)
    opts(game)["replay"] = {"month": row["short"], "commands_hash": first.get("commands_hash"), "changes": [],
                            "scheme": dice.SCHEME if keyed else dice.LEGACY, "open": opened}
    save(ctx, game)
    return ph


def replay_guard(game: Game, who: str) -> None:
    """A rolled-back month replays the commands it was stepped with: a team cannot change them (it has
    seen the dice) unless the master opened them (ROLLBACK OPEN); the master can."""
    replay = opts(game).get("replay")
    if replay and who != MASTER and not replay.get("open"):
        raise GameError(f"{replay['month']} was rolled back: it is stepped again with the commands it had, so its "
                        f"dice come out the same. Only the master may change them now (ask the master)")


def replay_change(ctx: Ctx, game: Game, who: str, change: str) -> None:
    """Note a change made to a rolled-back month's commands, for its gazette (replay_note)."""
    replay = opts(game).get("replay")
    if replay:
        replay["changes"].append(f"{change} by the master" if who == MASTER else f"{change} by the {who} team")
        save(ctx, game)


def replay_note(replay: dict[str, Any], out: dict[str, Any]) -> str:
    """The gazette's line on a month stepped again after a rollback."""
    first = replay.get("commands_hash")
    if not replay["changes"]:
        return ("This month was rolled back by the master and stepped again with the commands it had"
                + (" (the same committed hash as the first time)" if first == out["commands_hash"] else "")
                + ": the same dice.")
    # the changes are counted, never quoted: the commands stay secret until the secret is revealed
    who = "who opened its commands to the teams; they were changed" if replay.get("open") else \
        "who changed its commands"
    changes = "; ".join(f"{c} x{n}" if n > 1 else c for c, n in Counter(replay["changes"]).items())
    return (f"This month was rolled back by the master, {who} before it was stepped again ({changes}); commands "
            f"committed the first time as {first or 'not recorded'}, "
            f"now as {out['commands_hash']}. A roll whose key is unchanged gives the same dice.")


def console_process(ctx: Ctx, game: Game) -> str:
    """``judge game process`` on an EiA game: start it, or step its month now."""
    if game.state == "forming":
        start(ctx, game)
        return f"{game.name} started"
    if game.state != "active":
        raise GameError(f"game {game.name!r} is {game.state}")
    out = process(ctx, game, "master")
    return f"{game.name} {out['month']} processed"


def console_show(ctx: Ctx, game: Game) -> dict[str, Any]:
    """``judge game show`` on an EiA game: teams, month, commands in (not their text: that is secret)."""
    ph = current(ctx, game)
    teams = {n: [{"address": address_of(ctx.store, s["player_id"]),
                  "role": role(game, s)} for s in members(ctx, game, n)] for n in LETTERS.values()}
    return {"name": game.name, "variant": KIND, "state": game.state, "outcome": game.outcome,
            "master": master_address(ctx.store, game), "month": ph["short"] if ph else None,
            "deadline": ph["deadline"] if ph else None, "teams": teams,
            "commands_in": {n: len(month_commands(ctx, ph["id"], n)) for n in [*LETTERS.values(), MASTER]} if ph else {},
            "commitment": opts(game)["commitment"],
            "processed": [r["short"] for r in ctx.store.all("SELECT short FROM phases WHERE game_id = ? AND "
                                                               "state = 'processed' ORDER BY seq", (game.id,))]}


# -- the mails ----------------------------------------------------------------------------------------
def roll_lines(rolls: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in rolls:
        void = f" (void: {r['void']})" if r.get("void") else ""
        if dice.is_withheld(r):
            out.append(f"#{r['seq']:>3} {r['purpose']}: sealed until the secret is revealed{void}")
            continue
        mod = f" {r['modifier']:+d}" if r.get("modifier") else ""
        sides = f" (d{r['sides']})" if r.get("sides") else ""
        out.append(f"#{r['seq']:>3} {r['purpose']}: {'+'.join(map(str, r['dice']))}{sides}{mod} = {r['result']}{void}")
    return out


def public_rolls(rolls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [dice.public(r) for r in rolls]


def gazette(ctx: Ctx, game: Game, out: dict[str, Any], reveal: str | None,
            silent: list[str] | None = None, deadline: Any = None) -> tuple[str, str]:
    """The public report: announcements, the yards' figures, the state of Europe, points, every
    roll, the teams that sent no commands this month, the order the month ran in, and the next
    month's deadline."""
    return render("eia_gazette.txt", code=ctx.cfg.code, game=game.name, short=out["month"],
                  roll_count=out["roll_count"], rolls_digest=out["rolls_digest"],
                  commands_hash=out["commands_hash"], replay=out.get("replay"),
                  title=calendar.title(out["month"]), announcements=out["announcements"],
                  yards=sorted((out["state"].get("announced") or {}).items()),
                  points=[(n, led["pp"], led["vp"]) for n, led in out["state"]["nations"].items()],
                  commitment=out["state"]["commitment"], rolls=roll_lines(public_rolls(out["rolls"])),
                  next_title=calendar.title(out["next_month"]), reveal=reveal, silent=silent or [],
                  europe=summary.europe(out["state"]), stages=", ".join(clerk.STAGES),
                  deadline=ctx.when(deadline) if deadline else None,
                  economic=summary.economic_due(out["state"], load_tables()))


def ledger(ctx: Ctx, game: Game, out: dict[str, Any], nation: str) -> tuple[str, str]:
    """A team's private ledger: its books, its units (those off the map with their return), the
    ships on the stocks it builds or has bought (II), and what only it was told."""
    led = out["state"]["nations"][nation]
    return render("eia_ledger.txt", code=ctx.cfg.code, game=game.name, short=out["month"], nation=nation,
                  title=calendar.title(out["month"]), led=led, works=summary.works(out["state"], nation),
                  units=[summary.unit_line(u) for u in led["units"].values()],
                  ships=from_json(out["state"]).nations[nation].ships(),
                  events=[e["text"] for e in out["events"] if nation in e["to"]],
                  sealed=roll_lines([r for r in out["rolls"] if nation in r.get("sealed", ())]),
                  entries=[h for h in led["history"] if h["month"] == out["month"]])


def record(ctx: Ctx, game: Game, out: dict[str, Any]) -> tuple[str, str]:
    """The master's record: the state the next month opens with, then every event with its
    audience, every roll."""
    events = [("everyone" if e["to"] == [PUBLIC] else ", ".join(e["to"]), e["text"]) for e in out["events"]]
    return render("eia_record.txt", code=ctx.cfg.code, game=game.name, short=out["month"],
                  title=calendar.title(out["month"]), events=events, rolls=roll_lines(out["rolls"]),
                  state=summary.master_state(out["state"], load_tables()),
                  next_title=calendar.title(out["next_month"]))


def archive_listing(store: Any, game: Game) -> tuple[str, list[dict[str, Any]], str]:
    """``judge publish`` of an EiA game: its title, one line per team member (the name shown in
    public reports, never an address; no colour: there is no map), and the open month's name.
    Its pages are the gazettes, the public text kept in ``phases.report``."""
    from judge.game.seats import player_label

    players = [{"power": f"{s['power']} ({opts(game)['roles'].get(str(s['id']), 'member')})",
                "player": player_label(store, s), "colour": "transparent"}
               for nation in LETTERS.values()
               for s in seats(store, game.id) if s["power"] == nation and s["status"] == "active"]
    ph = store.one("SELECT name FROM phases WHERE game_id = ? AND state = 'open' ORDER BY seq DESC LIMIT 1",
                   (game.id,))
    return "Empires in Arms (AFA naval supplement)", players, ph["name"] if ph else ""


def describe(ctx: Ctx, game: Game) -> str:
    ph = current(ctx, game)
    lines = [f"Game '{game.name}': Empires in Arms, AFA naval supplement ({game.state})."]
    if ph is not None:
        lines.append(f"Month: {ph['name']}; deadline {ctx.when(from_iso(ph['deadline']))}.")
    lines.append(f"Months last {deadlines.format_hours(float(game.options['month_hours']))}; teams of up to "
                 f"{game.options['team']}; " + (f"{game.options['months']} months." if game.options.get("months")
                                                 else "until the master ENDs it."))
    lines.append(f"Dice commitment: {opts(game)['commitment']}")
    lines += ["", *roster(ctx, game)]
    return "\n".join(lines)


def press_recipients(ctx: Ctx, game: Game, sender: str, targets: set[str]) -> list[list[str]]:
    """Team press: every member of each target team, and every member of the sender's own team."""
    out: list[list[str]] = []
    for nation in sorted(targets | ({sender} if sender in LETTERS.values() else set())):
        if nation == MASTER:
            m = master_address(ctx.store, game)
            if m:
                out.append([m])
            continue
        out += [seat_addresses(ctx.store, s) for s in members(ctx, game, nation)]
    return out


def everyone(ctx: Ctx, game: Game) -> list[list[str]]:
    return audience(ctx.store, game)

