"""lint on hostile input: an untrusted nginx file (a pull request's) cannot make lint read outside its tree,
load a library, write outside the sandbox, hang or exhaust memory.

Every case runs twice: as root (lint then runs nginx -t as nobody, in a network namespace of its own) and as an
unprivileged user. Each must end with exit 1 and a diagnostic located in the hostile file (file:line:column),
no traceback, and nothing written where the configuration pointed: marker paths under /var/tmp stay absent,
/var/log/nginx/access.log keeps its size and mtime. The library case builds a tiny .so with cc whose
constructor writes a marker file; the marker must never appear.

As root each run happens in a mount namespace of its own with an empty tmpfs over /var/log/nginx (other
processes on the machine may be writing the real access.log): the run must leave it empty, i.e. nginx -t never
opened its compiled-in /var/log/nginx/access.log.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import assert_no_traceback

LEGS = ["root", "unprivileged"]
ACCESS_LOG = Path("/var/log/nginx/access.log")


def _nobody_can_run_python() -> bool:
    return subprocess.run(["runuser", "-u", "nobody", "--", sys.executable, "-c", "import crossplane, click"],
                          capture_output=True, timeout=60).returncode == 0


def run_lint(leg: str, nginx_bin: str, *args: str, timeout: float = 90):
    """lint as a process, as root or as an unprivileged user. When root and nobody cannot reach this
    interpreter (a home directory it cannot enter), nobody runs it with the read-only capability to traverse
    directories (CAP_DAC_READ_SEARCH): every write still happens with nobody's rights."""
    cmd = [sys.executable, "-m", "apache2nginx", "lint", "--nginx", nginx_bin, "--no-gixy", "--diagnostics", "json",
           *args]
    env = {**os.environ, "NO_COLOR": "1"}      # the installed package, as the user runs it
    if leg == "root":
        if os.geteuid() != 0:
            pytest.skip("the root leg needs root")
    elif os.geteuid() == 0:
        if _nobody_can_run_python():
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        else:
            cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                   "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", "--", *cmd]
    listing = None
    if os.geteuid() == 0 and ACCESS_LOG.parent.is_dir() and shutil.which("unshare"):
        listing = Path(tempfile.mkdtemp(prefix="a2n-listing-")) / "ls"
        cmd = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
               'mount -t tmpfs tmpfs "$1" || exit 99; shift 2; "$@"; rc=$?; ls -A "$0" > "$LISTING"; exit $rc',
               str(ACCESS_LOG.parent), str(ACCESS_LOG.parent), "-", *cmd]
        env["LISTING"] = str(listing)
    started = time.monotonic()
    proc = subprocess.run(cmd, cwd="/", capture_output=True, text=True, timeout=timeout, env=env)
    assert time.monotonic() - started < timeout
    assert_no_traceback(proc)
    if listing is not None:
        assert proc.returncode != 99, proc.stderr
        assert listing.read_text() == "", f"written in {ACCESS_LOG.parent}: {listing.read_text()}"
        shutil.rmtree(listing.parent)
    return proc


@pytest.fixture
def hostile(tmp_path_factory):
    """A world-readable directory for the hostile files, and marker paths under /var/tmp that must stay absent."""
    d = Path(tempfile.mkdtemp(prefix="a2n-hostile-"))
    d.chmod(0o755)
    tag = uuid.uuid4().hex[:10]
    markers = {name: Path(f"/var/tmp/a2n-{name}-{tag}") for name in
               ("copy", "so", "cache", "temp", "err", "acc", "pid", "sock", "lock", "outside")}
    yield d, markers
    for p in markers.values():
        if p.name.startswith("a2n-outside"):
            continue
        exists = p.exists()
        if exists:
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink()
        assert not exists, f"{p} was written"
    shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(markers["outside"], ignore_errors=True)


def write(d: Path, name: str, text: str) -> Path:
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    p.chmod(0o644)
    return p


def refused(proc, file: Path, line: int, *words: str) -> dict:
    """The run failed with one diagnostic located at `file`:`line` whose message holds `words`."""
    assert proc.returncode == 1, proc.stderr
    items = json.loads(proc.stderr)
    found = [d for d in items if d["file"] == str(file) and d["line"] == line
             and all(w in d["message"] for w in words)]
    assert found, items
    assert found[0]["column"] >= 1
    for d in items:
        assert "a2n-nginx-" not in d["file"] + d["message"], d
    return found[0]


HTTP = "events {{}}\nhttp {{\n{}\n}}\n"


@pytest.mark.parametrize("leg", LEGS)
def test_include_escaping_by_dot_dot_is_refused_and_copies_nothing(leg, nginx_bin, hostile):
    d, m = hostile
    m["outside"].mkdir()
    (m["outside"] / "x.conf").write_text("server { listen 127.0.0.1:18081; }\n")
    ups = "../" * (len(d.parts) + 2)
    conf = write(d, "n.conf", HTTP.format(f"    include {ups}var/tmp/{m['outside'].name}/x.conf;\n"
                                         f"    include {ups}var/tmp/{m['copy'].name}/X;"))
    proc = run_lint(leg, nginx_bin, str(conf))
    refused(proc, conf, 3, "outside the directories lint may read")
    refused(proc, conf, 4, "outside the directories lint may read")


@pytest.mark.parametrize("leg", LEGS)
def test_absolute_include_and_symlink_outside_are_refused(leg, nginx_bin, hostile):
    d, _ = hostile
    (d / "link.conf").symlink_to("/etc/passwd")
    conf = write(d, "n.conf", HTTP.format("    include /etc/passwd;\n    include link.conf;\n    include /e*/pas*;"))
    proc = run_lint(leg, nginx_bin, str(conf))
    refused(proc, conf, 3, "/etc/passwd", "outside")
    refused(proc, conf, 4, "/etc/passwd", "outside")
    refused(proc, conf, 5, "outside")
    assert "root:" not in proc.stderr          # nothing of the file is quoted


@pytest.mark.parametrize("leg", LEGS)
def test_allow_include_widens_the_tree(leg, nginx_bin, hostile):
    d, m = hostile
    m["outside"].mkdir()
    (m["outside"] / "x.conf").write_text("server { listen 127.0.0.1:18081; }\n")
    (m["outside"] / "x.conf").chmod(0o644)
    m["outside"].chmod(0o755)
    conf = write(d, "n.conf", HTTP.format(f"    include {m['outside']}/x.conf;"))
    assert run_lint(leg, nginx_bin, str(conf)).returncode == 1
    proc = run_lint(leg, nginx_bin, "--allow-include", str(m["outside"]), str(conf))
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def evil_so(tmp_path_factory):
    """A shared library whose constructor writes the marker file named by its build."""
    if not shutil.which("cc"):
        pytest.skip("cc is needed to build the library")
    d = Path(tempfile.mkdtemp(prefix="a2n-so-"))
    d.chmod(0o755)
    marker = f"/var/tmp/a2n-so-marker-{uuid.uuid4().hex[:10]}"
    (d / "evil.c").write_text(
        '#include <stdio.h>\n__attribute__((constructor)) static void evil(void) {\n'
        f'    FILE *f = fopen("{marker}", "w"); if (f) {{ fputs("loaded", f); fclose(f); }}\n}}\n')
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(d / "evil.so"), str(d / "evil.c")], check=True, timeout=120)
    (d / "evil.so").chmod(0o755)
    # the library works: loading it writes the marker
    subprocess.run([sys.executable, "-c", f"import ctypes; ctypes.CDLL({str(d / 'evil.so')!r})"], check=True)
    assert Path(marker).exists()
    Path(marker).unlink()
    yield d / "evil.so", Path(marker)
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("leg", LEGS)
def test_load_module_from_elsewhere_is_never_loaded(leg, nginx_bin, hostile, evil_so):
    d, _ = hostile
    so, marker = evil_so
    local = d / "modules" / "evil.so"
    local.parent.mkdir()
    shutil.copy(so, local)
    local.parent.chmod(0o755)
    conf = write(d, "n.conf", f"load_module {so};\nload_module modules/evil.so;\nload_module {local};\n"
                              "ssl_engine /tmp/evil;\n" + HTTP.format(""))
    proc = run_lint(leg, nginx_bin, str(conf))
    refused(proc, conf, 1, "installed module directory")
    # a relative path is nginx's prefix's (/usr/share/nginx/modules): not the copy beside the file; nginx
    # reports it missing there
    refused(proc, conf, 2, "nginx: ", "modules/evil.so")
    refused(proc, conf, 3, "installed module directory")
    refused(proc, conf, 4, "ssl_engine")
    assert not marker.exists(), "the library's constructor ran"


@pytest.mark.parametrize("leg", LEGS)
def test_writable_paths_stay_in_the_sandbox(leg, nginx_bin, hostile):
    """A valid configuration naming system paths for caches, temp files, logs, pid, lock and a unix socket passes,
    and none of them is created (nginx -t creates cache and temp directories and opens every log)."""
    d, m = hostile
    conf = write(d, "n.conf", f"pid {m['pid']};\nlock_file {m['lock']};\nerror_log {m['err']};\n" + HTTP.format(
        f"    proxy_cache_path {m['cache']} levels=1:2 keys_zone=z:1m;\n"
        f"    client_body_temp_path {m['temp']};\n"
        f"    access_log {m['acc']};\n"
        "    server {\n"
        "        listen 127.0.0.1:80;\n"
        f"        listen unix:{m['sock']};\n"
        f"        error_log {m['err']}-server info;\n"
        f"        access_log /var/tmp/../../..{m['acc']}-$host;\n"
        "    }"))
    proc = run_lint(leg, nginx_bin, str(conf))
    assert proc.returncode == 0, proc.stderr
    assert not Path(f"{m['err']}-server").exists()


@pytest.mark.parametrize("leg", LEGS)
def test_include_loop_is_a_located_error(leg, nginx_bin, hostile):
    d, _ = hostile
    conf = write(d, "n.conf", HTTP.format("    include a.conf;"))
    a = write(d, "a.conf", "include b.conf;\n")
    write(d, "b.conf", "# b\ninclude a.conf;\n")
    self_loop = write(d, "self.conf", HTTP.format("    include self.conf;"))
    proc = run_lint(leg, nginx_bin, str(conf))
    refused(proc, d / "b.conf", 2, "include loop")
    proc = run_lint(leg, nginx_bin, str(self_loop))
    refused(proc, self_loop, 3, "include loop")
    assert a.exists()


@pytest.mark.parametrize("leg", LEGS)
def test_devices_fifos_and_huge_files_are_never_read(leg, nginx_bin, hostile):
    d, _ = hostile
    os.mkfifo(d / "fifo.conf")
    (d / "fifo.conf").chmod(0o644)
    os.symlink("/dev/zero", d / "zero.conf")
    with open(d / "huge.conf", "wb") as fh:
        fh.truncate(11 * 1024 * 1024)
    (d / "huge.conf").chmod(0o644)
    conf = write(d, "n.conf", HTTP.format("    include fifo.conf;\n    include zero.conf;\n    include huge.conf;\n"
                                          "    include /dev/zero;\n    server {\n        listen 127.0.0.1:18081;\n"
                                          "        ssl_certificate /dev/zero;\n        ssl_certificate_key /dev/zero;\n"
                                          "    }"))
    proc = run_lint(leg, nginx_bin, "--allow-include", "/dev", str(conf), timeout=60)
    refused(proc, conf, 3, "FIFO")
    refused(proc, conf, 4, "device")
    refused(proc, conf, 5, "MB limit")
    refused(proc, conf, 6, "device")
    refused(proc, conf, 9, "not a regular file")


@pytest.mark.parametrize("leg", LEGS)
def test_ssl_conf_command_file_that_is_a_fifo_is_never_opened(leg, nginx_bin, hostile):
    d, _ = hostile
    os.mkfifo(d / "ca.pem")
    (d / "ca.pem").chmod(0o644)
    conf = write(d, "n.conf", HTTP.format(f"    server {{\n        listen 127.0.0.1:18081;\n"
                                          f"        ssl_conf_command VerifyCAFile {d}/ca.pem;\n    }}"))
    proc = run_lint(leg, nginx_bin, str(conf), timeout=30)
    refused(proc, conf, 5, "ssl_conf_command VerifyCAFile", "not a regular file")


@pytest.mark.parametrize("leg", LEGS)
def test_shared_memory_zones_beyond_the_memory_cap_fail_nginx_t(leg, nginx_bin, hostile):
    d, _ = hostile
    zones = "\n".join(f"    limit_req_zone $binary_remote_addr zone=z{i}:2000m rate=1r/s;" for i in range(4))
    conf = write(d, "n.conf", HTTP.format(zones))
    proc = run_lint(leg, nginx_bin, str(conf), timeout=30)
    assert proc.returncode == 1, proc.stderr
    items = json.loads(proc.stderr)
    assert any("Cannot allocate memory" in i["message"] and i["file"] == str(conf) for i in items), items


@pytest.mark.parametrize("leg", LEGS)
def test_glob_of_too_many_files_is_refused(leg, nginx_bin, hostile):
    d, _ = hostile
    many = d / "many"
    many.mkdir()
    for i in range(1001):
        (many / f"{i:04}.conf").write_text("")
    conf = write(d, "n.conf", HTTP.format("    include many/*.conf;"))
    refused(run_lint(leg, nginx_bin, str(conf)), conf, 3, "more than 1000 files")


@pytest.mark.parametrize("leg", LEGS)
def test_source_comment_cannot_make_lint_quote_a_file(leg, nginx_bin, hostile):
    """A `# /etc/passwd:1` source comment is not followed outside the input's tree."""
    d, _ = hostile
    conf = write(d, "n.conf", HTTP.format("    server {\n        listen 127.0.0.1:18081;\n"
                                          "        location /p {  # /etc/passwd:1\n        }\n    }"))
    proc = run_lint(leg, nginx_bin, "--severity", "info", str(conf))
    assert "root:" not in proc.stderr and "passwd" not in proc.stderr
