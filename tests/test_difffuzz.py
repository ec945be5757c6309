"""The differential fuzzer (bench/difffuzz.py and bench/difffuzz_engine/): its generator is deterministic and
stays small, its reducer shrinks a failing case to the minimal one and keeps to its budget, its classes name
the difference, and the runner runs a fixed seed set under real httpd and nginx, counting every config
(a verify run that cannot finish is a `verify-error` failure, never dropped).

The runner test's seeds all pass today (0 failures under the strict explainer) and must keep passing.
"""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from difffuzz_engine import generator, probes, reducer, tasks, verifier  # noqa: E402
from difffuzz_engine.htpasswd import apr1  # noqa: E402
from difffuzz_engine.model import Case, directive, section  # noqa: E402

# The seed set the runner test runs, and those of it that pass today (no failure of any class).
SEEDS = range(1, 101)
KNOWN_PASSING = set(SEEDS)


def test_same_seed_same_case():
    for seed in (1, 7, 42, 1234):
        a, b = generator.generate(seed), generator.generate(seed)
        assert a.config_text() == b.config_text()
        assert a.key() == b.key()
    assert generator.generate(1).config_text() != generator.generate(2).config_text()


def test_cases_are_small_and_varied():
    sizes, names, own = [], set(), 0
    for seed in range(200):
        case = generator.generate(seed)
        sizes.append(case.size())
        own += case.own_docroot
        names |= {n.name for top in case.config for n in top.walk()}
        names |= {n.name for nodes in case.htaccess.values() for top in nodes for n in top.walk()}
        assert case.requests and len(case.requests) <= probes.MAX_REQUESTS
        assert case.config_text().count("<VirtualHost") <= 3
    assert sum(sizes) / len(sizes) <= 45 and min(sizes) >= 5
    assert 30 <= own <= 110
    for expected in ("Location", "LocationMatch", "Directory", "DirectoryMatch", "Files", "FilesMatch", "If",
                     "Limit", "LimitExcept", "Proxy", "RequireAll", "RequireAny", "RequireNone", "Order", "Allow",
                     "Deny", "Satisfy", "AuthType", "Alias", "AliasMatch", "Redirect", "RedirectMatch",
                     "RewriteRule", "RewriteCond", "ProxyPass", "BalancerMember", "Header", "RequestHeader",
                     "SetEnvIf", "ErrorDocument", "DirectoryIndex", "Options", "FallbackResource", "AllowOverride",
                     "ServerAlias", "Listen"):
        assert expected in names, expected


def test_requests_aim_at_the_constructs():
    texts = ["\n".join(generator.generate(seed).requests).replace("'", "") for seed in range(1, 11)]
    assert sum("Authorization:Basic" in t for t in texts) >= 3
    assert all("%" in t for t in texts) and sum("?debug=1" in t for t in texts) >= 5
    assert sum(any(line.startswith(("POST", "PUT", "DELETE")) for line in t.splitlines()) for t in texts) >= 5
    assert sum(bool(re.search(r"Host:[\w.]+:\d+", t)) for t in texts) >= 5       # Host with its port
    assert probes.encode_first("/app") == "/%61pp"


def test_apr1_matches_openssl():
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    want = subprocess.run(["openssl", "passwd", "-apr1", "-salt", "s1234", "wonderland"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert apr1("wonderland", "s1234") == want


def test_classes_name_the_difference():
    c = verifier.classify
    assert c({"field": "status", "apache": 403, "nginx": 200, "widened": True}) == "widened status 403->200"
    assert c({"field": "header x-fuzz-a", "apache": None, "nginx": ["1"], "widened": True}) is None
    assert c({"field": "header x-frame-options", "apache": ["DENY"], "nginx": None,
              "lost_security": True}) == "lost-security header x-frame-options missing"
    assert c({"field": "header x-fuzz-b", "apache": ["1"], "nginx": None}) == "unexplained header x-fuzz-b missing"
    assert c({"field": "status", "apache": 200, "nginx": 404, "explained_by": "A2N101"}) is None
    assert verifier.family("unexplained header x-fuzz-b missing") == "unexplained header x-fuzz-* missing"
    order = sorted(["unexplained body", "widened status 401->200", "unexplained status 200->404",
                    "lost-security header x-frame-options changed"], key=verifier.severity)
    assert order[0].startswith("widened") and order[1].startswith("lost-security") and order[-1] == "unexplained body"


def _fails_with_denied_and_request(case: Case) -> bool:
    nodes = [n for top in case.config for n in top.walk()]
    return any(n.name == "Require" and n.args == ["all", "denied"] for n in nodes) \
        and "GET /admin/ Host:v1.fuzz.test" in case.requests


def test_reducer_shrinks_to_the_minimal_directive_set():
    config = [
        directive("Listen", "80"),
        section("VirtualHost", "*:80", children=[
            directive("ServerName", "v1.fuzz.test"),
            directive("Header", "always", "set", "X-Fuzz-A", "1", "env=fz_txt"),
            section("Location", "/app", children=[directive("Require", "all", "granted")]),
            section("Location", "/admin", children=[
                directive("AuthType", "Basic"),
                section("RequireAll", children=[directive("Require", "all", "denied"),
                                                directive("Require", "ip", "127.0.0.1")]),
            ]),
            directive("RewriteEngine", "On"),
            directive("RewriteRule", '"^/x$"', "/y", "[L,R=301,NE]"),
        ]),
    ]
    requests = ["GET / Host:v1.fuzz.test", "GET /admin/ Host:v1.fuzz.test", "GET /app Host:v1.fuzz.test"]
    case = Case(7, config, requests=requests)
    assert _fails_with_denied_and_request(case)
    calls = []

    def predicate(candidate):
        calls.append(1)
        return _fails_with_denied_and_request(candidate)
    r = reducer.Reducer(case, predicate, max_runs=150, hint_requests=["GET /admin/ Host:v1.fuzz.test"])
    best = r.run()
    assert best.requests == ["GET /admin/ Host:v1.fuzz.test"]
    # the Listen line stays: a reduced case is still a whole configuration (a snippet is translated otherwise)
    assert best.config_text().strip() == "Listen 80\nRequire all denied"
    assert not r.exhausted and len(calls) == r.runs <= 150


def test_reducer_keeps_to_its_budget_and_simplifies_arguments():
    case = generator.generate(3)
    r = reducer.Reducer(case, lambda c: len(c.requests) > 3, max_runs=5)
    r.run()
    assert r.runs == 5 and r.exhausted
    node = directive("RewriteRule", "^/a$", "/b", "[L,R=301]")
    assert ["^/a$", "/b"] in reducer.simpler_args(node)
    assert ["^/a$", "/b", "[R=301]"] in reducer.simpler_args(node)
    assert ["set", "X-A", "1"] in reducer.simpler_args(directive("Header", "always", "set", "X-A", "1"))


def test_request_hint_matches_verify_lines():
    case = Case(1, [], requests=["GET /app/a.txt Host:v1.fuzz.test", "GET http://v2.fuzz.test:8080/x",
                                 "POST /app/a.txt Host:v1.fuzz.test"])
    hint = tasks.hint_requests(case, [{"request": "GET http://v1.fuzz.test:80/app/a.txt"},
                                      {"request": "GET http://v2.fuzz.test:8080/x"}])
    assert hint == case.requests[:2]


def test_a_verify_run_that_cannot_finish_is_a_verify_error(tmp_path):
    case = generator.generate(1)
    case.write(tmp_path)
    outcome = verifier.run_verify(tmp_path, case.verify_args(), timeout=0.2)
    assert outcome.status == "error" and list(outcome.classes) == ["verify-error timeout"]


def test_runner_on_a_fixed_seed_set(apache_bin, nginx_bin):
    count = len(SEEDS)
    # httpd's workers (another user) read the cases' document roots: every directory above them must be one
    # they may pass through, which pytest's own temporary directories (mode 0700) are not
    out = Path(tempfile.mkdtemp(prefix="a2n-difffuzz-"))
    out.chmod(0o755)
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / "difffuzz.py"), "--seed", str(SEEDS[0]),
                               "--count", str(count), "--jobs", "2", "--reduce", "none", "--format", "json",
                               "--out", str(out)], capture_output=True, text=True, timeout=900)
        _check_run(proc, count)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_runner_stopped_reports_what_finished(apache_bin, nginx_bin):
    """SIGTERM (a CI job's timeout; Ctrl-C alike) ends a long run with its report of the configurations that
    finished, marked interrupted, and exit status 130 where none failed, not a traceback."""
    out = Path(tempfile.mkdtemp(prefix="a2n-difffuzz-"))
    out.chmod(0o755)
    proc = None
    try:
        proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "difffuzz.py"), "--seed", str(SEEDS[0]),
                                 "--count", "5000", "--jobs", "1", "--reduce", "none", "--format", "json",
                                 "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(12)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=300)
        assert "Traceback" not in stderr, stderr[-3000:]
        doc = json.loads(stdout)
        assert doc["interrupted"] is True
        assert 0 < doc["configs"] < 5000
        assert proc.returncode == (1 if doc["failures"] else 130)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        shutil.rmtree(out, ignore_errors=True)


def _check_run(proc: subprocess.CompletedProcess, count: int) -> None:
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["configs"] == count
    assert doc["requests"] >= 60 * count
    assert len(doc["invalid"]) <= 1, doc["invalid"]
    assert (proc.returncode == 1) == bool(doc["failures"])
    failing = {f["seed"] for f in doc["failures"]}
    assert not failing & KNOWN_PASSING, [f for f in doc["failures"] if f["seed"] in KNOWN_PASSING]
    for f in doc["failures"]:
        assert f["class"] and f["fixture"] and Path(f["fixture"], "apache.conf").is_file()
