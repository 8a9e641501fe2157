"""What a signed-on power says about its orders besides the order lines themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.game import orderbook
from judge.mail.commands import CommandError, command
from judge.mail.language import Command

if TYPE_CHECKING:
    from judge.mail.handler import Handler


@command("PHASE", who="player", syntax="PHASE <season> <year> <phase>",
         summary="the orders below are for a later phase", example="PHASE Fall 1901 Movement\nA Bur - Mun")
def phase(h: Handler, cmd: Command) -> None:
    from judge.mail.handler import phase_heading

    g, power = h.need_power()
    ph = h.need_phase(g)  # (a game in play, with a phase open)
    text = " ".join(cmd.args)
    if not text:
        raise CommandError("write PHASE <season> <year> <phase>, e.g. PHASE Fall 1901 Movement")
    # read as the heading "Fall 1901:" is: without the kind of phase, the season's phase with orders
    target = phase_heading(text, g.variant, ph.phase)
    if target is None:
        try:
            target = g.variant.calendar.parse(text)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    h.aim_at(target)


@command("CLEAR", who="player", syntax="CLEAR",
         summary="withdraw your orders for this phase (and queued ones)", example="CLEAR")
def clear(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    ph = h.need_phase(g)
    n = orderbook.clear(h.ctx.store, ph.id, power)
    f = h.ctx.store.conn.execute("UPDATE future_orders SET state = 'cleared' WHERE game_id = ? AND power = ? "
                                    "AND state = 'pending'", (g.id, power)).rowcount
    h.say(f"Orders cleared for {ph.name}" + (f" and {f} queued future order set(s) dropped." if f else "."))
    if n:
        h.touched = True


# -- njudge's conditional orders: refused whole (docs/decisions/players-press-draws.md) --------------
CONDITIONAL_REFUSED = ("conditional orders (IF ... ELSE ... ENDIF) are not accepted by this judge: none of the "
                       "orders in this block were taken, in either branch")


@command("IF", who="player", syntax="IF ... [ELSE ...] ENDIF",
         summary="njudge's conditional orders are refused whole, both branches (orders outside the block stand); "
                 "send plain orders for the phase, or PHASE orders once the board is known", example="IF A Mun - Ber\nA Kie H\nENDIF")
def conditional(h: Handler, cmd: Command) -> None:
    h.need_power()
    for line in cmd.body.split("\n"):
        if line.strip():
            h.quote(line)
    end = "" if cmd.closed else " (no ENDIF was found: the block was read up to the next command)"
    raise CommandError(CONDITIONAL_REFUSED + end)


@command("ELSE", who="player", syntax="ELSE",
         summary="(part of IF ... ENDIF, which is refused)", example="ELSE")
def else_(h: Handler, cmd: Command) -> None:
    raise CommandError("ELSE without IF before it: conditional orders are not accepted; this line was ignored")


@command("ENDIF", who="player", syntax="ENDIF",
         summary="(part of IF ... ENDIF, which is refused)", aliases=("END IF",), example="ENDIF")
def endif(h: Handler, cmd: Command) -> None:
    raise CommandError("ENDIF without IF before it: conditional orders are not accepted; this line was ignored")
