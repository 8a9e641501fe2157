"""The ``judge`` command: a thin CLI over the library.

Subcommands live beside the code they drive and are loaded lazily (``LAZY_COMMANDS``), so
``judge adjudicate`` does not import the mail stack.
"""

from __future__ import annotations

if __name__ == "__main__":  # ``python -m judge.cli`` is ``python -m judge`` (judge/__main__.py: the batch without click)
    import runpy

    runpy.run_module("judge", run_name="__main__")

import importlib
import json
import sys
from typing import Any

import click

#: subcommand name -> "module:attribute" of a click command, imported on first use
LAZY_COMMANDS: dict[str, str] = {
    "parse": "judge.orders.cli:parse",
    "serve": "judge.mail.cli:serve",
    "deliver": "judge.mail.cli:deliver",
    "game": "judge.mail.cli:game",
    "demo": "judge.mail.cli:demo",
    "status": "judge.mail.cli:status",
    "init": "judge.mail.cli:init",
    "upgrade": "judge.mail.cli:upgrade",
    "publish": "judge.game.cli:publish",
    "archive-games": "judge.game.cold_store:archive_games_command",
    "trim-outbox": "judge.mail.cli:trim_outbox",
    "eia": "judge.eia.cli:eia",
    "dice": "judge.eia.cli:dice",
}


class LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        """A store that another process holds locked past the busy timeout (or a full disk) is
        said in one line, not a traceback: the command changed nothing and may be run again."""
        try:
            return super().invoke(ctx)
        except Exception as exc:
            # sqlite3 is imported by the commands that open a store, not here: the batch
            # adjudicator never loads it (nor datetime with it); without it, no sqlite3 error
            sqlite3 = sys.modules.get("sqlite3")
            if sqlite3 is None or not isinstance(exc, sqlite3.Error):
                raise
            from judge.game.store import StoreLocked, describe_cause, transient_cause

            cause = transient_cause(exc)
            if cause is None:
                raise
            if isinstance(exc, StoreLocked):
                raise click.ClickException(str(exc)) from None
            raise click.ClickException(f"{describe_cause(cause)} ({exc}); nothing was changed, try again") from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            mod, _, attr = LAZY_COMMANDS[name].partition(":")
            return getattr(importlib.import_module(mod), attr)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup)
@click.version_option(package_name="judge")
def main() -> None:
    """A play-by-email Diplomacy judge."""


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise click.UsageError(f"--option takes NAME=VALUE, not {pair!r}")
        out[name.strip()] = value.strip()
    return out


@main.command()
@click.option("--variant", default=None, help="Variant name (seeds/<name>.toml); default: the position's.")
@click.option("--position", "position_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="Position JSON file ('-' for stdin).")
@click.option("--orders", "orders_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="Orders text file, one order per line ('-' for stdin).")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Rule option, e.g. convoy_paradox=1971 (repeatable).")
@click.option("--batch", "batch_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="JSON-lines file of cases {id, position, orders}; one JSON result per line.")
def adjudicate(variant: str | None, position_file: str | None, orders_file: str | None,
               options: tuple[str, ...], batch_file: str | None) -> None:
    """Adjudicate one phase and print the results and the next position as JSON."""
    from judge.adjudicate import InputError, run_phase, write_batch

    if batch_file:  # (``judge adjudicate --batch FILE`` alone does the same in judge/__main__.py)
        with click.open_file(batch_file, encoding="utf-8") as fh:
            write_batch(fh, sys.stdout.write)
        return
    if not position_file:
        raise click.UsageError("--position is required (or --batch)")
    try:
        with click.open_file(position_file, encoding="utf-8") as fh:
            position = json.load(fh)
        if orders_file:
            with click.open_file(orders_file, encoding="utf-8") as fh:
                orders = fh.read()
        else:
            orders = ""
        name = variant or position.get("variant") or "standard"
        res = run_phase(name, position, orders, parse_options(options))
    except (OSError, json.JSONDecodeError, InputError) as exc:
        click.echo(f"judge adjudicate: {exc}", err=True)
        sys.exit(2)
    click.echo(json.dumps(res, indent=2, ensure_ascii=False))


