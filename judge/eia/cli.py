"""``judge eia new|step`` and ``judge dice verify``: thin commands over judge.eia."""

from __future__ import annotations

import json
import sys

import click


@click.group()
def eia() -> None:
    """Empires in Arms by mail (the AFA naval supplement): the games master's clerk."""


@eia.command()
@click.option("--game", required=True, help="The game's name (part of every roll's message).")
@click.option("--secret", "secret_hex", default=None, help="The dice secret in hex (default: a new one, "
              "printed on stderr; keep it to step the game).")
@click.option("--start", default=None, help="First month, YYYY-MM (default: the supplement data's).")
def new(game: str, secret_hex: str | None, start: str | None) -> None:
    """Print the opening state (with the dice commitment) as JSON."""
    from judge.eia import dice
    from judge.eia.data import load_tables
    from judge.eia.state import new_game, to_json

    if secret_hex is None:
        secret_hex = dice.new_secret()
        click.echo(f"secret: {secret_hex}", err=True)
    try:
        state = new_game(load_tables(), game, secret_hex, start)
    except (dice.DiceError, ValueError) as exc:
        click.echo(f"judge eia new: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(to_json(state), indent=2, ensure_ascii=False))


@eia.command()
@click.option("--state", "state_file", required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--commands", "commands_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="One command a line: 'Nation: VERB ...' ('Master: ...' for the games master).")
@click.option("--secret", "secret_hex", required=True, help="The game's dice secret (hex).")
def step(state_file: str, commands_file: str | None, secret_hex: str) -> None:
    """Step one month; print {month, events, rolls, announcements, state} as JSON."""
    from judge.eia.step import StepError, step as run

    try:
        with click.open_file(state_file, encoding="utf-8") as fh:
            state = json.load(fh)
        commands = ""
        if commands_file:
            with click.open_file(commands_file, encoding="utf-8") as fh:
                commands = fh.read()
        out = run(state, commands, secret_hex)
    except (OSError, json.JSONDecodeError, StepError) as exc:
        click.echo(f"judge eia step: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(out, indent=2, ensure_ascii=False))


@click.group()
def dice() -> None:
    """Verifiable dice."""


@dice.command()
@click.option("--game", required=True)
@click.option("--secret", "secret_hex", required=True, help="The secret revealed by the judge (hex).")
@click.option("--rolls", "rolls_file", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="JSON: a list of rolls, a step's output, a list of step outputs, or ROLLS' answer.")
@click.option("--commitment", default=None, help="SHA-256 published at game start (required but with "
              "--consistency-only).")
@click.option("--gazette", "gazettes", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="A month's gazette as mailed (repeatable): its printed roll count, digest and commands hash "
                   "are checked against the rolls.")
@click.option("--consistency-only", is_flag=True, help="Check only that the rolls agree with this secret and with "
              "each other, without the commitment (a made-up secret with made-up rolls would pass).")
def verify(game: str, secret_hex: str, rolls_file: str, commitment: str | None, gazettes: tuple[str, ...],
           consistency_only: bool) -> None:
    """Re-derive every published roll from the revealed secret; exit 1 if anything differs."""
    from judge.eia.data import load_tables
    from judge.eia.dice import DiceError, rule_figures, verify as check

    if commitment is None and not consistency_only:
        click.echo("judge dice verify: give --commitment, the SHA-256 published at game start: without it any secret "
                   "with rolls made from it would pass. To check only that the rolls agree with this secret, add "
                   "--consistency-only.", err=True)
        sys.exit(2)
    try:
        with click.open_file(rolls_file, encoding="utf-8") as fh:
            data = json.load(fh)
        rolls, anchors = collect(data)
        conflicts: list[str] = []
        for path in gazettes:
            with open(path, encoding="utf-8") as fh:
                conflicts += merge_anchors(anchors, gazette_anchors(fh.read(), path))
        problems = conflicts + check(game, secret_hex, rolls, commitment, anchors, rule_figures(load_tables().raw),
                                     need_anchors=not consistency_only)
    except (OSError, json.JSONDecodeError, DiceError, ValueError) as exc:
        click.echo(f"judge dice verify: {exc}", err=True)
        sys.exit(2)
    if consistency_only:
        click.echo("WARNING: consistency only: the secret was not checked against the game's commitment"
                   + ("" if commitment is None else " (it was: --commitment given)") +
                   ", and a month without its printed roll count is not checked for rolls left out at its end.")
    for p in problems:
        click.echo(p)
    click.echo(f"{len(rolls)} rolls checked in {len({str(r.get('month')) for r in rolls if isinstance(r, dict)})} "
               f"month(s): " + ("all match" if not problems else f"{len(problems)} problem(s)"))
    sys.exit(1 if problems else 0)


def collect(data: object) -> tuple[list[dict], dict]:
    """The rolls in ``data`` and each month's anchor (roll count, digest, commands hash) when the data
    holds step outputs or ROLLS' month records."""
    from judge.eia.dice import Anchor

    rolls: list[dict] = []
    anchors: dict[str, Anchor] = {}

    def take(item: object) -> None:
        if isinstance(item, dict) and "rolls" in item:
            if not isinstance(item["rolls"], list):
                raise ValueError("'rolls' must be a list")
            rolls.extend(item["rolls"])
            if "roll_count" in item and "month" in item:
                anchors.update({str(item["month"]): Anchor(
                    int(item["roll_count"]), item.get("rolls_digest"), item.get("commands_hash"),
                    item.get("commands"), f"the record of {item['month']}")})
        elif isinstance(item, list):
            for sub in item:
                if isinstance(sub, list) or (isinstance(sub, dict) and "rolls" in sub):
                    take(sub)
                else:
                    rolls.append(sub)
        else:
            raise ValueError("expected rolls: a list, or an object with a 'rolls' list")

    take(data)
    return rolls, anchors


def gazette_anchors(text: str, where: str = "the gazette") -> dict:
    """The lines a gazette prints for verify: ``Dice of YYYY-MM: N rolls, digest HEX`` and ``Commands of
    YYYY-MM committed: HEX`` (mail may have wrapped them: spaces do not matter)."""
    import re

    from judge.eia.dice import Anchor

    flat = " ".join(text.split())
    out: dict[str, Anchor] = {}
    for month, count, digest in re.findall(r"Dice of (\d{4}-\d{2}): (\d+) rolls?, digest ([0-9a-f]{64})", flat):
        out.setdefault(month, Anchor(source=f"the gazette {where}"))
        out[month].roll_count, out[month].rolls_digest = int(count), digest
    for month, digest in re.findall(r"Commands of (\d{4}-\d{2}) committed: ([0-9a-f]{64})", flat):
        out.setdefault(month, Anchor(source=f"the gazette {where}")).commands_hash = digest
    if not out:
        raise ValueError(f"{where}: no 'Dice of <month>: <n> rolls, digest <hex>' line: not an EiA gazette")
    return out


def merge_anchors(into: dict, more: dict) -> list[str]:
    """Add ``more``'s anchors (a gazette's), which win over the record's; every figure the two print
    differently is a problem (the record was changed after the gazette went out)."""
    problems = []
    for month, a in more.items():
        have = into.get(month)
        if have is None:
            into[month] = a
            continue
        for name in ("roll_count", "rolls_digest", "commands_hash"):
            mine, theirs = getattr(have, name), getattr(a, name)
            if mine is not None and theirs is not None and mine != theirs:
                problems.append(f"{month}: {have.source} gives {name} {mine}, {a.source} printed {theirs}")
            if theirs is not None:
                setattr(have, name, theirs)
        have.source = a.source
    return problems
