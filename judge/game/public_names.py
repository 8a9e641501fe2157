"""Public names from what mail programs put in the From field.

A player who joins a game is named in reports by the display name of their From field
("Bertrand Dupuis <bertrand.dupuis@...>" → "Bertrand Dupuis") when it is a name: not the
address again, not a power or a word the reports use for someone else; "Dupuis, Bertrand" is
turned round; emoji, control and direction characters are dropped; at most :data:`MAX_NAME`
characters (cut at a space). Pure functions: the service decides when to use them.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME = 40  # as SET NAME allows
#: words reports already use for a seat, or that would pass a player off as the judge or a master
RESERVED = frozenset({"anonymous", "master", "gm", "judge", "observer", "vacant", "civil disorder", "nobody",
                      "everyone", "the judge", "the master", "admin", "postmaster", "mailer-daemon"})
_ADDRESS = re.compile(r"\S+@\S+")
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u201e`"


def _keep(ch: str) -> bool:
    """Letters, marks, digits, punctuation and spaces; no emoji and pictographs, no control,
    format (direction overrides, joiners) or private-use characters."""
    cat = unicodedata.category(ch)
    return cat[0] in "LMNPZ" and ch not in "\u2028\u2029"


def clean_display_name(display: str, address: str, powers: frozenset[str] = frozenset()) -> str | None:
    """The public name a display name gives, or None when it gives none (empty, the address or its
    mailbox part again, a power's name or a reserved word: the reports would mislead)."""
    text = "".join(ch if _keep(ch) else (" " if unicodedata.category(ch)[0] in "CZ" else "")
                   for ch in unicodedata.normalize("NFC", display))
    text = " ".join(text.split()).strip(_QUOTES + " ")
    text = _ADDRESS.sub(" ", text)  # "Bob (bob@x.test)": the address part goes
    text = " ".join(re.sub(r"\(\s*\)|\[\s*\]|<\s*>", " ", text).split()).strip(_QUOTES + " ,;:-")
    if text.count(",") == 1:  # "Dupuis, Bertrand" as directories write it: "Bertrand Dupuis"
        last, first = (p.strip() for p in text.split(","))
        if last and first and len(last.split()) <= 3 and len(first.split()) <= 3:
            text = f"{first} {last}"
    if len(text) > MAX_NAME:
        cut = text[:MAX_NAME + 1].rsplit(" ", 1)[0] if " " in text[:MAX_NAME + 1] else text[:MAX_NAME]
        text = cut.rstrip(_QUOTES + " ,;:-")
    if not any(ch.isalnum() for ch in text):
        return None
    low = text.casefold()
    local = address.partition("@")[0].casefold()
    if low in (address.casefold(), local) or low in RESERVED or low in {p.casefold() for p in powers}:
        return None
    return text


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)`` … the first not in ``taken`` (compared ignoring case)."""
    low = {t.casefold() for t in taken}
    out, n = name, 1
    while out.casefold() in low:
        n += 1
        out = f"{name[:MAX_NAME - len(str(n)) - 3].rstrip()} ({n})"
    return out
