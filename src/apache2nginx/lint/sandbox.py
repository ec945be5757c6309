"""Running the real `nginx -t` (or, for verify, nginx itself) on a configuration without touching the system.

The configuration is never re-rendered. source.py reads the file given and
the files it includes (confined, regular files only, size-capped, loops
refused); each file is copied into a temporary prefix with edits made on its
own text at the offsets of the words they change (lexer.py follows nginx's
lexer), so quoted `#`, `;`, `{`, spaces, `${` and empty strings reach nginx
byte for byte, and every line stays on its line: nginx's messages map back to
the user's file and line by the file name alone.

The edits:

* `include`: the vetted copy in the sandbox (`<prefix>/files/<original path>`);
  a glob becomes one include per file it matched, in glob(3)'s order; a refused
  include reads an empty file instead;
* `listen`: every valid address becomes a free loopback port (nginx -t binds
  its sockets; the real addresses are not ours), distinct sockets staying
  distinct and equal ones equal; an address nginx would reject is left as
  written so that nginx rejects it;
* host names nginx -t resolves (upstream servers, *_pass, resolver,
  set_real_ip_from, syslog servers) become 127.0.0.1: lint sends no DNS query;
* every path nginx -t may create or open for writing (access_log, error_log,
  *_temp_path, *_cache_path, pid, lock_file, unix sockets) moves under
  `<prefix>/w/`, a path with variables keeping its variables (so that "buffered
  logs cannot have variables in name" still fires);
* `load_module` only from the installed module directory;
* certificates that cannot be loaded here are replaced by a generated pair;
* an http block gets the sandbox's access log and temp paths it does not set
  itself (nginx's compiled-in ones are /var/log/nginx and /var/lib/nginx); a
  bare http-context file is wrapped in `events {}` and `http {}` on its first
  line.

For lint (`lint=True`) nginx -t runs as nobody when lint runs as root, with
its error log in the sandbox (`-e`) and a timeout.
"""
from __future__ import annotations

import grp
import ipaddress
import os
import pwd
import re
import resource
import shutil
import socket
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import source as source_mod
from .lexer import Stmt, Word, quote, walk as _walk

HTTP_TEMP_PATHS = ("client_body_temp_path", "proxy_temp_path", "fastcgi_temp_path", "uwsgi_temp_path",
                   "scgi_temp_path")
CACHE_PATHS = ("proxy_cache_path", "fastcgi_cache_path", "uwsgi_cache_path", "scgi_cache_path")
CERT_DIRECTIVES = {"ssl_certificate", "ssl_certificate_key", "ssl_trusted_certificate", "ssl_client_certificate",
                   "proxy_ssl_certificate", "proxy_ssl_certificate_key", "proxy_ssl_trusted_certificate",
                   "ssl_dhparam", "ssl_crl", "ssl_stapling_file", "ssl_password_file", "ssl_session_ticket_key",
                   "proxy_ssl_crl", "proxy_ssl_password_file", "grpc_ssl_certificate", "grpc_ssl_certificate_key",
                   "grpc_ssl_trusted_certificate", "grpc_ssl_crl", "grpc_ssl_password_file",
                   "uwsgi_ssl_certificate", "uwsgi_ssl_certificate_key", "uwsgi_ssl_trusted_certificate",
                   "uwsgi_ssl_crl", "uwsgi_ssl_password_file"}
# ssl_conf_command names OpenSSL's SSL_CONF_cmd takes a file or directory for: nginx -t opens them as it loads
# the configuration (a FIFO there blocks nginx -t in open()).
CONF_COMMANDS = {"ssl_conf_command", "proxy_ssl_conf_command", "grpc_ssl_conf_command", "uwsgi_ssl_conf_command"}
CONF_COMMAND_FILES = {"certificate", "privatekey", "serverinfofile", "dhparameters", "verifycafile",
                      "verifycapath", "chaincafile", "chaincapath", "requestcafile", "clientcafile",
                      "clientcapath", "verifycastore", "chaincastore", "requestcastore"}
_PAIR = {"ssl_certificate", "ssl_certificate_key", "proxy_ssl_certificate", "proxy_ssl_certificate_key",
         "grpc_ssl_certificate", "grpc_ssl_certificate_key", "uwsgi_ssl_certificate", "uwsgi_ssl_certificate_key"}
# Blocks whose lines are keys and values read by the block's own handler, not directives.
CUSTOM_BLOCKS = {"map", "geo", "types", "split_clients", "charset_map", "match"}
MODULE_DIRS = ("/usr/lib/nginx/modules", "/usr/share/nginx/modules")
NGINX_PREFIX = "/usr/share/nginx"     # Debian's --prefix: where a relative load_module path points
_MESSAGE = re.compile(r"^nginx: \[(?P<level>\w+)\] (?P<msg>.*?)(?: in (?P<file>\S+):(?P<line>\d+))?$")
_IGNORED_WARNINGS = ('the "user" directive makes sense only if the master process runs with super-user',)

PASS_DIRECTIVES = {"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass"}
_HOSTPORT = re.compile(r"^(?P<host>\[[^\]]+\]|[^:/]+)(?::(?P<port>\d+))?$")
_DNS_NAME = re.compile(r"^(?=.*[A-Za-z])[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?"
                       r"(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$")
_INT_MAX = 2 ** 63 - 1


def rebased_regex(regex: str, paths: dict[str, str]) -> str:
    """REGEX, over a file name and anchored on a literal path (`^/srv/www/ad[^/]*/`), anchored on the stand-in
    of the original path of PATHS its head lies under (a user's --docroot), as a <Directory> under that path
    moves along with it; as it is where its head lies under none."""
    literal, ends, i = "", [1], 1
    while regex.startswith("^/") and i < len(regex):
        if regex[i] == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            literal, i = literal + regex[i + 1], i + 2
        elif regex[i] in ".^$*+?()[]{}|\\":
            break
        else:
            literal, i = literal + regex[i], i + 1
        ends.append(i)
    for original, stand_in in sorted(paths.items(), key=lambda kv: -len(kv[0].rstrip("/"))):
        base = original.rstrip("/")
        if base and literal.startswith(base + "/"):
            head = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", stand_in.rstrip("/"))
            return "^" + head + regex[ends[len(base)]:]
    return regex


def _dollars(path: str) -> str:
    """PATH as the translation writes a literal `$` in it (model.written_literally)."""
    return path.replace("$", "${a2n_dollar}")


def _literal_file(value: str) -> str | None:
    """The file VALUE names where it reads no variable but `${a2n_dollar}` (a literal `$`: see `_dollars`);
    None where it reads others (a file nginx picks per request or handshake)."""
    if "$" in value.replace("${a2n_dollar}", ""):
        return None
    return value.replace("${a2n_dollar}", "$")


def free_port(taken: set = frozenset()) -> int:
    """A free loopback port not in `taken` (the kernel may hand the same port out twice in a row)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if str(port) not in taken and port not in taken:
            return port


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
        return True
    except ValueError:
        return False


def _loopback(address: str) -> str:
    """A host name becomes 127.0.0.1 (same port): nginx -t resolves names, the sandbox must not need DNS."""
    if address.startswith("unix:"):
        return address
    m = _HOSTPORT.match(address)
    if not m:
        return address
    host = m.group("host")
    if host.startswith("[") or _is_ipv4(host) or "$" in host:
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
    column: int | None = None


@dataclass
class TestResult:
    ok: bool
    messages: list[NginxMessage] = field(default_factory=list)
    output: str = ""


def _atoi(text: str) -> int | None:
    """ngx_atoi(): digits only, None on anything else or overflow."""
    if not text or not text.isdigit() or not text.isascii():
        return None
    n = int(text)
    return n if n <= _INT_MAX else None


def _runner() -> tuple[int, int] | None:
    """The unprivileged (uid, gid) nginx -t runs as when lint runs as root; None otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        pw = pwd.getpwnam("nobody")
    except KeyError:
        return (65534, 65534)
    try:
        gid = grp.getgrnam("nogroup").gr_gid
    except KeyError:
        gid = pw.pw_gid
    return pw.pw_uid, gid


class Sandbox:
    """A temporary nginx prefix holding an edited copy of a configuration and the files it includes."""

    def __init__(self, prefix: str | None = None, backends: dict[str, str] | None = None,
                 paths: dict[str, str] | None = None, *, conf_prefix: str | None = None,
                 allow_include: tuple[str, ...] = (), lint: bool = False):
        """`backends` maps original `host:port` to a stand-in `127.0.0.1:port` and `paths` maps filesystem
        prefixes (document roots, alias targets) to sandbox directories; both are used by `verify`.
        `conf_prefix` is where relative includes resolve (default: the file's directory), `allow_include`
        more directories includes may read, `lint` runs nginx -t unprivileged and keeps `user`."""
        self.prefix = Path(prefix or tempfile.mkdtemp(prefix="a2n-nginx-"))
        self.backends = dict(backends or {})
        self.paths = dict(paths or {})
        # where verify's synthesised roots live (each under its original absolute path): a test of a file name
        # anchored at `/` is anchored there too, as httpd's sandbox does for <DirectoryMatch>
        self.regex_base: str | None = getattr(paths, "base", None)
        self.conf_prefix = conf_prefix
        self.allow_include = tuple(allow_include)
        self.lint = lint
        self.conf = self.prefix / "conf" / "nginx.conf"
        self.files_dir = self.prefix / "files"
        self.orig_dir = self.prefix / "orig"
        self.write_dir = self.prefix / "w"
        self.linemap: dict[int, tuple[str, int]] = {}      # kept for callers; lines now map one to one
        self._cert: tuple[str, str] | None = None
        self.extra_http: list[str] = []
        self.sockets: dict[str, str] = {}
        self._socket_keys: dict[tuple, str] = {}
        self.upstream_names: set[str] = set()
        self.src_dir = Path(".")
        self.source: source_mod.Source | None = None
        self.refusals: list[NginxMessage] = []
        self.orig_main: Path | None = None
        self.runner = _runner() if lint else None
        self._empty = self.prefix / "empty.conf"
        self._unix = 0

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
                           check=True, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
            self._cert = (str(crt), str(key))
        return self._cert

    def _file_state(self, value: str) -> str:
        """'ok' (nginx can read it here), 'unreadable', or 'special' (a device, FIFO...: never to be opened)."""
        try:
            st = os.stat(value)
        except OSError:
            return "unreadable"
        if not stat.S_ISREG(st.st_mode):
            return "special"
        if self.runner is None:
            return "ok" if os.access(value, os.R_OK) else "unreadable"
        uid, gid = self.runner
        if not _reachable(value, uid, gid):
            return "unreadable"
        mode = st.st_mode
        readable = (mode & stat.S_IROTH) or (st.st_uid == uid and mode & stat.S_IRUSR) or \
            (st.st_gid == gid and mode & stat.S_IRGRP)
        return "ok" if readable else "unreadable"

    def _usable_pair(self, block: list[Stmt]) -> bool:
        """The block's own certificate and key can be loaded here as they are."""
        for st in block:
            if st.name in _PAIR and len(st.words) > 1:
                value = _literal_file(st.words[1].value)
                if value is None or value.startswith("data:"):
                    continue
                if self._file_state(value) != "ok":
                    return False
                if st.name.endswith("_key"):
                    try:
                        with open(value, "rb") as fh:
                            data = fh.read(1 << 20)
                    except OSError:
                        return False
                    if b"PRIVATE KEY" not in data:
                        return False
        return True

    def _cert_arg(self, name: str, value: str, usable: bool) -> str:
        path = _literal_file(value)
        if path is None or value.startswith("data:"):
            return value
        if usable and self._file_state(path) == "ok":
            return value
        crt, key = self.certificate()
        if name.endswith("_key"):
            return key
        if name not in ("ssl_certificate", "proxy_ssl_certificate", "grpc_ssl_certificate",
                        "uwsgi_ssl_certificate") and not name.endswith("trusted_certificate") \
                and not name.endswith("client_certificate"):
            return "__drop__"
        return crt

    def _mapped(self, arg: str) -> str:
        for original, stand_in in self.backends.items():
            if original in arg:
                arg = re.sub(re.escape(original) + r"(?![0-9])", stand_in, arg)
        # the longest original first: an Alias target inside a DocumentRoot has a stand-in of its own. A path
        # holding a `$` is written with `${a2n_dollar}` for it (NginxModel.literal): its stand-in is too.
        for original, stand_in in sorted(self.paths.items(), key=lambda kv: -len(kv[0].rstrip("/"))):
            for base, write in ((original.rstrip("/"), str), (_dollars(original.rstrip("/")), _dollars)):
                if arg == base or arg == original or arg.startswith(base + "/"):
                    return write(stand_in.rstrip("/")) + arg[len(base):]
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

    # -- paths ---------------------------------------------------------------
    def _write_path(self, value: str, keep_variables: bool = False) -> str:
        """Where a path nginx may create or open for writing goes in the sandbox: under <prefix>/w, at its
        normalised original place (relative paths under w/prefix). A path with variables keeps them."""
        base = self.write_dir if value.startswith("/") else self.write_dir / "prefix"
        if keep_variables and "$" in value:
            literal, rest = value[: value.index("$")], value[value.index("$"):]
            cut = literal.rfind("/") + 1
            head = os.path.normpath("/" + literal[:cut]).lstrip("/")
            target_dir = base / head if head else base
            target_dir.mkdir(parents=True, exist_ok=True)
            return str(target_dir).rstrip("/") + "/" + literal[cut:] + rest
        target = Path(str(base) + os.path.normpath("/" + value))
        target.parent.mkdir(parents=True, exist_ok=True)
        return str(target)

    def _unmap_text(self, text: str) -> str:
        """A message with the sandbox's paths put back to the user's."""
        text = text.replace(str(self.conf), self._main or str(self.conf))
        text = text.replace(str(self.files_dir) + "/", "/").replace(str(self.orig_dir) + "/", "/")
        text = text.replace(str(self.write_dir / "prefix") + "/", "").replace(str(self.write_dir) + "/", "/")
        return text

    # -- sockets -------------------------------------------------------------
    def _listen_address(self, value: str) -> tuple[tuple, str | None] | None:
        """(socket key, error) for a listen address nginx accepts as written and can be moved to loopback;
        None for one nginx rejects by itself (left as written so that it does)."""
        if value.startswith("unix:"):
            return ("unix", value), None
        if value.startswith("["):
            m = re.fullmatch(r"\[(?P<addr>[^\]]*)\](?::(?P<port>.*))?", value)
            if not m:
                return None
            try:
                ipaddress.IPv6Address(m.group("addr"))
            except ValueError:
                return None
            port = 80 if m.group("port") is None else _atoi(m.group("port"))
            if port is None or not 1 <= port <= 65535:
                return None
            return ("ipv6", str(ipaddress.IPv6Address(m.group("addr"))), port), None
        if ":" in value:
            host, _, port_text = value.rpartition(":")
            port = _atoi(port_text)
            if port is None or not 1 <= port <= 65535:
                return None
        else:
            port = _atoi(value)
            if port is not None:
                return (("ipv4", "*", port), None) if 1 <= port <= 65535 else None
            host, port = value, 80
        if host in ("*", "") or host == "0.0.0.0":
            return ("ipv4", "*", port), None
        if _is_ipv4(host):
            return ("ipv4", host, port), None
        if _DNS_NAME.match(host):
            return ("name", host.lower(), port), None
        # nginx would look this "name" up with DNS, and no name is written so
        return ("bad", value), f'host not found in "{value}" of the "listen" directive'

    def _listen(self, value: str) -> tuple[str | None, str | None]:
        found = self._listen_address(value)
        if found is None:
            return None, None
        key, error = found
        if key[0] == "unix":
            if key not in self._socket_keys:
                self._unix += 1
                self._socket_keys[key] = f"unix:{self.prefix / ('sock-%d' % self._unix)}"
            return self._socket_keys[key], error
        if key not in self._socket_keys:
            taken = {v.rsplit(":", 1)[1] for v in self._socket_keys.values() if not v.startswith("unix:")}
            self._socket_keys[key] = f"127.0.0.1:{free_port(taken)}"
        self.sockets.setdefault(value, self._socket_keys[key])
        return self._socket_keys[key], error

    # -- building ------------------------------------------------------------
    def build(self, source: str) -> list[NginxMessage]:
        """Copy `source` (a file path) and its includes into the sandbox with the sandbox's edits; returns what
        was refused (includes outside the allowed directories, loops, devices, modules from elsewhere...),
        each located in the user's file. The sandbox is complete either way: a refused include reads an empty
        file, a refused directive is blanked."""
        src = source_mod.load(source, self.conf_prefix, self.allow_include)
        self.source = src
        self._main = src.main
        self.src_dir = Path(src.main).parent
        for p in ("logs", "conf", "files", "orig", "w"):
            (self.prefix / p).mkdir(parents=True, exist_ok=True)
        for p in HTTP_TEMP_PATHS:
            (self.prefix / "temp" / p).mkdir(parents=True, exist_ok=True)
        self._empty.write_text("")
        self.refusals = [NginxMessage("refused", r.message, r.file, r.line, r.column) for r in src.refusals]
        if src.main not in src.files:
            return self.refusals
        self.upstream_names = {st.words[1].value for sf in src.files.values() for st in _walk(sf.parsed.stmts)
                               if st.name == "upstream" and len(st.words) > 1}
        main_names = self._level_names(src.main, src.files[src.main].parsed.stmts)
        is_full = bool(main_names & {"http", "events", "stream", "mail"})
        for path, sf in src.files.items():
            context = sf.context if path != src.main else "main"
            if not is_full and context == "main":
                context = "http"      # a bare http-context file and what it includes at its top level
            run_text = self._edit(sf, context, run=True)
            orig_text = self._edit(sf, context, run=False)
            self._write(self.orig_dir, path, orig_text)
            if path == src.main:
                self.orig_main = self.orig_dir / path.lstrip("/")
                if is_full:
                    head = "" if "pid" in main_names else f"pid {quote(str(self.prefix / 'nginx.pid'))}; "
                    self.conf.write_bytes((head + run_text).encode("latin-1"))
                else:
                    self.conf.write_bytes((self._wrapper_head(main_names) + run_text + "\n}\n").encode("latin-1"))
            else:
                self._write(self.files_dir, path, run_text)
        if self.runner:
            self._hand_over()
        return self.refusals

    def _write(self, base: Path, path: str, text: str) -> None:
        dest = base / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(text.encode("latin-1"))

    def _hand_over(self) -> None:
        """Give the sandbox to the unprivileged user nginx -t runs as."""
        uid, gid = self.runner   # type: ignore[misc]
        for dirpath, dirnames, filenames in os.walk(self.prefix):
            os.lchown(dirpath, uid, gid)
            for name in filenames + dirnames:
                os.lchown(os.path.join(dirpath, name), uid, gid)

    def _wrapper_head(self, names: set[str]) -> str:
        """events {} and http { (on line 1, before the file's own first line) around a bare http-context file."""
        parts = [f"pid {quote(str(self.prefix / 'nginx.pid'))};", "events { worker_connections 1024; }", "http {"]
        if not names & {"types", "default_type"}:
            # a bare http-context file is included from an nginx.conf that loads the MIME types, as Debian's
            # does; without them every file would be text/plain
            parts.append("default_type application/octet-stream;")
            for m in MIME_TYPES:
                if m.is_file():
                    dest = self.files_dir / str(m).lstrip("/")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(m, dest)
                    parts.append(f"include {quote(str(dest))};")
                    break
        parts += self._http_additions(names)
        return " ".join(parts) + " "

    def _http_additions(self, names: set[str]) -> list[str]:
        out = [f"access_log {quote(str(self.prefix / 'logs' / 'access.log'))};"]
        out += [f"{p} {quote(str(self.prefix / 'temp' / p))};" for p in HTTP_TEMP_PATHS if p not in names]
        return out + list(self.extra_http)

    def _level_names(self, path: str, stmts: list[Stmt]) -> set[str]:
        """The directive names at one level (a file's top, or a block), includes at that level expanded."""
        names: set[str] = set()
        seen: set[str] = set()

        def visit(file: str, block: list[Stmt]) -> None:
            for st in block:
                names.add(st.name)
                inc = self.source.includes.get((file, st.start)) if st.name == "include" else None  # type: ignore
                for t in inc.targets if inc else ():
                    if t not in seen and t in self.source.files:   # type: ignore[union-attr]
                        seen.add(t)
                        visit(t, self.source.files[t].parsed.stmts)  # type: ignore[union-attr]
        visit(path, stmts)
        return names

    def _edit(self, sf: source_mod.SourceFile, context: str, run: bool) -> str:
        edits: list[tuple[int, int, str]] = []
        base = self.files_dir if run else self.orig_dir

        def replace(word: Word, value: str) -> None:
            if value != word.value:
                edits.append((word.start, word.end, quote(value)))

        def blank(st: Stmt) -> None:
            end = st.block_end if st.block_end is not None else st.end
            edits.append((st.start, end, re.sub(r"[^\n]", " ", sf.text[st.start:end])))

        def visit(block: list[Stmt], ctx: str, over: str = "") -> None:
            usable = self._usable_pair(block) if run else True
            for st in block:
                name = st.name
                if name == "include" and (sf.path, st.start) in self.source.includes:   # type: ignore[union-attr]
                    self._edit_include(sf, st, base, edits)
                    continue
                if ctx in CUSTOM_BLOCKS and run and (self.backends or self.paths):
                    for w in st.words[1:]:      # a map's values may be paths and backends too (verify)
                        replace(w, self._mapped(w.value))
                    if ctx == "map" and over in ("$request_filename", "$a2n_walk_file"):
                        replace(st.words[0], self._file_name_key(st.words[0].value))
                if ctx in CUSTOM_BLOCKS or not run:
                    if st.block is not None:
                        visit(st.block, name if ctx not in CUSTOM_BLOCKS else ctx, over)
                    continue
                self._edit_directive(sf, st, ctx, usable, replace, blank, edits)
                if st.block is not None:
                    visit(st.block, name, st.words[1].value if name == "map" and len(st.words) > 1 else "")

        visit(sf.parsed.stmts, context)
        return _apply(sf.text, edits)

    def _file_name_regex(self, regex: str) -> str:
        """REGEX, a test of a file name anchored at `/` (`^/srv/www/shop/?$`), anchored under verify's synthesised
        roots (each under its original absolute path), as httpd's sandbox does for <DirectoryMatch>; or, with a
        user's --docroot, under the stand-in of the path its head lies under."""
        if not regex.startswith("^/"):
            return regex
        if self.regex_base:
            literal = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", self.regex_base.rstrip("/"))
            return "^" + literal + regex[1:]
        return rebased_regex(regex, self.paths)

    def _file_name_key(self, key: str) -> str:
        """KEY, an entry of a map over $request_filename (or over $a2n_walk_file, the name httpd's directory walk
        stops at, which the translation takes from it): a regular expression anchored at `/` (`~^/srv/...`,
        `~*^/srv/...`) moves with the roots as an `if ($request_filename ~ ...)` test does (the translation
        gates the onsuccess headers of a refusal a left-out <Directory ~> may lift with one); any other as it is."""
        m = re.match(r"~\*?", key)
        return key[:m.end()] + self._file_name_regex(key[m.end():]) if m else key

    def _edit_include(self, sf, st: Stmt, base: Path, edits: list) -> None:
        inc = self.source.includes[(sf.path, st.start)]   # type: ignore[union-attr]
        if len(st.words) != 2:
            return
        word = st.words[1]
        if inc.refused:
            edits.append((word.start, word.end, quote(str(self._empty))))
        elif inc.missing:
            edits.append((word.start, word.end, quote(str(base / inc.missing.lstrip("/")))))
        elif any(c in word.value for c in "*?["):
            text = " ".join(f"include {quote(str(base / t.lstrip('/')))};" for t in inc.targets)
            old = sf.text[st.start:st.end]
            edits.append((st.start, st.end, text + "\n" * old.count("\n")))
        elif inc.targets:
            edits.append((word.start, word.end, quote(str(base / inc.targets[0].lstrip("/")))))

    def _refuse(self, sf, word: Word, message: str, level: str = "refused") -> None:
        """A located refusal; level "emerg" for what nginx -t itself would say, which lint says in its stead."""
        start = word.start
        column = start - (sf.text.rfind("\n", 0, start) + 1) + 1
        self.refusals.append(NginxMessage(level, message, sf.path, word.line, column))

    def _edit_directive(self, sf, st: Stmt, ctx: str, usable: bool, replace, blank, edits: list) -> None:
        name, words = st.name, st.words
        args = words[1:]
        if self.backends or self.paths:
            for w in args:
                replace(w, self._mapped(w.value))
            args = [Word(self._mapped(w.value), w.start, w.end, w.line, w.quote) for w in args]

        def set_arg(i: int, value: str) -> None:
            w = args[i]
            if value != w.value:
                # replace() compares with the word as written: drop an earlier edit of the same word
                edits[:] = [e for e in edits if e[0] != w.start]
                edits.append((w.start, w.end, quote(value)))
                args[i] = Word(value, w.start, w.end, w.line, w.quote)

        if name == "if" and len(args) >= 3 and args[0].value == "($request_filename" \
                and args[1].value in ("~", "~*", "!~", "!~*") and args[2].value.startswith("^/"):
            set_arg(2, self._file_name_regex(args[2].value))
        if ctx == "main" and name == "user" and not self.lint:
            blank(st)      # verify runs nginx as root; its workers stay the default user
            return
        if ctx == "main" and name == "user" and len(args) in (1, 2):
            self._check_user(sf, args)
        if name == "load_module" and len(args) == 1:
            self._load_module(sf, st, args[0], set_arg, blank)
            return
        if name == "ssl_engine" and len(args) == 1 and ("/" in args[0].value or "." in args[0].value):
            self._refuse(sf, args[0], f"ssl_engine {args[0].value} names a file: an engine may only be a "
                                      "name OpenSSL knows; not loaded")
            blank(st)
            return
        if name in CONF_COMMANDS and len(args) == 2 and args[0].value.lower() in CONF_COMMAND_FILES:
            if self._conf_command_file(sf, name, args):
                blank(st)
                return
        if not args:
            if name == "http" and st.block is not None and ctx == "main":
                pass
            else:
                return
        if name == "listen" and args:
            new, error = self._listen(args[0].value)
            if new is not None:
                set_arg(0, new)
            if error:
                self._refuse(sf, args[0], error, "emerg")
            for i, w in enumerate(args[1:], 1):
                if w.value in ("ipv6only=on", "ipv6only=off") and not (new or "").startswith("["):
                    edits.append((w.start, w.end, " " * (w.end - w.start)))
        elif name == "server" and ctx == "upstream":
            set_arg(0, self._default_port_backend(args[0].value) or _loopback(args[0].value))
        elif name in ("proxy_set_header", "grpc_set_header") and len(args) > 1 and args[0].value.lower() == "host":
            # the Host a portless backend is sent: httpd, pointed at the stand-in, sends its host:port
            set_arg(1, self._default_port_backend(args[1].value) or args[1].value)
        elif name in PASS_DIRECTIVES or (name == "proxy_pass"):
            set_arg(0, self._pass_target(args[0].value))
        elif name == "resolver":
            for i, w in enumerate(args):
                if "=" not in w.value:
                    set_arg(i, _loopback(w.value))
        elif name == "set_real_ip_from":
            v = args[0].value
            if not v.startswith("unix:") and not re.fullmatch(r"[0-9a-fA-F:.]+(/\d+)?", v):
                set_arg(0, "127.0.0.1")
        elif name == "auth_http":
            set_arg(0, self._pass_target(args[0].value))
        elif name in ("access_log", "error_log"):
            v = args[0].value
            if v.startswith("syslog:"):
                set_arg(0, re.sub(r"(server=)(\[[^\]]*\]|[^,:]*)", r"\g<1>127.0.0.1", v))
            elif name == "access_log" and v != "off":
                set_arg(0, self._write_path(v, keep_variables=True))
            elif name == "error_log" and not v.startswith(("stderr", "memory:")):
                set_arg(0, self._write_path(v))
        elif name in HTTP_TEMP_PATHS or name in CACHE_PATHS or (ctx == "main" and name in ("pid", "lock_file")):
            set_arg(0, self._write_path(args[0].value))
        elif name in CERT_DIRECTIVES:
            v = args[0].value
            if v and "$" not in v and not v.startswith(("data:", "/")):
                v = os.path.join(self.source.prefix, v)     # type: ignore[union-attr]   # nginx: the conf prefix
                set_arg(0, v)
            if "$" not in v and not v.startswith("data:") and self._file_state(v) == "special":
                self._refuse(sf, args[0], f"{name} {v} is not a regular file: not read")
                usable = False
            value = self._cert_arg(name, v, usable)
            if value == "__drop__":
                blank(st)
                return
            set_arg(0, value)
        if name == "http" and st.block is not None and ctx == "main":
            names = self._level_names(sf.path, st.block)
            edits.append((st.end, st.end, " " + " ".join(self._http_additions(names)) + " "))

    def _conf_command_file(self, sf, name: str, args: list[Word]) -> bool:
        """ssl_conf_command hands its value to OpenSSL, which nginx -t opens as a file like ssl_dhparam's: a FIFO
        or device there is refused before nginx -t runs, as for the certificate directives (True: refused)."""
        v = args[1].value
        if not v or "$" in v:
            return False
        path = v if v.startswith("/") else os.path.join(str(self.prefix), v)
        if self._file_state(path) != "special":
            return False
        self._refuse(sf, args[1], f"{name} {args[0].value} {v} is not a regular file: not read")
        return True

    def _check_user(self, sf, args: list[Word]) -> None:
        """nginx -t as root checks the user and group exist; run unprivileged it cannot, so lint does."""
        user = args[0].value
        group = args[1].value if len(args) > 1 else user
        try:
            pwd.getpwnam(user)
        except KeyError:
            self._refuse(sf, args[0], f'getpwnam("{user}") failed', "emerg")
            return
        try:
            grp.getgrnam(group)
        except KeyError:
            self._refuse(sf, args[-1], f'getgrnam("{group}") failed', "emerg")

    def _load_module(self, sf, st: Stmt, word: Word, set_arg, blank) -> None:
        value = word.value
        path = value if value.startswith("/") else os.path.join(NGINX_PREFIX, value)
        real = os.path.realpath(path)
        dirs = {os.path.realpath(d) for d in MODULE_DIRS}
        if os.path.dirname(real) not in dirs:
            self._refuse(sf, word, f"load_module {value} is not in the installed module directory "
                                   f"({', '.join(MODULE_DIRS)}): not loaded")
            blank(st)
            return
        try:
            st_ = os.stat(real)
        except OSError:
            set_arg(0, real)      # nginx reports the missing module
            return
        if not stat.S_ISREG(st_.st_mode):
            self._refuse(sf, word, f"load_module {value} is not a regular file: not loaded")
            blank(st)
            return
        set_arg(0, real)

    # -- running -------------------------------------------------------------
    def test(self, nginx: str, timeout: float = 60) -> TestResult:
        cmd = [nginx, "-t", "-q", "-p", str(self.prefix) + "/", "-c", str(self.conf), "-e",
               str(self.prefix / "logs" / "error.log")]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                                  cwd=str(self.prefix), errors="replace", preexec_fn=_confine(self.runner),
                                  env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"})
        except subprocess.TimeoutExpired:
            return TestResult(False, [NginxMessage("emerg", "nginx -t timed out", self._main, None)])
        messages = []
        for raw in proc.stderr.splitlines():
            m = _MESSAGE.match(raw.strip())
            if not m:
                continue
            msg = m.group("msg")
            if m.group("level") == "warn" and (msg.startswith(_IGNORED_WARNINGS)
                                               or str(self.prefix / "certs") in msg):
                continue  # about the sandbox itself, not the user's configuration
            file, line = m.group("file"), int(m.group("line")) if m.group("line") else None
            if file:
                file = self._unmap_text(file)
            messages.append(NginxMessage(m.group("level"), self._unmap_text(msg), file, line))
        return TestResult(proc.returncode == 0, messages, self._unmap_text(proc.stderr))

    _main: str | None = None


def _confine(runner: tuple[int, int] | None):
    """What nginx -t's process does before it execs: no core dumps, no huge files, at most 1 GB of address space
    (shared-memory zones are mapped by nginx -t itself: without a cap a few lines map gigabytes); as root, a network namespace
    of its own with only loopback (when the kernel allows one: nothing it resolves or connects to leaves the
    machine), then the unprivileged user."""
    def confine() -> None:
        for which, value in ((resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, 64 << 20), (resource.RLIMIT_AS, 1 << 30)):
            _, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))
        if runner is None:
            return
        _private_network()
        os.setgroups([])
        os.setgid(runner[1])
        os.setuid(runner[0])
        if os.getuid() != runner[0] or os.geteuid() != runner[0]:
            os._exit(126)
    return confine


def _private_network() -> None:
    try:
        import ctypes
        import fcntl
        import struct
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x40000000) != 0:      # CLONE_NEWNET
            return
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            # SIOCSIFFLAGS lo: IFF_UP | IFF_LOOPBACK | IFF_RUNNING
            fcntl.ioctl(s.fileno(), 0x8914, struct.pack("16sH22x", b"lo", 0x1 | 0x8 | 0x40))
    except (OSError, AttributeError):
        pass


def _reachable(path: str, uid: int, gid: int) -> bool:
    """Every directory above `path` can be entered by uid/gid."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        try:
            st = os.stat(d)
        except OSError:
            return False
        ok = (st.st_mode & stat.S_IXOTH) or (st.st_uid == uid and st.st_mode & stat.S_IXUSR) or \
            (st.st_gid == gid and st.st_mode & stat.S_IXGRP)
        if not ok:
            return False
        if d == "/":
            return True
        d = os.path.dirname(d)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, replacement) made; a replacement keeps the line count of what it replaces."""
    out, pos = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            continue      # overlapping: the first edit wins
        old = text[start:end]
        missing = old.count("\n") - new.count("\n")
        out.append(text[pos:start])
        out.append(new + "\n" * max(missing, 0))
        pos = end
    out.append(text[pos:])
    return "".join(out)


MIME_TYPES = (Path("/etc/nginx/mime.types"), Path("/usr/local/nginx/conf/mime.types"),
              Path("/usr/local/etc/nginx/mime.types"))


def nginx_test(path: str, nginx: str, conf_prefix: str | None = None,
               allow_include: tuple[str, ...] = ()) -> TestResult:
    """`nginx -t` on `path` in a sandbox: refusals (located) and nginx's own messages, mapped to the user's files."""
    box = Sandbox(conf_prefix=conf_prefix, allow_include=allow_include, lint=True)
    try:
        refused = box.build(path)
        if box.source is None or box.source.main not in box.source.files:
            return TestResult(False, refused)
        result = box.test(nginx)
        return TestResult(result.ok and not refused, refused + result.messages, result.output)
    finally:
        box.cleanup()
