"""The AFA modifications 2-5: English militia, ceding home provinces, loans, casus belli.
(AFA 1, England's 80 ships, is the opening ledger: judge.eia.state.new_game.)"""

from __future__ import annotations

from judge.eia.context import (MASTER, PUBLIC, STAGE_POLITICS, STAGE_SETUP, STAGE_TREASURY, Command, Ctx,
                               Malformed, Rejected, command, number, split_at)


@command("INVASION", STAGE_SETUP, "INVASION START | INVASION END", master=True)
def invasion(ctx: Ctx, cmd: Command) -> None:
    """2.B: a landing in England or Ireland raises 15 more militia factors; they "go away" when no
    enemy is left in the British Isles and return at full strength at the next invasion."""
    word = (cmd.words or [""])[0].upper()
    extra = ctx.tables["afa"]["militia_invasion"]
    england = ctx.state.nations["England"]
    if word == "START":
        if ctx.state.invaded:
            raise Rejected("England is already invaded")
        ctx.state.invaded = True
        england.militia += extra
        ctx.say(f"England is invaded: {extra} more militia factors may be placed anywhere in England, including "
                f"where the enemy landed (AFA 2.B). Militia now {england.militia}; the {england.militia - extra} "
                f"permanent factors may now leave the British Isles (2.A).", PUBLIC, "militia")
    elif word == "END":
        if not ctx.state.invaded:
            raise Rejected("England is not invaded")
        ctx.state.invaded = False
        england.militia = max(0, england.militia - extra)
        ctx.say(f"No enemy is left in the British Isles: the {extra} invasion militia factors go away (AFA 2.B).",
                PUBLIC, "militia")
    else:
        raise Malformed("INVASION START | INVASION END")


@command("LOAN", STAGE_TREASURY, "LOAN <n> TO <nation>")
def loan(ctx: Ctx, cmd: Command) -> None:
    """4: "Money may be loaned to anyone. The two nations do not have to be allied." """
    parts = split_at(cmd.words, "TO")
    n = number((parts[""] or [""])[0], "LOAN: money", 1)
    to = ctx.ledger(" ".join(parts.get("TO", ["?"]))).nation
    if to == cmd.nation:
        raise Malformed("a nation cannot lend to itself")
    ctx.afford(cmd.nation, n, 0, f"a loan of {n}")
    ctx.change(cmd.nation, "money", -n, f"loan to {to}")
    ctx.change(to, "money", n, f"loan from {cmd.nation}")


@command("CEDE", STAGE_POLITICS, "CEDE <province> TO <nation>")
def cede(ctx: Ctx, cmd: Command) -> None:
    """3: "Home nation provinces may be ceded while at peace during any ceding step. The nations
    concerned do not have to be allied." """
    parts = split_at(cmd.words, "TO")
    province = " ".join(parts[""])
    to = ctx.ledger(" ".join(parts.get("TO", ["?"]))).nation
    if not province or to == cmd.nation:
        raise Malformed("CEDE <province> TO <another nation>")
    if ctx.state.at_war(cmd.nation, to):
        raise Rejected(f"{cmd.nation} and {to} are at war; provinces are ceded while at peace (AFA 3)")
    ctx.state.nations[cmd.nation].provinces_ceded.append(f"{province} to {to}")
    ctx.say(f"{cmd.nation} cedes {province} to {to}.", PUBLIC, "politics")


@command("CASUS", STAGE_POLITICS, "CASUS AGAINST <nation> <reason>  (players) / CASUS <a> <b> GRANT|REFUSE (master)")
def casus(ctx: Ctx, cmd: Command) -> None:
    """5: a reason to break an enforced peace, "used only with the approval of the instructor"."""
    if cmd.nation == MASTER:
        if len(cmd.words) != 3 or cmd.words[2].upper() not in ("GRANT", "REFUSE"):
            raise Malformed("CASUS <nation> <against> GRANT|REFUSE")
        by, against = ctx.nation_name(cmd.words[0]), ctx.nation_name(cmd.words[1])
        match = [q for q in ctx.state.casus if q["by"] == by and q["against"] == against]
        if not match:
            raise Rejected(f"{by} has put no casus belli against {against}")
        ctx.state.casus.remove(match[0])
        if cmd.words[2].upper() == "GRANT":
            ctx.state.peace.pop("|".join(sorted([by, against])), None)
            ctx.say(f"The master grants {by} a casus belli against {against}: the enforced peace may be broken.",
                    PUBLIC, "casus")
        else:
            ctx.say(f"The master refuses {by}'s casus belli against {against}.", [by], "casus")
        return
    parts = split_at(cmd.words, "AGAINST")
    words = parts.get("AGAINST", [])
    if not words:
        raise Malformed("CASUS AGAINST <nation> <reason>")
    against = ctx.nation_name(words[0])
    reason = " ".join(words[1:])
    if not reason:
        raise Malformed("CASUS: give the reason for the master to rule on")
    ctx.state.casus.append({"by": cmd.nation, "against": against, "reason": reason, "month": ctx.state.month})
    ctx.say(f"Your casus belli against {against} is put to the master.", [cmd.nation], "casus")
