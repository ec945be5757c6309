"""`verify`: run real httpd on the Apache input and real nginx on its translation (or a given nginx
file) side by side on loopback, replay the same requests, and report every difference.

A difference is *explained* when the translation emitted a warning or error
diagnostic for a directive that applies to the request (inside the matching
virtual host and <Location>, or at server level); otherwise it is
*unexplained*, which is a bug in the translation or in the hand-written file.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import crossplane

from ..diagnostics import Diagnostic, Diagnostics, Severity
from ..emit.layout import segment_prefix
from ..lint.sandbox import Sandbox, find_nginx
from ..syntax.loader import LoadedConfig
from .apache_sandbox import ApacheSandbox, collect_backends, unix_hosts
from .backends import EchoBackends
from .compare import Comparator, Difference, Observation, send
from .process import stop_process, wait_for_ports
from .probes import Probe, VHostInfo, vhosts_of

INFO_EXPLAINERS = {"A2N405", "A2N226", "A2N339"}
FIELD_CODES = {
    "status": ("A2N226",),          # a 405 to a POST on a static file (A2N226 is a candidate only then)
    "connection": ("A2N222", "A2N221"),
    "backend header host": ("A2N320",),
    "backend": ("A2N315", "A2N310", "A2N312", "A2N316"),
    "backend header x-forwarded-host": ("A2N204",),
}


@dataclass
class VerifyResult:
    compared: int = 0
    same: int = 0
    differences: list[Difference] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def explained(self) -> int:
        return len({id(d.probe) for d in self.differences if d.explanation}
                   - {id(d.probe) for d in self.differences if not d.explanation})

    @property
    def unexplained(self) -> int:
        return len({id(d.probe) for d in self.differences if not d.explanation})

    def summary(self) -> dict:
        return {"compared": self.compared, "same": self.same, "explained": self.explained,
                "unexplained": self.unexplained}


def make_certificate(directory: Path) -> tuple[str, str]:
    directory.mkdir(parents=True, exist_ok=True)
    crt, key = directory / "verify.crt", directory / "verify.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days",
                    "2", "-keyout", str(key), "-out", str(crt)], check=True, capture_output=True, timeout=60)
    os.chmod(key, 0o644)
    return str(crt), str(key)


def nginx_backends(path: str) -> list[str]:
    """host:port of every upstream server and literal proxy/fastcgi target in an nginx file."""
    payload = crossplane.parse(path, single=True, comments=False, check_ctx=False, check_args=False)
    out: list[str] = []
    names: set[str] = set()

    def walk(block, in_upstream=False):
        for d in block:
            if d["directive"] == "upstream" and d.get("args"):
                names.add(d["args"][0])
            if "block" in d:
                walk(d["block"], d["directive"] == "upstream")
    walk(payload["config"][0]["parsed"] if payload["config"] else [])

    def collect(block, in_upstream=False):
        for d in block:
            args = d.get("args", [])
            if in_upstream and d["directive"] == "server" and args:
                host = args[0]
                out.append(host if ":" in host else f"{host}:80")
            elif d["directive"] in ("proxy_pass", "fastcgi_pass", "uwsgi_pass") and args and "$" not in args[0]:
                target = args[0].split("://", 1)[-1].split("/", 1)[0]
                if target not in names and not target.startswith("unix:"):
                    default = 443 if args[0].startswith("https") else 80
                    out.append(target if ":" in target else f"{target}:{default}")
            if "block" in d:
                collect(d["block"], d["directive"] == "upstream")
    collect(payload["config"][0]["parsed"] if payload["config"] else [])
    return out


def synthesize_docroots(config: LoadedConfig, probes: list[Probe], base: Path,
                        user_docroot: str | None) -> dict[str, str]:
    """A sandbox directory for every DocumentRoot and Alias target, holding the files the probes ask for."""
    from ..passes.core import DEFAULT_DOCUMENT_ROOT
    originals: list[str] = [DEFAULT_DOCUMENT_ROOT]
    # literal local rewrite targets exist too, so that where a rule leads shows in the response
    targets = []
    # no files under a <Location> whose handler answers itself (server-status, ...): a directory there would
    # make httpd's mod_dir redirect where a real server has none
    handled = [n.args[0].rstrip("/") for n in config.walk() if n.is_section and n.key == "location" and n.args
               and any(c.key == "sethandler" and c.args and c.args[0].lower() not in ("none", "default-handler")
                       for c in n.children if not c.is_section)]
    for node in config.walk():
        if node.is_section:
            continue
        if node.key == "rewriterule" and len(node.args) > 1 and node.args[1].startswith("/") \
                and not re.search(r"[$%]", node.args[1]):
            targets.append(node.args[1].split("?", 1)[0])
        if node.key == "documentroot" and node.args:
            originals.append(node.args[0])
        elif node.key in ("alias",) and len(node.args) >= 2:
            originals.append(node.args[1])
    # a target under a document root or alias target is that file (httpd reads it as a file path)
    targets += [t[len(o.rstrip("/")):] for t in list(targets) for o in originals
                if t.startswith(o.rstrip("/") + "/")]
    paths: dict[str, str] = {}
    for i, original in enumerate(dict.fromkeys(originals)):
        if user_docroot:
            paths[original] = user_docroot
            continue
        root = base / f"root{i}"
        root.mkdir(parents=True, exist_ok=True)
        (root / "index.html").write_text(f"index of {original}\n")
        (root / ".htaccess").write_text("# a file both servers must refuse\n")
        (root / ".htpasswd").write_text("user:$apr1$x$y\n")
        (root / "a.txt").write_text(f"a.txt of {original}\n")
        wanted_dirs = set()
        requested = [c for c in (normalized_path(p.path) for p in probes if "%" not in p.path)
                     if not any(c == h or c.startswith(h + "/") for h in handled)]
        # a name with an extension requested as a file stays a file (path-info probes go through it)
        files_wanted = {c.strip("/") for c in requested if not c.endswith("/") and "." in c.rsplit("/", 1)[-1]}
        for clean in requested:
            if ".." in clean or "//" in clean:
                continue
            parts = [s for s in clean.split("/") if s]
            for j in range(1, len(parts) + (1 if clean.endswith("/") else 0)):
                if "/".join(parts[:j]) not in files_wanted:
                    wanted_dirs.add("/".join(parts[:j]))
        for d in wanted_dirs:
            (root / d).mkdir(parents=True, exist_ok=True)
            (root / d / "index.html").write_text(f"index of {original}/{d}\n")
        for clean in requested + targets:
            if clean.endswith("/") or ".." in clean or "//" in clean:
                continue
            rel = clean.lstrip("/")
            parents = rel.split("/")[:-1]
            if any("/".join(parents[:k + 1]) in files_wanted for k in range(len(parents))):
                continue    # path info after a file: the file itself is what exists
            if rel and rel not in wanted_dirs and not (root / rel).exists():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                # httpd parses a .htaccess it finds (its default is to honour them): keep it a comment
                comment = "# " if rel.rsplit("/", 1)[-1].startswith(".ht") else ""
                (root / rel).write_text(f"{comment}{rel} of {original}\n")
        paths[original] = str(root)
    # password files: the user's own where it exists, else one with the user verify:verify
    for node in config.walk():
        if not node.is_section and node.key in ("authuserfile", "authgroupfile") and node.args:
            name = node.args[0]
            original = name if name.startswith("/") else \
                (config.server_root or "/etc/apache2").rstrip("/") + "/" + name
            if original in paths:
                continue
            found = config.locate(name) if config.locate else None
            target = base / f"htpasswd{len(paths)}"
            if found is not None:
                shutil.copy(found, target)
            elif node.key == "authgroupfile":
                target.write_text("")
            else:
                target.write_text(f"{VERIFY_USER}:{_apr1(VERIFY_PASSWORD)}\n")
            paths[original] = str(target)
    for dirpath, dirnames, filenames in os.walk(base):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return paths


class Explainer:
    """Finds the diagnostic that accounts for a difference on a given request."""

    def __init__(self, config: LoadedConfig, diags: list[Diagnostic], vhosts: list[VHostInfo],
                 htaccess_regions: dict[str, str] | None = None):
        # Loading decisions (A2N0xx: includes, conditionals, variables) apply to both servers alike, so they
        # never explain a difference; neither does a note that does not change behaviour (info).
        self.diags = [d for d in diags if d.span and not d.code.startswith("A2N0")
                      and (d.severity.rank >= Severity.WARNING.rank or d.code in INFO_EXPLAINERS)]
        self.vhosts = vhosts
        self.htaccess_regions = htaccess_regions or {}          # .htaccess file -> the URL prefix it governs
        self.locations: list[tuple[str, str, int, int]] = []   # file, prefix, first, last line
        # a route's line -> the URL prefixes or regexes it maps (a macro's line stands for every expansion)
        self.routes: dict[tuple[str, int], list[tuple[str, bool]]] = {}
        for node in config.walk():
            if node.is_section and node.key in ("location", "proxy", "directory", "files", "filesmatch",
                                                "locationmatch") and node.args:
                self.locations.append((node.file, node.args[0] if node.key == "location" else "",
                                       node.line, node.close_line))
            route = _route_of(node)
            if route is not None:
                self.routes.setdefault((node.file, node.line), []).append(route)

    def vhost_for(self, probe: Probe) -> VHostInfo | None:
        on_port = [v for v in self.vhosts if probe.port in v.ports]
        for v in on_port:
            if probe.host.lower() in v.names:
                return v
        return on_port[0] if on_port else None

    def explain(self, probe: Probe, field_name: str, statuses: tuple = ()) -> str | None:
        vh = self.vhost_for(probe)
        path = normalized_path(probe.path)
        candidates = []
        nearness: dict[int, int] = {}
        for d in self.diags:
            s = d.span
            inside_vhost = vh is not None and s.file == vh.file and vh.line <= s.line <= vh.end_line
            in_any_vhost = any(v.file == s.file and v.line <= s.line <= v.end_line for v in self.vhosts)
            if not inside_vhost and in_any_vhost:
                continue
            region = self.htaccess_regions.get(s.file)
            if region is not None and not segment_prefix(region, path or "/"):
                continue
            section = next(((pfx, a, b) for f, pfx, a, b in self.locations if f == s.file and a <= s.line <= b),
                           None)
            if section is not None and section[0] and not segment_prefix(section[0], path or "/"):
                continue
            routes = self.routes.get((s.file, s.line))
            if routes is not None and not any(_route_governs(r, p) for r in routes
                                              for p in (path or "/", request_path(probe.path))):
                continue        # a Redirect/Alias/ProxyPass line speaks only of the requests it maps
            # the nearer the diagnostic to the request (its own mapping, then its section), the likelier its cause
            nearness[id(d)] = 2 if routes is not None else (1 if section is not None and section[0] else 0)
            candidates.append(d)
        # An error means the translation knowingly left the directive out: it accounts for anything that
        # follows in its region. A warning accounts only for the fields its kind of change can affect.
        candidates = [d for d in candidates
                      if (d.severity is Severity.ERROR or can_explain(d.code, field_name))
                      # POST to a static file: only a 405 on one side is that difference
                      and not (d.code == "A2N226" and (probe.method in ("GET", "HEAD") or 405 not in statuses))]
        preferred = FIELD_CODES.get(field_name, ())
        for code in preferred:
            for d in candidates:
                if d.code == code:
                    return d.code
        # the nearest diagnostic wins, then the one that names the field most precisely ("header set-cookie"
        # before "header")
        return max(candidates, key=lambda d: (nearness[id(d)], _specificity(d.code, field_name))).code \
            if candidates else None


# Which observed fields a code can account for. A family's entry applies unless a code has its own.
_FIELDS_BY_CODE = {
    "A2N1": {"*"},                                   # something was not translated at all
    "A2N2": {"status", "location", "header", "connection", "body", "backend"},
    "A2N3": {"status", "location", "header", "body", "backend", "connection"},
    "A2N4": {"status", "location", "body", "backend"},
    "A2N5": {"header", "backend header"},
    "A2N6": set(),                                   # logs are not observed
    "A2N8": set(),
    "A2N803": {"*"}, "A2N810": {"status", "body", "backend", "location"}, "A2N814": {"header", "status"},
    "A2N816": {"location"}, "A2N820": {"status", "body", "backend"}, "A2N821": {"status"},
    "A2N822": {"status", "location"}, "A2N823": {"location"}, "A2N824": {"*"},
    "A2N825": {"backend header x-forwarded-host", "backend header x-forwarded-server"},
    "A2N827": {"header content-type", "status"}, "A2N828": {"backend", "location", "status"},
    "A2N829": {"header set-cookie"}, "A2N833": {"status", "location", "backend", "body"},
    "A2N329": {"status", "location", "body"}, "A2N330": set(), "A2N331": {"status", "body", "header"},
    "A2N834": {"status", "location", "backend", "body", "header"}, "A2N832": {"status", "location", "backend"},
    "A2N701": set(), "A2N702": {"*"}, "A2N703": set(), "A2N704": {"header"},
    "A2N705": {"backend header x-forwarded-for", "status"}, "A2N706": {"backend header x-forwarded-for", "status"},
    "A2N707": {"status", "body", "header"}, "A2N708": {"status", "body", "backend"},
    "A2N709": {"header expires", "header cache-control"}, "A2N710": {"header etag"},
    "A2N711": {"status", "backend", "body"}, "A2N720": {"status", "body", "backend"},
    # a script server nginx needs running (php-fpm, fcgiwrap): under verify none is
    "A2N721": {"status", "body", "backend"}, "A2N722": {"status", "body", "backend"},
    "A2N724": {"status", "body"}, "A2N725": set(), "A2N726": {"status", "body", "backend"},
    "A2N338": {"header content-location", "header uri", "header refresh"}, "A2N339": {"backend path"},
    "A2N226": {"status", "body", "header"}, "A2N747": {"status"},
    "A2N220": set(), "A2N290": set(), "A2N234": set(), "A2N235": {"body"}, "A2N236": {"body"}, "A2N222": {"connection", "status"}, "A2N221": {"connection", "status"},
    "A2N9": set(),
}


VERIFY_USER, VERIFY_PASSWORD = "verify", "verify"


def _apr1(password: str) -> str:
    return subprocess.run(["openssl", "passwd", "-apr1", password], check=True, capture_output=True,
                          text=True, timeout=30).stdout.strip()


def _htaccess_regions(docroot: str | None) -> dict[str, str]:
    """The URL prefix each .htaccess of a user's document root governs (served as the site's root)."""
    out: dict[str, str] = {}
    for dirpath, _, filenames in os.walk(docroot) if docroot else ():
        if ".htaccess" in filenames:
            rel = os.path.relpath(dirpath, docroot)
            out[os.path.join(dirpath, ".htaccess")] = "/" if rel == "." else "/" + rel.replace(os.sep, "/")
    return out


def _htaccess_nodes(docroot: str) -> list:
    """Every directive of the .htaccess files under a user's document root (httpd loads their modules)."""
    from ..syntax.loader import LoadOptions, load
    from ..diagnostics import Diagnostics
    nodes = []
    for dirpath, _, filenames in os.walk(docroot):
        if ".htaccess" in filenames:
            loaded = load(os.path.join(dirpath, ".htaccess"), LoadOptions(missing_includes="warn"), Diagnostics())
            if loaded is not None:
                nodes.extend(loaded.walk())
    return nodes


_ROUTES = {"redirect", "redirectpermanent", "redirecttemp", "redirectmatch", "alias", "aliasmatch", "scriptalias",
           "scriptaliasmatch", "proxypass", "proxypassmatch"}
_REDIRECT_STATUS = {"permanent", "temp", "seeother", "gone"}


def _route_of(node) -> tuple[str, bool] | None:
    """The URL prefix (or regex, True) a server-level mapping directive governs, None for anything else."""
    if node.is_section or node.key not in _ROUTES or not node.args:
        return None
    args = list(node.args)
    if node.key in ("redirect", "redirectmatch") and len(args) > 1 and (args[0].lower() in _REDIRECT_STATUS
                                                                         or args[0].isdigit()):
        args.pop(0)
    regex = node.key.endswith("match")
    if len(args) < 2 or not (regex or args[0].startswith("/")):
        return None             # inside a <Location> (no path of its own): the section says where it applies
    return args[0], regex


def _route_governs(route: tuple[str, bool], path: str) -> bool:
    """Whether a request for PATH (decoded, normalised) is one the route maps; an unreadable regex may be."""
    text, regex = route
    if not regex:
        return path.startswith(text.rstrip("/") or "/")
    try:
        return re.search(text, path) is not None
    except re.error:
        return True


def request_path(target: str) -> str:
    """The decoded path of a request target (not urlsplit: in a request line `//x` is no authority)."""
    return unquote(target.split("?", 1)[0].split("#", 1)[0])


def normalized_path(target: str) -> str:
    """The path both servers match sections against: decoded, slashes merged, dot segments resolved."""
    raw = request_path(target)
    out: list[str] = []
    for segment in re.sub("/+", "/", raw).split("/"):
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    path = "/".join(out)
    return path if path.startswith("/") else "/" + path


def _specificity(code: str, field_name: str) -> int:
    allowed = _FIELDS_BY_CODE.get(code) or _FIELDS_BY_CODE.get(code[:4], set())
    return max((len(f) for f in allowed if field_name == f or field_name.startswith(f + " ")), default=0)


def can_explain(code: str, field_name: str) -> bool:
    allowed = _FIELDS_BY_CODE.get(code)
    if allowed is None:
        allowed = _FIELDS_BY_CODE.get(code[:4], set())
    if "*" in allowed:
        return True
    return any(field_name == f or field_name.startswith(f + " ") for f in allowed)


def replay(probes: list[Probe], port_for) -> list[Observation]:
    out = []
    for p in probes:
        port = port_for(p.port)
        out.append(send(p, port) if port else Observation(error=f"no socket for port {p.port}"))
    return out


def verify(config: LoadedConfig, nginx_file: str, probes: list[Probe], diags: list[Diagnostic],
           apache_bin: str, nginx_bin: str, docroot: str | None = None, down: set[str] | None = None,
           explain: bool = True, ignored_headers: set[str] | None = None,
           htaccess_dir: str | None = None) -> VerifyResult:
    result = VerifyResult()
    work = Path(tempfile.mkdtemp(prefix="a2n-verify-"))
    os.chmod(work, 0o755)
    try:
        cert = make_certificate(work / "certs")
        identities = list(dict.fromkeys(collect_backends(config) + nginx_backends(nginx_file)))
        paths = synthesize_docroots(config, probes, work / "docroots", docroot)
        with EchoBackends(identities, down) as echo:
            mapping = {i: echo.address(i) for i in identities}
            apache_box = ApacheSandbox(config, mapping, paths, cert, apache_bin, htaccess_dir,
                                       _htaccess_nodes(docroot) if docroot else ())
            try:
                apache_box.start()
                apache_obs = replay(probes, apache_box.port_for)
            finally:
                apache_box.cleanup()
            box = Sandbox(backends=mapping, paths=paths)
            box._cert = cert
            try:
                errors = box.build(nginx_file)
                if errors:
                    raise RuntimeError("nginx configuration: " + "; ".join(e.message for e in errors))
                nginx_obs = _run_nginx(box, nginx_bin, probes)
            finally:
                box.cleanup()
        pools = _pools(config)
        back = {p: o for (_, o), p in apache_box.ports.items()}
        for original, stand_in in box.sockets.items():
            port = original.rsplit(":", 1)[-1]
            if port.isdigit() and ":" in stand_in:
                back[int(stand_in.rsplit(":", 1)[1])] = int(port)
        aliases = {mapping[k]: host for k, host in unix_hosts(config).items() if k in mapping}
        comparator = Comparator(back, pools, ignored_headers, aliases)
        explainer = Explainer(config, diags, vhosts_of(config), _htaccess_regions(docroot)) if explain else None
        for probe, a, n in zip(probes, apache_obs, nginx_obs):
            result.compared += 1
            found = comparator.diff(probe, a, n)
            if not found:
                result.same += 1
                continue
            widened = a.status in (401, 403) and n.status is not None and n.status < 400
            for field_name, av, nv in found:
                if widened:
                    # access httpd refused and nginx granted: a security hole, whatever any diagnostic says
                    result.differences.append(Difference(probe, field_name, av, nv, None, widened=True))
                    continue
                code = explainer.explain(probe, field_name, (a.status, n.status)) if explainer else None
                result.differences.append(Difference(probe, field_name, av, nv, code))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def _run_nginx(box: Sandbox, nginx_bin: str, probes: list[Probe]) -> list[Observation]:
    proc = subprocess.Popen([nginx_bin, "-p", str(box.prefix) + "/", "-c", str(box.conf), "-e",
                             str(box.prefix / "logs" / "error.log"), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        ports = {int(v.rsplit(":", 1)[1]) for v in box.sockets.values() if ":" in v}
        if wait_for_ports(ports, proc):
            raise RuntimeError("nginx did not start: " + (proc.stderr.read() if proc.poll() is not None else ""))
        return replay(probes, box.port_for)
    finally:
        stop_process(proc)


def _pools(config: LoadedConfig) -> dict[str, set[str]]:
    from .apache_sandbox import _URL, backend_key
    pools: dict[str, set[str]] = {}
    for node in config.walk():
        if node.is_section and node.key == "proxy" and node.args and node.args[0].lower().startswith("balancer://"):
            name = node.args[0].split("://", 1)[1].split("/")[0]
            for child in node.children:
                if not child.is_section and child.key == "balancermember" and child.args:
                    m = _URL.match(child.args[0])
                    if m:
                        pools.setdefault(backend_key(m.group("scheme"), m.group("host"), m.group("port")),
                                         set()).add(name)
    return pools


def find_apache() -> str | None:
    for cand in (shutil.which("apache2"), shutil.which("httpd"), "/usr/sbin/apache2", "/usr/sbin/httpd"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


__all__ = ["verify", "VerifyResult", "find_apache", "find_nginx", "Diagnostics"]
