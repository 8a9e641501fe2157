"""Absences (SET ABSENCE, VACATION, HOLIDAY) and the players' pause requests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.game import absence, deadlines, lifecycle as games
from judge.game.store import from_iso
from judge.mail.commands import CommandError, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.game.lifecycle import Game
    from judge.mail.handler import Handler

#: SET words handled here (SET ABSENCE ..., SET MAX ABSENCE n, SET PAUSE VOTE yes)
SET_WORDS = frozenset({"ABSENCE", "VACATION", "HOLIDAY", "MAX", "MAXABSENCE", "MAX_ABSENCE", "PAUSE",
                       "PAUSEVOTE", "PAUSE_VOTE"})
CANCEL_WORDS = frozenset({"CLEAR", "NONE", "CANCEL", "OFF", "NO"})
MASTER_WORDS = {"REFUSE": "refused", "DENY": "refused", "END": "ended", "CLEAR": "ended", "NONE": "ended"}
#: the most days a master may allow (a year: longer is a pause, not an absence)
MAX_CAP_DAYS = 365


def set_word(h: Handler, key: str, rest: list[str]) -> bool:
    """SET's words for absences and pause votes; False if ``key`` is not one of them here
    (SET MAX something else)."""
    if key in ("MAX", "MAXABSENCE", "MAX_ABSENCE"):
        if key == "MAX":
            if not rest or rest[0].upper() not in ("ABSENCE", "ABSENCES"):
                return False
            rest = rest[1:]
        set_max(h, rest)
        return True
    if key in ("PAUSE", "PAUSEVOTE", "PAUSE_VOTE"):
        if key == "PAUSE":
            if not rest or rest[0].upper() != "VOTE":
                raise CommandError("write SET PAUSE VOTE yes|no (the master) or PAUSE REQUEST (a player)")
            rest = rest[1:]
        set_pause_vote(h, rest)
        return True
    absence_(h, Command("ABSENCE", rest, "", 0))
    return True


def set_max(h: Handler, rest: list[str]) -> None:
    g = h.need_master()
    text = " ".join(rest).strip().lower().removesuffix("days").removesuffix("day").strip()
    try:
        n = float(text)
    except ValueError:
        raise CommandError(f"write SET MAX ABSENCE <days>, e.g. SET MAX ABSENCE 14 (not {' '.join(rest)!r})") from None
    if not 0 <= n <= MAX_CAP_DAYS:
        raise CommandError(f"SET MAX ABSENCE takes 0 to {MAX_CAP_DAYS} days")
    g.options["max_absence_days"] = n
    games.save_options(h.ctx, g)
    h.say(f"Each player may now be away at most {n:g} days in '{g.name}' (all absences together)."
          + (" No new absence can be set." if n == 0 else ""))


def set_pause_vote(h: Handler, rest: list[str]) -> None:
    g = h.need_master()
    value = games.YES_NO.get(" ".join(rest).strip().lower())
    if value is None:
        raise CommandError("write SET PAUSE VOTE yes or SET PAUSE VOTE no")
    g.options["pause_vote"] = value
    if value == "no":
        g.options["pause_requests"] = []
    games.save_options(h.ctx, g)
    h.say(f"In '{g.name}' a unanimous PAUSE REQUEST of the players now pauses the game." if value == "yes" else
          f"In '{g.name}' pause requests now go to you, the master, to decide.")


def _listing(h: Handler, g: Game, power: str | None) -> str:
    rows = absence.current(g, h.ctx.now, power)
    if not rows:
        return "No absence set." if power else f"No absence set in '{g.name}'."
    return "\n".join(f"  {a['power']}: away from {h.ctx.when(from_iso(a['from']))} to {h.ctx.when(from_iso(a['to']))}"
                     for a in rows)


@command("ABSENCE", who="player", syntax="ABSENCE <from> TO <to>",
         summary="(or SET ABSENCE, VACATION, HOLIDAY) you are away: a deadline in those days moves to a day "
                 "after you are back, e.g. SET ABSENCE Jan 10 TO Jan 14 (SET ABSENCE alone: yours)",
         aliases=("VACATION", "HOLIDAY"),
         forms=(("player", "ABSENCE CLEAR", "cancel your absence (or NONE; SET ABSENCE CLEAR as well)", "ABSENCE CLEAR"),
                ("master", "ABSENCE [power REFUSE|END]", "the absences set / refuse one to come, or end one "
                 "under way (a deadline already moved stands)", "ABSENCE Turkey REFUSE")), example="ABSENCE Jan 10 TO Jan 14")
def absence_(h: Handler, cmd: Command) -> None:
    g = h.need_game()
    args = cmd.args
    if h.session.master and not h.session.became:
        master_absence(h, g, args)
        return
    g, power = h.need_power()
    ph = h.need_phase(g)
    seat = h.session.seat
    if h.session.became or seat is None or seat["player_id"] is None:
        raise CommandError("sign on with your own power's password to set your absence")
    pid = int(seat["player_id"])
    if not args:
        h.say(_listing(h, g, power) + f"\nYou have used {absence.used_days(g, power, pid):g} of "
              f"{absence.max_days(g):g} days of absence in '{g.name}'.")
        return
    if len(args) == 1 and args[0].upper() in CANCEL_WORDS:
        gone = absence.stop(g, power, pid, h.ctx.now, "cancelled")
        if not gone:
            raise CommandError("you have no absence set to cancel")
        games.save_options(h.ctx, g)
        h.say("Your absence is cancelled. A deadline it already moved stands.")
        games.notice(h.ctx, g, f"Absence cancelled: {power}", f"{power} has cancelled their absence.")
        return
    try:
        start, end = absence.parse_span(" ".join(args), h.ctx.now, h.ctx.cfg.timezone)
        absence.add(g, power, pid, start, end)
    except (absence.AbsenceError, deadlines.TimeError) as exc:
        raise CommandError(str(exc)) from None
    games.save_options(h.ctx, g)
    h.say(f"Absence set: from {h.ctx.when(start)} to {h.ctx.when(end)}. A deadline in it moves to a day after "
          f"it ends. Used {absence.used_days(g, power, pid):g} of {absence.max_days(g):g} days.")
    games.notice(h.ctx, g, f"Absence: {power}", f"{power} will be away from {h.ctx.when(start)} to {h.ctx.when(end)}. "
                 f"A deadline that falls in it moves to a day after it ends.")
    # in grace (the deadline passed) nothing moves: the pending grace event must stand
    if g.state == "active" and games.past_absences(h.ctx, g, ph):
        games.schedule_phase(h.ctx, g, ph)


def master_absence(h: Handler, g: Game, args: list[str]) -> None:
    if not args:
        h.say(_listing(h, g, None))
        return
    p = g.variant.power(args[0])
    if p is None or len(args) != 2 or args[1].upper() not in MASTER_WORDS:
        raise CommandError("write SET ABSENCE <power> REFUSE (one to come) or SET ABSENCE <power> END "
                           "(one under way), or SET ABSENCE alone for the list")
    state = MASTER_WORDS[args[1].upper()]
    gone = absence.stop(g, p.name, None, h.ctx.now, state)
    if not gone:
        raise CommandError(f"{p.name} has no absence set")
    games.save_options(h.ctx, g)
    what = "refused" if state == "refused" else "ended"
    h.say(f"{p.name}'s absence {what}. A deadline it already moved stands.")
    games.notice(h.ctx, g, f"Absence {what}: {p.name}", f"The master has {what} {p.name}'s absence.")


@command("PAUSE REQUEST", who="player", syntax="PAUSE REQUEST [why] / PAUSE REQUEST NO",
         summary="ask the master to pause the game (or, where the master set PAUSE VOTE, vote for a pause: "
                 "every player asking pauses it) / take it back",
         aliases=("REQUEST PAUSE",), example="PAUSE REQUEST moving house this week")
def pause_request(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    ph = h.need_phase(g)
    if g.state != "active":
        raise CommandError(f"game '{g.name}' is {g.state}, not running")
    asked = absence.pause_requests(g)
    if len(cmd.args) == 1 and cmd.args[0].upper() in CANCEL_WORDS:
        if power not in asked:
            raise CommandError("you have not asked for a pause")
        asked.remove(power)
        games.save_options(h.ctx, g)
        h.say("Your pause request is withdrawn.")
        return
    why = " ".join(cmd.args).strip()
    if power not in asked:
        asked.append(power)
    games.save_options(h.ctx, g)
    m = games.master_address(h.ctx.store, g)
    if not absence.pause_vote(g):
        if m:
            games.notice(h.ctx, g, f"Pause requested: {power}", f"{power} asks you to pause '{g.name}'"
                         + (f": {why}" if why else ".") + "\n\nPAUSE pauses it, RESUME starts it again.", to=[m])
        h.say("Your request for a pause has gone to the master, who decides.")
        return
    alive = set(games.survivors(ph.position))  # a power out of the game has no say
    playing = [s["power"] for s in games.seats(h.ctx.store, g.id)
               if s["power"] in alive and s["player_id"] is not None and s["status"] == "active"]
    missing = [p for p in playing if p not in asked]
    if missing:
        h.say(f"Your vote for a pause is counted; {len(missing)} more {'player' if len(missing) == 1 else 'players'} "
              f"must ask too.")
        if m:
            games.notice(h.ctx, g, f"Pause vote: {power}", f"{power} votes to pause '{g.name}'"
                         + (f": {why}" if why else ".") + f" Not yet asked: {', '.join(missing)}.", to=[m])
        return
    g.options["pause_requests"] = []
    games.save_options(h.ctx, g)
    games.pause(h.ctx, g)
    h.say(f"Every player asked: '{g.name}' is paused.")
    games.notice(h.ctx, g, "Paused", f"Every player voted for a pause: '{g.name}' is paused. No deadline runs "
                 f"until the master resumes it (RESUME).")
