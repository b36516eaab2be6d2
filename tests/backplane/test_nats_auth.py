"""NATS's own credentials and TLS, from their own options (issue 40, docs/deploying.md).

A real ``nats-server`` started with TLS and client certificates required
(mutual TLS; the CA and certificates are made here with ``cryptography``'s
x509 builder), one that knows its users by nkey, and one in operator mode
whose users bring a creds file (the JWTs signed here with ``nkeys``, as
``nsc`` would). Replicas join with ``--backplane-tls-ca/-cert/-key``,
``--backplane-nkey`` and ``--backplane-creds``; a routed call
crossing between them shows they did. A client without a certificate, or
with a CA that did not sign the server's, does not get in.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import json
import os
import ssl
import time
from pathlib import Path
from typing import Any

import httpx2
import nats
import nkeys
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from mcp_actions.backplane.seal import Seal
from tests.backplane.attacker import Sniffer
from tests.backplane.cluster import HTTP_TOKEN, SECRET, NatsServer, Replica, mcp_client, shop_map
from tests.backplane.test_replicas import _listed_is, open_runtime, resource, until

pytestmark = pytest.mark.slow


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(root: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> tuple[Path, Path]:
    cert_path, key_path = root / f"{stem}.pem", root / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return cert_path, key_path


def make_pki(root: Path, prefix: str = "") -> dict[str, Path]:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, signed by it (PEM files under ``root``)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{prefix}test CA"))
        .issuer_name(_name(f"{prefix}test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    files = {"ca": root / f"{prefix}ca.pem"}
    files["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    for who, usage in (("server", ExtendedKeyUsageOID.SERVER_AUTH), ("client", ExtendedKeyUsageOID.CLIENT_AUTH)):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(f"{prefix}{who}"))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        )
        if who == "server":
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        files[who], files[f"{who}_key"] = _write(root, f"{prefix}{who}", builder.sign(ca_key, hashes.SHA256()), key)
    return files


async def _routed_call_works(a: Replica, b: Replica) -> None:
    runtime = await open_runtime(a.bridge_url, "rt-tls")
    try:
        async with mcp_client(b.mcp_url, keepalive=True) as on_b:
            await until(lambda: _listed_is(on_b, {"rt-tls"}), timeout=15)
            result = await on_b.call_tool("shop_ping", {"n": 7, "target_runtime_id": "rt-tls"})
            assert not result.is_error and result.structured_content == {"runtime": "rt-tls", "n": 7, "handler": "shop.ping"}
    finally:
        await runtime.close()


async def test_replicas_join_a_nats_that_requires_mutual_tls(tmp_path: Path) -> None:
    pki = make_pki(tmp_path)
    tls = ("--tls", "--tlscert", str(pki["server"]), "--tlskey", str(pki["server_key"]), "--tlscacert", str(pki["ca"]), "--tlsverify")
    server = NatsServer(tmp_path / "jetstream", *tls, scheme="tls")
    server.start()
    maps = shop_map(tmp_path / "maps")
    given = ("--backplane-tls-ca", str(pki["ca"]), "--backplane-tls-cert", str(pki["client"]), "--backplane-tls-key", str(pki["client_key"]))
    a, b = (Replica(name, server.url, maps, tmp_path, "--shared-browser-context", *given).start() for name in "ab")
    # Without a client certificate (the CA alone), a replica is refused by NATS and serves alone, saying so.
    lone = Replica("lone", server.url, maps, tmp_path, "--shared-browser-context", "--backplane-tls-ca", str(pki["ca"])).start()
    try:
        for replica in (a, b, lone):
            await asyncio.to_thread(replica.wait_ready)
        await _routed_call_works(a, b)
        async with mcp_client(lone.mcp_url, keepalive=True) as on_lone:
            report = (await resource(on_lone, "actions://bridge/launch"))["backplane"]
            assert report["connected"] is False and report["url"] == server.url
        # A NATS client without a certificate does not get in, nor one that trusts another CA.
        other = make_pki(tmp_path, prefix="other-")
        for context in (ssl.create_default_context(cafile=str(pki["ca"])), _client_context(other)):
            with pytest.raises(Exception):  # noqa: B017 - nats-py raises the TLS error, or "no servers available"
                await nats.connect(server.url, tls=context, connect_timeout=2, allow_reconnect=False, max_reconnect_attempts=0)
    finally:
        for replica in (a, b, lone):
            replica.stop()
        server.stop()


def _client_context(pki: dict[str, Path]) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(pki["ca"]))
    context.load_cert_chain(str(pki["client"]), str(pki["client_key"]))
    return context


async def test_replicas_join_their_own_nats_account_by_nkey_with_only_the_permissions_the_docs_give(tmp_path: Path) -> None:
    """The accounts and permissions of docs/deploying.md ("Several deployments on one NATS"), narrowed to the deployment's own
    names as the launch report gives them: the replicas work within them, and a user of another account sees nothing of them."""
    seed = nkeys.encode_seed(os.urandom(32), nkeys.PREFIX_BYTE_USER)
    public = nkeys.from_seed(bytearray(seed)).public_key.decode()
    (tmp_path / "user.nk").write_bytes(seed + b"\n")
    seal = Seal(SECRET)
    subjects, bucket = f"mcpa.{seal.cluster}.>", f"mcpa_{seal.cluster}_sessions"
    config = tmp_path / "nats.conf"
    config.write_text(
        "accounts {\n"
        f'  SHOP: {{ jetstream: enabled, users: [ {{ nkey: "{public}", permissions: {{\n'
        f'    publish: {{ allow: ["{subjects}", "_INBOX.>", "$JS.API.>", "$KV.{bucket}.>"] }}\n'
        f'    subscribe: {{ allow: ["{subjects}", "_INBOX.>"] }} }} }} ] }}\n'
        '  BILLING: { jetstream: enabled, users: [ { user: billing, password: "billing-pw" } ] }\n'
        "}\n"
    )
    server = NatsServer(tmp_path / "jetstream", "-c", str(config))
    server.start()
    maps = shop_map(tmp_path / "maps")
    a, b = (Replica(name, server.url, maps, tmp_path, "--shared-browser-context", "--backplane-nkey", str(tmp_path / "user.nk")).start() for name in "ab")
    try:
        for replica in (a, b):
            await asyncio.to_thread(replica.wait_ready)
        async with Sniffer(f"nats://billing:billing-pw@127.0.0.1:{server.port}") as neighbour:
            await _routed_call_works(a, b)
            async with mcp_client(a.mcp_url, keepalive=True) as on_a:
                report = (await resource(on_a, "actions://bridge/launch"))["backplane"]
                assert (report["subjects"], report["bucket"]) == (subjects, bucket)
                # The session store works within those permissions: a session a opened is served by b.
                headers = {"Authorization": f"Bearer {HTTP_TOKEN}", "Accept": "application/json, text/event-stream"}
                async with httpx2.AsyncClient(timeout=20) as http:
                    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}
                    opened = await http.post(a.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers)
                    session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
                    served = await http.post(b.mcp_url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, headers=session)
                    assert served.status_code == 200, served.text
            assert neighbour.seen == []  # another account shares no subject with this one
            for replica in (a, b):  # nothing the replicas did was refused by NATS (a permissions violation would be their last error)
                async with mcp_client(replica.mcp_url, keepalive=True) as client:
                    assert (await resource(client, "actions://bridge/launch"))["backplane"]["last_error"] is None
        with pytest.raises(Exception):  # noqa: B017 - authorization violation
            await nats.connect(server.url, connect_timeout=2, allow_reconnect=False, max_reconnect_attempts=0)
    finally:
        for replica in (a, b):
            replica.stop()
        server.stop()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _nkey(prefix: int) -> tuple[bytes, Any, str]:
    seed = nkeys.encode_seed(os.urandom(32), prefix)
    pair = nkeys.from_seed(bytearray(seed))
    return seed, pair, pair.public_key.decode()


def _jwt(issuer: Any, issuer_public: str, subject: str, name: str, claims: dict[str, Any]) -> str:
    """A NATS JWT (``ed25519-nkey``) as ``nsc`` writes one: header, claims, the issuer's signature of both."""
    header = _b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body = {"jti": base64.b32encode(os.urandom(20)).decode().rstrip("="), "iat": int(time.time()), "iss": issuer_public, "name": name, "sub": subject, "nats": claims}
    payload = _b64(json.dumps(body).encode())
    return f"{header}.{payload}.{_b64(issuer.sign(f'{header}.{payload}'.encode()))}"


def operator_with_user(root: Path) -> tuple[Path, Path]:
    """A NATS operator, its system account, an account with JetStream and one user of it: the server's config and the user's creds file."""
    _, operator, operator_public = _nkey(nkeys.PREFIX_BYTE_OPERATOR)
    _, account, account_public = _nkey(nkeys.PREFIX_BYTE_ACCOUNT)
    _, _, system_public = _nkey(nkeys.PREFIX_BYTE_ACCOUNT)
    user_seed, _, user_public = _nkey(nkeys.PREFIX_BYTE_USER)
    unlimited = {"subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1, "wildcards": True, "conn": -1, "leaf": -1, "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1}
    operator_jwt = _jwt(operator, operator_public, operator_public, "operator", {"type": "operator", "version": 2, "system_account": system_public})
    system_jwt = _jwt(operator, operator_public, system_public, "SYS", {"type": "account", "version": 2})
    account_jwt = _jwt(operator, operator_public, account_public, "SHOP", {"limits": unlimited, "type": "account", "version": 2})
    user_jwt = _jwt(account, account_public, user_public, "replica", {"pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1, "type": "user", "version": 2})
    config = root / "operator.conf"
    config.write_text(
        f'operator: "{operator_jwt}"\nresolver: MEMORY\nsystem_account: {system_public}\n'
        f'resolver_preload: {{ {account_public}: "{account_jwt}", {system_public}: "{system_jwt}" }}\n'
    )
    creds = root / "replica.creds"
    creds.write_text(
        f"-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n"
        f"-----BEGIN USER NKEY SEED-----\n{user_seed.decode()}\n------END USER NKEY SEED------\n"
    )
    return config, creds


async def test_replicas_join_a_nats_in_operator_mode_with_a_creds_file(tmp_path: Path) -> None:
    config, creds = operator_with_user(tmp_path)
    server = NatsServer(tmp_path / "jetstream", "-c", str(config))
    server.start()
    maps = shop_map(tmp_path / "maps")
    a, b = (Replica(name, server.url, maps, tmp_path, "--shared-browser-context", "--backplane-creds", str(creds)).start() for name in "ab")
    try:
        for replica in (a, b):
            await asyncio.to_thread(replica.wait_ready)
        await _routed_call_works(a, b)
        with pytest.raises(Exception):  # noqa: B017 - authorization violation: no credentials
            await nats.connect(server.url, connect_timeout=2, allow_reconnect=False, max_reconnect_attempts=0)
    finally:
        for replica in (a, b):
            replica.stop()
        server.stop()
