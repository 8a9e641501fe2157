"""III. Naval stores: denied sources (+1/3), shipments intercepted by England (1-3), stock per yard.

Rulings (docs/variants/eia.md §III): one ship's naval stores cost what the table charges to build
it; a nation that is itself a source (Russia, Sweden) ships nothing; a shipment is one roll.
"""

from __future__ import annotations

import math

from judge.eia.context import Malformed, STAGE_SETUP, STAGE_YARDS, Command, Ctx, Rejected, command, number, split_at
from judge.eia.data import Yard


def sources(ctx: Ctx) -> dict[str, list[str]]:
    return ctx.tables["stores"]["sources"]


def source_denied(ctx: Ctx, source: str, nation: str) -> bool:
    """A source is denied to ``nation`` when every owner able to trade refuses it.

    "If Sweden is neutral and not controlled by a major power, it trades with everyone": an
    uncontrolled Sweden keeps the Baltic open whatever Russia does."""
    owners = sources(ctx)[source]
    if any(ctx.controller(owner) == nation for owner in owners):
        return False                       # never denied its own source (or a controlled minor's)
    for owner in owners:
        if owner not in ctx.state.nations and not ctx.state.control.get(owner):
            return False
        if [owner, nation] not in ctx.state.denied:
            return False
    return True


def denied_to(ctx: Ctx, nation: str) -> list[str]:
    return [s for s in sources(ctx) if source_denied(ctx, s, nation)]


def surcharged(ctx: Ctx, nation: str, cost: int) -> int:
    """III.A: "the cost to construct or repair ships increases by 1/3 (round up)" (per ship)."""
    if not denied_to(ctx, nation):
        return cost
    num, den = ctx.tables["stores"]["denied_surcharge"]
    return cost + math.ceil(cost * num / den)


def ships_stores(ctx: Ctx, nation: str) -> bool:
    """Whether ``nation``'s stores come by sea (a Baltic source nation needs no shipment)."""
    info = ctx.tables.nations.get(nation)
    return not (info and info.stores_source)


def shipment(ctx: Ctx, payer: str, yard_nation: str, cost: int, what: str, yard: str) -> bool:
    """III.B: roll for a shipment of a nation at war with England. True if the stores arrive.

    On 1-3 "1/2 the cost of construction (round up) is given to England and the remainder is
    returned to the treasury of the losing nation": the payer loses half, England gains it."""
    if cost <= 0 or not ctx.at_war_with_england(payer) or not ships_stores(ctx, yard_nation):
        return True
    # the public roll and notices name the yard, never the ships or the money: I.C lets the
    # builder announce its number only to within 5, and II keeps a contract secret
    roll = ctx.roll("stores shipment", payer, yard, f"naval stores shipped by {payer} to {yard}")
    if roll not in ctx.tables["stores"]["intercept_on"]:
        ctx.say(f"Your naval stores for {what} slip past the Royal Navy (roll {roll}).", [payer], "stores")
        return True
    num, den = ctx.tables["stores"]["intercept_share"]
    lost = math.ceil(cost * num / den)
    ctx.pay(payer, lost, 0, f"naval stores for {what} intercepted by England")
    ctx.change("England", "money", lost, f"{payer}'s naval stores for {yard} intercepted")
    ctx.say(f"England intercepts {payer}'s naval stores for {what} (roll {roll}): {lost} of {cost} "
            f"money to England, {cost - lost} back to your treasury.", [payer], "interception")
    ctx.say(f"England intercepts {payer}'s naval stores bound for {yard} (roll {roll}).", "all", "interception")
    return False


def yard_for(ctx: Ctx, cmd: Command, text: str) -> Yard:
    yard = ctx.tables.yard(text)
    if not yard:
        raise Malformed(f"{text!r} is not a shipyard of the table (I)")
    if ctx.controller(yard.nation) != cmd.nation and cmd.nation != "Master":
        # a major power's yard is never another's; a minor's changes hands with CONTROL
        error = Malformed if yard.nation in ctx.state.nations else Rejected
        raise error(f"{yard.name} is a yard of {yard.nation}; {cmd.nation} does not control {yard.nation}")
    return yard


def count_at_yard(ctx: Ctx, cmd: Command, what: str) -> tuple[int, Yard]:
    """``<n> AT <yard>`` (BUILD, REPAIR, STORES): the number and a yard the sender controls."""
    parts = split_at(cmd.words, "AT")
    n = number((parts[""] or [""])[0], f"{cmd.verb}: how many {what}", 1)
    return n, yard_for(ctx, cmd, " ".join(parts.get("AT", [])))


@command("STORES", STAGE_YARDS, "STORES <n> AT <yard>")
def stores(ctx: Ctx, cmd: Command) -> None:
    """III.C: stock up to ``[stores] stock_fraction`` (1/4) of the yard's capacity (round up), paid as one
    ship's stores each."""
    n, yard = count_at_yard(ctx, cmd, "ships' stores")
    builder = ctx.controller(yard.nation)
    led = ctx.ledger(builder)
    have = led.stores.get(yard.name, 0)
    cap = ctx.tables.stock_cap(yard)
    if have + n > cap:
        num, den = ctx.tables["stores"]["stock_fraction"]
        raise Rejected(f"{yard.name} may hold naval stores for {cap} ships ({num}/{den} of {yard.max}, "
                       f"rounded up); it holds {have}")
    each = surcharged(ctx, builder, ctx.tables.nations[yard.nation].cost[0])
    cost = each * n
    what = f"naval stores for {n} ships at {yard.name}"
    ctx.afford(builder, cost, 0, what)
    if not shipment(ctx, builder, yard.nation, cost, f"{n} ships at {yard.name}", yard.name):
        return
    ctx.pay(builder, cost, 0, what)
    led.stores[yard.name] = have + n
    ctx.say(f"{builder} stocks naval stores for {n} ships at {yard.name} ({have + n} there).", [builder])


def _deny(ctx: Ctx, cmd: Command, deny: bool) -> None:
    parts = split_at(cmd.words, "TO", "FOR")
    target = ctx.nation_name(" ".join(parts.get("TO") or parts[""] or ["?"]))
    owner = ctx.nation_name(" ".join(parts["FOR"])) if "FOR" in parts else cmd.nation
    if cmd.nation != "Master" and ctx.controller(owner) != cmd.nation:
        raise Rejected(f"{cmd.nation} does not control {owner}")
    if not any(owner in owners for owners in sources(ctx).values()):
        raise Rejected(f"{owner} owns no source of naval stores (the Baltic: Sweden and Russia; America: England)")
    pair = [owner, target]
    if deny and pair not in ctx.state.denied:
        ctx.state.denied.append(pair)
    if not deny and pair in ctx.state.denied:
        ctx.state.denied.remove(pair)
    now = denied_to(ctx, target)
    num, den = ctx.tables["stores"]["denied_surcharge"]
    ctx.say(f"{owner} {'denies' if deny else 'opens'} its naval stores to {target}"
            + (f"; {target} pays {num}/{den} more for ships ({', '.join(now)} denied)." if now else "."), "all",
            "stores")


@command("DENY", STAGE_SETUP, "DENY STORES TO <nation> [FOR <Sweden>]")
def deny(ctx: Ctx, cmd: Command) -> None:
    if cmd.words and cmd.words[0].upper() == "STORES":
        cmd.words = cmd.words[1:]
    _deny(ctx, cmd, True)


@command("ALLOW", STAGE_SETUP, "ALLOW STORES TO <nation> [FOR <Sweden>]")
def allow(ctx: Ctx, cmd: Command) -> None:
    if cmd.words and cmd.words[0].upper() == "STORES":
        cmd.words = cmd.words[1:]
    _deny(ctx, cmd, False)
