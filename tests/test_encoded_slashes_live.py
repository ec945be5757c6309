"""Encoded slashes on real servers: what httpd forwards to a backend under each AllowEncodedSlashes setting
and what the translation forwards. With `nocanon` and the same path on both sides nginx's proxy_pass without a
URI part sends the raw request URI, as httpd does (%2F kept, `/x/../` unnormalised); AllowEncodedSlashes On
decodes on both sides; Off refuses %2F on both (the translation's guard map)."""
from __future__ import annotations


import pytest

from live import apache, backend_view, echo_backend, free_port, nginx, request, translate

PATHS = ["/api/a%2Fb", "/api/a%2fb%20c", "/api/x/../a%2Fb", "/api/a%252Fb", "/other/a%2Fb"]


def _translate(apache_conf: str) -> str:
    return translate(apache_conf)[0]


def _answers(port: int) -> list[tuple[int, str | None]]:
    out = []
    for path in PATHS:
        status, _, body = request(port, path)
        view = backend_view(body)
        out.append((status, view["path"] if view else None))
    return out


@pytest.mark.parametrize("setting, proxy", [
    ("NoDecode", "ProxyPass /api/ http://127.0.0.1:{b}/api/ nocanon"),
    ("NoDecode", "ProxyPass / http://127.0.0.1:{b}/ nocanon"),
    ("NoDecode", "<Location /api/>\nProxyPass http://127.0.0.1:{b}/api/ nocanon\n</Location>"),
    ("On", "ProxyPass /api/ http://127.0.0.1:{b}/api/"),
    ("Off", "ProxyPass /api/ http://127.0.0.1:{b}/api/"),
    ("Off", "ProxyPass /api/ http://127.0.0.1:{b}/api/ nocanon"),
])
def test_backend_gets_the_path_httpd_forwards(setting, proxy, apache_bin, nginx_bin):
    with echo_backend("b") as backend:
        port = free_port()
        conf = (f"Listen 127.0.0.1:{port}\n<VirtualHost 127.0.0.1:{port}>\nServerName t\n"
                f"AllowEncodedSlashes {setting}\n" + proxy.format(b=backend) + "\n</VirtualHost>\n")
        text = _translate(conf)
        with apache(conf, apache_bin, port):
            expected = _answers(port)
        with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
            assert _answers(nport) == expected
