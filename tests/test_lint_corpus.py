"""lint's verdict is the real `nginx -t`'s verdict: each file of tests/data/lint/corpus/ is linted and also
tested by nginx directly, and the two must agree.

reject/ holds configurations nginx -t refuses (unknown directive, listen ports nginx rejects, buffered logs
with variables in their name, a relative glob include reading a file with a bad directive, a line longer than
nginx's 4096-byte token buffer, duplicate location, invalid regex, missing `;`...); accept/ holds ones it
takes (relative includes and globs, quoted `#`, `${`, empty strings, `listen ... ssl`, logs with variables but
no buffer...). A case is one file, or a directory whose nginx.conf is the file given. A file with no top-level
http/events/stream/mail block is a bare http-context file: nginx tests it included from `http {}`, as lint
does.

The direct run copies the case into a temporary prefix and runs nginx -t as root in a network namespace of its
own (only loopback: the names nginx would resolve fail there, as they do for lint, and nothing leaves the
machine); as a non-root user only lint's side is checked.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, assert_no_traceback

CORPUS = ROOT / "tests" / "data" / "lint" / "corpus"
CASES = [(kind, p.name) for kind in ("reject", "accept") for p in sorted((CORPUS / kind).iterdir())]
_FULL = re.compile(r"^\s*(http|events|stream|mail)\s*\{", re.M)


def case_file(kind: str, name: str) -> Path:
    path = CORPUS / kind / name
    return path / "nginx.conf" if path.is_dir() else path


def lint(*args: str, cwd: Path = ROOT):
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", "lint", "--no-gixy", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "NO_COLOR": "1"})
    assert_no_traceback(proc)
    return proc


def direct_nginx_t(nginx_bin: str, kind: str, name: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """The real nginx -t on a copy of the case, unmodified, in a prefix of its own."""
    if os.geteuid() != 0:
        pytest.skip("the direct nginx -t runs as root in a network namespace of its own")
    work = tmp_path / "direct"
    src = CORPUS / kind / name
    if src.is_dir():
        shutil.copytree(src, work)
    else:
        work.mkdir()
        shutil.copy(src, work / "nginx.conf")
    (work / "logs").mkdir(exist_ok=True)
    conf = work / "nginx.conf"
    if not _FULL.search(conf.read_text("latin-1")):
        (work / "wrapper.conf").write_text(f"events {{}}\nhttp {{\n    include {conf};\n}}\n")
        conf = work / "wrapper.conf"
    script = ("ip link set lo up && exec \"$0\" -t -q -p \"$1/\" -c \"$2\" -e \"$1/logs/error.log\"")
    return subprocess.run(["unshare", "--net", "--", "sh", "-c", script, nginx_bin, str(work), str(conf)],
                          capture_output=True, text=True, timeout=60, cwd=work)


@pytest.mark.parametrize("kind,name", CASES)
def test_lint_agrees_with_nginx(kind, name, nginx_bin, tmp_path):
    proc = lint("--nginx", nginx_bin, "--severity", "error", "--diagnostics", "json", str(case_file(kind, name)))
    items = json.loads(proc.stderr)
    assert (proc.returncode == 0) == (kind == "accept"), items
    if kind == "reject":
        assert proc.returncode == 1 and any(d["code"] == "A2N901" for d in items), items
        for d in items:      # located in the user's own files, never in the sandbox
            assert "a2n-nginx-" not in d["file"] + d["message"], d
            assert Path(d["file"]).resolve().is_relative_to(CORPUS / kind), d
    direct = direct_nginx_t(nginx_bin, kind, name, tmp_path)
    assert (direct.returncode == 0) == (proc.returncode == 0), (direct.stderr, items)


def test_messages_point_into_the_included_file():
    """A bad directive in a file a relative (glob) include reads is reported at that file's own line."""
    for case, file, line in (("relative-glob-bad", "conf.d/b-bad.conf", 4),
                             ("relative-include-bad", "sites/site.conf", 4)):
        proc = lint("--severity", "error", "--diagnostics", "json", str(CORPUS / "reject" / case / "nginx.conf"))
        (item,) = json.loads(proc.stderr)
        assert (item["file"], item["line"]) == (str(CORPUS / "reject" / case / file), line), item
    proc = lint("--diagnostics", "json", "tests/data/lint/corpus/reject/relative-glob-bad/nginx.conf")
    (item,) = json.loads(proc.stderr)
    assert item["file"] == "tests/data/lint/corpus/reject/relative-glob-bad/conf.d/b-bad.conf"


def test_missing_include_names_the_users_path():
    proc = lint("--diagnostics", "json", str(CORPUS / "reject" / "relative-include-missing" / "nginx.conf"))
    (item,) = json.loads(proc.stderr)
    assert str(CORPUS / "reject" / "relative-include-missing" / "missing.conf") in item["message"]
    assert item["line"] == 3


def test_too_long_line_is_nginx_own_message():
    proc = lint("--diagnostics", "json", str(CORPUS / "reject" / "too-long-comment.conf"))
    (item,) = json.loads(proc.stderr)
    assert item["message"].startswith('nginx: too long parameter "#xxxxxxxxx..." started') and item["line"] == 1


def test_prefix_option_moves_relative_includes(tmp_path, nginx_bin):
    """--prefix: relative includes resolve against it (nginx's configuration prefix), not the file's directory."""
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "h.conf").write_text("add_header X-A 1;\n")
    (tmp_path / "sites").mkdir()
    site = tmp_path / "sites" / "site.conf"
    site.write_text("server {\n    listen 127.0.0.1:18081;\n    include snippets/h.conf;\n}\n")
    proc = lint("--nginx", nginx_bin, "--diagnostics", "json", str(site))
    (item,) = json.loads(proc.stderr)
    assert "snippets/h.conf" in item["message"] and item["line"] == 3
    proc = lint("--nginx", nginx_bin, "--prefix", str(tmp_path), str(site))
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ the sandbox keeps the user's text

TYPO3 = """server {
    listen 80;
    listen [::]:80 ipv6only=on;
    root /srv/typo3;
    set $a2n_x "#${request_uri}";
    set $empty "";
    add_header X-A "a;b{c} d" always;
    location / { proxy_pass http://app.internal:8080/$a2n_x; }
}
"""


def test_sandbox_edits_only_words_it_changes(tmp_path, nginx_bin):
    """verify's API (Sandbox(backends=, paths=), _cert, build, prefix, conf, sockets, port_for, cleanup) on a
    translation with a quoted '#': the text reaches nginx as written, lines in place, and nginx starts on it."""
    from apache2nginx.lint.sandbox import Sandbox
    conf = tmp_path / "nginx.conf"
    conf.write_text(TYPO3)
    box = Sandbox(backends={"app.internal:8080": "127.0.0.1:5009"}, paths={"/srv/typo3": str(tmp_path / "root")})
    try:
        assert box.build(str(conf)) == []
        text = box.conf.read_text()
        lines = text.splitlines()
        assert lines[4] == '    set $a2n_x "#${request_uri}";' and lines[5] == '    set $empty "";'
        assert lines[6] == '    add_header X-A "a;b{c} d" always;'
        assert lines[3] == f"    root {tmp_path / 'root'};"
        assert lines[7] == "    location / { proxy_pass http://127.0.0.1:5009/$a2n_x; }"
        assert set(box.sockets) == {"80", "[::]:80"} and box.port_for(80) is not None
        assert box.prefix.is_dir() and box.conf.is_file()
        proc = subprocess.run([nginx_bin, "-t", "-q", "-p", f"{box.prefix}/", "-c", str(box.conf), "-e",
                               str(box.prefix / "logs" / "error.log")], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    finally:
        box.cleanup()
    assert not box.prefix.exists()


@pytest.mark.parametrize("text,words", [
    ('a "#x" b;', ["a", "#x", "b"]),
    ("a b#c;", ["a", "b#c"]),
    ("a ${x}y;", ["a", "${x}y"]),
    ("a '';", ["a", ""]),
    ('a "q\\"x" \'it\\\'s\';', ["a", 'q"x', "it's"]),
    ("a x};", ["a", "x}"]),
    ("a \\;b;", ["a", "\\;b"]),
    ("a # c;\n d;", ["a", "d"]),
])
def test_lexer_reads_words_as_nginx_does(text, words):
    from apache2nginx.lint.lexer import parse, quote
    parsed = parse(text)
    assert parsed.error is None
    (stmt,) = parsed.stmts
    assert [w.value for w in stmt.words] == words
    for w in stmt.words:        # every word knows its place in the text: read alone, it is the same word
        assert [x.value for x in parse(text[w.start:w.end] + ";").stmts[0].words] == [w.value]
    for w in stmt.words:        # and quote() writes a value back as one word that reads the same
        assert [x.value for x in parse(f"d {quote(w.value)};").stmts[0].words] == ["d", w.value]


@pytest.mark.parametrize("text,error", [
    ("#" + "x" * 4095 + "\na;", 'too long parameter "#xxxxxxxxx..." started'),
    ('a "b"c;', 'unexpected "c"'),
    ("a;}", 'unexpected "}"'),
    ("a {", 'unexpected end of file, expecting "}"'),
    ("a", 'unexpected end of file, expecting ";" or "}"'),
])
def test_lexer_stops_where_nginx_does(text, error):
    from apache2nginx.lint.lexer import parse
    assert parse(text).error.message == error
