"""A whole Debian server in, a deployable nginx tree out: Debian's stock /etc/apache2 (from the installed
apache2 package) with default-ssl and the usual modules enabled plus a proxy site, and a generated server
of 2,000 site files. Each tree must pass `nginx -t -p OUT -c nginx.conf` with no warning at all, hold only
the files a tree has, and say what it removes on a rerun."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT, assert_no_traceback, run_cli

sys.path.insert(0, str(ROOT / "bench"))
import _common as bench  # noqa: E402

from apache2nginx.emit.tree import safe_name  # noqa: E402

PROXY_SITE = """\
<VirtualHost *:80>
    ServerName app.example.test
    ServerAlias www.app.example.test
    ProxyPreserveHost On
    ProxyPass /api/ http://127.0.0.1:18080/api/
    ProxyPassReverse /api/ http://127.0.0.1:18080/api/
    Header always set X-Frame-Options SAMEORIGIN
    RewriteEngine On
    RewriteRule ^/old/(.*)$ /new/$1 [R=301,L]
    ErrorLog ${APACHE_LOG_DIR}/app-error.log
    CustomLog ${APACHE_LOG_DIR}/app-access.log combined
</VirtualHost>
"""


@pytest.fixture(scope="session")
def stock_apache() -> Path:
    if not (bench.STOCK_APACHE / "apache2.conf").is_file():
        message = "Debian's apache2 package is required for /etc/apache2 (apt-get install apache2)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return bench.STOCK_APACHE


def _server(root: Path, logs: Path) -> Path:
    """A copy of the stock tree whose logs go to LOGS (as an administrator sets APACHE_LOG_DIR)."""
    conf = bench.debian_server(root)
    envvars = root / "envvars"
    envvars.write_text(envvars.read_text() + f"\nexport APACHE_LOG_DIR={logs}\n")
    logs.mkdir(exist_ok=True)
    return conf


def _nginx_t(nginx_bin: str, out: Path) -> str:
    import subprocess
    proc = subprocess.run([nginx_bin, "-t", "-p", str(out), "-c", "nginx.conf", "-e", "/dev/stderr"],
                          capture_output=True, text=True, timeout=120)
    problems = [line for line in proc.stderr.splitlines() if re.search(r"\[(warn|emerg|alert|crit|error)\]", line)]
    assert proc.returncode == 0 and not problems, proc.stderr[-3000:]
    return proc.stderr


PARAMETER_FILES = {"mime.types", "fastcgi_params", "uwsgi_params", "scgi_params"}


def _params_included(out: Path) -> bool:
    """nginx's parameter files are in the tree exactly when a generated file includes them."""
    texts = "".join(p.read_text() for p in out.rglob("*.conf") if p.is_file())
    wanted = {name for name in PARAMETER_FILES if f"include {name};" in texts}
    return wanted == {name for name in PARAMETER_FILES if (out / name).exists()}


def _tree(out: Path) -> set[str]:
    return {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() or p.is_symlink()}


def test_stock_debian_server_becomes_a_tree_nginx_accepts_without_warnings(tmp_path, stock_apache, nginx_bin):
    conf = _server(tmp_path / "apache2", tmp_path / "logs")
    (tmp_path / "apache2" / "sites-available" / "app.conf").write_text(PROXY_SITE)
    bench.enable_site(tmp_path / "apache2", "app.conf")
    out = tmp_path / "nginx"
    proc = run_cli("convert", str(conf), "--out-dir", str(out))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = _tree(out)
    sites = {"000-default.conf", "default-ssl.conf", "app.conf"}
    assert _params_included(out)
    assert files - PARAMETER_FILES == ({"nginx.conf", "conf.d/00-apache2nginx-shared.conf"}
                     | {f"sites-available/{s}" for s in sites} | {f"sites-enabled/{s}" for s in sites})
    for site in sites:
        assert os.readlink(out / "sites-enabled" / site) == f"../sites-available/{site}"
    for name in files:
        for line in (out / name).read_text().splitlines():
            assert not line.startswith("#") or len(line) < 300, (name, line[:120])
    # every Apache ${VAR} resolved (nginx's own ${name} of generated variables may remain)
    assert "A2N022" not in proc.stderr
    assert not re.search(r"\$\{(?!a2n_)", "".join((out / n).read_text() for n in files))
    nginx_conf = (out / "nginx.conf").read_text()
    assert "include conf.d/*.conf;" in nginx_conf and "include sites-enabled/*.conf;" in nginx_conf
    assert "server_name app.example.test www.app.example.test;" in (out / "sites-available/app.conf").read_text()
    _nginx_t(nginx_bin, out)


def test_stock_debian_server_verifies_without_unexplained_differences(tmp_path, stock_apache, nginx_bin,
                                                                        apache_bin):
    conf = _server(tmp_path / "apache2", tmp_path / "logs")
    (tmp_path / "apache2" / "sites-available" / "app.conf").write_text(PROXY_SITE)
    bench.enable_site(tmp_path / "apache2", "app.conf")
    proc = run_cli("verify", str(conf), "--format", "json", timeout=600)
    assert_no_traceback(proc)
    report = json.loads(proc.stdout)
    summary = report["summary"]
    assert summary["compared"] > 50, summary
    assert summary["unexplained"] == 0 and summary["widened"] == 0 and summary["lost_security"] == 0, \
        json.dumps(summary)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_two_thousand_sites_make_a_tree_nginx_accepts_without_warnings(tmp_path, stock_apache, nginx_bin):
    root = tmp_path / "apache2"
    conf = _server(root, tmp_path / "logs")
    names = bench.add_sites(root, 2000)
    out = tmp_path / "nginx"
    proc = run_cli("convert", str(conf), "--out-dir", str(out), "--quiet", timeout=600)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    available = sorted(p.name for p in (out / "sites-available").iterdir())
    assert len(available) == 2002 and set(names) <= set(available)
    shared = (out / "conf.d" / "00-apache2nginx-shared.conf").read_text()
    maps = [(source, re.sub(r"\s+#.*", "", body)) for source, body in
            re.findall(r"^map (\S+) \S+ \{(.*?)^\}", shared, re.S | re.M)]
    assert len(maps) == len(set(maps)) and len(maps) < 20, "identical maps are defined once"
    # every canonical-host redirect has the names it answers for, or stays inside its site
    for name in names:
        if "-canonical-" in name:
            text = (out / "sites-available" / name).read_text()
            assert "return 301" in text or "rewrite " in text, name
            for block in re.findall(r"^server \{.*?^\}", text, re.S | re.M):
                assert "server_name " in block or "default_server" in block, (name, block[:300])
    _nginx_t(nginx_bin, out)


def test_a_rerun_removes_what_a_gone_site_left_and_reports_foreign_files(tmp_path, stock_apache):
    root = tmp_path / "apache2"
    conf = _server(root, tmp_path / "logs")
    (root / "sites-available" / "app.conf").write_text(PROXY_SITE)
    bench.enable_site(root, "app.conf")
    out = tmp_path / "nginx"
    assert run_cli("convert", str(conf), "--out-dir", str(out)).returncode == 0
    assert (out / "sites-enabled" / "app.conf").is_symlink()
    (root / "sites-enabled" / "app.conf").unlink()                   # a2dissite app
    (out / "conf.d" / "by-hand.conf").write_text("# written by an administrator\n")
    proc = run_cli("convert", str(conf), "--out-dir", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not (out / "sites-enabled" / "app.conf").exists() and not (out / "sites-enabled" / "app.conf").is_symlink()
    assert not (out / "sites-available" / "app.conf").exists()
    assert "A2N016" in proc.stderr and "app.conf" in proc.stderr
    assert "A2N017" in proc.stderr and (out / "conf.d" / "by-hand.conf").exists()


@pytest.mark.parametrize("layout, expected", [
    ("rhel", {"nginx.conf", "conf.d/00-apache2nginx-shared.conf", "conf.d/000-default.conf",
              "conf.d/default-ssl.conf"}),
    ("flat", {"nginx.conf", "00-apache2nginx-shared.conf", "000-default.conf", "default-ssl.conf"}),
])
def test_other_layouts(tmp_path, stock_apache, nginx_bin, layout, expected):
    conf = _server(tmp_path / "apache2", tmp_path / "logs")
    out = tmp_path / "nginx"
    proc = run_cli("convert", str(conf), "--out-dir", str(out), "--layout", layout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _tree(out) - PARAMETER_FILES == expected and _params_included(out)
    _nginx_t(nginx_bin, out)


def test_layout_needs_an_output_directory(tmp_path):
    site = tmp_path / "site.conf"
    site.write_text("<VirtualHost *:80>\nServerName a.test\n</VirtualHost>\n")
    proc = run_cli("convert", str(site), "--layout", "debian")
    assert proc.returncode == 2 and "--layout goes with --out-dir" in proc.stderr


def test_a_tree_is_written_all_or_nothing(tmp_path, stock_apache):
    conf = _server(tmp_path / "apache2", tmp_path / "logs")
    blocker = tmp_path / "nginx"
    blocker.mkdir()
    (blocker / "sites-available").write_text("a file where the tree wants a directory\n")
    proc = run_cli("convert", str(conf), "--out-dir", str(blocker))
    assert_no_traceback(proc)
    assert proc.returncode == 2 and "no output was written" in proc.stderr
    assert sorted(p.name for p in blocker.iterdir()) == ["sites-available"]


def test_a_site_tree_from_site_files_names_its_files_safely(tmp_path, nginx_bin):
    root = tmp_path / "apache2"
    (root / "sites-enabled").mkdir(parents=True)
    (root / "apache2.conf").write_text("Listen 127.0.0.1:18081\nIncludeOptional sites-enabled/*.conf\n")
    for i, name in enumerate(["a b.conf", "a_b.conf", "-x.conf", "new\nline.conf"]):
        (root / "sites-enabled" / name).write_text(
            f"<VirtualHost 127.0.0.1:18081>\nServerName s{i}.test\n</VirtualHost>\n")
    out = tmp_path / "nginx"
    proc = run_cli("convert", str(root / "apache2.conf"), "--out-dir", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = sorted(p.name for p in (out / "sites-available").iterdir())
    assert written == sorted(["a_b.conf", "a_b-2.conf", "x.conf", "new_line.conf"])
    assert all(os.readlink(out / "sites-enabled" / n) == f"../sites-available/{n}" for n in written)
    _nginx_t(nginx_bin, out)


@pytest.mark.parametrize("name, safe", [(".hidden.conf", "hidden.conf"), ("site", "site.conf"),
                                        ("a;b{c}.conf", "a_b_c_.conf"), ("...", "site.conf")])
def test_safe_names(name, safe):
    assert safe_name(name) == safe


RHEL = ROOT / "tests" / "data" / "rhel" / "etc" / "httpd" / "conf" / "httpd.conf"


def test_a_wildcard_directory_no_served_directory_can_match_applies_to_nothing():
    # RHEL's userdir.conf: <Directory "/home/*/public_html"> with access rules, UserDir disabled
    proc = run_cli("convert", str(RHEL))
    assert_no_traceback(proc)
    assert "A2N773" in proc.stderr and "A2N740" not in proc.stderr
    assert "refused: <Directory" not in proc.stdout


def test_a_wildcard_directory_a_served_directory_may_lie_under_still_refuses(tmp_path):
    conf = tmp_path / "apache.conf"
    conf.write_text("Listen 127.0.0.1:18099\nDocumentRoot /home/alice/public_html\n"
                    "<Directory \"/home/*/public_html\">\n    Require all denied\n</Directory>\n")
    proc = run_cli("convert", str(conf))
    assert "A2N740" in proc.stderr and "refused: <Directory /home/*/public_html>" in proc.stdout


def test_generated_sites_verify_without_unexplained_differences(tmp_path, stock_apache, nginx_bin, apache_bin):
    # the 2,000-site server in small: every kind of generated site (proxy, redirect, static, canonical host)
    root = tmp_path / "apache2"
    conf = _server(root, tmp_path / "logs")
    bench.add_sites(root, 24)
    proc = run_cli("verify", str(conf), "--format", "json", timeout=900)
    assert_no_traceback(proc)
    summary = json.loads(proc.stdout)["summary"]
    assert summary["compared"] > 1000, summary
    assert summary["unexplained"] == 0 and summary["widened"] == 0 and summary["lost_security"] == 0, \
        json.dumps(summary)
    assert proc.returncode == 0
