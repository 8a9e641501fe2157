"""XII-XVII. Political points: surrender floor, Poland, the Papacy, the Continental System,
Egypt, European royalty; and the master's POINTS for everything the base game awards.

Every change goes into the nation's ledger with its reason."""

from __future__ import annotations

from judge.eia import calendar
from judge.eia.context import (MASTER, PUBLIC, STAGE_POLITICS, Command, Ctx, Malformed, Rejected, command,
                               number, split_at)


def _pol(ctx: Ctx) -> dict:
    return ctx.tables["political"]


@command("POINTS", STAGE_POLITICS, "POINTS <nation> <+n|-n> [VP] <reason>", master=True)
def points(ctx: Ctx, cmd: Command) -> None:
    if len(cmd.words) < 2:
        raise Malformed("POINTS <nation> <+n|-n> [VP] <reason>")
    nation = ctx.ledger(cmd.words[0]).nation
    delta = number(cmd.words[1], "POINTS", low=-1000)
    rest = cmd.words[2:]
    kind = "pp"
    if rest and rest[0].upper() in ("VP", "PP"):
        kind = rest[0].lower()
        rest = rest[1:]
    ctx.change(nation, kind, delta, " ".join(rest) or "the master's award", public=True)


@command("SURRENDER", STAGE_POLITICS, "SURRENDER <loser> TO <winner> KEEPS <n> [NOCAPITAL]", master=True)
def surrender(ctx: Ctx, cmd: Command) -> None:
    """XII.C: "A nation must always be left with at least two home nation provinces, including its
    capital, after the peace has been concluded." (XII.B: no corps need be inside its borders.)"""
    parts = split_at(cmd.words, "TO", "KEEPS")
    loser = ctx.nation_name(" ".join(parts[""]))
    winner = ctx.nation_name(" ".join(parts.get("TO", ["?"])))
    words = parts.get("KEEPS", [])
    if not words:
        raise Malformed("SURRENDER: say how many home nation provinces the loser KEEPS")
    keeps = number(words[0], "KEEPS", 0)
    capital = not any(w.upper() == "NOCAPITAL" for w in words)
    floor = _pol(ctx)["surrender_min_home_provinces"]
    if keeps < floor or not capital:
        raise Rejected(f"the peace must leave {loser} at least {floor} home nation provinces including its "
                       f"capital (XII.C)")
    if ctx.state.at_war(loser, winner):
        ctx.state.wars.remove(sorted([loser, winner]))
    ctx.say(f"{loser} surrenders to {winner}, keeping {keeps} home nation provinces and its capital. "
            f"Political points as per the chart (XII.A): the master enters them with POINTS.", PUBLIC, "politics")
    egypt_check(ctx)


@command("POLAND", STAGE_POLITICS, "POLAND CREATE <nation> | POLAND PARTITION <nation> [<nation>...]", master=True)
def poland(ctx: Ctx, cmd: Command) -> None:
    if len(cmd.words) < 2 or cmd.words[0].upper() not in ("CREATE", "PARTITION"):
        raise Malformed("POLAND CREATE <nation> | POLAND PARTITION <nation> [<nation>...]")
    pol = _pol(ctx)
    if cmd.words[0].upper() == "CREATE":
        if ctx.state.poland:
            raise Rejected(f"Poland already exists (created by {ctx.state.poland})")
        creator = ctx.ledger(cmd.words[1]).nation
        ctx.state.poland = creator
        for loser in pol["poland_losers"]:
            if loser in ctx.state.nations:
                ctx.change(loser, "pp", -pol["poland_loss"], f"Poland created by {creator} (XIII.A)", public=True)
        ctx.change(creator, "pp", pol["poland_creator_gain"], "created Poland (XIII.A)", public=True)
        return
    if not ctx.state.poland:
        raise Rejected("Poland does not exist; it cannot be partitioned")
    partitioners = [ctx.ledger(w.strip(",")).nation for w in cmd.words[1:] if w.strip(",")]
    ctx.state.poland = ""
    for nation in dict.fromkeys(partitioners):
        ctx.change(nation, "pp", pol["poland_partition_gain"], "partitioned Poland (XIII.B)", public=True)


@command("PAPACY", STAGE_POLITICS, "PAPACY <nation>|NONE", master=True)
def papacy(ctx: Ctx, cmd: Command) -> None:
    """XIV: who controls the Papacy (control marker, garrison, or corps in the area)."""
    who = " ".join(cmd.words)
    new = "" if who.upper() in ("", "NONE") else ctx.nation_name(who)
    old = ctx.state.papacy
    ctx.state.papacy = new
    ctx.say(f"The Papacy is {'controlled by ' + new if new else 'free'}.", PUBLIC, "politics")
    # the nations that pay for another's occupation (XIV's columns) are those that gain by regaining it
    catholic = {payer for costs in ctx.tables.papacy.values() for payer in costs}
    if new in catholic and old and old != new and new in ctx.state.nations:
        ctx.change(new, "pp", _pol(ctx)["papacy_regain_gain"], f"regained the Papacy from {old} (XIV)", public=True)


@command("CONTINENTAL", STAGE_POLITICS, "CONTINENTAL <nation> | CONTINENTAL MINOR <combination>", master=True)
def continental(ctx: Ctx, cmd: Command) -> None:
    """XV.A: each major power put under the Continental System: France +1, England -2;
    XV.B: a collection of minor nations: England -1."""
    if not cmd.words:
        raise Malformed("CONTINENTAL <nation> | CONTINENTAL MINOR <combination>")
    pol = _pol(ctx)
    if cmd.words[0].upper() == "MINOR":
        name = " ".join(cmd.words[1:])
        if not name:
            raise Malformed("CONTINENTAL MINOR <name of the combination>")
        gains, kind = pol["continental_minor"], "minor"
    else:
        name = ctx.ledger(" ".join(cmd.words)).nation
        if name in ("France", "England"):
            raise Rejected("France puts others under the Continental System; England cannot be put under it")
        gains, kind = pol["continental_major"], "major"
    if name in ctx.state.continental:
        raise Rejected(f"{name} is already under the Continental System")
    ctx.state.continental[name] = kind
    ctx.say(f"{name} is put under the Continental System: it may not trade with England (XV.A.2); it may "
            f"still trade in naval stores with England if it announces it (XV.A.3).", PUBLIC, "politics")
    for nation, delta in gains.items():
        if nation in ctx.state.nations:
            ctx.change(nation, "pp", delta, f"{name} under the Continental System (XV)", public=True)


@command("TRADE", STAGE_POLITICS, "TRADE STORES WITH England")
def trade(ctx: Ctx, cmd: Command) -> None:
    """XV.A.3: "A nation may, however, trade in naval stores with England but must announce this
    fact to all players." The judge makes the announcement."""
    words = [w.upper() for w in cmd.words]
    if words[:1] != ["STORES"] or "ENGLAND" not in words:
        raise Malformed("TRADE STORES WITH England")
    if cmd.nation == "England":
        raise Malformed("England trades with itself")
    under = " (under the Continental System, XV.A.3)" if cmd.nation in ctx.state.continental else ""
    ctx.say(f"{cmd.nation} trades in naval stores with England{under}.", PUBLIC, "politics")


@command("RENOUNCE", STAGE_POLITICS, "RENOUNCE <nation|combination> [FORCED]", master=True)
def renounce(ctx: Ctx, cmd: Command) -> None:
    """XV.C: England gains back what it lost for that nation; one under enforced peace conditions
    may not opt out (FORCED: a peace settlement makes it resume all trade with England)."""
    forced = bool(cmd.words) and cmd.words[-1].upper() == "FORCED"
    words = cmd.words[:-1] if forced else cmd.words
    key = next((k for k in ctx.state.continental if k.casefold() == " ".join(words).casefold()), None)
    if key is None:
        raise Rejected(f"{' '.join(words)!r} is not under the Continental System")
    if not forced and ctx.state.continental[key] == "major":
        until = ctx.state.peace.get("|".join(sorted([key, "France"])))
        if until and calendar.index(until) > calendar.index(ctx.state.month):
            raise Rejected(f"{key} is under enforced peace conditions and may not opt out (XV.C)")
    kind = ctx.state.continental.pop(key)
    gains = _pol(ctx)["continental_major" if kind == "major" else "continental_minor"]
    ctx.say(f"{key} {'is forced to resume' if forced else 'renounces the Continental System and resumes'} "
            f"trade with England.", PUBLIC, "politics")
    ctx.change("England", "pp", -gains["England"], f"{key} left the Continental System (XV.C)", public=True)


def egypt_check(ctx: Ctx) -> None:
    """XVI: Egypt in the hands of a nation at war with England: England -1 political point and 5
    money of overseas trade at the next collection; +1 victory point when it is free of the enemy."""
    owner = ctx.state.egypt
    hostile = bool(owner) and owner != "England" and ctx.state.at_war(owner, "England")
    pol = _pol(ctx)
    if hostile and not ctx.state.egypt_hostile:
        ctx.state.egypt_hostile = True
        ctx.change("England", "pp", pol["egypt_pp"], f"Egypt controlled by {owner}, at war with England (XVI.A)",
                   public=True)
        ctx.state.egypt_money_due += -pol["egypt_money"]
        ctx.say(f"England will lose {-pol['egypt_money']} money in overseas trade at the next collection (XVI.B).",
                PUBLIC, "politics")
    elif not hostile and ctx.state.egypt_hostile:
        ctx.state.egypt_hostile = False
        ctx.change("England", "vp", pol["egypt_vp"], "Egypt no longer under enemy control (XVI.C)", public=True)


@command("EGYPT", STAGE_POLITICS, "EGYPT <nation>|NONE", master=True)
def egypt(ctx: Ctx, cmd: Command) -> None:
    who = " ".join(cmd.words)
    ctx.state.egypt = "" if who.upper() in ("", "NONE") else ctx.nation_name(who)
    ctx.say(f"Egypt is {'controlled by ' + ctx.state.egypt if ctx.state.egypt else 'free'}.", PUBLIC, "politics")
    egypt_check(ctx)


@command("TSAR", STAGE_POLITICS, "TSAR VICTORY | TSAR DEFEAT", master=True)
def tsar(ctx: Ctx, cmd: Command) -> None:
    word = (cmd.words or [""])[0].upper()
    if word == "VICTORY":
        ctx.change("Russia", "pp", _pol(ctx)["tsar_victory_pp"], "the Tsar commanded a victory in land combat (XVII.B)",
                   public=True)
    elif word == "DEFEAT":
        ctx.state.tsar_released = True
        ctx.say("The Tsar was present at a defeat: he no longer need accompany the army into the field, "
                "although he may do so (XVII.A, C).", PUBLIC, "politics")
    else:
        raise Malformed("TSAR VICTORY | TSAR DEFEAT")


def economic_step(ctx: Ctx) -> None:
    """At the end of each Economic Phase: the Papacy's cost (XIV) and Egypt's lost trade (XVI.B)."""
    occupier = ctx.state.papacy
    for payer, cost in ctx.tables.papacy.get(occupier, {}).items():
        if cost and payer in ctx.state.nations:
            ctx.change(payer, "pp", -cost, f"the Papacy occupied by {occupier} (XIV)", public=True)
    if ctx.state.egypt_money_due:
        due = min(ctx.state.egypt_money_due, ctx.state.nations["England"].money)
        ctx.state.egypt_money_due = 0
        if due:
            ctx.change("England", "money", -due, "overseas trade lost to the enemy in Egypt (XVI.B)", public=True)


def close_month(ctx: Ctx) -> None:
    month = ctx.state.month
    if calendar.is_economic(month, ctx.tables.economic_first, ctx.tables.economic_every):
        ctx.say(f"Economic step closing {calendar.title(month)}.", PUBLIC, "economic")
        economic_step(ctx)
    for nation in ctx.state.nations:
        if any(nation in pair for pair in ctx.state.wars):
            # XVII.A's exception is the Tsar alone: the rest of Russia's royal house still must command
            if nation == "Russia" and ctx.state.tsar_released:
                ctx.say("Russia is at war: every member of its royal house other than the Tsar MUST hold a field "
                        "command (XVII.A); the Tsar, present at a defeat, may elect not to (XVII.C).",
                        [nation], "royalty")
                continue
            ctx.say(f"{nation} is at war: every member of its royal house MUST hold a field command (XVII.A).",
                    [nation], "royalty")
    for question in ctx.state.casus:
        ctx.say(f"Casus belli awaiting your ruling: {question['by']} against {question['against']}: "
                f"{question['reason']} (CASUS {question['by']} {question['against']} GRANT|REFUSE).", MASTER, "casus")
