"""``judge publish --config FILE``: the archive from the daemon's configuration (its store, its
code, and archive_dir of its [judge.options]), through the real CLI, on the example configuration."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from judge.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), env={"JUDGE_DB": None, "JUDGE_CODE": None})
    return res.exit_code, res.output


def club_config(tmp_path: Path, archive_dir: str | None) -> Path:
    """deploy/judge.toml with a store beside it (and archive_dir, if given)."""
    text = (ROOT / "deploy" / "judge.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^db_path = .*$', 'db_path = "club.sqlite"', text)
    if archive_dir is not None:
        text = re.sub(r'(?m)^# archive_dir = .*$', f'archive_dir = "{archive_dir}"', text)
        assert f'archive_dir = "{archive_dir}"' in text
    path = tmp_path / "etc" / "judge.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    assert run("init", "--config", str(path))[0] == 0
    code, out = run("game", "create", "first", "--password", "masterpw", "--master", "gm@example.org",
                    "--config", str(path))
    assert code == 0, out
    return path


def test_publish_reads_the_store_the_code_and_the_folder_from_the_config(tmp_path: Path) -> None:
    config = club_config(tmp_path, "archive")  # relative: from the config's folder
    code, out = run("publish", "--config", str(config))
    assert code == 0, out
    index = tmp_path / "etc" / "archive" / "index.html"
    page = index.read_text(encoding="utf-8")
    assert "EXAMPLE" in page and "first" in page  # the config's code, the config's store
    assert (tmp_path / "etc" / "archive" / "first" / "index.html").is_file()


def test_a_directory_given_wins_and_without_one_publish_says_what_it_needs(tmp_path: Path) -> None:
    config = club_config(tmp_path, None)
    code, out = run("publish", "--config", str(config))
    assert code == 2 and "archive_dir" in out and "DIRECTORY" in out, out
    code, out = run("publish", str(tmp_path / "www"), "--config", str(config))
    assert code == 0, out
    assert "EXAMPLE" in (tmp_path / "www" / "index.html").read_text(encoding="utf-8")
    code, out = run("publish", str(tmp_path / "www2"), "--db", str(tmp_path / "nowhere.sqlite"))
    assert code != 0 and "nowhere.sqlite" in out, out
