"""The outbox bench/receive.py's workload leaves, normalised, to check a change to the mail path
reads and answers every mail as before:

    python bench/receive_outbox.py [--mails 600] [--shapes both] > before.txt
    (change)  python bench/receive_outbox.py > after.txt && diff before.txt after.txt

Message-IDs, dates and MIME boundaries (random or clock-made) are replaced by placeholders; every
other byte of every message the workload queues is printed, with each mail's status.
``--corpus DIR`` prints instead how each ``*.eml`` file in DIR is read (``parse_message``'s
result, field by field): for hostile and odd mails kept from the tests.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT), str(ROOT / "bench")]

_MSG_ID = re.compile(rb"<[^<>\s]+@[^<>\s]+>")
_DATE = re.compile(rb"^Date: .*$", re.M)
_BOUNDARY = re.compile(rb"=_[0-9a-f]{32}")


def normalised(message: bytes) -> bytes:
    ids: dict[bytes, bytes] = {}  # each id its own placeholder, so threading is still compared
    message = _MSG_ID.sub(lambda m: ids.setdefault(m.group(), b"<id%d>" % len(ids)), message)
    message = _BOUNDARY.sub(b"=_BOUNDARY", message)
    return _DATE.sub(b"Date: DATE", message)


def outbox(mails: int, shapes: str) -> None:
    from receive import order_mails
    from test_service_helpers import Table

    with tempfile.TemporaryDirectory() as d:
        t = Table(Path(d))
        t.start_game()
        raws = order_mails(t, mails, shapes)
        first = t.judge.store.one("SELECT coalesce(max(id), 0) AS n FROM outbox")["n"]
        now = t.now + timedelta(minutes=1)
        for i in range(0, len(raws), 20):
            chunk = [(r, f"bench:{i + j}") for j, r in enumerate(raws[i:i + 20])]
            for status in t.judge.receive_many(chunk, now=now):
                sys.stdout.write(f"status {status}\n")
        for row in t.judge.store.all("SELECT recipients, kind, message FROM outbox WHERE id > ? ORDER BY id",
                                     (first,)):
            sys.stdout.write(f"=== {row['recipients']} {row['kind']}\n")
            sys.stdout.buffer.write(normalised(bytes(row["message"])) + b"\n")
            sys.stdout.flush()
        t.close()


def corpus(folder: Path) -> None:
    from judge.mail.incoming import parse_message

    for f in sorted(folder.glob("*.eml")):
        addr = f.with_suffix(".addr")
        ours, loop = addr.read_text().split("\n") if addr.exists() else ("judge@example.test", "X-Judge-Loop")
        mail = parse_message(f.read_bytes(), ours, loop)
        print(f"=== {f.name}")
        for k, v in dataclasses.asdict(mail).items():
            print(f"{k}: {v!r}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mails", type=int, default=600)
    ap.add_argument("--shapes", choices=("robot", "clients", "both"), default="both")
    ap.add_argument("--corpus", type=Path, help="a folder of .eml files: print how each is read instead")
    args = ap.parse_args()
    if args.corpus:
        corpus(args.corpus)
    else:
        outbox(args.mails, args.shapes)


if __name__ == "__main__":
    main()
