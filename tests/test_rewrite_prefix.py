"""The per-directory prefix of a substitution, decided on its expanded value as httpd decides it."""
from __future__ import annotations

import pytest

from conftest import run_cli

from apache2nginx.passes.rewrite_model import Cond, RRule
from apache2nginx.passes.rewrite_prefix import leading_kinds, record_env


def _rule(pattern: str, substitution: str, conds=()) -> RRule:
    return RRule(pattern, substitution, {}, [Cond(t, p, set(), None, None) for t, p in conds], None, None)


@pytest.mark.parametrize("pattern, substitution, kinds", [
    ("^x$", "/index.php", {"/"}),
    ("^x$", "index.php", {"rel"}),
    ("^x$", "http://other/", {"abs"}),
    ("^(.*)$", "$1", {"rel"}),                      # the path after the directory: never a leading `/`
    ("^r/(.*)$", "$1", {"rel"}),                    # after a `/` of it: its slashes are merged
    ("^a(/.*)$", "$1", {"/", "rel"}),
    ("^x$", "%{REQUEST_URI}", {"/"}),
    ("^x$", "%{SERVER_NAME}/x", {"rel"}),
    ("^x$", "%{HTTP_HOST}/x", {"/", "rel"}),          # no Host header (HTTP/1.0): empty
    ("^x$", "%{ENV:UNSET}/x", {"/", "rel", "abs"}),
])
def test_leading_kinds(pattern, substitution, kinds):
    assert leading_kinds(substitution, _rule(pattern, substitution), True, {}) == kinds


def test_symfony_base_is_empty_or_an_absolute_path():
    options: dict = {}
    setter = _rule("^(.*)", "-", [("%{REQUEST_URI}::$1", r"^(/.+)/(.*)::\2$")])
    record_env(options, "BASE:%1", setter, True)
    rule = _rule("^", "%{ENV:BASE}/index.php")
    assert leading_kinds(rule.substitution, rule, True, options) == {"/"}
    # without the leading `/` after it, an empty BASE leaves a relative path: httpd adds the prefix then
    bare = _rule("^", "%{ENV:BASE}index.php")
    assert leading_kinds(bare.substitution, bare, True, options) == {"/", "rel"}


def _convert(tmp_path, text: str) -> tuple[str, str]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def _directory(rules: str) -> str:
    return ("Listen 80\n<VirtualHost *:80>\n    DocumentRoot /srv/p\n    <Directory /srv/p/d>\n"
            "        RewriteEngine On\n" + rules + "    </Directory>\n</VirtualHost>\n")


def test_front_controller_after_base_gets_no_prefix(tmp_path):
    out, _ = _convert(tmp_path, _directory(
        "        RewriteCond %{REQUEST_URI}::$1 ^(/.+)/(.*)::\\2$\n        RewriteRule ^(.*) - [E=BASE:%1]\n"
        "        RewriteRule ^ %{ENV:BASE}/index.php [L]\n"))
    assert 'rewrite ^/d/ "${a2n_env_BASE}/index.php" last;' in out
    assert "a2n_prefix" not in out


def test_request_time_value_picks_the_prefix_per_request(tmp_path):
    out, err = _convert(tmp_path, _directory(
        "        RewriteCond %{QUERY_STRING} ^to=(.*)$\n        RewriteRule ^ - [E=TO:%1]\n"
        "        RewriteRule ^go/(.*)$ %{ENV:TO}$1 [L]\n"))
    # the rule's capture is saved by name: the map's regex resets $1..$9
    assert 'map "${a2n_env_TO}${a2n_rw2_r1}" $a2n_prefix1 {' in out
    assert '"${a2n_prefix1}${a2n_env_TO}${a2n_rw2_r1}" last;' in out
    assert "default /d/;" in out and "A2N329" in err


def test_relative_redirect_gets_rewrite_base_or_the_filesystem_path(tmp_path):
    out, err = _convert(tmp_path, _directory("        RewriteRule ^old/(.*)$ new/$1 [R=301,L]\n"))
    assert "rewrite ^/d/old/(.*)$ /srv/p/d/new/$1 permanent;" in out and "A2N330" in err
    out, err = _convert(tmp_path, _directory("        RewriteBase /base/\n"
                                             "        RewriteRule ^old/(.*)$ new/$1 [R=301,L]\n"))
    assert "rewrite ^/d/old/(.*)$ /base/new/$1 permanent;" in out and "A2N330" not in err


def _cond_rule(substitution: str, conds, flags=()) -> RRule:
    rule = _rule("^", substitution, conds)
    for cond, flag in zip(rule.conds, flags):
        cond.flags = set(flag)
    return rule


def test_condition_groups_over_the_request_uri_start_with_a_slash():
    # Laravel: a group any match of which could start at the path's own `/`
    laravel = _cond_rule("%1", [("%{REQUEST_URI}", "(.+)/$")])
    assert leading_kinds("%1", laravel, True, {}) == {"/"}
    # Drupal: either [OR] condition may have captured, an empty group is followed by `/`
    drupal = _cond_rule("%1/core/%2", [("%{REQUEST_URI}", r"^(.*)?/(install\.php)"),
                                       ("%{REQUEST_URI}", r"^(.*)?/(rebuild\.php)"),
                                       ("%{REQUEST_URI}", "!core")], [{"OR"}])
    assert leading_kinds(drupal.substitution, drupal, True, {}) == {"/"}
    other = _cond_rule("%1", [("%{HTTP_HOST}", "(.+)$")])
    assert leading_kinds("%1", other, True, {}) == {"/", "rel", "abs"}


def test_literal_environment_values_are_read_with_what_follows():
    options: dict = {}
    for value in ("PROTO:https", "PROTO:http"):
        record_env(options, value, _rule("^", "-"), True)
    rule = _rule("^", "%{ENV:PROTO}://%{HTTP_HOST}/")
    # set: an absolute URI; unset (no rule ran): `://host/`, which gets the prefix
    assert leading_kinds(rule.substitution, rule, True, options) == {"abs", "rel"}
