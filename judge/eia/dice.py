"""Verifiable dice.

At game start the judge draws a secret and publishes ``SHA-256(secret)`` (the commitment). Every
roll is ``HMAC-SHA256(secret, "game|month|sequence|purpose")``; its bytes are read one at a time and
a byte is used only if it falls below the largest multiple of the die's sides that fits in a byte
(rejection sampling), so every face is equally likely. When a block's 32 bytes run out, the next
block is ``HMAC(secret, message + "|" + block number)``. Rolls are published with their purpose;
once the secret is revealed anybody can recompute them (:func:`verify`).
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


def message(game: str, month: str, seq: int, purpose: str) -> bytes:
    return f"{game}|{month}|{seq}|{purpose}".encode("utf-8")


def _stream(key: bytes, msg: bytes) -> Iterator[int]:
    yield from hmac.new(key, msg, hashlib.sha256).digest()
    block = 1
    while True:
        yield from hmac.new(key, msg + b"|" + str(block).encode(), hashlib.sha256).digest()
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

    def roll(self, purpose: str, count: int = 1, sides: int = 6, modifier: int = 0) -> int:
        """Roll ``count`` dice; the result is their sum plus ``modifier`` (recorded as given)."""
        self.seq += 1
        dice = faces(self._key, message(self.game, self.month, self.seq, purpose), count, sides)
        result = sum(dice) + modifier
        rec: dict[str, Any] = {"seq": self.seq, "month": self.month, "purpose": purpose, "dice": dice,
                               "result": result}
        if sides != 6:
            rec["sides"] = sides
        if modifier:
            rec["modifier"] = modifier
        self.rolls.append(rec)
        return result

    def pick(self, purpose: str, low: int, high: int) -> int:
        """A number drawn evenly from low..high (a die of high-low+1 faces)."""
        if high == low:
            return low
        return self.roll(purpose, 1, high - low + 1, low - 1)


def verify(game: str, secret_hex: str, rolls: Iterable[dict[str, Any]],
           committed: str | None = None) -> list[str]:
    """Problems found re-deriving ``rolls`` from the revealed secret (empty: all rolls check)."""
    problems: list[str] = []
    key = secret_bytes(secret_hex)
    if committed is not None and hashlib.sha256(key).hexdigest() != committed.strip().lower():
        problems.append("the secret does not match the commitment published at game start")
    for n, rec in enumerate(rolls, 1):
        try:
            sides = int(rec.get("sides", 6))
            dice = list(rec["dice"])
            want = faces(key, message(game, str(rec["month"]), int(rec["seq"]), str(rec["purpose"])),
                         len(dice), sides)
        except (KeyError, TypeError, ValueError) as exc:
            problems.append(f"roll {n}: unreadable record ({exc})")
            continue
        label = f"roll {n} ({rec['month']} #{rec['seq']} {rec['purpose']})"
        if want != dice:
            problems.append(f"{label}: published dice {dice}, the secret gives {want}")
        elif sum(dice) + int(rec.get("modifier", 0)) != rec.get("result"):
            problems.append(f"{label}: result {rec.get('result')} is not the dice plus the modifier")
    return problems
