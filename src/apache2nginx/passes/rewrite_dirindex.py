"""mod_dir's fixup after a per-directory RewriteRule [P] on a directory URL.

A per-directory [P] does not answer in mod_rewrite's fixup: hook_fixup sets the handler to `proxy-server` and
returns OK, and mod_dir's fixup (dir_fixups -> fixup_dir, which runs after it) still sees a request that maps
to a directory (src: modules/mappers/mod_dir.c):

- without its trailing slash, mod_dir answers 301 to the path plus `/` (DirectorySlash On, the default): the
  rule's proxying never happens;
- with the slash, mod_dir looks up each DirectoryIndex name in a subrequest for the directory URL plus the
  name (the query string kept), which runs the per-directory rules again. The first subrequest that the rules
  proxy (`rr->handler` is `proxy-server`) or that maps to a regular file replaces the request: the backend
  gets the index file's URL (`/rw/index.html`), not the directory's. Only when none does, the request's own
  result stands (the [P] of the directory URL, or mod_autoindex).

The same lookup makes httpd proxy a directory URL that the rules leave alone when they proxy its index URL
(`^([^/]+)/?$` does not match the empty path of `/api/`, but matches `index.html`).

nginx's rewrite answers at once, and its index module only follows index files that exist. The translation
keeps httpd's order: the per-directory location notes a request that maps to a directory (`-d`); the internal
location the [P] leads to answers mod_dir's 301 for it, or, the first time, tries the directory URL plus the
first index name instead (an internal redirect, which runs the rules again, as the subrequest does); where
the rules let the directory URL itself through, its end does the same. A try the rules do not proxy and that
names no regular file goes on to the next index name, and after the last one back to the directory URL,
where the rules' own result stands.

mod_dir reads the names from the request's own merged configuration (`r->per_dir_config`): a directory below
the rules' one whose <Directory> (or a <Location> under the rules' URL) sets DirectoryIndex has its own names,
while the rules, which nginx repeats in the locations below, stay the same. Each list is tried only for the
directory URLs under its prefix (the most specific prefix first, the others' regexes excluding it).
"""
from __future__ import annotations

import re

from ..model import Stmt

DIRECTORY = "$a2n_pdir"          # the request's URI where it maps to a directory, else empty
TRIED = "$a2n_pdir_tried"        # the directory URL whose index names were tried
_PAIR = "$a2n_pdir_pair"
_BACK = "$a2n_pdir_back"
_INDEX_FROM = "$a2n_index_from"  # rewrite.py's marker of nginx's index pass (mod_dir's subrequest)
_SUBREQUEST = "mod_dir looks the index file up in a subrequest, through the rules again"
REQUEST = "$a2n_pdir_uri"        # the URI the server's rewrite phase began with (httpd's r->uri), where needed
MOVER = "$a2n_pdir_mover"        # 1 where a rule of `moving_rules` applied in the server's rewrite phase
_MOVED = "$a2n_pdir_moved"


def index_names(ctx, server, directory: str, url: str | None = None) -> list[str]:
    """The DirectoryIndex names mod_dir tries for the directory's URLs, relative names only (the list stops at
    an absolute one); empty for DirectoryIndex disabled. httpd's built-in default is index.html. httpd merges
    the <Location> sections after the <Directory> ones (ap_location_walk follows ap_directory_walk), in
    config order, the main server's first: a <Location> whose prefix covers every URL of the directory (URL,
    the per-directory prefix) sets the names for all of them."""
    from ..emit.dirindex import DISABLED_INDEX
    holders = [server] if server is ctx.main else [ctx.main, server]
    directory = (directory or "").rstrip("/")
    found: tuple[int, list[str]] | None = None
    for holder in holders:
        for scope in holder.settings.get("directories", []):
            path = (scope.fs_path or "").rstrip("/")
            if scope.kind != "directory" or scope.regex or not (
                    directory == path or directory.startswith(path + "/") or not path):
                continue
            own = next((st.args for st in scope.statements if st.name == "index"), None)
            if own is not None and (found is None or path.count("/") >= found[0]):
                found = (path.count("/"), own)
    names = found[1] if found is not None else None
    if url is not None:
        for holder in holders:
            for scope in holder.scopes:
                own = next((st.args for st in scope.statements if st.name == "index"), None)
                if own is not None and scope.kind == "location" and not scope.regex and url.startswith(scope.path):
                    names = own
    for holder in reversed(holders):
        if names is None:
            names = next((st.args for st in holder.statements if st.name == "index"), None)
    if names is None:
        return ["index.html"]
    if names == [DISABLED_INDEX]:
        return []
    out = []
    for name in names:
        if name.startswith("/") or "$" in name:
            break
        out.append(name)
    return out


def index_variants(ctx, server, directory: str, url: str) -> list[tuple[str, list[str]]]:
    """(URL prefix, index names) for the directory URLs under the rules' directory DIRECTORY (at URL, the
    per-directory prefix): one for each <Directory> below it and <Location> below URL that sets DirectoryIndex,
    the most specific first, then ("", the names of the directory itself). Only the last one where every list
    is the same."""
    base = index_names(ctx, server, directory, url)
    directory, root = (directory or "").rstrip("/"), url.rstrip("/")
    holders = [server] if server is ctx.main else [ctx.main, server]
    prefixes: dict[str, str] = {}           # URL prefix -> the directory it maps to
    for holder in holders:
        for scope in holder.settings.get("directories", []):
            path = (scope.fs_path or "").rstrip("/")
            if scope.kind == "directory" and not scope.regex and path.startswith(directory + "/") \
                    and any(st.name == "index" for st in scope.statements):
                prefixes.setdefault(root + path[len(directory):] + "/", path)
        for scope in holder.scopes:
            if scope.kind == "location" and not scope.regex and scope.path.startswith(root + "/") \
                    and scope.path != root + "/" and any(st.name == "index" for st in scope.statements):
                prefixes.setdefault(scope.path, directory + scope.path[len(root):].rstrip("/"))
    variants = [(prefix, index_names(ctx, server, prefixes[prefix], prefix))
                for prefix in sorted(prefixes, key=len, reverse=True)]
    if all(names == base for _, names in variants):
        return [("", base)]
    return variants + [("", base)]


def _directory_group(prefix: str, variants: list[tuple[str, list[str]]]) -> str:
    """The regex group matching a directory URL (ending in `/`) under PREFIX and under none of the more
    specific prefixes of VARIANTS within it."""
    within = "".join(f"(?!{_escape(p)})" for p, _ in variants if p != prefix and p.startswith(prefix))
    return f"({'(?=' + _escape(prefix) + ')' if prefix else ''}{within}/(?:.*/)?)"


def _escape(text: str) -> str:
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


def entry(span) -> list[Stmt]:
    """First in the per-directory location: whether the request maps to a directory."""
    return [Stmt("set", [DIRECTORY, ""], span),
            Stmt("if", ["(-d $request_filename)"], span, block=[Stmt("set", [DIRECTORY, "$uri"], span)],
                 comment="mod_dir's fixup follows a [P] on a directory")]


def _try_first(names: list[str], span) -> list[Stmt]:
    return [Stmt("set", [TRIED, DIRECTORY], span), Stmt("set", [_INDEX_FROM, DIRECTORY], span),
            Stmt("rewrite", ["^", "${" + DIRECTORY[1:] + "}" + names[0], "last"], span, comment=_SUBREQUEST)]


def moving_rules(ctx, server, url: str) -> list:
    """The server-context rules without [PT] that may map a request whose path ends with a slash to a directory
    under the per-directory rules' URL prefix URL (or to its file under the document root): httpd keeps the
    request's path as `r->uri` for mod_dir's index subrequest."""
    from .rewrite_dirslash import _may_end_with_slash
    from .rewrite_handler import document_root
    from .rewrite_model import ends_rewriting
    prefix = url.rstrip("/") + "/"
    on_disk = document_root(ctx, server).rstrip("/") + prefix
    out = []
    for rule in server.settings.get("rewrite_server_rules") or []:
        if rule.substitution == "-" or {"PT", "P", "R", "F", "G", "H"} & set(rule.flags) or ends_rewriting(rule) \
                or re.match(r"[a-z][a-z0-9+.-]*://", rule.substitution, re.I):
            continue        # (after an [END], mod_rewrite's fixup runs no per-directory rule: no [P] there)
        static = re.split(r"[$%?]", rule.substitution, maxsplit=1)[0]
        if not any(static.startswith(p) or p.startswith(static) for p in (prefix, on_disk)):
            continue
        negate = rule.pattern.startswith("!")
        if _may_end_with_slash(rule, negate) and not _keeps_tail(rule):
            out.append(rule)
    return out


def _keeps_tail(rule) -> bool:
    """Whether the rule (without conditions) maps the index file's path as it maps the directory's: its pattern
    ends with a `(.*)` group (or `(?:/(.*))?`) that the substitution ends with (`^/old/(.*)$` to `/docs/$1`), so
    httpd's subrequest for the request's path plus the index name gets the directory's file plus the name,
    which nginx looks up too."""
    if rule.conds or rule.pattern.startswith("!") or \
            not re.search(r"(?<!\\)(?:\(\.\*\)|\(\?:/\(\.\*\)\)\?)\$?$", rule.pattern):
        return False
    groups = len(re.findall(r"(?<!\\)\((?!\?)", rule.pattern))
    return rule.substitution.split("?", 1)[0].endswith(f"${groups}")


def _moved_refusal(span) -> list[Stmt]:
    """403 where a rule of `moving_rules` applied and the directory URL the request maps to, or the one whose index
    names are being tried, is not the path the server's rewrite phase began with: httpd's index subrequest is
    for that path, through the server's rules, which nginx's try does not follow."""
    out: list[Stmt] = []
    for directory in (DIRECTORY, TRIED):
        out += [Stmt("set", [_MOVED, f"{MOVER}{directory} {REQUEST}"], span),
                Stmt("if", [f'({_MOVED} ~ "^1(/(?:.*/)?) (?!\\1$)/")'], span,
                     block=[Stmt("return", ["403"], span)],
                     comment="mod_dir looks the index file up under the request's own path, which a server rule "
                             "mapped here (A2N883)")]
    return out


_KEPT = "$a2n_pdir_kept"


def fresh_after_index_redirect(statements: list[Stmt], index_pass: str) -> None:
    """Where a rule rewrites the index file's URL on nginx's index pass (an `if` on INDEX_PASS, such as
    rewrite.py's copy of an [END] rule): httpd serves the subrequest's result through an internal redirect of
    the main request, a new request whose mod_dir fixup looks the index file up again (observed with httpd
    2.4: `^([^/]+)/?$ /static/ [END]` before `^(.*)$ http://backend/$1 [P]` in /static/.htaccess answers GET
    /static/ with 500, AH00124, each index lookup rewritten back to the directory). nginx's marker of the tried
    directory outlives its internal redirect, so the second pass proxied the directory instead: the rewrite now
    clears it (kept where the rewrite does not apply), and the cycle ends in nginx's limit of internal redirects
    (500) as httpd's does."""
    for st in statements:
        if st.name != "if" or not st.block or f"{index_pass} = 1" not in " ".join(st.args):
            continue
        block: list[Stmt] = []
        for inner in st.block:
            if inner.name == "rewrite" and inner.args[-1:] == ["last"]:
                span = inner.span
                block += [Stmt("set", [_KEPT, TRIED], span),
                          Stmt("set", [TRIED, ""], span,
                               comment="httpd's internal redirect is a new request: mod_dir looks the index up again"),
                          inner, Stmt("set", [TRIED, _KEPT], span)]
            else:
                block.append(inner)
        st.block[:] = block


def in_proxy(variants: list[tuple[str, list[str]]], slash: bool, span, moved: bool = False) -> list[Stmt]:
    """In the internal location of a per-directory [P]: mod_dir's answer for a directory URL comes first (where a
    server rule may have MOVED the request's path here, a refusal of what nginx cannot look up as httpd does)."""
    out: list[Stmt] = []
    if slash:
        out.append(Stmt("if", [f'({DIRECTORY} ~ "[^/]$")'], span,
                        block=[Stmt("rewrite", ["^", DIRECTORY + "/", "permanent"], span)],
                        comment="mod_dir: a directory without its slash is redirected, not proxied"))
    if moved and any(names for _, names in variants):
        out += _moved_refusal(span)
    if any(names for _, names in variants):
        out.append(Stmt("set", [_PAIR, f"{DIRECTORY} {TRIED}"], span))
    for prefix, names in variants:
        if names:
            group = _directory_group(prefix, variants)
            out.append(Stmt("if", [f'({_PAIR} ~ "^{group} (?!\\1$)")'], span, block=_try_first(names, span)))
    return out


def leaving(variants: list[tuple[str, list[str]]], span) -> list[Stmt]:
    """Last in the per-directory location, where the rules let the URL through: a directory URL tries its
    index names as well; a try that named no regular file goes on to the next name, or back to the directory."""
    if not any(names for _, names in variants):
        return []
    out = [Stmt("set", [_PAIR, f"{DIRECTORY} {TRIED} $uri"], span)]
    for prefix, names in variants:
        if names:
            group = _directory_group(prefix, variants)
            out.append(Stmt("if", [f'({_PAIR} ~ "^{group} (?!\\1 )(.*) \\1$")'], span,
                            block=_try_first(names, span)))
    out += [Stmt("set", [_BACK, ""], span),
            Stmt("if", ["(!-f $request_filename)"], span, block=[Stmt("set", [_BACK, f"{TRIED} $uri"], span)])]
    for prefix, names in variants:
        group = _directory_group(prefix, variants)
        for i, name in enumerate(names):
            if i + 1 < len(names):
                block = [Stmt("set", [_INDEX_FROM, TRIED], span),
                         Stmt("rewrite", ["^", "${" + TRIED[1:] + "}" + names[i + 1], "last"], span)]
            else:
                block = [Stmt("rewrite", ["^", TRIED, "last"], span)]
            out.append(Stmt("if", [f'({_BACK} ~ "^{group} \\1{re.escape(name)}$")'], span, block=block,
                            comment="no index file there, and the rules did not proxy it"))
    return out
