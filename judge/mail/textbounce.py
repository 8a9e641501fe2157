"""Plain-text bounces: the recipients whose delivery failed for good, read from the notices
mail servers write in words rather than as an RFC 3464 report (qmail, older Exim and sendmail,
Exchange/Outlook.com, Domino, Gmail's text).

Read only from mail already known to be a machine's (see :func:`judge.mail.incoming.bounce_like`),
so a player quoting a bounce is never taken for one. Each format is recognised by the sentence
its server writes before the failed addresses, and its addresses are read only up to where the
server goes on to something else (the diagnostics, the copy of the message, whose headers name
every recipient of the judge's mail, delivered or not). Delay warnings ("will retry") are no
failures: their wording is not matched, and the formats that share their wording with the
failure notice name what tells them apart. Never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: an address as bounce texts show it; checked again by ``plausible_address`` by the caller
_ADDR = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,250}[A-Za-z0-9])?")
MAX_TEXT = 200_000  # a notice is short; the rest of a long text is the copy of the message
MAX_LINE = 1_000  # longer lines are no address lines (and keep the address search linear)


def _phrase(words: str) -> re.Pattern[str]:
    """A sentence as a pattern that survives re-wrapping and curly apostrophes."""
    parts = [re.escape(w).replace("'", "['\u2019]") for w in words.split()]
    return re.compile(r"\s+".join(parts), re.I)


@dataclass(frozen=True)
class _Format:
    name: str
    starts: tuple[re.Pattern[str], ...]  # the sentence just before the failed addresses
    ends: tuple[re.Pattern[str], ...]  # where the server goes on to something else
    lines: re.Pattern[str]  # an address line of this format; its groups are the addresses
    needs: tuple[re.Pattern[str], ...] = ()  # all of these somewhere in the text (a permanent failure) ...
    never: tuple[re.Pattern[str], ...] = ()  # ... and none of these (a delay warning)


def _f(name: str, starts: list[str], ends: list[str], lines: str, needs: list[str] = [],
       never: list[str] = []) -> _Format:
    return _Format(name, tuple(map(_phrase, starts)), tuple(map(_phrase, ends)), re.compile(lines, re.I),
                   tuple(map(_phrase, needs)), tuple(map(_phrase, never)))


_A = r"([^\s<>()@,;:\"']{1,64}@[A-Za-z0-9.-]{1,253})"  # one address in a line pattern
_ONLY = rf"^\s*<?{_A}>?:?\s*$"  # a line holding just the address
_SHORT = r"^(?=.*@)(?!\s*(?:\S+\s+){9}\S)"  # a line with an address and at most nine words: a name, no prose

FORMATS: tuple[_Format, ...] = (
    # Hi. This is the qmail-send program at HOST. / I'm afraid I wasn't able to deliver your message
    # to the following addresses. / This is a permanent error; I've given up. ... / <addr>: / reason
    _f("qmail", ["I'm afraid I wasn't able to deliver your message to the following addresses."],
       ["--- Below this line is", "--- Enclosed are the original headers"],
       rf"^<{_A}>:", needs=["This is a permanent error"]),
    # Exim: "... could not be delivered to one or more of its recipients. This is a permanent error.
    # The following address(es) failed:" then "  addr" (and its reasons indented further). Its
    # delay warning says "has not yet been delivered" and never "failed:".
    _f("exim", ["The following address(es) failed:"], ["------ This is a copy", "------ The body of the message"],
       rf"{_ONLY}|^\s+\(generated from {_A}\)\s*$", never=["has not yet been delivered"]),
    # sendmail's text part: "----- The following addresses had permanent fatal errors -----"
    # (its warnings list "transient non-fatal errors" instead)
    _f("sendmail", ["----- The following addresses had permanent fatal errors -----"],
       ["----- Transcript of session follows -----", "----- Original message follows -----"],
       rf"^<?{_A}>?\s*$|^\s+\(expanded from:\s*<?{_A}>?\)\s*$"),
    # Postfix always sends multipart/report; its text is read only when the report part is
    # missing. "<addr>: host ... said: ..." or "<addr> (expanded from <alias>): ..."; the delay
    # notice starts "THIS IS A WARNING ONLY".
    _f("postfix", ["your message could not be delivered to one or more recipients."],
       ["Content-Description: Undelivered Message", "Content-Type: message/"],
       rf"^<{_A}>(?:\s+\(expanded from\s+<{_A}>\))?:", never=["THIS IS A WARNING ONLY"]),
    # Exchange / Outlook.com: "Delivery has failed to these recipients or groups:" then
    # "Name (addr)", "addr<mailto:addr>" or the address alone; older Exchange "The following
    # recipient(s) cannot be reached:" then "addr on DATE". Delays say "Delivery is delayed".
    _f("exchange", ["Delivery has failed to these recipients or groups:",
                    "The following recipient(s) cannot be reached:",
                    "The following recipient(s) could not be reached:"],
       ["Original message headers:", "Diagnostic information for administrators:", "Generating server:",
        "-----Original Message-----", "Reporting-MTA:"],
       _SHORT + rf".*?{_A}(?:.*?{_A})?(?:.*?{_A})?"),
    # Domino: "Your message / Subject: ... / was not delivered to: / addr / because: / reason"
    _f("domino", ["was not delivered to:"], ["because:"], _SHORT + rf".*?{_A}"),
    # Gmail, older text: "Delivery to the following recipient failed permanently:" (its delay
    # warning: "... has been delayed")
    _f("gmail", ["Delivery to the following recipient failed permanently:",
                 "Delivery to the following recipients failed permanently:"],
       ["Technical details of permanent failure", "----- Original message -----"], _ONLY),
)

#: Gmail's text today names the address inside a sentence, for a mailbox or a domain that does
#: not exist (its delay: "Delivery incomplete", "There was a temporary problem")
_GMAIL = re.compile(r"Your\s+message\s+wasn['\u2019]t\s+delivered\s+to\s+<?" + _A +
                    r">?\s+because\s+the\s+(?:address|domain\s+\S+)\s+couldn['\u2019]t\s+be\s+found", re.I)


def text_bounce_failures(text: str) -> list[str]:
    """The addresses a plain-text bounce reports as failed for good, lower case, in order,
    each once (not yet checked against what the judge sent). Never raises."""
    try:
        return list(dict.fromkeys(a.lower().rstrip(".") for a in _failures(text[:MAX_TEXT])))
    except Exception:
        return []


def _failures(text: str) -> list[str]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    out = [m.group(1) for m in _GMAIL.finditer(text)]
    for fmt in FORMATS:
        if any(p.search(text) is None for p in fmt.needs) or any(p.search(text) for p in fmt.never):
            continue
        for start in fmt.starts:  # the first only: a later one is in a copy of an older bounce
            m = start.search(text)
            if m is not None:
                out += _section_addresses(fmt, text[m.end():])
    return out


def _section_addresses(fmt: _Format, rest: str) -> list[str]:
    ends = [m.start() for m in (p.search(rest) for p in fmt.ends) if m is not None]
    section = rest[:min(ends)] if ends else rest
    found: list[str] = []
    for line in section.split("\n")[:200]:
        if len(line) > MAX_LINE or "@" not in line:
            continue
        m = fmt.lines.search(line)
        if m is not None:
            found += [a for a in m.groups() if a and _ADDR.fullmatch(a)]
    return found
