"""Running the user's Apache configuration in a loopback sandbox.

The configuration goes through the same loader as `convert` (includes
inlined, conditionals resolved) and is written back out with only sandbox
edits: a preamble that loads the modules the directives need from Debian's
module directory and sets User/Group, PidFile, Mutex and DefaultRuntimeDir
inside the sandbox; every listening socket moved to a free loopback port;
backends replaced by echo servers; document roots and alias targets moved to
sandbox directories; certificates replaced by a generated pair; logs kept
inside the sandbox.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..catalogue import known
from ..lint.sandbox import free_port
from ..syntax.loader import LoadedConfig
from ..syntax.modules import BUILTIN, module_id
from ..syntax.tree import Directive, Section
from .process import stop_process, wait_for_ports

MODULE_DIR = Path("/usr/lib/apache2/modules")
# mod_autoindex as in Debian's default set: a directory with no index file answers 403 there (404 without it)
BASE_MODULES = ["mpm_event", "authz_core", "authz_host", "mime", "dir", "autoindex", "alias", "headers", "env",
                "setenvif", "filter"]
DEPENDENCIES = {
    "proxy_balancer": ["proxy", "slotmem_shm", "lbmethod_byrequests", "lbmethod_bybusyness",
                       "lbmethod_bytraffic", "proxy_http"],
    "proxy": ["proxy_http", "proxy_wstunnel", "proxy_fcgi"],
    "proxy_fcgi": ["proxy"], "proxy_http": ["proxy"], "proxy_wstunnel": ["proxy"],   # ProxyFCGISetEnvIf alone
    "ssl": ["socache_shmcb"],
    "ratelimit": ["filter"],
    "deflate": ["filter"],
}
DROPPED = {"loadmodule", "loadfile", "user", "group", "pidfile", "mutex", "defaultruntimedir", "serverroot",
           "lockfile", "scoreboardfile", "coredumpdirectory", "listen", "sslmutex", "sslstaplingcache",
           "sslsessioncache", "sslrandomseed", "sslpassphrasedialog", "sslcertificatechainfile",
           "sslcacertificatepath", "sslcarevocationpath", "sslcarevocationfile", "listenbacklog",
           "accessfilename", "include",
           "includeoptional"}
CERT_KEYS = {"sslcertificatefile": 0, "sslcertificatekeyfile": 1, "sslcacertificatefile": 0,
             "sslproxycacertificatefile": 0}
FILTER_MODULES = {"DEFLATE": "deflate", "INFLATE": "deflate", "RATE_LIMIT": "ratelimit", "INCLUDES": "include",
                  "SUBSTITUTE": "substitute", "SED": "sed", "PROXY_HTML": "proxy_html", "XML2ENC": "xml2enc"}
URL_DIRECTIVES = {"proxypass", "proxypassmatch", "proxypassreverse", "balancermember", "sethandler", "proxyset",
                  "rewriterule",
                  "<proxy", "<proxymatch", "redirect", "redirectmatch", "redirectpermanent", "redirecttemp"}
# Require providers and the modules that register them.
AUTHZ_PROVIDERS = {"valid-user": "authz_user", "user": "authz_user", "group": "authz_groupfile",
                   "ip": "authz_host", "host": "authz_host", "forward-dns": "authz_host", "local": "authz_host"}
# Handlers that name the module providing them (loaded by Debian's default set, as in the translation).
HANDLER_MODULES = {"server-status": "status", "server-info": "info", "balancer-manager": "proxy_balancer",
                   "cgi-script": "cgi"}
PATH_DIRECTIVES = {"documentroot", "alias", "aliasmatch", "scriptalias", "scriptaliasmatch", "<directory",
                   "<directorymatch", "errordocument", "authuserfile", "authgroupfile"}
# (a RewriteRule [P] target may take its scheme from an [E=...] variable: %{ENV:protocol}://host/)
_URL = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*|%\{ENV:[^}]+\})://(?P<host>\[[^\]]+\]|[^/:|\s\"]+)(?::(?P<port>\d+))?")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "fcgi": 9000, "uwsgi": 3031, "ajp": 8009}
# a backend on a Unix domain socket: the socket is its identity (as the translation's upstream server), the URL
# after `|` only names it
_UNIX = re.compile(r"^unix:(?P<sock>/[^|]+)\|(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<host>[^/]*)(?P<rest>/.*)?$",
                   re.I)


def unix_hosts(config: LoadedConfig) -> dict[str, str]:
    """For each Unix-socket backend (`unix:/sock`), the host its URL names: httpd's Host header for it, which
    the stand-in (a loopback port) changes."""
    out = {}
    for node in config.walk():
        for arg in node.args if node.key in ("proxypass", "proxypassmatch", "balancermember", "sethandler") else ():
            m = _UNIX.match(arg.removeprefix("proxy:"))
            if m:
                out.setdefault(f"unix:{m.group('sock')}", m.group("host"))
    return out


def backend_key(scheme: str, host: str, port: str | None) -> str:
    return f"{host}:{port or DEFAULT_PORTS.get(scheme.lower(), 80)}"


def collect_backends(config: LoadedConfig) -> list[str]:
    """Every distinct backend `host:port` the configuration proxies to, in order of appearance."""
    seen: list[str] = []
    for node in config.walk():
        key = ("<" if node.is_section else "") + node.key
        if key == "rewriterule" and len(node.args) > 2 and re.search(r"[\[,]\s*(P|proxy)\s*[,\]]", node.args[2],
                                                                      re.I):
            pass   # a [P] rule's target is a backend too
        elif key not in ("proxypass", "proxypassmatch", "balancermember", "sethandler"):
            continue
        for arg in node.args:
            unix = _UNIX.match(arg.removeprefix("proxy:"))
            if unix:
                if f"unix:{unix.group('sock')}" not in seen:
                    seen.append(f"unix:{unix.group('sock')}")
                continue
            for m in _URL.finditer(arg):
                if m.group("scheme").lower() in ("balancer",):
                    continue
                k = backend_key(m.group("scheme"), m.group("host"), m.group("port"))
                if k not in seen:
                    seen.append(k)
    return seen


def quote_arg(value: str) -> str:
    if value and not re.search(r'[\s"\'\\]', value) and not value.startswith("#"):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_rewrite_arg(value: str) -> str:
    if value and not re.search(r"\s", value.replace("\\ ", "")):
        return value
    return ("'" + value + "'") if '"' in value else ('"' + value + '"')


class ApacheSandbox:
    def __init__(self, config: LoadedConfig, backends: dict[str, str], paths: dict[str, str],
                 cert: tuple[str, str], apache_bin: str, htaccess_dir: str | None = None, extra_nodes=()):
        self.htaccess_dir = htaccess_dir
        self.extra_nodes = list(extra_nodes)   # directives httpd reads elsewhere (.htaccess): their modules
        self.config = config
        self.backends = backends          # "host:port" -> "127.0.0.1:port"
        self.paths = paths                # original filesystem prefix -> sandbox directory
        self.cert = cert
        self.apache_bin = apache_bin
        self.prefix = Path(tempfile.mkdtemp(prefix="a2n-httpd-"))
        os.chmod(self.prefix, 0o755)
        (self.prefix / "logs").mkdir()
        self.ports: dict[tuple[str, int], int] = {}   # (address or "*", original port) -> sandbox port
        self.modules: set[str] = set(BASE_MODULES)
        self.proc: subprocess.Popen | None = None
        self.log_count = 0

    # -- rewriting -----------------------------------------------------------
    def _port(self, address: str, port: int) -> int:
        key = (address, port)
        if key not in self.ports:
            self.ports[key] = free_port(set(self.ports.values()))
        return self.ports[key]

    def _map_urls(self, arg: str) -> str:
        handler = "proxy:" if arg.lower().startswith("proxy:") else ""
        unix = _UNIX.match(arg[len(handler):])
        if unix and f"unix:{unix.group('sock')}" in self.backends:
            return f"{handler}{unix.group('scheme')}://{self.backends['unix:' + unix.group('sock')]}" \
                   f"{unix.group('rest') or ''}"

        def repl(m: re.Match) -> str:
            scheme = m.group("scheme")
            if scheme.lower() == "balancer":
                return m.group(0)
            k = backend_key(scheme, m.group("host"), m.group("port"))
            if k in self.backends:
                return f"{scheme}://{self.backends[k]}"
            return m.group(0)
        return _URL.sub(repl, arg)

    def _map_path(self, arg: str) -> str:
        for original, stand_in in sorted(self.paths.items(), key=lambda kv: -len(kv[0])):
            base = original.rstrip("/")
            if arg == original or arg == base or arg.startswith(base + "/"):
                return stand_in.rstrip("/") + arg[len(base):]
        return arg

    def _need(self, node: Directive) -> None:
        for arg in node.args:
            for token in re.split(r"[;\s]+", arg):
                if token.upper() in FILTER_MODULES:
                    self.modules.add(FILTER_MODULES[token.upper()])
            if node.key == "loglevel" and ":" in arg:
                self.modules.add(arg.split(":", 1)[0].lower())
        if node.key == "rewriterule" and len(node.args) > 2 and re.search(r"\bP\b|proxy", node.args[2], re.I):
            self.modules.update(["proxy", "proxy_http"])
        if node.key == "require" and node.args:
            provider = node.args[1 if node.args[0].lower() == "not" and len(node.args) > 1 else 0].lower()
            if provider in AUTHZ_PROVIDERS:
                self.modules.add(AUTHZ_PROVIDERS[provider])
        if node.key == "authtype" and node.args and node.args[0].lower() in ("basic", "digest"):
            self.modules.add("auth_" + node.args[0].lower())
            self.modules.add("authn_file")
        if node.key in ("sethandler", "addhandler") and node.args and node.args[0].lower() in HANDLER_MODULES:
            self.modules.add(HANDLER_MODULES[node.args[0].lower()])
        if node.key == "rewriterule" and len(node.args) > 2:
            forced = re.search(r"\bH(?:ANDLER)?=([^,\]]+)", node.args[2], re.I)   # RewriteRule [H=handler]
            if forced and forced.group(1).strip().lower() in HANDLER_MODULES:
                self.modules.add(HANDLER_MODULES[forced.group(1).strip().lower()])
        if any("balancer://" in a.lower() for a in node.args):
            for dep in ["proxy_balancer"] + DEPENDENCIES["proxy_balancer"]:
                self.modules.add(dep)
        info = known(("<" if node.is_section else "") + node.name)
        if info is None or not info.module.endswith(".c"):
            return
        mod = module_id(info.module)
        if mod in BUILTIN or mod.startswith("mpm_") or mod in ("core_module", "http_module"):
            return
        name = mod[:-len("_module")]
        self.modules.add(name)
        for dep in DEPENDENCIES.get(name, []):
            self.modules.add(dep)

    def _vhost_args(self, args: list[str]) -> list[str]:
        out = []
        for addr in args:
            host, _, port = addr.rpartition(":") if not addr.endswith("]") else (addr, "", "")
            if not host:
                host, port = addr, ""
            ports = [int(port)] if port.isdigit() else sorted({p for _, p in self.listens}) or [80]
            for p in ports:
                address = "*" if host in ("*", "_default_") else host
                out.append(f"*:{self._port(address, p)}")
        return out

    def render(self, nodes, depth: int = 0) -> list[str]:
        lines: list[str] = []
        pad = "    " * depth
        for node in nodes:
            key = node.key
            self._need(node)
            if node.is_section:
                args = list(node.args)
                skey = "<" + key
                if key == "virtualhost":
                    args = self._vhost_args(args)
                elif skey in URL_DIRECTIVES:
                    args = [self._map_urls(a) for a in args]
                elif skey in PATH_DIRECTIVES:
                    args = [self._map_path(a) for a in args]
                lines.append(f"{pad}<{node.name}{' ' if args else ''}{' '.join(quote_arg(a) for a in args)}>")
                lines.extend(self.render(node.children, depth + 1))
                lines.append(f"{pad}</{node.name}>")
                continue
            if key in DROPPED:
                continue
            args = list(node.args)
            if key in CERT_KEYS:
                args = [self.cert[CERT_KEYS[key]]]
            elif key == "errorlog":
                args = [str(self.prefix / "logs" / "error.log")]
            elif key in ("customlog", "transferlog"):
                if args and args[0].startswith("|"):
                    continue
                self.log_count += 1
                args = [str(self.prefix / "logs" / f"access{self.log_count}.log")] + args[1:]
            elif key in URL_DIRECTIVES:
                args = [self._map_urls(a) for a in args]
            elif key == "rewritemap" and len(args) > 1 and self.config.locate is not None:
                # the map file as the translation read it (a relative path means nothing in the sandbox)
                kind, colon, path = args[1].partition(":")
                found = self.config.locate(path) if colon and kind.lower() in ("txt", "rnd") else None
                if found is not None:
                    args = [args[0], f"{kind}:{found.resolve()}"] + args[2:]
            if key in ("authuserfile", "authgroupfile") and args and not args[0].startswith("/"):
                # httpd's reading: under ServerRoot (the sandbox has its own ServerRoot)
                args = [(self.config.server_root or "/etc/apache2").rstrip("/") + "/" + args[0]] + args[1:]
            if key in PATH_DIRECTIVES:
                args = [self._map_path(a) for a in args]
            if key == "rewriterule" and len(args) > 1 and "/" not in self.paths:
                # a substitution under a document root or alias target is a file path to httpd: the sandbox's
                # (not under a root of `/`, which would take every URL path for a file)
                args[1] = self._map_path(args[1])
            if key in ("rewriterule", "rewritecond"):
                # mod_rewrite reads its own arguments: quotes only group, nothing is unescaped
                lines.append(pad + " ".join([node.name] + [quote_rewrite_arg(a) for a in args]))
                continue
            if key == "sslrequire" or (key == "require" and "expr" in [a.lower() for a in args[:2]]):
                # mod_ssl reads the line raw (an expression): its words as written, quoted ones quoted
                lines.append(pad + " ".join([node.name] + [f'"{a}"' if q else a for a, q in zip(args, node.quoted)]))
                continue
            lines.append(pad + " ".join([node.name] + [quote_arg(a) for a in args]))
        return lines

    def write(self) -> Path:
        self.listens: list[tuple[str, int]] = []
        for node in self.config.walk():
            if not node.is_section and node.key == "listen" and node.args:
                text = node.args[0]
                host, _, port = text.rpartition(":")
                if not port.isdigit():
                    continue
                self.listens.append((host or "*", int(port)))
        body = self.render(self.config.children)
        for node in self.extra_nodes:
            self._need(node)
        if not self.ports and not self.listens:
            self._port("*", 80)   # a fragment: the translation serves it on port 80 too
        if self.htaccess_dir is not None:
            # A .htaccess input: httpd reads it per directory, so it runs inside that <Directory>.
            from ..passes.core import DEFAULT_DOCUMENT_ROOT
            root = self.paths.get(DEFAULT_DOCUMENT_ROOT, DEFAULT_DOCUMENT_ROOT).rstrip("/")
            directory = root + "/" + self.htaccess_dir.strip("/")
            body = [f"<Directory {quote_arg(directory.rstrip('/') or '/')}>", "    Options +FollowSymLinks"] + \
                ["    " + line for line in body] + ["</Directory>"]
            self.modules.add("rewrite")
        for name in list(self.modules):
            self.modules.update(DEPENDENCIES.get(name, []))
        for host, port in self.listens:
            self._port("*" if host in ("", "0.0.0.0", "[::]") else host, port)
        listen_lines = sorted({f"Listen 127.0.0.1:{p}" for p in self.ports.values()})
        modules = [f"LoadModule {m}_module {MODULE_DIR / f'mod_{m}.so'}" for m in sorted(self.modules)
                   if (MODULE_DIR / f"mod_{m}.so").exists()]
        user = "User www-data\nGroup www-data\n" if os.geteuid() == 0 else ""
        preamble = (f"ServerRoot {self.prefix}\nPidFile {self.prefix}/httpd.pid\nMutex file:{self.prefix} default\n"
                    f"DefaultRuntimeDir {self.prefix}\nErrorLog {self.prefix}/logs/error.log\n"
                    f"ServerName localhost\n{user}" + "\n".join(modules) + "\n"
                    "TypesConfig /etc/mime.types\n"
                    + (f"SSLSessionCache shmcb:{self.prefix}/scache(512000)\n"
                       f"SSLStaplingCache shmcb:{self.prefix}/stapling(32768)\n" if "ssl" in self.modules else "")
                    + "\n".join(listen_lines) + "\n")
        from ..passes.core import DEFAULT_DOCUMENT_ROOT
        if DEFAULT_DOCUMENT_ROOT in self.paths:
            # httpd's compiled-in DocumentRoot, moved into the sandbox like every other root.
            preamble += f"DocumentRoot {self.paths[DEFAULT_DOCUMENT_ROOT]}\n"
        conf = self.prefix / "httpd.conf"
        conf.write_text(preamble + "\n".join(body) + "\n", encoding="utf-8")
        return conf

    def port_for(self, port: int, address: str = "*") -> int | None:
        return self.ports.get((address, port)) or next((p for (a, o), p in self.ports.items() if o == port), None)

    # -- running -------------------------------------------------------------
    def start(self, timeout: float = 15) -> None:
        conf = self.write()
        self.proc = subprocess.Popen([self.apache_bin, "-f", str(conf), "-DFOREGROUND"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        log = self.prefix / "logs" / "error.log"
        if wait_for_ports(set(self.ports.values()), self.proc, timeout, lambda: _resumed(log)):
            err = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
            self.stop()
            raise RuntimeError("httpd did not start: " + (err or "") + (log.read_text() if log.exists() else ""))

    def stop(self) -> None:
        stop_process(self.proc)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)


def directive_names(nodes) -> set[str]:
    out = set()
    for n in nodes:
        out.add(n.key)
        if isinstance(n, Section):
            out |= directive_names(n.children)
    return out


def _resumed(log: Path) -> bool:
    """httpd has finished its post-config hooks: the MPM logged AH00489 ("resuming normal operations"),
    which it does whatever the LogLevel."""
    try:
        return b"AH00489" in log.read_bytes()
    except OSError:
        return False
