"""Per-directory rewrite rules in a directory no URL reaches: a warning only where the input itself sets every
DocumentRoot (a compiled-in default differs between builds, so a snippet without one keeps the error)."""
from __future__ import annotations

import json

from conftest import run_cli

RULES = """<Directory /srv/elsewhere>
    RewriteEngine On
    RewriteRule ^old$ new [L]
</Directory>
"""


def _codes(tmp_path, text: str) -> list[str]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    return [d["code"] for d in json.loads(proc.stdout)["diagnostics"]]


def test_rules_no_document_root_reaches_are_a_warning(tmp_path):
    codes = _codes(tmp_path, "DocumentRoot /var/www/site\n" + RULES)
    assert "A2N835" in codes and "A2N826" not in codes


def test_without_a_document_root_in_the_input_they_stay_an_error(tmp_path):
    codes = _codes(tmp_path, RULES)
    assert "A2N826" in codes and "A2N835" not in codes
