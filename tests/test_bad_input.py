"""The bad-input catalogue: every case gets a located diagnostic and exit 2,
never a traceback, and with -o no output file is created or changed."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import assert_no_traceback, run_cli

LOCATED = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>A2N\d{3})\]", re.M)


def _cases(tmp: Path) -> dict[str, tuple[list[str], str, int | None]]:
    """name -> (convert arguments, expected code, expected line or None)."""
    def f(name: str, content: bytes | str) -> str:
        p = tmp / name
        p.write_bytes(content.encode() if isinstance(content, str) else content)
        return str(p)

    (tmp / "empty").mkdir()
    loop_a = f("loop_a.conf", "Listen 80\nInclude loop_b.conf\n")
    f("loop_b.conf", "ServerName x\nInclude loop_a.conf\n")
    big = tmp / "big.conf"
    with big.open("wb") as fh:
        line = b"ServerAlias " + b"a" * 88 + b"\n"
        fh.write(line * (65 * 1024 * 1024 // len(line) + 1))     # past the 64 MB a file may hold
    return {
        "unclosed section": ([f("unclosed.conf", "Listen 80\n<VirtualHost *:80>\nServerName a\n")], "A2N002", 2),
        "mismatched section": ([f("mismatch.conf", "<VirtualHost *:80>\n<Directory />\n</VirtualHost>\n"
                                                   "</Directory>\n")], "A2N004", 3),
        "stray closer": ([f("stray.conf", "Listen 80\n</VirtualHost>\n")], "A2N003", 2),
        "opener missing >": ([f("nogt.conf", "<VirtualHost *:80\nServerName a\n</VirtualHost>\n")], "A2N001", 1),
        "binary junk": ([f("junk.conf", bytes(range(1, 32)) * 40 + b"\xff\xfe" * 100)], "A2N010", None),
        "NUL bytes": ([f("nul.conf", b"Listen 80\nServerName a\x00b\n")], "A2N010", 2),
        "65 MB file": ([str(big)], "A2N011", None),
        "1000 levels of nesting": ([f("deep.conf", "<IfDefine !X>\n" * 1000 + "Listen 80\n" + "</IfDefine>\n" * 1000)],
                                   "A2N012", 101),
        "include loop": ([loop_a], "A2N021", 2),
        "missing include": ([f("missing.conf", "Listen 80\nInclude /nonexistent/dir/file.conf\n")], "A2N020", 2),
        "unreadable file": (["/proc/self/mem"], "A2N013", None),
        "missing input": ([str(tmp / "does-not-exist.conf")], "A2N013", None),
        "empty directory": ([str(tmp / "empty")], "A2N014", None),
    }


CASE_NAMES = ["unclosed section", "mismatched section", "stray closer", "opener missing >", "binary junk",
              "NUL bytes", "65 MB file", "1000 levels of nesting", "include loop", "missing include",
              "unreadable file", "missing input", "empty directory"]


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return _cases(tmp_path_factory.mktemp("bad"))


@pytest.mark.parametrize("name", CASE_NAMES)
def test_bad_input_is_located_and_exits_2_without_output(name, cases, tmp_path):
    args, code, line = cases[name]
    out = tmp_path / "out.conf"
    proc = run_cli("convert", *args, "-o", str(out))
    assert_no_traceback(proc)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert not out.exists()
    located = [m for m in LOCATED.finditer(proc.stderr) if m.group("code") == code]
    assert located, proc.stderr[-2000:]
    if line is not None:
        assert int(located[0].group("line")) == line, proc.stderr[-2000:]
    assert "no output written" in proc.stderr


def test_existing_output_is_left_untouched_on_bad_input(cases, tmp_path):
    out = tmp_path / "site.conf"
    out.write_text("# previous good output\n")
    before = out.stat().st_mtime_ns
    proc = run_cli("convert", cases["unclosed section"][0][0], "-o", str(out))
    assert proc.returncode == 2
    assert out.read_text() == "# previous good output\n" and out.stat().st_mtime_ns == before
    assert not [p for p in tmp_path.iterdir() if p.name != "site.conf"]  # no temp file left behind


def test_unterminated_quote_is_a_located_warning_because_httpd_accepts_it(tmp_path):
    src = tmp_path / "q.conf"
    src.write_text('<VirtualHost *:80>\nServerName a\nErrorDocument 404 "gone\n</VirtualHost>\n')
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert re.search(r"q\.conf:3:19: warning\[A2N005\]", proc.stderr)
    assert proc.returncode == 0
    assert run_cli("convert", "--strict", str(src)).returncode == 1


def test_unknown_directive_has_closest_name_hint_and_exits_1(tmp_path):
    src = tmp_path / "u.conf"
    src.write_text("<VirtualHost *:80>\n    ServerNmae a\n</VirtualHost>\n")
    out = tmp_path / "u.nginx"
    proc = run_cli("convert", str(src), "-o", str(out))
    assert_no_traceback(proc)
    assert proc.returncode == 1
    assert re.search(r"u\.conf:2:5: error\[A2N100\]: unknown directive ServerNmae", proc.stderr)
    assert "hint: did you mean ServerName?" in proc.stderr
    assert out.exists()  # the translation of the rest is still complete and written


def test_stdin_input_and_garbage_on_stdin():
    proc = run_cli("convert", "-", stdin=b"<VirtualHost *:8080>\nServerName s\n</VirtualHost>\n")
    assert proc.returncode == 0 and "listen 8080 default_server;" in proc.stdout
    proc = run_cli("convert", "-", stdin=b"\x00\x01\x02garbage")
    assert proc.returncode == 2 and "<stdin>:1:1: error[A2N010]" in proc.stderr
    assert_no_traceback(proc)
