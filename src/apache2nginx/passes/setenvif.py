"""mod_setenvif: SetEnvIf and SetEnvIfNoCase as chains of nginx maps.

httpd sets an environment variable when a request attribute matches a
regex; later lines for the same variable override earlier ones when they
match. nginx has no request environment, but a `map` per line whose default
is the previous line's variable reproduces the same last-match-wins value,
evaluated lazily when something reads it. The variables serve the
directives that test them: `Header ... env=[!]NAME` and
`CustomLog ... env=[!]NAME` (see `condition_variable`). They read the
server-level lines through a map that leaves them unset on a request line
httpd refuses before running them (`read_after_request_line`).

The old-browser workarounds (nokeepalive, downgrade-1.0 ...) stay
not-applicable (mime pass); variables no translated directive reads are
still built, so a later reader finds them.

Per-directory lines (inside <Directory>, <Files>, <Location> and the
.htaccess files read as <Directory>) run in httpd's header_parser phase of
the main request, once the sections are merged: after the server-level lines
(post_read_request), before the access checks, mod_headers and logging.
Sections merge as the request walk does: directories (shorter paths first),
then <Files>, then <Location>, each in configuration order; within the merged
list the last matching line wins (observed on httpd 2.4). A reader in a
region gets the chain of the server-level lines followed by the lines of the
regions that always apply wherever the reader does (the region itself, the
<Directory> a <Files> stands in, covering directories, covering <Location>s).
A region that sets the variable for only some of the reader's requests would
need a value per nginx location: the reader is refused (A2N717). Access rules
(`Require env`) keep refusing variables set per directory (access_cond reads
the server-level chain only).
"""
from __future__ import annotations

import re

from ..model import MapBlock, Scope, Stmt, every_statement
from ..syntax.tree import Directive, Section
from .base import Context, Disposition
from .pcre import empty_match

# SetEnvIf attribute -> nginx variable (in a per-directory line httpd's Request_URI is the decoded path, like
# nginx's $uri; a server-level line reads the raw one: RAW_PATH).
_ATTRIBUTES = {"remote_addr": "$remote_addr", "server_addr": "$server_addr", "request_method": "$request_method",
               "request_protocol": "$server_protocol", "request_uri": "$uri"}
# The request's path as the client wrote it (its query left out). httpd's server-level SetEnvIf lines run at
# post_read_request, before ap_process_request_internal decodes the path and removes its `.`/`..` segments, so
# `Request_URI ^/pub/` matches neither /%70ub/a.txt nor /./pub/a.txt there (observed: httpd 2.4.71); only a
# run of leading slashes is one already (ap_parse_uri: the target is a path, not a network-path reference).
RAW_PATH = "$a2n_request_path"
# The sources of a server-level Request_URI map: what the layout reads again on an internal redirect's path
# (where httpd's header_parser runs the lines again on the new, decoded path).
URI_SOURCES = ("$uri", RAW_PATH)


def _attribute(name: str) -> str | None:
    lower = name.lower()
    if lower in _ATTRIBUTES:
        return _ATTRIBUTES[lower]
    if re.fullmatch(r"[A-Za-z0-9-]+", name) and lower != "remote_host":
        return "$http_" + lower.replace("-", "_")
    return None


def _unseen_header(name: str) -> bool:
    """NAME is no attribute of SetEnvIf but a request header whose name holds `_` (Query_String, Script_Name...):
    httpd reads the header of exactly that name, then the variable an earlier line set (match_headers); nginx
    ignores such a header (ignore_invalid_headers), and its $http_ variable would read `Query-String` too."""
    return "_" in name and re.fullmatch(r"[A-Za-z0-9_-]+", name) is not None and name.lower() != "remote_host"


def _header_nginx_drops(ctx: Context, d: Directive, attribute: str, assignments: list[str]) -> str:
    """The source of a line on a header nginx never sees: always empty, as for every request without that
    header (the regex still decides, httpd matching a missing header as the empty string). Access rules
    reading the variables refuse them: a client sending the header sets them in httpd only."""
    for assignment in assignments:
        _note(ctx, assignment.lstrip("!").partition("=")[0], "untranslated")
    ctx.diags.add("A2N513", f"{d.name} {attribute}: {attribute} is not a SetEnvIf attribute but the name of a request "
                  f"header, which httpd reads (its variables are set only for a request carrying a `{attribute}:` "
                  "header, never from the query string or a CGI variable); nginx ignores a header whose name holds "
                  "`_`, so the variables are translated as for a request without it", d.span, directive=d.name,
                  hint="if the query string was meant, httpd never tested it: test %{QUERY_STRING} with SetEnvIfExpr "
                  "in httpd, and with a map over $args in nginx")
    return ctx.model.shared_map("a2n_env_unset_", "$request_method", [], '""')


def _safe(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def set_env_if(ctx: Context, d: Directive, assignments: list[str], attribute: str, regex: str,
               nocase: bool) -> Disposition:
    source = _attribute(attribute)
    env = ctx.server.settings.setdefault("setenvif", {})
    main = ctx.model.main_server.settings.get("setenvif", {}) if ctx.model.main_server is not ctx.server else {}
    per_dir = ctx.scope is not None
    unseen = source is None and _unseen_header(attribute)
    if unseen:
        source = "$http_" + attribute.lower()
    if source is not None and source.startswith("$http_") and (attribute.lower() in env or attribute.lower() in main
                                                               or attribute.lower() in _registry(ctx.model).names):
        # httpd reads the header if the request has it, else the variable an earlier line set
        source = None
    if unseen and source is not None:
        source = _header_nginx_drops(ctx, d, attribute, assignments)
    why = None
    if source is None:
        why = f"the attribute {attribute} (host names, header-name patterns and other variables)"
    elif per_dir and (ctx.scope.kind not in ("directory", "files", "location") or
                      (ctx.scope.kind == "directory" and ctx.scope.fs_path is None)):
        why = f"per-directory SetEnvIf inside <{ctx.scope.kind.capitalize()}>"
    elif _enclosing_region(d) != (ctx.scope.span if per_dir else None):
        region = _enclosing_section(d)
        why = f"a line inside <{region.name} {' '.join(region.args)}> (a section left untranslated)" \
            if region is not None else "a per-directory line outside its section"
    elif empty_match(regex, nocase) is None:
        why = f"the regular expression {regex!r} (whether it matches a missing header, read as empty, cannot be told)"
    written = ctx.model.main_server.settings.setdefault("setenvif_written", {})
    for assignment in assignments:
        name, _, value = assignment.lstrip("!").partition("=")
        written.setdefault((d.span, name.lower()), name)   # the name as this line writes it (see written_name)
        # what access rules need to know of every variable (Require env): untranslated setters, empty values,
        # and per-directory lines (access_cond reads only the server-level chain)
        if why is not None or per_dir:
            _note(ctx, name, "untranslated")
        if why is not None:
            _note(ctx, name, _untranslated_move(assignment))
        elif not assignment.startswith("!") and "=" in assignment and (not value or "$" in value):
            _note(ctx, name, "empty")       # set to an empty string (or a capture that may be empty)
    if why is not None:
        ctx.diags.add("A2N702", f"{d.name} {attribute}: {why} is not translated; the variables it sets are not "
                      "carried into nginx", d.span, directive=d.name,
                      hint="express the condition with a map over the matching nginx variable")
        return Disposition.UNSUPPORTED
    key = ("~*" if nocase else "~") + regex
    if source == "$uri" and not per_dir:
        ctx.model.add_map(MapBlock("$request_uri", RAW_PATH, [("~^/*(/[^?]*)", "$1"), ("~^([^?]*)", "$1")], '""'))
        source = RAW_PATH
    registry = _registry(ctx.model)
    for assignment in assignments:
        unset = assignment.startswith("!")
        name, _, value = assignment.lstrip("!").partition("=")
        if not name:
            continue
        value = "" if unset else (value if "=" in assignment else "1")
        # httpd's $1..$9 in the value are the regex's captures, as in an nginx map value; any other `$` is
        # itself (httpd sends `V=$host` as `$host`), where a map value would read the client's Host
        value = ctx.model.literal_but_captures(value)
        if per_dir:
            # kept per region; readers build the chain that applies where they stand (`resolve`)
            registry.add(ctx.scope, ctx.server, name.lower(), source, key, value or '""', d.span,
                         '""' if unset else "1")
            continue
        previous = env.get(name.lower()) or main.get(name.lower())
        _presence(ctx, name.lower(), source, key, unset, not unset and (not value or "$" in value), previous)
        variable = ctx.model.new_variable("a2n_setenv_", "_" + _safe(name))
        ctx.model.maps.append(MapBlock(source, variable, map_entries(key, value or '""'), previous or '""',
                                       span=d.span))
        env[name.lower()] = variable
        if source == RAW_PATH:
            # read before the server's rewrite rules change $uri (rewrite.finish_server pins it)
            ctx.server.settings.setdefault("setenvif_uri", []).append(variable)
    return Disposition.APPROXIMATE if unseen else Disposition.EXACT


def _presence(ctx: Context, name: str, source: str, key: str, unset: bool, may_be_empty: bool,
              previous: str | None) -> None:
    """The variable telling whether the server-level lines set NAME (1, or empty where it is unset), kept
    beside its value once a line may set it to the empty string (`v=` or a capture `v=$1` that matched
    nothing): httpd's env= tests only whether the variable exists, and sends `Header ... env=v` for a value
    of "", which the value's map cannot tell from unset. Before that line the value is never empty where
    set, and stands for its own presence."""
    present = ctx.server.settings.setdefault("setenvif_present", {})
    main = ctx.model.main_server.settings.get("setenvif_present", {}) \
        if ctx.model.main_server is not ctx.server else {}
    before = present.get(name) or main.get(name)
    if before is None and not may_be_empty:
        return
    variable = ctx.model.new_variable("a2n_setenv_present_", "_" + _safe(name))
    ctx.model.maps.append(MapBlock(source, variable, map_entries(key, '""' if unset else "1"),
                                   before or previous or '""'))
    present[name] = variable
    if source == RAW_PATH:
        ctx.server.settings.setdefault("setenvif_uri", []).append(variable)     # see _pin_request_uri


def map_entries(key: str, value: str) -> list[tuple[str, str]]:
    """The map entries of one line (`~regex` or `~*regex`). httpd matches a missing header as the empty
    string (`^$` is the idiom for "no Referer"); an nginx map never tries its regular expressions on an empty
    value, only an exact `""` key: a regex that matches the empty string gets one too, its captures empty.
    Whether it does is PCRE's answer (pcre.empty_match; Python's `re` reads `\\h` or `{,3}` otherwise);
    set_env_if refuses a line whose answer cannot be told."""
    nocase = key.startswith("~*")
    regex = key[2:] if nocase else key[1:]
    if not empty_match(regex, nocase):
        return [(key, value)]
    on_empty = re.sub(r"\$\d", "", value) or '""'
    return [('""', on_empty)] + ([] if regex == "^$" else [(key, value)])


# sections that make a per-directory region (or hold directives httpd applies only under a condition)
_REGION_SECTIONS = {"directory", "directorymatch", "files", "filesmatch", "location", "locationmatch", "if",
                    "elseif", "else", "limit", "limitexcept", "proxy", "proxymatch"}


def _enclosing_section(d: Directive) -> Section | None:
    node = d.parent
    while node is not None and node.key not in _REGION_SECTIONS:
        node = node.parent
    return node


def _enclosing_region(d: Directive):
    """The span of the section whose region the directive applies to (None: the server level). A line the
    driver hands over from inside a section that is not translated has a region other than the context's."""
    section = _enclosing_section(d)
    return section.span if section is not None else None


def set_env_if_expr(ctx: Context, d: Directive) -> Disposition:
    """SetEnvIfExpr: a server-level line whose expression header_expr compiles from what is known when the
    request is read becomes one map per variable, as a SetEnvIf line does (httpd runs the server's lines at
    post_read_request, where ap_expr's %{HTTPS} already tells the connection's TLS). Any other line is not
    translated; the variables it may set are remembered (Require env refuses them)."""
    holds = _expr_holds(ctx, d)
    if holds is not None:
        env = ctx.server.settings.setdefault("setenvif", {})
        main = ctx.model.main_server.settings.get("setenvif", {}) if ctx.model.main_server is not ctx.server else {}
        for assignment in d.args[1:]:
            name, _, value = assignment.lstrip("!").partition("=")
            value = "" if assignment.startswith("!") else (value if "=" in assignment else "1")
            if not value:
                _note(ctx, name, "empty")
            previous = env.get(name.lower()) or main.get(name.lower())
            variable = ctx.model.new_variable("a2n_setenv_", "_" + _safe(name))
            ctx.model.maps.append(MapBlock(holds, variable, [("1", value or '""')], previous or '""', span=d.span))
            env[name.lower()] = variable
        return Disposition.EXACT
    for assignment in d.args[1:]:
        _note(ctx, assignment.lstrip("!").partition("=")[0], "untranslated")
        _note(ctx, assignment.lstrip("!").partition("=")[0], _untranslated_move(assignment))
    ctx.diags.add("A2N702", f"{d.name}: expression conditions are not translated; the variables it sets are not "
                  "carried into nginx", d.span, directive=d.name,
                  hint="express the condition with a map over the matching nginx variable")
    return Disposition.UNSUPPORTED


def _untranslated_move(assignment: str) -> str:
    """The note of a variable an untranslated line may set ("untranslated-set") or unset ("-unset")."""
    return "untranslated-unset" if assignment.startswith("!") else "untranslated-set"


def note_untranslated(ctx: Context, name: str) -> None:
    """NAME is set by a line the translation does not carry into nginx's conditions (SetEnv)."""
    _note(ctx, name, "untranslated-set")


def _expr_holds(ctx: Context, d: Directive) -> str | None:
    """The variable (1 or empty) of a server-level SetEnvIfExpr's expression, or None where it is not
    translated here: inside a section, reading anything but what the connection and the request line tell
    (the request's path changes by the time nginx reads the map, a request header adds to httpd's Vary), or
    values with `$` (the expression's captures)."""
    from .header_expr import HeaderCondition, Untranslatable, expression_reads
    if ctx.scope is not None or _enclosing_region(d) is not None or len(d.args) < 2 or \
            any("$" in a or not a.lstrip("!").partition("=")[0] for a in d.args[1:]):
        return None
    try:
        reads = expression_reads(d.args[0])
    except Untranslatable:
        return None
    # checked before anything is compiled: a refused expression leaves no map behind
    if not reads <= {"https", "request_scheme", "request_method", "remote_addr", "server_protocol", "ssl_protocol",
                     "ssl_cipher"}:
        return None
    try:
        return HeaderCondition(ctx.model, request_only=True, prefix="a2n_setenv_expr_").compile(d.args[0])
    except Untranslatable:
        return None


def _note(ctx: Context, name: str, what: str) -> None:
    ctx.model.main_server.settings.setdefault("setenvif_notes", {}).setdefault(name.lower(), set()).add(what)


def notes_for(model, name: str) -> set[str]:
    """How SetEnvIf lines anywhere in the input set NAME beyond a translated map: "untranslated" (a line
    nginx has no map for), "empty" (set to the empty string, which the map cannot tell from unset)."""
    return model.main_server.settings.get("setenvif_notes", {}).get(name.lower(), set()) \
        if model.main_server is not None else set()


def server_variable(model, server, name: str) -> str | None:
    """The nginx variable holding NAME as SetEnvIf in SERVER (or the main server) left it, if any."""
    name = name.lower()
    found = server.settings.get("setenvif", {}).get(name)
    if found is None and model.main_server is not None:
        found = model.main_server.settings.get("setenvif", {}).get(name)
    return found


def present_variable(model, server, name: str) -> str | None:
    """The nginx variable that is non-empty exactly where SetEnvIf in SERVER (or the main server) left NAME set
    (see _presence), if any."""
    name = name.lower()
    for holder in (server, model.main_server):
        found = holder.settings.get("setenvif_present", {}).get(name) if holder is not None else None
        if found is not None:
            return found
    return server_variable(model, server, name)


def variable_for(ctx: Context, name: str) -> str | None:
    """The nginx variable holding NAME as SetEnvIf in this server (or the main server) left it, if any."""
    return server_variable(ctx.model, ctx.server, name)


def condition_variable(ctx: Context, condition: str, span=None, widen: bool = True) -> str | None:
    """For `env=NAME` / `env=!NAME`: a variable that is 1 when the condition holds and 0 otherwise (nginx's
    `if=` and add_header values read it), or None when NAME is not set by a translated SetEnvIf where the
    reader stands (reported by the caller). WIDEN: where httpd may hold the condition for any request, it
    holds for every one (EnvReader._resolve), as a header reader wants; a log's does not."""
    negate = condition.startswith("!")
    name = condition.lstrip("!")

    def build(source: str) -> str:
        # httpd tests whether the variable is set; an unset one is empty here
        return ctx.model.shared_map("a2n_unset_" if negate else "a2n_set_", source,
                                    [('""', "1" if negate else "0")], "0" if negate else "1")
    reader = EnvReader(ctx, name, span, None, build, negate if widen else None)
    return reader.variable


# ----------------------------------------------------------------- per-directory lines and their readers

class _Line:
    __slots__ = ("scope", "server", "name", "source", "key", "value", "span", "seq", "present")

    def __init__(self, scope, server, name, source, key, value, span, seq, present):
        self.scope, self.server, self.name, self.source = scope, server, name, source
        self.key, self.value, self.span, self.seq = key, value, span, seq
        self.present = present      # 1 where the line sets the variable (its value may be ""), "" where it unsets


class _Registry:
    """Every per-directory SetEnvIf line of the input, and the readers translated over them."""

    def __init__(self):
        self.lines: list[_Line] = []
        self.names: set[str] = set()
        self.readers: list[EnvReader] = []
        self.order: dict[int, int] = {}         # id(scope) -> configuration order of its first line
        self.chains: dict[tuple, str] = {}

    def add(self, scope: Scope, server, name: str, source: str, key: str, value: str, span, present: str) -> None:
        self.order.setdefault(id(scope), len(self.order))
        self.lines.append(_Line(scope, server, name, source, key, value, span, len(self.lines), present))
        self.names.add(name)


def written_name(model, name: str, span) -> str:
    """NAME (lower-cased in the model) as the SetEnvIf line at SPAN writes it; httpd keeps that case."""
    return model.main_server.settings.get("setenvif_written", {}).get((span, name.lower()), name)


def _registry(model) -> _Registry:
    holder = model.main_server.settings
    if "setenvif_per_dir" not in holder:
        holder["setenvif_per_dir"] = _Registry()
    return holder["setenvif_per_dir"]


def _fs_within(directory: str, path: str) -> bool:
    directory = directory.rstrip("/")
    return not directory or path == directory or path.startswith(directory + "/")


def _url_within(prefix: str, path: str) -> bool:
    """httpd's <Location> prefix match by whole segments."""
    if prefix == "/" or prefix == path:
        return True
    if prefix.endswith("/"):
        return path.startswith(prefix)
    return path.startswith(prefix) and path[len(prefix)] == "/"


def _plain_directory(scope: Scope | None) -> bool:
    return scope is not None and scope.kind == "directory" and scope.fs_path is not None and not scope.regex


def _plain_location(scope: Scope | None) -> bool:
    return scope is not None and scope.kind == "location" and not scope.regex


def _covers(region: Scope, reader: Scope | None) -> bool:
    """Does REGION apply to every request the reader's statements are laid out for?"""
    if reader is None:
        return False
    if region is reader:
        return True
    if reader.kind == "files":
        return reader.parent is not None and _covers(region, reader.parent)
    if _plain_directory(reader):
        return _plain_directory(region) and _fs_within(region.fs_path, reader.fs_path)
    if _plain_location(reader):
        return _plain_location(region) and _url_within(region.path, reader.path)
    return False


def _disjoint(region: Scope, reader: Scope | None) -> bool:
    """Can no request be in both (plain directories or plain locations on separate branches)?"""
    if reader is None:
        return False
    if _plain_directory(region) and _plain_directory(reader):
        return not (_fs_within(region.fs_path, reader.fs_path) or _fs_within(reader.fs_path, region.fs_path))
    if _plain_location(region) and _plain_location(reader):
        return not (_url_within(region.path, reader.path) or _url_within(reader.path, region.path))
    return False


def _merge_key(registry: _Registry, line: _Line, main) -> tuple:
    """httpd's merge order: directories by depth, then <Files>, then <Location>s; the main server's sections
    before a host's own, configuration order among equals; lines of one section in their order."""
    scope = line.scope
    rank = {"directory": 0, "files": 1}.get(scope.kind, 2)
    depth = 0 if scope.fs_path in (None, "/") else scope.fs_path.rstrip("/").count("/")
    return (rank, depth if rank == 0 else 0, 0 if line.server is main else 1, registry.order[id(scope)], line.seq)


def _describe(scope: Scope) -> str:
    kind = {"directory": "Directory", "files": "Files", "location": "Location"}.get(scope.kind, scope.kind)
    return f"<{kind} {scope.fs_path or scope.path}>"


# variables httpd's own modules may set in a request's environment, whatever the input says
_MODULE_SET = ("ssl_", "redirect_", "http_", "https", "unique_id", "remote_", "auth_", "cache_", "no-", "nokeepalive",
               "downgrade-", "force-", "gzip-", "suppress-", "proxy-")


def never_set(model, words: set[str] | None, name: str) -> str | None:
    """An always-empty variable for NAME when no directive of the input names it (WORDS: every word of the
    input but env= conditions) and no module of httpd sets it; None otherwise."""
    name = name.lower()
    if words is None or name in words or name.startswith(_MODULE_SET):
        return None
    return model.shared_map("a2n_env_unset_", "$request_method", [], '""')


# What mod_ssl's fixup (ssl_hook_Fixup) puts in every TLS request's environment whatever SSLOptions says: HTTPS=on
# (observed with httpd 2.4: `Header always set ... env=HTTPS` is sent on the TLS host only). nginx's $https is
# "on" on a TLS connection and empty otherwise, what env= tests. (The SSL_* variables need SSLOptions +StdEnvVars.)
_MODULE_VARIABLES = {"https": "$https"}


def module_variable(model, name: str) -> str | None:
    """The nginx variable holding NAME where an httpd module, not a directive of the input, sets it (None for
    any other NAME); empty for a request whose request line was refused (read_after_request_line)."""
    source = _MODULE_VARIABLES.get(name.lower())
    return read_after_request_line(model, source) if source is not None else None


def input_words(options: dict, server) -> set[str] | None:
    """The words of the input that may set a variable for SERVER's requests (see never_set): every word for
    the main server (whose lines every virtual host inherits), the main server's and its own for a virtual
    host (httpd applies another host's SetEnvIf, SetEnv or [E=] to that host's requests only)."""
    by_host = options.get("input_words_by_host")
    if by_host is None or server is None or server.is_main or server.span not in by_host:
        return options.get("input_words")
    return options.get("input_words_shared", set()) | by_host[server.span]


def rewrite_variable(model, server, name: str) -> str | None:
    """The nginx variable a server-level RewriteRule [E=NAME:VALUE] of SERVER sets (rewrite_prefix.server_env),
    where no other rule of SERVER or the main server unsets NAME, sets it per directory or to a value that may
    be empty. httpd runs a server's rewrite rules at translate_name, before the response's headers are made;
    the translation's `set` runs in the server's rewrite phase, before nginx's add_header reads it. A main
    server's rules do not run for a virtual host's requests (unless inherited), nor does its `set`."""
    found = [s.settings.get("rewrite_env", {}) for s in (server, model.main_server) if s is not None]
    if any(name in known and known[name] is None for known in found):
        return None
    return server.settings.get("rewrite_env", {}).get(name) if server is not None else None


def read_after_request_line(model, variable: str | None) -> str | None:
    """VARIABLE (a server-level chain) as readers see it: empty for a request whose request line was refused.
    httpd answers a request line it cannot use (a target that is neither a path nor an absolute URL, `GET ~`,
    a line too long) from ap_read_request, before the post_read_request hooks where the server-level lines
    run: no variable is set, yet mod_headers' `always` table still applies to the 400 (an `env=!NAME` header
    is sent, an `env=NAME` one is not). nginx answers the same line from the server's level, its maps still
    matching $remote_addr and the like; it leaves $request_method empty exactly when it could not parse the
    request line."""
    if variable is None:
        return None
    return model.shared_map("a2n_setenv_read_", "$request_method", [('""', '""')], variable)


def resolve(model, server, scope: Scope | None, name: str, words: set[str] | None = None
            ) -> tuple[str | None, str | None]:
    """A variable that is non-empty exactly where NAME is set (env= tests only that, a value of "" is set)
    for a reader in SCOPE of SERVER (after the server-level and the per-directory lines), or (None, why) when
    no translated line sets it or one variable cannot serve every request the reader applies to."""
    name = name.lower()
    registry = _registry(model)
    main = model.main_server
    start = read_after_request_line(model, present_variable(model, server, name))
    chain: list[_Line] = []
    for line in registry.lines:
        if line.name != name:
            continue
        if server is not main and line.server is not main and line.server is not server:
            continue        # another host's section
        if _covers(line.scope, scope) and (line.server is main or line.server is server):
            chain.append(line)
        elif not _disjoint(line.scope, scope):
            where = "the server level" if scope is None else _describe(scope)
            return None, (f"a per-directory SetEnvIf in {_describe(line.scope)} (line {line.span.line}) sets {name} "
                          f"for some of the requests a reader at {where} applies to, and nginx would need another "
                          "value per location")
    if not chain:
        if start is None and (rewritten := rewrite_variable(model, server, name)) is not None:
            return read_after_request_line(model, rewritten), None
        if start is None and (module := module_variable(model, name)) is not None:
            return module, None
        if start is None and (unset := never_set(model, words, name)) is not None:
            return unset, None      # set nowhere: empty for every request, as in httpd
        return start, (None if start is not None else f"no translated SetEnvIf sets {name}")
    variable = start
    for line in sorted(chain, key=lambda l: _merge_key(registry, l, main)):
        key = (name, line.source, line.key, line.present, variable)
        found = registry.chains.get(key)
        if found is None:
            found = registry.chains[key] = model.new_variable("a2n_setenv_", "_" + _safe(name))
            model.maps.append(MapBlock(line.source, found, map_entries(line.key, line.present), variable or '""',
                                       span=line.span))
        variable = found
    return variable, None


def _index_line(model, server, scope: Scope | None, name: str) -> "_Line | None":
    """A per-directory line setting NAME in a <Files> or <Location> section that may apply to SCOPE's requests.
    httpd runs per-directory SetEnvIf lines (the header_parser hook) for the main request only: for a directory
    URL (/) that is the directory, whose merge holds no <Files "index.html"> (nor <Location /index.html>);
    mod_dir's index subrequest merges the section (its Header lines) but runs no SetEnvIf, and the fast
    redirect keeps that merge (observed with httpd 2.4: `<Files index.html> SetEnvIf Request_Method .
    allow_framing` + `Header always set X-Frame-Options DENY env=!allow_framing` sends DENY on / but not on
    /index.html). nginx's index redirect enters the location of the index file, whose maps set the variable."""
    name = name.lower()
    main = model.main_server
    for line in _registry(model).lines:
        if line.name != name or line.scope is None or line.scope.kind not in ("files", "location"):
            continue
        if line.server is not main and line.server is not server:
            continue
        if _covers(line.scope, scope) or not _disjoint(line.scope, scope):
            return line
    return None


class EnvReader:
    """A directive reading NAME (Header/RequestHeader/CustomLog env=): translated over the chain known when
    it is read, and checked again once the whole input is read (a per-directory line may come later in the
    file than its reader, as httpd's order does not depend on it)."""

    def __init__(self, ctx: Context, name: str, span, directive: Directive | None, build,
                 negate: bool | None = None):
        self.ctx, self.name, self.span, self.directive, self.build = ctx, name, span, directive, build
        self.scope, self.server, self.negate, self.widened = ctx.scope, ctx.server, negate, False
        self.source, self.reason = self._resolve()
        self.variable = build(self.source) if self.source is not None else None
        self.statements: list[tuple[list[Stmt], Stmt]] = []
        if self.variable is not None:
            _registry(ctx.model).readers.append(self)

    def _resolve(self) -> tuple[str | None, str | None]:
        """resolve(), but where httpd may send the header for any request the condition holds for every one
        (a header lost is worse than one sent where httpd would not): an untranslated line (A2N702) may set
        the variable (for `env=NAME`; unset it, for `env=!NAME`), or a per-directory line sets it for some of
        the reader's requests only (A2N717)."""
        source, reason = resolve(self.ctx.model, self.server, self.scope, self.name,
                                 input_words(self.ctx.options, self.server))
        if self.negate is None:
            return source, reason
        if source is None and reason is not None and reason.startswith("a per-directory SetEnvIf"):
            return self._always("A2N717", reason)
        if self.negate and (line := _index_line(self.ctx.model, self.server, self.scope, self.name)) is not None:
            return self._always("A2N717", f"the SetEnvIf in {_describe(line.scope)} (line {line.span.line}) does "
                                "not run where httpd serves a directory's index file, which nginx's index redirect "
                                "enters")
        notes = notes_for(self.ctx.model, self.name)
        moves = {"untranslated-unset" if self.negate else "untranslated-set"} if source is not None else \
            {"untranslated-set", "untranslated-unset"}
        if not notes & moves:
            return source, reason
        return self._always("A2N702", f"a line that is not translated (SetEnvIf, SetEnvIfExpr, SetEnv) may "
                            f"{'unset' if self.negate else 'set'} {self.name}")

    def _always(self, code: str, why: str) -> tuple[str, None]:
        """A variable for which the condition holds for every request (WHY it must, reported once)."""
        if not self.widened:
            self.widened = True
            self.ctx.diags.add(code, f"env={'!' if self.negate else ''}{self.name}: {why}; the condition is taken "
                               "to hold for every request, so the header is also sent where httpd would not send it",
                               self.span, directive=self.directive.name if self.directive else None)
        holds = "" if self.negate else "1"
        return self.ctx.model.shared_map("a2n_env_always_" if holds else "a2n_env_unset_", "$request_method", [],
                                         holds or '""'), None

    def emitted(self, stmt: Stmt) -> None:
        """A statement carrying the reader's variable: patched or taken out if the final check differs."""
        holder = self.scope.statements if self.scope is not None else self.server.statements
        self.statements.append((holder, stmt))

    def settle(self) -> bool:
        """Re-resolve; True when the reader's statements were taken out."""
        source, reason = self._resolve()
        if source == self.source:
            return False
        label = f"{self.directive.name} {' '.join(self.directive.args)}" if self.directive is not None else \
            f"env={self.name}"
        if source is None or not self.statements:
            for holder, stmt in self.statements:
                if stmt in holder:
                    holder.remove(stmt)
            removed = bool(self.statements)
            if removed and self.directive is not None and self.ctx.redispose is not None:
                self.ctx.redispose(self.directive, Disposition.UNSUPPORTED)
            why = reason or "a SetEnvIf line later in the configuration changes the variable it reads"
            self.ctx.diags.add("A2N717", f"{label}: {why}; " + (
                "nothing was emitted for it" if removed else "nginx tests the value the earlier lines set"),
                self.span, directive=self.directive.name if self.directive is not None else None)
            return removed
        variable = self.build(source)
        for _, stmt in self.statements:
            stmt.args = [variable if a == self.variable else a for a in stmt.args]
        self.source, self.variable = source, variable
        return False


def finish(ctx: Context) -> None:
    """Check every reader against the whole input's SetEnvIf lines (called once everything is read); the maps
    of variables a settled reader no longer uses are dropped; the maps of the request's path are read first."""
    _settle_readers(ctx)
    _pin_request_uri(ctx)


def _settle_readers(ctx: Context) -> None:
    readers = _registry(ctx.model).readers
    before = {r.variable for r in readers}
    for reader in readers:
        if reader.settle() and reader.statements:
            reader.variable = None
    stale = (before - {r.variable for r in readers}) | set(_registry(ctx.model).chains.values())
    if not stale:
        return      # no map could have lost its readers: nothing to look for
    model = ctx.model
    # a map stays while anything reads it: a statement of any server, or a map that stays
    refs: dict[str, set[str]] = {}
    for m in model.maps:
        refs[m.variable] = set(re.findall(r"\$\w+", " ".join([m.source, m.default or ""] +
                                                              [v for _, v in m.entries])))
    used: set[str] = {r.variable for r in readers if r.variable is not None}
    for st in every_statement([model.main_server] + list(model.servers)):
        used.update(a for arg in st.args for a in re.findall(r"\$\w+", arg))
    live = [v for v in refs if v not in stale or v in used]
    while live:
        for name in refs.get(live.pop(), ()):
            if name not in used:
                used.add(name)
                live.append(name)
    drop = stale - used
    model.maps[:] = [m for m in model.maps if m.variable not in drop]
    for cache in (getattr(model, "_maps_by_content", {}), _registry(model).chains):
        for key in [k for k, v in cache.items() if v in drop]:
            del cache[key]


def _pin_request_uri(ctx: Context) -> None:
    """httpd's server-level SetEnvIf lines run at post_read_request, before mod_rewrite's translate_name and
    before mod_dir's index lookup: a `SetEnvIf Request_URI` there sees the request's own path, whatever the
    server's rewrite rules or its DirectoryIndex make of it (`GET /` matches `\\.html$` in nginx once the index
    redirect made $uri /index.html, not in httpd). nginx reads its map of $uri when something first needs the
    variable (a Header's env=, as the answer leaves), and keeps the value for the rest of the request: reading
    every such map first thing in the server fixes them on the request's own path."""
    model = ctx.model
    kept = {m.variable for m in model.maps}
    for server in {id(s): s for s in [model.main_server] + list(model.servers)}.values():
        holders = [server] if server is model.main_server else [model.main_server, server]
        pinned = [v for h in holders for v in h.settings.get("setenvif_uri", []) if v in kept]
        if pinned:
            server.own_statements.insert(0, Stmt(
                "set", ["$a2n_setenv_uri_pin", "".join("${" + v.lstrip("$") + "}" for v in pinned)], None,
                comment="SetEnvIf Request_URI: httpd matches the request's own path, before rewrites and indexes"))
