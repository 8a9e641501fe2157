"""VI. Naval squadrons/flotillas and VII. combined fleets: forming counters, moving them.

A squadron holds 2 to 6 ships, moves 8 sea zones, only port to port, port to fleet or fleet to
port (VI.A); units count as one combined fleet only if they START the month stacked (VII).
"""

from __future__ import annotations

from typing import Callable

from judge.eia.context import Malformed, STAGE_MOVE, STAGE_SETUP, Command, Ctx, Rejected, command, number, split_at
from judge.eia.state import Unit


def squadron_limits(ctx: Ctx) -> tuple[int, int]:
    sq = ctx.tables["squadrons"]
    return sq["min_ships"], sq["max_ships"]


@command("FORM", STAGE_SETUP, "FORM <id> FLEET|SQUADRON <n> AT <port>")
def form(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "AT")
    words = parts[""]
    if len(words) != 3 or words[1].upper() not in ("FLEET", "SQUADRON", "FLOTILLA"):
        raise Malformed("FORM <id> FLEET|SQUADRON <n> AT <port>")
    ident, kind = words[0], "fleet" if words[1].upper() == "FLEET" else "squadron"
    n = number(words[2], "FORM: ships", 1)
    led = ctx.ledger(cmd.nation)
    if any(k.casefold() == ident.casefold() for k in led.units):
        raise Rejected(f"{led.nation} already has a unit called {ident}")
    port = ctx.place(" ".join(parts.get("AT", [])))
    low, high = squadron_limits(ctx)
    if kind == "squadron" and not low <= n <= high:
        raise Malformed(f"a squadron/flotilla may consist of between {low} to {high} ships (VI.A), not {n}")
    if led.docked.get(port, 0) < n:
        raise Rejected(f"{led.nation} has {led.docked.get(port, 0)} ships laid up at {port}")
    led.docked[port] -= n
    if not led.docked[port]:
        del led.docked[port]
    led.units[ident] = Unit(ident, kind, n, port, True, start_at=port)
    ctx.say(f"{led.nation} forms {kind} {ident} of {n} ships at {port}.", [led.nation], "fleet")


@command("DOCK", STAGE_MOVE, "DOCK <id>")
def dock(ctx: Ctx, cmd: Command) -> None:
    unit = ctx.unit(cmd.nation, " ".join(cmd.words))
    if not unit.in_port:
        raise Rejected(f"{unit.id} is at sea; it docks only in port")
    led = ctx.ledger(cmd.nation)
    led.docked[unit.at] = led.docked.get(unit.at, 0) + unit.ships
    del led.units[unit.id]
    ctx.say(f"{led.nation} lays up {unit.id} ({unit.ships} ships) at {unit.at}.", [led.nation], "fleet")


def fleet_at(ctx: Ctx, nation: str, place: str, besides: str = "") -> bool:
    return any(u.kind == "fleet" and ctx.same_place(u.at, place) and u.id != besides and not u.away
               for u in ctx.state.nations[nation].units.values())


@command("MOVE", STAGE_MOVE, "MOVE <id> TO <place> [PORT] [ZONES <n>]")
def move(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "TO", "ZONES", "PORT")
    unit = ctx.unit(cmd.nation, " ".join(parts[""]))
    if unit.away:
        raise Rejected(f"{unit.id} is off the map; it comes back with RETURN")
    if unit.in_port:
        raise Rejected(f"{unit.id} is in port at {unit.at}: it must SAIL first (VIII)")
    dest = " ".join(parts.get("TO", []))
    if not dest:
        raise Malformed("MOVE: say where to (TO <place>)")
    into_port = "PORT" in parts or bool(ctx.tables.yard(dest))
    zones = number(parts["ZONES"][0], "MOVE: sea zones", 0) if parts.get("ZONES") else None
    if unit.kind == "squadron":
        limit = ctx.tables["squadrons"]["move_zones"]
        if zones is None:
            raise Malformed("a squadron's move must say how many sea zones it covers (ZONES <n>)")
        if unit.zones + zones > limit:
            raise Rejected(f"a squadron moves {limit} sea zones (VI.A.1); {unit.id} has moved {unit.zones}")
        began_in_port = ctx.tables.yard(unit.start_at) is not None or any(
            ctx.same_place(unit.start_at, p) for p in ctx.state.nations[cmd.nation].docked)
        began_with_fleet = fleet_at(ctx, cmd.nation, unit.start_at, unit.id)
        if not (began_in_port or began_with_fleet):
            raise Rejected(f"a squadron moves only from a port or a fleet (VI.A.2); {unit.id} began at {unit.start_at}")
        if not (into_port or fleet_at(ctx, cmd.nation, dest, unit.id)):
            raise Rejected(f"a squadron moves only to a port or to a fleet (VI.A.2); no {cmd.nation} fleet is at {dest}")
    unit.at, unit.in_port = ctx.place(dest), into_port
    unit.zones += zones or 0
    ctx.say(f"{cmd.nation} {unit.kind} {unit.id} moves to {unit.at}" + (" (in port)." if into_port else "."),
            [cmd.nation], "fleet")


def combined(units: list[Unit], same: Callable[[str, str], bool] = str.__eq__) -> tuple[list[Unit], list[Unit]]:
    """VII: the units that started the month stacked with the first one listed, and the others
    (which "may, however, attack the enemy independent of other fleets or squadrons")."""
    if not units:
        return [], []
    lead = units[0]
    together = [u for u in units if same(u.start_at, lead.start_at) and same(u.at, lead.at)]
    return together, [u for u in units if u not in together]
