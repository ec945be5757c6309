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


# the start of a file section's regex location (<Files>, <FilesMatch>: the last name of the URL)
_FILE_SECTION = "(?:^|/)"


def carry_directory_proxy_headers(server: Server, unless=None, diags=None) -> None:
    proxies = [loc for loc in server.locations if loc.path.startswith("/") and _is_per_dir_proxy(loc)]
    if not proxies:
        return
    # (the location, its header statements as nginx merges them) for every location outside the proxies
    users: list[tuple[Location, list[Stmt]]] = []
    # a file section's location -> the add_header lines it has beyond the location it is nested in
    own_lines: dict[int, list[Stmt]] = {}

    def walk(locations: list[Location], inherited: list[Stmt]) -> None:
        for loc in locations:
            if any(loc is p for p in proxies):
                continue
            # a nested location's own list is rendered after its parent's (inherit.merge)
            headers = [st for st in effective(inherited, loc.statements, unless) if st.name in _HEADERS]
            users.append((loc, headers))
            if loc.modifier in ("~", "~*") and loc.path.startswith(_FILE_SECTION):
                outer = {(st.name, tuple(st.args)) for st in inherited}
                own_lines[id(loc)] = [st for st in headers if st.name == "add_header" and st.args
                                      and (st.name, tuple(st.args)) not in outer]
            walk(loc.locations, headers)

    walk(server.locations, [])
    for proxy in proxies:
        base = proxy.path
        groups: list[tuple[list[Stmt], list[Location]]] = []
        for loc, headers in users:
            if not _leads_to(loc.statements, base):
                continue
            if own_lines.get(id(loc)) and diags is not None:
                _report_file_section(diags, loc, own_lines[id(loc)], proxy)
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


def _report_file_section(diags, loc: Location, lines: list[Stmt], proxy: Location) -> None:
    """A file section's Header lines on the answers of a per-directory [P] rule (A2N868): httpd matches the
    section against the name its directory walk stops at, and the rule proxies any URL of its directory,
    one under a missing directory (/sub/a.txt, seen as `sub`) too; there the backend's answer lacks the
    section's headers in httpd, and carries them in nginx, whose file location matches the URL's names."""
    names = ", ".join(dict.fromkeys(st.args[0] for st in lines))
    diags.add("A2N868", f"the file section's headers ({names}) on a per-directory [P] rule's answers: the rule "
              "also answers URLs under a directory that does not exist, where httpd matches the "
              "section against the missing directory's name and sends the backend's answer without these "
              "headers; nginx matches the URL's last name and sends them", loc.span,
              related=[st.span for st in lines if st.span] + ([proxy.span] if proxy.span else []))
