"""Verifiable dice.

At game start the judge draws a secret and publishes ``SHA-256(secret)`` (the commitment). Every
roll is ``HMAC-SHA256(secret, message)`` where the message is the fields ``eia-dice-2``, game, month,
sequence and purpose, each written as a netstring (``<byte length>:<UTF-8 bytes>,``): a field can
hold any character, '|' or ',' included, and no two different rolls share a message. Its bytes are
read one at a time and a byte is used only if it falls below the largest multiple of the die's sides
that fits in a byte (rejection sampling), so every face is equally likely. When a block's 32 bytes
run out, block ``k`` is ``HMAC(secret, message + netstring(k))`` (a sixth field: never another
roll's message). Rolls are published with their purpose; once the secret is revealed anybody can
recompute them (:func:`verify`), and a month's rolls must run 1, 2, 3 ... with none missing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets as _secrets
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator


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


SCHEME = "eia-dice-2"


def netstring(text: str) -> bytes:
    raw = text.encode("utf-8")
    return str(len(raw)).encode() + b":" + raw + b","


def message(game: str, month: str, seq: int, purpose: str) -> bytes:
    """The HMAC input of one roll: length-prefixed fields, so no purpose (or game name) written with
    separators in it can make two rolls' messages equal."""
    return b"".join(netstring(f) for f in (SCHEME, game, month, str(seq), purpose))


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
    """Rolls for one game month; ``rolls`` records each one (purpose, dice, result) in order."""

    secret_hex: str
    game: str
    month: str
    seq: int = 0
    rolls: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._key = secret_bytes(self.secret_hex)

    def roll(self, purpose: str, count: int = 1, sides: int = 6, modifier: int = 0,
             sealed: list[str] | None = None) -> int:
        """Roll ``count`` dice; the result is their sum plus ``modifier`` (recorded as given).

        ``sealed`` names who may see the dice before the secret is revealed (a roll whose dice
        would give away a secret, such as the true number behind a yard's announced figure): the
        public sees only its sequence number and purpose (:func:`public`)."""
        self.seq += 1
        dice = faces(self._key, message(self.game, self.month, self.seq, purpose), count, sides)
        result = sum(dice) + modifier
        rec: dict[str, Any] = {"seq": self.seq, "month": self.month, "purpose": purpose, "dice": dice,
                               "result": result}
        if sides != 6:
            rec["sides"] = sides
        if modifier:
            rec["modifier"] = modifier
        if sealed:
            rec["sealed"] = sorted(set(sealed))
        self.rolls.append(rec)
        return result

    def pick(self, purpose: str, low: int, high: int, sealed: list[str] | None = None) -> int:
        """A number drawn evenly from low..high (a die of high-low+1 faces)."""
        if high == low:
            return low
        return self.roll(purpose, 1, high - low + 1, low - 1, sealed)


def public(rec: dict[str, Any]) -> dict[str, Any]:
    """A roll as everybody may see it before the secret is out: a sealed roll without its dice."""
    if not rec.get("sealed"):
        return rec
    return {k: rec[k] for k in ("seq", "month", "purpose", "sealed", "void") if k in rec}


def is_withheld(rec: dict[str, Any]) -> bool:
    return bool(rec.get("sealed")) and "dice" not in rec


def verify(game: str, secret_hex: str, rolls: Iterable[dict[str, Any]],
           committed: str | None = None) -> list[str]:
    """Problems found re-deriving ``rolls`` from the revealed secret (empty: all rolls check).

    Besides each roll's dice, a month's sequence numbers must run 1, 2, 3 ... each once: a roll
    the judge left out (or published twice with another purpose) shows as a gap or a duplicate.
    A sealed roll published without its dice cannot be compared; it still holds its number."""
    problems: list[str] = []
    key = secret_bytes(secret_hex)
    if committed is not None and hashlib.sha256(key).hexdigest() != committed.strip().lower():
        problems.append("the secret does not match the commitment published at game start")
    seqs: dict[str, list[int]] = {}
    for n, rec in enumerate(rolls, 1):
        try:
            month, seq = str(rec["month"]), int(rec["seq"])
            seqs.setdefault(month, []).append(seq)
            if is_withheld(rec):
                continue
            sides = int(rec.get("sides", 6))
            dice = list(rec["dice"])
            want = faces(key, message(game, month, seq, str(rec["purpose"])), len(dice), sides)
        except (KeyError, TypeError, ValueError, DiceError) as exc:
            problems.append(f"roll {n}: unreadable record ({exc})")
            continue
        label = f"roll {n} ({rec['month']} #{rec['seq']} {rec['purpose']})"
        if want != dice:
            problems.append(f"{label}: published dice {dice}, the secret gives {want}")
        elif sum(dice) + int(rec.get("modifier", 0)) != rec.get("result"):
            problems.append(f"{label}: result {rec.get('result')} is not the dice plus the modifier")
    for month, got in seqs.items():
        twice = sorted({s for s in got if got.count(s) > 1})
        missing = sorted(set(range(1, max(got) + 1)) - set(got))
        if twice:
            problems.append(f"{month}: roll number(s) {', '.join(map(str, twice))} published more than once")
        if missing:
            problems.append(f"{month}: roll number(s) {', '.join(map(str, missing))} missing (a month's rolls "
                            f"run 1, 2, 3 ... with none left out)")
    return problems
