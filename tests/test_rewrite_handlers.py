"""mod_rewrite constructs whose translation depends on the rest of the configuration: [H] handlers and
Options ExecCGI, access rules that stop a rule from being translated, -U, REDIRECT_STATUS, undefined maps."""
from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from conftest import run_cli

from apache2nginx.passes.rewrite_handler import SUBREQUEST_FAILS


def _convert(tmp_path, text: str, *args: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", *args, cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


def _vhost(body: str, root: str = "/srv/h") -> str:
    return f"Listen 80\n<VirtualHost *:80>\n    ServerName h.example.com\n    DocumentRoot {root}\n" \
           f"    RewriteEngine On\n{body}</VirtualHost>\n"


def test_cgi_handler_runs_through_fcgiwrap_only_where_execcgi_is_on(tmp_path):
    out, codes = _convert(tmp_path, _vhost("""    <Directory /srv/h/cgi>
        Options ExecCGI
    </Directory>
    RewriteRule ^/run/(\\w+)$ /cgi/$1 [H=cgi-script,L]
    RewriteRule ^/other/(\\w+)$ /else/$1 [H=cgi-script,L]
"""))
    assert codes.count("A2N322") == 1 and codes.count("A2N323") == 1
    assert "rewrite ^/run/(\\w+)$ /a2n_handler_1/cgi/$1 last;" in out
    assert "fastcgi_pass unix:/run/fcgiwrap.socket;" in out
    # mod_cgi refuses before it looks for the file
    block = out[out.index("location ^~ /a2n_handler_2/"):]
    assert re.search(r"internal;.*\n\s*return 403;", block)


def test_handler_rule_followed_by_other_rules_needs_l(tmp_path):
    _, codes = _convert(tmp_path, _vhost("""    RewriteRule ^/x/(.*)$ /y/$1 [H=application/x-httpd-php]
    RewriteRule ^/z/(.*)$ /w/$1
"""))
    assert "A2N813" in codes and "A2N322" not in codes


@pytest.mark.parametrize("section", ["<Location /app>\n        Require ip 10.0.0.0/8\n    </Location>",
                                     "<Directory /srv/h/app>\n        AuthType Basic\n        AuthName x\n"
                                     "        AuthUserFile /dev/null\n        Require valid-user\n    </Directory>"])
def test_handler_rule_is_refused_under_access_rules(tmp_path, section):
    _, codes = _convert(tmp_path, _vhost(f"""    {section}
    RewriteRule ^/app/(.*\\.php)$ /app/$1 [H=application/x-httpd-php,L]
"""))
    assert "A2N813" in codes and "A2N322" not in codes


def test_proxy_rule_is_refused_under_a_protected_location(tmp_path):
    _, codes = _convert(tmp_path, _vhost("""    <Location /api>
        Require ip 127.0.0.2
    </Location>
    RewriteRule ^/api/(.*)$ http://b.internal:8080/$1 [P]
"""))
    assert "A2N880" in codes and "A2N825" not in codes


def test_server_rewrite_out_of_a_protected_location_is_refused_but_pt_is_kept(tmp_path):
    out, codes = _convert(tmp_path, _vhost("""    <Location /admin>
        Require ip 127.0.0.2
    </Location>
    RewriteRule ^/admin/(.*)$ /x/$1 [L]
    RewriteRule ^/pt/(.*)$ /admin/$1 [PT]
"""))
    assert codes.count("A2N327") == 1
    assert "rewrite ^/pt/(.*)$ /admin/$1 last;" in out and "/x/$1" not in out


def test_redirect_status_marks_internal_rewrites(tmp_path):
    out, codes = _convert(tmp_path, """RewriteEngine On
RewriteCond %{ENV:REDIRECT_STATUS} ^$
RewriteRule ^index\\.php(?:/(.*)|$) /$1 [R=301,L]
RewriteRule ^ /index.php [L]
""", "--htaccess-dir", "/")
    assert codes.count("A2N324") == 1
    assert re.search(r"set \$a2n_redirect_status 200;.*\n\s*rewrite \^/ /index\.php last;", out)


def test_undefined_map_with_default_uses_the_default(tmp_path):
    out, codes = _convert(tmp_path, _vhost('    RewriteRule ^/ex/(.*) "${nomap:$1|/nf.html}"\n'
                                           '    RewriteRule ^/ey/(.*) "${nomap:$1}"\n'))
    assert codes.count("A2N325") == 1 and codes.count("A2N804") == 1
    assert "rewrite ^/ex/(.*) /nf.html;" in out


def test_url_lookup_needs_a_configuration_that_cannot_fail_subrequests(tmp_path):
    rule = '    RewriteCond %{REQUEST_URI} !-U\n    RewriteRule ^(.+)\\.html$ /regen.cgi [PT,L]\n'
    _, codes = _convert(tmp_path, _vhost(rule))
    assert "A2N328" in codes and "A2N809" not in codes
    _, codes = _convert(tmp_path, _vhost("    <Location /p>\n        Require all denied\n    </Location>\n" + rule))
    assert "A2N809" in codes and "A2N328" not in codes


@pytest.mark.parametrize("path, fails", [
    ("/a.html", False), ("/a%zz.html", True), ("/a%2f", True), ("/a%00", True), ("/a%25", False),
    ("/x/%2e%2e/a", False), ("/x/%2e%2e/%2e%2e/a", True), ("/%2e%2e", True), ("/x/%2e/%2e%2e/%2e%2e", True),
    ("/a/b/%2e%2e/c/%2e%2e/%2e%2e/d", False), ("/a/b/%2e%2e/c/%2e%2e/%2e%2e/%2e%2e/d", True),
    ("/x/%2e%2e%2e/%2e%2e/a", False), ("/x/.%2E/%2e./a", True),
])
def test_subrequest_failure_regex(path, fails):
    grep = shutil.which("grep")
    if grep is None:
        pytest.skip("grep -P is needed for PCRE recursion")
    proc = subprocess.run([grep, "-qP", SUBREQUEST_FAILS], input=path.encode(), timeout=10)
    assert (proc.returncode == 0) == fails


def test_repeated_next_rule_is_unreachable(tmp_path):
    out, codes = _convert(tmp_path, _vhost('    RewriteRule "(.+)[><;]$" "$1" [N=32000]\n'
                                           '    RewriteRule "(.+)[><;]$" "$1" [N=10]\n'))
    assert "A2N326" in codes and "A2N813" not in codes


def test_handler_rule_follows_the_merged_directory_access(tmp_path):
    # Debian's layout: / refused, /var/www granted; a refused directory under the target stops the rule
    _, codes = _convert(tmp_path, """Listen 80
<Directory />
    Require all denied
</Directory>
<Directory /var/www/>
    Require all granted
</Directory>
<VirtualHost *:80>
    ServerName d.example.com
    DocumentRoot /var/www/d
    <Directory /var/www/d/private>
        Require all denied
    </Directory>
    RewriteEngine On
    RewriteRule "!\\." "-" [H=application/x-httpd-php]
</VirtualHost>
<VirtualHost *:80>
    ServerName e.example.com
    DocumentRoot /var/www/e
    RewriteEngine On
    RewriteRule "^/p/(\\w+)$" "/pages/$1.php" [H=application/x-httpd-php,L]
</VirtualHost>
""")
    assert codes.count("A2N813") == 1 and codes.count("A2N322") == 1


def test_literal_prefix_of_a_rule_pattern():
    from apache2nginx.passes.rewrite_compile import literal_prefix
    assert literal_prefix(r"^/shop/([0-9]+)$") == "/shop/"
    assert literal_prefix(r"^/a\.b/c?d") == "/a.b/"          # c may be absent
    assert literal_prefix(r"^/ab+c") == "/ab"                # at least one b
    assert literal_prefix(r"^/x{0,1}") == "/"
    assert literal_prefix(r"/shop/") is None                  # not anchored: anywhere in the path
    assert literal_prefix(r"^/(a|b)") is None and literal_prefix(r"^/a|^/b") is None


def test_proxy_rule_outside_every_protected_location_is_translated(tmp_path):
    """httpd checks the original URL against <Location> access rules: a [P] rule whose URLs no protected
    section holds is refused by neither server, so it is translated."""
    out, codes = _convert(tmp_path, _vhost("""    <Location /admin>
        Require ip 127.0.0.2
    </Location>
    RewriteRule ^/api/(.*)$ http://b.internal:8080/$1 [P]
    RewriteRule ^/ADMIN(.*)$ http://b.internal:8080/$1 [P,NC]
"""))
    assert codes.count("A2N880") == 1          # the case-blind rule may see /admin
    assert "location ^~ /a2n_proxy_1/" in out
