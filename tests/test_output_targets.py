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


def test_out_dir_refuses_a_symlinked_subdirectory_that_leads_outside(tmp_path: Path):
    """A link planted in the output tree (out/conf.d -> ../elsewhere) must not carry the write outside."""
    (tmp_path / "ap" / "sites-enabled").mkdir(parents=True)
    (tmp_path / "ap" / "apache2.conf").write_text("Listen 80\nIncludeOptional sites-enabled/*.conf\n")
    (tmp_path / "ap" / "sites-enabled" / "a.conf").write_text(
        "<VirtualHost *:80>\nServerName a\nDocumentRoot /srv/x\n</VirtualHost>\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "conf.d").symlink_to("../elsewhere")
    proc = run_cli("convert", "ap/apache2.conf", "--out-dir", "out", cwd=tmp_path)
    assert_no_traceback(proc)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "leads outside out" in proc.stderr
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert not (tmp_path / "out" / "nginx.conf").exists()


def test_a_file_name_that_is_not_utf8_reaches_out_dir_as_its_bytes(tmp_path: Path):
    """Linux file names are bytes: a name that is not UTF-8 is read as surrogate escapes and reaches the
    generated text in its source comments; the written file holds the name's bytes, as standard output does."""
    site = Path(os.fsdecode(bytes(tmp_path) + b"/site\xff.conf"))
    site.write_text("<VirtualHost *:80>\nServerName a\nDocumentRoot /srv/x\n</VirtualHost>\n")
    out = tmp_path / "o"
    proc = run_cli("convert", str(site), "--out-dir", str(out))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    written = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"site\xff.conf" in written
