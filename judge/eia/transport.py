"""V. Corps transport: at most three months at sea, cavalry counts double, sea supply each month.

Ruling (docs/variants/eia.md §V): a fleet counter carries 10 infantry factors, read from V.C's
example ("one fleet counter could not transport more than 8 infantry and 1 cavalry factors").
"""

from __future__ import annotations

from judge.eia.context import Malformed, MASTER, STAGE_MOVE, Command, Ctx, Rejected, command, number, split_at
from judge.eia.state import Corps


def load(ctx: Ctx, infantry: int, cavalry: int) -> int:
    """Transport capacity used: cavalry factors doubled (V.B, V.C)."""
    return infantry + cavalry * ctx.tables["transport"]["cavalry_factor"]


@command("TRANSPORT", STAGE_MOVE, "TRANSPORT <corps> INF <n> CAV <n> ON <fleet> [<fleet>...]")
def transport(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "INF", "CAV", "ON")
    if len(parts[""]) != 1 or not parts.get("ON"):
        raise Malformed("TRANSPORT <corps> INF <n> CAV <n> ON <fleet> [<fleet>...]")
    ident = parts[""][0]
    inf = number((parts.get("INF") or ["0"])[0], "INF", 0)
    cav = number((parts.get("CAV") or ["0"])[0], "CAV", 0)
    if inf + cav == 0:
        raise Malformed("a corps has at least one factor")
    led = ctx.ledger(cmd.nation)
    if ident in led.corps:
        raise Rejected(f"corps {ident} is already at sea")
    fleets = [ctx.unit(cmd.nation, w.strip(",")) for w in parts["ON"] if w.strip(",")]
    carrying = {f for c in led.corps.values() for f in c.fleets}
    for f in fleets:
        if f.kind != "fleet":
            raise Rejected(f"{f.id} is a squadron; corps go by fleet counters (V.C)")
        if f.id in carrying:
            raise Rejected(f"{f.id} already carries a corps")
    capacity = ctx.tables["transport"]["fleet_capacity"] * len(fleets)
    need = load(ctx, inf, cav)
    if need > capacity:
        raise Rejected(f"{inf} infantry and {cav} cavalry factors count as {need} (cavalry double, V.B-C); "
                       f"{len(fleets)} fleet counter(s) carry {capacity}")
    led.corps[ident] = Corps(ident, inf, cav, [f.id for f in fleets], 0, ctx.state.month)
    ctx.say(f"{cmd.nation} corps {ident} ({inf} inf, {cav} cav) embarks on {', '.join(f.id for f in fleets)}.",
            [cmd.nation], "transport")


@command("LAND", STAGE_MOVE, "LAND <corps> AT <area>")
def land(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "AT")
    led = ctx.ledger(cmd.nation)
    ident = " ".join(parts[""])
    if ident not in led.corps:
        raise Rejected(f"{cmd.nation} has no corps {ident!r} at sea")
    del led.corps[ident]
    ctx.say(f"{cmd.nation} corps {ident} lands at {' '.join(parts.get('AT', [])) or 'its destination'}.",
            [cmd.nation], "transport")


def close_month(ctx: Ctx) -> None:
    most = ctx.tables["transport"]["max_months_at_sea"]
    for nation, led in ctx.state.nations.items():
        for corps in led.corps.values():
            corps.months += 1
            ctx.say(f"Corps {corps.id} pays sea supply for month {corps.months} at sea (V.D).", [nation, MASTER],
                    "transport")
            if corps.months == most:
                ctx.say(f"Corps {corps.id} has been at sea {most} months, the most V.A allows: it must LAND "
                        f"next month.", [nation, MASTER], "transport")
            elif corps.months > most:
                ctx.say(f"Corps {corps.id} of {nation} has been at sea {corps.months} months, more than V.A "
                        f"allows: the master rules on it.", [nation, MASTER], "transport")
