"""The command-line contract: explain, diagnostics renderers, JSON output, outputs on disk."""
from __future__ import annotations

import json
import re

import pytest

from apache2nginx.codes import CODES
from apache2nginx.diagnostics import Diagnostics, render_text, sarif_document
from apache2nginx.syntax.span import Span
from conftest import FIXTURES, assert_no_traceback, run_cli

EXAMPLE = FIXTURES / "examples" / "api-gateway" / "apache.conf"


@pytest.mark.parametrize("code", sorted(CODES))
def test_explain_every_registered_code(code):
    proc = run_cli("explain", code.lower())
    assert proc.returncode == 0
    info = CODES[code]
    assert proc.stdout.startswith(f"{code} ({info.name}, {info.severity})")
    for part in ("What it means", "Why it matters", "How to fix it"):
        assert part in proc.stdout


def test_explain_unknown_code_and_listing():
    assert run_cli("explain", "A2N999").returncode == 2
    listing = run_cli("explain").stdout
    assert len(listing.splitlines()) == len(CODES)


def test_text_renderer_is_compiler_style_with_caret(tmp_path):
    src = tmp_path / "apache.conf"
    src.write_text("Listen 80\n    ServerNmae x\n")
    diags = Diagnostics()
    diags.add("A2N100", "unknown directive ServerNmae", Span(str(src), 2, 5, 2, 15), hint="did you mean ServerName?")
    text = render_text(diags)
    lines = text.splitlines()
    assert lines[0] == f"{src}:2:5: error[A2N100]: unknown directive ServerNmae"
    assert lines[1] == "    2 |     ServerNmae x"
    assert lines[2] == " " * 12 + "^" + "~" * 9   # ServerNmae is 10 columns wide
    assert lines[3] == "      = hint: did you mean ServerName?"
    coloured = render_text(diags, colour=True)
    assert "\x1b[1;31merror[A2N100]" in coloured


def test_json_and_sarif_diagnostics_on_stderr(tmp_path):
    src = tmp_path / "a.conf"
    src.write_text("<VirtualHost *:80>\nServerName a\nFrobnicate on\n</VirtualHost>\n")
    proc = run_cli("convert", str(src), "--diagnostics", "json")
    items = json.loads(proc.stderr)
    (item,) = [i for i in items if i["code"] == "A2N100"]
    assert {k: item[k] for k in ("severity", "file", "line", "column", "directive")} == {
        "severity": "error", "file": str(src), "line": 3, "column": 1, "directive": "Frobnicate"}
    assert item["message"] and "hint" in item
    proc = run_cli("convert", str(src), "--diagnostics", "sarif")
    sarif = json.loads(proc.stderr)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    result = [r for r in run["results"] if r["ruleId"] == "A2N100"][0]
    assert rules["A2N100"]["shortDescription"]["text"] == CODES["A2N100"].summary
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "A2N100"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (3, 1) and result["level"] == "error"


def test_sarif_has_rule_metadata_for_every_result():
    diags = Diagnostics()
    diags.add("A2N005", "q", Span("x.conf", 1, 2, 1, 5))
    diags.add("A2N205", "m", None)
    doc = sarif_document(diags)
    ids = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert ids == ["A2N005", "A2N205"]
    assert doc["runs"][0]["results"][1]["level"] == "note"


def test_format_json_contract():
    proc = run_cli("convert", str(EXAMPLE), "--format", "json")
    assert_no_traceback(proc)
    doc = json.loads(proc.stdout)
    assert list(doc["output"]) == ["apache.conf"]
    assert "server {" in doc["output"]["apache.conf"]
    summary = doc["summary"]
    assert set(summary) >= {"directives", "exact", "approximate", "unsupported", "not_applicable"}
    assert summary["directives"] == sum(v for k, v in summary.items() if k != "directives")
    for d in doc["diagnostics"]:
        assert set(d) >= {"code", "severity", "message", "file", "line", "column", "directive", "hint"}


def test_tally_line_counts_every_directive():
    proc = run_cli("convert", str(EXAMPLE))
    m = re.search(r"^(\d+) directives: (\d+) exact, (\d+) approximate, (\d+) unsupported, (\d+) not applicable, "
                  r"(\d+) unknown$", proc.stderr, re.M)
    assert m, proc.stderr[-500:]
    total, *parts = map(int, m.groups())
    assert total == sum(parts) and total > 20
    # every directive either translated or reported: each unsupported one has an A2N101
    assert proc.stderr.count("error[A2N101]") == parts[2]


def test_out_dir_writes_one_file_per_input(tmp_path):
    d = tmp_path / "sites-enabled"
    d.mkdir()
    (d / "000-default.conf").write_text("<VirtualHost *:80>\nServerName default.test\n</VirtualHost>\n")
    (d / "shop.conf").write_text("<VirtualHost *:80>\nServerName shop.test\n</VirtualHost>\n")
    (d / "README").write_text("not a config\n")
    (d / "shop.conf").write_text("<VirtualHost *:80>\nServerName shop.test\nProxyPass / http://shop.internal:81/\n"
                                 "</VirtualHost>\n")
    out = tmp_path / "nginx"
    proc = run_cli("convert", str(d), "--out-dir", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["00-apache2nginx-shared.conf", "000-default.conf", "shop.conf"]
    shared = (out / "00-apache2nginx-shared.conf").read_text()
    assert "upstream shop.internal_81 {" in shared and "\nserver {" not in shared
    assert "upstream" not in (out / "shop.conf").read_text()
    first, second = (out / "000-default.conf").read_text(), (out / "shop.conf").read_text()
    # one socket, two files: the first site in Apache order is the default server
    assert "listen 80 default_server;" in first and "server_name default.test;" in first
    assert "listen 80;" in second and "default_server" not in second
    combined = run_cli("convert", str(d)).stdout
    assert combined.count("\nserver {") == 2


def test_usage_errors_exit_2(tmp_path):
    assert run_cli("convert").returncode == 2
    assert run_cli("convert", str(EXAMPLE), "--nginx-version", "banana").returncode == 2
    assert run_cli("convert", str(EXAMPLE), "-o", str(tmp_path / "a"), "--out-dir", str(tmp_path)).returncode == 2


def test_a_region_wide_diagnostic_names_every_line_it_covers(tmp_path):
    """One A2N709 reports mod_expires for a whole server: it names every ExpiresByType line it covers; the text
    form shows the first few and counts the rest, JSON lists them all."""
    types = [f"application/x-type{i}" for i in range(10)]
    conf = "Listen 80\n<VirtualHost *:80>\nExpiresActive On\n" + \
        "".join(f'ExpiresByType {t} "access plus {i + 1} days"\n' for i, t in enumerate(types)) + "</VirtualHost>\n"
    (tmp_path / "apache.conf").write_text(conf)
    doc = json.loads(run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path).stdout)
    expires = [d for d in doc["diagnostics"] if d["code"] == "A2N709"]
    assert len(expires) == 1 and [r["line"] for r in expires[0]["related"]] == list(range(4, 14))
    text = run_cli("convert", "apache.conf", cwd=tmp_path).stderr
    assert text.count("= see: apache.conf:") == 6 and "= see: 4 more lines (--format json lists them all)" in text


def test_a_max_input_size_past_an_index_sized_integer_is_a_usage_error(tmp_path):
    """--max-input-size 2**63-1 or more raised OverflowError in read(max + 1): now a usage error naming it."""
    (tmp_path / "site.conf").write_text("ServerName a\n")
    proc = run_cli("convert", "site.conf", "--max-input-size", str(2**63 - 1), cwd=tmp_path)
    assert proc.returncode == 2 and "--max-input-size" in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr


def test_an_endless_stdin_stops_at_the_input_cap(tmp_path):
    """`convert - < /dev/zero` read the whole stream before the size check (memory grew without bound)."""
    import subprocess
    import sys
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", "-", "--max-input-size", "100"],
                              stdin=zero, capture_output=True, text=True, timeout=20, cwd=tmp_path)
    assert proc.returncode == 2 and "A2N011" in proc.stderr, proc.stderr
