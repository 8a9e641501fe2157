"""Helpers for the EiA tests: a fresh game, one month stepped, a secret that gives wanted dice."""

from __future__ import annotations

from typing import Any, Callable

from judge.eia.data import load_tables
from judge.eia.state import new_game, to_json
from judge.eia.step import step

SECRET = "5e" * 32


def secret(i: int) -> str:
    return f"{i:064x}"


def fresh(secret_hex: str = SECRET, setup: str = "", game: str = "t1") -> dict[str, Any]:
    """The opening state, after a month of master ``setup`` lines if given (then it is 1805-02)."""
    state = to_json(new_game(load_tables(), game, secret_hex))
    if setup:
        state = step(state, setup, secret_hex)["state"]
    return state


def play(commands: str, state: dict[str, Any] | None = None, secret_hex: str = SECRET,
         setup: str = "") -> dict[str, Any]:
    return step(state or fresh(secret_hex, setup), commands, secret_hex)


def roll_of(out: dict[str, Any], purpose_part: str) -> dict[str, Any]:
    found = [r for r in out["rolls"] if purpose_part in r["purpose"]]
    assert found, f"no roll for {purpose_part!r} in {[r['purpose'] for r in out['rolls']]}"
    return found[0]


def until(commands: str, want: Callable[[dict[str, Any]], bool], setup: str = "", tries: int = 400,
          before: str = "") -> dict[str, Any]:
    """Step ``commands`` with secret after secret until ``want(output)``: a test needing a given die
    finds the game where it falls (the dice are fixed by the secret)."""
    for i in range(1, tries):
        s = secret(i)
        state = fresh(s, setup)
        if before:
            state = step(state, before, s)["state"]
        out = step(state, commands, s)
        if want(out):
            out["secret"] = s
            return out
    raise AssertionError("no secret gives the wanted dice")


def texts(out: dict[str, Any], to: str | None = None) -> str:
    return "\n".join(e["text"] for e in out["events"] if to is None or to in e["to"])


def ledger(out: dict[str, Any], nation: str) -> dict[str, Any]:
    return out["state"]["nations"][nation]
