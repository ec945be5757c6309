"""Hostile input is normal input: each observed way of breaking `convert` (a hang, a device read, a memory
blow-up, a traceback, a half-written or misplaced output) now ends in a located diagnostic or a plain
message and a non-zero exit -- or, where the input is valid, in a translation."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import assert_no_traceback, run_cli

LOCATED = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error\[(?P<code>A2N\d{3})\]", re.M)


def _write(tmp: Path, name: str, text: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def _located(proc, code: str) -> list[tuple[int, int]]:
    return [(int(m.group("line")), int(m.group("col"))) for m in LOCATED.finditer(proc.stderr)
            if m.group("code") == code]


def _refused(proc, code: str, line: int | None = None, col: int | None = None) -> None:
    assert_no_traceback(proc)
    assert "internal error" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, proc.stderr[-2000:]
    found = _located(proc, code)
    assert found, proc.stderr[-2000:]
    if line is not None:
        assert found[0][0] == line, proc.stderr[-2000:]
    if col is not None:
        assert found[0][1] == col, proc.stderr[-2000:]


# ----------------------------------------------------------------------------- hangs and loops

def test_alias_to_a_relative_target_does_not_loop(tmp_path):
    src = _write(tmp_path, "a.conf", "Listen 80\nAlias /icons x\nAlias /more a/b/c\n<Directory /var/www>\n"
                                     "Require all granted\n</Directory>\n")
    proc = run_cli("convert", str(src), timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "alias x;" in proc.stdout and "alias a/b/c/;" in proc.stdout


# ----------------------------------------------------------------------------- devices, pipes, whole trees

@pytest.mark.parametrize("line", ["Include /dev/zero", "Include /dev/urandom", "IncludeOptional /dev/zero",
                                  "Include /dev/null"])
def test_include_of_a_device_is_refused_before_reading(tmp_path, line):
    src = _write(tmp_path, "dev.conf", f"Listen 80\n{line}\n")
    out = tmp_path / "out.conf"
    proc = run_cli("convert", str(src), "-o", str(out), timeout=60)
    _refused(proc, "A2N013", 2, line.index(" ") + 2)
    assert "character device" in proc.stderr
    assert not out.exists()


def test_include_of_the_whole_disk_is_capped_before_reading(tmp_path):
    src = _write(tmp_path, "root.conf", "Listen 80\nInclude /\n")
    start = time.monotonic()
    proc = run_cli("convert", str(src), timeout=120)
    _refused(proc, "A2N013", 2, 9)
    assert "names more than" in proc.stderr
    assert time.monotonic() - start < 60


def test_unclosed_variables_are_looked_up_in_linear_time(tmp_path):
    # an argument of many `${` without their `}` (as a Define doubling such a value builds): looking for ${NAME}
    # from each of them to the end of the argument was quadratic, minutes for this line (a hang)
    src = _write(tmp_path, "root.conf", "Listen 80\nServerName " + "x${" * 100_000 + "\n")
    start = time.monotonic()
    proc = run_cli("convert", str(src), "-o", str(tmp_path / "out.conf"), timeout=120)
    assert_no_traceback(proc)
    assert time.monotonic() - start < 60


def test_include_of_a_very_deep_directory_tree(tmp_path):
    deep = str(tmp_path / "tree")
    os.mkdir(deep)
    for _ in range(1200):           # deeper than Python's recursion limit
        deep += "/d"
        os.mkdir(deep)
    _write(Path(deep), "site.conf", "Listen 80\nServerName deep\n")
    src = _write(tmp_path, "main.conf", f"Include {tmp_path / 'tree'}\n")
    try:
        proc = run_cli("convert", str(src), timeout=60)
    finally:
        # bottom up, without recursion (pytest's own clean-up of old temporary directories recurses)
        os.unlink(deep + "/site.conf")
        while deep != str(tmp_path):
            os.rmdir(deep)
            deep = os.path.dirname(deep)
    assert_no_traceback(proc)
    assert proc.returncode == 0 and "server_name deep;" in proc.stdout, proc.stderr[-2000:]


def test_names_too_long_for_the_system_are_missing_files(tmp_path):
    name = "a" * 5000
    src = _write(tmp_path, "long.conf", f"Listen 80\nIncludeOptional {name}*\n<IfFile {name}>\nListen 81\n"
                                        f"</IfFile>\nInclude /{name}/x\n")
    _refused(run_cli("convert", str(src), timeout=60), "A2N020", 6, 9)
    proc = run_cli("convert", str(tmp_path / name), timeout=60)
    _refused(proc, "A2N013")


def test_fifo_is_never_opened_as_input_or_include(tmp_path):
    fifo = tmp_path / "pipe.conf"
    os.mkfifo(fifo)
    proc = run_cli("convert", str(fifo), timeout=30)
    _refused(proc, "A2N013")
    assert "named pipe" in proc.stderr
    src = _write(tmp_path, "inc.conf", f"Listen 80\nInclude {fifo}\n")
    proc = run_cli("convert", str(src), timeout=30)
    _refused(proc, "A2N013", 2, 9)


def test_device_as_input_is_refused(tmp_path):
    proc = run_cli("convert", "/dev/zero", timeout=30)
    _refused(proc, "A2N013")


# ----------------------------------------------------------------------------- nesting and expansion

def test_a_thousand_unclosed_sections(tmp_path):
    src = _write(tmp_path, "deep.conf", "<IfDefine !X>\n" * 1000)
    proc = run_cli("convert", str(src), timeout=60)
    _refused(proc, "A2N012", 101)
    src = _write(tmp_path, "deep2.conf", "<VirtualHost *:80>\n" * 1000)
    _refused(run_cli("convert", str(src), timeout=60), "A2N012", 101)


def test_nesting_adds_up_across_includes(tmp_path):
    # each file nests 60 levels (under the per-file limit) and includes the next: 600 levels in all
    for i in range(10):
        body = f"Include f{i + 1}.conf\n" if i < 9 else "Listen 80\n"
        _write(tmp_path, f"f{i}.conf", "<IfDefine !X>\n" * 60 + body + "</IfDefine>\n" * 60)
    proc = run_cli("convert", str(tmp_path / "f0.conf"), timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 2 and "error[A2N012]" in proc.stderr, proc.stderr[-2000:]
    assert re.search(r"f1\.conf:\d+:\d+: error\[A2N012\]", proc.stderr)


def test_nested_macro_uses_are_bounded(tmp_path):
    lines = [f"<Macro M{i}>\nUse M{i + 1}\n</Macro>" for i in range(300)] + ["<Macro M300>\nListen 80\n</Macro>",
                                                                            "Use M0"]
    src = _write(tmp_path, "m.conf", "\n".join(lines) + "\n")
    proc = run_cli("convert", "--module", "macro", str(src), timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 2 and "error[A2N026]" in proc.stderr, proc.stderr[-2000:]


def test_define_doubling_is_capped_where_it_is_expanded(tmp_path):
    src = _write(tmp_path, "dbl.conf", "Define A x\n" + "Define A ${A}${A}\n" * 60 + "Listen 80\nServerName ${A}\n")
    start = time.monotonic()
    proc = run_cli("convert", str(src), timeout=60)
    _refused(proc, "A2N011")
    assert time.monotonic() - start < 30
    line, col = _located(proc, "A2N011")[0]
    assert 2 <= line <= 62 and col == 10      # the ${A}${A} argument of a Define line


# ----------------------------------------------------------------------------- rendering

def test_virtual_host_inheriting_the_main_server_name(tmp_path):
    src = _write(tmp_path, "v.conf", "ServerName a\n<VirtualHost *:80>\n</VirtualHost>\n")
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "server_name a;" in proc.stdout


# ----------------------------------------------------------------------------- numbers

HUGE = "9" * 5000


@pytest.mark.parametrize("line,col", [(f"Redirect {HUGE} /a /b", 10), (f"Listen {HUGE}", 8),
                                      (f"RewriteEngine on\nRewriteRule ^/a /b [R={HUGE}]", 23),
                                      (f"Define N {HUGE[:600]}\nListen ${{N}}${{N}}", 8)])
def test_numbers_of_thousands_of_digits_are_located_errors(tmp_path, line, col):
    src = _write(tmp_path, "n.conf", line + "\n")
    proc = run_cli("convert", str(src))
    _refused(proc, "A2N015", line.count("\n") + 1, col)


@pytest.mark.parametrize("line", ["Timeout 99999999999999999999", "KeepAliveTimeout 99999999999999999999",
                                  "LimitRequestBody 99999999999999999999", "Redirect 99999 /a /b"])
def test_values_beyond_nginx_limits_are_refused_not_written(tmp_path, line):
    src = _write(tmp_path, "t.conf", "Listen 80\n" + line + "\n")
    out = tmp_path / "out.conf"
    proc = run_cli("convert", str(src), "-o", str(out))
    _refused(proc, "A2N015", 2)
    assert not out.exists()


@pytest.mark.parametrize("text", ["Listen 99999\n", "Listen 0\n", "<VirtualHost *:70000>\n</VirtualHost>\n"])
def test_ports_outside_the_tcp_range_are_syntax_errors(tmp_path, text):
    src = _write(tmp_path, "p.conf", text)
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert proc.returncode == 1 and "error[A2N001]" in proc.stderr, proc.stderr[-2000:]
    assert "listen 99999" not in proc.stdout and "listen 70000" not in proc.stdout


def test_backend_names_nginx_cannot_write(tmp_path):
    src = _write(tmp_path, "b.conf", 'Listen 80\nProxyPass /a "http://a}b/"\nProxyPass /c balancer://}x/\n'
                                     '<Proxy balancer://}x>\nBalancerMember http://127.0.0.1:81\n</Proxy>\n')
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert "error[A2N900]" not in proc.stderr and "error[A2N302]" in proc.stderr, proc.stderr[-2000:]
    assert "upstream _x {" in proc.stdout


def test_if_chain_with_an_untranslatable_condition(tmp_path):
    src = _write(tmp_path, "h.conf", 'Listen 80\n<If "%{QUERY_STRING} =~ /v=/">\nHeader set Cache-Control a\n</If>\n'
                                     '<ElseIf "%{9999REQUEST_URI} =~ m#/login$#">\nHeader set Cache-Control b\n'
                                     '</ElseIf>\n<Else>\nHeader set Cache-Control c\n</Else>\n')
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert proc.returncode in (0, 1) and "error[A2N501]" in proc.stderr, proc.stderr[-2000:]


def test_files_match_with_a_broken_regular_expression(tmp_path):
    src = _write(tmp_path, "f.conf", 'Listen 80\n<Directory /var/www>\n<FilesMatch "\\.p(hp3?|tml$">\n'
                                     'Require all denied\n</FilesMatch>\n</Directory>\n')
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert "error[A2N741]" in proc.stderr, proc.stderr[-2000:]


def test_a_regular_expression_starting_with_a_hash_is_quoted(tmp_path):
    src = _write(tmp_path, "r.conf", 'Listen 80\nRewriteEngine on\nRewriteCond "%{REQUEST_FILENAME}" !#-d\n'
                                     'RewriteRule "(.*\\.gif)" "images.php?$1"\n')
    proc = run_cli("convert", str(src))
    assert_no_traceback(proc)
    assert proc.returncode == 0 and '"#-d"' in proc.stdout, proc.stderr[-2000:]


# ----------------------------------------------------------------------------- long lines

def test_column_computation_is_linear_on_a_long_non_ascii_line():
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.parser import parse_text

    def timed(n: int) -> float:
        line = "ServerAlias " + " ".join(f'"a{i}"' for i in range(n)) + " é\n"
        best = float("inf")
        for _ in range(3):      # the best of three: a busy machine slows one run, not the algorithm
            start = time.perf_counter()
            cf = parse_text("x", line, Diagnostics())
            args = cf.children[0].arg_pos
            assert args[-1][1] == len(line) - 1 and args[1][1] == 18      # character columns, é last
            best = min(best, time.perf_counter() - start)
        return best
    small, large = timed(10_000), timed(100_000)     # the large line is about 1 MB
    assert large < 10 and large < small * 40, (small, large)


# ----------------------------------------------------------------------------- outputs

@pytest.fixture
def site(tmp_path) -> Path:
    return _write(tmp_path, "site.conf", "Listen 80\nServerName a\n")


def _usage_error(proc) -> None:
    assert_no_traceback(proc)
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "a bug in apache2nginx" not in proc.stderr
    assert "no output was written" in proc.stderr


def test_output_under_a_file_is_a_usage_error(tmp_path, site):
    _write(tmp_path, "typo.conf", "")
    _usage_error(run_cli("convert", str(site), "-o", str(tmp_path / "typo.conf" / "x.conf")))
    _usage_error(run_cli("convert", str(site), "--out-dir", str(tmp_path / "typo.conf" / "out")))
    _usage_error(run_cli("convert", str(site), "-o", "/proc/nope/x.conf"))
    assert (tmp_path / "typo.conf").read_text() == ""


def test_output_naming_an_input_is_refused(tmp_path, site):
    before = site.read_text()
    _usage_error(run_cli("convert", str(site), "-o", str(site)))
    assert site.read_text() == before
    inc = _write(tmp_path, "main.conf", "Include site.conf\n")
    _usage_error(run_cli("convert", str(inc), "-o", str(site)))      # an included file is an input too
    assert site.read_text() == before
    _usage_error(run_cli("convert", str(site), "--out-dir", str(tmp_path)))   # site.conf -> site.conf
    assert site.read_text() == before


def test_several_outputs_are_written_all_or_none(tmp_path, site):
    other = _write(tmp_path, "other.conf", "Listen 81\nServerName b\n")
    out = tmp_path / "out"
    (out / "other.conf").mkdir(parents=True)        # the second output cannot be written
    proc = run_cli("convert", str(site), str(other), "--out-dir", str(out))
    _usage_error(proc)
    assert sorted(p.name for p in out.iterdir()) == ["other.conf"]      # nothing else, no temp file
    fresh = tmp_path / "fresh" / "deeper"
    proc = run_cli("convert", str(site), str(other), "--out-dir", str(fresh))
    assert proc.returncode == 0 and sorted(p.name for p in fresh.iterdir()) == [
        "00-apache2nginx-shared.conf", "other.conf", "site.conf"]


def test_check_fix_does_not_write_outside_the_repository(tmp_path):
    repo = tmp_path / "a" / "repo"
    repo.mkdir(parents=True)
    _write(repo, "site.conf", "Listen 80\nServerName a\n")
    _write(repo, ".apache2nginx.toml", '[[pair]]\napache = "site.conf"\nnginx = "../../x.conf"\n')
    proc = run_cli("check", "--fix", "--config", str(repo / ".apache2nginx.toml"), cwd=repo)
    assert_no_traceback(proc)
    assert proc.returncode == 2 and "outside the repository" in proc.stderr, proc.stderr
    assert not (tmp_path / "x.conf").exists()
    _write(repo, ".apache2nginx.toml", '[[pair]]\napache = "site.conf"\nnginx = "site.conf"\n')
    proc = run_cli("check", "--fix", "--config", str(repo / ".apache2nginx.toml"), cwd=repo)
    assert proc.returncode == 2 and (repo / "site.conf").read_text() == "Listen 80\nServerName a\n"


# ----------------------------------------------------------------------------- interrupts, empty input

def test_ctrl_c_exits_130_without_a_traceback(tmp_path):
    env = {**os.environ, "NO_COLOR": "1"}      # the installed package, as the user runs it
    proc = subprocess.Popen([sys.executable, "-m", "apache2nginx", "convert", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    time.sleep(2.5)       # reading stdin, which never ends
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"Traceback" not in err and b"interrupted" in err


@pytest.mark.parametrize("data", [b"", b"\n\n", b"# only a comment\n"])
def test_empty_stdin_is_an_error_not_a_default_server(data):
    proc = run_cli("convert", "-", stdin=data)
    _refused(proc, "A2N025")
    assert "server {" not in proc.stdout


def test_an_empty_file_beside_others_is_only_a_warning(tmp_path, site):
    empty = _write(tmp_path, "empty.conf", "")
    proc = run_cli("convert", str(site), str(empty))
    assert proc.returncode == 0 and "warning[A2N025]" in proc.stderr


def test_many_overlapping_file_sections_convert_in_bounded_work(tmp_path):
    """Every combination of <Files> sections matching one name becomes a nested location (httpd merges them
    all, nginx picks one location): many such sections must not make the work grow as their count to the
    fourth power. Past a bound, further combinations are refused, never opened."""
    sections = "".join(f'    <FilesMatch "\\.(txt|html|s{i})$">\n        Require ip 10.{i}.0.0/16\n'
                       f'        Header set X-S{i} on\n    </FilesMatch>\n' for i in range(24))
    src = tmp_path / "apache.conf"
    src.write_text(f"Listen 80\n<VirtualHost *:80>\n    ServerName files.example.test\n"
                   f"    DocumentRoot /srv/www\n    <Directory /srv/www>\n{sections}    </Directory>\n"
                   "</VirtualHost>\n")
    out = tmp_path / "nginx.conf"
    proc = run_cli("convert", str(src), "-o", str(out), timeout=60)
    assert_no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size < 20_000_000
