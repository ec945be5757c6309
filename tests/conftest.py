"""Shared test helpers: running the CLI as a process, and the real servers.

Tests that need nginx or apache2 fail (not skip) when the binary is missing
in CI (CI=true); on a developer machine they skip with the reason.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"


def run_cli(*args: str, cwd: str | Path | None = None, stdin: bytes | None = None, timeout: float = 120):
    """Run `python -m apache2nginx ARGS` and return the CompletedProcess (text stdout/stderr)."""
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=timeout, env={**os.environ, "NO_COLOR": "1"})
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def _need(binary: str, *fallbacks: str) -> str:
    found = shutil.which(binary) or next((f for f in fallbacks if os.access(f, os.X_OK)), None)
    if found:
        return found
    message = f"{binary} is required (apt-get install {binary}); the test command installs it when run as root"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def nginx_bin() -> str:
    return _need("nginx", "/usr/sbin/nginx")


@pytest.fixture(scope="session")
def apache_bin() -> str:
    return _need("apache2", "/usr/sbin/apache2")


@pytest.fixture(scope="session")
def fcgiwrap_bin() -> str:
    return _need("fcgiwrap", "/usr/sbin/fcgiwrap")


@pytest.fixture(scope="session")
def wrk_bin() -> str:
    return _need("wrk", "/usr/bin/wrk")


def load_text(directory: Path, text: str, name: str = "apache.conf"):
    """(the loaded configuration, its file name) of TEXT written to DIRECTORY/NAME."""
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import load
    path = directory / name
    path.write_text(text)
    config = load(path, None, Diagnostics())
    assert config is not None
    return config, str(path)


def assert_no_traceback(proc) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stdout
