"""Reading Apache syntax exactly as httpd does (server/util.c, server/config.c)."""
from __future__ import annotations

import re
import subprocess

import pytest

from apache2nginx.diagnostics import Diagnostics, Severity
from apache2nginx.syntax.parser import language, parse_bytes, parse_text, split_words, unquote
from conftest import CORPUS, ROOT


def parse(text: str):
    diags = Diagnostics()
    cf = parse_text("t.conf", text, diags)
    return cf, diags


def flat(nodes, depth=0):
    out = []
    for n in nodes:
        out.append((depth, n.name, n.args))
        if n.is_section:
            out.extend(flat(n.children, depth + 1))
    return out


def codes(diags):
    return [d.code for d in diags]


def test_directive_arguments_and_positions():
    cf, diags = parse("ServerName www.example.com\n  Listen   127.0.0.1:8080 https\n")
    assert not len(diags)
    a, b = cf.children
    assert (a.name, a.args, a.line, a.column) == ("ServerName", ["www.example.com"], 1, 1)
    assert (b.name, b.args, b.line, b.column) == ("Listen", ["127.0.0.1:8080", "https"], 2, 3)
    assert b.arg_span(1).column == 27 and b.arg_span(0).column == 12


@pytest.mark.parametrize("text,args", [
    ('Header set X "a \\"b\\" c"\n', ["set", "X", 'a "b" c']),
    ("Header set X 'it''s'\n", ["set", "X", "it", "s"]),
    ('ProxyPassReverse "/js""http://h/js"\n', ["/js", "http://h/js"]),
    ('Header set X "a"b\n', ["set", "X", "a", "b"]),
    ('Header set X foo"bar"\n', ["set", "X", 'foo"bar"']),
    ('Header set X a\\\\b\n', ["set", "X", "a\\b"]),           # unquoted \\ folds to \ as in substring_conf
    # mod_rewrite parses its own arguments: nothing is unescaped, quotes only group, "\ " keeps the blank
    ('RewriteRule ^a\\\\b x\n', ["^a\\\\b", "x"]),
    ('RewriteRule "^/a\\\\.b$" /c [L]\n', ["^/a\\\\.b$", "/c", "[L]"]),
    ('RewriteCond %{HTTP:X} ^a\\ b$\n', ["%{HTTP:X}", "^a\\ b$"]),
    ('RewriteRule \\.css\\.gz$ - [T=text/css]\n', ["\\.css\\.gz$", "-", "[T=text/css]"]),
    ("IndexIgnore .??* *~ *# RCS\n", [".??*", "*~", "*#", "RCS"]),
    ("Header set X a #b\n", ["set", "X", "a", "#b"]),
    ("Options Indexes \\\nFollowSymLinks MultiViews\n", ["Indexes", "FollowSymLinks", "MultiViews"]),
    ("Single 'Foo\\\nbar'\n", ["Foobar"]),
    ('Double "Foo\\\r\nbar"\r\n', ["Foobar"]),
    ("ServerName a\\\nb c\n", ["ab", "c"]),
    ("Header\tset\tX\ty\r\n", ["set", "X", "y"]),
])
def test_httpd_quoting_rules(text, args):
    cf, diags = parse(text)
    assert not diags.at_least(Severity.ERROR)
    assert cf.children[0].args == args


def test_unterminated_quote_reads_to_end_of_line_with_a_warning():
    cf, diags = parse('ErrorDocument 404 "The file was not found.\nListen 80\n')
    assert cf.children[0].args == ["404", "The file was not found."]
    assert cf.children[1].name == "Listen"
    (d,) = list(diags)
    assert d.code == "A2N005" and d.severity is Severity.WARNING and (d.span.line, d.span.column) == (1, 19)


def test_comments_only_at_line_start_and_continued():
    cf, diags = parse("# a comment \\\n  still comment\n  # indented comment\nListen 80 # not a comment\n")
    assert flat(cf.children) == [(0, "Listen", ["80", "#", "not", "a", "comment"])]


def test_section_opener_takes_the_last_angle_bracket():
    cf, diags = parse("<IfVersion >= 2.4>\n<If \"%{HTTP_HOST} == 'a' && %{X} > 1\">#x\n"
                      "<FilesMatch \\.php$>\nA b\n</FilesMatch>\n</If>\n</IfVersion>\n")
    assert not len(diags)
    assert flat(cf.children) == [
        (0, "IfVersion", [">=", "2.4"]),
        (1, "If", ["%{HTTP_HOST} == 'a' && %{X} > 1"]),
        (2, "FilesMatch", ["\\.php$"]),
        (3, "A", ["b"]),
    ]


def test_closing_tag_case_insensitive_and_spans():
    cf, diags = parse("<VirtualHost *:80>\n  ServerName a\n</virtualhost>\n")
    assert not len(diags)
    vh = cf.children[0]
    assert vh.name == "VirtualHost" and vh.args == ["*:80"] and vh.children[0].line == 2
    assert (vh.close_line, vh.close_column) == (3, 1)


def test_bom_latin1_and_no_final_newline():
    diags = Diagnostics()
    cf = parse_bytes("b.conf", b"\xef\xbb\xbfServerName caf\xc3\xa9\nServerAlias x", diags)
    assert [n.args for n in cf.children] == [["café"], ["x"]]
    assert codes(diags) == ["A2N007"]
    diags = Diagnostics()
    cf = parse_bytes("l.conf", b"ServerName caf\xe9.example\n", diags)
    assert cf.children[0].args == ["café.example"]
    assert codes(diags) == ["A2N008"]


def test_unicode_columns_count_characters():
    cf, _ = parse("Header set Xé  \"v\"\n")
    assert cf.children[0].arg_span(2).column == 16


@pytest.mark.parametrize("text,code,line", [
    ("<VirtualHost *:80>\nServerName a\n", "A2N002", 1),
    ("ServerName a\n</Directory>\n", "A2N003", 2),
    ("<Directory />\n</Location>\n", "A2N004", 2),
    ("<Location /a\n</Location>\n", "A2N001", 1),
    ("<Location /a>\n</Location  >\n", "A2N001", 2),
    ("<IfModule mod_ssl.c>\n<VirtualHost *:80>\n</VirtualHost> </IfModule>\n", "A2N002", 1),
])
def test_structural_errors_are_located(text, code, line):
    _, diags = parse(text)
    errors = [d for d in diags if d.severity is Severity.ERROR]
    assert errors, list(diags)
    assert any(d.code == code and d.span.line == line for d in errors), [(d.code, d.span.line) for d in diags]


def test_split_words_matches_ap_getword_conf():
    assert [w[0] for w in split_words(' "a b" c\'d\' \'e\\\'f\' ')] == ["a b", "c'd'", "e'f"]
    assert unquote('"abc') == ("abc", True, False)


def test_grammar_corpus_files_match_the_python_binding():
    """The tree-sitter corpus tests (test/corpus/*.txt) hold for the compiled grammar too."""
    from tree_sitter import Parser
    parser = Parser(language())
    corpus = sorted((ROOT / "grammars/tree-sitter-apache/test/corpus").glob("*.txt"))
    assert corpus
    count = 0
    for path in corpus:
        text = path.read_text()
        for block in re.split(r"\n(?==+\n[^\n]+\n=+\n)", text):
            m = re.match(r"=+\n([^\n]+)\n=+\n\n(.*?)\n-+\n\n(.*)$", block, re.S)
            assert m, block[:80]
            title, source, expected = m.groups()
            tree = parser.parse(source.rstrip("\n").encode() + (b"\n" if source.endswith("\n\n") or
                                                                 not title.startswith("no final") else b""))
            got = re.sub(r"\s+", " ", str(tree.root_node))
            want = re.sub(r"\s+", " ", expected.strip())
            assert re.sub(r"\w+: ", "", got) == re.sub(r"\w+: ", "", want), title
            count += 1
    assert count >= 15


AUGEAS = sorted((CORPUS / "augeas").rglob("*.conf")) if CORPUS.exists() else []
# Checked with `apache2 -t` (Debian 2.4): these four are refused by httpd itself.
AUGEAS_REFUSED_BY_HTTPD = {"05-apache.conf", "25-apache.conf", "26-apache.conf", "36-apache.conf"}


@pytest.mark.skipif(not AUGEAS, reason="shared corpus not present beside the checkout")
@pytest.mark.parametrize("path", AUGEAS, ids=lambda p: p.name)
def test_augeas_edge_cases_parse_as_httpd_reads_them(path):
    from apache2nginx.syntax.loader import load
    diags = Diagnostics()
    load(path, None, diags)
    errors = [d for d in diags if d.severity is Severity.ERROR]
    if path.name in AUGEAS_REFUSED_BY_HTTPD:
        assert errors
    else:
        assert not errors, [(d.code, d.message) for d in errors]


# ------------------------------------------------------------------ the real httpd as oracle

SYNTAX_CASES = [
    "Header set X \"abc\n",
    "<Location /a>\n</Location>junk\n",
    "<Location /a>\n</Location  >\n",
    "<Location /a>\n</Location>>\n",
    "<Location \"/a>\n</Location>\n",
    "<IfModule headers_module> # note\nHeader set A b\n</IfModule>\n",
    "<Location /a>\n  # comment \\\n  Header set X y\n</Location>\n",
    "Header set X a\\\n",
    "<Location /a>\n",
    "</Location>\n",
    "<Location /a>\n<Directory /b>\n</Location>\n</Directory>\n",
    "<IfModule>\n</IfModule>\n",
    "<Location /a\n</Location>\n",
    "<IfVersion >= 2.4>\nHeader set A b\n</IfVersion>\n",
    "<If \"%{HTTP_HOST} == 'a'\">#\n</If>\n",
    "Header\tset\tX\ty\r\n<Location /x>\r\n</location>\r\n",
]


@pytest.mark.parametrize("text", SYNTAX_CASES)
def test_syntax_verdict_agrees_with_real_apache(apache_bin, tmp_path, text):
    pre = tmp_path / "pre.conf"
    pre.write_text(f"ServerRoot {tmp_path}\nPidFile {tmp_path}/pid\nMutex file:{tmp_path}\n"
                   f"DefaultRuntimeDir {tmp_path}\nErrorLog {tmp_path}/error.log\nServerName localhost\n"
                   "LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\n"
                   "LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so\n"
                   "LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so\n"
                   "Listen 127.0.0.1:1\n")
    case = tmp_path / "case.conf"
    case.write_text(text)
    proc = subprocess.run([apache_bin, "-t", "-f", str(pre), "-c", f"Include {case}"], capture_output=True,
                          text=True, timeout=30)
    httpd_ok = proc.returncode == 0
    from apache2nginx.syntax.loader import load
    diags = Diagnostics()
    load(case, None, diags)
    ours_ok = not diags.has_errors
    assert ours_ok == httpd_ok, (proc.stderr, [(d.code, d.message) for d in diags])
