"""`verify`: run real httpd on the Apache input and real nginx on its translation (or a given nginx
file) side by side on loopback, replay the same requests, and report every difference.

A difference is *explained* when the translation emitted a warning or error
diagnostic for a directive that applies to the request (inside the matching
virtual host and <Location>, or at server level); otherwise it is
*unexplained*, which is a bug in the translation or in the hand-written file.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import crossplane

from ..diagnostics import Diagnostic, Diagnostics
from ..lint.sandbox import Sandbox, find_nginx
from ..syntax.loader import LoadedConfig
from .apache_sandbox import ApacheSandbox, collect_backends, tls_backends, unix_hosts
from .backends import EchoBackends, nginx_tls_backends
from .compare import Comparator, Difference, Observation, lost_protection, send, widened
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

    @property
    def explained(self) -> int:
        return self.summary()["explained"]

    @property
    def unexplained(self) -> int:
        return self.summary()["unexplained"]

    def summary(self) -> dict:
        return summary(self.compared, self.same, self.differences)


def judge(probe: Probe, a: Observation, n: Observation, comparator: Comparator,
          explainer: Explainer | None) -> list[Difference]:
    """The differences between httpd's and nginx's answers to one request, each with the diagnostic that
    explains it. Access httpd refused and nginx granted, or a protection httpd's answer carried and nginx's
    lacks, is a security hole: no diagnostic explains it."""
    out = []
    opened = widened(a, n)
    for field_name, av, nv in comparator.diff(probe, a, n):
        lost = lost_protection(field_name, av, nv)
        if opened or lost:
            out.append(Difference(probe, field_name, av, nv, None, widened=opened, lost_security=lost and not opened))
            continue
        code = explainer.explain(Case(probe, a, n, field_name, av, nv)) if explainer else None
        out.append(Difference(probe, field_name, av, nv, code))
    return out


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


def replay(probes: list[Probe], port_for, progress=None, server: str = "") -> list[Observation]:
    out = []
    for i, p in enumerate(probes):
        port = port_for(p.port)
        out.append(send(p, port) if port else Observation(error=f"no socket for port {p.port}"))
        if progress is not None and (i % 10 == 0 or i + 1 == len(probes)):
            progress(f"requests to {server}", i + 1, len(probes))
    return out


def verify(config: LoadedConfig, nginx_file: str, probes: list[Probe], diags: list[Diagnostic],
           apache_bin: str, nginx_bin: str, docroot: str | None = None, down: set[str] | None = None,
           explain: bool = True, ignored_headers: set[str] | None = None,
           htaccess_dir: str | None = None, progress=None) -> VerifyResult:
    """PROGRESS, when given, is called with a stage message (and request counts) as the run goes."""
    result = VerifyResult()
    progress = progress or (lambda *a, **k: None)
    work = Path(tempfile.mkdtemp(prefix="a2n-verify-"))
    os.chmod(work, 0o755)
    try:
        cert = make_certificate(work / "certs")
        identities = list(dict.fromkeys(collect_backends(config) + nginx_backends(nginx_file)))
        paths = synthesize_docroots(config, probes, work / "docroots", docroot)
        with EchoBackends(identities, down, tls_backends(config) | nginx_tls_backends(nginx_file)) as echo:
            mapping = {i: echo.address(i) for i in identities}
            apache_box = ApacheSandbox(config, mapping, paths, cert, apache_bin, htaccess_dir,
                                       _htaccess_nodes(docroot) if docroot else ())
            try:
                progress("starting httpd")
                try:
                    apache_box.start()
                finally:
                    result.notes = apache_box.notes
                apache_obs = replay(probes, apache_box.port_for, progress, "httpd")
            finally:
                apache_box.cleanup()
            box = Sandbox(backends=mapping, paths=paths)
            box._cert = cert
            try:
                errors = box.build(nginx_file)
                if errors:
                    raise RuntimeError("nginx configuration: " + "; ".join(e.message for e in errors))
                progress("starting nginx")
                nginx_obs = _run_nginx(box, nginx_bin, probes, progress)
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
        explainer = Explainer(config, diags, vhosts_of(config), htaccess_regions(docroot)) if explain else None
        for probe, a, n in zip(probes, apache_obs, nginx_obs):
            result.compared += 1
            found = judge(probe, a, n, comparator, explainer)
            if found:
                result.differences += found
            else:
                result.same += 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return result


def _run_nginx(box: Sandbox, nginx_bin: str, probes: list[Probe], progress=None) -> list[Observation]:
    proc = subprocess.Popen([nginx_bin, "-p", str(box.prefix) + "/", "-c", str(box.conf), "-e",
                             str(box.prefix / "logs" / "error.log"), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        ports = {int(v.rsplit(":", 1)[1]) for v in box.sockets.values() if ":" in v}
        if wait_for_ports(ports, proc):
            raise RuntimeError("nginx did not start: " + (proc.stderr.read() if proc.poll() is not None else ""))
        return replay(probes, box.port_for, progress, "nginx")
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
