"""The answer to joining a game: how the others see the new player, and, for the player whose
sign-on fills the game, that it has started and which power they play."""

from __future__ import annotations

from test_service_helpers import MASTER, Table


def test_each_join_says_the_public_name_and_the_last_says_the_power(tmp_path) -> None:
    t = Table(tmp_path)
    try:
        t.send(MASTER, "CREATE ?jg masterpw standard")
        replies = []
        for i in range(7):
            addr = f"p{i}@example.test"
            replies.append(t.reply_to(addr, t.send(addr, f"SIGNON ?jg pw{i}")).body)
        flat = [" ".join(r.split()) for r in replies]
        assert all(f"Others see you as 'p{i}': SET NAME <your name> changes that." in f for i, f in enumerate(flat))
        assert all("Your power is assigned when the game starts" in f for f in flat[:6])
        last = flat[6]
        assert "Your power is assigned" not in last and "the game has started and you are " in last, last
        power = last.split("the game has started and you are ")[1].split(".")[0]
        game_start = [m for m in t.mails if "Game Starting" in m.subject and m.to == ["p6@example.test"]]
        assert game_start and f"You are {power}." in game_start[0].body
    finally:
        t.close()
