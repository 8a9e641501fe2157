"""SET RESULTS through the mail path: the results mail in njudge's layout to whoever chose it.

The master sets the game's layout, a player or observer their own; each copy of a phase's
results goes out in its recipient's layout, read back by the njudge reader, its order lines
whole however long (no 72-column wrapping: programs read one order a line).
"""

from __future__ import annotations

from pathlib import Path

from judge.game import lifecycle as games
from judge.render.njudge_reader import read_njudge
from judge.variant import load_variant

from tests.test_service_helpers import MASTER, Table, hold_all, observe

WATCHER = "watcher@example.test"
LONG = "Russia: Fleet St Petersburg (south coast) SUPPORT Army Moscow -> Livonia."


def test_results_layout_per_game_and_per_player(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    out = t.send(MASTER, "SIGNON Mtg masterpw\nSET RESULTS NJUDGE")
    assert "Results of 'tg' now come in njudge's text layout" in t.reply_to(MASTER, out).body
    france, germany, russia = t.powers["France"], t.powers["Germany"], t.powers["Russia"]
    out = t.send(france, t.signon("France") + "\nSET RESULTS ZINE")
    assert "Your results of 'tg' now come in the zine report." in t.reply_to(france, out).body
    t.send(germany, t.signon("Germany") + "\nSET RESULTS zine")
    out = t.send(germany, t.signon("Germany") + "\nSET RESULTS DEFAULT")  # back to the game's
    assert "Your results now come in the game's layout (njudge)." in t.reply_to(germany, out).body
    observe(t, WATCHER)
    out = t.send(WATCHER, "OBSERVE tg watchpw\nSET RESULTS ZINE")
    assert "now come in the zine report" in t.reply_to(WATCHER, out).body
    # refused, and nothing changed: a layout the judge does not have, no signon
    out = t.send(russia, t.signon("Russia") + "\nSET RESULTS HTML")
    body = t.reply_to(russia, out).body
    assert "SET RESULTS takes NJUDGE (njudge's text layout) or ZINE" in body and "not 'HTML'" in body
    out = t.send("stranger@example.test", "SET RESULTS NJUDGE")
    assert "Your results" not in t.reply_to("stranger@example.test", out).body
    g = games.get_game(t.judge.store, "tg")
    player = {s["power"]: str(s["player_id"]) for s in games.seats(t.judge.store, g.id)}
    assert g.options["results"] == "njudge"
    assert g.options["results_players"] == {player["France"]: "zine", **{
        str(s["player_id"]): "zine" for s in games.seats(t.judge.store, g.id, "observer")}}

    t.order("Russia", "A Mos - Lvn\nF StP/sc S A Mos - Lvn\nA War H\nF Sev - Bla")
    t.order("Turkey", "F Ank - Bla\nA Con H\nA Smy H")
    hold_all(t, skip=("Russia", "Turkey"))
    results = [m for m in t.mails if m.subject == "TEST:tg - S1901M Results"]
    by_addr = {a: m for m in results for a in m.to}
    assert set(by_addr) == {*t.powers.values(), MASTER, WATCHER}
    njudge = {a for a, m in by_addr.items() if "Movement results for Spring of 1901.  (tg.001)" in m.body}
    zine = {a for a, m in by_addr.items() if "Game tg - Standard Diplomacy - Spring 1901 Movement" in m.body}
    assert zine == {france, WATCHER} and njudge == set(by_addr) - zine
    mail = by_addr[germany]
    assert mail.body.startswith(":: Judge: TEST  Game: tg  Variant: Standard Diplomacy\n:: Deadline: F1901M ")
    assert f"\n{LONG}\n" in mail.body  # 73 columns, not wrapped
    assert "\nRussia: Fleet Sevastopol -> Black Sea. (*bounce*)\n" in mail.body
    assert "\nThe next phase of 'tg' will be Movement for Fall of 1901.\n" in mail.body
    # the reader reads the mail as sent: the engine's results, phase by phase
    v = load_variant("standard")
    read = read_njudge(mail.body, v)
    assert (read.game, read.seq, str(read.phase), str(read.next_phase)) == \
        ("tg", 1, "Spring 1901 Movement", "Fall 1901 Movement")
    assert len(read.orders) == 22 and sum(o.default for o in read.orders) == 0
    assert read.deadline and read.deadline.endswith("+0000")
    stored = t.rows("SELECT results FROM phases WHERE short = 'S1901M'")[0]["results"]
    assert '"result": "fails"' in stored and sum("bounce" in o.tags for o in read.orders) == 2
    # the HTML part: the same text monospaced, and the map the game's SET MAP carries
    html = mail.msg.get_body(("html",)).get_content()
    assert "<pre" in html and "Movement results for Spring of 1901." in html and 'src="cid:map"' in html
    # HISTORY and the archive keep the zine report
    assert "Game tg - Standard Diplomacy" in t.rows("SELECT text FROM reports")[-1]["text"]
    t.close()


def test_ownership_and_builds_in_njudge_layout_by_mail(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    t.send(MASTER, "SIGNON Mtg masterpw\nSET RESULTS NJUDGE")
    t.order("Germany", "A Mun - Bur\nA Ber - Kie\nF Kie - Hol")
    t.order("France", "A Par - Pic\nA Mar - Spa\nF Bre - Mao")
    hold_all(t, skip=("Germany", "France"))
    t.order("Germany", "A Bur H\nA Kie - Mun\nF Hol H")
    t.order("France", "A Pic - Bel\nA Spa H\nF Mao S A Spa")
    hold_all(t, skip=("Germany", "France"))
    winter = [m for m in t.mails if m.subject == "TEST:tg - F1901M Results" and MASTER in m.to][-1].body
    assert "\nOwnership of supply centers:\n" in winter
    assert "\nGermany:   4 Supply centers,  3 Units:  Builds   1 unit.\n" in winter
    assert "\nThe next phase of 'tg' will be Adjustments for Winter of 1901.\n" in winter
    t.order("Germany", "Build A Ber")
    t.order("France", "Build F Bre\nBuild A Par")
    builds = [m for m in t.mails if m.subject == "TEST:tg - W1901A Results" and MASTER in m.to]
    assert builds, [m.subject for m in t.mails[-5:]]
    body = builds[-1].body
    assert "\nGermany:                  Builds an army in Berlin.\n" in body
    assert "\nFrance:                   Builds a fleet in Brest.\nFrance:                   Builds an army in Paris.\n" in body
    read = read_njudge(body, load_variant("standard"))
    assert str(read.phase) == "Winter 1901 Adjustment" and str(read.next_phase) == "Spring 1902 Movement"
    t.close()


def test_njudge_layout_carries_the_map_link_when_the_game_links_it(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.cfg.archive_url = "https://dip.example.test/archive/"
    t.start_game()
    t.send(MASTER, "SIGNON Mtg masterpw\nSET MAP LINK\nSET RESULTS NJUDGE")
    hold_all(t)
    mail = [m for m in t.mails if m.subject == "TEST:tg - S1901M Results" and MASTER in m.to][-1]
    assert mail.body.rstrip().endswith("The map of the position: https://dip.example.test/archive/tg/001-S1901M.png")
    assert read_njudge(mail.body, load_variant("standard")).notes == [
        "The map of the position: https://dip.example.test/archive/tg/001-S1901M.png"]
    html = mail.msg.get_body(("html",)).get_content()
    assert 'href="https://dip.example.test/archive/tg/001-S1901M.png"' in html and "cid:map" not in html
    assert not list(mail.msg.iter_attachments())
    t.close()


def test_history_comes_in_the_askers_layout(tmp_path: Path) -> None:
    """HISTORY gives each asker the layout they chose (SET RESULTS), else the game's: a player who
    chose njudge's gets njudge's text with the map still attached; one who chose the zine, and a
    stranger in a zine game, the zine report."""
    t = Table(tmp_path)
    t.start_game()
    france, germany = t.powers["France"], t.powers["Germany"]
    t.send(germany, t.signon("Germany") + "\nSET RESULTS NJUDGE")
    t.order("Russia", "A Mos - Lvn\nF StP/sc S A Mos - Lvn\nA War H\nF Sev - Bla")
    hold_all(t, skip=("Russia",))
    ask = "HISTORY tg S1901M"
    reply = t.reply_to(germany, t.send(germany, ask))
    assert "Movement results for Spring of 1901.  (tg.001)" in reply.body and f"\n{LONG}\n" in reply.body
    assert "Game tg - Standard Diplomacy - Spring 1901 Movement" not in reply.body
    assert "The map of the position is attached (tg-S1901M.png)." in reply.body
    assert [a.get_filename() for a in reply.msg.iter_attachments()] == ["tg-S1901M.png"]
    read = read_njudge(reply.body.split("History of 'tg':", 1)[1], load_variant("standard"))
    assert (read.game, read.seq, len(read.orders)) == ("tg", 1, 22)
    for who in (france, "stranger@example.test"):
        body = t.reply_to(who, t.send(who, ask)).body
        assert "Game tg - Standard Diplomacy - Spring 1901 Movement" in body and "Movement results for" not in body
    # the game's layout njudge: everyone who chose nothing gets njudge's, a zine chooser the zine
    t.send(MASTER, "SIGNON Mtg masterpw\nSET RESULTS NJUDGE")
    t.send(france, t.signon("France") + "\nSET RESULTS ZINE")
    assert "Movement results for Spring of 1901." in t.reply_to(t.powers["Italy"], t.send(t.powers["Italy"], ask)).body
    assert "Movement results for" not in t.reply_to(france, t.send(france, ask)).body
    t.close()
