"""A game's rules: the variant's, with the game's own (SET RULE) over them, as they stand now."""

from __future__ import annotations

from judge.game.lifecycle import Game


def test_a_games_rules_follow_its_own_rules_changed_in_place_and_come_fresh_each_time():
    g = Game(1, "tg", "standard", "forming", None, None, {"rules": {}})
    assert g.rules["build_sites"] == "home"
    g.rules["build_sites"] = "mangled"  # a caller's change to its copy is its own
    assert g.rules["build_sites"] == "home"
    g.options["rules"]["build_sites"] = "any_owned"  # as SET RULE writes it: the same dict, changed
    assert g.rules["build_sites"] == "any_owned"
    g.options["rules"]["modules"] = ["army_fleet"]  # a list, as the store gives it back
    assert tuple(g.rules["modules"]) == ("army_fleet",) and g.rules["build_sites"] == "any_owned"
    g.options["rules"]["modules"].clear()  # changed inside the list
    assert not g.rules["modules"]
    del g.options["rules"]
    assert g.rules["build_sites"] == "home"
