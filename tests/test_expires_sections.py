"""mod_expires in <Directory>/<Files> sections: nginx answers with the Cache-Control httpd's merge gives."""
from __future__ import annotations

import json
import os
import shutil
import tempfile

from conftest import run_cli
from live import nginx, request


def test_each_section_gets_the_expiry_httpd_merges_there(tmp_path, nginx_bin):
    docroot = tempfile.mkdtemp(prefix="a2n-expires-")
    os.chmod(docroot, 0o755)
    for rel in ("a.txt", "page.html", "static/a.txt", "static/a.css", "static/page.html", "nocache/a.txt"):
        path = os.path.join(docroot, rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as fh:
            fh.write("x")
        os.chmod(path, 0o644)
    (tmp_path / "apache.conf").write_text(f"""Listen 127.0.0.1:8080
<VirtualHost *:8080>
    ServerName cache.example.com
    DocumentRoot {docroot}
    ExpiresActive On
    ExpiresByType text/plain "access plus 1 day"
    <Directory {docroot}>
        <FilesMatch "\\.html$">
            ExpiresActive Off
        </FilesMatch>
    </Directory>
    <Directory {docroot}/static>
        ExpiresDefault "access plus 1 hour"
    </Directory>
    <Directory {docroot}/nocache>
        ExpiresActive Off
    </Directory>
</VirtualHost>
""")
    doc = json.loads(run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path).stdout)
    out = "".join(doc["output"].values())
    # httpd: ByType is merged from the server into every section, ExpiresDefault and Active are the last set
    expected = {"/a.txt": "max-age=86400", "/page.html": None, "/static/a.txt": "max-age=86400",
                "/static/a.css": "max-age=3600", "/static/page.html": None, "/nocache/a.txt": None}
    try:
        with nginx(out, nginx_bin, "127.0.0.1:8080") as port:
            for path, cache_control in expected.items():
                status, headers, _ = request(port, path, "cache.example.com")
                assert status == 200, path
                assert headers.get("cache-control", [None])[0] == cache_control, (path, headers)
    finally:
        shutil.rmtree(docroot, ignore_errors=True)
