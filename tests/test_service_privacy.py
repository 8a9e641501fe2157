"""Addresses are private, and anonymous (gunboat) games hide who plays until the end: every mail the
judge sends through the Maildir path and every page ``judge publish`` writes is searched for the
players' addresses and public names."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.game.archive import write_archive
from test_service_helpers import flat
from mail_scenarios import confirm
from test_service_helpers import MASTER, Mail, Table, acquaint, hold_all, observe

OBSERVER = "watcher@example.test"
STRANGER = "stranger@example.test"
OPTIONS = "move=24h retreat=12h adjust=12h grace=12h"


def everything(m: Mail) -> str:
    """A mail as its reader gets it: every header and every text part (plain and HTML), decoded."""
    parts = [f"{k}: {v}" for k, v in m.msg.items()]
    parts += [p.get_content() for p in m.msg.walk() if p.get_content_maintype() == "text"]
    return "\n".join(parts)


def name_everyone(t: Table) -> dict[str, str]:
    """Every player and the observer set a public name; returns address -> name."""
    names = {}
    for i, (power, addr) in enumerate(sorted(t.powers.items())):
        names[addr] = f"Zorba{i} Quillfeather"
        confirm(t, addr, t.order(power, f"SET NAME {names[addr]}"))  # a name is confirmed from the address
    observe(t, OBSERVER)
    confirm(t, OBSERVER, t.send(OBSERVER, "OBSERVE tg watchpw\nSET NAME Vigil Onlooker"))
    names[OBSERVER] = "Vigil Onlooker"
    acquaint(t, STRANGER)  # known to the judge (a game of its own), so each look-up is answered
    return names


def leaks(mails: list[Mail], names: dict[str, str], hide_names: bool) -> list[tuple[str, str, str]]:
    """(recipient, subject, what) for each address (and, with ``hide_names``, public name) of a
    person that a mail to anyone else but the master shows."""
    out = []
    for m in mails:
        if MASTER in m.to:
            continue
        text = everything(m)
        for addr, name in names.items():
            if addr in m.to:
                continue  # their own mail
            if addr in text:
                out.append((",".join(m.to), m.subject, addr))
            if hide_names and name in text:
                out.append((",".join(m.to), m.subject, name))
    return out


def lookups(t: Table) -> None:
    """WHOGAME, LIST, SUMMARY and HISTORY by a player, the observer and a stranger (no SIGNON)."""
    for what in ("WHOGAME tg", "LIST tg", "SUMMARY tg", "HISTORY tg"):
        t.order("England", what)
        t.send(OBSERVER, f"OBSERVE tg watchpw\n{what}")
        t.send(STRANGER, what)


def published(store, out: Path) -> str:
    write_archive(store, out, "TEST")
    return "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*") if p.suffix in (".html", ".txt", ".xml", ".json"))


def test_an_anonymous_game_shows_nobody_until_the_end_then_reveals_the_players(table: Table, tmp_path) -> None:
    table.start_game(options=f"anonymous=yes observer_press=white {OPTIONS}")
    names = name_everyone(table)
    out = table.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO F\nFrom the gallery, to France.\nENDPRESS")
    [press] = [m for m in out if m.to == [table.powers["France"]]]
    assert "from an observer (anonymous)" in flat(press.body)
    table.order("England", "PRESS TO F\nA secret pact?\nENDPRESS")
    table.order("France", "BROADCAST\nPeace to all.\nENDBROADCAST")
    table.order("Germany", "PRESS TO M\nA question for the master.\nENDPRESS")
    out = table.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO M\nFrom the gallery.\nENDPRESS")
    [press] = [m for m in out if m.to == [MASTER]]
    assert f"observer Vigil Onlooker <{OBSERVER}>" in flat(press.body)  # the master sees who wrote
    hold_all(table, skip=("Italy",))
    lookups(table)
    late = table.advance(hours=24)  # the deadline: Italy is late
    assert [m for m in late if "Late Notice" in m.subject and m.to == [table.powers["Italy"]]]
    results = table.advance(hours=12)  # the end of grace: processed, Italy in civil disorder
    assert [m for m in results if "Results" in m.subject or "F1901" in m.subject]
    assert "anonymous" in everything(table.to(table.powers["England"], results)[0])
    lookups(table)
    before = published(table.judge.store, tmp_path / "before")

    # the master sees everything; a player sees their own address and no one else's
    out = table.send(MASTER, "SIGNON Mtg masterpw\nWHOGAME tg\nSUMMARY tg")
    reply = table.reply_to(MASTER, out).body
    assert all(a in reply and n in reply for a, n in names.items())
    out = table.order("England", "WHOGAME tg")
    reply = table.reply_to(table.powers["England"], out).body
    assert table.powers["England"] in reply and names[table.powers["England"]] in reply
    assert "anonymous" in reply

    found = leaks(table.mails, names, hide_names=True)
    assert found == []
    for addr, name in names.items():
        assert addr not in before and name not in before
    assert "@example.test" not in before
    assert "anonymous" in before and "Spring 1901 Movement" in before  # the pages are there, naming no one

    # the end (every power votes a draw): the end report names the players, still without addresses
    end_at = len(table.mails)
    for power in table.powers:
        table.order(power, "SET DRAW")
    assert table.game_state() == "finished"
    [reveal] = [m for m in table.to(table.powers["France"], table.mails[end_at:]) if "Players revealed" in m.subject]
    for addr, name in names.items():
        if addr != OBSERVER:
            assert name in reveal.body
    assert leaks(table.mails[end_at:], names, hide_names=False) == []
    after = published(table.judge.store, tmp_path / "after")
    assert all(name in after for addr, name in names.items() if addr != OBSERVER)
    assert "@example.test" not in after
    out = table.send(STRANGER, "WHOGAME tg")
    reply = table.reply_to(STRANGER, out).body
    assert names[table.powers["Russia"]] in reply and "@example.test" not in reply.replace(STRANGER, "")


def test_a_normal_game_shows_an_address_only_to_the_master_and_its_owner(table: Table, tmp_path) -> None:
    table.start_game(options=OPTIONS)
    names = name_everyone(table)
    table.order("England", "PRESS TO F\nA pact?\nENDPRESS")
    table.send(OBSERVER, "OBSERVE tg watchpw\nPRESS TO M\nFrom the gallery.\nENDPRESS")
    hold_all(table, skip=("Italy",))
    lookups(table)
    table.advance(hours=24)
    table.advance(hours=12)
    lookups(table)
    assert leaks(table.mails, names, hide_names=False) == []
    # the public names are shown: WHOGAME to a stranger names every player, without an address
    out = table.send(STRANGER, "WHOGAME tg\nSUMMARY tg")
    reply = table.reply_to(STRANGER, out).body
    assert all(n in reply for n in names.values())
    assert "gm@example.test" not in reply
    page = published(table.judge.store, tmp_path / "site")
    assert names[table.powers["Russia"]] in page and "@example.test" not in page
    out = table.send(MASTER, "SIGNON Mtg masterpw\nWHOGAME tg")
    reply = table.reply_to(MASTER, out).body
    assert all(a in reply for a in names)


@pytest.mark.parametrize("line", ["SET ADDRESSES public", "SET ADDRESSES=public"])
def test_the_master_may_make_addresses_public_before_the_start(table: Table, line: str) -> None:
    table.send(MASTER, f"CREATE ?tg masterpw standard {OPTIONS}")
    out = table.send(MASTER, f"SIGNON Mtg masterpw\n{line}\nLIST tg")
    reply = flat(table.reply_to(MASTER, out).body)
    assert "Addresses set to public." in reply and "Addresses: public" in reply
    for i in range(7):
        table.send(f"p{i}@example.test", f"SIGNON ?tg pw{i}")
    out = table.send(STRANGER, "WHOGAME tg")
    reply = table.reply_to(STRANGER, out).body
    assert all(f"p{i}@example.test" in reply for i in range(7)) and MASTER in reply
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET ADDRESSES private")
    assert "can only be set before the game starts" in flat(table.reply_to(MASTER, out).body)
    # a player who meant SET ADDRESS is told so, and nothing changes
    player = "p0@example.test"
    out = table.send(player, "SIGNON ?tg pw0\nSET ADDRESSES p0@elsewhere.test")
    assert "where your own mail goes is SET ADDRESS a@b.c" in flat(table.reply_to(player, out).body)
    assert table.rows("SELECT addresses FROM seats WHERE addresses IS NOT NULL") == []


def test_gunboat_is_set_as_njudge_masters_write_it_and_help_lists_both(table: Table) -> None:
    table.send(MASTER, "CREATE ?tg masterpw standard")
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET GUNBOAT\nLIST tg")
    reply = flat(table.reply_to(MASTER, out).body)
    assert "Anonymous set to yes." in reply and "Anonymous (gunboat)" in reply
    out = table.send(STRANGER, "HELP")
    body = flat(table.reply_to(STRANGER, out).body)
    assert "SET ANONYMOUS yes|no" in body and "SET ADDRESSES private|public" in body


def test_an_alliance_proposal_reaches_each_member_apart(tmp_path) -> None:
    """1885: a three-power alliance declared by one power is told to the two others in two mails,
    so neither sees the other's address in the To line."""
    from test_service_variants import VariantTable

    t = VariantTable(tmp_path)
    try:
        t.start_variant("1885")
        t.order("England", "ALLY FG")
        proposed = [m for m in t.mails if "Alliance proposed" in m.subject]
        assert sorted(m.to for m in proposed) == sorted([[t.powers["France"]], [t.powers["Germany"]]])
        assert all(t.powers["England"] not in everything(m) for m in proposed)
    finally:
        t.close()


def test_a_signon_from_another_address_never_shows_the_seat_owner_address(table: Table) -> None:
    """Whoever signs on with a seat's password from elsewhere gets the reply; the seat's owner gets
    their copy in a mail of their own, so the sender never sees the owner's address."""
    table.start_game(options=f"anonymous=yes {OPTIONS}")
    owner = table.powers["England"]
    out = table.send("elsewhere@example.test", table.signon("England") + "\nF Lon - Nth\nWHOGAME tg")
    replies = [m for m in out if m.subject.startswith("Re:")]
    assert sorted(m.to for m in replies) == [["elsewhere@example.test"], [owner]]
    away = next(m for m in replies if m.to == ["elsewhere@example.test"])
    assert owner not in everything(away)
    assert "Players in 'tg'" in next(m for m in replies if m.to == [owner]).body  # the owner's copy
