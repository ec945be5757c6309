"""The requests aimed at a generated case, beyond the boundary probes verify makes itself.

Every path a construct names is asked for with and without a trailing slash, with a file under it,
%-encoded, case-varied, with a query the generated conditions test, with and without credentials
(Authorization: Basic for a generated user, a wrong password, an unknown user), with unsafe methods where
a <Limit> or a proxy is about, and every host is asked for by its name, its aliases, a name its wildcard
matches, an unknown name, and with the port in Host. Lines are verify's request-file format.

verify's request file sends a request to another port than the first host's only in the absolute form
(`GET http://name:port/path`), whose Host header is the name alone: the Host-with-port variants go to the
first host's port, as `GET /path Host:name:port`.
"""
from __future__ import annotations

import base64
import shlex

MAX_REQUESTS = 160


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


CREDENTIALS = [basic("alice", "wonderland"), basic("alice", "wrong"), basic("bob", "builder"),
               basic("nobody", "x")]


def encode_first(path: str) -> str:
    """The last segment's first letter %-encoded (`/app` -> `/%61pp`)."""
    head, _, last = path.rstrip("/").rpartition("/")
    for i, ch in enumerate(last):
        if ch.isalnum():
            return f"{head}/{last[:i]}%{ord(ch):02X}{last[i + 1:]}"
    return path


def case_varied(path: str) -> str:
    varied = "".join(c.upper() if i % 2 else c for i, c in enumerate(path))
    return varied if varied != path else path.upper()


def _variants(path: str, tags: set[str]) -> list[tuple[str, str, dict]]:
    """(method, path, headers) for one target."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    is_file = "." in last
    out: list[tuple[str, str, dict]] = []
    if is_file:
        forms = [path, case_varied(path), encode_first(path), path + "/x", path + "?debug=1"]
    else:
        p = path.rstrip("/") or ""
        forms = [p or "/", p + "/", p + "/a.txt", p + "/secret.txt", encode_first(p + "/a.txt") if p else "/%61.txt",
                 case_varied(p + "/a.txt"), p + "/sub/a.txt", p + "/home.html", p + "/notes.bak"]
        if "query" in tags or "rewrite" in tags:
            forms += [p + "/a.txt?debug=1", p + "/?debug=1"]
        if "proxy" in tags:
            forms += [p + "/x/y?q=1", p + "x"]
    out += [("GET", f, {}) for f in forms]
    if tags & {"auth", "htaccess"}:
        for cred in CREDENTIALS:
            out.append(("GET", forms[2] if len(forms) > 2 else forms[0], {"Authorization": cred}))
        out.append(("GET", forms[0], {"Authorization": CREDENTIALS[0]}))
    if tags & {"methods", "proxy", "access"}:
        for method in ("POST", "PUT", "DELETE", "OPTIONS"):
            out.append((method, forms[0], {}))
        if "auth" in tags:
            out.append(("POST", forms[0], {"Authorization": CREDENTIALS[0]}))
    if "query" in tags:
        out.append(("GET", forms[0] + ("&" if "?" in forms[0] else "?") + "debug=1", {}))
    return out


def requests_for(gen) -> list[str]:
    """Request-file lines for a generated case (the Generator after generation), at most MAX_REQUESTS,
    spread over the constructs (each target's first variants before any target's later ones)."""
    r = gen.r
    hosts = gen.hosts
    default_port = hosts[0].port
    per_target: list[list[tuple]] = []
    for vh in hosts:
        root = []
        for path in ("/", "/index.html", "/a.txt", "/secret.txt", "/.htpasswd", "/.htaccess", "/home.html"):
            root.append((vh, "GET", path, {}, None))
        for name in vh.names[1:] + vh.wildcards + ["unknown.fuzz.test"]:
            root.append((vh, "GET", "/", {}, name))
            root.append((vh, "GET", "/a.txt", {}, name))
        root.append((vh, "GET", "/", {}, f"{vh.names[0]}:{vh.port}"))
        root.append((vh, "GET", "/", {}, ""))          # no Host header at all
        per_target.append(root)
    for t in gen.targets:
        items = []
        for method, path, headers in _variants(t.path, t.tags):
            items.append((t.host, method, path, headers, None))
        # host forms: an alias, the port in Host, a wildcard name, an unknown host
        names = t.host.names[1:] + t.host.wildcards
        if names:
            items.insert(2, (t.host, "GET", t.path, {}, r.choice(names)))
        items.insert(3, (t.host, "GET", t.path, {}, f"{t.host.names[0]}:{t.host.port}"))
        items.append((t.host, "GET", t.path, {}, "unknown.fuzz.test"))
        per_target.append(items)
    ordered: list[tuple] = []
    depth = max((len(x) for x in per_target), default=0)
    for i in range(depth):
        for items in per_target:
            if i < len(items):
                ordered.append(items[i])
    lines: list[str] = []
    seen: set[str] = set()
    for vh, method, path, headers, host in ordered:
        line = _line(vh, method, path, headers, host, default_port)
        if line is not None and line not in seen:
            seen.add(line)
            lines.append(line)
        if len(lines) >= MAX_REQUESTS:
            break
    return lines


def _line(vh, method: str, path: str, headers: dict, host: str | None, default_port: int) -> str | None:
    words = [method]
    name = vh.names[0] if host is None else host
    if vh.port == default_port:
        words.append(path)
        if name:
            words.append(f"Host:{name}")
        elif host == "":
            return None        # (the request file cannot send no Host header)
    else:
        if host is not None and ":" in host:
            return None        # (the absolute form's Host header has no port)
        if not name:
            return None
        words.append(f"http://{name}:{vh.port}{path}")
    words += [f"{k}:{v}" for k, v in headers.items()]
    return " ".join(shlex.quote(w) for w in words)
