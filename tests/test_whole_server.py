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

from apache2nginx.convert import ConvertOptions, InputSpec, convert
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
    assert read == {"conf/httpd.conf"} | {f"conf.modules.d/{p.name}" for p in (RHEL / "conf.modules.d").glob("*.conf")} \
        | {f"conf.d/{p.name}" for p in (RHEL / "conf.d").glob("*.conf")}
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
