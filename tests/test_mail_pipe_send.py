"""Pipe mode's outgoing side: ``send_with`` hands each queued mail to a sendmail-like command.

The command here is a real program (a small Python script standing in for sendmail) that
records its arguments and the message, and exits as told; the store is a real SQLite file.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from judge.mail.pipe import EX_OK, EX_TEMPFAIL, deliver, send_with
from test_service_helpers import Table

FAKE = """#!{python}
import json, os, sys
from pathlib import Path
out = Path({log!r})
with out.open("a", encoding="utf-8") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "message": sys.stdin.buffer.read().decode("utf-8", "replace")}}) + "\\n")
sys.exit(int(Path({code!r}).read_text()))
"""


def fake_sendmail(tmp: Path, exit_code: int = 0) -> tuple[str, Path, Path]:
    log, code = tmp / "calls.jsonl", tmp / "exit_code"
    code.write_text(str(exit_code))
    script = tmp / "fake-sendmail"
    script.write_text(FAKE.format(python=sys.executable, log=str(log), code=str(code)), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"{script} -oi -f judge@example.test", log, code


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def test_a_hostile_address_stays_a_recipient_after_the_end_of_options(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        assert deliver(table.judge, table.raw("-X/tmp/judge-log@evil.test", "HELP"))[0] == EX_OK
        command, log, _ = fake_sendmail(tmp_path)
        sent, failed = send_with(table.judge, command, now=table.now)
        assert (sent, failed) == (1, 0)
        [call] = calls(log)
        # the command's own options, the end of options, then the recipient: never an option
        assert call["argv"] == ["-oi", "-f", "judge@example.test", "--", "-x/tmp/judge-log@evil.test"]
        assert "HELP" in call["message"] or "help" in call["message"].lower()
        assert send_with(table.judge, command, now=table.now) == (0, 0)  # sent once, not again
    finally:
        table.close()


def test_a_temporary_failure_is_tried_again_and_a_permanent_one_is_not(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        assert deliver(table.judge, table.raw("player@example.test", "HELP"))[0] == EX_OK
        command, log, code = fake_sendmail(tmp_path, EX_TEMPFAIL)
        assert send_with(table.judge, command, now=table.now) == (0, 1)
        table.now = table.now.replace(hour=table.now.hour + 2)  # past the retry back-off
        code.write_text("0")
        assert send_with(table.judge, command, now=table.now) == (1, 0)
        assert len(calls(log)) == 2

        assert deliver(table.judge, table.raw("other@example.test", "HELP"))[0] == EX_OK
        code.write_text("67")  # EX_NOUSER: permanent
        assert send_with(table.judge, command, now=table.now) == (0, 1)
        table.now = table.now.replace(hour=table.now.hour + 2)
        assert send_with(table.judge, command, now=table.now) == (0, 0)  # given up, not retried
        assert [c["argv"][-1] for c in calls(log)] == ["player@example.test"] * 2 + ["other@example.test"]
    finally:
        table.close()
