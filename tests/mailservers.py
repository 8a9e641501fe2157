"""Real mail servers on loopback for the mail daemon's tests and benchmarks.

- ``Dovecot``: a private Dovecot (IMAP + LMTP) started by ``tests/servers/dovecot.sh``, users
  ``<name>@example.test`` with password ``secret``; helpers to append and read mail with imaplib.
- ``SmtpSink``: aiosmtpd on the caller's event loop; keeps every message, can go down and come
  back on the same port, refuse recipients, and deliver copies into Dovecot by LMTP (as an MTA would).
- ``StandInJudge``: a small SQLite service with the game service's interface, for transport tests
  that must count exactly what was applied (the end-to-end game uses the real ``judge.mail``).
- ``DaemonProcess``: the daemon as a child process (``python -m judge.daemon``) for kill -9 tests.
- pytest fixtures ``dovecot`` (per module) and ``smtp_sink`` (per test); import them into a test module.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import errno
import functools
import hashlib
import imaplib
import logging
import os
import re
import shutil
import signal
import smtplib
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.utils import getaddresses, make_msgid
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DOVECOT_BIN = "/usr/sbin/dovecot"
POWERS = ["austria", "england", "france", "germany", "italy", "russia", "turkey"]
USERS = ["judge", "master", "player", *POWERS]


def free_port(avoid: Iterable[int] = ()) -> int:
    """A loopback port free at this instant and not in ``avoid``. Another socket may still take it
    before the caller binds it: callers that choose ports this way retry on "Address already in use"."""
    avoid = set(avoid)
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in avoid:
            return port


def server_dir(prefix: str) -> str:
    # not pytest's tmp_path: its base directory is mode 0700 and Dovecot's unprivileged
    # processes could not reach the mail there
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    return d


def dovecot_missing() -> str | None:
    if not os.path.exists(DOVECOT_BIN):
        return "Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)"
    if not os.path.exists("/usr/lib/dovecot/lmtp"):
        return "Dovecot LMTP is not installed (apt-get install dovecot-lmtpd)"
    return None


# --- Dovecot ------------------------------------------------------------------------------------
class DovecotDidNotStart(RuntimeError):
    """The test server's start failed; the message carries Dovecot's own log."""


def make_cert(folder: str | Path) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1/localhost (cert.pem doubles as the CA file)."""
    cert, key = str(Path(folder, "cert.pem")), str(Path(folder, "key.pem"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    os.chmod(key, 0o644)  # read by Dovecot's unprivileged processes in this throw-away setup
    return cert, key


@dataclass
class Dovecot:
    dir: str = ""
    imap_port: int = 0
    lmtp_port: int = 0
    host: str = "127.0.0.1"
    users: list[str] = field(default_factory=lambda: list(USERS))
    #: (cert, key) PEM files: also serve IMAP with implicit TLS on imaps_port
    tls: tuple[str, str] | None = None
    imaps_port: int = 0
    #: advertise exactly these capabilities (Dovecot's ``imap_capability``), e.g. ``NO_MOVE``
    capabilities: str = ""

    def start(self, attempts: int = 5) -> "Dovecot":
        """Start the server. A port this method chose itself can be taken by another socket between
        the choice and Dovecot's bind (a client's connection, in a suite that makes thousands):
        Dovecot then stops with "Address already in use", and the start is tried again on new ports."""
        self.dir = self.dir or server_dir("judge-dovecot.")
        ours = [name for name in ("imap_port", "lmtp_port") + (("imaps_port",) if self.tls else ())
                if not getattr(self, name)]
        for attempt in range(1, attempts + 1):
            for name in ours:
                setattr(self, name, 0)
            for name in ours:
                setattr(self, name, free_port(avoid=(self.imap_port, self.lmtp_port, self.imaps_port)))
            env = dict(os.environ)
            if self.tls:
                env.update(IMAPS_PORT=str(self.imaps_port), SSL_CERT=self.tls[0], SSL_KEY=self.tls[1])
            if self.capabilities:
                env["IMAP_CAPABILITY"] = self.capabilities
            run = subprocess.run(["bash", str(HERE / "servers" / "dovecot.sh"), "start", self.dir, str(self.imap_port),
                                  str(self.lmtp_port), *self.users],
                                 stdin=subprocess.DEVNULL, env=env, capture_output=True, text=True)
            if run.returncode == 0:
                return self
            log = self.startup_log()
            taken = {int(port) for port in re.findall(r"listen\(127\.0\.0\.1, (\d+)\) failed: Address already in use", log)}
            if attempt < attempts and taken and taken <= {getattr(self, name) for name in ours}:
                for name in ("dovecot.log", "dovecot.stdio.log"):
                    Path(self.dir, name).unlink(missing_ok=True)
                continue
            raise DovecotDidNotStart(
                f"Dovecot did not start in {self.dir} (exit {run.returncode}, attempt {attempt} of {attempts}, "
                f"ports imap {self.imap_port}, lmtp {self.lmtp_port}, imaps {self.imaps_port}):\n"
                f"{run.stdout}{run.stderr}{log}")
        raise AssertionError("unreachable")

    def startup_log(self) -> str:
        """What Dovecot wrote while starting (its log and its stdio), for an error message."""
        return "".join(Path(self.dir, name).read_text(errors="replace")
                       for name in ("dovecot.stdio.log", "dovecot.log") if Path(self.dir, name).exists())

    def stop(self, remove: bool = True) -> None:
        """Stop the server; with ``remove`` (a throw-away instance) by SIGKILL, which saves the
        1-3 s a clean Dovecot shutdown sleeps, and delete its folder."""
        children = self.child_pids()  # before the master goes: then they are init's children
        if remove:
            try:
                os.kill(self.master_pid(), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        else:
            subprocess.run(["bash", str(HERE / "servers" / "dovecot.sh"), "stop", self.dir], check=False)
        for pid in children:  # open sessions outlive the master
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if remove:
            shutil.rmtree(self.dir, ignore_errors=True)

    def master_pid(self) -> int:
        return int(Path(self.dir, "master.pid").read_text().strip())

    def child_pids(self, name: str = "") -> list[int]:
        """Our Dovecot's processes (children of its master), optionally only ``dovecot/<name>``."""
        try:
            master = self.master_pid()
        except (OSError, ValueError):
            return []
        out = []
        for p in Path("/proc").iterdir():
            if not p.name.isdigit():
                continue
            try:
                stat = (p / "stat").read_text()
                cmd = (p / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            # titles look like "dovecot-<instance>/imap" (or "dovecot/imap" without instance_name)
            if ppid == master and (not name or cmd.rpartition("/")[2] == name):
                out.append(int(p.name))
        return out

    def kill_imap_sessions(self, sig: int = signal.SIGKILL) -> int:
        """Kill the imap processes: with SIGKILL the connection just drops; with SIGTERM Dovecot
        first says ``* BYE Server shutting down``."""
        pids = self.child_pids("imap")
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        return len(pids)

    def imap(self, user: str = "judge") -> imaplib.IMAP4:
        c = imaplib.IMAP4(self.host, self.imap_port, timeout=30)
        c.login(f"{user}@example.test", "secret")
        return c

    def append(self, raw: bytes | list[bytes], user: str = "judge", mailbox: str = "INBOX",
               flags: str | None = None) -> None:
        c = self.imap(user)
        try:
            for r in [raw] if isinstance(raw, bytes) else raw:
                typ, data = c.append(mailbox, flags, None, r)
                assert typ == "OK", data
        finally:
            c.logout()

    def messages(self, user: str = "judge", mailbox: str = "INBOX") -> list[tuple[int, bytes, bytes]]:
        """(uid, flags, raw) of every message in ``mailbox``."""
        c = self.imap(user)
        try:
            typ, _ = c.select(mailbox, readonly=True)
            if typ != "OK":
                return []
            typ, data = c.uid("SEARCH", None, "ALL")
            uids = data[0].split()
            out = []
            for u in uids:
                typ, d = c.uid("FETCH", u, "(FLAGS BODY.PEEK[])")
                out.append((int(u), d[0][0], d[0][1]))
            return out
        finally:
            c.logout()

    def clear(self, users: list[str] | None = None) -> None:
        """Empty every folder of these users (default: all), for a fresh start per test."""
        for user in users or self.users:
            c = self.imap(user)
            try:
                typ, data = c.list()
                names = [re.search(rb'"([^"]*)"$|(\S+)$', line) for line in data if line]
                for m in names:
                    box = (m.group(1) or m.group(2)).decode()
                    if box.upper() == "INBOX":
                        typ, n = c.select("INBOX")
                        if int(n[0]) == 0:
                            continue
                        c.store("1:*", "+FLAGS.SILENT", r"(\Deleted)")
                        c.expunge()
                        c.close()
                    else:
                        c.delete(f'"{box}"')
            finally:
                c.logout()

    def count(self, criterion: str = "ALL", user: str = "judge", mailbox: str = "INBOX") -> int:
        c = self.imap(user)
        try:
            typ, _ = c.select(mailbox, readonly=True)
            if typ != "OK":
                return 0
            typ, data = c.uid("SEARCH", None, criterion)
            return len(data[0].split())
        finally:
            c.logout()


def text_of(msg: EmailMessage) -> str:
    """The plain-text part of a message (reports may be multipart with an HTML alternative)."""
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


# --- the SMTP sink -------------------------------------------------------------------------------
@dataclass
class Received:
    mail_from: str
    rcpts: list[str]
    raw: bytes
    at: float

    @functools.cached_property
    def msg(self) -> EmailMessage:
        return email.message_from_bytes(self.raw, policy=policy.default)  # type: ignore[return-value]

    @property
    def message_id(self) -> str:
        return str(self.msg["Message-ID"] or "").strip()


class SmtpSink:
    """aiosmtpd on the running loop. ``deliver_to`` (a Dovecot) makes it an MTA for example.test."""

    def __init__(self, deliver_to: Dovecot | None = None, **smtp_options: Any) -> None:
        self.port = free_port()
        self.smtp_options = smtp_options  # e.g. tls_context, require_starttls, authenticator
        self.messages: list[Received] = []
        self.deliver_to = deliver_to
        self.refuse: Callable[[str], str | None] = lambda rcpt: None
        self.fail_data: list[str] = []  # answers for the next DATA commands, e.g. "451 try later"
        self.arrived = asyncio.Event()
        self._server: asyncio.AbstractServer | None = None
        self._started = False

    async def start(self) -> "SmtpSink":
        from aiosmtpd.smtp import SMTP

        loop = asyncio.get_running_loop()
        for attempt in range(5):
            try:
                self._server = await loop.create_server(
                    lambda: SMTP(self, hostname="sink.test", **self.smtp_options), "127.0.0.1", self.port,
                    reuse_address=True)
                break
            except OSError as exc:
                # the port free_port chose was taken before the bind: choose again, on the first start
                # only (a restart must come back on the port the judge is configured with)
                if exc.errno != errno.EADDRINUSE or self._started or attempt == 4:
                    raise
                self.port = free_port(avoid=(self.port,))
        self._started = True
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            # also end connections in progress: a server that went away
            if hasattr(self._server, "close_clients"):
                self._server.close_clients()
            await self._server.wait_closed()
            self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        answer = self.refuse(address)
        if answer:
            return answer
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.fail_data:
            return self.fail_data.pop(0)
        raw = envelope.original_content or envelope.content
        # Once the data is complete the message is ours, as for an MTA: aiosmtpd cancels this
        # hook if the client vanishes, so the delivery is shielded from that.
        await asyncio.shield(asyncio.ensure_future(self._deliver(envelope.mail_from, list(envelope.rcpt_tos), raw)))
        return "250 OK queued"

    async def _deliver(self, mail_from: str, rcpts: list[str], raw: bytes) -> None:
        if self.deliver_to is not None:
            users = {f"{u}@example.test" for u in self.deliver_to.users}
            local = [r for r in rcpts if r.lower().split("+")[0].split("@")[0] + "@example.test" in users
                     and r.lower().endswith("@example.test")]
            if local:
                await asyncio.to_thread(self._lmtp, mail_from, local, raw)
        self.messages.append(Received(mail_from, rcpts, raw, time.time()))
        self.arrived.set()

    def _lmtp(self, mail_from: str, rcpts: list[str], raw: bytes) -> None:
        assert self.deliver_to is not None
        with smtplib.LMTP(self.deliver_to.host, self.deliver_to.lmtp_port, timeout=30) as l:
            # one recipient per transaction: LMTP answers DATA once per recipient, and smtplib
            # reads only the first answer
            for r in rcpts:
                l.sendmail(mail_from or "<>", [r], raw)

    def to(self, address: str) -> list[Received]:
        return [m for m in self.messages if address in m.rcpts]

    async def wait_for(self, pred: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
        end = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what or pred}")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), 0.1)
            except asyncio.TimeoutError:
                pass


class ThreadedSink:
    """An SmtpSink on its own event loop in a thread, for synchronous tests (e.g. hypothesis)."""

    def __init__(self, deliver_to: Dovecot | None = None) -> None:
        import threading

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.sink: SmtpSink = asyncio.run_coroutine_threadsafe(self._make(deliver_to), self.loop).result(10)

    async def _make(self, deliver_to: Dovecot | None) -> SmtpSink:
        return await SmtpSink(deliver_to=deliver_to).start()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.sink.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


# --- a stand-in for the game service ----------------------------------------------------------------
_ORDER = re.compile(r"^\s*ORDER\s+(\S+)", re.I | re.M)
_DEADLINE = re.compile(r"^\s*DEADLINE\s+([\d.]+)\s+(\S+)", re.I | re.M)


@dataclass
class OutboxItem:
    id: int
    sender: str
    recipients: list[str]
    message: bytes
    attempts: int


class StandInJudge:
    """The service's interface over one SQLite file: each message one transaction, idempotent by
    Message-ID; ``ORDER <token>`` lines are recorded and acknowledged by mail; ``DEADLINE <secs>
    <token>`` sets a deadline whose report goes to the sender when it passes."""

    def __init__(self, cfg: Any) -> None:
        self.address = cfg.address
        self.loop_header = cfg.loop_header
        self.db = sqlite3.connect(cfg.db_path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript("""
            CREATE TABLE IF NOT EXISTS inbox (mid TEXT PRIMARY KEY, source TEXT, status TEXT, at REAL);
            CREATE TABLE IF NOT EXISTS orders (mid TEXT, token TEXT, at REAL);
            CREATE TABLE IF NOT EXISTS deadlines (id INTEGER PRIMARY KEY, due REAL, token TEXT, rcpt TEXT,
                                                  done REAL);
            CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, sender TEXT, rcpts TEXT,
                message BLOB, status TEXT DEFAULT 'pending', attempts INTEGER DEFAULT 0, error TEXT,
                queued REAL, sent REAL);
        """)

    def _reply(self, to: str, subject: str, body: str, in_reply_to: str = "") -> None:
        m = EmailMessage()
        m["From"] = f"Judge <{self.address}>"
        m["To"] = to
        m["Subject"] = subject
        m[self.loop_header] = self.address
        m["Auto-Submitted"] = "auto-replied"
        if in_reply_to:
            m["In-Reply-To"] = in_reply_to
        m.set_content(body)
        self.db.execute("INSERT INTO outbox(sender, rcpts, message, queued) VALUES (?,?,?,?)",
                        (self.address, to, m.as_bytes(policy=policy.SMTP), time.time()))

    def receive(self, raw: bytes, source: str = "") -> str:
        if b"RAISE-IN-SERVICE" in raw:  # a service bug, on demand
            raise RuntimeError("the service fell over")
        try:
            msg = email.message_from_bytes(raw, policy=policy.default)
            mid = str(msg.get("Message-ID") or "").strip() or "sha:" + hashlib.sha256(raw).hexdigest()
            senders = [a for _, a in getaddresses([str(v) for v in msg.get_all("From", [])])]
        except Exception:  # the service promises never to raise on bad mail
            msg, mid, senders = None, "sha:" + hashlib.sha256(raw).hexdigest(), []
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if self.db.execute("SELECT 1 FROM inbox WHERE mid=?", (mid,)).fetchone():
                self.db.execute("ROLLBACK")
                return "duplicate"
            status = self._act(msg, mid, senders)
            self.db.execute("INSERT INTO inbox VALUES (?,?,?,?)", (mid, source, status, time.time()))
            self.db.execute("COMMIT")
            return status
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _act(self, msg: Any, mid: str, senders: list[str]) -> str:
        if msg is None:
            return "ignored: unparseable"
        try:
            if str(msg.get("Auto-Submitted", "no")).strip().lower() != "no":
                return "ignored: auto-submitted"
            if msg.get(self.loop_header) is not None:
                return "ignored: our own loop header"
            if len(senders) != 1 or "@" not in senders[0] or senders[0].lower() == self.address.lower():
                return "ignored: no usable sender"
            if senders[0].split("@")[0].lower() in ("mailer-daemon", "postmaster"):
                return "ignored: bounce"
            body = msg.get_body(preferencelist=("plain",))
            try:
                text = body.get_content() if body is not None else ""
            except (LookupError, UnicodeError, AssertionError):
                text = (body.get_payload(decode=True) or b"").decode("utf-8", "replace")
            subject = str(msg.get("Subject", ""))
        except Exception as exc:
            return f"ignored: {type(exc).__name__}"
        tokens = _ORDER.findall(text)
        now = time.time()
        for t in tokens:
            self.db.execute("INSERT INTO orders VALUES (?,?,?)", (mid, t, now))
        for secs, token in _DEADLINE.findall(text):
            self.db.execute("INSERT INTO deadlines(due, token, rcpt) VALUES (?,?,?)", (now + float(secs), token,
                                                                                         senders[0]))
        self._reply(senders[0], f"Re: {subject[:60]}".replace("\n", " ").replace("\r", " "),
                    "Received: " + (" ".join(tokens) or "no orders") + "\n", mid)
        return "handled"

    def pending_outbox(self, limit: int = 50, now: float | None = None) -> list[OutboxItem]:
        rows = self.db.execute("SELECT id, sender, rcpts, message, attempts FROM outbox WHERE status='pending' "
                               "ORDER BY id LIMIT ?", (limit,)).fetchall()
        return [OutboxItem(i, s, r.split(","), bytes(m), a) for i, s, r, m, a in rows]

    def mark_sent(self, item_id: int) -> None:
        self.db.execute("UPDATE outbox SET status='sent', sent=? WHERE id=?", (time.time(), item_id))

    def settled(self, item_ids: list[int]) -> set[int]:
        marks = ",".join("?" for _ in item_ids)
        return {i for (i,) in self.db.execute(f"SELECT id FROM outbox WHERE status IN ('sent', 'failed') "
                                              f"AND id IN ({marks})", item_ids)}

    def mark_failed(self, item_id: int, error: str, permanent: bool) -> None:
        self.db.execute("UPDATE outbox SET attempts=attempts+1, error=?, status=? WHERE id=?",
                        (error, "failed" if permanent else "pending", item_id))

    def run_due(self, now: float | None = None, until: Any = None) -> int:
        now = time.time() if now is None else now
        limit = now if until is None else min(now, until.timestamp())
        self.db.execute("BEGIN IMMEDIATE")
        due = self.db.execute("SELECT id, token, rcpt, due FROM deadlines WHERE done IS NULL AND due <= ?",
                              (limit,)).fetchall()
        for i, token, rcpt, when in due:
            self._reply(rcpt, f"Deadline {token}", f"deadline {token} due {when!r}\n")
            self.db.execute("UPDATE deadlines SET done=? WHERE id=?", (now, i))
        self.db.execute("COMMIT")
        return len(due)

    def hold_notice(self, until: Any, title: str, text: str) -> int:
        rcpts = [r for (r,) in self.db.execute("SELECT DISTINCT rcpt FROM deadlines WHERE done IS NULL AND due <= ?",
                                               (until.timestamp(),))]
        for r in rcpts:
            self._reply(r, title, text + "\n")
        return len(rcpts)

    def next_wakeup(self) -> float | None:
        return self.db.execute("SELECT min(due) FROM deadlines WHERE done IS NULL").fetchone()[0]

    def status(self) -> dict[str, Any]:
        return {s: n for s, n in self.db.execute("SELECT status, count(*) FROM outbox GROUP BY status")}

    def close(self) -> None:
        self.db.close()


def order_mail(token: str, sender: str = "player@example.test", extra: str = "") -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "judge@example.test"
    m["Subject"] = f"orders {token}"
    m["Message-ID"] = make_msgid(idstring=token, domain="example.test")
    m.set_content(f"ORDER {token}\n{extra}")
    return m.as_bytes(policy=policy.SMTP)


# --- daemon configuration and processes --------------------------------------------------------------
def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(v)


def write_config(path: str | Path, cfg: dict[str, dict[str, Any]]) -> Path:
    lines = []
    for table, items in cfg.items():
        lines.append(f"[{table}]")
        sub = {k: v for k, v in items.items() if isinstance(v, dict)}
        lines += [f"{k} = {_toml_value(v)}" for k, v in items.items() if not isinstance(v, dict)]
        for name, inner in sub.items():
            lines.append(f"[{table}.{name}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in inner.items()]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)


def daemon_config(dovecot: Dovecot, sink: SmtpSink, workdir: str | Path, service: str = "mailservers:StandInJudge",
                  **overrides: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A config dict for the daemon against these servers; ``overrides`` update single tables."""
    cfg: dict[str, dict[str, Any]] = {
        "judge": {"address": "judge@example.test", "name": "Judge", "db_path": str(Path(workdir, "judge.sqlite")),
                  "service": service},
        "imap": {"host": "127.0.0.1", "port": dovecot.imap_port, "tls": "none", "user": "judge@example.test",
                 "password": "secret", "poll_interval": 2.0, "timeout": 5.0, "reconnect_min": 0.1,
                 "reconnect_max": 1.0},
        "smtp": {"host": "127.0.0.1", "port": sink.port, "tls": "none", "timeout": 5.0, "poll_interval": 2.0,
                 "retry_base": 0.2, "retry_max": 1.0, "reconnect_min": 0.1, "reconnect_max": 1.0},
        "log": {"level": "INFO", "format": "json"},
    }
    for table, values in overrides.items():
        cfg.setdefault(table, {}).update(values)
    return cfg


def parsed_config(cfg: dict[str, dict[str, Any]]) -> Any:
    from judge.daemon.config import parse_config

    return parse_config({k: dict(v) for k, v in cfg.items()})


class DaemonProcess:
    """``python -m judge.daemon`` as a child: what systemd would run, and what kill -9 hits."""

    def __init__(self, config_path: str | Path, log_path: str | Path) -> None:
        self.config_path, self.log_path = str(config_path), str(log_path)
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        from judge.daemon.config import load_config

        # the daemon wants its store to exist (``judge init``); the stand-in's is made on open
        Path(load_config(self.config_path, secrets=False).judge.db_path).touch()
        self._log_offset = Path(self.log_path).stat().st_size if Path(self.log_path).exists() else 0
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO), env.get("PYTHONPATH", "")])
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "judge.daemon", "--config", self.config_path],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, cwd=str(REPO))
        self.starts += 1

    def ready(self) -> bool:
        """The latest start has installed its signal handlers and begun work."""
        with open(self.log_path, "rb") as fh:
            fh.seek(self._log_offset)
            return b'"event": "daemon.started"' in fh.read()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def terminate(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)


@contextlib.asynccontextmanager
async def running_daemon(cfg: dict[str, dict[str, Any]]) -> AsyncIterator[Any]:
    """The daemon on the test's own loop (no signal handlers); stopped as SIGTERM would."""
    from judge.daemon.logs import setup_logging
    from judge.daemon.runner import Daemon

    saved = [(lg, lg.handlers[:], lg.level, lg.propagate) for lg in map(logging.getLogger, ("judge", "aioimaplib"))]
    setup_logging(cfg.get("log", {}).get("level", "INFO"), "text")  # pytest shows it on failure
    daemon = Daemon(parsed_config(cfg))
    task = asyncio.create_task(daemon.run(install_signals=False))
    started = asyncio.ensure_future(daemon.started.wait())
    await asyncio.wait({task, started}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # raises what made the start fail
    try:
        yield daemon
    finally:
        daemon.request_stop("test over")
        try:
            await asyncio.wait_for(task, 60)
        finally:
            for lg, handlers, level, propagate in saved:  # leave logging as other tests expect it
                lg.handlers[:], lg.level, lg.propagate = handlers, level, propagate


async def until(pred: Callable[[], bool], timeout: float = 20.0, what: str = "", step: float = 0.05) -> None:
    """Poll ``pred`` on the loop until it holds; fail with ``what`` after ``timeout``."""
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or pred}")
        await asyncio.sleep(step)


# --- pytest fixtures ------------------------------------------------------------------------------------
try:
    import pytest
    import pytest_asyncio
except ImportError:  # the benchmarks import this module without pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="module")
    def dovecot() -> Any:
        reason = dovecot_missing()
        if reason:
            pytest.skip(reason)
        d = Dovecot().start()
        yield d
        d.stop()

    @pytest.fixture
    def mail(dovecot: Dovecot) -> Dovecot:
        """The module's Dovecot with every mailbox emptied."""
        dovecot.clear()
        return dovecot

    @pytest_asyncio.fixture
    async def smtp_sink(dovecot: Dovecot) -> Any:
        s = await SmtpSink(deliver_to=dovecot).start()
        yield s
        await s.stop()

    @pytest.fixture
    def workdir() -> Any:
        d = tempfile.mkdtemp(prefix="judge-daemon.")
        yield Path(d)
        shutil.rmtree(d, ignore_errors=True)


# --- the kill -9 experiment (tests/test_mail_faults.py runs it small, bench/killtest.py large) -------------
@dataclass
class KillReport:
    kills: int
    mails: int
    starts: int
    seconds: float
    applied: dict[str, int]
    replies_per_order: dict[str, int]
    duplicate_replies: int
    duplicate_in_mailbox: int
    replies_in_mailbox: int
    in_doubt_settled: int
    in_doubt_resent: int
    exit_code: int

    def problems(self, tokens: list[str]) -> list[str]:
        out = []
        lost = [t for t in tokens if self.applied.get(t, 0) == 0]
        twice = [t for t, n in self.applied.items() if n > 1]
        unanswered = [t for t in tokens if self.replies_per_order.get(t, 0) == 0]
        if lost:
            out.append(f"orders lost: {lost[:10]} ({len(lost)})")
        if twice:
            out.append(f"orders applied twice: {twice[:10]}")
        if unanswered:
            out.append(f"orders without a reply: {unanswered[:10]} ({len(unanswered)})")
        if self.duplicate_replies or self.duplicate_in_mailbox:
            out.append(f"replies delivered more than once: {self.duplicate_replies} (SMTP), "
                       f"{self.duplicate_in_mailbox} (player's mailbox)")
        if self.replies_in_mailbox != len(tokens):
            out.append(f"{self.replies_in_mailbox} replies in the player's mailbox for {len(tokens)} orders")
        if self.exit_code != 0:
            out.append(f"final SIGTERM exit code {self.exit_code}")
        return out


def _log_count(path: Path, event: str) -> int:
    try:
        return Path(path).read_text(errors="replace").count(f'"event": "{event}"')
    except OSError:
        return 0


async def kill_run(dovecot: Dovecot, sink: SmtpSink, workdir: Path, kills: int, mails: int, seed: int = 1,
                   settle_timeout: float = 60.0, progress: Callable[[str], None] = lambda s: None) -> tuple[
                       KillReport, list[str]]:
    """Feed ``mails`` order mails while killing the daemon ``kills`` times with SIGKILL at random
    moments (each 0.05-0.8 s after its start), restart it each time, then let the last one finish."""
    import random

    rng = random.Random(seed)
    cfg = daemon_config(dovecot, sink, workdir, imap={"batch_size": 5},
                        smtp={"batch_size": 5, "receipt_to": "judge+receipts@example.test", "receipt_wait": 5.0})
    proc = DaemonProcess(write_config(workdir / "judge.toml", cfg), workdir / "daemon.log")
    tokens = [f"k{seed}x{i:05d}" for i in range(mails)]
    order_ids = {}
    raws = []
    for t in tokens:
        raw = order_mail(t)
        order_ids[email.message_from_bytes(raw, policy=policy.default)["Message-ID"].strip()] = t
        raws.append(raw)
    t0 = time.monotonic()
    proc.start()
    try:
        return await _kill_run(dovecot, sink, workdir, kills, rng, cfg, proc, tokens, order_ids, raws, t0,
                               settle_timeout, progress)
    finally:
        proc.kill9()  # a failed run must not leave a daemon behind


async def _kill_run(dovecot: Dovecot, sink: SmtpSink, workdir: Path, kills: int, rng: Any, cfg: dict[str, Any],
                    proc: DaemonProcess, tokens: list[str], order_ids: dict[str, str], raws: list[bytes], t0: float,
                    settle_timeout: float, progress: Callable[[str], None]) -> tuple[KillReport, list[str]]:
    def feed() -> None:
        i = 0
        while i < len(raws):
            n = rng.randint(1, 6)
            dovecot.append(raws[i:i + n])
            i += n
            time.sleep(rng.uniform(0.0, 0.05))

    feeder = asyncio.ensure_future(asyncio.to_thread(feed))
    for k in range(kills):
        await asyncio.sleep(rng.uniform(0.05, 0.8))
        proc.kill9()
        progress(f"kill {k + 1}/{kills}")
        proc.start()
        if feeder.done() and k < kills - 1 and rng.random() < 0.3:
            # keep mail flowing while the kills go on
            more = [order_mail(f"{tokens[0]}-extra{k}")]
            tokens.append(f"{tokens[0]}-extra{k}")
            order_ids[email.message_from_bytes(more[0], policy=policy.default)["Message-ID"].strip()] = tokens[-1]
            await asyncio.to_thread(dovecot.append, more)
    await feeder
    db_path = cfg["judge"]["db_path"]

    def settled() -> bool:
        try:
            with sqlite3.connect(db_path, timeout=5) as db:
                n = db.execute("SELECT count(DISTINCT token) FROM orders").fetchone()[0]
                pending = db.execute("SELECT count(*) FROM outbox WHERE status != 'sent'").fetchone()[0]
        except sqlite3.Error:
            return False
        return n >= len(tokens) and pending == 0 and dovecot.count("UNSEEN") == 0

    await until(settled, settle_timeout, "all orders applied and answered", step=0.2)
    log = workdir / "daemon.log"
    # SIGTERM before the handlers are installed would just kill it: wait for the last start
    await until(proc.ready, 30, "the last start")
    code = await asyncio.to_thread(proc.terminate)  # the sink may share this loop
    with sqlite3.connect(db_path) as db:
        applied: dict[str, int] = {}
        for (t,) in db.execute("SELECT token FROM orders"):
            applied[t] = applied.get(t, 0) + 1
    per_mid: dict[str, int] = {}
    replies: dict[str, int] = {}
    for m in sink.to("player@example.test"):
        per_mid[m.message_id] = per_mid.get(m.message_id, 0) + 1
        t = order_ids.get("".join(str(m.msg["In-Reply-To"] or "").split()))  # may come folded
        if t:
            replies[t] = replies.get(t, 0) + 1
    in_mailbox: dict[str, int] = {}
    for _, _, raw in await asyncio.to_thread(dovecot.messages, "player"):
        mid = "".join(str(email.message_from_bytes(raw, policy=policy.default)["Message-ID"] or "").split())
        in_mailbox[mid] = in_mailbox.get(mid, 0) + 1
    report = KillReport(kills=kills, mails=len(tokens), starts=proc.starts, seconds=time.monotonic() - t0,
                        applied=applied, replies_per_order=replies,
                        duplicate_replies=sum(n - 1 for n in per_mid.values()),
                        duplicate_in_mailbox=sum(n - 1 for n in in_mailbox.values()),
                        replies_in_mailbox=len(in_mailbox),
                        in_doubt_settled=_log_count(log, "smtp.settled_by_receipt"),
                        in_doubt_resent=_log_count(log, "smtp.resend_in_doubt"), exit_code=code)
    return report, tokens
