"""kill -9 the mail daemon again and again while mail flows; show nothing is lost or doubled.

    python bench/killtest.py [--kills 60] [--mails 600] [--seed 1]

A private Dovecot holds the judge's mailbox; an aiosmtpd sink (on this process's loop) plays the
MTA: it delivers every reply into the player's Dovecot mailbox, and the daemon's receipt copy
into the judge's. Order mails are APPENDed in random bursts while the daemon (a child process)
is killed with SIGKILL at random moments 0.05-0.8 s apart and started again each time. At the
end the last daemon gets SIGTERM. Checked: every order applied exactly once, every order
answered, no reply delivered twice (by SMTP count and in the player's mailbox), exit code 0.
Exit status 0 when all holds, 1 otherwise. Needs Debian's dovecot-imapd and dovecot-lmtpd.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]

from mailservers import Dovecot, SmtpSink, dovecot_missing, kill_run  # noqa: E402


async def run(args: argparse.Namespace) -> int:
    reason = dovecot_missing()
    if reason:
        print(f"bench/killtest.py: {reason}", file=sys.stderr)
        return 2
    dovecot = Dovecot().start()
    work = Path(tempfile.mkdtemp(prefix="judge-killtest."))
    sink = await SmtpSink(deliver_to=dovecot).start()
    try:
        report, tokens = await kill_run(dovecot, sink, work, kills=args.kills, mails=args.mails, seed=args.seed,
                                        settle_timeout=120.0,
                                        progress=(lambda s: print(s, flush=True)) if args.verbose else (lambda s: None))
    finally:
        await sink.stop()
        dovecot.stop()
    problems = report.problems(tokens)
    print(f"{report.kills} kills, {report.starts} starts, {report.mails} order mails in {report.seconds:.1f} s; "
          f"applied once: {sum(1 for t in tokens if report.applied.get(t) == 1)}/{len(tokens)}; "
          f"answered: {sum(1 for t in tokens if report.replies_per_order.get(t))}/{len(tokens)}; "
          f"replies delivered twice: {report.duplicate_replies} (SMTP), {report.duplicate_in_mailbox} (mailbox); "
          f"sends interrupted inside DATA: {report.in_doubt_settled} settled by receipt, "
          f"{report.in_doubt_resent} sent again; final SIGTERM exit {report.exit_code}")
    if args.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print("OK" if not problems else "PROBLEMS:\n  " + "\n  ".join(problems))
    return 0 if not problems else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--mails", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the work folder (database, daemon log)")
    ap.add_argument("-v", "--verbose", action="store_true")
    sys.exit(asyncio.run(run(ap.parse_args())))


if __name__ == "__main__":
    main()
