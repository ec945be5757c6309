"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit framework.

pre-commit installs this package into a virtualenv of its own (compiling the tree-sitter
grammar), so the hook repository is a snapshot of the working tree (tracked and new,
non-ignored files, committed once per session): the hooks tested are the ones being edited,
and the snapshot does not change under the session while other work goes on in the tree.
`try-repo` installs into a temporary store on every call (a few seconds each here); the
`pre-commit run` test uses PRE_COMMIT_HOME, shared by the session, as users' installs do.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")

GIT_ID = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
          "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.invalid"}
TIMEOUT = 900   # the first install of the hook environment compiles the grammar


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ID}).stdout


@pytest.fixture(scope="session")
def precommit_env(tmp_path_factory) -> dict:
    home = tmp_path_factory.mktemp("pre-commit-home")
    return {**os.environ, **GIT_ID, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """(path, commit) of a git snapshot of the working tree, the hooks' source repository."""
    if not (ROOT / ".pre-commit-hooks.yaml").is_file():
        pytest.fail(".pre-commit-hooks.yaml is missing at the repository root")
    snap = tmp_path_factory.mktemp("hook-repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = ROOT / name
        if src.is_file():
            (snap / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, snap / name)
    _git("init", "-q", cwd=snap)
    _git("add", "-A", cwd=snap)
    _git("commit", "-q", "-m", "snapshot", cwd=snap)
    return snap, _git("rev-parse", "HEAD", cwd=snap).strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository using the hooks: an Apache file, its converted nginx twin, and .apache2nginx.toml."""
    repo = tmp_path / "project"
    (repo / "apache").mkdir(parents=True)
    shutil.copy(FIXTURES / "examples" / "api-gateway" / "apache.conf", repo / "apache" / "site.conf")
    proc = run_cli("convert", "apache/site.conf", "-o", "nginx/site.conf", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    (repo / ".apache2nginx.toml").write_text('[[pair]]\napache = "apache/site.conf"\nnginx = "nginx/site.conf"\n')
    _git("init", "-q", cwd=repo)
    _git("add", "-A", cwd=repo)
    return repo


def _precommit(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)


def _try(hook: str, project: Path, hook_repo, env) -> subprocess.CompletedProcess:
    path, commit = hook_repo
    return _precommit("try-repo", str(path), hook, "--ref", commit, "--all-files", cwd=project, env=env)


def test_check_hook_passes_in_sync_and_fails_on_drift(project, hook_repo, precommit_env):
    proc = _try("apache2nginx-check", project, hook_repo, precommit_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "apache2nginx check" in proc.stdout and "Passed" in proc.stdout

    # a reformatted, comment-free copy is still in sync
    target = project / "nginx" / "site.conf"
    lines = [ln.strip() for ln in target.read_text().splitlines() if not ln.strip().startswith("#")]
    target.write_text("\n".join(lines) + "\n")
    _git("add", "-A", cwd=project)
    proc = _try("apache2nginx-check", project, hook_repo, precommit_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    # a hand edit of a generated directive is drift: the hook fails and shows the diff
    target.write_text(target.read_text().replace("proxy_pass http://orders/v1;", "proxy_pass http://orders/v2;"))
    _git("add", "-A", cwd=project)
    proc = _try("apache2nginx-check", project, hook_repo, precommit_env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert re.search(r"^-\s*proxy_pass http://orders/v2;$", proc.stdout, re.M), proc.stdout
    assert re.search(r"^\+\s*proxy_pass http://orders/v1;$", proc.stdout, re.M), proc.stdout

    # so is an Apache change the nginx file has not followed
    _git("checkout", "--", ".", cwd=project)
    apache = project / "apache" / "site.conf"
    apache.write_text(apache.read_text() + "\n<VirtualHost *:80>\nServerName extra.example.com\n</VirtualHost>\n")
    _git("add", "-A", cwd=project)
    proc = _try("apache2nginx-check", project, hook_repo, precommit_env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "extra.example.com" in proc.stdout


def test_lint_hook_fails_on_a_finding(project, hook_repo, precommit_env, nginx_bin):
    (project / "nginx" / "bad.conf").write_text("server {\n    listen 8080;\n    frobnicate on;\n}\n")
    _git("add", "-A", cwd=project)
    proc = _try("apache2nginx-lint", project, hook_repo, precommit_env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert "nginx/bad.conf:3" in proc.stdout and 'unknown directive "frobnicate"' in proc.stdout


def test_hooks_from_a_pre_commit_config(project, hook_repo, precommit_env, nginx_bin):
    """What the README tells users to write, run by `pre-commit run` (installed once in PRE_COMMIT_HOME)."""
    path, commit = hook_repo
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {path}\n    rev: {commit}\n    hooks:\n"
        "      - id: apache2nginx-check\n      - id: apache2nginx-lint\n")
    _git("add", "-A", cwd=project)
    proc = _precommit("run", "--all-files", cwd=project, env=precommit_env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("Passed") == 2, proc.stdout
    # only a changed file triggers the hooks: a README edit skips both
    (project / "README.md").write_text("notes\n")
    _git("add", "-A", cwd=project)
    proc = _precommit("run", "--files", "README.md", cwd=project, env=precommit_env)
    assert proc.returncode == 0 and proc.stdout.count("Skipped") == 2, proc.stdout
    # and a drifted nginx file fails the commit-time run
    target = project / "nginx" / "site.conf"
    target.write_text(target.read_text().replace("limit_rate 512k;", "limit_rate 1m;"))
    _git("add", "-A", cwd=project)
    proc = _precommit("run", "--files", "nginx/site.conf", cwd=project, env=precommit_env)
    assert proc.returncode == 1, proc.stdout
    assert "apache2nginx check" in proc.stdout and "Failed" in proc.stdout
