"""Whole servers as the distributions lay them out: Red Hat's /etc/httpd (tests/data/rhel, the stock files of
Fedora's and RHEL's httpd, mod_ssl and their conf.modules.d) and Debian's /etc/apache2 (the stock tree
installed on this machine, copied), with the environment httpd starts with and undefined variables."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from apache2nginx.convert import ConvertOptions, InputSpec, _undefined_in_outputs, convert
from apache2nginx.diagnostics import Diagnostics
from apache2nginx.syntax.modules import BUILTIN
from conftest import ROOT, assert_no_traceback, run_cli

RHEL = ROOT / "tests" / "data" / "rhel" / "etc" / "httpd"
DEBIAN = Path("/etc/apache2")


def _debian_copy(tmp_path: Path) -> Path:
    if not (DEBIAN / "apache2.conf").is_file() or not (DEBIAN / "envvars").is_file():
        message = "Debian's stock /etc/apache2 is required (apt-get install apache2)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    copy = tmp_path / "etc" / "apache2"
    shutil.copytree(DEBIAN, copy, symlinks=True)
    return copy


def _loaded_by(tree: Path) -> set[str]:
    """The modules the tree's conf.modules.d loads at top level (01-cgi.conf's conditional lines aside)."""
    found = set()
    for path in sorted((tree / "conf.modules.d").glob("*.conf")):
        found |= set(re.findall(r"^LoadModule (\S+) modules/mod_\S+\.so$", path.read_text(), re.M))
    return found


def test_red_hat_tree_is_read_under_its_own_server_root_with_its_modules():
    diags = Diagnostics()
    main = RHEL / "conf" / "httpd.conf"
    result = convert([InputSpec(str(main), main)], ConvertOptions(), diags)
    assert not result.fatal and not [d for d in diags if d.code in ("A2N020", "A2N022", "A2N100")], \
        [str(d) for d in diags if d.severity.value == "error"]
    read = {Path(f).resolve().relative_to(RHEL).as_posix() for f in result.config.files}
    assert read == {"conf/httpd.conf"} | {f"{p.parent.name}/{p.name}" for d in ("conf.modules.d", "conf.d")
                                          for p in (RHEL / d).glob("*.conf")}
    # the profile is what conf.modules.d loads (mod_cgid under the event MPM, by 01-cgi.conf), nothing more:
    # modules Debian ships but 00-optional.conf leaves commented out are not in it
    profile = result.config.profile
    assert profile.from_input and profile.loaded == set(BUILTIN) | _loaded_by(RHEL) | {"cgid_module"}
    assert "ratelimit_module" not in profile.loaded and "mpm_prefork_module" not in profile.loaded
    assert result.config.server_root == "/etc/httpd"
    text = "".join(result.outputs.values())
    for line in ("user apache apache;", "error_log /etc/httpd/logs/error_log warn;",
                 "access_log /etc/httpd/logs/access_log apache_combined", "listen 443 ssl",
                 "ssl_certificate /etc/pki/tls/certs/localhost.crt;", "ssl_ciphers PROFILE=SYSTEM;",
                 "root /var/www/html;"):
        assert line in text, line


def _openssl_knows(ciphers: str) -> bool:
    openssl = shutil.which("openssl")
    return bool(openssl) and subprocess.run([openssl, "ciphers", ciphers], capture_output=True).returncode == 0


def test_red_hat_tree_translation_passes_nginx_t(nginx_bin, tmp_path):
    out = tmp_path / "nginx.conf"
    proc = run_cli("convert", str(RHEL / "conf" / "httpd.conf"), "-o", str(out))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    if not _openssl_knows("PROFILE=SYSTEM"):
        # Fedora's and RHEL's OpenSSL read the keyword as the system-wide crypto policy, as httpd gave it to
        # them; this machine's OpenSSL does not know it
        text = text.replace("PROFILE=SYSTEM", "DEFAULT")
    out.write_text(text)
    from apache2nginx.lint.sandbox import Sandbox
    # verify's sandbox: nginx runs without `user` (the apache user exists on the Red Hat machine, not here),
    # certificates that are not here are stood in for
    box = Sandbox()
    try:
        assert box.build(str(out)) == []
        result = box.test(nginx_bin)
        assert result.ok, result.output
    finally:
        box.cleanup()


def test_env_overrides_what_debians_envvars_exports(tmp_path):
    root = _debian_copy(tmp_path)
    main = str(root / "apache2.conf")
    stock = run_cli("convert", main)
    assert_no_traceback(stock)
    assert stock.returncode == 0, stock.stderr
    assert "error_log /var/log/apache2/error.log warn;" in stock.stdout
    moved = run_cli("convert", main, "--env", "APACHE_LOG_DIR=/srv/log/web", "--env", "APACHE_RUN_USER=web")
    assert moved.returncode == 0, moved.stderr
    assert "error_log /srv/log/web/error.log warn;" in moved.stdout and "/var/log/apache2" not in moved.stdout
    assert "user web www-data;" in moved.stdout
    # --env is checked: NAME=VALUE
    bad = run_cli("convert", main, "--env", "APACHE_LOG_DIR")
    assert bad.returncode == 2 and "NAME=VALUE" in bad.stderr


SITE = """<VirtualHost *:80>
    ServerName app.example
    DocumentRoot ${APP_ROOT}/public
    Alias /static ${APP_ROOT}/static
    <Directory ${APP_ROOT}/public>
        Require all granted
    </Directory>
    <Location /admin>
        Require ip ${ADMIN_NET}
    </Location>
    CustomLog ${APACHE_LOG_DIR}/app.log combined
</VirtualHost>
"""


def test_an_undefined_variable_is_an_error_where_it_lands_and_never_reaches_nginx(tmp_path):
    root = _debian_copy(tmp_path)
    (root / "sites-enabled" / "app.conf").write_text(SITE)
    out = tmp_path / "nginx.conf"
    proc = run_cli("convert", str(root / "apache2.conf"), "-o", str(out), "--env", "HOME=/root")
    assert_no_traceback(proc)
    assert proc.returncode == 1, proc.stderr
    site = root / "sites-enabled" / "app.conf"
    for line, column, name in ((3, 18, "APP_ROOT"), (4, 19, "APP_ROOT"), (5, 16, "APP_ROOT"), (9, 20, "ADMIN_NET")):
        assert f"{site}:{line}:{column}: error[A2N022]: ${{{name}}} is not defined" in proc.stderr, proc.stderr
    assert "--env APP_ROOT=VALUE" in proc.stderr
    text = out.read_text()
    assert "${" not in text
    assert "server_name app.example;" in text and "access_log /var/log/apache2/app.log" in text
    # the Require left out refuses /admin rather than leave it open
    admin = text[text.index("location = /admin"):]
    assert admin[:admin.index("}")].count("deny all;") == 1
    # the tally counts what was left out as unsupported
    assert re.search(r"\d+ unsupported", proc.stderr)

    proc = run_cli("convert", str(root / "apache2.conf"), "--env", "APP_ROOT=/srv/app",
                   "--define", "ADMIN_NET=10.0.0.0/8")
    assert proc.returncode == 0, proc.stderr
    assert "A2N022" not in proc.stderr and "root /srv/app/public;" in proc.stdout
    assert "allow 10.0.0.0/8;" in proc.stdout and "${" not in proc.stdout


def test_the_last_guard_refuses_an_output_holding_an_undefined_variable():
    diags = Diagnostics()
    assert _undefined_in_outputs({"a.conf": "server {\n    return 200 ${FOO};\n}\n"}, {"FOO", "BAR"}, diags)
    (leak,) = list(diags)
    assert leak.code == "A2N904" and "a.conf holds ${FOO} (line 2)" in leak.message
    assert not _undefined_in_outputs({"a.conf": "log_format x '${dollar}';\n"}, {"FOO"}, Diagnostics())


def test_check_and_verify_take_env(tmp_path):
    (tmp_path / "apache").mkdir()
    (tmp_path / "apache" / "site.conf").write_text("Listen 80\n<VirtualHost *:80>\n    ServerName ${SITE}\n"
                                                   "</VirtualHost>\n")
    made = run_cli("convert", "apache/site.conf", "--env", "SITE=a.example", "-o", "site.nginx.conf", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "server_name a.example;" in (tmp_path / "site.nginx.conf").read_text()
    same = run_cli("check", "--env", "SITE=a.example", "apache/site.conf", "site.nginx.conf", cwd=tmp_path)
    assert same.returncode == 0, same.stdout + same.stderr
    drift = run_cli("check", "apache/site.conf", "site.nginx.conf", cwd=tmp_path)   # ServerName left out
    assert drift.returncode == 1, drift.stdout + drift.stderr
    (tmp_path / "pairs.toml").write_text('[convert]\nenv = { SITE = "a.example" }\n\n[[pair]]\n'
                                         'apache = "apache/site.conf"\nnginx = "site.nginx.conf"\n')
    assert run_cli("check", "--config", "pairs.toml", cwd=tmp_path).returncode == 0
    assert "--env NAME=VALUE" in run_cli("verify", "--help").stdout
