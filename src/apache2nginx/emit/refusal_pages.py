"""Refusals the translation adds answer a plain 403, never an ErrorDocument redirect or page.

Where nginx cannot check a construct exactly (a wildcard <Directory>, a .htaccess httpd answers 500 for, an
access rule under an expression...), the translation refuses the region with `deny all` (or, where the
region's own rules stay in force, with an auth_request after them, emit.layout.Scope.refusal_after_rules).
httpd answers those requests otherwise: a login (401), a 500, or the page itself. An `ErrorDocument 403
http://...` (`error_page 403 http://...`) would turn the refusal into a redirect (302), which a client follows
like any answer: the refusal must stay a refusal. An `ErrorDocument 403 /local/page` would answer it from the
page's own location, whose add_header list is not the refused location's: the headers the refusal carries (a
security header httpd sends on the page it serves there, see emit.inherit.refused_headers) were lost; where
the whole server is refused, the page's location is too, and nginx answered its 403 with none of them
(observed: a <Location>'s `Header always set X-Content-Type-Options` missing on every answer of the region).
Where httpd answers 403 itself there (its own rules, a directory it does not list), it serves the page with
the page's headers: those go on the refusal too (emit.refused_error_pages.send_login_page_headers).
Each location holding such a refusal under such a 403 page gets its own error pages (nginx inherits
error_page only where a level sets none): the same ones but 403, which a named location answers with
nginx's own 403 page (recursive_error_pages is off, so its `return 403` is not redirected again); a copy
of it carries the refused location's headers (emit.inherit.error_pages_with_headers). So does the `if` guard
refusing some URLs of a prefix location for a <LocationMatch> nginx cannot check there: its block sends its
403 to the named location (the block's own error page), the rest of the location keeps the ErrorDocument.

One refusal stands for a certain 500: a .htaccess httpd refuses (AllowOverride) fails its directory walk
before any section applies, so httpd answers with the server's ErrorDocument 500. Where that is a URL, httpd
sends a 302 to it; where it is a local page, httpd redirects internally to it, and the page's request walks
its own sections (its Header lines, not the failing URL's; its own empty query string): the refusal's 403 is
sent to the same URL or page, whatever 403 page is in force there.

httpd's internal redirect to a local 403 page runs the server's SetEnvIf lines again on the page's path, and
the Header lines of the answer test the variables as that path sets them (emit.layout._reread_env_on_error_pages):
the refusal stands for that 403 and for the answer httpd serves the URL with (the variables as its own path sets
them), so the error_page sending 403 to the named location records the variables the page sets again
(Stmt.rereads), and the headers on the refusal are sent where either reading sends them (emit.inherit.
refused_headers).
"""
from __future__ import annotations

from ..model import Location, NginxModel, Server, Stmt, redirects_to
from ..passes.rewrite_model import ALIAS_REFUSAL, DIRECTORY_REFUSAL, LOCATION_REFUSAL
from .inherit import _FAILS_EARLY as FAILS_EARLY, _guard, _last_error_pages

REFUSED_PAGE = "@a2n_refused"
# the comments the translation's own refusals carry (access.py, layout.py)
_REFUSAL_MARKS = ("an access rule nginx cannot check: refused", "refused: ", "httpd answers 500: ")
# the `return 403` in place of rewrite rules that are not translated (rewrite_model): httpd answers those
# requests as the rules say (a 410, a redirect, the page), with no ErrorDocument 403 redirect that would
# change the URI a `Header ... expr=%{REQUEST_URI}` condition reads (httpd's refusal of a symlinked
# directory, AH00670, is its own 403: that one keeps the page)
_REWRITE_STAND_INS = (DIRECTORY_REFUSAL, LOCATION_REFUSAL, ALIAS_REFUSAL)


def is_refusal(st: Stmt) -> bool:
    """ST is a refusal the translation adds: a `deny all`, a `return 403` standing for rewrite rules, or the
    auth_request a refused server's region with rules of its own ends in (emit.layout.Scope.refusal_after_rules):
    its 403 goes through the location's error pages as the `deny all`'s does."""
    if st.name == "return":
        return st.args == ["403"] and st.comment in _REWRITE_STAND_INS
    return ((st.name == "deny" and st.args == ["all"]) or st.name == "auth_request") and \
        any((st.comment or "").startswith(m) for m in _REFUSAL_MARKS)


def _pages(statements: list[Stmt]) -> list[Stmt]:
    return [st for st in statements if st.name == "error_page"]


def _in_force(own: list[Stmt], inherited: list[Stmt]) -> list[Stmt]:
    """The error pages a block answers with: where it sets some, the rendering repeats the enclosing ones
    first (emit.inherit.merge, as httpd merges ErrorDocument) and the last page of a status wins; so an
    enclosing `error_page 403 http://...` still answers a block that sets only a page for 500."""
    if not own:
        return inherited
    seen = {tuple(st.args) for st in own}
    return _last_error_pages([st for st in inherited if tuple(st.args) not in seen] + own)


def _replaces_403(pages: list[Stmt]) -> bool:
    """A page for 403 that is a redirect or a local URL (a message page is a named location already)."""
    return any("403" in st.args[:-1] and (redirects_to(st.args[-1]) or st.args[-1].startswith("/"))
               for st in pages)


def _without_403(pages: list[Stmt], target: str = REFUSED_PAGE, why: str | None = None,
                  rereads: dict | None = None) -> list[Stmt]:
    """PAGES with 403 taken out of each (a page for 403 alone goes), and 403 sent to TARGET (the named
    refusal unless told otherwise, WHY then saying so). REREADS: local page path -> the variables httpd's
    redirect to it sets again (Stmt.rereads), recorded for the 403 page PAGES name."""
    out = []
    redirect = False
    for st in pages:
        if "403" in st.args[:-1] and redirects_to(st.args[-1]):
            redirect = True
        args = [a for a in st.args[:-1] if a != "403"]
        if any(a.isdigit() for a in args):
            out.append(Stmt("error_page", args + [st.args[-1]], st.span, comment=st.comment))
    what = "redirect" if redirect else "page"
    page = next((st.args[-1] for st in reversed(pages) if "403" in st.args[:-1]), "")
    return out + [Stmt("error_page", ["403", target], None,
                       comment=why or f"the translation's refusal answers 403, not the ErrorDocument {what}",
                       rereads=(rereads or {}).get(page.split("?", 1)[0], ()) if page.startswith("/") else ())]


def _fails_early(loc: Location) -> bool:
    """A location httpd answers 500 for before its sections apply (a .htaccess its AllowOverride forbids,
    see emit.inherit.early_failures)."""
    return any(st.name == "deny" and st.args == ["all"] and (st.comment or "").startswith(FAILS_EARLY)
               for st in loc.statements)


def _walk(loc: Location, inherited: list[Stmt], failure_page: Stmt | None, failing: bool = False,
          rereads: dict | None = None) -> bool:
    """Fix LOC and the locations nested in it; whether any needed the named location. FAILURE_PAGE: the
    server's `error_page 500 http://...` or `error_page 500 /page`, if any, which httpd answers a failing
    .htaccess with. REREADS: see _without_403."""
    pages = _in_force(_pages(loc.statements), inherited)
    failing = failing or _fails_early(loc)
    used = False
    if failing and failure_page is not None:
        # the .htaccess fails in map_to_storage with r->per_dir_config at the server's defaults: ap_die_r
        # (modules/http/http_request.c) answers the 500 with the server's ErrorDocument 500, a 302 whose
        # Location is that URL, or an internal redirect to that page (ap_internal_redirect: the page's own
        # sections and headers, its URL's query string, none); nginx's refusal (403) is sent there the same way
        target = failure_page.args[-1]
        what = "page" if target.startswith("/") else "redirect"
        replaced = _without_403(pages, target, "httpd answers the .htaccess failure's 500 with the server's "
                                               f"ErrorDocument 500 {what}")
        loc.statements = [st for st in loc.statements if st.name != "error_page"] + replaced
        pages = replaced
    elif any(is_refusal(st) for st in loc.statements) and _replaces_403(pages):
        replaced = _without_403(pages, rereads=rereads)
        loc.statements = [st for st in loc.statements if st.name != "error_page"] + replaced
        pages, used = replaced, True
    guarded = any(_guard(st) for st in loc.statements)
    if guarded and _replaces_403(pages) and not (failing and failure_page is not None):
        loc.statements = [_plain_guard(st, pages, rereads) if _guard(st) else st for st in loc.statements]
        used = True
    for child in loc.locations:
        used = _walk(child, pages, failure_page, failing, rereads) or used
    return used


def _plain_guard(guard: Stmt, pages: list[Stmt], rereads: dict | None = None) -> Stmt:
    """GUARD, an `if` whose block refuses some URLs of a location (a <LocationMatch>'s rules nginx cannot check
    under a prefix location, emit.layout.guard_prefixes), with its 403 sent to the named refusal: the block
    inherits the location's error pages (nginx), and PAGES' 403 page answered its `return 403` from the page's
    own location, with none of the headers the block sends (the refusal's, emit.inherit.refused_headers: an
    X-Frame-Options httpd sends on the answer it serves there was lost)."""
    if any(st.name == "error_page" for st in guard.block):
        return guard
    at = next(i for i, st in enumerate(guard.block) if st.name == "return")
    page = _without_403(pages, rereads=rereads)[-1]
    return Stmt("if", guard.args, guard.span, guard.comment, guard.block[:at] + [page] + guard.block[at:])


def _failure_page(pages: list[Stmt], server: Server, main: Server | None) -> Stmt | None:
    """The server's ErrorDocument 500, where it is a URL elsewhere (a redirect) or a local page (an internal
    redirect); not a message (a named location, which answers with the server's headers as the refusal does),
    nor a page under a failing .htaccess itself: httpd's redirect to it fails again, and ap_die_r answers the
    first request's 500 with its own message and headers, as the plain refusal does."""
    from .refused_error_pages import serving_levels
    page = next((st for st in reversed(pages) if "500" in st.args[:-1]), None)
    if page is None or not (redirects_to(page.args[-1]) or page.args[-1].startswith("/")):
        return None
    if page.args[-1].startswith("/") and any(_fails_early(loc)
                                             for loc in serving_levels(server, main, page.args[-1])[0]):
        return None
    return page


def keep_refusals_plain(model: NginxModel, server: Server) -> None:
    main = model.main_server
    outer = _pages(main.statements) if main is not None and main is not server else []
    inherited = _in_force(_pages(server.statements), outer)
    failure_page = _failure_page(inherited, server, main)
    used = False
    for loc in server.locations:
        if loc.path.startswith("@"):
            continue
        used = _walk(loc, inherited, failure_page, rereads=server.settings.get("env_on_error_pages")) or used
    if used and not any(loc.path == REFUSED_PAGE for loc in server.locations):
        server.locations.append(Location("", REFUSED_PAGE, [Stmt("return", ["403"], None)]))
