"""Real servers on loopback for behaviour tests: an echo backend, httpd and nginx.

Everything binds 127.0.0.1 on free high ports, runs under a temporary prefix,
and is stopped with SIGTERM and waited for (a context manager guarantees it,
even when a test fails). No traffic leaves the machine.
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path

from apache2nginx.verify.process import stop_process, wait_for_ports

ECHO_SERVER = textwrap.dedent('''
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    NAME = sys.argv[1]
    class Echo(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("latin-1") if length else ""
            payload = json.dumps({"backend": NAME, "method": self.command, "path": self.path,
                                  "version": self.request_version,
                                  "headers": [[k, v] for k, v in self.headers.items()], "body": body}).encode()
            status = 200
            if self.path.startswith("/status/"):
                status = int(self.path.split("/")[2][:3])
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if "redirect-me" in self.path:
                self.send_header("Location", "http://" + self.headers.get("Host", "") + "/moved")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = _answer
        def log_message(self, *args):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    print(server.server_address[1], flush=True)
    server.serve_forever()
''')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    if wait_for_ports({port}, None, timeout):
        raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


stop = stop_process


@contextmanager
def echo_backend(name: str):
    proc = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, name], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline())
        yield port
    finally:
        stop(proc)


APACHE_MODULES = ["mpm_event", "authz_core", "authz_host", "mime", "dir", "alias", "headers", "proxy",
                  "proxy_http", "proxy_balancer", "slotmem_shm", "lbmethod_byrequests", "ratelimit", "env",
                  "setenvif", "expires", "deflate", "filter", "remoteip"]


@contextmanager
def apache(config: str, apache_bin: str, port: int, modules: tuple[str, ...] = ()):
    """Run httpd with `config` (which must Listen on 127.0.0.1:port), loading `modules` besides the usual set."""
    prefix = Path(tempfile.mkdtemp(prefix="a2n-httpd-"))
    os.chmod(prefix, 0o755)
    (prefix / "logs").mkdir()
    modules = "\n".join(f"LoadModule {m}_module /usr/lib/apache2/modules/mod_{m}.so"
                        for m in APACHE_MODULES + [m for m in modules if m not in APACHE_MODULES])
    user = "User www-data\nGroup www-data\n" if os.geteuid() == 0 else ""
    conf = prefix / "httpd.conf"
    conf.write_text(f"ServerRoot {prefix}\nPidFile {prefix}/httpd.pid\nMutex file:{prefix} default\n"
                    f"DefaultRuntimeDir {prefix}\nErrorLog {prefix}/logs/error.log\nServerName localhost\n"
                    f"{user}{modules}\nTypesConfig /etc/mime.types\n{config}\n")
    proc = subprocess.Popen([apache_bin, "-f", str(conf), "-DFOREGROUND"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        try:
            wait_for_port(port)
        except TimeoutError:
            stop(proc)
            raise RuntimeError("httpd did not start: " + (proc.stderr.read() if proc.stderr else "") +
                               (prefix / "logs" / "error.log").read_text())
        yield
    finally:
        stop(proc)
        shutil.rmtree(prefix, ignore_errors=True)


@contextmanager
def fcgiwrap(binary: str, socket_path: str):
    """Run fcgiwrap (a FastCGI server that runs CGI programs) on a Unix socket both servers' workers can use."""
    proc = subprocess.Popen([binary, "-s", f"unix:{socket_path}"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):                    # bounded: fcgiwrap creates its socket at once
            if os.path.exists(socket_path):
                break
            time.sleep(0.05)
        os.chmod(socket_path, 0o777)
        yield
    finally:
        stop(proc)


FASTCGI_COUNTER = textwrap.dedent('''
    import os, socket, struct, sys, threading
    path = sys.argv[1]
    count = iter(range(1, 1 << 30))
    def records(conn):
        buf = b""
        while True:
            while len(buf) < 8:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            _, kind, rid, length, pad = struct.unpack(">BBHHB", buf[:7])
            while len(buf) < 8 + length + pad:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            yield kind, rid, buf[8:8 + length]
            buf = buf[8 + length + pad:]
    def record(kind, rid, body):
        return struct.pack(">BBHHBx", 1, kind, rid, len(body), 0) + body
    def serve(conn, number):
        served, keep = 0, 0
        for kind, rid, body in records(conn):
            if kind == 1:
                keep = body[2] & 1
            elif kind == 5 and not body:
                served += 1
                text = f"connection {number} request {served} keep {keep}\\n".encode()
                out = b"Content-Type: text/plain\\r\\n\\r\\n" + text
                conn.sendall(record(6, rid, out) + record(6, rid, b"") + record(3, rid, bytes(8)))
                if not keep:
                    break
        conn.close()
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    os.chmod(path, 0o777)
    server.listen(64)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, next(count)), daemon=True).start()
''')


@contextmanager
def fastcgi_counter(socket_path: str):
    """A FastCGI responder on a Unix socket whose every answer says which connection carried it and how many
    requests that connection has carried, honouring the client's keep-connection flag."""
    proc = subprocess.Popen([sys.executable, "-c", FASTCGI_COUNTER, socket_path], stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        yield
    finally:
        stop(proc)


@contextmanager
def nginx(config_text: str, nginx_bin: str, listen: str):
    """Run nginx on a translated configuration in the lint sandbox; yields the loopback port that stands
    for the configuration's `listen` address `listen`."""
    from apache2nginx.lint.sandbox import Sandbox
    src = Path(tempfile.mkdtemp(prefix="a2n-src-")) / "nginx.conf"
    src.write_text(config_text)
    box = Sandbox()
    errors = box.build(str(src))
    if errors:
        raise RuntimeError(f"sandbox: {errors}")
    port = int(box.sockets[listen].rsplit(":", 1)[1])
    proc = subprocess.Popen([nginx_bin, "-p", str(box.prefix) + "/", "-c", str(box.conf), "-e",
                             str(box.prefix / "logs" / "error.log"), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        try:
            wait_for_port(port)
        except TimeoutError:
            stop(proc)
            raise RuntimeError("nginx did not start: " + (proc.stderr.read() if proc.stderr else ""))
        yield port
    finally:
        stop(proc)
        box.cleanup()
        shutil.rmtree(src.parent, ignore_errors=True)


def request(port: int, path: str, host: str = "localhost", method: str = "GET", headers: dict | None = None):
    """(status, headers as a lower-cased dict of lists, body text) for one request to 127.0.0.1:port."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
        hdrs: dict[str, list[str]] = {}
        for k, v in resp.getheaders():
            hdrs.setdefault(k.lower(), []).append(v)
        return resp.status, hdrs, body
    finally:
        conn.close()


def side_by_side(apache_conf: str, nginx_conf: str, apache_bin: str, nginx_bin: str, port: int, paths,
                 host: str = "localhost", modules: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """Each path's answer from httpd running APACHE_CONF on `port`, then from nginx running NGINX_CONF on the
    same address: ({path: (status, headers, body)}, {...})."""
    with apache(apache_conf, apache_bin, port, modules=modules):
        a = {path: request(port, path, host=host) for path in paths}
    with nginx(nginx_conf, nginx_bin, f"127.0.0.1:{port}") as nport:
        n = {path: request(nport, path, host=host) for path in paths}
    return a, n


def translate(apache_conf: str) -> tuple[str, str]:
    """The nginx text `apache2nginx convert` makes of `apache_conf` (and its diagnostics), as a user runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "apache.conf"
        src.write_text(apache_conf)
        proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", str(src)], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode in (0, 1), proc.stderr
        return proc.stdout, proc.stderr


def backend_view(body: str) -> dict | None:
    try:
        return json.loads(body)
    except ValueError:
        return None
