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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import crossplane

from ..diagnostics import Diagnostic, Diagnostics
from ..lint.sandbox import Sandbox, find_nginx
from ..syntax.loader import LoadedConfig
from .apache_sandbox import ApacheSandbox, collect_backends, tls_backends, unix_hosts
from .backends import EchoBackends, nginx_tls_backends
from .client import replay as replay_all
from .compare import Comparator, Difference, Observation, lost_protection, widened
from .docroots import synthesize_docroots
from .explain import Case, Explainer, htaccess_regions
from .process import stop_process, wait_for_ports
from .probes import Probe, vhosts_of
from .report import summary


@dataclass
class VerifyResult:
    compared: int = 0
    same: int = 0
    differences: list[Difference] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # what httpd's sandbox changed (stand-ins, lines left out)
    concurrency: int = 1            # requests in flight at once
    limited_by: str = ""            # what held the concurrency below the one asked for
    seconds: float = 0.0            # the replay's duration (both servers answering)
    access_log: dict | None = None  # what was read from --access-log and what of it was replayed

    @property
    def explained(self) -> int:
        return self.summary()["explained"]

    @property
    def unexplained(self) -> int:
        return self.summary()["unexplained"]

    def summary(self) -> dict:
        out = summary(self.compared, self.same, self.differences)
        if self.access_log is not None:
            out["access_log"] = self.access_log
        return out

    def replay_info(self) -> dict:
        """How the requests were replayed: at what concurrency (and what limited it), how fast."""
        return {"concurrency": self.concurrency, "limited_by": self.limited_by or None,
                "seconds": round(self.seconds, 3),
                "compared_per_second": round(self.compared / self.seconds, 1) if self.seconds else None}


def judge(probe: Probe, a: Observation, n: Observation, comparator: Comparator,
          explainer: Explainer | None) -> list[Difference]:
    """The differences between httpd's and nginx's answers to one request, each with the diagnostic that
    explains it. Access httpd refused and nginx granted, or a protection httpd's answer carried and nginx's
    lacks, is a security hole: no diagnostic explains it."""
    out = []
    # an error made a redirect to its ErrorDocument URL is still that error (a refusal, a failure)
    opened = widened(*((explainer.underlying(a), explainer.underlying(n)) if explainer else (a, n)))
    for field_name, av, nv in comparator.diff(probe, a, n):
        lost = lost_protection(field_name, av, nv)
        if opened or lost:
            out.append(Difference(probe, field_name, av, nv, None, widened=opened, lost_security=lost and not opened))
            continue
        code = explainer.explain(Case(probe, a, n, field_name, av, nv)) if explainer else None
        out.append(Difference(probe, field_name, av, nv, code))
    return out


def make_certificate(directory: Path) -> tuple[str, str]:
    return start_certificate(directory)()


def start_certificate(directory: Path):
    """Start making the servers' certificate and key in DIRECTORY; returns what waits for them (openssl's
    RSA key takes a second: other work goes on meanwhile)."""
    directory.mkdir(parents=True, exist_ok=True)
    crt, key = directory / "verify.crt", directory / "verify.key"
    args = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "2",
            "-keyout", str(key), "-out", str(crt)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish() -> tuple[str, str]:
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, args, out, err)
        os.chmod(key, 0o644)
        return str(crt), str(key)
    return finish


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


_PASSWORD_LINE = re.compile(r'^(?P<lead>[ \t]*Auth(?:User|Group)File[ \t]+)(?P<q>"?)(?P<name>[^"\s]+)(?P=q)[ \t]*$',
                            re.IGNORECASE | re.MULTILINE)


def _htaccess_stand_ins(docroot: str | None, mapping: dict[str, str], work: Path, paths,
                        server_root: str | None) -> None:
    """A user's .htaccess is read by httpd where it lies, as written: a backend it names (RewriteRule [P], ...)
    would be the real host, where the translation's proxy_pass reaches the echo backend standing in for it; a
    password file it names would be the real one (or none: a 500), where nginx reads the stand-in. When a file
    names either, both servers serve a copy of the tree whose .htaccess files name the stand-ins, as the
    sandbox does for the configuration itself."""
    if not docroot:
        return
    from .apache_sandbox import _URL, backend_key
    root_dir = (server_root or "/etc/apache2").rstrip("/")

    def repl(m: re.Match) -> str:
        scheme = m.group("scheme")
        key = backend_key(scheme, m.group("host"), m.group("port"))
        return f"{scheme}://{mapping[key]}" if scheme.lower() != "balancer" and key in mapping else m.group(0)

    def password(m: re.Match) -> str:
        name = m.group("name")
        stand_in = paths.get(name) or paths.get(name if name.startswith("/") else root_dir + "/" + name)
        return f'{m.group("lead")}"{stand_in}"' if stand_in else m.group(0)

    root = os.path.abspath(docroot)
    changed: dict[str, str] = {}
    for dirpath, _, filenames in os.walk(root):
        if ".htaccess" in filenames:
            path = os.path.join(dirpath, ".htaccess")
            try:
                text = Path(path).read_text(errors="surrogateescape")
            except OSError:
                continue
            mapped = _PASSWORD_LINE.sub(password, _URL.sub(repl, text))
            if mapped != text:
                changed[os.path.relpath(path, root)] = mapped
    if not changed:
        return
    copy = work / "htdocs"
    shutil.copytree(root, copy, symlinks=True)
    for rel, text in changed.items():
        (copy / rel).write_text(text, errors="surrogateescape")
    for original, served in list(paths.items()):
        if served == root or served.startswith(root + "/"):    # the tree, or a place in it (a path under a root)
            paths[original] = str(copy) + served[len(root):]


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


DEFAULT_CONCURRENCY = 16


def concurrency_limit(config: LoadedConfig, nginx_file: str) -> tuple[int | None, str]:
    """The most requests at once both servers take as they would take them one at a time, and what sets it:
    httpd's MaxRequestWorkers, a proxy worker's max=, nginx's worker_connections (a request can hold a client
    and a backend connection, and kept connections wait beside them), an upstream server's max_conns, a
    limit_conn. Beyond it a server would queue or refuse requests it answers when they come one by one."""
    limits: list[tuple[int, str]] = []
    for node in config.walk():
        args = list(node.args)
        if not node.is_section and node.key in ("maxrequestworkers", "maxclients") and args and args[0].isdigit():
            limits.append((int(args[0]), f"{node.name} {args[0]} ({node.file}:{node.line})"))
        if node.key in ("proxypass", "proxypassmatch", "balancermember", "proxyset", "proxy"):
            for arg in args:
                m = re.fullmatch(r"(?i)max=(\d+)", arg)
                if m and int(m.group(1)) > 0:
                    limits.append((int(m.group(1)), f"{node.name} {arg} ({node.file}:{node.line})"))
    try:
        payload = crossplane.parse(nginx_file, single=True, comments=False, check_ctx=False, check_args=False)
        parsed = payload["config"][0]["parsed"] if payload.get("config") else []
    except Exception:   # nginx reports its own file's faults
        parsed = []
    workers, connections = 1, 512
    stack = list(parsed)
    while stack:
        d = stack.pop()
        args = d.get("args", [])
        name = d["directive"]
        if name == "worker_processes" and args:
            workers = (os.cpu_count() or 1) if args[0] == "auto" else int(args[0]) if args[0].isdigit() else 1
        elif name == "worker_connections" and args and args[0].isdigit():
            connections = int(args[0])
        elif name == "server" and any(a.startswith("max_conns=") for a in args):
            n = next(a for a in args if a.startswith("max_conns="))[len("max_conns="):]
            if n.isdigit() and int(n) > 0:
                limits.append((int(n), f"nginx server {args[0]} max_conns={n} (line {d.get('line')})"))
        elif name == "limit_conn" and len(args) > 1 and args[1].isdigit():
            limits.append((int(args[1]), f"nginx limit_conn {args[1]} (line {d.get('line')})"))
        stack.extend(d.get("block", []))
    limits.append((max(1, workers * connections // 4), f"nginx worker_connections {connections} x "
                                                        f"{workers} worker process(es), a quarter"))
    return min(limits, key=lambda item: item[0]) if limits else (None, "")


def _work_dir() -> Path:
    """The directory the synthesised document roots live in: the memory file system (/dev/shm) when the user
    set no TMPDIR and it has room and allows programs (RewriteMap stand-ins run from there) — a large replay
    writes and removes a file a request, which a disk file system can take minutes over —, else the usual
    temporary directory."""
    shm = "/dev/shm"
    if not os.environ.get("TMPDIR") and os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK):
        try:
            st = os.statvfs(shm)
            if st.f_bavail * st.f_frsize >= 1 << 30 and st.f_favail >= 1_000_000 \
                    and not st.f_flag & getattr(os, "ST_NOEXEC", 0):
                return Path(tempfile.mkdtemp(prefix="a2n-verify-", dir=shm))
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix="a2n-verify-"))


def verify(config: LoadedConfig, nginx_file: str, probes: list[Probe], diags: list[Diagnostic],
           apache_bin: str, nginx_bin: str, docroot: str | None = None, down: set[str] | None = None,
           explain: bool = True, ignored_headers: set[str] | None = None,
           htaccess_dir: str | None = None, progress=None, concurrency: int = DEFAULT_CONCURRENCY) -> VerifyResult:
    """PROGRESS, when given, is called with a stage message (and request counts) as the run goes. Both
    servers run at once; every probe goes to httpd and then to nginx, CONCURRENCY probes at a time (at most
    what `concurrency_limit` allows)."""
    result = VerifyResult()
    progress = progress or (lambda *a, **k: None)
    work = _work_dir()
    os.chmod(work, 0o755)
    removing = None
    try:
        # the certificate and the echo backends start while the document roots are written
        certificate = start_certificate(work / "certs")
        echo = None
        try:
            # a backend only a .htaccess names gets its stand-in too, even where the translation left the rule
            # out: httpd would otherwise proxy to the real host (a DNS failure, 500)
            htaccess = _htaccess_nodes(docroot) if docroot else []
            identities = list(dict.fromkeys(collect_backends(config, htaccess) + nginx_backends(nginx_file)))
            echo = EchoBackends(identities, down, tls_backends(config, htaccess) | nginx_tls_backends(nginx_file))
            progress("writing document roots")
            paths = synthesize_docroots(config, probes, work / "docroots", docroot, htaccess)
        except BaseException:
            if echo is not None:
                echo.stop()
            try:
                certificate()       # openssl is not left behind
            except Exception:
                pass
            raise
        try:
            cert = certificate()
        except BaseException:
            echo.stop()
            raise
        limit, reason = concurrency_limit(config, nginx_file)
        result.concurrency = max(1, min(concurrency, limit) if limit else concurrency)
        if result.concurrency < concurrency:
            result.limited_by = reason
        with echo:
            mapping = {i: echo.address(i) for i in identities}
            _htaccess_stand_ins(docroot, mapping, work, paths, config.server_root)
            apache_box = ApacheSandbox(config, mapping, paths, cert, apache_bin, htaccess_dir,
                                       htaccess)
            box = None
            nginx_proc = None
            try:
                progress("starting httpd")
                try:
                    apache_box.start()
                finally:
                    result.notes = apache_box.notes
                progress("starting nginx")
                # (after httpd's: its sandbox registers the stand-ins it wrote in `paths`, for nginx to read)
                box, nginx_proc = _start_nginx(mapping, paths, cert, nginx_file, nginx_bin)
                started = time.monotonic()
                answers = replay_all(probes, [apache_box.port_for, box.port_for], result.concurrency, progress)
                result.seconds = time.monotonic() - started
            finally:
                stop_process(nginx_proc)
                if box is not None:
                    box.cleanup()
                apache_box.cleanup()
        # the document roots go while the answers are compared (a file a request: it takes a while)
        removing = threading.Thread(target=shutil.rmtree, args=(work / "docroots",), kwargs={"ignore_errors": True},
                                    daemon=True)
        removing.start()
        pools = _pools(config)
        back = {p: o for (_, o), p in apache_box.ports.items()}
        for original, stand_in in box.sockets.items():
            port = original.rsplit(":", 1)[-1]
            if port.isdigit() and ":" in stand_in:
                back[int(stand_in.rsplit(":", 1)[1])] = int(port)
        aliases = {mapping[k]: host for k, host in unix_hosts(config).items() if k in mapping}
        comparator = Comparator(back, pools, ignored_headers, aliases)
        explainer = Explainer(config, diags, vhosts_of(config), htaccess_regions(docroot, config)) if explain else None
        progress("comparing")
        for probe, (a, n) in zip(probes, answers):
            result.compared += 1
            found = judge(probe, a, n, comparator, explainer)
            if found:
                result.differences += found
            else:
                result.same += 1
    finally:
        progress("removing the sandbox")
        if removing is not None:
            removing.join()
        shutil.rmtree(work, ignore_errors=True)
    return result


def _start_nginx(mapping: dict[str, str], paths, cert, nginx_file: str, nginx_bin: str,
                 attempts: int = 3) -> tuple[Sandbox, subprocess.Popen]:
    """nginx run on the translation in a sandbox of its own. A loopback port is chosen free, but another
    process may take it before nginx binds it ("Address already in use"): the sandbox is built again on new
    ports, up to ATTEMPTS times in all."""
    for attempt in range(attempts):
        box = Sandbox(backends=mapping, paths=paths)
        box._cert = cert
        errors = box.build(nginx_file)
        if errors:
            box.cleanup()
            raise RuntimeError("nginx configuration: " + "; ".join(e.message for e in errors))
        log = box.prefix / "logs" / "error.log"
        proc = subprocess.Popen([nginx_bin, "-p", str(box.prefix) + "/", "-c", str(box.conf), "-e", str(log),
                                 "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ports = {int(v.rsplit(":", 1)[1]) for v in box.sockets.values() if ":" in v}
        # (a port another process holds accepts connections too: nginx is up once it writes its pid file,
        # after binding every listener; a configuration naming its own pid file is taken at its ports' word)
        pid = box.prefix / "nginx.pid"
        ready = (lambda: pid.exists()) if str(pid) in box.conf.read_text(errors="replace") else None
        if not wait_for_ports(ports, proc, ready=ready):
            return box, proc
        died = proc.poll() is not None
        stop_process(proc)
        text = (proc.stderr.read() if died and proc.stderr else "") + (log.read_text() if log.exists() else "")
        box.cleanup()
        if "Address already in use" in text and attempt + 1 < attempts:
            continue
        raise RuntimeError("nginx did not start: " + (text if died else ""))


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
