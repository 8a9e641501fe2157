"""The judge's batch loop timed in a process of its own, the in-process counterpart of
``judge adjudicate --batch``.

    python bench/judge_in_process.py CASES.jsonl     # prints the seconds a case

The cases are read into memory first; then ``write_batch`` (the command's own loop) runs over
them into a writer that drops each line, with the collector as the command sets it (off for the
imports and the first case, then what was built frozen out of its walks). Only that loop is
timed: the start-up and the reading of the file are not. A fresh process each time, so that
what the bench itself holds (its corpora, MILA's engine) does not share the heap being timed.
"""

from __future__ import annotations

import gc
import sys
import time


def main() -> None:
    gc.disable()  # as ``judge adjudicate --batch``: nothing the imports make is collected
    from judge.__main__ import _collected_after_first

    try:
        from judge.adjudicate import write_batch
    except ImportError:  # older trees: run_batch and the encoder the command used then
        import functools
        import json

        from judge.adjudicate import run_batch

        encode = functools.partial(json.dumps, ensure_ascii=False)

        def write_batch(lines, write) -> None:  # type: ignore[no-redef]
            for out in run_batch(lines):
                write(encode(out))

    with open(sys.argv[1], encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    t0 = time.perf_counter()
    write_batch(_collected_after_first(iter(lines)), len)
    took = time.perf_counter() - t0
    print(f"{took / max(len(lines), 1):.9f}")


if __name__ == "__main__":
    main()
