"""The parsed position the phase rows share (``PhaseRow.shared_position``) is only looked at: after
order mails, an early processing of the phase and the next phase's orders, every remembered
position is still the one its stored text gives."""

from __future__ import annotations

from pathlib import Path

from judge.engine.position import Position
import json

from judge.game import lifecycle
from test_service_helpers import Table

ORDERS = {"Austria": "A Vie - Gal\nA Bud - Ser\nF Tri - Alb", "England": "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor",
          "France": "F Bre - Mao\nA Par - Bur\nA Mar - Spa", "Germany": "F Kie - Den\nA Ber - Kie\nA Mun - Ruh",
          "Italy": "F Nap - Ion\nA Rom - Apu\nA Ven H", "Russia": "A Mos - Ukr\nA War - Gal\nF Sev - Bla\nF Stp/sc - Bot",
          "Turkey": "F Ank - Bla\nA Con - Bul\nA Smy - Arm"}


def test_shared_positions_stay_as_stored(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    assert t.phase() == "S1901M"
    for power, orders in ORDERS.items():
        t.order(power, orders)
    assert t.phase() == "F1901M"  # the last order mail completed the phase: processed at once
    for power in ("Austria", "England", "France"):
        t.order(power, "")
    assert lifecycle._PARSED
    for text, (variant, pos) in lifecycle._PARSED.items():
        assert pos == Position.from_json(json.loads(text), variant)
    t.close()
