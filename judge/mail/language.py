"""The mail command language: message text → a list of :class:`Command`.

Case-insensitive, one command a line, njudge's words (``SIGNON``/``SIGN ON``, ``PRESS`` …
``ENDPRESS``, ``SIGNOFF``). A line that is not a command is an order line (``ORDER``); whether
orders are allowed there is for the caller to decide. Press bodies are collected here, up to
``ENDPRESS`` (or ``ENDBROADCAST``, ``SIGNOFF`` or the end of the message).
"""

from __future__ import annotations

import difflib
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
    "STANDBY": "STANDBY", "STAND BY": "STANDBY",
    "SIGNOFF": "SIGNOFF", "SIGN OFF": "SIGNOFF", "LOGOUT": "SIGNOFF",
    "PRESS": "PRESS", "BROADCAST": "BROADCAST",
    "ENDPRESS": "ENDPRESS", "END PRESS": "ENDPRESS", "ENDBROADCAST": "ENDPRESS", "END BROADCAST": "ENDPRESS",
    "SET": "SET",
    "PHASE": "PHASE",
    "CLEAR": "CLEAR",
    "RESIGN": "RESIGN", "WITHDRAW": "RESIGN",
    "DRAW": "DRAW", "NODRAW": "NODRAW", "NO DRAW": "NODRAW",
    "ABSENCE": "ABSENCE", "VACATION": "ABSENCE", "HOLIDAY": "ABSENCE",
    "PAUSE REQUEST": "PAUSE REQUEST", "REQUEST PAUSE": "PAUSE REQUEST",
    "PROCESS": "PROCESS", "ROLLBACK": "ROLLBACK", "PAUSE": "PAUSE", "SUSPEND": "PAUSE", "RESUME": "RESUME",
    "EJECT": "EJECT", "BECOME": "BECOME", "TERMINATE": "TERMINATE",
    "PREDICT": "PREDICT", "PREVIEW": "PREDICT", "UNSTART": "UNSTART", "PROMOTE": "PROMOTE",
    "ROLLFORWARD": "ROLLFORWARD",
    "START": "START", "FORCE BEGIN": "START",
    # alliance victories and concessions (variants that have them: 1885 II rule 5)
    "ALLY": "ALLY", "ALLIANCE": "ALLY", "DECLARE ALLIANCE": "ALLY",
    "NOALLY": "NOALLY", "NO ALLY": "NOALLY", "NOALLIANCE": "NOALLY", "NO ALLIANCE": "NOALLY",
    "WITHDRAW ALLIANCE": "NOALLY", "WITHDRAW ALLIANCES": "NOALLY",
    "CONCEDE": "CONCEDE", "NOCONCEDE": "NOCONCEDE", "NO CONCEDE": "NOCONCEDE",
    "DIARY": "DIARY", "ENDDIARY": "ENDPRESS", "END DIARY": "ENDPRESS",
    # njudge's conditional orders: an IF ... [ELSE ...] ENDIF block is read whole (and refused)
    "IF": "IF", "ELSE": "ELSE", "ENDIF": "ENDIF", "END IF": "ENDIF",
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
    unread: list[str] = field(default_factory=list)  # SIGNOFF: the non-blank lines after it, not read


def opens_letter(name: str, args: list[str]) -> bool:
    """Whether the command starts a body that runs to ENDPRESS: a press letter or a diary note."""
    return name in ("PRESS", "BROADCAST") or name == "DIARY" and (not args or args[0].upper() == "RECORD")


def match_keyword(line: str) -> tuple[str, list[str]] | None:
    """(command, arguments) if the line starts with a command word, else None."""
    if line in _NOT_COMMANDS:
        return None
    found = _match_keyword(line)
    if found is None and len(line) <= 200:
        if len(_NOT_COMMANDS) >= 4096:
            _NOT_COMMANDS.clear()
        _NOT_COMMANDS[line] = None
    return found


#: lines known to be no command: reading one mail asks this of the same lines in half a dozen
#: passes, and the judge's own lines recur in every quoted reply. Only lines that are no command
#: are kept (a command line may hold a password); the answer depends on the text alone.
_NOT_COMMANDS: dict[str, None] = {}


def _match_keyword(line: str) -> tuple[str, list[str]] | None:
    words = line.split()
    if not words:
        return None
    up = [w.upper() for w in words]
    for n in (2, 1):
        if len(up) >= n and " ".join(up[:n]) in KEYWORDS:
            name, args = KEYWORDS[" ".join(up[:n])], words[n:]
            if " ".join(up[:n]) in LOOSE and not _signon_args(args):
                return None  # "Hello judge, please sign me up." is a greeting, not a command
            return None if name in ("IF", "ELSE") and not _condition_shaped(name, args) else (name, args)
    # "signon Fgame pw" written without the space is common: SIGNON is matched above;
    # ENDPRESS with punctuation ("ENDPRESS.") is tolerated
    head = up[0].rstrip(".:;,")
    if head in KEYWORDS and head != up[0] and KEYWORDS[head] not in ("IF", "ELSE"):
        return KEYWORDS[head], words[1:]
    return None


def _condition_shaped(name: str, args: list[str]) -> bool:
    """IF and ELSE start a line of conditional orders only when the words after them can be a
    condition (powers, unit letters, provinces, NOT/AND/OR), not a sentence: "If you agree, ...",
    a wrapped judge's line "if orders are not received by ...", "Else I attack" have a lower-case
    word of four letters or more. (:func:`parse_commands` reads conditional blocks in any case.)"""
    if name == "ELSE":
        if not args:
            return True
        if args[0].upper() != "IF":
            return False
        args = args[1:]
    words = [w.strip("()[],.;:") for w in args]
    return bool(args) and not any(w.islower() and len(w) > 3 for w in words)


def conditional_word(line: str) -> str | None:
    """IF, ELSE or ENDIF for a line of njudge's conditional orders, in any case ("if germany a
    mun", "Else", "ELSE IF NOT F Bur", "end if"); else None."""
    up = line.upper().split()
    if len(up) >= 2 and up[0] == "IF":
        return "IF"
    if up == ["ELSE"] or up[:2] == ["ELSE", "IF"]:
        return "ELSE"
    if up in (["ENDIF"], ["END", "IF"]):
        return "ENDIF"
    return None


def misspelt_command(line: str) -> str | None:
    """The command a line's first word is a slip of ("SIGNOF", "RESING", "BRAODCAST"): a word of
    five letters or more, no command itself, close to one command word; else None. Only for the
    reply's hint on a line that was read as an order and failed: the line is never run as it."""
    words = line.split()
    word = words[0].upper().rstrip(".:;,") if words else ""
    if len(word) < 5 or word in KEYWORDS or not word.isalpha():
        return None
    scored = sorted(((difflib.SequenceMatcher(None, word, k).ratio(), KEYWORDS[k]) for k in KEYWORDS
                     if " " not in k and len(k) >= 5), reverse=True)
    (best, name), (second, other) = scored[0], scored[1]
    return name if best >= 0.8 and (best > second or name == other) else None


def one_line_conditional(line: str) -> bool:
    """Whether an IF line holds its whole block, ENDIF included: "IF Russia moves to Sil THEN A Ber H ENDIF"."""
    up = line.upper().rstrip(".;").split()
    return len(up) >= 3 and (up[-1] == "ENDIF" or up[-2:] == ["END", "IF"])


def conditional_end(lines: list[str], start: int) -> tuple[int, bool] | None:
    """Where the IF block whose first line is before ``lines[start]`` ends: (index after it, whether
    its ENDIF was found). A block without ENDIF runs to the next command, if it has an ELSE; an IF
    line with neither ELSE nor ENDIF after it is no block (a sentence: "If you agree, ...")."""
    depth, seen_else = 1, False
    for j in range(start, len(lines)):
        if lines[j].rstrip() == "--":
            break
        word = conditional_word(lines[j].strip())
        if word == "IF":
            depth += 1
        elif word == "ELSE":
            seen_else = True
        elif word == "ENDIF":
            depth -= 1
            if depth == 0:
                return j + 1, True
        elif match_keyword(lines[j].strip()) is not None:
            return (j, False) if seen_else else None
    return (len(lines), False) if seen_else else None


def parse_commands(text: str) -> list[Command]:
    """Split message text into commands; stops at a ``-- `` signature or SIGNOFF (the lines
    after SIGNOFF are kept on it, for the reply to name)."""
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
        word = conditional_word(line)
        if word == "IF" and one_line_conditional(line):
            out.append(Command("IF", line.split()[1:], line, i))
            continue
        if word == "IF":  # an IF ... [ELSE ...] ENDIF block, read whole (and refused by the IF command)
            block = conditional_end(lines, i)
            if block is None:  # no ELSE or ENDIF after it: an ordinary line ("If you agree, hold.")
                out.append(Command("ORDER", [], line, i))
                continue
            cmd = Command("IF", line.split()[1:], line, i)
            cmd.body, cmd.closed = "\n".join(x.rstrip() for x in lines[i:block[0]]), block[1]
            i = block[0]
            out.append(cmd)
            continue
        if word is not None:  # an ELSE or ENDIF with no IF before it
            out.append(Command(word, line.split()[1:], line, i))
            continue
        m = match_keyword(line)
        if m is None:
            out.append(Command("ORDER", [], line, i))
            continue
        name, args = m
        cmd = Command(name, args, line, i)
        if opens_letter(name, args):
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
            cmd.unread = [l.strip() for l in lines[i:] if l.strip()]  # named in the reply, not read
            break
    return out
