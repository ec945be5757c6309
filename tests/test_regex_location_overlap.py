"""Overlapping <LocationMatch>/<Location ~> sections: httpd merges every one matching a URL, nginx answers from
the first matching regex location, so each regex location nests the later sections that may match its URLs
with the rules merged; what cannot be laid out so is refused (A2N730)."""
from __future__ import annotations

import json

from conftest import run_cli

from apache2nginx.emit.layout import _regexes_may_overlap


def _convert(tmp_path, text: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", "--no-source-comments", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


def _sections(patterns: list[str], body: str) -> str:
    inner = "".join(f'    <LocationMatch "{p}">\n{body}    </LocationMatch>\n' for p in patterns)
    return ("Listen 80\n<VirtualHost *:80>\n    ServerName o.example.com\n    DocumentRoot /srv/www\n"
            f"{inner}</VirtualHost>\n")


def _block(text: str, opening: str) -> str:
    """The block TEXT opens with OPENING, up to its own closing brace."""
    start = text.index(opening)
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0 and text[i] == "}":
            return text[start:i + 1]
    raise AssertionError(f"{opening} is not closed")


def test_a_later_refusal_is_nested_in_the_earlier_location(tmp_path):
    out, codes = _convert(tmp_path, _sections(["^/api", "^/api/.*\\.txt$"], "        Header set X-A 1\n")
                          .replace('"^/api/.*\\.txt$">\n        Header set X-A 1',
                                   '"^/api/.*\\.txt$">\n        Require all denied'))
    outer = _block(out, "location ~ ^/api {")
    assert "location ~ ^/api/.*\\.txt$ {" in outer
    nested = outer[outer.index("location ~ ^/api/.*\\.txt$ {"):]
    assert "deny all;" in nested.split("}")[0]
    assert "A2N730" not in codes


def test_an_empty_section_lays_out_no_location(tmp_path):
    out, codes = _convert(tmp_path, _sections(["(?i)^/api", "^/api/.*\\.txt$"], "")
                          .replace('"^/api/.*\\.txt$">\n', '"^/api/.*\\.txt$">\n        Require all denied\n'))
    assert "(?i)^/api" not in out
    assert "deny all;" in out[out.index("location ~ ^/api/.*\\.txt$ {"):]
    assert codes.count("A2N208") == 1


def test_disjoint_anchored_sections_are_not_nested():
    assert not _regexes_may_overlap("^/api/", False, "^/static", False)
    assert _regexes_may_overlap("(?i)^/static", False, "^/STATIC/a", False)
    assert _regexes_may_overlap("^/a", False, "\\.txt$", False)
    assert _regexes_may_overlap("^/ab?c", False, "^/ac", False)      # an optional character ends the literal


def test_too_many_overlapping_sections_are_refused(tmp_path):
    out, codes = _convert(tmp_path, _sections(["^/a", "^/a/b", "^/a/b/c", "^/a/b/c/d", "^/a/b/c/d/e"],
                                              "        Header set X-A 1\n"))
    assert "A2N730" in codes
    assert "deny all;" in out
