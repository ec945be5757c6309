"""The internal location `DirectoryIndex disabled` leads to, and the `Header always` lines its 403 carries.

httpd refuses a directory without an index (mod_autoindex, no Options Indexes) from the directory's own
configuration: its 403 carries the `Header always` lines of the sections over the directory. nginx answers
from the internal location the index entry redirects to, with that location's add_header list. A location
whose `always` headers differ from the shared one's gets its own copy (`index` pointing at it)."""
from __future__ import annotations

from ..model import Location, Stmt
from .inherit import Unless, effective

# The URI `DirectoryIndex disabled` sends a directory request to (internally): a location answering 403
DISABLED_INDEX = "/.a2n-directory-index-disabled"


def target_location(span) -> Location:
    return Location("=", DISABLED_INDEX, [Stmt("internal", [], span), Stmt("return", ["403"], span)], span)


def _always(statements: list[Stmt]) -> list[Stmt]:
    return [s for s in statements if s.name == "add_header" and s.args and s.args[-1] == "always"]


def _index(statements: list[Stmt]) -> list[str] | None:
    found = [s for s in statements if s.name == "index"]
    return found[-1].args if found else None


def with_headers(parent: list[Stmt], locations: list, unless: Unless | None = None) -> list:
    """LOCATIONS, where a location that inherits or sets `index DISABLED_INDEX` and sends other `Header
    always` lines than the shared target names a copy of the target holding them."""
    target = next((loc for loc in locations if loc.modifier == "=" and loc.path == DISABLED_INDEX), None)
    if target is None:
        return locations
    theirs = [tuple(s.args) for s in _always(effective(parent, target.statements, unless))]
    inherited = _index(parent)
    copies: dict[tuple, Location] = {}
    out = []
    for loc in locations:
        own = _index(loc.statements)
        if loc is target or loc.path.startswith("@") or (own if own is not None else inherited) != [DISABLED_INDEX]:
            out.append(loc)
            continue
        headers = _always(effective(parent, loc.statements, unless))
        if [tuple(s.args) for s in headers] == theirs:
            out.append(loc)
            continue
        key = tuple(tuple(s.args) for s in headers)
        copy = copies.get(key)
        if copy is None:
            copy = Location("=", f"{DISABLED_INDEX}-{len(copies) + 1}", list(target.statements) + headers,
                            target.span)
            copies[key] = copy
        # nginx tries every `index` of a block in turn: the location's own entry for the shared target goes
        out.append(Location(loc.modifier, loc.path,
                            [s for s in loc.statements if s.name != "index"] + [Stmt("index", [copy.path], target.span,
                                                         comment="with this location's Header always lines")],
                            loc.span, loc.locations, loc.runs_scripts, loc.static_only))
    return out + list(copies.values())
