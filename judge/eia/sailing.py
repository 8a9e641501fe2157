"""VIII. Naval movement: leaving port takes a roll (fleet 2-6, squadron 4-6, +2 with an admiral)."""

from __future__ import annotations

from judge.eia.context import Malformed, STAGE_SAIL, Command, Ctx, Rejected, command
from judge.eia.state import Unit


def needs(ctx: Ctx, unit: Unit) -> int:
    sailing = ctx.tables["sailing"]
    return sailing["fleet_needs"] if unit.kind == "fleet" else sailing["squadron_needs"]


def admiral_bonus(ctx: Ctx, nation: str, unit: Unit) -> int:
    """"If the fleet admiral is located at the port, add a +2 to the die roll." """
    here = any(ctx.same_place(p, unit.at) for p in ctx.state.nations[nation].admirals)
    return ctx.tables["sailing"]["admiral_bonus"] if here else 0


def attempt(ctx: Ctx, nation: str, unit: Unit, purpose: str) -> bool:
    """Roll for ``unit`` to leave port; True if it sails (it is then at sea, off its port)."""
    if not unit.in_port:
        raise Rejected(f"{unit.id} is already at sea; only units in port roll to sail (VIII)")
    if unit.away:
        raise Rejected(f"{unit.id} is off the map")
    bonus = admiral_bonus(ctx, nation, unit)
    roll = ctx.roll("leave port", nation, unit.id, purpose, 1, {"admiral": bonus})
    ok = roll >= needs(ctx, unit)
    port = unit.at
    if ok:
        unit.in_port = False
    ctx.say(f"{nation} {unit.kind} {unit.id} at {port} "
            + (f"leaves port (roll {roll - bonus}{f' +{bonus} admiral' if bonus else ''})." if ok else
               f"fails to leave port (roll {roll - bonus}{f' +{bonus} admiral' if bonus else ''}; needs "
               f"{needs(ctx, unit)})."), "all", "sailing")
    return ok


@command("SAIL", STAGE_SAIL, "SAIL <id> [<id> ...]")
def sail(ctx: Ctx, cmd: Command) -> None:
    """A: designate every unit that is to sail; B: each rolls, in the order given."""
    names = [w.strip(",") for w in cmd.words if w.strip(",") and w.upper() not in ("AND", ",")]
    if not names:
        raise Malformed("SAIL: name the fleets/squadrons that are to leave port")
    units = [ctx.unit(cmd.nation, n) for n in names]
    for unit in units:
        if not unit.in_port or unit.away:
            raise Rejected(f"{unit.id} is not in port")
        if any(b.nation == cmd.nation and b.unit == unit.id and b.month == ctx.state.month
               for b in ctx.state.breakouts):
            raise Rejected(f"{unit.id} already attempts a breakout this month")
    for unit in units:
        attempt(ctx, cmd.nation, unit, f"{cmd.nation} {unit.id} leaves {unit.at}")
