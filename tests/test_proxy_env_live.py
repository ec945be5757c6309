"""mod_proxy_http's per-request switches set with SetEnv, on real servers: with force-proxy-request-1.0 the
backend gets an HTTP/1.0 request without a Connection header, with proxy-nokeepalive an HTTP/1.1 request with
`Connection: close`, from httpd and from the translation alike; a server-level SetEnv reaches every route."""
from __future__ import annotations


import pytest

from live import apache, backend_view, echo_backend, free_port, nginx, request, translate


_translate = translate


def _seen(port: int, path: str) -> tuple[str, list[str]]:
    status, _, body = request(port, path, headers={"Connection": "keep-alive"})
    view = backend_view(body)
    assert status == 200 and view, body
    return view["version"], [v for k, v in view["headers"] if k.lower() == "connection"]


@pytest.mark.parametrize("variables, expected", [
    (["force-proxy-request-1.0"], ("HTTP/1.0", [])),
    (["proxy-nokeepalive"], ("HTTP/1.1", ["close"])),
    (["force-proxy-request-1.0", "proxy-nokeepalive"], ("HTTP/1.0", [])),
])
@pytest.mark.parametrize("where", ["location", "server"])
def test_backend_sees_the_protocol_httpd_sends(variables, expected, where, apache_bin, nginx_bin):
    with echo_backend("b") as backend:
        port = free_port()
        sets = "".join(f"    SetEnv {v} 1\n" for v in variables)
        conf = (f"Listen 127.0.0.1:{port}\n" + (sets if where == "server" else "") +
                f"<Location /old/>\n    ProxyPass http://127.0.0.1:{backend}/app/\n" +
                (sets if where == "location" else "") + "</Location>\n"
                f"ProxyPass /new/ http://127.0.0.1:{backend}/app/\n")
        text, messages = _translate(conf)
        assert "A2N702" not in messages
        with apache(conf, apache_bin, port):
            old = _seen(port, "/old/x")
            new = _seen(port, "/new/x")
        assert old == expected
        assert (new == expected) == (where == "server")
        with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
            assert _seen(nport, "/old/x") == old
            assert _seen(nport, "/new/x")[0] == new[0]


def test_setenv_outside_the_proxying_location_is_reported():
    text, messages = _translate("Listen 80\n<Location /old/>\n    ProxyPass http://127.0.0.1:9/app/\n"
                                "</Location>\n<Location />\n    SetEnv force-proxy-request-1.0 1\n"
                                "</Location>\n")
    assert "A2N702" in messages and "proxy_http_version 1.0" not in text
