"""mod_headers: Header and RequestHeader.

`Header always set` is nginx's `add_header ... always` exactly. The default
(onsuccess) table has no exact nginx twin: it replaces a backend's header of
the same name and also covers proxied 4xx/5xx; the translation hides the
backend's copy, sends the header (`always`, through a map over the status,
see `onsuccess`) on the answers httpd's handler would make, and warns.
Inheritance is the emitter's job: any block with its own `add_header` gets the
enclosing list repeated first, as Apache merges Header lists.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from ..model import UNSET_WHEN, WALK_FILE, Stmt
from ..syntax.tree import Directive
from . import contexts
from .base import Context, Disposition, Rule, table
from .header_expr import HeaderCondition, Untranslatable
from .vhost_alias import server_port_variable
from . import header_join, header_refusals, setenvif

_FORMAT = re.compile(r"%(?:\{[^}]*\}[a-zA-Z]|[a-zA-Z%])")


def _split(d: Directive, model=None) -> tuple[str, str, list[str], list[str]]:
    """CONDITION, ACTION, [NAME, VALUE...] and the extras of a Header line; with MODEL, a value httpd sends
    as written has its `$` kept literal (NginxModel.literal: add_header and map values read variables)."""
    args = list(d.args)
    condition = "onsuccess"
    if args and args[0].lower() in ("always", "onsuccess"):
        condition = args.pop(0).lower()
    action = args.pop(0).lower() if args else ""
    extras = [a for a in args if a.lower() == "early" or a.lower().startswith(("env=", "expr="))]
    rest = _header_name(action, [a for a in args if a not in extras])
    if len(rest) == 2 and action in ("set", "add", "append", "merge", "setifempty"):
        rest[1] = _literal_percent(rest[1])
        if model is not None:
            rest[1] = model.literal(rest[1])
    return condition, action, rest, extras


def _literal_percent(value: str) -> str:
    """VALUE with mod_headers' `%%` read as the one `%` it stands for (its format parser passes `%%` through
    as `%`; observed: `"camera=() %%"` is sent as `camera=() %`), where no other format specifier is in it;
    otherwise unchanged, for the format check to report."""
    literal = value.replace("%%", "%")
    if "%%" in value and not _FORMAT.search(re.sub("%%", "", value)) and not _FORMAT.search(literal):
        return literal
    return value


def _header_name(action: str, rest: list[str]) -> list[str]:
    """REST with the header name as mod_headers takes it: cut at its first colon (`Header set X-Name: v` and
    `Header set X-Name:junk v` both name X-Name). `echo` takes a regular expression, compiled whole."""
    if rest and action != "echo" and ":" in rest[0]:
        return [rest[0].split(":", 1)[0], *rest[1:]]
    return rest


def _empty_name(ctx: Context, d: Directive, rest: list[str]) -> bool:
    """A name that is empty once cut at its colon (`Header set :X v`): httpd aborts every response it applies
    to with a 500 (AH02428 Empty response header name); refused rather than translated."""
    if rest and rest[0] == "" and ":" in " ".join(d.args):
        ctx.diags.add("A2N505", f"{d.name} {' '.join(d.args)}: the header name before the colon is empty; httpd "
                      "answers every response it applies to with 500 (empty header name), which has no nginx "
                      "translation; nothing was emitted", d.span, directive=d.name,
                      hint="write the header name before the colon")
        return True
    return False


def header(ctx: Context, d: Directive) -> Disposition:
    done = _header(ctx, d)
    condition, action, rest, _ = _split(d)
    if done is not Disposition.UNSUPPORTED and action in ("set", "add", "append", "merge") and rest:
        _both_tables(ctx, d, condition, rest[0])
    if done is not Disposition.UNSUPPORTED and action in ("set", "add", "append", "merge") and rest \
            and _in_file_section(ctx):
        ctx.diags.add("A2N512", f"Header {action} {rest[0]} in a file section: httpd matches the section against "
                      "the name its directory walk stops at (a missing directory, or a file with path info after "
                      "it); nginx matches the URL's own names, so an answer under such a name (or under a "
                      "directory named like the file) carries the header in nginx only", d.span, directive=d.name)
    if done is not Disposition.UNSUPPORTED and action in ("set", "add", "append", "merge") and rest \
            and condition == "always":
        _missing_directory(ctx, d, rest[0])
    return done


def _missing_directory(ctx: Context, d: Directive, name: str) -> None:
    """A `Header always` line of a <Directory> that the document root read (--docroot) lacks: httpd merges a
    <Directory> only as its directory walk enters the directory, which stops at the first missing segment
    (server/request.c ap_directory_walk), so every URL under it is a 404 without the header; nginx's location
    for those URLs sends it on that 404. Said once for each section."""
    scope = ctx.scope
    if scope is None or scope.kind != "directory" or not scope.settings.get("missing_directory") \
            or scope.settings.get("missing_reported"):
        return
    scope.settings["missing_reported"] = True
    ctx.diags.add("A2N727", f"Header always {' '.join(d.args[1:2])} {name} in <Directory {scope.path}>: the document "
                  f"root read has no such directory ({scope.settings['missing_directory']}), so httpd never applies "
                  "the section and answers the URLs under it 404 without its headers; nginx's location for them "
                  "sends its `Header always` lines on that 404", d.span, directive=d.name,
                  hint="create the directory, or remove the section if it is a leftover")


def _both_tables(ctx: Context, d: Directive, condition: str, name: str) -> None:
    """A header named both by a `Header always` line and by an onsuccess one, of this block or of one around
    it: httpd sends both lines on its handler's answers, the always one alone on its own errors (the
    onsuccess table is dropped there). Where the translation refuses a region (403), the refusal sends the
    always line alone, as httpd's errors do, so a request httpd answers with success there is one line
    short of httpd's (emit.inherit.refused_headers). Said once per header and block, at the inner line."""
    table = "always" if condition == "always" else "onsuccess"
    seen = ctx.server.settings.setdefault("header_tables", {})
    here = id(ctx.scope) if ctx.scope is not None else None
    other = "onsuccess" if table == "always" else "always"
    key = name.lower()
    main = ctx.main.settings.get("header_tables", {}) if ctx.server is not ctx.main else {}
    found = seen.get((here, key, other)) or (seen.get((None, key, other)) if here is not None else None) \
        or main.get((None, key, other))
    seen.setdefault((here, key, table), d)
    said = ctx.server.settings.setdefault("header_tables_said", set())
    if found is None or (here, key) in said:
        return
    said.add((here, key))
    ctx.diags.add("A2N515", f"Header {name}: named both by `Header always` and by an onsuccess Header line; httpd "
                  "sends both lines on the answers its handler makes and the always line alone on its own errors; "
                  "where the translation refuses a region (403 where httpd may answer), the refusal sends the "
                  "always line alone (and the onsuccess line too for a file httpd serves, where the whole server "
                  "is refused over a region without access rules of its own, or whose rules let everyone in, or "
                  "after the rules of its own let the request in; and on a proxied URL, for the backend's answer)",
                  d.span, directive=d.name, related=[found.span] if found.span else [],
                  hint="give the header to one table only (`Header always set` where it belongs on every answer)")


def _in_file_section(ctx: Context) -> bool:
    scope = ctx.scope
    return scope is not None and scope.kind == "files"


def regex_directory_section(ctx: Context, d: Directive, section) -> str | None:
    """The expression of SECTION where D is one of its own Header lines and SECTION a <DirectoryMatch> (or
    <Directory ~>) of the server level, which the layout does not place: None otherwise."""
    regex = section.key == "directorymatch" or (section.key == "directory" and len(section.args) >= 2
                                                and section.args[0] == "~")
    if d.key != "header" or not regex or d.parent is not section or ctx.scope is not None \
            or section.unresolved is not None or not section.args:
        return None
    return section.args[-1].strip('"')


def _in_regex_directory(ctx: Context, d: Directive) -> Disposition:
    """A `Header [always|onsuccess] set|add|append|merge NAME VALUE` of a <DirectoryMatch re> (or <Directory ~
    re>): httpd matches the expression against the request's whole file name (r->filename, as the section's
    access rules: observed, `/data/` matches /srv/www/data/a.txt and the missing /srv/www/data/missing, whose
    404 carries the `Header always` line) and merges the section after every plain <Directory>. nginx has no
    such section; the line becomes a server-level add_header whose value is a map over the name httpd's walk
    stops at (model.WALK_FILE, set from $request_filename in every location: emit.layout._set_walk_file),
    empty (nothing sent) where the expression does not match, as `Header ... expr=` lines are.
    httpd's merge order is kept where other lines name the same header (_order_regex_directory_headers). A
    line with a condition of its own, and other actions, are reported as not translated."""
    condition, action, rest, extras = _split(d, ctx.model)
    if _empty_name(ctx, d, rest):
        return Disposition.UNSUPPORTED
    if extras or len(rest) != 2 or action not in ("set", "add", "append", "merge"):
        ctx.diags.add("A2N101", f"Header {' '.join(d.args)} inside <{d.parent.name} {' '.join(d.parent.args)}>: "
                      "only set, add, append and merge lines without a condition are translated there; nothing "
                      "was emitted for it", d.span, directive=d.name, related=[d.parent.span])
        return Disposition.UNSUPPORTED
    holds = ctx.model.shared_map("a2n_hdr_", WALK_FILE, [("~" + ctx.filename_regex, "1")], '""')
    before = len(ctx.server.statements)
    done = _conditional(ctx, d, condition, action, rest, None, holds=holds)
    ctx.server.settings.setdefault("regex_directory_headers", []).extend(
        st for st in ctx.server.statements[before:] if st.name == "add_header")
    return done


def _order_regex_directory_headers(server, main) -> None:
    """httpd merges a <DirectoryMatch>'s Header lines after the server's own and every plain <Directory>'s,
    whatever the order of the file: a `Header always set X-Frame-Options DENY` of <DirectoryMatch "/data/">
    replaces the SAMEORIGIN of <Directory /srv/www/data/sub> (observed: /data/sub/b.txt carries DENY alone).
    nginx adds a block's own add_header after the server's, so the server-level lines of the same header
    that stand after one of them in the file are moved before it, a virtual host naming the header repeats
    the main server's line after its own, and so does each <Directory> naming it (a <Files> or <Location>
    section's lines come after it in both)."""
    own = server.settings.get("regex_directory_headers", [])
    shared = main.settings.get("regex_directory_headers", []) if main is not None and main is not server else []
    for st in own:
        later = server.statements[server.statements.index(st) + 1:]
        if any(_names_header(other, st.args[0]) for other in later):
            server.statements.remove(st)
            server.statements.append(st)
    for st in shared:
        # (the main server's line, at http level, comes before a virtual host's own lines)
        if any(_names_header(other, st.args[0]) for other in server.statements):
            server.statements.append(copy.copy(st))
    lines = own + shared
    for scope in server.settings.get("directories", []):
        for st in lines:
            if any(_names_header(other, st.args[0]) for other in scope.statements):
                scope.statements.append(copy.copy(st))


def _names_header(st: Stmt, name: str) -> bool:
    """Whether ST, an add_header or proxy_hide_header, stands for a Header line of the header NAME."""
    return st.name in ("add_header", "proxy_hide_header") and bool(st.args) and st.args[0].lower() == name.lower()


def _header(ctx: Context, d: Directive) -> Disposition:
    if ctx.filename_regex is not None:
        return _in_regex_directory(ctx, d)
    condition, action, rest, extras = _split(d, ctx.model)
    if _empty_name(ctx, d, rest):
        return Disposition.UNSUPPORTED
    if [e.lower() for e in extras] == ["early"] and d.args[-1].lower() == "early":
        return _early(ctx, d, condition, action)
    if len(extras) == 1 and extras[0].lower().startswith("expr=") and action in ("set", "add", "append", "merge") \
            and len(rest) == 2:
        return _conditional(ctx, d, condition, action, rest, extras[0][5:])
    reason = None
    if len(extras) == 1 and extras[0].lower().startswith("env=") and action in ("set", "add", "append", "merge") \
            and len(rest) == 2:
        if _FORMAT.search(rest[1]):
            if setenvif.resolve(ctx.model, ctx.server, ctx.scope, extras[0][4:].lstrip("!"))[0] is not None:
                return _conditional(ctx, d, condition, action, rest, None)     # reports the format
        else:
            reader = _env_reader(ctx, d, rest[1], extras[0][4:])
            if reader.variable is not None:
                _module_env_note(ctx, d, reader)
                return _conditional(ctx, d, condition, action, rest, None, reader)
            reason = reader.reason if reader.reason and "per-directory" in reader.reason else None
    if len(extras) == 1 and extras[0].lower().startswith(("env=", "expr=")) and action == "unset" \
            and len(rest) == 1:
        # after a plain set of this block: exact; else the block's earlier lines, with A2N525's caveat
        env, expr = (extras[0][4:], None) if extras[0].lower().startswith("env=") else (None, extras[0][5:])
        if header_join.conditional_unset(ctx, d, condition, rest[0], env, expr):
            return Disposition.EXACT
        done = _unset_when(ctx, d, condition, rest[0], env, expr)
        if done is None and rest[0].lower() not in _GENERATED:
            done = _unset_later(ctx, d, condition, rest[0], env, expr)
        if done is not None:
            return done
    if extras:
        ctx.diags.add("A2N717" if reason else "A2N501", f"Header {' '.join(d.args)}: the condition {extras[0]!r} "
                      "is not translated" + (f" ({reason})" if reason else "") + "; nothing was emitted for this "
                      "header", d.span, directive=d.name,
                      hint="express the condition with a map that yields an empty value when it is false")
        return Disposition.UNSUPPORTED
    if not rest:
        ctx.diags.add("A2N001", "Header needs a header name", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name = rest[0]
    value = rest[1] if len(rest) > 1 else ""
    if action in ("set", "add", "append", "merge", "setifempty", "edit", "edit*") and _FORMAT.search(value):
        ctx.diags.add("A2N502", f"Header {name}: the format specifiers in {value!r} are not translated; "
                      "nothing was emitted for this header", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    always = ["always"] if condition == "always" else []
    table = "always" if condition == "always" else "onsuccess"
    if always and action in ("set", "add", "append", "merge"):
        _report_htaccess_level(ctx, d)
    if action in ("append", "merge") and (_join(ctx, action, name, value, table)
                                          or header_join.outer_join(ctx, d, action, name, value, table)):
        return Disposition.EXACT
    if action == "set":
        if condition == "always":
            stmt = ctx.emit("add_header", [name, value, "always"], d.span)
            stmt.resets = (name.lower(), table)
            _plain(ctx)[id(stmt)] = (stmt, value)
            return Disposition.EXACT
        ctx.emit("proxy_hide_header", [name], d.span)
        stmt = ctx.emit("add_header", [name, onsuccess(ctx, value)], d.span)
        stmt.resets = (name.lower(), table)
        _plain(ctx)[id(stmt)] = (stmt, value)
        ctx.diags.add("A2N503", f"Header set {name}: httpd also sets it on proxied 4xx/5xx responses; nginx "
                      "add_header (without always) only on 2xx/3xx", d.span, directive=d.name,
                      hint="use `Header always set` on the Apache side if the header belongs on every response")
        return Disposition.APPROXIMATE
    if action == "add":
        stmt = ctx.emit("add_header", [name, value if always else onsuccess(ctx, value), *always], d.span)
        stmt.adds = True
        _plain(ctx)[id(stmt)] = (stmt, value)
        if not always:
            ctx.diags.add("A2N503", f"Header add {name}: nginx add_header without always fires only on 2xx/3xx",
                          d.span, directive=d.name)
            return Disposition.APPROXIMATE
        return Disposition.EXACT
    if action in ("append", "merge"):
        stmt = ctx.emit("add_header", [name, value if always else onsuccess(ctx, value), *always], d.span)
        stmt.joins = action     # joined to an enclosing block's set where the two meet (emit.inherit)
        _plain(ctx)[id(stmt)] = (stmt, value)
        if header_join.conditional_join(ctx, d, stmt, action, name, value, table):
            return Disposition.EXACT
        _list_header(ctx, d, action, name)
        return Disposition.APPROXIMATE
    if action == "setifempty" and len(rest) == 2 and _UPSTREAM_NAME.match(name) \
            and name.lower() not in _GENERATED:
        return _setifempty(ctx, d, name, value, table)
    if action == "unset":
        ctx.emit("proxy_hide_header", [name], d.span).resets = (name.lower(), table)
        if name.lower() in _GENERATED:
            _generated(ctx, d, name)
            return Disposition.APPROXIMATE
        return Disposition.EXACT
    ctx.diags.add("A2N505", f"Header {action}: no nginx equivalent without a map over the backend header or the "
                  "headers-more module; nothing was emitted", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def _early(ctx: Context, d: Directive, condition: str, action: str) -> Disposition:
    """`Header ... early`: httpd applies the line once, when the request is read (post_read_request), to the
    table the response will be sent with, and not again as it leaves. An always-table line stays on every
    answer (err_headers_out survives errors, internal redirects and a backend's answer); an onsuccess line is
    dropped where httpd replaces its table (a backend's answer, an error, an internal redirect), and a later
    late line of the header acts on it. nginx has nothing that runs this early: the line is translated as the
    same line without `early`, so the header may be sent on more answers than httpd's, never on fewer.
    An early unset or edit finds both tables still empty and does nothing: nothing is emitted."""
    if action in ("unset", "edit", "edit*"):
        return Disposition.EXACT    # the tables are still empty when the request is read: nothing to act on
    late = copy.copy(d)
    late.args = list(d.args[:-1])
    done = _header(ctx, late)
    if done is not Disposition.UNSUPPORTED:
        ctx.diags.add("A2N516", f"Header {' '.join(d.args)}: httpd applies this line when the request is read, "
                      "so a backend's answer, an error or an internal redirect (onsuccess table) and a later "
                      "line of the header can drop it; nginx sends it as a line applied as the answer leaves",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return done


# a header name nginx's $upstream_http_<name> can read
_UPSTREAM_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


def _setifempty(ctx: Context, d: Directive, name: str, value: str, table: str) -> Disposition:
    """`Header [always] setifempty NAME VALUE`: httpd (mod_headers' fixup) sets NAME in the line's own table
    only when that table has no NAME yet (observed: a static file gets the header). The onsuccess table
    holds a backend's headers, so there a backend's NAME is kept and VALUE is not added: nginx passes the
    backend's header and adds VALUE through a map over $upstream_http_<name> that is empty when the backend
    sent one (nginx skips an add_header whose value is empty). The always table never holds a backend's
    headers: there it is `add_header ... always`. After this block's own line for NAME in the same table
    (since its last set/unset) httpd has NAME already and does nothing, nor does the translation."""
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    found = block_lines(ctx, holder, name, table)
    if found is not None and found[0]:
        return Disposition.EXACT
    if table == "always":
        _report_htaccess_level(ctx, d)
        stmt = ctx.emit("add_header", [name, value, "always"], d.span)
        stmt.adds = True
        _plain(ctx)[id(stmt)] = (stmt, value)
        return Disposition.EXACT
    source = "$upstream_http_" + name.lower().replace("-", "_")
    absent = ctx.model.shared_map("a2n_ifempty_", source, [('""', value)], '""')
    stmt = ctx.emit("add_header", [name, onsuccess(ctx, absent)], d.span)
    stmt.adds = True
    ctx.diags.add("A2N503", f"Header setifempty {name}: nginx add_header without always fires only on 2xx/3xx; "
                  "a proxied 4xx/5xx without the header lacks it", d.span, directive=d.name)
    return Disposition.APPROXIMATE


# headers nginx makes itself, which no add_header takes away
_GENERATED = ("server", "date", "content-length", "content-type", "connection", "etag", "last-modified",
              "accept-ranges")


def _generated(ctx: Context, d: Directive, name: str) -> None:
    ctx.diags.add("A2N504", f"Header unset {name}: nginx generates this header itself and cannot remove it without "
                  "a third-party module (headers-more); only a backend's copy is hidden", d.span, directive=d.name)


def _unset_when(ctx: Context, d: Directive, condition: str, name: str, env: str | None,
                expr: str | None = None) -> Disposition | None:
    """`Header [always] unset NAME env=[!]VAR` (or `expr=EXPR`): httpd runs a block's Header lines in order, so
    the unset takes away what this block's earlier lines of the same table set, for the requests the
    condition holds for. nginx cannot take a header away, but those lines can send nothing there: each plain
    one's value becomes a map that is empty where VAR is set (unset, with `!`; where EXPR holds). Only where
    every line that may have set NAME before is such a line of this block (the first a `set`, or a server
    with no other block above it); else None (the caller reports A2N501). A backend's own NAME stays
    (A2N525)."""
    table = "always" if condition == "always" else "onsuccess"
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    plain, key = _plain(ctx), (name.lower(), table)
    found = block_lines(ctx, holder, name, table)
    if found is None:
        return None                 # a conditional line: its value is not known here
    lines, ended_by = found
    complete = ended_by is not None     # a set, or an unset: nothing before it is left
    if not complete and _set_before(ctx, key[0]):
        return None     # a block httpd merges before this one may have set it: its line stays as it is
    if not lines:
        return None
    if expr is not None:
        if not header_join.unless_expr(ctx, d, lines, plain, expr, table, "unless expr (a later Header unset)"):
            return None
    else:
        negate = env.startswith("!")
        words = setenvif.input_words(ctx.options, ctx.server)
        if setenvif.resolve(ctx.model, ctx.server, ctx.scope, env.lstrip("!"), words)[0] is None:
            return None
        for st in lines:
            value = plain.pop(id(st))[1]
            # the line's own value where the unset does not apply
            reader = _env_reader(ctx, d, value, "!" + env.lstrip("!") if not negate else env.lstrip("!"))
            st.args[1] = reader.variable if table == "always" else onsuccess(ctx, reader.variable)
            st.comment = f"unless {'!' if negate else ''}{env.lstrip('!')} (a later Header unset)"
            reader.emitted(st)
    ctx.diags.add("A2N525", f"Header {' '.join(d.args)}: the earlier {name} lines of this block send nothing "
                  "where the condition holds; nginx cannot take away a backend's own " + name, d.span,
                  directive=d.name)
    return Disposition.APPROXIMATE


def _unset_later(ctx: Context, d: Directive, condition: str, name: str, env: str | None,
                 expr: str | None) -> Disposition | None:
    """`Header [always] unset NAME env=[!]VAR` (or `expr=EXPR`) where the lines that may have set NAME before
    it are not all plain lines of its own block: an enclosing block's (a <Directory> above, a .htaccess, the
    server), or conditional ones. httpd takes NAME away as the response leaves, wherever the condition holds;
    the lines httpd ran before it are those nginx repeats before it in the block the two meet in (emit.inherit
    merges them as httpd does), so the unset is a marker there that makes each of them send nothing where the
    condition holds. None (the caller reports A2N501) where the condition is not translated. A backend's own
    NAME stays (A2N525)."""
    table = "always" if condition == "always" else "onsuccess"
    compiler = _compiler(ctx, span=d.span)
    reader = None
    if expr is not None:
        try:
            holds = compiler.compile(expr)
        except Untranslatable:
            return None
    else:
        if setenvif.resolve(ctx.model, ctx.server, ctx.scope, env.lstrip("!"),
                            setenvif.input_words(ctx.options, ctx.server))[0] is None:
            return None
        reader = _env_reader(ctx, d, "1", env)
        if reader.variable is None:
            return None
        holds = reader.variable
    stmt = ctx.emit(UNSET_WHEN, [name, holds] + (["always"] if table == "always" else []), d.span)
    stmt.resets, stmt.conditional = (name.lower(), table), True
    if reader is not None:
        reader.emitted(stmt)
    ctx.model.conditional_header_sets = True
    if expr is not None:
        emit_vary(ctx, compiler, d.span, table == "always")
    ctx.diags.add("A2N525", f"Header {' '.join(d.args)}: the earlier {name} lines send nothing where the "
                  "condition holds; nginx cannot take away a backend's own " + name, d.span, directive=d.name)
    return Disposition.APPROXIMATE


# the kinds of sections httpd merges before one of each kind (the server's own lines first; <Directory>,
# then <Files>, then <Location>: core's merge order)
_MERGED_BEFORE = {None: (), "directory": ("directory",), "files": ("directory", "files"),
                  "location": ("directory", "files", "location")}


def _set_before(ctx: Context, name: str) -> bool:
    """Whether a Header line for NAME may run before the current block's own: in the main server (for a
    virtual host's lines), in the server (for a section's), or in a section merged before it."""
    servers = [ctx.server] + ([ctx.main] if ctx.server is not ctx.main else [])
    holders = [ctx.main.statements] if ctx.server is not ctx.main else []
    if ctx.scope is not None:
        holders.append(ctx.server.statements)
        kinds = _MERGED_BEFORE.get(ctx.scope.kind, ("directory", "files", "location"))
        seen: set[int] = set()
        for server in servers:
            pool = list(server.scopes) + list(server.settings.get("directories", [])) + \
                list(server.settings.get("files", []))
            for scope in pool:
                if scope is not ctx.scope and id(scope) not in seen and scope.kind in kinds:
                    seen.add(id(scope))
                    holders.append(scope.statements)
    return any(st.name == "add_header" and st.args and st.args[0].lower() == name
               for holder in holders for st in holder)


def block_lines(ctx: Context, holder: list[Stmt], name: str, table: str) -> tuple[list[Stmt], str | None] | None:
    """The add_header lines for NAME in TABLE ("always"/"onsuccess") of HOLDER since its last `set` or
    `unset`, latest first (a set among them), and which of the two ended them (None: neither, the block's
    first line for NAME was reached); None where one of them is not a plain line (a conditional line's value
    is not known here)."""
    plain, key = _plain(ctx), (name.lower(), table)
    lines: list[Stmt] = []
    for st in reversed(holder):
        if st.name == "add_header" and st.args and (st.args[0].lower(),
                                                   "always" if st.args[-1] == "always" else "onsuccess") == key:
            if id(st) not in plain or plain[id(st)][0] is not st:
                return None
            lines.append(st)
            if st.resets:
                return lines, "set"
        elif st.resets == key:
            return lines, "unset"
    return lines, None


def _plain(ctx: Context) -> dict[int, tuple[Stmt, str]]:
    """The add_header statements of unconditional Header set/add/append/merge lines, with their plain values."""
    return ctx.main.settings.setdefault("plain_headers", {})


def _join(ctx: Context, action: str, name: str, value: str, table: str) -> bool:
    """`Header append|merge NAME VALUE` after the same block's own lines for NAME in the same table: httpd
    joins VALUE to the first NAME there with ", " (apr_table_mergen; merge only when no comma-separated token
    of it is VALUE already), which one add_header sends as one line. True when done so (every line for NAME
    since its last set/unset is a plain one of this block); else the caller adds a line of its own."""
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    plain = _plain(ctx)
    found = block_lines(ctx, holder, name, table)
    if found is None or not found[0]:
        return False        # a conditional line (its value is not known here), or none since a set/unset
    lines = found[0]
    first = lines[-1]
    old = plain[id(first)][1]
    if action == "merge" and value in [t.strip() for t in old.split(",")]:
        return True
    joined = f"{old}, {value}"
    first.args[1] = joined if table == "always" else onsuccess(ctx, joined)
    plain[id(first)] = (first, joined)
    return True


# What the onsuccess gate reads: the status, the method, the backend's status (empty: nginx answered itself)
# and the URI (after an error_page's internal redirect: the error document's).
GATE_SOURCE = "$status:$request_method:$upstream_status:$uri"
# nginx's own redirects: a 3xx status with no upstream answer behind it (return, rewrite, a directory's slash)
OWN_REDIRECT = "~^30[12378]:[^:]*::"
# the statuses nginx's add_header without `always` fires on
SUCCESS = "~^(?:200|201|204|206|301|302|303|304|307|308):"
# nginx's static handler refusing a method httpd serves a file for (POST) or answers itself (OPTIONS)
STATIC_REFUSAL = "~^405:(?:POST|OPTIONS)::"


def onsuccess(ctx: Context, value: str) -> str:
    r"""VALUE for an onsuccess (`Header` without always) add_header, a variable the renderer writes with
    `always`: httpd's onsuccess table (mod_headers' FIXUP_HEADERS_OUT output filter) reaches the answers
    the handler makes, and not the errors httpd answers itself (ap_send_error_response swaps the tables),
    nor its own redirects (Redirect, RewriteRule [R], mod_dir's trailing slash: errors too, where nginx's
    add_header fires on every 301/302/303/307/308); a backend's redirect carries the header in both
    ($upstream_status is set). So the value is sent on the statuses nginx's plain add_header fires on but
    nginx's own redirects; on the 405 nginx's static handler answers to a POST or OPTIONS where httpd
    serves the file (observed: httpd 200 with the header); and on any status at an ErrorDocument's local
    URL, whose internal redirect runs the handler and the document's onsuccess headers (observed with httpd
    2.4: a 404 answered by /errors/404.html carries a <FilesMatch "\.html$"> `Header set`), those entries
    added once every ErrorDocument is read (finish_model)."""
    # (a map's entries are quoted as they are written, its default is not)
    variable = ctx.model.shared_map("a2n_onsuccess_", GATE_SOURCE,
                                    [(OWN_REDIRECT, '""'), (SUCCESS, value), (STATIC_REFUSAL, value)], '""')
    ctx.model.onsuccess_ungated[variable] = value
    return variable


# A response nginx makes from a file carries its modification time up to the header filter (which drops
# Last-Modified from a non-200 only after add_header ran); nginx's own error pages clear it.
SERVED_SOURCE = "$sent_http_last_modified"


def _error_document_entries(ctx: Context) -> None:
    """Every onsuccess gate also sends its value on any status at the local URL an ErrorDocument names, when
    the document was found: a backend answered it, or nginx served it from a file. httpd answers a document
    that is missing with its own error (the original status, "Additionally, a 404 Not Found error was
    encountered while trying to use an ErrorDocument"), which carries the always table alone; so does a
    request for the document's own URL that finds nothing."""
    targets: dict[str, None] = {}

    def walk(statements) -> None:
        for st in statements:
            if st.name == "error_page" and st.args and st.args[-1].startswith("/"):
                targets[st.args[-1].split("?", 1)[0]] = None
            if st.block:
                walk(st.block)

    def walk_location(loc) -> None:
        walk(loc.statements)
        for inner in loc.locations:
            walk_location(inner)

    walk(ctx.model.http_statements)
    for server in {id(s): s for s in [ctx.main, *ctx.model.servers]}.values():
        walk(server.statements)
        walk(server.own_statements)
        for scope in server.scopes + server.settings.get("directories", []) + server.settings.get("files", []):
            walk(scope.statements)
        for loc in server.locations:
            walk_location(loc)
    if not targets:
        return
    from ..emit.render import quote
    ungated = ctx.model.onsuccess_ungated
    for block in [b for b in ctx.model.maps if b.variable in ungated and b.source == GATE_SOURCE]:
        value = ungated[block.variable]
        # a page nginx answered itself only when it served it from a file: one missing is nginx's own error
        # answer (recursive_error_pages off), which httpd gives without the document's headers. But for a
        # path with %2F, whose refusal (passes.mime) nginx repeats on the document's URL, httpd serves it
        if ctx.model.has_map("$a2n_encoded_slash"):
            served = ctx.model.shared_map("a2n_served_", "$a2n_encoded_slash:" + SERVED_SOURCE,
                                          [("0:", '""')], quote(value))
        else:
            served = ctx.model.shared_map("a2n_served_", SERVED_SOURCE, [('""', '""')], quote(value))
        for t in targets:
            block.entries.append(("~^[0-9]+:[^:]*::" + re.escape(t) + "$", served))
            block.entries.append(("~^[0-9]+:.*:" + re.escape(t) + "$", value))


def _report_htaccess_level(ctx: Context, d: Directive) -> None:
    """A .htaccess read on its own is translated as the server's own configuration, so its `Header always`
    lines are server-level add_headers: nginx also sends them on the 400 it answers itself for a request it
    cannot map (a path climbing out of the root such as /%2e%2e/etc/passwd, before any location), where
    httpd never reads the .htaccess (observed with httpd 2.4 and nginx 1.22). Said once per file."""
    if ctx.options.get("htaccess_dir") is None or ctx.scope is not None or ctx.in_vhost:
        return
    said = ctx.main.settings.setdefault("htaccess_header_level", set())
    if d.span is None or d.span.file in said:
        return
    said.add(d.span.file)
    ctx.diags.add("A2N510", f"Header {' '.join(d.args)}: the .htaccess headers become server-level add_header "
                  "lines, which nginx also sends on the 400 it answers itself for a path it cannot map (one that "
                  "climbs out of the root); httpd answers those without reading the .htaccess", d.span,
                  directive=d.name, hint="translate the .htaccess inside its <Directory> in the server "
                  "configuration to keep the headers to the directory's requests")


def _list_header(ctx: Context, d: Directive, action: str, name: str) -> None:
    ctx.diags.add("A2N506", f"Header {action} {name}: httpd joins the value to an existing {name} with a comma"
                  + (" unless it is already there" if action == "merge" else "")
                  + "; nginx sends it as another header line, which HTTP reads as the same list"
                  + (" (so a value already present is repeated)" if action == "merge" else "")
                  + ("" if name.lower() in _LIST_HEADERS else f"; {name} may not be a list header, so clients may "
                     "read it differently"), d.span, directive=d.name)


# Headers whose value is a comma-separated list: repeated lines mean the same as one joined line (RFC 9110 5.3).
_LIST_HEADERS = {"vary", "cache-control", "link", "allow", "accept-patch", "access-control-allow-headers",
                 "access-control-allow-methods", "access-control-expose-headers", "content-encoding", "via",
                 "warning", "x-robots-tag", "timing-allow-origin", "server-timing", "accept-ranges"}


def _env_reader(ctx: Context, d: Directive, value: str, env: str) -> "setenvif.EnvReader":
    """The reader of `env=[!]NAME`: VALUE when the condition holds where the Header stands, else empty."""
    negate = env.startswith("!")
    return setenvif.EnvReader(ctx, env.lstrip("!"), d.span, d,
                              lambda source: _compiler(ctx, span=d.span).value_when_set(source, value, negate), negate)


def _compiler(ctx: Context, server=None, span=None, **options) -> HeaderCondition:
    """A compiler of ap_expr conditions for SERVER (default: the current one), reading %{SERVER_PORT} as httpd
    has it there (the port the client named, else the ServerName's or the scheme's: not nginx's $server_port).
    The main server's lines apply to every virtual host, whose default ports differ: not translated there.
    An internal redirect parses its new URI, without a port, so httpd then reads the ServerName's or the
    scheme's port (observed with httpd 2.4: `<If "%{SERVER_PORT} -eq 8443">` holds for /index.html asked on
    :8443, not for / served by its index); nginx keeps the client's: A2N518 at SPAN."""
    server = server or ctx.server
    if server is None or server is ctx.main or span is None:
        return HeaderCondition(ctx.model, **options)    # every virtual host's own port: not one map

    def port() -> str:
        ctx.diags.add_once("A2N518", "the condition reads %{SERVER_PORT}: httpd's internal redirects (a "
                           "directory's index, an error page) read the server's default port, not the one the "
                           "client named", span)
        return server_port_variable(ctx, server)
    return HeaderCondition(ctx.model, port_source=port, **options)


def _module_env_note(ctx: Context, d: Directive, reader: "setenvif.EnvReader") -> None:
    """env=HTTPS read from nginx's $https (setenvif.module_variable): httpd's answers made before mod_ssl's fixup
    (an access refusal, a server-level redirect) do not see the variable, nginx's do."""
    if reader.source is not None and reader.source == setenvif.module_variable(ctx.model, reader.name):
        ctx.diags.add("A2N517", f"Header {' '.join(d.args)}: nginx's $https holds on every answer of a TLS "
                      "connection, where httpd sets HTTPS only once a request passed its access checks and "
                      "server-level redirects", d.span, directive=d.name)


def _conditional(ctx: Context, d: Directive, condition: str, action: str, rest: list[str], expr: str | None,
                 env: "setenvif.EnvReader | None" = None, holds: str | None = None) -> Disposition:
    """Header set|add NAME VALUE expr=...|env=...: a map yields VALUE when the condition holds, and add_header
    sends nothing for an empty value. HOLDS: the variable (1 or empty) of a condition already compiled."""
    name, value = rest
    if _FORMAT.search(value):
        ctx.diags.add("A2N502", f"Header {name}: the format specifiers in {value!r} are not translated; "
                      "nothing was emitted for this header", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    compiler = _compiler(ctx, span=d.span)
    try:
        if env is not None:
            variable = env.variable
        else:
            holds = compiler.compile(expr) if holds is None else holds
            if action in ("append", "merge") and _join_when(ctx, compiler, holds, action, name, value, condition):
                emit_vary(ctx, compiler, d.span, condition == "always")
                return Disposition.EXACT
            variable = compiler.value_map(holds, value)
    except Untranslatable as e:
        ctx.diags.add("A2N501", f"Header {' '.join(d.args)}: the condition expr={expr} is not translated ({e}); "
                      "nothing was emitted for this header", d.span, directive=d.name,
                      hint="express the condition with a map that yields an empty value when it is false")
        return Disposition.UNSUPPORTED
    def emit(*args) -> Stmt:
        stmt = ctx.emit(*args)
        if env is not None:
            env.emitted(stmt)
        return stmt

    def emit_set(args: list[str]) -> None:
        """`set` replaces the same header that came before, where its condition holds (see emit.inherit)."""
        stmt = emit("add_header", args, d.span)
        if value and not compiler.reads_status:
            header_join.known_lines(ctx)[id(stmt)] = (stmt, value)
        if action == "set":
            stmt.resets, stmt.conditional = (name.lower(), condition if condition == "always" else "onsuccess"), True
            ctx.model.conditional_header_sets = True
        stmt.adds = action == "add"

    emit_vary(ctx, compiler, d.span, condition == "always")
    if condition != "always":
        variable = onsuccess(ctx, variable)
    if expr is not None and _CONTENT_TYPE.search(expr):
        _untyped_stays_untyped(ctx, d)
    if condition == "always" and compiler.reads_status:
        # on a refusal the translation writes (403 where httpd may answer 404...), the header is sent: its
        # status says nothing of httpd's, and a security header is never to be lost (emit.inherit); so for
        # an append or merge line too
        ctx.model.onsuccess_ungated.setdefault(variable, value)
    if action in ("append", "merge"):
        stmt = emit("add_header", [name, variable, *(["always"] if condition == "always" else [])], d.span)
        if value and not compiler.reads_status:
            # joined to the block's lines before it where the two meet (header_join.settle_joins)
            header_join.known_lines(ctx)[id(stmt)] = (stmt, value)
            if header_join.conditional_join(ctx, d, stmt, action, name, value,
                                            "always" if condition == "always" else "onsuccess"):
                return Disposition.EXACT
            stmt.joins = action     # joined to an earlier section's line where the two meet (emit.inherit)
        _list_header(ctx, d, action, name)
        return Disposition.APPROXIMATE
    if condition == "always":
        emit_set([name, variable, "always"])
        return Disposition.EXACT
    emit_set([name, variable])
    ctx.diags.add("A2N503", f"Header {action} {name} (with a condition): nginx add_header without always fires only "
                  "on 2xx/3xx, and a backend's own copy is kept beside it", d.span, directive=d.name,
                  hint="use `Header always` on the Apache side if the header belongs on every response")
    return Disposition.APPROXIMATE


def _join_when(ctx: Context, compiler: HeaderCondition, holds: str, action: str, name: str, value: str,
               condition: str) -> bool:
    """`Header append|merge NAME VALUE expr=...` after a plain `Header set NAME` of the same block (and plain
    lines after it): where the expression holds httpd joins VALUE to the set's value with ", "
    (apr_table_mergen; merge: unless it is one of its members already), one header line ("DENY, SAMEORIGIN")
    where nginx would send two X-Frame-Options lines; elsewhere the set's value stays. So the set's line
    takes a map: the joined value where the expression holds, its own value otherwise. The line is no
    longer a plain one (later lines are not joined to it). False (nothing changed) where the lines are not
    known so, or the expression reads the response's status (a refusal the translation writes says
    nothing of httpd's)."""
    table = "always" if condition == "always" else "onsuccess"
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    if compiler.reads_status:
        return False
    lines = header_join.since_set(ctx, holder, name, table)
    if not lines:
        return False
    plain = _plain(ctx)
    first = lines[-1]
    old = plain[id(first)][1]
    if action == "merge" and value in [t.strip() for t in old.split(",")]:
        return True
    chosen = compiler.value_or(holds, f"{old}, {value}", old)
    first.args[1] = chosen if table == "always" else onsuccess(ctx, chosen)
    first.comment = f"joined with a later Header {action} where its condition holds"
    del plain[id(first)]
    return True


_CONTENT_TYPE = re.compile(r"%\{\s*CONTENT_TYPE\s*\}", re.I)
_UNTYPED = "httpd sends no Content-Type for a file of no known type, and expr= reads it as empty"


def _untyped_stays_untyped(ctx: Context, d: Directive) -> None:
    """An expr= reading %{CONTENT_TYPE} sees it empty for a file whose name has no known type (httpd 2.4 has no
    DefaultType and sends no Content-Type then; observed: h5bp's `Header merge Cache-Control no-store
    "expr=-z %{CONTENT_TYPE}"` answers such files with no-store), where nginx sends its default_type
    (application/octet-stream). `default_type ""` makes nginx send none either, in the block the header is in:
    a server block (never the http level, which an nginx.conf gives its own default_type) or a location."""
    if ctx.scope is not None:
        _add_untyped(ctx.scope.statements, d)
    elif ctx.server is not ctx.main:
        _add_untyped(ctx.server.statements, d)
    else:
        # the main server's headers are at http level, inherited by every virtual host: each server block
        ctx.main.settings.setdefault("untyped_responses", d.span)


def _add_untyped(statements: list, d_or_span) -> None:
    if not any(st.name == "default_type" for st in statements):
        span = getattr(d_or_span, "span", d_or_span)
        statements.append(Stmt("default_type", [""], span, comment=_UNTYPED))


def emit_vary(ctx: Context, compiler: HeaderCondition, span, always: bool) -> None:
    """httpd adds the request headers an expression reads to the response's Vary, on the responses that carry
    its headers_out (observed: `Header always` also on errors, `Header`, `RequestHeader` and `Require expr` on
    successful ones), so caches keep one copy per value."""
    for value in compiler.vary_values():
        ctx.emit("add_header", ["Vary", value] + (["always"] if always else []), span)


def request_header(ctx: Context, d: Directive) -> Disposition:
    """RequestHeader changes the request as later phases and the backend see it: the backend's copy is
    `proxy_set_header` for proxied requests and the HTTP_* parameter for FastCGI (and CGI) programs. A
    condition chooses between the new value and the client's own (a map); an empty value sends no header."""
    args = list(d.args)
    action = args.pop(0).lower() if args else ""
    extras = [a for a in args if a.lower() == "early" or a.lower().startswith(("env=", "expr="))]
    rest = _header_name(action, [a for a in args if a not in extras])
    if not rest:
        ctx.diags.add("A2N001", "RequestHeader needs a header name", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if _empty_name(ctx, d, rest):
        return Disposition.UNSUPPORTED
    name = rest[0]
    original = "$http_" + re.sub(r"[^a-z0-9]", "_", name.lower())
    condition = None
    if extras:
        condition = _request_condition(ctx, d, extras)
        if condition is None:
            return Disposition.UNSUPPORTED
    value = rest[1] if len(rest) > 1 else ""
    if action in ("set", "setifempty", "add", "append", "merge", "edit", "edit*") and _FORMAT.search(value):
        ctx.diags.add("A2N502", f"RequestHeader {name}: format specifiers are not translated", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    disposition = Disposition.EXACT
    literal = ctx.model.literal(value) if action in ("set", "setifempty", "append", "merge") else value
    if action == "set" and len(rest) == 2:
        new = literal
    elif action == "unset" and len(rest) == 1:
        new = ""
    elif action == "setifempty" and len(rest) == 2:
        new = ctx.model.shared_map("a2n_reqhdr_", original, [('""', literal)], original)
    elif action in ("append", "merge") and len(rest) == 2 and '"' not in value:
        # httpd joins with ", " (merge: unless the value is already one of the list's members)
        entries = [('""', literal)]
        if action == "merge":
            entries.append((f"~(?:^|,)\\s*{re.escape(value)}\\s*(?:,|$)", original))
        from ..emit.render import quote
        new = ctx.model.shared_map("a2n_reqhdr_", original, entries, quote(f"{original}, {literal}"))
    elif action == "edit" and len(rest) == 3:
        new = _edit_map(ctx, d, original, rest[1], rest[2])
        if new is None:
            return Disposition.UNSUPPORTED
        disposition = Disposition.APPROXIMATE
        ctx.diags.add("A2N507", f"RequestHeader edit {name}: the edited value reaches proxied and FastCGI backends; "
                      f"nginx's own handling of the request (conditional requests, logs) sees the client's {name}",
                      d.span, directive=d.name)
    else:
        ctx.diags.add("A2N505", f"RequestHeader {action}: not translated; nothing was emitted", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    if condition is not None:
        new = ctx.model.shared_map("a2n_reqhdr_", condition, [("1", new or '""')], original)
    param = "HTTP_" + re.sub(r"[^A-Z0-9]", "_", name.upper())
    # A later unconditional set/unset replaces what earlier RequestHeaders of the name gave the backend (see
    # emit.inherit); a value computed from the client's header cannot build on an earlier one's: reported.
    reads = condition is not None or action not in ("set", "unset")
    for stmt in (ctx.emit("proxy_set_header", [name, new], d.span),
                 # nginx passes a request header to FastCGI itself unless a parameter of that name is set
                 ctx.emit("fastcgi_param", [param, new] + (["if_not_empty"] if "$" in new or not new else []),
                          d.span)):
        stmt.resets, stmt.conditional = (name.lower(), "request"), reads
    expr = extras[0][5:] if condition is not None and extras[0].lower().startswith("expr=") else None
    ctx.model.request_header_ops.append(_RequestHeaderOp(ctx.server, ctx.scope, name.lower(), reads, d, disposition,
                                                         condition if expr is not None else None, expr, new))
    return disposition


@dataclass
class _RequestHeaderOp:
    server: object
    scope: object
    name: str
    reads: bool
    directive: Directive
    disposition: Disposition
    condition: str | None = None    # the variable of its expr= (1 where it holds)
    expr: str | None = None
    value: str | None = None        # what the backend's copy takes (a map over the condition, with one)


def _report_chained_request_headers(ctx: Context) -> None:
    """A RequestHeader whose value is computed from the header (condition, append, merge, setifempty, edit)
    starts from the client's value in the translation; in httpd an earlier RequestHeader of the same name
    (the main server's, the virtual host's before a section's, or an earlier line of its block) changed it
    first. Reported where such an earlier operation may run before it."""
    # by header and server: an operation meets those of its own server and the main server's (linear in the
    # number of virtual hosts, however many set the same header)
    by_server: dict[tuple[str, int], list[_RequestHeaderOp]] = {}
    for op in ctx.model.request_header_ops:
        by_server.setdefault((op.name, id(op.server)), []).append(op)
    for (name, server), same in by_server.items():
        outer = by_server.get((name, id(ctx.main)), []) if server != id(ctx.main) else []
        for op in same:
            if not op.reads:
                continue
            before = next((o for o in outer + same if o is not op and _may_run_before(o, op, ctx.main)), None)
            if before is None:
                continue
            ctx.diags.add("A2N508", f"RequestHeader {' '.join(op.directive.args)}: the value is computed from the "
                          f"client's {op.directive.args[1] if len(op.directive.args) > 1 else 'header'}, but httpd "
                          f"applies RequestHeader {' '.join(before.directive.args)} to it first",
                          op.directive.span, directive=op.directive.name,
                          hint="fold the two operations into one RequestHeader, or set the final value outright",
                          related=[before.directive.span])
            if op.disposition is Disposition.EXACT:
                ctx.redispose(op.directive, Disposition.APPROXIMATE)


def _report_reapplied_request_headers(ctx: Context) -> None:
    """A per-directory rewrite to a URL path is served through an internal redirect whose request shares the
    original's headers_in (ap_internal_redirect); mod_headers' fixup applied the server's RequestHeader lines
    to it already and applies them again on the redirected request. An append, an edit, or a merge of a value
    holding a comma (never found among the list's members) changes the header twice there; nginx's rewrite
    applies the line once. Reported for a server's own lines (those of the main server reach every virtual
    host) where the server or the main server holds such a rewrite."""
    redirects = {id(s): s.settings.get("rewrite_internal_redirects") for s in ctx.model.servers}
    main_redirects = ctx.main.settings.get("rewrite_internal_redirects") or []
    for op in ctx.model.request_header_ops:
        args = op.directive.args
        action = args[0].lower() if args else ""
        if op.scope is not None or not (action in ("append", "edit", "edit*")
                                        or action == "merge" and len(args) > 2 and "," in args[2]):
            continue
        if op.server is ctx.main:
            spans = main_redirects or next((r for r in redirects.values() if r), [])
        else:
            spans = (redirects.get(id(op.server)) or []) + main_redirects
        if not spans:
            continue
        ctx.diags.add("A2N899", f"RequestHeader {' '.join(args)}: httpd applies it again to a per-directory "
                      f"rewrite's result (an internal redirect keeps the request headers), nginx once",
                      op.directive.span, directive=op.directive.name,
                      hint="use RequestHeader set with the final value",
                      related=[sp for sp in spans[:3] if sp is not None])
        if op.disposition is Disposition.EXACT:
            ctx.redispose(op.directive, Disposition.APPROXIMATE)


def _hold_redirected_conditions(ctx: Context) -> None:
    """A per-directory rewrite to a URL path is served through an internal redirect whose request shares the
    original's headers_in (ap_internal_redirect), and mod_headers' fixup (after mod_rewrite's) applied the
    server's RequestHeader lines to the original request already: a condition reading %{REQUEST_URI} was
    evaluated on the path before the rewrite, and the header it set stays, whatever the condition says of the
    new path (observed with httpd 2.4: `RequestHeader set X-Forwarded-Server front expr=%{REQUEST_URI} =~
    m#\\.txt$#` and a <Directory> rule rewriting /shop/a.txt to the proxied /files/: the backend gets
    "front, <ServerName>"). nginx reads $uri once, when the backend's copy is made: the rewritten path. So
    where the server has such rewrites, the condition holds where it holds for $uri or for the path a
    per-directory rewrite redirected the request from (REDIRECTED_FROM, set right before each one:
    emit.layout.hold_redirected_from)."""
    from .rewrite_model import REDIRECTED_FROM
    redirecting = {id(s) for s in ctx.model.servers if s.settings.get("rewrite_internal_redirects")}
    main_redirects = bool(ctx.main.settings.get("rewrite_internal_redirects"))
    for op in ctx.model.request_header_ops:
        if op.scope is not None or op.expr is None:
            continue
        servers = list(ctx.model.servers) if op.server is ctx.main else [op.server]
        if not main_redirects and not any(id(s) in redirecting for s in servers):
            continue
        block = next((m for m in ctx.model.maps if m.variable == op.value and m.source == op.condition), None)
        if block is None:
            continue
        compiler = _compiler(ctx, None, request_only=True, uri_source=lambda: REDIRECTED_FROM)
        held = compiler.compile(op.expr)
        if held == op.condition:
            continue    # the condition reads nothing a redirect changes
        redirected = compiler.value_when_set(REDIRECTED_FROM, "1", negate=False)
        # in place: where no such rewrite ran the path is empty and $uri decides alone, so another line sharing
        # the map (the same condition and value) reads what it did
        block.source = compiler.any_of([op.condition, compiler.all_of([redirected, held])])
        for server in servers:
            server.settings["redirected_from_read"] = True


def _may_run_before(other: _RequestHeaderOp, op: _RequestHeaderOp, main) -> bool:
    """Whether httpd may apply OTHER to the header before OP: the main server's lines come before a virtual
    host's, a server's before a section's, and within one block the file order holds."""
    if other.server is not op.server:
        return other.server is main
    if other.scope is op.scope:
        return (other.directive.span.line, other.directive.span.column) < (op.directive.span.line,
                                                                             op.directive.span.column) \
            if other.directive.span.file == op.directive.span.file else True
    return other.scope is None or op.scope is not None


def _request_condition(ctx: Context, d: Directive, extras: list[str]) -> str | None:
    """A variable that is 1 when the RequestHeader's condition holds, or None (reported) where it is not
    translated. `early` runs before everything else in httpd (mod_rewrite, access checks see it): refused."""
    extra = extras[0]
    if len(extras) == 1 and extra.lower().startswith("expr="):
        try:
            compiler = _compiler(ctx, None, span=d.span, request_only=True)
            variable = compiler.compile(extra[5:])
            emit_vary(ctx, compiler, d.span, False)
            return variable
        except Untranslatable as e:
            ctx.diags.add("A2N501", f"RequestHeader {' '.join(d.args)}: the condition {extra} is not translated ({e}); "
                          "nothing was emitted", d.span, directive=d.name)
            return None
    if len(extras) == 1 and extra.lower().startswith("env="):
        variable = setenvif.condition_variable(ctx, extra[4:], d.span, widen=False)
        if variable is not None:
            return variable
    ctx.diags.add("A2N501", f"RequestHeader {' '.join(d.args)}: the condition {extra!r} is not translated; nothing "
                  "was emitted", d.span, directive=d.name)
    return None


def _edit_map(ctx: Context, d: Directive, original: str, regex: str, replacement: str) -> str | None:
    """`edit`: the first match of REGEX in the value replaced (ap_pregsub: $0-$9 and & for the match). As a map
    regex over the whole value: a lazy prefix, the match, the rest, with the replacement's groups renumbered."""
    try:
        groups = re.compile(regex).groups
    except re.error:
        groups = None
    if groups is None or groups + 3 > 9 or re.search(r"\\|\$(?!\d)", replacement):
        ctx.diags.add("A2N505", f"RequestHeader edit {d.args[1] if len(d.args) > 1 else ''}: this expression or "
                      "replacement is not translated; nothing was emitted", d.span, directive=d.name)
        return None
    def group(m: re.Match) -> str:
        # nginx reads one digit after `$` as a capture, so a digit after the reference stays literal
        return "$2" if m.group(0) == "&" else "$" + str(int(m.group(1)) + 2)
    body = re.sub(r"\$(\d)|&", group, replacement)
    value = "$1" + body + "$" + str(groups + 3)
    return ctx.model.shared_map("a2n_reqhdr_", original, [(f"~^(.*?)({regex})(.*)$", value)], original)


def finish_server(ctx: Context, server) -> None:
    """A server's <If>/<ElseIf>/<Else> headers are settled once the whole input is read (every member of
    their chain is), before the later passes finish the server: the rewrite pass carries the Header lines of
    the <Location> sections of a request's own URL to the answers of its rewritten request
    (rewrite_location_headers), which reads each line's value and how it replaces the lines before it (the
    main server, whose sections every virtual host merges, is finished first). The Header lines of its
    <DirectoryMatch> sections take their place in httpd's merge order once every <Directory> is read."""
    _finish_if_chains(ctx, server)
    _order_regex_directory_headers(server, ctx.main)


def finish_model(ctx: Context) -> None:
    """Env conditions are settled once every SetEnvIf line is read (httpd's order does not follow the file's);
    RequestHeader chains once every server's lines are; <If>/<ElseIf>/<Else> headers once every member of
    their chain is (with their server, finish_server: those of no server finished are settled here)."""
    setenvif.finish(ctx)
    _report_chained_request_headers(ctx)
    _report_reapplied_request_headers(ctx)
    _hold_redirected_conditions(ctx)
    _finish_if_chains(ctx)
    span = ctx.main.settings.get("untyped_responses")
    if span is not None:
        for server in ctx.model.servers:
            _add_untyped(server.own_statements if server is ctx.main else server.statements, span)
    header_refusals.finish(ctx)
    header_join.finish(ctx)
    header_join.settle_joins(ctx)
    _error_document_entries(ctx)
    header_join.mark_plain(ctx)


# ---------------------------------------------------------------- Header inside <If>/<ElseIf>/<Else>
#
# httpd merges the first member of an If/ElseIf/Else chain whose expression holds (the Else when none does)
# over the region's configuration, after every other section (ap_if_walk), and evaluates the expressions for
# each request, after any internal redirect (observed with httpd 2.4: a front controller's /login rewritten
# to /index.php is matched as /index.php). So every `Header set NAME` of a chain is one add_header whose
# value is a map choosing the member's value (empty: none, and add_header sends nothing); an `unset` every
# member makes is the plain unset. The maps are built once the whole chain is read (in a .htaccess file the
# Else comes after its If has been translated).

@dataclass
class _ChainHeader:
    name: str
    table: str                       # "always" or "onsuccess"
    holder: list                     # the statements of the block the chain stands in
    statements: list                 # [proxy_hide_header, add_header] placeholders, settled at the end
    variable: str
    values: dict = None              # member position (1.., 0 for <Else>) -> value of its last `set`
    unsets: dict = None              # member position -> the `unset` directive that is its last operation
    lines: list = None               # the directives, for diagnostics


@dataclass
class _Chain:
    texts: list                      # the expressions of the If/ElseIf members read so far
    has_else: bool = False
    span: object = None
    headers: dict = None             # (name, table) -> _ChainHeader
    server: object = None            # the server whose configuration holds the chain
    settled: bool = False


def if_headers(ctx: Context, section, expression_text, children=None) -> Disposition | None:
    """An <If>/<ElseIf>/<Else> that holds only Header lines (set, unset, add, append, merge), or None when
    it holds anything else (the caller reports it). CHILDREN: the Header lines of a member whose access rules
    were translated apart (access_if.if_access), which httpd merges under the same condition."""
    from .access_if import _chain as chain_of
    children = list(section.children if children is None else children)
    if not children or any(c.is_section or c.key != "header" or c.unresolved is not None for c in children):
        return None
    found = chain_of(section, ctx)
    if found is None:
        return None
    members, position = found
    texts, where = [], f"<{section.name}{' ' + ' '.join(section.args) if section.args else ''}>"
    try:
        for m in members[:position + 1]:
            if m.key == "else":
                continue
            if not m.args:
                raise Untranslatable("no expression")
            texts.append(_if_expression(m, expression_text))
        compiler = _compiler(ctx, None, span=section.span, request_only=True)
        from .header_expr import simple_match
        if section.key != "else" and simple_match(texts[-1]) is None:
            # checked now (the maps are built once the chain is whole); httpd evaluates it, and adds the
            # request headers it reads to Vary, only where every expression before it failed
            before = [_compiler(ctx, None, span=section.span, request_only=True).compile(t) for t in texts[:-1]]
            compiler.compile(texts[-1], tuple((c, False) for c in before))
    except Untranslatable as e:
        for d in children:
            ctx.diags.add("A2N501", f"Header {' '.join(d.args)} inside {where}: the condition is not translated "
                          f"({e}); nothing was emitted for this header", d.span, directive=d.name,
                          hint="express the condition with a map that yields an empty value when it is false",
                          related=[section.span])
            ctx.count(d, Disposition.UNSUPPORTED)
        return Disposition.UNSUPPORTED
    chains = ctx.main.settings.setdefault("header_if_chains", {})
    chain = chains.setdefault(id(members[0]), _Chain(texts, span=members[0].span, headers={},
                                                         server=ctx.server))
    if len(texts) > len(chain.texts):
        chain.texts = texts
    index = 0 if section.key == "else" else len(texts)
    chain.has_else = chain.has_else or section.key == "else"
    if section.key != "else":
        emit_vary(ctx, compiler, section.span, False)
    # the member's own lines run in order: a later set/unset of a header in a table drops what came before
    last: dict[tuple[str, str], Directive] = {}
    for d in children:
        condition, action, rest, extras = _split(d)
        if action in ("set", "unset") and not extras and rest:
            last[(rest[0].lower(), condition)] = d
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    for d in children:
        condition, action, rest, extras = _split(d, ctx.model)
        table_name = "always" if condition == "always" else "onsuccess"
        if len(extras) == 1 and extras[0].lower().startswith("expr=") and action in ("set", "add", "append", "merge") \
                and len(rest) == 2 and rest[0] and not _FORMAT.search(rest[1]):
            ctx.count(d, _if_member_expr(ctx, d, chain, len(texts), index, table_name, action, rest,
                                         extras[0][5:], where, section))
            continue
        if len(extras) == 1 and extras[0].lower().startswith("env=") and action in ("set", "add", "append", "merge") \
                and len(rest) == 2 and rest[0] and not _FORMAT.search(rest[1]):
            ctx.count(d, _if_member_env(ctx, d, chain, len(texts), index, table_name, action, rest,
                                        extras[0][4:], where, section))
            continue
        if len(extras) == 1 and extras[0].lower().startswith(("expr=", "env=")) and action == "unset" \
                and len(rest) == 1 and rest[0] and not _member_lines_before(children, d, rest[0], table_name):
            ctx.count(d, _if_member_unset(ctx, d, chain, len(texts), index, table_name, rest[0], extras[0],
                                          where, section))
            continue
        if extras or not rest or not rest[0] or action not in ("set", "unset", "add", "append", "merge") or \
                (action == "unset") != (len(rest) == 1) or (action != "unset" and len(rest) != 2):
            ctx.diags.add("A2N501" if extras else "A2N505", f"Header {' '.join(d.args)} inside {where}: this form "
                          "is not translated under an expression; nothing was emitted for this header", d.span,
                          directive=d.name, related=[section.span])
            ctx.count(d, Disposition.UNSUPPORTED)
            continue
        name, value = rest[0], (rest[1] if len(rest) > 1 else "")
        if action != "unset" and _FORMAT.search(value):
            ctx.diags.add("A2N502", f"Header {name}: the format specifiers in {value!r} are not translated; "
                          "nothing was emitted for this header", d.span, directive=d.name)
            ctx.count(d, Disposition.UNSUPPORTED)
            continue
        key = (name.lower(), table_name)
        later = last.get(key)
        if later is not None and later is not d and children.index(later) > children.index(d):
            ctx.count(d, Disposition.EXACT)          # replaced by a later line of the member, as in httpd
            continue
        if action in ("add", "append", "merge"):
            selected = _selected(ctx, chain.texts[:len(texts)], index, span=section.span)
            variable = _compiler(ctx, span=section.span).value_map(selected, value)
            if table_name != "always":
                variable = onsuccess(ctx, variable)
            ctx.emit("add_header", [name, variable, *(["always"] if table_name == "always" else [])],
                     d.span).late = True
            if action != "add":
                _list_header(ctx, d, action, name)
            if table_name != "always":
                _onsuccess_warning(ctx, d, action, name)
            ctx.count(d, Disposition.APPROXIMATE if action != "add" or table_name != "always" else Disposition.EXACT)
            continue
        record = chain.headers.get(key)
        if record is None or record.holder is not holder:
            hide = Stmt("proxy_hide_header", [name], d.span, late=True)
            add = Stmt("add_header", [name, "", *(["always"] if table_name == "always" else [])], d.span, late=True)
            record = chain.headers[key] = _ChainHeader(name, table_name, holder, [hide, add], "", {}, {}, [])
            holder.extend(record.statements)
        record.lines.append(d)
        if action == "set":
            if table_name == "always":
                _report_htaccess_level(ctx, d)
            record.values[index] = value
            if table_name != "always":
                _onsuccess_warning(ctx, d, action, name)
            ctx.count(d, Disposition.EXACT if table_name == "always" else Disposition.APPROXIMATE)
        else:
            record.unsets[index] = d
            ctx.count(d, Disposition.EXACT)
    return Disposition.EXACT


def _if_member_expr(ctx: Context, d: Directive, chain: "_Chain", known: int, index: int, table_name: str,
                    action: str, rest: list[str], expr: str, where: str, section) -> Disposition:
    """`Header set|add|append|merge NAME VALUE expr=...` inside a member of an <If> chain: VALUE where the
    member is the one httpd merges and the expression holds (evaluated as the response leaves, as outside
    an <If>); a `set` replaces the same header before it only there."""
    name, value = rest
    compiler = _compiler(ctx, span=d.span)
    try:
        selected = _selected(ctx, chain.texts[:known], index, span=d.span)
        condition = compiler.compile(expr, ((selected, True),))
    except Untranslatable as e:
        ctx.diags.add("A2N501", f"Header {' '.join(d.args)} inside {where}: the condition expr={expr} is not "
                      f"translated ({e}); nothing was emitted for this header", d.span, directive=d.name,
                      hint="express the condition with a map that yields an empty value when it is false",
                      related=[section.span])
        return Disposition.UNSUPPORTED
    emit_vary(ctx, compiler, d.span, table_name == "always")
    variable = compiler.value_map(compiler.all_of([selected, condition]), value)
    _emit_conditional(ctx, d, table_name, action, name, variable)
    return Disposition.EXACT if table_name == "always" and action in ("set", "add") else Disposition.APPROXIMATE


def _emit_conditional(ctx: Context, d: Directive, table_name: str, action: str, name: str, variable: str):
    """The add_header of a Header whose value is a condition's variable (empty where it does not apply)."""
    if table_name != "always":
        variable = onsuccess(ctx, variable)
    stmt = ctx.emit("add_header", [name, variable, *(["always"] if table_name == "always" else [])], d.span)
    stmt.late = True
    if action == "set":
        stmt.resets, stmt.conditional = (name.lower(), table_name), True
        ctx.model.conditional_header_sets = True
    if action in ("append", "merge"):
        _list_header(ctx, d, action, name)
    if table_name != "always":
        _onsuccess_warning(ctx, d, action, name)
    return stmt


def _if_member_env(ctx: Context, d: Directive, chain: "_Chain", known: int, index: int, table_name: str,
                   action: str, rest: list[str], env: str, where: str, section) -> Disposition:
    """`Header set|add|append|merge NAME VALUE env=[!]VAR` inside a member of an <If> chain: VALUE where the
    member is the one httpd merges and the variable is set (unset, with `!`) as the response leaves, read as
    outside an <If> (mod_headers tests r->subprocess_env then); a `set` replaces the same header before it
    only there."""
    name, value = rest
    negate = env.startswith("!")
    compiler = _compiler(ctx, span=d.span)
    try:
        selected = _selected(ctx, chain.texts[:known], index, span=d.span)
    except Untranslatable as e:
        selected, why = None, str(e)
    reader = None
    if selected is not None:
        reader = setenvif.EnvReader(ctx, env.lstrip("!"), d.span, d, lambda source: compiler.value_map(
            compiler.all_of([selected, compiler.value_when_set(source, "1", negate)]), value), negate)
    if reader is None or reader.variable is None:
        reason = why if reader is None else reader.reason
        per_directory = bool(reason and "per-directory" in reason)
        ctx.diags.add("A2N717" if per_directory else "A2N501", f"Header {' '.join(d.args)} inside {where}: the "
                      f"condition env={env} is not translated ({reason}); nothing was emitted for this header",
                      d.span, directive=d.name, related=[section.span],
                      hint="express the condition with a map that yields an empty value when it is false")
        return Disposition.UNSUPPORTED
    reader.emitted(_emit_conditional(ctx, d, table_name, action, name, reader.variable))
    return Disposition.EXACT if table_name == "always" and action in ("set", "add") else Disposition.APPROXIMATE


def _member_lines_before(children: list, d: Directive, name: str, table_name: str) -> bool:
    """Whether a line of the <If> member before D handles NAME in the same table (its add_header is an <If>
    section's line, or settled once the chain is whole, which a conditional unset's marker cannot act on)."""
    for c in children[:children.index(d)]:
        condition, _action, rest, _extras = _split(c)
        if rest and rest[0].lower() == name.lower() and \
                ("always" if condition == "always" else "onsuccess") == table_name:
            return True
    return False


def _if_member_unset(ctx: Context, d: Directive, chain: "_Chain", known: int, index: int, table_name: str,
                     name: str, extra: str, where: str, section) -> Disposition:
    """`Header [always] unset NAME expr=EXPR|env=[!]VAR` inside a member of an <If> chain: httpd takes NAME away
    where the member is the one it merges and the condition holds as the response leaves (read as outside an
    <If>). Observed: a <Location>'s `<If "%{QUERY_STRING} =~ /debug/">` with `Header always unset X
    "expr=%{QUERY_STRING} =~ /debug/"` takes away the X a <Directory>'s `Header always merge X 1` gave, for
    ?debug=1 only. As a plain unset of a member (_partial_unset): a marker that makes the add_header lines of
    NAME send nothing where both hold; a backend's copy is kept there (A2N509)."""
    compiler = _compiler(ctx, span=d.span)
    reader, why = None, None
    try:
        selected = _selected(ctx, chain.texts[:known], index, span=d.span)
        if extra.lower().startswith("expr="):
            holds = compiler.all_of([selected, compiler.compile(extra[5:], ((selected, True),))])
        else:
            env = extra[4:]
            reader = setenvif.EnvReader(ctx, env.lstrip("!"), d.span, d, lambda source: compiler.all_of(
                [selected, compiler.value_when_set(source, "1", env.startswith("!"))]), env.startswith("!"))
            holds, why = reader.variable, reader.reason
    except Untranslatable as e:
        holds, why = None, str(e)
    if holds is None:
        per_directory = bool(why and "per-directory" in why)
        ctx.diags.add("A2N717" if per_directory else "A2N501", f"Header {' '.join(d.args)} inside {where}: the "
                      f"condition {extra} is not translated ({why}); nothing was emitted for this header", d.span,
                      directive=d.name, related=[section.span],
                      hint="express the condition with a map that yields an empty value when it is false")
        return Disposition.UNSUPPORTED
    if reader is None:
        emit_vary(ctx, compiler, d.span, table_name == "always")
    stmt = ctx.emit(UNSET_WHEN, [name, holds, *(["always"] if table_name == "always" else [])], d.span)
    stmt.resets, stmt.conditional, stmt.late = (name.lower(), table_name), True, True
    ctx.model.conditional_header_sets = True
    if reader is not None:
        reader.emitted(stmt)
    ctx.diags.add("A2N509", f"Header {' '.join(d.args)}: httpd removes {name} only where this member of the "
                  f"<If> chain applies and the condition holds; nginx's {name} lines send nothing there, but nginx "
                  f"cannot hide a backend's copy for some requests only, so that copy is kept there", d.span,
                  directive=d.name, related=[section.span])
    return Disposition.APPROXIMATE


def _if_expression(member, expression_text) -> str:
    r"""The expression of an <If>/<ElseIf> member. The parser gives the quoted argument as httpd's
    ap_getword_conf does (a backslash kept but before the quote or a backslash), which is the text ap_expr
    reads: a backslash inside a regular expression (m#\.txt$#) goes to PCRE as written, which the compiler
    keeps; one inside a string (an escape there) is not read, so such a text goes the common way, refused."""
    args, quoted = member.args, member.quoted
    if len(args) == 1 and quoted and quoted[0] and "\\" in args[0] and '"' not in args[0]:
        from .header_expr import _tokens
        try:
            tokens = _tokens(args[0])
        except Untranslatable:
            tokens = None
        if tokens is not None and not any(kind != "regex" and "\\" in text for kind, text, _ in tokens):
            return args[0]
    return expression_text(member, 0, strip_quotes=True)


def _onsuccess_warning(ctx: Context, d: Directive, action: str, name: str) -> None:
    ctx.diags.add("A2N503", f"Header {action} {name} (under an expression): nginx add_header without always fires "
                  "only on 2xx/3xx", d.span, directive=d.name,
                  hint="use `Header always` on the Apache side if the header belongs on every response")


def _selected(ctx: Context, texts: list[str], index: int, server=None, span=None) -> str:
    """1 where member INDEX of the chain (0: the Else) is the one httpd merges: its expression holds and
    none before it does. SERVER: the server whose configuration holds the chain (default: the current one)."""
    compiler = _compiler(ctx, server, span=span, request_only=True, prefix=IF_PREFIX)
    conditions = [compiler.compile(t) for t in texts]
    if index == 0:
        selected = compiler.all_of([compiler.negate(c) for c in conditions])
    else:
        selected = compiler.all_of([compiler.negate(c) for c in conditions[:index - 1]] + [conditions[index - 1]])
    _chosen(ctx, ctx.server if server is None else server, selected)
    return selected


def _partial_unset(ctx: Context, chain: _Chain, record: _ChainHeader, index: int, d: Directive) -> Stmt | None:
    """The marker of `Header unset NAME` in member INDEX of CHAIN, which not every request merges (other members
    set NAME or leave it, or no <Else> ends the chain). httpd merges the chain after every other section, the
    server's chain too (ap_if_walk): observed, a server's `<Else> Header unset X` takes away the X a
    <Directory>'s plain `Header set X dir` gave, where the <If> fails, and keeps it where it holds. nginx
    cannot take a header away for some requests; the marker (Stmt.late, emit.inherit.header_order) makes each
    add_header of NAME the other blocks send, the server's and an inner block's, empty where this member is the
    one httpd merges. A backend's own NAME is kept there (A2N509). None where the chain's conditions are not
    translated (nothing else is emitted for NAME then)."""
    try:
        holds = _selected(ctx, chain.texts, index, chain.server, chain.span)
    except Untranslatable:
        holds = None
    ctx.diags.add("A2N509", f"Header {' '.join(d.args)}: httpd removes {record.name} only where this member of the "
                  f"<If> chain applies; nginx's {record.name} lines send nothing there, but nginx cannot hide a "
                  f"backend's copy for some requests only, so that copy is kept there", d.span, directive=d.name,
                  related=[chain.span] if chain.span else [])
    ctx.redispose(d, Disposition.APPROXIMATE)
    if holds is None:
        return None
    ctx.model.conditional_header_sets = True
    return Stmt(UNSET_WHEN, [record.name, holds, *(["always"] if record.table == "always" else [])], d.span,
                resets=(record.name.lower(), record.table), conditional=True, late=True)


def _finish_if_chains(ctx: Context, server=None) -> None:
    """The maps and add_header lines of the <If> chains of SERVER (None: every chain not settled yet)."""
    from ..emit.render import quote
    from ..model import MapBlock
    from .header_expr import simple_match
    for chain in ctx.main.settings.get("header_if_chains", {}).values():
        if chain.settled or server is not None and chain.server is not server:
            continue
        chain.settled = True
        positions = set(range(1, len(chain.texts) + 1)) | ({0} if chain.has_else else set())
        for record in chain.headers.values():
            hide, add = record.statements
            # a member that only unsets: nginx cannot take a header away for some requests only, the other lines
            # send nothing there (_partial_unset). Without an <Else>, a request no expression matches merges no
            # member and keeps the header, so even an unset every If/ElseIf makes is one for some requests only
            partial = {i: d for i, d in record.unsets.items()
                       if not chain.has_else or set(record.unsets) != positions or record.values}
            keep: list[Stmt] = [_partial_unset(ctx, chain, record, i, d) for i, d in partial.items()]
            keep = [st for st in keep if st is not None]
            # every request gets a member's value only where an <Else> ends the chain: without one, a request no
            # expression matches keeps what came before (an earlier block's line, a backend's copy)
            everywhere = chain.has_else and set(record.values) == positions
            if not record.values:
                if not partial:
                    hide.resets = (record.name.lower(), record.table)
                    keep.append(hide)
            else:
                if record.table == "onsuccess" and everywhere:
                    keep.append(hide)        # httpd's set replaces a backend's copy on every request
                record.variable = add.args[1] = ctx.model.new_variable("a2n_hdr_")
                _chosen(ctx, chain.server, record.variable)
                try:
                    _chain_map(ctx, chain, record, quote, MapBlock, simple_match)
                except Untranslatable as e:
                    ctx.diags.add("A2N501", f"Header {record.name} in an <If> chain: a condition of the chain is "
                                  f"not translated ({e}); nothing was emitted for this header", chain.span,
                                  directive="<If")
                    keep = []
                else:
                    if record.table == "onsuccess":
                        add.args[1] = onsuccess(ctx, record.variable)
                    add.resets = (record.name.lower(), record.table)
                    add.conditional = not everywhere or any(v == "" for v in record.values.values())
                    if add.conditional:
                        ctx.model.conditional_header_sets = True
                    keep.append(add)
            # httpd merges the chain after the rest of its block: its headers come last there (and act after an
            # inner block's lines too: Stmt.late, emit.inherit.header_order)
            for stmt in record.statements:
                if stmt in record.holder:
                    record.holder.remove(stmt)
            record.holder.extend(keep)


# the maps of an <If> chain's expressions: never shared with an expr= condition's, which httpd evaluates as the
# answer leaves (a rewrite may have changed the query by then), while the chain's member was chosen before
IF_PREFIX = "a2n_ifc_"


def _chosen(ctx: Context, server, variable: str) -> None:
    """VARIABLE tells (or gives the value of a Header line by) which member of an <If> chain httpd merged
    (ap_if_walk, before translate_name): a rewrite that changes the request's query before answering reads it first
    (rewrite_compile._dropped_query)."""
    chosen = ctx.main.settings.setdefault("header_if_chosen", [])
    if variable.startswith("$") and (server, variable) not in chosen:
        chosen.append((server, variable))


def chosen_variables(ctx: Context, server) -> list[str]:
    """The variables of the <If> chains' Header lines SERVER merges (its own and the main server's)."""
    return [v for holder, v in ctx.main.settings.get("header_if_chosen", []) if holder in (ctx.main, server)]


def _chain_map(ctx, chain: _Chain, record: _ChainHeader, quote, MapBlock, simple_match) -> None:
    """The map that gives record.variable the value of the member httpd merges: one map over the variable all
    the expressions read, tried in order, when each is a plain match; else a map over their results."""
    n = len(chain.texts)
    values = [record.values.get(i) for i in range(1, n + 1)]
    raw_default = record.values.get(0) or ""
    default = quote(raw_default) if raw_default else '""'
    matches = [simple_match(t) for t in chain.texts]
    if all(matches) and len({m[0] for m in matches}) == 1:
        entries = [(m[1], v or '""') for m, v in zip(matches, values)]
        # the last members that give what the default gives need no entry of their own
        while entries and (values[len(entries) - 1] or "") == raw_default:
            entries.pop()
        _empty_entry(entries, matches, values, raw_default)
        source = matches[0][0]
        if source == "$request_method":
            source = _merged_method(ctx)
        ctx.model.maps.append(MapBlock(source, record.variable, entries, default))
        _pin_request_uri(ctx, record.variable, matches[0][0] == "$uri")
        return
    compiler = _compiler(ctx, chain.server, span=chain.span, request_only=True, prefix=IF_PREFIX,
                         method_source=lambda: _merged_method(ctx))
    digits = [compiler.digit(compiler.compile(t)) for t in chain.texts]
    # one digit per expression, so the first that holds is the first 1: every entry excludes the others
    entries = [("~^" + "0" * i + "1", v or '""') for i, v in enumerate(values) if (v or "") != raw_default]
    ctx.model.maps.append(MapBlock("".join(digits), record.variable, entries, default))
    _pin_request_uri(ctx, record.variable, compiler.reads_uri)


def _merged_method(ctx) -> str:
    """What an <If> chain reads for %{REQUEST_METHOD}: mod_dir serves a directory URL (/) through an index
    subrequest, which ap_sub_req_lookup_uri always makes with GET, and ap_internal_fast_redirect keeps that
    subrequest's merge, whose <If> sections were tested on GET (observed with httpd 2.4: `<If
    "%{REQUEST_METHOD} == 'GET'">` holds for HEAD / but not for HEAD /a.txt). nginx's index redirect keeps
    $request_method. GET where the request's own path ends with a slash and nginx's does not (the index file
    it moved to), the request's method elsewhere."""
    # $request_uri holds no space, so the space splits the key
    return ctx.model.shared_map("a2n_if_method_", '"$request_method $request_uri $uri"',
                                [(r"~^[^ ]+ [^ ?]*/(?:\?[^ ]*)? .*[^/]$", "GET")], "$request_method")


def _pin_request_uri(ctx, variable: str, reads_uri: bool) -> None:
    """A chain whose conditions read %{REQUEST_URI} reads httpd's r->uri, which a server-context RewriteRule
    without [PT] leaves as the request's own path (it sets r->filename only: observed with httpd 2.4,
    `<If "%{REQUEST_URI} =~ m#^/app/#">` holds for /app/a.txt rewritten to /real/a.txt); nginx's rewrite
    changes $uri. The chain's map joins those the rewrite pass reads right before such a rewrite
    (rewrite._pin_request_uri_conditions), as a `Header ... expr=` condition's map does."""
    if reads_uri and variable not in ctx.model.request_uri_maps:
        ctx.model.request_uri_maps.append(variable)


def _empty_entry(entries: list, matches: list, values: list, raw_default: str) -> None:
    """A `""` key first in ENTRIES for the member whose test is the first to hold on an empty value: httpd
    merges the first <If>/<ElseIf> that holds, and `%{QUERY_STRING} == ''` (or `=~ /^$/`) holds on a request
    without a query, but nginx's map tries no regular expression on an empty value and falls to its default
    (as the `""` keys of HeaderCondition's regex tests say)."""
    from .header_expr import key_matches_empty
    for (_, key), value in zip(matches, values):
        if key_matches_empty(key):
            if (value or "") != raw_default:
                entries.insert(0, ('""', value or '""'))
            return


RULES = table(
    Rule("Header", Disposition.EXACT, header),
    Rule("RequestHeader", Disposition.EXACT, request_header),
)


RULES = contexts.checked(RULES)
