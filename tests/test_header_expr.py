"""Header expr= conditions: compiled maps decide as ap_expr does, including the case of compared strings."""
from __future__ import annotations

import pytest

from apache2nginx.model import NginxModel
from apache2nginx.passes.header_expr import HeaderCondition

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
