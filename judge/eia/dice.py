"""Verifiable dice, keyed by what they are for.

At game start the judge draws a secret and publishes ``SHA-256(secret)`` (the commitment). A roll is
``HMAC-SHA256(secret, message)``; the message (scheme ``eia-dice-3``) is the fields game, month, the
roll's key — nation, subject, kind, occurrence — and the number of dice and their sides, each
written as a netstring (``<byte length>:<UTF-8 bytes>,``), so no two different rolls share a
message. The key holds canonical names only (a nation's and a yard's table name, a unit's id as
formed, a fixed kind such as ``leave port``), never free text, the arrival order of the commands or
their spelling: the same command gives the same dice whenever and however it was sent, and a
rolled-back month replays with the same dice. The occurrence counts the rolls of one key within the
month (a fort that fires twice on one fleet), so it is the only thing the order of the month's
commands can touch, and that order is committed in the gazette (:func:`commands_hash`).

Bytes are read one at a time and a byte is used only below the largest multiple of the die's sides
that fits in a byte (rejection sampling), so every face is equally likely. When a block's 32 bytes
run out, block ``k`` is ``HMAC(secret, message + netstring(k))`` (one field more: never another
roll's message).

A month's rolls are numbered 1, 2, 3 ... (``seq``); the gazette prints their count and a digest of
their public records (:func:`month_anchor`), so a roll left out, added or edited after the month was
published shows. :func:`verify` recomputes everything once the secret is revealed. Months rolled
before keys existed (scheme ``eia-dice-2``, the message game, month, seq, purpose) keep their
recorded dice and are checked under that scheme.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets as _secrets
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping


class DiceError(ValueError):
    pass


def new_secret() -> str:
    return _secrets.token_hex(32)


def secret_bytes(secret_hex: str) -> bytes:
    try:
        raw = bytes.fromhex(secret_hex.strip())
    except ValueError:
        raise DiceError("the secret must be written in hexadecimal") from None
    if len(raw) < 16:
        raise DiceError("the secret must be at least 16 bytes (32 hex digits)")
    return raw


def commitment(secret_hex: str) -> str:
    return hashlib.sha256(secret_bytes(secret_hex)).hexdigest()


SCHEME = "eia-dice-3"
LEGACY = "eia-dice-2"
COMMANDS_SCHEME = "eia-commands-1"


@dataclass(frozen=True)
class Kind:
    """What verify knows of a kind of roll without the game's state."""

    count: int                   # dice rolled
    sides: int | None = 6        # None: the yard figure's die, whose faces depend on the true number
    reasons: tuple[str, ...] = ()  # the modifiers the rules give it (their figures: rule_figures)
    sealed: bool = False         # published without its dice until the secret is revealed (I.C)


#: every kind of roll the rules make (judge.eia: sailing, breakouts, forts, prizes, stores, shipbuilding)
KINDS: dict[str, Kind] = {
    "leave port": Kind(1, 6, ("admiral",)),                         # VIII
    "interception": Kind(1, 6),                                     # IX.C
    "counter-interception": Kind(1, 6),                             # IX.C.3
    "West Indies interception": Kind(1, 6),                         # IX.E
    "fort fire": Kind(2, 6, ("militia only", "no garrison")),       # XI
    "fleet fire": Kind(2, 6),                                       # XI
    "prizes": Kind(1, 6),                                           # IV.A
    "combat": Kind(1, 6, ("squadron", "Venice")),                   # VI.B, X
    "stores shipment": Kind(1, 6),                                  # III.B
    "yard figure": Kind(1, None, ("offset",), sealed=True),         # I.C
}


def rule_figures(raw: Mapping[str, Any]) -> dict[str, int]:
    """The modifiers' figures as the supplement's data (``Tables.raw``) gives them, by reason."""
    return {"admiral": raw["sailing"]["admiral_bonus"], "militia only": raw["forts"]["militia_only_modifier"],
            "no garrison": raw["forts"]["no_garrison_modifier"], "squadron": raw["squadrons"]["combat_modifier"],
            "Venice": raw["nations"]["Venice"]["combat_modifier"],
            "announce within": raw["shipbuilding"]["announce_within"]}


def netstring(text: str) -> bytes:
    raw = text.encode("utf-8")
    return str(len(raw)).encode() + b":" + raw + b","


def _fields(*fields: str) -> bytes:
    return b"".join(netstring(f) for f in fields)


def message(game: str, month: str, key: tuple[str, str, str, int], count: int, sides: int) -> bytes:
    """The HMAC input of one roll: its game, month, key (nation, subject, kind, occurrence), and how many
    dice of how many sides — cutting a 2D6 roll to one die makes another message."""
    nation, subject, kind, n = key
    return _fields(SCHEME, game, month, nation, subject, kind, str(n), str(count), str(sides))


def legacy_message(game: str, month: str, seq: int, purpose: str) -> bytes:
    """``eia-dice-2``: the message of rolls made before keys (game, month, seq, purpose)."""
    return _fields(LEGACY, game, month, str(seq), purpose)


def commands_hash(secret_hex: str, game: str, month: str, lines: Iterable[str]) -> str:
    """The month's command list committed before it is stepped: HMAC-SHA256 of its lines in order
    (keyed, so nobody can guess a team's secret commands from it before the secret is revealed)."""
    msg = _fields(COMMANDS_SCHEME, game, month, *[" ".join(line.split()) for line in lines])
    return hmac.new(secret_bytes(secret_hex), msg, hashlib.sha256).hexdigest()


def _stream(key: bytes, msg: bytes) -> Iterator[int]:
    yield from hmac.new(key, msg, hashlib.sha256).digest()
    block = 1
    while True:
        yield from hmac.new(key, msg + netstring(str(block)), hashlib.sha256).digest()
        block += 1


def faces(key: bytes, msg: bytes, count: int, sides: int = 6) -> list[int]:
    """``count`` unbiased dice of ``sides`` faces (1..sides) drawn from the HMAC stream of ``msg``."""
    if not 2 <= sides <= 256:
        raise DiceError("a die has 2 to 256 sides")
    limit = 256 - 256 % sides
    out: list[int] = []
    for byte in _stream(key, msg):
        if len(out) == count:
            break
        if byte < limit:
            out.append(byte % sides + 1)
    return out


@dataclass
class Roller:
    """Rolls for one game month; ``rolls`` records each one in order. ``scheme`` is ``eia-dice-2`` only
    when a month first rolled under it is stepped again (a rollback keeps its recorded dice)."""

    secret_hex: str
    game: str
    month: str
    seq: int = 0
    rolls: list[dict[str, Any]] = field(default_factory=list)
    scheme: str = SCHEME

    def __post_init__(self) -> None:
        self._key = secret_bytes(self.secret_hex)
        self._seen: dict[tuple[str, str, str], int] = {}

    def new_month(self, month: str) -> None:
        self.month, self.seq, self._seen, self.scheme = month, 0, {}, SCHEME

    def roll(self, kind: str, nation: str, subject: str, purpose: str, count: int = 1, sides: int = 6,
             modifiers: Mapping[str, int] | None = None, sealed: list[str] | None = None) -> int:
        """Roll ``count`` dice for ``kind`` by ``nation`` about ``subject`` (canonical names: a unit's id,
        a yard's table name); ``purpose`` is the words shown beside it, not part of the key. The result
        is the dice plus the ``modifiers`` (reason -> figure, recorded as ``why``).

        ``sealed`` names who may see the dice before the secret is revealed (a roll whose dice would
        give away a secret, such as the true number behind a yard's announced figure): the public
        sees its number, key and purpose only (:func:`public`)."""
        if kind not in KINDS:
            raise DiceError(f"no kind of roll called {kind!r}")
        self.seq += 1
        ident = (nation, subject, kind)
        n = self._seen.get(ident, 0) + 1
        self._seen[ident] = n
        why = {k: v for k, v in (modifiers or {}).items() if v}
        if self.scheme == LEGACY:
            dice = faces(self._key, legacy_message(self.game, self.month, self.seq, purpose), count, sides)
        else:
            dice = faces(self._key, message(self.game, self.month, (nation, subject, kind, n), count, sides),
                         count, sides)
        result = sum(dice) + sum(why.values())
        rec: dict[str, Any] = {"seq": self.seq, "month": self.month}
        if self.scheme != LEGACY:
            rec.update(key=[nation, subject, kind, n], count=count, sides=sides)
        rec.update(purpose=purpose, dice=dice, result=result)
        if self.scheme == LEGACY and sides != 6:
            rec["sides"] = sides
        if why:
            rec["modifier"] = sum(why.values())
            if self.scheme != LEGACY:
                rec["why"] = why
        if sealed:
            rec["sealed"] = sorted(set(sealed))
        self.rolls.append(rec)
        return result

    def pick(self, kind: str, nation: str, subject: str, purpose: str, low: int, high: int,
             sealed: list[str] | None = None) -> int:
        """A number drawn evenly from low..high (a die of high-low+1 faces, offset low-1)."""
        if high == low:
            return low
        return self.roll(kind, nation, subject, purpose, 1, high - low + 1, {"offset": low - 1}, sealed)


PUBLIC_FIELDS = ("seq", "month", "key", "purpose", "sealed", "void")


def public(rec: dict[str, Any]) -> dict[str, Any]:
    """A roll as everybody may see it before the secret is out: a sealed roll without its dice (nor
    its faces and offset, which would give the true number away)."""
    if not rec.get("sealed"):
        return rec
    return {k: rec[k] for k in PUBLIC_FIELDS if k in rec}


def is_withheld(rec: dict[str, Any]) -> bool:
    return bool(rec.get("sealed")) and "dice" not in rec


def month_anchor(rolls: list[dict[str, Any]]) -> dict[str, Any]:
    """What the gazette prints of a month's rolls: how many, and the SHA-256 of their public records
    in order (each as canonical JSON in a netstring). Published before the secret, it fixes every
    public field of every roll: a roll deleted, added, relabelled sealed or given a modifier later
    no longer matches the gazette."""
    digest = hashlib.sha256()
    for rec in rolls:
        digest.update(netstring(json.dumps(public(rec), sort_keys=True, separators=(",", ":"), ensure_ascii=False)))
    return {"roll_count": len(rolls), "rolls_digest": digest.hexdigest()}


@dataclass
class Anchor:
    """A month's figures as published in its gazette (or in the judge's step output)."""

    roll_count: int | None = None
    rolls_digest: str | None = None
    commands_hash: str | None = None
    commands: list[str] | None = None
    source: str = "the step output"


def verify(game: str, secret_hex: str, rolls: Iterable[dict[str, Any]], committed: str | None = None,
           anchors: Mapping[str, Anchor] | None = None, figures: Mapping[str, int] | None = None,
           need_anchors: bool = False) -> list[str]:
    """Problems found re-deriving ``rolls`` from the revealed secret (empty: all rolls check).

    Each roll's dice must be published (the secret is out: nothing stays sealed), as many as its
    count, each recomputed from its key; the result must be the dice plus modifiers the rules give
    that kind of roll (``figures``: :func:`rule_figures`); only a yard's figure is sealed. A month's
    rolls must run 1, 2, 3 ... each once, a key's occurrences 1, 2 ... in order, and the month must
    hold as many rolls as its gazette printed (``anchors``), with the same digest. With
    ``need_anchors`` a month without a printed count is a problem (a roll left out at the end of a
    month cannot be seen otherwise)."""
    problems: list[str] = []
    key = secret_bytes(secret_hex)
    if committed is not None and hashlib.sha256(key).hexdigest() != committed.strip().lower():
        problems.append("the secret does not match the commitment published at game start")
    anchors = anchors or {}
    by_month: dict[str, list[dict[str, Any]]] = {}
    for n, rec in enumerate(rolls, 1):
        if not isinstance(rec, dict):
            problems.append(f"roll {n}: not a roll record")
            continue
        label = f"roll {n} ({rec.get('month')} #{rec.get('seq')} {rec.get('purpose')})"
        try:
            by_month.setdefault(str(rec["month"]), []).append(rec)
            problems += [f"{label}: {p}" for p in _check_roll(game, key, rec, figures)]
        except (KeyError, TypeError, ValueError, DiceError) as exc:
            problems.append(f"{label}: unreadable record ({exc})")
    for month in sorted(set(by_month) | set(anchors)):
        problems += [f"{month}: {p}" for p in _check_month(by_month.get(month, []), anchors.get(month), need_anchors)]
        anchor = anchors.get(month)
        if anchor and anchor.commands is not None and anchor.commands_hash is not None:
            if commands_hash(secret_hex, game, month, anchor.commands) != anchor.commands_hash:
                problems.append(f"{month}: the commands listed do not give the committed hash {anchor.commands_hash}")
    return problems


def _check_roll(game: str, key: bytes, rec: dict[str, Any], figures: Mapping[str, int] | None) -> list[str]:
    month, seq = str(rec["month"]), int(rec["seq"])
    if "dice" not in rec:
        return ["its dice are not published: once the secret is revealed every roll's dice are required "
                "(ROLLS gives them)"]
    dice = rec["dice"]
    if not isinstance(dice, list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in dice):
        return [f"dice {dice!r} are not a list of numbers"]
    modifier = rec.get("modifier", 0)
    if not isinstance(modifier, int) or isinstance(modifier, bool):
        return [f"modifier {modifier!r} is not a number"]
    out: list[str] = []
    if "key" not in rec:                                   # a month rolled under eia-dice-2
        sides = int(rec.get("sides", 6))
        want = faces(key, legacy_message(game, month, seq, str(rec["purpose"])), len(dice), sides)
        if not dice:
            out.append("no dice published")
    else:
        nation, subject, kind, n = rec["key"]
        if not (isinstance(n, int) and n >= 1 and all(isinstance(x, str) for x in (nation, subject, kind))):
            raise ValueError(f"bad key {rec['key']!r}")
        count, sides = int(rec["count"]), int(rec["sides"])
        spec = KINDS.get(kind)
        if spec is None:
            return [f"no kind of roll called {kind!r}"]
        if count != spec.count or (spec.sides is not None and sides != spec.sides):
            out.append(f"a {kind} roll is {spec.count}D{spec.sides or 'n'}, not {count}D{sides}")
        if len(dice) != count:
            out.append(f"{count} dice rolled, {len(dice)} published")
        if bool(rec.get("sealed")) != spec.sealed:
            out.append("marked sealed, but only a yard's figure is sealed" if rec.get("sealed") else
                       "a yard's figure must be sealed")
        why = rec.get("why") or {}
        if not isinstance(why, dict) or sum(why.values()) != modifier:
            named = ", ".join(f"{k} {v:+d}" for k, v in why.items()) if isinstance(why, dict) and why else "none"
            out.append(f"modifier {modifier:+d} has no rule behind it (the rules' modifiers it names: {named})")
        for reason, value in why.items():
            if reason not in spec.reasons:
                out.append(f"modifier {reason!r} {value:+d}: no rule gives a {kind} roll that modifier")
            elif reason == "offset":
                within = (figures or {}).get("announce within")
                if value < -1 or (within is not None and sides > 2 * within + 1):
                    out.append(f"a yard's figure is drawn from max(0, n-{within})..n+{within}: not {value + 1}.."
                               f"{value + sides}")
            elif figures is not None and figures.get(reason) != value:
                out.append(f"modifier {reason!r} is {figures.get(reason):+d} in the rules, not {value:+d}")
        want = faces(key, message(game, month, (nation, subject, kind, n), count, sides), len(dice), sides)
    if want != dice:
        out.append(f"published dice {dice}, the secret gives {want}")
    elif sum(dice) + modifier != rec.get("result"):
        out.append(f"result {rec.get('result')} is not the dice plus the modifier")
    return out


def _check_month(recs: list[dict[str, Any]], anchor: Anchor | None, need_anchors: bool) -> list[str]:
    out: list[str] = []
    got = [int(r["seq"]) for r in recs if isinstance(r.get("seq"), int)]
    twice = sorted({s for s in got if got.count(s) > 1})
    missing = sorted(set(range(1, max(got, default=0) + 1)) - set(got))
    if twice:
        out.append(f"roll number(s) {', '.join(map(str, twice))} published more than once")
    if missing:
        out.append(f"roll number(s) {', '.join(map(str, missing))} missing (a month's rolls run 1, 2, 3 ... with "
                   f"none left out)")
    keyed = [r for r in recs if "key" in r]
    if keyed and len(keyed) != len(recs):
        out.append("rolls of two dice schemes in one month")
    seen: dict[tuple[str, ...], int] = {}
    for r in sorted(keyed, key=lambda r: r.get("seq", 0)):
        try:
            nation, subject, kind, n = r["key"]
        except (TypeError, ValueError):
            continue
        last = seen.get((nation, subject, kind), 0)
        if n != last + 1:
            out.append(f"roll #{r.get('seq')}: occurrence {n} of {nation} {subject} {kind} follows {last} "
                       f"(a key's rolls count 1, 2, 3 ... in order)")
        seen[(nation, subject, kind)] = n
    if anchor is None or anchor.roll_count is None:
        if need_anchors and keyed:
            out.append("no roll count to check against: give the month's gazette (--gazette) or its step output; "
                       "without it a roll left out at the end of the month cannot be seen")
        return out
    if len(recs) != anchor.roll_count:
        out.append(f"{len(recs)} rolls published, {anchor.source} printed {anchor.roll_count}")
    elif anchor.rolls_digest and month_anchor(sorted(recs, key=lambda r: r.get("seq", 0)))["rolls_digest"] \
            != anchor.rolls_digest:
        out.append(f"the rolls are not those {anchor.source} printed (digest {anchor.rolls_digest[:16]}...): "
                   f"a roll was changed, relabelled or given a modifier since")
    return out
