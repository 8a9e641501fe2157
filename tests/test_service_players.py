"""What players of njudge and DPjudge games write, through the Maildir path: press lines read whole
(never a recipient guessed from a word), fake press, press to all but some, observer and minor-phase
press, refused press quoted back; draws (DIAS, NoDIAS lists), concessions, votes secret or public;
DIARY; IF/ELSE/ENDIF conditional blocks refused whole."""

from __future__ import annotations

import json

import pytest

from judge.game.lifecycle import agreed_draw
from test_service_helpers import flat
from test_service_helpers import MASTER, Mail, Table, hold_all, observe

OBSERVER = "watcher@example.test"


def press_mails(out: list[Mail]) -> list[Mail]:
    return [m for m in out if " Press " in m.subject or " Broadcast" in m.subject]


def reply_of(table: Table, power: str, out: list[Mail]) -> Mail:
    return table.reply_to(table.powers[power], out)


# -- 1. nothing silently wrong -------------------------------------------------------------------
def test_press_to_f_from_g_is_refused_where_fake_press_is_off_and_sent_to_no_one(table: Table) -> None:
    table.start_game()
    out = table.order("England", "F Lon - Nth", extra="PRESS TO F FROM G\nMeet me in Burgundy.\nENDPRESS")
    reply = reply_of(table, "England", out)
    body = flat(reply.body)
    assert reply.subject.startswith("Re: [Error Flag]")
    assert "does not allow fake press" in body and "Nothing was sent: nobody received this press." in body
    assert "Your message, not sent: Meet me in Burgundy." in body
    assert press_mails(out) == []  # not France, not Germany, not Russia, not the master, not the observers
    assert table.rows("SELECT COUNT(*) AS n FROM press") == [{"n": 0}]
    assert "England: Fleet London -> North Sea." in reply.body  # the order in the same mail stands


@pytest.mark.parametrize("line, word", [
    ("PRESS TO F PLEASE", "PLEASE"),
    ("PRESS TO FRANCE PLZ GERMANY", "PLZ"),
    ("PRESS AND F", "AND"),
    ("PRESS TO FX", "FX"),
    ("PRESS FROM", "FROM"),
])
def test_a_press_word_that_is_no_recipient_refuses_the_press(table: Table, line: str, word: str) -> None:
    table.start_game()
    out = table.order("England", "", extra=f"{line}\nHello.\nENDPRESS")
    body = flat(reply_of(table, "England", out).body)
    assert "Nothing was sent" in body and "Your message, not sent: Hello." in body
    assert word in body
    assert press_mails(out) == []


def test_press_lists_as_players_write_them(table: Table) -> None:
    table.start_game()
    fra, ger, rus, tur = (table.powers[p] for p in ("France", "Germany", "Russia", "Turkey"))
    for line in ("PRESS TO FG", "PRESS TO F G", "PRESS TO France, Germany", "PRESS TO +FG", "PRESS FG",
                 "PRESS TO france,germany WHITE", "PRESS TO France and Germany"):
        out = table.order("England", "", extra=f"{line}\nHi.\nENDPRESS")
        got = sorted(a for m in press_mails(out) for a in m.to)
        assert got == sorted([fra, ger]), line
        assert "Message sent to France and Germany" in reply_of(table, "England", out).body
    # all but some: everyone else (the master and observers too), never the ones left out
    observe(table, OBSERVER)
    for line, left_out in (("PRESS TO -R", [rus]), ("PRESS TO -RT", [rus, tur]), ("PRESS TO ALL BUT R T", [rus, tur]),
                           ("PRESS TO ALL EXCEPT Russia, Turkey", [rus, tur])):
        out = table.order("England", "", extra=f"{line}\nNot for them.\nENDPRESS")
        got = {a for m in press_mails(out) for a in m.to}
        others = {a for p, a in table.powers.items() if p != "England"} - set(left_out)
        assert got == others | {MASTER, OBSERVER}, line
        assert not any("Broadcast" in m.subject for m in press_mails(out))


# -- fake press ------------------------------------------------------------------------------------
def test_fake_press_where_the_game_allows_it(table: Table) -> None:
    table.start_game(options="move=24h fake=yes")
    eng, fra, ger, aus = (table.powers[p] for p in ("England", "France", "Germany", "Austria"))
    out = table.order("England", "", extra="PRESS TO F FROM G\nYours, the Kaiser.\nENDPRESS")
    assert "Error" not in reply_of(table, "England", out).subject
    assert "shown as sent by Germany" in flat(reply_of(table, "England", out).body)
    [p] = press_mails(out)
    assert p.to == [fra] and "Press from G to F" in p.subject
    assert "Message from Germany to France in 'tg':" in p.body and "England" not in p.body
    row = table.rows("SELECT sender, shown_from, recipients FROM press")[0]
    assert row == {"sender": "England", "shown_from": "Germany", "recipients": '["France"]'}

    # DPjudge's other forms: FAKE FROM, FROM first; njudge's FAKE BROADCAST (a partial shown as broadcast)
    for line in ("PRESS FAKE FROM G TO F", "PRESS FROM G TO F"):
        out = table.order("England", "", extra=f"{line}\nAgain.\nENDPRESS")
        assert [m.to for m in press_mails(out)] == [[fra]] and "from Germany" in press_mails(out)[0].body
    out = table.order("England", "", extra="PRESS TO A FAKE BROADCAST\nTo all (really just Austria).\nENDPRESS")
    [p] = press_mails(out)
    assert p.to == [aus] and "Broadcast" in p.subject and "Broadcast message from England" in p.body
    out = table.order("England", "", extra="PRESS TO A FAKE TO AT\nAustria and Turkey, listen.\nENDPRESS")
    [p] = press_mails(out)
    assert p.to == [aus] and "to Austria and Turkey" in p.body

    # a faked broadcast: everyone reads "from Germany"; the master's copy says who really sent it
    out = table.order("England", "", extra="BROADCAST FROM G\nI will win.\nENDPRESS")
    mails = press_mails(out)
    assert ger in {a for m in mails for a in m.to}  # Germany is one of "everyone"
    for m in mails:
        assert "Broadcast message from Germany" in m.body
        assert ("really from England" in m.body) == (m.to == [MASTER])
    assert [m for m in mails if m.to == [MASTER]]
    assert eng not in {a for m in mails for a in m.to}

    # njudge's examples: a broadcast shown as sent to F, R, G; a press to all but Germany shown as a broadcast
    out = table.order("England", "", extra="PRESS FAKE TO FRG\nOnly you three know.\nENDPRESS")
    mails = press_mails(out)
    assert {a for m in mails for a in m.to} == {p for w, p in table.powers.items() if w != "England"} | {MASTER}
    assert all("to France, Germany and Russia" in m.body for m in mails)
    out = table.order("England", "", extra="PRESS TO ALL BUT G FAKE BROADCAST\nThis is Germany: you are all wimps.\n"
                                           "ENDPRESS")
    mails = press_mails(out)
    assert ger not in {a for m in mails for a in m.to} and all("Broadcast message from England" in m.body for m in mails)
    assert "really from England to" in [m for m in mails if m.to == [MASTER]][0].body

    # press to or from the master is never faked
    out = table.order("England", "", extra="PRESS TO M FROM G\nHi GM.\nENDPRESS")
    assert "never faked" in flat(reply_of(table, "England", out).body) and press_mails(out) == []


# -- observers and minor phases ------------------------------------------------------------------
def test_observer_press_is_an_option(table: Table, tmp_path) -> None:
    table.start_game()
    observe(table, OBSERVER)
    out = table.send(OBSERVER, "OBSERVE tg watchpw\nBROADCAST\nGo Russia!\nENDPRESS")
    body = flat(table.reply_to(OBSERVER, out).body)
    assert "does not allow press from observers" in body and "Your message, not sent: Go Russia!" in body
    assert press_mails(out) == []
    out = table.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO M\nA question for the GM.\nENDPRESS")
    assert [m.to for m in press_mails(out)] == [[MASTER]]

    other = Table(tmp_path / "obs")
    try:
        other.start_game(options="move=24h observer_press=white")
        observe(other, OBSERVER)
        out = other.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO F\nFrom the gallery.\nENDPRESS")
        [p] = press_mails(out)
        assert p.to == [other.powers["France"]] and "from an observer (watcher)" in p.body
        out = other.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO F GREY\nGuess.\nENDPRESS")
        assert "allows only white press from observers" in other.reply_to(OBSERVER, out).body
    finally:
        other.close()


def test_no_press_in_retreat_and_adjustment_phases_as_an_option(table: Table) -> None:
    table.start_game(options="move=24h retreat=12h adjust=12h minor_press=no")
    table.order("England", "F Lon - Nth\nF Edi H\nA Lvp H")
    hold_all(table, skip=("England",))
    table.order("England", "F Nth - Bel\nF Edi H\nA Lvp H")
    hold_all(table, skip=("England",))
    assert table.phase() == "W1901A"  # England builds for Belgium
    out = table.order("England", "", extra="PRESS TO F\nNice build season.\nENDPRESS")
    body = flat(reply_of(table, "England", out).body)
    assert "allows no press in retreat and adjustment phases" in body and "Nothing was sent" in body
    assert press_mails(out) == []
    out = table.order("England", "", extra="PRESS TO M\nTo the master is fine.\nENDPRESS")
    assert [m.to for m in press_mails(out)] == [[MASTER]]


# -- draws ---------------------------------------------------------------------------------------------
def test_dias_draw_refuses_a_partial_list_and_takes_the_full_one(table: Table) -> None:
    table.start_game()
    out = table.order("England", "SET DRAW EF")
    body = flat(reply_of(table, "England", out).body)
    assert "include all survivors (DIAS)" in body and "Your vote was not changed" in body
    assert table.rows("SELECT draw FROM seats WHERE power = 'England'") == [{"draw": 0}]
    out = table.order("England", "SET DRAW AEFGIRT")
    assert "votes for a draw of all survivors" in flat(reply_of(table, "England", out).body)
    for p in [p for p in table.powers if p != "England"]:
        table.order(p, "SET DRAW")
    assert table.game_state() == "finished"
    outcome = json.loads(table.rows("SELECT outcome FROM games")[0]["outcome"])
    assert outcome["kind"] == "draw" and len(outcome["powers"]) == 7
    notice = [m for m in table.mails if m.subject.endswith(" Draw")]
    assert notice and "7-way draw between England, France, Germany, Italy, Austria, Russia and Turkey" in flat(notice[0].body)
    assert ":: Deadline" not in notice[0].body  # the game is over: no deadline is waiting
    # the end notice says how the board stands (no results mail follows a draw)
    body = notice[0].body
    assert "The board at the end (Spring 1901 Movement):" in body
    assert "  Russia:   4 centres,  4 units  (" in body and "  England:  3 centres,  3 units  (" in body
    assert "@example.test" not in body.split("The board at the end")[1]  # public names, never addresses


def test_nodias_draw_of_the_powers_the_votes_name(table: Table) -> None:
    table.start_game(options="move=24h dias=no")
    table.order("England", "SET DRAW EF")
    table.order("France", "SET DRAW England France")
    for p in ("Germany", "Italy", "Austria", "Russia"):
        table.order(p, "SET DRAW E F")  # each leaves itself out
    assert table.game_state() == "active"
    out = table.order("Turkey", "DRAW E,F")
    assert table.game_state() == "finished"
    outcome = json.loads(table.rows("SELECT outcome FROM games")[0]["outcome"])
    assert outcome == {"kind": "draw", "powers": ["England", "France"], "phase": "S1901M"}
    notices = [m for m in out if m.subject.endswith(" Draw")]
    assert {a for m in notices for a in m.to} >= set(table.powers.values()) | {MASTER}
    assert "2-way draw between England and France" in flat(notices[0].body)


def test_nodias_nodraw_is_a_concession_to_oneself(table: Table) -> None:
    table.start_game(options="move=24h dias=no")
    for p in [p for p in table.powers if p != "Austria"]:
        table.order(p, "SET DRAW A")
    out = table.order("Austria", "SET NODRAW")
    assert "accepts only the game conceded to Austria alone" in flat(reply_of(table, "Austria", out).body)
    outcome = json.loads(table.rows("SELECT outcome FROM games")[0]["outcome"])
    assert outcome == {"kind": "concession", "winner": ["Austria"], "phase": "S1901M"}


@pytest.mark.parametrize("votes, draw", [  # njudge's data/draws examples, Austria, England, France surviving
    ({"France": "AEF", "England": "AEF", "Austria": "AEF"}, "AEF"),
    ({"France": "AE", "England": "AEF", "Austria": "AEF"}, "AEF"),
    ({"France": "AE", "England": "AEF", "Austria": "AE"}, "AE"),
    ({"France": "AEF", "England": "AE", "Austria": "AE"}, None),
    ({"France": "A", "England": "A", "Austria": "A"}, "A"),
    ({"France": "FT", "England": "E", "Austria": "A"}, None),
])
def test_nodias_subset_rule(votes: dict[str, str], draw: str | None) -> None:
    names = {"A": "Austria", "E": "England", "F": "France", "T": "Turkey"}
    alive = ["Austria", "England", "France"]
    got = agreed_draw({p: [names[c] for c in v] for p, v in votes.items()}, alive, dias=False)
    assert got == (None if draw is None else [names[c] for c in draw])
    assert agreed_draw({p: [] for p in alive}, alive, dias=True) == alive
    assert agreed_draw({"Austria": [], "England": [], "France": None}, alive, dias=True) is None


def test_votes_are_secret_but_the_master_sees_them(table: Table, tmp_path) -> None:
    table.start_game()
    out = table.order("England", "SET DRAW")
    assert [m for m in out if m.to != [table.powers["England"]]] == []  # nobody is told
    out = table.order("France", "LIST")
    assert "Votes this phase" not in reply_of(table, "France", out).body
    out = table.send(MASTER, "SIGNON Mtg masterpw\nLIST")
    body = table.reply_to(MASTER, out).body
    assert "Votes this phase:" in body and "England: draw (all survivors)" in body and "France: no vote" in body

    public = Table(tmp_path / "public")
    try:
        public.start_game(options="move=24h draw_votes=public")
        out = public.order("England", "SET DRAW")
        told = [m for m in out if "Vote: E" in m.subject]
        assert {a for m in told for a in m.to} >= set(public.powers.values())
        assert "England: draw (all survivors)" in told[0].body
        out = public.order("France", "LIST")
        assert "England: draw (all survivors)" in public.reply_to(public.powers["France"], out).body
    finally:
        public.close()


# -- concessions -----------------------------------------------------------------------------------------
def test_concession_to_the_largest_power(table: Table, tmp_path) -> None:
    table.start_game()
    out = table.order("England", "SET CONCEDE E")
    assert "only to the largest power on the board (Russia)" in flat(reply_of(table, "England", out).body)
    for p in [p for p in table.powers if p != "Russia"]:
        table.order(p, "SET CONCEDE R")
    assert table.game_state() == "active"
    out = table.order("Russia", "SET CONCEDE Russia")
    assert table.game_state() == "finished"
    assert json.loads(table.rows("SELECT outcome FROM games")[0]["outcome"])["winner"] == ["Russia"]
    assert [m for m in out if m.subject.endswith(" Concession")]

    for opts, ok in (("concessions=any", True), ("concessions=none", False)):
        other = Table(tmp_path / opts.replace("=", "-"))
        try:
            other.start_game(options=f"move=24h {opts}")
            out = other.order("England", "CONCEDE E")
            body = flat(other.reply_to(other.powers["England"], out).body)
            assert ("concedes the game to England" in body) == ok
            assert ("does not allow concessions" in body) == (not ok)
        finally:
            other.close()


def test_master_sets_the_new_switches_before_the_start(table: Table) -> None:
    table.send(MASTER, "CREATE ?fg masterpw standard")
    out = table.send(MASTER, "SIGNON Mfg masterpw\nSET NODIAS\nSET FAKE\nSET OBSERVER ANY PRESS\nSET NOMINORPRESS\n"
                             "SET DRAW_VOTES public\nSET CONCESSIONS none\nSET DIAS maybe\nLIST")
    body = table.reply_to(MASTER, out).body
    options = json.loads(table.rows("SELECT options FROM games WHERE name = 'fg'")[0]["options"])
    assert options["switches"] == {"dias": "no", "fake": "yes", "observer_press": "any", "minor_press": "no",
                                   "draw_votes": "public", "concessions": "none"}
    assert "dias takes one of yes, no, not 'maybe'" in body
    assert "fake press allowed" in body and "NoDIAS" in body
    # a running game keeps the rules its players joined
    table.start_game()
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET NODIAS\nSET FAKE yes")
    body = flat(table.reply_to(MASTER, out).body)
    assert body.count("can only be set before the game starts") == 2
    assert "switches" not in json.loads(table.rows("SELECT options FROM games WHERE name = 'tg'")[0]["options"])


# -- 3. DIARY --------------------------------------------------------------------------------------------
def test_diary_is_private_returned_with_history_and_published_at_the_end(table: Table, tmp_path) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.order("England", "F Lon - Nth", extra="DIARY\nFrance trusts me. Fool.\nENDPRESS\nA Lvp - Yor")
    reply = reply_of(table, "England", out)
    assert "Diary note 1 kept for England" in reply.body and "Error" not in reply.subject
    assert "England: Army Liverpool -> Yorkshire." in reply.body  # orders after the diary are read
    assert [m for m in out if "France trusts me" in m.body and m.to != [eng]] == []
    table.order("England", "", extra="DIARY RECORD\nSecond thoughts.")
    out = table.order("England", "DIARY LIST")
    assert "England's diary: 2 note(s)." in reply_of(table, "England", out).body
    out = table.order("England", "DIARY READ 2\nDIARY DELETE 2\nDIARY READ 2")
    body = flat(reply_of(table, "England", out).body)
    assert "note 2: England, Spring 1901 Movement: Second thoughts." in body and "Diary note 2 deleted." in body
    assert "DIARY READ <n>, n from 1 to 1" in body

    out = table.order("England", "DIARY\n" + "x" * 10_001 + "\nENDPRESS")
    assert "the note was not kept" in flat(reply_of(table, "England", out).body)
    out = table.order("England", "HISTORY tg")
    assert "France trusts me. Fool." in reply_of(table, "England", out).body
    out = table.order("France", "HISTORY tg")
    assert "France trusts me" not in reply_of(table, "France", out).body
    out = table.send("stranger@example.test", "HISTORY tg")
    assert "France trusts me" not in table.reply_to("stranger@example.test", out).body

    table.order("England", "DIARY\nLove <3 France\nENDPRESS")
    out = table.send(MASTER, "SIGNON Mtg masterpw\nTERMINATE")
    diaries = [m for m in out if m.subject.endswith(" Diaries")]
    assert {a for m in diaries for a in m.to} >= set(table.powers.values()) | {MASTER}
    assert "France trusts me. Fool." in diaries[0].body and "Second thoughts" not in diaries[0].body
    out = table.send("stranger2@example.test", "HISTORY tg")  # a stranger is answered once an hour
    assert "France trusts me. Fool." in table.reply_to("stranger2@example.test", out).body
    out = table.order("England", "DIARY\nToo late.\nENDPRESS")
    assert "is over: its diaries are published" in flat(reply_of(table, "England", out).body)
    # the archive (judge publish) shows them too, escaped
    from judge.game.archive import write_archive

    write_archive(table.judge.store, tmp_path / "archive", "TEST")
    page = (tmp_path / "archive" / "tg" / "index.html").read_text(encoding="utf-8")
    assert "Diaries" in page and "Love &lt;3 France" in page and "<3" not in page


# -- IF / ELSE / ENDIF -------------------------------------------------------------------------------------
def test_a_conditional_block_is_refused_whole_and_the_other_orders_stand(table: Table) -> None:
    table.start_game()
    out = table.order("England", "F Lon - Nth\nIF Germany A Mun\nA Lvp - Yor\nELSE\nA Lvp - Wal\nENDIF\nF Edi - Nwg")
    reply = reply_of(table, "England", out)
    body = flat(reply.body)
    assert reply.subject.startswith("Re: [Error Flag]")
    assert "conditional orders (IF ... ELSE ... ENDIF) are not accepted" in body
    assert "> A Lvp - Yor" in reply.body and "> A Lvp - Wal" in reply.body  # the block quoted back
    assert "England: Fleet London -> North Sea." in reply.body and "England: Fleet Edinburgh -> Norwegian Sea." in reply.body
    assert "Yorkshire" not in reply.body.split("> ENDIF")[-1] and "Wales" not in reply.body.split("> ENDIF")[-1]
    orders = " ".join(r["raw"] for r in table.rows("SELECT raw FROM orders WHERE state = 'active'"))
    assert "Lvp" not in orders

    # queued for a later phase: nothing of the block is queued
    out = table.order("England", "PHASE Fall 1901 Movement\nIF NOT France A Bur\nF Nth - Nwy\nENDIF\nA Lvp H")
    assert "not accepted" in reply_of(table, "England", out).body
    queued = table.rows("SELECT raw FROM future_orders WHERE state = 'pending'")
    assert queued and all("Nwy" not in q["raw"] and "IF" not in q["raw"] for q in queued)
    # an IF block without ENDIF runs to the next command; a sentence starting "If" is no block
    out = table.order("England", "IF Germany A Mun\nA Lvp - Yor\nELSE\nA Lvp - Wal\nSET WAIT")
    body = flat(reply_of(table, "England", out).body)
    assert "no ENDIF was found" in body and "Wait flag set" in body
    # written in lower case, as players type it: still one block, refused whole
    out = table.order("England", "if germany a mun\na lvp - wal\nelse\na lvp - yor\nend if\nA Lvp H")
    reply = reply_of(table, "England", out)
    assert "not accepted" in flat(reply.body) and "England: Army Liverpool HOLD." in reply.body
    out = table.order("England", "ELSE\nA Lvp - Yor")
    assert "ELSE without IF before it" in flat(reply_of(table, "England", out).body)
    out = table.order("England", "If you read this, fine.\nA Lvp - Yor")
    assert "Army Liverpool -> Yorkshire." in reply_of(table, "England", out).body
    assert "conditional" not in reply_of(table, "England", out).body


def test_help_lists_the_new_commands(table: Table) -> None:
    out = table.send("someone@example.test", "HELP")
    body = table.reply_to("someone@example.test", out).body
    for words in ("DIARY", "IF ... [ELSE ...] ENDIF", "SET DRAW [powers]", "SET FAKE yes|no", "SET DIAS yes|no",
                  "SET OBSERVER none|white|any", "SET CONCESSIONS", "PRESS TO -R"):
        assert words in body, words


# -- as mail clients write it ----------------------------------------------------------------------
@pytest.mark.parametrize("client", ["gmail-en", "gmail-de-html-only", "outlook-web-fr-html-only", "apple-mail-en",
                                    "ios-mail-it", "thunderbird-nl-html", "samsung-email"])
def test_fake_press_refused_as_each_client_sends_it(table: Table, client: str) -> None:
    """A reply to the judge's mail from a real client, with PRESS TO F FROM G in the new text and
    the judge's old mail quoted under it: refused, sent to no one, the letter quoted back."""
    import client_mails as cm

    table.start_game()
    new = [table.signon("England"), "PRESS TO F FROM G", "Germany here. Attack England!", "ENDPRESS", "",
           "Thanks,", "Bob"]
    old = [":: Judge: TEST  Game: tg  Variant: Standard Diplomacy", "", "Your orders are complete."]
    table.drop(cm.all_clients(new, old)[client])
    out = table.run()
    reply = table.reply_to("p1@example.test", out)
    body = flat(reply.body)
    assert "[Error Flag]" in reply.subject, body
    assert "does not allow fake press" in body and "Your message, not sent: Germany here. Attack England!" in body
    assert press_mails(out) == []


def test_a_diary_note_is_kept_whole_like_a_press_letter(table: Table) -> None:
    """A note's last lines look like a sign-off ("Thanks, Bob"): inside DIARY ... ENDPRESS they are
    the note, as in a press letter, not a signature the mail reader strips."""
    table.start_game()
    table.order("England", "", extra="DIARY\nFrance will stab in the fall.\n\nThanks,\nBob")
    out = table.order("England", "DIARY READ 1")
    body = reply_of(table, "England", out).body
    assert "France will stab in the fall." in body and "Thanks," in body and "Bob" in body, body


def test_an_open_press_that_swallowed_orders_is_not_sent(table: Table) -> None:
    """A letter without ENDPRESS runs to the end of the mail: when lines under it read as orders for
    the writer's own units, the letter is refused (not mailed to anyone, so the orders never reach
    another power) and the reply says why; a closed letter holding the same lines goes as written."""
    table.start_game()
    fra, ger = table.powers["France"], table.powers["Germany"]
    out = table.order("France", "", extra="PRESS TO G\nCarol, I'm moving into Belgium, please support.\n"
                                          "A Par - Bur\nF Bre - Mid-Atlantic Ocean")
    assert [m for m in out if ger in m.to] == []
    body = flat(reply_of(table, "France", out).body)
    assert "no ENDPRESS" in body and "A Par - Bur" in body and "Nothing was sent" in body, body
    # a letter without ENDPRESS and without orders still goes; one with ENDPRESS goes as written
    out = table.order("France", "", extra="PRESS TO G\nCarol, shall we talk about Belgium?")
    assert [m for m in out if ger in m.to]
    out = table.order("France", "", extra="PRESS TO G\nMy plan:\nA Par - Bur\nENDPRESS\nA Mar - Spa")
    assert any("A Par - Bur" in m.body for m in out if ger in m.to)
    assert "France: Army Marseilles -> Spain." in reply_of(table, "France", out).body
