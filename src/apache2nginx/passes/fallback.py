"""mod_dir's FallbackResource: `try_files`, and the path-info case that must not fall back.

httpd hands a request to the fallback URL only when its directory walk found nothing and no handler took
it (src: mod_dir.c, dir_fixups: `r->finfo.filetype == APR_NOFILE && r->handler == NULL`). The walk stops at
the first name that is not a directory (src: request.c, ap_directory_walk): a missing name leaves NOFILE
(the fallback serves), but a file followed by more path (/data/a.txt/x, /data/a.txt/) leaves the file with
path info, which the default handler answers 404 (AcceptPathInfo Default). nginx's try_files cannot tell the
two apart (open() fails either way), so before it runs, each proper prefix of $request_filename below the
document root (or alias path) is tested with `-f`: where one is a file, the `if` block (which try_files does not
reach: nginx does not inherit it into an `if`) makes the static handler answer, 404, after the access
checks. Prefixes are tested to DEPTH names below the root; the prefixes a missing name precedes
cannot be files, so only a tree of DEPTH nested directories holding a file with path info escapes the test.
"""
from __future__ import annotations

from ..model import Location, MapBlock, Stmt, routes_in_force
from ..syntax.tree import Directive
from .base import Context, Disposition, clean_url

DEPTH = 10          # names below the document root (or alias) whose prefixes are tested
PATH_INFO_TEST = "a file with path info: httpd does not fall back (404)"
FALLBACK = "FallbackResource"
FALLBACK_DISABLED = "FallbackResource disabled"
FALLBACK_COMMENTS = frozenset({PATH_INFO_TEST, FALLBACK})   # the statements it makes (the layout drops them)
# "1" where the request leaves a block falling back (set last in it): its next pass through the server's
# rewrite phase, an internal redirect before any answer, is try_files' fallback or the index module's, which
# httpd makes as mod_dir's subrequest (see subrequest_pass)
FALLBACK_MARK = "$a2n_fallback_mark"
FALLBACK_PASS = "$a2n_fallback_pass"     # that pass: the server's [R=3xx] and [NS] rules do not run
# the index lists finish_server makes for a block that sets no DirectoryIndex of its own
UNDER_FALLBACK = "DirectoryIndex under FallbackResource"
WITHOUT_FALLBACK = "DirectoryIndex without FallbackResource"


def fallback_resource(ctx: Context, d: Directive) -> Disposition:
    """FallbackResource URL: requests that map to no file or directory go to URL, as try_files does; a
    file with path info after it answers 404 (see the module docstring)."""
    if not d.args:
        ctx.diags.add("A2N001", "FallbackResource needs a URL (or disabled)", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    _drop_earlier(ctx)
    if d.args[0].lower() == "disabled":
        ctx.settings[FALLBACK] = ""
        if ctx.scope is not None:
            # a marker that keeps an enclosing block's fallback out of the section's locations (the layout
            # drops it: see _carry_fallback)
            ctx.scope.statements.append(Stmt("try_files", [], d.span, comment=FALLBACK_DISABLED))
        return Disposition.EXACT
    target = clean_url(d.args[0] if d.args[0].startswith("/") else "/" + d.args[0])
    ctx.settings[FALLBACK] = target
    # httpd takes a `$` of the URL as itself; try_files (and the joined `index`, see finish_server) read
    # variables
    fallback = Stmt("try_files", ["$uri", "$uri/", ctx.model.literal(target) + "$is_args$args"], d.span,
                    comment=FALLBACK)
    if ctx.scope is not None:
        ctx.scope.statements.extend(_path_info_tests(ctx, d) + [fallback])
    elif ctx.in_vhost:
        # an `if` at server level would keep the request from every location (nginx looks for them in the
        # block its server rewrite phase ends in): the tests go in a named location, which inherits the
        # server's configuration and runs after its access checks
        name = f"@a2n_fallback_{len(ctx.server.locations) + len(ctx.model.maps)}"
        ctx.server.locations.append(Location("", name, _path_info_tests(ctx, d) + [fallback], d.span))
        ctx.emit("try_files", ["$uri", "$uri/", name], d.span).comment = FALLBACK
    else:
        # the main server's statements are written at http level (and try_files pushed into each server)
        ctx.emit(fallback.name, fallback.args, d.span).comment = FALLBACK
    return Disposition.EXACT


def _drop_earlier(ctx: Context) -> None:
    """A FallbackResource replaces an earlier one of the same block (httpd keeps the last line's value), and
    nginx takes one try_files per block: the earlier line's statements (and its named location) go."""
    holder = ctx.scope if ctx.scope is not None else ctx.server
    names = {st.args[-1] for st in holder.statements if st.name == "try_files" and st.comment == FALLBACK}
    holder.statements[:] = [st for st in holder.statements if st.comment not in FALLBACK_COMMENTS | {FALLBACK_DISABLED}]
    if ctx.scope is None:
        ctx.server.locations[:] = [loc for loc in ctx.server.locations
                                   if not (loc.path.startswith("@") and loc.path in names)]


def finish_server(ctx: Context, server) -> None:
    """A directory request under a FallbackResource: mod_dir looks each DirectoryIndex name up with a
    subrequest, and the fallback takes the lookup of a missing first name (its subrequest finds nothing, so
    mod_dir's fixup hands it the fallback URL), which then counts as the index found: httpd serves the first
    name where it exists and the fallback otherwise, never a later name (observed with httpd 2.4; src: mod_dir.c,
    fixup_dir and fixup_dflt) - unless the fallback URL maps to no file: its lookup fails too, and the later
    names are tried (see emit.dirmethods.fallback_statements). nginx's `index` takes an absolute last entry as
    an internal redirect: the list becomes the first name, then the fallback URL, in the block nearest to the
    request that holds either."""
    chain = [ctx.main] if server is ctx.main else [ctx.main, server]
    scopes = list({id(s): s for s in server.scopes + server.settings.get("directories", [])
                   + server.settings.get("files", [])}.values())
    blocks = [(holder, holder.settings, holder.statements, chain[:i][::-1]) for i, holder in enumerate(chain)]
    blocks += [(scope, scope.settings, scope.statements,
                _directories_around(scope, scopes) + _directories_under_location(scope, scopes, server, ctx.main)
                + chain[::-1])
               for scope in scopes]
    # an index list joined with a fallback -> its own names (kept across servers: the main server's blocks are
    # seen again with each virtual host; the layout reads them too, see merged_index)
    originals: dict[int, list[str]] = ctx.options.setdefault("fallback_index_names", {})
    server.settings["fallback_index_names"] = originals
    any_fallback = any(settings.get(FALLBACK) for _, settings, _, _ in blocks)
    for holder, settings, statements, enclosing in blocks:
        own_target = settings.get(FALLBACK)     # "" where FallbackResource is disabled
        own_index = next((st for st in statements if st.name == "index"), None)
        if own_target is None and own_index is None:
            continue
        # the nearest enclosing block's setting: a directory's other sections, then the server's, the main server's
        target = own_target if own_target is not None else \
            next((b.settings[FALLBACK] for b in enclosing if FALLBACK in b.settings), None)
        index = own_index or next((st for b in enclosing for st in b.statements if st.name == "index"), None)
        if index is not None and (not index.args or index.args[0].startswith("/")):
            continue
        # (httpd's default list is index.html alone: a directory without it serves the fallback too)
        names = list(originals.get(id(index), index.args)) if index is not None else ["index.html"]
        if not target:
            # no fallback here: an enclosing list that was joined with one is restored, and so is the list in
            # force where the block disables a fallback another block joins with it (a <Directory> that httpd
            # merges before this <Location> may come later in the file, and be joined later here)
            if own_index is None and (index is not None and id(index) in originals or own_target == "" and any_fallback):
                span = index.span if index is not None else next(
                    (st.span for st in statements if st.name == "try_files" and st.comment == FALLBACK_DISABLED),
                    getattr(holder, "span", None))
                statements.append(Stmt("index", list(names), span, comment=WITHOUT_FALLBACK))
            continue
        span = index.span if index is not None else next(
            (st.span for b in [holder] + enclosing for st in b.statements
             if st.name == "try_files" and st.comment == FALLBACK), None)
        if own_index is not None:
            originals[id(own_index)] = list(names)
            own_index.args[:] = [names[0], target]
        else:
            joined = Stmt("index", [names[0], target], span, comment=UNDER_FALLBACK)
            originals[id(joined)] = list(names)
            statements.append(joined)


def merged_index(statements: list[Stmt], originals: dict[int, list[str]] | None) -> list[Stmt]:
    """STATEMENTS of the sections httpd merges for one region, in its order, with each `index` finish_server
    made for a section setting FallbackResource (or disabling it) but no DirectoryIndex made again from the
    list in force before it. A <Location>'s was made from the DirectoryIndex over its own URL, but mod_dir
    merges the two settings one by one (src: mod_dir.c, merge_dir_configs: `index_names` and `dflt`), so
    below that URL a <Directory> setting its own DirectoryIndex keeps its list under the <Location>'s
    FallbackResource. It is made as finish_server makes it: the first name and the fallback URL (or the names
    alone where the fallback is disabled); a list that is `disabled` or starts with a URL stays as it is
    (fixup_dir then looks no missing name up, so the fallback never serves the directory: `DirectoryIndex
    disabled` still refuses it). The other way round, a later section's own DirectoryIndex keeps the
    FallbackResource an earlier section set (a <Location /a> after a <Location /a/b>): its list is joined
    with that fallback URL, or made again from its own names where the fallback in force is disabled.
    ORIGINALS: the lists finish_server joined with a fallback -> their names."""
    out = list(statements)
    names: dict[int, list[str]] = {}    # a list in force -> its own names, where it was joined with a fallback
    current = None      # the list in force so far
    fallback = None     # the fallback URL in force so far ("" where disabled, None where no section set it)
    for i, st in enumerate(out):
        if st.name == "try_files" and st.comment in (FALLBACK, FALLBACK_DISABLED):
            fallback = _fallback_url(st)
            continue
        if st.name != "index":
            continue
        if st.comment is None and fallback is not None:
            st = out[i] = _joined_with(st, fallback, originals, names)
        elif current is not None and st.comment in (UNDER_FALLBACK, WITHOUT_FALLBACK):
            own = names.get(id(current)) or list((originals or {}).get(id(current), current.args))
            if not own or own[0].startswith("/"):
                st = current
            else:
                args = [own[0], st.args[-1]] if st.comment == UNDER_FALLBACK else own
                if args != st.args:
                    st = Stmt("index", args, current.span, comment=st.comment)
                names[id(st)] = own
                if originals is not None:
                    originals[id(st)] = own     # for emit.dirmethods.fallback_statements
            out[i] = st
        current = st
    return out


def _fallback_url(st: Stmt) -> str | None:
    """The URL a section's fallback try_files ends in ("" for the marker of `FallbackResource disabled`;
    None for a named location, whose URL is not known here)."""
    if st.comment == FALLBACK_DISABLED:
        return ""
    last = st.args[-1] if st.args else ""
    return None if last.startswith("@") else last.removesuffix("$is_args$args")


def _joined_with(st: Stmt, fallback: str, originals: dict[int, list[str]] | None,
                 names: dict[int, list[str]]) -> Stmt:
    """A section's own `index` ST under the FALLBACK URL an earlier merged section set: its first name and
    the URL (its own names where FALLBACK is ""); a list that is `disabled` or starts with a URL stays."""
    own = list((originals or {}).get(id(st), st.args))
    if not own or own[0].startswith("/"):
        return st
    args = [own[0], fallback] if fallback else own
    if args == st.args:
        return st
    joined = Stmt("index", args, st.span, comment=UNDER_FALLBACK if fallback else WITHOUT_FALLBACK)
    names[id(joined)] = own
    if originals is not None:
        originals[id(joined)] = own     # for emit.dirmethods.fallback_statements
    return joined


def _directories_around(scope, scopes: list) -> list:
    """The other <Directory> sections httpd merges into SCOPE's directory: those of the same path (the later
    first: it wins) and of the directories above it (the nearest first)."""
    path = (scope.fs_path or "").rstrip("/") + "/"
    if scope.kind != "directory" or scope.regex or path == "/":
        return []
    around = [(len(d.fs_path.rstrip("/")), i, d) for i, d in enumerate(scopes)
              if d is not scope and d.kind == "directory" and not d.regex and d.fs_path
              and path.startswith(d.fs_path.rstrip("/") + "/")]
    return [d for _, _, d in sorted(around, key=lambda t: (t[0], t[1]), reverse=True)]


def _directories_under_location(scope, scopes: list, server, main) -> list:
    """The <Directory> sections (a .htaccess file's too) httpd merges before a prefix <Location>: those of the
    directory its URL maps to (through an Alias, or else the document root) and of the directories above it,
    the nearest first. httpd merges the directory walk's result first and the <Location>s over it, so a
    <Location> that sets no DirectoryIndex keeps the one of its directory."""
    if scope.kind != "location" or scope.regex or scope.proxy is not None or not scope.path.startswith("/"):
        return []
    region = scope.path
    fs = None
    routes = routes_in_force(server, main)
    aliases = [r for r in routes if r.kind == "alias" and not r.regex and r.target
               and (region == r.path or region.startswith(r.path.rstrip("/") + "/"))]
    if any(r.kind in ("proxy", "redirect") and not r.regex and r.path and region.startswith(r.path) for r in routes):
        return []       # proxied or redirected: no directory applies
    if aliases:
        alias = max(aliases, key=lambda r: len(r.path))
        fs = alias.target.rstrip("/") + "/" + region[len(alias.path):].lstrip("/")
    else:
        root = server.root or (main.root if main is not None else None)
        if not root:
            return []
        fs = root.rstrip("/") + "/" + region.lstrip("/")
    path = fs.rstrip("/") + "/"
    around = [(len(d.fs_path.rstrip("/")), i, d) for i, d in enumerate(scopes)
              if d.kind == "directory" and not d.regex and d.fs_path
              and path.startswith(d.fs_path.rstrip("/") + "/")]
    return [d for _, _, d in sorted(around, key=lambda t: (t[0], t[1]), reverse=True)]


def _path_info_tests(ctx: Context, d: Directive) -> list[Stmt]:
    """An empty `if` for each proper prefix of $request_filename DEPTH names below the root, true where
    that prefix is a file. "$document_root|$request_filename": the root (or alias) without its trailing
    slashes, matched again by the back-reference, then LEVEL names followed by a slash."""
    tests = []
    for level in range(1, DEPTH + 1):
        variable = f"$a2n_pathinfo_file_{level}"
        ctx.model.add_map(MapBlock("$document_root|$request_filename", variable,
                                   [(f"~^(.*?)/*\\|\\1((?:/[^/]+){{{level}}})/", "$1$2")], '""', volatile=True))
        tests.append(Stmt("if", [f"(-f {variable})"], d.span, comment=PATH_INFO_TEST, block=[]))
    return tests


def falls_back(ctx: Context, server) -> bool:
    """Whether a FallbackResource (not disabled) is set anywhere SERVER's requests may meet it: the server,
    the main server, or one of the server's sections."""
    scopes = server.scopes + server.settings.get("directories", []) + server.settings.get("files", [])
    holders = [server.settings, ctx.main.settings] + [scope.settings for scope in scopes]
    return any(settings.get(FALLBACK) for settings in holders)


def subrequest_pass(ctx: Context, span) -> list[Stmt]:
    """The first statements of the server's rewrite phase where a server-context rule httpd skips in a
    subrequest ([R=3xx], [NS]: apply_rewrite_list in mod_rewrite.c) meets a FallbackResource. mod_dir looks
    the fallback URL up with a subrequest (mod_dir.c, fixup_dflt, ap_sub_req_lookup_uri) and serves its
    result in place of the request (ap_internal_fast_redirect), so such a rule never sees the fallback URL:
    observed with httpd 2.4, `RewriteRule ^/img/inner/(.*)$ ... [R=302]` beside a FallbackResource
    /img/inner/home.html answers GET /img/inner?q=1 with the fallback (or with the 500 of the recursion limit
    where the fallback's own URL falls back again), never the redirect. nginx's try_files hands the fallback
    URL to an internal redirect that runs the server's rewrite phase, every rule again. The pass after a
    block falling back (FALLBACK_MARK, set last in it) that no answer precedes ($status 000: error_page's
    redirect carries the error status, and runs every rule, as httpd's ErrorDocument does) is that
    subrequest: FALLBACK_PASS, which such rules require empty. The mark is read and cleared at once."""
    again = ctx.model.shared_map("a2n_fallback_pass_", f"{FALLBACK_MARK}:$status", [("1:000", "1")], '""',
                                 volatile=True)
    return [Stmt("set", [FALLBACK_PASS, again], span,
                 comment="try_files' fallback: mod_dir's subrequest, which skips [R] and [NS] rules"),
            Stmt("set", [FALLBACK_MARK, ""], span)]
