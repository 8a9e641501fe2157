"""The game master's commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.engine import adjudicate
from judge.game import deadlines, lifecycle as games, orderbook
from judge.game.store import dumps, iso, loads
from judge.mail.commands import CommandError, command
from judge.mail.language import Command
from judge.render.njudge_layout import render_njudge

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("START", who="master", syntax="START",
         summary="start a forming game now (powers without a player hold)",
         aliases=("FORCE BEGIN",), example="START")
def start(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state != "forming":
        raise CommandError(f"game '{g.name}' has already started")
    games.start(h.ctx, g)
    h.say(f"Game '{g.name}' started; powers without a player are vacant and hold.")


@command("PROCESS", who="master", syntax="PROCESS",
         summary="process the current phase now", example="PROCESS")
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
         summary="take the game back to an earlier phase", example="ROLLBACK S1901M")
def rollback(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state == "forming":
        raise CommandError(f"game '{g.name}' has not started")
    undone = {r["id"] for r in h.ctx.store.all("SELECT id FROM phases WHERE game_id = ? AND state = 'undone'", (g.id,))}
    ph = games.rollback(h.ctx, g, " ".join(cmd.args) or None)
    # what this ROLLBACK undid, in order, for ROLLFORWARD (while the game stays at this phase)
    g.options["rollforward"] = {"phase": ph.id, "undone": [
        r["id"] for r in h.ctx.store.all("SELECT id FROM phases WHERE game_id = ? AND state = 'undone' ORDER BY seq",
                                         (g.id,)) if r["id"] not in undone]}
    games.save_options(h.ctx, g)
    h.say(f"Rolled back to {ph.name}; new deadline {h.ctx.when(ph.deadline)}.")
    games.notice(h.ctx, g, f"Rollback to {ph.short}",
                 f"The master has rolled '{g.name}' back to {ph.name}. Orders already given for it stand; "
                 f"the phase will be processed again.", short=ph.short)


@command("ROLLFORWARD", who="master", syntax="ROLLFORWARD",
         summary="after a ROLLBACK, process again the phases it undid, each with the orders it had", example="ROLLFORWARD")
def rollforward(h: Handler, cmd: Command) -> None:
    """Replay what the last ROLLBACK undid: the phase it reopened is processed with the orders it
    has now, and each next phase, while it is the one that had been played, gets the orders it
    had and is processed too; the phase that was open at the ROLLBACK gets its orders back and
    waits for its deadline. Orders changed since the ROLLBACK can lead elsewhere: the replay stops
    at the first phase whose board is not the one that was played (its old orders are not used)."""
    g = h.need_master()
    st = h.ctx.store
    if g.state != "active":
        raise CommandError(f"game '{g.name}' is {g.state}, not running")
    ph = h.need_phase(g)
    info = g.options.get("rollforward") or {}
    if info.get("phase") != ph.id or not info.get("undone"):
        raise CommandError("nothing to roll forward: ROLLFORWARD follows a ROLLBACK while the game is still "
                           "at the phase it went back to")
    queue = [st.one("SELECT * FROM phases WHERE id = ?", (i,)) for i in info["undone"]]
    g.options.pop("rollforward")
    games.save_options(h.ctx, g)
    done: list[str] = []
    cur = ph
    while True:
        games.process(h.ctx, g, cur, "master")
        done.append(cur.short)
        nxt = games.current_phase(st, g)
        if g.state != "active" or nxt is None or not queue:
            break
        row = queue.pop(0)
        if row is None or row["name"] != nxt.name or loads(row["position"]) != nxt.position_json:
            h.say(f"The game has taken another course since the ROLLBACK: {nxt.short} is not the board that "
                  f"was played, so the replay stops here and {nxt.short} waits for orders.")
            break
        st.conn.execute("INSERT INTO orders (phase_id, power, raw, message_id, created, state, orders) "
                        "SELECT ?, power, raw, message_id, created, state, orders FROM orders "
                        "WHERE phase_id = ? AND state = 'active' ORDER BY id", (nxt.id, row["id"]))
        if row["state"] == "undone" and row["results"] is None:  # it was open at the ROLLBACK
            break
        cur = nxt
    h.say(f"Rolled forward: processed {', '.join(done)} again.")
    h.touched = True


@command("PAUSE", who="master", syntax="PAUSE",
         summary="stop the clock: no deadline passes",
         aliases=("SUSPEND",), example="PAUSE")
def pause(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if g.state != "active":
        raise CommandError(f"game '{g.name}' is {g.state}, not running")
    games.pause(h.ctx, g)
    h.say(f"Game '{g.name}' paused.")
    games.notice(h.ctx, g, "Paused", f"The master has paused '{g.name}'. No deadline runs until it resumes.")


@command("RESUME", who="master", syntax="RESUME",
         summary="start the clock again, with a new deadline", example="RESUME")
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
    if games.past_absences(h.ctx, g, ph):  # the judge's own deadline: moved past a player's absence
        games.schedule_phase(h.ctx, g, ph)
    new = ph.deadline or new
    h.say(f"Game '{g.name}' resumed; deadline {h.ctx.when(new)}.")
    games.notice(h.ctx, g, "Resumed", f"The master has resumed '{g.name}'. The deadline for {ph.name} is "
                 f"{h.ctx.when(new)}.")
    h.touched = True


@command("EJECT", who="master", syntax="EJECT <power|address>",
         summary="put a player or observer out of the game", example="EJECT Turkey")
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
    drop_co_masters(h, g, gone)
    label = seat["power"] or seat["role"]
    h.say(f"Ejected {label} ({', '.join(gone)}).")
    games.notice(h.ctx, g, "Ejected", f"The master has removed you ({label}) from '{g.name}'.", to=gone)
    if seat["power"]:
        opened = f"{seat['power']} is open for takeover (SIGNON ?{g.name} <password>)."
        games.notice(h.ctx, g, f"Ejected: {seat['power']}", opened)
        games.tell_standby(h.ctx, g, f"Open for takeover: {g.variant.powers[seat['power']].letter}", opened)
    h.touched = True


@command("BECOME", who="master", syntax="BECOME <power>",
         summary="give a power's orders (marked GM in the results)", example="BECOME France")
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
         summary="end the game", example="TERMINATE")
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


PREDICTION = "PREDICTION — nothing has been processed"


@command("PREDICT", who="master", syntax="PREDICT",
         summary="the results the orders now in would give (nothing is processed or stored)",
         aliases=("PREVIEW",),
         forms=(("player", "PREDICT", "the results your own orders would give if every other unit held, "
                 "where the master allows it (SET PREDICT yes); nothing is processed", "PREDICT"),), example="PREDICT")
def predict(h: Handler, cmd: Command) -> None:
    """A trial adjudication of a copy of the open phase. The master's uses every order in; a
    player's uses only their own orders and has every other unit hold, so no other power's
    orders are revealed."""
    g = h.need_game()
    ph = h.need_phase(g)
    if h.session.master:  # (also after BECOME: the master sees every order anyway)
        powers = list(g.variant.powers)
        whose = "every order now in"
    elif h.session.power is not None:
        if games.switch(g, "predict") != "yes":
            raise CommandError(f"game '{g.name}' does not allow players to PREDICT (the master may SET PREDICT yes)")
        powers = [h.session.power]
        whose = f"{h.session.power}'s orders only; every other unit holds"
    else:
        raise CommandError("only the master, or a player signed on as a power, may PREDICT")
    pos = ph.position
    result = adjudicate(pos, orderbook.all_orders(h.ctx.store, ph.id, powers), g.rules)
    body = render_njudge(g.variant, pos, result, game=g.name, seq=ph.seq)
    h.say(f"{PREDICTION} ({ph.short}, {whose}).\n\n{body.rstrip()}\n\n{PREDICTION}.")


@command("UNSTART", who="master", syntax="UNSTART",
         summary="return a started game that has processed no phase to forming; the players stay", example="UNSTART")
def unstart(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    st = h.ctx.store
    if g.state not in ("active", "paused"):
        raise CommandError(f"game '{g.name}' is {g.state}: only a started game can be unstarted")
    if st.scalar("SELECT COUNT(*) FROM phases WHERE game_id = ? AND state != 'open'", (g.id,)):
        raise CommandError(f"game '{g.name}' has processed a phase: UNSTART is for a game still in its first phase "
                           f"(ROLLBACK takes it back instead)")
    deadlines.cancel_events(st, g.id, h.ctx.now)
    ids = [r["id"] for r in st.all("SELECT id FROM phases WHERE game_id = ?", (g.id,))]
    for pid in ids:  # the first phase's orders go with it
        st.conn.execute("DELETE FROM orders WHERE phase_id = ?", (pid,))
        st.conn.execute("DELETE FROM reports WHERE phase_id = ?", (pid,))
        st.conn.execute("DELETE FROM events WHERE phase_id = ?", (pid,))
    st.conn.execute("DELETE FROM phases WHERE game_id = ?", (g.id,))
    st.conn.execute("DELETE FROM future_orders WHERE game_id = ?", (g.id,))
    st.conn.execute("DELETE FROM seats WHERE game_id = ? AND role = 'player' AND player_id IS NULL", (g.id,))
    st.conn.execute("UPDATE seats SET power = NULL, status = 'active', wait = 0, draw = 0, draw_set = NULL, "
                    "concede = NULL WHERE game_id = ? AND role = 'player'", (g.id,))
    g.state = "forming"
    st.update("games", g.id, state="forming", started=None)
    h.say(f"Game '{g.name}' is forming again; its {len(games.seats(st, g.id))} players stay and get powers "
          f"anew when it starts (START).")
    games.notice(h.ctx, g, "Unstarted", f"The master has returned '{g.name}' to forming. You are still in it; "
                 f"powers are assigned anew when it starts.")
    h.touched = True


def co_master_seat(g: games.Game, address: str) -> int | None:
    """The observer seat through which ``address`` is a co-master of ``g`` (PROMOTE), or None."""
    return next((int(c["seat"]) for c in g.options.get("co_masters") or [] if c.get("address") == address), None)


def drop_co_masters(h: Handler, g: games.Game, addresses: list[str]) -> None:
    """An observer who leaves or is ejected is a co-master no more (observing again does not
    bring it back)."""
    kept = [c for c in g.options.get("co_masters") or [] if c.get("address") not in addresses]
    if kept != (g.options.get("co_masters") or []):
        g.options["co_masters"] = kept
        games.save_options(h.ctx, g)


@command("PROMOTE", who="master", syntax="PROMOTE <address>",
         summary="make an observer a co-master: it signs on as master with its own observer password", example="PROMOTE ann@example.org")
def promote(h: Handler, cmd: Command) -> None:
    g = h.need_master()
    if len(cmd.args) != 1 or "@" not in cmd.args[0]:
        raise CommandError("write PROMOTE <address> (the address of an observer of this game)")
    addr = cmd.args[0].strip("<>").lower()
    st = h.ctx.store
    seat = next((s for s in games.seats(st, g.id, "observer") if addr in games.seat_addresses(st, s)), None)
    if seat is None:
        raise CommandError(f"{addr} does not observe '{g.name}': a co-master is first an observer (OBSERVE)")
    if co_master_seat(g, addr) == seat["id"]:
        raise CommandError(f"{addr} is already a co-master of '{g.name}'")
    g.options["co_masters"] = [*(c for c in g.options.get("co_masters") or [] if c.get("address") != addr),
                               {"address": addr, "seat": seat["id"]}]
    games.save_options(h.ctx, g)
    h.say(f"{addr} is now a co-master of '{g.name}'.")
    games.notice(h.ctx, g, "Co-master", f"The master of '{g.name}' has made you a co-master. Sign on with "
                 f"SIGNON M{g.name} <your observer password>.", to=[addr])
