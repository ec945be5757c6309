"""Running the user's Apache configuration in a loopback sandbox.

The configuration goes through the same loader as `convert` (includes
inlined, conditionals resolved) and is written back out with only sandbox
edits: a preamble that loads the modules the directives need from Debian's
module directory and sets User/Group, PidFile, Mutex and DefaultRuntimeDir
inside the sandbox; every listening socket moved to a free loopback port;
backends replaced by echo servers; document roots and alias targets moved to
sandbox directories; certificates replaced by a generated pair; logs kept
inside the sandbox.

httpd here may lack what the input's machine has. A directive of a module not
installed here (mod_wsgi, mod_php...) is commented out; a file a directive
needs and this machine lacks (DH parameters, CA paths, ticket keys, RewriteMap
sources, MIME files) gets a stand-in, registered in `paths` so that nginx's
sandbox reads the same one; a certificate stand-in holds its key too (httpd
reads the key from the certificate file when no SSLCertificateKeyFile is set).
Synthesised roots live at their original absolute paths under a prefix, and
every <Directory>/<DirectoryMatch>, DocumentRoot and Alias target moves under
the same prefix, so each section governs the files it governed. Each change
is a note (`ApacheSandbox.notes`) for the report.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..catalogue import known
from ..lint.sandbox import free_port, rebased_regex
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
# Directives that need a program of their own besides the module: without it httpd refuses the line
HELPERS = {"suexecusergroup": ("/usr/lib/apache2/suexec", "suexec")}
# Modules that use another's symbols: that one is loaded, and loaded first (httpd refuses an undefined symbol)
REQUIRES = {
    "dav_fs": ["dav"], "dav_lock": ["dav"], "authnz_ldap": ["ldap"], "authn_dbd": ["dbd"], "authz_dbd": ["dbd"],
    "session_cookie": ["session"], "session_crypto": ["session"], "session_dbd": ["session", "dbd"],
    "auth_form": ["session", "request"], "cache_disk": ["cache"], "cache_socache": ["cache"],
    "proxy_html": ["xml2enc"], "lbmethod_heartbeat": ["proxy_balancer"], "proxy_hcheck": ["proxy"],
    "proxy_http2": ["proxy"], "proxy_ajp": ["proxy"], "proxy_scgi": ["proxy"], "proxy_uwsgi": ["proxy"],
    "proxy_connect": ["proxy"], "proxy_ftp": ["proxy"], "proxy_express": ["proxy"], "proxy_fdpass": ["proxy"],
    "authnz_fcgi": [], "socache_dbm": [], "heartmonitor": [],
}


def load_order(modules: set[str]) -> list[str]:
    """Every module with what it requires, each after what it requires (alphabetical otherwise)."""
    out: list[str] = []
    seen: set[str] = set()
    for first in sorted(modules):
        stack = [(first, False)]
        while stack:
            name, expanded = stack.pop()
            if name in seen:
                continue
            if expanded:
                seen.add(name)
                out.append(name)
                continue
            stack.append((name, True))
            stack.extend((dep, False) for dep in reversed(REQUIRES.get(name, [])) if dep not in seen)
    return out
DROPPED = {"loadmodule", "loadfile", "user", "group", "pidfile", "mutex", "defaultruntimedir", "serverroot",
           "lockfile", "scoreboardfile", "coredumpdirectory", "listen", "sslmutex", "sslstaplingcache",
           "sslsessioncache", "sslrandomseed", "sslpassphrasedialog", "sslcertificatechainfile",
           "sslcacertificatepath", "sslcarevocationpath", "sslcarevocationfile", "listenbacklog",
           "include",
           "includeoptional"}
# Files a directive needs at startup: (directive, argument index) -> what stands in for it when the machine lacks
# the file ("cert", "key", "certkey": the generated pair; "dh": Diffie-Hellman parameters; "dir": an empty
# directory; "ticket": 48 random bytes; "empty": an empty file; "mime": the machine's mime.types).
# A certificate or key is always the generated one (the sandbox's own server identity); the rest are used as they
# are where the machine has them.
FILE_ARGS = {
    ("sslcertificatefile", 0): "certkey", ("sslcertificatekeyfile", 0): "key",
    ("sslcacertificatefile", 0): "cert", ("sslproxycacertificatefile", 0): "cert",
    ("sslcadnrequestfile", 0): "cert", ("sslcadnrequestpath", 0): "dir",
    ("sslproxymachinecertificatefile", 0): "certkey", ("sslproxymachinecertificatepath", 0): "dir",
    ("sslproxymachinecertificatechainfile", 0): "cert", ("sslproxycacertificatepath", 0): "dir",
    ("sslsessionticketkeyfile", 0): "ticket", ("typesconfig", 0): "mime", ("mimemagicfile", 0): "empty",
    ("ldaptrustedglobalcert", 1): "cert", ("ldaptrustedclientcert", 1): "cert",
}
ALWAYS_GENERATED = {"cert", "key", "certkey"}
# SSLOpenSSLConfCmd commands whose value is a file
OPENSSL_FILE_CMDS = {"dhparameters": "dh", "certificate": "certkey", "privatekey": "key", "chaincertfile": "cert",
                     "verifycafile": "cert", "requestcafile": "cert", "clientcafile": "cert",
                     "chaincapath": "dir", "verifycapath": "dir"}
# Revocation checks need the CRLs the sandbox cannot have (they are dropped with them)
DROPPED_WITH_NOTE = {"sslcarevocationcheck": "its CRLs cannot exist in the sandbox",
                     "sslproxycarevocationcheck": "its CRLs cannot exist in the sandbox",
                     "sslproxycarevocationfile": "a CRL cannot be generated for it",
                     "sslproxycarevocationpath": "a CRL cannot be generated for it"}
# Paths httpd writes to at startup: moved inside the sandbox
RUNTIME_PATHS = {"scriptsock": "cgisock", "davlockdb": "davlock", "cacheroot": "cache/"}
FILTER_MODULES = {"DEFLATE": "deflate", "INFLATE": "deflate", "RATE_LIMIT": "ratelimit", "INCLUDES": "include",
                  "SUBSTITUTE": "substitute", "SED": "sed", "PROXY_HTML": "proxy_html", "XML2ENC": "xml2enc"}
# the mod_proxy submodule that speaks each backend URL scheme
SCHEME_MODULES = {"http": "proxy_http", "https": "proxy_http", "ws": "proxy_wstunnel", "wss": "proxy_wstunnel",
                  "fcgi": "proxy_fcgi", "uwsgi": "proxy_uwsgi", "scgi": "proxy_scgi", "ajp": "proxy_ajp",
                  "h2": "proxy_http2", "h2c": "proxy_http2", "ftp": "proxy_ftp"}
# (a redirect's target is a URL for the client, never a backend: Redirect keeps it as written, and so does a
# RewriteRule without [P])
URL_DIRECTIVES = {"proxypass", "proxypassmatch", "proxypassreverse", "balancermember", "sethandler", "proxyset",
                  "rewriterule", "<proxy", "<proxymatch"}
_PROXY_FLAG = re.compile(r"[\[,]\s*(P|proxy)\s*[,\]]", re.I)
# Require providers and the modules that register them.
AUTHZ_PROVIDERS = {"valid-user": "authz_user", "user": "authz_user", "group": "authz_groupfile",
                   "ip": "authz_host", "host": "authz_host", "forward-dns": "authz_host", "local": "authz_host",
                   "env": "authz_host", "ldap-user": "authnz_ldap", "ldap-group": "authnz_ldap",
                   "ldap-dn": "authnz_ldap", "ldap-attribute": "authnz_ldap", "ldap-filter": "authnz_ldap",
                   "ldap-search": "authnz_ldap", "dbm-group": "authz_dbm", "dbd-group": "authz_dbd",
                   "dbd-login": "authz_dbd", "dbd-logout": "authz_dbd", "file-owner": "authz_owner",
                   "file-group": "authz_owner"}
# Handlers that name the module providing them (loaded by Debian's default set, as in the translation).
HANDLER_MODULES = {"server-status": "status", "server-info": "info", "balancer-manager": "proxy_balancer",
                   "cgi-script": "cgi"}
PATH_DIRECTIVES = {"documentroot", "alias", "aliasmatch", "scriptalias", "scriptaliasmatch", "<directory",
                   "<directorymatch", "errordocument", "authuserfile", "authgroupfile"}
# (a RewriteRule [P] target may take its scheme from an [E=...] variable: %{ENV:protocol}://host/)
# a host that holds a request-time value (`${map:key}`, `%{HTTP_HOST}`, `$1`) names no backend: it stays as written.
_URL = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*|%\{ENV:[^}]+\})://(?P<host>\[[^\]]+\]|[^/:|\s\"${}%]++)"
                  r"(?![${}%])(?::(?P<port>\d+))?")
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


def collect_backends(config: LoadedConfig, extra_nodes=()) -> list[str]:
    """Every distinct backend `host:port` the configuration (and EXTRA_NODES: the directives of the .htaccess
    files httpd reads) proxies to, in order of appearance."""
    seen: list[str] = []
    for node in [*config.walk(), *extra_nodes]:
        key = ("<" if node.is_section else "") + node.key
        if key == "rewriterule" and len(node.args) > 2 and _PROXY_FLAG.search(node.args[2]):
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


_INSTALLED: set[str] | None = None


def installed_modules() -> set[str]:
    """The modules this httpd can have: compiled in, or a `mod_NAME.so` in Debian's module directory
    (names without `_module`)."""
    global _INSTALLED
    if _INSTALLED is None:
        found = {m[:-len("_module")] for m in BUILTIN}
        if MODULE_DIR.is_dir():
            found |= {f.name[len("mod_"):-len(".so")] for f in MODULE_DIR.glob("mod_*.so")}
        _INSTALLED = found
    return _INSTALLED


def module_of(node) -> str | None:
    """The module (name without `_module`) that registers a directive or section, where the catalogue knows it
    and it is no part of the core."""
    info = known(("<" if node.is_section else "") + node.name)
    if info is None or not info.module.endswith(".c"):
        return None
    mod = module_id(info.module)
    if mod in BUILTIN or mod.startswith("mpm_") or mod in ("core_module", "http_module"):
        return None
    return mod[:-len("_module")]


def where(node) -> str:
    return f"{node.file}:{node.line}" if getattr(node, "file", None) else f"line {node.line}"


def tls_backends(config: LoadedConfig, extra_nodes=()) -> set[str]:
    """The backends (`host:port`) the configuration (and EXTRA_NODES) reaches over TLS (`https://`, `wss://`):
    their echo stand-ins speak TLS too."""
    out = set()
    for node in [*config.walk(), *extra_nodes]:
        if node.key not in ("proxypass", "proxypassmatch", "balancermember", "sethandler", "rewriterule"):
            continue
        for arg in node.args:
            for m in _URL.finditer(arg.removeprefix("proxy:")):
                if m.group("scheme").lower() in ("https", "wss", "h2"):
                    out.add(backend_key(m.group("scheme"), m.group("host"), m.group("port")))
    return out


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
        self._written_backends: list[str] | None = None
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
        # what the sandbox changed beyond moving sockets, backends and roots: notes for the report, each once
        self._notes: dict[str, list[str]] = {}
        for note in getattr(paths, "notes", ()):
            self._notes.setdefault(note, [])
        self.base = getattr(paths, "base", None)   # the synthesised roots' prefix: <base><original path>
        # stand-ins both servers read live where the nginx run finds them too (this sandbox is gone by then)
        self.standins = Path(getattr(paths, "work", None) or self.prefix) / "stand-ins"
        self._made: dict[tuple[str, str], str] = {}

    @property
    def notes(self) -> list[str]:
        """One line a change: what, then where (`site.conf:3, 7, 9` for several lines of one file)."""
        out = []
        for text, places in self._notes.items():
            by_file: dict[str, list[str]] = {}
            for place in places:
                file, _, line = place.rpartition(":")
                by_file.setdefault(file, []).append(line)
            where_ = "; ".join(f"{file}:{', '.join(lines)}" for file, lines in by_file.items())
            out.append(f"{text} ({where_})" if places else text)
        return out

    def note(self, text: str, node=None) -> None:
        places = self._notes.setdefault(text, [])
        if node is not None and where(node) not in places:
            places.append(where(node))

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

    def _proxy_section_url(self, url: str) -> str:
        """A <Proxy URL> section's URL in the sandbox. httpd's proxy_walk compares the section's text with the
        request's proxy URL as the ProxyPass line (or BalancerMember, [P] rule) wrote it, a plain prefix
        comparison: `<Proxy http://backend/>` does not apply to `ProxyPass /a/ http://backend:80/a/` (observed:
        httpd 2.4.71 proxies there). The stand-ins give both spellings one text, so a section whose text is the
        prefix of no backend URL the input writes keeps its own and matches nothing, as in httpd."""
        if any(c in url for c in "*?[") or url.startswith("balancer:") or \
                any(target.startswith(url) for target in self._backend_urls()):
            return self._map_urls(url)
        return url

    def _backend_urls(self) -> list[str]:
        """The backend URLs the input writes (ProxyPass and ProxyPassMatch targets, BalancerMembers, SetHandler
        proxy: handlers, [P] rules' substitutions), as written."""
        if self._written_backends is None:
            found = []
            for node in [*self.config.walk(), *self.extra_nodes]:
                if node.is_section:
                    continue
                if node.key in ("proxypass", "proxypassmatch", "balancermember", "sethandler") or \
                        (node.key == "rewriterule" and len(node.args) > 2 and _PROXY_FLAG.search(node.args[2])):
                    found += [a.removeprefix("proxy:") for a in node.args if "://" in a]
            self._written_backends = found
        return self._written_backends

    def _map_url_pattern(self, pattern: str) -> str:
        """A <ProxyMatch> regex in the sandbox: its backend host and port, written with escaped dots
        (`^http://127\\.0\\.0\\.1:9003/`), become the stand-in's. The pattern then reads every `\\.` as `.`,
        which still matches each URL it matched."""
        plain = pattern.replace("\\.", ".")
        mapped = self._map_urls(plain)
        return pattern if mapped == plain else mapped

    def _map_path(self, arg: str) -> str:
        for original, stand_in in sorted(self.paths.items(), key=lambda kv: -len(kv[0])):
            base = original.rstrip("/")
            if arg == original or arg == base or arg.startswith(base + "/"):
                return stand_in.rstrip("/") + arg[len(base):]
        return arg

    def _map_fs(self, arg: str) -> str:
        """A filesystem path of a <Directory>, DocumentRoot or Alias target: its stand-in, else (roots synthesised
        under a prefix) the same path under that prefix, so that every <Directory> applies to the synthesised
        files as it would to the originals."""
        quote = arg[0] if len(arg) > 1 and arg[0] == arg[-1] and arg[0] in "\"'" else ""
        inner = arg[1:-1] if quote else arg     # (a section's argument keeps its quotes)
        mapped = self._map_path(inner)
        if mapped == inner and self.base and inner.startswith("/"):
            mapped = self.base.rstrip("/") + inner
        elif mapped == inner and not self.base and inner.startswith("/") and inner.rstrip("/"):
            mapped = self._ancestor(inner)
        return quote + mapped + quote

    def _ancestor(self, directory: str) -> str:
        """A user's --docroot stands in for a root: a <Directory> above that root (Debian's /var/www/ above
        /var/www/html), or above an Alias target synthesised outside it (a directory or a file), governs the
        same many levels above the stand-in, if that is not `/` itself."""
        d = directory.rstrip("/")
        work = getattr(self.paths, "work", None)
        synthesised = os.path.join(work, "fs", "") if work else None
        for original, stand_in in sorted(self.paths.items(), key=lambda kv: -len(kv[0])):
            o = original.rstrip("/")
            # a root, or a synthesised Alias target that names a file (not a password file or other stand-in)
            if not o.startswith(d + "/") or not (os.path.isdir(stand_in) or synthesised
                                                 and stand_in.startswith(synthesised)):
                continue
            up = o[len(d):].count("/")
            target = Path(stand_in)
            for _ in range(up):
                target = target.parent
            if str(target) != "/" and len(target.parts) > 1:
                return str(target) + ("/" if directory.endswith("/") else "")
            return directory
        return directory

    def _map_regex(self, pattern: str) -> str:
        """A <DirectoryMatch> (or <Directory ~>) pattern anchored at `/`: anchored at the same path under the
        synthesised roots' prefix, or where its literal head lies under a user's --docroot, on that stand-in
        (an unanchored one matches there as it did)."""
        quote = pattern[0] if len(pattern) > 1 and pattern[0] == pattern[-1] and pattern[0] in "\"'" else ""
        inner = pattern[1:-1] if quote else pattern
        if not self.base and inner.startswith("^/"):
            return quote + rebased_regex(inner, self.paths) + quote
        if not self.base or not inner.startswith("^/"):
            return pattern
        literal = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", self.base.rstrip("/"))
        return quote + "^" + literal + inner[1:] + quote

    def _resolve(self, path: str) -> str:
        """A file path as httpd reads it: a relative one under the configuration's ServerRoot."""
        if os.path.isabs(path):
            return path
        return (self.config.server_root or "/etc/apache2").rstrip("/") + "/" + path

    def _stand_in(self, path: str, kind: str, node) -> str:
        """The file httpd reads for a directive's `path`: the generated certificate or key, the machine's file
        where it exists, else a stand-in written into the sandbox (noted)."""
        resolved = self._resolve(path.strip('"'))
        name = node.name
        if kind in ALWAYS_GENERATED:
            if kind == "certkey":
                combined = self.standins / "verify-cert-and-key.pem"
                if not combined.exists():
                    self.standins.mkdir(parents=True, exist_ok=True)
                    combined.write_text(Path(self.cert[0]).read_text() + Path(self.cert[1]).read_text())
                    os.chmod(combined, 0o644)
                target = str(combined)
            else:
                target = self.cert[0 if kind == "cert" else 1]
            if not os.path.exists(resolved):
                self.note(f"generated {'certificate' if kind == 'cert' else 'key' if kind == 'key' else 'certificate and key'}"
                          f" in place of {path}, which this machine lacks ({name})", node)
            return target
        if kind == "mime":
            if os.path.isfile(resolved) and os.access(resolved, os.R_OK):
                return resolved
            self.note(f"the machine's /etc/mime.types in place of {path}, which this machine lacks ({name})", node)
            return "/etc/mime.types"
        if (os.path.isdir(resolved) if kind == "dir" else os.path.isfile(resolved)) and os.access(resolved, os.R_OK):
            return resolved
        key = (kind, resolved)
        if key not in self._made:
            self.standins.mkdir(parents=True, exist_ok=True)
            os.chmod(self.standins, 0o755)
            target = self.standins / f"{len(self._made)}-{re.sub(r'[^A-Za-z0-9._-]', '_', os.path.basename(resolved.rstrip('/')))[:80] or 'file'}"
            if kind == "dir":
                target.mkdir()
                os.chmod(target, 0o755)
            elif kind.startswith("dbm"):
                source = self.standins / f"{target.name}.txt"
                source.write_text("")
                dbm_type = kind.partition("=")[2].upper()     # (RewriteMap's dbm=sdbm: httxt2dbm's -f SDBM)
                subprocess.run(["httxt2dbm", "-i", str(source), "-o", str(target)]
                               + (["-f", dbm_type] if dbm_type else []), capture_output=True, timeout=30)
                for made in self.standins.glob(target.name + "*"):
                    os.chmod(made, 0o644)
            elif kind == "prg":
                target.write_bytes(_stand_in_bytes(kind))
                os.chmod(target, 0o755)
            else:
                target.write_bytes(_stand_in_bytes(kind))
                os.chmod(target, 0o644)
            self._made[key] = str(target)
            if isinstance(self.paths, dict):
                # the translation names the same file: nginx's sandbox reads the same stand-in
                self.paths.setdefault(path.strip('"'), str(target))
                self.paths.setdefault(resolved, str(target))
        kind = "dbm" if kind.startswith("dbm") else kind
        what = {"dh": "Diffie-Hellman parameters", "dir": "empty directory", "ticket": "random ticket key",
                "map": "empty map", "dbm": "empty DBM map", "prg": "map program answering NULL"}.get(kind, "empty file")
        self.note(f"stand-in ({what}) for {path} ({name})", node)
        return self._made[key]

    @staticmethod
    def _ssl_on(nodes) -> bool:
        return any(not n.is_section and n.key == "sslengine" and n.args and n.args[0].lower() == "on"
                   for n in nodes)

    @staticmethod
    def _certified(nodes) -> bool:
        return any(not n.is_section and (n.key == "sslcertificatefile" or n.key == "sslopensslconfcmd"
                                         and n.args and n.args[0].lower() == "certificate") for n in nodes)

    def _incomplete(self) -> bool:
        """Whether the input includes files this machine lacks (a certificate may be named there)."""
        import glob
        for node in self.config.consumed:
            if node.key not in ("include", "includeoptional"):
                continue
            for pattern in node.args:
                candidates = [pattern] if os.path.isabs(pattern) else \
                    [str(Path(d) / pattern) for d in {os.path.dirname(node.file or "") or ".",
                                                      self.config.server_root or "/etc/apache2"}]
                if not any(glob.glob(c) for c in candidates):
                    return True
        return False

    def _needs_certificate(self, vhost) -> bool:
        """A TLS virtual host with no certificate anywhere in the input: httpd refuses it, unless the input
        includes files this machine lacks, where it may be (then the generated pair stands in for it)."""
        top = [n for n in self.config.children if not n.is_section]
        return self._ssl_on(vhost.children) and not self._certified(vhost.walk()) and not self._certified(top) \
            and "ssl" in installed_modules() and self._incomplete()

    def _missing_module(self, node) -> str | None:
        """The module a directive or section needs that this httpd does not have (it would refuse the line)."""
        mod = module_of(node)
        return mod if mod and mod not in installed_modules() else None

    def _rewrite_map(self, node, args: list[str]) -> list[str]:
        """RewriteMap's source as httpd reads it at startup: the file the translation read, else a stand-in."""
        if len(args) < 2:
            return args
        kind, colon, source = args[1].partition(":")
        kind_l = kind.lower()
        if not colon or kind_l not in ("txt", "rnd", "dbm", "prg") and not kind_l.startswith("dbm="):
            return args
        if kind_l == "prg":
            program, _, rest = source.partition(" ")
            if os.path.isfile(program) and os.access(program, os.X_OK):
                return args
            return [args[0], f"prg:{self._stand_in(program, 'prg', node)}"] + args[2:]
        found = self.config.locate(source) if self.config.locate is not None else None
        if found is not None and Path(found).is_file():
            return [args[0], f"{kind}:{Path(found).resolve()}"] + args[2:]
        resolved = self._resolve(source)
        if kind_l.startswith("dbm"):
            if any(os.path.exists(resolved + ext) for ext in ("", ".db", ".pag", ".dir")):
                return args
            stand_in = self._stand_in(source, kind_l, node)
            return [args[0], f"{kind}:{stand_in}"] + args[2:]
        return [args[0], f"{kind}:{self._stand_in(source, 'map', node)}"] + args[2:]

    def _need(self, node: Directive) -> None:
        for arg in node.args:
            for token in re.split(r"[;\s]+", arg):
                if token.upper() in FILTER_MODULES:
                    self.modules.add(FILTER_MODULES[token.upper()])
            if node.key == "loglevel" and ":" in arg:
                self.modules.add(arg.split(":", 1)[0].lower())
        if node.key == "rewritemap" and len(node.args) > 1 and node.args[1].lower().startswith(("dbd:", "fastdbd:")):
            self.modules.add("dbd")
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
        if node.key in ("scriptalias", "scriptaliasmatch"):
            # its URLs are handed to cgi-script: without mod_cgi httpd's default handler would serve the
            # programs' text (200 with the onsuccess headers), which the translation (fcgiwrap) never does
            self.modules.add("cgi")
        if node.key == "rewriterule" and len(node.args) > 2:
            forced = re.search(r"\bH(?:ANDLER)?=([^,\]]+)", node.args[2], re.I)   # RewriteRule [H=handler]
            if forced and forced.group(1).strip().lower() in HANDLER_MODULES:
                self.modules.add(HANDLER_MODULES[forced.group(1).strip().lower()])
        if node.key in ("proxypass", "proxypassmatch", "balancermember", "sethandler", "rewriterule", "proxyset") \
                or (node.is_section and node.key in ("proxy", "proxymatch")):
            # a backend URL's scheme needs its mod_proxy submodule, loaded wherever such a URL is used (Debian
            # ships them all; an input that names uwsgi:// enables mod_proxy_uwsgi)
            for arg in node.args:
                for m in re.finditer(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*)://", arg):
                    name = SCHEME_MODULES.get(m.group(1).lower())
                    if name and name in installed_modules():
                        self.modules.update([name, "proxy"])
        if any("balancer://" in a.lower() for a in node.args):
            for dep in ["proxy_balancer"] + DEPENDENCIES["proxy_balancer"]:
                self.modules.add(dep)
        name = module_of(node)
        if name is None or name not in installed_modules():
            return
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
            helper = HELPERS.get(key)
            if helper and not os.access(helper[0], os.X_OK):
                self.note(f"commented out {node.name} ({helper[1]} not installed)", node)
                lines.append(f"{pad}# {node.name} ... ({helper[1]} is not installed)")
                continue
            missing = self._missing_module(node)
            if missing:
                # httpd here cannot load the module: it would refuse the whole configuration for this line
                self.note(f"commented out {'<' + node.name + '>' if node.is_section else node.name} "
                          f"(mod_{missing} not installed)", node)
                lines.append(f"{pad}# {'<' + node.name if node.is_section else node.name} ... "
                             f"(mod_{missing} is not installed)")
                continue
            self._need(node)
            if node.is_section:
                args = list(node.args)
                skey = "<" + key
                if key == "virtualhost":
                    args = self._vhost_args(args)
                elif key == "proxy" and args:
                    args = [self._proxy_section_url(args[0])] + [self._map_urls(a) for a in args[1:]]
                elif key == "proxymatch" and args:
                    args = [self._map_url_pattern(args[0])] + args[1:]
                elif skey in URL_DIRECTIVES:
                    args = [self._map_urls(a) for a in args]
                elif key == "directorymatch" and args:
                    args = [self._map_regex(args[0])] + args[1:]
                elif key == "directory" and args:
                    args = ([args[0], self._map_regex(args[1])] + args[2:] if args[0] == "~" and len(args) > 1
                            else [self._map_fs(args[0])] + args[1:])
                elif skey in PATH_DIRECTIVES:
                    args = [self._map_path(a) for a in args]
                lines.append(f"{pad}<{node.name}{' ' if args else ''}{' '.join(quote_arg(a) for a in args)}>")
                lines.extend(self.render(node.children, depth + 1))
                if key == "virtualhost" and self._needs_certificate(node):
                    # TLS with no certificate in the input, which includes files this machine lacks: the
                    # generated pair stands in for the one they name
                    self.note("generated certificate and key for a TLS <VirtualHost> that names none", node)
                    lines.append(f"{pad}    SSLCertificateFile {quote_arg(self._stand_in('', 'certkey', node))}")
                lines.append(f"{pad}</{node.name}>")
                continue
            if key in DROPPED:
                continue
            if key in DROPPED_WITH_NOTE:
                self.note(f"left out {node.name} ({DROPPED_WITH_NOTE[key]})", node)
                continue
            args = list(node.args)
            for i, arg in enumerate(args):
                kind = FILE_ARGS.get((key, i))
                if kind and arg:
                    args[i] = self._stand_in(arg, kind, node)
            if key == "sslopensslconfcmd" and len(args) > 1 and args[0].lower() in OPENSSL_FILE_CMDS:
                args[1] = self._stand_in(args[1], OPENSSL_FILE_CMDS[args[0].lower()], node)
            if key in RUNTIME_PATHS and args:
                target = self.prefix / RUNTIME_PATHS[key]
                if RUNTIME_PATHS[key].endswith("/"):
                    target.mkdir(exist_ok=True)
                    os.chmod(target, 0o777)
                args = [str(target)] + args[1:]
            if key == "errorlog":
                args = [str(self.prefix / "logs" / "error.log")]
            elif key in ("customlog", "transferlog", "forensiclog"):
                if args and args[0].startswith("|"):
                    continue
                self.log_count += 1
                args = [str(self.prefix / "logs" / f"access{self.log_count}.log")] + args[1:]
            elif key == "rewriterule":
                if len(args) > 2 and _PROXY_FLAG.search(args[2]):
                    args = [self._map_urls(a) for a in args]
            elif key in URL_DIRECTIVES:
                args = [self._map_urls(a) for a in args]
            elif key == "rewritemap":
                args = self._rewrite_map(node, args)
            if key in ("authuserfile", "authgroupfile") and args and not args[0].startswith("/"):
                # httpd's reading: under ServerRoot (the sandbox has its own ServerRoot)
                args = [self._resolve(args[0])] + args[1:]
            if key == "documentroot" and args:
                args = [self._map_fs(args[0])] + args[1:]
            elif key in ("alias", "aliasmatch", "scriptalias", "scriptaliasmatch") and len(args) > 1:
                args = args[:-1] + [self._map_fs(args[-1])]
            elif key in PATH_DIRECTIVES:
                args = [self._map_path(a) for a in args]
            if key == "rewriterule" and len(args) > 1 and "/" not in self.paths:
                # a substitution under a document root or alias target is a file path to httpd: the sandbox's
                # (not under a root of `/`, which would take every URL path for a file)
                args[1] = self._map_path(args[1])
            if key in ("rewriterule", "rewritecond"):
                # mod_rewrite reads its own arguments: quotes only group, nothing is unescaped
                lines.append(pad + " ".join([node.name] + [quote_rewrite_arg(a) for a in args]))
                continue
            if key in ("sslrequire", "proxyhcexpr") or (key == "require" and "expr" in [a.lower() for a in args[:2]]):
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
        top = [n for n in self.config.children if not n.is_section]
        if self._ssl_on(top) and not self._certified(top) and "ssl" in installed_modules() \
                and (not self.config.full_server_config or self._incomplete()):
            # (a site file or fragment: the main server's certificate is in the configuration that includes it)
            first = next(n for n in top if n.key == "sslengine")
            self.note("generated certificate and key for the main server's TLS, which names none", first)
            body.append(f"SSLCertificateFile {quote_arg(self._stand_in('', 'certkey', first))}")
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
        modules = [f"LoadModule {m}_module {MODULE_DIR / f'mod_{m}.so'}" for m in load_order(self.modules)
                   if (MODULE_DIR / f"mod_{m}.so").exists()]
        user = "User www-data\nGroup www-data\n" if os.geteuid() == 0 else ""
        preamble = (f"ServerRoot {self.prefix}\nPidFile {self.prefix}/httpd.pid\nMutex file:{self.prefix} default\n"
                    f"DefaultRuntimeDir {self.prefix}\nErrorLog {self.prefix}/logs/error.log\n"
                    f"ServerName {machine_name()}\n{user}" + "\n".join(modules) + "\n"
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
    def start(self, timeout: float = 15, attempts: int = 3) -> None:
        """Run httpd on the sandbox's configuration. A loopback port is chosen free, but another process may
        take it before httpd binds it ("Address already in use"): httpd is started again on new ports, up to
        ATTEMPTS times in all."""
        log = self.prefix / "logs" / "error.log"
        for attempt in range(attempts):
            conf = self.write()
            self.proc = subprocess.Popen([self.apache_bin, "-f", str(conf), "-DFOREGROUND"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if not wait_for_ports(set(self.ports.values()), self.proc, timeout, lambda: _resumed(log)):
                return
            err = self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
            self.stop()
            text = (err or "") + (log.read_text() if log.exists() else "")
            if "Address already in use" in text and attempt + 1 < attempts:
                self.ports.clear()
                log.unlink(missing_ok=True)
                continue
            changed = ("\nthe sandbox changed: " + "; ".join(self.notes)) if self.notes else ""
            raise RuntimeError("httpd did not start: " + text + changed)

    def stop(self) -> None:
        stop_process(self.proc)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.prefix, ignore_errors=True)


def machine_name() -> str:
    """The name httpd gives a server with no ServerName in the input, in the sandbox: the machine's host name.
    (httpd resolves the host name to a fully qualified one at startup; the translation's nginx sends $hostname,
    the host name itself, so the sandbox models a machine whose host name is its fully qualified name rather
    than inventing one, like `localhost`, that neither server would use.)"""
    import socket
    return socket.gethostname() or "localhost"


def directive_names(nodes) -> set[str]:
    out = set()
    for n in nodes:
        out.add(n.key)
        if isinstance(n, Section):
            out |= directive_names(n.children)
    return out


_DH_PARAMS: bytes | None = None


def _stand_in_bytes(kind: str) -> bytes:
    global _DH_PARAMS
    if kind == "dh":
        if _DH_PARAMS is None:
            # RFC 7919's ffdhe2048 group: named, so nothing is computed
            _DH_PARAMS = subprocess.run(["openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt",
                                         "group:ffdhe2048"], check=True, capture_output=True, timeout=60).stdout
        return _DH_PARAMS
    if kind == "ticket":
        return os.urandom(48)
    if kind == "prg":
        return b"#!/bin/sh\nwhile read -r line; do echo NULL; done\n"
    return b""


def _resumed(log: Path) -> bool:
    """httpd has finished its post-config hooks: the MPM logged AH00489 ("resuming normal operations"),
    which it does whatever the LogLevel."""
    try:
        return b"AH00489" in log.read_bytes()
    except OSError:
        return False
