"""The AFA naval supplement, part by part: each test cites the sentence it holds the clerk to."""

from __future__ import annotations

import copy

import pytest

from judge.eia.step import StepError, step
from eia_helpers import SECRET, fresh, ledger, play, roll_of, texts, until

WAR = "Master: WAR France England\n"


# -- calendar and ledger ------------------------------------------------------------------------
def test_afa_1_england_starts_with_80_ships():
    """AFA 1: "England will start the game with 80 ships instead of 100." """
    state = fresh()
    assert sum(state["nations"]["England"]["docked"].values()) == 80
    assert state["nations"]["England"]["militia"] == 10          # AFA 2.A


def test_the_economic_step_closes_every_third_month_and_the_ledger_keeps_reasons():
    """XIV: "lost at the end of each Economic Phase"; the economic step closes March, June, ..."""
    out = play("Master: PAPACY Turkey")                          # January: no economic step
    assert ledger(out, "Austria")["pp"] == 0
    out = step(out["state"], "", SECRET)                         # February
    assert ledger(out, "Austria")["pp"] == 0
    out = step(out["state"], "", SECRET)                         # March closes the quarter
    assert "Economic step closing March 1805" in texts(out)
    assert (ledger(out, "Austria")["pp"], ledger(out, "France")["pp"], ledger(out, "Spain")["pp"]) == (-3, -2, -2)
    assert ledger(out, "Austria")["history"][-1] == {"month": "1805-03", "kind": "pp", "delta": -3,
                                                     "reason": "the Papacy occupied by Turkey (XIV)"}


# -- I ship building ----------------------------------------------------------------------------
def test_I_new_ships_cost_money_and_one_manpower_each_and_are_ready_after_their_time():
    """I.A: "the manpower cost is one (1) for each new construction"; B: "12 months needed for new
    construction"."""
    start = fresh()
    out = play("France: BUILD 2 AT Brest", start)
    fr = ledger(out, "France")
    assert fr["money"] == start["nations"]["France"]["money"] - 20
    assert fr["manpower"] == start["nations"]["France"]["manpower"] - 2
    assert fr["works"][0]["done"] == "1806-01"
    state = out["state"]
    for _ in range(11):
        state = step(state, "", SECRET)["state"]
    assert state["month"] == "1806-01"
    assert state["nations"]["France"]["docked"]["Brest"] == 15 + 2 and not state["nations"]["France"]["works"]


@pytest.mark.parametrize("yard,nation,done", [
    ("Dublin", "England", "1806-04"),      # note 1: "add 3 months for new construction"
    ("Corunna", "Spain", "1806-05"),       # note 2: "add 4 months for new construction"
    ("Danzig", "Prussia", "1806-09"),      # Prussia 20 months
])
def test_I_notes_1_and_2_add_months(yard, nation, done):
    out = play(f"{nation}: BUILD 1 AT {yard}")
    assert ledger(out, nation)["works"][0]["done"] == done


def test_I_note_1_repairs_take_one_month_more():
    state = fresh()
    state["nations"]["England"]["damaged"] = {"Dublin": 2}
    out = play("England: REPAIR 2 AT Dublin", state)
    assert ledger(out, "England")["works"][0]["done"] == "1805-05"     # 3 + 1 months
    assert "England repairs 2 ships at Dublin" in "\n".join(out["announcements"])   # I.C: repairs exact


def test_I_note_3_prussian_yards_after_8_ships():
    """note 3: "after a total of 8 ships have been constructed at Prussian yards, the time is
    reduced to 15/5 and the cost to 18/5"."""
    state = fresh()
    state["nations"]["Prussia"]["money"] = 200
    state["nations"]["Prussia"]["works"] = [
        {"id": "W0", "yard": "Danzig", "ships": 4, "kind": "new", "started": "1803-05", "done": "1805-01",
         "owner": "Prussia", "builder": "Prussia"},
        {"id": "W9", "yard": "Stetin", "ships": 3, "kind": "new", "started": "1803-05", "done": "1805-01",
         "owner": "Prussia", "builder": "Prussia"}]
    before = play("Prussia: BUILD 1 AT Konigsburg", copy.deepcopy(state))
    assert before["state"]["prussian_built"] == 7          # completions count after the month
    assert ledger(before, "Prussia")["works"][-1]["done"] == "1806-09"
    state["nations"]["Prussia"]["works"][1]["ships"] = 4   # 8 ships finished
    state = step(state, "", SECRET)["state"]
    assert state["prussian_built"] == 8
    out = step(state, "Prussia: BUILD 1 AT Konigsburg", SECRET)
    assert ledger(out, "Prussia")["works"][-1]["done"] == "1806-05"     # 15 months from 1805-02
    assert ledger(out, "Prussia")["money"] == 200 - 18


def test_I_maximum_number_caps_the_ships_on_a_yards_stocks():
    out = play("Austria: BUILD 2 AT Zara\nAustria: BUILD 1 AT Zara\nAustria: BUILD 1 AT Zara")
    assert "takes at most 1 ships at once" in texts(out, "Austria")
    assert [w["ships"] for w in ledger(out, "Austria")["works"]] == [1]


def test_I_a_refused_build_changes_nothing_and_says_why():
    start = fresh()
    out = play("France: BUILD 2 AT Portsmouth\nFrance: BUILD 99 AT London\nFrance: BUILD 1 AT Brest", start)
    msg = texts(out, "France")
    assert "Portsmouth is a yard of England" in msg and "London is a yard of England" in msg
    assert ledger(out, "France")["money"] == start["nations"]["France"]["money"] - 10


def test_I_C_the_yard_figure_is_within_5_never_negative():
    """I.C: "announce the number being constructed to within 5 ... the number plus or minus five"."""
    for i in range(1, 25):
        s = f"{i:064x}"
        out = step(fresh(s), "England: BUILD 2 AT London", s)
        figure = out["state"]["announced"]["London"]
        assert 0 <= figure <= 7
        assert f"Vessels are being constructed at London (England): about {figure}." in out["announcements"]
        assert roll_of(out, "announced number at London")["result"] == figure


def test_I_C_the_player_may_give_the_figure_within_5():
    out = play("France: BUILD 3 AT Brest\nFrance: ANNOUNCE Brest 8")
    assert out["state"]["announced"]["Brest"] == 8 and not out["rolls"]
    out = play("France: BUILD 3 AT Brest\nFrance: ANNOUNCE Brest 9")
    assert "not within 5" in texts(out, "France") and out["state"]["announced"]["Brest"] != 9


def test_I_C_II_nothing_public_gives_away_the_true_number_on_the_stocks():
    """I.C: "all that the French player has to announce is the fact that vessels are being
    constructed and the number plus or minus five"; II: the deliberations "may remain secret". The
    judge's draw of the figure used a die of (n+5)-max(0,n-5)+1 faces shifted by max(0,n-5)-1: its
    published faces and modifier told everyone n. That roll is sealed (its dice to the builder and
    the master only), and the naval stores roll and notices name the yard, not the ships."""
    from judge.eia.dice import public

    for n in (2, 6):
        out = until(f"France: BUILD {n} AT Brest", lambda o: roll_of(o, "naval stores")["result"] >= 4, setup=WAR)
        shown = [public(r) for r in out["rolls"]]
        figure = roll_of(out, "announced number at Brest")
        assert figure["sealed"] == ["France", "Master"]
        sealed = [r for r in shown if r["purpose"] == "announced number at Brest"][0]
        assert set(sealed) == {"seq", "month", "key", "purpose", "sealed"}       # the key: nation, yard, kind
        public_text = " ".join([*(r["purpose"] for r in shown), texts(out, "all"), texts(out, "England")])
        assert f"({n})" not in public_text and f"{n} ships" not in public_text and f"{n * 10}" not in public_text
        assert "naval stores shipped by France to Brest" in public_text


# -- II foreign naval sales ---------------------------------------------------------------------
def test_II_a_contract_is_secret_counted_at_the_yard_and_delivered_to_the_buyer():
    """II: "These deliberations may remain secret ... The "approximate" number of ships being
    constructed at a particular yard must, however, reflect this "contract" construction." """
    start = fresh(setup="Master: CONTROL Denmark BY France")
    out = step(start, "France: CONTRACT 4 AT Copenhagen FOR Spain PRICE 30\n"
               "Spain: CONTRACT 4 AT Copenhagen FROM France PRICE 30\nFrance: ANNOUNCE Copenhagen 0", SECRET)
    assert ledger(out, "Spain")["money"] == start["nations"]["Spain"]["money"] - 30
    assert ledger(out, "France")["money"] == start["nations"]["France"]["money"] + 30 - 48
    assert out["state"]["announced"]["Copenhagen"] == 0
    assert not any("Spain" in a for a in out["announcements"])           # the deal itself is secret
    assert all(set(e["to"]) <= {"France", "Spain"} for e in out["events"] if "contract" in e["text"].lower())
    state = out["state"]
    for _ in range(12):
        state = step(state, "", SECRET)["state"]
    assert state["nations"]["Spain"]["docked"]["Copenhagen"] == 4


def test_II_an_unmatched_contract_is_not_signed():
    start = fresh(setup="Master: CONTROL Denmark BY France")
    out = step(start, "France: CONTRACT 4 AT Copenhagen FOR Spain PRICE 60", SECRET)
    assert "was not signed" in texts(out, "Spain") and not ledger(out, "France")["works"]


# -- III naval stores ---------------------------------------------------------------------------
def test_III_A_a_denied_source_raises_the_cost_by_a_third_rounded_up():
    out = play("England: DENY STORES TO France\nFrance: BUILD 1 AT Brest")
    assert "France: -14 money" in texts(out, "France")                  # 10 + 4
    out = play("Spain: BUILD 1 AT Cadiz", setup="England: DENY STORES TO Spain")
    assert "Spain: -14 money" in texts(out, "Spain")


def test_III_A_a_neutral_uncontrolled_sweden_trades_with_everyone():
    out = play("Russia: DENY STORES TO France\nFrance: BUILD 1 AT Brest")
    assert "France: -10 money" in texts(out, "France")
    out = play("Russia: DENY STORES TO France\nRussia: DENY STORES TO France FOR Sweden\nFrance: BUILD 1 AT Brest",
               setup="Master: CONTROL Sweden BY Russia")
    assert "France: -14 money" in texts(out, "France")
    # a nation is never denied a source it owns or controls
    out = play("Russia: DENY STORES TO France\nFrance: DENY STORES TO Russia FOR Sweden\nRussia: BUILD 1 AT Riga",
               setup="Master: CONTROL Sweden BY France")
    assert "Russia: -12 money" in texts(out, "Russia")


def test_III_B_stores_shipped_at_war_with_england_are_intercepted_on_1_to_3():
    """III.B: "a die roll of 1-3 ... 1/2 the cost of construction (round up) is given to England
    and the remainder is returned to the treasury of the losing nation"."""
    caught = until("France: BUILD 3 AT Brest", lambda o: roll_of(o, "naval stores")["result"] <= 3, setup=WAR)
    assert "France: -15 money" in texts(caught, "France") and "England: +15 money" in texts(caught, "England")
    assert not ledger(caught, "France")["works"]
    free = until("France: BUILD 3 AT Brest", lambda o: roll_of(o, "naval stores")["result"] >= 4, setup=WAR)
    assert "France: -30 money" in texts(free, "France") and ledger(free, "France")["works"]
    assert not play("Russia: BUILD 1 AT Riga", setup="Master: WAR Russia England")["rolls"][:-1]


def test_III_C_stores_per_yard_up_to_a_quarter_of_capacity_rounded_up():
    out = play("France: STORES 2 AT Brest\nFrance: STORES 1 AT Brest")           # 10/4 -> 3
    assert ledger(out, "France")["stores"] == {"Brest": 3}
    out = play("France: STORES 4 AT Brest")
    assert "for 3 ships (1/4 of 10, rounded up)" in texts(out, "France")
    out = play("France: STORES 2 AT Brest\nFrance: BUILD 3 AT Brest")
    assert "France: -20 money (naval stores" in texts(out, "France") and "France: -10 money (new ships" in texts(out)


# -- IV prizes ----------------------------------------------------------------------------------
def test_IV_the_winner_rolls_for_the_share_of_both_sides_losses():
    """IV.A-B: "Die Roll 1 2 3 4 5 6 Prizes/Damaged 30% ... 80%" of "BOTH the friendly and enemy
    losses"; "Prizes/damaged ships move 3 sea zones per turn." """
    setup = "England: FORM F1 FLEET 20 AT London\nFrance: FORM F2 FLEET 15 AT Brest"
    out = play("Master: BATTLE AT Channel WINNER England LOSSES England F1 5 France F2 10 TO Portsmouth ZONES 7",
               setup=setup)
    roll = roll_of(out, "prizes after the battle")["result"]
    pct = [30, 40, 50, 60, 70, 80][roll - 1]
    group = ledger(out, "England")["prizes"][0]
    assert (group["captured"], group["damaged"]) == (10 * pct // 100, 5 * pct // 100)
    assert group["zones_left"] == 4                        # 7 - 3 this month
    assert ledger(out, "England")["units"]["F1"]["ships"] == 15
    state = step(out["state"], "", SECRET)["state"]
    state = step(state, "", SECRET)["state"]
    assert state["nations"]["England"]["damaged"]["Portsmouth"] == group["captured"] + group["damaged"]


def test_IV_prizes_return_only_to_a_friendly_port():
    """IV: "the winner has the opportunity to capture prizes and return these along with its own damaged
    ships to a friendly port for repair." An enemy's port is refused, with nothing of the battle
    applied; so is a port of a nation the winner does not control (its REPAIR could not take them);
    a minor's yard it controls is friendly."""
    setup = "England: FORM F1 FLEET 20 AT London\nFrance: FORM F2 FLEET 15 AT Brest\n" + WAR
    start = fresh(setup=setup)
    battle = "Master: BATTLE AT Channel WINNER England LOSSES England F1 5 France F2 10 TO {} ZONES 7"
    out = step(start, battle.format("Brest"), SECRET)
    refused = [e for e in out["events"] if e["kind"] == "rejected"]
    assert refused and "Brest is an enemy port (France, at war with England): prizes and damaged ships return " \
        "only to a friendly port for repair (IV)" in refused[0]["text"] and not refused[0]["form"]
    assert ledger(out, "England")["units"]["F1"]["ships"] == 20 and not ledger(out, "England")["prizes"]
    assert not [r for r in out["rolls"] if "prizes" in r["purpose"]]
    # a spelling of the enemy's yard, and a minor's yard controlled by the enemy, are enemy ports too
    out = step(fresh(setup=setup + "Master: CONTROL Holland BY France\n"), battle.format("amsterdam"), SECRET)
    assert "Amsterdam is an enemy port (Holland, controlled by France, at war with England)" in texts(out, "Master")
    out = step(start, battle.format("Cadiz"), SECRET)
    assert "Cadiz is a port of Spain, not of England" in texts(out, "Master")
    assert ledger(out, "England")["units"]["F1"]["ships"] == 20
    out = step(fresh(setup=setup + "Master: CONTROL Portugal BY England\n"), battle.format("Lisbon"), SECRET)
    assert ledger(out, "England")["prizes"][0]["to_port"] == "Libson"           # the table's spelling
    out = step(start, battle.format("Plymouth"), SECRET)
    assert ledger(out, "England")["prizes"] and ledger(out, "England")["units"]["F1"]["ships"] == 15


# -- V corps transport --------------------------------------------------------------------------
def test_V_cavalry_counts_double_and_a_fleet_carries_8_infantry_and_1_cavalry():
    setup = "England: FORM F1 FLEET 10 AT London"
    assert "embarks" in texts(play("England: TRANSPORT C1 INF 8 CAV 1 ON F1", setup=setup))
    out = play("England: TRANSPORT C1 INF 8 CAV 2 ON F1", setup=setup)
    assert "count as 12" in texts(out, "England") and not ledger(out, "England")["corps"]


def test_V_a_corps_remains_at_sea_no_more_than_three_months():
    state = play("England: TRANSPORT C1 INF 5 ON F1", setup="England: FORM F1 FLEET 10 AT London")["state"]
    msgs = []
    for _ in range(3):
        out = step(state, "", SECRET)
        state, msgs = out["state"], msgs + [texts(out, "England")]
    assert "sea supply" in msgs[0]
    assert "must LAND" in msgs[1] and "more than V.A allows" in msgs[2]


# -- VI squadrons, VII combined fleets ----------------------------------------------------------
def test_VI_a_squadron_has_2_to_6_ships():
    assert "between 2 to 6 ships" in texts(play("France: FORM S1 SQUADRON 7 AT Brest"))
    assert "between 2 to 6 ships" in texts(play("France: FORM S1 SQUADRON 1 AT Brest"))
    assert ledger(play("France: FORM S1 SQUADRON 6 AT Brest"), "France")["units"]["S1"]["ships"] == 6


def test_VI_A_a_squadron_moves_8_zones_only_between_port_and_fleet():
    out = until("France: SAIL S1\nFrance: MOVE S1 TO Biscay ZONES 2",
                lambda o: roll_of(o, "S1 leaves")["result"] >= 4, setup="France: FORM S1 SQUADRON 3 AT Brest")
    assert "only to a port or to a fleet" in texts(out, "France")
    out = until("France: SAIL S1\nFrance: MOVE S1 TO Toulon ZONES 9",
                lambda o: roll_of(o, "S1 leaves")["result"] >= 4, setup="France: FORM S1 SQUADRON 3 AT Brest")
    assert "moves 8 sea zones" in texts(out, "France")
    out = until("France: SAIL S1 F1\nFrance: MOVE F1 TO Biscay\nFrance: MOVE S1 TO Biscay ZONES 1",
                lambda o: roll_of(o, "S1 leaves")["result"] >= 4 and roll_of(o, "F1 leaves")["result"] >= 2,
                setup="France: FORM S1 SQUADRON 3 AT Brest\nFrance: FORM F1 FLEET 8 AT Brest")
    assert ledger(out, "France")["units"]["S1"]["at"] == "Biscay"


def test_VI_B_squadron_combat_minus_one_and_no_victory_points():
    setup = "England: FORM S1 SQUADRON 3 AT London\nFrance: FORM S2 SQUADRON 3 AT Brest"
    out = play("Master: COMBAT AT London England S1 VS France S2", setup=setup)
    first = roll_of(out, "England S1")
    assert first["modifier"] == -1 and "may never have the weather gauge" in texts(out)
    out = play("Master: BATTLE AT Channel WINNER England LOSSES France S2 0 VP 1", setup=setup)
    assert "NO victory points for squadron combats" in texts(out)


def test_VII_only_units_that_start_the_month_stacked_fight_as_one():
    setup = "France: FORM F1 FLEET 8 AT Brest\nFrance: FORM S1 SQUADRON 3 AT Toulon\nEngland: FORM F9 FLEET 9 AT London"
    out = play("Master: COMBAT AT Brest France F1 S1 VS England F9", setup=setup)
    assert "S1 did not start the month stacked with F1" in texts(out)


def test_X_venice_minus_one():
    setup = "France: FORM F1 FLEET 8 AT Brest\nEngland: FORM F9 FLEET 9 AT London"
    out = play("Master: COMBAT AT Adriatic France F1 VENETIAN VS England F9", setup=setup)
    assert roll_of(out, "France F1")["modifier"] == -1 and "Venice: -1" in texts(out)


# -- VIII sailing -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,n,need", [("FLEET", 8, 2), ("SQUADRON", 3, 4)])
def test_VIII_leaving_port_takes_a_roll(kind, n, need):
    """VIII.B: "If 2-6 rolled, a fleet may leave port / If 4-6 rolled, a squadron may leave port"."""
    for i in range(1, 12):
        s = f"{i:064x}"
        out = step(fresh(s, f"France: FORM U1 {kind} {n} AT Brest"), "France: SAIL U1", s)
        rolled = roll_of(out, "U1 leaves")["result"]
        assert (not ledger(out, "France")["units"]["U1"]["in_port"]) == (rolled >= need)


def test_VIII_an_admiral_at_the_port_adds_2():
    out = until("France: SAIL U1", lambda o: roll_of(o, "U1")["dice"] == [2],
                setup="France: FORM U1 SQUADRON 3 AT Brest\nMaster: ADMIRAL France AT Brest")
    assert roll_of(out, "U1")["result"] == 4 and not ledger(out, "France")["units"]["U1"]["in_port"]


@pytest.mark.parametrize("port,spelling", [("Le Harve", "Le Havre"), ("St. Petersburg", "St Petersburg"),
                                          ("St. Petersburg", "St. Petersburg"), ("St. Petersburg", "st. petersburg"),
                                          ("Konigsburg", "Königsberg")])
def test_VIII_the_admiral_counts_whichever_spelling_names_the_port(port, spelling):
    """VIII: "If the fleet admiral is located at the port, add a +2 to the die roll." A port is one
    place whatever accepted spelling the master or the player used: stored under the table's name."""
    nation = {"Le Harve": "France", "St. Petersburg": "Russia", "Konigsburg": "Prussia"}[port]
    setup = f"Master: SHIPS {nation} {port} +3\n{nation}: FORM U1 SQUADRON 3 AT {port}\n" \
            f"Master: ADMIRAL {nation} AT {spelling}"
    state = fresh(setup=setup)
    assert state["nations"][nation]["admirals"] == [port]
    out = step(state, f"{nation}: SAIL U1", SECRET)
    rec = roll_of(out, "U1 leaves")
    assert rec["modifier"] == 2 and rec["why"] == {"admiral": 2} and rec["result"] == rec["dice"][0] + 2
    # the unit formed with another spelling, the admiral leaving under a third: still one port
    other = {"Le Harve": "le havre", "St. Petersburg": "Petersburg", "Konigsburg": "Koenigsberg"}[port]
    state = fresh(setup=f"Master: SHIPS {nation} {other} +3\n{nation}: FORM U1 SQUADRON 3 AT {other}\n"
                        f"Master: ADMIRAL {nation} AT {spelling}")
    assert state["nations"][nation]["units"]["U1"]["at"] == port
    assert roll_of(step(state, f"{nation}: SAIL U1", SECRET), "U1 leaves")["modifier"] == 2
    out = step(state, f"Master: ADMIRAL {nation} LEAVES {other}", SECRET)
    assert out["state"]["nations"][nation]["admirals"] == []


def test_VIII_a_state_stored_with_another_spelling_reads_canonically():
    """Games stored before ports were canonicalised kept the master's spelling ("Le Havre",
    "St Petersburg") for admirals and ships: the next month reads them under the table's name, counts
    kept under two spellings merged, and the admiral's +2 counts."""
    state = fresh()
    russia = state["nations"]["Russia"]
    russia["docked"] = {"St. Petersburg": 12, "St Petersburg": 3, "Sevastopol": 6}
    russia["admirals"] = ["St Petersburg"]
    russia["units"]["U1"] = {"id": "U1", "kind": "squadron", "ships": 3, "at": "st petersburg", "in_port": True,
                             "start_at": "st petersburg", "zones": 0, "away": "", "back_from": "", "arrives": "",
                             "exit_zone": ""}
    out = step(state, "Russia: SAIL U1", SECRET)
    assert roll_of(out, "U1 leaves")["modifier"] == 2
    assert ledger(out, "Russia")["docked"] == {"St. Petersburg": 15, "Sevastopol": 6}
    assert ledger(out, "Russia")["admirals"] == ["St. Petersburg"]


def test_a_roll_depends_on_what_it_is_for_not_on_the_order_or_spelling_of_the_commands():
    """The dice of a month are keyed by nation, unit (or yard), kind and month: the same commands sent
    in another order, or spelt another way, give every roll the same dice; only the words shown beside
    a roll and its number in the month's list may change."""
    setup = ("France: FORM S1 SQUADRON 3 AT Brest\nFrance: FORM F2 FLEET 6 AT Toulon\n"
             "England: FORM E1 FLEET 10 AT Plymouth\n" + WAR)
    one = play("France: SAIL S1\nFrance: SAIL F2\nEngland: SAIL E1\nFrance: STORES 1 AT Le Havre\n"
               "Spain: BUILD 2 AT Cadiz", setup=setup)
    two = play("spain: build 2 at cadiz\nFrance: STORES 1 AT le harve\nEngland: sail e1\nFrance: SAIL f2\n"
               "France: sail s1", setup=setup)
    dice_of = lambda out: {tuple(r["key"]): (r["dice"], r["result"]) for r in out["rolls"]}  # noqa: E731
    assert dice_of(one) == dice_of(two) and len(dice_of(one)) == 5
    assert one["commands_hash"] != two["commands_hash"]          # the list as sent is what is committed


# -- IX breakouts -------------------------------------------------------------------------------
BREAK = "France: FORM F1 FLEET 10 AT Brest\nEngland: FORM E1 FLEET 12 AT Plymouth\n" + WAR


def _at_sea(setup: str = BREAK) -> str:
    return "England: SAIL E1\n"


def test_IX_A_orders_are_written_before_the_sail_roll_and_stay_sealed():
    out = until("France: BREAKOUT F1 WEST INDIES VIA Biscay", lambda o: roll_of(o, "F1 leaves")["result"] == 1,
                setup=BREAK)
    kinds = [(e["kind"], e["to"]) for e in out["events"]]
    assert kinds.index(("breakout", ["France"])) < kinds.index(("sailing", ["all"]))
    assert "West Indies" not in "\n".join(out["announcements"])
    assert ledger(out, "France")["units"]["F1"]["in_port"] and not out["state"]["breakouts"]
    # a failed breakout looks like any failed sail: its public roll and notice say nothing of it
    sailed = until("France: SAIL F1", lambda o: roll_of(o, "F1 leaves")["result"] == 1, setup=BREAK)
    public = lambda o: ([r["purpose"] for r in o["rolls"]], o["announcements"])  # noqa: E731
    assert public(out) == public(sailed)


def test_IX_D_without_pursuit_the_escape_succeeds_and_the_west_indies_take_two_months():
    out = until("France: BREAKOUT F1 WEST INDIES VIA Biscay", lambda o: roll_of(o, "F1 leaves")["result"] >= 2,
                setup=BREAK)
    assert "escape is successful" in texts(out)
    unit = ledger(out, "France")["units"]["F1"]
    assert unit["away"] == "to_west_indies" and unit["arrives"] == "1805-04"
    refused = step(out["state"], "France: RETURN F1 TO Biscay", out["secret"])
    assert "cannot return until it reaches the Indies" in texts(refused, "France")
    state = step(refused["state"], "", out["secret"])["state"]
    assert state["nations"]["France"]["units"]["F1"]["away"] == "west_indies"
    back = step(state, "France: RETURN F1 TO Biscay", out["secret"])
    assert ledger(back, "France")["units"]["F1"]["at"] == "Biscay"


def test_IX_B_C_pursuit_interception_on_1_and_trail_reveals_the_orders_to_the_trailer_only():
    def want(o):
        return (roll_of(o, "F1 leaves")["result"] >= 2 and roll_of(o, "E1 leaves")["result"] >= 2
                and roll_of(o, "intercepts France F1")["result"] == 1)
    out = until("England: SAIL E1\nFrance: BREAKOUT F1 RETURN VIA Biscay\n"
                "England: PURSUE E1 WATCH Brest RETURN\nEngland: TRAIL E1", want, setup=BREAK)
    assert "pursues France F1 off the map" in texts(out)
    secret_line = [e for e in out["events"] if e["kind"] == "trail"]
    assert secret_line and secret_line[0]["to"] == ["England"] and "returning next month" in secret_line[0]["text"]
    missed = until("England: SAIL E1\nFrance: BREAKOUT F1 RETURN VIA Biscay\n"
                   "England: PURSUE E1 WATCH Brest RETURN\nEngland: TRAIL E1",
                   lambda o: roll_of(o, "F1 leaves")["result"] >= 2 and roll_of(o, "E1 leaves")["result"] >= 2
                   and roll_of(o, "intercepts France F1")["result"] > 1, setup=BREAK)
    assert not [e for e in missed["events"] if e["kind"] == "trail"]


def test_IX_C3_the_trailed_fleet_may_intercept_back_on_5_or_less():
    def want(o):
        return (roll_of(o, "F1 leaves")["result"] >= 2 and roll_of(o, "E1 leaves")["result"] >= 2
                and roll_of(o, "intercepts France F1")["result"] == 1)
    out = until("England: SAIL E1\nFrance: BREAKOUT F1 RETURN VIA Biscay ENGAGE\n"
                "England: PURSUE E1 WATCH Brest RETURN\nEngland: TRAIL E1", want, setup=BREAK)
    back = roll_of(out, "intercepts its trailer")["result"]
    assert ("turns on its trailer" in texts(out)) == (back <= 5)


def test_IX_B1_a_pursuer_to_the_west_indies_cannot_return_for_four_months():
    def want(o):
        return roll_of(o, "F1 leaves")["result"] >= 2 and roll_of(o, "E1 leaves")["result"] >= 2
    out = until("England: SAIL E1\nFrance: BREAKOUT F1 RETURN VIA Biscay\nEngland: PURSUE E1 WATCH Brest WEST INDIES",
                want, setup=BREAK)
    e1 = ledger(out, "England")["units"]["E1"]
    assert e1["away"] == "to_west_indies" and e1["back_from"] == "1805-06"      # moved in 1805-02
    f1 = ledger(out, "France")["units"]["F1"]
    assert f1["away"] == "off_map"
    nxt = step(out["state"], "", out["secret"])
    assert "returns to the map at Biscay" in texts(nxt)                           # A.2: back the next month


def test_IX_E_both_in_the_west_indies_interception_on_1_to_3():
    state = fresh(setup=BREAK)
    state["nations"]["France"]["units"]["F1"].update(away="west_indies", at="West Indies", in_port=False)
    state["nations"]["England"]["units"]["E1"].update(away="west_indies", at="West Indies", in_port=False)
    for i in range(1, 10):
        s = f"{i:064x}"
        st = copy.deepcopy(state)
        st["commitment"] = fresh(s)["commitment"]
        out = step(st, "England: INTERCEPT E1 TARGET France F1", s)
        r = roll_of(out, "in the West Indies")["result"]
        assert ("intercepts France F1 (roll" in texts(out)) == (r <= 3)


# -- XI forts -----------------------------------------------------------------------------------
def test_XI_fort_fire_twice_unless_starred_then_fleet_fire_per_10_factors():
    out = play("Master: FORT Copenhagen VALUE 45 GARRISON MILITIA ATTACKER England F1",
               setup="England: FORM F1 FLEET 25 AT London")
    fort_rolls = [r for r in out["rolls"] if "fort roll" in r["purpose"] and "withdrawal" not in r["purpose"]]
    first = fort_rolls[0]
    assert first["modifier"] == 1                                               # "Militia only garrison: +1"
    starred = min(12, first["result"]) >= 11                                    # 40-49: 3* 3* in 11, 12
    assert len(fort_rolls) == (1 if starred else 2)
    losses = sum([8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3][min(12, r["result"]) - 2] for r in fort_rolls)
    left = 25 - losses
    shots = [r for r in out["rolls"] if "fleet shot" in r["purpose"]]
    assert len(shots) == -(-left // 10)                                         # "or part thereof"
    assert f"{losses} ships lost" in texts(out)


# -- XII-XVII political points ------------------------------------------------------------------
def test_XII_C_a_nation_keeps_two_home_provinces_and_its_capital():
    assert "at least 2 home nation provinces" in texts(play("Master: SURRENDER Austria TO France KEEPS 1"))
    assert "at least 2" in texts(play("Master: SURRENDER Austria TO France KEEPS 3 NOCAPITAL"))
    assert "surrenders to France" in texts(play("Master: SURRENDER Austria TO France KEEPS 2"))


def test_XIII_poland_created_and_partitioned():
    out = play("Master: POLAND CREATE France")
    assert [ledger(out, n)["pp"] for n in ("Russia", "Prussia", "Austria", "France")] == [-1, -1, -1, 1]
    out = step(out["state"], "Master: POLAND PARTITION Russia Prussia", SECRET)
    assert [ledger(out, n)["pp"] for n in ("Russia", "Prussia", "Austria")] == [0, 0, -1]


def test_XIV_regaining_the_papacy_is_worth_a_point():
    out = play("Master: PAPACY Austria", setup="Master: PAPACY England")
    assert ledger(out, "Austria")["pp"] == 1


def test_XV_the_continental_system():
    out = play("Master: CONTINENTAL Spain\nMaster: CONTINENTAL MINOR Confederation of the Rhine")
    assert (ledger(out, "France")["pp"], ledger(out, "England")["pp"]) == (1, -3)
    out = step(out["state"], "Master: RENOUNCE Spain", SECRET)
    assert (ledger(out, "France")["pp"], ledger(out, "England")["pp"]) == (1, -1)
    st = fresh(setup="Master: CONTINENTAL Prussia\nMaster: PEACE France Prussia MONTHS 24")
    assert "may not opt out" in texts(step(st, "Master: RENOUNCE Prussia", SECRET))


def test_XV_A3_naval_stores_trade_with_england_is_announced_to_all():
    out = play("Spain: TRADE STORES WITH England", setup="Master: CONTINENTAL Spain")
    assert "Spain trades in naval stores with England (under the Continental System, XV.A.3)." in out["announcements"]


def test_XVI_egypt_in_enemy_hands():
    out = play("Master: EGYPT France", setup=WAR)
    eng = ledger(out, "England")
    assert eng["pp"] == -1
    money = eng["money"]
    state = step(out["state"], "", SECRET)["state"]                          # March: collection
    assert state["nations"]["England"]["money"] == money - 5
    out = step(state, "Master: EGYPT NONE", SECRET)
    assert ledger(out, "England")["vp"] == 1


def test_XVII_the_tsar():
    """XVII.A: "All members of a royal house MUST be given a field command ... when their nation is at
    war. ... An exception to this is the Tsar, who after losing his first field combat may elect not
    to have another field command." The exception is the Tsar's alone: the rest of the Romanovs, and
    every other royal house at war, are still reminded month after month."""
    assert ledger(play("Master: TSAR VICTORY"), "Russia")["pp"] == 2
    out = play("Master: TSAR DEFEAT", setup="Master: WAR Russia France\nMaster: WAR Austria England")
    assert "no longer need accompany" in texts(out)
    royalty = {n: [e["text"] for e in out["events"] if e["kind"] == "royalty" and n in e["to"]]
               for n in ("Russia", "France", "Austria", "England", "Spain")}
    assert royalty["Russia"] == ["Russia is at war: every member of its royal house other than the Tsar MUST hold "
                                 "a field command (XVII.A); the Tsar, present at a defeat, may elect not to (XVII.C)."]
    for nation in ("France", "Austria", "England"):
        assert royalty[nation] == [f"{nation} is at war: every member of its royal house MUST hold a field command "
                                   f"(XVII.A)."]
    assert royalty["Spain"] == []                                      # at peace: no reminder
    later = step(out["state"], "", SECRET)                             # and the month after, the same
    assert [e["to"] for e in later["events"] if e["kind"] == "royalty"] == [["England"], ["France"], ["Austria"],
                                                                            ["Russia"]]


def test_XVIII_honours_of_war_not_for_turks_or_spanish_at_home():
    assert "do not apply to Spain" in texts(play("Master: HONOURS Spain TO France AT Madrid HOME"))
    assert "surrenders to France" in texts(play("Master: HONOURS Spain TO France AT Naples"))


# -- AFA 2-5 ------------------------------------------------------------------------------------
def test_afa_2_english_militia():
    out = play("Master: INVASION START")
    assert ledger(out, "England")["militia"] == 25
    out = step(out["state"], "Master: INVASION END", SECRET)
    assert ledger(out, "England")["militia"] == 10


def test_afa_3_and_4_ceding_at_peace_and_loans_to_anyone():
    out = play("France: CEDE Savoy TO Spain\nFrance: LOAN 10 TO England")
    assert "France cedes Savoy to Spain." in out["announcements"]
    assert "England: +10 money (loan from France)" in texts(out, "England")
    assert "at war" in texts(play("France: CEDE Savoy TO England", setup=WAR))


def test_afa_5_casus_belli_put_to_the_master():
    st = fresh(setup="Master: PEACE France Austria MONTHS 24")
    out = step(st, "Master: WAR France Austria\nFrance: CASUS AGAINST Austria troops massing on the Inn", SECRET)
    assert "enforced peace" in texts(out) and "Casus belli awaiting your ruling" in texts(out, "Master")
    out = step(out["state"], "Master: CASUS France Austria GRANT", SECRET)
    out = step(out["state"], "Master: WAR France Austria", SECRET)
    assert ["Austria", "France"] in out["state"]["wars"]


# -- the contract -------------------------------------------------------------------------------
def test_a_month_is_deterministic_given_the_secret_and_refuses_another_secret():
    cmds = "France: BUILD 2 AT Brest\nEngland: BUILD 2 AT London\n" + WAR
    assert play(cmds) == play(cmds)
    with pytest.raises(StepError, match="commitment"):
        step(fresh(), cmds, "77" * 32)


def test_a_keyword_given_twice_is_refused_not_read_as_the_last_one():
    """"BUILD 2 AT Brest and 3 AT Toulon" once built 2 at Toulon: the second AT replaced the first."""
    out = play("France: BUILD 2 AT Brest and 3 AT Toulon\nFrance: BUILD 1 AT Brest")
    assert "AT appears twice: write one command a line" in texts(out, "France")
    assert [(w["yard"], w["ships"]) for w in ledger(out, "France")["works"]] == [("Brest", 1)]


def test_bad_lines_are_reported_and_the_good_ones_beside_them_run():
    out = play("France BUILD 2 AT Brest\nNarnia: BUILD 1 AT Brest\nFrance: FLY 2\nFrance: BUILD 1 AT Brest\n"
               "France: POINTS France +5 cheat")
    msg = texts(out)
    assert "start with the nation" in msg and "no nation called 'Narnia'" in msg
    assert "unknown command 'FLY'" in msg and "only the games master gives POINTS" in msg
    assert [w["ships"] for w in ledger(out, "France")["works"]] == [1]
