"""``judge publish``: the archive's command (:func:`judge.game.archive.publish`) with ``--config``,
so that a club's judge publishes from its daemon configuration as it serves from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from judge.game.archive import publish as write_pages
from judge.mail.cli import CONFIG_HELP, _config


@click.command("publish")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--config", "config_path", default=None, type=click.Path(dir_okay=False, exists=True),
              help=CONFIG_HELP + " The archive goes to archive_dir of its [judge.options] unless DIRECTORY is given.")
@click.option("--db", envvar="JUDGE_DB", default=None,
              help="The judge's SQLite file (default: db_path of --config, else ./judge.sqlite; env JUDGE_DB).")
@click.option("--code", envvar="JUDGE_CODE", default=None,
              help="Judge code shown in titles (default: code of --config, else JUDGE).")
@click.pass_context
def publish(ctx: click.Context, directory: str | None, config_path: str | None, db: str | None, code: str | None,
            **more: Any) -> None:
    """Write a static HTML archive of every game (reports and maps, turn by turn) into DIRECTORY."""
    cfg = _config(db, None, None, code, None, config_path=config_path)
    if directory is None:
        where = getattr(cfg, "archive_dir", None)
        if not where:
            raise click.UsageError("give the archive's DIRECTORY (or --config with archive_dir in its [judge.options])")
        # a relative archive_dir is taken from the configuration file's folder, like its db_path
        directory = str(Path(config_path).resolve().parent / where) if config_path else where  # type: ignore[arg-type]
    ctx.invoke(write_pages, directory=directory, db=str(cfg.db_path), code=cfg.code, **more)


# the archive command's further options, if it has any, are this command's too
publish.params += [p for p in write_pages.params if p.name not in {q.name for q in publish.params}]
