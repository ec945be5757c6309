"""The HTTP/1.1 client verify sends its requests with, and the concurrent replay of a request list to several
servers at once.

`Client.send` writes the request exactly as verify always has (request line, the Host header when the probe
has one, the probe's own headers in order, a `Content-Length` and the body `a=1&b=2` for POST and PUT; TLS with
the Host name as SNI and no certificate check) and reads the answer as http.client does (a `100 Continue`
skipped; the body by Content-Length, chunked or up to the close; none for HEAD, 1xx, 204 and 304; header names
lower-cased, values as sent but for leading blanks; the same exceptions for the same faults).

A connection is kept for the next request of the same worker only when nothing about it can differ from a fresh
one: the key is the port, the scheme and the whole Host header (so SNI and Host are what a new connection would
carry); only a GET or HEAD without a body and without its own Connection, Upgrade or framing header uses or
leaves a kept connection (any other request goes on a fresh one, closed after its answer); the answer was final
(2xx-5xx), delimited by its length or chunked, did not close, and nothing followed it. A kept connection the
server has closed meanwhile (keep-alive timeout, its request limit) fails before any byte of an answer arrives:
the request is then sent again once on a fresh connection, which is what the server would have seen without
reuse (so is any other failure on a kept connection: the answer that counts is the one a fresh connection gets).

`replay` sends every probe to each server in turn (httpd, then nginx) from a bounded pool of worker threads,
each with its own connections, and returns the answers in probe order; every request has a timeout.
"""
from __future__ import annotations

import http.client
import re
import socket
import ssl
import threading
import time
from collections import OrderedDict
from typing import Callable, Sequence

from .compare import Observation, observation
from .probes import Probe

MAX_LINE = 65536            # http.client's _MAXLINE: the longest status or header line
MAX_HEADERS = 100           # http.client's _MAXHEADERS
KEPT_PER_WORKER = 8         # connections a worker keeps open (least recently used closed first)
BODY_METHODS = ("POST", "PUT")
BODY = b"a=1&b=2"

# http.client's checks, so that a request it would refuse is refused here too (as an error, not a crash)
_BAD_METHOD = re.compile("[\x00-\x1f]")
_BAD_TARGET = re.compile("[\x00-\x20\x7f]")
_GOOD_NAME = re.compile(rb"[^:\s][^:\r\n]*")
_BAD_VALUE = re.compile(rb"\n(?![ \t])|\r(?![ \t\n])")
_NAME = re.compile("[\x21-\x39\x3b-\x7e]*")     # a header name as the email parser's headerRE takes it

_tls_lock = threading.Lock()
_tls_context: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    """The client TLS context, made once: the default one with the certificate check off."""
    global _tls_context
    with _tls_lock:
        if _tls_context is None:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            _tls_context = ctx
        return _tls_context


def request_bytes(probe: Probe) -> bytes:
    """The bytes of PROBE's request, or ValueError where http.client would refuse it."""
    if _BAD_METHOD.search(probe.method):
        raise ValueError(f"method can't contain control characters. {probe.method!r}")
    if _BAD_TARGET.search(probe.path):
        raise ValueError(f"URL can't contain control characters. {probe.path!r}")
    lines = [f"{probe.method} {probe.path} HTTP/1.1".encode("ascii")]
    headers = ([("Host", probe.host)] if probe.host else []) + list(probe.headers.items())
    body = BODY if probe.method in BODY_METHODS else None
    if body is not None:
        headers.append(("Content-Length", str(len(body))))
    for name, value in headers:
        raw_name = name.encode("ascii")
        raw_value = str(value).encode("latin-1")
        if not _GOOD_NAME.fullmatch(raw_name):
            raise ValueError(f"Invalid header name {raw_name!r}")
        if _BAD_VALUE.search(raw_value):
            raise ValueError(f"Invalid header value {raw_value!r}")
        lines.append(raw_name + b": " + raw_value)
    return b"\r\n".join(lines) + b"\r\n\r\n" + (body or b"")


class _Connection:
    """One socket and what was read from it but not used yet."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = bytearray()
        self.answers = 0            # answers read on it (a kept connection has at least one)

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        if data:
            self.buf += data
        return bool(data)

    def readline(self, what: str) -> bytes:
        """A line with its end, or what is left at the close (b"" for nothing)."""
        start = 0
        while True:
            end = self.buf.find(b"\n", start)
            if end >= 0:
                if end >= MAX_LINE:
                    raise http.client.LineTooLong(what)
                line = bytes(self.buf[:end + 1])
                del self.buf[:end + 1]
                return line
            if len(self.buf) > MAX_LINE:
                raise http.client.LineTooLong(what)
            start = len(self.buf)
            if not self._fill():
                line = bytes(self.buf)
                self.buf.clear()
                return line

    def read(self, n: int) -> bytes:
        while len(self.buf) < n:
            if not self._fill():
                raise http.client.IncompleteRead(bytes(self.buf), n - len(self.buf))
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def read_to_close(self) -> bytes:
        while self._fill():
            pass
        data = bytes(self.buf)
        self.buf.clear()
        return data

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class _Answer:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes, reusable: bool):
        self.status, self.headers, self.body, self.reusable = status, headers, body, reusable


def _read_headers(conn: _Connection) -> list[str]:
    lines: list[str] = []
    while True:
        line = conn.readline("header line")
        if line in (b"\r\n", b"\n", b""):
            return lines
        lines.append(line.decode("iso-8859-1"))
        if len(lines) > MAX_HEADERS:
            raise http.client.HTTPException(f"got more than {MAX_HEADERS} headers")


def _parse_headers(lines: list[str]) -> list[tuple[str, str]]:
    """(name, value) as http.client's email parser gives them: a line starting with a blank continues the
    one before; the value loses its leading blanks and its line end."""
    out: list[list[str]] = []
    for line in lines:
        if line[:1] in (" ", "\t"):
            if out:
                out[-1][1] += line
            continue        # (a continuation with nothing before it is dropped)
        name, sep, value = line.partition(":")
        if not sep or not _NAME.fullmatch(name):
            break       # not a header: the email parser takes the rest for a body
        out.append([name, value.lstrip(" \t")])
    return [(name, value.rstrip("\r\n")) for name, value in out]


def _first(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _read_chunked(conn: _Connection) -> bytes:
    parts = []
    while True:
        line = conn.readline("chunk size")
        size_text = line.split(b";", 1)[0]
        try:
            size = int(size_text, 16)
        except ValueError:
            raise http.client.IncompleteRead(b"".join(parts)) from None
        if size == 0:
            while conn.readline("trailer line") not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(conn.read(size))
        conn.read(2)


def read_answer(conn: _Connection, method: str) -> _Answer:
    """Read one answer as http.client's HTTPResponse.begin() and read() do."""
    while True:
        line = conn.readline("status line").decode("iso-8859-1")
        if not line:
            raise http.client.RemoteDisconnected("Remote end closed connection without response")
        try:
            version, status_text, _ = line.split(None, 2)
        except ValueError:
            try:
                version, status_text = line.split(None, 1)
            except ValueError:
                raise http.client.BadStatusLine(line) from None
        if not version.startswith("HTTP/"):
            raise http.client.BadStatusLine(line)
        try:
            status = int(status_text)
        except ValueError:
            raise http.client.BadStatusLine(line) from None
        if status < 100 or status > 999:
            raise http.client.BadStatusLine(line)
        if status != 100:
            break
        _read_headers(conn)     # 100 Continue: skipped, as http.client does
    if version in ("HTTP/1.0", "HTTP/0.9"):
        http11 = False
    elif version.startswith("HTTP/1."):
        http11 = True
    else:
        raise http.client.UnknownProtocol(version)
    headers = _parse_headers(_read_headers(conn))
    encoding = _first(headers, "transfer-encoding")
    chunked = bool(encoding) and encoding.lower() == "chunked"
    connection = (_first(headers, "connection") or "").lower()
    if http11:
        will_close = "close" in connection
    else:
        will_close = not (_first(headers, "keep-alive") or "keep-alive" in connection
                          or "keep-alive" in (_first(headers, "proxy-connection") or "").lower())
    length: int | None = None
    declared = _first(headers, "content-length")
    if declared and not chunked:
        try:
            length = int(declared)
        except ValueError:
            length = None
        else:
            if length < 0:
                length = None
    if status in (204, 304) or 100 <= status < 200 or method == "HEAD":
        length = 0
    if not chunked and length is None:
        will_close = True
    if length is not None:
        body = conn.read(length)
    elif chunked:
        body = _read_chunked(conn)
    else:
        body = conn.read_to_close()
    return _Answer(status, headers, body, reusable=not will_close and status >= 200)


class Client:
    """One worker's connections (see the module's docstring for when one is kept)."""

    def __init__(self, timeout: float = 10):
        self.timeout = timeout
        self.kept: OrderedDict[tuple, _Connection] = OrderedDict()

    def _connect(self, probe: Probe, port: int) -> _Connection:
        sock = socket.create_connection(("127.0.0.1", port), self.timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if probe.scheme == "https":
                sock = tls_context().wrap_socket(sock, server_hostname=probe.server_name or None)
        except BaseException:
            sock.close()
            raise
        return _Connection(sock)

    def send(self, probe: Probe, port: int) -> Observation:
        sent = time.time()
        try:
            data = request_bytes(probe)
        except (ValueError, UnicodeError) as exc:
            return Observation(error=f"{type(exc).__name__}: {exc}", at=sent)
        key = (port, probe.scheme, probe.host)
        keep = (probe.method in ("GET", "HEAD") and not any(k.lower() in ("connection", "upgrade", "content-length",
                                                                          "transfer-encoding")
                                                            for k in probe.headers))
        conn = self.kept.pop(key, None) if keep else None
        try:
            while True:
                fresh = conn is None
                if fresh:
                    conn = self._connect(probe, port)
                try:
                    conn.sock.sendall(data)
                    answer = read_answer(conn, probe.method)
                    break
                except (OSError, http.client.HTTPException):
                    if fresh:
                        raise
                    conn.close()        # a kept connection the server closed meanwhile: once more, afresh
                    conn = None
        except (OSError, http.client.HTTPException) as exc:
            if conn is not None:
                conn.close()
            return Observation(error=f"{type(exc).__name__}: {exc}", at=time.time())
        at = time.time()
        conn.answers += 1
        if keep and answer.reusable and not conn.buf:
            self.kept[key] = conn
            while len(self.kept) > KEPT_PER_WORKER:
                self.kept.popitem(last=False)[1].close()
        else:
            conn.close()
        return observation(answer.status, answer.headers, answer.body, at, sent)

    def close(self) -> None:
        while self.kept:
            self.kept.popitem()[1].close()


def replay(probes: Sequence[Probe], port_fors: Sequence[Callable[[int], int | None]], concurrency: int = 1,
           progress: Callable | None = None, timeout: float = 10) -> list[tuple[Observation, ...]]:
    """Every probe sent to every server (port_fors: for each server, the sandbox port of an original port), the
    servers in turn for one probe, CONCURRENCY probes at once; the answers in probe order. PROGRESS is called
    from this thread with (a stage message, done, total) as the answers come."""
    total = len(probes)
    results: list[tuple[Observation, ...] | None] = [None] * total
    ports = [dict() for _ in port_fors]
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "stop": False}
    failures: list[BaseException] = []

    def port(server: int, original: int) -> int | None:
        cache = ports[server]
        if original not in cache:
            cache[original] = port_fors[server](original)
        return cache[original]

    def work() -> None:
        client = Client(timeout)
        try:
            while True:
                with lock:
                    i = state["next"]
                    if i >= total or state["stop"]:
                        return
                    state["next"] = i + 1
                probe = probes[i]
                answers = []
                for server in range(len(port_fors)):
                    sandbox_port = port(server, probe.port)
                    answers.append(client.send(probe, sandbox_port) if sandbox_port
                                   else Observation(error=f"no socket for port {probe.port}"))
                results[i] = tuple(answers)
                with lock:
                    state["done"] += 1
        except BaseException as exc:    # a bug, not a failed request: stop everything and raise it
            with lock:
                state["stop"] = True
            failures.append(exc)
        finally:
            client.close()

    workers = [threading.Thread(target=work, name=f"verify-replay-{n}", daemon=True)
               for n in range(max(1, min(concurrency, total)))]
    for t in workers:
        t.start()
    try:
        for t in workers:
            while t.is_alive():
                t.join(0.2)
                if progress is not None:
                    progress("requests to httpd and nginx", state["done"], total)
    except BaseException:
        with lock:
            state["stop"] = True
        raise
    if failures:
        raise failures[0]
    if progress is not None:
        progress("requests to httpd and nginx", total, total)
    return results  # type: ignore[return-value]
