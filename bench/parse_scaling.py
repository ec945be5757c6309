"""Parse+load throughput and scaling of apache2nginx on large configurations.

What it measures
    The wall time of `apache2nginx.syntax.loader.load()` -- reading every file,
    the tree-sitter parse, building the Directive/Section tree, and the
    loader's work (Include/IncludeOptional with globs, Define and ${VAR},
    conditional sections) -- on synthetic but realistic Debian-style Apache
    configurations of about 1,000, 10,000 and 100,000 lines. Nothing after
    loading (model, passes, emitting nginx) is timed.

    The configuration is a main `apache2.conf` that includes `conf-enabled/*.conf`
    and `sites-enabled/*.conf`; the sites hold many `<VirtualHost *:443>`
    blocks (ServerName/ServerAlias/DocumentRoot, SSL, Header lines with quoted
    arguments, `<Proxy balancer://...>` with BalancerMember lines,
    ProxyPass/ProxyPassReverse, RewriteCond/RewriteRule sets, `<IfModule>` ->
    `<Location>` nesting, `<Directory>` with Require, comments, and a few
    backslash-newline continuations). Line counts are counted from the generated
    files and checked against `LoadedConfig.lines`, so every file must be read.

    Each size is timed in-process, best of N repetitions (after one warm-up
    load of the smallest configuration). Reported per size: files, lines,
    nodes loaded, seconds, lines/s, the part of those seconds spent in Python's
    cyclic garbage collector ("gc s") and its number of full (generation 2)
    collections ("gc2"); then time(largest)/time(next) and the targets:
      * parse+load throughput >= 200,000 lines/s (judged on the largest size);
      * scaling ratio <= 1.1 x the nominal size ratio (11 for 100k vs 10k).
    The script only prints figures; it always exits 0 unless loading fails.

How to run
    python3 bench/parse_scaling.py                      # 1k, 10k, 100k lines, best of 3
    python3 bench/parse_scaling.py --sizes 1000,10000,100000 --repeat 5
    python3 bench/parse_scaling.py --tiny               # ~100/300/1000 lines, 1 rep (smoke test)
    python3 bench/parse_scaling.py --profile            # also cProfile one load of the largest size
    python3 -m cProfile -s cumtime bench/parse_scaling.py --sizes 100000 --repeat 1

Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from pathlib import Path

from apache2nginx.diagnostics import Diagnostics
from apache2nginx.syntax.loader import load

TARGET_LINES_PER_S = 200_000
SCALING_SLACK = 1.1          # allowed time ratio = 1.1 x size ratio (11 for 100k/10k)
VHOSTS_PER_FILE = 10

# ----------------------------------------------------------------------------- generation

MAIN_CONF = """\
# This is the main Apache server configuration file (generated for the benchmark).
# It includes the module, global and per-site configuration below.
ServerRoot "{root}"
Define WWW_ROOT /srv/www
Define LB_METHOD byrequests

Mutex file:${{APACHE_LOCK_DIR}} default
PidFile ${{APACHE_PID_FILE}}
Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
KeepAliveTimeout 5
User ${{APACHE_RUN_USER}}
Group ${{APACHE_RUN_GROUP}}
HostnameLookups Off
ErrorLog ${{APACHE_LOG_DIR}}/error.log
LogLevel warn

LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so
LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so
LoadModule proxy_http_module /usr/lib/apache2/modules/mod_proxy_http.so
LoadModule proxy_balancer_module /usr/lib/apache2/modules/mod_proxy_balancer.so
LoadModule lbmethod_byrequests_module /usr/lib/apache2/modules/mod_lbmethod_byrequests.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so

<IfModule mpm_event_module>
    StartServers 2
    MinSpareThreads 25
    MaxSpareThreads 75
    ThreadLimit 64
    ThreadsPerChild 25
    MaxRequestWorkers 150
    MaxConnectionsPerChild 0
</IfModule>

Listen 80
<IfModule ssl_module>
    Listen 443
</IfModule>

<Directory />
    Options FollowSymLinks
    AllowOverride None
    Require all denied
</Directory>

<Directory /srv/www/>
    Options Indexes FollowSymLinks
    AllowOverride None
    Require all granted
</Directory>

AccessFileName .htaccess
<FilesMatch "^\\.ht">
    Require all denied
</FilesMatch>

LogFormat "%v:%p %h %l %u %t \\"%r\\" %>s %O \\"%{{Referer}}i\\" \\"%{{User-Agent}}i\\"" vhost_combined
LogFormat "%h %l %u %t \\"%r\\" %>s %O \\"%{{Referer}}i\\" \\"%{{User-Agent}}i\\"" combined
LogFormat "%h %l %u %t \\"%r\\" %>s %O" common

IncludeOptional conf-enabled/*.conf
IncludeOptional local-overrides/*.conf
Include sites-enabled/*.conf
"""

CONF_ENABLED = {
    "charset.conf": """\
# Read the documentation before enabling AddDefaultCharset.
AddDefaultCharset UTF-8
""",
    "security.conf": """\
# Changing the following options will not really affect the security of the
# server, but might make attacks slightly more difficult in some cases.
ServerTokens Prod
ServerSignature Off
TraceEnable Off
<IfModule mod_headers.c>
    Header always set X-Content-Type-Options "nosniff"
    Header always set Referrer-Policy "strict-origin-when-cross-origin"
</IfModule>
""",
    "ssl-params.conf": """\
SSLProtocol all -SSLv3 -TLSv1 -TLSv1.1
SSLCipherSuite ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:\\
ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384
SSLHonorCipherOrder off
SSLSessionTickets off
SSLUseStapling On
SSLStaplingCache "shmcb:${APACHE_RUN_DIR}/ssl_stapling(32768)"
""",
}


def vhost(i: int) -> str:
    """One site: an HTTP->HTTPS redirect host and a TLS reverse-proxy host (~75-85 lines)."""
    host = f"shop{i}.example.com"
    a, b = (i // 250) % 250 + 1, i % 250 + 1
    members = 2 + i % 4
    lines = [
        f"# ---- site {i}: {host} ----------------------------------------------",
        "<VirtualHost *:80>",
        f"    ServerName {host}",
        f"    ServerAlias www.{host}",
        f"    Redirect permanent / https://{host}/",
        "</VirtualHost>",
        "",
        "<VirtualHost *:443>",
        f"    ServerName {host}",
        f"    ServerAlias www.{host} shop{i}.example.net www.shop{i}.example.net",
        f"    ServerAdmin webmaster@{host}",
        f'    DocumentRoot "${{WWW_ROOT}}/shop{i}/public"',
        f"    ErrorLog ${{APACHE_LOG_DIR}}/shop{i}-error.log",
        f"    CustomLog ${{APACHE_LOG_DIR}}/shop{i}-access.log vhost_combined",
        "",
        "    # TLS",
        "    SSLEngine on",
        f"    SSLCertificateFile /etc/letsencrypt/live/{host}/fullchain.pem",
        f"    SSLCertificateKeyFile /etc/letsencrypt/live/{host}/privkey.pem",
        "    SSLProtocol all -SSLv3 -TLSv1 -TLSv1.1",
        "    SSLCipherSuite HIGH:!aNULL:!MD5:!3DES",
        "",
        '    Header always set Strict-Transport-Security "max-age=63072000; includeSubDomains; preload"',
        '    Header always set X-Frame-Options "SAMEORIGIN"',
        f'    Header set X-Site-Id "shop{i}"',
        "    Header always edit Set-Cookie ^(.*)$ \"$1; HttpOnly; Secure\"",
    ]
    if i % 5 == 0:
        lines += [
            "    Header always set Content-Security-Policy \"default-src 'self'; \\",
            f"img-src 'self' data: https://cdn{i}.example.com; script-src 'self'\"",
        ]
    lines += ["", f"    <Proxy balancer://app{i}>"]
    for m in range(members):
        lines.append(f"        BalancerMember http://10.{a}.{b}.{10 + m}:8080 route=node{m} "
                     f"loadfactor={1 + m % 3} retry=5")
    lines += [
        "        ProxySet lbmethod=${LB_METHOD} stickysession=ROUTEID",
        "    </Proxy>",
        "",
        "    ProxyPreserveHost On",
        "    ProxyRequests Off",
        "    ProxyPass /static/ !",
        "    ProxyPass /.well-known/acme-challenge/ !",
    ]
    if i % 7 == 0:
        lines += [
            f"    ProxyPass /api/ balancer://app{i}/api/ \\",
            "        timeout=30 keepalive=On",
        ]
    else:
        lines.append(f"    ProxyPass /api/ balancer://app{i}/api/ timeout=30 keepalive=On")
    lines += [
        f"    ProxyPassReverse /api/ balancer://app{i}/api/",
        f"    ProxyPass /ws/ ws://10.{a}.{b}.9:9000/ws/",
        f"    ProxyPassReverse /ws/ ws://10.{a}.{b}.9:9000/ws/",
        f"    ProxyPass / balancer://app{i}/",
        f"    ProxyPassReverse / balancer://app{i}/",
        "",
        "    RewriteEngine On",
        "    RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]",
        "    RewriteRule ^/?(.*)$ https://%1/$1 [R=301,L]",
        f"    RewriteCond %{{REQUEST_URI}} ^/old-shop{i}/(.*)$ [NC]",
        "    RewriteRule ^/old-shop[0-9]+/(.*)$ /catalog/$1 [R=302,L]",
        '    RewriteCond %{HTTP_USER_AGENT} "(bot|crawler|spider)" [NC,OR]',
        "    RewriteCond %{HTTP_REFERER} ^https?://(www\\.)?spam\\.example [NC]",
        "    RewriteRule .* - [F,L]",
        "",
        "    <IfModule mod_proxy.c>",
        "        <Location /admin>",
        f"            ProxyPass http://10.{a}.{b}.5:8081/admin",
        f"            ProxyPassReverse http://10.{a}.{b}.5:8081/admin",
        "            Require ip 10.0.0.0/8 192.168.0.0/16",
        '            Header set Cache-Control "no-store, no-cache, must-revalidate"',
        "        </Location>",
        "        <Location /health>",
        "            ProxyPass !",
        "            Require all granted",
        "        </Location>",
        "    </IfModule>",
        "",
        f'    <Directory "${{WWW_ROOT}}/shop{i}/public">',
        "        Options -Indexes +FollowSymLinks",
        "        AllowOverride None",
        "        Require all granted",
        "    </Directory>",
        f'    <Directory "${{WWW_ROOT}}/shop{i}/private">',
        "        Require all denied",
        "    </Directory>",
        '    <FilesMatch "\\.(ico|css|js|png|jpe?g|svg|woff2?)$">',
        '        Header set Cache-Control "public, max-age=31536000, immutable"',
        "    </FilesMatch>",
        "</VirtualHost>",
        "",
    ]
    return "\n".join(lines) + "\n"


def count_lines(text: str) -> int:
    """Physical lines as the loader counts them (a last line without newline counts)."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def generate(root: Path, target_lines: int) -> tuple[Path, int, int]:
    """Write a configuration of about `target_lines` lines under `root`.

    Returns (main file, lines in all files, number of files)."""
    root.mkdir(parents=True, exist_ok=True)
    main = root / "apache2.conf"
    main_text = MAIN_CONF.format(root=root)
    main.write_text(main_text)
    total, nfiles = count_lines(main_text), 1
    (root / "conf-enabled").mkdir(exist_ok=True)
    for name, text in CONF_ENABLED.items():
        (root / "conf-enabled" / name).write_text(text)
        total += count_lines(text)
        nfiles += 1
    sites = root / "sites-enabled"
    sites.mkdir(exist_ok=True)
    i = 0
    while total < target_lines:
        chunk = [f"# sites-enabled/site-{nfiles:05d}.conf: vhosts {i}..\n"]
        n = count_lines(chunk[0])
        for _ in range(VHOSTS_PER_FILE):
            if total + n >= target_lines:
                break
            text = vhost(i)
            chunk.append(text)
            n += count_lines(text)
            i += 1
        body = "".join(chunk)
        (sites / f"site-{nfiles:05d}.conf").write_text(body)
        total += count_lines(body)
        nfiles += 1
    return main, total, nfiles


# ----------------------------------------------------------------------------- timing

class _GcTimer:
    """Time spent in the cyclic garbage collector (all generations) while active."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.full = 0
        self._t0 = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._t0
            self.full += info.get("generation") == 2

    def __enter__(self) -> "_GcTimer":
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self)


def load_once(main: Path):
    diags = Diagnostics()
    with _GcTimer() as gct:
        t0 = time.perf_counter()
        cfg = load(main, None, diags)
        elapsed = time.perf_counter() - t0
    assert cfg is not None, f"load() returned None for {main}"
    assert not diags.has_errors, "loading reported errors:\n" + "\n".join(
        f"  {d.code} {d.span}: {d.message}" for d in list(diags)[:10])
    return cfg, diags, elapsed, gct


def fmt_size(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Time apache2nginx parse+load on synthetic configs of growing size.")
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="comma-separated target line counts (default: 1000,10000,100000)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="repetitions per size, best taken (default 3; 2 for sizes >= 100k)")
    ap.add_argument("--tiny", action="store_true",
                    help="sizes ~100/300/1000 lines, 1 repetition (smoke test; figures not meaningful)")
    ap.add_argument("--profile", action="store_true",
                    help="also run cProfile over one load of the largest size and print apache2nginx hotspots")
    ap.add_argument("--keep", action="store_true", help="keep the generated configurations and print where")
    args = ap.parse_args(argv)

    if args.tiny:
        sizes = [100, 300, 1000]
    else:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] <= 0:
        ap.error("--sizes needs positive line counts")

    def reps_for(size: int) -> int:
        if args.repeat is not None:
            return max(1, args.repeat)
        if args.tiny:
            return 1
        return 2 if size >= 100_000 else 3

    tmp = Path(tempfile.mkdtemp(prefix="a2n-parse-bench-"))
    try:
        configs = []
        for size in sizes:
            main_path, lines, nfiles = generate(tmp / f"cfg-{size}", size)
            configs.append((size, main_path, lines, nfiles))

        print(f"apache2nginx parse+load benchmark  (python {sys.version.split()[0]}, "
              f"{'tiny mode' if args.tiny else 'best of N'})")
        # Warm-up: language/grammar loading, imports, caches.
        load_once(configs[0][1])

        results = []
        print(f"{'target':>8} {'files':>6} {'lines':>9} {'nodes':>9} {'reps':>4} {'seconds':>9} "
              f"{'lines/s':>11} {'gc s':>7} {'gc2':>4} {'diags':>5}")
        for size, main_path, lines, nfiles in configs:
            best, best_gc = float("inf"), None
            reps = reps_for(size)
            for _ in range(reps):
                cfg = None          # the previous tree must not stay alive during the next load
                gc.collect()
                cfg, diags, elapsed, gct = load_once(main_path)
                if elapsed < best:
                    best, best_gc = elapsed, gct
                assert cfg.lines == lines, f"loader read {cfg.lines} lines, generated {lines}"
                assert len(cfg.files) == nfiles, f"loader read {len(cfg.files)} files, generated {nfiles}"
            nodes = sum(1 for _ in cfg.walk())
            cfg = None
            rate = lines / best if best > 0 else float("inf")
            results.append((size, lines, best, rate))
            print(f"{fmt_size(size):>8} {nfiles:>6} {lines:>9,} {nodes:>9,} {reps:>4} {best:>9.4f} "
                  f"{rate:>11,.0f} {best_gc.seconds:>7.3f} {best_gc.full:>4} {len(diags):>5}")

        print()
        big = results[-1]
        status = "PASS" if big[3] >= TARGET_LINES_PER_S else "MISS"
        print(f"throughput at {big[1]:,} lines: {big[3]:,.0f} lines/s   "
              f"target >= {TARGET_LINES_PER_S:,} lines/s   {status}")
        if len(results) >= 2:
            prev = results[-2]
            ratio = big[2] / prev[2] if prev[2] > 0 else float("inf")
            limit = SCALING_SLACK * big[0] / prev[0]
            status = "PASS" if ratio <= limit else "MISS"
            print(f"scaling time({fmt_size(big[0])})/time({fmt_size(prev[0])}) = {ratio:.2f}   "
                  f"(lines ratio {big[1] / prev[1]:.2f})   target <= {limit:.3g}   {status}")
        if args.tiny:
            print("(tiny mode: sizes too small for the targets to mean anything)")

        if args.profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
            load_once(configs[-1][1])
            prof.disable()
            print(f"\ncProfile of one load of {configs[-1][2]:,} lines (apache2nginx functions, by cumtime):")
            stats = pstats.Stats(prof)
            stats.sort_stats("cumulative").print_stats(r"apache2nginx", 20)
            print("by tottime (all functions):")
            stats.sort_stats("tottime").print_stats(15)

        if args.keep:
            print(f"\nconfigurations kept in {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
