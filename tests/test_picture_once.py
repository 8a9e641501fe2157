"""A phase's map picture is drawn and encoded once, and every results mail of the phase carries it.

1885 II's mail picture went over the PNG budget at ``MAIL_SCALE`` in every phase: it was encoded
twice there, drawn again at ``MAIL_SCALE_SMALL`` and encoded twice more. The mail scale is now
settled once per map (:func:`judge.render.zine.mail_fit`). Counts only: speed is in
``bench/deadlines.py --variant 1885``.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from judge.demo.robots import Robot
from judge.engine import adjudicate
from judge.engine.position import Position
from judge.game import lifecycle as games
from judge.game import orderbook
from judge.game.config import JudgeConfig
from judge.game.store import iso
from judge.mail.receive import Judge
from judge.mapdraw import draw_png
from judge.render import zine
from judge.variant import load_variant

START = datetime(2030, 3, 1, 12, 0, tzinfo=timezone.utc)


def _orders_in(judge: Judge, name: str, seed: str) -> datetime:
    """The robots' orders for the open phase of game ``name``; returns its deadline."""
    st = judge.store
    with st.transaction():
        g = games.get_game(st, name)
        ph = games.current_phase(st, g)
        pos = ph.position
        for s in games.seats(st, g.id):
            robot = Robot("r@example.test", "x", random.Random(f"{seed}{s['power']}"), power=s["power"],
                          free_form=False, mistakes=0)
            orderbook.submit(st, ph.id, pos, s["power"], "\n".join(robot.orders(pos)), g.rules,
                             f"<t.{name}.{ph.short}.{s['power']}@example.test>", START)
        st.update("seats", games.seats(st, g.id)[0]["id"], wait=1)  # so it waits for its deadline
    return ph.deadline


def _two_games(tmp: Path, variant: str) -> Judge:
    cfg = JudgeConfig(address="judge@example.test", db_path=tmp / "judge.sqlite", code="TEST", password_cost=4)
    judge = Judge(cfg)
    st = judge.store
    for name in ("ga", "gb"):
        with st.transaction():
            ctx = games.Ctx(st, cfg, START)
            g = games.create_game(ctx, name, "masterpw", variant, [], f"gm.{name}@example.test")
            for k in range(len(g.variant.powers)):
                games.join(ctx, g, f"p{k}.{name}@example.test", f"pw{k}")
            games.start(ctx, g)
            st.update("games", g.id, list_address=f"{name}-list@lists.example.test")
    return judge


class Counts:
    """Calls of the mail's picture drawing and of the PNG encoder (one file written each)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.png = self.svg = self.encoded = 0
        png, svg = zine.draw_png, zine.draw_svg

        def counted_png(*a, **k):  # noqa: ANN002,ANN003,ANN202
            self.png += 1
            return png(*a, **k)

        def counted_svg(*a, **k):  # noqa: ANN002,ANN003,ANN202
            self.svg += 1
            return svg(*a, **k)

        from PIL import Image

        save = Image.Image.save

        def counted_save(img, fp, format=None, **k):  # noqa: ANN001,ANN003,ANN202,A002
            self.encoded += format == "PNG"
            return save(img, fp, format, **k)

        monkeypatch.setattr(zine, "draw_png", counted_png)
        monkeypatch.setattr(zine, "draw_svg", counted_svg)
        monkeypatch.setattr(Image.Image, "save", counted_save)


def _pictures(judge: Judge, name: str, since: int) -> list[bytes]:
    """The PNG of every results mail of game ``name`` queued after outbox row ``since``."""
    g = games.get_game(judge.store, name)
    out = []
    for r in judge.store.all("SELECT message FROM outbox WHERE kind = 'results' AND game_id = ? AND id > ?",
                             (g.id, since)):
        msg = message_from_bytes(bytes(r["message"]), policy=policy.default)
        out += [p.get_content() for p in msg.walk() if p.get_content_type() == "image/png"]
    return out


def _last_outbox(judge: Judge) -> int:
    return judge.store.one("SELECT COALESCE(MAX(id), 0) AS n FROM outbox")["n"]


@pytest.mark.parametrize("variant", ["1885", "standard"])
def test_one_phase_draws_and_encodes_its_picture_once_for_every_recipient(tmp_path: Path, variant: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cairocffi")
    judge = _two_games(tmp_path, variant)
    v = load_variant(variant)
    zine.mail_fit(v, v.map)  # settled once per map and process, as its palette
    deadline = max(_orders_in(judge, "ga", "a"), _orders_in(judge, "gb", "b"))
    with judge.store.transaction():
        judge.store.conn.execute("UPDATE outbox SET status = 'sent', sent_at = ?", (iso(START),))
    seen = _last_outbox(judge)
    counts = Counts(monkeypatch)
    judge.run_due(now=deadline + timedelta(seconds=30))
    assert (counts.png, counts.svg, counts.encoded) == (2, 2, 2)  # one each a game, not each a mail
    first: dict[str, bytes] = {}
    for name in ("ga", "gb"):
        pictures = _pictures(judge, name, seen)
        assert len(pictures) == len(v.powers) + 2  # every player, the master and the list
        assert len(set(pictures)) == 1
        first[name] = pictures[0]
        g = games.get_game(judge.store, name)
        kept = judge.store.all("SELECT png FROM reports WHERE game_id = ?", (g.id,))
        assert [bytes(r["png"]) for r in kept] == [first[name]]  # the archive keeps the mailed picture
    assert first["ga"] != first["gb"]  # each game its own map

    # the next phase: a picture of its own, again drawn once
    seen = _last_outbox(judge)
    deadline = _orders_in(judge, "ga", "a2")
    judge.run_due(now=deadline + timedelta(seconds=30))
    assert (counts.png, counts.svg, counts.encoded) == (3, 3, 3)
    later = _pictures(judge, "ga", seen)
    assert len(later) == len(v.powers) + 2 and len(set(later)) == 1
    assert later[0] != first["ga"]
    assert not _pictures(judge, "gb", seen)
    judge.close()


def test_the_mail_scale_is_settled_per_map_from_its_opening() -> None:
    """1885 II's mail picture comes near the budget at ``MAIL_SCALE`` even at the harder
    compression, so its maps start small; standard's opening (real coastlines) comes near the
    budget at the usual compression, so its pictures are compressed hard at once, at full size.
    The same whatever was drawn before."""
    pytest.importorskip("cairocffi")
    v1885, std = load_variant("1885"), load_variant("standard")
    zine._MAIL_FIT.clear()
    assert zine.mail_fit(v1885, v1885.map) == (zine.MAIL_SCALE_SMALL, False)
    assert zine.mail_fit(std, std.map) == (zine.MAIL_SCALE, True)
    zine._MAIL_FIT.clear()
    assert zine.mail_fit(std, std.map) == (zine.MAIL_SCALE, True)
    assert zine.mail_fit(v1885, v1885.map) == (zine.MAIL_SCALE_SMALL, False)


@pytest.mark.parametrize("variant", ["1885", "standard"])
def test_the_mail_png_is_the_picture_the_budget_cascade_gave(variant: str) -> None:
    """Settling the scale first changes no mail but where the opening came near the budget: the
    same picture as drawing at ``MAIL_SCALE``, compressing harder over the budget, and drawing
    smaller when still over (or small at once, for a map whose opening came near it)."""
    pytest.importorskip("cairocffi")
    v = load_variant(variant)
    pos = Position.from_json(v.start_position(), v)
    result = adjudicate(pos, [])
    nxt = result.next
    old = draw_png(v, nxt, result.results, phase=nxt.phase, title="t", scale=zine.MAIL_SCALE,
                   budget=zine.MAIL_PNG_BUDGET)
    if len(old) > zine.MAIL_PNG_BUDGET:
        old = draw_png(v, nxt, result.results, phase=nxt.phase, title="t", scale=zine.MAIL_SCALE_SMALL,
                       budget=zine.MAIL_PNG_BUDGET)
    new = zine.mail_png(v, nxt, result.results, nxt.phase, "t")
    if zine.mail_fit(v, v.map)[0] == zine.MAIL_SCALE_SMALL:  # an opening near the budget: small at once
        old = draw_png(v, nxt, result.results, phase=nxt.phase, title="t", scale=zine.MAIL_SCALE_SMALL,
                       budget=zine.MAIL_PNG_BUDGET)
    # the same picture, pixel for pixel; a map whose opening comes near the budget is compressed
    # harder at once, so its bytes may be fewer than the cascade's
    assert _pixels(new) == _pixels(old) and len(new) <= len(old) <= zine.MAIL_PNG_BUDGET


def _pixels(png: bytes) -> tuple:
    import io

    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    return img.size, img.tobytes()
