"""Echo backends that stand in for every real backend during `verify`.

One helper process serves one loopback port per distinct backend. Each answers
with its identity (the original `host:port` it replaces) and what it
received: method, path with query, HTTP version, headers and body, so the
requests Apache and nginx send can be compared field by field. A backend can
be declared down: its port is reserved but nothing answers.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

ECHO_PROGRAM = textwrap.dedent('''
    import json, socket, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    def handler(identity):
        class Echo(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("latin-1") if length else ""
                payload = json.dumps({"backend": identity, "method": self.command, "path": self.path,
                                      "version": self.request_version,
                                      "headers": [[k, v] for k, v in self.headers.items()],
                                      "body": body}, sort_keys=True).encode()
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

    ports = {}
    for spec in sys.argv[1:]:
        identity, _, state = spec.partition("=")
        if state == "down":
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))   # reserved, never listening: connections are refused
            ports[identity] = sock.getsockname()[1]
            continue
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler(identity))
        server.daemon_threads = True
        ports[identity] = server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps(ports), flush=True)
    sys.stdin.read()   # serve until the parent closes stdin or terminates us
''')


class EchoBackends:
    """A running set of echo backends: `ports[identity]` is the loopback port standing in for it."""

    def __init__(self, identities: list[str], down: set[str] | None = None):
        specs = [f"{i}=down" if i in (down or set()) else i for i in identities]
        self.proc = subprocess.Popen([sys.executable, "-c", ECHO_PROGRAM, *specs], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line:
            self.stop()
            raise RuntimeError("the echo backends did not start")
        self.ports: dict[str, int] = json.loads(line)

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

    def __enter__(self) -> "EchoBackends":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
