"""SSLRequire on client certificate name parts, against real httpd and nginx with client certificates
(which `verify` does not send): the first CN of the certificate, escaped characters in a value, an
escaped comma that looks like an attribute, a multi-valued RDN."""
from __future__ import annotations

import os
import socket
import ssl
import subprocess
import time
from pathlib import Path

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics

SUBJECTS = {"alice": "/C=DE/O=Snake Oil, Ltd./OU=Staff/CN=alice", "carol": "/C=DE/CN=carol/CN=alice",
            "twice": "/C=DE/CN=alice/CN=carol", "multi": "/C=DE/OU=Staff+CN=bob", "esc": "/C=DE/O=x\\,CN=alice/CN=zed"}
RULES = {"/a": 'SSLRequire %{SSL_CLIENT_S_DN_CN} in {"alice", "bob"}',
         "/b": 'SSLRequire %{SSL_CLIENT_S_DN_O} eq "Snake Oil, Ltd." and %{SSL_CLIENT_S_DN_OU} in {"Staff", "CA"}',
         "/d": 'SSLRequire %{SSL_CLIENT_S_DN_OU} == "Staff"',
         "/e": 'SSLRequire %{SSL_CLIENT_VERIFY} eq "SUCCESS" && %{SSL_CLIENT_S_DN_C} != "FR"'}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _certificates(d: Path) -> None:
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=Test CA", "-days", "2", "-keyout",
             "ca.key", "-out", "ca.pem", cwd=d)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "2", "-keyout",
             "server.key", "-out", "server.pem", cwd=d)
    for name, subject in SUBJECTS.items():
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-multivalue-rdn", "-subj", subject, "-keyout",
                 f"{name}.key", "-out", f"{name}.csr", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-out", f"{name}.pem", cwd=d)


def _status(port: int, path: str, cert: Path, key: Path) -> int:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(str(cert), str(key))
    for _ in range(50):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
                with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                    s.sendall(f"GET {path}/x HTTP/1.0\r\nHost: localhost\r\n\r\n".encode())
                    return int(s.recv(64).split()[1])
        except (ConnectionRefusedError, ssl.SSLError):
            time.sleep(0.1)
    raise AssertionError("no answer")


def test_certificate_name_requirements_decide_as_httpd_does(tmp_path, apache_bin, nginx_bin):
    _certificates(tmp_path)
    docroot = tmp_path / "htdocs"
    for location in RULES:
        (docroot / location.strip("/")).mkdir(parents=True)
        (docroot / location.strip("/") / "x").write_text("ok\n")
    sections = "".join(f"<Location {p}>\n{rule}\n</Location>\n" for p, rule in RULES.items())
    vhost = ("<VirtualHost 127.0.0.1:{port}>\nServerName localhost\nSSLEngine on\n"
             f"SSLCertificateFile {tmp_path}/server.pem\nSSLCertificateKeyFile {tmp_path}/server.key\n"
             f"SSLVerifyClient require\nSSLVerifyDepth 2\nSSLCACertificateFile {tmp_path}/ca.pem\n"
             f"DocumentRoot {docroot}\n<Directory {docroot}>\nRequire all granted\n</Directory>\n"
             f"{sections}</VirtualHost>\n")
    a_port, n_port = _port(), _port()
    modules = "/usr/lib/apache2/modules"
    (tmp_path / "httpd.conf").write_text(
        f"ServerRoot {tmp_path}\nServerName localhost\n"
        + "".join(f"LoadModule {m}_module {modules}/mod_{m}.so\n"
                  for m in ("mpm_event", "authz_core", "ssl", "socache_shmcb"))
        + f"PidFile {tmp_path}/httpd.pid\nErrorLog {tmp_path}/httpd.log\nMutex file:{tmp_path}\n"
        f"DefaultRuntimeDir {tmp_path}\nListen 127.0.0.1:{a_port}\n" + vhost.replace("{port}", str(a_port)))
    source = tmp_path / "site-apache.conf"
    source.write_text(f"Listen {n_port}\n" + vhost.replace("{port}", str(n_port)).replace("127.0.0.1:", "*:"))
    result = convert([InputSpec(str(source), source)], ConvertOptions(), Diagnostics())
    site = next(iter(result.outputs.values()))
    site = site.replace(f"listen [::]:{n_port}", f"listen [::1]:{n_port}")
    prefix = tmp_path / "ngx"
    (prefix / "conf").mkdir(parents=True)
    (prefix / "logs").mkdir()
    (prefix / "conf" / "site.conf").write_text(site)
    temps = " ".join(f"{t}_temp_path {prefix}/{t};" for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (prefix / "conf" / "nginx.conf").write_text(
        ("user root;\n" if os.geteuid() == 0 else "") +    # workers read the files under the test's directory
        f"pid {prefix}/nginx.pid;\nerror_log {prefix}/logs/error.log;\nevents {{}}\n"
        f"http {{ {temps} access_log off; include site.conf; }}\n")
    httpd = subprocess.Popen([apache_bin, "-f", str(tmp_path / "httpd.conf"), "-X"], stderr=subprocess.DEVNULL)
    nginx = subprocess.Popen([nginx_bin, "-p", str(prefix), "-c", "conf/nginx.conf", "-g", "daemon off;"])
    try:
        for name in SUBJECTS:
            for location in RULES:
                cert, key = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
                assert _status(n_port, location, cert, key) == _status(a_port, location, cert, key), (name, location)
    finally:
        httpd.terminate()
        nginx.terminate()
        httpd.wait(10)
        nginx.wait(10)
