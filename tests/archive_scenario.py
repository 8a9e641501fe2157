"""A club's judge for the archive's tests and screenshots: one game played two years with a
replacement (Turkey's first player resigns, a newcomer takes over), one paused, one forming,
one anonymous (gunboat) game running. Names include a hostile one and a long one."""

from __future__ import annotations

from pathlib import Path

from mail_scenarios import confirm
from test_service_helpers import MASTER, Table, hold_all

NEWCOMER = "newcomer@example.test"
HOSTILE_NAME = "<script>alert('name')</script> Mallory"
#: one name without a space, as long as a name may be: it must wrap on a phone, not widen the page
LONG_NAME = "Featherstonehaughworthingtonsmythejonese"
NAMES = {"England": "Eleanor Quillfeather", "France": HOSTILE_NAME, "Germany": LONG_NAME, "Turkey": "Tomas Newcomer"}
OPTIONS = "move=24h retreat=12h adjust=12h grace=12h"


def club(tmp: Path) -> Table:
    t = Table(tmp)
    t.start_game(options=OPTIONS)
    old_turkey = t.powers["Turkey"]
    assert "You have resigned Turkey" in t.reply_to(old_turkey, t.order("Turkey", "RESIGN")).body
    assert "You have taken over Turkey" in t.reply_to(NEWCOMER, t.send(NEWCOMER, "SIGNON Ttg newpw1")).body
    t.powers["Turkey"], t.passwords[NEWCOMER] = NEWCOMER, "newpw1"
    for power, name in NAMES.items():
        confirm(t, t.powers[power], t.order(power, f"SET NAME {name}"))
    t.order("Turkey", "SET NOWAIT")  # a newcomer waits for the deadline unless they say not to
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(t, skip=("England",))
    t.order("England", "F Nth - Bel\nF Nwg - Nwy\nA Yor H")
    hold_all(t, skip=("England",))
    assert t.phase() == "W1901A", t.phase()
    t.order("England", "Build F Edi\nBuild F Lon")
    assert t.phase() == "S1902M", t.phase()
    hold_all(t)
    hold_all(t)
    assert t.phase() == "S1903M", t.phase()
    tg_powers = dict(t.powers)
    t.start_game(name="pg", options=OPTIONS)
    t.send(MASTER, "SIGNON Mpg masterpw\nPAUSE")
    t.start_game(name="ag", options=f"anonymous=yes {OPTIONS}")
    t.send(MASTER, "CREATE ?fg masterpw standard")
    t.send("p0@example.test", "SIGNON ?fg pw0")
    t.powers = tg_powers
    return t
