"""IX. Breakouts: sealed orders, pursuit, interception, trailing, the West Indies.

By mail every declaration is written before the deadline: a breakout's sealed orders with the
unit's sail attempt, and each enemy's pursuit and interception as standing orders naming the
port it watches (docs/variants/eia.md §IX). The judge then plays them out in the rule's order.
"""

from __future__ import annotations

from judge.eia import calendar
from judge.eia.context import (MASTER, PUBLIC, STAGE_MOVE, STAGE_PURSUIT, STAGE_SAIL, Command, Ctx, Malformed,
                               Rejected, command, split_at)
from judge.eia.sailing import attempt
from judge.eia.state import Breakout, Unit

WEST_INDIES = "West Indies"
ORDERS = {"WEST INDIES": "west_indies", "INDIES": "west_indies", "RETURN": "return"}


def _orders(words: list[str]) -> tuple[str, list[str]]:
    text = " ".join(w.upper() for w in words)
    for key in ("WEST INDIES", "INDIES", "RETURN"):
        if key in text:
            rest = text.replace(key, " ").split()
            return ORDERS[key], rest
    raise Malformed("say WEST INDIES (A.1/B.1) or RETURN (off the map and back next month, A.2/B.2)")


def describe(orders: str) -> str:
    return "to the West Indies" if orders == "west_indies" else "off the map, returning next month"


@command("BREAKOUT", STAGE_SAIL, "BREAKOUT <id> WEST INDIES|RETURN VIA <zone> [ENGAGE]")
def breakout(ctx: Ctx, cmd: Command) -> None:
    """A: the orders are written down before the attempt to leave port; they stay sealed."""
    parts = split_at(cmd.words, "VIA")
    if not parts[""]:
        raise Malformed("BREAKOUT <id> WEST INDIES|RETURN VIA <zone>")
    unit = ctx.unit(cmd.nation, parts[""][0])
    orders, rest = _orders(parts[""][1:])
    engage = "ENGAGE" in rest or any(w.upper() == "ENGAGE" for w in parts.get("VIA", []))
    via = ctx.place(" ".join(w for w in parts.get("VIA", []) if w.upper() != "ENGAGE"))
    if not via:
        raise Malformed("BREAKOUT: say by which sea zone the unit leaves the map (VIA <zone>)")
    if not unit.in_port or unit.away:
        raise Rejected(f"{unit.id} is not in port; a breakout starts with leaving port (IX.A)")
    port = unit.at
    sealed = Breakout(cmd.nation, unit.id, orders, via, ctx.state.month, port, engage)
    ctx.say(f"Sealed orders of {unit.id}: {describe(orders)}, via {via}"
            + (", engaging if trailed" if engage else "") + ".", [cmd.nation], "breakout")
    # the same public roll as a SAIL: a failed breakout must not tell the enemy one was tried (IX.A:
    # the orders are written down before the attempt, and only a unit that gets out announces it)
    if not attempt(ctx, cmd.nation, unit, f"{cmd.nation} {unit.id} leaves {port}"):
        return
    unit.away, unit.at, unit.exit_zone = "off_map", "off map", via
    ctx.state.breakouts.append(sealed)
    ctx.say(f"{cmd.nation} {unit.kind} {unit.id} ({unit.ships} ships) sails from {port} and leaves the map "
            f"by {via}.", PUBLIC, "breakout")


@command("PURSUE", STAGE_PURSUIT, "PURSUE <id> WATCH <port> WEST INDIES|RETURN")
def pursue(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "WATCH")
    if not parts[""] or not parts.get("WATCH"):
        raise Malformed("PURSUE <id> WATCH <port> WEST INDIES|RETURN")
    unit = ctx.unit(cmd.nation, parts[""][0])
    orders, rest = _orders(parts[""][1:] + parts["WATCH"])
    watch_words = [w for w in parts["WATCH"] if w.upper() not in ("WEST", "INDIES", "RETURN")]
    watch = ctx.place(" ".join(watch_words))
    ctx.scratch.setdefault("pursuits", []).append((cmd.nation, unit.id, watch, orders, cmd.line))


@command("INTERCEPT", STAGE_PURSUIT, "INTERCEPT <id> [COMBAT] | INTERCEPT <id> TARGET <nation> <id> (West Indies)")
def intercept(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "TARGET")
    if not parts[""]:
        raise Malformed("INTERCEPT <id>")
    unit = ctx.unit(cmd.nation, parts[""][0])
    mode = "trail" if any(w.upper() == "TRAIL" for w in parts[""][1:]) else "combat"
    if parts.get("TARGET"):
        west_indies(ctx, cmd, unit, parts["TARGET"], mode)
        return
    ctx.scratch.setdefault("intercepts", {})[(cmd.nation, unit.id)] = mode


@command("TRAIL", STAGE_PURSUIT, "TRAIL <id>")
def trail(ctx: Ctx, cmd: Command) -> None:
    """C.2: intercept and trail: the enemy fleet MUST reveal its orders (to the trailer only)."""
    unit = ctx.unit(cmd.nation, " ".join(cmd.words))
    ctx.scratch.setdefault("intercepts", {})[(cmd.nation, unit.id)] = "trail"


def west_indies(ctx: Ctx, cmd: Command, unit: Unit, target: list[str], mode: str) -> None:
    """E: "If both fleets are IN the West Indies, an interception takes place on a die roll of 1-3." """
    if len(target) < 2:
        raise Malformed("TARGET <nation> <id>")
    enemy_nation = ctx.nation_name(" ".join(target[:-1]))
    enemy = ctx.unit(enemy_nation, target[-1])
    if unit.away != "west_indies" or enemy.away != "west_indies":
        raise Rejected("both fleets must be IN the West Indies (IX.E)")
    if not ctx.state.at_war(cmd.nation, enemy_nation):
        raise Rejected(f"{cmd.nation} is not at war with {enemy_nation}")
    need = ctx.tables["breakouts"]["west_indies_intercept_max"]
    roll = ctx.roll("West Indies interception", cmd.nation, f"{unit.id} on {enemy_nation} {enemy.id}",
                    f"{cmd.nation} {unit.id} intercepts {enemy_nation} {enemy.id} in the West Indies")
    if roll > need:
        ctx.say(f"In the West Indies {cmd.nation} {unit.id} fails to intercept {enemy_nation} {enemy.id} "
                f"(roll {roll}; needs 1-{need}).", PUBLIC, "interception")
        return
    ctx.say(f"In the West Indies {cmd.nation} {unit.id} intercepts {enemy_nation} {enemy.id} (roll {roll}): "
            + ("combat; the master resolves it with BATTLE." if mode == "combat" else "it trails the enemy."),
            PUBLIC, "interception")


def resolve(ctx: Ctx) -> None:
    """B-D for each unit that broke out this month, in the order they left port."""
    pursuits = ctx.scratch.pop("pursuits", [])
    intercepts = ctx.scratch.pop("intercepts", {})
    used: set[tuple[str, str]] = set()
    for out in [b for b in ctx.state.breakouts if b.month == ctx.state.month]:
        unit = ctx.state.nations[out.nation].units[out.unit]
        chasers = []
        for nation, ident, watch, orders, line in pursuits:
            if (nation, ident) in used or not ctx.same_place(watch, out.port):
                continue
            if not ctx.state.at_war(nation, out.nation):
                continue
            chaser = ctx.state.nations[nation].units[ident]
            if chaser.in_port or chaser.away:
                ctx.say(f"{line!r}: {ident} is not at sea off {watch}; it cannot pursue", [nation], "rejected")
                continue
            used.add((nation, ident))
            chasers.append((nation, chaser, orders))
        if not chasers:
            ctx.say(f"No enemy pursues {out.nation} {unit.id}: the escape is successful (IX.D).", PUBLIC, "breakout")
        for nation, chaser, orders in chasers:
            chaser.exit_zone = out.exit_zone
            chaser.at = "off map"
            if orders == "west_indies":
                chaser.away = "to_west_indies"
                chaser.arrives = calendar.add(ctx.state.month, ctx.tables["breakouts"]["west_indies_months"])
                chaser.back_from = calendar.add(ctx.state.month,
                                                ctx.tables["breakouts"]["pursuit_west_indies_months"])
            else:
                chaser.away, chaser.back_from = "off_map", calendar.add(ctx.state.month, 1)
            ctx.say(f"{nation} {chaser.kind} {chaser.id} pursues {out.nation} {unit.id} {describe(orders)}.",
                    PUBLIC, "pursuit")
            mode = intercepts.pop((nation, chaser.id), None)
            if mode:
                _intercept(ctx, out, unit, nation, chaser, mode)
        _send(ctx, out, unit)
    for (nation, ident), _ in intercepts.items():
        if ident not in {b.unit for b in ctx.state.breakouts if b.nation == nation and b.month == ctx.state.month}:
            ctx.say(f"INTERCEPT {ident}: {ident} pursued nobody this month; no interception.", [nation], "rejected")


def _intercept(ctx: Ctx, out: Breakout, unit: Unit, nation: str, chaser: Unit, mode: str) -> None:
    need = ctx.tables["breakouts"]["intercept_max"]
    roll = ctx.roll("interception", nation, f"{chaser.id} on {out.nation} {unit.id}",
                    f"{nation} {chaser.id} intercepts {out.nation} {unit.id}")
    if roll > need:
        ctx.say(f"{nation} {chaser.id} fails to intercept {out.nation} {unit.id} (roll {roll}).", PUBLIC,
                "interception")
        return
    if mode == "combat":
        ctx.say(f"{nation} {chaser.id} intercepts {out.nation} {unit.id} off the map (roll {roll}) and "
                f"engages: combat, the master resolves it (BATTLE).", PUBLIC, "interception")
        ctx.say(f"Combat off the map by {out.exit_zone}: {nation} {chaser.id} against {out.nation} {unit.id}.",
                MASTER, "battle")
        return
    out.revealed_to.append(nation)
    ctx.say(f"{nation} {chaser.id} intercepts {out.nation} {unit.id} (roll {roll}) and trails it.", PUBLIC,
            "interception")
    ctx.say(f"Trailing {out.nation} {unit.id}: its orders are {describe(out.orders)} (via {out.exit_zone}).",
            [nation], "trail")
    if out.engage:
        need = ctx.tables["breakouts"]["counter_intercept_max"]
        back = ctx.roll("counter-interception", out.nation, f"{unit.id} on {nation} {chaser.id}",
                        f"{out.nation} {unit.id} intercepts its trailer {nation} {chaser.id}")
        if back <= need:
            ctx.say(f"{out.nation} {unit.id} turns on its trailer {nation} {chaser.id} (roll {back}): combat, "
                    f"the master resolves it (BATTLE).", PUBLIC, "interception")
        else:
            ctx.say(f"{out.nation} {unit.id} fails to turn on its trailer (roll {back}; needs {need} or less).",
                    PUBLIC, "interception")


def _send(ctx: Ctx, out: Breakout, unit: Unit) -> None:
    """The unit proceeds as per its orders."""
    if out.orders == "west_indies":
        unit.away = "to_west_indies"
        unit.arrives = calendar.add(ctx.state.month, ctx.tables["breakouts"]["west_indies_months"])
        unit.back_from = unit.arrives
    else:
        unit.away, unit.back_from = "off_map", calendar.add(ctx.state.month, 1)


@command("RETURN", STAGE_MOVE, "RETURN <id> TO <zone>")
def return_(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "TO")
    unit = ctx.unit(cmd.nation, " ".join(parts[""]))
    zone = " ".join(parts.get("TO", []))
    if not zone:
        raise Malformed("RETURN <id> TO <zone>")
    if unit.away not in ("off_map", "west_indies"):
        raise Rejected(f"{unit.id} is not off the map" + (" (still on its way to the West Indies: it MUST move "
                       "there and cannot return until it reaches the Indies)" if unit.away else ""))
    if calendar.index(ctx.state.month) < calendar.index(unit.back_from):
        raise Rejected(f"{unit.id} cannot return before {calendar.title(unit.back_from)}")
    where = "on a west map edge" if unit.away == "west_indies" else \
        f"(it left by {unit.exit_zone}; it may come back there or to an adjacent area)"
    _back(ctx, cmd.nation, unit, ctx.place(zone))
    ctx.say(f"{cmd.nation} {unit.kind} {unit.id} ({unit.ships} ships) returns to the map at {zone} {where}.",
            PUBLIC, "breakout")


def _back(ctx: Ctx, nation: str, unit: Unit, zone: str) -> None:
    unit.away, unit.at, unit.in_port, unit.arrives = "", zone, False, ""
    ctx.state.breakouts = [b for b in ctx.state.breakouts if not (b.nation == nation and b.unit == unit.id)]


def close_month(ctx: Ctx) -> None:
    """Arrivals in the West Indies; a unit off the map past its month comes back where it left."""
    nxt = calendar.add(ctx.state.month, 1)
    for nation, led in ctx.state.nations.items():
        for unit in led.units.values():
            if unit.away == "to_west_indies" and calendar.index(unit.arrives) <= calendar.index(nxt):
                unit.away, unit.at = "west_indies", WEST_INDIES
                ctx.say(f"{nation} {unit.kind} {unit.id} reaches the West Indies.", PUBLIC, "breakout")
            elif unit.away == "off_map" and calendar.index(unit.back_from) <= calendar.index(ctx.state.month):
                zone = unit.exit_zone
                _back(ctx, nation, unit, zone)
                ctx.say(f"{nation} {unit.kind} {unit.id} returns to the map at {zone}, where it left.", PUBLIC,
                        "breakout")
