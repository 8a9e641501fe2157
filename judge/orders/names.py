"""Names on one map: provinces (aliases, unique prefixes, initials), coasts and powers.

Tables are built once per :class:`~judge.variant.Map` and kept while the map lives.
Province names are matched on normalised words (lower case, no dots, spaces, hyphens or
apostrophes), so "St. Petersburg", "st petersburg" and "StP" are one name; a name may span
several words ("Gulf of Lyon", "N. Atl."). Beyond the variant's aliases a word may be a
unique prefix of three letters or more ("Edinb", "Helgo") or the initials of a name of several
words when no other name has the same initials ("E.C.", "EC" for the English Channel).
"""

from __future__ import annotations

import bisect
import re
import weakref
from dataclasses import dataclass

from judge.orders.lexer import Tok
from judge.variant import Map, Variant, norm

MIN_PREFIX = 3
_NOT_INITIALS = {"of", "the", "and"}
# (compiled once: ``re.findall(pattern, ...)`` looks its pattern up in ``re``'s cache at each call,
# and ``Names`` calls them for every name of a map, once a process)
_GAPS = re.compile(r"[\s.\-]+")  # what separates the words of a name as the parser reads them
_WORD_BREAKS = re.compile(r"[\s\-]+")  # what separates a name's words for its initials
_SEA_WORDS = frozenset({"sea", "ocean", "channel"})


class AmbiguousName(ValueError):
    """A prefix that fits several provinces ("Nort": North Africa, North Atlantic, North Sea)."""

    def __init__(self, message: str, suggestions: list[str]):
        super().__init__(message)
        self.suggestions = suggestions


@dataclass(frozen=True, slots=True)
class PowerName:
    name: str
    letter: str  # lower case


class Names:
    def __init__(self, variant: Variant, m: Map):
        self.map = m
        self.exact: dict[str, str] = m.aliases()
        self.sorted = sorted(self.exact)
        self.max_words = 1 + max(len(_GAPS.findall(a.strip(" ."))) for prov in m.provinces.values()
                                 for a in (prov.key, prov.name, *prov.aliases))
        initials: dict[str, set[str]] = {}
        for p, prov in m.provinces.items():
            for name in (prov.name, *prov.aliases):
                words = [w for w in _WORD_BREAKS.split(name.lower()) if w and w not in _NOT_INITIALS]
                if len(words) >= 2:
                    initials.setdefault("".join(w[0] for w in words), set()).add(p)
        self.initials = {k: next(iter(v)) for k, v in initials.items() if len(v) == 1 and k not in self.exact}
        # an alias that also begins exactly one other province's name ("LIV": Liverpool's alias,
        # Livonia's first letters): read as whichever of the two the order makes sense with
        keys = {norm(prov.key) for prov in m.provinces.values()} | {norm(prov.name) for prov in m.provinces.values()}
        self.misspelt: dict[str, list[str]] = {}  # word -> what close() found (mails repeat slips)
        self.dual: dict[str, str] = {}
        for a, p in self.exact.items():
            if len(a) >= MIN_PREFIX and a not in keys:
                others = self.by_prefix(a) - {p}
                if len(others) == 1:
                    self.dual[a] = others.pop()
        # coasts: "nc", "north coast", "n c" (as "nc"); after a slash also "north", "n"
        self.coasts: dict[str, str] = {}
        self.coasts_after_slash: dict[str, str] = {}
        for abbrev, full in m.coast_names.items():
            self.coasts[abbrev] = abbrev
            self.coasts[norm(full)] = abbrev
            first = full.split()[0].lower()
            self.coasts_after_slash[first] = abbrev
            self.coasts_after_slash[first[0]] = abbrev
        self.coasts_after_slash.update(self.coasts)
        self.powers: dict[str, PowerName] = {}  # names, abbreviations, adjectives
        self.full_names: set[str] = set()
        self.letters: dict[str, PowerName] = {}
        for pw in variant.powers.values():
            pn = PowerName(pw.name, pw.letter.lower())
            for n in (pw.name, pw.abbrev, pw.adjective):
                self.powers.setdefault(norm(n), pn)
            self.full_names.add(norm(pw.name))
            self.letters[pw.letter.lower()] = pn

    # -- provinces ---------------------------------------------------------------------------
    def province(self, toks: list[Tok], i: int, reserved: frozenset[str] = frozenset()
                 ) -> tuple[str, int] | None:
        """The province named at ``toks[i]`` and the index after its name, or None.

        A word in ``reserved`` (order keywords, "the", "into") is never taken as a prefix.
        Raises :class:`AmbiguousName` for a prefix that fits several provinces.
        """
        joined = ""
        spans: list[tuple[str, int, bool]] = []  # (joined words, end index, all single letters)
        letters_only = True
        j = i
        n = len(toks)
        while j < n and len(spans) < self.max_words:
            t = toks[j]
            if not t.word:
                break
            # a lone letter after a longer word is a keyword ("Mar S" is no "Mars"); after a
            # letter it is part of initials ("E.C.")
            if j > i and len(t.low) == 1 and len(toks[j - 1].low) > 1:
                break
            joined += t.low
            letters_only = letters_only and len(t.low) == 1
            spans.append((joined, j + 1, letters_only))
            # a hyphen joins words only inside a name written without spaces ("Mid-Atlantic")
            if (j + 2 < n and toks[j + 1].low == "-" and toks[j + 1].start == t.end
                    and toks[j + 2].word and toks[j + 2].start == toks[j + 1].end and not t.dot):
                j += 2
            else:
                j += 1
        for text, end, _ in reversed(spans):
            p = self.exact.get(text)
            if p is not None:
                if end < n and toks[end].low in _SEA_WORDS and self.map.terrain[p] == "sea":
                    end += 1  # "Nth Sea", "Eng Channel": the abbreviation with the kind of water
                return p, end
        for text, end, single_letters in reversed(spans):
            if (end == i + 1 or single_letters) and text in self.initials:
                return self.initials[text], end
        if spans and len(spans[0][0]) >= MIN_PREFIX and spans[0][0] not in reserved:
            found = self.by_prefix(spans[0][0])
            if len(found) == 1:
                return found.pop(), i + 1
            if len(found) > 1:
                names = sorted(self.map.provinces[p].name for p in found)
                raise AmbiguousName(f"{toks[i].text!r} could be {or_list(names)}", names)
        return None

    def by_prefix(self, text: str) -> set[str]:
        k = bisect.bisect_left(self.sorted, text)
        found = set()
        while k < len(self.sorted) and self.sorted[k].startswith(text):
            found.add(self.exact[self.sorted[k]])
            k += 1
        return found

    def suggest(self, word: str) -> list[str]:
        """Provinces whose names are close to a misspelt ``word`` (for "did you mean")."""
        w = norm(word)
        if not w or len(w) > 40:
            return []
        cands = [a for a in self.sorted if abs(len(a) - len(w)) <= 3]
        import difflib  # only for a misspelt name: not at start-up

        close = difflib.get_close_matches(w, cands, n=6, cutoff=0.7)
        out: list[str] = []
        for a in close:
            name = self.map.provinces[self.exact[a]].name
            if name not in out:
                out.append(name)
        return out[:3]

    def close(self, word: str) -> list[str]:
        """Provinces whose name ``word`` is a misspelling of: every province with a name within
        one typing slip (a letter wrong, missing, extra, or two swapped) of a word of up to seven
        letters, two slips of a longer one. Words under four letters are never read so."""
        w = norm(word)
        n = len(w)
        if n < 4 or n > 40:
            return []
        known = self.misspelt.get(w)
        if known is not None:
            return known
        limit = 1 if n <= 7 else 2
        best: dict[str, int] = {}
        for a in self.sorted:
            if abs(len(a) - n) > limit or len(a) < 4:
                continue
            d = slips(w, a, limit)
            if d <= limit:
                p = self.exact[a]
                best[p] = min(best.get(p, d), d)
        found = self.misspelt[w] = sorted(best)
        if len(self.misspelt) > 5000:
            self.misspelt.clear()
        return found

    # -- coasts and powers -------------------------------------------------------------------
    def coast(self, toks: list[Tok], i: int) -> tuple[str, int] | None:
        """A coast named at ``toks[i]`` ("/nc", "nc", "north coast", "n.c.", "/north")."""
        slash = i < len(toks) and toks[i].low == "/"
        j = i + 1 if slash else i
        table = self.coasts_after_slash if slash else self.coasts
        if j >= len(toks) or not toks[j].word:
            return None
        if j + 1 < len(toks) and toks[j + 1].word and not toks[j].dot or (
                j + 1 < len(toks) and toks[j + 1].word and len(toks[j].low) == 1):
            two = toks[j].low + toks[j + 1].low
            if two in self.coasts:
                return self.coasts[two], j + 2
        c = table.get(toks[j].low)
        return (c, j + 1) if c else None

    def power(self, word: str) -> PowerName | None:
        return self.powers.get(word)


def slips(a: str, b: str, limit: int) -> int:
    """Typing slips from ``a`` to ``b`` (optimal string alignment distance: a letter replaced,
    dropped, added, or two neighbours swapped); ``limit + 1`` once it is sure to pass ``limit``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def or_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


_TABLES: "weakref.WeakKeyDictionary[Map, Names]" = weakref.WeakKeyDictionary()


def names_for(variant: Variant, m: Map) -> Names:
    names = _TABLES.get(m)
    if names is None:
        names = _TABLES[m] = Names(variant, m)
    return names
