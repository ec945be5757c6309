"""Refusals the translation adds answer a plain 403, never an ErrorDocument redirect.

Where nginx cannot check a construct exactly (a wildcard <Directory>, a .htaccess httpd answers 500 for,
an access rule under an expression...), the translation refuses the region with `deny all`. httpd answers
those requests otherwise: a login (401), a 500, or the page itself. An `ErrorDocument 403 http://...`
(`error_page 403 http://...`) would turn the refusal into a redirect (302), which a client follows like
any answer: the refusal must stay a refusal. Each location holding such a refusal under a redirecting
403 page gets its own error pages (nginx inherits error_page only where a level sets none): the same ones
but 403, which a named location answers with nginx's own 403 page (recursive_error_pages is off, so its
`return 403` is not redirected again).
"""
from __future__ import annotations

from ..model import Location, NginxModel, Server, Stmt

REFUSED_PAGE = "@a2n_refused"
# the comments the translation's own refusals carry (access.py, layout.py)
_REFUSAL_MARKS = ("an access rule nginx cannot check: refused", "refused: ", "httpd answers 500: ")


def _is_refusal(st: Stmt) -> bool:
    return st.name == "deny" and st.args == ["all"] and any((st.comment or "").startswith(m)
                                                             for m in _REFUSAL_MARKS)


def _pages(statements: list[Stmt]) -> list[Stmt]:
    return [st for st in statements if st.name == "error_page"]


def _redirects_403(pages: list[Stmt]) -> bool:
    return any("403" in st.args[:-1] and st.args[-1].lower().startswith(("http://", "https://")) for st in pages)


def _without_403(pages: list[Stmt]) -> list[Stmt]:
    """PAGES with 403 taken out of each (a page for 403 alone goes), and 403 sent to the named refusal."""
    out = []
    for st in pages:
        args = [a for a in st.args[:-1] if a != "403"]
        if any(a.isdigit() for a in args):
            out.append(Stmt("error_page", args + [st.args[-1]], st.span, comment=st.comment))
    return out + [Stmt("error_page", ["403", REFUSED_PAGE], None,
                       comment="the translation's refusal answers 403, not the ErrorDocument redirect")]


def _walk(loc: Location, inherited: list[Stmt]) -> bool:
    """Fix LOC and the locations nested in it; whether any needed the named location."""
    own = _pages(loc.statements)
    pages = own or inherited
    used = False
    if any(_is_refusal(st) for st in loc.statements) and _redirects_403(pages):
        replaced = _without_403(pages)
        loc.statements = [st for st in loc.statements if st.name != "error_page"] + replaced
        pages, used = replaced, True
    for child in loc.locations:
        used = _walk(child, pages) or used
    return used


def keep_refusals_plain(model: NginxModel, server: Server) -> None:
    main = model.main_server
    inherited = _pages(server.statements) or (_pages(main.statements) if main is not None and main is not server
                                             else [])
    used = False
    for loc in server.locations:
        if loc.path.startswith("@"):
            continue
        used = _walk(loc, inherited) or used
    if used and not any(loc.path == REFUSED_PAGE for loc in server.locations):
        server.locations.append(Location("", REFUSED_PAGE, [Stmt("return", ["403"], None)]))
