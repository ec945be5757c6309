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
        return child
    inherited = [s for s in parent if _FAMILY_OF.get(s.name) in used]
    # The parent's copies go first (Apache order: outer, then inner); exact duplicates are dropped, and so
    # are headers the child sets or unsets itself (in the same table: Header set vs Header always set).
    seen = {(s.name, tuple(s.args)) for s in child}
    resets = {s.resets for s in child if s.resets is not None}
    return [s for s in inherited if (s.name, tuple(s.args)) not in seen and not (
        resets and s.name == "add_header" and s.args and _table(s) in resets)] + child


def _table(add_header: Stmt) -> tuple[str, str]:
    return add_header.args[0].lower(), "always" if add_header.args[-1] == "always" else "onsuccess"


def effective(parent: list[Stmt], child: list[Stmt]) -> list[Stmt]:
    """What applies inside the child: its own statements plus every parent family it does not define."""
    merged = merge(parent, child)
    used = {_FAMILY_OF[s.name] for s in merged if s.name in _FAMILY_OF}
    return merged + [s for s in parent if s.name in _FAMILY_OF and _FAMILY_OF[s.name] not in used]
