"""The Header lines a per-directory RewriteRule [P]'s proxied answer carries.

mod_rewrite proxies a per-directory [P] from its fixup, in the request whose per-directory configuration is
the directory's (with its <Files> and <Location> sections): mod_headers' output filter adds that
configuration's Header lines to the backend's answer. nginx proxies it from an internal location of its own
(rewrite_compile), which has none of the add_header (or proxy_hide_header) lines of the location the rule
ran in, so the answer would lose them.

Each such internal location gets the header statements of the locations whose rewrites lead to it (a
location's own, after those of the location it is nested in); where those locations differ, each
set of statements gets a copy of the internal location of its own, and their rewrites name it.
"""
from __future__ import annotations

import copy

from ..model import Location, Server, Stmt
from ..passes.rewrite_compile import PER_DIR_PROXY
from .inherit import effective

__all__ = ["carry_directory_proxy_headers"]

_HEADERS = ("add_header", "proxy_hide_header")     # each inherited by nginx on its own


def _is_per_dir_proxy(loc: Location) -> bool:
    return any(st.name == "internal" and st.comment == PER_DIR_PROXY for st in loc.statements)


def _leads_to(statements: list[Stmt], base: str) -> bool:
    return any(st.name == "rewrite" and len(st.args) > 1 and st.args[1].startswith(base)
               or st.block and _leads_to(st.block, base) for st in statements)


def _retargeted(st: Stmt, base: str, new: str) -> Stmt:
    """A copy of ST whose rewrites into BASE go to NEW (the statements stay shared with other locations)."""
    out = copy.copy(st)
    if st.name == "rewrite" and len(st.args) > 1 and st.args[1].startswith(base):
        out.args = [st.args[0], new + st.args[1][len(base):]] + st.args[2:]
    if st.block:
        out.block = [_retargeted(inner, base, new) if _leads_to([inner], base) else inner for inner in st.block]
    return out


def carry_directory_proxy_headers(server: Server, unless=None) -> None:
    proxies = [loc for loc in server.locations if loc.path.startswith("/") and _is_per_dir_proxy(loc)]
    if not proxies:
        return
    # (the location, its header statements as nginx merges them) for every location outside the proxies
    users: list[tuple[Location, list[Stmt]]] = []

    def walk(locations: list[Location], inherited: list[Stmt]) -> None:
        for loc in locations:
            if any(loc is p for p in proxies):
                continue
            # a nested location's own list is rendered after its parent's (inherit.merge)
            headers = [st for st in effective(inherited, loc.statements, unless) if st.name in _HEADERS]
            users.append((loc, headers))
            walk(loc.locations, headers)

    walk(server.locations, [])
    for proxy in proxies:
        base = proxy.path
        groups: list[tuple[list[Stmt], list[Location]]] = []
        for loc, headers in users:
            if not _leads_to(loc.statements, base):
                continue
            key = [(st.name, st.args) for st in headers]
            group = next((g for g in groups if [(st.name, st.args) for st in g[0]] == key), None)
            if group is None:
                groups.append((headers, [loc]))
            else:
                group[1].append(loc)
        for i, (headers, locations) in enumerate(groups):
            target = proxy
            if i > 0:
                target = Location(proxy.modifier, base[:-1] + f"_h{i}/",
                                  [copy.copy(st) for st in proxy.statements if st.name not in _HEADERS], proxy.span)
                server.locations.append(target)
                for loc in locations:
                    loc.statements[:] = [_retargeted(st, base, target.path) if _leads_to([st], base) else st
                                         for st in loc.statements]
            target.statements.extend(copy.copy(st) for st in headers)
