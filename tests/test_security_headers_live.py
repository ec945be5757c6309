"""A PHP application's hardening block, with its front controller, as real httpd and real nginx answer it:
every security header httpd sends is sent by nginx with the same value on the same responses, the
Referrer-Policy chosen by <If>/<Else> on the URI (after the front controller's rewrite, as httpd evaluates it)
and the Cache-Control chosen by <If>/<Else> on the query inside a <FilesMatch>. Both as a vhost's <Directory>
and as the document root's .htaccess translated on its own (--htaccess-dir /)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from live import free_port, side_by_side, translate

BLOCK = """\
<IfModule mod_headers.c>
  Header onsuccess unset X-Frame-Options
  Header always set X-Frame-Options "SAMEORIGIN"
  Header onsuccess unset X-Content-Type-Options
  Header always set X-Content-Type-Options "nosniff"
  <If "%{REQUEST_URI} =~ m#/login$#">
    Header onsuccess unset Referrer-Policy
    Header always set Referrer-Policy "no-referrer"
  </If>
  <Else>
    Header onsuccess unset Referrer-Policy
    Header always set Referrer-Policy "strict-origin-when-cross-origin"
  </Else>
  Header onsuccess unset X-Robots-Tag
  Header always set X-Robots-Tag "noindex, nofollow"
  Header onsuccess unset X-Permitted-Cross-Domain-Policies
  Header always set X-Permitted-Cross-Domain-Policies "none"
</IfModule>
<FilesMatch "\\.(css|js|png|svg)$">
  <If "%{QUERY_STRING} =~ /v=/">
    Header set Cache-Control "max-age=31536000, immutable"
  </If>
  <Else>
    Header set Cache-Control "max-age=3600"
  </Else>
</FilesMatch>
<FilesMatch "\\.php$">
  Header set Cache-Control "no-store, private"
</FilesMatch>
RewriteEngine On
RewriteCond %{REQUEST_FILENAME} !-f
RewriteCond %{REQUEST_FILENAME} !-d
RewriteRule ^ index.php [L]
"""

SECURITY = {"x-frame-options": ["SAMEORIGIN"], "x-content-type-options": ["nosniff"],
            "x-robots-tag": ["noindex, nofollow"], "x-permitted-cross-domain-policies": ["none"]}
# path -> (Referrer-Policy, Cache-Control) httpd sends (observed with httpd 2.4.71): /login and /missing are
# rewritten to /index.php, whose URI the <If> then reads; the login page itself is /login.html here
EXPECTED = {
    "/": (["strict-origin-when-cross-origin"], None),
    "/index.php": (["strict-origin-when-cross-origin"], ["no-store, private"]),
    "/login": (["strict-origin-when-cross-origin"], ["no-store, private"]),
    "/app/login": (["no-referrer"], None),
    "/a.css?v=1": (["strict-origin-when-cross-origin"], ["max-age=31536000, immutable"]),
    "/a.css": (["strict-origin-when-cross-origin"], ["max-age=3600"]),
    "/a.js?x=1&v=2": (["strict-origin-when-cross-origin"], ["max-age=31536000, immutable"]),
    "/missing": (["strict-origin-when-cross-origin"], ["no-store, private"]),
}
PATHS = list(EXPECTED)
NAMES = [*SECURITY, "referrer-policy", "cache-control"]


def _docroot() -> Path:
    docroot = Path(tempfile.mkdtemp(prefix="a2n-docroot-"))
    for rel in ("index.php", "a.css", "a.js", "app/login"):
        (docroot / rel).parent.mkdir(parents=True, exist_ok=True)
        (docroot / rel).write_text("x\n")
    for p in [docroot, *docroot.rglob("*")]:
        p.chmod(0o755)
    return docroot


def _convert_htaccess(text: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / ".htaccess"
        src.write_text(text)
        proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", str(src), "--htaccess-dir", "/"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode in (0, 1), proc.stderr
        return proc.stdout


def _answers(form: str, apache_bin: str, nginx_bin: str):
    docroot = _docroot()
    try:
        port = free_port()
        if form == "directory":
            block = "\n".join("        " + line for line in BLOCK.splitlines())
            conf = (f"Listen 127.0.0.1:{port}\n<VirtualHost *:{port}>\n    ServerName h.test\n"
                    f"    DocumentRoot {docroot}\n    <Directory {docroot}>\n{block}\n    </Directory>\n"
                    "</VirtualHost>\n")
            translated, _ = translate(conf)
            apache_conf = conf
        else:
            (docroot / ".htaccess").write_text(BLOCK)
            (docroot / ".htaccess").chmod(0o644)
            translated = _convert_htaccess(BLOCK)
            assert "root /var/www/html;" in translated
            translated = translated.replace("root /var/www/html;", f"root {docroot};").replace(
                "listen 80 default_server;", f"listen 127.0.0.1:{port} default_server;").replace(
                "listen [::]:80 default_server;", "")
            apache_conf = (f"Listen 127.0.0.1:{port}\nServerName h.test\nDocumentRoot {docroot}\n"
                           f"<Directory {docroot}>\n    AllowOverride All\n</Directory>\n")
        a, n = side_by_side(apache_conf, translated, apache_bin, nginx_bin, port, PATHS, "h.test", ("rewrite",))
        return a, n, translated
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


@pytest.fixture(scope="module", params=["directory", "htaccess"])
def answers(request, apache_bin, nginx_bin):
    return _answers(request.param, apache_bin, nginx_bin)


@pytest.mark.parametrize("path", PATHS)
def test_httpd_sends_what_is_expected(answers, path):
    """The expectations below are httpd's own answers, so nginx is held to the real behaviour."""
    a, _, _ = answers
    policy, cache = EXPECTED[path]
    hdrs = a[path][1]
    assert {k: hdrs.get(k) for k in SECURITY} == SECURITY
    assert hdrs.get("referrer-policy") == policy
    assert hdrs.get("cache-control") == cache


@pytest.mark.parametrize("path", PATHS)
def test_nginx_sends_the_same_headers(answers, path):
    a, n, translated = answers
    got = {name: n[path][1].get(name) for name in NAMES}
    want = {name: a[path][1].get(name) for name in NAMES}
    assert got == want, translated


def test_the_referrer_policy_is_a_map_not_an_if(answers):
    _, _, translated = answers
    assert "map $uri " in translated and "map $args " in translated
    # (mod_dir's fixup for methods nginx's index and static modules leave alone tests the disk: emit.dirmethods)
    rest = "\n".join(line for line in translated.splitlines() if "$a2n_dirmethod_" not in line)
    guards = ("if ($a2n_encoded_slash)", "if ($a2n_bad_host)")     # httpd's refusals before any section
    for guard in guards:
        rest = rest.replace(guard, "")
    assert "if (" not in rest
