"""mod_include: httpd and the translated nginx expand the same .shtml includes, only where Options Includes
meets the INCLUDES filter, and the dispositions say what nginx cannot do."""
from __future__ import annotations

import json
import os
import shutil
import tempfile

from conftest import run_cli
from live import apache, free_port, nginx, request

PAGE = 'before <!--#include virtual="part.txt" --> after\n'


def _docroot() -> str:
    # readable by the servers' unprivileged workers (pytest's own tmp dirs are private to root)
    docroot = tempfile.mkdtemp(prefix="a2n-ssi-")
    os.chmod(docroot, 0o755)
    for rel, text in (("a.shtml", PAGE), ("part.txt", "ROOT"), ("pages/a.shtml", PAGE), ("pages/b.SHTML", PAGE),
                      ("pages/part.txt", "PART"), ("pages/a.txt", PAGE)):
        path = os.path.join(docroot, rel)
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        os.chmod(path, 0o644)
    return docroot


def _convert(tmp_path, conf: str) -> dict:
    (tmp_path / "apache.conf").write_text(conf)
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    return json.loads(proc.stdout)


def test_shtml_expanded_where_options_includes_meets_the_filter(tmp_path, apache_bin, nginx_bin):
    docroot = _docroot()
    port = free_port()
    conf = f"""LoadModule include_module /usr/lib/apache2/modules/mod_include.so
Listen 127.0.0.1:{port}
DocumentRoot {docroot}
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
<Directory {docroot}>
    Require all granted
</Directory>
<Directory {docroot}/pages>
    Options +IncludesNOEXEC
</Directory>
"""
    try:
        doc = _convert(tmp_path, conf)
        translated = "".join(doc["output"].values())
        paths = ["/a.shtml", "/pages/a.shtml", "/pages/b.SHTML", "/pages/a.txt"]
        with apache(conf, apache_bin, port):
            a = {p: request(port, p) for p in paths}
        with nginx(translated, nginx_bin, f"127.0.0.1:{port}") as nport:
            n = {p: request(nport, p) for p in paths}
        assert a["/pages/a.shtml"][2] == "before PART after\n"
        assert a["/a.shtml"][2] == PAGE and a["/pages/a.txt"][2] == PAGE
        for p in paths:
            assert (n[p][0], n[p][2]) == (a[p][0], a[p][2]), (p, translated)
        codes = {d["code"]: d for d in doc["diagnostics"]}
        assert "A2N757" in codes and "A2N752" not in codes
        assert doc["summary"]["unsupported"] == 0
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


def test_filter_without_options_includes_emits_nothing(tmp_path):
    doc = _convert(tmp_path, "Listen 80\nDocumentRoot /srv/x\nAddOutputFilter INCLUDES .shtml\n"
                             "<Directory /srv/x>\n    Options Indexes\n</Directory>\n")
    assert "ssi" not in "".join(doc["output"].values())
    assert [d["code"] for d in doc["diagnostics"] if d["code"].startswith("A2N7")] == ["A2N762"]
    assert doc["summary"]["exact"] + doc["summary"]["approximate"] == doc["summary"]["directives"]


def test_what_nginx_cannot_parse_is_unsupported(tmp_path):
    doc = _convert(tmp_path, "Listen 80\nDocumentRoot /srv/x\nAddOutputFilter INCLUDES .shtml\nXBitHack on\n"
                             "<Directory /srv/x>\n    Options +Includes\n</Directory>\n"
                             "<Directory /srv/x/plain>\n    Options -Includes\n</Directory>\n"
                             "<Location /loc>\n    AddOutputFilter INCLUDES .html\n</Location>\n")
    errors = [(d["line"], d["code"]) for d in doc["diagnostics"] if d["severity"] == "error"]
    assert sorted(errors) == [(3, "A2N758"), (4, "A2N758"), (12, "A2N758")]
    assert doc["summary"]["unsupported"] == 3
