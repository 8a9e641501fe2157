"""One mail per recipient for what one mail of the master's makes: PAUSE with a BROADCAST sent
everyone a "Paused" notice and, apart, the broadcast. While the master's mail is read, its game
notices and press are held (:attr:`judge.game.lifecycle.Ctx.held`); then those going to the same
addresses of the same game are folded into one mail, in the order they were made."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.render.templates import MailText, page, text_to_html

if TYPE_CHECKING:
    from judge.game.lifecycle import Ctx

#: the kinds of mail held and folded (game notices, press); replies, results and the rest go at once
FOLDED = ("notice", "press")
#: a subject's game tag ("TEST:tg - F1901M") and its title
_TAGGED = re.compile(r"^(\S+:\S+(?: - \S+)?) (.+)$")


@dataclass
class Held:
    to: list[str]
    subject: str
    text: str
    game_id: int
    kind: str


def fold(items: list[Held]) -> list[Held]:
    """``items`` with those to the same addresses of the same game made one, at the place of the
    first: its subject names each title after the common tag ("TEST:tg - F1901M Paused; Broadcast
    from M"), its body is theirs one after the other, each later one without its ``::`` header."""
    groups: dict[tuple[int, tuple[str, ...]], list[Held]] = {}
    for it in items:
        groups.setdefault((it.game_id, tuple(sorted(it.to))), []).append(it)
    out = []
    for same in groups.values():
        if len(same) == 1:
            out.append(same[0])
            continue
        parts = [same[0].text.rstrip("\n")] + [_without_header(it.text).rstrip("\n") for it in same[1:]]
        body = "\n\n".join(parts) + "\n"
        files = [a for it in same for a in getattr(it.text, "attachments", ())]
        subject = _subject([it.subject for it in same])
        out.append(Held(same[0].to, subject, MailText(body, page(subject, text_to_html(body)), files),
                        same[0].game_id, same[0].kind))
    return out


def _without_header(text: str) -> str:
    lines = text.split("\n")
    while lines and (lines[0].startswith(":: ") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def _subject(subjects: list[str]) -> str:
    tagged = [_TAGGED.match(s) for s in subjects]
    if all(tagged) and len({m.group(1) for m in tagged if m}) == 1:
        return f"{tagged[0].group(1)} " + "; ".join(dict.fromkeys(m.group(2) for m in tagged if m))  # type: ignore[union-attr]
    return "; ".join(dict.fromkeys(subjects))


def release(ctx: "Ctx", folded: bool) -> None:
    """Queue the mails held while a mail was read (folded per recipient when ``folded``), and hold no more."""
    items, ctx.held = ctx.held or [], None
    for it in fold(items) if folded else items:
        ctx.mail(it.to, it.subject, it.text, game_id=it.game_id, kind=it.kind)
