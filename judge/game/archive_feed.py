"""A game's Atom 1.0 feed (RFC 4287) in the archive: ``<game>/feed.xml``, one entry per processed
phase (its public report as text, a link to its page and its map), newest first.

Written with :mod:`xml.etree.ElementTree`, which escapes every text and attribute, so a player's
``<script>`` in a name or a broadcast is text in the feed. Links are relative to the feed
(``xml:base`` gives the archive's address when it is known); ids are ``urn:uuid`` names made
from the judge's code, the game and the phase's row, so they stay the same from one publish to
the next and change when a phase is rolled back and played again.
"""

from __future__ import annotations

import re
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from markupsafe import escape

ATOM = "http://www.w3.org/2005/Atom"
#: characters XML 1.0 cannot hold (a control character in a player's press would break the feed)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Entry:
    key: str  # unique in the game, stable: "phase-<row id>"
    title: str
    updated: str  # RFC 3339
    href: str  # the phase's page, relative to the feed
    text: str  # the public report, plain text
    picture: str | None  # the map, relative to the feed


def feed_id(code: str, game: str, key: str = "") -> str:
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'judge:{code}/{game}/{key}')}"


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        el.text = _clean(text)
    return el


def _content(e: Entry, game: str) -> str:
    """The entry's content, as HTML (escaped here, then once more by the XML writer)."""
    pic = (f'<p><img src="{escape(e.picture)}" alt="Map of game {escape(game)}: {escape(e.title)}" '
           'style="max-width:100%;height:auto;" /></p>') if e.picture else ""
    return f'{pic}<pre style="white-space:pre-wrap;">{escape(e.text)}</pre>'


def atom_feed(*, code: str, game: str, title: str, updated: str, entries: list[Entry],
              base_url: str | None = None) -> bytes:
    """The feed of ``game`` as UTF-8 bytes. ``updated``: the newest entry's time (or the game's
    start when no phase is processed yet), so that a feed with nothing new is byte for byte the
    same and an incremental publish leaves it alone."""
    ET.register_namespace("", ATOM)
    root = ET.Element(f"{{{ATOM}}}feed")
    if base_url:
        root.set("{http://www.w3.org/XML/1998/namespace}base", f"{base_url.rstrip('/')}/{game}/")
    _add(root, "id", feed_id(code, game))
    _add(root, "title", title)
    _add(root, "subtitle", f"The results of game {game} on judge {code}, phase by phase.")
    _add(root, "updated", updated)
    _add(_add(root, "author"), "name", f"Judge {code}")
    _add(root, "link", rel="self", type="application/atom+xml", href="feed.xml")
    _add(root, "link", rel="alternate", type="text/html", href="index.html")
    _add(root, "generator", "judge publish")
    for e in entries:
        el = _add(root, "entry")
        _add(el, "id", feed_id(code, game, e.key))
        _add(el, "title", e.title)
        _add(el, "updated", e.updated)
        _add(el, "link", rel="alternate", type="text/html", href=e.href)
        _add(el, "content", _content(e, game), type="html")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
