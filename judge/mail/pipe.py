"""Pipe mode: the MTA hands one message to ``judge deliver`` on standard input (procmail, .forward).

Exit status follows sendmail's conventions: 0 when the message was handled, recognised as a
duplicate, deliberately ignored, or failed (a bug met while handling it: the message is recorded
in the store with its raw bytes, so the MTA must not retry it forever); 75 (EX_TEMPFAIL) only
when the store could not take it, so the MTA keeps it and tries again. Outgoing mail stays queued in the store unless an outbox Maildir
or a sendmail command is given.
"""

from __future__ import annotations

import logging
import shlex
import subprocess
from datetime import datetime

from judge.game.addresses import ascii_address
from judge.mail.receive import TRANSIENT, Judge

log = logging.getLogger(__name__)

EX_OK = 0
EX_TEMPFAIL = 75


def deliver(judge: Judge, raw: bytes, source: str = "pipe") -> tuple[int, str]:
    try:
        try:
            status = judge.receive(raw, source=source)
        except TRANSIENT:
            raise
        except Exception as exc:  # receive() promises not to; a poison mail must not bounce back and forth
            log.exception("deliver: receive() raised; recording the message as failed")
            judge.record_failure(raw, source, exc)
            status = f"failed: {type(exc).__name__}"
    except TRANSIENT as exc:
        log.error("deliver: store unavailable: %s", exc)
        return EX_TEMPFAIL, f"temporary failure: {exc}"
    return EX_OK, status


def send_with(judge: Judge, command: str, now: datetime | None = None, timeout: float = 60.0) -> tuple[int, int]:
    """Pipe each pending message to a sendmail-like ``command``, with ``--`` and the recipients
    appended (sendmail, Postfix, Exim, msmtp and OpenSMTPD all end their options at ``--``).

    Exit status 0 is sent; 75 (EX_TEMPFAIL) and signals are temporary; anything else permanent.
    Returns (sent, failed).
    """
    sent = failed = 0
    argv = shlex.split(command)
    for item in judge.pending_outbox(limit=1000, now=now):
        try:
            # an internationalized domain as xn--: only a non-ASCII local part needs the MTA's SMTPUTF8
            rcpts = [ascii_address(r) or r for r in item.recipients]
            # "--" ends the command's options: a player's address may begin with "-" (RFC 5322
            # allows it), and "-X/path@host" must stay a recipient, never become sendmail's -X
            proc = subprocess.run([*argv, "--", *rcpts], input=item.message.replace(b"\r\n", b"\n"),
                                  capture_output=True, timeout=timeout)
            code, err = proc.returncode, proc.stderr.decode("utf-8", "replace").strip()
        except (OSError, subprocess.TimeoutExpired) as exc:
            code, err = EX_TEMPFAIL, str(exc)
        if code == 0:
            judge.mark_sent(item.id, now=now)
            sent += 1
        else:
            judge.mark_failed(item.id, f"{command}: exit {code}: {err}"[:1000], permanent=code not in (EX_TEMPFAIL,)
                              and code > 0, now=now)
            failed += 1
    return sent, failed
