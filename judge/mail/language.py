"""The mail command language: message text → a list of :class:`Command`.

Case-insensitive, one command a line, njudge's words (``SIGNON``/``SIGN ON``, ``PRESS`` …
``ENDPRESS``, ``SIGNOFF``). A line that is not a command is an order line (``ORDER``); whether
orders are allowed there is for the caller to decide. Press bodies are collected here, up to
``ENDPRESS`` (or ``ENDBROADCAST``, ``SIGNOFF`` or the end of the message).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: spelling (upper case, words joined by one space) -> command name
KEYWORDS: dict[str, str] = {
    "HELP": "HELP", "VERSION": "VERSION",
    "LIST": "LIST", "WHOGAME": "WHOGAME", "WHO GAME": "WHOGAME",
    "HISTORY": "HISTORY", "SUMMARY": "SUMMARY",
    "CREATE": "CREATE",
    "SIGNON": "SIGNON", "SIGN ON": "SIGNON", "HELLO": "SIGNON", "LOGIN": "SIGNON", "LOG IN": "SIGNON",
    "OBSERVE": "OBSERVE", "WATCH": "OBSERVE",
    "UNOBSERVE": "UNOBSERVE", "UNWATCH": "UNOBSERVE", "STOP OBSERVING": "UNOBSERVE",
    "CONFIRM": "CONFIRM",
    "SIGNOFF": "SIGNOFF", "SIGN OFF": "SIGNOFF", "LOGOUT": "SIGNOFF",
    "PRESS": "PRESS", "BROADCAST": "BROADCAST",
    "ENDPRESS": "ENDPRESS", "END PRESS": "ENDPRESS", "ENDBROADCAST": "ENDPRESS", "END BROADCAST": "ENDPRESS",
    "SET": "SET",
    "PHASE": "PHASE",
    "CLEAR": "CLEAR",
    "RESIGN": "RESIGN", "WITHDRAW": "RESIGN",
    "DRAW": "DRAW", "NODRAW": "NODRAW", "NO DRAW": "NODRAW",
    "PROCESS": "PROCESS", "ROLLBACK": "ROLLBACK", "PAUSE": "PAUSE", "SUSPEND": "PAUSE", "RESUME": "RESUME",
    "EJECT": "EJECT", "BECOME": "BECOME", "TERMINATE": "TERMINATE",
    "START": "START", "FORCE BEGIN": "START",
    # alliance victories and concessions (variants that have them: 1885 II rule 5)
    "ALLY": "ALLY", "ALLIANCE": "ALLY", "DECLARE ALLIANCE": "ALLY",
    "NOALLY": "NOALLY", "NO ALLY": "NOALLY", "NOALLIANCE": "NOALLY", "NO ALLIANCE": "NOALLY",
    "WITHDRAW ALLIANCE": "NOALLY", "WITHDRAW ALLIANCES": "NOALLY",
    "CONCEDE": "CONCEDE", "NOCONCEDE": "NOCONCEDE", "NO CONCEDE": "NOCONCEDE",
}

#: words that start ordinary sentences too: a command only when followed by signon arguments
LOOSE = frozenset({"HELLO", "LOGIN", "LOG IN"})


def _signon_args(args: list[str]) -> bool:
    return len(args) in (2, 3) and all(a.replace("?", "").replace("-", "").replace("_", "").isalnum() or
                                        a == args[-1] for a in args)


@dataclass
class Command:
    name: str  # a value of KEYWORDS, or "ORDER"
    args: list[str] = field(default_factory=list)
    line: str = ""  # the line as written
    lineno: int = 0
    body: str = ""  # PRESS / BROADCAST text
    closed: bool = True  # PRESS: ended by ENDPRESS (False: by the end of the message)


def match_keyword(line: str) -> tuple[str, list[str]] | None:
    """(command, arguments) if the line starts with a command word, else None."""
    words = line.split()
    if not words:
        return None
    up = [w.upper() for w in words]
    for n in (2, 1):
        if len(up) >= n and " ".join(up[:n]) in KEYWORDS:
            name, args = KEYWORDS[" ".join(up[:n])], words[n:]
            if " ".join(up[:n]) in LOOSE and not _signon_args(args):
                return None  # "Hello judge, please sign me up." is a greeting, not a command
            return name, args
    # "signon Fgame pw" written without the space is common: SIGNON is matched above;
    # ENDPRESS with punctuation ("ENDPRESS.") is tolerated
    head = up[0].rstrip(".:;,")
    if head in KEYWORDS and head != up[0]:
        return KEYWORDS[head], words[1:]
    return None


def parse_commands(text: str) -> list[Command]:
    """Split message text into commands; stops at a ``-- `` signature or SIGNOFF."""
    out: list[Command] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if raw.rstrip() == "--":
            break
        if not line:
            continue
        m = match_keyword(line)
        if m is None:
            out.append(Command("ORDER", [], line, i))
            continue
        name, args = m
        cmd = Command(name, args, line, i)
        if name in ("PRESS", "BROADCAST"):
            body: list[str] = []
            cmd.closed = False
            while i < len(lines):
                nxt = lines[i]
                i += 1
                km = match_keyword(nxt.strip())
                if km and km[0] == "ENDPRESS" and not km[1]:
                    cmd.closed = True
                    break
                if km and km[0] == "SIGNOFF" and not km[1]:
                    i -= 1  # SIGNOFF ends the press and the message
                    break
                if nxt.rstrip() == "--":
                    i = len(lines)
                    break
                body.append(nxt.rstrip())
            while body and not body[0].strip():
                body.pop(0)
            while body and not body[-1].strip():
                body.pop()
            cmd.body = "\n".join(body)
        out.append(cmd)
        if name == "SIGNOFF":
            break
    return out
