"""The requests `verify` replays: generated probes, a request file, or an access log.

Generated probes come from the Apache configuration itself: for every virtual
host, every URL boundary it names (Location prefixes, ProxyPass, Alias and
Redirect paths, and `/`) is probed at and around the boundary (`/p`, `/p/`,
`/pX`, `/p/a?b=c`, doubled slashes, dot segments, encoded characters, a case
variant), with each of its host names, an unknown host, and its scheme.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from ..syntax.loader import LoadedConfig


@dataclass
class Probe:
    method: str
    scheme: str
    host: str              # the Host header sent ("" for none)
    port: int              # the original port the request is aimed at
    path: str              # raw request target, query included
    headers: dict = field(default_factory=dict)
    origin: str = "generated"

    def line(self) -> str:
        return f"{self.method} {self.scheme}://{self.server_name or '-'}:{self.port}{self.path}"

    @property
    def server_name(self) -> str:
        """The host name the request names (the Host header without its port), for SNI."""
        return re.sub(r":\d+$", "", self.host)


@dataclass
class VHostInfo:
    names: list[str]
    ports: list[int]
    ssl: bool
    prefixes: list[str]
    file: str
    line: int
    end_line: int
    # ServerAlias names with * or ?: they choose the host (httpd's matches_aliases) but are no Host to send
    wildcards: list[str] = field(default_factory=list)


def vhosts_of(config: LoadedConfig) -> list[VHostInfo]:
    out: list[VHostInfo] = []
    if not any(n.is_section and n.key == "virtualhost" for n in config.children):
        return [_main_server(config)]
    listen_ports = sorted({int(n.args[0].rpartition(":")[2]) for n in config.walk()
                           if not n.is_section and n.key == "listen" and n.args
                           and n.args[0].rpartition(":")[2].isdigit()})
    for node in config.children:
        if not node.is_section or node.key != "virtualhost":
            continue
        names, prefixes, ssl, wildcards = [], ["/"], False, []
        ports = []
        for addr in node.args:
            port = addr.rpartition(":")[2]
            ports += [int(port)] if port.isdigit() else (listen_ports or [80])
        for child in node.walk():
            key = child.key
            if child.is_section and key == "location" and child.args and child.args[0].startswith("/") \
                    and not any(c in child.args[0] for c in "*?["):     # not `<Location ~ regex>`
                prefixes.append(child.args[0])
            elif not child.is_section:
                if key == "servername" and child.args:
                    names.insert(0, child.args[0].split("://")[-1].split(":")[0].lower())
                elif key == "serveralias":
                    names += [a.lower() for a in child.args if "*" not in a and "?" not in a]
                    wildcards += [a.lower() for a in child.args if "*" in a or "?" in a]
                elif key == "sslengine" and child.args and child.args[0].lower() == "on":
                    ssl = True
                elif key in ("proxypass", "alias", "redirect", "redirectpermanent", "redirecttemp") and child.args:
                    args = [a for a in child.args if a.lower() not in ("permanent", "temp", "seeother", "gone")
                            and not a.isdigit()]
                    if args and args[0].startswith("/") and child.parent is node:
                        prefixes.append(args[0])
        seen: list[str] = []
        for p in prefixes:
            if p not in seen:
                seen.append(p)
        out.append(VHostInfo(names or ["localhost"], sorted(set(ports)), ssl, seen, node.file, node.line,
                             node.close_line, wildcards))
    return out


def _main_server(config: LoadedConfig) -> VHostInfo:
    """A configuration without virtual hosts (a server config, a fragment, a .htaccess): the main server."""
    names, prefixes, ports = [], ["/"], []
    for node in config.walk():
        if node.is_section and node.key == "location" and node.args and node.args[0].startswith("/"):
            prefixes.append(node.args[0])
        elif not node.is_section and node.args:
            if node.key == "servername":
                names.append(node.args[0].split("://")[-1].split(":")[0].lower())
            elif node.key == "listen" and node.args[0].rpartition(":")[2].isdigit():
                ports.append(int(node.args[0].rpartition(":")[2]))
            elif node.key in ("proxypass", "alias") and node.args[0].startswith("/"):
                prefixes.append(node.args[0])
    lines = [n.line for n in config.walk()]
    first_file = config.children[0].file if config.children else config.name
    return VHostInfo(names or ["localhost"], sorted(set(ports)) or [80], False, list(dict.fromkeys(prefixes)),
                     first_file, min(lines, default=1), max(lines, default=1))


def url_path(path: str) -> str:
    """A path the configuration names (a <Directory>'s, a <Location>'s, an Alias's: decoded, as httpd matches
    it) as a request target: what a URL cannot hold raw (a space, a `%`, a control character) percent-encoded,
    as a client sends it."""
    return quote(path, safe="/;:@!$&'()*+,=~")


def _variants(prefix: str) -> list[str]:
    prefix = url_path(prefix)
    if prefix == "/":
        return ["/", "/index.html", "/a?b=c", "//", "/.htaccess", "/%2e%2e/etc/passwd", "/nonexistent"]
    p = prefix.rstrip("/")
    last = p.rsplit("/", 1)[-1] or p
    return [p, p + "/", p + "x", p + "/a?b=c", p + "?q=1", p + "//a", p + "/./a", f"{p}/../{last}/a",
            p + "/a/..", p + "/%2Fa", p + "/%61", p + "/a%20b", p + ";x=1", p + "/a/b/c/",
            p.upper() if p.upper() != p else p + "/A"]


def generate(config: LoadedConfig) -> list[Probe]:
    """Requests at every boundary of every virtual host. The Host header names the port where it is not the
    scheme's default, as clients send it (RFC 9110: a request to another port names it)."""
    probes = _generate(config)
    for p in probes:
        if p.host and ":" not in p.host and p.port != (443 if p.scheme == "https" else 80):
            p.host = f"{p.host}:{p.port}"
    return probes


def _generate(config: LoadedConfig) -> list[Probe]:
    probes: list[Probe] = []
    for vh in vhosts_of(config):
        scheme = "https" if vh.ssl else "http"
        for port in vh.ports:
            for i, prefix in enumerate(vh.prefixes):
                for path in _variants(prefix):
                    probes.append(Probe("GET", scheme, vh.names[0], port, path))
                if i == 0:
                    for name in vh.names[1:] + ["unknown.invalid"]:
                        probes.append(Probe("GET", scheme, name, port, "/"))
                    probes.append(Probe("HEAD", scheme, vh.names[0], port, "/"))
                else:
                    probes.append(Probe("POST", scheme, vh.names[0], port, prefix.rstrip("/") + "/submit",
                                        {"Content-Type": "application/x-www-form-urlencoded"}))
        for port in vh.ports:
            for path in security_paths(config, vh):
                probes.append(Probe("GET", scheme, vh.names[0], port, path, origin="security"))
            for path in security_paths(config, vh)[:3]:
                probes.append(Probe("HEAD", scheme, vh.names[0], port, path, origin="security"))
                probes.append(Probe("GET", scheme, "unknown.invalid", port, path, origin="security"))
            if any(not n.is_section and n.key == "authtype" for n in config.walk()):
                # verify's own password files hold verify:verify (a user's own file keeps its users)
                for path in security_paths(config, vh)[:1] + [url_path(p) for p in restricted_prefixes(config, vh)]:
                    for credentials in ("dmVyaWZ5OnZlcmlmeQ==", "dmVyaWZ5Ondyb25n"):   # verify:verify, verify:wrong
                        probes.append(Probe("GET", scheme, vh.names[0], port, path.rstrip("/") + "/a.txt",
                                            {"Authorization": "Basic " + credentials}, origin="security"))
    unique: dict[str, Probe] = {}
    for p in probes:
        unique.setdefault(p.line() + repr(sorted(p.headers.items())), p)
    return list(unique.values())


# Names that are usually refused: a file section in the configuration is probed with these.
SENSITIVE_NAMES = [".htaccess", ".htpasswd", "x.bak", "x.inc", "x.sql", "x.log", "x.swp", "x.orig", "x~"]
ACCESS_KEYS = {"require", "order", "allow", "deny", "satisfy", "authtype", "requireall", "requireany",
               "requirenone"}


def restricted_prefixes(config: LoadedConfig, vh: VHostInfo) -> list[str]:
    """URL prefixes of the sections that hold access rules: <Location>s, and <Directory>s through the
    DocumentRoot and every Alias that reaches them, plus every Alias (its target may be refused)."""
    from ..passes.core import DEFAULT_DOCUMENT_ROOT
    roots: list[tuple[str, str]] = []
    main_root = next((n.args[0] for n in config.children if not n.is_section and n.key == "documentroot"
                      and n.args), None)
    in_vhost = [n for n in config.walk() if vh.file == n.file and vh.line <= n.line <= vh.end_line]
    vh_root = next((n.args[0] for n in in_vhost if not n.is_section and n.key == "documentroot" and n.args), None)
    roots.append(("/", (vh_root or main_root or DEFAULT_DOCUMENT_ROOT).rstrip("/")))
    for n in config.walk():
        if not n.is_section and n.key == "alias" and len(n.args) >= 2 and n.args[0].startswith("/"):
            roots.append((n.args[0].rstrip("/") or "/", n.args[1].rstrip("/")))
    out: list[str] = [url for url, _ in roots if url != "/"]
    for n in config.walk():
        if not n.is_section or not n.args or not _holds_access(n):
            continue
        if n.key == "location" and n.args[0].startswith("/") and not any(c in n.args[0] for c in "*?["):
            out.append(n.args[0].rstrip("/") or "/")
        elif n.key == "directory" and n.args[0].startswith("/"):
            d = n.args[0].rstrip("/")
            for url, target in roots:
                if d == target or d.startswith(target + "/"):
                    out.append((url.rstrip("/") + d[len(target):]) or "/")
    return list(dict.fromkeys(out))


def _holds_access(section) -> bool:
    return any(c.key in ACCESS_KEYS for c in section.walk() if c is not section)


def security_paths(config: LoadedConfig, vh: VHostInfo) -> list[str]:
    """Requests that try to get around each restriction: case, encodings, doubled slashes, dot segments,
    a trailing slash, path info, `;` parameters; and sensitive file names where file sections exist."""
    paths: list[str] = []
    for prefix in restricted_prefixes(config, vh):
        base = url_path(prefix).rstrip("/")
        if not base:
            continue
        head, _, last = base.rpartition("/")
        first = last[0] if last else ""
        encoded = f"{head}/%{ord(first):02x}{last[1:]}" if first else base
        paths += [f"{base}/a.txt", f"{base}/a.txt".upper(), f"/{base}/a.txt", f"{base}//a.txt",
                  f"/.{base}/a.txt", f"/x/..{base}/a.txt", f"{encoded}/a.txt", f"{base}%2fa.txt",
                  f"{base}/%2e/a.txt", f"{base}/a.txt/", f"{base}/a.txt/x", f"{base};x/a.txt", f"{base}/a.txt;x",
                  base, base + "/"]
    if any(n.is_section and n.key in ("files", "filesmatch") for n in config.walk()):
        for name in SENSITIVE_NAMES:
            paths += [f"/{name}", f"/sub/{name}", f"/{name}".upper(), f"/{name}/x", f"/{name};x"]
        paths += ["/%2ehtaccess", "/.ht%61ccess"]
    return list(dict.fromkeys(paths))


MAX_REQUEST_LINE = 64 * 1024     # characters of one line of a requests file


class RequestLineError(ValueError):
    """A line of a requests file that names no request a client could send (`line`: 1-based)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


def parse_request_file(text: str, default_port: int, default_scheme: str = "http") -> list[Probe]:
    """One request a line: `METHOD URL [Header: value]...` (shell quoting; `Name:value`, `Name: value` or
    `"Name: value with spaces"`); URL absolute (sets Host) or a path. A line that names no request (an
    unclosed quote, a URL without a host or with a port that is no number, a NUL byte) raises
    RequestLineError."""
    probes = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > MAX_REQUEST_LINE:
            # httpd answers a request line over 8190 bytes with 414 (LimitRequestLine); shlex.split grows a
            # token a character at a time, so a 1 MB line took half a minute before any request was sent
            raise RequestLineError(number, f"{len(line)} characters, more than {MAX_REQUEST_LINE}: "
                                           "no request a server would read")
        if "\0" in line:
            # a NUL byte is no character of an HTTP request line, and a path holding one cannot name the
            # stand-in file verify writes for each requested path (os.open raised ValueError on it)
            raise RequestLineError(number, "a NUL byte: no request a server would read")
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise RequestLineError(number, f"{exc} (shell quoting)") from None
        if not words:
            continue
        method, target = (words[0].upper(), words[1]) if len(words) > 1 else ("GET", words[0])
        headers = {}
        rest = words[2:]
        while rest:
            k, _, v = rest.pop(0).partition(":")
            if not v and rest and ":" not in rest[0]:
                v = rest.pop(0)      # `Name: value` written with a space
            headers[k.strip()] = v.strip()
        if "://" in target:
            try:
                u = urlsplit(target)
                port = u.port
            except ValueError as exc:
                raise RequestLineError(number, f"{target!r}: {exc}") from None
            if u.scheme not in ("http", "https") or not u.hostname:
                raise RequestLineError(number, f"{target!r}: an absolute URL needs http:// or https:// and a host")
            path = (u.path or "/") + (f"?{u.query}" if u.query else "")
            probes.append(Probe(method, u.scheme, u.hostname, port or (443 if u.scheme == "https" else 80),
                                path, headers, "requests"))
        else:
            probes.append(Probe(method, default_scheme, headers.pop("Host", "localhost"), default_port, target,
                                headers, "requests"))
    return probes


_LOG = re.compile(r'^\S+ \S+ \S+ \[[^\]]*\] "(?P<method>[A-Z]+) (?P<target>\S+) HTTP/[0-9.]+"(?: (?P<status>\d{3}))?')
_SENDABLE = re.compile(r"[\x21-\x7e]+")     # what a request line can carry as it was logged
DEFAULT_REPLAY_CAP = 5000
SELECTION = ("distinct requests spread over host, status class, first path segment and path (a request of "
             "each kind before a second of any), replayed in log order")


@dataclass
class AccessLog:
    """What an access log holds: how many lines, how many were requests, and each distinct request (method,
    scheme, Host, port and target) once, in the order it first appears, with the status logged for it."""
    lines: int = 0
    parsed: int = 0
    requests: list[Probe] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)     # 0 where the line had none

    def select(self, cap: int | None = DEFAULT_REPLAY_CAP) -> list[Probe]:
        """Every distinct request (CAP None), or at most CAP of them: taken in turn from each host, within a
        host from each status class (2xx, 3xx, 4xx, 5xx, none), within that from each first path segment and
        within that from each path (its query aside), so that a log of a million image requests and a few
        logins still replays the logins; the chosen ones in log order."""
        if cap is None or len(self.requests) <= cap:
            return list(self.requests)
        keys = [((p.host, p.port), status // 100, _first_segment(p.path), (p.method, p.path.split("?", 1)[0]))
                for p, status in zip(self.requests, self.statuses)]
        chosen = sorted(_spread(list(range(len(keys))), keys, 0)[:cap])
        return [self.requests[i] for i in chosen]

    def report(self, replayed: int, cap: int | None) -> dict:
        return {"lines": self.lines, "parsed": self.parsed, "distinct": len(self.requests), "replayed": replayed,
                "not_replayed": len(self.requests) - replayed, "cap": cap,
                "selection": "all distinct requests" if cap is None or replayed == len(self.requests)
                else SELECTION}


def _first_segment(target: str) -> str:
    path = target.split("?", 1)[0]
    return path.lstrip("/").split("/", 1)[0] if path.startswith("/") else path


def _spread(items: list[int], keys: list[tuple], level: int) -> list[int]:
    """ITEMS (indexes into KEYS) ordered so that the groups of equal KEYS[i][level] take turns (round robin),
    each group ordered the same way by the levels after; within the last level, the original order."""
    if level == len(keys[0]) or len(items) < 2:
        return items
    groups: dict = {}
    for i in items:
        groups.setdefault(keys[i][level], []).append(i)
    if len(groups) == 1:
        return _spread(items, keys, level + 1)
    ordered = [_spread(g, keys, level + 1) for g in groups.values()]
    out: list[int] = []
    for rank in range(max(len(g) for g in ordered)):
        out.extend(g[rank] for g in ordered if rank < len(g))
    return out


def read_access_log(text: str, host: str, port: int, scheme: str = "http",
                    ports: dict[int, str] | None = None) -> AccessLog:
    """The requests of an Apache common/combined (or vhost_combined, `%v:%p` first) log. A line's own
    `host:port` names the Host and, when the configuration listens there (PORTS: port -> scheme), the port;
    otherwise HOST and PORT. A line is a request when it holds a logged request line whose target can be sent
    (printable ASCII, as httpd logs it). A Host names a port that is not its scheme's default, as clients do."""
    log = AccessLog()
    seen: dict[tuple, int] = {}
    ports = ports or {}
    for line in text.splitlines():
        log.lines += 1
        vhost = None
        m = _LOG.match(line)
        if not m and ":" in line.split(" ", 1)[0]:
            vhost, _, rest = line.partition(" ")
            m = _LOG.match(rest)
        if not m or not _SENDABLE.fullmatch(m.group("target")):
            continue
        log.parsed += 1
        name, line_port, line_scheme = host, port, scheme
        if vhost:
            name, _, given = vhost.rpartition(":")
            if given.isdigit() and int(given) in ports:
                line_port, line_scheme = int(given), ports[int(given)]
        if line_port != (443 if line_scheme == "https" else 80):
            name = f"{name}:{line_port}"
        key = (m.group("method"), line_scheme, name, line_port, m.group("target"))
        if key in seen:
            continue
        seen[key] = len(log.requests)
        log.requests.append(Probe(m.group("method"), line_scheme, name, line_port, m.group("target"), {},
                                  "access-log"))
        log.statuses.append(int(m.group("status") or 0))
    return log


def parse_access_log(text: str, host: str, port: int, scheme: str = "http",
                     limit: int | None = DEFAULT_REPLAY_CAP) -> list[Probe]:
    """The distinct requests of an access log (see `read_access_log`), at most `limit` (see `AccessLog.select`)."""
    return read_access_log(text, host, port, scheme).select(limit)
