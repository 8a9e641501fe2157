"""The at-once check of a command line: what the judge tells a sender before the deadline. Pure code.

A line is tried with the team's other lines of the month against the month's opening state
(judge.eia.step.trial), twice, with dice that are not dice at all: every die showing its lowest
face, then every die its highest. A refusal met both times is "would be refused"; one met only
once "may be refused, depending on the month's dice". So the answer never depends on a random
throw, and never on the game's own dice (the reply reveals no roll).

The month runs stage by stage (STAGES), not in the order lines were written, so a line can fail
because of another: a BUILD after a LOAN that spends the money (the treasury runs before the
yards), a WAR in the month of the CASUS GRANT it needs (setup runs before politics). The check
names the other line and the stages. A line refused for its own words gets a suggestion when
one connecting word (AT, TO ...) or a verb spelled right would make it good: a suggestion in the
error, never a silent correction.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping

from judge.eia import dice
from judge.eia.context import VERBS
from judge.eia.data import Tables, load_tables
from judge.eia.step import opening, parse_commands, trial

#: the stages of a month, in the order they run (judge.eia.context STAGE_*), with what closes it
STAGES = ("setup", "treasury", "yards", "sailing", "pursuit", "movement", "combat", "politics")
CLOSE = ("then the month closes: corps at sea, prizes under way, units off the map, the economic step "
         "(every third month); and the next month opens: finished ships come into port")
#: the mail commands of an EiA game besides the month's commands (for "did you mean")
MAIL_WORDS = ("CLEAR", "COMMANDS", "PRESS", "BROADCAST", "HELP", "ROLLS", "REVEAL", "SIGNOFF", "HISTORY", "WHOGAME", "LIST",
              "START", "PROCESS", "ROLLBACK", "PAUSE", "RESUME", "EJECT", "TERMINATE", "SET")
#: words that join a command's parts (BUILD 2 AT Brest): tried when a line is refused for its form
JOINS = ("AT", "TO", "FOR", "FROM", "PRICE", "BY", "VIA", "WATCH", "TARGET", "ZONES", "MONTHS", "KEEPS",
         "AGAINST", "ON", "WITH", "LEAVES")


@dataclass
class FixedRoller(dice.Roller):
    """Dice that show one face: the lowest (``high`` False) or the highest. Recorded like rolls."""

    high: bool = False

    def roll(self, kind: str, nation: str, subject: str, purpose: str, count: int = 1, sides: int = 6,
             modifiers: Mapping[str, int] | None = None, sealed: list[str] | None = None) -> int:
        self.seq += 1
        faces = [sides if self.high else 1] * count
        result = sum(faces) + sum((modifiers or {}).values())
        self.rolls.append({"seq": self.seq, "month": self.month, "key": [nation, subject, kind],
                           "purpose": purpose, "dice": faces, "result": result})
        return result


def _roller(high: bool) -> Any:
    return lambda state: FixedRoller("00" * 32, state.game, state.month, high=high)


@dataclass
class Check:
    error: str | None = None                       # refused for its own words: not stored
    warnings: list[str] = field(default_factory=list)


def stage_of(line: str, tables: Tables) -> int | None:
    cmds, _ = parse_commands(line, tables)
    verb = VERBS.get(cmds[0].verb) if cmds else None
    return verb.stage if verb else None


def stage_list() -> list[str]:
    """HELP's and the gazette's account of the month's order: each stage with its commands."""
    out = []
    for i, name in enumerate(STAGES):
        verbs = [v.name for v in VERBS.values() if v.stage == i]
        out.append(f"{i + 1}. {name}: {', '.join(verbs) if verbs else '-'}")
    return out


#: recent trials, shared by the checks of one mail's lines (each line's "before" is the last one's
#: "after"): (state digest, lines, first, dice) -> refusals. Bounded; a trial is pure, so a cached
#: answer is exactly the answer.
_CACHE: OrderedDict[tuple[str, tuple[str, ...], frozenset[int], bool], dict[int, tuple[str, bool]]] = OrderedDict()
_CACHE_SIZE = 256


class _Trials:
    """The month's refusals under both dice."""

    def __init__(self, state: dict[str, Any], tables: Tables):
        self.state, self.tables = state, tables
        self.digest = hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
        self._opened: bytes | None = None  # the state read once, for every trial that is not cached

    def run(self, lines: list[str], high: bool, first: frozenset[int] = frozenset()) -> dict[int, tuple[str, bool]]:
        """line number (from 1) -> (reason, refused for its form) under one of the two dice."""
        key = (self.digest, tuple(lines), first, high)
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
        out: dict[int, tuple[str, bool]] = {}
        if self._opened is None:
            self._opened = opening(self.state)
        for e in trial(self.state, "\n".join(lines), self.tables, _roller(high), first, self._opened):
            line = lines[e["line"] - 1] if 0 < e["line"] <= len(lines) else ""
            out.setdefault(e["line"], (e["text"].removeprefix(f"{line!r}: "), bool(e["form"])))
        _CACHE[key] = out
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
        return out

    def refused(self, lines: list[str], n: int, first: frozenset[int] = frozenset()) -> tuple[str | None, bool]:
        """(reason, under both dice) for line ``n``; reason None if it passes under both."""
        low, high = self.run(lines, False, first).get(n), self.run(lines, True, first).get(n)
        found = low or high
        return (found[0] if found else None), bool(low and high)


def _stage_words(i: int | None) -> str:
    return f"the {STAGES[i]} stage" if i is not None and 0 <= i < len(STAGES) else "its stage"


def check(state: dict[str, Any], earlier: list[str], line: str, tables: Tables | None = None) -> Check:
    """The at-once answer to ``line`` (``Nation: VERB ...``) sent after ``earlier`` (the same
    sender's lines of the month, in the order they came)."""
    tables = tables or load_tables()
    t = _Trials(state, tables)
    lines = [*earlier, line]
    n = len(lines)
    result = Check()
    own = t.run(lines, False).get(n)
    if own and own[1]:
        fix = suggestion(t, earlier, line)
        result.error = fix or own[0] + usage(line)
        return result
    reason, sure = t.refused(lines, n)
    stages = [stage_of(x, tables) for x in lines]
    if reason:
        fix = suggestion(t, earlier, line, whole=True)
        result.warnings.append(("as things stand now it would be refused: " if sure else
                                "it may be refused, depending on the month's dice: ") + reason
                               + _cause(t, lines, stages) + (f" ({fix})" if fix else ""))
    # what this line does to the lines already in: it may run before them
    for j in range(1, n):
        before, _ = t.refused(earlier, j)
        after, after_sure = t.refused(lines, j)
        if after and not before:
            runs = (f"this line runs before it: {_stage_words(stages[-1])}, then {_stage_words(stages[j - 1])}"
                    if (stages[-1] or 0) < (stages[j - 1] or 0) else "the two lines act on each other")
            result.warnings.append(
                f"with this line, your earlier {lines[j - 1]!r} {'would' if after_sure else 'may'} be refused: "
                f"{after} ({runs})")
        elif after and before and (stages[-1] or 0) > (stages[j - 1] or 0) and \
                not t.run(lines, not t.run(lines, False).get(j), frozenset({n})).get(j):
            result.warnings.append(
                f"this line comes too late in the month for your earlier {lines[j - 1]!r}: that line runs in "
                f"{_stage_words(stages[j - 1])}, before this one ({_stage_words(stages[-1])}), so it would still be "
                f"refused: {after}. Send it next month")
    return result


def _blank(lines: list[str], j: int) -> list[str]:
    """``lines`` without line ``j`` (a comment keeps the numbering)."""
    return [("# left out" if i == j else x) for i, x in enumerate(lines, 1)]


#: at most this many other lines are tried one by one when looking for the line a refusal comes from
SEARCH = 12
#: a line longer than this gets no suggestion of a missing word (each place is a trial)
SUGGEST_WORDS = 12


def _cause(t: _Trials, lines: list[str], stages: list[int | None]) -> str:
    """Why the last line is refused, when other lines of the month are the reason: the line of an
    earlier stage (or earlier in the same stage) without which it would pass, or the line of a
    later stage it would need to run first."""
    n = len(lines)
    mine = stages[-1] or 0
    high = not t.run(lines, False).get(n)          # the dice the refusal was met with
    before = [j for j in range(1, n) if (stages[j - 1] or 0) < mine] + \
        [j for j in range(n - 1, 0, -1) if (stages[j - 1] or 0) == mine]
    if t.run(lines[-1:], high).get(1):
        before = []                        # refused on its own too: no line before it is the reason
    for j in before[:SEARCH]:
        if not t.run(_blank(lines, j), high).get(n):
            theirs = stages[j - 1] or 0
            how = (f"runs before it: {_stage_words(theirs)} comes before {_stage_words(mine)}" if theirs < mine
                   else "comes before it in the same stage")
            return f" (because of your {lines[j - 1]!r}, which {how})"
    later = [j for j in range(1, n) if (stages[j - 1] or 0) > mine]
    for j in later[:SEARCH]:
        if not t.run(lines, high, frozenset({j})).get(n):
            return (f" (it needs your {lines[j - 1]!r}, but that runs later in the month: {_stage_words(mine)} "
                    f"comes before {_stage_words(stages[j - 1])}. Send this line next month)")
    if before:
        return " (on its own it would pass: your lines that run before it, together, are the reason)"
    return ""


def usage(line: str) -> str:
    words = line.partition(":")[2].split()
    verb = VERBS.get(words[0].upper()) if words else None
    return f" (the command is written {verb.usage})" if verb else ""


def suggestion(t: _Trials, earlier: list[str], line: str, whole: bool = False) -> str:
    """A line refused for its form: the same line with one joining word put in, if exactly that
    makes it good ("BUILD 2 Brest": write BUILD 2 AT Brest); "" if there is no such one fix.
    ``whole``: the line is refused by the state; a fix must get past that refusal ("MOVE F1
    Channel" reads F1 Channel as the unit: did you mean MOVE F1 TO Channel?)."""
    head, sep, rest = line.partition(":")
    words = rest.split()
    if not sep or not words:
        return ""
    verb = VERBS.get(words[0].upper())
    if verb is None or len(words) > SUGGEST_WORDS:
        return ""
    was = t.run([*earlier, line], False).get(len(earlier) + 1)
    joins = [w for w in JOINS if re.search(rf"\b{w}\b", verb.usage) and w not in {x.upper() for x in words}]
    fixes = []
    for join in joins:
        for at in range(2, len(words) + 1):
            cand = [*words[:at], join, *words[at:]]
            got = t.run([*earlier, f"{head}: {' '.join(cand)}"], False).get(len(earlier) + 1)
            if not got or not got[1] and (not whole or got[0] != (was or ("", False))[0]):
                fixes.append((join, " ".join(cand)))
    if len(fixes) != 1:
        return ""
    return f"did you mean {fixes[0][1]}?" if whole else f"{fixes[0][0]} is missing: write {fixes[0][1]}"


def did_you_mean(word: str, words: list[str], tables: Tables | None = None, nation: str = "") -> str:
    """An unknown verb: the nearest verb as a suggestion (never acted on), with the line written
    with it when that line is good."""
    near = difflib.get_close_matches(word.upper(), [*VERBS, *MAIL_WORDS], n=1, cutoff=0.6)
    if not near:
        return ""
    fixed = " ".join([near[0], *words])
    verb = VERBS.get(near[0])
    if verb is not None and nation:
        got = trial_form(nation, fixed, tables)
        if got:
            return f": did you mean {near[0]}? (written {verb.usage})"
    return f": did you mean {near[0]}? If so, write {fixed}"


def trial_form(nation: str, text: str, tables: Tables | None = None) -> str | None:
    """The form error of one line on its own, against an opening state (None if its form is good)."""
    from judge.eia.state import new_game, to_json

    tables = tables or load_tables()
    state = to_json(new_game(tables, "check", "00" * 32))
    for e in trial(state, f"{nation}: {text}", tables, _roller(False)):
        if e["form"]:
            return str(e["text"])
    return None
