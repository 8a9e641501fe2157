"""What players write, through the real path (Maildir in, the judge, the reply out): each line
echoed once as written, an order read whole or refused whole, the three-province support, the
notations of other judges and zines, a misspelling read and said, remarks and lead-in lines as
notes (never an [Error Flag]), "all units hold"."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_service_helpers import Mail, Table


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table(tmp_path)
    t.start_game()
    return t


def england(t: Table, orders: str) -> Mail:
    return t.reply_to(t.powers["England"], t.order("England", orders))


def stored(reply: Mail) -> list[str]:
    """England's orders as the reply's order status lists them."""
    return sorted(l for l in reply.body.split("\n") if l.startswith("England: ") and "No Order" not in l)


def flat(reply: Mail) -> str:
    return " ".join(reply.body.split())


def test_three_provinces_and_no_dash_reads_as_the_only_legal_support(table: Table):
    reply = england(table, "F Lon - Nth\nF Edi S F Lon Nth\nA Lvp H")
    assert "[Error Flag]" not in reply.subject
    assert "England: Fleet Edinburgh SUPPORT Fleet London -> North Sea." in stored(reply)
    assert "read as 'F Edi S F Lon - Nth' (a support of a move: no dash was written)" in flat(reply)


def test_a_support_that_is_no_legal_reading_is_refused_whole(table: Table):
    reply = england(table, "A Lvp S F Edi Nth")
    assert "[Error Flag]" in reply.subject
    assert "'A Lvp S F Edi Nth' is not read: 'A Lvp S F Edi - Nth' is not a possible support" in flat(reply)
    # nothing of it was stored: Liverpool has no order (not a support to hold of Edinburgh)
    assert not any("Liverpool" in l for l in stored(reply))


def test_words_after_an_order_refuse_it_whole(table: Table):
    reply = england(table, "F Lon - Nth Eng\nA Lvp - Yor")
    assert "[Error Flag]" in reply.subject
    assert stored(reply) == ["England: Army Liverpool -> Yorkshire."]


def test_a_line_of_several_orders_is_echoed_once_as_written(table: Table):
    line = "F Lon - Nth; F Edi - Nwg, A Lvp - Xyzzy"
    reply = england(table, line)
    lines = reply.body.split("\n")
    assert lines.count(f"> {line}") == 1
    assert not any(l in ("> F Lon - Nth", "> F Edi - Nwg", "> A Lvp - Xyzzy") for l in lines)
    assert "*** Error: 'A Lvp - Xyzzy': unknown province 'Xyzzy'" in flat(reply)
    assert stored(reply) == ["England: Fleet Edinburgh -> Norwegian Sea.", "England: Fleet London -> North Sea."]


def test_harmless_lines_are_notes_never_an_error_flag(table: Table):
    reply = england(table, "F Lon - Eng\nchanged my mind, scrap the north sea:\nF Lon - Nth\n"
                           "(Edinburgh stays home this turn)\nF Edi H\nA Lvp - Yor")
    assert "[Error Flag]" not in reply.subject and "No errors encountered." in reply.body
    body = reply.body.split("\n")
    at = body.index("> changed my mind, scrap the north sea:")
    assert body[at + 1].startswith("  Note: a line leading into what follows, not an order")
    at = body.index("> (Edinburgh stays home this turn)")
    assert body[at + 1].startswith("  Note: a remark, not an order")
    assert stored(reply) == ["England: Army Liverpool -> Yorkshire.", "England: Fleet Edinburgh HOLD.",
                             "England: Fleet London -> North Sea."]


@pytest.mark.parametrize("text", ["all units hold", "Hold all.", "England: all units hold"])
def test_all_units_hold(table: Table, text: str):
    reply = england(table, text)
    assert "[Error Flag]" not in reply.subject
    assert stored(reply) == ["England: Army Liverpool HOLD.", "England: Fleet Edinburgh HOLD.",
                             "England: Fleet London HOLD."]
    assert reply.body.split("\n").count(f"> {text}") == 1


def test_other_judges_and_zines_notations(table: Table):
    reply = england(table, "F LON-H\nF EDI-holds.\nA LPL SF EDI-EDI")
    assert "[Error Flag]" not in reply.subject
    assert stored(reply) == ["England: Army Liverpool SUPPORT Fleet Edinburgh.", "England: Fleet Edinburgh HOLD.",
                             "England: Fleet London HOLD."]


def test_a_misspelling_is_read_and_the_reply_says_how(table: Table):
    reply = england(table, "A Lvp - Yorkshrie\nF Lon - Nroth Sea\nF Edi - Seria")
    assert "Warning: read 'Yorkshrie' as Yorkshire" in reply.body
    assert "Warning: read 'Nroth Sea' as North Sea" in reply.body
    assert "unknown province 'Seria': it could be Serbia or Syria" in flat(reply)
    assert stored(reply) == ["England: Army Liverpool -> Yorkshire.", "England: Fleet London -> North Sea."]


def test_a_remark_inside_an_order_line_is_left_out_and_said(table: Table):
    reply = england(table, "A Lvp - Yor (to cover Edinburgh)")
    assert "[Error Flag]" not in reply.subject
    assert stored(reply) == ["England: Army Liverpool -> Yorkshire."]
    assert "the remark '(to cover Edinburgh)' is not an order: it was left out" in flat(reply)


def test_the_reported_case_f_lon_s_nth_eng(table: Table):
    """With a fleet in the North Sea, 'f lon s nth eng' is the support of its move to the
    English Channel, never 'F Lon S F Nth' with an error for 'eng'."""
    from test_service_helpers import hold_all

    england(table, "F Edi - Nth\nF Lon H\nA Lvp H")
    hold_all(table, skip=("England",))
    table.advance(hours=25)
    assert table.phase() == "F1901M"
    reply = england(table, "f lon s nth eng\nF Nth - Eng")
    assert "[Error Flag]" not in reply.subject
    assert "England: Fleet London SUPPORT Fleet North Sea -> English Channel." in stored(reply)
    assert reply.body.split("\n").count("> f lon s nth eng") == 1


def test_the_rest_hold(table: Table):
    reply = england(table, "F Lon - Nth, rest hold")
    assert "[Error Flag]" not in reply.subject
    assert stored(reply) == ["England: Army Liverpool HOLD.", "England: Fleet Edinburgh HOLD.",
                             "England: Fleet London -> North Sea."]
    assert reply.body.split("\n").count("> F Lon - Nth, rest hold") == 1


def test_an_illegal_new_order_is_refused_with_the_engines_reason_and_leaves_the_old_one(table: Table):
    # (under the core rules the parser's engine verdict is the only check a submission makes)
    assert stored(england(table, "F Lon - Nth\nA Lvp - Yor")) == ["England: Army Liverpool -> Yorkshire.",
                                                                    "England: Fleet London -> North Sea."]
    reply = england(table, "F Lon - Lvp\nA Lvp - Wal")
    assert "[Error Flag]" in reply.subject
    assert "*** Error: the fleet in London can't reach Liverpool" in reply.body
    assert stored(reply) == ["England: Army Liverpool -> Wales.", "England: Fleet London -> North Sea."]
