"""The master's view and tools by mail: LIST with each power's player, orders, WAIT, late count
and centres; PREDICT (the master's, and a player's own where allowed); UNSTART; PROMOTE;
ROLLFORWARD after a ROLLBACK. Every mail goes through the real Maildir path."""

from __future__ import annotations

import re

from test_service_helpers import MASTER, Table, hold_all, observe

MSIGN = "SIGNON Mtg masterpw"


def row(body: str, power: str) -> str:
    found = re.search(rf"^  {power} +.*$", body, re.M)
    assert found, body
    return found.group(0)


def master_says(t: Table, body: str) -> str:
    return t.reply_to(MASTER, t.send(MASTER, f"{MSIGN}\n{body}")).body


def test_master_list_shows_player_address_orders_wait_late_and_centres(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("England", "F Lon H\nF Edi H")  # partial
    t.order("France", "F Bre H\nA Par H\nA Mar H", extra="SET WAIT")
    hold_all(t, skip=("England", "France", "Turkey"))
    body = master_says(t, "LIST tg")
    eng, fra, tur = row(body, "England"), row(body, "France"), row(body, "Turkey")
    assert "partial" in eng and t.powers["England"] in eng
    assert re.search(r"complete +yes", fra)
    assert re.search(r"none +no +0 +3 ", tur) and t.powers["Turkey"] in tur
    assert "4 " in row(body, "Russia")
    # a phase processed without Turkey's orders counts once against Turkey, and nobody else
    master_says(t, "PROCESS")
    body = master_says(t, "LIST tg")
    assert re.search(r" +1 +3 ", row(body, "Turkey")), body
    assert re.search(r"(none|complete|partial) +no +0 ", row(body, "Germany")), body


def test_list_of_a_player_or_anyone_shows_no_addresses_or_order_state(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("England", "F Lon H\nF Edi H\nA Lvp H")
    for sender, body in ((t.powers["France"], t.signon("France") + "\nLIST tg"), ("x@example.test", "LIST tg")):
        text = t.reply_to(sender, t.send(sender, body)).body
        assert not any(a in text for a in t.powers.values() if a != sender)
        assert "Orders          Wait  Late" not in text and not re.search(r"^  England +complete", text, re.M)


def test_master_predict_shows_results_and_stores_nothing(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    t.order("France", "A Par - Bur\nA Mar - Bur\nF Bre H")
    before = t.rows("SELECT id, state, results FROM phases")
    body = master_says(t, "PREVIEW")
    assert "PREDICTION — nothing has been processed" in body
    assert "England: Fleet London -> North Sea." in body
    assert "France: Army Paris -> Burgundy.  (*bounce*)" in body or "(*bounce*)" in body
    assert t.rows("SELECT id, state, results FROM phases") == before
    assert t.phase() == "S1901M"
    assert not [m for m in t.mails[-3:] if "Results" in m.subject]


def test_player_predict_needs_the_masters_leave_and_uses_only_their_own_orders(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("Germany", "A Mun - Bur\nA Ber H\nF Kie H")
    fr = t.powers["France"]
    body = t.reply_to(fr, t.send(fr, t.signon("France") + "\nPREDICT")).body
    assert "does not allow players to PREDICT" in body and "PREDICTION" not in body
    assert "*** Error" not in master_says(t, "SET PREDICT yes")
    body = t.reply_to(fr, t.send(fr, t.signon("France") + "\nA Par - Bur\nPREDICT")).body
    assert "PREDICTION — nothing has been processed" in body
    assert "France: Army Paris -> Burgundy." in body and "(*bounce*)" not in body  # Germany's order unseen
    assert "Germany: Army Munich, No Order Processed." in body  # shown holding, its order not revealed
    assert not [line for line in body.splitlines() if line.startswith("Germany:") and "Burgundy" in line]
    assert t.phase() == "S1901M"
    # an observer may not PREDICT
    observe(t, "obs@example.test")
    body = t.reply_to("obs@example.test", t.send("obs@example.test", "SIGNON Otg watchpw\nPREDICT")).body
    assert "only the master, or a player signed on as a power, may" in body


def test_unstart_returns_a_game_to_forming_with_its_players(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("England", "F Lon H")
    body = master_says(t, "UNSTART")
    assert "forming again" in body
    assert t.game_state() == "forming"
    assert t.rows("SELECT COUNT(*) AS n FROM phases")[0]["n"] == 0
    assert t.rows("SELECT COUNT(*) AS n FROM orders")[0]["n"] == 0
    seats = t.rows("SELECT power, player_id FROM seats WHERE role = 'player'")
    assert len(seats) == 7 and all(s["power"] is None and s["player_id"] for s in seats)
    assert any("Unstarted" in m.subject for m in t.to(t.powers["Italy"]))
    # the game is full: a newcomer is told so, not given an eighth seat
    body = t.reply_to("late@example.test", t.send("late@example.test", "SIGNON ?tg latepw")).body
    assert "has a player for every power" in body and t.game_state() == "forming"
    assert len(t.rows("SELECT id FROM seats WHERE role = 'player'")) == 7
    out = t.send(MASTER, f"{MSIGN}\nSTART")
    assert t.game_state() == "active" and t.phase() == "S1901M"
    assert sum("Game Starting" in m.subject for m in out) >= 7


def test_unstart_refused_once_a_phase_is_processed(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    hold_all(t)
    assert t.phase() == "F1901M"
    body = master_says(t, "UNSTART")
    assert "has processed a phase" in body and t.game_state() == "active"
    assert "only the game master" in t.reply_to(t.powers["Italy"], t.send(
        t.powers["Italy"], t.signon("Italy") + "\nUNSTART")).body


def test_promote_makes_an_observer_a_co_master_with_its_own_password(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    obs = "helper@example.test"
    body = master_says(t, f"PROMOTE {obs}")
    assert "does not observe" in body
    observe(t, obs, password="helperpw")
    # before PROMOTE the observer's password does not open the master's seat
    assert "Invalid password" in t.reply_to(obs, t.send(obs, "SIGNON Mtg helperpw")).body
    out = t.send(MASTER, f"{MSIGN}\nPROMOTE {obs}")
    assert "now a co-master" in t.reply_to(MASTER, out).body
    assert any("Co-master" in m.subject for m in t.to(obs, out))
    body = t.reply_to(obs, t.send(obs, "SIGNON Mtg helperpw\nLIST tg")).body
    assert "Signed on as master" in body and t.powers["England"] in body
    # the co-master password works only from the co-master's address; the master's own still works
    assert "Invalid password" in t.reply_to("else@example.test",
                                            t.send("else@example.test", "SIGNON Mtg helperpw")).body
    assert "Signed on as master" in master_says(t, "LIST tg")
    # the right goes with the observer seat: ejected and observing again, the address has it no more
    assert "Ejected" in master_says(t, f"EJECT {obs}")
    observe(t, obs, password="helperpw")
    assert "Invalid password" in t.reply_to(obs, t.send(obs, "SIGNON Mtg helperpw")).body
    # likewise a co-master who stops observing
    assert "now a co-master" in master_says(t, f"PROMOTE {obs}")
    t.send(obs, "UNOBSERVE tg")
    observe(t, obs, password="helperpw")
    assert "Invalid password" in t.reply_to(obs, t.send(obs, "SIGNON Mtg helperpw")).body


def test_rollforward_replays_the_phases_a_rollback_undid(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(t, skip=("England",))
    assert t.phase() == "F1901M"
    t.order("England", "F Nth - Nwy\nF Nwg H\nA Yor H")
    hold_all(t, skip=("England",))
    assert t.phase() == "W1901A"
    assert "nothing to roll forward" in master_says(t, "ROLLFORWARD")
    master_says(t, "ROLLBACK S1901M")
    assert t.phase() == "S1901M"
    body = master_says(t, "ROLLFORWARD")
    assert "Rolled forward: processed S1901M, F1901M again." in body
    assert t.phase() == "W1901A"
    from judge.game import lifecycle as games
    g = games.get_game(t.judge.store, "tg")
    pos = games.current_phase(t.judge.store, g).position
    assert pos.centres.get("nwy") == "England"
    assert "nothing to roll forward" in master_says(t, "ROLLFORWARD")  # once only


def test_rollforward_stops_where_changed_orders_lead_elsewhere(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    hold_all(t)
    hold_all(t)
    assert t.phase() == "S1902M"
    master_says(t, "ROLLBACK F1901M")
    master_says(t, "ROLLBACK S1901M")  # the last ROLLBACK is what ROLLFORWARD replays
    # England changes its orders (and WAITs, so the phase does not process at once)
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor", extra="SET WAIT")
    assert t.phase() == "S1901M"
    body = master_says(t, "ROLLFORWARD")
    assert "Rolled forward: processed S1901M again." in body
    assert "another course" in body
    assert t.phase() == "F1901M"
    from judge.game import lifecycle as games
    g = games.get_game(t.judge.store, "tg")
    ph = games.current_phase(t.judge.store, g)
    assert t.rows("SELECT COUNT(*) AS n FROM orders WHERE phase_id = ?", (ph.id,))[0]["n"] == 0


def test_orders_after_the_deadline_count_as_late(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    hold_all(t, skip=("Turkey",))
    t.advance(hours=25)  # past the deadline, inside the grace period
    assert t.phase() == "S1901M"
    t.order("Turkey", "F Ank H\nA Con H\nA Smy H")
    assert t.phase() == "F1901M"
    hold_all(t)  # Fall on time
    body = master_says(t, "LIST tg")
    assert re.search(r"^  Turkey +\S+ +no +1 ", body, re.M), body
    assert re.search(r"^  France +\S+ +no +0 ", body, re.M), body


def test_help_lists_the_masters_commands_and_the_players_predict(tmp_path):
    t = Table(tmp_path)
    body = t.reply_to("x@example.test", t.send("x@example.test", "HELP")).body
    player = body[body.index("A signed-on player may also use:"):body.index("The game master may also use:")]
    master = body[body.index("The game master may also use:"):]
    assert re.search(r"^  PREDICT +.*SET PREDICT", player.replace("\n" + " " * 28, " "), re.M), player
    for word in ("PREDICT", "UNSTART", "PROMOTE <address>", "ROLLFORWARD"):
        assert re.search(rf"^  {word}", master, re.M), word
    assert "UNSTART" not in player and "ROLLFORWARD" not in player


def test_master_list_of_a_game_over_shows_no_open_orders(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    hold_all(t)
    master_says(t, "TERMINATE")
    body = master_says(t, "LIST tg")
    assert re.search(r"^  Turkey +- +no +0 +3 +p\d <", body, re.M), body  # the last board's centres
