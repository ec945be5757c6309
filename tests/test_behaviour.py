"""The translation behaves like the Apache it replaces: real httpd and real nginx on loopback,
the same requests, the same echo backends, compared response by response."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from live import apache, backend_view, echo_backend, free_port, nginx, request, translate

GATEWAY = """
Listen 127.0.0.1:{port}
Listen 127.0.0.1:{redirect_port}
<VirtualHost *:{port}>
    ServerName gw.test
    DocumentRoot {docroot}
    ProxyPreserveHost On
    <Proxy balancer://pool>
        BalancerMember http://127.0.0.1:{b1} retry=5
        BalancerMember http://127.0.0.1:{b2} retry=5
    </Proxy>
    <Location /v1>
        ProxyPass balancer://pool/v1
        ProxyPassReverse balancer://pool/v1
    </Location>
    <Location /v2>
        ProxyPass http://127.0.0.1:{b3}/v2
        ProxyPassReverse http://127.0.0.1:{b3}/v2
    </Location>
    Header always set X-Content-Type-Options "nosniff"
    Header always set X-Frame-Options "DENY"
</VirtualHost>
<VirtualHost *:{redirect_port}>
    ServerName gw.test
    Redirect permanent / https://gw.test/
</VirtualHost>
"""

REQUESTS = ["/v1", "/v1/", "/v1/users?id=7&x=%20y", "/v1beta", "/v1/../v2/a", "/v2/orders/9", "/v2x", "/",
            "/nothing/here"]


def _translate(apache_conf: str) -> str:
    return translate(apache_conf)[0]


def _summary(status, headers, body):
    seen = backend_view(body)
    if seen is None:
        return {"status": status}
    h = {k.lower(): v for k, v in seen["headers"]}
    return {"status": status, "backend_path": seen["path"], "method": seen["method"], "host": h.get("host"),
            "x-forwarded-for": h.get("x-forwarded-for"), "x-forwarded-host": h.get("x-forwarded-host"),
            "x-forwarded-server": h.get("x-forwarded-server")}


@pytest.fixture(scope="module")
def gateway(apache_bin, nginx_bin):
    # Readable by the servers' unprivileged workers (pytest's own tmp dirs are private to root).
    docroot = Path(tempfile.mkdtemp(prefix="a2n-docroot-"))
    (docroot / "index.html").write_text("home\n")
    docroot.chmod(0o755)
    with echo_backend("b1") as b1, echo_backend("b2") as b2, echo_backend("b3") as b3:
        port, redirect_port = free_port(), free_port()
        conf = GATEWAY.format(port=port, redirect_port=redirect_port, docroot=docroot, b1=b1, b2=b2, b3=b3)
        translated = _translate(conf)
        with apache(conf, apache_bin, port):
            a = {path: request(port, path, host="gw.test") for path in REQUESTS}
            a_redirect = request(redirect_port, "/some/path?q=1&r=2", host="gw.test")
        with nginx(translated, nginx_bin, f"127.0.0.1:{port}") as nport:
            n = {path: request(nport, path, host="gw.test") for path in REQUESTS}
        with nginx(translated, nginx_bin, f"127.0.0.1:{redirect_port}") as nport:
            n_redirect = request(nport, "/some/path?q=1&r=2", host="gw.test")
        yield {"apache": a, "nginx": n, "apache_redirect": a_redirect, "nginx_redirect": n_redirect,
               "translated": translated, "backends": {b1: "b1", b2: "b2", b3: "b3"}}
    shutil.rmtree(docroot, ignore_errors=True)


@pytest.mark.parametrize("path", REQUESTS)
def test_same_response_and_same_backend_request(gateway, path):
    a, n = gateway["apache"][path], gateway["nginx"][path]
    assert _summary(*n) == _summary(*a), gateway["translated"]


def test_location_boundary_is_not_widened(gateway):
    for server in ("apache", "nginx"):
        status, _, body = gateway[server]["/v1beta"]
        assert backend_view(body) is None and status == 404, server
        status, _, body = gateway[server]["/"]
        assert status == 200 and body == "home\n", server


def test_security_headers_on_every_response_path(gateway):
    for path in REQUESTS:
        for server in ("apache", "nginx"):
            _, headers, _ = gateway[server][path]
            assert headers.get("x-content-type-options") == ["nosniff"], (server, path)
            assert headers.get("x-frame-options") == ["DENY"], (server, path)


def test_redirect_keeps_path_and_query(gateway):
    a_status, a_headers, _ = gateway["apache_redirect"]
    n_status, n_headers, _ = gateway["nginx_redirect"]
    assert a_status == n_status == 301
    assert n_headers["location"] == a_headers["location"] == ["https://gw.test/some/path?q=1&r=2"]


def test_backend_connections_are_reused(gateway):
    seen = backend_view(gateway["nginx"]["/v2/orders/9"][2])
    headers = {k.lower(): v for k, v in seen["headers"]}
    assert seen["version"] == "HTTP/1.1" and "connection" not in headers
