"""``judge demo --variant eia_afa``: 24 months of Empires in Arms by mail, with robot teams.

Each major power has a team of two robots (head of state and general) that read their ledger
and mail commands — building, stocking stores, forming and sailing fleets, breakouts and
pursuits, repairs, loans, team press — and a robot master who declares wars, pays the base
game's income at each economic step, and enters battles, fort attacks and political events.
Everything goes through the real mail path (Maildir in, the judge, Maildir out) on a simulated
clock; every gazette is written to ``OUT/reports``. At the end the dice secret is revealed and
every roll of the game is checked with :func:`judge.eia.dice.verify`.
"""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from judge.eia import calendar, dice
from judge.eia.data import load_tables
from judge.game import eia as eia_games
from judge.demo import Demo, empty_out
from judge.game.store import loads

GAME = "eiademo"
ZONES = ["Channel", "Bay of Biscay", "North Sea", "Western Approaches", "Western Mediterranean", "Baltic",
         "Tyrrhenian Sea", "Adriatic", "Aegean"]
ROLES = ("head of state", "general")


class EiaDemo(Demo):
    """The Diplomacy demo's mail plumbing (send, pump, reports) with EiA teams instead of players."""

    def __init__(self, out: Path, seed: int = 1, months: int = 24, echo: Callable[[str], None] | None = None):
        self.plumbing(out, seed, echo)
        self.months = months
        self.tables = load_tables()
        self.teams = {n: [f"{n.lower()}.{r.split()[0]}@demo.invalid" for r in ROLES] for n in eia_games.LETTERS.values()}

    def game(self) -> Any:
        from judge.game.lifecycle import get_game

        g = get_game(self.judge.store, GAME)
        assert g is not None, "the EiA demo game was not created"
        return g

    # -- what a robot knows: its ledger, as mailed each month (read here from the open month) ------
    def state(self) -> dict[str, Any]:
        g = self.game()
        ph = eia_games.current(self._ctx(), g)
        return loads(ph["position"]) if ph else {}

    def _ctx(self) -> Any:
        from judge.game.lifecycle import Ctx

        return Ctx(self.judge.store, self.cfg, self.clock)

    def _run(self, started: float) -> str:  # Demo.run sets up the folders and the judge
        self.echo(f"judge demo: Empires in Arms (AFA naval supplement), 7 robot teams of {len(ROLES)}, "
                  f"{self.months} months; mail folders in {self.folders.root}")
        self.send(self.master, f"CREATE ?{GAME} masterpw eia_afa month=72h team={len(ROLES)} months={self.months}",
                  subject="new game")
        for nation, members in self.teams.items():
            for address, role in zip(members, ROLES):
                self.send(address, f"SIGNON ?{GAME} pw-{address.split('@')[0]} {nation} {role}", subject="join")
        self.pump()
        assert self.game().state == "active", "the EiA demo game did not start"
        commitment = eia_games.opts(self.game())["commitment"]
        self.echo(f"  dice commitment {commitment}")
        month_no = 0
        while self.game().state == "active" and month_no < self.months + 2:
            month_no += 1
            st = self.state()
            self.master_turn(st, month_no)
            for nation, members in self.teams.items():
                head, general = members
                self.send(head, self.mail_for(head, self.economy(st, nation, month_no)), subject=f"{st['month']} yards")
                self.send(general, self.mail_for(general, self.navy(st, nation, month_no)), subject=f"{st['month']} fleet")
            self.pump()
            for _ in range(5):
                wake = self.judge.next_wakeup()
                if wake is None or self.state().get("month") != st["month"]:
                    break
                self.clock = max(self.clock, wake)
                self.pump()
            self.clock += timedelta(minutes=30)
        return self.finish(started, commitment)

    def mail_for(self, address: str, lines: list[str]) -> str:
        nation = next(n for n, m in self.teams.items() if address in m)
        body = [f"SIGNON {nation[0]}{GAME} pw-{address.split('@')[0]}", *lines]
        return "\n".join(body) + f"\n\n-- \n{address}"

    # -- the robots -----------------------------------------------------------------------------
    def economy(self, st: dict[str, Any], nation: str, month_no: int) -> list[str]:
        led = st["nations"][nation]
        rng = self.rng
        out: list[str] = []
        yards = [y for y in self.tables.nations[nation].yards]
        busy: dict[str, int] = {}
        for other in st["nations"].values():
            for w in other["works"]:
                busy[w["yard"]] = busy.get(w["yard"], 0) + w["ships"]
        money = led["money"]
        for port, n in sorted(led["damaged"].items()):
            yard = self.tables.yard(port)
            if yard and yard.nation == nation and money >= 20:
                k = min(n, yard.max - busy.get(yard.name, 0))
                if k > 0:
                    out.append(f"REPAIR {k} AT {yard.name}")
                    money -= k * self.tables.nations[nation].cost[1] * 2
        yard = rng.choice(yards)
        cost = self.tables.nations[nation].cost[0]
        room = yard.max - busy.get(yard.name, 0)
        if room > 0 and money >= 2 * cost and led["manpower"] > 4 and rng.random() < 0.6:
            n = max(1, min(room, money // cost // 2, 3))
            out.append(f"BUILD {n} AT {yard.name}")
            if rng.random() < 0.4:
                out.append(f"ANNOUNCE {yard.name} {n + rng.randint(-1, 4)}")
        elif money >= 3 * cost and rng.random() < 0.3 and led["stores"].get(yard.name, 0) < self.tables.stock_cap(yard):
            out.append(f"STORES 1 AT {yard.name}")
        if nation == "England" and month_no == 3:
            out.append("DENY STORES TO France")
        if nation == "Russia" and month_no == 6:
            out.append("LOAN 5 TO Prussia")
        if month_no % 5 == 0:
            ally = rng.choice([n for n in self.teams if n != nation])
            out += [f"PRESS TO {ally[0]}", f"{ally}: our yards are busy; what are yours doing?", "ENDPRESS"]
        if month_no % 4 == 1:
            out += ["PRESS TO TEAM", "General, keep the fleet in port until the admiral arrives.", "ENDPRESS"]
        return out

    def navy(self, st: dict[str, Any], nation: str, month_no: int) -> list[str]:
        led = st["nations"][nation]
        rng = self.rng
        out: list[str] = []
        units = led["units"]
        n_units = len(units)
        for port, n in sorted(led["docked"].items()):
            if n >= 3 and n_units < 6:
                n_units += 1
                ident = f"{nation[0]}{month_no}{n_units}"
                if rng.random() < 0.35:
                    out.append(f"FORM {ident} SQUADRON {min(n, rng.randint(2, 6))} AT {port}")
                else:
                    out.append(f"FORM {ident} FLEET {min(n, 10)} AT {port}")
        sail = []
        for u in units.values():
            if u["away"] == "west_indies" and u["back_from"] <= st["month"] and rng.random() < 0.5:
                out.append(f"RETURN {u['id']} TO Western Approaches")
            elif u["away"]:
                continue
            elif u["in_port"]:
                if nation == "France" and u["kind"] == "fleet" and rng.random() < 0.3:
                    out.append(f"BREAKOUT {u['id']} {rng.choice(['WEST INDIES', 'RETURN'])} VIA Bay of Biscay"
                               + (" ENGAGE" if rng.random() < 0.5 else ""))
                elif rng.random() < 0.5:
                    sail.append(u["id"])
            elif u["kind"] == "fleet" and nation == "England" and rng.random() < 0.6:
                out.append(f"PURSUE {u['id']} WATCH Brest {rng.choice(['RETURN', 'WEST INDIES'])}")
                out.append(f"{rng.choice(['TRAIL', 'INTERCEPT'])} {u['id']}")
            elif u["kind"] == "fleet":
                out.append(f"MOVE {u['id']} TO {rng.choice(ZONES)}")
            else:
                home = next(iter(y.name for y in self.tables.nations[nation].yards))
                out.append(f"MOVE {u['id']} TO {home} PORT ZONES {rng.randint(1, 8)}")
        if sail:
            out.append("SAIL " + " ".join(sail))
        return out

    def master_turn(self, st: dict[str, Any], month_no: int) -> None:
        rng = self.rng
        lines = [f"SIGNON M{GAME} masterpw"]
        if month_no == 1:
            lines += ["WAR France England", "WAR Spain England", "CONTROL Denmark BY France",
                      "CONTROL Holland BY France", "CONTROL Sweden BY Russia", "ADMIRAL England AT Portsmouth",
                      "ADMIRAL France AT Toulon"]
        if calendar.is_economic(st["month"], self.tables.economic_first, self.tables.economic_every):
            lines += [f"MONEY {n} +{rng.randint(15, 35)} income (economic phase)" for n in self.teams]
            lines += [f"MANPOWER {n} +{rng.randint(2, 6)} levy (economic phase)" for n in self.teams]
        events = {4: ["PAPACY France"], 6: ["CONTINENTAL Prussia", "TSAR VICTORY"], 8: ["EGYPT France"],
                  10: ["POLAND CREATE France", "INVASION START"], 11: ["INVASION END", "PAPACY Austria"],
                  13: ["CONTINENTAL MINOR Confederation of the Rhine", "HONOURS Austria TO France AT Ulm"],
                  15: ["EGYPT NONE", "TSAR DEFEAT"], 18: ["RENOUNCE Prussia", "POLAND PARTITION Russia Prussia"],
                  20: ["SURRENDER Spain TO England KEEPS 5", "POINTS England +2 VP Trafalgar anniversary"]}
        lines += events.get(month_no, [])
        at_sea = {n: [u for u in st["nations"][n]["units"].values() if not u["in_port"] and not u["away"]]
                  for n in ("England", "France")}
        if at_sea["England"] and at_sea["France"] and rng.random() < 0.5:
            e, f = rng.choice(at_sea["England"]), rng.choice(at_sea["France"])
            lines.append(f"COMBAT AT Channel England {e['id']} VS France {f['id']}")
            winner = rng.choice(["England", "France"])
            port = "Portsmouth" if winner == "England" else "Brest"
            lines.append(f"BATTLE AT Channel WINNER {winner} LOSSES England {e['id']} {rng.randint(0, e['ships'] // 2)} "
                         f"France {f['id']} {rng.randint(0, f['ships'] // 2)} TO {port} ZONES {rng.randint(1, 7)}")
        if month_no in (7, 16) and at_sea["England"]:
            e = rng.choice(at_sea["England"])
            lines.append(f"FORT Brest VALUE {rng.choice([45, 70, 105])} GARRISON {rng.choice(['FULL', 'MILITIA'])} "
                         f"ATTACKER England {e['id']}")
        self.send(self.master, "\n".join(lines), subject=f"{st['month']} master")

    # -- the end ----------------------------------------------------------------------------------
    def finish(self, started: float, commitment: str) -> str:
        g = self.game()
        st = self.judge.store
        rolls = [r for row in st.all("SELECT results FROM phases WHERE game_id = ? AND state = 'processed' "
                                     "ORDER BY seq", (g.id,)) for r in json.loads(row["results"])["rolls"]]
        months = len(st.all("SELECT id FROM phases WHERE game_id = ? AND state = 'processed'", (g.id,)))
        finals = [b for s, b in self.mailboxes.get(self.master, []) if "now revealed" in b]
        verdict = "secret not revealed"
        if finals:
            secret = re.search(r"now revealed:\s+([0-9a-f]{64})", finals[-1]).group(1)  # type: ignore[union-attr]
            anchors = {r["month"]: dice.Anchor(r["roll_count"], r["rolls_digest"], r["commands_hash"], r["commands"])
                       for row in st.all("SELECT results FROM phases WHERE game_id = ? AND state = 'processed'",
                                         (g.id,)) for r in [json.loads(row["results"])]}
            problems = dice.verify(GAME, secret, rolls, commitment, anchors,
                                   dice.rule_figures(self.tables.raw), need_anchors=True)
            verdict = "every roll verified" if not problems else f"{len(problems)} roll(s) FAILED verification"
            self.reports.mkdir(parents=True, exist_ok=True)
            (self.reports / "rolls.json").write_text(json.dumps(rolls, indent=1), encoding="utf-8")
        secs = time.monotonic() - started
        return (f"Demo finished: {months} months of Empires in Arms, {len(rolls)} rolls ({verdict}); "
                f"{self.counts['sent']} mails to the judge, {self.counts['received']} from it, {secs:.1f} s. "
                f"Reports in {self.reports}/, mail in {self.folders.root}/, database {self.cfg.db_path}.")


def run_eia_demo(out: Path, seed: int = 1, months: int = 24, echo: Callable[[str], None] | None = None) -> str:
    return EiaDemo(empty_out(out), seed, months, echo).run()
