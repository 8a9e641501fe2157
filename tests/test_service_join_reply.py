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
        assert all(f"Others see you as 'p{i}' (your mailbox name: your mail program sends no name). SET NAME "
                   f"<your name> changes it (the judge then mails you a code to CONFIRM)." in f
                   for i, f in enumerate(flat))
        assert all("Your power is assigned when the game starts" in f for f in flat[:6])
        last = flat[6]
        assert "Your power is assigned" not in last and "the game has started and you are " in last, last
        power = last.split("the game has started and you are ")[1].split(".")[0]
        game_start = [m for m in t.mails if "Game Starting" in m.subject and m.to == ["p6@example.test"]]
        assert game_start and f"You are {power}." in game_start[0].body
    finally:
        t.close()


def test_each_power_is_shown_example_orders_for_its_own_units(tmp_path) -> None:
    """The Game Starting mail's examples are the power's own (never France's for everyone), and
    the examples, sent back as they stand, are read without an error."""
    t = Table(tmp_path)
    try:
        t.start_game()
        for power, addr in t.powers.items():
            start = next(m for m in t.mails if "Game Starting" in m.subject and m.to == [addr])
            lines = start.body.split("mypassword\n", 1)[1].split("\n\n", 1)[0].split("\n")
            examples = [line.strip() for line in lines if line.strip()]
            assert len(examples) == 2, (power, start.body)
            out = t.order(power, "\n".join(examples))
            reply = t.reply_to(addr, out)
            assert "Error" not in reply.subject and "No errors encountered." in reply.body, reply.body
    finally:
        t.close()


def test_example_orders_are_legal_in_every_variant() -> None:
    from judge.engine import read_position
    from judge.game.lifecycle import example_orders
    from judge.orders import parse_orders
    from judge.variant import available_variants, load_variant

    for name in available_variants():
        v = load_variant(name)
        if not v.powers or not v.start_position().get("units"):
            continue
        pos = read_position(v.start_position(), v, v.rules)
        for power in v.powers:
            if not pos.units_of(power):
                continue
            lines = example_orders(pos, power)
            assert lines, (name, power)
            for line in lines:
                read = parse_orders(line, pos, power, check=True, warn=False)
                assert len(read) == 1 and read[0].order is not None and not read[0].error, (name, power, line)
