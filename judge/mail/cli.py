"""``judge serve``, ``judge deliver``, ``judge game …``, ``judge status`` and ``judge demo``."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

DB_HELP = ("The judge's SQLite file (default: [judge] db_path of --config, DIR/judge.sqlite with --maildir, "
           "else ./judge.sqlite; env JUDGE_DB).")
CONFIG_HELP = ("The mail daemon's TOML file (see deploy/judge.toml): address, name, code, zone and store come "
               "from it (options given here win). No password is read.")


SETTLE_HELP = ("Pipe mode: process a deadline only this many seconds after it passed, so that mail the MTA "
               "was delivering at that moment is handled first.")


class MissingStore(click.ClickException):
    """The store does not exist: a typo must not start an empty judge beside the real one."""

    def __init__(self, db: str) -> None:
        super().__init__(f"no judge database at {db}: give --db or --config, or create it with "
                         f"`judge init --db {db}`")


def _config(db: str | None, address: str | None, name: str | None, code: str | None, tz: str | None,
            default_db: str = "judge.sqlite", config_path: str | None = None) -> Any:
    """The service's settings: the daemon config's [judge] table (if given), then these options."""
    from judge.mail import JudgeConfig

    kw: dict[str, Any] = {"db_path": default_db}
    if config_path:
        from judge.daemon.config import ConfigError, load_config

        try:
            section = load_config(config_path, secrets=False).judge
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        kw.update(section.options)
        kw.update(address=section.address, name=section.name, db_path=section.db_path,
                  loop_header=section.loop_header, timezone=section.timezone)
    if db:
        kw["db_path"] = db
    if address:
        kw["address"] = address
    if name:
        kw["name"] = name
    if code:
        kw["code"] = code
    if tz:
        kw["timezone"] = tz
    try:
        return JudgeConfig(**kw)
    except (TypeError, ValueError) as exc:  # an unknown key in [judge.options], a limit out of range
        raise click.ClickException(f"[judge.options]: {exc}") from None


def judge_options(fn: Any) -> Any:
    for opt in reversed([
        click.option("--config", "config_path", default=None,
                     type=click.Path(dir_okay=False, exists=True), help=CONFIG_HELP),
        click.option("--db", envvar="JUDGE_DB", default=None, help=DB_HELP),
        click.option("--address", envvar="JUDGE_ADDRESS", default=None, help="The judge's own mail address."),
        click.option("--name", "judge_name", envvar="JUDGE_NAME", default=None, help="The judge's display name."),
        click.option("--code", envvar="JUDGE_CODE", default=None, help="Judge code shown in subjects."),
        click.option("--timezone", "tz", envvar="JUDGE_TIMEZONE", default=None, help="Zone for deadlines shown."),
    ]):
        fn = opt(fn)
    return fn


def _open(db: str | None, address: str | None, judge_name: str | None, code: str | None, tz: str | None,
          default_db: str = "judge.sqlite", config_path: str | None = None, create: bool = False,
          readonly: bool = False, upgrade: bool = False) -> Any:
    """The service on its store; the store must exist unless ``create`` (``judge init``, the
    Maildir judge and the demo make their own). Console commands neither migrate an older store
    nor use it: ``readonly`` ones open it read-only; only ``upgrade`` (the Maildir and pipe-mode
    runners, like the daemon) migrate it, after a backup copy."""
    from judge.game.store import SchemaMismatch
    from judge.mail import Judge

    cfg = _config(db, address, judge_name, code, tz, default_db, config_path)
    if not create and not Path(cfg.db_path).is_file():
        raise MissingStore(str(cfg.db_path))
    try:
        return Judge(cfg, readonly=readonly, upgrade=upgrade)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@judge_options
def init(**kw: Any) -> None:
    """Create the judge's database (mode 0600, owned like its folder), or check an existing one."""
    from judge.game.store import SchemaMismatch, Store, schema_version

    cfg = _config(kw["db"], kw["address"], kw["judge_name"], kw["code"], kw["tz"], config_path=kw["config_path"])
    fresh = not Path(cfg.db_path).is_file() or schema_version(cfg.db_path) == 0
    try:  # a new (or empty) store is made at the current schema; one in use is only checked
        store = Store(cfg.db_path, upgrade=fresh)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        click.echo(f"{'created' if fresh else 'checked'} {cfg.db_path} (schema {store.version})")
    finally:
        store.close()


@click.command()
@judge_options
def upgrade(**kw: Any) -> None:
    """Migrate the store to this judge's schema, after copying it to a backup file beside it."""
    from judge.game.store import SCHEMA_VERSION, SchemaMismatch, Store

    cfg = _config(kw["db"], kw["address"], kw["judge_name"], kw["code"], kw["tz"], config_path=kw["config_path"])
    if not Path(cfg.db_path).is_file():
        raise MissingStore(str(cfg.db_path))
    if kw["config_path"]:
        from judge.daemon.cli import mail_status

        daemon = mail_status(kw["config_path"]).get("daemon", "")
        if daemon.startswith("running"):  # its code is the old one: it must not go on with a new schema
            raise click.ClickException(f"the daemon is {daemon}: stop it first (systemctl stop judge); "
                                       "it migrates the store itself when started")
    try:
        store = Store(cfg.db_path)
    except SchemaMismatch as exc:  # newer than this program
        raise click.ClickException(str(exc)) from None
    try:
        if store.migrated_from is None:
            click.echo(f"{cfg.db_path}: schema {SCHEMA_VERSION}, nothing to do")
        else:
            click.echo(f"{cfg.db_path}: migrated from schema {store.migrated_from} to {SCHEMA_VERSION}; "
                       f"the store as it was is in {store.backup}")
    finally:
        store.close()


@click.command()
@click.option("--maildir", "maildir", type=click.Path(file_okay=False), default=None,
              help="Folder with inbox/ (read), processed/ and outbox/ (written) Maildirs.")
@click.option("--once", is_flag=True, help="Handle all waiting mail and due deadlines, then exit.")
@click.option("--poll", default=5.0, show_default=True, help="Seconds between looks at the inbox.")
@click.option("--sendmail", default=None, help="Send outgoing mail through this command instead of a Maildir.")
@click.option("--settle", default=30.0, show_default=True,
              help="With --sendmail alone (deadlines for pipe mode): " + SETTLE_HELP)
@click.option("--now", "now_text", default=None, metavar="WHEN",
              help="With --once: run as if the clock said WHEN (\"2026-12-01 20:00\" in the judge's zone, "
                   "\"2026-12-01 20:00+01:00\", \"+3d\"): deadlines due by then are processed, mail is dated then.")
@judge_options
def serve(maildir: str | None, once: bool, poll: float, sendmail: str | None, settle: float = 30.0,
          config_path: str | None = None, now_text: str | None = None, **kw: Any) -> None:
    """Run the judge on local Maildir folders (or just its deadlines, with --sendmail), or with
    --config alone as the IMAP/SMTP mail daemon."""
    from judge.mail import maildir as md
    from judge.mail.pipe import send_with

    if config_path:
        if maildir or sendmail or once or now_text:
            raise click.UsageError("--config runs the mail daemon; it does not mix with "
                                   "--maildir/--sendmail/--once/--now")
        from judge.daemon.cli import run_daemon

        run_daemon(config_path)
        return

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not maildir and not sendmail:
        raise click.UsageError("give --maildir DIR (or --sendmail CMD to run deadlines only)")
    default_db = str(Path(maildir) / "judge.sqlite") if maildir else "judge.sqlite"
    # the Maildir judge is self-contained: its folder and store are made on first run
    if now_text is not None and not once:
        raise click.UsageError("--now goes with --once: a judge left running would keep the clock stopped")
    with _open(default_db=default_db, create=bool(maildir), upgrade=True, **kw) as judge:
        if now_text is not None:
            stop_clock(judge, now_text)
        if maildir:
            folders = md.Folders(Path(maildir))
            if once:
                counts = md.run_once(judge, folders)
                if sendmail:
                    send_with(judge, sendmail)
                click.echo(json.dumps(counts))
                return
            md.serve(judge, folders, poll=poll)
        else:
            import time
            from datetime import timedelta
            # pipe mode: the mail is whatever the MTA has handed to `judge deliver`; a deadline
            # waits ``settle`` seconds for deliveries under way when it passed
            margin = timedelta(seconds=settle)
            while True:
                n = judge.run_due(until=judge.cfg.now() - margin)
                send_with(judge, sendmail)  # type: ignore[arg-type]
                if once:
                    click.echo(json.dumps({"events": n}))
                    return
                wake = judge.next_wakeup()
                delay = poll if wake is None else max(0.0, min(poll, (wake + margin - judge.cfg.now()).total_seconds()))
                time.sleep(delay)


def stop_clock(judge: Any, text: str) -> None:
    """``--now``: the judge's clock (``JudgeConfig.clock``, its only source of "now") says ``text``
    from here on. Read like a master's deadline, in the judge's zone; a time before the judge's last
    processed event is refused: the judge's clock never goes back."""
    from datetime import datetime

    from judge.game import deadlines
    from judge.game.store import from_iso

    cfg = judge.cfg
    try:
        when = deadlines.parse_when(text, cfg.now(), cfg.timezone)
    except ValueError as exc:
        raise click.BadParameter(f"{exc}; a time with its zone: 2026-12-01 20:00+01:00",
                                 param_hint="--now") from None
    last = judge.store.scalar("SELECT max(done_at) FROM events WHERE state != 'pending'")
    if last and from_iso(last) > when:
        raise click.BadParameter(f"{deadlines.format_time(when, cfg.timezone)} is before the judge's last "
                                 f"processed event ({deadlines.format_time(from_iso(last), cfg.timezone)}): "
                                 "its clock does not go back", param_hint="--now")
    fixed: datetime = when
    cfg.clock = lambda: fixed
    click.echo(f"judge: the clock says {deadlines.format_time(when, cfg.timezone)}", err=True)


@click.command()
@click.option("--outbox-maildir", type=click.Path(file_okay=False), default=None,
              help="Also write outgoing mail to this Maildir now.")
@click.option("--sendmail", default=None, help="Also send outgoing mail through this command now.")
@click.option("--settle", default=30.0, show_default=True, help=SETTLE_HELP)
@judge_options
def deliver(outbox_maildir: str | None, sendmail: str | None, settle: float = 30.0, **kw: Any) -> None:
    """Pipe mode: handle the one message on standard input (exit 75 to make the MTA retry)."""
    from judge.mail import maildir as md
    from judge.mail.pipe import EX_TEMPFAIL, deliver as deliver_one, send_with

    raw = sys.stdin.buffer.read()
    try:
        judge = _open(**kw)
    except MissingStore as exc:  # a wrong path or a judge not yet set up: the MTA keeps the mail
        click.echo(f"judge deliver: {exc.message}", err=True)
        sys.exit(EX_TEMPFAIL)
    except Exception as exc:  # cannot even open the store: let the MTA keep the message
        click.echo(f"judge deliver: {exc}", err=True)
        sys.exit(EX_TEMPFAIL)
    with judge:
        code, status = deliver_one(judge, raw)
        click.echo(status)
        if code == 0:
            from datetime import timedelta

            # the message is committed: trouble with the extras below must not make the MTA
            # retry (or bounce) it, so it is reported and the exit status stays 0. The message in
            # hand is handled before any deadline; one that passed less than ``settle`` seconds
            # ago also waits for deliveries running beside this one
            try:
                judge.run_due(until=judge.cfg.now() - timedelta(seconds=settle))
                if outbox_maildir:
                    md.write_outbox(judge, _single(outbox_maildir))
                if sendmail:
                    send_with(judge, sendmail)
            except Exception as exc:
                click.echo(f"judge deliver: message taken; deadlines/outgoing mail left for later: {exc}", err=True)
    sys.exit(code)


def _single(path: str) -> Any:
    """A Folders whose outbox is ``path`` itself."""
    from judge.mail.maildir import Folders

    class One(Folders):
        @property
        def outbox(self) -> Path:
            return Path(path)

    import mailbox
    mailbox.Maildir(path, create=True)
    return One(Path(path))


@click.command()
@judge_options
def status(config_path: str | None = None, **kw: Any) -> None:
    """Queue depths, games and the next deadlines, as JSON (with --config, also the mail daemon's
    view: pid alive or dead, last IMAP contact and error, held deadlines)."""
    if config_path:
        from judge.daemon.cli import status_with_mail

        click.echo(json.dumps(status_with_mail(config_path), indent=2))
        return
    with _open(readonly=True, **kw) as judge:
        click.echo(json.dumps(judge.status(), indent=2))


@click.group()
def game() -> None:
    """A game master's tools at the console."""


@game.command("create")
@click.argument("name")
@click.option("--password", required=True, help="The master's password.")
@click.option("--master", "master", required=True, help="The master's mail address.")
@click.option("--variant", default="standard", show_default=True)
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="press=grey, centres=10, move=48h, grace=24h, or a rule (repeatable).")
@judge_options
def game_create(name: str, password: str, master: str, variant: str, options: tuple[str, ...], **kw: Any) -> None:
    """Create a game (players join by mail with SIGNON ?NAME password)."""
    from judge.game.lifecycle import GameError

    with _open(**kw) as judge:
        try:
            g = judge.console().create(name, password, variant, list(options), master)
        except GameError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"created {g.name} ({g.variant_name})")


@game.command("list")
@judge_options
def game_list(**kw: Any) -> None:
    """The games, one a line."""
    with _open(readonly=True, **kw) as judge:
        for g in judge.console().games():
            click.echo(f"{g['name']:<20} {g['variant']:<12} {g['state']:<10} {g['phase'] or '-':<8} {g['deadline'] or ''}")


@game.command("show")
@click.argument("name")
@judge_options
def game_show(name: str, **kw: Any) -> None:
    """One game as JSON (who has ordered, never what)."""
    from judge.game.lifecycle import GameError

    with _open(readonly=True, **kw) as judge:
        try:
            click.echo(json.dumps(judge.console().show(name), indent=2))
        except GameError as exc:
            raise click.ClickException(str(exc)) from None


@game.command("process")
@click.argument("name")
@judge_options
def game_process(name: str, **kw: Any) -> None:
    """Process the current phase now (late powers' units hold); starts a forming game."""
    from judge.game.lifecycle import GameError

    with _open(**kw) as judge:
        try:
            click.echo(judge.console().process(name))
        except GameError as exc:
            raise click.ClickException(str(exc)) from None


@game.command("advance")
@click.argument("name")
@judge_options
def game_advance(name: str, **kw: Any) -> None:
    """Bring the open phase's deadline (or, in grace, the end of grace) to now, with what follows
    when it passes: late notices and grace, or the processing."""
    from judge.game.lifecycle import GameError

    with _open(**kw) as judge:
        try:
            click.echo(judge.console().advance(name))
        except GameError as exc:
            raise click.ClickException(str(exc)) from None


@game.command("rollback")
@click.argument("name")
@click.argument("phase", required=False)
@judge_options
def game_rollback(name: str, phase: str | None, **kw: Any) -> None:
    """Reopen a processed phase (default: the last one), e.g. judge game rollback tg S1901M."""
    from judge.game.lifecycle import GameError

    with _open(**kw) as judge:
        try:
            click.echo(judge.console().rollback(name, phase))
        except GameError as exc:
            raise click.ClickException(str(exc)) from None


@click.command()
@click.option("--out", "out", default="demo-out", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the mail folders, the database and the reports (emptied first).")
@click.option("--seed", default=1, show_default=True, help="Seed for the robot players.")
@click.option("--max-years", default=8, show_default=True, help="The robots agree a draw after this many years.")
@click.option("--quiet", is_flag=True, help="Print only the final line.")
@click.option("--variant", default="standard", show_default=True,
              help="The variant to play (a name from seeds/, e.g. 1885, deluge2, coast_running).")
def demo(out: str, seed: int, max_years: int, quiet: bool, variant: str) -> None:
    """Play a short game offline, by mail, with robot players; reports go to --out."""
    from judge.demo import run_demo
    from judge.variant import VariantError, load_variant

    if variant.lower() == "eia_afa":  # Empires in Arms: 24 months with robot teams
        from judge.demo.eia import run_eia_demo

        click.echo(run_eia_demo(Path(out), seed=seed, echo=None if quiet else click.echo))
        return
    try:
        load_variant(variant)
    except VariantError as exc:
        raise click.BadParameter(str(exc), param_hint="--variant") from None
    summary = run_demo(Path(out), seed=seed, max_years=max_years, echo=None if quiet else click.echo,
                       variant=variant)
    click.echo(summary)


def parse_age(text: str) -> Any:
    """``30d``, ``2w``, ``36h`` or a bare number of days, at least one day, as a timedelta."""
    from datetime import timedelta

    raw = text.strip().lower()
    unit = {"h": 1, "d": 24, "w": 24 * 7}.get(raw[-1:], None)
    number = raw[:-1] if unit else raw
    try:
        hours = float(number) * (unit or 24)
    except ValueError:
        raise click.BadParameter(f"{text!r}: write an age such as 30d, 2w or 36h", param_hint="--older-than") from None
    if not 24 <= hours < 24 * 1e5:
        raise click.BadParameter(f"{text!r}: at least one day (24h)", param_hint="--older-than")
    return timedelta(hours=hours)


@click.command("trim-outbox")
@click.option("--older-than", "older_than", default=None, metavar="AGE",
              help="Trim mail sent longer ago than this: 30d, 2w, 36h (default: [judge.options] "
                   "outbox_keep_days of --config, else 30 days).")
@click.option("--dry-run", is_flag=True, help="Count what would be freed; change nothing.")
@click.option("--chunk", default=200, show_default=True, type=click.IntRange(1, 10_000),
              help="Messages trimmed per transaction.")
@judge_options
def trim_outbox(older_than: str | None, dry_run: bool, chunk: int, **kw: Any) -> None:
    """Drop the bodies of mail sent long ago, keeping each outbox row and its header (recipients,
    Message-ID, subject, times, size): bounces are still recognised. Unsent, retrying and failed
    mail is never touched. Prints what it freed as JSON; the file shrinks after VACUUM."""
    from judge.game.outbox_trim import trim
    from judge.game.store import SchemaMismatch, Store

    cfg = _config(kw["db"], kw["address"], kw["judge_name"], kw["code"], kw["tz"], config_path=kw["config_path"])
    if older_than is not None:
        age = parse_age(older_than)
    elif cfg.outbox_keep_days:
        age = parse_age(f"{cfg.outbox_keep_days}d")
    else:
        raise click.UsageError("[judge.options] outbox_keep_days = 0 keeps sent mail whole: give --older-than")
    if not Path(cfg.db_path).is_file():
        raise MissingStore(str(cfg.db_path))
    try:
        store = Store(cfg.db_path, upgrade=False)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        now = cfg.now()
        done = trim(store, age, now, chunk=chunk, dry_run=dry_run)
    finally:
        store.close()
    from judge.game.store import iso

    click.echo(json.dumps({"db": str(cfg.db_path), "sent_before": iso(now - age), "dry_run": dry_run,
                           **done.as_dict()}))
