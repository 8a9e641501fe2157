"""Seat passwords: scrypt hashes, constant-time comparison, and the in-memory check cache."""

from __future__ import annotations

from judge.game import passwords
from judge.game.passwords import hash_password, verify_password


def test_right_and_wrong_passwords():
    h = hash_password("s3cret", cost=4)
    assert h.startswith("scrypt$16$")
    assert "s3cret" not in h
    assert verify_password("s3cret", h)
    assert not verify_password("s3cret ", h) and not verify_password("S3cret", h) and not verify_password("", h)


def test_cache_never_accepts_a_wrong_password_after_a_right_one():
    h = hash_password("alpha", cost=4)
    assert verify_password("alpha", h)
    assert h in passwords._VERIFIED  # remembered: the next mail skips scrypt
    assert not verify_password("beta", h)
    assert verify_password("alpha", h)
    assert "alpha" not in repr(passwords._VERIFIED)  # only keyed digests are kept


def test_cache_follows_a_changed_password():
    old = hash_password("alpha", cost=4)
    assert verify_password("alpha", old)
    new = hash_password("gamma", cost=4)  # SET PASSWORD stores a new hash
    assert not verify_password("alpha", new)
    assert verify_password("gamma", new)


def test_malformed_hashes_are_rejected_without_raising():
    for stored in (None, "", "scrypt$x", "md5$1$2$3$4$5", "scrypt$16$8$1$!!!$???"):
        assert not verify_password("pw", stored)
