"""What a client and a backend saw, and how two such observations differ.

An observation holds the response (status, Location, the headers that
matter, the body) and, when an echo backend answered, what that backend
received. Ports the sandboxes invented are mapped back to the original ones
before comparing, and a balanced route counts as the same when both servers
stayed inside the Apache pool (round-robin positions differ by design).
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
from dataclasses import dataclass, field

from .probes import Probe

IGNORED_HEADERS = {"date", "server", "etag", "last-modified", "content-length", "connection", "keep-alive",
                   "accept-ranges", "transfer-encoding", "x-echo-backend", "vary", "content-type", "expires",
                   "cache-control", "age", "upgrade", "location"}   # Location is compared normalised
BACKEND_HEADERS = ("host", "x-forwarded-for", "x-forwarded-host", "x-forwarded-server")


@dataclass
class Observation:
    status: int = 0
    location: str | None = None
    headers: dict = field(default_factory=dict)
    body: str = ""
    backend: dict | None = None
    error: str | None = None

    def to_json(self) -> dict:
        return {"status": self.status, "location": self.location, "headers": self.headers,
                "backend": self.backend, "error": self.error}


def send(probe: Probe, port: int, timeout: float = 10) -> Observation:
    """Send one probe to 127.0.0.1:port (TLS with SNI = the Host name for https probes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        if probe.scheme == "https":
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            raw_sock = socket.create_connection(("127.0.0.1", port), timeout)
            conn.sock = ctx.wrap_socket(raw_sock, server_hostname=probe.host or None)
        conn.putrequest(probe.method, probe.path, skip_host=True, skip_accept_encoding=True)
        if probe.host:
            conn.putheader("Host", probe.host)
        body = b"a=1&b=2" if probe.method in ("POST", "PUT") else None
        for k, v in probe.headers.items():
            conn.putheader(k, v)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        raw = resp.read()
        headers: dict[str, list[str]] = {}
        for k, v in resp.getheaders():
            headers.setdefault(k.lower(), []).append(v)
        text = raw.decode("utf-8", "replace")
        backend = None
        if "x-echo-backend" in headers:
            try:
                backend = json.loads(text)
            except ValueError:
                backend = None
        return Observation(resp.status, (headers.get("location") or [None])[0], headers, text, backend)
    except (OSError, http.client.HTTPException, ssl.SSLError) as exc:
        return Observation(error=f"{type(exc).__name__}: {exc}")
    finally:
        conn.close()


@dataclass
class Difference:
    probe: Probe
    field: str
    apache: object
    nginx: object
    explanation: str | None = None
    widened: bool = False      # httpd refused (401/403), nginx served: never explained by anything

    def to_json(self) -> dict:
        return {"request": self.probe.line(), "method": self.probe.method, "field": self.field,
                "apache": self.apache, "nginx": self.nginx, "explained_by": self.explanation,
                "widened": self.widened}


class Comparator:
    def __init__(self, sandbox_ports: dict[int, int], pools: dict[str, set[str]],
                 ignored_headers: set[str] | None = None, host_aliases: dict[str, str] | None = None):
        self.back = sandbox_ports   # sandbox port -> original port, for both servers
        self.pools = pools          # backend identity -> balancers it belongs to
        # stand-in address -> the Host httpd sends a Unix-socket backend (httpd reaches its stand-in by TCP)
        self.host_aliases = host_aliases or {}
        self.ignored = IGNORED_HEADERS | (ignored_headers or set())

    def _location(self, value: str | None) -> str | None:
        if value is None:
            return None

        def repl(m: re.Match) -> str:
            port = int(m.group(2))
            orig = self.back.get(port, port)
            scheme = m.group(0).split("://")[0]
            default = (scheme == "http" and orig == 80) or (scheme == "https" and orig == 443)
            return m.group(1) + ("" if default else f":{orig}")
        return re.sub(r"^(https?://[^/:]+):(\d+)", repl, value)

    def _same_backend(self, a: str, b: str) -> bool:
        return a == b or bool(self.pools.get(a, set()) & self.pools.get(b, set()))

    def diff(self, probe: Probe, a: Observation, n: Observation) -> list[tuple[str, object, object]]:
        out: list[tuple[str, object, object]] = []
        if a.error or n.error:
            if bool(a.error) != bool(n.error):
                out.append(("connection", a.error or a.status, n.error or n.status))
            return out
        if a.status != n.status:
            out.append(("status", a.status, n.status))
        la, ln = self._location(a.location), self._location(n.location)
        if la != ln:
            out.append(("location", la, ln))
        names = (set(a.headers) | set(n.headers)) - self.ignored
        for name in sorted(names):
            va, vn = a.headers.get(name), n.headers.get(name)
            if va != vn:
                out.append((f"header {name}", va, vn))
        ba, bn = a.backend, n.backend
        if (ba is None) != (bn is None):
            out.append(("backend", ba and ba["backend"], bn and bn["backend"]))
        elif ba and bn:
            if not self._same_backend(ba["backend"], bn["backend"]):
                out.append(("backend", ba["backend"], bn["backend"]))
            for key in ("method", "path"):
                if ba[key] != bn[key]:
                    out.append((f"backend {key}", ba[key], bn[key]))
            ha = {k.lower(): v for k, v in ba["headers"]}
            if ha.get("host") in self.host_aliases:
                ha["host"] = self.host_aliases[ha["host"]]
            hn = {k.lower(): v for k, v in bn["headers"]}
            for key in BACKEND_HEADERS:
                if ha.get(key) != hn.get(key):
                    out.append((f"backend header {key}", ha.get(key), hn.get(key)))
        elif a.status < 300 and a.status == n.status and a.body != n.body and probe.method != "HEAD":
            out.append(("body", a.body[:200], n.body[:200]))
        return out
