"""The internal location `DirectoryIndex disabled` leads to, and the `Header always` lines and 403 page of its answer.

httpd refuses a directory without an index (mod_autoindex, no Options Indexes) from the directory's own
configuration: its 403 carries the `Header always` lines of the sections over the directory, and their
ErrorDocument for 403 answers it (observed with httpd 2.4: a <Location>'s `ErrorDocument 403 http://...`
redirects the refusal of a directory under it). nginx answers from the internal location the index entry
redirects to, with that location's add_header and error_page lists, which it inherits from the server. A
location whose `always` headers or 403 page differ from the shared target's gets its own copy (`index`
pointing at it).

httpd answers a URL ending in `/` that names no directory (a file followed by `/`, a missing name) with 404
from its walk, before mod_dir: its ErrorDocument and onsuccess headers apply. nginx's index module makes an
absolute entry's redirect without looking at the disk, so the entry is written after a relative one (see
written) that tells these apart as the index module does for any index file name."""
from __future__ import annotations

import re

from ..model import Location, Stmt
from .inherit import Unless, effective

# the start of a file section's regex location (<Files>, <FilesMatch>: the last name of the URL, see render)
_FILE_SECTION = "(?:^|/)"

# The URI `DirectoryIndex disabled` sends a directory request to (internally): a location answering 403
DISABLED_INDEX = "/.a2n-directory-index-disabled"


# The relative entry written before the target's (see written): a name reserved as the target's URL is, which
# no directory is expected to hold (nginx would answer a directory holding it with that file)
PROBE = DISABLED_INDEX[1:]


def written(args: list[str]) -> list[str]:
    """The entries nginx is given for `index ARGS`. For the target of `DirectoryIndex disabled` (or a copy of
    it) the relative PROBE comes first: nginx looks it up under the URL's path and answers 404 where that path
    is a file (ENOTDIR) or does not exist, as httpd does (path info on a file, a missing directory), and goes
    on to the absolute entry only in an existing directory, where httpd answers 403. The model keeps the one
    absolute entry, which the passes read as "no index file"."""
    if len(args) == 1 and args[0].startswith(DISABLED_INDEX):
        return [PROBE, args[0]]
    return args


def target_location(span) -> Location:
    return Location("=", DISABLED_INDEX, [Stmt("internal", [], span), Stmt("return", ["403"], span)], span)


def _always(statements: list[Stmt]) -> list[Stmt]:
    return [s for s in statements if s.name == "add_header" and s.args and s.args[-1] == "always"]


def _page_403(statements: list[Stmt]) -> list[Stmt]:
    """The error_page answering 403 where STATEMENTS apply (one per status is left: _last_error_pages)."""
    return [s for s in statements if s.name == "error_page" and "403" in s.args[:-1]][:1]


def _answer(loc, plain: list[Stmt], parent: list[Stmt]) -> list[Stmt]:
    """What the target's 403 is answered with from LOC, whose effective list is PLAIN (its enclosing block's
    PARENT): the `Header always` lines and the 403 page. A file section's location reaches the target only for
    a directory (its name followed by `/`), whose last name httpd's file walk takes to be empty: a section
    whose pattern does not accept the empty name answers as the enclosing block does (observed with httpd
    2.4: the ErrorDocument 403 and `Header always` lines of <Files "*.txt"> or <FilesMatch "."> are not used
    for the refusal of /notes.txt/, a directory; those of <Files "*"> are)."""
    held = parent if _section_skips_directories(loc) else plain
    return _always(held) + _page_403(held)


def _section_skips_directories(loc) -> bool:
    """Whether LOC is a file section's location whose pattern does not accept the empty name (its regex
    does not match `/`, an empty segment followed by `/`)."""
    if loc.modifier not in ("~", "~*") or not loc.path.startswith(_FILE_SECTION):
        return False
    try:
        return re.search(loc.path, "/", re.IGNORECASE if loc.modifier == "~*" else 0) is None
    except (re.error, OverflowError, RecursionError):
        return False


def _key(answer: list[Stmt]) -> tuple:
    return tuple((s.name, *s.args) for s in answer)


def _copy(target: Location, number: int, answer: list[Stmt], server: list[Stmt], unless: Unless | None) -> Location:
    """A copy of TARGET answering its 403 with ANSWER (_answer), the server's pages for the other statuses
    kept where it has a 403 page of its own (a request for the copy's own URL is answered 404 from it, as
    from the server). SERVER: the server block's statements, whose add_header lines the copy does not keep
    are not inherited (see _pointed)."""
    page = _page_403(answer)
    others = [s for s in effective(server, target.statements, unless)
              if s.name == "error_page" and "403" not in s.args[:-1]] if page else []
    return Location("=", f"{DISABLED_INDEX}-{number}", list(target.statements) + _always(answer) + others + page,
                    target.span, not_inherited=[s for s in server if s.name == "add_header" and s not in answer])


def _index(statements: list[Stmt]) -> list[str] | None:
    found = [s for s in statements if s.name == "index"]
    return found[-1].args if found else None


def with_headers(parent: list[Stmt], locations: list, unless: Unless | None = None) -> list:
    """LOCATIONS, where a location that inherits or sets `index DISABLED_INDEX` and sends other `Header
    always` lines or another 403 page than the shared target names a copy of the target holding them. So does
    a location nested in one: a file section's location under a directory of `DirectoryIndex disabled`
    matches its name followed by a `/` (httpd's file walk stops at a file or a missing name there, whose 404
    carries the section's `Header always` lines, as the location's own 404 does, see written); a directory
    named like the file reaches the target from it, whose answer is the section's only where httpd's file walk
    matches a directory (_answer)."""
    target = next((loc for loc in locations if loc.modifier == "=" and loc.path == DISABLED_INDEX), None)
    if target is None:
        return locations
    shared = effective(parent, target.statements, unless)
    theirs = _key(_answer(target, shared, shared))
    copies: dict[tuple, Location] = {theirs: target}
    out = [loc if loc is target or loc.path.startswith("@") else
           _pointed(loc, parent, _index(parent), target, copies, unless, parent) for loc in locations]
    return out + [copy for copy in copies.values() if copy is not target]


def _pointed(loc, parent: list[Stmt], inherited: list[str] | None, target: Location, copies: dict,
             unless: Unless | None, server: list[Stmt]):
    """LOC (and the locations nested in it) with its own `index` entry for the copy of TARGET sending its
    `Header always` lines and 403 page, where the entry it inherits (INHERITED) leads to one sending others.
    COPIES: headers and page (_key) -> the target or a copy of it sending them. SERVER: the server block's
    statements, which a copy (a server-level location) would inherit: its list is the whole one already, so
    the server's add_header lines it does not keep are not inherited (a server's X sent unconditionally next
    to the copy's X, which a location's `Header always unset X "expr=..."` makes conditional)."""
    from dataclasses import replace
    own = _index(loc.statements)
    index = own if own is not None else inherited
    plain = effective(parent, loc.statements, unless)
    statements = loc.statements
    if index is not None and len(index) == 1 and index[0] in {copy.path for copy in copies.values()}:
        answer = _answer(loc, plain, parent)
        key = _key(answer)
        copy = copies.get(key)
        if copy is None:
            copy = copies[key] = _copy(target, len(copies), answer, server, unless)
        if copy.path != index[0]:
            # nginx tries every `index` of a block in turn: the location's own entry for the shared target goes
            statements = [s for s in loc.statements if s.name != "index"] + [
                Stmt("index", [copy.path], target.span, comment=_why(key, next(iter(copies))))]
            index = [copy.path]
    nested = [_pointed(i, [s for s in plain if s not in (i.not_inherited or ())], index, target, copies, unless,
                       server) for i in loc.locations]
    if statements is loc.statements and all(a is b for a, b in zip(nested, loc.locations)):
        return loc
    return replace(loc, statements=list(statements), locations=nested)


def _why(key: tuple, shared: tuple) -> str:
    """The comment of an `index` entry naming the copy for KEY (_key) where the shared target's is SHARED."""
    def page(k):
        return [i for i in k if i[0] == "error_page"]
    headers = [i for i in key if i not in page(key)] != [i for i in shared if i not in page(shared)]
    own = page(key) != page(shared)
    return "with this location's " + " and ".join(["Header always lines"] * (headers or not own) +
                                                   ["403 page"] * own)
