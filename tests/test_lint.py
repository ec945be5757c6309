"""`apache2nginx lint` as a CI linter: nginx -t, our structural checks, gixy, one diagnostic format.

Each file in tests/data/lint/ holds one mistake, marked on its line with `# expect A2N9xx`; clean.conf
holds none. The SARIF output is validated against the official SARIF 2.1.0 schema (errata 01, shipped in
tests/data/). gixy is exercised through a stand-in script that prints gixy-ng's real JSON report, so the
bridge is tested whether or not gixy is installed; a real gixy is used too when one is found.
"""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from apache2nginx.cli import main
from apache2nginx.codes import CODES
from apache2nginx.lint import checks
from apache2nginx.lint.gixy import parse_report
from conftest import ROOT, assert_no_traceback, run_cli

DATA = ROOT / "tests" / "data"
LINT = DATA / "lint"
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
CASES = ["add-header-dropped.conf", "alias-traversal.conf", "if-in-location.conf", "upstream-no-keepalive.conf",
         "proxy-keepalive-headers.conf", "proxy-pass-no-resolver.conf", "boundary.conf"]


def expected(name: str) -> list[tuple[str, int]]:
    """(code, line) of every `# expect A2N9xx` marker in a lint fixture."""
    out = []
    for n, line in enumerate((LINT / name).read_text().splitlines(), 1):
        out += [(code, n) for code in re.findall(r"# expect (A2N\d{3})", line)]
    return out


def lint(*args: str, cwd: Path = ROOT, env: dict | None = None):
    """Run lint as a process; gixy is off unless a test asks for it (a gixy on $PATH must not change results)."""
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", "lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "NO_COLOR": "1", **(env or {})})
    assert_no_traceback(proc)
    return proc


def validate_sarif(doc: dict) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(doc)


# ------------------------------------------------------------------ each mistake is found, where it is

@pytest.mark.parametrize("name", CASES)
def test_each_mistake_is_flagged_at_its_line(name, nginx_bin):
    want = expected(name)
    assert want, f"{name} has no `# expect` marker"
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "json", "--severity", "info",
                str(LINT / name))
    items = json.loads(proc.stderr)
    got = [(d["code"], d["line"]) for d in items]
    assert got == want, items                      # the mistake, and nothing else (nginx -t passes)
    lines = (LINT / name).read_text().splitlines()
    for d in items:       # located in the nginx file, the column at the directive's name
        assert d["file"] == str(LINT / name)
        assert lines[d["line"] - 1][d["column"] - 1:].startswith(d["directive"])
    assert proc.returncode == 1


def test_columns_point_at_the_directive(nginx_bin):
    proc = lint("--nginx", nginx_bin, "--no-gixy", str(LINT / "alias-traversal.conf"))
    assert f"{LINT / 'alias-traversal.conf'}:7:9: error[A2N961]:" in proc.stderr
    assert "    7 |         alias /srv/files/;" in proc.stderr
    assert " " * 16 + "^~~~~" in proc.stderr   # under `alias`


def test_clean_file_has_no_finding(nginx_bin):
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--severity", "info", "--diagnostics", "json",
                str(LINT / "clean.conf"))
    assert json.loads(proc.stderr) == []
    assert proc.returncode == 0
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--severity", "info", str(LINT / "clean.conf"))
    assert proc.returncode == 0 and proc.stderr == ""


def test_boundary_finding_relates_to_the_apache_source(nginx_bin):
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "json", "tests/data/lint/boundary.conf")
    (item,) = json.loads(proc.stderr)
    assert (item["code"], item["line"], item["column"]) == ("A2N966", 6, 5)
    proc = lint("--nginx", nginx_bin, "--no-gixy", "tests/data/lint/boundary.conf")
    assert "= see: tests/data/lint/boundary-apache.conf:3:1" in proc.stderr


def test_boundary_needs_the_apache_section(tmp_path):
    """A bare prefix is reported only when the Apache line it comes from is segment-bounded."""
    (tmp_path / "apache.conf").write_text("RewriteRule ^/api /x\n<Location /api>\n</Location>\n")
    conf = tmp_path / "nginx.conf"
    conf.write_text("server {\n    location /api {  # apache.conf:1\n    }\n    location /api {  # apache.conf:2\n"
                    "    }\n    location /api/ {  # apache.conf:2\n    }\n    location /web {  # missing.conf:2\n"
                    "    }\n}\n")
    _, found = checks.run_checks(str(conf))
    assert [(f.code, f.node.line) for f in found] == [("A2N966", 4)]
    # --source-root: the Apache tree lives elsewhere than the nginx file
    other = tmp_path / "nginx"
    other.mkdir()
    (other / "nginx.conf").write_text(conf.read_text())
    _, found = checks.run_checks(str(other / "nginx.conf"))
    assert found == []
    _, found = checks.run_checks(str(other / "nginx.conf"), source_root=str(tmp_path))
    assert [(f.code, f.node.line) for f in found] == [("A2N966", 4)]


@pytest.mark.parametrize("text,codes", [
    # add_header: a level that has none inherits; an if in a location is a level too
    ("server { add_header A 1; location / { root /x; } }", []),
    ("server { add_header A 1; location / { add_header a 2; } }", []),
    ("add_header A 1 always;\nserver { location / { if ($x) { add_header B 2; return 403; } } }", ["A2N960"]),
    # without `always` the inherited header is not sent on the 403 either: nothing is lost
    ("add_header A 1;\nserver { location / { if ($x) { add_header B 2; return 403; } } }", []),
    ("add_header A 1;\nserver { location / { if ($x) { add_header B 2; return 302 /y; } } }", ["A2N960"]),
    ("server { add_header A 1; location / { location /in { add_header B 2; } } }", ["A2N960"]),
    # a header the block also hides from the backend is meant to be gone there (Header unset)
    ("server { add_header A 1; location / { proxy_hide_header A; add_header B 2; } }", []),
    # alias: both with or both without the slash are fine; regex and exact locations are not prefixes
    ("server { location /a/ { alias /d/; } location /b { alias /d; } location = /c { alias /d/; } }", []),
    ("server { location ^~ /a { alias /d/; } }", ["A2N961"]),
    # if in location
    ("server { location / { if ($x) { rewrite ^ /y; } } }", ["A2N962"]),
    # a flagless rewrite that only sets the query a `return` beside it sends never leaves the if's configuration
    ("server { location / { if ($x) { rewrite ^ /y?a=1; return 301 /z$is_args$args; } } }", []),
    ("server { location / { if ($x) { rewrite ^ /y break; set $a 1; return 404; } } }", []),
    ("server { if ($x) { proxy_pass http://a; } }", []),          # an if in server is not an if in location
    # keepalive: the headers may come from the server level unless the location has proxy_set_header of its own
    ("upstream u { server a; keepalive 2; }\nserver { proxy_http_version 1.1; proxy_set_header Connection \"\";"
     " location / { proxy_pass http://u/; } }", []),
    ("upstream u { server a; keepalive 2; }\nserver { proxy_http_version 1.1; proxy_set_header Connection \"\";"
     " location / { proxy_set_header Host $host; proxy_pass http://u/; } }", ["A2N964"]),
    ("upstream u { server a; keepalive 2; }\nserver { location / { proxy_http_version 1.1;"
     " proxy_set_header Connection $connection_upgrade; proxy_pass http://u; } }", []),
    ("upstream u { server a; }\nserver { location / { proxy_pass http://other.host; } }", ["A2N963"]),
    # FastCGI keeps connections only when asked (fastcgi_keep_conn), as mod_proxy_fcgi with enablereuse
    ("upstream f { server 127.0.0.1:9000; }\nserver { location / { fastcgi_pass f; } }", []),
    ("stream { upstream s { server a:1; } }", []),
    # resolver: needed for a host resolved per request, inherited from any level above
    ("resolver 127.0.0.1;\nserver { location / { proxy_pass http://$host$uri; } }", []),
    ("server { location / { proxy_pass http://10.0.0.1:8080$uri; fastcgi_pass unix:/run/$x.sock; } }", []),
    ("upstream u { server a; keepalive 2; }\nserver { location ~ (.*) { proxy_http_version 1.1; "
     "proxy_set_header Connection \"\"; proxy_pass http://u/$1; } }", []),
    ("server { location / { fastcgi_pass $backend; } }", ["A2N965"]),
])
def test_check_rules(tmp_path, text, codes):
    conf = tmp_path / "t.conf"
    # the variables the cases read are declared, as nginx requires (A2N969)
    conf.write_text("".join(f"map $uri ${name} {{ default \"\"; }}\n" for name in ("x", "backend", "connection_upgrade"))
                    + text + "\n")
    _, found = checks.run_checks(str(conf))
    assert [f.code for f in found] == codes


def test_includes_are_followed_and_located_in_their_file(tmp_path, nginx_bin):
    (tmp_path / "site.conf").write_text("server {\n    listen 80;\n    location /f {\n        alias /srv/f/;\n"
                                        "    }\n}\n")
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text("events {}\nhttp {\n    include site.conf;\n}\n")
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "json", str(main_conf))
    (item,) = json.loads(proc.stderr)
    assert (item["code"], Path(item["file"]).name, item["line"]) == ("A2N961", "site.conf", 4)


def test_generated_configurations_are_clean():
    """What convert emits passes its own linter (nginx -t is covered by test_fixtures)."""
    for conf in sorted((ROOT / "fixtures").glob("*/*/expected.conf")):
        _, found = checks.run_checks(str(conf))
        assert [(f.code, f.node.line) for f in found] == [], conf


def test_blocks_nested_past_the_limit_are_refused_where_they_open(nginx_bin, tmp_path):
    """nginx -t accepts 1000 nested locations; lint refuses the block past its depth limit, located, and
    still writes its SARIF report instead of failing whole on Python's recursion limit."""
    depth = 1000
    text = "events {}\nhttp {\nserver {\nlisten 80;\n" + "location /a {\n" * depth + "}\n" * (depth + 2)
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    out = tmp_path / "lint.sarif"
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "sarif", "-o", str(out), str(conf))
    assert_no_traceback(proc)
    assert proc.returncode == 1 and "nested too deeply" not in proc.stderr
    (result,) = json.loads(out.read_text())["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert result["ruleId"] == "A2N901" and "more than 100 deep" in result["message"]["text"]
    assert (region["startLine"], region["startColumn"]) == (3 + 100, 1)


# ------------------------------------------------------------------ severity threshold and exit codes

def test_severity_threshold_and_exit_codes(nginx_bin, tmp_path):
    warning_only = str(LINT / "add-header-dropped.conf")          # A2N960 is a warning
    assert lint("--nginx", nginx_bin, "--no-gixy", warning_only).returncode == 1
    assert lint("--nginx", nginx_bin, "--no-gixy", "--severity", "info", warning_only).returncode == 1
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--severity", "error", warning_only)
    assert proc.returncode == 0 and proc.stderr == ""            # below the threshold: neither shown nor failing
    error = str(LINT / "alias-traversal.conf")                    # A2N961 is an error
    assert lint("--nginx", nginx_bin, "--no-gixy", "--severity", "error", error).returncode == 1
    # unreadable input and bad usage: 2
    proc = lint("--nginx", nginx_bin, "--no-gixy", str(tmp_path / "missing.conf"), str(LINT / "clean.conf"))
    assert proc.returncode == 2 and "A2N013" in proc.stderr
    assert lint("--nginx", nginx_bin, "--severity", "fatal", warning_only).returncode == 2
    assert lint("--nginx", nginx_bin).returncode == 2
    proc = lint("--nginx", str(tmp_path / "no-nginx"), warning_only)
    assert proc.returncode == 2 and "A2N902" in proc.stderr
    assert lint("--nginx", nginx_bin, "--gixy", str(tmp_path / "no-gixy"), warning_only).returncode == 2


def test_nginx_t_errors_still_fail(nginx_bin, tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("server {\n    listen 80;\n    bogus_directive on;\n}\n")
    proc = lint("--nginx", nginx_bin, "--no-gixy", str(bad))
    assert proc.returncode == 1 and f"{bad}:3:1: error[A2N901]" in proc.stderr


# ------------------------------------------------------------------ SARIF

def test_sarif_validates_against_the_schema_with_rules_and_related_locations(nginx_bin, tmp_path):
    out = tmp_path / "lint.sarif"
    files = [f"tests/data/lint/{name}" for name in CASES + ["clean.conf"]]
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "sarif", "--output", str(out),
                "--severity", "info", *files)
    assert proc.returncode == 1 and proc.stderr == ""
    doc = json.loads(out.read_text())
    validate_sarif(doc)
    run = doc["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    want = sorted({code for name in CASES for code, _ in expected(name)})
    assert sorted(rules) == want
    for code, rule in rules.items():
        info = CODES[code]
        assert rule["name"] == info.name
        assert rule["shortDescription"]["text"] == info.summary
        assert rule["fullDescription"]["text"] and rule["help"]["text"].startswith("What it means:")
        assert rule["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning",
                                                         "info": "note"}[info.severity]
    got = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                  r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"])
    assert got == sorted((code, f"tests/data/lint/{name}", line) for name in CASES for code, line in expected(name))
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    (boundary,) = [r for r in run["results"] if r["ruleId"] == "A2N966"]
    (rel,) = boundary["relatedLocations"]
    assert rel["physicalLocation"]["artifactLocation"]["uri"] == "tests/data/lint/boundary-apache.conf"
    assert rel["physicalLocation"]["region"]["startLine"] == 3


def test_sarif_for_a_clean_run_and_for_odd_paths_validates(nginx_bin, tmp_path):
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "sarif", str(LINT / "clean.conf"))
    doc = json.loads(proc.stdout or proc.stderr)
    validate_sarif(doc)
    assert doc["runs"][0]["results"] == []
    odd = tmp_path / "with space#1.conf"                      # outside the working directory: a file URI
    odd.write_text((LINT / "alias-traversal.conf").read_text())
    proc = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "sarif", str(odd), cwd=ROOT)
    doc = json.loads(proc.stderr)
    validate_sarif(doc)
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and "with%20space%231.conf" in uri


# ------------------------------------------------------------------ gixy

# What gixy-ng 0.2.59 prints with `-f json` (gixy/formatters/json.py) for an alias traversal and a host spoof.
GIXY_REPORT = [
    {"config": "\nserver {\n\n\tlocation /files {\n\t\talias /srv/files/;\n\t}\n}",
     "description": "Using alias in a prefixed location that doesn't end with directory separator could lead to "
                    "path traversal vulnerability.",
     "file": "@FILE@", "line": 7, "path": "@FILE@", "plugin": "alias_traversal", "reason": "",
     "reference": "https://gixy.getpagespeed.com/checks/alias-traversal/", "severity": "HIGH",
     "summary": "Path traversal via misconfigured alias."},
    {"config": "\nserver {\n}", "description": "Using server_tokens on; ...", "file": "@FILE@",
     "fixes": [{"description": "Add server_tokens off", "replace": "server {\n    server_tokens off;",
                "search": "server {", "title": "Add server_tokens off"}],
     "line": 2, "path": "@FILE@", "plugin": "version_disclosure",
     "reason": "Missing server_tokens directive - defaults to 'on' which promotes information disclosure",
     "reference": "https://gixy.getpagespeed.com/checks/version-disclosure/", "severity": "HIGH",
     "summary": "Do not enable server_tokens on or server_tokens build"},
    {"config": "", "description": "...", "file": "@FILE@", "line": 3, "path": "@FILE@", "plugin": "host_spoofing",
     "reason": "", "reference": "https://gixy.getpagespeed.com/checks/host-spoofing/", "severity": "MEDIUM",
     "summary": "The proxied Host header may be spoofed."},
    {"config": "", "description": "...", "file": "@FILE@", "line": 4, "path": "@FILE@",
     "plugin": "low_keepalive_requests", "reason": "", "reference": "", "severity": "LOW",
     "summary": "Low keepalive_requests."},
]


def fake_gixy(tmp_path: Path, report: str | None = None, exit_code: int = 1) -> Path:
    """A stand-in gixy: checks it is called with -f json, records its arguments, prints a report."""
    script = tmp_path / "gixy"
    body = json.dumps(GIXY_REPORT) if report is None else report
    script.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
open({str(tmp_path / 'args.json')!r}, "w").write(json.dumps(args))
if args[:2] != ["-f", "json"]:
    sys.exit("usage: gixy -f json FILE")
sys.stdout.write({body!r}.replace("@FILE@", args[-1]))
sys.exit({exit_code})
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_gixy_findings_become_diagnostics_with_mapped_severity(nginx_bin, tmp_path):
    gixy = fake_gixy(tmp_path)
    target = str(LINT / "alias-traversal.conf")
    proc = lint("--nginx", nginx_bin, "--gixy", str(gixy), "--gixy-skip", "ssrf", "--diagnostics", "json",
                "--severity", "info", target)
    args = json.loads((tmp_path / "args.json").read_text())
    # gixy reads lint's vetted copy of the file (it would follow includes on its own), reported as the user's
    assert args[:4] == ["-f", "json", "--skips", "ssrf"] and args[4].endswith(target) and args[4] != target
    items = json.loads(proc.stderr)
    got = [(d["code"], d["severity"], d["line"], d["directive"]) for d in items]
    # gixy's alias_traversal repeats our A2N961 at the same line: reported once, as ours
    assert got == [("A2N967", "error", 2, "version_disclosure"), ("A2N967", "warning", 3, "host_spoofing"),
                   ("A2N967", "info", 4, "low_keepalive_requests"), ("A2N961", "error", 7, "alias")]
    assert all(d["file"] == target for d in items)
    assert "gixy [version_disclosure]: Do not enable server_tokens" in items[0]["message"]
    assert "https://gixy.getpagespeed.com/checks/version-disclosure/" in items[0]["message"]
    # the threshold applies to gixy's findings as to ours
    proc = lint("--nginx", nginx_bin, "--gixy", str(gixy), "--diagnostics", "json", "--severity", "error", target)
    assert [d["line"] for d in json.loads(proc.stderr)] == [2, 7] and proc.returncode == 1
    validate_sarif(json.loads(lint("--nginx", nginx_bin, "--gixy", str(gixy), "--diagnostics", "sarif",
                                   target).stderr))


def test_gixy_is_found_through_the_environment_and_path(nginx_bin, tmp_path):
    gixy = fake_gixy(tmp_path)
    target = str(LINT / "clean.conf")
    env_run = lint("--nginx", nginx_bin, "--diagnostics", "json", target, env={"A2N_GIXY": str(gixy)})
    assert any(d["code"] == "A2N967" for d in json.loads(env_run.stderr))
    path_run = lint("--nginx", nginx_bin, "--diagnostics", "json", target,
                    env={"PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}", "A2N_GIXY": ""})
    assert any(d["code"] == "A2N967" for d in json.loads(path_run.stderr))
    off = lint("--nginx", nginx_bin, "--no-gixy", "--diagnostics", "json", target, env={"A2N_GIXY": str(gixy)})
    assert json.loads(off.stderr) == [] and off.returncode == 0


def test_a_failing_gixy_is_reported_not_fatal(nginx_bin, tmp_path):
    gixy = fake_gixy(tmp_path, report="gixy: cannot parse the configuration\n", exit_code=1)
    proc = lint("--nginx", nginx_bin, "--gixy", str(gixy), "--diagnostics", "json", str(LINT / "clean.conf"))
    (item,) = json.loads(proc.stderr)
    assert item["code"] == "A2N968" and "cannot parse" in item["message"] and proc.returncode == 1
    assert lint("--nginx", nginx_bin, "--gixy", str(gixy), "--severity", "error",
                str(LINT / "clean.conf")).returncode == 0


def test_parse_report_accepts_gixy_json_and_rejects_other_text():
    issues = parse_report(json.dumps(GIXY_REPORT).replace("@FILE@", "x.conf"), "x.conf")
    assert [(i.plugin, i.severity, i.line) for i in issues] == [
        ("alias_traversal", "error", 7), ("version_disclosure", "error", 2), ("host_spoofing", "warning", 3),
        ("low_keepalive_requests", "info", 4)]
    assert parse_report("[]", "x") == []
    with pytest.raises(ValueError):
        parse_report('{"not": "a list"}', "x")


def test_real_gixy_when_installed(nginx_bin):
    """With a real gixy-ng ($A2N_GIXY or on $PATH), its report goes through the same bridge."""
    from apache2nginx.lint.gixy import find_gixy
    gixy = find_gixy()
    if gixy is None:
        pytest.skip("gixy-ng is not installed (pipx install gixy-ng); the bridge is tested with a stand-in above")
    proc = lint("--nginx", nginx_bin, "--gixy", gixy, "--diagnostics", "json", "--severity", "info",
                str(LINT / "if-in-location.conf"))
    items = json.loads(proc.stderr)
    assert "A2N968" not in {d["code"] for d in items}, items
    assert ("A2N962", 8) in {(d["code"], d["line"]) for d in items}


# ------------------------------------------------------------------ help and completion

@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_help_has_an_example(name):
    proc = run_cli(name, "--help")
    assert proc.returncode == 0
    assert re.search(rf"^\s+(?:\S+=\S+ |cat .*\| )?apache2nginx {name}\b", proc.stdout, re.M), proc.stdout


def test_top_level_help_documents_completion():
    proc = run_cli("--help")
    assert "_APACHE2NGINX_COMPLETE=bash_source apache2nginx" in proc.stdout
    assert "Examples:" in proc.stdout


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o nosort -F"), ("zsh", "compdef"),
                                          ("fish", "complete --no-files --command apache2nginx")])
def test_completion_script_is_produced(shell, marker):
    proc = subprocess.run([sys.executable, "-m", "apache2nginx"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "_APACHE2NGINX_COMPLETE": f"{shell}_source"})
    assert proc.returncode == 0, proc.stderr
    assert marker in proc.stdout and "_APACHE2NGINX_COMPLETE" in proc.stdout


def test_completion_completes_commands_and_choices():
    def complete(words: str) -> list[str]:
        env = {**os.environ, "_APACHE2NGINX_COMPLETE": "bash_complete", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split(" ")) - 1)}
        proc = subprocess.run([sys.executable, "-m", "apache2nginx"], capture_output=True, text=True, timeout=60,
                              env=env)
        return [line.split(",", 1)[1] for line in proc.stdout.splitlines() if "," in line]
    assert {"convert", "lint", "verify", "explain"} <= set(complete("apache2nginx "))
    assert complete("apache2nginx lint --severity ") == ["info", "warning", "error"]
