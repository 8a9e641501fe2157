"""``judge parse``: order text on stdin → one JSON object per order found.

    judge parse --variant standard --position POS.json [--power England] < orders.txt

Each entry is ``{"line", "power", "order"}`` (the canonical order) or ``{"line", "power"?,
"error", "suggestions"}``, with ``"warnings"`` when there are any. Unlike ``judge adjudicate``
it reports the engine's verdict on each order too ("the army in Belgium can't reach London"),
unless ``--no-check``. Exit status 2 when the position or the options cannot be read.
"""

from __future__ import annotations

import json
import sys

import click

from judge.cli import parse_options


@click.command()
@click.option("--variant", default=None, help="Variant name (seeds/<name>.toml); default: the position's.")
@click.option("--position", "position_file", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Position JSON file, as for 'judge adjudicate'.")
@click.option("--power", default=None, help="Read as this power's orders: other powers' units are errors.")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="Rule option, e.g. modules=army_fleet (repeatable).")
@click.option("--check/--no-check", default=True, show_default=True,
              help="Also report orders the adjudicator would refuse as illegal.")
def parse(variant: str | None, position_file: str, power: str | None, options: tuple[str, ...], check: bool) -> None:
    """Read free-form orders from stdin and print what the judge understood, as JSON."""
    from judge.engine import read_position
    from judge.engine.position import PositionError
    from judge.orders import parse_orders
    from judge.rules import RuleError, merge_rules
    from judge.variant import VariantError, load_variant

    try:
        with click.open_file(position_file, encoding="utf-8") as fh:
            position = json.load(fh)
        if not isinstance(position, dict):
            raise PositionError("position must be a JSON object")
        v = load_variant(variant or position.get("variant") or "standard")
        rules = merge_rules(v.rules, parse_options(options))
        v = v.with_rules(rules)  # the calendar the game plays, as ``judge adjudicate`` reads it
        pos = read_position(position, v, rules)
        if power is not None and v.power(power) is None:
            raise click.UsageError(f"unknown power {power!r} (powers: {', '.join(v.powers)})")
    except (OSError, json.JSONDecodeError, VariantError, PositionError, RuleError) as exc:
        click.echo(f"judge parse: {exc}", err=True)
        sys.exit(2)
    lines = parse_orders(sys.stdin.read(), pos, power, check=check, rules=rules)
    click.echo(json.dumps([p.as_json() for p in lines], indent=2, ensure_ascii=False))
