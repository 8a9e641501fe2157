"""Games played through the Maildir path that make every kind of mail the judge sends, with
player-written text that must never reach an HTML part unescaped (for the HTML and archive tests).

``showcase`` plays standard 1901 with a mailing list and an observer: replies (with errors),
HELP, LIST, WHOGAME, SUMMARY, HISTORY, private press and a broadcast, a reminder, late notices,
civil disorder, movement, retreat and adjustment results, orders queued with PHASE, a draw.
``victory`` plays to a solo win. ``odd_mails`` adds a delivery failure and an internal error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_service_helpers import MASTER, Table, hold_all

LIST = "tg-list@lists.example.test"
OBSERVER = "watcher@example.test"
OUTSIDER = "curious@example.test"
ARCHIVE_URL = "https://judge.example.test/archive"
EVIL_NAME = "<b>Evil</b> & Co"
EVIL_ORDER = "A Mun - <img src=x onerror=alert(1)>"
EVIL_PRESS = "<script>alert('private')</script>"
EVIL_BROADCAST = "<script>alert('public')</script>"
EVIL_SUBJECT = "<i>orders</i>"
SECRET = "secret-plan-xyz"  # private press: never in public mail or the archive
PUBLIC = "public-news-abc"  # a broadcast: public
#: written by players; none may appear unescaped in any HTML
EVIL = (EVIL_NAME, EVIL_ORDER, EVIL_PRESS, EVIL_BROADCAST, EVIL_SUBJECT)


def confirm(t: Table, addr: str, out: list) -> None:  # type: ignore[type-arg]
    """Send back the CONFIRM code the judge's answer in ``out`` asked ``addr`` for."""
    code = re.search(r"CONFIRM (\w+)", t.reply_to(addr, out).body)
    assert code, t.reply_to(addr, out).body
    t.send(addr, f"CONFIRM {code.group(1)}")


def showcase(tmp: Path) -> Table:
    t = Table(tmp, stranger_reply_limit=20)  # the outsider asks six things, each in a mail of its own
    t.cfg.archive_url = ARCHIVE_URL
    t.start_game()
    t.send(MASTER, f"SIGNON Mtg masterpw\nSET LIST {LIST}")
    confirm(t, OBSERVER, t.send(OBSERVER, "OBSERVE tg watchpw"))
    eng = t.powers["England"]
    confirm(t, eng, t.send(eng, t.signon("England") + f"\nSET NAME {EVIL_NAME}"))  # a signon, then a CONFIRM
    t.order("England", f"F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor\n{EVIL_ORDER}",
            extra=f"PRESS TO F\n{EVIL_PRESS} {SECRET}\nENDPRESS\nBROADCAST\n{EVIL_BROADCAST} {PUBLIC}\nENDPRESS")
    t.send(eng, t.signon("England") + "\nA Yor - Lon", subject=EVIL_SUBJECT)  # an error (Lvp moves)
    for cmd in ("HELP", "LIST", "LIST tg", "WHOGAME tg", "SUMMARY tg", "HISTORY tg"):
        t.send(OUTSIDER, cmd)
    t.order("France", "A Par H\nA Mar H\nF Bre H")
    t.order("Germany", "A Mun - Bur\nA Ber H\nF Kie H")
    hold_all(t, skip=("England", "France", "Germany", "Italy"))
    t.advance(hours=16, minutes=1)  # a reminder to Italy
    t.advance(hours=8)  # the deadline: late notices
    t.advance(hours=12)  # the end of grace: S1901M processed, Italy in civil disorder
    assert t.phase() == "F1901M"
    t.order("England", "F Nth - Bel\nF Nwg - Nwy\nA Yor H", extra="PHASE Winter 1901 Adjustment\nBuild F Edi\nBuild F Lon")
    t.order("France", "A Par - Bur\nA Mar S A Par - Bur\nF Bre H")
    hold_all(t, skip=("England", "France", "Italy"))
    assert t.phase() == "F1901R"  # Germany's army in Burgundy is dislodged
    t.order("Germany", "A Bur - Ruh")
    assert t.phase() == "S1902M", t.phase()  # England's queued build was read and processed
    t.send(OUTSIDER, "HISTORY tg\nSUMMARY tg")
    for power in t.powers:
        if power != "Italy":
            t.send(t.powers[power], t.signon(power) + "\nSET DRAW")
    assert t.game_state() == "finished"
    return t


def victory(tmp: Path) -> Table:
    """England wins with 5 centres at the end of 1901 (as in test_service_games)."""
    t = Table(tmp)
    t.start_game(options="move=24h retreat=12h adjust=12h grace=12h centres=5")
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(t, skip=("England",))
    t.order("England", "F Nth - Bel\nF Nwg - Nwy\nA Yor H")
    hold_all(t, skip=("England",))
    assert t.game_state() == "finished"
    return t


def odd_mails(t: Table) -> None:
    """A delivery failure report and an internal-error reply, on a table with a game."""
    from judge.game import outbox
    from judge.mail import Judge

    st = t.judge.store
    gid = st.scalar("SELECT id FROM games WHERE name = 'tg'")
    with st.transaction():
        item = outbox.queue(st, t.cfg, ["gone@example.test"], "lost", "text", t.now, game_id=gid)
    assert item is not None
    t.judge.mark_failed(item, "550 5.1.1 <gone@example.test>: no such user", permanent=True, now=t.now)
    with pytest.MonkeyPatch.context() as mp:
        def boom(self: object) -> None:
            raise RuntimeError("boom")

        from judge.mail.handler import Handler

        mp.setattr(Handler, "run", boom)
        t.send(OUTSIDER, "LIST", subject=EVIL_SUBJECT)
    t.run()
    assert isinstance(t.judge, Judge)
