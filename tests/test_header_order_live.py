"""mod_headers runs a block's operations in order (outer blocks first), so a later `Header set` or `unset`
replaces what came before for that header and table, and a conditional one does so where its condition
holds. nginx sends every add_header of a block: real httpd and real nginx answer the same paths here with
the same header lines."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from live import apache, backend_view, echo_backend, free_port, nginx, request, side_by_side, translate

CONFIG = """
Listen 127.0.0.1:{port}
<VirtualHost *:{port}>
    ServerName h.test
    DocumentRoot {docroot}
    SetEnvIf Request_URI "\\.png$" IMG
    Header always set X-Twice "one"
    Header always set X-Twice "two"
    Header always set X-Then-Cond "plain"
    Header always set X-Then-Cond "image" env=IMG
    Header always set X-Cond-Then "image" env=IMG
    Header always set X-Cond-Then "plain"
    Header always set X-Outer "outer"
    Header always set X-Gone "outer"
    Header always set X-Spaced "a b c"
    <Directory {docroot}/sub>
        Header always set X-Outer "inner image" env=IMG
        Header always set X-Spaced "d e" "expr=%{{CONTENT_TYPE}} == 'image/png'"
    </Directory>
    <Directory {docroot}/bare>
        Header always unset X-Gone
        Header always unset X-Twice
        Header always unset X-Then-Cond
        Header always unset X-Cond-Then
        Header always unset X-Outer
        Header always unset X-Spaced
    </Directory>
</VirtualHost>
"""

PATHS = ["/a.html", "/a.png", "/sub/b.html", "/sub/b.png", "/bare/c.html", "/bare/c.png"]
NAMES = ["x-twice", "x-then-cond", "x-cond-then", "x-outer", "x-gone", "x-spaced"]


@pytest.fixture(scope="module")
def answers(apache_bin, nginx_bin):
    docroot = Path(tempfile.mkdtemp(prefix="a2n-docroot-"))
    for rel in ("a.html", "a.png", "sub/b.html", "sub/b.png", "bare/c.html", "bare/c.png"):
        (docroot / rel).parent.mkdir(parents=True, exist_ok=True)
        (docroot / rel).write_text("x\n")
    for p in [docroot, *docroot.rglob("*")]:
        p.chmod(0o755)
    try:
        port = free_port()
        conf = CONFIG.format(port=port, docroot=docroot)
        translated, diagnostics = translate(conf)
        a, n = side_by_side(conf, translated, apache_bin, nginx_bin, port, PATHS, "h.test")
        yield a, n, translated
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


@pytest.mark.parametrize("path", PATHS)
def test_the_same_header_lines_as_httpd(answers, path):
    a, n, translated = answers
    assert a[path][0] == n[path][0] == 200
    got = {name: n[path][1].get(name) for name in NAMES}
    want = {name: a[path][1].get(name) for name in NAMES}
    assert got == want, translated


def test_httpd_really_answers_differently_per_path(answers):
    """The cases above would prove nothing if httpd answered every path alike."""
    a, _, _ = answers
    assert a["/a.html"][1]["x-twice"] == ["two"]
    assert a["/a.png"][1]["x-then-cond"] == ["image"] and a["/a.html"][1]["x-then-cond"] == ["plain"]
    assert a["/sub/b.png"][1]["x-outer"] == ["inner image"] and a["/sub/b.html"][1]["x-outer"] == ["outer"]
    assert "x-gone" not in a["/bare/c.html"][1] and a["/a.html"][1]["x-gone"] == ["outer"]


REQUEST_CONFIG = """
Listen 127.0.0.1:{port}
<VirtualHost *:{port}>
    ServerName h.test
    ProxyPass / http://127.0.0.1:{backend}/
    RequestHeader set X-Req "one"
    RequestHeader set X-Req "two"
    RequestHeader set X-Gone "server"
    <Location /sub>
        RequestHeader unset X-Gone
        RequestHeader set X-Req "three"
    </Location>
</VirtualHost>
"""


@pytest.mark.parametrize("path", ["/a", "/sub/b"])
def test_request_headers_reach_the_backend_as_httpd_sends_them(apache_bin, nginx_bin, path):
    """A later RequestHeader set/unset replaces an earlier one of the same header (nginx would send a
    proxy_set_header line for each)."""
    with echo_backend("b") as backend:
        port = free_port()
        conf = REQUEST_CONFIG.format(port=port, backend=backend)
        translated, _ = translate(conf)
        with apache(conf, apache_bin, port):
            a = backend_view(request(port, path, host="h.test")[2])
        with nginx(translated, nginx_bin, f"127.0.0.1:{port}") as nport:
            n = backend_view(request(nport, path, host="h.test")[2])
    def sent(view):
        return [[k.lower(), v] for k, v in view["headers"] if k.lower() in ("x-req", "x-gone")]
    assert sent(n) == sent(a), translated
    assert sent(a) == ([["x-req", "two"], ["x-gone", "server"]] if path == "/a" else [["x-req", "three"]])
