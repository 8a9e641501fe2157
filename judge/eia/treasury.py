"""The master's bookkeeping of the base game: money, manpower, ships, control of minors, war and
peace, fleet admirals. The base game's own rules decide these; the clerk records them."""

from __future__ import annotations

from judge.eia import calendar
from judge.eia.context import Malformed, STAGE_SETUP, Command, Ctx, Rejected, command, number, split_at
from judge.eia.state import Entry


def _amount(ctx: Ctx, cmd: Command, kind: str) -> None:
    if len(cmd.words) < 2:
        raise Malformed(f"{cmd.verb} <nation> <+n|-n> <reason>")
    nation = ctx.ledger(cmd.words[0]).nation
    delta = number(cmd.words[1], f"{cmd.verb}: the change", low=-10**6)
    reason = " ".join(cmd.words[2:]) or "the master's entry"
    if kind in ("money", "manpower") and getattr(ctx.state.nations[nation], kind) + delta < 0:
        raise Rejected(f"{nation} would have less than no {kind}")
    ctx.change(nation, kind, delta, reason)


@command("MONEY", STAGE_SETUP, "MONEY <nation> <+n|-n> <reason>", master=True)
def money(ctx: Ctx, cmd: Command) -> None:
    _amount(ctx, cmd, "money")


@command("MANPOWER", STAGE_SETUP, "MANPOWER <nation> <+n|-n> <reason>", master=True)
def manpower(ctx: Ctx, cmd: Command) -> None:
    _amount(ctx, cmd, "manpower")


@command("SHIPS", STAGE_SETUP, "SHIPS <nation> <port> <+n|-n>", master=True)
def ships(ctx: Ctx, cmd: Command) -> None:
    """Ships laid up in port, as the base game's set-up or events leave them."""
    if len(cmd.words) < 3:
        raise Malformed("SHIPS <nation> <port> <+n|-n>")
    led = ctx.ledger(cmd.words[0])
    delta = number(cmd.words[-1], "SHIPS: the change", low=-10**6)
    port = ctx.place(" ".join(cmd.words[1:-1]))
    if led.docked.get(port, 0) + delta < 0:
        raise Rejected(f"{led.nation} has {led.docked.get(port, 0)} ships laid up at {port}")
    led.docked[port] = led.docked.get(port, 0) + delta
    if not led.docked[port]:
        del led.docked[port]
    led.history.append(Entry(ctx.state.month, "ships", delta, f"at {port}: the master's entry"))
    ctx.say(f"{led.nation}: {delta:+d} ships laid up at {port}.", [led.nation], "ships")


@command("CONTROL", STAGE_SETUP, "CONTROL <minor> BY <nation>|NONE", master=True)
def control(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "BY")
    minor = ctx.nation_name(" ".join(parts[""]))
    if minor in ctx.state.nations:
        raise Rejected(f"{minor} is a major power")
    who = " ".join(parts.get("BY", ["NONE"]))
    ctx.state.control[minor] = "" if who.upper() == "NONE" else ctx.ledger(who).nation
    ctx.say(f"{minor} is now {'uncontrolled' if not ctx.state.control[minor] else 'controlled by ' + ctx.state.control[minor]}.",
            "all", "politics")


def _pair(ctx: Ctx, cmd: Command) -> tuple[str, str]:
    words = [w for w in cmd.words if w.upper() not in ("AND", "WITH", "ON")]
    nums = [i for i, w in enumerate(words) if w.upper() == "MONTHS"]
    words = words[:nums[0]] if nums else words
    if len(words) != 2:
        raise Malformed(f"{cmd.verb} <nation> <nation>")
    a, b = (ctx.nation_name(w) for w in words)
    if a == b:
        raise Malformed("name two different nations")
    return a, b


@command("WAR", STAGE_SETUP, "WAR <nation> <nation>", master=True)
def war(ctx: Ctx, cmd: Command) -> None:
    from judge.eia.politics import egypt_check

    a, b = _pair(ctx, cmd)
    key = "|".join(sorted([a, b]))
    until = ctx.state.peace.get(key)
    if until and calendar.index(until) > calendar.index(ctx.state.month):
        raise Rejected(f"{a} and {b} are under an enforced peace until {calendar.title(until)}; "
                       f"only a casus belli granted by the master breaks it (AFA 5)")
    ctx.state.peace.pop(key, None)
    if not ctx.state.at_war(a, b):
        ctx.state.wars.append(sorted([a, b]))
    ctx.say(f"{a} and {b} are at war.", "all", "politics")
    egypt_check(ctx)


@command("PEACE", STAGE_SETUP, "PEACE <nation> <nation> [MONTHS <n>]", master=True)
def peace(ctx: Ctx, cmd: Command) -> None:
    from judge.eia.politics import egypt_check

    a, b = _pair(ctx, cmd)
    parts = split_at(cmd.words, "MONTHS")
    months = number(parts["MONTHS"][0], "PEACE: months", 1) if parts.get("MONTHS") else 0
    if ctx.state.at_war(a, b):
        ctx.state.wars.remove(sorted([a, b]))
    if months:
        ctx.state.peace["|".join(sorted([a, b]))] = calendar.add(ctx.state.month, months)
    ctx.say(f"Peace between {a} and {b}" + (f", enforced for {months} months." if months else "."), "all",
            "politics")
    egypt_check(ctx)


@command("ADMIRAL", STAGE_SETUP, "ADMIRAL <nation> AT <port> | ADMIRAL <nation> LEAVES <port>", master=True)
def admiral(ctx: Ctx, cmd: Command) -> None:
    """Where each nation's fleet admirals are: VIII's +2 to leave that port."""
    parts = split_at(cmd.words, "AT", "LEAVES")
    led = ctx.ledger(" ".join(parts[""]))
    port = ctx.place(" ".join(parts.get("AT") or parts.get("LEAVES") or []))
    if ("AT" in parts or "LEAVES" in parts) and not port:
        raise Malformed("ADMIRAL: name the port (ADMIRAL <nation> AT <port>)")
    if "AT" in parts:
        # one canonical name (VIII's +2 is found by the port's name, whichever spelling the master used)
        led.admirals.append(port)
        ctx.say(f"A {led.nation} fleet admiral is at {port}.", [led.nation], "admiral")
    elif "LEAVES" in parts:
        match = [p for p in led.admirals if ctx.same_place(p, port)]
        if not match:
            raise Rejected(f"no {led.nation} admiral is at {port}")
        led.admirals.remove(match[0])
        ctx.say(f"The {led.nation} fleet admiral leaves {port}.", [led.nation], "admiral")
    else:
        raise Malformed("ADMIRAL <nation> AT <port> or ADMIRAL <nation> LEAVES <port>")


