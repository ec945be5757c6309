"""Directives httpd allows only at server level are refused inside sections, as httpd refuses them."""
from __future__ import annotations

import json

from conftest import run_cli


def test_server_only_directives_inside_a_location_are_errors(tmp_path):
    (tmp_path / "a.conf").write_text(
        "Listen 80\n<VirtualHost *:80>\nServerName a\n<Location /x>\nKeepAlive Off\nTimeout 10\n"
        "ErrorLog /var/log/e.log\nLimitRequestBody 10\nHeader set X-A b\n</Location>\n</VirtualHost>\n")
    proc = run_cli("convert", "a.conf", "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    errors = [(d["line"], d["message"]) for d in doc["diagnostics"] if d["code"] == "A2N001"]
    assert errors == [(5, "KeepAlive not allowed in <Location> context: httpd refuses the configuration"),
                      (6, "Timeout not allowed in <Location> context: httpd refuses the configuration"),
                      (7, "ErrorLog not allowed in <Location> context: httpd refuses the configuration")]
    # a per-directory directive is translated into the location
    assert "client_max_body_size 10;" in "".join(doc["output"].values())
