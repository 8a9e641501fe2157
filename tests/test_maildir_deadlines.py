"""The Maildir transport reads its inbox before it processes a deadline, and processes only the
deadlines that had passed when that read began (``judge serve --maildir``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from test_mail_deadlines import england_moved, make_game, order, spring_results


def test_a_deadline_passing_during_the_read_waits_for_the_next_read() -> None:
    from judge.mail import Judge, JudgeConfig
    from judge.mail import maildir as md

    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "judge.sqlite")
        deadline = float(int(time.time()) + 100)
        seats = make_game(db, deadline)
        folders = md.Folders(Path(d))
        folders.create()
        # the clock: the read begins a second before the deadline and ends after it
        times = iter([deadline - 1.0] + [deadline + 1.0] * 1000)
        clock = lambda: datetime.fromtimestamp(next(times), timezone.utc)  # noqa: E731
        with Judge(JudgeConfig(address="judge@example.test", db_path=db, code="TEST", password_cost=10,
                               clock=clock)) as j:
            import mailbox
            mailbox.Maildir(str(folders.inbox)).add(order(seats["England"], "E", "F Lon - Nth"))
            counts = md.run_once(j, folders)
            assert counts["handled"] == 1 and counts["events"] == 0, counts
            assert spring_results(db) is None
            mailbox.Maildir(str(folders.inbox)).add(order(seats["France"], "F", "A Par - Bur"))
            counts = md.run_once(j, folders)  # this read began after the deadline
            assert counts["handled"] == 1 and counts["events"] == 1, counts
        results = spring_results(db)
        assert england_moved(results)
        assert any(r["power"] == "France" and r["order"].startswith("A Par") and not r.get("default")
                   for r in results), results


def test_serve_once_counts_orders_waiting_in_the_inbox_at_a_past_deadline() -> None:
    """``judge serve --maildir DIR --once`` started after the deadline (the judge was down):
    the order in the inbox counts."""
    import mailbox

    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "judge.sqlite")
        deadline = float(int(time.time()) + 2)
        seats = make_game(db, deadline)
        mailbox.Maildir(os.path.join(d, "inbox"), create=True).add(order(seats["England"], "E", "F Lon - Nth"))
        time.sleep(max(0.0, deadline + 0.5 - time.time()))
        proc = subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--maildir", d, "--once", "--code", "TEST"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        counts = json.loads(proc.stdout.strip().splitlines()[-1])
        assert counts["handled"] == 1 and counts["events"] == 1, counts
        assert england_moved(spring_results(db))


def test_deliver_waits_settle_seconds_after_a_deadline() -> None:
    """Pipe mode: mail the MTA was delivering when the deadline passed is handled first. A
    delivery just after the deadline does not process it (another delivery may be under way);
    one after the settle time does, and both orders count."""
    from judge.demo.robots import make_mail

    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "judge.sqlite")
        deadline = float(int(time.time()) + 2)
        seats = make_game(db, deadline)
        time.sleep(max(0.0, deadline + 0.3 - time.time()))

        def deliver(raw: bytes, *extra: str) -> str:
            proc = subprocess.run([sys.executable, "-m", "judge.cli", "deliver", "--db", db, "--code", "TEST", *extra],
                                  input=raw, capture_output=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
            return proc.stdout.decode().strip()

        # a delivery that was under way at the deadline (the default settle: 30 s)
        assert deliver(order(seats["England"], "E", "F Lon - Nth")) == "handled"
        assert spring_results(db) is None
        # a delivery more than --settle seconds after the deadline: processed after its message
        assert deliver(order(seats["France"], "F", "A Par - Bur"), "--settle", "0.2") == "handled"
        results = spring_results(db)
        assert results is not None and england_moved(results)
        assert any(r["power"] == "France" and r["order"].startswith("A Par") and not r.get("default")
                   for r in results), results
        assert deliver(make_mail("x@example.test", "judge@example.test", "LIST", "list")) == "handled"
