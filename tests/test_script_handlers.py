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


def test_scripts_under_a_directory_section_still_run_and_are_never_served_as_files(tmp_path, nginx_bin):
    """A <Directory> section or an Alias makes a `^~` location, which hides the server's regex locations: the
    PHP handler must be nested there (and in the regex locations <FilesMatch> sections make), or nginx serves
    the script's source where httpd runs it."""
    import os
    import tempfile
    from live import nginx, request
    docroot = tempfile.mkdtemp(prefix="a2n-docroot-")
    os.chmod(docroot, 0o755)                   # nginx's workers may run as nobody
    for rel, text in (("sub/a.php", "<?php echo 'secret';"), ("sub/a.txt", "plain"), ("b.php", "<?php 1;")):
        path = os.path.join(docroot, rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        os.chmod(path, 0o644)
    out, _ = _convert(tmp_path, f"""Listen 127.0.0.1:8080
<VirtualHost *:8080>
    ServerName s.example.com
    DocumentRoot {docroot}
    <Directory {docroot}>
        <FilesMatch "\\.php$">
            Header set X-Script yes
        </FilesMatch>
    </Directory>
    <Directory {docroot}/sub>
        Header set X-Sub yes
    </Directory>
    Alias /aliased/ {docroot}/sub/
    <FilesMatch "\\.php$">
        SetHandler "proxy:fcgi://127.0.0.1:1"
    </FilesMatch>
</VirtualHost>
""")
    try:
        with nginx(out, nginx_bin, "127.0.0.1:8080") as port:
            assert request(port, "/sub/a.txt", "s.example.com")[0] == 200     # the files are readable
            assert request(port, "/aliased/a.txt", "s.example.com")[0] == 200
            for path in ("/sub/a.php", "/b.php", "/aliased/a.php"):
                status, _, body = request(port, path, "s.example.com")
                assert status == 502 and "<?php" not in body, (path, status, body)   # sent to the (absent) server
    finally:
        import shutil
        shutil.rmtree(docroot, ignore_errors=True)
