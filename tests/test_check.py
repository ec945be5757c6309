"""`apache2nginx check`: a committed nginx file against what `convert` makes of its Apache input now."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, assert_no_traceback, run_cli

GATEWAY = FIXTURES / "examples" / "api-gateway"
TLS_NEW = FIXTURES / "cases" / "tls-http2-new-nginx"      # converted with --nginx-version 1.25.1

SITE = """\
<VirtualHost *:80>
    ServerName example.com
    DocumentRoot /srv/www
    <IfDefine PROD>
        Redirect permanent /old /new
    </IfDefine>
    ProxyPass /api http://backend:8080/api
</VirtualHost>
"""


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    """tmp_path with apache/site.conf and its converted twin nginx/site.conf."""
    (tmp_path / "apache").mkdir()
    (tmp_path / "apache" / "site.conf").write_text(SITE)
    proc = run_cli("convert", "apache/site.conf", "-o", "nginx/site.conf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path


def test_in_sync_with_fixture_expected_output():
    proc = run_cli("check", "apache.conf", "expected.conf", cwd=GATEWAY)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""


def test_formatting_and_comments_are_not_drift(pair: Path):
    text = (pair / "nginx" / "site.conf").read_text()
    reformatted = "\n".join("\t\t" + line.strip() + "   # hand note" if line.strip().endswith(";") else line.strip()
                            for line in text.splitlines() if not line.lstrip().startswith("#"))
    (pair / "nginx" / "site.conf").write_text("# edited by hand\n" + reformatted.replace(";", " ;") + "\n\n\n")
    proc = run_cli("check", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_source_comments_option_does_not_matter(pair: Path):
    proc = run_cli("check", "--no-source-comments", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_changed_directive_is_drift_with_a_diff(pair: Path):
    target = pair / "nginx" / "site.conf"
    before = target.read_bytes()
    target.write_text(target.read_text().replace("http://", "https://", 1))
    proc = run_cli("check", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert_no_traceback(proc)
    assert proc.returncode == 1
    assert proc.stdout.startswith("--- nginx/site.conf (committed, normalized)\n+++ nginx/site.conf (regenerated")
    assert "\n-" in proc.stdout and "\n+" in proc.stdout and "https://" in proc.stdout
    assert "--fix" in proc.stderr
    # without --fix the file is left alone
    assert target.read_bytes() != before


def test_apache_change_is_drift(pair: Path):
    (pair / "apache" / "site.conf").write_text(SITE.replace("/api http", "/v2 http"))
    proc = run_cli("check", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 1
    assert "/v2" in proc.stdout


def test_convert_options_are_honoured(pair: Path):
    # the twin was converted without PROD: with --define PROD the redirect appears, which is drift
    proc = run_cli("check", "--define", "PROD", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 1
    assert "/new" in proc.stdout
    proc = run_cli("check", "apache.conf", "expected.conf", cwd=TLS_NEW)
    assert proc.returncode == 1, "converted for nginx 1.25.1, checked for the default 1.22: not the same output"
    proc = run_cli("check", "--nginx-version", "1.25.1", "apache.conf", "expected.conf", cwd=TLS_NEW)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fix_rewrites_atomically_and_exactly_as_convert(pair: Path):
    target = pair / "nginx" / "site.conf"
    expected = target.read_text()
    target.write_text("server { listen 81; }\n")
    os.chmod(target, 0o640)
    proc = run_cli("check", "--fix", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 0, proc.stderr
    assert "rewrote nginx/site.conf" in proc.stderr
    assert target.read_text() == expected
    assert target.stat().st_mode & 0o777 == 0o640       # write_atomic keeps the mode of the file it replaces
    assert [p.name for p in target.parent.iterdir()] == ["site.conf"]     # no temp file left behind
    assert run_cli("check", "apache/site.conf", "nginx/site.conf", cwd=pair).returncode == 0


def test_fix_leaves_a_file_in_sync_untouched(pair: Path):
    target = pair / "nginx" / "site.conf"
    target.write_text("# kept\n" + target.read_text())
    inode = target.stat().st_ino
    proc = run_cli("check", "--fix", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 0
    assert target.stat().st_ino == inode and target.read_text().startswith("# kept\n")


def test_missing_nginx_file_is_drift_and_fix_creates_it(pair: Path):
    proc = run_cli("check", "apache/site.conf", "nginx/new.conf", cwd=pair)
    assert proc.returncode == 1 and "is missing" in proc.stderr
    proc = run_cli("check", "--fix", "apache/site.conf", "nginx/new.conf", cwd=pair)
    assert proc.returncode == 0
    assert (pair / "nginx" / "new.conf").read_text() == (pair / "nginx" / "site.conf").read_text()


def test_unparsable_nginx_file_is_drift(pair: Path):
    (pair / "nginx" / "site.conf").write_text("server {\n")
    proc = run_cli("check", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert_no_traceback(proc)
    assert proc.returncode == 1
    assert "does not parse" in proc.stdout


@pytest.mark.parametrize("case", ["missing-apache", "broken-apache", "binary-nginx", "nginx-is-dir"])
def test_unusable_input_exits_2(pair: Path, case: str):
    apache, nginx = "apache/site.conf", "nginx/site.conf"
    if case == "missing-apache":
        apache = "apache/nope.conf"
    elif case == "broken-apache":
        (pair / "apache" / "site.conf").write_text("<VirtualHost *:80>\nServerName x\n")
    elif case == "binary-nginx":
        (pair / "nginx" / "site.conf").write_bytes(b"\xff\xfe\x00\x01")
    else:
        nginx = "nginx"
    before = {p: p.read_bytes() for p in (pair / "nginx").iterdir()}
    for extra in ([], ["--fix"]):
        proc = run_cli("check", *extra, apache, nginx, cwd=pair)
        assert_no_traceback(proc)
        assert proc.returncode == 2, (case, proc.stdout, proc.stderr)
        assert "apache2nginx check:" in proc.stderr
    assert {p: p.read_bytes() for p in (pair / "nginx").iterdir()} == before


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_nginx_file_that_is_a_pipe_or_a_device_is_refused_unread(pair: Path, kind: str):
    """A FIFO blocked check's open for ever and a link to /dev/zero was read until memory ran out: the nginx
    file is read as an input is, so either is refused before it is opened (A2N013), exit 2."""
    target = pair / "nginx" / "other.conf"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    for extra in ([], ["--fix"]):
        proc = run_cli("check", *extra, "apache/site.conf", "nginx/other.conf", cwd=pair, timeout=60)
        assert_no_traceback(proc)
        assert proc.returncode == 2, (proc.stdout, proc.stderr)
        assert "nginx/other.conf: error[A2N013]: nginx/other.conf is a " in proc.stderr


def test_bad_nginx_version_exits_2(pair: Path):
    proc = run_cli("check", "--nginx-version", "latest", "apache/site.conf", "nginx/site.conf", cwd=pair)
    assert proc.returncode == 2 and "not an nginx version" in proc.stderr


# --------------------------------------------------------------------------- .apache2nginx.toml

def _git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def _two_pairs(root: Path) -> None:
    shutil.copytree(TLS_NEW, root / "tls")
    (root / ".apache2nginx.toml").write_text("""\
[convert]
defines = ["PROD"]

[[pair]]
apache = "apache/site.conf"
nginx = "nginx/site.conf"

[[pair]]
apache = "tls/apache.conf"
nginx = "tls/expected.conf"
nginx_version = "1.25.1"
""")


def test_config_file_at_the_repository_root(pair: Path):
    _git_init(pair)
    _two_pairs(pair)
    run_cli("convert", "--define", "PROD", "apache/site.conf", "-o", "nginx/site.conf", cwd=pair)
    sub = pair / "apache"
    for args in ([], ["one.conf"], ["a.conf", "b.conf", "c.conf"]):   # pre-commit may pass any file names
        proc = run_cli("check", *args, cwd=sub)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        assert "2 pair(s) in sync" in proc.stderr
    # two arguments are a pair unless --config says they are only file names
    proc = run_cli("check", "--config", "../.apache2nginx.toml", "x.conf", "y.conf", cwd=sub)
    assert proc.returncode == 0, proc.stderr


def test_config_file_drift_fix_and_cli_override(pair: Path):
    _two_pairs(pair)            # not a git repository: the current directory is the root
    proc = run_cli("check", cwd=pair)
    assert proc.returncode == 1, "nginx/site.conf was converted without PROD"
    assert "/new" in proc.stdout and "tls/expected.conf" not in proc.stdout
    proc = run_cli("check", "--define", "OTHER", cwd=pair)     # the command line replaces the file's defines
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli("check", "--fix", cwd=pair)
    assert proc.returncode == 0 and "rewrote nginx/site.conf" in proc.stderr
    assert "# from apache/site.conf" in (pair / "nginx" / "site.conf").read_text() or \
        "apache/site.conf:" in (pair / "nginx" / "site.conf").read_text()
    assert run_cli("check", cwd=pair).returncode == 0


def test_per_pair_convert_table_and_source_comments(pair: Path):
    (pair / ".apache2nginx.toml").write_text("""\
[[pair]]
apache = ["apache/site.conf"]
nginx = "nginx/plain.conf"
[pair.convert]
source_comments = false
""")
    assert run_cli("check", "--fix", cwd=pair).returncode == 0
    plain = (pair / "nginx" / "plain.conf").read_text()
    assert "apache/site.conf:" not in plain
    assert "apache/site.conf:" in (pair / "nginx" / "site.conf").read_text()


@pytest.mark.parametrize("toml, message", [
    ("[[pair]]\napache = 'a.conf'\n", "needs apache"),
    ("[[pair]]\napache = 'a.conf'\nnginx = 'b.conf'\nnginx_versoin = '1.22'\n", "unknown option 'nginx_versoin'"),
    ("[convert]\nmodules = 'ssl'\n[[pair]]\napache = 'a.conf'\nnginx = 'b.conf'\n", "wrong type"),
    ("[paire]\n", "unknown table"),
    ("[convert]\n", "no [[pair]]"),
    ("pair = [\n", "not valid TOML"),
])
def test_invalid_config_exits_2(tmp_path: Path, toml: str, message: str):
    (tmp_path / ".apache2nginx.toml").write_text(toml)
    proc = run_cli("check", cwd=tmp_path)
    assert_no_traceback(proc)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_no_arguments_and_no_config_exits_2(tmp_path: Path):
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 2 and ".apache2nginx.toml" in proc.stderr


# --------------------------------------------------------------------------- action.yml

def _action_script() -> tuple[dict, str]:
    yaml = pytest.importorskip("yaml")       # PyYAML comes with pre-commit (test extras)
    action = yaml.safe_load((FIXTURES.parent / "action.yml").read_text())
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "run")
    assert "${{" not in step["run"], "inputs reach the script through env only"
    return action, step["run"]


def _run_action(cwd: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict]:
    action, script = _action_script()
    env = {**os.environ, "NO_COLOR": "1", "GITHUB_OUTPUT": str(cwd / "github-output")}
    for name, spec in action["inputs"].items():
        env["A2N_" + {"sarif-file": "SARIF"}.get(name, name.upper())] = inputs.get(name, spec.get("default", ""))
    (cwd / "github-output").write_text("")
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in (cwd / "github-output").read_text().splitlines())
    return proc, outputs


def test_action_runs_check_and_lint_from_the_config(pair: Path, nginx_bin):
    (pair / ".apache2nginx.toml").write_text('[convert]\ndefines = ["PROD"]\n'
                                            '[[pair]]\napache = "apache/site.conf"\nnginx = "nginx/site.conf"\n')
    run_cli("convert", "--define", "PROD", "apache/site.conf", "-o", "nginx/site.conf", cwd=pair)
    proc, out = _run_action(pair)
    assert out == {"sarif": "apache2nginx.sarif", "failed": "false"}, proc.stdout + proc.stderr
    assert "::group::apache2nginx check" in proc.stdout and "::group::apache2nginx lint" in proc.stdout
    import json
    assert json.loads((pair / "apache2nginx.sarif").read_text())["version"] == "2.1.0"


def test_action_fails_on_drift_and_annotates_lint_findings(pair: Path, nginx_bin):
    (pair / "nginx" / "bad.conf").write_text("server {\n    listen 8080;\n    frobnicate on;\n}\n")
    proc, out = _run_action(pair, commands="check lint", apache="apache/site.conf", nginx="nginx/bad.conf",
                            **{"sarif-file": "lint.sarif"})
    assert out["failed"] == "true" and out["sarif"] == "lint.sarif"
    assert "::error::nginx files drifted" in proc.stdout
    assert '::error file=nginx/bad.conf,line=3::A2N901: nginx: unknown directive "frobnicate"' in proc.stdout
    proc, out = _run_action(pair, commands="lint", nginx="nginx/*.conf", severity="none")
    assert out["failed"] == "false", "severity none reports without failing"
    proc, out = _run_action(pair, commands="convert check", apache="apache/site.conf", nginx="nginx/new.conf",
                            args="--define PROD")
    assert out["failed"] == "false", proc.stdout + proc.stderr
    assert "/new" in (pair / "nginx" / "new.conf").read_text()
