"""Redirect throughput of many literal RewriteRule redirects: Apache vs. the translated nginx.

What it measures
    For each size N (10, 1,000 and 10,000 by default) an Apache configuration
    is generated in a temporary directory: one `<VirtualHost>` with a
    DocumentRoot and N literal redirect rules

        RewriteRule ^/old/page-<i>\\.html$ /new/page-<i> [R=301,L]

    It is translated by the product itself, as a subprocess
    (`python3 -m apache2nginx convert apache.conf -o nginx.conf`). For N >= 8
    the translator collapses such rules into one nginx `map $uri` plus a single
    `return`, so nginx's cost per request should not depend on N, while httpd's
    mod_rewrite walks its rule list linearly. The script checks (and notes when
    not) that the output holds a `map $uri`.

    Both configurations are then served on loopback -- httpd through
    `apache2nginx.verify.apache_sandbox.ApacheSandbox`, nginx through
    `apache2nginx.lint.sandbox.Sandbox` (both move every listening socket to a
    free 127.0.0.1 port) -- and each is measured with a bounded
    `wrk -t2 -c32 -d<seconds>s --latency` run requesting the path that hits
    the LAST rule, /old/page-<N-1>.html (the worst case for httpd's linear
    rule list). Before measuring, one request checks that the answer is a 301
    whose Location path is /new/page-<N-1> (wrk counts any 3xx as a success),
    then a warm-up burst is sent.

    Printed: a table of server, N, requests/s, p50 and p99 latency; then the
    ratios nginx(N_max)/nginx(N_min) and apache(N_max)/apache(N_min), and the
    target line "nginx(10000)/nginx(10) >= 0.9: PASS/MISS".

    NOTE: both servers and wrk run on the same (2-core) machine, so the
    absolute numbers mostly measure that machine's contention; only ratios
    taken within one run are meaningful.

    Everything is bounded: every subprocess has a timeout, servers are always
    stopped in `finally`, and traffic only goes to 127.0.0.1. The script only
    prints figures; it exits 0, or 1 if a server could not be started.

How to run
    python3 bench/redirect_scaling.py                     # N = 10, 1000, 10000; 5 s per wrk run
    python3 bench/redirect_scaling.py --sizes 10,100000 --duration 10
    python3 bench/redirect_scaling.py --tiny              # N = 10, 50; 1 s runs (smoke test)

Needs /usr/sbin/apache2, nginx, wrk and openssl on PATH (or as given by the
options). Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from apache2nginx.diagnostics import Diagnostics
from apache2nginx.lint.sandbox import Sandbox, find_nginx, free_port
from apache2nginx.syntax.loader import load
from apache2nginx.verify.apache_sandbox import ApacheSandbox
from apache2nginx.verify.process import stop_process

import _common
from _common import fmt

DEFAULT_SIZES = (10, 1000, 10000)
TINY_SIZES = (10, 50)
TARGET_RATIO = 0.9           # nginx(N_max) must keep >= 90% of nginx(N_min)'s requests/s
WRK_THREADS = 2
WRK_CONNECTIONS = 32
HOST = "bench.test"

APACHE_CONF = """\
Listen 127.0.0.1:{port}
<VirtualHost *:{port}>
    ServerName {host}
    DocumentRoot {docroot}
    RewriteEngine On
{rules}
</VirtualHost>
"""


@dataclass
class Result:
    server: str
    n: int
    rps: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    note: str = ""


class ServerFailed(Exception):
    """A server could not be started (the script then exits 1)."""


# ----------------------------------------------------------------------------- generation

def write_apache_conf(work: Path, n: int, port: int) -> tuple[Path, Path]:
    docroot = work / "docroot"
    docroot.mkdir()
    (docroot / "index.html").write_text("<html><body>bench</body></html>\n", encoding="utf-8")
    # The servers' workers run unprivileged (www-data / nobody): the docroot must be world-readable.
    os.chmod(work, 0o755)
    os.chmod(docroot, 0o755)
    os.chmod(docroot / "index.html", 0o644)
    rules = "\n".join(f"    RewriteRule ^/old/page-{i}\\.html$ /new/page-{i} [R=301,L]" for i in range(n))
    conf = work / "apache.conf"
    conf.write_text(APACHE_CONF.format(port=port, host=HOST, docroot=docroot, rules=rules), encoding="utf-8")
    return conf, docroot


def translate(apache_conf: Path, timeout: float) -> tuple[Path, str]:
    """Run the product's `convert`; returns the nginx file and a note ('' when all is as expected)."""
    out = apache_conf.with_name("nginx.conf")
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", str(apache_conf), "-o", str(out)],
                          capture_output=True, text=True, timeout=timeout, cwd=apache_conf.parent)
    if proc.returncode not in (0, 1) or not out.exists():
        raise RuntimeError(f"convert exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    text = out.read_text(encoding="utf-8")
    note = "" if "map $uri" in text else "translation has no 'map $uri' (rules not collapsed)"
    return out, note


# ----------------------------------------------------------------------------- measuring

def check_redirect(port: int, n: int, timeout: float = 10) -> str:
    """One request to the last rule: '' when it is a 301 to /new/page-<n-1>, else what came back."""
    expected = f"/new/page-{n - 1}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", f"/old/page-{n - 1}.html", headers={"Host": HOST})
        resp = conn.getresponse()
        resp.read()
        location = resp.getheader("Location") or ""
    except OSError as exc:
        return f"redirect check failed: {exc}"
    finally:
        conn.close()
    if resp.status != 301 or urlsplit(location).path != expected:
        return f"redirect check: got {resp.status} Location={location!r}, expected 301 to {expected}"
    return ""


def warm_up(port: int, n: int, requests: int, timeout: float = 10) -> None:
    """A burst of keep-alive requests (reconnecting when the server closes the connection)."""
    conn = None
    try:
        for _ in range(requests):
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
            try:
                conn.request("GET", f"/old/page-{n - 1}.html", headers={"Host": HOST})
                resp = conn.getresponse()
                resp.read()
                if resp.will_close:
                    conn.close()
                    conn = None
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = None
    finally:
        if conn is not None:
            conn.close()


def run_wrk(wrk: str, port: int, n: int, seconds: int) -> tuple[float | None, float | None, float | None, str]:
    """One bounded wrk run on the last rule; returns requests/s, p50 ms, p99 ms and a note."""
    r = _common.run_wrk(wrk, f"http://127.0.0.1:{port}/old/page-{n - 1}.html", WRK_THREADS, WRK_CONNECTIONS,
                        seconds, {"Host": HOST})
    return r.rps, r.p50_ms, r.p99_ms, r.note


def measure(server: str, port: int, n: int, args: argparse.Namespace) -> Result:
    result = Result(server, n)
    note = check_redirect(port, n)
    warm_up(port, n, args.warmup_requests)
    if args.warmup_seconds:
        run_wrk(args.wrk, port, n, args.warmup_seconds)      # discarded
    result.rps, result.p50_ms, result.p99_ms, wrk_note = run_wrk(args.wrk, port, n, args.duration)
    result.note = "; ".join(x for x in (note, wrk_note) if x)
    return result


# ----------------------------------------------------------------------------- servers

def bench_nginx(nginx_conf: Path, orig_port: int, n: int, args: argparse.Namespace) -> Result:
    box = Sandbox()
    proc = None
    try:
        errors = box.build(str(nginx_conf))
        if errors:
            raise ServerFailed("nginx sandbox build failed: " + "; ".join(e.message for e in errors))
        port = box.port_for(orig_port)
        if port is None:
            raise ServerFailed(f"nginx sandbox has no socket for port {orig_port}")
        try:
            proc = _common.start_nginx(args.nginx, box.prefix, box.conf, {port})
        except RuntimeError as exc:
            raise ServerFailed(str(exc)) from exc
        return measure("nginx", port, n, args)
    finally:
        stop_process(proc)
        if proc is not None and proc.stderr:
            proc.stderr.close()
        box.cleanup()


def bench_apache(apache_conf: Path, docroot: Path, orig_port: int, n: int, cert: tuple[str, str],
                 args: argparse.Namespace) -> Result:
    cfg = load(str(apache_conf), None, Diagnostics())
    if cfg is None:
        raise ServerFailed("the Apache configuration did not load")
    box = ApacheSandbox(cfg, backends={}, paths={str(docroot): str(docroot)}, cert=cert, apache_bin=args.apache)
    try:
        try:
            box.start(timeout=30)
        except RuntimeError as exc:
            raise ServerFailed(str(exc)[:2000]) from exc
        port = box.port_for(orig_port)
        if port is None:
            raise ServerFailed(f"httpd sandbox has no socket for port {orig_port}")
        return measure("apache", port, n, args)
    finally:
        box.cleanup()     # stops httpd (SIGTERM + wait) and removes the sandbox


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", help="comma-separated rule counts (default 10,1000,10000; --tiny: 10,50)")
    ap.add_argument("--tiny", action="store_true", help="small sizes and 1 s runs (smoke test)")
    ap.add_argument("--duration", type=int, help="seconds per measured wrk run (default 5; --tiny: 1)")
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--nginx", default=None)
    ap.add_argument("--wrk", default=shutil.which("wrk") or "wrk")
    args = ap.parse_args(argv)
    sizes = ([int(s) for s in args.sizes.split(",") if s.strip()] if args.sizes
             else list(TINY_SIZES if args.tiny else DEFAULT_SIZES))
    if not sizes or min(sizes) < 1:
        ap.error("--sizes needs positive integers")
    args.duration = args.duration or (1 if args.tiny else 5)
    args.warmup_requests = 50 if args.tiny else 300
    args.warmup_seconds = 0 if args.tiny else 1       # an extra discarded wrk run before each measurement
    args.nginx = find_nginx(args.nginx)
    if not args.nginx:
        print("nginx not found", file=sys.stderr)
        return 1

    started = time.monotonic()
    results: list[Result] = []
    failed = False
    work_root = Path(tempfile.mkdtemp(prefix="a2n-redirect-bench-"))
    try:
        crt, key = work_root / "bench.crt", work_root / "bench.key"
        # Only used for SSL directives, which this configuration has none of.
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                        "-days", "1", "-keyout", str(key), "-out", str(crt)],
                       check=True, capture_output=True, timeout=60)
        for n in sizes:
            work = work_root / f"n{n}"
            work.mkdir()
            orig_port = free_port()      # a placeholder: both sandboxes move it to their own free port
            apache_conf, docroot = write_apache_conf(work, n, orig_port)
            t0 = time.monotonic()
            nginx_conf, note = translate(apache_conf, timeout=600)
            print(f"N={n}: translated in {time.monotonic() - t0:.2f} s" + (f" -- NOTE: {note}" if note else ""),
                  flush=True)
            for server in ("nginx", "apache"):
                try:
                    if server == "nginx":
                        r = bench_nginx(nginx_conf, orig_port, n, args)
                    else:
                        r = bench_apache(apache_conf, docroot, orig_port, n, (str(crt), str(key)), args)
                except ServerFailed as exc:
                    failed = True
                    r = Result(server, n, note=f"could not start: {exc}")
                results.append(r)
                print(f"  {server:6} done: {fmt(r.rps, '.0f')} req/s" + (f" -- NOTE: {r.note}" if r.note else ""),
                      flush=True)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)

    # Both servers and wrk share one small machine: absolute figures are only comparable as ratios
    # taken within the same run.
    print()
    print(f"wrk -t{WRK_THREADS} -c{WRK_CONNECTIONS} -d{args.duration}s, path = last rule (/old/page-<N-1>.html)")
    print(f"{'server':8} {'N':>7} {'req/s':>10} {'p50 ms':>9} {'p99 ms':>9}  note")
    for r in results:
        print(f"{r.server:8} {r.n:>7} {fmt(r.rps, '.0f'):>10} {fmt(r.p50_ms, '.3f'):>9} {fmt(r.p99_ms, '.3f'):>9}"
              f"  {r.note}")
    print()
    n_min, n_max = min(sizes), max(sizes)
    by = {(r.server, r.n): r.rps for r in results}
    nginx_ratio = None
    for server in ("nginx", "apache"):
        lo, hi = by.get((server, n_min)), by.get((server, n_max))
        ratio = hi / lo if lo and hi is not None else None
        print(f"{server}({n_max})/{server}({n_min}) = {fmt(ratio, '.3f')}")
        if server == "nginx":
            nginx_ratio = ratio
    verdict = "-" if nginx_ratio is None else ("PASS" if nginx_ratio >= TARGET_RATIO else "MISS")
    print(f"nginx({n_max})/nginx({n_min}) >= {TARGET_RATIO}: {verdict}")
    print(f"\ntotal {time.monotonic() - started:.1f} s "
          "(servers and wrk share one machine: compare ratios within a run, not absolute numbers)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
