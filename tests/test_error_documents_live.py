"""ErrorDocument on real servers: httpd keeps, per status, the innermost and latest target (a <Location>,
<Directory> or <Files> overrides the server's; a later line overrides an earlier one), while nginx answers
with the first error_page naming the status in the block. The translation must pick the page httpd picks."""
from __future__ import annotations

import tempfile
from pathlib import Path

from live import apache, free_port, nginx, request, translate

PROBES = ["/nope", "/x/nope", "/x", "/forbidden/", "/favicon.ico", "/sub/nope", "/sub/favicon.ico",
          "/sub/a.html"]


def _answers(port: int) -> list[tuple[int, str]]:
    return [(status, body.strip()) for status, _, body in (request(port, p) for p in PROBES)]


def test_the_error_page_httpd_picks(apache_bin, nginx_bin):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        (root / "sub").mkdir()
        (root / "forbidden").mkdir()
        for name in ("a.html", "b.html", "denied.html", "denied-late.html", "sub404.html", "sub/a.html"):
            (root / name).write_text(f"page {name}\n")
        port = free_port()
        conf = (f"Listen 127.0.0.1:{port}\n<VirtualHost 127.0.0.1:{port}>\nDocumentRoot {root}\n"
                f"<Directory {root}>\nRequire all granted\n</Directory>\n"
                "ErrorDocument 404 /a.html\nErrorDocument 403 /denied.html\nErrorDocument 403 /denied-late.html\n"
                "<Location /x>\nErrorDocument 404 /b.html\n</Location>\n"
                f"<Directory {root}/forbidden>\nRequire all denied\n</Directory>\n"
                "<Files favicon.ico>\n  ErrorDocument 404 \"No favicon here.\n</Files>\n"
                f"<Directory {root}/sub>\n  ErrorDocument 404 /sub404.html\n</Directory>\n</VirtualHost>\n")
        text, _ = translate(conf)
        with apache(conf, apache_bin, port):
            expected = _answers(port)
        # the probes reach every override: the Location's, the late 403, the Files message, the Directory's
        assert {(404, "page b.html"), (403, "page denied-late.html"), (404, "No favicon here."),
                (404, "page sub404.html")} <= set(expected)
        with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
            assert _answers(nport) == expected
