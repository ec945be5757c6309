"""The Explainer with hand-built requests and answers: a diagnostic explains a difference only inside its
region and only when its code declares that kind of difference under the request's conditions. Each
code below has a case it explains and a like case it must leave unexplained (another condition, another
field, or a request outside its region)."""
from __future__ import annotations

import pytest
from conftest import load_text

from apache2nginx.diagnostics import Diagnostic
from apache2nginx.syntax.span import Span
from apache2nginx.verify.compare import Observation
from apache2nginx.verify.explain import Case, Explainer
from apache2nginx.verify.probes import Probe, vhosts_of

CONF = """\
Listen 80
<VirtualHost *:80>
    ServerName example.com
    Header set X-Foo bar
    ProxyPass /app/ http://backend.internal/
    TypesConfig /etc/mime.types
    Header always set X-Bar baz
    CustomLog /var/log/x.log combined
    <Location /api/>
        ExpiresActive On
    </Location>
    ProxyPass /old/ http://backend.internal/old/
    Redirect /promo/ http://example.com/new/
    ProxyPass /raw/ http://backend.internal/raw/ nocanon
    <Location /secret/>
        Require host example.org
    </Location>
    AllowEncodedSlashes Off
    TraceEnable on
    RewriteEngine On
    RewriteCond %{HTTP_HOST} ^www\\.example\\.com$
    RewriteRule ^(.*)$ http://example.com$1 [R=301,L]
    ContentDigest On
    Header unset Server
    Header append Cache-Control private
    RequestHeader append X-Forwarded-For 10.0.0.1
    Options +MultiViews
    AcceptPathInfo On
    DirectoryIndex disabled
    ProxyPassReverse /app/ http://backend.internal/
    ProxyPassMatch ^/m/(.*)$ http://backend.internal/$1
    RewriteRule ^/p/(.*)$ http://backend.internal/%{TIME}/$1 [P]
    ProxyVia On
    <Directory /var/www/ssi>
        Options +Includes
    </Directory>
    <Proxy balancer://pool>
        BalancerMember http://one.internal
        BalancerMember http://two.internal
    </Proxy>
    ProxyPass /pool/ balancer://pool/
</VirtualHost>
"""

@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return load_text(tmp_path_factory.mktemp("explainer"), CONF)


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(CONF.splitlines(), 1) if line.strip().startswith(text))


def explainer(setup, code: str, at: str, directive: str | None = None) -> Explainer:
    config, file = setup
    diag = Diagnostic(code, "test", Span.point(file, line_of(at)), directive=directive)
    return Explainer(config, [diag], vhosts_of(config))


def backend(path: str = "/", **headers) -> dict:
    return {"backend": "backend.internal:80", "method": "GET", "path": path, "headers": list(headers.items())}


def case(field: str, av, nv, *, path: str = "/", method: str = "GET", status=(200, 200), a_backend=None,
         n_backend=None, host: str = "example.com", scheme: str = "http", headers: dict | None = None) -> Case:
    probe = Probe(method, scheme, host, 443 if scheme == "https" else 80, path, headers or {})
    a = Observation(status[0], backend=a_backend)
    n = Observation(status[1], backend=n_backend)
    return Case(probe, a, n, field, av, nv)


# code, the directive line it points at, the directive it names, a case it explains (None for a code that
# explains nothing), a like case it must not
CASES = [
    ("A2N503", "Header set X-Foo", "Header",
     case("header x-foo", ["bar"], None, path="/app/x", status=(502, 502), a_backend=backend(), n_backend=backend()),
     case("header x-foo", ["bar"], None, path="/x", status=(200, 200))),     # not proxied, not an error
    ("A2N320", "ProxyPass /pool/", "ProxyPass",
     case("backend header host", "one.internal", "two.internal", path="/pool/x", a_backend=backend(),
          n_backend=backend()),
     case("status", 200, 404, path="/pool/x", a_backend=backend(), n_backend=backend())),  # Host only
    ("A2N301", "ProxyPass /old/", "ProxyPass",
     None,                                              # a dead entry left out: nginx lacks it as httpd does
     case("body", "old", "new", path="/old/x")),
    ("A2N215", "TypesConfig", "TypesConfig",
     case("header content-type", ["text/plain"], ["application/octet-stream"], path="/x.conf"),
     case("header strict-transport-security", ["max-age=1"], None, path="/x.conf")),
    ("A2N709", "ExpiresActive", "ExpiresActive",
     case("header cache-control", ["no-cache"], ["max-age=60"], path="/api/x", a_backend=backend(),
          n_backend=backend()),
     case("header cache-control", ["no-cache"], ["max-age=60"], path="/api/x")),     # not proxied
    ("A2N709", "ExpiresActive", "ExpiresActive",
     case("header expires", ["x"], ["y"], path="/api/x", a_backend=backend(), n_backend=backend()),
     case("header expires", ["x"], ["y"], path="/app/x", a_backend=backend(), n_backend=backend())),  # outside
    ("A2N226", "Header set X-Foo", None,
     case("status", 200, 405, path="/index.html", method="POST", status=(200, 405)),
     case("status", 200, 404, path="/index.html", method="POST", status=(200, 404))),
    ("A2N101", "Header always set X-Bar", "Header",
     case("header x-bar", ["baz"], None),
     case("status", 200, 404, status=(200, 404))),                # mod_headers changes no status
    ("A2N101", "CustomLog", "CustomLog",
     None,                                                        # a log left out changes nothing seen
     case("header x-bar", ["baz"], None)),
    ("A2N405", "Redirect /promo/", "Redirect",
     case("location", "http://example.com/new/a/b", "http://example.com/new/a//b", path="/promo/a//b",
          status=(302, 302)),
     case("location", "http://example.com/new/a/b", "http://example.com/new/x", path="/promo/a/b",
          status=(302, 302))),                                    # an ordinary path: no raw form to differ
    ("A2N405", "Redirect /promo/", "Redirect",
     case("location", "http://example.com/new/%41", "http://example.com/new/A", path="/promo/%41",
          status=(302, 302)),
     case("location", "http://example.com/x/%41", "http://example.com/x/A", path="/other/%41",
          status=(302, 302))),                                    # outside the Redirect's prefix
    ("A2N339", "ProxyPass /raw/", "ProxyPass",
     case("backend path", "/raw/a/b", "/raw/a//b", path="/raw/a//b", a_backend=backend("/raw/a/b"),
          n_backend=backend("/raw/a//b")),
     case("backend path", "/raw/a/b", "/raw/a/../b", path="/raw/a/../b", a_backend=backend(),
          n_backend=backend())),                                  # dot segments are alike under nocanon
    ("A2N742", "Require host", "Require",
     case("status", 200, 403, path="/secret/x", status=(200, 403)),
     case("status", 200, 403, path="/public/x", status=(200, 403))),  # outside the refused region
    ("A2N711", "AllowEncodedSlashes", "AllowEncodedSlashes",
     case("status", 404, 200, path="/a%2Fb", status=(404, 200)),
     case("status", 404, 200, path="/a%20b", status=(404, 200))),
    ("A2N213", "TraceEnable", "TraceEnable",
     case("status", 200, 405, path="/", method="TRACE", status=(200, 405)),
     case("status", 200, 405, path="/", method="DELETE", status=(200, 405))),
    ("A2N822", "RewriteRule ^(.*)$", "RewriteRule",
     case("status", 200, 301, host="www.example.com:80", status=(200, 301)),
     case("status", 200, 301, host="www.example.com", status=(200, 301))),
    ("A2N229", "ContentDigest", "ContentDigest",
     case("header content-md5", ["abc=="], None, path="/index.html"),
     case("header content-md5", ["abc=="], None, path="/app/x", a_backend=backend(), n_backend=backend())),
    ("A2N504", "Header unset Server", "Header",
     case("header x-powered-by", None, ["nginx"]),
     case("header x-powered-by", ["php"], None)),                 # nginx can still leave one out
    ("A2N506", "Header append", "Header",
     case("header cache-control", ["a, private"], ["a", "private"]),
     case("header cache-control", ["a, private"], ["a", "public"])),      # other items than httpd's
    ("A2N508", "RequestHeader append", "RequestHeader",
     case("backend header x-forwarded-for", "1.2.3.4, 10.0.0.1", "10.0.0.1", path="/app/x", a_backend=backend(),
          n_backend=backend()),
     case("header x-forwarded-for", ["1"], None, path="/app/x", a_backend=backend(), n_backend=backend())),
    ("A2N751", "Options +MultiViews", "Options",
     case("status", 200, 404, path="/doc", status=(200, 404)),
     case("status", 200, 500, path="/doc", status=(200, 500))),
    ("A2N753", "AcceptPathInfo", "AcceptPathInfo",
     case("status", 200, 404, path="/a.html/extra", status=(200, 404)),
     case("location", "http://x/", None, path="/a.html/extra", status=(200, 404))),
    ("A2N209", "DirectoryIndex", "DirectoryIndex",
     case("status", 403, 200, path="/dir/", status=(403, 200)),
     case("status", 403, 200, path="/dir/file", status=(403, 200))),
    ("A2N338", "ProxyPassReverse", "ProxyPassReverse",
     case("header content-location", ["http://example.com/x"], ["http://backend.internal/x"], path="/app/x",
          a_backend=backend(), n_backend=backend()),
     case("header content-location", ["http://example.com/x"], ["http://backend.internal/x"], path="/x")),
    ("A2N306", "ProxyPassMatch", "ProxyPassMatch",
     case("backend path", "/a%3Fb", "/a?b", path="/m/a%3Fb", a_backend=backend(), n_backend=backend()),
     case("backend path", "/a", "/b", path="/m/a", a_backend=backend(), n_backend=backend())),
    ("A2N806", "RewriteRule ^/p/", "RewriteRule",
     case("backend", "backend.internal:80", None, path="/p/x", a_backend=backend()),
     case("connection", 200, "ConnectionResetError", path="/p/x")),
    ("A2N318", "ProxyVia", "ProxyVia",
     case("header via", ["1.1 example.com"], None, path="/app/x", a_backend=backend(), n_backend=backend()),
     case("header via", ["1.1 example.com"], None, path="/x")),
    ("A2N762", "Options +Includes", "Options",
     case("status", 200, 304, path="/x.shtml", status=(200, 304), headers={"If-None-Match": '"x"'}),
     case("status", 200, 304, path="/x.shtml", status=(200, 304))),
]


@pytest.mark.parametrize("code, at, directive, explained, unexplained", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_a_code_explains_only_what_it_declares_where_it_applies(setup, code, at, directive, explained, unexplained):
    ex = explainer(setup, code, at, directive)
    if explained is not None:
        assert ex.explain(explained) == code
    assert ex.explain(unexplained) is None


def test_the_coarse_explanations_of_old_are_refused(setup):
    """The differences the family table used to put down to unrelated diagnostics stay unexplained."""
    config, file = setup
    diags = [Diagnostic("A2N503", "t", Span.point(file, line_of("Header set X-Foo")), directive="Header"),
             Diagnostic("A2N215", "t", Span.point(file, line_of("TypesConfig")), directive="TypesConfig"),
             Diagnostic("A2N320", "t", Span.point(file, line_of("ProxyPass /pool/")), directive="ProxyPass")]
    ex = Explainer(config, diags, vhosts_of(config))
    # a header missing on a plain 200 (the onsuccess approximation matters only for proxied errors)
    assert ex.explain(case("header x-foo", ["bar"], None, path="/index.html")) is None
    # a 200 that became 404 under the balancer: one Host header changes no status
    assert ex.explain(case("status", 200, 404, path="/pool/x", status=(200, 404))) is None
    # the mime types explain a Content-Type, not a missing security header
    assert ex.explain(case("header strict-transport-security", ["max-age=1"], None)) is None
    assert ex.explain(case("header content-type", ["text/plain"], ["text/html"])) == "A2N215"


def test_a_header_directive_left_out_explains_headers_a_log_directive_nothing(setup):
    header = explainer(setup, "A2N101", "Header always set X-Bar", "Header")
    log = explainer(setup, "A2N101", "CustomLog", "CustomLog")
    missing = case("header x-bar", ["baz"], None)
    assert header.explain(missing) == "A2N101"
    assert log.explain(missing) is None
    assert header.explain(case("backend header host", "a", "b", path="/app/x", a_backend=backend(),
                               n_backend=backend())) == "A2N101"


def test_new_conditions(setup):
    c = case("status", 200, 403, path="/dir/?a=1", status=(200, 403), headers={"Authorization": "Basic eA=="})
    assert c.holds("directory-request") and c.holds("status-403") and c.holds("credentials")
    assert not c.holds("status-404") and not c.holds("conditional-request") and not c.holds("trace-method")
    d = case("status", 404, 200, path="/a//b%2fc", status=(404, 200), method="TRACE",
             headers={"If-Modified-Since": "x"})
    assert d.holds("doubled-slash") and d.holds("encoded-slash") and d.holds("status-404")
    assert d.holds("trace-method") and d.holds("conditional-request") and not d.holds("directory-request")
    assert not d.holds("options-method") and not c.holds("options-method")
    # a final dot segment names the directory both servers resolve it to; an encoded slash ends no segment
    for path, directory in (("/a/b/..", True), ("/a/b/.?x=1", True), ("/a/b/%2e%2E", True), ("/a/..b", False),
                            ("/a/b%2f", False), ("/a/b?x=/", False)):
        assert case("status", 404, 403, path=path, status=(404, 403)).holds("directory-request") is directory
    o = case("status", 200, 401, path="/missing/a.txt", status=(200, 401), method="OPTIONS")
    assert o.holds("options-method") and o.holds("success") and o.holds("nginx-refused") and not o.holds("trace-method")
    e = case("connection", 200, "SSLError: handshake", scheme="https")
    e.nginx.error = "SSLError: handshake"
    assert e.holds("nginx-failed") and not c.holds("nginx-failed")


@pytest.mark.parametrize("path, refused", [
    ("/%2e%2e/etc/passwd", True), ("/a/../../b", True), ("/%zz", True), ("/a%2", True), ("/a/%2E%2E/b", False),
    ("/a/../b", False), ("/..x/y", False), ("/a?x=/../..", False), ("/ok%41", False)])
def test_a_request_line_nginx_refuses_before_reading_host(setup, path, refused):
    c = case("header x-frame-options", "SAMEORIGIN", None, path=path, status=(400, 400))
    assert c.holds("refused-before-host") is refused
    assert not case("header x-frame-options", "x", None, path=path, status=(400, 200)).holds("refused-before-host")


def test_a_certificate_chain_explains_only_a_handshake_nginx_fails(setup):
    ex = explainer(setup, "A2N220", "ServerName", "SSLCertificateChainFile")
    failed = case("connection", 200, "SSLError: certificate verify failed", scheme="https")
    failed.nginx.error = "SSLError: certificate verify failed"
    refused_by_httpd = case("connection", "SSLError: certificate required", 400, scheme="https")
    refused_by_httpd.apache.error = "SSLError: certificate required"
    failed.probe.port = refused_by_httpd.probe.port = 80     # the test's virtual host, spoken to over TLS
    assert ex.explain(failed) == "A2N220"
    assert ex.explain(refused_by_httpd) is None     # nginx answered: its chain did not stop the client
