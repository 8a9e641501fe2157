"""The HTML part: well-formed, the same content as the text part, player-written text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser

import pytest

from judge.render.zine import render_results
from judge.variant import available_variants
from report_scenarios import known_turns, standard_1901

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class TagBalance(HTMLParser):
    """Every element closed, in order; collects the visible text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))  # <img ... />: nothing to close

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def check_html(html: str) -> TagBalance:
    p = TagBalance()
    p.feed(html)
    p.close()
    assert not p.errors, p.errors
    assert not p.stack, f"unclosed: {p.stack}"
    ET.fromstring(html.split("\n", 1)[1] if html.startswith("<!DOCTYPE") else html)  # XML-clean too
    return p


def norm(s: str) -> str:
    return " ".join(s.replace("\xa0", " ").split())


@pytest.mark.parametrize("variant", available_variants())
def test_html_well_formed_with_the_text_content(variant: str) -> None:
    for t in known_turns(variant):
        rep = render_results(t.before.variant, t.before, t.result, t.game, pictures=False)
        p = check_html(rep.html)
        shown = norm("".join(p.text))
        paragraphs = [b for b in rep.text.split("\n\n") if "):" in b.split("\n", 1)[0]]
        assert paragraphs
        for block in paragraphs:  # each power's paragraph reads the same in both parts
            assert norm(block) in shown, block


def test_html_inlines_the_map_and_attaches_it() -> None:
    t = standard_1901()[1]
    for mode in ("png", "both"):
        rep = render_results(t.before.variant, t.before, t.result, t.game, map_mode=mode)
        p = check_html(rep.html)
        imgs = [a for tag, a in p.tags if tag == "img"]
        assert [a["src"] for a in imgs] == ["cid:map"]
        assert imgs[0]["alt"]
        cids = {a.cid: a for a in rep.attachments if a.cid}
        assert "map" in cids
        assert cids["map"].content_type in ("image/png", "image/svg+xml")
        # the SVG goes with the mail only when asked for; the archive keeps it either way
        assert any(a.filename == "map.svg" for a in rep.attachments) == (mode == "both")
        assert {a.filename for a in rep.pictures} == {"map.png", "map.svg"}


def test_player_written_text_is_escaped() -> None:
    t = standard_1901()[0]
    evil = "<script>alert(1)</script>"
    game = replace(t.game,
                   players={**t.game.players, "England": "<b>Bold</b> & Co", "France": '"><img src=x onerror=alert(2)>'},
                   press=[("England", "France", f"Hi {evil}\n<i>it</i> & more"),
                          ('<b>from</b>', '<u>to</u>', "x")],
                   gm_actions=[("Germany", "<em>removed</em> an army"), (None, "<blink>note</blink>")])
    rep = render_results(t.before.variant, t.before, t.result, game, pictures=False)
    check_html(rep.html)
    for raw in ("<script", "<b>Bold", "<img src=x", "<i>it", "<b>from", "<u>to", "<em>", "<blink>"):
        assert raw not in rep.html, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rep.html
    assert "&lt;b&gt;Bold&lt;/b&gt; &amp; Co" in rep.html
    assert '&#34;&gt;&lt;img src=x onerror=alert(2)&gt;' in rep.html
    # the text part carries them as written
    assert evil in rep.text and "<b>Bold</b> & Co" in rep.text
