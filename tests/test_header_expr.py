"""Header expr= conditions: compiled maps decide as ap_expr does, including the case of compared strings."""
from __future__ import annotations

import pytest

from apache2nginx.model import NginxModel
from apache2nginx.passes.header_expr import HeaderCondition, Untranslatable
from conftest import assert_no_traceback, run_cli

from test_access_cond import _evaluate


@pytest.mark.parametrize("expr, inputs, expected", [
    ("%{REQUEST_METHOD} == 'GET'", {"$request_method": "GET"}, "1"),
    # nginx's map compares plain strings ignoring case; ap_expr's == does not
    ("%{REQUEST_METHOD} == 'GET'", {"$request_method": "get"}, ""),
    ("%{HTTP_HOST} != 'www.example.com'", {"$http_host": "WWW.example.com"}, "1"),
    ("%{HTTP_HOST} in {'a.example', 'b.example'}", {"$http_host": "B.example"}, ""),
    ("%{HTTP_HOST} in {'a.example', 'b.example'}", {"$http_host": "b.example"}, "1"),
])
def test_string_comparisons_keep_their_case(expr, inputs, expected):
    model = NginxModel()
    variable = HeaderCondition(model, request_only=True).compile(expr)
    assert _evaluate(model, variable, inputs) == expected


@pytest.mark.parametrize("expr", [
    "(" * 200 + "-n %{HTTP_HOST}" + ")" * 200,
    "! " * 400 + "-n %{HTTP_HOST}",
])
def test_expressions_nested_past_the_limit_are_refused_not_overflowed(expr):
    """httpd accepts 200 nested parentheses; the translation refuses the expression (Untranslatable, which
    callers report at the directive) rather than raising RecursionError."""
    with pytest.raises(Untranslatable, match="nests more than"):
        HeaderCondition(NginxModel(), request_only=True).compile(expr)


def test_an_if_nested_past_the_limit_is_refused_and_denied(tmp_path):
    """The <If> around `Require all denied` is refused where it stands and its location denies."""
    conf = tmp_path / "apache.conf"
    conf.write_text('<VirtualHost *:80>\nServerName a\n<Location />\n<If "' + "(" * 200 + "-n %{HTTP_HOST}"
                    + ")" * 200 + '">\nRequire all denied\n</If>\n</Location>\n</VirtualHost>\n')
    proc = run_cli("convert", str(conf))
    assert_no_traceback(proc)
    assert "nested too deeply" not in proc.stderr
    assert f"{conf}:4:1: error[A2N742]" in proc.stderr
    assert "deny all;" in proc.stdout
