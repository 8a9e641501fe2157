"""Mails of the acceptance play test, read as their receivers get them (through real Maildir
folders): a conditional written on one line, a misspelt command, a resignation after orders, a
standby's takeover, an observer's name. The play itself: docs/decisions/playtest.md."""

from __future__ import annotations

import re
from pathlib import Path

from test_service_helpers import MASTER, Table


def confirm(t: Table, sender: str, body: str) -> list:
    """Send ``body`` (OBSERVE, STANDBY) and the CONFIRM line the judge answers with; the answers."""
    first = t.send(sender, body)
    code = re.search(r"CONFIRM (\w+)", first[-1].body)
    assert code, first[-1].body
    return t.send(sender, f"CONFIRM {code.group(1)}")


def test_a_conditional_on_one_line_is_refused_as_one(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    body = t.reply_to(t.powers["Germany"], t.order(
        "Germany", "A Ber - Kie\nIF Russia moves to Sil THEN A Mun H ENDIF\nF Kie - Hol")).body
    assert "conditional orders (IF ... ELSE ... ENDIF) are not accepted" in body
    assert "unknown province" not in body and "Prussia" not in body
    assert "Germany: Army Berlin -> Kiel." in body and "Germany: Fleet Kiel -> Holland." in body


def test_a_misspelt_command_is_named_as_one(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    body = t.reply_to(t.powers["Italy"], t.order("Italy", "A Ven H\nSIGNOF")).body
    flat = " ".join(body.split())
    assert "'SIGNOF' is neither an order nor a command (did you mean the command SIGNOFF?)" in flat
    assert "unknown province" not in body
    assert "Italy: Army Venice HOLD." in body
    # a province written wrongly is still read as a province
    body = t.reply_to(t.powers["Italy"], t.order("Italy", "A Rom - Venise")).body
    assert "command" not in body.split("Movement orders")[0]


def test_orders_given_before_resign_stand_and_every_mail_says_so(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    italy = t.powers["Italy"]
    got = t.order("Italy", "A Ven - Tyr\nRESIGN")
    assert "The orders you gave for this phase stand." in " ".join(t.reply_to(italy, got).body.split())
    notice = next(m for m in got if "Resignation: I" in m.subject and t.powers["England"] in m.to)
    flat = " ".join(notice.body.split())
    assert "its units carry out the orders already given for this phase, and then hold" in flat
    assert "Its units hold until then" not in flat
    results = next(m for m in t.advance(hours=40) if "Results" in m.subject)
    assert "A Venice - Tyrolia" in results.body
    # without orders given, the old sentence is true and stays
    got = t.order("France", "RESIGN")
    notice = next(m for m in got if "Resignation: F" in m.subject and t.powers["England"] in m.to)
    assert "Its units hold until then." in " ".join(notice.body.split())


def test_a_standby_taking_over_gets_the_reply_not_the_notice_about_itself(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    sam = "sam@example.test"
    confirm(t, "Sam Standby <sam@example.test>", "STANDBY tg")
    t.order("Italy", "RESIGN")
    got = t.send("Sam Standby <sam@example.test>", "SIGNON Itg sampw\nA Ven H")
    notices = [m for m in got if "New Player Signon: I" in m.subject]
    assert not [m for m in notices if sam in m.to]
    assert {tuple(m.to) for m in notices} >= {(t.powers[p],) for p in ("England", "Turkey")} | {(MASTER,)}
    assert all(len(m.to) == 1 for m in notices)  # one mail each: no address shown to another
    reply = t.reply_to(sam, got).body
    assert "\n  SIGNON Itg <your password>\n" in reply  # the line to copy, whole on a line of its own


def test_an_observer_is_shown_by_the_name_their_mail_program_sends(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    got = confirm(t, "Olga Överby <olga@example.test>", "OBSERVE tg watchpw")  # a From the library encodes
    reply = " ".join(got[-1].body.split())
    assert "You are observing 'tg'" in reply
    assert "Others see you as 'Olga Överby' (the name your mail program sends with your address)" in reply
    who = t.send("stranger@example.test", "WHOGAME tg")[-1].body
    assert re.search(r"Observer\s+Olga Överby", who) and "olga@" not in who


def test_the_reply_that_ends_the_game_shows_no_deadline(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    for power in ("England", "France", "Germany", "Italy", "Austria", "Russia"):
        t.order(power, "DRAW")
    got = t.order("Turkey", "DRAW")
    assert any(m.subject.endswith(" Draw") for m in got)
    reply = t.reply_to(t.powers["Turkey"], got)
    assert "the game is over" in " ".join(reply.body.split())
    assert ":: Deadline" not in reply.body and "None" not in reply.body
    html = reply.msg.get_body(("html",)).get_content()
    assert "Deadline:" not in html and "None" not in html



def test_a_build_is_never_split_from_its_place_in_the_results() -> None:
    """The results wrap at spaces only: "Builds A" at a line's end and "Moscow" on the next read
    badly (the play test's Winter 1901 results); the unit letter and its place are joined."""
    from judge.engine.orders import Build, OrderResult
    from judge.engine.position import Position
    from judge.render.describe import Describer
    from judge.render.templates import NBSP
    from judge.variant import load_variant

    v = load_variant("standard")
    pos = Position.from_json(v.start_position(), v)
    say = Describer(v, pos.map, pos)
    built = say.order(OrderResult(Build(power="Russia", kind="A", loc="mos"), "Russia", None, "succeeds"))
    assert built == f"Builds A{NBSP}Moscow"
