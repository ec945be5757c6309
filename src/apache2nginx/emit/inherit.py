"""nginx array-directive inheritance, made to behave like Apache's merging.

nginx inherits `add_header`, `proxy_set_header`, `error_page`, allow/deny and
the like into a block only when that block defines none of its own; Apache
merges the enclosing list with the inner one. So wherever a block defines a
member of such a family, the enclosing block's effective list is repeated
first. Without this, a location with one `add_header` silently loses every
security header set at server level.
"""
from __future__ import annotations

from ..model import ARRAY_FAMILIES, Stmt

_FAMILY_OF = {name: family for family in ARRAY_FAMILIES for name in family}


def merge(parent: list[Stmt], child: list[Stmt]) -> list[Stmt]:
    """The child's statements with the parent's members of every array family the child also uses."""
    used = {_FAMILY_OF[s.name] for s in child if s.name in _FAMILY_OF}
    if not used:
        return _last_error_pages(child)
    inherited = [s for s in parent if _FAMILY_OF.get(s.name) in used]
    # The parent's copies go first (Apache order: outer, then inner); exact duplicates are dropped, and so
    # are headers the child sets or unsets itself (in the same table: Header set vs Header always set).
    seen = {(s.name, tuple(s.args)) for s in child}
    resets = {s.resets for s in child if s.resets is not None}
    return _last_error_pages([s for s in inherited if (s.name, tuple(s.args)) not in seen and not (
        resets and s.name == "add_header" and s.args and _table(s) in resets)] + child)


def _last_error_pages(stmts: list[Stmt]) -> list[Stmt]:
    """One error_page per status, the last one: httpd's ErrorDocument keeps the innermost and latest target
    for a status, while nginx uses the first error_page that names it."""
    pages = [s for s in stmts if s.name == "error_page"]
    if len(pages) < 2:
        return stmts
    taken: set[str] = set()
    keep: dict[int, Stmt | None] = {}
    for s in reversed(pages):
        codes = [a for a in s.args if a.isdigit()]
        left = [a for a in codes if a not in taken]
        taken.update(codes)
        if left == codes:
            keep[id(s)] = s
        elif left:
            copy = Stmt(s.name, left + [a for a in s.args if not a.isdigit()], s.span, comment=s.comment)
            keep[id(s)] = copy
        else:
            keep[id(s)] = None
    out = []
    for s in stmts:
        if s.name != "error_page":
            out.append(s)
        elif keep[id(s)] is not None:
            out.append(keep[id(s)])
    return out


def _table(add_header: Stmt) -> tuple[str, str]:
    return add_header.args[0].lower(), "always" if add_header.args[-1] == "always" else "onsuccess"


def effective(parent: list[Stmt], child: list[Stmt]) -> list[Stmt]:
    """What applies inside the child: its own statements plus every parent family it does not define."""
    merged = merge(parent, child)
    used = {_FAMILY_OF[s.name] for s in merged if s.name in _FAMILY_OF}
    return merged + [s for s in parent if s.name in _FAMILY_OF and _FAMILY_OF[s.name] not in used]
