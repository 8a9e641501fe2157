"""The order mail's shortcuts hold to the general path they stand in for: the late-power check in
one query, the game's list address as the sign-on read it, the seed variant kept while its file is
unchanged, the stored timestamp of the same "now" and the statement texts of inserts and updates."""

from __future__ import annotations

import os
import random
import re
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from judge.game import lifecycle as games, orderbook
from judge.game import store as store_module
from judge.game.store import Store, iso
from judge.rules import merge_rules
from judge.variant import SEEDS_DIR, load_variant
from test_service_helpers import MASTER, Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from receive import ORDERS  # noqa: E402  (the bench's orders, a unit each)

LIST = "tg-list@lists.example.test"


class Undo(Exception):
    """Raised to roll one case's changes back."""


def test_any_late_is_whether_late_powers_names_anyone(tmp_path: Path) -> None:
    """any_late (seats and who has ordered, one query) against late_powers (every order read),
    over random seat states and random partial orders, each case rolled back after."""
    t = Table(tmp_path)
    try:
        t.start_game()
        st = t.judge.store
        g = games.get_game(st, "tg")
        ph = games.current_phase(st, g)
        seen = set()
        for seed in range(60):
            rng = random.Random(seed)
            try:
                with st.transaction():
                    for power in ORDERS:
                        status = rng.choice(["active", "active", "active", "cd", "vacant"])
                        st.conn.execute("UPDATE seats SET status = ? WHERE game_id = ? AND power = ?",
                                        (status, g.id, power))
                        given = [o for o in ORDERS[power] if rng.random() < 0.8] if rng.random() < 0.8 else []
                        if given:
                            orderbook.submit(st, ph.id, ph.position, power, "\n".join(given), g.rules,
                                             f"<case{seed}.{power}@example.test>", t.now)
                    late = games.late_powers(st, g, ph)
                    assert games.any_late(st, g, ph) == bool(late), (seed, late)
                    seen.add(bool(late))
                    raise Undo
            except Undo:
                pass
        assert seen == {True, False}  # both answers were put to the test
    finally:
        t.close()


def test_reply_to_the_list_address_is_list_mail_as_the_store_holds_it(tmp_path: Path) -> None:
    """A reply going to the game's list carries the list headers; the list address the reply
    goes by is the store's at that moment, also when the master changed it earlier in the batch."""
    t = Table(tmp_path)
    try:
        t.start_game()
        france, new_list = t.powers["France"], "other-list@lists.example.test"
        t.send(MASTER, f"SIGNON Mtg masterpw\nSET LIST {LIST}")

        def order_mail(reply_to: str, n: int) -> bytes:
            return t.raw(france, t.signon("France") + "\nA Par - Bur\n", f"orders {n}",
                         headers={"Reply-To": reply_to})

        first = t.judge.store.one("SELECT max(id) AS n FROM outbox")["n"]
        batch = [(order_mail(LIST, 1), "a"),
                 (t.raw(MASTER, f"SIGNON Mtg masterpw\nSET LIST {new_list}\n", "list"), "b"),
                 (order_mail(LIST, 2), "c"), (order_mail(new_list, 3), "d")]
        assert t.judge.receive_many(batch, now=t.now) == ["handled"] * 4
        rows = t.judge.store.all("SELECT recipients, message FROM outbox WHERE id > ? AND kind = 'reply' "
                                 "ORDER BY id", (first,))
        heads = [(r["recipients"], bytes(r["message"]).partition(b"\r\n\r\n")[0]) for r in rows]
        to_lists = [(rcpt, b"List-Id:" in head) for rcpt, head in heads if "lists.example.test" in rcpt]
        assert to_lists == [(f'["{LIST}"]', True), (f'["{LIST}"]', False), (f'["{new_list}"]', True)]
        assert b"<other-list.test.example.test>" not in heads[-1][1]  # (the label is the game's)
        assert b'"TEST game tg" <tg.test.example.test>' in heads[-1][1]
    finally:
        t.close()


def test_load_variant_gives_its_answer_again_until_the_seed_changes(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """load_variant's answer is kept while the seed file's mtime is unchanged; an edited seed is
    read again, by the default seeds folder and by one named, and a seed gone is said to be."""
    from judge import variant as variants

    seed = tmp_path / "standard.toml"
    shutil.copy(SEEDS_DIR / "standard.toml", seed)
    monkeypatch.setattr(variants, "SEEDS_DIR", tmp_path)
    first = load_variant("standard")
    assert load_variant("standard") is first and load_variant("standard", tmp_path) is load_variant("standard", tmp_path)
    named = load_variant("standard", tmp_path)
    text = seed.read_text(encoding="utf-8")
    seed.write_text(text.replace(f'"{first.title}"', '"Standard, edited"', 1), encoding="utf-8")
    stat = seed.stat()
    os.utime(seed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # a later mtime, whatever the clock
    edited = load_variant("standard")
    assert edited is not first and edited.title == "Standard, edited" and load_variant("standard") is edited
    again = load_variant("standard", tmp_path)
    assert again is not named and again.title == "Standard, edited"
    monkeypatch.setattr(variants, "SEEDS_DIR", SEEDS_DIR)  # another seeds folder: its own seed
    assert load_variant("standard").title == first.title != "Standard, edited"
    monkeypatch.setattr(variants, "SEEDS_DIR", tmp_path)
    seed.unlink()
    with pytest.raises(Exception, match="unknown variant"):
        load_variant("standard")


def test_a_game_plays_its_edited_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's variant (asked for by every order mail) is the seed as it is now."""
    from judge import variant as variants

    shutil.copytree(SEEDS_DIR, tmp_path / "seeds", ignore=shutil.ignore_patterns("__pycache__"))
    seed = tmp_path / "seeds" / "standard.toml"
    monkeypatch.setattr(variants, "SEEDS_DIR", tmp_path / "seeds")
    t = Table(tmp_path / "table")
    try:
        t.start_game()
        game = games.get_game(t.judge.store, "tg")
        assert game is not None and game.variant.title != "Standard, edited"
        seed.write_text(seed.read_text(encoding="utf-8").replace(f'"{game.variant.title}"', '"Standard, edited"', 1),
                        encoding="utf-8")
        stat = seed.stat()
        os.utime(seed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
        again = games.get_game(t.judge.store, "tg")
        assert again is not None and again.variant.title == "Standard, edited"
    finally:
        t.close()


ZONES = st.sampled_from([None, timezone.utc, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)), ZONES),
                min_size=1, max_size=6), st.lists(st.integers(0, 5), max_size=12))
def test_iso_of_the_same_now_is_iso_of_it(stamps: list, order: list[int]) -> None:
    times = [t.replace(tzinfo=z) for t, z in stamps]

    def plain(t: datetime) -> str:
        u = t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t
        return u.astimezone(timezone.utc).isoformat(timespec="seconds")

    for i in [*range(len(times)), *order, *range(len(times))]:  # repeats, and back and forth
        t = times[i % len(times)]
        assert iso(t) == plain(t) and iso(t) == plain(t)


def test_insert_and_update_texts_by_table_and_columns(tmp_path: Path) -> None:
    s = Store(tmp_path / "s.sqlite")
    try:
        s.conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        one = s.insert("t", a="x", b="y")
        two = s.insert("t", b="z")  # other columns: another statement
        three = s.insert("t", b="w", a="v")  # the same columns in another order
        s.update("t", one, b="y2")
        s.update("t", two, a="q", b="z2")
        rows = [tuple(r) for r in s.all("SELECT id, a, b FROM t ORDER BY id")]
        assert rows == [(one, "x", "y2"), (two, "q", "z2"), (three, "v", "w")]
        for i in range(store_module._SQL_TEXTS_MAX + 5):  # bounded, however many shapes come
            store_module._sql_text(("t", f"c{i}"), f"INSERT INTO [t] ([c{i}]) VALUES (?)")
        assert len(store_module._SQL_TEXTS) <= store_module._SQL_TEXTS_MAX
    finally:
        s.close()


RULES = st.fixed_dictionaries({}, optional={
    "convoy_paradox": st.sampled_from(["szykman", "1971", "convoyed_attack_yields"]),
    "civil_disorder": st.sampled_from(["distance_2023", "least_effect"]),
    "build_sites": st.sampled_from(["home", "any_owned"]),
    "calendar": st.sampled_from(["", "default", "build_months"])})


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["standard", "1885"]), st.lists(RULES, min_size=1, max_size=4))
def test_played_variant_is_the_rules_merged_afresh(name: str, owns: list[dict]) -> None:
    """Game.variant and Game.rules (the merged rules kept by the seed variant and the game's own
    rules as written) are what merging afresh gives, game after game, whatever a caller does with
    the copy it got; a game whose own rules change in place (SET RULE) is merged again."""
    seed = load_variant(name)
    for own in owns:
        if own.get("calendar") == "build_months" and name != "1885":
            own = {k: v for k, v in own.items() if k != "calendar"}
        g = games.Game(1, "tg", name, "active", None, None, {"rules": dict(own)})
        merged = merge_rules(seed.rules, own)
        assert g.variant is seed.with_rules(merged) and g.rules == merged
        g.rules["build_sites"] = "spoilt"  # a copy: neither this game's nor the next one's
        assert g.rules == merged
        g.options["rules"]["civil_disorder"] = "least_effect"
        assert g.rules == merge_rules(seed.rules, g.options["rules"])


def test_order_status_lists_the_orders_waiting_for_later_phases(tmp_path: Path) -> None:
    """The status's "Pending orders" line, known empty from the count SIGNON read with the seat
    plus those the mail queued since, against the store: queued by this mail under a heading,
    by an earlier mail, and none at all."""
    t = Table(tmp_path)
    try:
        t.start_game()

        def pending_line(power: str, orders: str) -> str:
            body = t.reply_to(t.powers[power], t.order(power, orders)).body
            return next((line for line in body.split("\n") if line.startswith("----- Pending orders")), "")

        fall = "----- Pending orders: Fall 1901 Movement"
        assert pending_line("England", "F Lon - Nth\nFall 1901:\nF Nth - Nwy") == fall
        assert pending_line("England", "A Lvp - Yor") == fall
        assert pending_line("France", "A Par - Bur") == ""
        assert pending_line("France", "Fall 1902:\nA Mun - Kie\nSpring 1902:\nA Bur - Mun") == \
            "----- Pending orders: Spring 1902 Movement, Fall 1902 Movement"  # (as the game plays them)
        body = t.reply_to(t.powers["France"], t.order("France", "Spring 1903:\nA Kie H")).body
        assert ("----- Pending orders: Spring 1902 Movement, Fall 1902 Movement, Spring 1903 Movement"
                in body.replace("\n", " "))  # (a long list wraps)
        start = body.index("----- Pending orders")  # ... between names, never inside one
        listed = body[start:].split("\n")[:2]
        assert listed[1].strip() == "Spring 1903 Movement", listed
        assert "\xa0" not in body
        # the deadline's line wraps between its dates, never inside one
        date = r"\w{3} \w{3} \d\d \d{4} \d\d:\d\d:\d\d [+-]\d{4}"
        assert re.search(rf"^Deadline: {date}  \(grace until\s+{date}\)$", body, re.M), body
        assert not re.search(r"^\d\d:\d\d:\d\d [+-]\d{4}\)$", body, re.M), body
    finally:
        t.close()


def test_a_message_stored_already_is_a_duplicate_unless_it_failed(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The inbox row is inserted at once (no look-up first): a message stored already is still a
    duplicate, answered once, and one that failed is handled when offered again, in its own row."""
    from judge.mail import handler as handler_module

    t = Table(tmp_path)
    try:
        t.start_game()
        first = t.judge.store.one("SELECT max(id) AS n FROM outbox")["n"]
        raw = t.raw(t.powers["France"], t.signon("France") + "\nA Par - Bur\n", "orders once")
        assert t.judge.receive(raw, "a", now=t.now) == "handled"
        assert [t.judge.receive(raw, "b", now=t.now) for _ in range(2)] == ["duplicate", "duplicate"]
        replies = t.judge.store.all("SELECT id FROM outbox WHERE id > ? AND kind = 'reply'", (first,))
        assert len(replies) == 1

        raw2 = t.raw(t.powers["Italy"], t.signon("Italy") + "\nA Ven H\n", "orders failing once")
        real_run = handler_module.Handler.run
        monkeypatch.setattr(handler_module.Handler, "run", lambda self: 1 / 0)
        assert t.judge.receive(raw2, "c", now=t.now).startswith("failed")
        monkeypatch.setattr(handler_module.Handler, "run", real_run)
        assert t.judge.receive(raw2, "d", now=t.now) == "handled"
        assert t.judge.receive(raw2, "e", now=t.now) == "duplicate"
        rows = t.rows("SELECT status, source FROM inbox WHERE subject = 'orders failing once'")
        assert rows == [{"status": "handled", "source": "d"}]
        assert t.rows("SELECT count(*) AS n FROM orders WHERE power = 'Italy' AND state = 'active'") == [{"n": 1}]
    finally:
        t.close()
