"""The Game Starting mail a player keeps: the units by power in the variant's order, the map
(shown in the HTML part, attached for text readers), who plays which power by public name (none
in an anonymous game), and the game's settings in words; text part and HTML part, through the
Maildir path."""

from __future__ import annotations

import re
import tomllib

import pytest

from judge.resources import seeds_dir
from mail_scenarios import confirm
from test_service_helpers import MASTER, Mail, Table, flat
from test_service_public_names import join

LIMIT = 60 * 1024


def start_mails(t: Table) -> list[Mail]:
    return [m for m in t.mails if "Game Starting" in m.subject and m.to != [MASTER] and "You are " in m.body]


def test_units_are_listed_by_power_in_the_variants_order(table: Table) -> None:
    table.start_game()
    seed = tomllib.loads((seeds_dir() / "standard.toml").read_text("utf-8"))
    order = list(seed["powers"])
    for m in start_mails(table):
        block = m.body.split("Starting position:\n\n", 1)[1].split("\n\n", 1)[0].split("\n")
        powers = [line.split(":")[0] for line in block]
        assert list(dict.fromkeys(powers)) == order, block
        assert len(block) == 22


def test_the_start_mail_carries_the_map_for_every_reader(table: Table) -> None:
    table.start_game()
    mails = start_mails(table)
    assert len(mails) == 7
    for m in mails:
        assert "The map of the starting position is attached (map.png)." in m.body
        assert [p.get_filename() for p in m.msg.iter_attachments()] == ["map.png"]  # a text reader has it
        png = next(p for p in m.msg.walk() if p.get_content_type() == "image/png")
        assert png["Content-ID"] == "<map>" and png.get_content().startswith(b"\x89PNG")
        assert 'src="cid:map"' in m.msg.get_body(("html",)).get_content()
    sizes = [len(r["message"]) for r in table.rows("SELECT message FROM outbox WHERE kind = 'start'")]
    assert len(sizes) == 7 and max(sizes) <= LIMIT, sizes


def test_set_map_off_sends_no_map_and_says_none(table: Table) -> None:
    table.start_game(setup="SET MAP OFF")
    for m in start_mails(table):
        assert "The map of the starting position" not in m.body and "a report without a map" in flat(m.body)
        assert not list(m.msg.iter_attachments()) and "cid:map" not in m.msg.get_body(("html",)).get_content()


def test_the_roster_names_the_players_by_public_name_never_by_address(table: Table) -> None:
    table.send(MASTER, "CREATE ?ng masterpw standard")
    names = ["Bertrand Dupuis", "Анна Петрова", "Marie Curie", "Ada Lovelace", "Dieter Rams", "Kim Lee"]
    for i, name in enumerate(names):
        join(table, f"{name} <n{i}@example.test>", f"n{i}@example.test")
    join(table, "n6@example.test", "n6@example.test")  # no display name: the mailbox name
    mails = start_mails(table)
    assert len(mails) == 7
    for m in mails:
        roster = m.body.split("Players:\n\n", 1)[1].split("\n\n", 1)[0]
        shown = sorted(line.split(":", 1)[1].strip() for line in roster.split("\n"))
        assert shown == sorted(names + ["n6"]), roster
        assert "@" not in roster
        html = m.msg.get_body(("html",)).get_content()
        assert "Анна Петрова" in html and "n0@example.test" not in html


def test_an_anonymous_game_names_no_one(table: Table) -> None:
    table.start_game(options="anonymous=yes")
    for m in start_mails(table):
        assert "This game is anonymous: the players are not named until it is over." in m.body
        assert "Players:" not in m.body and not re.search(r"\bp\d\b", m.body.split("Starting position")[1])
        html = m.msg.get_body(("html",)).get_content()
        assert "the players are not named until it is over" in html
        assert "Anonymous:" in m.body or "Anonymous: " in flat(m.body)


def test_the_settings_are_said_in_words(table: Table) -> None:
    table.start_game(options="move=36h retreat=12h adjust=1d grace=6h press=grey nmr=wait abandon=3 dias=no "
                         "votes=public concessions=none fake=yes",
                 setup="SET MOVE CLOCK 20:00\nSET RESULTS NJUDGE")
    m = start_mails(table)[0]
    text = flat(m.body.split("The game's settings:", 1)[1])
    for words in [
        "Deadlines: Movement phases last 36 hours (then on to the next 20:00); retreats 12 hours; "
        "adjustments 1 day. Deadlines are given in UTC time.",
        "Grace: 6 hours after each deadline",
        "Grace: 6 hours after each deadline: a power whose orders are not complete by the deadline is late, "
        "but its orders still count until grace ends. The phase is processed as soon as every power's orders "
        "are complete, or when grace ends, with the orders given by then.",
        "A late power: A power still late when grace ends is opened for takeover, and the phase waits for its "
        "new player (or for the master's PROCESS).",
        "A power that sends no orders at all for 3 phases in a row is opened for takeover.",
        "Messages: grey press: letters do not name their writer; fake press allowed",
        "Draws: a draw is shared by the powers the votes name (NoDIAS); votes are public (everyone sees them).",
        "Concessions: no concessions.",
        "Victory: 18 supply centres.",
        "Results: njudge's text layout",
    ]:
        assert words in text, (words, text)
    html = flat(m.msg.get_body(("html",)).get_content())
    assert "<b>Grace:</b> 6 hours after each deadline" in html and "(NoDIAS)" in html
    assert not re.search(r"(?<!max-)width:\s*\d+px", html)  # reads on a phone


def test_default_settings_are_said_too(table: Table) -> None:
    table.start_game()
    text = flat(start_mails(table)[0].body.split("The game's settings:", 1)[1])
    assert ("A power still late when grace ends is put in civil disorder: its unordered units hold; its "
            "unordered dislodged units disband; builds it did not order are waived") in text
    assert "Messages: white press: every letter names its writer" in text and "(DIAS)" in text
    assert "votes are secret (only the master sees them)" in text


@pytest.mark.parametrize("more", ["", "anonymous=yes"])
def test_a_pasted_start_mail_is_not_read_again(table: Table, more: str) -> None:
    """The start mail with every setting said, its text part or its HTML part copied as text,
    pasted above or below a player's orders: only the orders are read (no "Press: ..." line, no
    roster line taken for a command)."""
    from judge.mail.incoming import html_to_text
    from judge.mail.newtext import new_text

    table.start_game(options=f"move=36h press=any nmr=wait dias=no votes=public fake=yes predict=yes {more}",
                     setup="SET MOVE CLOCK 20:00\nSET DAYS -MTWTF-")
    mine = ["SIGNON Etg pw1", "A Lvp - Yor", "F Lon H"]
    for m in start_mails(table):
        for body in (m.body, html_to_text(m.msg.get_body(("html",)).get_content())):
            pasted = body.strip("\n").split("\n")
            for full in (pasted + [""] + mine, mine + [""] + pasted):
                text, ignored = new_text("\n".join(full))
                assert [line for line in text.split("\n") if line.strip()] == mine, text
                assert [b.kind for b in ignored] == ["judge"], ignored


@pytest.mark.parametrize("vname", ["1885", "deluge2", "coast_running", "af_standard"])
def test_every_variants_start_mail_fits_a_list(table: Table, vname: str) -> None:
    """The start mail with its map, roster and settings stays under 60 kB on every variant's board
    (1885 II's nine powers and wider map: 53 kB when measured), its units in the seed's order."""
    from judge.variant import load_variant

    v = load_variant(vname)
    table.send(MASTER, f"CREATE ?vg masterpw {vname}")
    for i in range(len(v.powers)):
        table.send(f"q{i}@example.test", f"SIGNON ?vg pw{i}xx")
    sizes = [len(r["message"]) for r in table.rows("SELECT message FROM outbox WHERE kind = 'start'")]
    assert len(sizes) == len(v.powers) and max(sizes) <= LIMIT, sizes
    seed = list(tomllib.loads((seeds_dir() / f"{vname}.toml").read_text("utf-8"))["powers"])
    for m in start_mails(table):
        assert [a.get_filename() for a in m.msg.iter_attachments()] == ["map.png"]
        block = m.body.split("Starting position:\n\n", 1)[1].split("\n\n", 1)[0].split("\n")
        shown = list(dict.fromkeys(p for line in block if (p := line.split(":")[0]) in seed))  # (wrapped notes)
        assert shown == [p for p in seed if p in shown], block  # (Deluge II starts with builds: none)


@pytest.mark.parametrize("more", ["", "anonymous=yes"])
def test_observers_and_the_list_get_the_public_start_mail(table: Table, more: str) -> None:
    """An observer and the game's list get the start mail's public parts: the position by power,
    the map, the roster (none in an anonymous game), the settings; no power, no sign-on, no
    addresses, each observer apart."""
    lst = "club-list@example.test"
    table.send(MASTER, f"CREATE ?og masterpw standard {more}\nSET LIST {lst}")
    watchers = ["Olga Watcher <w1@example.test>", "w2@example.test"]
    for i, (w, addr) in enumerate(zip(watchers, ["w1@example.test", "w2@example.test"])):
        confirm(table, addr, table.send(w, f"OBSERVE og watch{i}pw"))
    names = ["Bertrand Dupuis", "Анна Петрова", "Marie Curie", "Ada Lovelace", "Dieter Rams", "Kim Lee", "Li Wei"]
    for i, name in enumerate(names):
        join(table, f"{name} <n{i}@example.test>", f"n{i}@example.test", game="og")
    for to in (["w1@example.test"], ["w2@example.test"], [lst]):
        got = [m for m in table.mails if "Game Starting" in m.subject and m.to == to]
        assert len(got) == 1, (to, [(m.to, m.subject) for m in table.mails if "Game Starting" in m.subject])
        m = got[0]
        html = m.msg.get_body(("html",)).get_content()
        for part in (m.body, html):
            assert "You are " not in part and "SIGNON" not in part and "mypassword" not in part
            assert "@example.test" not in part
        body = flat(m.body)
        assert ("you watch it as an observer" in body) == (to != [lst])
        block = m.body.split("Starting position:\n\n", 1)[1].split("\n\n", 1)[0].split("\n")
        assert len(block) == 22 and block[0].startswith("England: ")
        assert "The map of the starting position is attached (map.png)." in m.body and 'src="cid:map"' in html
        assert "Grace: " in body and "Messages: white press" in body
        if more:
            assert "Players:" not in m.body and "the players are not named until it is over" in body
            assert not any(n in part for n in names for part in (m.body, html))
        else:
            roster = m.body.split("Players:\n\n", 1)[1].split("\n\n", 1)[0]
            assert sorted(line.split(":", 1)[1].strip() for line in roster.split("\n")) == sorted(names)


def test_the_start_mail_and_the_replies_say_grace_in_the_same_words(table: Table) -> None:
    """What grace means and what becomes of a late power: the start mail's settings, the late
    notice and a reply in grace use one set of words."""
    table.start_game()  # move=24h grace=12h, nmr=cd
    text = flat(start_mails(table)[0].body.split("The game's settings:", 1)[1])
    processed = "The phase is processed as soon as every power's orders are complete, or "
    assert processed + "when grace ends, with the orders given by then." in text
    assert "A power still late when grace ends is put in civil disorder: its unordered units hold;" in text
    notices = table.advance(hours=25)
    late = next(m for m in notices if "Late Notice" in m.subject and table.powers["France"] in m.to)
    assert processed + "at the end of the grace period, " in flat(late.body)
    assert "A power still late then is put in civil disorder: its unordered units hold." in flat(late.body)
    reply = flat(table.reply_to(table.powers["France"], table.order("France", "A Par H")).body)
    assert "you are late" in reply and processed + "at the end of the grace period, " in reply
    assert "A power still late then is put in civil disorder: its unordered units hold." in reply
    html = flat(table.reply_to(table.powers["France"], table.mails).msg.get_body(("html",)).get_content())
    assert processed.replace("'", "&#39;") + "at the end of the grace period" in html
