"""What the reply to a player's orders says about time, read as the player gets it through the
Maildir path: late in grace (the deadline passed, when grace ends in the game's zone, what
becomes of a power still late then), and the last orders completing a phase (processed now)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from test_service_helpers import MASTER, Table, hold_all, observe
from test_service_retreats import flat

FRANCE = "A Par H\nA Mar H\nF Bre H"


@pytest.fixture
def t(tmp_path) -> Table:
    """A standard game just started (move 24h, grace 12h)."""
    table = Table(tmp_path)
    table.start_game()
    return table


def said(t: Table, power: str, orders: str) -> str:
    """The reply to ``power``'s ``orders``, its wrapping undone."""
    return flat(t.reply_to(t.powers[power], t.order(power, orders)).body)


def late_in_grace(t: Table, skip: tuple[str, ...] = ("France",)) -> None:
    """Everyone but ``skip`` holds; the deadline passes (late notices go out): grace is running."""
    hold_all(t, skip=skip)
    t.advance(hours=24, minutes=30)  # the deadline Tue 12:00 has passed, grace runs to Wed 00:00
    assert t.phase() == "S1901M"


def test_a_player_late_in_grace_is_told_the_deadline_passed_when_grace_ends_and_what_then(t: Table) -> None:
    late_in_grace(t)
    body = said(t, "France", "A Par H\nA Mar H")
    assert "The deadline has passed and your orders are not complete (1 missing): you are late." in body
    assert "considered late if they are not complete by the deadline" not in body  # the old contradiction
    assert ("The phase is processed as soon as every power's orders are complete, or at the end of the grace "
            "period, Wed Jan 09 2030 00:00:00 +0000, with the orders given by then.") in body
    assert "A power still late then is put in civil disorder: its unordered units hold." in body
    assert "Still late: France (you)." in body
    assert "grace ends in 11 hours, 30 minutes" in body
    assert "sends no orders at all" not in body  # France has given orders this phase
    html = t.reply_to(t.powers["France"], t.order("France", "A Par H")).msg.get_body(("html",)).get_content()
    assert "you are late." in html and "at the end of the grace period, <b>Wed Jan 09 2030 00:00:00 +0000</b>" in html
    assert "considered late" not in html


def test_grace_is_told_in_the_games_zone(tmp_path) -> None:
    t = Table(tmp_path)
    t.start_game(setup="SET TIMEZONE Europe/Paris")
    late_in_grace(t)
    body = said(t, "France", "A Par H")
    # the end of grace, Wed 00:00 UTC, as the game's clock reads it
    assert "at the end of the grace period, Wed Jan 09 2030 01:00:00 +0100" in body
    assert "Deadline: Tue Jan 08 2030 13:00:00 +0100 (grace until Wed Jan 09 2030 01:00:00 +0100)" in body


def test_a_player_with_no_orders_in_grace_is_told_the_takeover_rule(t: Table) -> None:
    late_in_grace(t)
    body = flat(t.reply_to(t.powers["France"], t.send(t.powers["France"], t.signon("France"))).body)
    assert "France: Army Paris, No Order Processed." in body and "(3 missing): you are late." in body
    assert "A power that sends no orders at all for 2 phases in a row is opened for takeover." in body


def test_an_nmr_wait_game_says_a_power_still_late_is_opened_for_takeover(tmp_path) -> None:
    t = Table(tmp_path)
    t.start_game(options="move=24h retreat=12h adjust=12h grace=12h nmr=wait")
    late_in_grace(t)
    body = said(t, "France", "A Par H")
    assert ("A power still late then is opened for takeover, and the phase waits for its new player (or for "
            "the master's PROCESS).") in body
    assert "civil disorder" not in body and "sends no orders at all" not in body


def test_a_complete_player_in_grace_is_told_who_is_still_late(t: Table) -> None:
    late_in_grace(t, skip=("France", "Italy"))
    body = said(t, "France", FRANCE)
    assert "Your orders are complete." in body and "you are late" not in body
    assert "Still late: Italy." in body
    assert "at the end of the grace period, Wed Jan 09 2030 00:00:00 +0000" in body
    assert t.phase() == "S1901M"


def test_the_last_orders_in_grace_are_told_the_phase_is_processed_now(t: Table) -> None:
    late_in_grace(t)
    out = t.order("France", FRANCE)
    body = flat(t.reply_to(t.powers["France"], out).body)
    assert ("Your orders are complete. Every power's orders are in: the phase is being processed now, and the "
            "results follow by mail.") in body
    assert "Time to deadline" not in body and "late" not in body
    assert any(m.subject == "TEST:tg - S1901M Results" for m in t.to(t.powers["France"], out))  # as promised
    assert t.phase() == "F1901M"


def test_the_last_orders_before_the_deadline_are_told_the_phase_is_processed_now(t: Table) -> None:
    hold_all(t, skip=("France",))
    out = t.order("France", FRANCE)
    assert "the phase is being processed now" in flat(t.reply_to(t.powers["France"], out).body)
    assert t.phase() == "F1901M"


def test_orders_that_do_not_complete_the_phase_do_not_promise_processing(t: Table) -> None:
    hold_all(t, skip=("France", "Italy"))
    body = said(t, "France", FRANCE)
    assert "Your orders are complete." in body and "processed now" not in body
    assert "Time to deadline: 23 hours" in body or "Time to deadline: 1 day" in body
    # a wait flag holds a complete phase: not processed now, and the reply says so
    t.send(t.powers["France"], t.signon("France") + "\nSET WAIT")
    body = said(t, "Italy", "A Ven H\nA Rom H\nF Nap H")
    assert "processed now" not in body and t.phase() == "S1901M"



def winter_with_builds_and_a_removal(t: Table) -> None:
    """W1901A with Germany (Denmark) and Italy (Trieste) to build one each, Austria to remove one."""
    t.order("Germany", "F Kie - Den\nA Ber H\nA Mun H")
    t.order("Italy", "A Ven - Tyr\nA Rom H\nF Nap H")
    hold_all(t, skip=("Germany", "Italy"))
    t.order("Italy", "A Tyr - Tri\nA Rom H\nF Nap H")
    t.order("Austria", "F Tri - Alb\nA Vie H\nA Bud H")
    hold_all(t, skip=("Italy", "Austria"))
    assert t.phase() == "W1901A"


def test_an_adjustment_reply_names_the_builds_or_removals_still_due(t: Table) -> None:
    winter_with_builds_and_a_removal(t)
    body = flat(t.reply_to(t.powers["Austria"], t.send(t.powers["Austria"], t.signon("Austria"))).body)
    assert "Austria must remove 1 unit." in body
    assert ("Orders not complete (Austria: 1 removal due): you will be considered late if they are not complete "
            "by the deadline. Removals not ordered are chosen for you by the civil disorder rule.") in body
    assert "for all units" not in body
    assert "Your orders are complete." in said(t, "Italy", "Build A Ven")
    t.advance(hours=24, minutes=1)  # the deadline passes with Germany and Austria still owing
    notice = [m for m in t.to(t.powers["England"]) if "Late Notice" in m.subject][-1].body
    due = notice.split("Pending orders:\n")[1].split("\n\n")[0].split("\n")
    assert sorted(due) == ["  Austria: 1 removal due", "  Germany: 1 build due"]  # Italy's build is in
    assert ("A power still late then is put in civil disorder: builds it did not order are waived; removals it "
            "did not order are chosen by the civil disorder rule.") in flat(notice)


def deadline_line(body: str) -> str:
    return next(line for line in body.splitlines() if line.startswith(":: Deadline:"))


def test_a_paused_games_deadline_line_says_paused(t: Table) -> None:
    paused = ":: Deadline: S1901M (game paused: no deadline until the master resumes it)"
    out = t.send(MASTER, "SIGNON Mtg masterpw\nPAUSE")
    notices = [m for m in out if m.subject == "TEST:tg - S1901M Paused"]
    assert len(notices) == 8 and {deadline_line(m.body) for m in notices} == {paused}
    assert deadline_line(t.reply_to(MASTER, out).body) == paused
    reply = t.reply_to(t.powers["France"], t.order("France", "A Par H"))
    assert deadline_line(reply.body) == paused
    assert "Tue Jan 08 2030" not in reply.body  # the stale date is nowhere
    out = t.send(MASTER, "SIGNON Mtg masterpw\nRESUME")
    assert deadline_line(t.reply_to(MASTER, out).body).startswith(":: Deadline: S1901M Tue Jan 08 2030 12:00:00")


def test_answering_a_judges_mail_gets_an_answer_subject_not_that_mails_subject(t: Table) -> None:
    fra = t.powers["France"]
    hold_all(t, skip=("France",))
    t.advance(hours=17)  # the reminder
    t.advance(hours=8)  # the late notice
    t.order("France", FRANCE)  # the results
    t.send(MASTER, "SIGNON Mtg masterpw\nBROADCAST\nHello all.\nENDPRESS\nPAUSE")
    t.send(MASTER, "SIGNON Mtg masterpw\nRESUME")
    theirs = sorted({m.subject for m in t.to(fra) if not m.subject.startswith("Re:")})
    kinds = ("Game Starting", "Reminder", "[You are late!] Late Notice: France", "Results",
             "Broadcast from M; Paused", "Resumed")  # (the master's one mail folds two)
    assert all(any(s.endswith(k) for s in theirs) for k in kinds), theirs
    for subject in theirs:
        for prefix in ("Re: ", "AW: ", "Re: Re: "):
            out = t.send(fra, t.signon("France"), subject=prefix + subject)
            assert t.reply_to(fra, out).subject == "Re: TEST:tg - F1901M Answer to your commands", subject
    # the player's own words are echoed, also in a reply to the judge's answer
    out = t.send(fra, t.signon("France"), subject="Re: TEST:tg - F1901M My moves")
    assert t.reply_to(fra, out).subject == "Re: TEST:tg - F1901M My moves"
    out = t.send(fra, t.signon("France"), subject="Results")
    assert t.reply_to(fra, out).subject == "Re: TEST:tg - F1901M Answer to your commands"  # the judge's words
    out = t.send(fra, t.signon("France"), subject="")
    assert t.reply_to(fra, out).subject == "Re: TEST:tg - F1901M Answer to your commands"


def test_history_never_promises_a_map_it_cannot_send(t: Table) -> None:
    hold_all(t)
    stranger = "stranger@example.test"
    reply = t.reply_to(stranger, t.send(stranger, "HISTORY tg S1901M S1901M"))
    body = flat(reply.body)
    assert not list(reply.msg.iter_attachments()) and "is attached" not in body
    # the stranger is not sent to HISTORY for a map it would not get either
    assert "The map of the position is not attached here: maps go only to addresses the judge knows." in body
    assert "sends it" not in body
    # a phase whose map is not kept (it could not be drawn): no map is promised anywhere
    st = t.judge.store
    with st.transaction():
        st.conn.execute("UPDATE reports SET png = NULL, svg = NULL WHERE phase_id = "
                        "(SELECT id FROM phases WHERE short = 'S1901M')")
    reply = t.reply_to(t.powers["Austria"], t.send(t.powers["Austria"], "HISTORY tg"))
    body = flat(reply.body)
    assert not list(reply.msg.iter_attachments())
    assert "The map of the position is not kept for this phase, so it is not attached." in body
    assert "is attached" not in body and "sends it" not in body


def test_a_masters_pause_with_a_broadcast_is_one_mail_per_recipient(t: Table) -> None:
    observe(t, "watcher@example.test")
    out = t.send(MASTER, "SIGNON Mtg masterpw\nPAUSE\nBROADCAST\nHoliday week, back on Monday.\nENDPRESS")
    everyone = [*t.powers.values(), "watcher@example.test", MASTER]
    for addr in everyone:
        mine = t.to(addr, out)
        assert len(mine) == (2 if addr == MASTER else 1), (addr, [m.subject for m in mine])  # the master: + the reply
    assert len(out) == len(everyone) + 1
    fra = t.to(t.powers["France"], out)[0]
    assert fra.subject == "TEST:tg - S1901M Paused; Broadcast from M"
    body = flat(fra.body)
    assert body.count(":: Judge:") == 1 and ":: Deadline: S1901M (game paused" in body
    assert body.index("The master has paused 'tg'.") < body.index("Broadcast message from Master in 'tg': "
                                                                  "Holiday week, back on Monday.")
    assert "Holiday week, back on Monday." in fra.msg.get_body(("html",)).get_content()
    # a player's press is not folded: each letter is a mail of its own, as before
    out = t.send(t.powers["England"], t.signon("England") + "\nPRESS TO F\nHi France.\nENDPRESS\n"
                 "BROADCAST\nHi all.\nENDPRESS")
    assert len(t.to(t.powers["France"], out)) == 2


def test_orders_read_after_the_end_of_grace_are_told_the_phase_is_processed_now(tmp_path) -> None:
    """A mail read in the same run as the deadline of a game without grace (delivered before the
    deadline was processed): it still counts, and the reply says the phase is processed now."""
    t = Table(tmp_path)
    t.start_game(options="move=24h retreat=12h adjust=12h grace=0h")
    hold_all(t, skip=("France",))
    t.now += timedelta(hours=24, minutes=5)
    out = t.send(t.powers["France"], t.signon("France") + "\nA Par - Bur")
    body = flat(t.reply_to(t.powers["France"], out).body)
    assert "The deadline has passed and your orders are not complete (2 missing): you are late." in body
    assert ("The grace period ended Tue Jan 08 2030 12:00:00 +0000: the phase is processed now with the orders "
            "given. A power still late is put in civil disorder: its unordered units hold.") in body
    assert any("S1901M Results" in m.subject for m in t.to(t.powers["France"], out)) and t.phase() == "F1901M"


def test_the_new_words_are_never_read_again_when_pasted(t: Table) -> None:
    """The replies late in grace and processed now, the adjustment status and late notice, and a
    folded master's mail, pasted (text or HTML copied as text) above or below a player's orders
    without quote marks: only the orders are read."""
    from judge.mail.incoming import html_to_text
    from judge.mail.newtext import new_text

    winter_with_builds_and_a_removal(t)
    t.send(t.powers["Austria"], t.signon("Austria"))
    t.advance(hours=24, minutes=1)  # late notices naming the builds and removals due
    t.send(t.powers["Germany"], t.signon("Germany"))  # late in grace, no orders
    t.order("Austria", "Remove A Bud")  # still late: Germany
    t.order("Germany", "Build A Kie")  # the last orders: processed now
    t.send(MASTER, "SIGNON Mtg masterpw\nPAUSE\nBROADCAST\nBack soon.\nENDPRESS")
    mine = ["SIGNON Etg pw1", "A Lvp - Yor", "F Lon H"]
    kinds = set()
    for m in t.mails:
        text_part = m.body
        kinds |= {w for w in ("you are late", "Still late", "processed now", "Pending orders:", "; Broadcast")
                  if w in flat(text_part) or w in m.subject}
        for body in (text_part, html_to_text(m.msg.get_body(("html",)).get_content())):
            pasted = body.strip("\n").split("\n")
            for full in (pasted + [""] + mine, mine + [""] + pasted):
                text, ignored = new_text("\n".join(full))
                assert [l for l in text.split("\n") if l.strip()] == mine, (m.subject, text)
                assert [b.kind for b in ignored] == ["judge"], (m.subject, ignored)
    assert kinds == {"you are late", "Still late", "processed now", "Pending orders:", "; Broadcast"}


def test_the_masters_list_shows_the_builds_and_removals_due(t: Table) -> None:
    winter_with_builds_and_a_removal(t)
    t.order("Italy", "Build A Ven")
    body = t.reply_to(MASTER, t.send(MASTER, "SIGNON Mtg masterpw\nLIST tg")).body
    rows = {line.split()[0]: line for line in body.splitlines() if line.startswith("  ") and line.split()}
    assert re.match(r"  Germany +1 build due +no ", rows["Germany"]), body
    assert re.match(r"  Austria +1 removal due +no ", rows["Austria"]), body
    assert re.match(r"  Italy +complete +no ", rows["Italy"]) and re.match(r"  France +not needed +no ", rows["France"])


def test_the_results_tell_a_power_that_ordered_some_units_from_one_that_sent_nothing(t: Table) -> None:
    # found in a play test: England ordered two of its three units and was listed among the powers
    # whose "orders were not received"
    hold_all(t, skip=("England", "France"))
    t.order("England", "F Lon - Nth\nA Lvp - Yor")
    out = t.advance(hours=37)  # past the deadline and its grace
    res = [m for m in out if "S1901M Results" in m.subject]
    assert res
    body = flat(res[0].body)
    assert "Orders were not received from France and orders from England were incomplete by the end of grace: " \
           "they are now in civil disorder" in body
    assert "not received from England" not in body and "not received from France, England" not in body


def test_a_power_with_no_adjustments_is_told_so_once(t: Table) -> None:
    winter_with_builds_and_a_removal(t)
    reply = t.reply_to(t.powers["England"], t.send(t.powers["England"], t.signon("England")))
    body = flat(reply.body)
    assert body.count("England has no adjustments to make.") == 1 and "nothing to order" not in body
    html = flat(reply.msg.get_body(("html",)).get_content())
    assert html.count("England has no adjustments to make.") == 1 and "nothing to order" not in html
