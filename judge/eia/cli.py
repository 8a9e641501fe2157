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
              help="JSON: a list of rolls, a step's output, or a list of step outputs.")
@click.option("--commitment", default=None, help="SHA-256 published at game start (checked if given).")
def verify(game: str, secret_hex: str, rolls_file: str, commitment: str | None) -> None:
    """Re-derive every published roll from the revealed secret; exit 1 if any differs."""
    from judge.eia.dice import DiceError, is_withheld, verify as check

    try:
        with click.open_file(rolls_file, encoding="utf-8") as fh:
            data = json.load(fh)
        rolls = collect_rolls(data)
        problems = check(game, secret_hex, rolls, commitment)
    except (OSError, json.JSONDecodeError, DiceError, ValueError) as exc:
        click.echo(f"judge dice verify: {exc}", err=True)
        sys.exit(2)
    for p in problems:
        click.echo(p)
    withheld = sum(1 for r in rolls if isinstance(r, dict) and is_withheld(r))
    if withheld:
        click.echo(f"{withheld} sealed roll(s) published without their dice: numbered but not compared "
                   f"(ask ROLLS again once the secret is revealed)")
    click.echo(f"{len(rolls)} rolls checked: " + ("all match" if not problems else f"{len(problems)} problem(s)"))
    sys.exit(1 if problems else 0)


def collect_rolls(data: object) -> list[dict]:
    if isinstance(data, dict):
        if "rolls" not in data:
            raise ValueError("expected rolls: a list, or an object with a 'rolls' list")
        return list(data["rolls"])
    if isinstance(data, list):
        out: list[dict] = []
        for item in data:
            out.extend(collect_rolls(item) if isinstance(item, dict) and "rolls" in item else [item])
        return out
    raise ValueError("expected rolls: a list, or an object with a 'rolls' list")
