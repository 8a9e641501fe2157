"""XI. Naval attack on a fortified port: the fort fires, the fleet fires back, (the master
resolves the attack in the harbour,) and the fort fires on the fleet as it withdraws.

Rulings (docs/variants/eia.md §XI): the band "110-109" is read 100-109; a modified roll above 12
reads the 12 column; the fort fires a second time unless its first result is starred, and the
losses add; the fleet's fire is rolled on the factors it has left after the fort's fire.
"""

from __future__ import annotations

import math

from judge.eia.context import Malformed, PUBLIC, STAGE_COMBAT, Command, Ctx, command, number, split_at
from judge.eia.state import Unit


def fort_fire(ctx: Ctx, value: int, why: dict[str, int], nation: str, unit: str,
              purpose: str) -> tuple[int, list[str]]:
    """Losses to ``nation``'s ``unit`` from one bout of the fort's fire (one or two rolls)."""
    band = ctx.tables.fort_band(value)
    modifier = sum(why.values())
    total, notes = 0, []
    for shot in (1, 2):
        roll = ctx.roll("fort fire", nation, unit, f"{purpose}, fort roll {shot}", 2, why)
        column = max(2, min(12, roll))
        losses, starred = band.results[column - 2]
        total += losses
        notes.append(f"roll {roll - modifier}{f'{modifier:+d}' if modifier else ''} -> {losses}{'*' if starred else ''}")
        if starred:
            break
    return total, notes


def fleet_fire(ctx: Ctx, factors: int, nation: str, unit: str, purpose: str) -> tuple[int, list[str]]:
    per = ctx.tables["forts"]["fleet_factors_per_shot"]
    total, notes = 0, []
    for shot in range(1, math.ceil(factors / per) + 1):
        roll = ctx.roll("fleet fire", nation, unit, f"{purpose}, fleet shot {shot}", 2)
        damage = next(d for lo, hi, d in ctx.tables.fleet_fire if lo <= roll <= hi)
        total += damage
        notes.append(f"{roll} -> {damage}")
    return total, notes


def _take_fire(ctx: Ctx, nation: str, unit: Unit, value: int, why: dict[str, int],
               purpose: str) -> tuple[int, list[str]]:
    """The fort fires on ``unit``; its losses (at most the ships it has) are taken at once."""
    losses, notes = fort_fire(ctx, value, why, nation, unit.id, purpose)
    losses = min(losses, unit.ships)
    unit.ships -= losses
    return losses, notes


@command("FORT", STAGE_COMBAT, "FORT <port> VALUE <v> GARRISON FULL|MILITIA|NONE ATTACKER <nation> <id>", master=True)
def fort(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "VALUE", "GARRISON", "ATTACKER")
    port = " ".join(parts[""])
    if not port or not parts.get("VALUE") or not parts.get("ATTACKER"):
        raise Malformed("FORT <port> VALUE <v> GARRISON FULL|MILITIA|NONE ATTACKER <nation> <id>")
    value = number(parts["VALUE"][0], "fort VALUE", 0)
    garrison = (parts.get("GARRISON") or ["FULL"])[0].upper()
    forts = ctx.tables["forts"]
    why = {"FULL": {}, "MILITIA": {"militia only": forts["militia_only_modifier"]},
           "NONE": {"no garrison": forts["no_garrison_modifier"]}}.get(garrison)
    if why is None:
        raise Malformed(f"GARRISON is FULL, MILITIA (militia only: {forts['militia_only_modifier']:+d}) or NONE "
                        f"({forts['no_garrison_modifier']:+d})")
    nation = ctx.ledger(parts["ATTACKER"][0]).nation
    unit = ctx.unit(nation, " ".join(parts["ATTACKER"][1:]))
    led = ctx.state.nations[nation]
    where = f"{nation} {unit.id} against the fort of {port}"
    losses, notes = _take_fire(ctx, nation, unit, value, why, f"{where}: the fort fires")
    ctx.say(f"1. The fort of {port} (value {value}) fires on {nation} {unit.id}: {'; '.join(notes)}: "
            f"{losses} ships lost.", PUBLIC, "fort")
    if not unit.ships:
        del led.units[unit.id]
        ctx.say(f"{nation} {unit.id} is destroyed before it can reply.", PUBLIC, "fort")
        return
    damage, notes = fleet_fire(ctx, unit.ships, nation, unit.id, f"{where}: the fleet fires")
    value = max(0, value - damage)
    ctx.say(f"2. {nation} {unit.id} ({unit.ships} ships) fires on the fort: {'; '.join(notes)}: damage {damage}, "
            f"the fort's value is now {value}.", PUBLIC, "fort")
    ctx.say(f"3. {nation} {unit.id} attacks the targets within the harbour of {port}: the master resolves it.",
            PUBLIC, "fort")
    losses, notes = _take_fire(ctx, nation, unit, value, why, f"{where}: the fort fires on the withdrawal")
    ctx.say(f"4. {nation} {unit.id} withdraws under fire from what is left of the fort (value {value}): "
            f"{'; '.join(notes)}: {losses} ships lost.", PUBLIC, "fort")
    if not unit.ships:
        del led.units[unit.id]
