"""ErrorDocument pages that their own access rules refuse.

httpd serves a local ErrorDocument through an internal redirect that passes the page URL's own access checks.
When those refuse the page, httpd keeps the original status and sends its built-in message ("Additionally, a
403 Forbidden error was encountered while trying to use an ErrorDocument"). nginx's error_page redirect also
runs the page location's access phase, but a refusal there replaces the status: a 404 (a `%2F` path, a missing
file in a granted directory) became nginx's 403.

Where the page's nginx location refuses everybody (`deny all` with no `allow` and no `satisfy any`, from
the input's own access rules, not a refusal the translation adds), the translation sends that status to a
named location answering the original status with nginx's own page instead, and reports it (A2N239). A page
refused only to some clients (an address rule, a login) is left as it is.
"""
from __future__ import annotations

import re

from ..diagnostics import Diagnostics
from ..model import Location, NginxModel, Server, Stmt
from .refusal_pages import is_refusal

_ACCESS = ("allow", "deny")


def _plain_page(code: str) -> str:
    return f"@a2n_status_{code}"


def _regex_matches(loc: Location, uri: str) -> bool:
    try:
        pattern = re.compile(loc.path, re.IGNORECASE if loc.modifier == "~*" else 0)
    except (re.error, OverflowError, RecursionError):
        return False
    return pattern.search(uri) is not None


def _find(locations: list[Location], uri: str, chain: list[Location]) -> tuple[list[Location], bool]:
    """nginx's location lookup (ngx_http_core_find_location): an exact match; else the longest prefix, whose
    nested locations are searched next; then, unless that prefix is `^~`, this level's regexes in order.
    Returns the chain of locations from the outermost to the one chosen, and whether the search ended."""
    for loc in locations:
        if loc.modifier == "=" and loc.path == uri:
            return chain + [loc], True
    prefixes = [loc for loc in locations if loc.modifier in ("", "^~") and not loc.path.startswith("@")
                and uri.startswith(loc.path)]
    best = max(prefixes, key=lambda loc: len(loc.path), default=None)
    found = chain
    if best is not None:
        found = chain + [best]
        if best.locations:
            inner, done = _find(best.locations, uri, found)
            if done:
                return inner, True
            found = inner
        if best.modifier == "^~":
            return found, False
    for loc in locations:
        if loc.modifier in ("~", "~*") and _regex_matches(loc, uri):
            return chain + [loc], True
    return found, False


def _refuses_everybody(levels: list[list[Stmt]]) -> bool:
    """LEVELS from the innermost out: nginx inherits allow/deny and satisfy from the nearest level setting any."""
    rules = next((level for level in levels if any(st.name in _ACCESS for st in level)), [])
    satisfy = next((st.args for level in levels for st in level if st.name == "satisfy"), ["all"])
    access = [st for st in rules if st.name in _ACCESS]
    return (bool(access) and access[0].name == "deny" and access[0].args == ["all"] and satisfy != ["any"]
            and not is_refusal(access[0]))   # the translation's own refusal: httpd may serve the page


def serving_levels(server: Server, main: Server | None, uri: str) -> tuple[list[Location], list[list[Stmt]]]:
    """The chain of locations nginx serves URI from (outermost first), and the statement levels it inherits
    from, innermost first: those locations, the server and the http level (Apache's main server)."""
    chain, _ = _find(server.locations, uri.split("?", 1)[0], [])
    levels = [loc.statements for loc in reversed(chain)] + [server.own_statements, server.statements]
    if main is not None and main is not server:
        levels.append(main.statements)
    return chain, levels


def _refused(server: Server, main: Server | None, uri: str) -> bool:
    return _refuses_everybody(serving_levels(server, main, uri)[1])


def _replace(pages: list[Stmt], refused: set[str]) -> list[Stmt]:
    """PAGES with each code whose page is refused sent to its plain named location."""
    out = []
    for st in pages:
        codes = [a for a in st.args[:-1] if a in refused]
        kept = [a for a in st.args[:-1] if a not in refused]
        if kept:
            out.append(Stmt("error_page", kept + [st.args[-1]], st.span, comment=st.comment))
        out.extend(Stmt("error_page", [code, _plain_page(code)], st.span,
                        comment=f"httpd keeps the {code} where its page {st.args[-1]} is refused:")
                   for code in codes)
    return out


def _refused_codes(server: Server, main: Server | None, pages: list[Stmt], diags: Diagnostics,
                   reported: set) -> set[str]:
    refused = set()
    for st in pages:
        target = st.args[-1]
        if not target.startswith("/") or not _refused(server, main, target):
            continue
        for code in st.args[:-1]:
            if not code.isdigit() or code == "403":
                continue   # a refused 403 page: httpd answers 403, and so does nginx
            refused.add(code)
            if (id(st), code) not in reported:
                reported.add((id(st), code))
                diags.add("A2N239", f"ErrorDocument {code} {target}: the page's own access rules refuse it, so "
                          f"httpd answers {code} with its built-in message; nginx answers {code} with its own page "
                          "(its error_page would have answered the refusal's 403)", st.span)
    return refused


def _fix_locations(locations: list[Location], server: Server, main: Server | None, diags: Diagnostics,
                   reported: set, needed: set[str]) -> None:
    for loc in locations:
        pages = [st for st in loc.statements if st.name == "error_page"]
        refused = _refused_codes(server, main, pages, diags, reported) if pages else set()
        if refused:
            position = next(i for i, st in enumerate(loc.statements) if st.name == "error_page")
            rest = [st for st in loc.statements if st.name != "error_page"]
            loc.statements = rest[:position] + _replace(pages, refused) + rest[position:]
            needed |= refused
        _fix_locations(loc.locations, server, main, diags, reported, needed)


def keep_statuses_of_refused_pages(model: NginxModel, diags: Diagnostics) -> None:
    main = model.main_server
    main_pages = [st for st in main.statements if st.name == "error_page"] if main is not None else []
    reported: set = set()
    replaced: dict[int, list[Stmt]] = {}
    needed: dict[int, set[str]] = {}
    for server in model.servers:
        own = [st for st in server.statements if st.name == "error_page"]
        pages = own or (main_pages if server is not main else [])
        refused = _refused_codes(server, main, pages, diags, reported)
        needed[id(server)] = set(refused)
        if refused or (not own and server is not main and main is not None):
            replaced[id(server)] = _replace(pages, refused)
        _fix_locations(server.locations, server, main, diags, reported, needed[id(server)])
    main_changed = main is not None and replaced.get(id(main)) not in (None, main_pages)
    for server in model.servers:
        pages = replaced.get(id(server))
        own = any(st.name == "error_page" for st in server.statements)
        if pages is None or (not own and server is not main and not main_changed and pages == main_pages):
            continue
        if not own and server is not main and pages == replaced.get(id(main), main_pages):
            continue   # inherits the same list from the http level
        rest = [st for st in server.statements if st.name != "error_page"]
        server.statements = rest + pages
    for server in model.servers:
        for code in sorted(needed[id(server)]):
            if not any(loc.path == _plain_page(code) for loc in server.locations):
                server.locations.append(Location("", _plain_page(code), [Stmt("return", [code], None)]))
