"""The ``judge`` command's entry point (``judge``, ``python -m judge``, ``python -m judge.cli``).

``judge adjudicate --batch FILE`` is run here without loading click and the other commands: a
batch caller starts one process per batch, and click alone was a fifth of its start-up. Every
other command line, including ``--batch -`` (stdin), a path that is no regular file (click's
messages for those) and ``--batch`` with other options, goes to the click group in
:mod:`judge.cli` unchanged. ``tests/test_cli_adjudicate.py`` holds the two ways to the same output.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Iterator


def main() -> Any:
    path = _batch_file(sys.argv[1:])
    if path is None:
        from judge.cli import main as command

        return command()
    return _batch(path)


def _batch_file(args: list[str]) -> str | None:
    """The file of ``adjudicate --batch FILE`` (or ``--batch=FILE``) when that is the whole command
    line and FILE a regular file; else None: click reads the command line."""
    if len(args) == 3 and args[:2] == ["adjudicate", "--batch"]:
        path = args[2]
    elif len(args) == 2 and args[0] == "adjudicate" and args[1].startswith("--batch="):
        path = args[1][len("--batch="):]
    else:
        return None
    if path == "-" or not os.path.isfile(path):
        return None
    if any(k[:1] == "_" and k.endswith("_COMPLETE") for k in os.environ):
        return None  # a shell asks click to complete the command line
    return path


def _batch(path: str) -> int:
    """``judge adjudicate --batch FILE``, ending as click ends a command: 0, or 1 with "Aborted!"
    when interrupted, or 1 without a word when the reader of the output has gone (a closed pipe)."""
    import gc

    gc.disable()  # the imports make objects that live as long as the process: nothing to collect there
    from judge.adjudicate import write_batch

    try:
        with open(path, encoding="utf-8") as fh:
            write_batch(_collected_after_first(fh), sys.stdout.write)
        # what is left (the memos the run grew, no cycles of its own) only waits for the exit:
        # frozen, the interpreter's collections as it shuts down do not walk it
        gc.freeze()
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        print("Aborted!", file=sys.stderr)
        return 1
    except OSError as exc:
        import errno

        if exc.errno != errno.EPIPE:
            raise
        # nothing more can be written there: the interpreter's last flush must not fail loudly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0


def _collected_after_first(lines: Iterator[str]) -> Iterator[str]:
    """``lines``, the garbage collector off until the first case is written (it is when the second
    line is asked for).

    A batch makes many short-lived objects and few cycles: what the imports and the first case
    built (the variant, its map, the memos of names and order texts: they live as long as the
    run) is frozen so that no collection walks it again, and the young generation is collected
    every 10,000 net allocations instead of 700. Loading a variant alone makes more than that,
    and a collection in the middle of it walked all it had made so far (a sixtieth of 400
    phases). Cycles are still collected after, so memory stays bounded (to about that many
    objects beyond the live ones)."""
    import gc

    for line in lines:
        yield line
        break
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    gc.enable()
    yield from lines


#: the batch's collector after its first case: the young generation every 10,000 net allocations
GC_THRESHOLD = (10_000, 10, 10)


if __name__ == "__main__":
    sys.exit(main())
