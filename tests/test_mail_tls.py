"""The production paths: IMAP over implicit TLS (aioimaplib's IMAP4 with an SSL context, since
IMAP4_SSL has no lost-connection callback) and SMTP with STARTTLS and AUTH, against Dovecot and
aiosmtpd with a self-signed certificate trusted through ``ca_file``."""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path
from typing import Any

import pytest

from mailservers import (Dovecot, SmtpSink, daemon_config, dovecot_missing, order_mail, running_daemon,  # noqa: F401
                         server_dir, until, workdir, make_cert)

pytestmark = pytest.mark.mail


@pytest.fixture(scope="module")
def tls_dovecot() -> Any:
    if dovecot_missing():
        pytest.skip(dovecot_missing())
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed (needed for a test certificate)")
    certs = server_dir("judge-certs.")
    d = Dovecot(tls=make_cert(certs)).start()
    yield d
    d.stop()
    shutil.rmtree(certs, ignore_errors=True)


async def test_imap_tls_and_smtp_starttls_auth(tls_dovecot: Dovecot, workdir: Path) -> None:
    from aiosmtpd.smtp import AuthResult, LoginPassword

    cert, key = tls_dovecot.tls
    logins: list[bytes] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"judge", b"s3cret")
        logins.append(data.login if ok else b"refused")
        return AuthResult(success=ok)

    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    sink = await SmtpSink(deliver_to=tls_dovecot, tls_context=ctx, require_starttls=True,
                          authenticator=authenticator, auth_required=True).start()
    try:
        cfg = daemon_config(tls_dovecot, sink, workdir,
                            imap={"port": tls_dovecot.imaps_port, "tls": "tls", "ca_file": cert},
                            smtp={"tls": "starttls", "ca_file": cert, "user": "judge", "password": "s3cret"})
        tls_dovecot.append(order_mail("secure"))
        async with running_daemon(cfg) as d:
            await sink.wait_for(lambda: len(sink.messages) == 1, what="a reply over STARTTLS")
            assert d.imap.stats.handled == 1
        assert logins == [b"judge"]
    finally:
        await sink.stop()


async def test_untrusted_certificate_is_refused_and_retried(tls_dovecot: Dovecot, workdir: Path) -> None:
    sink = await SmtpSink().start()
    try:
        cfg = daemon_config(tls_dovecot, sink, workdir, imap={"port": tls_dovecot.imaps_port, "tls": "tls"})
        async with running_daemon(cfg) as d:
            await until(lambda: d.imap.stats.sessions >= 2, what="refused, then tried again")
            assert not d.imap.connected.is_set()
    finally:
        await sink.stop()
