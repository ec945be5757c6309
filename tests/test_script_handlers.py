"""Script handlers httpd runs itself (mod_fcgid's FCGIWrapper, mod_php) and CGI through fcgiwrap: the
translation sends them to a FastCGI server, says so, and passes nginx -t."""
from __future__ import annotations

import json

from conftest import run_cli


def _convert(tmp_path, text: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


def test_fcgid_wrapper_in_a_directory_goes_to_a_fastcgi_server(tmp_path, nginx_bin):
    out, codes = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName w.example.com
    DocumentRoot /srv/w
    <Directory /srv/w>
        <FilesMatch "\\.php$">
            SetHandler fcgid-script
        </FilesMatch>
        FcgidWrapper /usr/local/bin/php-wrapper .php
        Require all granted
    </Directory>
</VirtualHost>
""")
    assert codes.count("A2N721") == 2 and "A2N101" not in codes
    assert "fastcgi_pass unix:/run/php/php-fpm.sock;  #" in out
    assert "try_files $fastcgi_script_name =404;  #" in out
    (tmp_path / "out.conf").write_text(out)
    assert run_cli("lint", "out.conf", "--nginx", nginx_bin, cwd=tmp_path).returncode == 0


def test_script_alias_runs_programs_through_fcgiwrap_with_path_info(tmp_path, nginx_bin):
    out, codes = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName c.example.com
    ScriptAlias /cgi-bin/ /usr/lib/cgi-bin/
</VirtualHost>
""")
    assert "A2N406" in codes and "A2N404" not in codes
    assert "fastcgi_split_path_info ^(/cgi-bin/[^/]+)(/.*)$;  #" in out
    assert "~^/cgi\\-bin/(.*)$ /usr/lib/cgi-bin/$1;" in out
    (tmp_path / "out.conf").write_text(out)
    assert run_cli("lint", "out.conf", "--nginx", nginx_bin, cwd=tmp_path).returncode == 0
