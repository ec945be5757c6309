"""mod_dir's trailing-slash redirect after a server-context RewriteRule that maps to a directory.

In server context (without [PT]) mod_rewrite changes only the file a request maps to: `r->uri` keeps the
request's own path. When that file is a directory, mod_dir's fixup (dir_fixups -> fixup_dir, after the access
checks) answers 301 to the request's path with a slash added (`ap_escape_uri(r->uri) + "/?" + r->args`)
unless that path already ends with one, whatever the substitution looked like. nginx rewrites `$uri`
itself: it serves the directory's index for a result ending with `/`, or redirects to the rewritten path
plus a slash.

The translation keeps httpd's answer: the rule's `rewrite` no longer ends the server's rewrite phase by
itself; it records the file its result maps to under the document root, the statements after it test that
with `-d` and answer 301 to the request's path (`$a2n_request_uri`) with the slash, and only then stop as
[L]/[END] would. Where the translation cannot tell the redirect from what the rules do next (a later rule
may rewrite the result again), or access rules or per-directory rewrite rules of the target would answer
first in httpd (mod_rewrite's fixup runs before mod_dir's), A2N840 says so.

A request whose path ends with the slash gets no redirect: mod_dir looks each DirectoryIndex name up in a
subrequest for the request's own path plus the name (the query string kept), which the server's rules see
again (fixup_dir). A subrequest that maps to a regular file replaces the request (an internal redirect to that
URL, through the rules again); one that answers a redirect, as this very check does where the rules map the
index file's URL to a directory too, is the answer, an error answer that carries only the `Header always`
lines; where none finds a file the directory itself stands (a listing, or 403). nginx's index module would
look the index up under the rewritten path. Where every DirectoryIndex list of the server is the same single
name and no directory the rule maps to allows a listing, the translation follows httpd for GET and HEAD: the
rule answers a status of its own that the server's error_page turns into an internal redirect to the request's
path plus the name, which runs the server's rewrite phase again, as the subrequest does (A2N841 for what
stays apart: 404 where nothing is found, other methods). mod_dir takes the DirectoryIndex list of the request's
own path's <Location> sections, so where the last one to cover it says `disabled`, httpd looks no index up and
refuses the directory (403); the statements after the rule answer 403 for GET and HEAD there
(`location_index_lists`), where nginx would serve the rewritten directory's index.

The same subrequest meets a rule ([PT] or not) that rewrites the index file URL of a directory it leaves
alone or makes (/private/ rewritten [PT] to /private/inner/, whose index.html the rule takes further): httpd
serves the rules' result for the index file where it is a regular file, else tries the next name and refuses
the listing (403). nginx's index module looks the file up without the rules, redirects to it only where it
exists, and the server's rewrite phase then rewrites it: 404 where the result names no file (A2N841).

The request's own path also picks the ErrorDocument of a result that names no file: httpd's 404 goes through
the page of the <Location> sections matching that path, nginx's through the rewritten URI's location. Where a
section names a page for 404, the statements after the rule answer a missing result with the rule's own 404
(missing_answer), which the original path's page then serves (carry_location_error_pages).
"""
from __future__ import annotations

import re

from ..model import Scope, Stmt
from .rewrite_handler import access_restricted, document_root
from .rewrite_model import RRule, ends_rewriting, rule_urls

DIRSLASH = "$a2n_dirslash"
DIRINDEX = "$a2n_dirindex"      # the index file's URL mod_dir's subrequest is for
INDEX_STATUS = "599"            # the status the server's error_page redirects to DIRINDEX


def plan(compiler, rule: RRule, negate: bool, target: str) -> bool:
    """Whether the rule's internal rewrite gets the slash check (the compiler then emits it); reports A2N840
    where httpd's redirect may happen and the translation cannot reproduce it, A2N841 where httpd's index
    lookup through the rules may differ from nginx's."""
    reports: list[str] = []
    checked = _plan(compiler, rule, negate, target, reports)
    if (compiler.mapped_root is not None or compiler.mapped_alias) and _may_end_with_slash(rule, negate):
        followed = (checked or index_only(compiler, rule, negate, target)) and _index_name(compiler, target) is not None
        nginx = ("nginx does the same for GET and HEAD (an internal redirect to that path), but answers 404 where "
                 "no file is found that way (httpd: 403) and looks other methods' index up under the rewritten "
                 "path") if followed else "nginx looks it up under the rewritten path"
        compiler.note_once(rule, "A2N841", f"RewriteRule {rule.pattern} {rule.substitution}: where a request's "
                           "path ends with a slash and the result is a directory, httpd looks its index file up as "
                           "that path plus the index name, through the rules again; " + nginx, rule.span,
                           directive="RewriteRule", hint="add [PT] if the substitution is meant as a URL path",
                           urls=rule_urls(rule))
    for why in reports:
        _report(compiler, rule, why)
    if checked:
        note_escaping(compiler, rule)
    return checked


def note_escaping(compiler, rule: RRule) -> None:
    """A2N852 for mod_dir's redirect to the request's own path (`slash_redirect`): nginx's `rewrite` escapes
    the path in the Location (observed with nginx 1.22: space, `"`, `#`, `%`, control characters, bytes past
    ASCII in upper-case hex), but keeps `?`, `<`, `>`, `[`, `\\`, `]`, `^`, `` ` ``, `{`, `|` and `}` that
    httpd's ap_escape_uri escapes (lower-case hex)."""
    compiler.note_once(rule, "A2N852", f"RewriteRule {rule.pattern} {rule.substitution}: where its result is a "
                       "directory, mod_dir's redirect to the request's path plus a slash is escaped by nginx as "
                       "httpd escapes it, but for ? < > [ \\ ] ^ ` { | } (kept) and upper-case hex past ASCII",
                       rule.span, directive="RewriteRule", urls=rule_urls(rule))


def note_index_rewrite(compiler, rule: RRule) -> None:
    """A2N841 for a server-context rule that may rewrite a directory's index file URL (/dir/index.html) while
    /dir/ itself is left alone or is the rule's own result ([PT] or not). mod_dir looks the index file up with a
    subrequest that the server's rules see (observed with httpd 2.4: /private/ rewritten [PT] to
    /private/inner/, whose index.html the rule takes to /private/inner/inner/index.html, which is missing):
    a result that names no regular file makes httpd try the next name and then refuse the listing (403).
    nginx's index module looks the file up under the directory without the rules and redirects to it only
    where it exists; the server's rewrite phase then rewrites it, and a missing result answers 404 (a rewritten
    file that exists where the directory has none is served by httpd, refused by nginx)."""
    from .rewrite import _skipped_in_subrequest
    if compiler.per_dir is not None or _skipped_in_subrequest(rule) or _not_for_get(rule) or \
            rule.substitution == "-" and not {"F", "G", "R"} & set(rule.flags):
        return
    url = _index_url_rewritten(rule, compiler.server_fact(
        "index names", lambda: _every_index_name(compiler.ctx, compiler.server)))
    if url is not None:
        compiler.note_once(rule, "A2N841", f"RewriteRule {rule.pattern} {rule.substitution}: it may rewrite a "
                           f"directory's index file URL ({url}); httpd looks the index file up through the rules "
                           "and, where their result names no file, tries the next name and refuses the listing "
                           "(403); nginx looks the file up without the rules, redirects to it where it exists, and "
                           "answers 404 where the rules' result names no file", rule.span, directive="RewriteRule",
                           hint="keep the rule from matching the index file's path (a RewriteCond on "
                                "%{REQUEST_URI})")


def _not_for_get(rule: RRule) -> bool:
    """Whether a condition on %{REQUEST_METHOD} (none of them [OR]) fails for GET, the method of mod_dir's
    subrequest (ap_sub_req_lookup_uri): the rule never sees the index file URL."""
    if any("OR" in c.flags for c in rule.conds):
        return False
    for cond in rule.conds:
        negate = cond.pattern.startswith("!")
        pattern = cond.pattern[1:] if negate else cond.pattern
        if cond.test.upper() != "%{REQUEST_METHOD}" or pattern[:1] in ("<", ">", "-"):
            continue
        flags = re.I if "NC" in cond.flags else 0
        try:
            holds = re.fullmatch(re.escape(pattern[1:]), "GET", flags) is not None if pattern.startswith("=") \
                else re.search(pattern, "GET", flags) is not None
        except re.error:
            continue
        if holds == negate:
            return True
    return False


def _every_index_name(ctx, server) -> list[str]:
    """The relative DirectoryIndex names of any list of the server (or the main server), index.html by
    default."""
    names = [n for args in _index_lists(ctx, server) or [["index.html"]] for n in args
             if re.fullmatch(r"[\w.~-]+", n)]
    return list(dict.fromkeys(names))


def _index_lists(ctx, server) -> list[list[str]]:
    """Every DirectoryIndex list of the server and the main server: at server level and in their sections."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    lists = [st.args for h in holders for st in h.statements if st.name == "index"]
    return lists + [st.args for h in holders for sc in h.settings.get("directories", []) + list(h.scopes)
                    for st in sc.statements if st.name == "index"]


def _index_url_rewritten(rule: RRule, names: list[str]) -> str | None:
    """An index file URL the rule applies to whose directory URL it leaves alone or makes (its substitution's
    literal start where that ends with a slash), tried on a few directory URLs after the pattern's literal
    prefix; None where there is none (or Python cannot read the pattern)."""
    from .rewrite_compile import literal_prefix
    negate = rule.pattern.startswith("!")
    try:
        regex = re.compile(rule.pattern[1:] if negate else rule.pattern, re.I if "NC" in rule.flags else 0)
    except re.error:
        return None

    def applies(path: str) -> bool:
        return (regex.search(path) is None) == negate
    prefix = (None if negate else literal_prefix(rule.pattern)) or "/"
    base = prefix[:prefix.rfind("/") + 1] or "/"
    made = re.split(r"[$%?]", rule.substitution, maxsplit=1)[0]
    made = made if made.startswith("/") and made.endswith("/") else None
    candidates = [base, base + "x/", prefix.rstrip("/") + "/", prefix.rstrip("/") + "/x/"] + ([made] if made else [])
    for directory in dict.fromkeys(re.sub("/+", "/", c) for c in candidates):
        if directory != made and applies(directory):
            continue
        for name in names:
            if applies(directory + name) and _result(rule, regex, negate, directory + name) != directory + name:
                return directory + name
    return None


def _result(rule: RRule, regex, negate: bool, path: str) -> str | None:
    """The rule's result for PATH where its substitution holds only text and $N references (None where it
    reads anything else): a rule giving the index file URL back unchanged does not move it."""
    target = rule.substitution.split("?", 1)[0]
    if "%" in target or "${" in target or "\\" in target:
        return None
    found = None if negate else regex.search(path)
    if found is None and re.search(r"\$\d", target):
        return None
    def group(m) -> str:
        n = int(m.group(1))
        return (found.group(n) or "") if n <= regex.groups else ""
    return re.sub(r"\$(\d)", group, target)


def _plan(compiler, rule: RRule, negate: bool, target: str, reports: list[str]) -> bool:
    """Whether the slash check follows the rule; what keeps it from following goes to REPORTS (A2N840)."""
    if not negate and re.search(r"/\$$", rule.pattern) and "|" not in rule.pattern:
        # the request's path always ends with a slash: mod_dir never redirects, only its index lookup may follow
        return _index_name(compiler, target) is not None and _plan_checks(compiler, rule, target, [])
    return _plan_checks(compiler, rule, target, reports)


def _plan_checks(compiler, rule: RRule, target: str, reports: list[str], files: bool = True) -> bool:
    """Whether the file the result maps to is the one mod_dir's fixup sees (nothing else answers first); with
    FILES False, <Files> sections are left out (index_only)."""
    path = target.split("?", 1)[0]
    static = re.split(r"[$]", path, maxsplit=1)[0]
    dynamic = static != path
    mapped = compiler.mapped_root
    if mapped is None:
        if compiler.mapped_alias:
            reports.append("its result is a file under an Alias target, which the check does not map")
        return False
    later = _later_rules(compiler, rule)
    if "N" in rule.flags:
        reports.append("the rule may apply again to its own result ([N]), and only the final file decides")
        return False
    if not ({"L", "END"} & set(rule.flags)) and later is not None and \
            any(_may_see(r, static, dynamic) for r in later):
        reports.append("a later rule may rewrite its result again, and only the final file decides")
        return False
    refused = _server_refused(compiler)
    if refused is not None:
        reports.append(f"the whole server is refused for {refused}, which httpd checks before its "
                       "redirect and nginx only after its server rewrite phase")
        return False
    scope = _governed(compiler, mapped + static, dynamic, path, files)
    if scope is not None:
        where = f" ({scope.span.file_line})" if scope.span else ""
        reports.append(f"httpd checks the access rules of the section{where} over the directory before "
                       "its redirect, nginx's server rewrite phase would answer first")
        return False
    # (where the rule ends with [END], mod_rewrite's fixup runs no per-directory rule of the request)
    answering = None if ends_rewriting(rule) else _directory_rules(compiler, mapped + static, dynamic)
    if answering is not None:
        span = answering.rules[0].span if answering.rules else answering.engine_span
        where = f" ({span.file_line})" if span else ""
        reports.append(f"httpd runs the per-directory rewrite rules of <Directory {answering.directory}>"
                       f"{where} over the directory before its redirect and they may refuse or redirect "
                       "the request first, nginx's server rewrite phase would answer before them")
        return False
    compiler.needs_request_uri = True
    return True


def index_only(compiler, rule: RRule, negate: bool, target: str) -> bool:
    """Whether the index lookup follows the rule though its redirect does not, because only a <Files> or
    <FilesMatch> section kept the redirect from following (_governed): httpd checks those against the file
    name, and a request whose path ends with a slash maps to the directory with its slash, which they do not
    refuse (observed with httpd 2.4: `<FilesMatch "^sub$"> Require all denied` and /data/ rewritten to
    /data/sub/ serves /data/sub/index.html, 200). nginx's index module would look the index up under the
    rewritten path, through the rule again (/data/sub/sub/index.html, 404); the index file's own URL still
    meets the locations the sections become. Only for a rule that may apply to a path ending with a slash."""
    return compiler.per_dir is None and "PT" not in rule.flags and _may_end_with_slash(rule, negate) \
        and _index_name(compiler, target) is not None and _plan_checks(compiler, rule, target, [], files=False)


def index_lookup(compiler, target: str) -> str | None:
    """The index name whose lookup the rule's statements follow as httpd's subrequest does (see the module's
    docstring), with the server's error_page that makes the internal redirect; None where they do not."""
    name = _index_name(compiler, target)
    if name is None:
        return None
    _index_error_page(compiler.server)
    return name


def _index_name(compiler, target: str) -> str | None:
    """The one DirectoryIndex name of the server (every list the same single name, index.html by default),
    where no directory the result may map to allows a listing (httpd's answer where no index file is found);
    else None."""
    from .rewrite_dirindex import index_names
    from .rewrite_handler import directory_options, option_directories
    ctx, server, mapped = compiler.ctx, compiler.server, compiler.mapped_root
    if mapped is None:
        return None
    path = target.split("?", 1)[0]
    static = re.split(r"[$%]", path, maxsplit=1)[0]
    dynamic = static != path
    directory = (mapped + static).rstrip("/")
    if dynamic:
        directory = directory[:directory.rfind("/")] if "/" in directory else ""
    names = index_names(ctx, server, directory)
    lists = _index_lists(ctx, server)
    if len(names) != 1 or not re.fullmatch(r"[\w.~-]+", names[0]) or any(args != names for args in lists):
        return None
    places = [directory] + (option_directories(ctx, server, directory) if dynamic else [])
    for place in places:
        options = directory_options(ctx, server, place)
        if options is None or "indexes" in options:
            return None
    return names[0]


def after(rule: RRule, flag: str | None, index: str | None = None, redirect: bool = True, missing: bool = False,
          no_index: list[tuple[str, bool]] = ()) -> list[Stmt]:
    """The statements after the rule: mod_dir's redirect where the mapped file is a directory and the request's
    path has no trailing slash, then the stop of [L]/[END] where the rule applied. With INDEX, mod_dir's index
    lookup where the path has the slash: the status the server's error_page redirects to the path plus INDEX.
    With MISSING (see `missing_answer`), the 404 of a result that names no file, answered here. NO_INDEX (see
    `location_index_lists`): the refusal of a directory result whose request path a <Location> with
    DirectoryIndex disabled covers. Without REDIRECT (index_only), the index lookup alone."""
    span = rule.span
    out = _missing(span) if missing and flag and redirect else []
    out += [Stmt("if", [f"(-d {DIRSLASH})"], span, block=[Stmt("set", [DIRSLASH, "d"], span)]),
            Stmt("set", [DIRSLASH, f"{DIRSLASH}:$a2n_request_uri"], span)]
    if index is None and any(disabled for _, disabled in no_index):
        out += _no_index_refusal(span, no_index)
    if index is not None:
        out += [Stmt("set", [DIRINDEX, f"{DIRSLASH}:$request_method"], span),
                Stmt("if", [f'({DIRINDEX} ~ "^d:[^?]*/:(?:GET|HEAD)$")'], span,
                     block=[Stmt("set", [DIRINDEX, f"${{a2n_request_uri}}{index}$is_args$args"], span),
                            Stmt("return", [INDEX_STATUS], span)],
                     comment="mod_dir: the result is a directory, its index file is looked up through the rules")]
    if redirect:
        out += slash_redirect(DIRSLASH, span, "mod_dir: the result is a directory, the request's path lacks the slash")
    if flag:
        out.append(Stmt("if", [f'({DIRSLASH} !~ "^:")'], span,
                        block=[Stmt("break", [], span)], comment=f"RewriteRule [{'END' if 'END' in rule.flags else 'L'}]"))
    return out


def location_index_lists(compiler) -> list[tuple[str, bool]]:
    """The <Location>/<LocationMatch> sections of the server (the main server's first) that set a DirectoryIndex
    list, in the order httpd merges them (config order), each as a regular expression over the request's path
    and whether its list is `disabled`. mod_dir takes the list of the request's merged configuration, and a
    server-context rule that maps to a file keeps the request's own path (r->uri), so the <Location> sections
    of that path choose it, not those of the rewritten one (observed with httpd 2.4: GET /private/ rewritten to
    the directory /shop/ under `<Location /private> DirectoryIndex disabled` answers 403, no listing allowed,
    although /shop/index.html exists). nginx looks the index up in the rewritten URI's location and serves
    /shop/index.html. A section whose pattern cannot be written in nginx's double quotes is left out."""
    from ..emit.dirindex import DISABLED_INDEX
    ctx, server = compiler.ctx, compiler.server
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for scope in (sc for h in holders for sc in h.scopes if sc.kind == "location"):
        names = next((st.args for st in scope.statements if st.name == "index"), None)
        regex = _location_regex(scope)
        if names is not None and regex is not None:
            out.append((regex, names == [DISABLED_INDEX]))
    return out


def _location_regex(scope: Scope) -> str | None:
    """A regular expression over the request's path matching where the <Location> section does: a plain path
    as a prefix ending at a slash or at the path's end (httpd's location walk), a regex as written."""
    if scope.regex:
        pattern = scope.path.strip('"')
        pattern = ("(?i)" if scope.nocase else "") + pattern
    else:
        path = scope.path.strip('"')
        if any(c in path for c in "*?["):
            return None
        pattern = "^" + re.escape(path) + ("" if path.endswith("/") else "(?:/|$)")
    return None if '"' in pattern or pattern.endswith("\\") else pattern


def _no_index_refusal(span, no_index: list[tuple[str, bool]]) -> list[Stmt]:
    """403 for GET and HEAD where the result is a directory, the request's path ends with a slash and the last
    <Location> section with a DirectoryIndex list to match that path says `disabled`: httpd's mod_dir then looks
    no index up and the directory itself stands (403 without Options Indexes; a listing with it, which nginx
    refuses too: A2N209). Other methods stay with nginx's lookup (A2N841)."""
    out = [Stmt("set", [DIRINDEX, ""], span)]
    for regex, disabled in no_index:
        value = f"{DIRSLASH}:$request_method" if disabled else ""
        out.append(Stmt("if", [f'($a2n_request_uri ~ "{regex}")'], span, block=[Stmt("set", [DIRINDEX, value], span)],
                        comment="DirectoryIndex disabled for the request's own path" if disabled else None))
    out.append(Stmt("if", [f'({DIRINDEX} ~ "^d:[^?]*/:(?:GET|HEAD)$")'], span, block=[Stmt("return", ["403"], span)],
                    comment="mod_dir: the result is a directory, no index is looked up for the request's own path"))
    return out


_MISSING = "$a2n_missing"


def missing_answer(compiler) -> bool:
    """Whether a result that names no file is answered in the server's rewrite phase: where some <Location> or
    <LocationMatch> of the server names a page for 404. httpd keeps the request's own path (r->uri) for a
    rule that maps to a file, so the 404 of a missing result goes through the ErrorDocument 404 of the
    sections matching that path (GET /private/sub/x/a.txt rewritten to the missing /files/ under
    `<Location /private> ErrorDocument 404 http://...`: 302 to that URL). nginx looks the rewritten URI's
    location up and answers there with its error_page, or none. Answered as the rule's own 404, it gets the
    original URL's page as a rule's error answer does (carry_location_error_pages)."""
    holders = [compiler.server] if compiler.server is compiler.ctx.main else [compiler.ctx.main, compiler.server]
    return compiler.server_fact("location 404 page", lambda: any(
        st.name == "error_page" and "404" in st.args[:-1]
        for h in holders for sc in h.scopes if sc.kind == "location" for st in sc.statements))


def _missing(span) -> list[Stmt]:
    """404 where the rule applied and the file its result maps to does not exist."""
    return [Stmt("set", [_MISSING, DIRSLASH], span),
            Stmt("if", [f"(-e {_MISSING})"], span, block=[Stmt("set", [_MISSING, ""], span)]),
            Stmt("if", [f'({_MISSING} != "")'], span, block=[Stmt("return", ["404"], span)],
                 comment="the result names no file: httpd's 404 for the request's own path")]


# the comments of mod_dir's redirect and index lookup in the document root's internal location (`in_document_root`)
DOCROOT_SLASH = "mod_dir: a directory result, redirected for the request's own path"
DOCROOT_INDEX = "mod_dir: a directory result's index file, looked up for the request's own path"
DOCROOT_DIRECTORY = (DOCROOT_SLASH, DOCROOT_INDEX)
# the comment on the 403 where that lookup cannot be followed (A2N346): a refusal in place of what is not
# translated, whose answer carries the headers httpd's served index file may (emit.inherit.refused_headers)
DOCROOT_INDEX_REFUSED = "the index lookup is not translated: refused"
_DOCROOT_DIR = "$a2n_docroot_dir"


def in_document_root(span, index: str | None) -> list[Stmt]:
    """mod_dir in the internal location a server-context rule maps its result onto the document root through
    (rewrite_compile `document_root_file`). httpd keeps the request's own path (r->uri) for a rule that maps
    to a file: where the result is a directory and the request's path lacks the slash, it answers 301 to that
    path plus the slash and the query (GET /data, rewritten to the directory /files: Location /data/). nginx's
    static module redirects to the URI it serves plus the slash, the internal location's prefix with it
    (/a2n_docroot_1/files/), a URL no client may see. Where the request's path has the slash, httpd looks the
    index file up for that path (`_docroot_index`), never under the result's; nginx's index module would serve
    the result's own index file. INDEX: the name to look up, None where the lookup cannot be followed."""
    return [Stmt("set", [_DOCROOT_DIR, "$a2n_request_uri"], span, comment=DOCROOT_SLASH),
            Stmt("if", ["(-d $request_filename)"], span, comment=DOCROOT_SLASH,
                 block=[Stmt("set", [_DOCROOT_DIR, f"d:{_DOCROOT_DIR}"], span)]),
            *slash_redirect(_DOCROOT_DIR, span, DOCROOT_SLASH)] + \
        _docroot_index(span, index) + \
        [Stmt("if", [f'({_DOCROOT_DIR} ~ "^d:")'], span, comment=DOCROOT_SLASH,
              block=[Stmt("rewrite", ["^(.*[^/])$", "$1/", "last"], span)])]


def _docroot_index(span, index: str | None) -> list[Stmt]:
    """The index lookup of a directory result whose request path has the slash (the redirect has answered the
    others). httpd's mod_dir looks each DirectoryIndex name up in a subrequest for the request's own path plus
    the name, through the server's rules again (observed with httpd 2.4: GET /admin/ rewritten to the directory
    /app/inner/ serves /srv/www/admin/index.html, and answers 403 where that file is missing, no listing
    allowed, although /app/inner/index.html exists). nginx's index module looks the file up under the
    rewritten path. For GET and HEAD the location answers the status the server's error_page turns into an
    internal redirect to the request's path plus INDEX, which runs the server's rules again as the subrequest
    does (a missing file then answers 404, and other methods stay with nginx's lookup: A2N345 says so). Where
    the lookup cannot be followed (INDEX None), the location refuses the directory (403, A2N346), as httpd does
    where the request's path has no index file; where it has one, httpd serves it with the Header lines of its
    sections (a <FilesMatch "\\.html$"> onsuccess Referrer-Policy on GET /blog/ for /blog/home.html), so the
    refusal is marked as one in place of what is not translated (DOCROOT_INDEX_REFUSED): its 403 carries the
    location's and its file sections' headers, onsuccess ones too (emit.inherit.refused_headers)."""
    if index is None:
        return [Stmt("if", [f'({_DOCROOT_DIR} ~ "^d:")'], span, comment=DOCROOT_INDEX,
                     block=[Stmt("return", ["403"], span, comment=DOCROOT_INDEX_REFUSED)])]
    return [Stmt("set", [DIRINDEX, f"{_DOCROOT_DIR}:$request_method"], span, comment=DOCROOT_INDEX),
            Stmt("if", [f'({DIRINDEX} ~ "^d:[^?]*/:(?:GET|HEAD)$")'], span, comment=DOCROOT_INDEX,
                 block=[Stmt("set", [DIRINDEX, f"${{a2n_request_uri}}{index}$is_args$args"], span),
                        Stmt("return", [INDEX_STATUS], span)])]


def docroot_index_name(compiler) -> str | None:
    """The index name the document root's internal location looks up for the request's own path: the first
    name of the document root's DirectoryIndex list (index.html by default) where every list of the server is
    that list and the name is a plain file name; else None (lists that differ by directory, a path,
    `disabled`). mod_dir takes the list of the result's directory, which the request's own path does not
    tell. Where the first name is missing and a later one exists, httpd serves the later one and nginx answers
    404 (A2N345). The server's error_page that makes the internal redirect is added with it."""
    from .rewrite_dirindex import index_names
    ctx, server = compiler.ctx, compiler.server
    names = index_names(ctx, server, document_root(ctx, server) or "")
    if not names or any(args != names for args in _index_lists(ctx, server)) or \
            not re.fullmatch(r"[\w.~-]+", names[0]):
        return None
    name = names[0]
    _index_error_page(compiler.server)
    return name


def _index_error_page(server) -> None:
    """The server's error_page that turns INDEX_STATUS into an internal redirect to DIRINDEX."""
    statements = server.own_statements
    if not any(st.name == "error_page" and st.args[:1] == [INDEX_STATUS] for st in statements):
        statements.append(Stmt("error_page", [INDEX_STATUS, "=", DIRINDEX], None,
                               comment="mod_dir's index subrequest, through the server's rules again"))


# what httpd's ap_escape_uri leaves as it is in a path (gen_test_char.c, T_OS_ESCAPE_PATH)
_UNESCAPED = "[-a-zA-Z0-9_.$+!*'(),:;@&=~]"
# mod_dir's redirect as it stands where the request's path holds nothing httpd escapes
PLAIN_REDIRECT = ["301", "$a2n_request_uri/$is_args$args"]
# the redirect nginx's `rewrite` escapes: its capture of the request's path, put back as the URI first (the
# pattern matches every path, a decoded line break too, so the request never goes on past the `if`)
ESCAPED_REDIRECT = ["(?s)^(.*)$", "$1/", "permanent"]


def slash_redirect(var: str, span, comment: str) -> list[Stmt]:
    """mod_dir's 301 to the request's own path plus the slash, where VAR (`d:` and that path) says the result
    is a directory and the path lacks the slash. httpd writes the decoded path escaped (fixup_dir:
    ap_escape_uri(r->uri), observed: GET /data/a%20b redirected to /data/a%20b/), so a `return` of the
    decoded path ($a2n_request_uri, as nginx's $uri holds it) sends a raw space, `?` or `#` in the Location
    (/data/a b/). Where the path holds anything httpd escapes, the redirect is made by nginx's `rewrite`,
    which escapes its captures in a redirect as httpd does (A2N852 for what stays apart): the request's path
    is put back as the URI, whose capture the redirect takes."""
    plain = f'({var} ~ "^d:(?:{_UNESCAPED}|/)*{_UNESCAPED}$")'
    return [Stmt("if", [plain], span, block=[Stmt("return", list(PLAIN_REDIRECT), span)], comment=comment),
            Stmt("if", [f'({var} ~ "^d:.*[^/]$")'], span, comment=comment,
                 block=[Stmt("rewrite", ["^", "$a2n_request_uri"], span),
                        Stmt("rewrite", list(ESCAPED_REDIRECT), span)])]


def is_slash_redirect(st: Stmt) -> bool:
    """Whether ST is an `if` holding mod_dir's redirect (`slash_redirect`)."""
    return st.name == "if" and bool(st.block) and any(
        b.name == "return" and b.args == PLAIN_REDIRECT or b.name == "rewrite" and b.args == ESCAPED_REDIRECT
        for b in st.block)


def record(compiler, rule: RRule) -> Stmt:
    """In the rule's action, after its rewrite: the file the result maps to (the server's `root` is the
    document root the result maps under)."""
    root = compiler.mapped_root
    path = "$document_root$uri" if root == document_root(compiler.ctx, compiler.server) else root + "/$uri"
    return Stmt("set", [DIRSLASH, path], rule.span, comment="the file the result maps to")


def reset(rule: RRule) -> Stmt:
    return Stmt("set", [DIRSLASH, ""], rule.span)


def _report(compiler, rule: RRule, why: str) -> None:
    compiler.note_once(rule, "A2N840", f"RewriteRule {rule.pattern} {rule.substitution}: where its result is a "
                       "directory, httpd redirects the request's own path to add a slash (mod_dir); " + why +
                       ", so nginx serves the directory's index or redirects to the rewritten path",
                       rule.span, directive="RewriteRule", hint="add [PT] (httpd then redirects the rewritten path "
                       "too) or end the substitution with the file's name", urls=rule_urls(rule))


def _may_end_with_slash(rule: RRule, negate: bool) -> bool:
    """Whether the rule may apply to a path that ends with a slash (tried on a few paths after its literal
    prefix; a pattern Python cannot read may)."""
    from .rewrite_compile import literal_prefix
    prefix = None if negate else literal_prefix(rule.pattern)
    if prefix is None:
        return True
    candidates = [prefix + "/", prefix + "x/"] + ([prefix] if prefix.endswith("/") else [])
    try:
        regex = re.compile(rule.pattern, re.I if "NC" in rule.flags else 0)
    except re.error:
        return True
    return any(regex.search(c) for c in candidates)


def _later_rules(compiler, rule: RRule) -> list[RRule] | None:
    rules = compiler.state.rules
    at = next((i for i, r in enumerate(rules) if r.directive is rule.directive), None)
    return None if at is None else rules[at + 1:]


def _may_see(rule: RRule, static: str, dynamic: bool) -> bool:
    """Whether a later RULE may match the result (STATIC, followed by a value of the request if DYNAMIC)."""
    from .rewrite_compile import _apart
    if rule.substitution == "-" and not {"R", "F", "G", "P"} & set(rule.flags):
        return False            # it changes nothing of the result
    if dynamic:
        return not (static and _apart(rule.pattern, static))
    negate = rule.pattern.startswith("!")
    try:
        found = re.search(rule.pattern[1:] if negate else rule.pattern, static, re.I if "NC" in rule.flags else 0)
    except re.error:
        return True
    return (found is None) == negate


def _server_refused(compiler) -> str | None:
    """The section (with its place) whose untranslated access rules refuse the whole server (the server's own
    or the main server's, which every virtual host inherits), or that may (a wildcard <Directory> the layout
    decides on): the server's locations deny every request, after the server's rewrite phase."""
    ctx, server = compiler.ctx, compiler.server
    for holder in [server] if server is ctx.main else [server, ctx.main]:
        pending = [holder.settings["refuse_all"]] if holder.settings.get("refuse_all") else []
        pending += [(label, span) for _, label, span in holder.settings.get("wildcard_refusals", [])]
        for label, span in pending:
            return label + (f" ({span.file_line})" if span else "")
    return None


def _answers_first(rule: RRule) -> bool:
    """The per-directory rule answers in mod_rewrite's fixup itself where it applies: [F], [G], a redirect, or
    httpd 2.4.60+'s refusal of an unsafe result. An internal rewrite (or [P]) leaves the answer to a handler,
    and mod_dir's fixup redirects a directory first."""
    from . import rewrite_unsafe
    if {"F", "G"} & set(rule.flags) or rewrite_unsafe.is_redirect(rule):
        return True
    try:
        return bool(rewrite_unsafe.plan(rule))
    except rewrite_unsafe.Refused:
        return True


def _directory_rules(compiler, fs_static: str, dynamic: bool):
    """A per-directory rewrite context httpd may run on the mapped file before mod_dir's redirect and that may
    answer there: mod_rewrite's fixup (hook_fixup, APR_HOOK_FIRST) runs before mod_dir's (dir_fixups,
    APR_HOOK_LAST), and a status it returns ends the fixups, mod_dir's redirect with them: a rule's own answer
    (_answers_first), or AH00670's 403 where the directory's Options allow neither FollowSymLinks nor
    SymLinksIfOwnerMatch under an engine that is on. The context of the deepest plain <Directory> with
    mod_rewrite directives over the file runs (a deeper one replaces a parent's rules, rewrite_merge); where
    the result takes a value of the request, the contexts below its static part may too, and regex sections
    wherever they may match. (httpd skips a context whose own directory is the file named without its
    trailing slash, RewriteOptions AllowNoSlash aside; the translation does not count on that.)"""
    from .rewrite_handler import directory_options, option_directories
    from .rewrite_merge import _covers, _plain
    ctx, server = compiler.ctx, compiler.server
    states = server.settings.get("rewrite_directory_states", [])
    directory = fs_static if dynamic else fs_static.rstrip("/")
    if dynamic:
        directory = directory[:directory.rfind("/")] if "/" in directory else ""
    directory = directory.rstrip("/")
    plain = [(p, s) for s in states if (p := _plain(s)) is not None]
    over = [(p, s) for p, s in plain if _covers(p, directory)]
    chosen = [max(over, key=lambda ps: ps[0].count("/") + (ps[0] != ""))] if over else []
    if dynamic:
        chosen += [(p, s) for p, s in plain if p.startswith(directory + "/") and (p + "/").startswith(fs_static)]
    for p, state in chosen:
        if not state.engine:
            continue
        if any(_answers_first(r) for r in state.rules):
            return state
        # the Options of the mapped directory (with DYNAMIC: of the context's own, and those set below)
        places = [directory if _covers(p, directory) else p]
        places += [q for q in option_directories(ctx, server, directory) if _covers(p, q)] if dynamic else []
        for place in places:
            options = directory_options(ctx, server, place)
            if options is not None and not options & {"followsymlinks", "symlinksifownermatch"}:
                return state
    return next((s for s in states if _plain(s) is None and s.engine is not False
                 and any(_answers_first(r) for r in s.rules)), None)


def _governed(compiler, fs_static: str, dynamic: bool, url: str, files: bool = True):
    """A section with access rules that httpd may check on the mapped file before mod_dir answers: the plain
    <Directory> sections over it merged (a later grant lifts an earlier refusal, as httpd merges them), those
    below a value of the request, and regex <Directory> and <Files> sections that may match the file."""
    from .access import AccessConfig, merge
    from .rewrite_handler import _ancestors, _effective_problem
    ctx, server = compiler.ctx, compiler.server
    holders = [server] if server is ctx.main else [ctx.main, server]
    directory = fs_static if dynamic else fs_static.rstrip("/")
    if dynamic:
        directory = directory[:directory.rfind("/")] if "/" in directory else ""
    names = {directory.rstrip("/")} | ({directory.rstrip("/") + "/"} if not dynamic else set())
    chain = []
    for ancestor in _ancestors(directory.rstrip("/")):
        for h in holders:
            chain += [sc for sc in h.settings.get("directories", []) if sc.kind == "directory" and not sc.regex
                      and (sc.fs_path or "").rstrip("/") == ancestor
                      and isinstance(sc.settings.get("access"), AccessConfig)]
    if chain and _effective_problem(merge([sc.settings["access"] for sc in chain]), False):
        return chain[-1]
    # (the merge leaves <Limit>/<LimitExcept> out: a method they refuse is refused before the redirect too)
    limited = next((sc for sc in reversed(chain) if sc.settings["access"].limits), None)
    if limited is not None:
        return limited
    refusal = _filename_refusal(holders, names, dynamic)
    if refusal is not None:
        return refusal
    for scope in access_restricted(ctx, server, files=True):
        if scope.kind == "directory" and scope.regex:
            try:
                if dynamic or any(re.search(scope.path.strip('"'), n, re.I if scope.nocase else 0) for n in names):
                    return scope
            except re.error:
                return scope
        elif scope.kind == "directory":
            p = (scope.fs_path or scope.path).rstrip("/")
            if dynamic and p.startswith(fs_static.rstrip("/") + "/"):
                return scope        # a directory below the part the request chooses
        elif scope.kind == "files" and files:
            if dynamic or scope.files_regex is None:
                return scope
            try:
                if re.search(scope.files_regex, url, re.I if scope.nocase else 0):
                    return scope
            except re.error:
                return scope
    return None


def _filename_refusal(holders: list, names: set[str], dynamic: bool):
    """A <DirectoryMatch> that refuses everyone (access._directory_match_refusal: kept as a test of the file
    name, `filename_refusals`, not as a section) and may match the mapped directory: httpd's access check
    refuses there (403) before mod_dir's fixup would redirect, where nginx's server rewrite phase would
    answer the redirect before the location's test of $request_filename. A section standing for it (its
    pattern and place), or None."""
    for holder in holders:
        for pattern, span in holder.settings.get("filename_refusals", []):
            try:
                matches = dynamic or any(re.search(pattern, n) for n in names)
            except re.error:
                matches = True
            if matches:
                return Scope(pattern, regex=True, span=span, kind="directory")
    return None
