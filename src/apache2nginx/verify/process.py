"""Starting and stopping the servers verify runs: wait for their loopback ports, stop with SIGTERM and
wait (a SIGKILLed httpd parent would leave a child holding the port), never leave a process behind."""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from typing import Callable


def wait_for_ports(ports: set[int], proc: subprocess.Popen | None = None, timeout: float = 15,
                   ready: Callable[[], bool] | None = None) -> set[int]:
    """Wait until every port accepts connections and `ready()` holds; returns the ports that never did
    (all of them when the process died or `ready` never held; empty on success).

    An accepting port alone is not proof: httpd binds its listeners before its post-config hooks
    (mod_ssl's certificate checks among them) run, and may still exit after the kernel has accepted
    a connection."""
    pending = set(ports)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return set(ports)
        for port in list(pending):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    pending.discard(port)
        if not pending and (ready is None or ready()):
            return set()
        time.sleep(0.02)
    return pending or set(ports)


def stop_process(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
