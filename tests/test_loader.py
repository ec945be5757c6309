"""Include/Define/IfModule/IfDefine/IfVersion/IfFile resolution, with spans kept."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from apache2nginx.diagnostics import Diagnostics, Severity
from apache2nginx.passes.base import Disposition
from apache2nginx.syntax.loader import LoadOptions, load


def names(cfg):
    return [(n.name, n.args) for n in cfg.walk()]


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_include_glob_directory_and_spans(tmp_path):
    write(tmp_path, {
        "main.conf": "ServerRoot " + str(tmp_path) + "\nInclude conf.d/*.conf\nInclude extra\nListen 80\n",
        "conf.d/b.conf": "ServerName b\n",
        "conf.d/a.conf": "ServerName a\n",
        "conf.d/skip.txt": "Nope x\n",
        "extra/z/one.conf": "ServerAlias one\n",
        "extra/two.conf": "ServerAlias two\n",
    })
    diags = Diagnostics()
    cfg = load(tmp_path / "main.conf", None, diags)
    assert not diags.has_errors, list(diags)
    got = [(n.name, n.args[0]) for n in cfg.walk() if n.name != "ServerRoot"]
    # alphabetical within a glob; a directory is read recursively in order
    assert got == [("ServerName", "a"), ("ServerName", "b"), ("ServerAlias", "two"), ("ServerAlias", "one"),
                   ("Listen", "80")]
    a = [n for n in cfg.walk() if n.args == ["a"]][0]
    assert a.file.endswith("conf.d/a.conf") and a.line == 1
    assert len(cfg.consumed) == 2 and cfg.lines == 4 + 1 + 1 + 1 + 1


def test_relative_include_falls_back_to_the_input_directory(tmp_path):
    write(tmp_path, {"site/apache2.conf": "ServerRoot /etc/apache2\nInclude ports.conf\n",
                     "site/ports.conf": "Listen 8080\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "site/apache2.conf", None, diags)
    assert ("Listen", ["8080"]) in names(cfg)


def test_absolute_include_under_serverroot_is_rebased_onto_the_copy(tmp_path):
    write(tmp_path, {"apache2.conf": "ServerRoot /etc/apache2\nInclude /etc/apache2/mods/x.conf\n",
                     "mods/x.conf": "ServerName rebased\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "apache2.conf", None, diags)
    assert ("ServerName", ["rebased"]) in names(cfg)


def test_missing_include_is_an_error_and_optional_is_silent(tmp_path):
    write(tmp_path, {"m.conf": "IncludeOptional nope/*.conf\nInclude missing.conf\nListen 1\n"})
    diags = Diagnostics()
    load(tmp_path / "m.conf", None, diags)
    errs = [d for d in diags if d.severity is Severity.ERROR]
    assert [d.code for d in errs] == ["A2N020"] and errs[0].span.line == 2 and errs[0].span.column == 9
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", LoadOptions(missing_includes="warn"), diags)
    assert not diags.has_errors and ("Listen", ["1"]) in names(cfg)


def test_include_loop_is_detected_with_its_chain(tmp_path):
    write(tmp_path, {"a.conf": "Include b.conf\n", "b.conf": "Include a.conf\nListen 2\n"})
    diags = Diagnostics()
    load(tmp_path / "a.conf", None, diags)
    loops = [d for d in diags if d.code == "A2N021"]
    assert loops and "a.conf -> " in loops[0].message and loops[0].span.file.endswith("b.conf")


def test_define_variables_and_ifdefine(tmp_path):
    write(tmp_path, {"m.conf": "Define docroot /srv/www\nDefine FLAG\n<IfDefine FLAG>\nDocumentRoot ${docroot}\n"
                               "</IfDefine>\n<IfDefine !FLAG>\nDocumentRoot /wrong\n</IfDefine>\n"
                               "UnDefine FLAG\n<IfDefine FLAG>\nListen 9\n</IfDefine>\n"
                               "ErrorLog ${APACHE_LOG_DIR}/error.log\nCustomLog ${NOPE}/x\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", None, diags)
    assert names(cfg) == [("DocumentRoot", ["/srv/www"]), ("ErrorLog", ["/var/log/apache2/error.log"]),
                          ("CustomLog", ["${NOPE}/x"])]
    (undef,) = [d for d in diags if d.code == "A2N022"]
    assert undef.span.line == 14 and undef.severity is Severity.ERROR
    assert [n.unresolved for n in cfg.walk()] == [None, None, ("NOPE",)]   # not translated (test_whole_server)
    cfg = load(tmp_path / "m.conf", LoadOptions(defines={"docroot": "/cli"}), Diagnostics())
    assert ("DocumentRoot", ["/srv/www"]) in names(cfg)  # the file's Define comes later and wins


def test_ifmodule_profile(tmp_path):
    write(tmp_path, {"m.conf": "<IfModule mod_ssl.c>\nA 1\n</IfModule>\n<IfModule !ssl_module>\nB 1\n</IfModule>\n"
                               "<IfModule mpm_prefork_module>\nC 1\n</IfModule>\n<IfModule mod_nonesuch.c>\nD 1\n"
                               "</IfModule>\nLoadModule nonesuch_module modules/mod_nonesuch.so\n"
                               "<IfModule nonesuch_module>\nE 1\n</IfModule>\n<IfModule mod_log_config.c>\nF 1\n"
                               "</IfModule>\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", None, diags)
    assert [n.name for n in cfg.walk()] == ["A", "LoadModule", "E", "F"]
    skipped = [d for d in diags if d.code == "A2N024"]
    assert [d.span.line for d in skipped] == [7, 10]
    cfg = load(tmp_path / "m.conf", LoadOptions(modules={"prefork"}, without_modules={"ssl"}), Diagnostics())
    assert [n.name for n in cfg.walk()] == ["B", "C", "LoadModule", "E", "F"]


def test_input_loadmodule_of_an_mpm_replaces_the_default(tmp_path):
    write(tmp_path, {"m.conf": "LoadModule mpm_prefork_module x/mod_mpm_prefork.so\n"
                               "<IfModule mpm_prefork_module>\nA 1\n</IfModule>\n<IfModule mpm_event_module>\nB 1\n"
                               "</IfModule>\n"})
    cfg = load(tmp_path / "m.conf", None, Diagnostics())
    assert [n.name for n in cfg.walk()] == ["LoadModule", "A"]


@pytest.mark.parametrize("pattern, gives_up", [("^" + ".*" * 80 + "x", False), ("^" + "(.?)*" * 12 + "(?!)", True)])
def test_ifversion_regex_that_backtracks_without_end_is_false_at_once(tmp_path, pattern: str, gives_up: bool):
    """httpd runs <IfVersion ~ regex> on PCRE2 with its match limit: answered at once, the section false
    (Python's re ran these for ever)."""
    write(tmp_path, {"m.conf": f"<IfVersion ~ {pattern}>\nA 1\n</IfVersion>\nB 1\n"})
    diags = Diagnostics()
    started = time.monotonic()
    cfg = load(tmp_path / "m.conf", None, diags)
    assert time.monotonic() - started < 15
    assert names(cfg) == [("B", ["1"])]
    warned = [d for d in diags if d.code == "A2N023" and d.severity is Severity.WARNING]
    assert bool(warned) == gives_up and all(d.span.line == 1 for d in warned)


def test_ifversion_regex_with_nested_repeats_is_refused_without_pcre(tmp_path, monkeypatch):
    from apache2nginx.passes import pcre
    monkeypatch.setattr(pcre, "_library", lambda: None)
    write(tmp_path, {"m.conf": "<IfVersion ~ ^(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*(.*)*x>\nA 1\n"
                               "</IfVersion>\n<IfVersion ~ ^2\\.4>\nB 1\n</IfVersion>\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", None, diags)
    assert names(cfg) == [("B", ["1"])]
    refused = [d for d in diags if d.code == "A2N023" and d.severity is Severity.ERROR]
    assert len(refused) == 1 and refused[0].span.line == 1


def test_ifversion_iffile_ifdirective_ifsection(tmp_path):
    (tmp_path / "present").write_text("")
    write(tmp_path, {"m.conf": "<IfVersion >= 2.4>\nA 1\n</IfVersion>\n<IfVersion < 2.2>\nB 1\n</IfVersion>\n"
                               "<IfVersion = 2.4>\nC 1\n</IfVersion>\n<IfVersion ~ ^2\\.4>\nD 1\n</IfVersion>\n"
                               f"<IfFile {tmp_path}/present>\nE 1\n</IfFile>\n<IfFile !present>\nF 1\n</IfFile>\n"
                               "<IfDirective ProxyPass>\nG 1\n</IfDirective>\n<IfDirective NoSuchThing>\nH 1\n"
                               "</IfDirective>\n<IfSection VirtualHost>\nI 1\n</IfSection>\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", None, diags)
    # mod_version fills a missing part with 0: `= 2.4` is 2.4.0 exactly, false on a later 2.4
    assert [n.name for n in cfg.walk()] == ["A", "D", "E", "G", "I"]
    assert all(d.severity is Severity.INFO for d in diags if d.code == "A2N023")
    cfg = load(tmp_path / "m.conf", LoadOptions(apache_version=(2, 4, 0)), Diagnostics())
    assert [n.name for n in cfg.walk()][:3] == ["A", "C", "D"]
    cfg = load(tmp_path / "m.conf", LoadOptions(apache_version=(2, 2, 34)), Diagnostics())
    assert [n.name for n in cfg.walk()][:2] == ["E", "G"]


# ------------------------------------------------------------------ mod_macro

def _load_text(tmp_path, text, **opts):
    (tmp_path / "m.conf").write_text(text)
    diags = Diagnostics()
    cfg = load(tmp_path / "m.conf", LoadOptions(**opts), diags)
    return cfg, diags


def test_macro_use_expands_the_body_in_place_with_spans_into_the_body(tmp_path):
    cfg, diags = _load_text(tmp_path, (
        "<Macro Site $name $domain>\n"
        "<VirtualHost *:80>\n"
        "    ServerName $domain\n"
        "    DocumentRoot /srv/$name/htdocs\n"
        "</VirtualHost>\n"
        "</Macro>\n"
        "Use Site one example.com\n"
        "Use SITE two example.org\n"))
    assert not list(diags)
    got = names(cfg)
    assert got == [("VirtualHost", ["*:80"]), ("ServerName", ["example.com"]), ("DocumentRoot", ["/srv/one/htdocs"]),
                   ("VirtualHost", ["*:80"]), ("ServerName", ["example.org"]), ("DocumentRoot", ["/srv/two/htdocs"])]
    roots = [n for n in cfg.walk() if n.name == "DocumentRoot"]
    # Both expansions point at the body line; columns are those of the source text.
    assert [(r.line, r.column, r.arg_span(0).column) for r in roots] == [(4, 5, 18), (4, 5, 18)]
    assert [r.include_chain[0].line for r in roots] == [7, 8]
    assert roots[0].parent.name == "VirtualHost" and roots[0].parent.close_line == 5
    # the definition and the Use lines are config-time directives, resolved while loading
    assert [n.name for n in cfg.consumed] == ["Macro", "Use", "Use"]


def test_macro_substitution_is_mod_macros(tmp_path):
    cfg, diags = _load_text(tmp_path, (
        "Define ROOT /srv\n"
        "<Macro M $a $ab @q>\n"
        "ServerAlias $ab$a x$a-$ab\n"
        "DocumentRoot ${ROOT}/$a\n"
        "ServerName @q\n"
        "</Macro>\n"
        "Define ROOT /data\n"
        'Use M 1 2 "say \\"hi\\" \\\\ there"\n'))
    assert not list(diags)
    # the longest parameter wins where two start at the same place; ${VAR} is read at Use time;
    # @q is replaced by a quoted, escaped string that the parser reads back as one value
    assert names(cfg) == [("ServerAlias", ["21", "x1-2"]), ("DocumentRoot", ["/data/1"]),
                          ("ServerName", ['say "hi" \\ there'])]


def test_macro_errors_are_located_and_as_httpd_reports_them(tmp_path):
    _, diags = _load_text(tmp_path, "Use Nope 1\n")
    assert [(d.code, d.message, d.span.line) for d in diags] == [("A2N026", "no macro defined before Use", 1)]
    _, diags = _load_text(tmp_path, (
        "<Macro A $x>\nServerName $x\n</Macro>\n"
        "Use A\nUse B 1\nUndefMacro A\nUse A 1\nUndefMacro A\n"
        "<Macro Dup $x $x>\nServerName $x\n</Macro>\n"
        "<Macro R $x>\nUse R $x\n</Macro>\nUse R 1\n"))
    got = [(d.code, d.span.line, d.message) for d in diags]
    assert got[1:] == [
        ("A2N026", 5, "macro 'b' undefined"),
        ("A2N026", 7, "macro 'a' undefined"),
        ("A2N026", 8, "cannot remove undefined macro 'a'"),
        ("A2N027", 9, "argument name conflict in macro 'dup': argument '$x': #1 and #2"),
        ("A2N026", 13, "recursive use of macro 'r' is invalid"),
    ]
    assert got[0][:2] == ("A2N026", 4) and got[0][2].endswith("used with 0 arguments instead of 1")
    recursion = list(diags)[-1]
    assert [s.line for s in recursion.related] == [15]   # the Use that started the expansion


def test_macro_expansion_errors_point_into_the_body_and_at_the_use(tmp_path):
    # The value brings a quote the body's line does not close: httpd reads the rest of the line.
    cfg, diags = _load_text(tmp_path, "<Macro Q $v>\n  ServerName x $v\n</Macro>\n\nUse Q '\"abc'\n")
    d = [x for x in diags if x.code == "A2N005"]
    assert len(d) == 1 and (d[0].span.line, d[0].span.column) == (2, 16)
    assert [s.line for s in d[0].related] == [5]
    assert names(cfg) == [("ServerName", ["x", "abc"])]


def test_nested_macro_definitions_are_substituted_by_the_outer_use(tmp_path):
    cfg, diags = _load_text(tmp_path, (
        "<Macro Outer $n>\n"
        "  <Macro Inner$n $v>\n"
        "    ServerAlias $n-$v\n"
        "  </Macro>\n"
        "</Macro>\n"
        "Use Outer 7\n"
        "Use Inner7 x\n"))
    assert not list(diags)
    alias = [n for n in cfg.walk() if n.name == "ServerAlias"]
    assert [(a.args, a.line) for a in alias] == [(["7-x"], 3)]


def test_macro_expansion_is_bounded(tmp_path):
    # Each level uses the one below twice: 2**40 lines if nothing stopped it.
    levels = ["<Macro L0 $x>\nServerAlias $x\n</Macro>\n"]
    levels += [f"<Macro L{i} $x>\nUse L{i - 1} $x\nUse L{i - 1} $x\n</Macro>\n" for i in range(1, 41)]
    cfg, diags = _load_text(tmp_path, "".join(levels) + "Use L40 a\n", max_input_size=200_000)
    assert any(d.code == "A2N011" for d in diags)


def test_macro_expansion_is_bounded_in_words_as_well_as_characters(tmp_path):
    """Short words multiply into millions of arguments long before the character budget is spent: the
    expansions may hold at most --max-input-size / 128 words (here 1,562), the Use past it refused."""
    body = "ServerAlias" + " $v" * 100
    text = f"<Macro M $v>\n{body}\n</Macro>\n" + "Use M a\n" * 20
    cfg, diags = _load_text(tmp_path, text, max_input_size=200_000)
    refused = [d for d in diags if d.code == "A2N011"]
    assert refused and "words" in refused[0].message and refused[0].span.line == 3 + 16
    assert len([n for n in cfg.walk() if n.name == "ServerAlias"]) == 15


def test_macro_module_left_out_of_the_profile_leaves_macros_unread(tmp_path):
    cfg, diags = _load_text(tmp_path, "<Macro A>\nServerName a\n</Macro>\nUse A\n", without_modules={"macro"})
    assert [n.name for n in cfg.walk()] == ["Macro", "ServerName", "Use"]


def test_bad_macros_give_located_errors_and_exit_2_never_a_traceback(tmp_path):
    from conftest import run_cli
    cases = {
        "<Macro>\n</Macro>\n": "A2N027",
        "Use\n": "A2N026",
        "<Macro a $x>\n</Macro>\nUse a\n": "A2N026",
        "<Macro a $x>\nUse a $x\n</Macro>\nUse a 1\n": "A2N026",
        "UndefMacro\n": "A2N026",
        "<Macro a $x>\nServerName $x\n": "A2N002",
    }
    for i, (text, code) in enumerate(cases.items()):
        path = tmp_path / f"bad{i}.conf"
        path.write_text(text)
        proc = run_cli("convert", str(path))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, (text, proc.stderr)
        assert f"error[{code}]" in proc.stderr and f"bad{i}.conf:" in proc.stderr, (text, proc.stderr)


def test_translation_diagnostics_on_expanded_directives_name_the_use_lines(tmp_path):
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    conf = tmp_path / "m.conf"
    conf.write_text("Listen 80\n<Macro Site $name>\n<VirtualHost *:80>\nServerName $name\n"
                    "ProxyPass /a ajp://backend/\n</VirtualHost>\n</Macro>\nUse Site a.example\n"
                    "Use Site b.example\n")
    diags = Diagnostics()
    convert([InputSpec(str(conf), conf)], ConvertOptions(), diags)
    ajp = [d for d in diags if d.code == "A2N302"]
    assert [d.span.line for d in ajp] == [5, 5]          # the body line, once per expansion...
    assert sorted(r.line for d in ajp for r in d.related) == [8, 9]   # ...and the Use line it came from


def test_envvars_values_are_expanded_as_the_shell_does(tmp_path):
    """Debian's envvars builds APACHE_LOG_DIR from $SUFFIX (empty for /etc/apache2): the value is read as the
    shell exports it, never with a `$` left for nginx to read as a variable of its own."""
    (tmp_path / "envvars").write_text(
        'if test "${APACHE_CONFDIR##/etc/apache2-}" != "${APACHE_CONFDIR}" ; then\n'
        '\tSUFFIX="-${APACHE_CONFDIR##/etc/apache2-}"\nelse\n\tSUFFIX=\nfi\n'
        "export APACHE_LOG_DIR=/var/log/apache2$SUFFIX\n"
        "export APACHE_LOCK_DIR=${APACHE_LOG_DIR}/lock\n"
        "export LITERAL='/x$SUFFIX'\n")
    (tmp_path / "apache2.conf").write_text("ErrorLog ${APACHE_LOG_DIR}/error.log\nMutex file:${APACHE_LOCK_DIR}\n"
                                           "Define L ${LITERAL}\nServerName ${L}\n")
    config = load(tmp_path / "apache2.conf", LoadOptions(), Diagnostics())
    args = {n.name: n.args for n in config.walk() if not n.is_section}
    assert args["ErrorLog"] == ["/var/log/apache2/error.log"]
    assert args["Mutex"] == ["file:/var/log/apache2/lock"]
    assert args["ServerName"] == ["/x$SUFFIX"]       # single quotes: the shell expands nothing


# ------------------------------------------------------------------ ${VAR}, the environment, server roots

def test_variables_resolve_as_httpd_does_define_then_environment(tmp_path, monkeypatch):
    """ap_resolve_env: a Define with a value, else the environment httpd starts with (envvars, then --env
    over it); `Define NAME` alone gives no value; UnDefine uncovers the environment's; this program's own
    environment is never read."""
    monkeypatch.setenv("A2N_TEST_SHELL_ONLY", "/from/the/shell")
    (tmp_path / "envvars").write_text("export A=envvars-a\nexport B=envvars-b\nexport C=envvars-c\n")
    write(tmp_path, {"apache2.conf": "Define B define-b\nDefine C\nServerName ${A}\nServerAlias ${B} ${C}\n"
                                     "UnDefine B\nServerAdmin ${B}\nDocumentRoot ${A2N_TEST_SHELL_ONLY}\n"
                                     "<IfDefine C>\nListen 1\n</IfDefine>\n"})
    diags = Diagnostics()
    cfg = load(tmp_path / "apache2.conf", LoadOptions(env={"A": "cli-a", "B": "cli-b"}), diags)
    args = {n.name: n.args for n in cfg.walk()}
    assert args["ServerName"] == ["cli-a"]                       # --env over envvars
    assert args["ServerAlias"] == ["define-b", "envvars-c"]      # Define over --env; `Define C` has no value
    assert args["ServerAdmin"] == ["cli-b"]                      # UnDefine: the environment's again
    assert args["Listen"] == ["1"]                               # ...but C is defined for <IfDefine>
    (undef,) = [d for d in diags if d.code == "A2N022"]
    assert "${A2N_TEST_SHELL_ONLY}" in undef.message and undef.span.line == 7 and undef.span.column == 14
    assert "--env A2N_TEST_SHELL_ONLY=VALUE" in undef.hint
    assert [n.name for n in cfg.walk() if n.unresolved is not None] == ["DocumentRoot"]
    assert cfg.env["A"] == "cli-a" and cfg.undefined == {"A2N_TEST_SHELL_ONLY"}
    # -D NAME (no value) serves <IfDefine> only, as httpd's -D; NAME=VALUE is a Define
    cfg = load(tmp_path / "apache2.conf", LoadOptions(defines={"A": None, "A2N_TEST_SHELL_ONLY": "/v"}),
               Diagnostics())
    args = {n.name: n.args for n in cfg.walk()}
    assert args["ServerName"] == ["envvars-a"] and args["DocumentRoot"] == ["/v"]


def test_environment_by_layout(tmp_path):
    """Debian's stock envvars values for a file in no known layout; none on a Red Hat layout, where systemd
    starts httpd without them."""
    write(tmp_path, {"site.conf": "ErrorLog ${APACHE_LOG_DIR}/error.log\n",
                     "etc/httpd/conf/httpd.conf": "ErrorLog ${APACHE_LOG_DIR}/error.log\n",
                     "etc/httpd/conf.modules.d/00-base.conf": "\n"})
    cfg = load(tmp_path / "site.conf", None, Diagnostics())
    assert next(cfg.walk()).args == ["/var/log/apache2/error.log"]
    diags = Diagnostics()
    cfg = load(tmp_path / "etc/httpd/conf/httpd.conf", None, diags)
    assert next(cfg.walk()).unresolved == ("APACHE_LOG_DIR",) and [d.code for d in diags] == ["A2N022"]


def test_map_lookups_macro_parameters_and_define_values_are_not_reported_where_they_stand(tmp_path):
    """`${map:key}` is mod_rewrite's (a Define name cannot hold `:`; httpd is silent); mod_macro's `${name}`
    parameters are names; a Define's value and a Use line's values are reported where they land."""
    cfg, diags = _load_text(tmp_path, (
        "RewriteEngine on\nRewriteMap lc int:tolower\nRewriteRule ^/(.*)$ /${lc:$1}?h=${lc:%{HTTP_HOST}|x} [R]\n"
        "<Macro Site ${host}>\nServerName ${host}\n</Macro>\nUse Site a.example\n"
        "Define LATER ${NOPE}\nDefine UNUSED ${NOPE2}\nUse Site ${NOPE3}\nServerAdmin ${LATER}\n"))
    undefined = [d for d in diags if d.code == "A2N022"]
    assert [(d.span.line, d.message.split(" is")[0]) for d in undefined] == [(5, "${NOPE3}"), (11, "${NOPE}")]
    assert undefined[0].related and undefined[0].related[-1].line == 10        # the Use line it came through
    assert "in the value of ${LATER}" in undefined[1].message and undefined[1].related[0].line == 8
    rule = next(n for n in cfg.walk() if n.name == "RewriteRule")
    assert rule.unresolved is None and rule.args[1] == "/${lc:$1}?h=${lc:%{HTTP_HOST}|x}"
    assert [n.args for n in cfg.walk() if n.name == "ServerName"] == [["a.example"], ["${NOPE3}"]]


def test_an_undefined_variable_in_a_rewrite_chain_takes_the_whole_rule(tmp_path):
    """Translated without its condition a rule would apply to every request; a condition kept without its
    rule would restrict the next one: the chain is left out together, and the A2N022 names its lines."""
    cfg, diags = _load_text(tmp_path, (
        "RewriteEngine on\nRewriteCond %{HTTP_HOST} !^${CANONICAL}$ [NC]\nRewriteCond %{HTTPS} off\n"
        "RewriteRule ^ https://example.org%{REQUEST_URI} [R=301,L]\n"
        "RewriteCond %{REQUEST_URI} ^/a\nRewriteRule ^ /${TARGET} [L]\nRewriteRule ^/b /c\n"))
    left_out = [n.line for n in cfg.walk() if n.unresolved is not None]
    assert left_out == [2, 3, 4, 5, 6]
    first, second = [d for d in diags if d.code == "A2N022"]
    assert (first.span.line, sorted(r.line for r in first.related)) == (2, [3, 4])
    assert (second.span.line, sorted(r.line for r in second.related)) == (6, [5])
    assert "nor are the 2 other line(s) of its rewrite rule" in first.message


def test_a_copy_of_a_red_hat_tree_reads_under_its_own_server_root(tmp_path):
    """ServerRoot "/etc/httpd" with httpd.conf in conf/: relative includes resolve under the copy's
    etc/httpd, not under conf/ (a decoy there is never read) and not under this machine's /etc/httpd."""
    write(tmp_path, {
        "backup/etc/httpd/conf/httpd.conf": 'ServerRoot "/etc/httpd"\nInclude conf.modules.d/*.conf\n'
                                            "IncludeOptional conf.d/*.conf\nInclude /etc/httpd/extra/x.conf\n",
        "backup/etc/httpd/conf/conf.d/decoy.conf": "ServerName decoy\n",
        "backup/etc/httpd/conf.modules.d/00-base.conf": "LoadModule ssl_module modules/mod_ssl.so\n",
        "backup/etc/httpd/conf.d/site.conf": "<IfModule mod_ssl.c>\nServerName site\n</IfModule>\n",
        "backup/etc/httpd/extra/x.conf": "ServerAlias rebased\n",
    })
    diags = Diagnostics()
    cfg = load(tmp_path / "backup/etc/httpd/conf/httpd.conf", None, diags)
    assert not diags.has_errors, list(diags)
    assert [(n.name, n.args) for n in cfg.walk() if n.name != "ServerRoot"] == [
        ("LoadModule", ["ssl_module", "modules/mod_ssl.so"]), ("ServerName", ["site"]),
        ("ServerAlias", ["rebased"])]
    assert cfg.server_root == "/etc/httpd"


def test_an_input_that_loads_modules_states_its_profile(tmp_path):
    """From the first LoadModule on, <IfModule> sees httpd's built-ins, what was loaded and --module only
    (as httpd does), and says so as a note; before any, and for a site file, Debian's full set applies."""
    cfg, diags = _load_text(tmp_path, (
        "<IfModule ratelimit_module>\nA 1\n</IfModule>\nLoadModule ssl_module modules/mod_ssl.so\n"
        "<IfModule mod_ssl.c>\nB 1\n</IfModule>\n<IfModule mod_ratelimit.c>\nC 1\n</IfModule>\n"
        "<IfModule log_config_module>\nD 1\n</IfModule>\n<IfModule headers_module>\nE 1\n</IfModule>\n"
        "<IfModule mpm_event_module>\nF 1\n</IfModule>\n"), modules={"headers"})
    assert [n.name for n in cfg.walk() if n.name != "LoadModule"] == ["A", "B", "D", "E"]
    assert cfg.profile.from_input and "ratelimit_module" not in cfg.profile.loaded
    notes = [d for d in diags if d.code == "A2N024"]
    assert [(d.span.line, d.severity) for d in notes] == [(8, Severity.INFO), (17, Severity.INFO)]


def test_includes_and_conditions_with_an_undefined_variable_count_as_unsupported(tmp_path):
    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    write(tmp_path, {"m.conf": "Listen 80\nIncludeOptional ${CONF_DIR}/*.conf\n<IfDefine ${FLAG}>\nServerName a\n"
                               "</IfDefine>\n<Macro M ${p}>\nServerAlias ${p}\n</Macro>\nUse M b.example\n"})
    diags = Diagnostics()
    result = convert([InputSpec(str(tmp_path / "m.conf"), tmp_path / "m.conf")], ConvertOptions(), diags)
    assert [(d.span.line, d.severity) for d in diags if d.code == "A2N022"] == [(2, Severity.ERROR),
                                                                                (3, Severity.ERROR)]
    assert result.tally.by_name["includeoptional"][Disposition.UNSUPPORTED] == 1
    assert result.tally.by_name["<ifdefine"][Disposition.UNSUPPORTED] == 1
    assert result.tally.by_name["<macro"][Disposition.EXACT] == 1
    assert result.tally.by_name["use"][Disposition.EXACT] == 1


def test_a_glob_may_name_thousands_of_site_files(tmp_path):
    """One file per site is how mass hosting is configured: a glob naming more files than a directory walk
    may (4,096) is read, while a directory include stays capped (test_hostile_input: `Include /`)."""
    from apache2nginx.syntax.loader import MAX_INCLUDE_MATCHES
    count = MAX_INCLUDE_MATCHES + 10
    write(tmp_path, {"main.conf": "ServerRoot " + str(tmp_path) + "\nInclude sites/*.conf\n"})
    (tmp_path / "sites").mkdir()
    for i in range(count):
        (tmp_path / "sites" / f"site-{i:05d}.conf").write_text(f"ServerAlias s{i}\n")
    diags = Diagnostics()
    cfg = load(tmp_path / "main.conf", None, diags)
    assert not [d for d in diags if d.code == "A2N013"]
    assert sum(1 for n in cfg.walk() if n.name == "ServerAlias") == count


def test_a_directory_include_stays_capped(tmp_path):
    from apache2nginx.syntax.loader import MAX_INCLUDE_MATCHES
    write(tmp_path, {"main.conf": "ServerRoot " + str(tmp_path) + "\nInclude tree\n"})
    for i in range(MAX_INCLUDE_MATCHES + 1):
        p = tmp_path / "tree" / f"d{i % 7}" / f"f{i}.conf"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("ServerAlias x\n")
    diags = Diagnostics()
    load(tmp_path / "main.conf", None, diags)
    assert [d for d in diags if d.code == "A2N013" and "under directories" not in d.message and
            f"{MAX_INCLUDE_MATCHES:,}" in d.message]
