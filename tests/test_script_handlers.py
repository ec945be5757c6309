"""Script handlers httpd runs itself (mod_fcgid's FCGIWrapper, mod_php) and CGI through fcgiwrap: the
translation sends them to a FastCGI server, says so, and passes nginx -t."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


def _script_dir(prefix: str, script: str, name: str = "hello.cgi") -> tuple[str, str]:
    """(a new directory both servers' workers can read holding the executable NAME, the path of a FastCGI
    socket in it)."""
    import os
    import tempfile
    base = tempfile.mkdtemp(prefix=prefix)
    os.chmod(base, 0o755)                      # nginx's workers and httpd's children may run as nobody/www-data
    with open(os.path.join(base, name), "w") as fh:
        fh.write(script)
    os.chmod(os.path.join(base, name), 0o755)
    return base, os.path.join(base, "fcgi.sock")


def _convert(tmp_path, text: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


# mod_fcgid in a <Directory>, with the Options line a test puts in (FCGIWrapper and ExecCGI, or nothing)
FCGID_DIRECTORY = """Listen 80
<VirtualHost *:80>
    ServerName w.example.com
    DocumentRoot /srv/w
    <Directory /srv/w>
        <FilesMatch "\\.php$">
            SetHandler fcgid-script
        </FilesMatch>
        {extra}
        Require all granted
    </Directory>
</VirtualHost>
"""


def test_fcgid_wrapper_in_a_directory_goes_to_a_fastcgi_server(tmp_path, nginx_bin):
    out, codes = _convert(tmp_path, FCGID_DIRECTORY.format(
        extra="FcgidWrapper /usr/local/bin/php-wrapper .php\n        Options +ExecCGI"))
    assert codes.count("A2N721") == 2 and "A2N101" not in codes
    assert "fastcgi_pass unix:/run/php/php-fpm.sock;  #" in out
    assert "try_files $fastcgi_script_name =404;  #" in out
    (tmp_path / "out.conf").write_text(out)
    assert run_cli("lint", "out.conf", "--nginx", nginx_bin, cwd=tmp_path).returncode == 0


def test_fcgid_scripts_where_exec_cgi_is_off_are_refused_as_httpd_refuses_them(tmp_path):
    """mod_fcgid answers 403 where the directory's Options lack ExecCGI (httpd 2.4's default is
    FollowSymLinks only): the translation must not run them."""
    out, codes = _convert(tmp_path, FCGID_DIRECTORY.format(extra=""))
    assert "A2N723" in codes and "A2N721" not in codes
    assert "fastcgi_pass" not in out and "return 403;  # fcgid-script: Options ExecCGI is off here" in out


def test_add_handler_is_counted_once_and_gated_by_exec_cgi(tmp_path):
    """AddHandler is a directive of its own (not a section's member): one disposition each."""
    (tmp_path / "apache.conf").write_text("""DocumentRoot /srv/a
<Directory /srv/a>
    Options +ExecCGI
    AddHandler cgi-script .cgi .pl
</Directory>
AddHandler application/x-httpd-php .php
""")
    doc = json.loads(run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path).stdout)
    assert doc["summary"]["directives"] == 5
    out = "".join(doc["output"].values())
    assert "fastcgi_pass unix:/run/fcgiwrap.socket;" in out and "(?i)\\.(?:cgi|pl)(?:\\.[^/]*)?(/|$)" in out


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


def test_cgi_files_run_through_fcgiwrap_where_httpd_runs_them_and_are_refused_where_it_refuses(
        tmp_path, nginx_bin, apache_bin, fcgiwrap_bin):
    """<FilesMatch> + SetHandler cgi-script: real httpd (mod_cgi) and real nginx with fcgiwrap answer alike,
    the script runs with its PATH_INFO where Options ExecCGI holds, 403 where it does not, and its source is
    never sent."""
    import os
    import shutil
    import tempfile
    from live import apache, fcgiwrap, free_port, nginx, request
    base = tempfile.mkdtemp(prefix="a2n-cgi-")
    os.chmod(base, 0o755)                      # nginx's workers and httpd's children may run as nobody/www-data
    script = '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\nran %s\\n" "$PATH_INFO"\n'
    for rel in ("on/hello.cgi", "off/hello.cgi", "add/hello.cgi.txt", "add/cgi.txt"):
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(script)
        os.chmod(path, 0o755)
    port = free_port()
    config = f"""Listen 127.0.0.1:{port}
<VirtualHost 127.0.0.1:{port}>
    ServerName on.example.com
    DocumentRoot {base}/on
    <Directory {base}/on>
        Options +ExecCGI
        Require all granted
    </Directory>
    <FilesMatch "\\.cgi$">
        SetHandler cgi-script
    </FilesMatch>
</VirtualHost>
<VirtualHost 127.0.0.1:{port}>
    ServerName add.example.com
    DocumentRoot {base}/add
    <Directory {base}/add>
        Options +ExecCGI
        AddHandler cgi-script .cgi
        Require all granted
    </Directory>
</VirtualHost>
<VirtualHost 127.0.0.1:{port}>
    ServerName off.example.com
    DocumentRoot {base}/off
    <Directory {base}/off>
        Require all granted
    </Directory>
    <FilesMatch "\\.cgi$">
        SetHandler cgi-script
    </FilesMatch>
</VirtualHost>
"""
    out, codes = _convert(tmp_path, config)
    assert "A2N722" in codes and "A2N723" in codes and "A2N724" not in codes
    socket_path = os.path.join(base, "fcgiwrap.sock")
    out = out.replace("unix:/run/fcgiwrap.socket", f"unix:{socket_path}")
    probes = [("on.example.com", "/hello.cgi/extra"), ("on.example.com", "/missing.cgi"),
              ("off.example.com", "/hello.cgi"), ("off.example.com", "/missing.cgi"),
              # AddHandler: an extension anywhere after the first dot runs; the first part is no extension
              ("add.example.com", "/hello.cgi.txt"), ("add.example.com", "/cgi.txt")]
    try:
        with fcgiwrap(fcgiwrap_bin, socket_path):
            with apache(config, apache_bin, port, modules=("cgi",)):
                httpd = {probe: request(port, probe[1], probe[0]) for probe in probes}
            with nginx(out, nginx_bin, f"127.0.0.1:{port}") as nport:
                ours = {probe: request(nport, probe[1], probe[0]) for probe in probes}
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert httpd[probes[0]][0] == 200 and httpd[probes[0]][2] == "ran /extra\n"
    assert [httpd[p][0] for p in probes[1:]] == [404, 403, 403, 200, 200]
    assert httpd[probes[4]][2] == "ran \n" and "#!/bin/sh" in httpd[probes[5]][2]
    for probe in probes:
        assert ours[probe][0] == httpd[probe][0], (probe, ours[probe], httpd[probe])
        assert ("#!/bin/sh" in ours[probe][2]) == ("#!/bin/sh" in httpd[probe][2]), probe
    assert ours[probes[0]][2] == "ran /extra\n"


def test_proxypassmatch_to_a_unix_socket_fastcgi_server_appends_the_path_as_httpd_does(
        tmp_path, nginx_bin, apache_bin, fcgiwrap_bin):
    """`ProxyPassMatch RE unix:/sock|fcgi://localhost/dir/` (no $N): httpd appends the request path to the
    URL's, so the script is /dir/<path>; real httpd (mod_proxy_fcgi) and real nginx hand fcgiwrap the same
    script over the same Unix socket."""
    import shutil
    from live import apache, fcgiwrap, free_port, nginx, request
    base, socket_path = _script_dir("a2n-fcgi-", '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\nran %s\\n" '
                                    '"$SCRIPT_NAME"\n')
    port = free_port()
    config = f"""Listen 127.0.0.1:{port}
<VirtualHost 127.0.0.1:{port}>
    ServerName fcgi.example.com
    DocumentRoot {base}
    ProxyPassMatch ^/(.*\\.cgi)$ unix:{socket_path}|fcgi://localhost{base}/
</VirtualHost>
"""
    out, codes = _convert(tmp_path, config)
    assert "A2N302" not in codes
    assert f"server unix:{socket_path};" in out and f"SCRIPT_FILENAME {base}$uri;" in out
    try:
        with fcgiwrap(fcgiwrap_bin, socket_path):
            # fcgiwrap is a generic FastCGI server: httpd must not send PHP-FPM's proxy:fcgi:// file names
            with apache(config.replace("ProxyPassMatch", "ProxyFCGIBackendType GENERIC\n    ProxyPassMatch"),
                        apache_bin, port, modules=("proxy_fcgi",)):
                httpd = request(port, "/hello.cgi", "fcgi.example.com")
            with nginx(out, nginx_bin, f"127.0.0.1:{port}") as nport:
                ours = request(nport, "/hello.cgi", "fcgi.example.com")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert httpd[0] == 200 and httpd[2].startswith("ran"), httpd
    assert ours[0] == 200 and ours[2].startswith("ran"), ours


def test_fastcgi_parameters_set_from_other_parameters_match_httpd(tmp_path, nginx_bin, apache_bin, fcgiwrap_bin):
    """ProxyFCGISetEnvIf "true" NAME "...%{reqenv:OTHER}...": httpd builds the parameter from the others as it
    sends them (in order, after earlier overrides); real httpd (mod_proxy_fcgi) and real nginx hand fcgiwrap
    the same values."""
    import shutil
    from live import apache, fcgiwrap, free_port, nginx, request
    base, socket_path = _script_dir("a2n-fcgi-env-", '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\n%s|%s|%s\\n" '
                                    '"$SCRIPT_NAME" "$PATH_INFO" "$X_ORIG"\n')
    port = free_port()
    config = f"""Listen 127.0.0.1:{port}
<VirtualHost 127.0.0.1:{port}>
    ServerName fcgi.example.com
    DocumentRoot {base}
    <Directory {base}>
        Require all granted
    </Directory>
    <FilesMatch "\\.cgi$">
        SetHandler "proxy:unix:{socket_path}|fcgi://localhost/"
    </FilesMatch>
    ProxyFCGISetEnvIf "true" X_ORIG "%{{reqenv:PATH_INFO}}+%{{reqenv:SCRIPT_NAME}}x"
    ProxyFCGISetEnvIf "true" PATH_INFO "/was%{{reqenv:SCRIPT_NAME}}"
</VirtualHost>
"""
    out, codes = _convert(tmp_path, config)
    assert "A2N101" not in codes
    probes = ["/hello.cgi/extra", "/hello.cgi"]
    try:
        with fcgiwrap(fcgiwrap_bin, socket_path):
            with apache(config.replace("    ProxyFCGISetEnvIf", "    ProxyFCGIBackendType GENERIC\n    ProxyFCGISetEnvIf", 1),
                        apache_bin, port, modules=("proxy_fcgi",)):
                httpd = [request(port, p, "fcgi.example.com") for p in probes]
            with nginx(out, nginx_bin, f"127.0.0.1:{port}") as nport:
                ours = [request(nport, p, "fcgi.example.com") for p in probes]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert httpd[0][:1] == (200,) and httpd[0][2] == "/hello.cgi|/was/hello.cgi|/extra+/hello.cgix\n", httpd
    assert [(s, b) for s, _, b in ours] == [(s, b) for s, _, b in httpd]


@pytest.mark.parametrize("reuse", [True, False])
def test_fastcgi_handlers_keep_connections_where_the_worker_reuses_them(tmp_path, nginx_bin, apache_bin, reuse):
    """<Proxy "fcgi://localhost/" enablereuse=on> gives the worker a SetHandler "proxy:unix:...|fcgi://localhost/"
    uses a pool of kept connections (httpd's documented PHP-FPM setup); without it each request opens its own.
    A FastCGI responder that counts requests per connection shows both servers keep (or do not keep) them."""
    import shutil
    from live import apache, fastcgi_counter, free_port, nginx, request
    base, socket_path = _script_dir("a2n-fcgi-reuse-", "<?php\n", "app.php")
    port = free_port()
    worker = '<Proxy "fcgi://localhost/" enablereuse=on max=4>\n</Proxy>\n' if reuse else ""
    config = f"""Listen 127.0.0.1:{port}
StartServers 1
ServerLimit 1
{worker}<VirtualHost 127.0.0.1:{port}>
    ServerName fpm.example.com
    DocumentRoot {base}
    <Directory {base}>
        Require all granted
    </Directory>
    <FilesMatch "\\.php$">
        SetHandler "proxy:unix:{socket_path}|fcgi://localhost/"
    </FilesMatch>
</VirtualHost>
"""
    out, codes = _convert(tmp_path, config)
    assert ("fastcgi_keep_conn on;" in out) == reuse and "A2N101" not in codes
    try:
        with fastcgi_counter(socket_path):
            with apache(config, apache_bin, port, modules=("proxy_fcgi",)):
                httpd = [request(port, "/app.php", "fpm.example.com") for _ in range(6)]
            with nginx(out, nginx_bin, f"127.0.0.1:{port}") as nport:
                ours = [request(nport, "/app.php", "fpm.example.com") for _ in range(6)]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for name, answers in (("httpd", httpd), ("nginx", ours)):
        assert all(status == 200 for status, _, _ in answers), (name, answers)
        counts = [int(body.split()[3]) for _, _, body in answers]
        assert (max(counts) > 1) == reuse, (name, [body for _, _, body in answers])


def test_scriptalias_index_test_quotes_a_target_nginx_would_split(tmp_path):
    """A ScriptAlias target holding `;` or a space: the `-f` test of its index file is one quoted word (an
    unquoted `;` ended the `if` and the output did not re-parse)."""
    out, codes = _convert(tmp_path, 'Listen 80\n<VirtualHost *:80>\n    ScriptAlias "/cgi bin/" "/srv/c gi;/"\n'
                                    '</VirtualHost>\n')
    assert "A2N900" not in codes
    assert 'if (-f "/srv/c gi;/index.html")' in out
