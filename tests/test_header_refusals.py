"""`Header always` lines of a virtual host on the 400 nginx answers before it reads the Host header (a path
climbing above the root): nginx answers from the default server, so the default server carries the other
hosts' headers for those answers only; verify (real httpd and nginx) finds no lost header."""
from __future__ import annotations

import json

from conftest import assert_no_traceback, run_cli

CONF = """\
Listen 127.0.0.1:{port}
<VirtualHost 127.0.0.1:{port}>
    ServerName default.test
    DocumentRoot {root}
</VirtualHost>
<VirtualHost 127.0.0.1:{port}>
    ServerName app.test
    DocumentRoot {root}
    Header always set X-Frame-Options SAMEORIGIN
    Header always set X-Content-Type-Options nosniff
</VirtualHost>
<VirtualHost 127.0.0.1:{port}>
    ServerName other.test
    DocumentRoot {root}
    Header always set X-Frame-Options SAMEORIGIN
</VirtualHost>
"""


def _write(tmp_path, text=CONF):
    root = tmp_path / "www"
    root.mkdir()
    (root / "index.html").write_text("hello\n")
    conf = tmp_path / "apache.conf"
    conf.write_text(text.format(port=18731, root=root))
    return conf


def test_the_default_server_carries_the_hosts_headers_only_before_host_is_read(tmp_path):
    proc = run_cli("convert", str(_write(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    default = out[out.index("server {"):out.index("server_name app.test")]
    assert "add_header X-Frame-Options $a2n_unrouted_" in default
    assert "add_header X-Content-Type-Options $a2n_unrouted_" in default
    assert "map $uri $a2n_unrouted_1 {" in out and '"" SAMEORIGIN;' in out
    # reported where the answers gain a header the host does not send
    assert proc.stderr.count("A2N511") >= 2


def test_verify_finds_no_lost_header_on_refused_paths(tmp_path, apache_bin, nginx_bin):
    proc = run_cli("verify", str(_write(tmp_path)), "--format", "json", timeout=300)
    assert_no_traceback(proc)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["lost_security"] == 0 and summary["unexplained"] == 0, summary
    assert proc.returncode == 0


def test_hosts_that_disagree_are_reported_and_verify_says_so(tmp_path, apache_bin, nginx_bin):
    disagreeing = CONF[:CONF.rindex("SAMEORIGIN")] + "DENY" + CONF[CONF.rindex("SAMEORIGIN") + len("SAMEORIGIN"):]
    conf = _write(tmp_path, disagreeing)
    convert = run_cli("convert", str(conf))
    assert "A2N511" in convert.stderr and "another host's" in convert.stderr
    proc = run_cli("verify", str(conf), "--format", "json", timeout=300)
    assert_no_traceback(proc)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["lost_security"] >= 1 and proc.returncode == 1, summary
