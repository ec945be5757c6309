"""Running the real `nginx -t` on a configuration without touching the system.

The configuration is parsed with crossplane and rebuilt into a temporary
prefix: `pid`, the error log and the five temp paths point inside it, every
`listen` socket becomes a free loopback port (nginx -t binds them), a bare
http-context file is wrapped in `events {}`/`http {}`, a certificate and key
that cannot be loaded here (unreadable, or a "key" file with no private key)
are replaced by one generated self-signed pair, and
`include`d files are inlined. Each rebuilt line remembers the line of the
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

    def __init__(self, prefix: str | None = None):
        self.prefix = Path(prefix or tempfile.mkdtemp(prefix="a2n-nginx-"))
        self.conf = self.prefix / "conf" / "nginx.conf"
        self.linemap: dict[int, tuple[str, int]] = {}
        self._lines: list[str] = []
        self._cert: tuple[str, str] | None = None
        self.extra_http: list[str] = []
        self.sockets: dict[str, str] = {}

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

    # -- sockets -------------------------------------------------------------
    def _listen(self, args: list[str]) -> list[str]:
        """Every distinct socket becomes its own free loopback port: `nginx -t` binds its
        sockets, and the real addresses (or privileged ports) are not ours to take."""
        key = args[0]
        if key.startswith("unix:"):
            new = f"unix:{self.prefix / ('sock-%d' % len(self.sockets))}"
        else:
            if key not in self.sockets:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", 0))
                    self.sockets[key] = f"127.0.0.1:{s.getsockname()[1]}"
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
            if name in ("pid", "error_log") and ctx == "main":
                continue
            if name.endswith("_temp_path") and name in HTTP_TEMP_PATHS:
                continue
            if name == "include" and "block" not in d:
                continue  # already inlined by crossplane (combine)
            if name in CERT_DIRECTIVES and args:
                value = self._cert_arg(name, args[0], usable)
                if value == "__drop__":
                    continue
                args[0] = value
            if name == "listen" and args and ctx != "main":
                args = self._listen(args)
            if name == "access_log" and args and args[0] != "off" and not args[0].startswith("syslog:"):
                args[0] = str(self.prefix / "logs" / "access.log")
            if name == "error_log" and args and not args[0].startswith(("syslog:", "stderr", "memory:")):
                args[0] = str(self.prefix / "logs" / "error.log")
            text = " ".join([name] + [_enquote(a) for a in args])
            if "block" in d:
                self._emit(depth, text + " {", origin)
                inner = "http" if name == "http" else ("events" if name == "events" else "block")
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
        payload = crossplane.parse(source, combine=True, check_ctx=False, check_args=False, comments=False,
                                   single=False)
        errors = [NginxMessage("emerg", e["error"].split(" in ")[0], e.get("file"), e.get("line"))
                  for e in payload.get("errors", [])]
        if errors:
            return errors
        config = payload["config"][0]
        parsed = config["parsed"]
        self._tag(parsed, config["file"])
        for p in ("logs", "temp", "conf"):
            (self.prefix / p).mkdir(parents=True, exist_ok=True)
        for p in HTTP_TEMP_PATHS:
            (self.prefix / "temp" / p).mkdir(parents=True, exist_ok=True)
        src_dir = Path(source).resolve().parent
        for aux in ("mime.types", "fastcgi_params", "fastcgi.conf", "proxy_params", "uwsgi_params", "scgi_params"):
            for cand in (src_dir / aux, Path("/etc/nginx") / aux):
                if cand.is_file():
                    shutil.copy(cand, self.prefix / "conf" / aux)
                    break
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
            messages.append(NginxMessage(m.group("level"), m.group("msg"), file, line))
        return TestResult(proc.returncode == 0, messages, proc.stderr)


def nginx_test(path: str, nginx: str) -> TestResult:
    box = Sandbox()
    try:
        errors = box.build(path)
        if errors:
            return TestResult(False, errors)
        return box.test(nginx)
    finally:
        box.cleanup()
