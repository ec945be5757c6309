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


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_every_inexact_directive_is_reported_where_it_stands(case, monkeypatch):
    """A directive translated approximately or not at all carries a diagnostic on its own line, or is named
    (as a related location) by the diagnostic of the region or rule that reports it: nothing silent."""
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    args = (case / "args.txt").read_text().split() if (case / "args.txt").exists() else []
    options = ConvertOptions()
    if "--nginx-version" in args:
        options.nginx_version = tuple(int(x) for x in args[args.index("--nginx-version") + 1].split("."))
    if "--htaccess-dir" in args:
        options.htaccess_dir = args[args.index("--htaccess-dir") + 1]
    monkeypatch.chdir(case)
    diags = Diagnostics()
    result = convert([InputSpec("apache.conf", case / "apache.conf")], options, diags)
    reported = {(s.file, s.line) for d in diags for s in [d.span, *d.related] if s is not None}
    silent = [f"{span.line}: {name} ({disposition.value})" for span, name, disposition in result.tally.inexact
              if (span.file, span.line) not in reported]
    assert not silent, "approximate or unsupported without a diagnostic naming its line: " + ", ".join(silent)
