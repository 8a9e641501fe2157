"""The game master's commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.game import deadlines, lifecycle as games
from judge.game.store import dumps, iso
from judge.mail.commands import CommandError, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("START", who="master", syntax="START",
         summary="start a forming game now (powers without a player hold)",
         aliases=("FORCE BEGIN",))
def start(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state != "forming":
        raise CommandError(f"game '{g.name}' has already started")
    games.start(h.ctx, g)
    h.say(f"Game '{g.name}' started; powers without a player are vacant and hold.")


@command("PROCESS", who="master", syntax="PROCESS",
         summary="process the current phase now")
def process(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state == "forming":
        start(h, cmd)
        return
    if g.state != "active":
        raise CommandError(f"game '{g.name}' is {g.state}")
    ph = h.need_phase(g)
    games.process(h.ctx, g, ph, "master")
    h.say(f"{ph.short} processed.")
    games.maybe_process(h.ctx, g)


@command("ROLLBACK", who="master", syntax="ROLLBACK [phase]",
         summary="take the game back to an earlier phase")
def rollback(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state == "forming":
        raise CommandError(f"game '{g.name}' has not started")
    ph = games.rollback(h.ctx, g, " ".join(cmd.args) or None)
    h.say(f"Rolled back to {ph.name}; new deadline {h.ctx.when(ph.deadline)}.")
    games.notice(h.ctx, g, f"Rollback to {ph.short}",
                 f"The master has rolled '{g.name}' back to {ph.name}. Orders already given for it stand; "
                 f"the phase will be processed again.", short=ph.short)


@command("PAUSE", who="master", syntax="PAUSE",
         summary="stop the clock: no deadline passes",
         aliases=("SUSPEND",))
def pause(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state != "active":
        raise CommandError(f"game '{g.name}' is {g.state}, not running")
    g.state = "paused"
    h.ctx.store.update("games", g.id, state="paused")
    deadlines.cancel_events(h.ctx.store, g.id, h.ctx.now)
    h.say(f"Game '{g.name}' paused.")
    games.notice(h.ctx, g, "Paused", f"The master has paused '{g.name}'. No deadline runs until it resumes.")


@command("RESUME", who="master", syntax="RESUME",
         summary="start the clock again, with a new deadline")
def resume(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state != "paused":
        raise CommandError(f"game '{g.name}' is not paused")
    g.state = "active"
    h.ctx.store.update("games", g.id, state="active")
    ph = games.current_phase(h.ctx.store, g)
    assert ph is not None
    new = games.next_deadline(h.ctx, g, ph.phase.kind, ph.deadline)  # a full phase, on the master's clock
    games.set_deadline(h.ctx, g, ph, new)
    h.say(f"Game '{g.name}' resumed; deadline {h.ctx.when(new)}.")
    games.notice(h.ctx, g, "Resumed", f"The master has resumed '{g.name}'. The deadline for {ph.name} is "
                 f"{h.ctx.when(new)}.")
    h.touched = True


@command("EJECT", who="master", syntax="EJECT <power|address>",
         summary="put a player or observer out of the game")
def eject(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if not cmd.args:
        raise CommandError("write EJECT <power> or EJECT <address>")
    who = cmd.args[0]
    st = h.ctx.store
    seat = None
    p = g.variant.power(who)
    if p is not None:
        seat = games.seat_of_power(st, g.id, p.name)
    else:
        pid = st.scalar("SELECT id FROM players WHERE address = ?", (who.lower(),))
        if pid is not None:
            seat = st.one("SELECT * FROM seats WHERE game_id = ? AND player_id = ? AND status != 'vacant'",
                          (g.id, pid))
    if seat is None or seat["player_id"] is None or seat["status"] == "vacant":
        raise CommandError(f"nobody to eject as {who!r} in '{g.name}'")
    gone = games.seat_addresses(st, seat)
    if seat["role"] == "observer" or g.state == "forming":
        st.conn.execute("DELETE FROM seats WHERE id = ?", (seat["id"],))
    else:
        games.record_departure(h.ctx, g, seat, "ejected")
        st.update("seats", seat["id"], status="vacant", password_hash=None, player_id=None, addresses=None,
                  wait=0, draw=0, allies=None, concede=None)
    label = seat["power"] or seat["role"]
    h.say(f"Ejected {label} ({', '.join(gone)}).")
    games.notice(h.ctx, g, "Ejected", f"The master has removed you ({label}) from '{g.name}'.", to=gone)
    if seat["power"]:
        games.notice(h.ctx, g, f"Ejected: {seat['power']}", f"{seat['power']} is open for takeover "
                     f"(SIGNON ?{g.name} <password>).")
    h.touched = True


@command("BECOME", who="master", syntax="BECOME <power>",
         summary="give a power's orders (marked GM in the results)")
def become(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if h.session.became:
        raise CommandError("only one BECOME per message")
    if not cmd.args:
        raise CommandError("write BECOME <power>")
    p = g.variant.power(cmd.args[0])
    if p is None:
        raise CommandError(f"unknown power {cmd.args[0]!r}")
    seat = games.seat_of_power(h.ctx.store, g.id, p.name)
    if seat is None:
        raise CommandError(f"game '{g.name}' has not started")
    h.session.seat = seat
    h.session.power = p.name
    h.session.became = True
    h.copy_to = games.seat_addresses(h.ctx.store, seat) if seat["player_id"] else []
    h.say(f"You now act as {p.name} in '{g.name}' (its player gets a copy of this reply).")


@command("TERMINATE", who="master", syntax="TERMINATE",
         summary="end the game")
def terminate(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state in ("finished", "terminated"):
        raise CommandError(f"game '{g.name}' is already over")
    g.state = "terminated"
    g.outcome = {"kind": "terminated"}
    h.ctx.store.update("games", g.id, state="terminated", finished=iso(h.ctx.now), outcome=dumps(g.outcome))
    deadlines.cancel_events(h.ctx.store, g.id, h.ctx.now)
    h.say(f"Game '{g.name}' terminated.")
    games.notice(h.ctx, g, "Terminated", f"The master has ended '{g.name}'.")
    games.game_over(h.ctx, g)
