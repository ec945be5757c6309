"""Echo backends that stand in for every real backend during `verify`.

One helper process serves one loopback port per distinct backend. Each answers
with its identity (the original `host:port` it replaces) and what it
received: method, path with query, HTTP version, headers and body, so the
requests Apache and nginx send can be compared field by field. A backend can
be declared down: its port is reserved but nothing answers.

A backend spoken to in FastCGI (`fcgi://`) gets the same description in a FastCGI answer, one spoken to in uwsgi
(`uwsgi://`: a 4-byte header, then the variables, then the body) in the raw HTTP answer uwsgi sends.
A backend reached over TLS (`https://`, `wss://`) is stood in for by one that speaks TLS, with a generated
certificate naming 127.0.0.1, localhost and the original host. Every backend accepts a WebSocket upgrade: it
answers 101 Switching Protocols, sends the same JSON description in one text frame, then closes the
connection, so a `ws://`/`wss://` backend's answer shows what each server sent it.
"""
from __future__ import annotations

import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

ECHO_PROGRAM = textwrap.dedent(r'''
    import base64, hashlib, json, socket, ssl, struct, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def frame(opcode, payload):
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([n])
        elif n < 65536:
            head += bytes([126]) + struct.pack("!H", n)
        else:
            head += bytes([127]) + struct.pack("!Q", n)
        return head + payload

    def fcgi_record(kind, request_id, content):
        return struct.pack("!BBHHBB", 1, kind, request_id, len(content), 0, 0) + content

    def fcgi_pairs(data):
        out, i = {}, 0
        while i < len(data):
            lengths = []
            for _ in range(2):
                if data[i] < 128:
                    lengths.append(data[i])
                    i += 1
                else:
                    lengths.append(struct.unpack("!I", data[i:i + 4])[0] & 0x7FFFFFFF)
                    i += 4
            name = data[i:i + lengths[0]].decode("latin-1")
            value = data[i + lengths[0]:i + lengths[0] + lengths[1]].decode("latin-1")
            out[name] = value
            i += lengths[0] + lengths[1]
        return out

    def handler(identity):
        class Echo(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True     # headers and body leave at once, not 40 ms apart (delayed ACK)
            def setup(self):
                if isinstance(self.request, ssl.SSLSocket):
                    self.request.settimeout(10)
                    self.request.do_handshake()    # in this request's thread, never the accepting one
                super().setup()
            def handle(self):
                if not isinstance(self.request, ssl.SSLSocket):
                    self.request.settimeout(10)
                    try:
                        first = self.request.recv(1, socket.MSG_PEEK)
                    except OSError:
                        return
                    if first == b"\x01":     # a FastCGI record (fcgi:// backends): answer in FastCGI
                        return self.fastcgi()
                    if first == b"\x00":     # a uwsgi packet (modifier1 0, WSGI): answer raw HTTP
                        return self.uwsgi()
                super().handle()
            def uwsgi(self):
                read = self.rfile.read
                head = read(4)
                if len(head) < 4:
                    return
                size = struct.unpack("<H", head[1:3])[0]
                data, env, i = read(size), {}, 0
                while i + 2 <= len(data):
                    n = struct.unpack("<H", data[i:i + 2])[0]
                    key = data[i + 2:i + 2 + n].decode("latin-1")
                    i += 2 + n
                    m = struct.unpack("<H", data[i:i + 2])[0] if i + 2 <= len(data) else 0
                    env[key] = data[i + 2:i + 2 + m].decode("latin-1")
                    i += 2 + m
                length = int(env.get("CONTENT_LENGTH") or 0)
                body = read(length) if length else b""
                self.describe(env, body)
                payload = self.described
                out = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                       + str(len(payload)).encode() + b"\r\nX-Echo-Backend: " + identity.encode() + b"\r\n\r\n"
                       + (b"" if env.get("REQUEST_METHOD") == "HEAD" else payload))
                self.wfile.write(out)
                self.wfile.flush()
                self.close_connection = True
            def describe(self, env, body):
                """What a gateway (FastCGI, uwsgi) request carried, from its CGI variables."""
                headers = [[k[5:].replace("_", "-").title(), v] for k, v in env.items() if k.startswith("HTTP_")]
                for k in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                    if env.get(k):
                        headers.append([k.replace("_", "-").title(), env[k]])
                self.described = json.dumps({"backend": identity, "method": env.get("REQUEST_METHOD", ""),
                                             "path": env.get("REQUEST_URI", env.get("SCRIPT_NAME", "")),
                                             "version": env.get("SERVER_PROTOCOL", ""), "headers": headers,
                                             "body": body.decode("latin-1")}, sort_keys=True).encode()
            def fastcgi(self):
                params, body, request_id = b"", b"", 1
                read = self.rfile.read
                while True:
                    head = read(8)
                    if len(head) < 8:
                        return
                    _, kind, request_id, length, padding, _ = struct.unpack("!BBHHBB", head)
                    content = read(length)
                    read(padding)
                    if kind == 4:
                        params += content
                    elif kind == 5:
                        if not content:
                            break
                        body += content
                self.describe(fcgi_pairs(params), body)
                payload = self.described
                out = (b"Status: 200 OK\r\nContent-Type: application/json\r\nX-Echo-Backend: "
                       + identity.encode() + b"\r\n\r\n" + payload)
                records = b"".join(fcgi_record(6, request_id, out[i:i + 65535]) for i in range(0, len(out), 65535))
                records += fcgi_record(6, request_id, b"") + fcgi_record(3, request_id, bytes(8))
                self.wfile.write(records)
                self.wfile.flush()
                self.close_connection = True
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("latin-1") if length else ""
                payload = json.dumps({"backend": identity, "method": self.command, "path": self.path,
                                      "version": self.request_version,
                                      "headers": [[k, v] for k, v in self.headers.items()],
                                      "body": body}, sort_keys=True).encode()
                upgrade = (self.headers.get("Upgrade") or "").lower()
                key = self.headers.get("Sec-WebSocket-Key")
                if "websocket" in upgrade and key:
                    accept = base64.b64encode(hashlib.sha1((key.strip() + GUID).encode()).digest()).decode()
                    self.send_response(101)
                    self.send_header("Upgrade", "websocket")
                    self.send_header("Connection", "Upgrade")
                    self.send_header("Sec-WebSocket-Accept", accept)
                    self.send_header("X-Echo-Backend", identity)
                    self.end_headers()
                    self.wfile.write(frame(0x1, payload) + frame(0x8, struct.pack("!H", 1000)))
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("X-Echo-Backend", identity)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = answer
            def log_message(self, *args):
                pass
        return Echo

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 512    # both servers connect at once under a concurrent replay
        def handle_error(self, request, client_address):
            pass    # a client gone or a failed TLS handshake: nothing to report

    spec = json.loads(sys.argv[1])
    context = None
    if spec["cert"]:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(spec["cert"], spec["key"])
    ports = {}
    for identity, state in spec["backends"]:
        if state == "down":
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))   # reserved, never listening: connections are refused
            ports[identity] = sock.getsockname()[1]
            continue
        server = Server(("127.0.0.1", 0), handler(identity))
        if state == "tls":
            server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        ports[identity] = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps(ports), flush=True)
    sys.stdin.read()   # serve until the parent closes stdin or terminates us
''')


def _san(identities) -> str:
    names = ["DNS:localhost", "IP:127.0.0.1"]
    for identity in identities:
        host = identity.rsplit(":", 1)[0].strip("[]")
        if not host or host.startswith("unix"):
            continue
        try:
            ipaddress.ip_address(host)
            entry = f"IP:{host}"
        except ValueError:
            if not all(c.isalnum() or c in "-._*" for c in host):
                continue
            entry = f"DNS:{host}"
        if entry not in names:
            names.append(entry)
    return ",".join(names)


class EchoBackends:
    """A running set of echo backends: `ports[identity]` is the loopback port standing in for it. `tls`: the
    identities that speak TLS."""

    def __init__(self, identities: list[str], down: set[str] | None = None, tls: set[str] | None = None):
        tls = {i for i in (tls or set()) if i in identities}
        self.certdir: str | None = None
        cert = key = ""
        if tls:
            self.certdir = tempfile.mkdtemp(prefix="a2n-echo-")
            cert, key = os.path.join(self.certdir, "echo.crt"), os.path.join(self.certdir, "echo.key")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                            "-days", "2", "-addext", f"subjectAltName={_san(sorted(tls))}", "-keyout", key,
                            "-out", cert], check=True, capture_output=True, timeout=60)
        backends = [[i, "down" if i in (down or set()) else "tls" if i in tls else "plain"] for i in identities]
        spec = json.dumps({"backends": backends, "cert": cert, "key": key})
        self.proc = subprocess.Popen([sys.executable, "-c", ECHO_PROGRAM, spec], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self._ports: dict[str, int] | None = None
        self.tls = tls

    @property
    def ports(self) -> dict[str, int]:
        """identity -> loopback port, once the helper has bound them (it starts while the caller does other
        work: asking waits for it)."""
        if self._ports is None:
            line = self.proc.stdout.readline() if self.proc.stdout else ""
            if not line:
                self.stop()
                raise RuntimeError("the echo backends did not start")
            self._ports = json.loads(line)
        return self._ports

    def address(self, identity: str) -> str:
        return f"127.0.0.1:{self.ports[identity]}"

    def identity_of_port(self, port: int) -> str | None:
        return next((i for i, p in self.ports.items() if p == port), None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if self.certdir:
            shutil.rmtree(self.certdir, ignore_errors=True)
            self.certdir = None

    def __enter__(self) -> "EchoBackends":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def nginx_tls_backends(path: str) -> set[str]:
    """host:port of the backends an nginx file reaches over TLS: `proxy_pass https://host[:port]`, and every
    server of an upstream it reaches that way."""
    import crossplane
    try:
        payload = crossplane.parse(path, single=True, comments=False, check_ctx=False, check_args=False)
    except Exception:   # an unreadable file is nginx's to report
        return set()
    parsed = payload["config"][0]["parsed"] if payload.get("config") else []
    upstreams: dict[str, list[str]] = {}
    targets: list[str] = []
    stack = list(parsed)
    while stack:
        d = stack.pop()
        args = d.get("args", [])
        if d["directive"] == "upstream" and args:
            upstreams[args[0]] = [s["args"][0] for s in d.get("block", []) if s["directive"] == "server"
                                  and s.get("args")]
        elif d["directive"] == "proxy_pass" and args and args[0].lower().startswith("https://") \
                and "$" not in args[0]:
            targets.append(args[0].split("://", 1)[1].split("/", 1)[0])
        stack.extend(d.get("block", []))
    out = set()
    for target in targets:
        # (an upstream's server without a port is known by port 80, as verify collects them)
        default = "80" if target in upstreams else "443"
        for host in upstreams.get(target, [target]):
            if not host.startswith("unix:"):
                out.add(host if ":" in host.rsplit("]", 1)[-1] else f"{host}:{default}")
    return out
