"""Deadline bursts: many games due at the same minute, from the deadline to every report handed to SMTP.

    python bench/deadlines.py [--games 1000] [--variant standard] [--smtp] [--map png|svg|both|link|off] [--seed 1]

Set-up (not timed): ``--games`` games of ``--variant`` (default standard) through the real game service on an SQLite
file, each with a master, a player for every power and a mailing list; the robots' orders for the
first phase (judge/demo/robots.py) are in, and one player has ``SET WAIT``, so each game waits for its
deadline, all of them the same minute. Timed: ``Judge.run_due`` at that minute, as the daemon's
scheduler calls it: each game adjudicated, its report and map made, a results mail composed for
every player, the master and the list, all queued in the outbox (one transaction a game). That
is the point where the daemon's SMTP runner takes them; ``--smtp`` also sends every queued
mail to a local SMTP sink (aiosmtpd) through aiosmtplib, one connection, and times that too.

Prints games per second, the latency from the deadline to each game's reports being queued
(median, p95, max: games are processed one after the other, so the last waits for all), map
pictures drawn and PNG files encoded per game (a results mail of 1885 II drew two PNGs and
encoded three before its mail scale was settled once per map), and the size of the results mails.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judge import mapdraw  # noqa: E402
from judge.render import zine as report_module  # noqa: E402
from judge.game import events, lifecycle as games  # noqa: E402
from judge.game import orderbook  # noqa: E402
from judge.game.config import JudgeConfig  # noqa: E402
from judge.mail.receive import Judge  # noqa: E402
from judge.demo.robots import Robot  # noqa: E402
from judge.game.store import iso  # noqa: E402
from judge.engine.position import Position  # noqa: E402
from judge.variant import load_variant  # noqa: E402

START = datetime(2030, 3, 1, 12, 0, tzinfo=timezone.utc)


def set_up(judge: Judge, n: int, seed: int, map_mode: str, variant: str = "standard", prefix: str = "g",
           start: datetime = START) -> datetime:
    """``n`` games (``<prefix>0``...) with orders in and a deadline each at the same minute, made at
    ``start``; returns that minute."""
    cfg = judge.cfg
    st = judge.store
    rng = random.Random(seed)
    for i in range(n):
        with st.transaction():
            ctx = games.Ctx(st, cfg, start)
            options = [f"map={map_mode}"] if map_mode != "png" else []  # (png: the default)
            g = games.create_game(ctx, f"{prefix}{i}", "masterpw", variant, options, f"gm{i}@bench.test")
            for k in range(len(g.variant.powers)):
                games.join(ctx, g, f"p{k}.{prefix}{i}@bench.test", f"pw{k}")
            games.start(ctx, g)
            st.update("games", g.id, list_address=f"g{i}-list@lists.bench.test")
            ph = games.current_phase(st, g)
            pos = ph.position
            for s in games.seats(st, g.id):
                robot = Robot("p@bench.test", "x", random.Random(rng.random()), power=s["power"], free_form=False,
                              mistakes=0)
                orderbook.submit(st, ph.id, pos, s["power"], "\n".join(robot.orders(pos)), g.rules,
                                 f"<bench.{prefix}{i}.{s['power']}>", start)
            st.update("seats", games.seats(st, g.id)[0]["id"], wait=1)  # so it waits for its deadline
    deadline = games.current_phase(st, games.get_game(st, f"{prefix}0")).deadline
    with st.transaction():  # the start mails went out long ago
        st.conn.execute("UPDATE outbox SET status = 'sent', sent_at = ? WHERE status = 'pending'", (iso(start),))
    return deadline


async def send_all(judge: Judge, sink_port: int, now: datetime) -> tuple[float, int]:
    """Every pending outbox item to the sink over one SMTP connection; (seconds, messages)."""
    import aiosmtplib

    t0 = time.perf_counter()
    items = judge.pending_outbox(limit=10**9, now=now)
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=sink_port)
    await client.connect()
    done: list[int] = []
    for it in items:
        await client.sendmail(it.sender, it.recipients, it.message)
        done.append(it.id)
        if len(done) >= 64:
            judge.mark_sent_many(done, now=now)
            done = []
    judge.mark_sent_many(done, now=now)
    await client.quit()
    return time.perf_counter() - t0, len(items)


async def with_sink(judge: Judge, now: datetime) -> tuple[float, int]:
    from aiosmtpd.smtp import SMTP

    class Sink:
        async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
            return "250 OK"

    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(Sink(), hostname="sink.bench"), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await send_all(judge, port, now)
    finally:
        server.close()
        await server.wait_closed()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--map", default="png", choices=["png", "svg", "both", "link", "off"])
    ap.add_argument("--smtp", action="store_true", help="also send every report to a local SMTP sink")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = JudgeConfig(address="judge@bench.test", db_path=Path(tmp) / "judge.sqlite", code="BENCH",
                          password_cost=4, archive_url="https://judge.bench.test/games")
        judge = Judge(cfg)
        t = time.perf_counter()
        deadline = set_up(judge, args.games, args.seed, args.map, args.variant)
        setup = time.perf_counter() - t

        finished: dict[int, float] = {}
        run_event = events.run_event
        pictures = {"png": 0, "svg": 0, "encoded": 0}
        draw_png, draw_svg = mapdraw.draw_png, mapdraw.draw_svg

        def timed_event(ctx, ev):  # noqa: ANN001
            run_event(ctx, ev)
            finished[ev["game_id"]] = time.perf_counter()

        def counted_png(*a, **k):  # noqa: ANN002,ANN003
            pictures["png"] += 1
            return draw_png(*a, **k)

        def counted_svg(*a, **k):  # noqa: ANN002,ANN003
            pictures["svg"] += 1
            return draw_svg(*a, **k)

        try:  # every PNG file written (a picture compressed again to fit the budget counts twice)
            from PIL import Image
            save = Image.Image.save

            def counted_save(self, fp, format=None, **k):  # noqa: ANN001,ANN003,A002
                pictures["encoded"] += format == "PNG"
                return save(self, fp, format, **k)
        except ImportError:
            Image = None

        # warm-up (not timed): a daemon has drawn a map of this variant before, so its modules are
        # loaded and the map's layout and unchanging layers are made
        # (both mail scales' palettes, and the mail scale of the map)
        v = load_variant(args.variant)
        for scale in (report_module.MAIL_SCALE, report_module.MAIL_SCALE_SMALL):
            mapdraw.draw_png(v, Position.from_json(v.start_position(), v), scale=scale)
        mapdraw.draw_svg(v, Position.from_json(v.start_position(), v))
        if hasattr(report_module, "mail_fit"):
            report_module.mail_fit(v, v.map)
        events.run_event = timed_event
        report_module.draw_png, report_module.draw_svg = counted_png, counted_svg
        if Image is not None:
            Image.Image.save = counted_save
        t0 = time.perf_counter()
        done = judge.run_due(now=deadline + timedelta(seconds=30))
        t1 = time.perf_counter()
        events.run_event = run_event
        report_module.draw_png, report_module.draw_svg = draw_png, draw_svg
        if Image is not None:
            Image.Image.save = save

        sizes = [len(r["message"]) for r in judge.store.all("SELECT message FROM outbox WHERE kind = 'results'")]
        lat = sorted((x - t0) * 1000 for x in finished.values())
        n = len(finished)
        print(f"{n} {args.variant} games due at the same minute ({done} events), map {args.map.upper()}, "
              f"set-up {setup:.0f} s (not timed), CPython {sys.version.split()[0]}")
        print(f"deadline -> reports queued for SMTP: {t1 - t0:.2f} s, {n / (t1 - t0):.1f} games/s, "
              f"{(t1 - t0) / n * 1000:.1f} ms a game")
        print(f"latency per game: median {statistics.median(lat):.0f} ms, p95 {lat[int(0.95 * (n - 1))]:.0f} ms, "
              f"max {lat[-1]:.0f} ms")
        print(f"maps drawn: {pictures['png']} PNG ({pictures['png'] / max(n, 1):.2f} a game), {pictures['svg']} SVG "
              f"({pictures['svg'] / max(n, 1):.2f} a game); PNG files encoded: {pictures['encoded']} "
              f"({pictures['encoded'] / max(n, 1):.2f} a game)")
        print(f"results mails: {len(sizes)} "
              f"({len(sizes) / max(n, 1):.1f} a game), {statistics.median(sizes) / 1024:.1f} kB median, "
              f"{max(sizes) / 1024:.1f} kB largest")
        if args.smtp:
            secs, count = asyncio.run(with_sink(judge, deadline + timedelta(minutes=1)))
            total = t1 - t0 + secs
            print(f"to the SMTP sink: {count} mails in {secs:.2f} s ({count / secs:.0f}/s); deadline -> every "
                  f"report accepted by SMTP: {total:.2f} s, {n / total:.1f} games/s")
        judge.close()


if __name__ == "__main__":
    main()
