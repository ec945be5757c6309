"""Substitutions httpd reads as file paths: server context (the first path segment exists on the server) and
per-directory results under the DocumentRoot (stripped of it)."""
from __future__ import annotations

import json

from conftest import run_cli


def _convert(tmp_path, body: str) -> tuple[str, list[str]]:
    (tmp_path / "apache.conf").write_text("Listen 80\n<VirtualHost *:80>\n    DocumentRoot /srv/site\n"
                                          "    RewriteEngine On\n" + body + "</VirtualHost>\n")
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    return "".join(doc["output"].values()), [d["code"] for d in doc["diagnostics"]]


def test_document_root_and_alias_targets_become_their_urls(tmp_path):
    out, codes = _convert(tmp_path, "    Alias /assets /srv/assets\n"
                                    "    RewriteRule ^/old$ /srv/site/new.html [L]\n"
                                    "    RewriteRule ^/img/(.*)$ /srv/assets/$1 [L]\n"
                                    "    RewriteRule ^/var$ %{DOCUMENT_ROOT}/new.html [L]\n")
    # (under the document root the rule stops the rules after mod_dir's slash check of a directory result)
    assert "rewrite ^/old$ /new.html;" in out
    assert "rewrite ^/img/(.*)$ /assets/$1 last;" in out
    assert "rewrite ^/var$ /new.html;" in out
    assert codes.count("A2N332") == 3 and "A2N331" not in codes


def test_a_url_claimed_by_another_route_is_reported(tmp_path):
    out, codes = _convert(tmp_path, "    Alias /new.html /srv/other/new.html\n"
                                    "    RewriteRule ^/old$ /srv/site/new.html [L]\n")
    assert "rewrite ^/old$ /srv/site/new.html last;" in out and "A2N331" in codes


def test_standard_directories_are_reported_and_pt_is_a_url(tmp_path):
    out, codes = _convert(tmp_path, "    RewriteRule ^/a$ /usr/share/doc/x.html [L]\n"
                                    "    RewriteRule ^/b$ /srv/site/new.html [PT,L]\n"
                                    "    RewriteRule ^/c$ /blog/new.html [L]\n")
    assert "rewrite ^/b$ /srv/site/new.html last;" in out
    assert codes.count("A2N331") == 1 and "A2N332" not in codes


def test_per_directory_result_under_the_document_root_is_stripped(tmp_path):
    out, _ = _convert(tmp_path, "    <Directory /srv/site/d>\n        RewriteEngine On\n"
                                "        RewriteRule ^x$ /srv/site/new.html [L]\n    </Directory>\n"
                                "    <Directory /srv/site/e>\n        RewriteEngine On\n        RewriteBase /b/\n"
                                "        RewriteRule ^x$ /srv/site/e/new.html [L]\n    </Directory>\n")
    assert "rewrite ^/d/x$ /new.html last;" in out
    assert "rewrite ^/e/x$ /b/new.html last;" in out


def test_handler_rule_under_the_document_root_maps_onto_it(tmp_path):
    out, codes = _convert(tmp_path, "    RewriteRule ^/app/(.+\\.php)$ /srv/site/src/$1 [H=application/x-httpd-php,L]\n")
    assert "rewrite ^/app/(.+\\.php)$ /a2n_handler_1/src/$1 last;" in out and "A2N332" in codes
