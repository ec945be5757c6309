"""mod_dir's fixup for the methods nginx's index and static modules leave alone (PUT, DELETE, OPTIONS, ...).

httpd's mod_dir (fixup_dir, src: modules/mappers/mod_dir.c) works for every method:

- a directory requested without its trailing slash is answered 301 to the path plus `/` (the query string
  kept; DirectorySlash On). That is httpd's own redirect, so it carries the `Header always` lines alone;
- a directory requested with it is replaced by the first DirectoryIndex name that maps to a regular file
  (ap_internal_fast_redirect): the default handler then answers for the index file, 405 to PUT or DELETE and
  200 to OPTIONS, with the headers of the sections matching the index file (<Files>, <FilesMatch>,
  <LocationMatch>).

nginx's index module declines any method but GET, HEAD and POST, and its static module answers those methods
with 405 before it looks for a directory. So `OPTIONS /d` got nginx's 405 with the onsuccess headers (the
gate of passes.headers sends them on the 405 nginx answers OPTIONS with) where httpd redirects without them,
and `PUT /` got the 405 of the directory's location without the `Header always` lines of a <FilesMatch> over
index.html (observed with httpd 2.4 and nginx 1.22).

The translation does mod_dir's work for those methods, after the location's rewrites (mod_rewrite's fixup
runs before mod_dir's): a directory without its slash is redirected (`return 301`, nginx's own redirect, to
which no onsuccess header goes) and a directory with it is rewritten to its first index file that exists.
Both are answered in nginx's rewrite phase, before its access phase: they are added only to locations without
access rules of nginx's access phase (where the redirect goes to a named location the location's 405 is sent
to, after the access checks: slash_after_access), and only where they change the headers sent (the server has onsuccess
headers, or file sections or <LocationMatch> sections with Header lines) or the answer (`rules_reach_index`:
the location's per-directory rewrite rules may apply to an index file's URL, to refuse, proxy or rewrite it);
a server that had no location gets a `location /` holding them, and the regex location of a <LocationMatch>
serving the document root holds them too (its index file's URL may come back to it). They go in last, after
the rules carried between locations. A path that would need escaping in the redirect (nginx's static module escapes it,
`return` does not) is left to nginx's 405.
"""
from __future__ import annotations

import dataclasses
import re

from ..model import Stmt
from ..passes.fallback import UNDER_FALLBACK, WITHOUT_FALLBACK
from ..passes.rewrite_dirindex import TRIED
from .dirindex import DISABLED_INDEX

_OTHER_METHOD = "~^(?!(?:GET|HEAD|POST):)[^:]*:"
_PLAIN_PATH = r"[-\w./~]*"
_PLAIN_NAME = re.compile(r"^[-\w.~]+$")
# nginx's access phase runs after the rewrite phase these statements answer in
_ACCESS_PHASE = {"allow", "deny", "auth_basic", "auth_basic_user_file", "auth_request", "satisfy"}


def rules_reach_index(loc, names: list[str]) -> bool:
    """Whether the per-directory rewrite rules of LOC (a prefix location of a directory URL) may apply to the
    URL of an index file NAMES: of the location's directory, or of one below it. mod_dir's subrequest for the
    index file runs the directory's rules for every method, so httpd answers PUT / with the rules' refusal
    (403) or their proxy's answer where they match /index.html (observed with httpd 2.4), and nginx, whose
    index module declines PUT, with the 405 of its static module. A test this module cannot read may match."""
    if not loc.directory_rules or loc.modifier not in ("", "^~") or not loc.path.endswith("/") or not names:
        return False
    rules = every_rule_statement(loc.directory_rules)
    if any(st.name == "set" and st.args[:1] == [TRIED] for st in rules):
        return False    # the rules follow mod_dir's lookup themselves, for every method (passes.rewrite_dirindex)
    urls = [loc.path + below + name for below in ("", "a2n/") for name in names]
    return any(_may_match(st, urls) for st in rules)


# tests that an index file (a regular file mod_dir found) never passes: the statements under them do not apply
_NOT_AN_INDEX_FILE = re.compile(r"^\((?:-d|!-f) ")


def every_rule_statement(statements: list[Stmt]) -> list[Stmt]:
    """STATEMENTS and the statements nested in their blocks, but for those under a test of a directory or of
    a missing file."""
    out = []
    for st in statements:
        out.append(st)
        if not (st.name == "if" and _NOT_AN_INDEX_FILE.match(" ".join(st.args))):
            out.extend(every_rule_statement(st.block or []))
    return out


_URI_TEST = re.compile(r'^\(\$uri (~\*?) "?(.*?)"?\)$')


def _may_match(st: Stmt, urls: list[str]) -> bool:
    """Whether the URI test of the rewrite-phase statement ST (an `if ($uri ~ R)`, a `rewrite R`) may match
    one of URLS; statements testing something else leave the answer to the tests they stand under."""
    if st.name == "rewrite" and st.args:
        pattern, flags = st.args[0].strip('"'), 0
    elif st.name == "if" and st.args and (found := _URI_TEST.match(" ".join(st.args))):
        pattern, flags = found.group(2), re.I if found.group(1) == "~*" else 0
    else:
        return False
    try:
        compiled = re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", pattern), flags)
    except re.error:
        return True
    return any(compiled.search(url) for url in urls)


def has_access_phase(statements: list[Stmt]) -> bool:
    return any(st.name in _ACCESS_PHASE for st in statements)


def index_names(statements: list[Stmt], outer: list[list[Stmt]]) -> list[str]:
    """The index names nginx tries for a location with STATEMENTS under the blocks OUTER (innermost first),
    up to the first one this module cannot name safely in a rewrite; nginx's default is index.html, as
    httpd's."""
    for holder in [statements, *outer]:
        found = [st for st in holder if st.name == "index"]
        if found:
            names = found[-1].args
            break
    else:
        names = ["index.html"]
    out = []
    for name in names:
        if name == DISABLED_INDEX or not _PLAIN_NAME.match(name):
            break
        out.append(name)
    return out


INDEX_FIXUP = "mod_dir maps a directory to its index file for every method"
SLASH_FIXUP = "mod_dir redirects a directory without its slash for every method"
# mod_dir's fixup steps aside for a request a per-directory rule rewrote (fixup_dir: its handler is mod_rewrite's
# redirect-handler): these statements never see a rewritten URI in httpd, which the internal redirect brings to
# the fixup of its own location (emit.rerun does not count them among the statements after a rewrite)
FIXUPS = frozenset({INDEX_FIXUP, SLASH_FIXUP})


# the maps' value for the other requests: a path that is never a file or a directory (its parent is a device).
# Not "": with disable_symlinks on, nginx's -d opens an empty path as the directory it walks from, and finds it.
NO_PATH = "/dev/null/-"


def statements(model, names: list[str], slash: bool, span, volatile: bool = False) -> list[Stmt]:
    """The rewrite-phase statements: the index files NAMES tried in order for a directory URL, and (SLASH)
    the redirect of a directory without its trailing slash, for the methods other than GET, HEAD and POST.
    VOLATILE: the index file's URL may come back to the same location (rules_reach_index), whose `if` must
    not read the directory's cached value again (a loop of rewrites, 500)."""
    out = []
    for name in names:
        variable = model.shared_map("a2n_dirmethod_", "$request_method:$uri",
                                    [(_OTHER_METHOD + ".*/$", "${request_filename}" + name)], NO_PATH, span=span,
                                    volatile=volatile)
        out.append(Stmt("if", [f"(-f {variable})"], span, block=[Stmt("rewrite", ["^", "${uri}" + name, "last"], span)],
                        comment=INDEX_FIXUP))
    if slash:
        variable = model.shared_map("a2n_dirmethod_", "$request_method:$uri",
                                    [(_OTHER_METHOD + _PLAIN_PATH + "[-\\w.~]$", "$request_filename")], NO_PATH,
                                    span=span)
        out.append(Stmt("if", [f"(-d {variable})"], span, block=[Stmt("return", ["301", "$uri/$is_args$args"], span)],
                        comment=SLASH_FIXUP))
    return out


_PLAIN_URL = re.compile(r"^/[-\w./~]*$")


def fallback_statements(model, statements: list[Stmt], outer: list[list[Stmt]], originals: dict | None,
                        span, mapped_elsewhere=lambda url: False) -> list[Stmt]:
    """A directory request under a FallbackResource whose URL maps to no file: mod_dir's subrequest for the
    missing first DirectoryIndex name takes the fallback, which fails in turn (httpd answers the fallback's
    own lookup 500, too many internal redirects), so fixup_dir goes on to the later names and serves the
    first that exists (observed with httpd 2.4). nginx's `index` holds the first name and the fallback URL
    alone (see passes.fallback.finish_server): its redirect to the missing fallback loops (500). For every
    method, a directory URL is rewritten to its first name that exists, else to the fallback URL where that
    file exists under the document root, else to the first later name that exists. Not where a route (Alias,
    ProxyPass, Redirect) may claim the fallback URL: its file is not the document root's, and the joined
    `index` keeps sending the request there, as httpd's subrequest does."""
    index = next((st for holder in [statements, *outer] for st in reversed(holder) if st.name == "index"), None)
    if index is None or not index.args or not _joined_with_fallback(index, originals):
        return []
    own = list((originals or {}).get(id(index), []))
    target = index.args[-1]
    if len(own) < 2 or own[0] != index.args[0] or not _PLAIN_URL.match(target) or \
            not all(_PLAIN_NAME.match(name) for name in own) or mapped_elsewhere(target):
        return []
    out = [_rewrite_if_file(model, "${request_filename}" + own[0], "${uri}" + own[0], span),
           _rewrite_if_file(model, "${document_root}" + target, target, span)]
    out += [_rewrite_if_file(model, "${request_filename}" + name, "${uri}" + name, span) for name in own[1:]]
    return out


def _joined_with_fallback(index: Stmt, originals: dict | None) -> bool:
    """Whether INDEX is a list finish_server joined with a FallbackResource URL: one it made for a block
    without a DirectoryIndex of its own (UNDER_FALLBACK), or a block's own DirectoryIndex it joined in place
    (a <Location> over the directory whose <Directory> sets the fallback: its comment stays the line's,
    and ORIGINALS holds its names). A list made again without the fallback is neither."""
    if index.comment == UNDER_FALLBACK:
        return True
    return index.comment != WITHOUT_FALLBACK and originals is not None and id(index) in originals


def _rewrite_if_file(model, path: str, uri: str, span) -> Stmt:
    """`if` the file PATH exists for a directory URL, the request goes on as URI (the map is volatile: a
    `rewrite ... last` keeps the values cached, and the rewritten URI comes back to the same `if`)."""
    variable = model.shared_map("a2n_dirmethod_", "$uri", [("~/$", path)], NO_PATH, span=span, volatile=True)
    return Stmt("if", [f"(-f {variable})"], span, block=[Stmt("rewrite", ["^", uri, "last"], span)],
                comment="mod_dir tries the later index names where the fallback finds no file")


# what the named location slash_after_access makes says
SLASH_AFTER_ACCESS = "mod_dir redirects a directory without its slash for every method, after the access checks"


def slash_after_access(model, loc, levels: list[list[Stmt]], headers: list[Stmt], named: dict,
                       span) -> tuple[list[Stmt], object]:
    """mod_dir's redirect of a directory without its slash, for the methods nginx's static module refuses
    (405), in a location LOC with access rules of nginx's access phase. httpd checks the access rules first
    and then redirects (301, its own answer: the `Header always` lines alone; observed with httpd 2.4 for
    `OPTIONS /img` under <Location /img> Require ip), where a `return 301` in nginx's rewrite phase would run
    before the access checks. So the location's 405 goes to a named location (`error_page 405 = @...`),
    which redirects a directory and answers 405 to anything else: nginx's static module answers that 405
    after the access phase. LEVELS: the blocks LOC inherits from, innermost first; their error_page lines in
    force are copied into LOC (an error_page there replaces every inherited one). Not where an error_page
    for 405 is in force (an ErrorDocument 405), nor under an alias (the named location maps the URL under
    the server's root); HEADERS: LOC's add_header lines the named location would not inherit. NAMED: the
    named locations made so far, by the lines they hold. Returns the statements for LOC and the named
    location to add to the server (None where it is there already), or ([], None)."""
    from ..model import Location
    if any(st.name == "alias" for st in loc.statements) or _refuses_everyone(loc.statements):
        return [], None
    pages = next((level for level in [loc.statements, *levels] if any(st.name == "error_page" for st in level)), [])
    pages = [st for st in pages if st.name == "error_page"]
    if any("405" in st.args[:-1] for st in pages):
        return [], None
    roots = [st for st in loc.statements if st.name == "root"]
    variable = model.shared_map("a2n_dirmethod_", "$request_method:$uri",
                                [(_OTHER_METHOD + _PLAIN_PATH + "[-\\w.~]$", "$request_filename")], NO_PATH,
                                span=span)
    body = [*[dataclasses.replace(st, comment=None) for st in roots], *[dataclasses.replace(st) for st in headers],
            Stmt("if", [f"(-d {variable})"], span, block=[Stmt("return", ["301", "$uri/$is_args$args"], span)],
                 comment=SLASH_FIXUP),
            Stmt("return", ["405"], span, comment="nginx's static module refuses the method")]
    key = tuple(_shape(st) for st in body)
    made = None
    if key not in named:
        named[key] = f"@a2n_dir_slash_{len(named) + 1}"
        made = Location("", named[key], body, span)
    own = [] if any(st.name == "error_page" for st in loc.statements) else \
        [Stmt(st.name, list(st.args), st.span, comment=st.comment) for st in pages]
    return own + [Stmt("error_page", ["405", "=", named[key]], span, comment=SLASH_AFTER_ACCESS)], made


def _shape(st: Stmt) -> tuple:
    """ST's name, arguments and block, without its place in the configuration."""
    return st.name, tuple(st.args), tuple(_shape(inner) for inner in st.block or [])


def _refuses_everyone(statements: list[Stmt]) -> bool:
    """Whether the access rules of STATEMENTS refuse every request (`deny all` that no other rule lifts):
    nginx never reaches a 405 there."""
    names = {st.name for st in statements}
    return any(st.name == "deny" and st.args == ["all"] for st in statements) and \
        not names & {"allow", "auth_basic", "auth_request"}
