"""One EiA month: state + commands -> next state, events, announcements and rolls. Pure code.

Commands run stage by stage (setup, treasury, yards, sailing, pursuit, movement, combat,
politics), in the order given within a stage; then the month closes (corps at sea, prizes under
way, breakouts, the economic step) and the next month opens (finished ships come into port).
A refused command changes nothing and is reported to its sender with the reason.
"""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any, Callable

from judge.eia import calendar, dice
from judge.eia import rules  # noqa: F401  (fills the command registry)
from judge.eia.context import MASTER, PUBLIC, VERBS, Command, Ctx, Malformed, Rejected
from judge.eia.data import Tables, load_tables
from judge.eia.rules import AFTER_STAGE, CLOSE_MONTH, OPEN_MONTH
from judge.eia.state import canonical_places, from_json, to_json


class StepError(ValueError):
    """The step cannot run at all (bad state, wrong secret)."""


_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z .'-]*?)\s*:\s*(.*)$")
MASTER_NAMES = {"master", "gm", "games master", "game master"}


def parse_commands(text: str, tables: Tables) -> tuple[list[Command], list[tuple[int, str]]]:
    """``Nation: VERB words`` lines (``Master:`` for the games master); ``#`` starts a comment."""
    out: list[Command] = []
    errors: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _LINE.match(line)
        if not m:
            errors.append((number, f"line {number}: {line!r}: start with the nation (e.g. 'France: BUILD 2 AT Brest')"))
            continue
        who, rest = m.group(1).strip(), m.group(2).split()
        if who.casefold() in MASTER_NAMES:
            nation = MASTER
        else:
            found = tables.nation(who)
            if not found:
                errors.append((number, f"line {number}: {line!r}: no nation called {who!r}"))
                continue
            nation = found.name
        if not rest:
            errors.append((number, f"line {number}: {line!r}: no command"))
            continue
        out.append(Command(nation, rest[0].upper(), rest[1:], line, number))
    return out, errors


def command_lines(commands: str) -> list[str]:
    """The month's command list as committed: every line that is not blank or only a comment."""
    return [" ".join(raw.split()) for raw in commands.splitlines() if raw.split("#", 1)[0].strip()]


def step(state_json: dict[str, Any], commands: str, secret_hex: str,
         tables: Tables | None = None, scheme: str = dice.SCHEME) -> dict[str, Any]:
    """Step one month. ``scheme`` is ``eia-dice-2`` only to replay a month first stepped under it
    (a rollback keeps a month's recorded dice)."""
    tables = tables or load_tables()
    try:
        state = from_json(copy.deepcopy(state_json))
        calendar.parse_month(state.month)
    except ValueError as exc:
        raise StepError(f"bad state: {exc}") from None
    try:
        if dice.commitment(secret_hex) != state.commitment:
            raise StepError("the secret does not match this game's commitment")
    except dice.DiceError as exc:
        raise StepError(str(exc)) from None
    # the command list is committed before a die is rolled; the gazette prints the hash
    committed = dice.commands_hash(secret_hex, state.game, state.month, command_lines(commands))
    out = _month(state, tables, commands, dice.Roller(secret_hex, state.game, state.month, scheme=scheme))
    return {**out, "commands": command_lines(commands), "commands_hash": committed, "dice_scheme": scheme,
            **dice.month_anchor([r for r in out["rolls"] if r["month"] == out["month"]])}


def _month(state: Any, tables: Tables, commands: str, roller: dice.Roller,
           first: frozenset[int] = frozenset(), keep_state: bool = True) -> dict[str, Any]:
    """The month stepped; ``keep_state`` False (a trial, which wants the refusals only): the
    month's closing state is not written out as JSON."""
    month = state.month
    canonical_places(state, tables)
    ctx = Ctx(state, tables, roller)
    for led in state.nations.values():
        for unit in led.units.values():
            unit.start_at, unit.zones = unit.at, 0
    cmds, errors = parse_commands(commands, tables)
    for number, err in errors:
        ctx.say(err, MASTER, "rejected")
        ctx.events[-1].update(line=number, form=True)
    runnable = []
    for cmd in cmds:
        verb = VERBS.get(cmd.verb)
        if verb is None:
            ctx.say(f"{cmd.line!r}: unknown command {cmd.verb!r}", [cmd.nation, MASTER], "rejected")
        elif verb.master and cmd.nation != MASTER:
            ctx.say(f"{cmd.line!r}: only the games master gives {cmd.verb}", [cmd.nation], "rejected")
        elif cmd.nation != MASTER and cmd.nation not in state.nations:
            ctx.say(f"{cmd.line!r}: {cmd.nation} is played by its controller", [MASTER], "rejected")
        else:
            # ``first``: lines a what-if trial runs before every stage (judge.eia.clerk)
            runnable.append((-1 if cmd.number in first else verb.stage, cmd, verb))
            continue
        ctx.events[-1].update(line=cmd.number, form=True)
    for stage in sorted({s for s, _, _ in runnable} | set(AFTER_STAGE)):
        for _, cmd, verb in [r for r in runnable if r[0] == stage]:
            run_one(ctx, cmd, verb.handler)
        for hook in AFTER_STAGE.get(stage, ()):
            hook(ctx)
    for hook in CLOSE_MONTH:
        hook(ctx)
    state.month = calendar.add(month, 1)
    ctx.roller.new_month(state.month)
    for hook in OPEN_MONTH:
        hook(ctx)
    return {
        "month": month,
        "next_month": state.month,
        "events": ctx.events,
        "rolls": ctx.roller.rolls,
        "announcements": [e["text"] for e in ctx.events if e["to"] == [PUBLIC]],
        "state": to_json(state) if keep_state else None,
    }


def trial(state_json: dict[str, Any], commands: str, tables: Tables | None = None,
          roller: Callable[[Any], dice.Roller] | None = None, first: frozenset[int] = frozenset(),
          opened: bytes | None = None) -> list[dict[str, Any]]:
    """The refusals a month of ``commands`` would meet if stepped now, with throwaway dice (never the
    game's): what the judge tells a sender at once. Each is a rejected event with the ``line`` it
    refuses and ``form`` (True: refused for its own words, whatever the state or the dice).
    ``roller(state)`` gives the dice (judge.eia.clerk fixes every face); ``first`` names lines
    to run before every stage (a what-if: would this line pass if that one ran first?).
    ``opened``: :func:`opening` of ``state_json``, for many trials of one state (read once)."""
    tables = tables or load_tables()
    state = pickle.loads(opened if opened is not None else opening(state_json))
    dice_ = roller(state) if roller else dice.Roller(dice.new_secret(), state.game, state.month)
    out = _month(state, tables, commands, dice_, first, keep_state=False)
    return [e for e in out["events"] if e["kind"] == "rejected" and "line" in e]


def opening(state_json: dict[str, Any]) -> bytes:
    """The state read from its JSON, pickled: :func:`trial` unpickles a fresh copy of it (much
    faster than reading the JSON again), so trials never share or change ``state_json``."""
    return pickle.dumps(from_json(copy.deepcopy(state_json)))


def run_one(ctx: Ctx, cmd: Command, handler: Any) -> None:
    """Run one command; if it is refused, undo everything it did (state, events), and mark the
    dice it rolled void: they stay published, so a month's roll numbers never have a gap that
    could hide a roll left out (judge.eia.dice.verify), and a number once drawn is never drawn
    again for another purpose."""
    # pickled, not copied: the same deep copy as copy.deepcopy, several times faster on
    # dataclasses, and only unpickled for a command that is refused
    saved = pickle.dumps(ctx.state), len(ctx.events), len(ctx.roller.rolls), pickle.dumps(ctx.scratch)
    try:
        handler(ctx, cmd)
    except Rejected as exc:
        ctx.state.__dict__.update(pickle.loads(saved[0]).__dict__)
        del ctx.events[saved[1]:]
        for rec in ctx.roller.rolls[saved[2]:]:
            rec["void"] = "the command was refused"
        ctx.scratch = pickle.loads(saved[3])
        to = [cmd.nation] if cmd.nation == MASTER else [cmd.nation, MASTER]
        ctx.say(f"{cmd.line!r}: {exc}", to, "rejected")
        ctx.events[-1].update(line=cmd.number, form=isinstance(exc, Malformed))
