"""The mail commands, one module a family, each command registered with what HELP says of it.

A family module (:mod:`.info`, :mod:`.signon`, :mod:`.session`, :mod:`.orders`, :mod:`.press`,
:mod:`.settings`, :mod:`.absence`, :mod:`.votes`, :mod:`.master`) defines each command as a function of the
:class:`~judge.mail.handler.Handler` running the message and the :class:`Command`, registered
with :func:`command`: its name (as :mod:`judge.mail.language` reads it), its aliases, who may
use it (``anyone``, ``player``, ``master``, ``observer``), its syntax and a one-line summary.
The handler dispatches through :data:`REGISTRY`; HELP is written from it (:func:`help_lines`).
"""

from __future__ import annotations

import functools
import importlib
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from judge.game.lifecycle import Game
    from judge.variant import Variant
    from judge.mail.handler import Handler
    from judge.mail.language import Command

FAMILIES = ("info", "signon", "session", "orders", "press", "settings", "absence", "votes", "master")
WHO = ("anyone", "observer", "player", "master")
BAD_SIGNON = "Invalid password or power ID specified."


class CommandError(Exception):
    """This command is refused (nothing it would have done was done)."""


class Stop(Exception):
    """Read no further in this message."""


@dataclass
class Session:
    game: "Game | None" = None
    seat: Any = None  # the seat signed on (a player or an observer)
    master: bool = False
    power: str | None = None  # the power whose orders are read (the seat's, or BECOME)
    became: bool = False
    future: Any = None  # Phase for PHASE orders
    stale: Any = None  # Phase the orders below are headed with, which is over: they are refused
    signons: int = 0
    proved: bool = False  # a CONFIRM code sent back: this mail comes from the address it names


@dataclass(frozen=True)
class Spec:
    name: str
    family: str
    who: str  # who may use it: anyone, observer, player (signed on as a power), master
    syntax: str
    summary: str
    run: "Callable[[Handler, Command], None]"
    aliases: tuple[str, ...] = ()
    #: further HELP lines for forms of the command (who, syntax, summary, example): SET's words
    forms: tuple[tuple[str, str, str, str], ...] = field(default=())
    #: a line (or lines) as a player or master would send it: the guides in docs/ show it
    example: str = ""


REGISTRY: dict[str, Spec] = {}


def command(name: str, *, who: str, syntax: str, summary: str, example: str = "", aliases: tuple[str, ...] = (),
            forms: tuple[tuple[str, ...], ...] = ()) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register the decorated function as the mail command ``name``; ``example`` and each form's
    fourth field are what a user would send, shown in the guides (tests/test_docs_generated.py
    fails while one is missing, and reads every one as the judge would)."""
    assert who in WHO, who

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        family = fn.__module__.rpartition(".")[2]
        assert family in FAMILIES and name not in REGISTRY, (family, name)
        REGISTRY[name] = Spec(name, family, who, syntax, summary, fn, tuple(aliases),
                              tuple((*f[:3], f[3] if len(f) > 3 else "") for f in forms), example)
        return fn

    return register


def load() -> dict[str, Spec]:
    """Every command, its family module imported."""
    for family in FAMILIES:
        importlib.import_module(f"{__name__}.{family}")
    return REGISTRY


def token_powers(v: Variant, tok: str, extra: dict[str, str] | None = None) -> set[str] | None:
    """What one upper-case word names: a power by name, or letters run together (``EF``, with
    ``extra`` letters such as M for the master); None if a letter names nobody."""
    p = v.power(tok)
    if p is not None and len(tok) > 1:
        return {p.name}
    letters = (extra or {}) | {p.letter.upper(): p.name for p in v.powers.values()}
    if not tok or any(ch not in letters for ch in tok):
        return None
    return {letters[ch] for ch in tok}


def help_lines(who: str, width: int = 72, column: int = 28) -> list[str]:
    """HELP's lines for the commands (and their forms) ``who`` may use, in family order."""
    return list(_help_lines(who, width, column))


@functools.lru_cache(maxsize=32)
def _help_lines(who: str, width: int, column: int) -> tuple[str, ...]:
    """help_lines, made once: the registry is complete once loaded, and a mail of a thousand
    HELPs must not wrap the same text a thousand times."""
    entries: list[tuple[str, str]] = []
    for spec in sorted(load().values(), key=lambda s: FAMILIES.index(s.family)):  # stable: a module's own order
        if spec.who == who:
            entries.append((spec.syntax, spec.summary))
        entries += [(syntax, summary) for w, syntax, summary, _ in spec.forms if w == who]
    return tuple(two_columns(entries, width, column))


def two_columns(entries: list[tuple[str, str]], width: int = 72, column: int = 28) -> list[str]:
    """HELP's layout: each head indented by two, its text from ``column`` on, wrapped to ``width``
    (a head too long for its column has the text on the lines below it)."""
    out: list[str] = []
    for syntax, summary in entries:
        head = "  " + syntax
        wrapped = textwrap.wrap(summary, width - column)
        if len(head) <= column - 2:
            out.append(head.ljust(column) + wrapped[0])
        else:
            out.append(head)
            out.append(" " * column + wrapped[0])
        out.extend(" " * column + w for w in wrapped[1:])
    return out
