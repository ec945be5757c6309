"""<DirectoryMatch> refusals: translated as $request_filename tests where nothing can lift them, inherited
from the main server, and refusing the whole server where a later <Location>/<Files> could grant again."""
from __future__ import annotations

import json

from conftest import run_cli


def _convert(tmp_path, text: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", "--no-source-comments", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


def test_main_server_refusal_reaches_every_virtual_host(tmp_path):
    out, codes = _convert(tmp_path, """Listen 80
<DirectoryMatch "/\\.git">
    Require all denied
</DirectoryMatch>
<VirtualHost *:80>
    ServerName a.example.com
    DocumentRoot /srv/a
</VirtualHost>
<VirtualHost *:80>
    ServerName b.example.com
    DocumentRoot /srv/b
    ProxyPass /api/ http://127.0.0.1:9000/
</VirtualHost>
""")
    assert "A2N740" not in codes
    # `location /` in each virtual host, and b's `= /api` (httpd's /api is not proxied: a file is looked up)
    assert out.count("if ($request_filename ~ /\\.git)") == 3
    api = out[out.index("location ^~ /api/"):]
    assert "request_filename" not in api.split("}")[0]          # proxied URLs have no file name in httpd


def test_a_location_that_could_grant_again_refuses_the_server(tmp_path):
    out, codes = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName c.example.com
    DocumentRoot /srv/c
    <DirectoryMatch "/private">
        Require all denied
    </DirectoryMatch>
    <Location /private/open>
        Require all granted
    </Location>
</VirtualHost>
""")
    assert "A2N740" in codes
    assert "request_filename" not in out and "deny all;" in out


def test_rules_other_than_a_refusal_are_not_translated(tmp_path):
    out, codes = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName d.example.com
    DocumentRoot /srv/d
    <DirectoryMatch "/internal">
        Require ip 10.0.0.0/8
    </DirectoryMatch>
</VirtualHost>
""")
    assert "A2N740" in codes and "deny all;" in out and "10.0.0.0/8" not in out
