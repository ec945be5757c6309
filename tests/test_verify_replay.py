"""verify's replay: the HTTP client reads every kind of answer as http.client does and keeps a connection only
when nothing can differ from a fresh one; an access log is counted, deduplicated and sampled as the report says;
`--all` replays every distinct request; a concurrent replay finds exactly what a sequential one finds; progress
is shown with a rate on a terminal and nowhere else."""
from __future__ import annotations

import io
import json
import re
import socket
import threading
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from apache2nginx.verify.client import Client, replay
from apache2nginx.verify.compare import Comparator, Observation, clock_gap, send
from apache2nginx.verify.probes import Probe, read_access_log
from apache2nginx.verify.report import Progress


class Scripted:
    """A loopback server answering each request with the next canned answer (bytes, and whether to close
    after it); it records the connections it accepted and the requests it read."""

    def __init__(self, answers, close_idle_after_first: bool = False):
        self.answers = list(answers)
        self.requests: list[bytes] = []
        self.connections = 0
        self.close_idle = close_idle_after_first
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _read_request(self, conn, buf: bytes) -> tuple[bytes | None, bytes]:
        while b"\r\n\r\n" not in buf:
            data = conn.recv(65536)
            if not data:
                return None, buf
            buf += data
        head, _, rest = buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            rest += conn.recv(65536)
        return head + b"\r\n\r\n" + rest[:length], rest[length:]

    def _handle(self, conn):
        conn.settimeout(5)
        buf = b""
        with conn:
            while True:
                try:
                    request, buf = self._read_request(conn, buf)
                except OSError:
                    return
                if request is None:
                    return
                with self.lock:
                    self.requests.append(request)
                    answer, close = self.answers.pop(0) if self.answers else (b"HTTP/1.1 200 OK\r\n"
                                                                               b"Content-Length: 2\r\n\r\nok", False)
                conn.sendall(answer)
                if close or self.close_idle:
                    return

    def stop(self):
        self.sock.close()


ANSWERS = {
    "length": b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nX-A: 2\r\nX-Trail:  v  \r\n\r\nhello",
    "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n"
               b"X-T: 1\r\n\r\n",
    "close-delimited": b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the close",
    "no-content": b"HTTP/1.1 204 No Content\r\nX-B: b\r\n\r\n",
    "not-modified": b"HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n",
    "continue": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 302 Found\r\nLocation: http://h/x\r\nContent-Length: 0\r\n\r\n",
    "upgrade": b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x02hi",
    "folded": b"HTTP/1.1 200 OK\r\nX-F: a\r\n  b\r\nContent-Length: 0\r\n\r\n",
    "not-a-header": b"HTTP/1.1 200 OK\r\nX-G: g\r\nnot a header\r\nX-H: h\r\nContent-Length: 0\r\n\r\n",
    "echo": b'HTTP/1.1 200 OK\r\nX-Echo-Backend: b:1\r\nContent-Length: 17\r\n\r\n{"backend":"b:1"}',
    "bad-status": b"HTTP/1.1 abc OK\r\n\r\n",
    "bad-version": b"HTTX/1.1 200 OK\r\n\r\n",
    "truncated": b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort",
    "nothing": b"",
}


def _same(a: Observation, b: Observation) -> None:
    assert (a.status, a.location, a.headers, a.body, a.backend) == (b.status, b.location, b.headers, b.body,
                                                                    b.backend)
    assert bool(a.error) == bool(b.error)
    if a.error:
        assert a.error.split(":")[0] == b.error.split(":")[0], (a.error, b.error)


@pytest.mark.parametrize("kind", sorted(ANSWERS))
@pytest.mark.parametrize("method", ["GET", "HEAD", "POST"])
def test_answers_are_read_as_http_client_reads_them(kind, method):
    """The same Observation (status, Location, headers, body, echo description, kind of error) as the
    http.client-based send verify used before."""
    server = Scripted([(ANSWERS[kind], True), (ANSWERS[kind], True)])
    try:
        probe = Probe(method, "http", "h.example", 80, "/p?q=1", {"X-Req": "1"})
        old = send(probe, server.port, timeout=5)
        new = Client(timeout=5).send(probe, server.port)
        _same(old, new)
        assert server.requests[0] == server.requests[1]       # the same bytes on the wire
    finally:
        server.stop()


def test_a_connection_is_kept_only_for_the_same_host_and_a_clean_answer():
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    server = Scripted([(ok, False)] * 3 + [(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                                           False)] + [(ok, False)] * 6)
    client = Client(timeout=5)
    try:
        get = Probe("GET", "http", "a.example", 80, "/x")
        assert client.send(get, server.port).status == 200
        assert client.send(get, server.port).status == 200
        assert server.connections == 1                         # kept
        assert client.send(Probe("GET", "http", "b.example", 80, "/x"), server.port).status == 200
        assert server.connections == 2                         # another Host: another connection
        client.send(get, server.port)                          # answered with Connection: close
        client.send(get, server.port)
        assert server.connections == 3
        client.send(Probe("POST", "http", "a.example", 80, "/form"), server.port)
        assert server.connections == 4                         # a body goes on a fresh connection
        client.send(get, server.port)
        assert server.connections == 4                         # the GET's connection was still kept
        client.send(Probe("GET", "http", "a.example", 80, "/ws", {"Connection": "Upgrade", "Upgrade": "websocket"}),
                    server.port)
        assert server.connections == 5
        hosts = [r.split(b"\r\n")[1] for r in server.requests]
        assert hosts == [b"Host: a.example"] * 2 + [b"Host: b.example"] + [b"Host: a.example"] * 5
    finally:
        client.close()
        server.stop()


def test_a_kept_connection_the_server_closed_is_replaced_once():
    server = Scripted([], close_idle_after_first=True)
    client = Client(timeout=5)
    try:
        get = Probe("GET", "http", "a.example", 80, "/x")
        answers = [client.send(get, server.port) for _ in range(3)]
        assert [a.status for a in answers] == [200, 200, 200] and not any(a.error for a in answers)
        assert len(server.requests) == 3 and server.connections == 3
    finally:
        client.close()
        server.stop()


def test_replay_keeps_probe_order_and_asks_every_server():
    first, second = Scripted([]), Scripted([])
    try:
        probes = [Probe("GET", "http", "h", 80 + i % 2, f"/{i}") for i in range(60)]
        results = replay(probes, [lambda p: first.port, lambda p: second.port if p == 80 else None], concurrency=7)
        assert len(results) == 60
        for i, (a, b) in enumerate(results):
            assert a.status == 200 and a.sent <= a.at
            assert (b.status == 200) if i % 2 == 0 else (b.error == "no socket for port 81")
        assert len(first.requests) == 60 and len(second.requests) == 30
    finally:
        first.stop()
        second.stop()


def test_clock_gap_spans_both_requests():
    a = Observation(200, sent=100.0, at=100.5)
    n = Observation(200, sent=100.5, at=101.0)
    assert clock_gap(a, n) == 1.0
    assert clock_gap(Observation(at=5.0), Observation(at=7.0)) == 2.0        # no send time: as before
    # Expires one second apart, the answers half a second apart each: the same within the slack
    later = {"expires": ["Thu, 01 Jan 2026 00:00:03 GMT"]}
    earlier = {"expires": ["Thu, 01 Jan 2026 00:00:00 GMT"]}
    comparator = Comparator({}, {})
    probe = Probe("GET", "http", "h", 80, "/")
    assert comparator.diff(probe, Observation(200, headers=earlier, sent=0.0, at=0.1),
                           Observation(200, headers=later, sent=0.2, at=1.5)) == []
    assert comparator.diff(probe, Observation(200, headers=earlier, sent=0.0, at=0.1),
                           Observation(200, headers={"expires": ["Thu, 01 Jan 2026 00:00:09 GMT"]}, sent=0.2, at=1.5))


LOG = """\
10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /a.html HTTP/1.1" 200 12 "-" "curl/8"
10.0.0.1 - - [21/Nov/2026:10:00:01 +0000] "GET /a.html HTTP/1.1" 200 12 "-" "curl/8"
garbage line
10.0.0.2 - - [21/Nov/2026:10:00:02 +0000] "\\x16\\x03\\x01" 400 0 "-" "-"
10.0.0.2 - - [21/Nov/2026:10:00:03 +0000] "-" 408 0 "-" "-"
10.0.0.3 - - [21/Nov/2026:10:00:04 +0000] "HEAD /a.html HTTP/1.1" 200 0 "-" "curl/8"
10.0.0.3 - - [21/Nov/2026:10:00:05 +0000] "GET /private/x.txt HTTP/1.1" 403 10
other.example:80 10.0.0.4 - - [21/Nov/2026:10:00:06 +0000] "GET /a.html HTTP/1.1" 200 12 "-" "-"
other.example:80 10.0.0.4 - - [21/Nov/2026:10:00:07 +0000] "GET /a.html HTTP/1.1" 200 12 "-" "-"
10.0.0.5 - - [21/Nov/2026:10:00:08 +0000] "POST /form HTTP/1.1" 302 0 "-" "-"

10.0.0.5 - - [21/Nov/2026:10:00:09 +0000] "GET /caf\u00e9 HTTP/1.1" 404 0 "-" "-"
"""


def test_access_log_counts_duplicates_and_junk():
    log = read_access_log(LOG, "site.example", 80)
    assert (log.lines, log.parsed) == (12, 7)      # junk, an unsendable target and a blank line are not requests
    assert [p.line() for p in log.requests] == [
        "GET http://site.example:80/a.html", "HEAD http://site.example:80/a.html",
        "GET http://site.example:80/private/x.txt", "GET http://other.example:80/a.html",
        "POST http://site.example:80/form"]
    assert log.statuses == [200, 200, 403, 200, 302]
    assert log.select(None) == log.requests and log.select(10) == log.requests
    report = log.report(2, 2)
    assert report["distinct"] == 5 and report["replayed"] == 2 and report["not_replayed"] == 3


def test_a_logged_port_the_configuration_listens_on_is_kept():
    text = ('secure.example:443 10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"\n'
            'alt.example:8080 10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"\n'
            'gone.example:9999 10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"\n')
    log = read_access_log(text, "site.example", 80, "http", {80: "http", 443: "https", 8080: "http"})
    assert [(p.scheme, p.host, p.port) for p in log.requests] == [
        ("https", "secure.example", 443), ("http", "alt.example:8080", 8080), ("http", "gone.example", 80)]


def test_the_default_selection_covers_hosts_status_classes_and_paths():
    lines = []
    for i in range(3000):
        lines.append(f'10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /img/{i}.png HTTP/1.1" 200 1 "-" "-"')
    lines.append('10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "POST /login HTTP/1.1" 401 1 "-" "-"')
    lines.append('10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /admin/ HTTP/1.1" 403 1 "-" "-"')
    lines.append('10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /old HTTP/1.1" 301 1 "-" "-"')
    lines += [f'api.example:80 10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /v1/{i} HTTP/1.1" 200 1 "-" "-"'
              for i in range(500)]
    log = read_access_log("\n".join(lines), "site.example", 80, "http", {80: "http"})
    chosen = log.select(100)
    paths = [p.path for p in chosen]
    assert len(chosen) == 100
    assert {"/login", "/admin/", "/old"} <= set(paths)                   # every status class
    assert sum(p.host == "api.example" for p in chosen) == 50             # hosts take turns
    assert paths[:3] == ["/img/0.png", "/img/1.png", "/img/2.png"]       # replayed in log order
    assert chosen == sorted(chosen, key=log.requests.index)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_a_rate_on_a_terminal_and_nothing_elsewhere():
    quiet = io.StringIO()
    Progress(quiet)("requests", 5, 10)
    assert quiet.getvalue() == ""
    Progress(object())("requests", 5, 10)        # a stream without isatty
    times = iter([0.0, 2.0, 2.05, 4.0])
    term = _Terminal()
    progress = Progress(term, clock=lambda: next(times))
    progress("requests", 0, 100)
    progress("requests", 50, 100)
    progress("requests", 51, 100)                 # within a tenth of a second: not redrawn
    progress("requests", 100, 100)
    out = term.getvalue()
    assert "50/100 (25/s)" in out and "51/100" not in out and "100/100 (25/s)" in out


def test_concurrency_limit_follows_the_servers_limits(tmp_path):
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions
    from apache2nginx.verify.run import concurrency_limit
    conf = tmp_path / "apache.conf"
    conf.write_text("Listen 80\n<VirtualHost *:80>\n    ProxyPass /app http://app.internal:8080/ max=3\n"
                    "</VirtualHost>\n")
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    nginx = tmp_path / "nginx.conf"
    nginx.write_text("events { worker_connections 1024; }\nhttp { server { listen 80; } }\n")
    assert concurrency_limit(result.config, str(nginx))[0] == 3
    assert "max=3" in concurrency_limit(result.config, str(nginx))[1]
    nginx.write_text("events { worker_connections 20; }\nhttp { server { listen 80; } }\n")
    conf.write_text("Listen 80\n")
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(load=LoadOptions(missing_includes="warn")),
                     Diagnostics())
    assert concurrency_limit(result.config, str(nginx))[0] == 5


# ----------------------------------------------------------------------------- with the real servers

SITE = """\
Listen 80
<VirtualHost *:80>
    ServerName site.example
    DocumentRoot /srv/site
    <Directory /srv/site/private>
        Require all denied
    </Directory>
    ExpiresActive On
    ExpiresByType text/html "access plus 1 hour"
</VirtualHost>
<VirtualHost *:80>
    ServerName other.example
    DocumentRoot /srv/other
</VirtualHost>
"""


def _verify(tmp_path: Path, *extra: str, apache_bin: str, nginx_bin: str, cwd: Path | None = None) -> dict:
    proc = run_cli("verify", "apache.conf", *extra, "--format", "json", "--apache", apache_bin, "--nginx-bin",
                   nginx_bin, cwd=cwd or tmp_path, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


def test_report_counts_and_all(tmp_path, apache_bin, nginx_bin):
    (tmp_path / "apache.conf").write_text(SITE)
    lines = LOG.splitlines()
    lines += [f'10.0.0.9 - - [21/Nov/2026:10:00:00 +0000] "GET /many/{i}.html HTTP/1.1" 200 1 "-" "-"'
              for i in range(30)]
    (tmp_path / "access.log").write_text("\n".join(lines) + "\n")
    base = _verify(tmp_path, apache_bin=apache_bin, nginx_bin=nginx_bin)["summary"]["compared"]
    doc = _verify(tmp_path, "--access-log", "access.log", apache_bin=apache_bin, nginx_bin=nginx_bin)
    info = doc["summary"]["access_log"]
    assert info == {"lines": 42, "parsed": 37, "distinct": 35, "replayed": 35, "not_replayed": 0, "cap": 5000,
                    "selection": "all distinct requests"}
    assert doc["summary"]["compared"] == base + 35
    assert doc["replay"]["concurrency"] == 16 and doc["replay"]["seconds"] > 0
    assert doc["summary"]["unexplained"] == 0, doc["differences"]
    everything = _verify(tmp_path, "--access-log", "access.log", "--all", apache_bin=apache_bin,
                         nginx_bin=nginx_bin)
    assert everything["summary"]["access_log"]["cap"] is None
    assert everything["summary"]["access_log"]["replayed"] == 35
    text = run_cli("verify", "apache.conf", "--access-log", "access.log", "--apache", apache_bin, "--nginx-bin",
                   nginx_bin, cwd=tmp_path, timeout=600)
    assert "access log: 42 lines read, 37 requests, 35 distinct, 35 replayed" in text.stdout
    assert "replayed" in text.stdout and "at a time" in text.stdout


def test_the_default_cap_is_said_and_all_lifts_it(tmp_path, apache_bin, nginx_bin):
    from apache2nginx.verify.probes import DEFAULT_REPLAY_CAP
    (tmp_path / "apache.conf").write_text(SITE)
    n = DEFAULT_REPLAY_CAP + 300
    (tmp_path / "access.log").write_text("".join(
        f'10.0.0.9 - - [21/Nov/2026:10:00:00 +0000] "GET /many/{i}.html HTTP/1.1" 200 1 "-" "-"\n'
        for i in range(n)) + 'junk\n')
    capped = _verify(tmp_path, "--access-log", "access.log", apache_bin=apache_bin, nginx_bin=nginx_bin)
    info = capped["summary"]["access_log"]
    assert (info["lines"], info["parsed"], info["distinct"]) == (n + 1, n, n)
    assert (info["replayed"], info["not_replayed"], info["cap"]) == (DEFAULT_REPLAY_CAP, 300, DEFAULT_REPLAY_CAP)
    assert "host, status class, first path segment and path" in info["selection"]
    everything = _verify(tmp_path, "--access-log", "access.log", "--all", apache_bin=apache_bin,
                         nginx_bin=nginx_bin)
    assert everything["summary"]["access_log"]["replayed"] == n
    assert everything["summary"]["compared"] == capped["summary"]["compared"] + 300
    assert everything["summary"]["unexplained"] == 0


@pytest.mark.parametrize("case", ["expires", "proxy-websocket", "tls-vhost", "access-methods"])
def test_concurrent_replay_finds_what_a_sequential_one_finds(case, apache_bin, nginx_bin):
    """The same summary and the same differences, request for request, at concurrency 1 and 16 (Expires and
    max-age, WebSocket upgrades, TLS with SNI, methods with bodies)."""
    directory = ROOT / "fixtures" / "cases" / case
    extra = ["--requests", "requests.txt"] if (directory / "requests.txt").exists() else []
    one = _verify(directory, *extra, "--concurrency", "1", apache_bin=apache_bin, nginx_bin=nginx_bin)
    many = _verify(directory, *extra, "--concurrency", "16", apache_bin=apache_bin, nginx_bin=nginx_bin)
    assert one["replay"]["concurrency"] == 1
    assert one["summary"] == many["summary"]
    assert _timeless(one["differences"]) == _timeless(many["differences"])


def _timeless(differences: list[dict]) -> str:
    """The differences with the values that depend on the clock (HTTP dates, max-age) blanked."""
    text = json.dumps(differences, sort_keys=True)
    text = re.sub(r"\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT", "DATE", text)
    return re.sub(r"max-age=\d+", "max-age=N", text)


def test_benchmark_runs_in_its_tiny_mode(apache_bin, nginx_bin):
    """bench/verify_replay.py --tiny, so that it cannot rot (its figures are not asserted)."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "verify_replay.py"), "--tiny"], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "--all" in proc.stdout and "compared/s" in proc.stdout and "load average" in proc.stdout


def test_generated_probes_encode_what_a_configured_path_cannot_hold_raw(tmp_path):
    """A <Directory> or <Location> path holding a space or a `%` (decoded, as httpd matches it) is probed with
    the URL a client sends for it, and a request line no client could send is an observation of its own error,
    never a crash of the replay."""
    from conftest import load_text
    from apache2nginx.verify.client import request_bytes
    from apache2nginx.verify.probes import generate
    config, _ = load_text(tmp_path, "Listen 80\n<VirtualHost *:80>\nServerName t.test\nDocumentRoot /srv/www\n"
                                 "<Directory \"/srv/www/my docs\">\nRequire all denied\n</Directory>\n"
                                 "<Location \"/50%\">\nRequire all denied\n</Location>\n</VirtualHost>\n")
    paths = [p.path for p in generate(config)]
    assert "/my%20docs/a.txt" in paths and "/50%25/" in paths
    for probe in generate(config):
        request_bytes(probe)
    answer = Client().send(Probe("GET", "http", "t.test", 80, "/a b"), 1)
    assert answer.error and "control characters" in answer.error
