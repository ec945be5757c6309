"""Requests/s and latency of the API gateway as served: Apache vs. the seed's hand translation vs. ours.

What it measures
    The API-gateway seed (tests/data/api-gateway-seed: apache.conf and the seed's own
    hand-written nginx-seed-hand.conf) served three ways on loopback, each in front of the same backend:

      (a) Apache 2.4 (event MPM) running apache.conf, through
          `apache2nginx.verify.apache_sandbox.ApacheSandbox` (the sandbox `verify` uses: modules loaded,
          every socket on a free 127.0.0.1 port, node1..node4.internal:3000 pointed at the backend,
          certificates replaced by a generated pair, logs inside the sandbox);
      (b) nginx running the seed's nginx-seed-hand.conf with its `limit_req` line dropped (1000 r/m
          would refuse nearly every benchmark request), through `apache2nginx.lint.sandbox.Sandbox`
          (the same rewriting: sockets, backends, certificates, logs);
      (c) nginx running `apache2nginx convert apache.conf` (a subprocess), through the same Sandbox.

    The backend is one small nginx instance answering every request with a fixed 1.2 kB JSON body
    (`return 200 '...'`, keep-alive); it is measured alone first, to show it is far faster than any of the
    proxies and so not what limits them. Every server gets one check request (`GET /v1/health`,
    Host: api.example.com over HTTPS on the sandbox port standing for 443; it must answer 200 with the
    backend's body), a warm-up run, then a bounded `wrk -t1 -c32 -d<seconds>s --latency` run.

    Printed: a table of server, requests/s, p50 and p99 latency (ms) and notes, then the ratios c/a and c/b
    with the targets c/b >= 1.0 and c/a >= 1.5 (PASS/MISS). Both nginx configurations run as the sandbox
    runs them: one worker process unless the configuration says otherwise. Apache, the backend, nginx and
    wrk all share the one machine, so only ratios taken in one run mean anything.

    Everything is bounded: every subprocess has a timeout, every server is stopped in `finally`, traffic
    only goes to 127.0.0.1. Exit status 0, or 1 when a server could not be started or answered wrongly.

How to run
    python3 bench/served.py                      # 5 s per measured run, 2 s warm-up
    python3 bench/served.py --duration 10
    python3 bench/served.py --tiny               # 1 s runs, no warm-up (smoke test)
    python3 bench/served.py --keep               # keep the sandboxes' configurations and print where

Needs /usr/sbin/apache2, nginx, wrk and openssl. Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from apache2nginx.diagnostics import Diagnostics
from apache2nginx.lint.sandbox import Sandbox, find_nginx, free_port
from apache2nginx.syntax.loader import load
from apache2nginx.verify.apache_sandbox import ApacheSandbox, collect_backends
from apache2nginx.verify.process import stop_process
from apache2nginx.verify.run import make_certificate

from _common import WrkResult, fmt, run_wrk, start_nginx

# The API-gateway seed ships with the tests (apache.conf and its hand translation).
SEED = Path(os.environ.get("A2N_API_GATEWAY_SEED",
                           Path(__file__).resolve().parents[1] / "tests" / "data" / "api-gateway-seed"))
HOST = "api.example.com"
PATH = "/v1/health"
WRK_THREADS = 1
WRK_CONNECTIONS = 32
TARGET_C_OVER_B = 1.0
TARGET_C_OVER_A = 1.5


def health_body() -> bytes:
    """The backend's /v1/health answer: 1.2 kB of JSON."""
    doc = {"status": "ok", "service": "api", "version": "2.4.1", "uptime_s": 86400, "checks": {}}
    i = 0
    while len(json.dumps(doc, separators=(",", ":"))) < 1180:
        doc["checks"][f"dependency-{i:02d}"] = {"status": "up", "latency_ms": 3 + i % 7}
        i += 1
    text = json.dumps(doc, separators=(",", ":"))
    return (text + " " * (1200 - len(text))).encode()[:1200]


BACKEND_CONF = """\
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_requests 100000;
    client_body_temp_path {prefix}/tmp;
    server {{
        listen 127.0.0.1:{port} reuseport backlog=4096;
        location / {{
            default_type application/json;
            return 200 '{body}';
        }}
    }}
}}
"""


@dataclass
class Row:
    server: str
    result: WrkResult
    note: str = ""


class Failed(Exception):
    """A server could not be started or did not answer as expected."""


# ----------------------------------------------------------------------------- helpers

def check(port: int, body: bytes, tls: bool, host: str = HOST, timeout: float = 10) -> str:
    """One GET of PATH: '' when it is a 200 with the backend's body, else what came back."""
    if tls:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ctx)
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", PATH, headers={"Host": host})
        resp = conn.getresponse()
        data = resp.read()
    except OSError as exc:
        return f"check request failed: {exc}"
    finally:
        conn.close()
    if resp.status != 200 or data != body:
        return f"check: got {resp.status} with {len(data)} bytes, expected 200 with the backend's {len(body)}"
    return ""


def measure(name: str, url: str, args, host: str | None = HOST) -> Row:
    headers = {"Host": host} if host else {}
    if args.warmup:
        run_wrk(args.wrk, url, WRK_THREADS, WRK_CONNECTIONS, args.warmup, headers)    # discarded
    result = run_wrk(args.wrk, url, WRK_THREADS, WRK_CONNECTIONS, args.duration, headers)
    print(f"  {name}: {fmt(result.rps, '.0f')} req/s" + (f" -- NOTE: {result.note}" if result.note else ""),
          flush=True)
    return Row(name, result, result.note)


def nginx_box(source: Path, mapping: dict[str, str], paths: dict[str, str], cert: tuple[str, str]) -> Sandbox:
    box = Sandbox(backends=mapping, paths=paths)
    box._cert = cert          # the generated pair, as verify does
    errors = box.build(str(source))
    if errors:
        box.cleanup()
        raise Failed(f"{source.name}: " + "; ".join(e.message for e in errors))
    return box


def bench_nginx(name: str, source: Path, mapping, paths, cert, body: bytes, args) -> Row:
    box = nginx_box(source, mapping, paths, cert)
    proc = None
    try:
        port = box.port_for(443)
        if port is None:
            raise Failed(f"{name}: no socket standing for port 443")
        try:
            proc = start_nginx(args.nginx, box.prefix, box.conf, {port})
        except RuntimeError as exc:
            raise Failed(f"{name}: {exc}") from exc
        note = check(port, body, tls=True)
        if note:
            raise Failed(f"{name}: {note}")
        if args.keep:
            shutil.copy(box.conf, args.keep_dir / f"{name.split()[0]}-nginx.conf")
        return measure(name, f"https://127.0.0.1:{port}{PATH}", args)
    finally:
        stop_process(proc)
        if proc is not None and proc.stderr:
            proc.stderr.close()
        box.cleanup()


def bench_apache(apache_conf: Path, mapping, paths, cert, body: bytes, args) -> Row:
    diags = Diagnostics()
    cfg = load(str(apache_conf), None, diags)
    if cfg is None:
        raise Failed("apache.conf did not load")
    box = ApacheSandbox(cfg, backends=mapping, paths=paths, cert=cert, apache_bin=args.apache)
    try:
        try:
            box.start(timeout=30)
        except RuntimeError as exc:
            raise Failed(f"apache: {str(exc)[:2000]}") from exc
        port = box.port_for(443)
        if port is None:
            raise Failed("apache: no socket standing for port 443")
        note = check(port, body, tls=True)
        if note:
            raise Failed(f"apache: {note}")
        if args.keep:
            shutil.copy(box.prefix / "httpd.conf", args.keep_dir / "a-httpd.conf")
        return measure("(a) apache", f"https://127.0.0.1:{port}{PATH}", args)
    finally:
        box.cleanup()


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiny", action="store_true", help="1 s runs without warm-up (smoke test)")
    ap.add_argument("--duration", type=int, help="seconds per measured wrk run (default 5; --tiny: 1)")
    ap.add_argument("--warmup", type=int, help="seconds of discarded wrk run before each (default 2; --tiny: 0)")
    ap.add_argument("--seed", type=Path, default=SEED, help=f"the api-gateway seed directory (default {SEED})")
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--nginx", default=None)
    ap.add_argument("--wrk", default=shutil.which("wrk") or "wrk")
    ap.add_argument("--keep", action="store_true", help="keep the generated configurations and print where")
    args = ap.parse_args(argv)
    args.duration = args.duration or (1 if args.tiny else 5)
    args.warmup = (0 if args.tiny else 2) if args.warmup is None else args.warmup
    args.nginx = find_nginx(args.nginx)
    if not args.nginx:
        print("nginx not found", file=sys.stderr)
        return 1
    apache_src, hand_src = args.seed / "apache.conf", args.seed / "nginx-seed-hand.conf"
    for f in (apache_src, hand_src):
        if not f.is_file():
            print(f"{f} not found", file=sys.stderr)
            return 1

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="a2n-served-bench-"))
    os.chmod(work, 0o755)
    args.keep_dir = work / "kept"
    args.keep_dir.mkdir()
    rows: list[Row] = []
    backend = None
    failed = False
    try:
        body = health_body()
        cert = make_certificate(work / "certs")
        docroot = work / "docroot"
        (docroot / "error").mkdir(parents=True)
        os.chmod(docroot, 0o755)
        for code in (500, 502, 503, 504):
            (docroot / "error" / f"{code}.html").write_text(f"<h1>{code}</h1>\n")
        paths = {"/var/www/html": str(docroot)}

        # The backend: one nginx worker returning the fixed body.
        bprefix = work / "backend"
        (bprefix / "logs").mkdir(parents=True)
        (bprefix / "tmp").mkdir()
        bport = free_port()
        bconf = bprefix / "nginx.conf"
        bconf.write_text(BACKEND_CONF.format(prefix=bprefix, port=bport, body=body.decode()), encoding="utf-8")
        backend = start_nginx(args.nginx, bprefix, bconf, {bport})
        note = check(bport, body, tls=False)
        if note:
            raise Failed(f"backend: {note}")

        # Our translation (a subprocess, as a user runs it), and the seed's hand translation without limit_req.
        ours = work / "nginx-ours.conf"
        proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", str(apache_src), "-o", str(ours)],
                              capture_output=True, text=True, timeout=120, cwd=work)
        if proc.returncode not in (0, 1) or not ours.exists():
            raise Failed(f"convert exited {proc.returncode}: {proc.stderr[-2000:]}")
        hand = work / "nginx-seed-hand.conf"
        hand.write_text("".join(line for line in hand_src.read_text(encoding="utf-8").splitlines(keepends=True)
                                if not line.strip().startswith("limit_req ")), encoding="utf-8")

        cfg = load(str(apache_src), None, Diagnostics())
        identities = list(dict.fromkeys((collect_backends(cfg) if cfg else []) +
                                        [f"node{i}.internal:3000" for i in range(1, 5)]))
        mapping = {i: f"127.0.0.1:{bport}" for i in identities}

        print(f"backend: 127.0.0.1:{bport}, {len(body)}-byte JSON; wrk -t{WRK_THREADS} -c{WRK_CONNECTIONS} "
              f"-d{args.duration}s" + (f" after a {args.warmup} s warm-up" if args.warmup else ""), flush=True)
        rows.append(measure("backend alone", f"http://127.0.0.1:{bport}{PATH}", args, host=None))
        for step in ("a", "b", "c"):
            try:
                if step == "a":
                    rows.append(bench_apache(apache_src, mapping, paths, cert, body, args))
                elif step == "b":
                    rows.append(bench_nginx("(b) nginx hand", hand, mapping, paths, cert, body, args))
                else:
                    rows.append(bench_nginx("(c) nginx ours", ours, mapping, paths, cert, body, args))
            except Failed as exc:
                failed = True
                print(f"  ({step}) FAILED: {exc}", flush=True)
                rows.append(Row(f"({step}) failed", WrkResult(), str(exc)[:300]))
        if args.keep:
            shutil.copy(ours, args.keep_dir / "c-translation.conf")
    except (Failed, RuntimeError, subprocess.SubprocessError) as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        failed = True
    finally:
        stop_process(backend)
        if backend is not None and backend.stderr:
            backend.stderr.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"GET {PATH} (Host: {HOST}, HTTPS; the backend over HTTP), wrk -t{WRK_THREADS} -c{WRK_CONNECTIONS} "
          f"-d{args.duration}s --latency")
    print(f"{'server':16} {'req/s':>10} {'p50 ms':>9} {'p99 ms':>9}  note")
    for r in rows:
        print(f"{r.server:16} {fmt(r.result.rps, '.0f'):>10} {fmt(r.result.p50_ms, '.3f'):>9} "
              f"{fmt(r.result.p99_ms, '.3f'):>9}  {r.note}")
    by = {r.server[:3]: r.result.rps for r in rows}
    a, b, c = by.get("(a)"), by.get("(b)"), by.get("(c)")
    print()
    for label, num, den, target in (("c/b", c, b, TARGET_C_OVER_B), ("c/a", c, a, TARGET_C_OVER_A)):
        ratio = num / den if num and den else None
        status = "-" if ratio is None else "PASS" if ratio >= target else "MISS"
        print(f"{label} = {fmt(ratio, '.2f')}   target >= {target:g}   {status}")
    backend_rps = rows[0].result.rps if rows and rows[0].server == "backend alone" else None
    fastest = max((x for x in (a, b, c) if x), default=None)
    if backend_rps and fastest:
        print(f"backend alone / fastest proxy = {backend_rps / fastest:.2f}  (the backend is not the limit when "
              f"well above 1)")
    if args.tiny:
        print("(tiny mode: 1 s runs, figures not meaningful)")
    if args.keep:
        print(f"configurations kept in {args.keep_dir}")
    print(f"\ntotal {time.monotonic() - started:.1f} s (servers and wrk share one machine: compare ratios within a "
          f"run, not absolute numbers)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
