"""convert's text output at server scale: grouping, --severity, --quiet, the per-site table, and a tally whose
unsupported count is the errors it stands for."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from apache2nginx.diagnostics import Diagnostics, Group, Severity, group, render_report
from apache2nginx.passes.base import Disposition
from apache2nginx.sites import SiteRow, site_table
from apache2nginx.syntax.span import Span
from conftest import FIXTURES, assert_no_traceback, run_cli

STOCK = Path("/etc/apache2")
TALLY = re.compile(r"^(\d+) directives: (\d+) exact, (\d+) approximate, (\d+) unsupported, (\d+) not applicable, "
                   r"(\d+) unknown$", re.M)
ENTRY = re.compile(r"^(?:\S+: )?(error|warning|info)\[(A2N\d+)\]", re.M)


@pytest.fixture(scope="module")
def stock_tree(tmp_path_factory) -> Path:
    """A copy of Debian's stock /etc/apache2 (apache2 is installed here and in CI), symlinks kept."""
    if not (STOCK / "apache2.conf").is_file():
        if os.environ.get("CI"):
            pytest.fail("/etc/apache2 is missing: apt-get install apache2")
        pytest.skip("no /etc/apache2 here (apt-get install apache2)")
    target = tmp_path_factory.mktemp("stock") / "apache2"
    shutil.copytree(STOCK, target, symlinks=True)
    return target / "apache2.conf"


def _tally(stderr: str) -> dict[str, int]:
    m = TALLY.search(stderr)
    assert m, stderr[-800:]
    total, exact, approximate, unsupported, not_applicable, unknown = map(int, m.groups())
    return {"directives": total, "exact": exact, "approximate": approximate, "unsupported": unsupported,
            "not_applicable": not_applicable, "unknown": unknown}


# ----------------------------------------------------------------------------- the stock tree

def test_quiet_stock_tree_fits_one_screen(stock_tree, tmp_path):
    proc = run_cli("convert", str(stock_tree), "--quiet", "-o", str(tmp_path / "nginx.conf"))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) <= 40, proc.stderr
    assert {sev for sev, _ in ENTRY.findall(proc.stderr)} <= {"error"}
    assert lines[-1] == TALLY.search(proc.stderr).group(0)
    assert re.search(r"^\d+ warnings, \d+ infos not shown \(--severity info shows them\)$", proc.stderr, re.M)
    # every error is there: as many as the JSON form lists
    everything = json.loads(run_cli("convert", str(stock_tree), "--diagnostics", "json").stderr)
    errors = [d for d in everything if d["severity"] == "error"]
    assert len(ENTRY.findall(proc.stderr)) == len(errors) > 0


def test_default_stock_output_groups_the_not_applicable_lines(stock_tree):
    proc = run_cli("convert", str(stock_tree))
    assert proc.returncode == 0, proc.stderr
    everything = json.loads(run_cli("convert", str(stock_tree), "--diagnostics", "json").stderr)
    not_applicable = [d for d in everything if d["code"] == "A2N102"]
    assert len(not_applicable) > 50
    (header,) = [line for line in proc.stderr.splitlines() if "[A2N102]" in line]
    assert header.startswith(f"info[A2N102] ×{len(not_applicable)} in ")
    assert "LoadModule ×" in proc.stderr and "AddLanguage ×" in proc.stderr
    assert "= hint: `apache2nginx explain A2N102`" in proc.stderr
    assert len(proc.stderr.splitlines()) < 150
    ungrouped = run_cli("convert", str(stock_tree), "--no-group")
    assert ungrouped.stderr.count("info[A2N102]") == len(not_applicable)


def test_stock_site_table(stock_tree):
    proc = run_cli("convert", str(stock_tree))
    table = proc.stderr[proc.stderr.index("\nsite "):]
    rows = table.splitlines()[2:-1]
    assert rows[0].split() == ["sites-enabled/000-default.conf", *rows[0].split()[1:]]
    other = rows[1].split()
    assert other[:4] == ["apache2.conf", "and", other[2], "more"]
    tally = _tally(proc.stderr)
    assert sum(int(r.split()[-5]) for r in rows) == tally["directives"]
    assert sum(int(r.split()[-2]) for r in rows) == tally["unsupported"] + tally["unknown"]


# ----------------------------------------------------------------------------- grouping

def _many_repeats(tmp_path: Path) -> Path:
    """A site with 40 not-applicable lines, 12 repeated warnings, 3 infos of one kind and 2 errors."""
    lines = ["Listen 80", "<VirtualHost *:80>", "ServerName many.example.com", "DocumentRoot /srv/many"]
    lines += [f"AddLanguage x{i} .x{i}" for i in range(30)]
    lines += [f"LanguagePriority x{i}" for i in range(10)]
    lines += ["FileETag MTime Size"] * 12
    lines += ["RemoveType .es", "RemoveType .tr", "</VirtualHost>"]
    path = tmp_path / "many.conf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_repeating_codes_group_with_count_directives_and_first_locations(tmp_path):
    conf = _many_repeats(tmp_path)
    proc = run_cli("convert", str(conf))
    assert_no_traceback(proc)
    err = proc.stderr
    assert "info[A2N102] ×40: " in err
    assert "      = directives: AddLanguage ×30, LanguagePriority ×10\n" in err
    assert f"      = first at: {conf}:5, {conf}:6, {conf}:7, … (37 more)\n" in err
    assert "warning[A2N710] ×12: " in err and "FileETag ×12" in err
    # the two errors stay individual, with their source line and caret
    assert err.count("error[A2N101]") == 2
    assert f"{conf}:57:1: error[A2N101]: RemoveType" in err
    assert "   57 | RemoveType .es\n" in err
    assert err.count("\n        ^~~~~~~~~~~~~~\n") == 2
    # --no-group prints every one; the JSON forms are never grouped
    assert run_cli("convert", str(conf), "--no-group").stderr.count("info[A2N102]") == 40
    assert len([d for d in json.loads(run_cli("convert", str(conf), "--diagnostics", "json").stderr)
                if d["code"] == "A2N102"]) == 40


def test_group_thresholds():
    def diags(code: str, n: int) -> list:
        out = Diagnostics()
        for i in range(n):
            out.add(code, f"m{i}", Span(f"site{i}.conf", 1, 1, 1, 2), directive="X")
        return list(out)
    # infos group above 3, warnings and errors above 10
    assert not any(isinstance(e, Group) for e in group(diags("A2N102", 3)))
    assert [len(e.items) for e in group(diags("A2N102", 4))] == [4]
    assert not any(isinstance(e, Group) for e in group(diags("A2N710", 10)))
    assert [len(e.items) for e in group(diags("A2N710", 11))] == [11]
    assert not any(isinstance(e, Group) for e in group(diags("A2N101", 10)))
    assert [len(e.items) for e in group(diags("A2N101", 11))] == [11]


def test_a_warning_of_two_thousand_sites_is_one_entry():
    items = Diagnostics()
    for i in range(2000):
        items.add("A2N710", "FileETag MTime Size: nginx's ETag ...", Span(f"sites/site{i:04d}.conf", 4, 5, 4, 20),
                  directive="FileETag")
    text = render_report(list(items))
    assert text.splitlines() == [
        "warning[A2N710] ×2000 in 2000 files: FileETag is approximated.",
        "      = directives: FileETag ×2000",
        "      = first at: sites/site0000.conf:4, sites/site0001.conf:4, sites/site0002.conf:4, … (1997 more)",
        "      = hint: `apache2nginx explain A2N710` says what it means; --no-group or --diagnostics json lists "
        "all 2000"]
    assert render_report(list(items), detail=False).splitlines() == text.splitlines()[:1]


# ----------------------------------------------------------------------------- --severity and --quiet

def test_severity_sets_the_lowest_severity_printed(tmp_path):
    conf = _many_repeats(tmp_path)
    full = json.loads(run_cli("convert", str(conf), "--diagnostics", "json").stderr)
    counts = {s: sum(1 for d in full if d["severity"] == s) for s in ("error", "warning", "info")}
    warning = run_cli("convert", str(conf), "--severity", "warning").stderr
    assert {sev for sev, _ in ENTRY.findall(warning)} == {"error", "warning"}
    assert f"{counts['info']} infos not shown (--severity info shows them)" in warning
    error = run_cli("convert", str(conf), "--severity", "error").stderr
    assert {sev for sev, _ in ENTRY.findall(error)} == {"error"}
    assert f"{counts['warning']} warnings, {counts['info']} infos not shown" in error
    info = run_cli("convert", str(conf), "--severity", "info").stderr
    assert info == run_cli("convert", str(conf)).stderr and "not shown" not in info
    # --quiet: errors only, a group as its one line; --severity still sets the threshold beside it
    quiet = run_cli("convert", str(conf), "-q", "--no-group").stderr
    assert {sev for sev, _ in ENTRY.findall(quiet)} == {"error"}
    quiet_warnings = run_cli("convert", str(conf), "--quiet", "--severity", "warning").stderr
    assert "warning[A2N710] ×12: FileETag is approximated.\n" in quiet_warnings
    assert "= first at" not in quiet_warnings and "= directives" not in quiet_warnings
    assert _tally(quiet) == _tally(info)


def test_json_and_sarif_keep_every_diagnostic_whatever_the_filters(tmp_path):
    conf = _many_repeats(tmp_path)
    plain = json.loads(run_cli("convert", str(conf), "--diagnostics", "json").stderr)
    assert len(plain) > 50
    for extra in (["--quiet"], ["--severity", "error"], ["--no-group"]):
        assert json.loads(run_cli("convert", str(conf), "--diagnostics", "json", *extra).stderr) == plain
        sarif = json.loads(run_cli("convert", str(conf), "--diagnostics", "sarif", *extra).stderr)
        assert len(sarif["runs"][0]["results"]) == len(plain)
        doc = json.loads(run_cli("convert", str(conf), "--format", "json", *extra).stdout)
        assert doc["diagnostics"] == plain


# ----------------------------------------------------------------------------- the per-site table

def _sites(tmp_path: Path, n: int, broken: tuple[int, ...] = (), loose: tuple[int, ...] = ()) -> Path:
    d = tmp_path / "sites-enabled"
    d.mkdir()
    for i in range(n):
        body = f"<VirtualHost *:80>\n    ServerName s{i}.example.com\n    DocumentRoot /srv/s{i}\n"
        if i in loose:
            body += "    FileETag MTime Size\n"
        if i in broken:
            body += "    RemoveType .es\n"
        (d / f"site{i:02d}.conf").write_text(body + "</VirtualHost>\n")
    return d


def test_site_table_rows(tmp_path):
    d = _sites(tmp_path, 3, broken=(2,), loose=(1,))
    proc = run_cli("convert", str(d))
    assert_no_traceback(proc)
    lines = proc.stderr.splitlines()
    start = lines.index("site         directives  exact  approximate  unsupported  errors")
    assert [line.split() for line in lines[start + 1:start + 4]] == [
        ["site02.conf", "4", "3", "0", "1", "1"],
        ["site01.conf", "4", "3", "1", "0", "0"],
        ["site00.conf", "3", "3", "0", "0", "0"]]
    assert lines[start + 4] == TALLY.search(proc.stderr).group(0)
    quiet = run_cli("convert", str(d), "-q").stderr.splitlines()
    start = quiet.index("site         directives  exact  approximate  unsupported  errors")
    assert quiet[start + 1].split() == ["site02.conf", "4", "3", "0", "1", "1"]
    assert quiet[start + 2] == "… 2 more sites without errors"
    doc = json.loads(run_cli("convert", str(d), "--format", "json").stdout)
    assert [(s["file"].rsplit("/", 1)[-1], s["virtual_hosts"], s["errors"]) for s in doc["files"]] == [
        ("site00.conf", 1, 0), ("site01.conf", 1, 0), ("site02.conf", 1, 1)]


def test_site_table_is_skipped_for_one_file(tmp_path):
    d = _sites(tmp_path, 1, broken=(0,))
    proc = run_cli("convert", str(d / "site00.conf"))
    assert "directives  exact  approximate" not in proc.stderr
    assert TALLY.search(proc.stderr)


def test_site_table_of_many_sites_shows_those_needing_work(tmp_path):
    d = _sites(tmp_path, 30, broken=(4, 17))
    proc = run_cli("convert", str(d))
    lines = proc.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("site "))
    assert [line.split()[0] for line in lines[start + 1:start + 3]] == ["site04.conf", "site17.conf"]
    assert lines[start + 3] == "… 28 more sites, all exact"


def test_site_table_caps_two_thousand_sites():
    rows = [SiteRow(f"/etc/apache2/sites-enabled/site{i:04d}.conf", directives=4, exact=4, virtual_hosts=1)
            for i in range(2000)]
    for i in (5, 1500):
        rows[i].errors = rows[i].unsupported = 1
        rows[i].exact -= 1
    rows[9].approximate, rows[9].exact = 1, 3
    rows.append(SiteRow("/etc/apache2/apache2.conf", directives=200, exact=120, not_applicable=80))
    lines = site_table(rows).splitlines()
    assert lines[0].split() == ["site", "directives", "exact", "approximate", "unsupported", "errors"]
    assert [line.split()[0] for line in lines[1:4]] == ["sites-enabled/site0005.conf",
                                                        "sites-enabled/site1500.conf", "apache2.conf"]
    assert lines[4] == "… 1998 more sites: 1 with approximate directives, 1997 all exact " \
                       "(--format json lists every one)"
    assert len(lines) == 5
    assert site_table(rows, quiet=True).splitlines()[-1] == "… 1998 more sites without errors"


# ----------------------------------------------------------------------------- unsupported == errors

EQUAL = [FIXTURES / "examples" / "api-gateway" / "apache.conf"] + [
    FIXTURES / "cases" / name / "apache.conf" for name in (
        "listing-settings", "access-env-and-expr", "access-unexpressible", "tls-certificate-gaps",
        "proxy-tls-without-ssl-proxy-engine", "remoteip", "expires", "vhost-alias-roots")]
# one error standing for several directives (a rule and its conditions, a <FilesMatch> and its handler), or
# a directive with two (a per-path client certificate: what nginx lacks, and the refusal standing in for it)
SHARED = [FIXTURES / "cases" / name / "apache.conf" for name in ("rewrite-unsupported", "cgi-files-exec-cgi",
                                                                  "tls-per-location-client-cert")]


def _convert(path: Path):
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.passes import translate
    diags = Diagnostics()
    seen: dict = {}
    run = translate.Translator.run

    def spy(self):
        out = run(self)
        seen.update({id(n): (n, d) for n, d in ((n, self.dispositions.get(id(n)))
                                                for n in [*self.loaded.consumed, *self.loaded.walk()])})
        return out
    translate.Translator.run = spy
    try:
        result = convert([InputSpec(str(path), path)], ConvertOptions(jobs=1), diags)
    finally:
        translate.Translator.run = run
    assert not result.fatal
    return result, list(diags), list(seen.values())


def _check_correspondence(result, diags, nodes) -> None:
    """Each error about a directive makes it unsupported (or unknown), each unsupported directive is named by an
    error, and the tally and the per-file counts agree."""
    errors = [d for d in diags if d.severity is Severity.ERROR]
    own = {(d.span.file, d.span.line) for d in errors if d.span}
    named = own | {(s.file, s.line) for d in errors for s in d.related}
    for node, disposition in nodes:
        if disposition is None or node.span is None:
            continue
        where = (node.span.file, node.span.line)
        if where in own:
            assert disposition in (Disposition.UNSUPPORTED, Disposition.UNKNOWN), (node.name, where)
        if disposition is Disposition.UNSUPPORTED:
            assert where in named, (node.name, where, "unsupported without an error naming it")
    summary = result.tally.summary()
    assert summary["unknown"] == sum(1 for d in errors if d.code == "A2N100")
    per_file = {k: sum(c[k] for c in result.tally.files.values()) for k in Disposition}
    assert per_file == result.tally.counts


@pytest.mark.parametrize("path", EQUAL, ids=lambda p: p.parent.name)
def test_unsupported_is_the_number_of_errors(path, monkeypatch):
    monkeypatch.chdir(path.parent)
    result, diags, nodes = _convert(path)
    _check_correspondence(result, diags, nodes)
    errors = [d for d in diags if d.severity is Severity.ERROR and d.code != "A2N100"]
    assert result.tally.summary()["unsupported"] == len(errors)


@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.parent.name)
def test_an_error_standing_for_several_directives_names_them(path, monkeypatch):
    monkeypatch.chdir(path.parent)
    result, diags, nodes = _convert(path)
    _check_correspondence(result, diags, nodes)


def test_unsupported_is_the_number_of_errors_on_the_stock_tree(stock_tree):
    result, diags, nodes = _convert(stock_tree)
    _check_correspondence(result, diags, nodes)
    errors = [d for d in diags if d.severity is Severity.ERROR and d.code != "A2N100"]
    assert result.tally.summary()["unsupported"] == len(errors) > 0
    # mod_autoindex's icons are approximate (the listing is served, a warning says how it looks different)
    assert result.tally.by_name["addicon"][Disposition.APPROXIMATE] > 10
    assert result.tally.by_name["addicon"][Disposition.UNSUPPORTED] == 0


def test_errors_found_when_laying_out_count_their_directive_unsupported(tmp_path):
    conf = tmp_path / "apache.conf"
    conf.write_text("Listen 443\nSSLEngine on\nProxyPass /app balancer://nobody/\n"
                    "<Location /x>\n    AuthType Digest\n    Require valid-user\n</Location>\n")
    result, diags, nodes = _convert(conf)
    _check_correspondence(result, diags, nodes)
    errors = [d for d in diags if d.severity is Severity.ERROR]
    assert {d.code for d in errors} >= {"A2N206", "A2N303"}
    # the main server has no section line: its missing certificate is said at SSLEngine
    (tls,) = [d for d in errors if d.code == "A2N206"]
    assert (tls.span.file, tls.span.line) == (str(conf), 2)
    assert result.tally.summary()["unsupported"] == len(errors)


def test_site_table_of_many_sites_none_needing_work_is_one_line():
    rows = [SiteRow(f"sites/site{i:04d}.conf", directives=3, exact=3, virtual_hosts=1) for i in range(2000)]
    assert site_table(rows) == "2000 sites, all exact\n"
    rows[7].approximate, rows[7].exact = 1, 2
    assert site_table(rows) == "2000 sites: 1 with approximate directives, 1999 all exact " \
                               "(--format json lists every one)\n"
    assert site_table(rows, quiet=True) == ""


def test_sarif_names_a_file_that_is_not_utf8_by_its_bytes(tmp_path):
    """A file name that is not UTF-8 (read as surrogate escapes) is percent-encoded byte by byte in the
    artifact URI and shown as \\xNN in message texts: the log stays UTF-8 JSON."""
    from apache2nginx.diagnostics import Diagnostic, render_sarif
    name = os.fsdecode(b"bad\xff.conf")
    span = Span(name, 2, 1, 2, 5)
    diag = Diagnostic("A2N011", f"{name} is too large", span, related=[span])
    text = render_sarif([diag])
    text.encode("utf-8")
    result = json.loads(text)["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.conf"
    assert result["message"]["text"].startswith("bad\\xff.conf is too large")
    assert result["relatedLocations"][0]["message"]["text"] == "source: bad\\xff.conf:2"
