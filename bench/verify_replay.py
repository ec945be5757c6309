"""How fast `apache2nginx verify --access-log` replays real traffic, and what it chose to replay.

What it measures
    A generated configuration of three name-based virtual hosts on one port: a static site (expiry by type,
    a security header, a denied directory), an API host proxied to a backend (which verify replaces by its
    echo backend), and a site whose old URLs a RewriteRule redirects and whose /blog/N URLs it rewrites
    internally. A generated access log in Apache's vhost_combined format (`%v:%p %h %l %u %t "%r" %>s ...`)
    holds LINES lines of mostly distinct URLs across the three hosts: static files with a cache-busting
    query, API calls (GET, POST, HEAD), redirected and rewritten URLs, 404s, ~3% repeated requests and ~1%
    junk lines.

    `apache2nginx verify CONF --access-log LOG --format json` runs as a subprocess twice per round: with the
    default selection (distinct requests up to the default cap) and with `--all` (every distinct request).
    Printed per run: log lines read, requests parsed, distinct requests, requests replayed from the log,
    requests compared (the log's plus verify's generated probes), wall seconds of the whole command (reading
    the log, converting, writing the document roots, starting both servers and the echo backends, replaying,
    comparing, removing the sandbox) and compared requests per second, then the replay alone as verify reports
    it (seconds, compared requests per second, concurrency), and the load average before and after the run
    (the machine may be shared: other work lowers the rate).

    Everything is bounded: each verify run has a timeout, servers run inside verify's own loopback sandboxes
    (127.0.0.1 only) and are stopped by it; the temporary directory is removed at the end.

How to run
    python3 bench/verify_replay.py                  # 100,000 log lines, one round
    python3 bench/verify_replay.py --lines 20000 --rounds 3
    python3 bench/verify_replay.py --concurrency 1  # the same, one request at a time
    python3 bench/verify_replay.py --tiny           # 600 lines (smoke test)

Needs apache2 (or httpd), nginx and openssl. Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOSTS = ("www.example.test", "api.example.test", "old.example.test")
PORT = 80

CONFIG = """\
Listen 80
<VirtualHost *:80>
    ServerName www.example.test
    DocumentRoot /srv/bench/www
    <Directory /srv/bench/www>
        Options -Indexes
        Require all granted
    </Directory>
    <Directory /srv/bench/www/private>
        Require all denied
    </Directory>
    ExpiresActive On
    ExpiresByType text/css "access plus 1 week"
    ExpiresByType image/png "access plus 1 month"
    Header always set X-Content-Type-Options nosniff
</VirtualHost>

<VirtualHost *:80>
    ServerName api.example.test
    DocumentRoot /srv/bench/api
    ProxyPreserveHost On
    ProxyPass /api/ http://app.internal:8080/api/
    ProxyPassReverse /api/ http://app.internal:8080/api/
    Header always set X-Frame-Options DENY
</VirtualHost>

<VirtualHost *:80>
    ServerName old.example.test
    DocumentRoot /srv/bench/old
    <Directory /srv/bench/old>
        Require all granted
    </Directory>
    RewriteEngine On
    RewriteRule ^/legacy/(.*)$ /new/$1 [R=301,L]
    RewriteRule ^/blog/([0-9]+)$ /posts/$1.html [L]
</VirtualHost>
"""

AGENTS = ('"Mozilla/5.0 (X11; Linux x86_64)"', '"curl/8.5.0"', '"Googlebot/2.1"')


def request_of(i: int, rng: random.Random) -> tuple[str, str, str, int]:
    """The i-th generated request: (host, method, target, status as logged)."""
    kind = rng.random()
    if kind < 0.45:
        ext, status = rng.choice((("css", 200), ("png", 200), ("html", 200), ("js", 200), ("png", 304)))
        return HOSTS[0], "GET", f"/static/{ext}/{i % 97}/file-{i}.{ext}?v={i % 13}", status
    if kind < 0.50:
        return HOSTS[0], "GET", f"/private/report-{i}.txt", 403
    if kind < 0.55:
        return HOSTS[0], "GET", f"/missing/{i}", 404
    if kind < 0.75:
        method = rng.choice(("GET", "GET", "GET", "POST", "HEAD"))
        return HOSTS[1], method, f"/api/v1/items/{i}?page={i % 7}", 200 if method != "POST" else 201
    if kind < 0.88:
        return HOSTS[2], "GET", f"/legacy/section-{i % 31}/page-{i}", 301
    if kind < 0.95:
        return HOSTS[2], "GET", f"/blog/{i}", 404
    return HOSTS[2], "GET", f"/articles/{i % 53}/{i}.html", 200


def write_log(path: Path, lines: int, seed: int = 7) -> None:
    """LINES lines of vhost_combined: mostly distinct requests, ~3% repeats of earlier ones, ~1% junk."""
    rng = random.Random(seed)
    seen: list[tuple[str, str, str, int]] = []
    with path.open("w") as out:
        for i in range(lines):
            roll = rng.random()
            if roll < 0.01:
                out.write(rng.choice(("-", "garbage line", '127.0.0.1 - - [x] "\\x16\\x03\\x01" 400 0 "-" "-"',
                                      '10.0.0.9 - - [01/Jan/2026:00:00:00 +0000] "-" 408 0 "-" "-"')) + "\n")
                continue
            if roll < 0.04 and seen:
                req = rng.choice(seen)
            else:
                req = request_of(i, rng)
                if len(seen) < 5000:
                    seen.append(req)
            host, method, target, status = req
            stamp = f"[{1 + i % 28:02d}/Nov/2026:{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d} +0000]"
            out.write(f'{host}:{PORT} 10.1.{i % 250}.{i % 199} - - {stamp} "{method} {target} HTTP/1.1" {status} '
                      f'{rng.randint(0, 50000)} "-" {rng.choice(AGENTS)}\n')


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def run_verify(cli: list[str], conf: Path, log: Path, extra: list[str], timeout: float) -> tuple[dict, float, str]:
    start = time.monotonic()
    proc = subprocess.run(cli + ["verify", str(conf), "--access-log", str(log), "--format", "json", *extra],
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"verify exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout), seconds, proc.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lines", type=int, default=100_000, help="access log lines (default 100000)")
    ap.add_argument("--rounds", type=int, default=1, help="measure each run this many times (default 1)")
    ap.add_argument("--concurrency", type=int, help="verify's --concurrency (default: verify's own)")
    ap.add_argument("--only", choices=("default", "all"), help="run only the default selection or only --all")
    ap.add_argument("--tiny", action="store_true", help="600 lines, one round (smoke test)")
    ap.add_argument("--keep", action="store_true", help="keep the generated configuration and log")
    args = ap.parse_args()
    lines = 600 if args.tiny else args.lines
    cli = [sys.executable, "-m", "apache2nginx.cli"]
    work = Path(tempfile.mkdtemp(prefix="a2n-bench-replay-"))
    try:
        conf, log = work / "apache.conf", work / "access.log"
        conf.write_text(CONFIG)
        write_log(log, lines)
        extra = ["--concurrency", str(args.concurrency)] if args.concurrency else []
        runs = [("default", []), ("--all", ["--all"])]
        if args.only:
            runs = runs[:1] if args.only == "default" else runs[1:]
        print(f"access log: {lines} lines ({log.stat().st_size // 1024} KiB); cores: {os.cpu_count()}")
        print(f"{'run':<9} {'read':>7} {'parsed':>7} {'distinct':>8} {'replayed':>8} {'compared':>8} "
              f"{'seconds':>8} {'compared/s':>10} {'replay s':>8} {'replay/s':>8} {'conc.':>5}  load average")
        for _ in range(1 if args.tiny else max(args.rounds, 1)):
            for name, flags in runs:
                load = load_average()
                doc, seconds, _ = run_verify(cli, conf, log, flags + extra, timeout=600 + lines / 50)
                s, replay = doc["summary"], doc.get("replay", {})
                info = s.get("access_log", {})
                print(f"{name:<9} {info.get('lines', '-'):>7} {info.get('parsed', '-'):>7} "
                      f"{info.get('distinct', '-'):>8} {info.get('replayed', '-'):>8} {s['compared']:>8} "
                      f"{seconds:>8.1f} {s['compared'] / seconds:>10.0f} {replay.get('seconds', 0):>8.1f} "
                      f"{replay.get('compared_per_second') or 0:>8.0f} {replay.get('concurrency', '-'):>5}  "
                      f"{load} -> {load_average()}", flush=True)
        if args.keep:
            print(f"kept: {conf} {log}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
