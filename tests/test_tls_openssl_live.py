"""TLS settings that OpenSSL applies, on real servers: the key-exchange groups httpd accepts under
SSLOpenSSLConfCmd are the ones the translation's ssl_ecdh_curve accepts (an OpenSSL client offering only P-256
fails on both, X25519 succeeds on both), and each SSLSessionCache form sends a session ID and resumes a TLS 1.2
session (tickets off) as its translation does."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from live import apache, free_port, nginx, translate


def _handshake(port: int, group: str) -> bool:
    proc = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "tls.example",
                           "-groups", group, "-brief"], input=b"", capture_output=True, timeout=20)
    return proc.returncode == 0 and b"CONNECTION ESTABLISHED" in proc.stderr


_translate = translate


@pytest.fixture()
def certificate():
    if not shutil.which("openssl"):
        pytest.skip("openssl is required")
    d = Path(tempfile.mkdtemp(prefix="a2n-tls-"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", d / "key.pem", "-out",
                    d / "cert.pem", "-days", "2", "-subj", "/CN=tls.example"], check=True, capture_output=True)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("command", ["ECDHParameters X25519", "Curves X25519", "Groups X25519:X448"])
def test_group_commands_accept_the_same_clients(command, certificate, apache_bin, nginx_bin):
    port = free_port()
    site = (f"<VirtualHost 127.0.0.1:{port}>\nServerName tls.example\nSSLEngine on\n"
            f"SSLCertificateFile {certificate}/cert.pem\nSSLCertificateKeyFile {certificate}/key.pem\n"
            f"SSLProtocol TLSv1.3\nSSLOpenSSLConfCmd {command}\n</VirtualHost>\n")
    apache_conf = ("LoadModule ssl_module /usr/lib/apache2/modules/mod_ssl.so\n"
                   "LoadModule socache_shmcb_module /usr/lib/apache2/modules/mod_socache_shmcb.so\n"
                   f"Listen 127.0.0.1:{port}\n" + site)
    text, messages = _translate(f"Listen 127.0.0.1:{port}\n" + site)
    assert "ssl_ecdh_curve " + command.split()[1] + ";" in text
    assert "error[" not in messages
    with apache(apache_conf, apache_bin, port):
        seen = {g: _handshake(port, g) for g in ("P-256", "X25519")}
    assert seen == {"P-256": False, "X25519": True}
    with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
        assert {g: _handshake(nport, g) for g in ("P-256", "X25519")} == seen


def _session(port: int) -> tuple[bool, bool]:
    """(a session ID was sent, the session was resumed) for TLS 1.2 without tickets."""
    with tempfile.TemporaryDirectory() as tmp:
        base = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-tls1_2", "-no_ticket"]
        first = subprocess.run(base + ["-sess_out", f"{tmp}/s"], input=b"", capture_output=True, timeout=20)
        again = subprocess.run(base + ["-sess_in", f"{tmp}/s"], input=b"", capture_output=True, timeout=20)
    sid = re.search(rb"Session-ID: *([0-9A-F]*)", first.stdout)
    return bool(sid and sid.group(1)), b"Reused" in again.stdout


@pytest.mark.parametrize("cache, expected", [("none", (False, False)), ("nonenotnull", (True, False)),
                                             ("dbm:{dir}/scache", (True, True)),
                                             ("shmcb:{dir}/scache(512000)", (True, True))])
def test_session_cache_forms_resume_alike(cache, expected, certificate, apache_bin, nginx_bin):
    port = free_port()
    store = certificate / "cache"   # httpd's children (www-data when run as root) write the DBM file here
    store.mkdir()
    os.chmod(certificate, 0o755)
    os.chmod(store, 0o777)
    site = (f"Listen 127.0.0.1:{port}\nSSLSessionCache {cache.format(dir=store)}\n"
            f"<VirtualHost 127.0.0.1:{port}>\nServerName tls.example\nSSLEngine on\n"
            f"SSLCertificateFile {certificate}/cert.pem\nSSLCertificateKeyFile {certificate}/key.pem\n</VirtualHost>\n")
    modules = "".join(f"LoadModule {m}_module /usr/lib/apache2/modules/mod_{m}.so\n"
                      for m in ("ssl", "socache_shmcb", "socache_dbm"))
    with apache(modules + site, apache_bin, port):
        assert _session(port) == expected
    text, _ = _translate(site)
    with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
        assert _session(nport) == expected
