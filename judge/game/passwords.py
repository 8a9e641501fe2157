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


# Players sign on with every order mail, so each check would pay the full scrypt cost. A
# successful check is remembered in memory only, as a keyed BLAKE2b digest under a key made at
# start-up: the database still holds nothing but scrypt hashes, a wrong password always gets the
# full scrypt comparison, and a changed password has a new hash (so a new cache entry).
_CACHE_KEY = os.urandom(32)
_VERIFIED: dict[str, bytes] = {}
_CACHE_SIZE = 4096


def _remembered(password: str, stored: str) -> bytes:
    return hashlib.blake2b(password.encode("utf-8"), key=_CACHE_KEY, person=b"judge-pw",
                           salt=hashlib.blake2b(stored.encode("ascii", "replace"), digest_size=16).digest()).digest()


def verify_password(password: str, stored: str | None) -> bool:
    """True if ``password`` matches ``stored``; never raises on a malformed hash."""
    if not stored:
        return False
    known = _VERIFIED.get(stored)
    if known is not None and hmac.compare_digest(known, _remembered(password, stored)):
        return True
    ok = _scrypt_matches(password, stored)
    if ok:
        if len(_VERIFIED) >= _CACHE_SIZE:
            _VERIFIED.pop(next(iter(_VERIFIED)))
        _VERIFIED[stored] = _remembered(password, stored)
    return ok


def _scrypt_matches(password: str, stored: str) -> bool:
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
