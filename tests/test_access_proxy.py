"""Which backend URLs a <Proxy>/<ProxyMatch> section covers, as httpd's proxy walk matches them (a plain
prefix, fnmatch with `*` crossing `/`, an unanchored regex), for the URLs a location proxies to."""
from __future__ import annotations

import fnmatch
import re

from apache2nginx.model import Scope
from apache2nginx.passes.access_proxy import coverage

SUFFIXES = ["", "/", "/x", "/admin/y", "x", "-old/z", "/deep/a/b?c"]


def _httpd_matches(scope: Scope, url: str) -> bool:
    if scope.regex:
        return re.search(scope.path, url) is not None
    if any(c in scope.path for c in "*?["):
        return fnmatch.fnmatchcase(url, scope.path)
    return url.startswith(scope.path)


def test_coverage_never_claims_more_than_httpd_matches():
    bases = ["http://app:8080/app", "http://app:8080/", "http://reports:8080/r", "balancer://pool/pool"]
    patterns = [("*", False), ("http://app:8080/*", False), ("http://app:8080/", False), ("http://app:8080/app/x", False),
                ("http://app:8080", False), ("http://rep*", False), ("http://app:8080/a?p", False),
                ("^http://app:8080/", True), ("^http://app:8080/admin", True), ("app", True), ("admin$", True),
                ("^balancer://pool", True), (".*", True), ("^http://(app|api):8080/app", True),
                ("balancer://pool", False), ("^http://api:8080/|^http://app:8080/app/x", True)]
    for base in bases:
        for path, regex in patterns:
            scope = Scope(path, regex=regex)
            urls = [base + s for s in SUFFIXES]
            matched = [_httpd_matches(scope, u) for u in urls]
            covered = coverage(scope, base)
            if covered == "all":
                assert all(matched), (base, path)
            elif covered == "none":
                assert not any(matched), (base, path)
