"""The README's "Try it on this machine" block and the master's guide's worked example of ``--now``
work on a fresh machine, as written: each is taken from its file and run by a shell in an empty
folder, ``judge`` being this checkout's."""

from __future__ import annotations

import email
import email.policy
import email.utils
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def club_block() -> str:
    """The one ``sh`` block of the README's "Running a club's judge" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Running a club's judge\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 1, blocks
    return blocks[0]


def test_the_readme_starts_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[2:6] == ["```", "python -m pip install -e . && judge demo",
                          "python -m pip install -q -e '.[test]' && python -m pytest -q", "```"]


def run_shell(script: str, tmp_path: Path) -> tuple[Path, str]:
    """Run ``script`` with bash (-e: every command must succeed) in a new folder; returns the
    folder and what it printed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "judge"  # the `judge` of this interpreter and checkout, whatever else is installed
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m judge.cli "$@"\n')
    shim.chmod(0o755)
    work = tmp_path / "fresh"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return work, proc.stdout


def subjects(folder: Path) -> list[str]:
    return [str(email.message_from_bytes(p.read_bytes(), policy=email.policy.default)["Subject"])
            for p in sorted(folder.iterdir())]


def test_the_club_tryout_runs_as_written(tmp_path: Path) -> None:
    work, stdout = run_shell(club_block(), tmp_path)
    club = work / "club"
    mails = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
             for p in sorted((club / "outbox" / "new").iterdir())]
    subjects = [str(m["Subject"]) for m in mails]
    starting = [m for m in mails if str(m["Subject"]) == "CLUB:first - S1901M Game Starting"]
    assert len({str(m["To"]) for m in starting}) >= 7, subjects
    results = [m for m in mails if str(m["Subject"]) == "CLUB:first - S1901M Results"]
    assert len(results) >= 8, subjects  # seven players and the master
    text = results[0].get_body(("plain",)).get_content()
    assert "Lon" in text and "North Sea" in text, text  # England's order, adjudicated
    # the results are dated by --now +3d, not by the real clock
    assert (email.utils.parsedate_to_datetime(str(results[0]["Date"]))
            > email.utils.parsedate_to_datetime(str(mails[0]["Date"])))
    assert (club / "archive" / "index.html").is_file()
    # the last command lists the results mails
    assert stdout.strip().splitlines()[-1].startswith("club/outbox/new/")
    assert sum(1 for line in stdout.splitlines() if line.startswith("club/outbox/new/")) == len(results)


def test_the_masters_worked_example_of_now_runs_as_written(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "masters.md").read_text(encoding="utf-8")
    section = text.split("\n## Trying a game without waiting days\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 2, blocks
    work, stdout = run_shell("\n".join(blocks), tmp_path)  # one shell session, as a master types them
    counts = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    # the start; then reminders at +47h, late notices at +49h, results at +73h
    assert [c["events"] for c in counts] == [0, 1, 1, 1], stdout
    assert counts[0]["handled"] == 7 and counts[1]["handled"] == 1, stdout
    sent = subjects(work / "try" / "outbox" / "new")
    assert sent.count("TRY:first - S1901M Game Starting") == 8, sent
    assert sent.count("TRY:first - S1901M Reminder") == 6, sent
    assert sum(1 for s in sent if "Late Notice" in s) >= 6, sent
    assert sent.count("TRY:first - S1901M Results") == 8, sent
    assert re.search(r"^first +standard +active +F1901M ", stdout, re.M), stdout
