"""Seat passwords: stored as salted scrypt hashes, compared in constant time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

# scrypt cost: n=2**cost (default 2**14: 16 MiB, a few tens of milliseconds), r=8, p=1.
# The parameters are stored with each hash, so the cost can be raised later.
DEFAULT_COST = 14
_R, _P = 8, 1
MAX_LENGTH = 64


class PasswordError(ValueError):
    pass


def check_new_password(password: str) -> str:
    """A password a player may choose: 1-64 printable characters without spaces."""
    if not password:
        raise PasswordError("a password is required")
    if len(password) > MAX_LENGTH:
        raise PasswordError(f"a password may have at most {MAX_LENGTH} characters")
    if any(c.isspace() or not c.isprintable() for c in password):
        raise PasswordError("a password may not contain spaces or control characters")
    return password


def hash_password(password: str, cost: int = DEFAULT_COST) -> str:
    salt = os.urandom(16)
    n = 2**cost
    key = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=_R, p=_P, dklen=32, maxmem=2**27)
    return "scrypt${}${}${}${}${}".format(n, _R, _P, _b64(salt), _b64(key))


def verify_password(password: str, stored: str | None) -> bool:
    """True if ``password`` matches ``stored``; never raises on a malformed hash."""
    if not stored:
        return False
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        want = _unb64(key)
        got = hashlib.scrypt(password.encode("utf-8"), salt=_unb64(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(want), maxmem=2**27)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s.encode("ascii"), validate=True)
