"""The order kinds with no field of their own are plain subclasses of Order, not dataclasses of
their own: each must behave exactly as the dataclass it was (the same fields, constructor,
text, equality, hash, pattern matching, ``replace``; no ``__dict__``)."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import dataclass, fields, is_dataclass, replace

import pytest

from judge.engine.orders import Build, Disband, Hold, Move, Order, Remove, Waive

PLAIN_KINDS = (Hold, Disband, Build, Remove, Waive)


def _reference(cls: type[Order]) -> type[Order]:
    """``cls`` as it was: a dataclass of its own (slots), over the same base."""
    ref = dataclass(slots=True)(type(cls.__name__, (Order,), {"__qualname__": cls.__qualname__,
                                                              "keyword": cls.keyword, "phases": cls.phases}))
    return ref


def _values(rng: random.Random) -> tuple:
    return (rng.choice(["England", "France", "Russia"]), rng.choice(["A", "F", "A/F", None]),
            rng.choice(["lon", "stp/nc", "par", ""]))


@pytest.mark.parametrize("cls", PLAIN_KINDS, ids=lambda c: c.__name__)
def test_a_kind_without_fields_behaves_as_its_own_dataclass(cls: type[Order]) -> None:
    ref = _reference(cls)
    assert is_dataclass(cls) and [f.name for f in fields(cls)] == [f.name for f in fields(ref)]
    assert cls.__match_args__ == ref.__match_args__
    assert cls.__hash__ is None and ref.__hash__ is None
    rng = random.Random(cls.__name__)
    for _ in range(50):
        a, b = _values(rng), _values(rng)
        x, y, rx, ry = cls(*a), cls(*b), ref(*a), ref(*b)
        assert repr(x) == repr(rx)
        assert (x == y) == (rx == ry) and (x != y) == (rx != ry)
        assert x == cls(power=a[0], kind=a[1], loc=a[2])
        assert not hasattr(x, "__dict__")
        with pytest.raises(AttributeError):
            x.other = 1  # type: ignore[attr-defined]
        with pytest.raises(TypeError):
            hash(x)
        changed = replace(x, loc="bel")
        assert type(changed) is cls and changed.loc == "bel" and (changed.power, changed.kind) == a[:2]
        assert copy.copy(x) == x and pickle.loads(pickle.dumps(x)) == x
        match x:
            case cls(p, k, loc):  # type: ignore[misc]
                assert (p, k, loc) == a
            case _:
                raise AssertionError("no match")


def test_kinds_with_the_same_fields_are_never_equal() -> None:
    assert Hold("England", "A", "lon") != Disband("England", "A", "lon")
    assert Build("France", "A", "par") != Remove("France", "A", "par")
    assert Order("England", "A", "lon") != Hold("England", "A", "lon")
    assert Hold("England", "A", "lon") != Move("England", "A", "lon")
    with pytest.raises(TypeError):
        Hold("England", "A")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Waive("England", None, "", "extra")  # type: ignore[call-arg]
