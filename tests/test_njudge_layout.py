"""Results in njudge's layout, read back: what the engine decided is what the text says.

Real phases are adjudicated (a written standard 1901, targeted boards with convoys, coasts,
retreat bounces and civil-disorder removals, and seeded random games of every variant in
``seeds/``), written with :func:`render_njudge`, read with :func:`read_njudge`, and compared
with the engine's own results: every unit's order, its result tags, the dislodged units and
their retreats, the supply-centre owners and the balance table, the next phase. The orders
read back are adjudicated again on the same board and must give the same results and the same
next position. Layout facts checked against njudge's own words (sample lines from njudge 1.7.6
and archived results mails).
"""

from __future__ import annotations

import pytest

from judge.engine import PhaseResult, Position, adjudicate
from judge.engine.orders import Hold, Move, OrderResult, Waive
from judge.orders import parse_orders
from judge.render.njudge_layout import render_njudge, result_tags
from judge.render.njudge_reader import NjudgeReadError, NjudgeResults, read_njudge
from judge.variant import available_variants, load_variant, province_of

from tests.report_scenarios import random_game, standard_1901

DEADLINE = "Tue Jan 06 2004 23:30:00 +0000"
VARIANTS = [v for v in available_variants() if not v.startswith("eia")]


def play(variant: str, position: dict, orders: str) -> tuple[Position, PhaseResult]:
    v = load_variant(variant)
    pos = Position.from_json({"variant": variant, **position}, v)
    parsed = parse_orders(orders, pos)
    assert all(p.order for p in parsed), [(p.line, p.error) for p in parsed]
    return pos, adjudicate(pos, [p.order for p in parsed if p.order])


def shown(result: PhaseResult) -> list[OrderResult]:
    return [r for r in result.results if r.order is not None and r.result != "invalid"]


def key(power: str, order) -> tuple:
    """An order as both sides must agree on it: its kind and every place it names (units by
    province, destinations with their coast); a move's convoy is checked by adjudicating again."""
    fields = []
    for name in ("loc", "target", "fleet", "army"):
        if getattr(order, name, None):
            fields.append(province_of(getattr(order, name)))
    for name in ("dest", "new_kind", "coast"):
        if getattr(order, name, None):
            fields.append(getattr(order, name))
    kind = None if isinstance(order, Waive) else order.kind
    name = "FastFerry" if getattr(order, "ff", False) else type(order).__name__  # the A/F module's own convoy
    return (power, name, kind, *fields)


def waived(r: OrderResult) -> int:
    """How many lines an order makes: a waiver of n builds is n lines "Build waived."."""
    n = r.text.split()[-1] if isinstance(r.order, Waive) else ""
    return int(n) if n.isdigit() else 1


def results_by_unit(result: PhaseResult) -> dict[tuple, tuple[str, tuple[str, ...]]]:
    return {key(r.power, r.order): (r.result, tuple(result_tags(r))) for r in shown(result)
            if not isinstance(r.order, Waive)}


def check_round_trip(variant_name: str, before: Position, result: PhaseResult, seq: int = 1) -> NjudgeResults:
    v = load_variant(variant_name)
    text = render_njudge(v, before, result, game="tg", seq=seq, deadline=DEADLINE)
    read = read_njudge(text, v)
    assert (read.game, read.seq, read.phase) == ("tg", seq, result.phase), text
    # every order the engine carried out, and nothing else, with its tags
    engine = sorted(key(r.power, r.order) for r in shown(result) for _ in range(waived(r)))
    assert sorted(key(o.power, o.order) for o in read.orders) == engine, text
    kind = result.phase.kind
    if kind == "movement":
        # njudge's layout shows only one order the judge gives: a hold ("No Order Processed")
        want = {key(r.power, r.order): (tuple(result_tags(r)), r.default and isinstance(r.order, Hold))
                for r in shown(result)}
        got = {key(o.power, o.order): (o.tags, o.default) for o in read.orders}
        assert got == want, text
    elif kind == "retreat":
        for r in shown(result):
            o = next(x for x in read.orders if key(x.power, x.order) == key(r.power, r.order))
            assert o.default == r.default and (r.result == "succeeds") == (not o.tags), (r, o, text)
    # the dislodged units and where they may go
    nxt = result.next
    if kind == "movement" and nxt.phase.kind == "retreat":
        want_d = sorted((d.unit.power, d.unit.kind, d.unit.loc, tuple(sorted(d.retreats)))
                        for d in nxt.dislodged.values())
        assert sorted((d.power, d.kind, d.loc, tuple(sorted(d.retreats))) for d in read.dislodged) == want_d, text
    # owners and the balance table, where ownership was worked out
    if read.ownership is not None:
        owners: dict[str, list[str]] = {}
        for c, p in nxt.centres.items():
            owners.setdefault(p, []).append(c)
        unowned = sorted(c for c in nxt.map.centres if c not in nxt.centres)
        assert {p: sorted(cs) for p, cs in read.ownership.items() if p != "Unowned"} == \
            {p: sorted(cs) for p, cs in owners.items()}, text
        assert sorted(read.ownership.get("Unowned", [])) == unowned
        for p, b in read.balance.items():
            units = sum(2 if u.kind == "A/F" else 1 for u in nxt.units.values() if u.power == p)
            assert (b.centres, b.units, b.change) == (len(owners.get(p, [])), units, len(owners.get(p, [])) - units)
    if result.victory and result.victory.get("final", True):
        assert read.next_phase is None
    else:
        assert read.next_phase == nxt.phase and read.deadline == DEADLINE, text
    # the orders read back give the same results and the same next board
    again = adjudicate(before, [o.order for o in read.orders if not o.default])
    assert results_by_unit(again) == results_by_unit(result), text
    assert again.next.to_json() == result.next.to_json(), text
    return read


def test_standard_1901_round_trips_and_reads_as_njudge_writes() -> None:
    turns = standard_1901()
    texts = []
    v = load_variant("standard")
    for i, t in enumerate(turns):
        check_round_trip("standard", t.before, t.result, seq=i + 1)
        texts.append(render_njudge(v, t.before, t.result, game="tg", seq=i + 1, deadline=DEADLINE))
    spring, fall, retreat, winter = texts
    assert spring.startswith("Movement results for Spring of 1901.  (tg.001)\n\nEngland: ")
    assert "\nAustria: Army Vienna -> Galicia. (*bounce*)\n" in spring
    assert "\nItaly: Army Rome, No Order Processed.\n" in spring
    assert "\nRussia: Fleet St Petersburg (south coast) -> Gulf of Bothnia.\n" in spring
    assert spring.endswith("The next phase of 'tg' will be Movement for Fall of 1901.\n"
                           f"The deadline for orders will be {DEADLINE}.\n")
    # a convoy route spelled out, supports of a foreign unit with its adjective, cut and void
    assert "\nEngland: Army Yorkshire -> North Sea -> Norway.\n" in fall
    assert "\nEngland: Fleet North Sea CONVOY Army Yorkshire -> Norway.\n" in fall
    assert "\nAustria: Army Serbia SUPPORT Fleet Albania -> Greece. (*cut*)\n" in fall
    assert "\nFrance: Army Burgundy, No Order Processed. (*dislodged*)\n" in fall
    assert ("\n\n\nThe following units were dislodged:\n\nThe French Army in Burgundy can retreat to Belgium or "
            "Gascony or Marseilles or\nParis or Picardy.\n") in fall
    assert "Retreats for Fall of 1901." in fall
    # retreats and adjustments: the power padded to column 26; then the ownership block
    assert "\nFrance:                   Army  Burgundy -> Picardy.\n" in retreat
    assert "\nOwnership of supply centers:\n\nEngland:   Edinburgh, Liverpool, London, Norway.\n" in retreat
    assert "\nAustria:   5 Supply centers,  3 Units:  Builds   2 units.\n" in retreat
    assert "\nItaly:     3 Supply centers,  3 Units:  Builds   0 units.\n" in retreat
    assert "\nEngland:                  Builds a fleet in Edinburgh.\n" in winter
    assert "\nFrance:                   Build waived.\n" in winter
    # nothing a reader takes as one record is wrapped (jDip reads one order a line)
    assert all(len(line) <= 78 for line in "\n".join(texts).splitlines() if not line.startswith(("England:",
               "France:", "Germany:", "Italy:", "Austria:", "Russia:", "Turkey:")))


def test_convoys_coasts_void_and_no_convoy() -> None:
    before, result = play("standard", {
        "phase": "Spring 1901 Movement",
        "units": {"England": ["A Lon", "F Eng", "F Nth", "F Nwg"], "France": ["F Bre", "F Mao", "F Wes"],
                  "Germany": ["A Hol"], "Russia": ["F StP/nc", "F Bot"], "Italy": ["F Tys", "F Ion", "A Tun"]},
        "centers": {}},
        "England: A Lon - Bel\nEngland: F Eng C A Lon - Bel\nEngland: F Nth S A Hol\nEngland: F Nwg - Nwy\n"
        "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng\nFrance: F Wes - Spa/sc\n"
        "Germany: A Hol - Kie\n"
        "Russia: F StP/nc - Nwy\nRussia: F Bot - Swe\n"
        "Italy: A Tun - Nap\nItaly: F Tys C A Tun - Nap\nItaly: F Ion S A Tun - Nap")
    read = check_round_trip("standard", before, result)
    lines = {o.line for o in read.orders}
    assert "England: Army London -> English Channel -> Belgium. (*no convoy*)" in lines
    assert "England: Fleet English Channel CONVOY Army London -> Belgium. (*dislodged*)" in lines
    assert "England: Fleet North Sea SUPPORT German Army Holland. (*void*)" in lines
    assert "France: Fleet Mid-Atlantic Ocean SUPPORT Fleet Brest -> English Channel." in lines
    assert "France: Fleet Western Mediterranean -> Spain (south coast)." in lines
    assert "Russia: Fleet St Petersburg (north coast) -> Norway. (*bounce*)" in lines
    assert "Italy: Army Tunis -> Tyrrhenian Sea -> Naples." in lines
    assert "Italy: Fleet Ionian Sea SUPPORT Army Tunis -> Naples." in lines
    assert [(d.power, d.loc) for d in read.dislodged] == [("England", "eng")]


def test_retreat_bounce_destroys_both_and_unordered_units_disband() -> None:
    before, first = play("standard", {
        "phase": "Fall 1901 Movement",
        "units": {"Germany": ["A Mun", "A Ruh", "A Kie", "A Sil"], "France": ["A Bur", "F Bel"],
                  "Austria": ["A Boh", "A Tyr", "A Gal"]},
        "centers": {"Germany": ["Mun", "Kie", "Ber"], "France": ["Par"], "Austria": ["Vie", "Bud", "Tri"]}},
        "Germany: A Mun - Bur\nGermany: A Ruh S A Mun - Bur\nGermany: A Kie - Hol\n"
        "Austria: A Boh - Mun\nAustria: A Tyr S A Boh - Mun\nAustria: A Sil H\nFrance: F Bel - Hol")
    check_round_trip("standard", before, first)
    retreats = first.next
    assert retreats.phase.kind == "retreat" and set(retreats.dislodged) == {"bur"}
    _, second = play("standard", retreats.to_json(), "France: A Bur - Par")
    read = check_round_trip("standard", retreats, second)
    assert read.orders[0].line.strip().endswith("Army  Burgundy -> Paris.")


def test_two_retreats_to_one_place_both_destroyed_and_cd_removal() -> None:
    pos = {"phase": "Spring 1901 Retreat", "units": {"Russia": ["A Mos"], "Turkey": ["A Sev"]},
           "dislodged": {"Russia": [{"unit": "A Ukr", "from": "Rum", "retreats": ["War", "Gal"]},
                                    {"unit": "A Stp", "from": "Lvn", "retreats": ["Fin"]}],
                         "Austria": [{"unit": "A Bud", "from": "Ser", "retreats": ["Gal", "Vie"]}]},
           "centers": {"Russia": ["Mos", "Sev"], "Austria": ["Bud"]}}
    before, result = play("standard", pos, "Russia: A Ukr - Gal\nAustria: A Bud - Gal")
    read = check_round_trip("standard", before, result)
    text = "\n".join(o.line for o in read.orders)
    assert "Russia:                   Army  Ukraine -> Galicia (*bounce, destroyed*)." in text
    assert "Austria:                  Army  Budapest -> Galicia (*bounce, destroyed*)." in text
    assert "Russia:                   Army  St Petersburg, No Order Processed (DISBAND)." in text
    # removals: one ordered, one by civil disorder ("Defaults, removing ..."), builds on coasts
    before, result = play("standard", {
        "phase": "Winter 1901 Adjustment",
        "units": {"Turkey": ["F Bla", "A Arm", "F Aeg", "A Bul"], "Russia": ["A Mos"]},
        "centers": {"Turkey": ["Ank", "Smy"], "Russia": ["Mos", "StP", "Sev"]}},
        "Turkey: Remove F Aeg\nRussia: Build F StP/nc")
    read = check_round_trip("standard", before, result)
    text = "\n".join(o.line for o in read.orders)
    assert "Turkey:                   Removes the fleet in the Aegean Sea." in text
    assert "Turkey:                   Defaults, removing the " in text
    assert "Russia:                   Builds a fleet in St Petersburg (north coast)." in text
    assert "Russia:                   Build waived." in text


def test_victory_and_notes() -> None:
    units = {"France": ["A Par", "A Bre", "A Mar", "A Bur", "A Pic", "A Gas", "A Spa", "A Por", "A Bel", "A Hol",
                        "A Ruh", "A Kie", "A Mun", "A Ber", "A Den", "A Swe", "A Nwy"],
             "England": ["A Lvp"]}
    centres = {"France": ["Par", "Bre", "Mar", "Spa", "Por", "Bel", "Hol", "Kie", "Mun", "Ber", "Den", "Swe",
                          "Nwy", "Ven", "Rom", "Nap"], "England": ["Lvp", "Edi", "Lon"]}
    before, result = play("standard", {"phase": "Fall 1905 Movement", "units": {**units, "France": [
        *units["France"], "F Eng", "F Nth"]}, "centers": centres},
        "France: F Nth - Edi\nFrance: F Eng - Lon")
    assert result.victory and result.victory.get("kind") == "solo"
    v = load_variant("standard")
    text = render_njudge(v, before, result, game="tg", seq=20)
    row = next(line for line in text.splitlines() if line.startswith("France:") and "Supply centers" in line)
    assert row == "France:   18 Supply centers, 19 Units:  Removes  1 unit.   (* VICTORY!! *)"
    assert "The next phase of" not in text
    read = check_round_trip("standard", before, result, seq=20)
    assert read.balance["France"].marker == "VICTORY!!"
    assert any(n.startswith("The game is over: France wins with 18 supply centers.") for n in read.notes)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_of_every_variant_round_trip(variant: str) -> None:
    from tests.report_scenarios import known_turns  # skips a variant the engine cannot play yet

    known_turns(variant)
    for i, t in enumerate(random_game(variant, phases=14)):
        check_round_trip(variant, t.before, t.result, seq=i + 1)


def test_module_orders_round_trip() -> None:
    if "coast_running" in VARIANTS:
        before, result = play("coast_running", {"phase": "Spring 1901 Movement",
                                                "units": {"Italy": ["F Ion", "A Tun"], "France": ["F Mao"]}},
                              "Italy: F Ion - Wes\nItaly: A Tun P F Ion - Wes\nFrance: F Mao - Wes")
        read = check_round_trip("coast_running", before, result)
        assert "Italy: Army Tunis PROTECT Fleet Ionian Sea -> Western Mediterranean." in {o.line for o in read.orders}
    if "af_standard" in VARIANTS:
        before, result = play("af_standard", {"phase": "Spring 1901 Movement",
                                              "units": {"England": ["A Lon", "F Eng", "F Nth", "A Yor"]}},
                              "England: A Lon E F Eng\nEngland: F Nth FF A Yor - Bel")
        read = check_round_trip("af_standard", before, result)
        lines = {o.line for o in read.orders}
        assert "England: Army London BOARDS Fleet English Channel." in lines
        assert "England: Fleet North Sea FERRY Army Yorkshire -> Belgium." in lines
        # civil disorder takes only the army of an A/F first (Davis IV c): the layout says which
        before, result = play("af_standard", {"phase": "Winter 1901 Adjustment",
                                              "units": {"England": ["A/F Eng", "F Nth", "A Yor"]},
                                              "centers": {"England": ["Lon", "Edi"]}}, "")
        read = check_round_trip("af_standard", before, result)
        assert [o.line.split(":", 1)[1].strip() for o in read.orders] == [
            "Defaults, removing the army in the English Channel.", "Defaults, removing the fleet in the North Sea."]


def test_reader_refuses_what_it_cannot_read_and_skips_what_is_around() -> None:
    v = load_variant("standard")
    mail = ("From: judge\n\n:: Judge: USTV  Game: ferret\n\nMovement results for Spring of 1901.  (ferret.001)\n\n"
            "Austria: Army Budapest -> Serbia.\nAustria: Army Vienna -> Galicia. (*bounce*)\n\n"
            "Russia: Fleet St. Petersburg (south coast) -> Gulf of Bothnia.\n\n"
            "The next phase of 'ferret' will be Movement for Fall of 1901.\n"
            "The deadline for orders will be Tue Jan 22 2002 23:30:00 -0500.\n\nSome signature.\n")
    read = read_njudge(mail, v)
    assert [(o.power, type(o.order).__name__, o.order.loc, getattr(o.order, "dest", None), o.tags)
            for o in read.orders] == [("Austria", "Move", "bud", "ser", ()), ("Austria", "Move", "vie", "gal", ("bounce",)),
                                      ("Russia", "Move", "stp/sc", "bot", ())]
    assert read.deadline == "Tue Jan 22 2002 23:30:00 -0500" and read.notes == ["Some signature."]
    with pytest.raises(NjudgeReadError, match="line 7.*Atlantis"):
        read_njudge(mail.replace("-> Serbia.", "-> Atlantis."), v)
    with pytest.raises(NjudgeReadError, match="no order word"):
        read_njudge(mail.replace("Budapest -> Serbia.", "Budapest goes to Serbia."), v)
    with pytest.raises(NjudgeReadError, match="no 'Movement/Retreat/Adjustment results for' line"):
        read_njudge("Hello\n", v)
    # a convoy route as njudge writes it reads as a move by convoy
    read = read_njudge("Movement results for Fall of 1901.  (g.002)\n\n"
                       "England: Army Yorkshire -> North Sea -> Norway.\n", v)
    assert isinstance(read.orders[0].order, Move) and read.orders[0].order.via_convoy


def test_reader_takes_text_as_njudge_itself_writes_it() -> None:
    """njudge's own variations: one space before (game.NNN), "orders" for "results" in older
    versions, tabs after the power, St. Petersburg with its dot, pending builds, wrapped lists."""
    v = load_variant("standard")
    retreat = read_njudge("Retreat orders for Fall of 1902. (kiwi.006)\n\n"
                          "Russia:    \tArmy  Warsaw -> Moscow.\n"
                          "Germany:\tFleet Sweden, No Order Processed (DISBAND).\n", v)
    assert [(o.power, type(o.order).__name__, o.order.loc, o.default) for o in retreat.orders] == \
        [("Russia", "Retreat", "war", False), ("Germany", "Disband", "swe", True)]
    winter = read_njudge(
        "Adjustment results for Winter of 1902.  (kiwi.007)\n"
        "Russia:                   Builds a fleet in St. Petersburg (north coast).\n"
        "Turkey:                   Removes the fleet in the Black Sea.\n"
        "Italy:                    2 unusable builds pending.\n"
        "Austria:                  Defaults, removing the army in Galicia.\n\n"
        "The next phase of 'kiwi' will be Movement for Spring of 1903.\n", v)
    assert [(o.power, type(o.order).__name__, o.order.loc, o.tags, o.default) for o in winter.orders] == [
        ("Russia", "Build", "stp/nc", (), False), ("Turkey", "Remove", "bla", (), False),
        ("Italy", "Waive", "", ("pending",), True), ("Italy", "Waive", "", ("pending",), True),
        ("Austria", "Remove", "gal", (), True)]
    fall = read_njudge(
        "Movement results for Fall of 1902. (kiwi.005)\n\n"
        "Austria: Army Vienna -> Galicia. (*bounce, dislodged*)\n"
        "Russia: Army Rumania SUPPORT Austrian Army Serbia -> Bulgaria. (*cut*)\n\n\n"
        "The following units were dislodged:\n\n"
        "The Austrian Army in Vienna can retreat to Bohemia or Tyrolia or\nTrieste.\n\n"
        "Ownership of supply centers:\n\n"
        "Austria:   Budapest, Greece, Serbia, Trieste,\n           Vienna.\n"
        "Unowned:   Holland.\n\n"
        "Austria:   5 Supply centers,  3 Units:  Builds   2 units.\n"
        "Russia:    1 Supply center,   1 Unit:   Builds   0 units.  (* CD *)\n\n"
        "Winning Centers changed to 19 to avoid a draw.\n", v)
    assert fall.orders[0].tags == ("bounce", "dislodged") and fall.orders[1].order.target == "ser"
    assert [(d.power, d.loc, d.retreats) for d in fall.dislodged] == [("Austria", "vie", ("boh", "tyr", "tri"))]
    assert fall.ownership == {"Austria": ["bud", "gre", "ser", "tri", "vie"], "Unowned": ["hol"]}
    assert (fall.balance["Austria"].change, fall.balance["Russia"].marker) == (2, "CD")
    assert fall.notes == ["Winning Centers changed to 19 to avoid a draw."]
