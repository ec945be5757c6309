"""The first real configuration to migrate: the API gateway of tests/data/api-gateway-seed, whose own hand
translation was wrong. Its translation must pass the real `nginx -t` (through lint) and keep what the hand
translation lost: the node1-node3 pool, the retry approximation said aloud, mod_ratelimit's bandwidth cap,
the ignored rate-limit-period and the %D warning, faithful /v1 and /v2 boundaries, the security headers on
every response path, and the HTTP server redirecting with path and query kept."""
from __future__ import annotations

import json

import crossplane
import pytest

from conftest import ROOT, run_cli

SEED = ROOT / "tests" / "data" / "api-gateway-seed" / "apache.conf"
SECURITY_HEADERS = {"X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy"}


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    out = tmp_path_factory.mktemp("seed") / "nginx.conf"
    proc = run_cli("convert", str(SEED), "-o", str(out), "--diagnostics", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    parsed = crossplane.parse(str(out), single=True, check_ctx=False, check_args=False, comments=False)
    assert not parsed["errors"]
    return out, parsed["config"][0]["parsed"], json.loads(proc.stderr)


def _blocks(tree, name):
    for d in tree:
        if d["directive"] == name:
            yield d
        yield from _blocks(d.get("block", []), name)


def _servers(tree):
    return [s for s in _blocks(tree, "server") if "block" in s]     # not an upstream's members


def test_it_passes_nginx_t_through_lint(seed, nginx_bin):
    out, _, _ = seed
    proc = run_cli("lint", str(out), "--nginx", nginx_bin)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_balanced_pool_is_exactly_node1_to_node3_with_the_retry_approximation(seed):
    _, tree, diags = seed
    pools = {u["args"][0]: u for u in _blocks(tree, "upstream")}
    members = [d["args"] for d in pools["api_cluster"]["block"] if d["directive"] == "server"]
    assert members == [[f"node{i}.internal:3000", "max_fails=1", "fail_timeout=5s"] for i in (1, 2, 3)]
    assert any(d["directive"] == "keepalive" for d in pools["api_cluster"]["block"])
    retry = [d for d in diags if d["code"] == "A2N310"]
    assert retry and retry[0]["severity"] == "warning" and "retry=5" in retry[0]["message"]


def test_rate_limit_is_a_bandwidth_cap_and_the_unknown_variables_are_reported(seed):
    _, tree, diags = seed
    v1 = [loc for loc in _blocks(tree, "location") if loc["args"][-1] in ("/v1", "/v1/")]
    assert len(v1) == 2
    for loc in v1:
        assert ["1000k"] in [d["args"] for d in loc["block"] if d["directive"] == "limit_rate"]
    assert not any(d["directive"] == "limit_req" for d in _blocks(tree, "limit_req"))
    period = [d for d in diags if d["code"] == "A2N701"]
    assert period and "rate-limit-period" in period[0]["message"] and period[0]["severity"] == "warning"
    assert any(d["code"] == "A2N601" and "%D" in d["message"] and d["severity"] == "warning" for d in diags)


def test_v1_and_v2_keep_their_boundaries(seed):
    _, tree, _ = seed
    locations = [loc["args"] for loc in _blocks(tree, "location")]
    for prefix in ("/v1", "/v2"):
        assert ["=", prefix] in locations and ["^~", prefix + "/"] in locations
        assert [prefix] not in locations and ["^~", prefix] not in locations
    v2 = [loc for loc in _blocks(tree, "location") if loc["args"][-1] in ("/v2", "/v2/")]
    for loc in v2:     # node4 serves /v2 alone, never the pool
        assert [d["args"][0] for d in loc["block"] if d["directive"] == "proxy_pass"][0].startswith(
            "http://node4.internal_3000/")


def test_security_headers_on_every_response_path(seed):
    _, tree, _ = seed
    tls = next(s for s in _servers(tree) if any("443" in d["args"][0] for d in s["block"] if d["directive"] == "listen"))
    own = {d["args"][0] for d in tls["block"] if d["directive"] == "add_header" and d["args"][-1] == "always"}
    assert own == SECURITY_HEADERS
    for loc in _blocks(tls["block"], "location"):
        headers = {d["args"][0] for d in loc["block"] if d["directive"] == "add_header" and d["args"][-1] == "always"}
        # a location with an add_header of its own inherits none: it must repeat them all
        assert not any(d["directive"] == "add_header" for d in loc["block"]) or SECURITY_HEADERS <= headers


def test_the_http_server_redirects_with_path_and_query(seed):
    _, tree, _ = seed
    plain = next(s for s in _servers(tree) if any(d["args"][0] == "80" for d in s["block"] if d["directive"] == "listen"))
    returns = [d["args"] for d in plain["block"] if d["directive"] == "return"]
    assert returns == [["301", "https://api.example.com$request_uri"]]
