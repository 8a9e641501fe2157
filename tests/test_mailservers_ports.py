"""The test servers' own start: a port chosen free can be taken by another socket before the server
binds it (the suite makes thousands of loopback connections, each on an ephemeral port). Such a
start is tried again on new ports, instead of failing a test module at random; a port the caller
asked for is never swapped, and a start that fails says why, with Dovecot's log."""

from __future__ import annotations

import asyncio
import socket
from typing import Any, Iterator

import pytest

import mailservers
from mailservers import Dovecot, DovecotDidNotStart, SmtpSink, dovecot_missing

pytestmark = pytest.mark.mail


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port with a listening socket on it, as another server would hold it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def first_then_free(monkeypatch: pytest.MonkeyPatch, port: int) -> list[int]:
    """Make the harness's first choice of a port ``port``; later choices are really free."""
    handed: list[int] = []
    real = mailservers.free_port

    def choose(avoid: Any = ()) -> int:
        handed.append(port if not handed else real(avoid))
        return handed[-1]

    monkeypatch.setattr(mailservers, "free_port", choose)
    return handed


def test_free_port_avoids_the_ports_it_is_given() -> None:
    chosen: set[int] = set()
    for _ in range(50):
        port = mailservers.free_port(avoid=chosen)
        assert port not in chosen
        chosen.add(port)


def test_dovecot_starts_again_on_new_ports_when_a_chosen_one_was_taken(
        monkeypatch: pytest.MonkeyPatch, busy_port: int) -> None:
    if dovecot_missing():
        pytest.skip(dovecot_missing())
    handed = first_then_free(monkeypatch, busy_port)
    d = Dovecot().start()
    try:
        assert handed[0] == busy_port and d.imap_port != busy_port
        assert len({d.imap_port, d.lmtp_port}) == 2
        c = d.imap()
        try:
            assert c.select("INBOX")[0] == "OK"
        finally:
            c.logout()
    finally:
        d.stop()


def test_dovecot_on_a_port_the_caller_chose_fails_with_its_log(busy_port: int) -> None:
    if dovecot_missing():
        pytest.skip(dovecot_missing())
    d = Dovecot(imap_port=busy_port)
    with pytest.raises(DovecotDidNotStart) as failed:
        d.start()
    try:
        assert d.imap_port == busy_port  # never swapped: the caller's configuration names it
        assert f"listen(127.0.0.1, {busy_port}) failed: Address already in use" in str(failed.value)
        assert "attempt 1 of 5" in str(failed.value)
    finally:
        d.stop()


def test_smtp_sink_binds_a_new_port_on_its_first_start_only(
        monkeypatch: pytest.MonkeyPatch, busy_port: int) -> None:
    async def run() -> None:
        handed = first_then_free(monkeypatch, busy_port)
        sink = SmtpSink()
        assert sink.port == busy_port
        await sink.start()
        try:
            assert handed[0] == busy_port and sink.port != busy_port
            reader, writer = await asyncio.open_connection("127.0.0.1", sink.port)
            assert (await reader.readline()).startswith(b"220")
            writer.close()
        finally:
            await sink.stop()

        # a restart comes back on its own port, or fails: the judge under test is configured with it
        sink.port = busy_port
        with pytest.raises(OSError):
            await sink.start()

    asyncio.run(run())
