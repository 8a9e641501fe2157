"""IV. Naval prizes/repairs: after a sea battle the winner rolls 1D6 for the share (30-80 %) of
BOTH sides' losses it brings back to port; they sail 3 sea zones a month, then wait for REPAIR.

Ruling (docs/variants/eia.md §IV): the share of each side's losses is rounded down (a ship comes
back whole or not at all); a battle where a side fought with squadrons only gives no victory points.
"""

from __future__ import annotations

from judge.eia.context import Malformed, PUBLIC, STAGE_COMBAT, Command, Ctx, Rejected, command, number, split_at
from judge.eia.data import Yard
from judge.eia.state import Prizes


@command("BATTLE", STAGE_COMBAT,
         "BATTLE AT <zone> WINNER <nation> LOSSES <nation> <id> <n> [...] [TO <port> ZONES <k>] [VP <n>]",
         master=True)
def battle(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "AT", "WINNER", "LOSSES", "TO", "ZONES", "VP")
    zone = " ".join(parts.get("AT", [])) or "sea"
    if not parts.get("WINNER"):
        raise Malformed("BATTLE: name the WINNER")
    winner = ctx.ledger(" ".join(parts["WINNER"])).nation
    words = parts.get("LOSSES", [])
    if len(words) % 3:
        raise Malformed("LOSSES: give <nation> <unit> <ships lost> for each unit")
    losses: list[tuple[str, str, int]] = []
    for i in range(0, len(words), 3):
        nation = ctx.ledger(words[i]).nation
        unit = ctx.unit(nation, words[i + 1])
        n = number(words[i + 2], f"LOSSES of {unit.id}", 0)
        if n > unit.ships:
            raise Rejected(f"{nation} {unit.id} has {unit.ships} ships, it cannot lose {n}")
        losses.append((nation, unit.id, n))
    sides = {n for n, _, _ in losses}
    if winner not in sides and losses:
        sides.add(winner)
    squadron_only = any(
        all(ctx.state.nations[n].units[u].kind == "squadron" for m, u, _ in losses if m == n)
        for n in {n for n, _, _ in losses})
    vp = number(parts["VP"][0], "VP", 0) if parts.get("VP") else 0
    if vp and squadron_only:
        raise Rejected("There are NO victory points for squadron combats (VI.B)")
    own = sum(n for nation, _, n in losses if nation == winner)
    enemy = sum(n for nation, _, n in losses if nation != winner)
    port = friendly_port(ctx, winner, " ".join(parts.get("TO", []))) if own or enemy else None
    zones = number(parts["ZONES"][0], "ZONES", 0) if parts.get("ZONES") else 0
    for nation, ident, n in losses:
        unit = ctx.state.nations[nation].units[ident]
        unit.ships -= n
        if unit.ships == 0:
            del ctx.state.nations[nation].units[ident]
    ctx.say(f"Battle at {zone}: {winner} wins. Losses: "
            + (", ".join(f"{n} {i} {k} ship{'s' if k != 1 else ''}" for n, i, k in losses) or "none") + ".",
            PUBLIC, "battle")
    if vp:
        ctx.change(winner, "vp", vp, f"the battle at {zone}", public=True)
    if not (own or enemy):
        return
    # keyed by the winner alone: the sea zone is the master's free text, and a spelling must not pick a die
    roll = ctx.roll("prizes", winner, "", f"prizes after the battle at {zone}")
    pct = ctx.tables["prizes"]["percent"][roll - 1]
    captured, damaged = enemy * pct // 100, own * pct // 100
    ctx.say(f"{winner} rolls {roll} for prizes: {pct} % of the losses come back — {captured} prizes and "
            f"{damaged} of its own damaged ships, bound for {port.name} ({zones} sea zones).", PUBLIC, "prizes")
    if captured + damaged:
        group = Prizes(ctx.state.new_id("P"), captured, damaged, port.name, zones, zone)
        ctx.state.nations[winner].prizes.append(group)
        if zones <= 0:
            _arrive(ctx, winner, group)


def friendly_port(ctx: Ctx, winner: str, text: str) -> Yard:
    """IV: the winner may "return these along with its own damaged ships to a friendly port for
    repair": a yard of the winner or of a minor it controls (where its REPAIR can take them). An
    enemy's port, or any other nation's, is refused."""
    if not text:
        raise Malformed("BATTLE: say to which of the winner's yards the prizes and damaged ships sail "
                        "(TO <port> ZONES <sea zones>)")
    yard = ctx.tables.yard(text)
    if not yard:
        raise Malformed(f"BATTLE: {text!r} is not a shipyard of the table (I); prizes and damaged ships go to "
                        f"a friendly yard for repair (IV)")
    holder = ctx.controller(yard.nation)
    if holder == winner:
        return yard
    if holder and ctx.state.at_war(holder, winner):
        raise Rejected(f"{yard.name} is an enemy port ({yard.nation}"
                       + (f", controlled by {holder}" if holder != yard.nation else "")
                       + f", at war with {winner}): prizes and damaged ships return only to a friendly port "
                       f"for repair (IV); name one of {winner}'s yards")
    raise Rejected(f"{yard.name} is a port of {yard.nation}, not of {winner}: prizes and damaged ships return to "
                   f"a friendly port for repair (IV), one of {winner}'s yards, where its REPAIR takes them")


def _arrive(ctx: Ctx, nation: str, group: Prizes) -> None:
    led = ctx.state.nations[nation]
    led.prizes.remove(group)
    led.damaged[group.to_port] = led.damaged.get(group.to_port, 0) + group.captured + group.damaged
    ctx.say(f"{group.captured + group.damaged} prizes and damaged ships of {nation} reach {group.to_port}; "
            f"they wait there for REPAIR.", [nation], "prizes")


def close_month(ctx: Ctx) -> None:
    """IV.B: "Prizes/damaged ships move 3 sea zones per turn." """
    step = ctx.tables["prizes"]["zones_per_month"]
    for nation, led in ctx.state.nations.items():
        for group in list(led.prizes):
            group.zones_left = max(0, group.zones_left - step)
            if group.zones_left == 0:
                _arrive(ctx, nation, group)


@command("COMBAT", STAGE_COMBAT, "COMBAT AT <zone> <nation> <id> [<id>...] [VENETIAN] VS <nation> <id> [...]",
         master=True)
def combat(ctx: Ctx, cmd: Command) -> None:
    """Each side's combat die with the supplement's modifiers: squadrons -1 and never the weather
    gauge (VI.B), Venice -1 (X); only units that started the month stacked fight as one (VII)."""
    from judge.eia.fleets import combined

    parts = split_at(cmd.words, "AT", "VS")
    if "VS" not in parts or not parts.get("AT"):
        raise Malformed("COMBAT AT <zone> <nation> <ids> VS <nation> <ids>")
    zone, *first = parts["AT"]
    for label, words in (("first", first), ("second", parts["VS"])):
        if len(words) < 2:
            raise Malformed(f"COMBAT: the {label} side needs a nation and its units")
        nation = ctx.ledger(words[0]).nation
        venetian = any(w.upper() == "VENETIAN" for w in words)
        units = [ctx.unit(nation, w.strip(",")) for w in words[1:] if w.upper() != "VENETIAN" and w.strip(",")]
        fleet, apart = combined(units, ctx.same_place)
        why: dict[str, int] = {}
        notes = []
        if all(u.kind == "squadron" for u in fleet):
            why["squadron"] = ctx.tables["squadrons"]["combat_modifier"]
            notes.append(f"squadron: {why['squadron']:+d}, may never have the weather gauge")
        if venetian:
            why["Venice"] = ctx.tables.nations["Venice"].combat_modifier
            notes.append(f"Venice: {why['Venice']:+d}")
        modifier = sum(why.values())
        roll = ctx.roll("combat", nation, "+".join(sorted(u.id for u in fleet)),
                        f"combat at {zone}: {nation} {'+'.join(u.id for u in fleet)}", 1, why)
        ctx.say(f"Combat at {zone}: {nation} {' + '.join(u.id for u in fleet)} ({sum(u.ships for u in fleet)} "
                f"ships) rolls {roll - modifier}" + (f", modified {roll} ({'; '.join(notes)})" if notes else "")
                + ".", PUBLIC, "combat")
        for u in apart:
            ctx.say(f"{nation} {u.id} did not start the month stacked with {fleet[0].id}: it does not count in "
                    f"this combat (VII); it may attack on its own.", PUBLIC, "combat")
