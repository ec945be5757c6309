"""Unit checks of the pieces access control and rewrite conditions are built from, against models of
httpd's own semantics."""
from __future__ import annotations

import itertools
import re

from apache2nginx.passes.access import basename_regex, password_scheme
from apache2nginx.passes.auth_files import group_members, httpd_lines, nginx_reads_otherwise
from apache2nginx.passes.rewrite_compare import integer_compare, string_compare


def _lexicographic(a: str, b: str) -> int:
    """mod_rewrite's compare_lexicography: a longer string is greater, then byte by byte."""
    x, y = a.encode("latin-1"), b.encode("latin-1")
    if len(x) != len(y):
        return 1 if len(x) > len(y) else -1
    for p, q in zip(x, y):
        if p != q:
            return 1 if p > q else -1
    return 0


def _atoi(text: str) -> int:
    m = re.match(r"[\t\n\x0b\f\r ]*([+-]?)(\d*)", text)
    value = int(m.group(2) or 0)
    return -value if m.group(1) == "-" else value


def test_string_comparisons_match_httpds_order():
    ops = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0, ">=": lambda c: c >= 0}
    for constant in ["", "0700", "a", "zz", "~"]:
        for op, holds in ops.items():
            rx = re.compile(string_compare(op, constant))
            for n in range(4):
                for chars in itertools.product("0a9Z ~", repeat=n):
                    s = "".join(chars)
                    assert bool(rx.search(s)) == holds(_lexicographic(s, constant)), (op, constant, s)


def test_integer_comparisons_match_atoi():
    ops = {"-lt": lambda a, b: a < b, "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b,
           "-ge": lambda a, b: a >= b, "-eq": lambda a, b: a == b}
    samples = ["", "0", "007", "+7", "-7", " 12", "12abc", "abc", "-", "+", "-0", " -3x", "+-3", " +0012"] + \
        [str(x) for x in range(-120, 130, 7)]
    for constant in [0, 1, 7, 10, 99, 100, -1, -7, -100]:
        for op, holds in ops.items():
            rx = re.compile(integer_compare(op, str(constant)))
            for s in samples:
                assert bool(rx.search(s)) == holds(_atoi(s), constant), (op, constant, s)


def test_file_patterns_match_the_name_of_a_segment():
    dot_ht = re.compile(basename_regex(".ht*", False))
    assert dot_ht.search("/.htaccess") and dot_ht.search("/a/.htpasswd") and dot_ht.search("/.htaccess/x")
    assert not dot_ht.search("/a.htaccess") and not dot_ht.search("/x")
    alternatives = re.compile(basename_regex(r"\.(inc|.*sql)$|^(\..*|Entries.*)$", True))
    assert alternatives.search("/d/x.inc") and alternatives.search("/a.mysql") and alternatives.search("/.git")
    assert alternatives.search("/x.sql/more")          # path info after the refused file
    assert not alternatives.search("/x.include") and not alternatives.search("/xEntries")
    assert basename_regex("a/b", False) is None         # a pattern naming a directory is not a file name


def test_password_schemes():
    assert password_scheme("$apr1$salt$hash") == "apr1"
    assert password_scheme("{SHA}abc=") == "sha1"
    assert password_scheme("$2y$05$abcdefghijklmnopqrstuv") == "bcrypt"
    assert password_scheme("$6$salt$hash") == "crypt"
    assert password_scheme("abcdefghijklm") == "crypt"   # 13-character DES
    assert password_scheme("plaintext") == "unknown"
    assert password_scheme("{PLAIN}secret") == "nginx-only"
    assert password_scheme("{SSHA}abc=") == "nginx-only"


def test_auth_file_lines_as_httpd_reads_them():
    """ap_cfg_getline: a trailing backslash joins the next line (not on a last line without a newline),
    blanks around a line are dropped."""
    assert httpd_lines("a: x \\\nb: y\n  c: z \r\nd\\") == ["a: x b: y", "c: z", "d\\"]
    assert httpd_lines("a\\\r\nb\n") == ["ab"]


def test_group_members_as_httpd_reads_them():
    text = "editors: alice \\\nstaff: bob\n# old: carol \\\nadmins: carol\n  Team: dave \"e ve\"\n"
    assert group_members(text, {"staff"}) == set()
    assert group_members(text, {"EDITORS"}) == {"alice", "staff:", "bob"}
    assert group_members(text, {"admins"}) == set()
    assert group_members(text, {"team"}) == {"dave", "e ve"}


def test_password_file_nginx_reads_otherwise():
    assert nginx_reads_otherwise("alice:$apr1$a$b\n# note\n") is None
    assert "alice" in nginx_reads_otherwise("# off: carol\\\nalice:$apr1$a$b\n")
    assert "{PLAIN}" in nginx_reads_otherwise("alice:{PLAIN}secret\n")


def test_require_all_of_a_user_and_an_address_without_auth_type_is_refused_not_a_crash(tmp_path):
    # found by the differential fuzzer (seed 9): the RequireAll form read a third part of the user form
    from conftest import assert_no_traceback, run_cli
    conf = tmp_path / "apache.conf"
    conf.write_text("Listen 127.0.0.1:18120\nDocumentRoot /srv/www\n<Directory /srv/www/data/>\n    <RequireAll>\n"
                    "        Require valid-user\n        Require ip 127.0.0.1\n    </RequireAll>\n</Directory>\n")
    proc = run_cli("convert", str(conf))
    assert_no_traceback(proc)
    assert "internal error" not in proc.stderr and "A2N742" in proc.stderr
    assert "deny all" in proc.stdout


def test_a_require_all_refuses_everyone_only_with_an_address_and_its_negation():
    from apache2nginx.passes.access import AccessConfig, Authz, refuses_all

    def require_all(*leaves: tuple[str, bool]) -> list:
        children = [Authz("leaf", "ip", [net], negated) for net, negated in leaves]
        children.append(Authz("leaf", "all", ["granted"]))
        return [AccessConfig(authz=Authz("any", children=[Authz("all", children=children)]))]
    # `Require ip A` with `Require not ip A`: whatever the client's address, one of them is denied
    assert refuses_all(require_all(("127.0.0.1", False), ("127.0.0.1", True)))
    # `Require not ip A` alone (or beside another address) lets every other client in
    assert not refuses_all(require_all(("10.0.0.0/8", True)))
    assert not refuses_all(require_all(("127.0.0.1", False), ("10.0.0.0/8", True)))
