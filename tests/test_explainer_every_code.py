"""Every code that declares explanations, held to its declaration by the Explainer: for each effect a
difference it declares (field, change, conditions) is explained by a diagnostic of that code in the
request's virtual host; the same difference is left unexplained when the diagnostic stands in another
virtual host, and a difference in a field the code declares nothing for is left unexplained too."""
from __future__ import annotations

import pytest
from conftest import load_text

from apache2nginx.codes import CODES, explains
from apache2nginx.diagnostics import Diagnostic
from apache2nginx.effects import Effect
from apache2nginx.syntax.span import Span
from apache2nginx.verify.compare import Observation
from apache2nginx.verify.explain import Case, Explainer, declared_effects
from apache2nginx.verify.probes import Probe, vhosts_of

CONF = """\
Listen 80
<VirtualHost *:80>
    ServerName one.example
    Header set X-Test a
</VirtualHost>
<VirtualHost *:80>
    ServerName two.example
    Header set X-Test b
</VirtualHost>
"""
FIELDS = ("status", "location", "body", "connection", "header x-test", "backend", "backend method",
          "backend path", "backend query", "backend header x-test")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return load_text(tmp_path_factory.mktemp("conf"), CONF)


def _concrete(field: str) -> str:
    if field == "*":
        return "status"
    if field in ("header", "backend header"):
        return field + " x-test"
    return field


def _case(effect: Effect, field: str, host: str = "one.example") -> Case:
    """A request and two answers that satisfy every condition of EFFECT, differing in FIELD."""
    when = set(effect.when)
    method = "TRACE" if "trace-method" in when else "OPTIONS" if "options-method" in when else \
        "POST" if "unsafe-method" in when else "GET"
    path = "/a.php/x" if "path-info" in when else "/dir/" if "directory-request" in when else \
        "/d/a" if "inner-segment" in when else "/a"
    if "encoded-slash" in when:
        path = "/a%2Fb"
    elif "encoded-path" in when:
        path = "/a%41"
    if "doubled-slash" in when or "unnormalised-path" in when:
        path = "/x//" + path.lstrip("/")
    if "refused-before-host" in when:
        path = "/%2e%2e/a"
    if "query" in when:
        path += "?q=1"
    headers = {}
    if "conditional-request" in when:
        headers["If-Modified-Since"] = "Thu, 01 Jan 2026 00:00:00 GMT"
    if "credentials" in when:
        headers["Authorization"] = "Basic dmVyaWZ5OnZlcmlmeQ=="
    probe = Probe(method, "https" if "https" in when else "http",
                  host + (":80" if "host-port" in when else ""), 80, path, headers)
    status = 200
    for cond, code in (("refused-before-host", 400), ("status-405", 405), ("status-403", 403), ("status-404", 404), ("server-error", 502),
                       ("error-status", 404), ("redirect", 301)):
        if cond in when:
            status = code
            break
    backend = {"backend": "b:80", "method": method, "path": path, "headers": []} if "proxied" in when else None
    # httpd served (2xx) where nginx redirected; httpd asked for a login where nginx answered as below
    apache = Observation(200 if {"success", "redirect"} <= when else 401 if "httpd-refused" in when else status,
                         None, {}, "", backend, at=1.0)
    if "nginx-refused" in when:
        status = 401        # nginx asked for a login where httpd answered as above
    nginx = Observation(status if "nginx-failed" not in when else 0, None, {}, "", backend, at=1.0,
                        error="ConnectionRefusedError" if "nginx-failed" in when else None)
    change = effect.change if effect.change != "any" else "changed"
    values = {"missing": ("x", None), "added": (None, "x"),
              "changed": (["x, y"], ["y", "x"]) if "same-items" in when else ("x", "y")}[change]
    return Case(probe, apache, nginx, field, *values)


def _declaring_codes() -> list[str]:
    return [c for c in CODES if explains(c)]


@pytest.mark.parametrize("code", _declaring_codes())
def test_each_declared_effect_is_explained_in_region_and_only_there(code, config):
    loaded, path = config
    vhosts = vhosts_of(loaded)
    # a diagnostic on the first virtual host's Header line (line 4); `directive` resolves through Header
    diag = Diagnostic(code, "test", Span.point(path, 4), directive="Header")
    for effect in declared_effects(diag):
        if any(c in effect.when for c in ("not-proxied",)) and "proxied" in effect.when:
            continue        # contradictory conditions never hold together
        field = _concrete(effect.field)
        if field.startswith("backend") and "proxied" not in effect.when:
            effect = Effect(effect.field, effect.change, effect.when + ("proxied",))
        if "not-proxied" in effect.when and "proxied" in effect.when:
            continue
        case = _case(effect, field)
        explainer = Explainer(loaded, [diag], vhosts)
        assert explainer.explain(case) == code, (code, effect, field)
        elsewhere = _case(effect, field, host="two.example")
        if "refused-before-host" in effect.when:
            # nginx answers what it refuses before reading Host from the address's default server (the first
            # host, which holds the diagnostic here), whatever host the request names
            assert explainer.explain(elsewhere) == code, (code, effect, "the default server's answer")
            continue
        assert explainer.explain(elsewhere) is None, (code, effect, "explained in another virtual host")


def _undeclared(code: str, path: str = "x") -> list[str]:
    declared = declared_effects(Diagnostic(code, "test", Span.point(path, 4), directive="Header"))
    return [f for f in FIELDS if not any(e.covers(f) for e in declared)]


@pytest.mark.parametrize("code", [c for c in _declaring_codes() if _undeclared(c)])   # `*` codes declare all
def test_a_field_a_code_does_not_declare_stays_unexplained(code, config):
    loaded, path = config
    diag = Diagnostic(code, "test", Span.point(path, 4), directive="Header")
    undeclared = _undeclared(code, path)
    explainer = Explainer(loaded, [diag], vhosts_of(loaded))
    for field in undeclared:
        assert explainer.explain(_case(Effect(field), field)) is None, (code, field)
