"""RewriteRule [H=handler] in server context: the content handler httpd forces on the rule's result.

mod_rewrite keeps the handler in a request note and sets it in a late fixup, so whatever file the
substitution maps to (the DocumentRoot plus the new path, as the rest of this translation reads a local
substitution) is handed to that handler. nginx has no per-request handler switch; the rule rewrites into
an internal location of its own, which maps the path back onto the document root with `alias` and hands
the file to FastCGI, or answers as httpd does where httpd would refuse to run it:

- mod_php (`application/x-httpd-php`), mod_fcgid (`fcgid-script`) and `proxy:fcgi://...` handlers go to a
  FastCGI server (php-fpm's socket, or the handler's own address), as fastcgi.py does for SetHandler;
- `cgi-script` goes to fcgiwrap where Options ExecCGI allows CGI, and answers 403 (404 for a missing
  file) where it does not, as mod_cgi does; fcgid-script needs ExecCGI too.

Only a rule after which no other rule can rewrite the result again ([L], [END], or the last rule of its
context) is translated: the internal location ends the ruleset, and a later rule would run before the
handler in httpd. Per-directory [H] rules (whose substitution httpd redirects internally, losing the
note) and other handlers stay errors.
"""
from __future__ import annotations

import re

from ..model import Location, Stmt, written_literally
from .access_proxy import literal_prefix
from .alias import FCGIWRAP_SOCKET
from .fastcgi import FASTCGI_SOCKET, fcgi_target, script_handler
from .rewrite_model import RRule

# the Options httpd 2.4 gives a directory no Options directive names
_DEFAULT_OPTIONS = {"followsymlinks"}


class HandlerRefused(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def document_root(ctx, server) -> str:
    from .core import DEFAULT_DOCUMENT_ROOT
    return (server.root or ctx.main.root or DEFAULT_DOCUMENT_ROOT).rstrip("/")


def written_document_root(ctx, server, path: str) -> str:
    """PATH, the document root or a path under it, as nginx's alias is given it: httpd reads a `$` in
    DocumentRoot as itself, where alias reads variables (NginxModel.literal); a VirtualDocumentRoot's root is
    an nginx expression already."""
    holder = server if server.root else ctx.main
    return path if holder.root_expression else written_literally(path)


def _under(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return path == directory or path.startswith(directory + "/") or directory == ""


def exec_cgi(ctx, server, directory: str) -> bool | None:
    """Whether the Options httpd merges for every file under `directory` include ExecCGI; None when
    sections below it (or regex ones) may decide otherwise for some of them."""
    from .access import _merge_options
    holders = [server] if server is ctx.main else [ctx.main, server]
    scopes = [s for h in holders for s in h.settings.get("directories", []) if s.kind == "directory"]

    def options(scope):
        access = scope.settings.get("access")
        return access.options if access is not None else None

    covering: list = []
    for scope in scopes:
        if not options(scope):
            continue
        if scope.regex:
            return None
        path = (scope.fs_path or "").rstrip("/")
        if _under(directory, path):
            covering.append(scope)
        elif _under(path, directory):
            return None      # a deeper <Directory> changes Options for part of the tree
    merged = set(_DEFAULT_OPTIONS)
    for scope in sorted(covering, key=lambda s: (s.fs_path or "").rstrip("/").count("/")):
        merged = _merge_options(merged, options(scope))
    return "execcgi" in merged


def _written_options(scope) -> list:
    access = scope.settings.get("access")
    return access.options if access is not None and access.options else []


def directory_options(ctx, server, directory: str, plain: bool = False) -> set[str] | None:
    """The Options httpd merges for the directory itself from the <Directory> sections above it (None when a
    regex section sets Options, which may or may not match). Every plain section counts, one without Options
    too: httpd creates the core configuration of each section, and merge_core_dir_configs applies the +/-
    modifiers carried from above again over the options in force where a section sets none
    (`Options +FollowSymLinks` then `Options None` in <Directory /srv/www/data>: none there, FollowSymLinks
    back in a <Directory /srv/www/data/sub> holding only Header lines). PLAIN: from the plain sections alone,
    whatever a regex section sets."""
    from .access import _merge_options
    holders = [server] if server is ctx.main else [ctx.main, server]
    scopes = [s for h in holders for s in h.settings.get("directories", []) if s.kind == "directory"]
    covering: list = []
    for scope in scopes:
        if scope.regex:
            if _written_options(scope) and not plain:
                return None
            continue
        if _under(directory.rstrip("/"), (scope.fs_path or "").rstrip("/")):
            covering.append(scope)
    merged = set(_DEFAULT_OPTIONS)
    for scope in sorted(covering, key=lambda s: (s.fs_path or "").rstrip("/").count("/")):
        merged = _merge_options(merged, _written_options(scope))
    return merged


def option_directories(ctx, server, directory: str) -> list[str]:
    """The plain <Directory> sections strictly below `directory` that set Options, or whose Options differ from
    those in force above it without setting any (the modifiers carried from above applied again:
    directory_options)."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    found = []
    for h in holders:
        for scope in h.settings.get("directories", []):
            path = (scope.fs_path or "").rstrip("/")
            if scope.kind != "directory" or scope.regex or path == directory.rstrip("/") \
                    or not _under(path, directory) or path in found:
                continue
            if not _written_options(scope) and \
                    directory_options(ctx, server, path) == directory_options(ctx, server, path.rsplit("/", 1)[0]):
                continue
            found.append(path)
    return found


def _grants_all(authz) -> bool:
    if authz.op == "leaf":
        return authz.kind == "all" and [a.lower() for a in authz.args] == ["granted"] and not authz.negated
    return authz.op == "any" and any(_grants_all(c) for c in authz.children) or \
        authz.op == "all" and bool(authz.children) and all(_grants_all(c) for c in authz.children)


def access_restricted(ctx, server, files: bool = True) -> list:
    """The sections of this server (and the main server) whose access rules could refuse a request. The
    internal location a rule leads to carries none of them, where httpd applies them to the original URL
    (<Location>, <Proxy>) and, unless the request is proxied (`files` False), to the file it maps to
    (<Directory>, <Files>)."""
    out = []
    holders = [server] if server is ctx.main else [server, ctx.main]
    for scope in (s for h in holders for s in (h.settings.get("directories", []) + h.settings.get("files", [])
                                               if files else []) + h.scopes):
        if not files and scope.kind in ("directory", "files"):
            continue
        c = scope.settings.get("access")
        if c is not None and access_restricted_scope(c):
            out.append(scope)
    return out


def access_restricted_scope(c) -> bool:
    """Whether a section's access configuration C could refuse a request."""
    return bool(c.has_compat or c.auth or c.refuse or c.ssl_only or c.ssl_requires or c.conditionals or c.limits
                or (c.authz is not None and not _grants_all(c.authz)))


def access_granting(ctx, server) -> list:
    """The <Location> sections of this server (and the main server) whose own Require lines grant every
    request, where a <Directory> or <Files> section's access rules could refuse one. httpd merges <Location>
    sections last, and their Require replaces the directories' (AuthMerging Off): on the URLs such a section
    matches httpd serves whatever file they map to, past a `Require all denied` of its directory (a request
    rewritten from the section's URL to a missing file answers 404, not 403)."""
    if not any(scope.kind in ("directory", "files") for scope in access_restricted(ctx, server)):
        return []
    holders = [server] if server is ctx.main else [server, ctx.main]
    out = []
    for scope in (s for h in holders for s in h.scopes if s.kind == "location"):
        c = scope.settings.get("access")
        # (under `AuthMerging And` the directories' rules still hold)
        if c is not None and c.authz is not None and _grants_all(c.authz) and c.merging != "and" \
                and not access_restricted_scope(c) and scope not in out:
            out.append(scope)
    return out


def _static_directory(target: str) -> str:
    """The directory part of a target path before anything taken from the request."""
    m = re.search(r"[$%]", target)
    fixed = target[:m.start()] if m else target
    return fixed[:fixed.rfind("/")] if "/" in fixed else ""


def handler_route(compiler, rule: RRule, pattern: str, negate: bool, target: str | None,
                  flag: str | None) -> list[Stmt]:
    """The statements that send the rule's result to its handler; `target` is None for substitution `-`."""
    ctx, server, span = compiler.ctx, compiler.server, rule.span
    handler = rule.flags["H"].strip().lower()
    if compiler.per_dir is not None:
        raise HandlerRefused("[H] in a per-directory context is not translated (httpd redirects the result "
                             "internally, and the forced handler applies only to substitution `-`)")
    if re.search(r"[$%]", handler):
        raise HandlerRefused(f"[H={handler}] names a handler taken from the request")
    last = rule.directive is compiler.state.rules[-1].directive
    if flag not in ("last", "break") and not last or "PT" in rule.flags:
        raise HandlerRefused(f"[H={handler}] without [L] (or with [PT]): later rules or Alias may map the "
                             "result again before httpd runs the handler")
    if target is not None and not target.startswith("/") and not _slash_capture(rule):
        raise HandlerRefused(f"[H={handler}] with a substitution that is not a local path")
    if any(state.rules for h in {id(h): h for h in (server, ctx.main)}.values()
           for state in h.settings.get("directory_rewrites", {}).values()):
        raise HandlerRefused(f"[H={handler}]: per-directory rules of this server would run on the mapped file "
                             "before the handler in httpd")
    root = document_root(ctx, server)
    # httpd applies <Location> to the original URL and the merged <Directory>/<Files> to the mapped file: the
    # internal location carries none of them, so any that could refuse stops the translation
    located = access_restricted(ctx, server, files=False)
    blocking = located[0] if located else per_directory_access(
        ctx, server, root + _static_directory(target if target is not None else _path_prefix(pattern, negate)),
        "/", deny_ok=False)
    if blocking is not None:
        where = blocking.span
        raise HandlerRefused(f"[H={handler}]: the access rules of the section at {where.file}:{where.line} would "
                             "not reach the handler's location" if where else
                             f"[H={handler}]: access rules of this server would not reach the handler's location")
    if handler == "cgi-script":
        backend, needs_cgi, server_name = FCGIWRAP_SOCKET, True, "fcgiwrap"
    else:
        found = script_handler(handler)
        if found is None:
            raise HandlerRefused(f"the [H={handler}] handler has no nginx counterpart")
        backend, server_name = found
        needs_cgi = handler == "fcgid-script"
    allowed = True
    if needs_cgi:
        directory = root + _static_directory(target if target is not None else _path_prefix(pattern, negate))
        allowed = exec_cgi(ctx, server, directory)
        if allowed is None:
            raise HandlerRefused(f"[H={handler}]: Options ExecCGI differs between the directories the result "
                                 "may map to")
    number = ctx.options["rewrite_handlers"] = ctx.options.get("rewrite_handlers", 0) + 1
    prefix = f"/a2n_handler_{number}"
    if not allowed:
        # mod_cgi tests ExecCGI before it looks for the file: 403 for missing files and directories too
        statements = [Stmt("internal", [], span),
                      Stmt("return", ["403"], span, comment=f"[H={handler}]: Options ExecCGI is off here")]
        said = ctx.diags.add("A2N323", f"RewriteRule {rule.pattern} [H={handler}]: the result maps under {root}, "
                             "where Options ExecCGI is off, so httpd refuses to run it (403) and so does the "
                             "translation; a substitution whose first directory exists on the server is a file path "
                             "to httpd instead", span, directive="RewriteRule",
                             hint="if the target is a filesystem path on the server, grant ExecCGI there and route "
                                  "it to fcgiwrap by hand")
    else:
        statements = [
            Stmt("internal", [], span),
            Stmt("alias", [written_document_root(ctx, server, root + "/")], span,
                 comment="the document root, as httpd maps a local substitution"),
        ]
        if fcgi_target(handler) is None:
            # mod_php, mod_cgi and mod_fcgid answer 404 for a missing file (mod_proxy_fcgi passes it on)
            statements.append(Stmt("if", ["(!-f $request_filename)"], span, block=[Stmt("return", ["404"], span)]))
        if needs_cgi:
            statements.insert(2, Stmt("if", ["(-d $request_filename)"], span, block=[Stmt("return", ["403"], span)],
                                      comment="httpd refuses to run a directory"))
        statements += [
            Stmt("include", ["fastcgi_params"], span),
            Stmt("fastcgi_param", ["SCRIPT_FILENAME", "$request_filename"], span),
            Stmt("fastcgi_pass", [backend], span, comment=f"RewriteRule [H={handler}]"),
        ]
        who = server_name or "the FastCGI server"
        extra = " php-fpm runs only names its security.limit_extensions allows (.php by default)." \
            if backend == FASTCGI_SOCKET and handler != "fcgid-script" else ""
        said = ctx.diags.add("A2N322", f"RewriteRule {rule.pattern} [H={handler}]: the result goes to {who} at "
                      f"{backend.removeprefix('unix:')} through an internal location; httpd ran it with its "
                      f"own handler, and the script sees its own CGI variables (SCRIPT_NAME names the "
                      f"rewritten path).{extra}", span, directive="RewriteRule",
                      hint=f"run {who} on {backend.removeprefix('unix:')}, or change the fastcgi_pass line")
    server.locations.append(Location("^~", prefix + "/", statements, span))
    from .base import Disposition
    rule.settle(ctx, Disposition.APPROXIMATE, said)
    if target is None:
        return [Stmt("rewrite", ["^" if negate else pattern, prefix + "$uri", "last"], span)]
    return [Stmt("rewrite", ["^" if negate else pattern, prefix + target, "last"], span)]


def _slash_capture(rule: RRule) -> bool:
    """The substitution starts with %1 of a condition whose pattern captures from a leading `/`."""
    if not re.match(r"%1(?!\d)", rule.substitution):
        return False
    last = next((c for c in reversed(rule.conds) if not c.pattern.startswith("!") and "(" in c.pattern), None)
    return last is not None and last.pattern.startswith("^(/") and "OR" not in last.flags


def _path_prefix(pattern: str, negate: bool) -> str:
    """The literal directory a pattern anchored at `^/...` confines its URLs to ('' when it does not)."""
    if negate:
        return ""
    m = re.match(r"\^(/[A-Za-z0-9_.\-/~]*)", pattern.removeprefix("(?i)"))
    return m.group(1) if m and "(?i)" not in pattern else ""


def _denies_all(authz) -> bool:
    if authz.op == "leaf":
        return authz.kind == "all" and [a.lower() for a in authz.args] == ["denied"] and not authz.negated
    return authz.op in ("any", "all") and bool(authz.children) and all(_denies_all(c) for c in authz.children)


def _effective_problem(eff, deny_ok: bool = True) -> bool:
    """Access rules that could refuse a request (with `deny_ok`, a plain refusal does not count: a location
    enforces it before its rewrites). Authentication settings refuse nothing by themselves: only an AuthType
    with no Require line (500, AH01627) or a directive nginx lacks counts; AuthUserFile, AuthName or an
    AuthType under Require lines wait for a Require that asks for a user, which `authz` judges."""
    from .access import auth_type_without_authz
    demands = auth_type_without_authz(eff) is not None or "unsupported" in eff.auth
    if eff.compat or demands or eff.refuse or eff.ssl_only or eff.ssl_requires or eff.conditionals:
        return True
    return eff.authz is not None and not _grants_all(eff.authz) and not (deny_ok and _denies_all(eff.authz))


def _ancestors(path: str) -> list[str]:
    """`/a/b` → ["", "/a", "/a/b"]: the rstripped fs_path of every <Directory> that covers `path`."""
    parts = path.split("/")
    return [""] + ["/".join(parts[:i]) for i in range(2, len(parts) + 1)]


class _DirectoryIndex:
    """A holder's plain <Directory> sections with access rules by path, and per path the first section with
    a possible refusal strictly below it, so each per-directory context looks its own up instead of
    scanning every section of the server (.htaccess trees have thousands)."""

    def __init__(self, holder, deny_ok: bool, problem) -> None:
        self.by_path: dict[str, list] = {}
        self.below: dict[str, tuple[int, object]] = {}
        self.first_regex: tuple[int, object] | None = None    # regex sections may match anywhere
        # <Files> sections (and regex ones) apply wherever the file is; <Location>s (and <LocationMatch>es
        # anchored at a literal start) depend on the prefix
        self.first_file, self.located = None, []
        for scope in holder.settings.get("files", []) + holder.scopes:
            if scope.kind in ("directory", "files") or scope.regex and _location_start(scope) is None:
                if self.first_file is None and problem(scope, deny_ok):
                    self.first_file = scope
            else:
                self.located.append(scope)
        for index, s in enumerate(holder.settings.get("directories", [])):
            if s.regex:
                if self.first_regex is None and problem(s, deny_ok):
                    self.first_regex = (index, s)
                continue
            if s.kind != "directory" or s.settings.get("access") is None:
                continue
            path = (s.fs_path or "").rstrip("/")
            self.by_path.setdefault(path, []).append(s)
            if problem(s, deny_ok):
                for ancestor in _ancestors(path)[:-1]:
                    self.below.setdefault(ancestor, (index, s))


def _location_start(scope) -> tuple[str, bool] | None:
    """The literal text every URL a <Location> covers starts with, and whether it compares without case (the
    start lower-cased then): its path, or for a <LocationMatch> anchored at `^` without alternatives (httpd
    matches it against the whole URL path) the text before its first special character; None otherwise."""
    if not scope.regex:
        return (scope.path.lower(), True) if scope.nocase else (scope.path, False)
    if scope.kind != "location":
        return None
    pattern, nocase = scope.path, bool(scope.nocase)
    if pattern.startswith("(?i)"):
        pattern, nocase = pattern[4:], True
    if not pattern.startswith("^") or "|" in pattern:
        return None
    start = literal_prefix(pattern, True)[0]
    return (start.lower(), True) if nocase else (start, False)


def per_directory_access(ctx, server, directory: str | None, prefix: str, deny_ok: bool = True) -> object | None:
    """The first section whose access rules httpd checks before a per-directory context's rules run and
    nginx would check only after them (its rewrite phase comes first): the merged <Directory> sections over
    `directory` (the .htaccess scope for an .htaccess input), overlapping <Location>s and any <Files>."""
    from .access import AccessConfig, merge
    holders = [server] if server is ctx.main else [ctx.main, server]
    problems = ctx.options.setdefault("_access_problems", {})

    def problem(scope, deny: bool) -> bool:
        key = (id(scope), deny)
        if key not in problems:
            config = scope.settings.get("access")
            problems[key] = isinstance(config, AccessConfig) and _effective_problem(merge([config]), deny)
        return problems[key]

    indexes = ctx.options.setdefault("_directory_indexes", {})

    def index_of(h) -> _DirectoryIndex:
        key = (id(h), deny_ok)
        size = (len(h.settings.get("directories", [])), len(h.settings.get("files", [])), len(h.scopes))
        if key not in indexes or indexes[key][0] != size:
            indexes[key] = (size, _DirectoryIndex(h, deny_ok, problem))
        return indexes[key][1]

    if directory is not None:
        path = directory.rstrip("/")
        # every covering section, shallowest first (holders and config order kept within a depth)
        chain = [s for ancestor in _ancestors(path) for h in holders for s in index_of(h).by_path.get(ancestor, ())]
    else:
        scope = server.settings.get("htaccess_scope")
        chain = [scope] if scope is not None and scope.settings.get("access") is not None else []
    if chain and _effective_problem(merge([s.settings["access"] for s in chain]), deny_ok):
        return chain[-1]
    for h in holders:
        index = index_of(h)
        if index.first_file is not None:
            return index.first_file
        for scope in index.located:
            start, nocase = _location_start(scope)
            url = prefix.lower() if nocase else prefix
            if (start.startswith(url.rstrip("/")) or url.startswith(start.rstrip("/"))) and problem(scope, deny_ok):
                return scope
        # then the directory sections in config order: regex ones, and plain ones strictly below `directory`
        candidates = [index.first_regex] if index.first_regex else []
        if directory is not None and directory.rstrip("/") in index.below:
            candidates.append(index.below[directory.rstrip("/")])
        if candidates:
            return min(candidates, key=lambda c: c[0])[1]
    return None


# When a subrequest for a path fails in httpd 2.4 (ap_process_request_internal) before any access check:
# a `%` without two hex digits or a decoded NUL (400), an encoded slash (404 under AllowEncodedSlashes Off),
# or dot segments, written %2E once the request's own %25 is decoded, that climb above the root (400).
# The last is balanced: a normal segment, any balanced units or `.` segments, then `..` (PCRE recursion
# on group 1); a `..` outside any such unit climbs above the root.
_DOT = r"(?:\.|%2[eE])"
_NORMAL = r"(?!" + _DOT + r"{1,2}(?:/|$))[^/]+"
_SINGLE = r"/" + _DOT + r"(?=/|$)"
SUBREQUEST_FAILS = (r"%(?![0-9A-Fa-f]{2})|%00|%2[fF]|^(?:(/" + _NORMAL + r"(?:(?1)|" + _SINGLE + r")*/" + _DOT
                    + r"{2}(?=/|$))|" + _SINGLE + r")*/" + _DOT + r"{2}(?:/|$)")


def url_lookup_blocker(ctx, server, state) -> str | None:
    """Why a subrequest for the request's URL could fail for other reasons than its form (None: it cannot):
    access rules anywhere, a rule answering with an error status (rules run in subrequests too), or
    per-directory rules (httpd refuses them without FollowSymLinks)."""
    if state.per_dir is not None:
        return "in a per-directory context"
    if access_restricted(ctx, server):
        return "access rules of this server could refuse the subrequest"
    if any(r.kind == "redirect" and r.status >= 400 for h in (server, ctx.main) for r in h.routes):
        return "a Redirect answering with an error status runs in the subrequest too"
    if server.settings.get("allow_encoded_slashes") or ctx.main.settings.get("allow_encoded_slashes"):
        return "AllowEncodedSlashes changes which paths it refuses"
    for holder in {id(h): h for h in (server, ctx.main)}.values():
        if holder.settings.get("directory_rewrites"):
            return "per-directory rewrite rules run in the subrequest too"
        rewrite = holder.settings.get("rewrite")
        for rule in (rewrite.rules if rewrite is not None else []) + state.rules:
            if "F" in rule.flags or "G" in rule.flags or "P" in rule.flags or "H" in rule.flags:
                return "a rule that refuses, proxies or forces a handler runs in the subrequest too"
    return None
