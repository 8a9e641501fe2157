"""XVIII. Honours of war: before a field battle the defender may, if offered, surrender.
"This does not apply to Turks or Spanish within their home nations." """

from __future__ import annotations

from judge.eia.context import PUBLIC, STAGE_POLITICS, Command, Ctx, Rejected, command, split_at


@command("HONOURS", STAGE_POLITICS, "HONOURS <defender> TO <attacker> [AT <area>] [HOME]", master=True)
def honours(ctx: Ctx, cmd: Command) -> None:
    parts = split_at(cmd.words, "TO", "AT", "HOME")
    defender = ctx.nation_name(" ".join(parts[""]))
    attacker = ctx.nation_name(" ".join(parts.get("TO", ["?"])))
    area = " ".join(parts.get("AT", [])) or "the field"
    if "HOME" in parts and defender in ctx.tables["political"]["honours_excluded"]:
        raise Rejected(f"honours of war do not apply to {defender} within its home nation (XVIII)")
    ctx.say(f"Offered the honours of war, {defender} surrenders to {attacker} at {area} before the battle.",
            PUBLIC, "honours")
