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
