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
import time
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin
from dataclasses import dataclass, field

from .probes import Probe

IGNORED_HEADERS = {"date", "server", "etag", "last-modified", "content-length", "connection", "keep-alive",
                   "accept-ranges", "transfer-encoding", "x-echo-backend", "vary", "content-type", "age", "upgrade",
                   "location", "cache-control", "expires"}   # Location, Cache-Control and Expires are compared apart
BACKEND_HEADERS = ("host", "x-forwarded-for", "x-forwarded-host", "x-forwarded-server")

# Response headers that protect the client: when httpd sends one and nginx does not, or sends another value,
# the translation has lost a protection. No diagnostic explains that.
SECURITY_HEADERS = frozenset({
    "strict-transport-security", "content-security-policy", "content-security-policy-report-only",
    "x-frame-options", "x-content-type-options", "referrer-policy", "permissions-policy",
    "cross-origin-opener-policy", "cross-origin-embedder-policy", "cross-origin-resource-policy",
    "x-xss-protection", "x-permitted-cross-domain-policies", "x-robots-tag"})
# Security headers a client reads the same whether a value comes once or is repeated right after itself
# (a line more, or a line less, with the very same value): HSTS takes the first line (RFC 6797 8.1); each CSP line is a
# policy enforced on its own (CSP3 4.1), so a policy twice is the policy; X-Frame-Options is read as the
# set of its values (HTML, "check a navigation response's adherence to X-Frame-Options"); nosniff is read
# from the first value (Fetch, "determine nosniff"); Referrer-Policy from its last valid token (Referrer
# Policy 8.1). Not so the structured ones (COOP, COEP, CORP, Permissions-Policy), whose repeated value
# joins into one that no longer parses, or X-XSS-Protection: those stay compared line for line.
REPEATABLE_HEADERS = frozenset({
    "strict-transport-security", "content-security-policy", "content-security-policy-report-only",
    "x-frame-options", "x-content-type-options", "referrer-policy"})
# Headers whose value is a comma-separated list (RFC 9110 5.3: a recipient may join field lines with ", "):
# httpd's `Header merge`/`append` writes one line "a, b" where nginx's add_header lines write two, and a
# client reads them the same (Referrer-Policy's and X-Frame-Options' tokens, CSP's policies, nosniff's first
# value are all split on commas). HSTS is not among them: its first line alone is read.
COMMA_LISTS = frozenset({
    "content-security-policy", "content-security-policy-report-only", "x-frame-options", "x-content-type-options",
    "referrer-policy"})
COOKIE_PROTECTIONS = ("secure", "httponly", "samesite")
CACHE_PROTECTIONS = ("no-store", "private", "no-cache")
CLOCK_SLACK = 2.0       # seconds of max-age or Expires two answers may differ by beyond the time between them


@dataclass
class Observation:
    status: int = 0
    location: str | None = None
    headers: dict = field(default_factory=dict)
    body: str = ""
    backend: dict | None = None
    error: str | None = None
    at: float = 0.0             # when the answer came (time.time()), for values that depend on the clock
    sent: float = 0.0           # when the request went out (0: unknown, taken as `at`)

    def to_json(self) -> dict:
        return {"status": self.status, "location": self.location, "headers": self.headers,
                "backend": self.backend, "error": self.error}


def observation(status: int, header_list: list[tuple[str, str]], raw: bytes, at: float,
                sent: float = 0.0) -> Observation:
    """An answer as verify records it: headers by lower-cased name, the body as text, and what the echo
    backend reported when it answered."""
    headers: dict[str, list[str]] = {}
    for k, v in header_list:
        headers.setdefault(k.lower(), []).append(v)
    text = raw.decode("utf-8", "replace")
    backend = None
    if "x-echo-backend" in headers:
        try:
            backend = json.loads(text)
        except ValueError:
            backend = None
    return Observation(status, (headers.get("location") or [None])[0], headers, text, backend, at=at, sent=sent)


def send(probe: Probe, port: int, timeout: float = 10) -> Observation:
    """Send one probe to 127.0.0.1:port (TLS with SNI = the Host name for https probes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        if probe.scheme == "https":
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            raw_sock = socket.create_connection(("127.0.0.1", port), timeout)
            conn.sock = ctx.wrap_socket(raw_sock, server_hostname=probe.server_name or None)
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
        return observation(resp.status, resp.getheaders(), resp.read(), time.time())
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
    widened: bool = False      # httpd refused (401/403/5xx), nginx served: never explained by anything
    lost_security: bool = False  # a protection httpd's answer carried is gone or weaker: never explained

    @property
    def verdict(self) -> str | None:
        """WIDENED ACCESS or LOST SECURITY HEADER: differences no diagnostic may explain."""
        return "WIDENED ACCESS" if self.widened else "LOST SECURITY HEADER" if self.lost_security else None

    def to_json(self) -> dict:
        return {"request": self.probe.line(), "method": self.probe.method, "field": self.field,
                "apache": self.apache, "nginx": self.nginx, "explained_by": self.explanation,
                "widened": self.widened, "lost_security": self.lost_security}


def widened(a: Observation, n: Observation) -> bool:
    """httpd refused the request (401, 403) or failed it (5xx) and nginx served it (2xx; 3xx after a refusal)."""
    if a.error or n.error or not n.status:
        return False
    if a.status in (401, 403):
        return n.status < 400
    return a.status >= 500 and 200 <= n.status < 300


def lost_protection(field_name: str, apache, nginx) -> bool:
    """Whether a header difference takes away a protection httpd's answer carried."""
    if not field_name.startswith("header ") or not apache:
        return False
    name = field_name[len("header "):]
    if name in SECURITY_HEADERS:
        # gone, or another value: a weaker one cannot be told from a stronger in general
        return not (name in REPEATABLE_HEADERS and nginx and _distinct(apache) == _distinct(nginx))
    if name == "set-cookie":
        return bool(_cookie_protections(apache) - _cookie_protections(nginx or []))
    if name == "cache-control":
        return bool(set(_cache_directives(apache)) & set(CACHE_PROTECTIONS)
                    - set(_cache_directives(nginx or [])))
    return False


def _items(values: list[str]) -> list[str]:
    """A comma-list header's items, in order, whichever field lines they came on."""
    return [item.strip() for value in values for item in value.split(",")]


def _distinct(values: list[str]) -> list[str]:
    """The header's values with a value repeated right after itself taken once: the first, the last and
    the set of values stay what they are."""
    return [v for i, v in enumerate(values) if i == 0 or values[i - 1] != v]


def _cookie_protections(values: list[str]) -> set[tuple[str, str]]:
    """(cookie name, attribute) for every Secure/HttpOnly/SameSite attribute of every cookie set."""
    out = set()
    for value in values:
        parts = [p.strip() for p in value.split(";")]
        name = parts[0].split("=", 1)[0].strip()
        for attr in parts[1:]:
            key, _, val = attr.partition("=")
            if key.strip().lower() in COOKIE_PROTECTIONS:
                out.add((name, key.strip().lower() + ("=" + val.strip().lower() if val else "")))
    return out


def _cache_directives(values: list[str]) -> dict[str, str]:
    """Cache-Control directives (lower-case name -> value) of all the header's lines."""
    out: dict[str, str] = {}
    for value in values:
        for item in value.split(","):
            key, _, val = item.strip().partition("=")
            if key:
                out[key.strip().lower()] = val.strip().strip('"')
    return out


def _seconds(value: str) -> float | None:
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError):
        return None


class Comparator:
    def __init__(self, sandbox_ports: dict[int, int], pools: dict[str, set[str]],
                 ignored_headers: set[str] | None = None, host_aliases: dict[str, str] | None = None):
        self.back = sandbox_ports   # sandbox port -> original port, for both servers
        self.pools = pools          # backend identity -> balancers it belongs to
        # stand-in address -> the Host httpd sends a Unix-socket backend (httpd reaches its stand-in by TCP)
        self.host_aliases = host_aliases or {}
        self.ignored_by_user = ignored_headers or set()
        self.ignored = IGNORED_HEADERS | self.ignored_by_user

    def _location(self, value: str | None, probe: Probe | None = None) -> str | None:
        if value is None:
            return None
        if probe is not None and probe.host and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", value):
            # a relative reference (nginx's `absolute_redirect off`) is the URL a client resolves it to against
            # the request's own: scheme, the Host it sent (httpd lower-cases the name) and path
            host = re.sub(r"^[^:]*", lambda m: m.group().lower(), probe.host)
            value = urljoin(f"{probe.scheme}://{host}{probe.path.split('?', 1)[0]}", value)

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
        la, ln = self._location(a.location, probe), self._location(n.location, probe)
        if la != ln:
            out.append(("location", la, ln))
        names = (set(a.headers) | set(n.headers)) - self.ignored
        for name in sorted(names):
            va, vn = a.headers.get(name), n.headers.get(name)
            if va != vn and not (name in COMMA_LISTS and va and vn and _items(va) == _items(vn)):
                out.append((f"header {name}", va, vn))
        slack = clock_gap(a, n) + CLOCK_SLACK
        if "cache-control" not in self.ignored_by_user and not _same_cache_control(a, n, slack):
            out.append(("header cache-control", a.headers.get("cache-control"), n.headers.get("cache-control")))
        if "expires" not in self.ignored_by_user and not _same_expires(a, n, slack):
            out.append(("header expires", a.headers.get("expires"), n.headers.get("expires")))
        ba, bn = a.backend, n.backend
        if (ba is None) != (bn is None):
            out.append(("backend", ba and ba["backend"], bn and bn["backend"]))
        elif ba and bn:
            if not self._same_backend(ba["backend"], bn["backend"]):
                out.append(("backend", ba["backend"], bn["backend"]))
            if ba["method"] != bn["method"]:
                out.append(("backend method", ba["method"], bn["method"]))
            path_a, _, query_a = ba["path"].partition("?")
            path_n, _, query_n = bn["path"].partition("?")
            if path_a != path_n:
                out.append(("backend path", ba["path"], bn["path"]))
            elif query_a != query_n:
                out.append(("backend query", query_a, query_n))
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


def clock_gap(a: Observation, n: Observation) -> float:
    """The most the two servers' clocks can have moved between their answers: each answered at some time
    between sending its request and receiving its answer."""
    a_sent, n_sent = a.sent or a.at, n.sent or n.at
    return max(abs(n.at - a_sent), abs(a.at - n_sent))


def _same_cache_control(a: Observation, n: Observation, slack: float) -> bool:
    """Cache-Control compared by directives; max-age (and s-maxage) may differ by the time between answers."""
    da, dn = _cache_directives(a.headers.get("cache-control", [])), _cache_directives(n.headers.get("cache-control", []))
    if set(da) != set(dn):
        return False
    for key, va in da.items():
        vn = dn[key]
        if key in ("max-age", "s-maxage") and va.isdigit() and vn.isdigit():
            if abs(int(va) - int(vn)) > slack:
                return False
        elif va != vn:
            return False
    return True


def _same_expires(a: Observation, n: Observation, slack: float) -> bool:
    """Expires compared as a time: the same within the time between the answers, or the same distance from
    each answer's Date."""
    ea, en = a.headers.get("expires"), n.headers.get("expires")
    if ea is None or en is None:
        return ea == en
    ta, tn = _seconds(ea[0]), _seconds(en[0])
    if ta is None or tn is None:
        return ea == en
    if abs(ta - tn) <= slack:
        return True
    da, dn = _seconds((a.headers.get("date") or [""])[0]), _seconds((n.headers.get("date") or [""])[0])
    return da is not None and dn is not None and abs((ta - da) - (tn - dn)) <= CLOCK_SLACK
