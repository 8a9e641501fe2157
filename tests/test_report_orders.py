"""How orders, results and the centre chart read in the report."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from judge.adjudicate import parse_orders
from judge.engine import Position, adjudicate
from judge.render.zine import GameInfo, render_results
from judge.render.view import format_deadline
from judge.variant import available_variants, load_variant


def play(variant: str, position: dict, orders: str, game: GameInfo | None = None):
    v = load_variant(variant)
    pos = Position.from_json({"variant": variant, **position}, v)
    parsed = parse_orders(orders, pos)
    assert all(p.order for p in parsed), [p.error for p in parsed]
    result = adjudicate(pos, [p.order for p in parsed])
    return render_results(v, pos, result, game or GameInfo("t"), pictures=False), result


def test_foreign_units_named_by_adjective_and_tags() -> None:
    rep, _ = play("standard", {"phase": "Spring 1901 Movement",
                               "units": {"France": ["A Bur", "A Pic"], "Germany": ["A Mun", "A Ruh"],
                                         "England": ["A Bel"]}},
                  "Germany: A Ruh S French A Bur - Bel\nFrance: A Bur - Bel\nFrance: A Pic S A Bur - Bel\n"
                  "Germany: A Mun - Bur\nEngland: A Bel - Ruh")
    text = " ".join(rep.text.split())
    assert "A Ruhr S French A Burgundy - Belgium, A Munich - Burgundy." in text  # not cut from Belgium
    assert "A Belgium - Ruhr (bounced, dislodged)" in text
    assert "Dislodged: A Belgium, may retreat to Holland." in text


def test_centre_chart_gains_losses_and_builds() -> None:
    rep, _ = play("standard", {"phase": "Fall 1901 Movement",
                               "units": {"England": ["F Nth", "A Yor", "F Lon"], "Germany": ["A Kie"]},
                               "centers": {"England": ["Lon", "Edi", "Lvp"], "Germany": ["Hol", "Kie"]}},
                  "England: A Yor - Hol via convoy\nEngland: F Nth C A Yor - Hol\nGermany: A Kie H")
    text = " ".join(rep.text.split())
    assert "A Yorkshire - Holland via convoy, F North Sea C A Yorkshire - Holland, F London H (no order)." in text
    assert "England: Edinburgh, Holland, Liverpool, London (4; gains Holland). 3 units: builds 1." in text
    assert "Germany: Kiel (1; loses Holland). 1 unit: no change." in text
    assert "Unowned: Ankara, Belgium," in text


def test_adjustment_has_line_and_short() -> None:
    game = GameInfo("t", players={"Austria": "Biehl"}, gm_actions=[("Austria", "/r/ a vienna")])
    rep, _ = play("standard", {"phase": "Winter 1901 Adjustment",
                               "units": {"Austria": ["A Vie", "F Tri"]},
                               "centers": {"Austria": ["Vie", "Tri", "Bud", "Ser"]}},
                  "Austria: Build A Bud", game)
    text = " ".join(rep.text.split())
    assert "Austria (Biehl): GM /r/ a vienna. Builds A Budapest, Waives a build (no order)." in text
    assert "Has: A Budapest, F Trieste, A Vienna (3 - 1 short)." in text


@pytest.mark.skipif("coast_running" not in available_variants(), reason="no Coast-Running seed")
def test_module_orders_read_with_full_names() -> None:
    rep, _ = play("coast_running", {"phase": "Spring 1901 Movement",
                                    "units": {"Italy": ["F Ion", "A Tun"], "France": ["F Mao"]}},
                  "Italy: F Ion - Wes\nItaly: A Tun P F Ion - Wes\nFrance: F Mao - Wes")
    text = " ".join(rep.text.split())
    assert "A Tunis P F Ionian Sea - Western Mediterranean" in text


def test_deadline_in_the_games_time_zone() -> None:
    when = datetime(2024, 7, 1, 21, 30, tzinfo=timezone.utc)
    assert format_deadline(when, "America/New_York") == "Mon 1 Jul 2024, 17:30 EDT (America/New_York)"
    assert format_deadline(when.replace(tzinfo=None), "Nowhere/Else") == "Mon 1 Jul 2024, 21:30 UTC"
    assert format_deadline(None, "UTC") == ""
