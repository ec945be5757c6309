"""`apache2nginx verify` with real httpd and real nginx: every fixture, the API-gateway example with at
least 50 probes, and the seed's hand translation, whose real differences must be found."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from fixture_cases import case_dirs

SEED = ROOT / "tests" / "data" / "api-gateway-seed"   # the first real configuration, with its hand translation
CASES = case_dirs()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_fixture_has_no_unexplained_difference(case, apache_bin, nginx_bin):
    args = (case / "args.txt").read_text().split() if (case / "args.txt").exists() else []
    if "--nginx-version" in args:
        pytest.skip("generated for a newer nginx than the one verify runs here")
    extra = ["--requests", "requests.txt"] if (case / "requests.txt").exists() else []
    proc = run_cli("verify", "apache.conf", *args, *extra, "--format", "json", "--apache", apache_bin,
                   "--nginx-bin", nginx_bin, cwd=case, timeout=300)
    if (case / "verify-refused.txt").exists():
        assert proc.returncode == 2 and "httpd did not start" in proc.stderr, proc.stderr[-800:]
        return
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    s = doc["summary"]
    assert s["unexplained"] == 0 and s["compared"] >= 9
    assert s["compared"] == s["same"] + s["explained"] + s["unexplained"]
    for d in doc["differences"]:
        assert d["explained_by"], d
    # verify-exact.txt: both servers answer every request alike, but for the paths it lists (whose difference a
    # diagnostic reports). A diagnostic of one rule must not explain a real difference of another away.
    exact = case / "verify-exact.txt"
    if exact.exists():
        allowed = {line.split("#", 1)[0].strip() for line in exact.read_text().splitlines()} - {""}
        # the request's path: after "METHOD scheme://host:port", before the query
        differing = {re.sub(r"^\S+ \w+://[^/]*", "", d["request"]).split("?", 1)[0] for d in doc["differences"]}
        assert differing <= allowed, doc["differences"]


def test_backend_without_port_points_at_its_stand_in(tmp_path):
    """`proxy_pass http://host/`, `server host;` and the Host header sent to it reach the echo backend that
    stands in for host:80 (httpd, pointed at it, sends its host:port)."""
    from apache2nginx.lint.sandbox import Sandbox

    conf = tmp_path / "nginx.conf"
    conf.write_text("upstream pool { server legacy.internal; }\n"
                    "server { listen 80; location /a/ { proxy_pass http://legacy.internal/old/;\n"
                    "proxy_set_header Host legacy.internal; }\n"
                    "location /b/ { proxy_pass https://secure.internal; } location /c/ { proxy_pass http://pool; }\n"
                    "location /d/ { proxy_pass http://other.internal:8080/;\n"
                    "proxy_set_header Host legacy.internal:81; } }\n")
    box = Sandbox(backends={"legacy.internal:80": "127.0.0.1:5001", "secure.internal:443": "127.0.0.1:5002",
                            "other.internal:8080": "127.0.0.1:5003"})
    try:
        assert box.build(str(conf)) == []
        text = box.conf.read_text()
    finally:
        box.cleanup()
    assert "server 127.0.0.1:5001;" in text
    assert "proxy_pass http://127.0.0.1:5001/old/;" in text
    assert "proxy_set_header Host 127.0.0.1:5001;" in text
    assert "proxy_pass https://127.0.0.1:5002;" in text
    assert "proxy_pass http://pool;" in text
    assert "proxy_pass http://127.0.0.1:5003/;" in text
    assert "proxy_set_header Host legacy.internal:81;" in text


def test_api_gateway_example_runs_at_least_50_probes(apache_bin, nginx_bin):
    proc = run_cli("verify", "fixtures/examples/api-gateway/apache.conf", "--format", "json", "--apache", apache_bin,
                   "--nginx-bin", nginx_bin, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads(proc.stdout)["summary"]
    assert summary["compared"] >= 50 and summary["unexplained"] == 0


def _seed_or_skip() -> Path:
    assert SEED.is_dir(), f"{SEED} is missing"
    return SEED


def test_seed_hand_translation_differences_are_found(apache_bin, nginx_bin):
    seed = _seed_or_skip()
    proc = run_cli("verify", str(seed / "apache.conf"), "--nginx", str(seed / "nginx-seed-hand.conf"),
                   "--format", "json", "--apache", apache_bin, "--nginx-bin", nginx_bin, timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    diffs = doc["differences"]
    assert doc["summary"]["unexplained"] > 0 and all(d["explained_by"] is None for d in diffs)
    # node4 answers requests Apache kept inside the node1-node3 pool
    assert any(d["field"] == "backend" and d["nginx"] == "node4.internal:3000" and d["apache"] for d in diffs)
    # a /v1X path that Apache did not proxy is proxied by the prefix location
    assert any(d["request"].endswith("/v1x") and d["field"] == "backend" and d["apache"] is None for d in diffs)


def test_request_file_and_access_log_are_replayed(apache_bin, nginx_bin, tmp_path):
    (tmp_path / "requests.txt").write_text("# comments and blank lines are skipped\n\n"
                                           "GET https://gateway.example.net/v1/orders?id=3\n"
                                           "POST https://gateway.example.net/v2/items Content-Type:text/plain\n")
    (tmp_path / "access.log").write_text(
        '10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /v1/health HTTP/1.1" 200 12 "-" "curl/8"\n'
        'garbage line\n')
    base = run_cli("verify", "fixtures/examples/api-gateway/apache.conf", "--format", "json", "--apache",
                   apache_bin, "--nginx-bin", nginx_bin, cwd=ROOT, timeout=300)
    more = run_cli("verify", "fixtures/examples/api-gateway/apache.conf", "--format", "json",
                   "--requests", str(tmp_path / "requests.txt"), "--access-log", str(tmp_path / "access.log"),
                   "--apache", apache_bin, "--nginx-bin", nginx_bin, cwd=ROOT, timeout=300)
    assert more.returncode == 0, more.stdout[-2000:]
    assert json.loads(more.stdout)["summary"]["compared"] == json.loads(base.stdout)["summary"]["compared"] + 3


def test_a_wrong_nginx_file_is_caught_with_its_request(apache_bin, nginx_bin, tmp_path):
    """A hand edit that widens /v2 into a bare prefix is an unexplained difference, and exit 1."""
    converted = run_cli("convert", "fixtures/examples/api-gateway/apache.conf", cwd=ROOT).stdout
    edited = converted.replace("location = /v2 {", "location /v2 {").replace("location ^~ /v2/ {",
                                                                             "location ^~ /v2/unused/ {")
    assert edited != converted
    (tmp_path / "edited.conf").write_text(edited)
    proc = run_cli("verify", "fixtures/examples/api-gateway/apache.conf", "--nginx", str(tmp_path / "edited.conf"),
                   "--format", "json", "--apache", apache_bin, "--nginx-bin", nginx_bin, cwd=ROOT, timeout=300)
    assert proc.returncode == 1
    requests = {d["request"] for d in json.loads(proc.stdout)["differences"]}
    assert any(r.endswith("/v2x") for r in requests)


def test_a_server_that_listens_then_exits_is_not_taken_for_started():
    """httpd binds its ports before mod_ssl's post-config checks and can still exit: an accepting
    port is not enough to call it started."""
    import subprocess
    import sys

    from apache2nginx.lint.sandbox import free_port
    from apache2nginx.verify.process import wait_for_ports

    port = free_port()
    script = ("import socket,time\ns=socket.socket();s.bind(('127.0.0.1',%d));s.listen();time.sleep(0.5)" % port)
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        assert wait_for_ports({port}, proc, timeout=5, ready=lambda: False) == {port}
        assert proc.poll() is not None
    finally:
        proc.kill()
        proc.wait()


def test_a_difference_is_put_down_to_the_diagnostic_of_the_mapping_that_serves_it(apache_bin, nginx_bin, tmp_path):
    """A Redirect's unnormalised remainder (A2N405) explains the differences under its own prefix; the
    RedirectMatch warning of another prefix (A2N401) and a section's diagnostic elsewhere do not."""
    (tmp_path / "apache.conf").write_text("""Listen 80
<VirtualHost *:80>
    ServerName r.example.com
    DocumentRoot /var/www/r
    RedirectMatch 301 ^/old/(.*)$ /new/$1
    Redirect 302 /promo http://promo.example.com/landing
    ErrorDocument 403 "Forbidden, sorry"
</VirtualHost>
""")
    proc = run_cli("verify", "apache.conf", "--format", "json", "--apache", apache_bin, "--nginx-bin", nginx_bin,
                   cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    promo = [d for d in json.loads(proc.stdout)["differences"] if "/promo/" in d["request"]]
    assert promo and {d["explained_by"] for d in promo if d["field"] == "location"} == {"A2N405"}


def test_file_name_regex_follows_a_user_docroot():
    """A test of nginx's $request_filename anchored under a document root a user's --docroot stands in for is
    anchored on the stand-in, as httpd's sandbox moves a <Directory> under that root along with it; another
    is left as it is."""
    from apache2nginx.lint.sandbox import rebased_regex

    paths = {"/srv/www": "/tmp/tree"}
    assert rebased_regex("^/srv/www/ad[^/]*/", paths) == "^/tmp/tree/ad[^/]*/"
    assert rebased_regex("^/srv/www/?$", paths) == "^/tmp/tree/?$"
    assert rebased_regex("^/srv/wwwx/", paths) == "^/srv/wwwx/"
    assert rebased_regex("^/srv/www\\.old/x", paths) == "^/srv/www\\.old/x"
    assert rebased_regex("^/srv/www/my\\-site/", {"/srv/www/my-site": "/t.x"}) == "^/t\\.x/"
    assert rebased_regex("/\\.git", paths) == "/\\.git"


def test_file_name_map_follows_the_synthesised_roots(tmp_path):
    """A map over nginx's $request_filename (the translation's gate of a refusal's onsuccess headers where a
    left-out <Directory ~> may lift it) has its keys anchored at `/` anchored under the synthesised roots, as an
    `if ($request_filename ~ ...)` test is; another key, and a map over anything else, are left as they are."""
    from apache2nginx.lint.sandbox import Sandbox
    from apache2nginx.verify.docroots import SandboxPaths

    conf = tmp_path / "nginx.conf"
    conf.write_text("map $request_filename $lifted { volatile; default \"\"; ~^/srv/www/api/?$ 1; "
                    "~*^/srv/www/b 2; ~/sub/?$ 3; }\n"
                    "map $uri $other { default \"\"; ~^/srv/www/api 1; }\n"
                    "server { listen 80; root /srv/www; add_header X-L $lifted$other; }\n")
    box = Sandbox(paths=SandboxPaths({"/srv/www": "/t/fs/srv/www"}, base="/t/fs"))
    try:
        assert box.build(str(conf)) == []
        text = box.conf.read_text()
    finally:
        box.cleanup()
    assert "~^/t/fs/srv/www/api/?$ 1;" in text
    assert "~*^/t/fs/srv/www/b 2;" in text
    assert "~/sub/?$ 3;" in text
    assert "~^/srv/www/api 1;" in text
