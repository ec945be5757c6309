"""verify's judgement, without servers: which differences the comparator sees, which ones no diagnostic may
explain (WIDENED ACCESS, LOST SECURITY HEADER), how the report groups and counts them, and the registry's
declarations as `explain` prints them."""
from __future__ import annotations

import json

import pytest

from apache2nginx.codes import CODES, explains
from apache2nginx.effects import CONDITIONS
from apache2nginx.verify.compare import Comparator, Difference, Observation, lost_protection, widened
from apache2nginx.verify.probes import Probe
from apache2nginx.verify.report import summary, text_report
from apache2nginx.verify.run import judge
from conftest import run_cli


def probe(path="/", method="GET") -> Probe:
    return Probe(method, "http", "www.example.com", 80, path)


def obs(status=200, headers=None, backend=None, at=1000.0) -> Observation:
    return Observation(status, None, {k.lower(): v for k, v in (headers or {}).items()}, "", backend, at=at)


class AlwaysExplains:
    """An explainer that would put every difference down to one code."""

    def explain(self, case) -> str:
        return "A2N503"

    def underlying(self, o):
        return o


COMPARATOR = Comparator({}, {})


@pytest.mark.parametrize("name", ["Strict-Transport-Security", "X-Frame-Options", "Content-Security-Policy",
                                  "Referrer-Policy", "X-Robots-Tag", "X-Permitted-Cross-Domain-Policies"])
def test_a_lost_security_header_is_never_explained(name):
    found = judge(probe(), obs(200, {name: ["x"]}), obs(200), COMPARATOR, AlwaysExplains())
    assert [(d.field, d.verdict, d.explanation) for d in found] == \
        [(f"header {name.lower()}", "LOST SECURITY HEADER", None)]


def test_a_weaker_security_header_value_is_lost_too():
    found = judge(probe(), obs(200, {"X-Frame-Options": ["DENY"]}), obs(200, {"X-Frame-Options": ["SAMEORIGIN"]}),
                  COMPARATOR, AlwaysExplains())
    assert found[0].lost_security and found[0].explanation is None


def test_a_security_header_nginx_adds_can_be_explained():
    found = judge(probe(), obs(200), obs(200, {"X-Frame-Options": ["DENY"]}), COMPARATOR, AlwaysExplains())
    assert found[0].verdict is None and found[0].explanation == "A2N503"


def test_an_ordinary_header_difference_goes_to_the_explainer():
    found = judge(probe(), obs(200, {"X-Foo": ["a"]}), obs(200), COMPARATOR, AlwaysExplains())
    assert found[0].verdict is None and found[0].explanation == "A2N503"


@pytest.mark.parametrize("apache,nginx,lost", [
    (["sid=1; Secure; HttpOnly"], ["sid=1; HttpOnly"], True),
    (["sid=1; SameSite=Strict"], ["sid=1; SameSite=Lax"], True),
    (["sid=1; HttpOnly"], ["sid=2; HttpOnly"], False),
    (["sid=1"], ["sid=1; Secure"], False),
])
def test_cookie_protections(apache, nginx, lost):
    assert lost_protection("header set-cookie", apache, nginx) is lost


@pytest.mark.parametrize("apache,nginx,lost", [
    (["no-store, private"], ["private"], True),
    (["no-cache"], None, True),
    (["max-age=60"], None, False),
    (["private, max-age=60"], ["max-age=60, private"], False),
])
def test_cache_control_protections(apache, nginx, lost):
    assert lost_protection("header cache-control", apache, nginx) is lost


def test_cache_control_is_compared_by_directive_with_the_clock_allowed():
    a = obs(200, {"Cache-Control": ["max-age=3600, public"]}, at=1000.0)
    same = obs(200, {"Cache-Control": ["public,max-age=3597"]}, at=1003.0)
    assert COMPARATOR.diff(probe(), a, same) == []
    later = obs(200, {"Cache-Control": ["public, max-age=3000"]}, at=1003.0)
    assert [f for f, *_ in COMPARATOR.diff(probe(), a, later)] == ["header cache-control"]


def test_expires_is_compared_as_a_time():
    a = obs(200, {"Expires": ["Thu, 01 Jan 2026 01:00:00 GMT"], "Date": ["Thu, 01 Jan 2026 00:00:00 GMT"]})
    n = obs(200, {"Expires": ["Thu, 01 Jan 2026 01:00:05 GMT"], "Date": ["Thu, 01 Jan 2026 00:00:05 GMT"]},
            at=1005.0)
    assert COMPARATOR.diff(probe(), a, n) == []
    gone = obs(200, {"Date": ["Thu, 01 Jan 2026 00:00:05 GMT"]})
    assert [f for f, *_ in COMPARATOR.diff(probe(), a, gone)] == ["header expires"]


@pytest.mark.parametrize("a,n,opened", [(403, 200, True), (401, 302, True), (503, 200, True), (500, 404, False),
                                        (403, 404, False), (200, 403, False), (502, 502, False)])
def test_widened_access(a, n, opened):
    assert widened(obs(a), obs(n)) is opened
    if opened:
        found = judge(probe(), obs(a), obs(n), COMPARATOR, AlwaysExplains())
        assert found and all(d.widened and d.explanation is None for d in found)


def test_backend_query_is_a_field_of_its_own():
    a = obs(200, backend={"backend": "b:80", "method": "GET", "path": "/x?a=1", "headers": []})
    n = obs(200, backend={"backend": "b:80", "method": "GET", "path": "/x?a=2", "headers": []})
    assert [f for f, *_ in COMPARATOR.diff(probe("/x?a=1"), a, n)] == ["backend query"]


_PROBES: dict[str, Probe] = {}


def _difference(path, field_name, explanation=None, **flags):
    """A difference on the request for PATH (one request object a path, as verify has one a probe)."""
    return Difference(_PROBES.setdefault(path, probe(path)), field_name, "a", "b", explanation, **flags)


def test_summary_counts_requests_and_codes():
    diffs = [_difference("/a", "status", "A2N301"), _difference("/a", "header x", "A2N503"),
             _difference("/b", "status", None), _difference("/b", "header y", "A2N503"),
             _difference("/c", "header x-frame-options", lost_security=True)]
    stats = summary(10, 7, diffs)
    assert (stats["explained"], stats["unexplained"], stats["lost_security"]) == (1, 2, 1)
    assert stats["explained_share"] == 10.0
    assert stats["explained_by_code"] == {"A2N301": 1, "A2N503": 2}


def test_text_report_groups_identical_differences_worst_first():
    diffs = [_difference(f"/p{i}", "header x", "A2N503") for i in range(5)] + \
            [_difference("/q", "header x-frame-options", lost_security=True)]
    text = text_report(diffs, summary(6, 0, diffs))
    lines = text.splitlines()
    assert lines[0].startswith("LOST SECURITY HEADER") and "1x" in lines[0]
    assert "explained by A2N503" in lines[2] and "5x" in lines[2] and "(+2 more)" in lines[3]
    assert "1 LOST SECURITY HEADER" in text


def test_explain_list_json_declares_every_code():
    proc = run_cli("explain", "--list", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {d["code"] for d in doc} == set(CODES)
    for entry in doc:
        assert set(entry) == {"code", "severity", "title", "explains"}
        assert entry["explains"] == [e.to_json() for e in explains(entry["code"])]
        for effect in entry["explains"]:
            assert set(effect) == {"field", "change", "when"}
            assert set(effect["when"]) <= set(CONDITIONS)
    # loading decisions apply to both servers alike: they explain nothing. A2N022 is the exception: a
    # directive holding an undefined ${VAR} is left out of nginx only (httpd keeps the literal text)
    assert all(not e["explains"] for e in doc if e["code"].startswith("A2N0") and e["code"] != "A2N022")


def test_explain_code_shows_its_declaration():
    proc = run_cli("explain", "A2N503")
    assert proc.returncode == 0 and "In verify, it can explain:" in proc.stdout


@pytest.mark.parametrize("name,apache,nginx,lost", [
    # the very same value once more (or once less) right after itself: read as one by the client
    ("x-frame-options", ["DENY"], ["DENY", "DENY"], False),
    ("strict-transport-security", ["max-age=600", "max-age=600"], ["max-age=600"], False),
    ("referrer-policy", ["no-referrer", "no-referrer"], ["no-referrer"], False),
    # another value beside it, or a repeat that moves the last (or first) value: compared as ever
    ("x-frame-options", ["SAMEORIGIN"], ["SAMEORIGIN", "DENY"], True),
    ("referrer-policy", ["origin", "same-origin"], ["origin", "same-origin", "origin"], True),
    ("strict-transport-security", ["max-age=600"], ["max-age=0", "max-age=600"], True),
    # structured headers: a repeated value joins into one that no longer parses
    ("cross-origin-resource-policy", ["same-origin"], ["same-origin", "same-origin"], True),
])
def test_a_repeated_security_header_value(name, apache, nginx, lost):
    assert lost_protection(f"header {name}", apache, nginx) is lost


def test_a_repeated_security_header_value_still_needs_an_explanation():
    found = judge(probe(), obs(200, {"X-Frame-Options": ["DENY", "DENY"]}), obs(403, {"X-Frame-Options": ["DENY"]}),
                  COMPARATOR, AlwaysExplains())
    header = [d for d in found if d.field == "header x-frame-options"][0]
    assert not header.lost_security and header.explanation == "A2N503"


@pytest.mark.parametrize("name,apache,nginx,same", [
    # one field line "a, b" against two: the same list at the client (httpd's Header merge, nginx's add_header)
    ("referrer-policy", ["no-referrer, no-referrer"], ["no-referrer", "no-referrer"], True),
    ("x-frame-options", ["DENY, SAMEORIGIN"], ["DENY", "SAMEORIGIN"], True),
    ("content-security-policy", ["default-src 'self', img-src *"], ["default-src 'self'", "img-src *"], True),
    # another order, another item, or a header that is no comma list: still a difference
    ("x-frame-options", ["DENY, SAMEORIGIN"], ["SAMEORIGIN", "DENY"], False),
    ("referrer-policy", ["origin, no-referrer"], ["origin"], False),
    ("strict-transport-security", ["max-age=600, max-age=600"], ["max-age=600", "max-age=600"], False),
])
def test_comma_joined_list_headers_compare_by_their_items(name, apache, nginx, same):
    found = COMPARATOR.diff(probe(), obs(200, {name: apache}), obs(200, {name: nginx}))
    assert (not any(field == f"header {name}" for field, _, _ in found)) is same


ERROR_PAGES = """\
Listen 80
<VirtualHost *:80>
    ServerName www.example.com
    ErrorDocument 403 http://pages.example.com/denied
    ErrorDocument 404 http://pages.example.com/missing
    <Location /shut/>
        Require all denied
    </Location>
</VirtualHost>
"""


def _redirect(status: int, location: str) -> Observation:
    return Observation(status, location, {"location": [location]}, "", None, at=1000.0)


@pytest.fixture
def error_pages(tmp_path):
    from conftest import load_text
    from apache2nginx.diagnostics import Diagnostic
    from apache2nginx.syntax.span import Span
    from apache2nginx.verify.explain import Explainer
    from apache2nginx.verify.probes import vhosts_of
    config, file = load_text(tmp_path, ERROR_PAGES)
    # a code declaring nginx's 403 where httpd answers 404 (status:changed@status-404,nginx-refused)
    diag = Diagnostic("A2N747", "test", Span.point(file, 6))
    return Explainer(config, [diag], vhosts_of(config))


def test_a_refusal_httpd_redirects_to_its_error_page_is_still_a_refusal(error_pages):
    """httpd's ErrorDocument 403 with a URL answers its refusal 302: nginx serving the URL is WIDENED ACCESS."""
    found = judge(probe("/shut/a"), _redirect(302, "http://pages.example.com/denied"), obs(200), COMPARATOR,
                  error_pages)
    assert found and all(d.widened and d.explanation is None for d in found)
    # the same redirect on both sides is no difference at all
    same = _redirect(302, "http://pages.example.com/denied")
    assert judge(probe("/shut/a"), same, same, COMPARATOR, error_pages) == []


def test_the_location_of_an_error_page_redirect_goes_with_the_status_it_stands_for(error_pages):
    """httpd's 404 became a 302 to its page, nginx refused 403: the Location differs because the status does,
    which the diagnostic declaring 404 -> 403 explains; the same Location difference over a 404 nginx answers
    without the redirect (a lost error page) stays unexplained."""
    found = judge(probe("/shut/a"), _redirect(302, "http://pages.example.com/missing"), obs(403), COMPARATOR,
                  error_pages)
    assert {d.field for d in found} >= {"status", "location"}
    assert all(d.explanation == "A2N747" for d in found if d.field in ("status", "location"))
    lost_page = judge(probe("/shut/a"), _redirect(302, "http://pages.example.com/missing"), obs(404), COMPARATOR,
                      error_pages)
    assert any(d.field == "location" and d.explanation is None for d in lost_page)


IGNORED_401_PAGE = """\
Listen 80
<VirtualHost *:80>
    ServerName www.example.com
    ErrorDocument 404 http://pages.example.com/oops
    <Location /members/>
        ErrorDocument 401 http://pages.example.com/oops
    </Location>
</VirtualHost>
"""


def test_an_error_document_httpd_ignores_does_not_make_its_page_ambiguous(tmp_path):
    """httpd ignores ErrorDocument 401 with a full URL (core.c: AH00113): the page it names stays the 404's
    alone, so httpd's redirect there stands for the 404 and its Location goes with that status."""
    from conftest import load_text
    from apache2nginx.diagnostics import Diagnostic
    from apache2nginx.syntax.span import Span
    from apache2nginx.verify.explain import Explainer
    from apache2nginx.verify.probes import vhosts_of
    config, file = load_text(tmp_path, IGNORED_401_PAGE)
    explainer = Explainer(config, [Diagnostic("A2N747", "test", Span.point(file, 4))], vhosts_of(config))
    assert explainer.error_pages == {"http://pages.example.com/oops": {404}}
    found = judge(probe("/missing/.htpasswd"), _redirect(302, "http://pages.example.com/oops"), obs(403),
                  COMPARATOR, explainer)
    assert {d.field for d in found} >= {"status", "location"}
    assert all(d.explanation == "A2N747" and not d.widened for d in found if d.field in ("status", "location"))
