"""The static "unknown nginx variable" check (nginx_variables.py): lint's A2N969 and convert's A2N905.

nginx refuses a whole configuration that reads a variable nothing declares (`unknown "x" variable`, with no
line). The check must agree with real nginx 1.22 -t: the last test runs every case through it.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from apache2nginx.convert import ConvertOptions, InputSpec, _unknown_in_outputs, convert
from apache2nginx.diagnostics import Diagnostics
from apache2nginx.emit.render import Renderer, self_check_scan
from apache2nginx.lint import checks
from apache2nginx.lint.run import LintOptions, lint_file
from conftest import ROOT


def unknown(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    """(variable, line) of every A2N969 finding for an http-context text (a bare file, as lint reads one)."""
    conf = tmp_path / "t.conf"
    conf.write_text(text + "\n")
    _, found = checks.run_checks(str(conf))
    return [(f.message.split("$", 1)[1].split(",", 1)[0], f.node.line) for f in found if f.code == "A2N969"]


S = "server {\n    listen 8080;\n    %s\n}"
L = "server {\n    listen 8080;\n    location / {\n        %s\n    }\n}"

# (http-context text, the variables nginx calls unknown). Every case is also run through real nginx -t below.
CASES = [
    # reads in each kind of compiled argument
    (S % "return 200 $nope;", ["nope"]),
    (S % 'return 200 "${nope}x";', ["nope"]),
    (S % "return 200 '$nope';", ["nope"]),
    (S % r'return 200 "\$nope";', ["nope"]),            # a backslash does not escape `$`
    (S % "return 200 $0;", ["0"]),                       # only $1-$9 are captures
    (S % "return 200 ${1};", ["1"]),
    (L % "add_header X $nope;", ["nope"]),
    (L % "proxy_set_header X $nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_pass http://127.0.0.1/$nope;", ["nope"]),
    (L % "fastcgi_param A $nope; fastcgi_pass 127.0.0.1:9000;", ["nope"]),
    (L % "try_files $nope =404;", ["nope"]),
    (L % "alias /srv/$nope;", ["nope"]),
    (S % "root /srv/$nope;", ["nope"]),
    (S % "error_page 404 =200 /e$nope;", ["nope"]),
    (S % "index $nope;", ["nope"]),
    (S % "rewrite ^/a /b$nope;", ["nope"]),
    (S % "set $a $nope;", ["nope"]),
    (S % "if ($nope) { return 404; }", ["nope"]),
    (S % 'if ($uri = "/a$nope") { return 404; }', ["nope"]),
    (S % "if (-f /a$nope) { return 404; }", ["nope"]),
    (S % "expires $nope;", ["nope"]),
    (S % "charset $nope;", ["nope"]),
    (S % "auth_basic $nope;", ["nope"]),
    (S % "limit_rate $nope;", ["nope"]),
    (S % "ssl_certificate /c/$nope.pem; ssl_certificate_key /c/$nope.key;", ["nope", "nope"]),
    (S % "access_log /tmp/a.log combined if=$nope;", ["nope"]),
    (L % "proxy_redirect /a /b$nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_cache_key $nope;", ["nope"]),
    (L % "sub_filter a$nope b;", ["nope"]),
    (L % "secure_link $nope;", ["nope"]),
    (L % "proxy_ssl_certificate /c/$nope.pem; proxy_ssl_certificate_key /c/k.pem; proxy_pass https://127.0.0.1;",
     ["nope"]),
    (L % "proxy_ssl_certificate /c/c.pem; proxy_ssl_certificate_key /c/$nope.pem; proxy_pass https://127.0.0.1;",
     ["nope"]),
    (L % "proxy_ssl_name $nope; proxy_pass https://127.0.0.1;", ["nope"]),
    (L % "proxy_bind $nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_set_body $nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_store /s/$nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_cookie_path /a /b$nope; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_cookie_path ~^/a$nope /b; proxy_pass http://127.0.0.1;", []),
    (L % "proxy_cookie_domain a$nope b; proxy_pass http://127.0.0.1;", ["nope"]),
    (L % "proxy_cookie_domain ~^a$nope b; proxy_pass http://127.0.0.1;", []),
    (L % "proxy_cache_bypass $nope; proxy_no_cache $nope2;", ["nope", "nope2"]),
    (L % "fastcgi_cache_bypass $nope; fastcgi_no_cache $nope2; fastcgi_cache_key $nope3;",
     ["nope", "nope2", "nope3"]),
    (L % "uwsgi_cache_bypass $nope; uwsgi_no_cache $nope2; uwsgi_cache_key $nope3;", ["nope", "nope2", "nope3"]),
    (L % "scgi_cache_bypass $nope; scgi_no_cache $nope2; scgi_cache_key $nope3;", ["nope", "nope2", "nope3"]),
    (L % "uwsgi_param A $nope; uwsgi_pass 127.0.0.1:9000;", ["nope"]),
    (L % "scgi_param A $nope; scgi_pass 127.0.0.1:9000;", ["nope"]),
    (L % "grpc_set_header A $nope; grpc_pass 127.0.0.1:9000;", ["nope"]),
    (L % "fastcgi_pass $nope;", ["nope"]),
    (L % "uwsgi_pass $nope;", ["nope"]),
    (L % "scgi_pass $nope;", ["nope"]),
    (L % "grpc_pass $nope;", ["nope"]),
    (L % "secure_link_md5 $nope;", ["nope"]),
    (L % "auth_request /auth; auth_request_set $a $nope;", ["nope"]),
    (S % "auth_basic_user_file /p/$nope;", ["nope"]),
    (S % "limit_rate_after $nope;", ["nope"]),
    (S % "add_trailer X $nope;", ["nope"]),
    (S % "http2_push /p$nope;", ["nope"]),
    (S % "return 301 https://example.com/$nope;", ["nope"]),
    ("limit_conn_zone $nope zone=c:1m;", ["nope"]),
    ("log_format f '$nope';", ["nope"]),
    ("log_format f '$1';", ["1"]),                      # log_format's own parser: `$1` is a name
    ("map $nope $m { default 1; }", ["nope"]),
    ("map $uri $m { default $nope; }", ["nope"]),
    ("geo $nope $g { default 1; }", ["nope"]),
    ('split_clients "$nope" $sc { * a; }', ["nope"]),
    ("limit_req_zone $nope zone=z:1m rate=1r/s;", ["nope"]),
    ("map $uri $m { default 1; }\n" + S % "add_header X $m;\n    add_header Y $typo;", ["typo"]),
    # not compiled: a `$` there is text
    (S % "server_name $nope;", []),
    (S % "rewrite ^/a$nope /b;", []),
    (S % "location /$nope { }", []),
    (S % "if ($uri ~ ^/a$nope) { return 404; }", []),
    ("map $uri $m { /a$nope 1; ~^/b$nope 2; default 0; }", []),
    ("geo $g { default $nope; }", []),
    ('split_clients "$uri" $sc { * $nope; }', []),
    (L % "proxy_redirect ~^/a$nope /b; proxy_pass http://127.0.0.1;", []),
    (S % "add_header X$nope 1;", []),
    (S % "default_type $nope;", []),
    (S % "valid_referers $nope;", []),
    (S % "error_log /tmp/e$nope.log;", []),
    # built-in variables and prefixed families (any suffix, even none); names are case-insensitive
    (S % 'return 200 "$uri$args$host$request_uri$remote_addr$scheme$http2$ssl_protocol$realip_remote_addr";', []),
    (S % 'return 200 "$http_x_y$arg_$cookie_sid$sent_http_a$upstream_http_b$upstream_cookie_c$sent_trailer_d";',
     []),
    (S % 'return 200 "$upstream_trailer_e$REQUEST_URI$Http_Host$secure_link$slice_range$gzip_ratio";', []),
    # captures $1-$9 are accepted anywhere; `$10` is `$1` then `0`
    (S % 'return 200 "$1$9$10";', []),
    # declarations, wherever they stand
    (S % "return 200 $later;\n    set $later 1;", []),
    ("server { listen 8080; return 200 $other; }\nserver { listen 8081; set $Other 1; }", []),
    ("map $uri $m { default 1; }\ngeo $g { default 1; }\ngeo $remote_addr $g2 { default 1; }\n"
     'split_clients "$uri" $sc { * a; }\n' + S % 'return 200 "$m$g$g2$sc";', []),
    (L % "auth_request /auth; auth_request_set $st $upstream_status; return 200 $st;", []),
    # named captures of a location, server_name, if, map key and rewrite regex declare variables
    (S % 'location ~ ^/(?<a>.*)$ { }\n    location ~ ^/(?P<b>.*)$ { }\n    location ~ "^/(?\'c\'.*)$" { }\n'
         '    return 200 "$a$b$c";', []),
    ("server { listen 8080; server_name ~^(?<sub>.+)\\.example$; }\nserver { listen 8081; return 200 $sub; }", []),
    (S % 'if ($uri ~ ^/(?<i>.*)$) { }\n    rewrite ^/(?<r>.*)$ /x;\n    return 200 "$i$r";', []),
    ("map $uri $m { ~^/(?<mk>.*)$ 1; }\n" + S % "return 200 $mk;", []),
    # a `$` with no name after it is refused too ("invalid variable name"): the variable named ""
    (S % 'return 200 "a$";', [""]),
    (S % 'add_header X "a$-b";', [""]),
    (S % 'add_header X "a${uri}$1c$host-";', []),
]


@pytest.mark.parametrize("text,names", CASES)
def test_unknown_variables(tmp_path, text, names):
    assert [name for name, _ in unknown(tmp_path, text)] == names


def test_findings_point_at_the_reading_line(tmp_path):
    text = ("map $uri $m { default 1; }\nserver {\n    listen 80;\n    location / {\n"
            "        add_header X $m;\n        add_header Y $typo;\n    }\n    return 200 $typo2;\n}")
    assert unknown(tmp_path, text) == [("typo", 6), ("typo2", 8)]


def test_included_files_declare_and_are_located(tmp_path):
    (tmp_path / "maps.conf").write_text("map $uri $m { default 1; }\n")
    (tmp_path / "site.conf").write_text("server {\n    listen 80;\n    return 200 $m$x;\n}\n")
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text("events {}\nhttp {\n    include site.conf;\n    include maps.conf;\n}\n")
    _, found = checks.run_checks(str(main_conf))
    assert [(f.code, Path(f.node.file).name, f.node.line) for f in found] == [("A2N969", "site.conf", 3)]


def test_unmodelled_modules_and_other_contexts_are_not_checked(tmp_path):
    # a module that may declare anything: nothing reported
    conf = tmp_path / "nginx.conf"
    conf.write_text("load_module modules/ngx_http_lua_module.so;\nevents {}\n"
                    "http { server { listen 80; return 200 $anything; } }\n")
    assert [f for f in checks.run_checks(str(conf))[1] if f.code == "A2N969"] == []
    # geoip's variables are modelled: its prefix is accepted, a typo is not
    conf.write_text("load_module modules/ngx_http_geoip_module.so;\nevents {}\n"
                    "http { server { listen 80; return 200 $geoip_country_code$nope; } }\n")
    assert [f.message.split(",")[0] for f in checks.run_checks(str(conf))[1] if f.code == "A2N969"] == \
        ["return reads $nope"]
    # the stream context has variables of its own: not checked
    conf.write_text("events {}\nstream { map $ssl_preread_server_name $b { default a; } }\n")
    assert checks.run_checks(str(conf))[1] == []


def test_a_configuration_crossplane_cannot_fully_read_is_not_checked(tmp_path):
    """A missing include may hold the declaration."""
    conf = tmp_path / "t.conf"
    conf.write_text("include missing.conf;\nserver { listen 80; return 200 $from_missing; }\n")
    assert [f for f in checks.run_checks(str(conf))[1] if f.code == "A2N969"] == []


def test_lint_reports_it_as_an_error_without_running_nginx(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "site.conf"
    conf.write_text("server {\n    listen 80;\n    add_header X $typo;\n}\n")
    diags = Diagnostics()
    lint_file("site.conf", LintOptions(nginx=None), diags)
    (found,) = list(diags)
    assert (found.code, found.severity.value, found.span.file, found.span.line, found.span.column) == \
        ("A2N969", "error", "site.conf", 3, 5)
    assert found.message.startswith("add_header reads $typo, ")


def test_generated_configurations_read_only_known_variables():
    for conf in sorted((ROOT / "fixtures").glob("*/*/expected*.conf")):
        _, found = checks.run_checks(str(conf))
        assert [(f.node.line, f.message) for f in found if f.code == "A2N969"] == [], conf


# ------------------------------------------------------------------ convert: the self-check's guard

def test_the_self_check_scans_what_it_parses():
    errors, scan = self_check_scan("server {\n    listen 80;\n    return 200 $nope$uri;\n}\n", False)
    assert errors == [] and [v for v, _ in scan.unknown()] == ["nope"]


def test_outputs_are_one_configuration_for_declarations():
    outputs = {"shared.conf": "map $uri $m { default 1; }\n",
               "a.conf": "server {\n    listen 80;\n\n    return 200 $m;\n}\n",
               "b.conf": "server {\n    listen 81;\n\n    add_header X ${Typo};\n}\n"}
    scans = [self_check_scan(text, False)[1] for text in outputs.values()]
    diags = Diagnostics()
    assert _unknown_in_outputs(outputs, scans, diags)
    (found,) = list(diags)
    assert found.code == "A2N905" and "generated b.conf reads $typo (line 4)" in found.message
    assert not _unknown_in_outputs(dict(list(outputs.items())[:2]), scans[:2], Diagnostics())


def test_convert_refuses_an_output_reading_an_unknown_variable(tmp_path, monkeypatch):
    source = tmp_path / "apache.conf"
    source.write_text("<VirtualHost *:80>\n    ServerName a.example\n    DocumentRoot /srv/a\n</VirtualHost>\n")
    result = convert([InputSpec(str(source), source)], ConvertOptions(jobs=1), Diagnostics())
    assert not result.fatal and not any(d.code == "A2N905" for d in result.diagnostics)

    render = Renderer.render

    def buggy(self, *args, **kwargs):
        return render(self, *args, **kwargs).replace("server_name a.example;",
                                                     "server_name a.example;\n    add_header X $a2n_never_set;")
    monkeypatch.setattr(Renderer, "render", buggy)
    result = convert([InputSpec(str(source), source)], ConvertOptions(jobs=1), Diagnostics())
    assert result.fatal
    (found,) = [d for d in result.diagnostics if d.code == "A2N905"]
    assert "reads $a2n_never_set (line " in found.message


# ------------------------------------------------------------------ agreement with real nginx -t

def nginx_t(nginx: str, directory: Path, text: str) -> str:
    """nginx -t's error for an http-context text (empty when it accepts it)."""
    directory.mkdir()
    conf = directory / "nginx.conf"
    conf.write_text(f"error_log {directory}/error.log;\nevents {{}}\nhttp {{\naccess_log off;\n{text}\n}}\n")
    proc = subprocess.run([nginx, "-t", "-q", "-p", str(directory), "-c", str(conf), "-e", f"{directory}/error.log",
                           "-g", f"pid {directory}/nginx.pid;"], capture_output=True, text=True, timeout=60)
    return "" if proc.returncode == 0 else (proc.stderr + proc.stdout).strip()


def test_the_check_agrees_with_nginx(tmp_path, nginx_bin):
    """Each case: nginx -t refuses it for an unknown variable exactly when the check reports one (nginx
    names the first it meets; the check finds them all, and nginx accepts the case once they are declared),
    and accepts the cases the check passes; a `$` with no name (the variable named "") is another error."""
    for n, (text, names) in enumerate(CASES):
        err = nginx_t(nginx_bin, tmp_path / f"c{n}", text)
        ours = [name for name, _ in unknown(tmp_path, text)]
        assert ours == names, text
        if names == [""]:
            assert "invalid variable name" in err, (text, err)
        elif names:
            assert any(f'unknown "{name}" variable' in err for name in names), (text, err)
            if not any(name.isdigit() for name in names):
                # and declaring them is all nginx asks for
                declared = "".join(f"map $uri ${name} {{ default 1; }}\n" for name in dict.fromkeys(names))
                assert nginx_t(nginx_bin, tmp_path / f"d{n}", declared + text) == "", text
        else:
            assert err == "", (text, err)
