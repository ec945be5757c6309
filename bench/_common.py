"""Helpers the benchmarks share: a generator of realistic Apache configurations of any size, bounded wrk
runs on loopback and their parsing, nginx started in a loopback sandbox, and figure formatting.

Only the standard library and apache2nginx; every subprocess has a timeout and traffic only goes to
127.0.0.1.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

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


def names_vhost(i: int) -> str:
    """A virtual host of a name-heavy server: wildcard aliases shared across hosts, overlapping exact names,
    regex-free but shadowing-prone (an earlier `*.zoneN.example.com` matches later exact names)."""
    zone = i % 97
    return f"""\
<VirtualHost *:80>
    ServerName host{i}.zone{zone}.example.com
    ServerAlias www.host{i}.zone{zone}.example.com *.zone{zone}.example.com host{i}.example.net
    ServerAlias alias{i % 500}.example.org *.h{i}.example.org www.example.{i % 13}
    DocumentRoot /srv/names/{i}
    Redirect permanent /old/ http://host{i}.zone{zone}.example.com/new/
</VirtualHost>
"""


def sections_vhost(i: int) -> str:
    """A virtual host with many <Location> and <Directory> sections over overlapping paths."""
    parts = [f"<VirtualHost *:80>\n    ServerName sections{i}.example.com\n    DocumentRoot /srv/sections/{i}\n"]
    for j in range(12):
        parts.append(f"""\
    <Location /app{j}>
        Require ip 10.{j}.0.0/16
        Header set X-Section "{i}-{j}"
    </Location>
    <Location /app{j}/public>
        Require all granted
    </Location>
""")
    for j in range(8):
        parts.append(f"""\
    <Directory /srv/sections/{i}/d{j}>
        Options -Indexes
        Require all granted
    </Directory>
    <Directory /srv/sections/{i}/d{j}/private>
        Require all denied
    </Directory>
""")
    parts.append("""\
    <FilesMatch "\\.(ini|log|bak)$">
        Require all denied
    </FilesMatch>
</VirtualHost>
""")
    return "".join(parts)


GENERATORS = {"sites": vhost, "names": names_vhost, "sections": sections_vhost}


def generate(root: Path, target_lines: int, kind: str = "sites") -> tuple[Path, int, int]:
    """Write a configuration of about `target_lines` lines under `root`, its virtual hosts made by
    GENERATORS[kind] (realistic TLS/proxy sites; name-heavy hosts; section-heavy hosts).

    Returns (main file, lines in all files, number of files)."""
    make = GENERATORS[kind]
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
            text = make(i)
            chunk.append(text)
            n += count_lines(text)
            i += 1
        body = "".join(chunk)
        (sites / f"site-{nfiles:05d}.conf").write_text(body)
        total += count_lines(body)
        nfiles += 1
    return main, total, nfiles


# ----------------------------------------------------------------------------- a whole Debian server

STOCK_APACHE = Path("/etc/apache2")
# What `a2enmod rewrite proxy proxy_http headers ssl expires` links (with ssl's dependencies).
SERVER_MODULES = ("rewrite", "proxy", "proxy_http", "headers", "ssl", "socache_shmcb", "expires", "setenvif", "mime")
SITE_KINDS = ("proxy", "redirect", "static", "canonical")


def debian_server(dest: Path, source: Path = STOCK_APACHE, modules=SERVER_MODULES,
                  sites=("default-ssl",)) -> Path:
    """A copy of Debian's stock /etc/apache2 at `dest` with `modules` and `sites` enabled as a2enmod and
    a2ensite would (links into mods-available/ and sites-available/); returns its apache2.conf."""
    import shutil
    if not (source / "apache2.conf").is_file():
        raise FileNotFoundError(f"{source}/apache2.conf: Debian's apache2 package is not installed")
    shutil.copytree(source, dest, symlinks=True)
    for module in modules:
        for suffix in (".load", ".conf"):
            if (dest / "mods-available" / (module + suffix)).exists() \
                    and not (dest / "mods-enabled" / (module + suffix)).exists():
                (dest / "mods-enabled" / (module + suffix)).symlink_to(f"../mods-available/{module}{suffix}")
    for site in sites:
        enable_site(dest, site + ".conf")
    return dest / "apache2.conf"


def enable_site(root: Path, name: str) -> None:
    link = root / "sites-enabled" / name
    if not link.exists():
        link.symlink_to(f"../sites-available/{name}")


def site(i: int, backend_port: int = 18080) -> tuple[str, str]:
    """Site number `i` of a server's generated sites: (file name, text). The kinds take turns: a reverse
    proxy, a redirecting old name, a static site with expiry and headers, a canonical-host site."""
    kind = SITE_KINDS[i % len(SITE_KINDS)]
    host = f"site{i}.example.test"
    name = f"{i:04d}-{kind}-{host}.conf"
    if kind == "proxy":
        body = f"""\
<VirtualHost *:80>
    ServerName api.{host}
    ServerAdmin ops@{host}
    ProxyPreserveHost On
    ProxyPass /static/ !
    ProxyPass /api/ http://127.0.0.1:{backend_port}/api/ keepalive=On timeout=30
    ProxyPassReverse /api/ http://127.0.0.1:{backend_port}/api/
    Header always set X-Frame-Options SAMEORIGIN
    Header always set X-Content-Type-Options nosniff
    RequestHeader set X-Site "{i}"
    ErrorLog ${{APACHE_LOG_DIR}}/api-{i}-error.log
    CustomLog ${{APACHE_LOG_DIR}}/api-{i}-access.log combined
</VirtualHost>
"""
    elif kind == "redirect":
        body = f"""\
<VirtualHost *:80>
    ServerName old.{host}
    ServerAlias legacy.{host}
    Redirect permanent / http://www.{host}/
</VirtualHost>
"""
    elif kind == "static":
        body = f"""\
<VirtualHost *:80>
    ServerName static.{host}
    DocumentRoot /var/www/{host}
    <Directory /var/www/{host}>
        Options -Indexes
        AllowOverride None
        Require all granted
    </Directory>
    ExpiresActive On
    ExpiresByType image/png "access plus 1 month"
    ExpiresByType text/css "access plus 1 week"
    <FilesMatch "\\.(bak|sql|ini)$">
        Require all denied
    </FilesMatch>
    Header always set X-Content-Type-Options nosniff
    CustomLog ${{APACHE_LOG_DIR}}/static-{i}-access.log combined
</VirtualHost>
"""
    else:
        alias = f"    ServerAlias {host}\n" if i % 8 != 3 else ""
        body = f"""\
<VirtualHost *:80>
    ServerName www.{host}
{alias}    DocumentRoot /var/www/www.{host}
    RewriteEngine On
    RewriteCond %{{HTTP_HOST}} !^www\\.site{i}\\.example\\.test$ [NC]
    RewriteRule ^/(.*)$ http://www.{host}/$1 [R=301,L]
    <Location /admin>
        Require ip 127.0.0.1 10.0.0.0/8
    </Location>
</VirtualHost>
"""
    return name, body


def add_sites(root: Path, count: int, backend_port: int = 18080) -> list[str]:
    """`count` generated site files in root/sites-available/, each enabled; returns their names."""
    names = []
    for i in range(count):
        name, body = site(i, backend_port)
        (root / "sites-available" / name).write_text(body)
        enable_site(root, name)
        names.append(name)
    return names


# ----------------------------------------------------------------------------- load generation (wrk)

_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def to_ms(value: str) -> float | None:
    """wrk's latency figure ("812.00us", "1.20ms", "2.01s") in milliseconds."""
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", value.strip())
    return float(m.group(1)) * _UNITS_MS[m.group(2)] if m else None


@dataclass
class WrkResult:
    rps: float | None = None
    p50_ms: float | None = None
    p99_ms: float | None = None
    requests: int | None = None
    note: str = ""


def run_wrk(wrk: str, url: str, threads: int, connections: int, seconds: int,
            headers: dict[str, str] | None = None) -> WrkResult:
    """One bounded wrk run against a loopback URL (`--latency`, killed after seconds + 30)."""
    if not re.match(r"https?://127\.0\.0\.1[:/]", url):
        raise ValueError(f"benchmarks only send traffic to 127.0.0.1, not {url}")
    cmd = [wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in (headers or {}).items():
        cmd += ["-H", f"{name}: {value}"]
    cmd.append(url)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        return WrkResult(note="wrk timed out")
    out = proc.stdout
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", out, re.M)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    total = re.search(r"^\s+(\d+) requests in", out, re.M)
    notes = []
    if proc.returncode != 0:
        notes.append(f"wrk exited {proc.returncode}: {proc.stderr.strip()[:200]}")
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    if bad:
        notes.append(f"{bad.group(1)} non-2xx/3xx responses")
    errors = re.search(r"Socket errors:.*", out)
    if errors:
        notes.append(errors.group(0).strip())
    return WrkResult(float(rps.group(1)) if rps else None, to_ms(p50.group(1)) if p50 else None,
                     to_ms(p99.group(1)) if p99 else None, int(total.group(1)) if total else None,
                     "; ".join(notes))


# ----------------------------------------------------------------------------- nginx in a sandbox

def start_nginx(nginx: str, prefix: Path, conf: Path, ports: set[int], timeout: float = 30):
    """Start nginx in the foreground with prefix `prefix` (e.g. a built `apache2nginx.lint.sandbox.Sandbox`'s
    prefix and conf); returns the process once every port listens (raises RuntimeError with nginx's
    complaint otherwise). Stop it with `apache2nginx.verify.process.stop_process`."""
    from apache2nginx.verify.process import stop_process, wait_for_ports
    log = prefix / "logs" / "error.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([nginx, "-p", f"{prefix}/", "-c", str(conf), "-e", str(log), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if wait_for_ports(ports, proc, timeout=timeout):
        stop_process(proc)
        err = proc.stderr.read() if proc.stderr else ""
        proc.stderr.close()
        raise RuntimeError("nginx did not start: " + (err or "") +
                           (log.read_text(errors="replace")[-2000:] if log.exists() else ""))
    return proc


def fmt(value: float | None, spec: str) -> str:
    return format(value, spec) if value is not None else "-"


def fmt_size(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)
