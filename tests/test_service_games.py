"""Whole games through the Maildir path: sign-on, orders with errors, press, early processing,
deadlines with a late power, civil disorder, rollback, victory."""

from __future__ import annotations


from test_service_helpers import MASTER, Table, acquaint, hold_all, flat


def test_signon_orders_errors_press_early_processing_victory(table: Table) -> None:
    # England needs 5 centres (Russia starts with 4): it takes Norway and Belgium in 1901
    table.start_game(options="move=24h retreat=12h adjust=12h grace=12h centres=5")
    assert table.phase() == "S1901M"
    starting = [m for m in table.mails if "Game Starting" in m.subject]
    assert len(starting) == 8  # seven players and the master

    eng = table.powers["England"]
    out = table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Lon\nA Lvp - Yor\nF Xyz - Nth",
                      extra="PRESS TO F G\nShall we share the north?\nENDPRESS")
    reply = table.reply_to(eng, out)
    assert reply.subject.startswith("Re: [Error Flag] TEST:tg - S1901M")
    assert "can't reach London" in reply.body or "cannot" in reply.body.lower()
    assert "*** Error" in reply.body
    # the reply lists the full current order list: the valid order for Lvp stands
    assert "England: Army Liverpool -> Yorkshire." in reply.body
    assert "England: Fleet London -> North Sea." in reply.body
    assert "Your orders are complete." in reply.body
    assert reply.msg["Auto-Submitted"] == "auto-replied"
    assert reply.msg["In-Reply-To"]
    assert reply.msg["X-Judge-Loop"] == "judge@example.test"
    press = [m for m in out if "Press from E" in m.subject]
    assert sorted(a for m in press for a in m.to) == sorted([table.powers["France"], table.powers["Germany"]])
    assert "Shall we share the north?" in press[0].body
    # nobody else sees England's orders before the phase is processed
    for m in out:
        if eng not in m.to:
            assert "North Sea" not in m.body

    hold_all(table, skip=("England",))
    assert table.phase() == "F1901M"  # all orders in, nobody waiting: processed early
    results = [m for m in table.mails if "S1901M Results" in m.subject]
    assert {a for m in results for a in m.to} >= set(table.powers.values()) | {MASTER}
    assert "England (" in results[0].body and "F London - North Sea" in flat(results[0].body)

    table.order("England", "F Nth - Bel\nF Nwg - Nwy\nA Yor H")
    hold_all(table, skip=("England",))
    assert table.game_state() == "finished"
    victory = [m for m in table.mails if "Victory" in m.subject]
    assert victory and "VICTORY" in victory[0].body
    outcome = table.rows("SELECT outcome FROM games")[0]["outcome"]
    assert "England" in outcome


def test_deadline_late_power_grace_civil_disorder_and_return(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(table, skip=("England", "Italy"))
    assert table.phase() == "S1901M"  # Italy has not ordered
    ita = table.powers["Italy"]
    # the reminder goes out 8 hours before the deadline, to Italy only
    out = table.advance(hours=16, minutes=1)
    reminders = [m for m in out if "Reminder" in m.subject]
    assert [m.to for m in reminders] == [[ita]]
    assert "Army Venice, No Order Processed" in reminders[0].body
    # the deadline passes: late notices, Italy's own copy flagged
    out = table.advance(hours=8)
    late = [m for m in out if "Late Notice" in m.subject]
    assert late and any("[You are late!]" in m.subject and ita in m.to for m in late)
    assert table.phase() == "S1901M"
    # grace runs out: processed, Italy in civil disorder, its units held
    out = table.advance(hours=12)
    assert table.phase() == "F1901M"
    res = [m for m in out if "S1901M Results" in m.subject][0]
    assert "Italy (" in res.body and "NMR" in res.body and "A Venice H (no order)" in flat(res.body)
    assert "civil disorder" in res.body
    seat = table.rows("SELECT status FROM seats WHERE power = 'Italy'")[0]
    assert seat["status"] == "cd"
    # a civil-disorder power does not hold up the next phase
    table.order("England", "F Nth H\nF Nwg H\nA Yor H")
    hold_all(table, skip=("England", "Italy"))
    assert table.phase() in ("S1902M", "W1901A")
    # Italy signs on again: out of civil disorder
    out = table.send(ita, table.signon("Italy"))
    assert table.rows("SELECT status FROM seats WHERE power = 'Italy'")[0]["status"] == "active"
    # every timed event ran exactly once
    kinds = table.rows("SELECT kind, COUNT(*) AS n FROM events WHERE state = 'done' GROUP BY kind")
    assert {r["kind"]: r["n"] for r in kinds} == {"reminder": 1, "deadline": 1, "grace": 1}


def test_wait_holds_processing_until_deadline(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor", extra="SET WAIT")
    hold_all(table, skip=("England",))
    assert table.phase() == "S1901M"
    assert table.judge.next_wakeup() is not None
    table.advance(hours=24)
    assert table.phase() == "F1901M"
    # restart-safe: nothing left to run, running again changes nothing
    table.reopen()
    assert table.judge.run_due(table.now) == 0


def test_rollback_reopens_the_phase_and_keeps_its_orders(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(table, skip=("England",))
    assert table.phase() == "F1901M"
    # only the master may roll back
    out = table.send(table.powers["France"], table.signon("France") + "\nROLLBACK")
    assert "only the game master" in table.reply_to(table.powers["France"], out).body
    out = table.send(MASTER, "SIGNON Mtg masterpw\nROLLBACK S1901M")
    assert table.phase() == "S1901M"
    assert any("Rollback to S1901M" in m.subject for m in out)
    # England changes its mind; the others' orders stand, so the phase is processed again at once
    table.order("England", "F Lon - Eng")
    assert table.phase() == "F1901M"
    res = [m for m in table.mails if "S1901M Results" in m.subject][-1]
    assert "F London - English Channel" in flat(res.body)
    processed = table.rows("SELECT short, state FROM phases ORDER BY seq")
    assert [r["state"] for r in processed].count("processed") == 1
    assert [r["state"] for r in processed].count("undone") == 1
    # the master may force processing with orders missing
    table.send(MASTER, "SIGNON Mtg masterpw\nPROCESS")
    assert table.phase() in ("W1901A", "S1902M")


def test_master_commands_and_listing(table: Table) -> None:
    table.start_game()
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET DEADLINE +3d\nPAUSE")
    reply = table.reply_to(MASTER, out)
    assert "Deadline for S1901M set to" in reply.body
    assert table.game_state() == "paused"
    assert table.judge.next_wakeup() is None
    table.send(MASTER, "SIGNON Mtg masterpw\nRESUME")
    assert table.game_state() == "active"
    acquaint(table, "stranger@example.test")  # a stranger's one answer an hour is cut short
    out = table.send("stranger@example.test", "LIST\nLIST tg\nWHOGAME tg\nSUMMARY tg\nHISTORY tg\nHELP")
    body = table.reply_to("stranger@example.test", out).body
    assert "Game 'tg': Standard Diplomacy, active." in body
    assert "History of supply center counts" in body
    assert "How to use this judge" in body
    # listing is read-only: no orders visible, nothing changed
    assert "Error Flag" not in table.reply_to("stranger@example.test", out).subject


def test_eject_and_takeover(table: Table) -> None:
    table.start_game()
    table.send(MASTER, "SIGNON Mtg masterpw\nEJECT Turkey")
    assert table.rows("SELECT status FROM seats WHERE power = 'Turkey'")[0]["status"] == "vacant"
    out = table.send("newbie@example.test", "SIGNON ?tg newpw")
    body = table.reply_to("newbie@example.test", out).body
    assert "taken over Turkey" in body
    seat = table.rows("SELECT status, wait FROM seats WHERE power = 'Turkey'")[0]
    assert seat == {"status": "active", "wait": 1}


def test_draw_by_unanimous_vote(table: Table) -> None:
    table.start_game()
    for power in list(table.powers)[:-1]:
        table.send(table.powers[power], table.signon(power) + "\nSET DRAW")
        assert table.game_state() == "active"
    last = list(table.powers)[-1]
    table.send(table.powers[last], table.signon(last) + "\nDRAW")
    assert table.game_state() == "finished"
    assert any("Draw" in m.subject for m in table.mails)


def test_future_orders_with_phase(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor", extra="PHASE Fall 1901 Movement\nF Nth - Nwy")
    hold_all(table, skip=("England",))
    assert table.phase() == "F1901M"
    eng = table.powers["England"]
    applied = [m for m in table.to(eng) if "Pending orders" in m.subject]
    assert applied and "Fleet North Sea -> Norway" in applied[0].body


def test_results_are_the_zine_report_kept_for_history(table: Table) -> None:
    table.start_game()
    # the master orders for England (BECOME): the report says so
    table.send(MASTER, "SIGNON Mtg masterpw\nBECOME England\nF Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(table, skip=("England",))
    res = [m for m in table.mails if "S1901M Results" in m.subject][0]
    assert res.body.startswith(":: Judge: TEST  Game: tg  Variant: ")
    assert "Game tg - Standard Diplomacy - Spring 1901 Movement" in res.body
    assert "GM F Lon - Nth" in flat(res.body) and "GM A Par" not in res.body
    kept = table.rows("SELECT r.subject, r.text, r.png, r.svg, p.report FROM reports r JOIN phases p ON p.id = r.phase_id")
    assert len(kept) == 1 and kept[0]["subject"] == res.subject and kept[0]["report"] == kept[0]["text"]
    assert kept[0]["png"][:4] == b"\x89PNG" and "<svg" in kept[0]["svg"]
    out = table.send("someone@example.test", "HISTORY tg")
    assert kept[0]["text"].split("\n", 1)[0] in table.reply_to("someone@example.test", out).body


def test_the_masters_orders_that_complete_a_phase_are_marked_in_its_results(table: Table) -> None:
    """The master's mail (BECOME) brings the last orders in: the phase is processed while that
    mail is handled, and the results still say which orders were the master's."""
    table.start_game()
    hold_all(table, skip=("England",))
    assert not [m for m in table.mails if "S1901M Results" in m.subject]
    table.send(MASTER, "SIGNON Mtg masterpw\nBECOME England\nF Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    res = [m for m in table.mails if "S1901M Results" in m.subject]
    assert res and "GM F Lon - Nth" in flat(res[0].body) and "GM A Par" not in res[0].body


def test_late_powers_read_in_one_query_agree_with_each_powers_orders(table: Table) -> None:
    """Who is late is read with every power's orders in one query: it must agree with each
    power's orders read alone, replaced and partial order sets included, and the order status
    (which now decides early processing once a mail) must name what is still missing."""
    from judge.game import lifecycle, orderbook

    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg")  # one army still missing
    table.order("France", "F Bre - Mao\nA Par - Bur\nA Mar - Spa")
    out = table.order("France", "A Par - Pic")  # replaces one order, keeps the others
    assert "Your orders are complete." in table.reply_to(table.powers["France"], out).body
    out = table.order("Germany", "A Mun - Ruh")
    assert "Your orders are complete." not in table.reply_to(table.powers["Germany"], out).body
    st = table.judge.store
    g = lifecycle.get_game(st, "tg")
    assert g is not None
    ph = lifecycle.current_phase(st, g)
    every = orderbook.orders_by_power(st, ph.id)
    assert set(every) == {"England", "France", "Germany"}
    for power in g.variant.powers:
        assert every.get(power, {}) == orderbook.current_orders(st, ph.id, power), power
    french = " | ".join(o.text(ph.position.map) for o in every["France"].values())
    assert len(every["France"]) == 3 and "Pic" in french and "Bur" not in french, french
    late = lifecycle.late_powers(st, g, ph)
    assert "France" not in late and {"England", "Germany", "Italy"} <= set(late)
    assert table.phase() == "S1901M"
