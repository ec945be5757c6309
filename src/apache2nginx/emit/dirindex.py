"""The internal location `DirectoryIndex disabled` leads to, and the `Header always` lines its 403 carries.

httpd refuses a directory without an index (mod_autoindex, no Options Indexes) from the directory's own
configuration: its 403 carries the `Header always` lines of the sections over the directory. nginx answers
from the internal location the index entry redirects to, with that location's add_header list. A location
whose `always` headers differ from the shared one's gets its own copy (`index` pointing at it).

httpd answers a URL ending in `/` that names no directory (a file followed by `/`, a missing name) with 404
from its walk, before mod_dir: its ErrorDocument and onsuccess headers apply. nginx's index module makes an
absolute entry's redirect without looking at the disk, so the entry is written after a relative one (see
written) that tells these apart as the index module does for any index file name."""
from __future__ import annotations

from ..model import Location, Stmt
from .inherit import Unless, effective

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


def _index(statements: list[Stmt]) -> list[str] | None:
    found = [s for s in statements if s.name == "index"]
    return found[-1].args if found else None


def with_headers(parent: list[Stmt], locations: list, unless: Unless | None = None) -> list:
    """LOCATIONS, where a location that inherits or sets `index DISABLED_INDEX` and sends other `Header
    always` lines than the shared target names a copy of the target holding them. So does a location nested
    in one: a file section's location under a directory of `DirectoryIndex disabled` matches its name
    followed by a `/` (httpd's file walk stops at a file or a missing name there, whose 404 carries the
    section's `Header always` lines, as the location's own 404 does, see written); a directory named like the
    file reaches the target from it."""
    target = next((loc for loc in locations if loc.modifier == "=" and loc.path == DISABLED_INDEX), None)
    if target is None:
        return locations
    theirs = tuple(tuple(s.args) for s in _always(effective(parent, target.statements, unless)))
    copies: dict[tuple, Location] = {theirs: target}
    out = [loc if loc is target or loc.path.startswith("@") else
           _pointed(loc, parent, _index(parent), target, copies, unless, parent) for loc in locations]
    return out + [copy for copy in copies.values() if copy is not target]


def _pointed(loc, parent: list[Stmt], inherited: list[str] | None, target: Location, copies: dict,
             unless: Unless | None, server: list[Stmt]):
    """LOC (and the locations nested in it) with its own `index` entry for the copy of TARGET sending its
    `Header always` lines, where the entry it inherits (INHERITED) leads to one sending others. COPIES:
    headers -> the target or a copy of it sending them. SERVER: the server block's statements, which a copy
    (a server-level location) would inherit: its list is the whole one already, so the server's add_header
    lines it does not keep are not inherited (a server's X sent unconditionally next to the copy's X, which a
    location's `Header always unset X "expr=..."` makes conditional)."""
    from dataclasses import replace
    own = _index(loc.statements)
    index = own if own is not None else inherited
    plain = effective(parent, loc.statements, unless)
    statements = loc.statements
    if index is not None and len(index) == 1 and index[0] in {copy.path for copy in copies.values()}:
        headers = _always(plain)
        key = tuple(tuple(s.args) for s in headers)
        copy = copies.get(key)
        if copy is None:
            copy = Location("=", f"{DISABLED_INDEX}-{len(copies)}", list(target.statements) + headers, target.span,
                            not_inherited=[s for s in server if s.name == "add_header" and s not in headers])
            copies[key] = copy
        if copy.path != index[0]:
            # nginx tries every `index` of a block in turn: the location's own entry for the shared target goes
            statements = [s for s in loc.statements if s.name != "index"] + [
                Stmt("index", [copy.path], target.span, comment="with this location's Header always lines")]
            index = [copy.path]
    nested = [_pointed(i, [s for s in plain if s not in (i.not_inherited or ())], index, target, copies, unless,
                       server) for i in loc.locations]
    if statements is loc.statements and all(a is b for a, b in zip(nested, loc.locations)):
        return loc
    return replace(loc, statements=list(statements), locations=nested)
