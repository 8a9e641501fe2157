"""Mail addresses as the judge keeps them: one canonical form per mailbox, ASCII or not.

Internationalized addresses (RFC 6531/6532: ``josé@correo.es``, ``用户@例子.中国``, ``x@bücher.de``)
are players like any other. The stored form is:

* the local part lower-cased and in Unicode NFC (the judge has always lower-cased addresses);
* the domain as Unicode U-labels, lower case (IDNA 2008 with UTS #46 mapping, the ``idna``
  package), so ``x@bücher.de``, ``x@BÜCHER.de`` and ``x@xn--bcher-kva.de`` are one player and
  listings show the name the player knows.

Going out, :func:`ascii_address` gives the form an SMTP server without SMTPUTF8 can take (the
domain as ``xn--`` A-labels); a non-ASCII local part has none.
"""

from __future__ import annotations

import functools
import re
import unicodedata

import idna

#: a host name in ASCII: dot-separated labels of letters, digits and inner hyphens
_DOMAIN = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*", re.I)
#: characters that would make an address two addresses, a header of its own or an SMTP command;
_SPECIALS = frozenset(' <>,;:"()[]\\@\ufffd')  # U+FFFD: bytes that were not UTF-8


def _safe_local(local: str) -> bool:
    """No specials, and no control, format (bidi overrides), separator or surrogate characters."""
    return bool(local) and not any(
        c in _SPECIALS or unicodedata.category(c)[0] in "CZ" for c in local)


def _ascii_domain(domain: str) -> str | None:
    """The domain in A-labels (lower case), or None when it is no host name."""
    if domain.isascii():
        a = domain.lower()
    else:
        try:
            a = idna.encode(domain, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return None
    return a if _DOMAIN.fullmatch(a) else None


def _unicode_domain(ascii_domain: str) -> str:
    """A-labels → U-labels; a label that is not valid punycode stays as written."""
    if "xn--" not in ascii_domain:
        return ascii_domain
    try:
        return idna.decode(ascii_domain)
    except (idna.IDNAError, UnicodeError, ValueError):
        return ascii_domain


@functools.lru_cache(maxsize=4096)  # (a pure function of the text: every order mail asks it for its sender twice)
def canonical_address(addr: str) -> str | None:
    """The stored form of ``addr`` (see the module text), or None when it is no address the judge
    will write into a header and an SMTP envelope: one ``@`` with text on both sides, none of the
    characters that would make it two addresses or a header of its own, and a host name after
    the ``@`` (so the pieces of a hostile encoded word, ``=?utf-8?q?Bcc:_x@evil.test?=`` read
    raw, are no address)."""
    addr = unicodedata.normalize("NFC", addr.strip())
    local, at, domain = addr.rpartition("@")
    if not (at and domain) or not _safe_local(local):
        return None
    a_domain = _ascii_domain(domain)
    if a_domain is None or len(f"{local}@{a_domain}".encode()) > 254:
        return None
    return f"{local.lower()}@{_unicode_domain(a_domain)}"


@functools.lru_cache(maxsize=4096)  # (every answer's To and envelope)
def ascii_address(addr: str) -> str | None:
    """``addr`` as an SMTP server without SMTPUTF8 takes it (IDNA domain as ``xn--``), or None
    when its local part is not ASCII (such a mailbox cannot be reached without SMTPUTF8)."""
    local, _, domain = addr.rpartition("@")
    if not local.isascii():
        return None
    a_domain = _ascii_domain(domain)
    return f"{local}@{a_domain}" if a_domain is not None else None
