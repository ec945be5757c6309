"""Vary from expressions on real servers: httpd adds every request header an ap_expr reads (`%{HTTP:X}`,
`req('X')`) to the response's Vary, but only on the responses that keep its headers (errors keep them for
`Header always` only) and only where evaluation reaches the read (`&&`/`||` stop early). A cache that lost
that Vary would serve one client's conditional answer to another. The translation must send the same set."""
from __future__ import annotations

import tempfile
from pathlib import Path

from live import apache, free_port, nginx, request, translate

SECTIONS = """
<Location /always>
Header always set X-1 yes "expr=%{HTTP:X-A} = 'b'"
</Location>
<Location /success>
Header set X-2 yes "expr=%{HTTP:X-B} == 'b'"
</Location>
<Location /chain>
Header always set X-3 yes "expr=%{HTTP:X-D} == 'b' && req('X-E') == 'c' || %{HTTP:X-F} =~ /^z/"
</Location>
<Location /request>
RequestHeader set X-4 yes "expr=%{HTTP:X-C} == 'b'"
</Location>
<Location /require>
Require expr "%{HTTP:X-G} != 'b'"
</Location>
<Location /host>
Header always set X-5 yes "expr=%{HTTP_HOST} == 'b' || %{HTTP:Host} == 'c' || %{HTTP:User-Agent} == 'd'"
</Location>
"""

PROBES = [("/always/a.html", {}), ("/always/nope", {}), ("/success/a.html", {}), ("/success/nope", {}),
          ("/chain/a.html", {}), ("/chain/a.html", {"X-D": "b"}), ("/chain/a.html", {"X-D": "b", "X-E": "c"}),
          ("/chain/nope", {"X-D": "b"}), ("/request/a.html", {}), ("/request/nope", {}),
          ("/require/a.html", {}), ("/require/a.html", {"X-G": "b"}), ("/host/a.html", {})]


def _varies(port: int) -> list[tuple[int, list[str]]]:
    out = []
    for path, headers in PROBES:
        status, got, _ = request(port, path, headers=headers)
        names = sorted({v.strip().lower() for line in got.get("vary", []) for v in line.split(",") if v.strip()})
        out.append((status, names))
    return out


def test_expressions_vary_on_the_headers_httpd_names(apache_bin, nginx_bin):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        for d in ("always", "success", "chain", "request", "require", "host"):
            (root / d).mkdir()
            (root / d / "a.html").write_text("x")
        port = free_port()
        conf = f"Listen 127.0.0.1:{port}\n<VirtualHost 127.0.0.1:{port}>\nDocumentRoot {root}\n" \
               f"<Directory {root}>\nRequire all granted\n</Directory>\n{SECTIONS}</VirtualHost>\n"
        text, _ = translate(conf)
        with apache(conf, apache_bin, port):
            expected = _varies(port)
        # the probes must see what the test is about: Vary on some answers, none on others
        assert (200, ["x-d", "x-e", "x-f"]) in expected and (404, []) in expected
        with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
            assert _varies(nport) == expected
