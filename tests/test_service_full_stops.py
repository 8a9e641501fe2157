"""No mail of the judge's has a doubled full stop ("option DRAW.."): the usual mails of whole
games (tests/mail_scenarios.py) and the answers to players' lines that end in a full stop of
their own, read as delivered (text and HTML parts). An ellipsis ("...") is not a doubled stop."""

from __future__ import annotations

import re
from pathlib import Path

from mail_scenarios import odd_mails, showcase, victory
from test_service_helpers import MASTER, Table, hold_all

DOUBLED = re.compile(r"(?<!\.)\.\.(?!\.)")


def doubled_stops(t: Table) -> list[str]:
    """Each doubled full stop in the mails ``t`` received, with the subject and the text before it."""
    found = []
    for m in t.mails:
        for part in m.msg.walk():
            if part.get_content_type() in ("text/plain", "text/html"):
                text = part.get_content()
                found += [f"{m.subject}: {text[max(0, d.start() - 80):d.end()]!r}" for d in DOUBLED.finditer(text)]
    return found


def test_the_check_finds_a_doubled_stop_and_passes_an_ellipsis() -> None:
    assert DOUBLED.search("unknown SET option DRAW..") and not DOUBLED.search("Hi all... and more.")


def test_the_usual_mails_of_whole_games_have_no_doubled_stop(tmp_path: Path) -> None:
    t = showcase(tmp_path / "showcase")
    odd_mails(t)
    assert len(t.mails) > 100 and doubled_stops(t) == []
    t = victory(tmp_path / "victory")
    assert doubled_stops(t) == []


def test_answers_to_lines_ending_in_a_full_stop_have_no_doubled_stop(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.send("a@example.test", "CREATE ?zz. pw standard move=1y.\nCREATE ?yy pw nosuchvariant.\n"
                             "CREATE ?ww pw standard press=foo.\nCREATE ?ww pw standard grace=2h.")
    t.send("b@example.test", "SIGNON ?ww pw.\nSET NAME Bob Jr.\nWHOGAME ww.\nLIST ww.")
    t.start_game()
    t.send(t.powers["France"], t.signon("France") + "\nSET NAME Jean Dupont Jr.\nA Par - Xyz.\nA Par - Bur.\n"
           "FOO bar.\nSET DEADLINE tomorrow.\nPAUSE REQUEST away on holiday.\nPRESS TO Q\nx\nENDPRESS")
    t.send(t.powers["France"], "SIGNON Ftg wrong.")
    t.send(t.powers["Russia"], t.signon("Russia") + "\nDIARY\nNote to self.\nENDPRESS\nSET DRAW.\nCONCEDE X.")
    t.send(t.powers["England"], t.signon("England") + "\nPRESS TO F.\nHi.\nENDPRESS\nPHASE Fall 1901.\nA Lon H.\n"
           "PHASE W1901A.\nBuild F Lon.\nVOTE DRAW E.")
    t.send(MASTER, "SIGNON Mtg masterpw\nSET DEADLINE 3/5\nSET GRACE x.\nEJECT Q.\nSET NMR never.\n"
                   "SET TIMEZONE Mars/Olympus.\nSET PRESS foo.\nROLLBACK S1900M.\nSET CLOCK 25:00.\nSET ABANDON 0.")
    t.send(t.powers["Italy"], t.signon("Italy") + "\nRESIGN.")
    hold_all(t)
    t.advance(hours=30)
    assert any("SET DRAW." in m.body for m in t.mails)  # the line that made "option DRAW.." is answered
    assert doubled_stops(t) == []
