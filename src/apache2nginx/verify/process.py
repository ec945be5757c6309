"""Starting and stopping the servers verify runs: wait for their loopback ports, stop with SIGTERM and
wait (a SIGKILLed httpd parent would leave a child holding the port), never leave a process behind."""
from __future__ import annotations

import signal
import socket
import subprocess
import time


def wait_for_ports(ports: set[int], proc: subprocess.Popen | None = None, timeout: float = 15) -> set[int]:
    """Wait until every port accepts connections; returns those that never did (empty on success)."""
    pending = set(ports)
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            break
        for port in list(pending):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    pending.discard(port)
        if pending:
            time.sleep(0.02)
    return pending


def stop_process(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
