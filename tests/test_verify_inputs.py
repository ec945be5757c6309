"""`verify` runs on inputs httpd accepts but this machine cannot serve as written: directives of modules not
installed here, files the machine lacks (TLS parameters, relative password files, a certificate holding its
key), very long or deep request paths, TLS and WebSocket backends, a relative --docroot, and Debian's own
<Directory /> / <Directory /var/www/> layout. Each test writes a small configuration and asserts that verify
started both servers (exit 0 or 1, never 2) and, where it applies, that no access was widened."""
from __future__ import annotations

import os
import re

import json
import socket
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from apache2nginx.cli import main
from apache2nginx.lint import sandbox
from apache2nginx.verify import apache_sandbox

from conftest import CORPUS, run_cli


def verify(tmp_path: Path, conf: str, apache_bin: str, nginx_bin: str, *extra: str, cwd: Path | None = None,
           name: str = "site.conf"):
    (tmp_path / name).write_text(conf)
    proc = run_cli("verify", name if cwd is None else str(tmp_path / name), *extra, "--format", "json",
                   "--apache", apache_bin, "--nginx-bin", nginx_bin, cwd=cwd or tmp_path, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "could not run" not in proc.stderr
    return json.loads(proc.stdout)


def assert_not_widened(doc: dict) -> None:
    widened = [d for d in doc["differences"] if d.get("widened")]
    assert not widened, widened[:5]


def test_directives_of_modules_not_installed_are_left_out(tmp_path, apache_bin, nginx_bin):
    doc = verify(tmp_path, """\
WSGISocketPrefix /var/run/wsgi
<VirtualHost *:80>
    ServerName app.example.com
    DocumentRoot /srv/app
    WSGIDaemonProcess app processes=2 threads=15 user=www-data
    WSGIProcessGroup app
    WSGIScriptAlias /api /srv/app/app.wsgi
    <Directory /srv/app>
        Require all granted
    </Directory>
</VirtualHost>
""", apache_bin, nginx_bin)
    assert doc["summary"]["compared"] > 0


def test_notes_say_what_the_sandbox_changed(tmp_path, apache_bin):
    """The sandbox names every line it left out and every stand-in it wrote, with where it came from."""
    from apache2nginx.verify.apache_sandbox import ApacheSandbox
    from apache2nginx.verify.docroots import synthesize_docroots
    from apache2nginx.verify.run import make_certificate
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions
    conf = tmp_path / "site.conf"
    conf.write_text("WSGIDaemonProcess app processes=2\n<VirtualHost *:443>\n    SSLEngine on\n"
                    "    SSLCertificateFile /nonexistent/site.pem\n"
                    "    SSLOpenSSLConfCmd DHParameters /nonexistent/dhparam.pem\n</VirtualHost>\n")
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    paths = synthesize_docroots(result.config, [], tmp_path / "roots", None)
    box = ApacheSandbox(result.config, {}, paths, make_certificate(tmp_path / "certs"), apache_bin)
    try:
        written = box.write()
        check = subprocess.run([apache_bin, "-t", "-f", str(written)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, check.stderr
        notes = "\n".join(box.notes)
    finally:
        box.cleanup()
    assert "commented out WSGIDaemonProcess (mod_wsgi not installed)" in notes and "site.conf:1" in notes
    assert "/nonexistent/dhparam.pem (SSLOpenSSLConfCmd)" in notes and "site.conf:5" in notes
    assert "/nonexistent/site.pem" in notes


def test_missing_tls_files_get_stand_ins(tmp_path, apache_bin, nginx_bin):
    verify(tmp_path, """\
Listen 443
<VirtualHost *:443>
    ServerName secure.example.com
    SSLEngine on
    SSLCertificateFile /etc/ssl/nonexistent/site.crt
    SSLCertificateKeyFile /etc/ssl/nonexistent/site.key
    SSLCertificateChainFile /etc/ssl/nonexistent/chain.pem
    SSLCACertificateFile /etc/ssl/nonexistent/ca.pem
    SSLOpenSSLConfCmd DHParameters /etc/ssl/dhparam-nonexistent.pem
    SSLSessionTicketKeyFile /etc/ssl/nonexistent/ticket.key
    DocumentRoot /var/www/secure
</VirtualHost>
""", apache_bin, nginx_bin)


def test_relative_password_files(tmp_path, apache_bin, nginx_bin):
    doc = verify(tmp_path, """\
<VirtualHost *:80>
    ServerName private.example.com
    DocumentRoot /var/www/private
    <Location /admin>
        AuthType Basic
        AuthName "admin"
        AuthUserFile conf/htpasswd-admin
        AuthGroupFile conf/groups
        Require valid-user
    </Location>
</VirtualHost>
""", apache_bin, nginx_bin)
    assert_not_widened(doc)


def test_certificate_file_holding_its_key(tmp_path, apache_bin, nginx_bin):
    """No SSLCertificateKeyFile: httpd reads the key from the certificate file, so its stand-in holds both."""
    verify(tmp_path, """\
Listen 443
<VirtualHost *:443>
    ServerName both.example.com
    SSLEngine on
    SSLCertificateFile /etc/ssl/private/both-nonexistent.pem
    DocumentRoot /var/www/both
</VirtualHost>
""", apache_bin, nginx_bin)


def test_long_and_deep_request_paths(tmp_path, apache_bin, nginx_bin):
    long_segment = "/" + "l" * 300
    deep = "/d" * 1500
    (tmp_path / "requests.txt").write_text(f"GET {long_segment}/a.txt\nGET {deep}/a.txt\nGET {deep}/\n"
                                           f"GET /ok{long_segment}\n")
    verify(tmp_path, f"""\
<VirtualHost *:80>
    ServerName paths.example.com
    DocumentRoot /var/www/paths
    <Location {long_segment}>
        Require all granted
    </Location>
    <Location /deep{"/x" * 300}>
        Require all denied
    </Location>
</VirtualHost>
""", apache_bin, nginx_bin, "--requests", "requests.txt")


def test_tls_and_websocket_backends(tmp_path, apache_bin, nginx_bin):
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    (tmp_path / "requests.txt").write_text(
        f"GET /ws/chat Upgrade:websocket Connection:Upgrade Sec-WebSocket-Key:{key} Sec-WebSocket-Version:13\n"
        f"GET /wss/chat Upgrade:websocket Connection:Upgrade Sec-WebSocket-Key:{key} Sec-WebSocket-Version:13\n"
        "GET /api/users\n")
    doc = verify(tmp_path, """\
<VirtualHost *:80>
    ServerName proxy.example.com
    SSLProxyEngine on
    SSLProxyVerify none
    SSLProxyCheckPeerName off
    ProxyPass /api/ https://api.internal:8443/
    ProxyPassReverse /api/ https://api.internal:8443/
    ProxyPass /wss/ wss://push.internal:9443/
    ProxyPass /ws/ ws://chat.internal:9000/
</VirtualHost>
""", apache_bin, nginx_bin, "--requests", "requests.txt")
    assert_not_widened(doc)
    # both servers reach the TLS stand-ins and see the same answers (a plain-HTTP stand-in fails them differently)
    assert not [d for d in doc["differences"] if "/api/" in d["request"] or "/wss/" in d["request"]], \
        doc["differences"][:5]


def test_tls_echo_backend_answers_over_tls_and_upgrades(tmp_path):
    """The stand-in for an https:// backend speaks TLS; every stand-in completes a WebSocket handshake and sends
    what it received in a frame."""
    import socket
    import ssl
    from apache2nginx.verify.backends import EchoBackends
    with EchoBackends(["api.internal:8443", "chat.internal:9000"], tls={"api.internal:8443"}) as echo:
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", echo.ports["api.internal:8443"]), 10),
                             server_hostname="api.internal") as s:
            s.sendall(b"GET /x HTTP/1.1\r\nHost: api.internal\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200") and b'"backend": "api.internal:8443"' in data
        with socket.create_connection(("127.0.0.1", echo.ports["chat.internal:9000"]), 10) as s:
            s.sendall(b"GET /chat HTTP/1.1\r\nHost: chat.internal\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 101")
        assert b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in data
        head, _, frames = data.partition(b"\r\n\r\n")
        assert frames[0] == 0x81 and b'"path": "/chat"' in frames


def test_relative_docroot(tmp_path, apache_bin, nginx_bin):
    site = tmp_path / "docroot"
    site.mkdir()
    (site / "index.html").write_text("home\n")
    (site / "a.txt").write_text("a\n")
    for d in (tmp_path, site):
        d.chmod(0o755)
    for f in site.iterdir():
        f.chmod(0o644)
    verify(tmp_path, """\
<VirtualHost *:80>
    ServerName docroot.example.com
    DocumentRoot /srv/site
    <Directory /srv/site>
        Require all granted
    </Directory>
</VirtualHost>
""", apache_bin, nginx_bin, "--docroot", "docroot")


DEBIAN = """\
<Directory />
    Options FollowSymLinks
    AllowOverride None
    Require all denied
</Directory>
<Directory /usr/share>
    AllowOverride None
    Require all granted
</Directory>
<Directory /var/www/>
    Options Indexes FollowSymLinks
    AllowOverride None
    Require all granted
</Directory>
<FilesMatch "^\\.ht">
    Require all denied
</FilesMatch>
<VirtualHost *:80>
    ServerAdmin webmaster@localhost
    DocumentRoot /var/www/html
</VirtualHost>
"""


def test_debian_layout_grants_what_httpd_grants(tmp_path, apache_bin, nginx_bin):
    """<Directory /> denied and <Directory /var/www/> granted: the synthesised /var/www/html is under the grant,
    as on a Debian machine, so httpd serves it and nothing nginx serves is 'widened'."""
    doc = verify(tmp_path, DEBIAN, apache_bin, nginx_bin)
    assert_not_widened(doc)
    s = doc["summary"]
    assert s["same"] > s["compared"] // 2, doc["differences"][:5]


def test_directory_sections_move_with_the_synthesised_roots(tmp_path, apache_bin):
    """Every <Directory>/<DirectoryMatch> path lands under the same prefix as the synthesised roots."""
    from apache2nginx.verify.apache_sandbox import ApacheSandbox
    from apache2nginx.verify.docroots import synthesize_docroots
    from apache2nginx.verify.run import make_certificate
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions
    conf = tmp_path / "site.conf"
    conf.write_text(DEBIAN + '<DirectoryMatch "^/var/www/(.+)/private">\n    Require all denied\n'
                    '</DirectoryMatch>\nAlias /icons/ /usr/share/apache2/icons/\n')
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    paths = synthesize_docroots(result.config, [], tmp_path / "roots", None)
    base = paths.base
    assert paths["/var/www/html"] == base + "/var/www/html"
    assert paths["/usr/share/apache2/icons/"].startswith(base + "/usr/share/apache2/icons")
    box = ApacheSandbox(result.config, {}, paths, make_certificate(tmp_path / "certs"), apache_bin)
    try:
        text = box.write().read_text()
    finally:
        box.cleanup()
    assert f"<Directory {base}/>" in text and f"<Directory {base}/var/www/>" in text
    assert f"<Directory {base}/usr/share>" in text
    literal = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", base)    # the prefix as a literal in the regex
    # as httpd reads the argument: quoted when it holds a backslash, `\\` read as `\`
    patterns = [line[len("<DirectoryMatch "):-1].strip('"').replace("\\\\", "\\")
                for line in text.splitlines() if line.startswith("<DirectoryMatch ")]
    assert f"^{literal}/var/www/(.+)/private" in patterns, patterns


@pytest.mark.skipif(not (CORPUS / "certbot-distro-defaults" / "debian" / "apache2.conf").exists(),
                    reason="the shared corpus is not here")
def test_debian_stock_apache2_conf(tmp_path, apache_bin, nginx_bin):
    source = CORPUS / "certbot-distro-defaults" / "debian" / "apache2.conf"
    doc = verify(tmp_path, source.read_text(), apache_bin, nginx_bin, name="apache2.conf")
    assert_not_widened(doc)


def test_debian_layout_with_a_docroot(tmp_path, apache_bin, nginx_bin):
    """With --docroot standing in for /var/www/html, <Directory /var/www/> governs the directory above it."""
    site = tmp_path / "www" / "html"
    site.mkdir(parents=True)
    (site / "index.html").write_text("home\n")
    (site / "a.txt").write_text("a\n")
    for d in (tmp_path, tmp_path / "www", site):
        d.chmod(0o755)
    for f in site.iterdir():
        f.chmod(0o644)
    doc = verify(tmp_path, DEBIAN, apache_bin, nginx_bin, "--docroot", str(site))
    assert_not_widened(doc)
    assert doc["summary"]["same"] > doc["summary"]["compared"] // 2, doc["differences"][:5]
    text = sandbox_config(tmp_path, DEBIAN, apache_bin, str(site))
    assert f"<Directory {tmp_path}/www/>" in text and "<Directory />" in text


DOCROOT_PLACES = """Listen 80
<VirtualHost *:80>
    ServerName places.example.com
    DocumentRoot /srv/www
    <Directory /srv/www/blog>
        DirectoryIndex home.html
    </Directory>
    AliasMatch "^/media/(.*)\\.txt$" "/srv/www/blog/$1.txt"
    Alias /fb.html /srv/alt/fb.html
    Alias /secret.txt /srv/alt/private/secret.txt
    <Directory /srv/alt/private>
        Require all denied
    </Directory>
</VirtualHost>
"""


def test_docroot_holds_paths_under_a_document_root_at_their_place(tmp_path, apache_bin):
    """With --docroot standing in for /srv/www, a target under /srv/www (the AliasMatch's directory) is its
    place in the tree, so <Directory /srv/www/blog> governs TREE/blog and not the whole tree (httpd then
    refused / for want of home.html); a target outside every document root is synthesised as without
    --docroot, never the tree (whose directory made httpd redirect a file's URL to a slash): a file where
    the Alias names one, whose <Directory> above it moves along with it."""
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions
    from apache2nginx.verify.docroots import synthesize_docroots
    tree = tmp_path / "tree"
    (tree / "blog").mkdir(parents=True)
    (tree / "index.html").write_text("home\n")
    (tree / "blog" / "home.html").write_text("blog\n")
    conf = tmp_path / "places.conf"
    conf.write_text(DOCROOT_PLACES)
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    paths = synthesize_docroots(result.config, [], tmp_path / "synth", str(tree))
    assert paths["/srv/www"] == str(tree) and paths["/srv/www/blog"] == str(tree / "blog")
    outside = paths["/srv/alt/fb.html"]
    assert outside == str(tmp_path / "synth" / "fs" / "srv" / "alt" / "fb.html") and os.path.isfile(outside)
    assert any("/srv/alt/fb.html" in note for note in paths.notes)
    text = sandbox_config(tmp_path, DOCROOT_PLACES, apache_bin, str(tree))
    assert f"<Directory {tree}/blog>" in text and f"<Directory {tree}>" not in text
    assert f"Alias /fb.html {tmp_path}/roots/fs/srv/alt/fb.html" in text
    assert f"<Directory {tmp_path}/roots/fs/srv/alt/private>" in text


def sandbox_config(tmp_path: Path, conf_text: str, apache_bin: str, docroot: str | None = None) -> str:
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions
    from apache2nginx.verify.apache_sandbox import ApacheSandbox
    from apache2nginx.verify.docroots import synthesize_docroots
    from apache2nginx.verify.run import make_certificate
    conf = tmp_path / "sandboxed.conf"
    conf.write_text(conf_text)
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    paths = synthesize_docroots(result.config, [], tmp_path / "roots", docroot)
    box = ApacheSandbox(result.config, {}, paths, make_certificate(tmp_path / "certs"), apache_bin)
    try:
        return box.write().read_text()
    finally:
        box.cleanup()


def test_request_time_backend_hosts_name_no_backend():
    """A [P] target whose host is a map lookup or a variable names no backend: the sandbox leaves it as written
    (pointing `http://${lb:servers}/` at an echo stand-in made httpd proxy to an address it never builds)."""
    from apache2nginx.verify.apache_sandbox import _URL
    for text in ("http://${lb:servers}/$1", "http://%{HTTP_HOST}/x", "http://app$1/", "http://api${x}.internal/"):
        assert not list(_URL.finditer(text)), text
    found = [(m["scheme"], m["host"], m["port"]) for m in _URL.finditer("http://api.internal:8080/$1")]
    assert found == [("http", "api.internal", "8080")]


def test_echo_backend_answers_uwsgi():
    """A uwsgi request (4-byte header, LE16-length variables, body) gets the raw HTTP answer uwsgi sends, with the
    same description as an HTTP or FastCGI request."""
    import socket
    import struct
    from apache2nginx.verify.backends import EchoBackends

    def pair(k: str, v: str) -> bytes:
        return struct.pack("<H", len(k)) + k.encode() + struct.pack("<H", len(v)) + v.encode()
    env = {"REQUEST_METHOD": "POST", "REQUEST_URI": "/app/x?y=1", "SERVER_PROTOCOL": "HTTP/1.1",
           "HTTP_HOST": "wsgi.example.com", "CONTENT_LENGTH": "3"}
    data = b"".join(pair(k, v) for k, v in env.items())
    with EchoBackends(["app.internal:3031"]) as echo:
        with socket.create_connection(("127.0.0.1", echo.ports["app.internal:3031"]), 10) as s:
            s.sendall(struct.pack("<BHB", 0, len(data), 0) + data + b"a=1")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"X-Echo-Backend: app.internal:3031" in head
    seen = json.loads(body)
    assert (seen["method"], seen["path"], seen["body"]) == ("POST", "/app/x?y=1", "a=1")
    assert ["Host", "wsgi.example.com"] in seen["headers"]


@pytest.mark.parametrize("line, says", [
    ("GET http://v.example.test:8081~", "Port could not be cast"),
    ('GET "http://v.example.test/', "No closing quotation"),
    ("GET ftp://v.example.test/", "needs http:// or https:// and a host"),
    ("GET http:///x", "needs http:// or https:// and a host"),
    # a 1 MB line is refused at once (shlex.split took half a minute on it)
    ("GET /" + "a" * 1_000_000, "more than 65536"),
    # a NUL in the path was an internal error where verify writes a stand-in file for the path
    ("GET /a\0b", "a NUL byte"),
])
def test_a_request_line_that_names_no_request_is_refused_with_its_line(tmp_path, line, says):
    """A --requests file is input like a configuration: a bad line is an error naming the file and line,
    exit 2, before any server is started (no traceback, no 'internal error')."""
    (tmp_path / "site.conf").write_text("Listen 8081\n<VirtualHost *:8081>\n    ServerName v.example.test\n"
                                        f"    DocumentRoot {tmp_path}\n</VirtualHost>\n")
    (tmp_path / "requests.txt").write_text(f"GET /\n{line}\n")
    proc = run_cli("verify", "site.conf", "--requests", "requests.txt", cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "requests.txt: line 2:" in proc.stderr and says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


@pytest.mark.parametrize("option", ["--requests", "--access-log"])
def test_a_device_given_as_requests_or_log_is_not_read(tmp_path, option):
    (tmp_path / "site.conf").write_text("Listen 8081\n<VirtualHost *:8081>\n    ServerName v.example.test\n"
                                        f"    DocumentRoot {tmp_path}\n</VirtualHost>\n")
    proc = run_cli("verify", "site.conf", option, "/dev/zero", cwd=tmp_path, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "/dev/zero: is a character device" in proc.stderr, proc.stderr


@pytest.mark.parametrize("server", ["httpd", "nginx"])
def test_server_started_again_where_its_port_was_taken(server, apache_bin, nginx_bin, tmp_path, monkeypatch):
    """A port verify chose free may be taken by another process before httpd (or nginx) binds it: the server
    is started again on new ports rather than the run failing ("httpd did not start")."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    handed = []
    free = sandbox.free_port

    def racing(used=frozenset()):
        # the first port handed out is one another process holds by the time the server binds it
        port = taken.getsockname()[1] if not handed else free(used)
        handed.append(port)
        return port

    monkeypatch.setattr(apache_sandbox if server == "httpd" else sandbox, "free_port", racing)
    (tmp_path / "apache.conf").write_text("Listen 80\n<VirtualHost *:80>\n    ServerName race.example.com\n"
                                          "    DocumentRoot /srv/www\n</VirtualHost>\n")
    (tmp_path / "requests.txt").write_text("GET http://race.example.com/index.html\n")
    try:
        result = CliRunner().invoke(main, ["verify", str(tmp_path / "apache.conf"), "--requests",
                                           str(tmp_path / "requests.txt"), "--format", "json", "--apache",
                                           apache_bin, "--nginx-bin", nginx_bin])
    finally:
        taken.close()
    assert result.exit_code == 0, result.output[-2000:]
    assert handed[0] != handed[-1] and len(handed) >= 2
    assert json.loads(result.output)["summary"]["unexplained"] == 0
