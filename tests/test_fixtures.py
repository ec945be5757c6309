"""Every fixture case converts to its expected nginx and diagnostic codes, and
every expected nginx output passes the real `nginx -t` (through `lint`).

To accept an intended change: `python3 tests/refresh_fixtures.py` prints the
diffs; `--write` rewrites the expectations once they have been read."""
from __future__ import annotations

import re
import subprocess

import pytest

from conftest import run_cli
from fixture_cases import case_dirs, convert_case

CASES = case_dirs()


def test_there_are_fixture_cases():
    assert len(CASES) >= 8


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_translation(case):
    text, codes, exit_code = convert_case(case)
    assert exit_code in (0, 1)
    assert text == (case / "expected.conf").read_text(), "run tests/refresh_fixtures.py to see the diff"
    assert codes == (case / "expected-codes.txt").read_text().split(), "diagnostic codes differ"


def _nginx_version(nginx_bin: str) -> tuple[int, ...]:
    out = subprocess.run([nginx_bin, "-v"], capture_output=True, text=True).stderr
    return tuple(int(x) for x in re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out).groups())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_output_passes_nginx_t(case, nginx_bin):
    args = (case / "args.txt").read_text().split() if (case / "args.txt").exists() else []
    if "--nginx-version" in args:
        wanted = tuple(int(x) for x in args[args.index("--nginx-version") + 1].split("."))
        if wanted > _nginx_version(nginx_bin):
            pytest.skip(f"generated for nginx {'.'.join(map(str, wanted))}, newer than the nginx installed here")
    proc = run_cli("lint", "--nginx", nginx_bin, str(case / "expected.conf"))
    assert proc.returncode == 0, proc.stderr


def test_lint_reports_nginx_errors_located_in_the_file(nginx_bin, tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("server {\n    listen 80;\n    server_name a;\n    bogus_directive on;\n}\n")
    proc = run_cli("lint", "--nginx", nginx_bin, str(bad))
    assert proc.returncode == 1
    assert f"{bad}:4:1: error[A2N901]: nginx: unknown directive \"bogus_directive\"" in proc.stderr
