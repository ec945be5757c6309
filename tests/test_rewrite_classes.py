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
