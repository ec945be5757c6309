"""convert's -o on targets that are not regular files: a pipe, or a link to the process's own descriptor
(/dev/stdout), is written into and never replaced by a regular file of the same name (a rename over
/dev/null as root destroyed the device node); a block device is refused."""
from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from conftest import FIXTURES, assert_no_traceback, run_cli

CASE = FIXTURES / "cases" / "class-rewrite-directory-alias" / "apache.conf"


def test_a_pipe_target_is_written_into_and_stays_a_pipe(tmp_path: Path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    proc = run_cli("convert", str(CASE), "-o", str(fifo))
    reader.join(timeout=30)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert b"server {" in received[0]


def test_a_link_to_the_own_stdout_writes_to_stdout_and_stays_a_link(tmp_path: Path):
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    proc = run_cli("convert", str(CASE), "-o", str(link))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert "server {" in proc.stdout
