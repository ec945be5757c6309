"""Divergence classes of mod_rewrite and of the server's own redirects: regular expressions httpd cannot
compile, relative Locations, httpd 2.4.60+'s refusal of unsafe substitutions."""
from __future__ import annotations

import pytest

from apache2nginx.passes import pcre
from apache2nginx.verify.compare import Comparator, Observation
from apache2nginx.verify.probes import Probe


@pytest.mark.skipif(not pcre.available(), reason="no PCRE2 library to compile with")
@pytest.mark.parametrize("pattern, refused", [("(", True), ("^/a{2,1}", True), ("[", True), ("^/b\\", True),
                                              ("^/ok/(.*)$", False), ("a++", False), ("(?|a|b)", False),
                                              ("^/(?<n>a)|(?<n>b)", False), ("[[:alpha:]]", False)])
def test_httpd_refuses_what_pcre_cannot_compile(pattern, refused):
    assert (pcre.httpd_refuses(pattern) is not None) == refused


@pytest.mark.skipif(not pcre.available(), reason="no PCRE2 library to compile with")
def test_a_duplicated_group_name_is_httpds_not_nginxs():
    assert pcre.httpd_refuses("^/(?<n>a)|(?<n>b)") is None
    assert pcre.nginx_refuses("^/(?<n>a)|(?<n>b)") is not None


def _location(value: str, host: str, path: str = "/sub") -> str | None:
    probe = Probe("GET", "http", host, 8080, path)
    a = Observation(301, "http://port.example.com:8080/sub/")
    n = Observation(301, value)
    return [d for d in Comparator({}, {}).diff(probe, a, n) if d[0] == "location"]


def test_a_relative_location_is_the_url_the_client_resolves_it_to():
    assert _location("/sub/", "port.example.com:8080") == []
    assert _location("/sub/", "Port.Example.com:8080") == []
    assert _location("sub/", "port.example.com:8080", "/x") == []
    assert _location("/sub/", "port.example.com") != []      # the client asked port 80: httpd names none


def _plan(substitution: str, flags: str = "L"):
    from apache2nginx.passes.rewrite_model import RRule, _flags, _normalise
    from apache2nginx.passes.rewrite_unsafe import plan
    rule = RRule("^/x/(.*)", substitution, _normalise(_flags(f"[{flags}]")), [], None, None)
    found = plan(rule)
    return found.always, [([f"{k}:{v}" for k, v in c.pieces], c.regex) for c in found.checks]


def test_a_query_from_the_request_is_checked_for_spaces():
    assert _plan("/p.html?q=$1") == (False, [(["rule:1"], r"[\x00-\x20\x7f]")])


def test_a_question_mark_before_the_substitutions_own_splits_the_query():
    assert _plan("/p/$1") == (False, [(["rule:1"], r"\?")])
    assert _plan("/p/$1", "L,UnsafeAllow3F") == (False, [(["text:/p/", "rule:1"], r"\?[\s\S]*[\x00-\x20\x7f]")])
    assert _plan("/p.html?a=$1&b=%{HTTP_HOST}") == (False, [(["rule:1"], r"[\x00-\x20\x7f]")])


def test_a_redirects_query_is_escaped_not_refused():
    assert _plan("/r.html?q=$1", "R=302") == (False, [])
    assert _plan("/r.html?q=$1", "R=302,NE") == (False, [(["rule:1"], r"[\x00-\x20\x7f]")])
    assert _plan("http://other.example/r/$1") == (False, [(["rule:1"], r"\?")])


def test_escaped_back_references_are_not_refused():
    assert _plan("/p.html?q=$1", "B") == (False, [])
    assert _plan("/p.html?q=$1", "BCTLS") == (False, [])
    assert _plan("/p/$1", "BCTLS") == (False, [(["rule:1"], r"\?")])
    assert _plan("/p.html?q=$1", "BNP") == (False, [(["rule:1"], r"[\x00-\x20\x7f]")])
    assert _plan("/p.html?q=$1", "B=&") == (False, [(["rule:1"], r"[\x00-\x20\x7f]")])
    assert _plan("/p.html?q=$1", "B= ") == (False, [])   # httpd trims the value: [B], every byte escaped


def test_the_substitutions_own_space_in_a_query_is_always_refused():
    assert _plan("/p.html?a b") == (True, [])
    assert _plan("/a b/p.html") == (False, [])
    assert _plan("-") == (False, [])


def test_qsl_splits_at_the_last_question_mark():
    assert _plan("/p.html?a=b?c=$1", "QSL") == (False, [(["rule:1"], r"\?"), (["rule:1"], r"[\x00-\x20\x7f]")])
    assert _plan("/p/$1?c=d", "QSL") == (False, [])
