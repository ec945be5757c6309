"""A literal `$` in a Header or RequestHeader value: httpd sends the text as written; nginx reads `$name` in
add_header, map values and proxy_set_header as a variable, so each literal `$` is written `${a2n_dollar}`
(a geo variable that is always `$`)."""
from __future__ import annotations

from conftest import run_cli

CONF = """\
Listen 80
<VirtualHost *:80>
    ServerName dollar.test
    DocumentRoot /var/www/html
    Header always set Content-Security-Policy "script-src 'self' 'nonce-$args'"
    Header set X-Frame-Options "$http_x_frame"
    Header always set Referrer-Policy "same-origin\\\\$"
    RequestHeader set X-Backend "v$remote_addr"
</VirtualHost>
"""


def _convert(tmp_path) -> str:
    conf = tmp_path / "apache.conf"
    conf.write_text(CONF)
    proc = run_cli("convert", str(conf))
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_literal_dollar_in_a_header_value_is_not_read_as_a_variable(tmp_path):
    out = _convert(tmp_path)
    assert 'geo $a2n_dollar {\n    default "$";\n}' in out
    assert "'nonce-${a2n_dollar}args'\" always;" in out
    assert '"${a2n_dollar}http_x_frame"' in out
    assert 'same-origin\\\\${a2n_dollar}" always;' in out
    assert 'proxy_set_header X-Backend "v${a2n_dollar}remote_addr";' in out
    for read in ("nonce-$args", '"$http_x_frame"', "v$remote_addr", 'origin\\\\$"'):
        assert read not in out


REDIRECTS = """\
Listen 80
<VirtualHost *:80>
    ServerName dollar.test
    DocumentRoot /var/www/html
    Redirect /r http://other.test/a$args
    RedirectMatch ^/m(.*)$ http://other.test/z$1$args
    ErrorDocument 404 "Not found: $args $1"
</VirtualHost>
"""


def test_a_literal_dollar_in_a_redirect_target_or_a_message_is_not_read_as_a_variable(tmp_path):
    conf = tmp_path / "apache.conf"
    conf.write_text(REDIRECTS)
    proc = run_cli("convert", str(conf))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert 'rewrite ^/r((?:/.*)?)$ "http://other.test/a${a2n_dollar}args$1" redirect;' in out
    assert "http://other.test/z$1${a2n_dollar}args" in out
    assert 'return 404 "Not found: ${a2n_dollar}args $1";' in out
    assert "a$args" not in out and "$1$args" not in out and ": $args" not in out


def test_the_self_check_refuses_a_dollar_no_variable_name_follows():
    from apache2nginx.convert import _unknown_in_outputs
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.nginx_variables import Scan

    scan = Scan()
    scan.statement("add_header", ["X", "same-origin\\$"], ("http", "server"), None)
    diags = Diagnostics()
    assert _unknown_in_outputs({"a.conf": 'add_header X "same-origin\\\\$";\n'}, [scan], diags)
    (found,) = list(diags)
    assert found.code == "A2N905" and "a `$` that no variable name follows" in found.message


PATHS = """\
Listen 80
Listen 443
<VirtualHost *:80>
    ServerName dollar.test
    DocumentRoot "/srv/www/$host"
    Alias /x "/srv/x/$host/"
    AliasMatch ^/y/(.*)$ "/srv/y/$1/$host"
    ScriptAlias /cgi/ "/srv/cgi$uri/"
    SetEnvIf Request_URI "^/p(.*)" V=$host$1
    SetEnv APP_X "a$host"
    DirectoryIndex "in$args.html"
    ErrorDocument 403 /err$args.html
    FallbackResource /fb$args.html
    CustomLog "/var/log/apache2/a$host.log" combined
    <Location /priv>
        AuthType Basic
        AuthName "Zone $host"
        AuthUserFile "/etc/apache2/passwd$host"
        Require valid-user
    </Location>
</VirtualHost>
<VirtualHost *:443>
    ServerName dollar.test
    SSLEngine on
    SSLCertificateFile "/etc/ssl/a$host.pem"
</VirtualHost>
"""


def test_a_literal_dollar_in_a_file_name_or_a_value_is_not_read_as_a_variable(tmp_path):
    """httpd reads every `$` of these paths and values as itself (AliasMatch and SetEnvIf: but their `$1`
    captures); nginx's root, alias, index, error_page, try_files, auth_basic(_user_file), map values,
    fastcgi_param and ssl_certificate read variables. A log file name with `$` is refused (A2N101)."""
    conf = tmp_path / "apache.conf"
    conf.write_text(PATHS)
    proc = run_cli("convert", str(conf))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for written in ('root "/srv/www/${a2n_dollar}host";', 'alias "/srv/x/${a2n_dollar}host/";',
                    'alias "/srv/y/$1/${a2n_dollar}host";', '"/srv/cgi${a2n_dollar}uri/$1";',
                    '"${a2n_dollar}host$1";', 'fastcgi_param APP_X "a${a2n_dollar}host";',
                    'index "in${a2n_dollar}args.html"', 'error_page 403 "/err${a2n_dollar}args.html";',
                    '"/fb${a2n_dollar}args.html$is_args$args"', 'auth_basic "Zone ${a2n_dollar}host";',
                    'auth_basic_user_file "/etc/apache2/passwd${a2n_dollar}host";',
                    'ssl_certificate "/etc/ssl/a${a2n_dollar}host.pem";'):
        assert written in out, written
    assert "$host" not in out.replace("${a2n_dollar}host", "") and "access_log /var/log/apache2/a" not in out
    assert "error[A2N101]: CustomLog" in proc.stderr and "warning[A2N241]: SSLCertificateFile" in proc.stderr


def test_the_sandbox_moves_a_path_written_with_literal_dollars():
    from apache2nginx.lint.sandbox import Sandbox

    box = Sandbox(paths={"/srv/www/$host": "/tmp/box/srv/www/$host"})
    try:
        assert box._mapped("/srv/www/${a2n_dollar}host/sub/") == "/tmp/box/srv/www/${a2n_dollar}host/sub/"
        assert box._mapped("/srv/www/$host/sub/") == "/tmp/box/srv/www/$host/sub/"
    finally:
        box.cleanup()
