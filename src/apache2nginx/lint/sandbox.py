"""Running the real `nginx -t` on a configuration without touching the system.

The configuration is parsed with crossplane and rebuilt into a temporary
prefix: `pid`, the error log and the five temp paths point inside it, included
files (beside the source, else nginx's stock mime.types and friends) are copied in, every
`listen` socket becomes a free loopback port (nginx -t binds them), backend
host names become 127.0.0.1 (nginx -t resolves them; the sandbox needs no DNS), a bare
http-context file is wrapped in `events {}`/`http {}`, and a certificate and key
that cannot be loaded here (unreadable, or a "key" file with no private key)
are replaced by one generated self-signed pair. Each rebuilt line remembers the line of the
original it came from, so nginx's own messages come back located in the
user's file.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import crossplane
from crossplane.builder import _enquote  # the same quoting crossplane.build uses

HTTP_TEMP_PATHS = ("client_body_temp_path", "proxy_temp_path", "fastcgi_temp_path", "uwsgi_temp_path",
                   "scgi_temp_path")
MAIN_ONLY = {"pid", "error_log", "user", "daemon", "master_process", "worker_processes", "load_module",
             "include", "events", "http", "stream", "mail", "env", "worker_rlimit_nofile", "pcre_jit",
             "thread_pool", "lock_file", "working_directory", "timer_resolution", "worker_cpu_affinity",
             "worker_priority", "worker_shutdown_timeout", "ssl_engine", "debug_points"}
CERT_DIRECTIVES = {"ssl_certificate", "ssl_certificate_key", "ssl_trusted_certificate", "ssl_client_certificate",
                   "proxy_ssl_certificate", "proxy_ssl_certificate_key", "proxy_ssl_trusted_certificate",
                   "ssl_dhparam", "ssl_crl", "ssl_stapling_file", "ssl_password_file", "ssl_session_ticket_key"}
_MESSAGE = re.compile(r"^nginx: \[(?P<level>\w+)\] (?P<msg>.*?)(?: in (?P<file>\S+):(?P<line>\d+))?$")


PASS_DIRECTIVES = {"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass"}
_HOSTPORT = re.compile(r"^(?P<host>\[[^\]]+\]|[^:/]+)(?::(?P<port>\d+))?$")


def free_port(taken: set = frozenset()) -> int:
    """A free loopback port not in `taken` (the kernel may hand the same port out twice in a row)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if str(port) not in taken and port not in taken:
            return port


def _loopback(address: str) -> str:
    """A host name becomes 127.0.0.1 (same port): nginx -t resolves names, the sandbox must not need DNS."""
    if address.startswith("unix:"):
        return address
    m = _HOSTPORT.match(address)
    if not m:
        return address
    host = m.group("host")
    if host.startswith("[") or re.fullmatch(r"[\d.]+", host) or "$" in host:
        return address
    return "127.0.0.1" + (f":{m.group('port')}" if m.group("port") else "")


def find_nginx(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    found = shutil.which("nginx")
    if found:
        return found
    for cand in ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"):
        if os.access(cand, os.X_OK):
            return cand
    return None


@dataclass
class NginxMessage:
    level: str
    message: str
    file: str | None
    line: int | None


@dataclass
class TestResult:
    ok: bool
    messages: list[NginxMessage] = field(default_factory=list)
    output: str = ""


class Sandbox:
    """A temporary nginx prefix holding a rebuilt copy of a configuration."""

    def __init__(self, prefix: str | None = None, backends: dict[str, str] | None = None,
                 paths: dict[str, str] | None = None):
        """`backends` maps original `host:port` to a stand-in `127.0.0.1:port` and `paths` maps filesystem
        prefixes (document roots, alias targets) to sandbox directories; both are used by `verify`."""
        self.prefix = Path(prefix or tempfile.mkdtemp(prefix="a2n-nginx-"))
        self.backends = dict(backends or {})
        self.paths = dict(paths or {})
        self.conf = self.prefix / "conf" / "nginx.conf"
        self.linemap: dict[int, tuple[str, int]] = {}
        self._lines: list[str] = []
        self._cert: tuple[str, str] | None = None
        self.extra_http: list[str] = []
        self.sockets: dict[str, str] = {}
        self.upstream_names: set[str] = set()
        self.src_dir = Path(".")

    def cleanup(self) -> None:
        shutil.rmtree(self.prefix, ignore_errors=True)

    # -- certificates --------------------------------------------------------
    def certificate(self) -> tuple[str, str]:
        if self._cert is None:
            d = self.prefix / "certs"
            d.mkdir(parents=True, exist_ok=True)
            crt, key = d / "sandbox.crt", d / "sandbox.key"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                            "-days", "2", "-keyout", str(key), "-out", str(crt)],
                           check=True, capture_output=True, timeout=60)
            self._cert = (str(crt), str(key))
        return self._cert

    @staticmethod
    def _usable_pair(block: list[dict]) -> bool:
        """The block's own certificate and key can be loaded here as they are."""
        for d in block:
            if d["directive"] in ("ssl_certificate", "ssl_certificate_key", "proxy_ssl_certificate",
                                  "proxy_ssl_certificate_key") and d.get("args"):
                value = d["args"][0]
                if "$" in value or value.startswith("data:"):
                    continue
                try:
                    data = Path(value).read_bytes()
                except OSError:
                    return False
                if d["directive"].endswith("_key") and b"PRIVATE KEY" not in data:
                    return False
        return True

    def _cert_arg(self, name: str, value: str, usable: bool) -> str:
        if "$" in value or value.startswith("data:"):
            return value
        if usable and os.access(value, os.R_OK):
            return value
        crt, key = self.certificate()
        if name.endswith("_key"):
            return key
        if name in ("ssl_dhparam", "ssl_crl", "ssl_stapling_file", "ssl_password_file", "ssl_session_ticket_key"):
            return "__drop__"
        return crt

    def _mapped(self, arg: str) -> str:
        for original, stand_in in self.backends.items():
            if original in arg:
                arg = re.sub(re.escape(original) + r"(?![0-9])", stand_in, arg)
        # the longest original first: an Alias target inside a DocumentRoot has a stand-in of its own
        for original, stand_in in sorted(self.paths.items(), key=lambda kv: -len(kv[0].rstrip("/"))):
            base = original.rstrip("/")
            if arg == original or arg == base or arg.startswith(base + "/"):
                return stand_in.rstrip("/") + arg[len(base):]
        return arg

    def port_for(self, port: int) -> int | None:
        """The sandbox port standing in for an original listening port (IPv4 or wildcard sockets)."""
        fallback = None
        for key, new in self.sockets.items():
            if key == str(port) or key.endswith(f":{port}"):
                if not key.startswith("["):
                    return int(new.rsplit(":", 1)[1])
                fallback = fallback or int(new.rsplit(":", 1)[1])   # an IPv6-only socket
        return fallback

    def _pass_target(self, url: str) -> str:
        m = re.match(r"^(?P<scheme>[a-z]+://)?(?P<host>[^/$]+)(?P<rest>.*)$", url)
        if not m or "$" in url.split("/")[2 if "://" in url else 0] or m.group("host") in self.upstream_names:
            return url
        host = self._default_port_backend(m.group("host"), (m.group("scheme") or "http://").startswith("https"))
        return (m.group("scheme") or "") + (host or _loopback(m.group("host"))) + m.group("rest")

    def _default_port_backend(self, host: str, tls: bool = False) -> str | None:
        """The stand-in for a backend written without a port (`proxy_pass http://app/`, `server app;`), which
        `backends` knows by its default port: 443 for https, else 80."""
        m = _HOSTPORT.match(host)
        if not m or m.group("port") or "$" in host:
            return None
        ports = ("443", "80") if tls else ("80", "443")
        return next((self.backends[f"{host}:{p}"] for p in ports if f"{host}:{p}" in self.backends), None)

    def _include(self, pattern: str) -> str:
        """Copy an included file (beside the source, else nginx's stock one) into the sandbox."""
        if os.path.isabs(pattern) or any(c in pattern for c in "*?["):
            return pattern
        for cand in (self.src_dir / pattern, Path("/etc/nginx") / pattern):
            if cand.is_file():
                dest = self.prefix / "conf" / pattern
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(cand, dest)
                break
        return pattern

    # -- sockets -------------------------------------------------------------
    def _listen(self, args: list[str]) -> list[str]:
        """Every distinct socket becomes its own free loopback port: `nginx -t` binds its
        sockets, and the real addresses (or privileged ports) are not ours to take."""
        key = args[0]
        if key.startswith("unix:"):
            new = f"unix:{self.prefix / ('sock-%d' % len(self.sockets))}"
        else:
            if key not in self.sockets:
                taken = {v.rsplit(":", 1)[1] for v in self.sockets.values()}
                self.sockets[key] = f"127.0.0.1:{free_port(taken)}"
            new = self.sockets[key]
        return [new] + [a for a in args[1:] if not a.startswith("ipv6only")]

    # -- building ------------------------------------------------------------
    def _emit(self, depth: int, text: str, origin: tuple[str, int] | None) -> None:
        self._lines.append("    " * depth + text)
        if origin:
            self.linemap[len(self._lines)] = origin

    def _block(self, block: list[dict], depth: int, ctx: str) -> None:
        usable = self._usable_pair(block)
        for d in block:
            name, args = d["directive"], list(d.get("args", []))
            origin = (d.get("_file", ""), d.get("line", 0))
            if name in ("pid", "error_log", "user") and ctx == "main":  # the sandbox's own; users differ here
                continue
            if name.endswith("_temp_path") and name in HTTP_TEMP_PATHS:
                continue
            if name == "include" and args:
                args = [self._include(args[0])]
            if name in CERT_DIRECTIVES and args:
                value = self._cert_arg(name, args[0], usable)
                if value == "__drop__":
                    continue
                args[0] = value
            if self.backends or self.paths:
                args = [self._mapped(a) for a in args]
            if name == "listen" and args and ctx != "main":
                args = self._listen(args)
            if name == "server" and ctx == "upstream" and args:
                args[0] = self._default_port_backend(args[0]) or _loopback(args[0])
            if name in ("proxy_set_header", "grpc_set_header") and len(args) > 1 and args[0].lower() == "host":
                # the Host a portless backend is sent: httpd, pointed at the stand-in, sends its host:port
                args[1] = self._default_port_backend(args[1]) or args[1]
            if name in PASS_DIRECTIVES and args:
                args[0] = self._pass_target(args[0])
            if name == "access_log" and args and args[0] != "off" and not args[0].startswith("syslog:"):
                args[0] = str(self.prefix / "logs" / "access.log")
            if name == "error_log" and args and not args[0].startswith(("syslog:", "stderr", "memory:")):
                args[0] = str(self.prefix / "logs" / "error.log")
            # Inside map/types blocks the "directive" is a key, which may be empty or need quotes.
            text = " ".join([_enquote(name) if name else '""'] + [_enquote(a) if a else '""' for a in args])
            if name == "if":   # crossplane drops the parentheses of an if condition
                text = "if (" + " ".join(_enquote(a) if a else '""' for a in args) + ")"
            if "block" in d:
                self._emit(depth, text + " {", origin)
                inner = name if name in ("http", "events", "upstream") else "block"
                if name == "http":
                    for p in HTTP_TEMP_PATHS:
                        self._emit(depth + 1, f"{p} {self.prefix / 'temp' / p};", None)
                    for extra in self.extra_http:
                        self._emit(depth + 1, extra, None)
                self._block(d["block"], depth + 1, inner)
                self._emit(depth, "}", None)
            else:
                self._emit(depth, text + ";", origin)

    def build(self, source: str) -> list[NginxMessage]:
        """Rebuild `source` (a file path) into the sandbox; returns crossplane's parse errors."""
        # single=True: includes stay directives; their files are copied into the sandbox below.
        payload = crossplane.parse(source, combine=False, check_ctx=False, check_args=False, comments=False,
                                   single=True)
        errors = [NginxMessage("emerg", e["error"].split(" in ")[0], e.get("file"), e.get("line"))
                  for e in payload.get("errors", [])]
        if errors:
            return errors
        config = payload["config"][0]
        parsed = config["parsed"]
        self._tag(parsed, config["file"])
        self.upstream_names = {d["args"][0] for d in _walk(parsed) if d["directive"] == "upstream" and d.get("args")}
        for p in ("logs", "temp", "conf"):
            (self.prefix / p).mkdir(parents=True, exist_ok=True)
        for p in HTTP_TEMP_PATHS:
            (self.prefix / "temp" / p).mkdir(parents=True, exist_ok=True)
        self.src_dir = Path(source).resolve().parent
        self._lines = []
        self.linemap = {}
        top_names = {d["directive"] for d in parsed}
        is_full = bool(top_names & {"http", "events", "stream", "mail"})
        self._emit(0, f"pid {self.prefix / 'nginx.pid'};", None)
        self._emit(0, f"error_log {self.prefix / 'logs' / 'error.log'};", None)
        if is_full:
            self._block(parsed, 0, "main")
        else:
            main_part = [d for d in parsed if d["directive"] in MAIN_ONLY - {"include", "http", "events"}]
            http_part = [d for d in parsed if d not in main_part]
            if not {d["directive"] for d in http_part} & {"types", "default_type"}:
                # a bare http-context file is included from an nginx.conf that loads the MIME types, as
                # Debian's does; without them every file would be text/plain
                http_part[:0] = [{"directive": "include", "args": [str(m)], "line": 0, "_file": ""}
                                 for m in MIME_TYPES if m.is_file()][:1]
                http_part.insert(0, {"directive": "default_type", "args": ["application/octet-stream"], "line": 0,
                                     "_file": ""})
            self._block(main_part, 0, "main")
            self._emit(0, "events {", None)
            self._emit(1, "worker_connections 1024;", None)
            self._emit(0, "}", None)
            self._block([{"directive": "http", "args": [], "block": http_part, "line": 0, "_file": ""}], 0, "main")
        self.conf.write_text("\n".join(self._lines) + "\n", encoding="utf-8")
        return []

    @staticmethod
    def _tag(block: list[dict], file: str) -> None:
        for d in block:
            d.setdefault("_file", d.get("file", file))
            if "block" in d:
                Sandbox._tag(d["block"], d["_file"])

    # -- running -------------------------------------------------------------
    def test(self, nginx: str, timeout: float = 60) -> TestResult:
        cmd = [nginx, "-t", "-q", "-p", str(self.prefix) + "/", "-c", str(self.conf), "-e",
               str(self.prefix / "logs" / "error.log")]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return TestResult(False, [NginxMessage("emerg", "nginx -t timed out", None, None)])
        messages = []
        for raw in proc.stderr.splitlines():
            m = _MESSAGE.match(raw.strip())
            if not m:
                continue
            file, line = m.group("file"), int(m.group("line")) if m.group("line") else None
            if file and line and Path(file) == self.conf and line in self.linemap:
                file, line = self.linemap[line]
            elif file and Path(file) == self.conf:
                file = None
            if str(self.prefix / "certs") in m.group("msg") and m.group("level") == "warn":
                continue  # about the sandbox's stand-in certificate, not the user's configuration
            messages.append(NginxMessage(m.group("level"), m.group("msg"), file, line))
        return TestResult(proc.returncode == 0, messages, proc.stderr)


MIME_TYPES = (Path("/etc/nginx/mime.types"), Path("/usr/local/nginx/conf/mime.types"),
              Path("/usr/local/etc/nginx/mime.types"))


def _walk(block: list[dict]):
    for d in block:
        yield d
        if "block" in d:
            yield from _walk(d["block"])


def nginx_test(path: str, nginx: str) -> TestResult:
    box = Sandbox()
    try:
        errors = box.build(path)
        if errors:
            return TestResult(False, errors)
        return box.test(nginx)
    finally:
        box.cleanup()
