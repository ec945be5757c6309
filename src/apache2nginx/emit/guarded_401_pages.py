"""An ErrorDocument 401 page behind the very login it answers for.

httpd serves a local ErrorDocument through an internal redirect, and skips authentication there when the page's
URL merges to the same per-directory configuration as the refused request (request.c ap_process_request_internal:
"Skip authn/authz if the parent or prior request passed the authn/authz, and that configuration didn't
change"): `<Files "*.html"> Require valid-user` with `ErrorDocument 401 /errors/401.html` answers 401 with the
page and one challenge (mod_auth_basic note_basic_auth_failure *sets* WWW-Authenticate). nginx's error_page
redirect runs the page location's access phase again: auth_basic refuses the page too and pushes a second
WWW-Authenticate next to the first (the redirect keeps the response headers), and answers with its own page.

Where the page's own nginx location asks for a login, the translation sends 401 to a named location that serves
the page as a file instead (no access phase of the page's location; the status stays 401, the first challenge
goes along). It carries the page location's root and response headers; a page location that does anything
else (a backend, an alias, a redirect) is left as it is. nginx keeps the request's method in a named location,
where httpd asks for the page with GET: a request other than GET/HEAD gets nginx's own 401 page (its file
handler would answer 405).

httpd skips authentication for the page only where the page's URL matches the very sections the refused
request matched (the walks then give the same merged configuration): `<Location /admin/sub> ErrorDocument 401
/errors/401.html` with a `<Files "*.html">` login asks for the login again for /errors/401.html, which fails
as the request's did, and httpd answers 401 with its built-in message ("Additionally, a 401 Unauthorized
error was encountered...") and the refused request's `Header always` lines (ap_die goes back to the original
request; the page's own headers are not sent). A location whose sections are not the page's (another chain of
nginx locations made from other sections) sends its 401 to a named location answering 401 plainly instead,
which carries that location's `always` headers (emit.inherit.error_pages_with_headers); auth_basic's
challenge goes along.
"""
from __future__ import annotations

from ..model import Location, NginxModel, Server, Stmt
from .refused_error_pages import plain_location, plain_page, serving_levels

PAGE = "@a2n_page_401_"
# what the page's location may hold for the file to be served the same way from a named location
_CARRIED = ("root", "add_header", "expires", "default_type", "types", "charset", "charset_types",
            "source_charset", "etag", "if_modified_since", "proxy_hide_header")
_IGNORED = ("auth_basic", "auth_basic_user_file", "satisfy", "allow", "deny", "error_page", "if",
            "limit_except", "client_max_body_size", "keepalive_timeout", "absolute_redirect", "index",
            "autoindex", "set", "access_log", "log_not_found", "disable_symlinks", "internal")


def _auth(levels: list[list[Stmt]]) -> list[str] | None:
    """The auth_basic in effect, LEVELS from the innermost out."""
    return next((st.args for level in levels for st in level if st.name == "auth_basic"), None)


def _asks_login(levels: list[list[Stmt]]) -> bool:
    auth = _auth(levels)
    return auth is not None and auth != ["off"]


def _sections(chain: list[Location]) -> tuple:
    """What stands for the sections httpd merges for a URL nginx serves from CHAIN (outermost first): the
    section each location was made from (its span; an exact and a prefix location of one <Location> alike),
    or the location itself where it was made from none."""
    return tuple(loc.span if loc.span is not None else id(loc) for loc in chain)


def _page_chain(server: Server, main: Server | None, target: str) -> list[Location] | None:
    """The page's location chain (outermost first) when it asks for a login and only serves a file."""
    chain, levels = serving_levels(server, main, target)
    if not _asks_login(levels):
        return None
    for loc in chain:
        if loc.runs_scripts or any(st.name not in _CARRIED + _IGNORED for st in loc.statements):
            return None
    return chain


def _local_401(st: Stmt) -> bool:
    return (st.name == "error_page" and "401" in st.args[:-1] and st.args[-1].startswith("/")
            and "?" not in st.args[-1] and "$" not in st.args[-1])


class _Pages:
    """The named page locations of one server, one per page URL, and the plain 401 for the others."""

    def __init__(self, server: Server, main: Server | None, taken: set[str]):
        self.server, self.main, self.taken = server, main, taken
        self.made: dict[str, str] = {}
        self.chains: dict[str, list[Location]] = {}

    def chain(self, target: str) -> list[Location] | None:
        """The page's location chain where it asks for a login and only serves a file (_page_chain)."""
        if target not in self.chains:
            self.chains[target] = _page_chain(self.server, self.main, target)
        return self.chains[target]

    def name(self, st: Stmt) -> str:
        """The named location serving ST's page as a file."""
        target = st.args[-1]
        if target in self.made:
            return self.made[target]
        n = 1
        while f"{PAGE}{n}" in self.taken:
            n += 1
        name = f"{PAGE}{n}"
        self.taken.add(name)
        body = [Stmt("if", ["($request_method !~ ^(?:GET|HEAD)$)"], st.span,
                     comment="httpd asks for the page with GET; nginx's file handler would answer 405",
                     block=[Stmt("return", ["401"], st.span)])]
        for loc in self.chain(target):
            body.extend(Stmt(s.name, list(s.args), s.span, s.comment, s.block, s.resets, s.conditional)
                        for s in loc.statements if s.name in _CARRIED)
        body.append(Stmt("try_files", [target, "=401"], st.span,
                         comment="the page without its location's login, as httpd serves it"))
        self.server.locations.append(Location("", name, body, st.span))
        self.made[target] = name
        return name

    def plain(self) -> str:
        """The named location answering 401 with nginx's own page (refused_error_pages makes the same)."""
        name = plain_page("401")
        if not any(loc.path == name for loc in self.server.locations):
            self.server.locations.append(plain_location(name, "401", "", []))
            self.taken.add(name)
        return name

    def sent_to(self, st: Stmt, chain: list[Location]) -> str | None:
        """Where a 401 that ST's page answers goes from the location CHAIN ends with (the server itself where
        it is empty): the page's named location where the page's URL is served from locations made from the
        same sections, else the plain 401 (httpd asks for the login again for the page). None where the page
        is not guarded."""
        if not _local_401(st) or self.chain(st.args[-1]) is None:
            return None
        if _sections(chain) == _sections(self.chain(st.args[-1])):
            return self.name(st)
        return self.plain()

    def replace(self, pages: list[Stmt], chain: list[Location]) -> list[Stmt] | None:
        """PAGES, of the location CHAIN ends with, with each guarded 401 page sent to its named location or the
        plain 401 (sent_to); None when none is guarded."""
        out, changed = [], False
        for st in pages:
            name = self.sent_to(st, chain)
            if name is None:
                out.append(st)
                continue
            changed = True
            rest = [a for a in st.args[:-1] if a != "401"]
            if rest:
                out.append(Stmt("error_page", rest + [st.args[-1]], st.span, comment=st.comment))
            out.append(_sent(st, name))
        return out if changed else None


def _sent(st: Stmt, name: str) -> Stmt:
    """`error_page 401 NAME` in place of ST's page."""
    if name.startswith(PAGE):
        comment = f"the page {st.args[-1]} asks for the same login: served as a file"
    else:
        comment = (f"httpd asks for the login again for the page {st.args[-1]}, whose sections are not these, "
                   "and answers 401 with its own message")
    return Stmt("error_page", ["401", name], st.span, comment=comment)


def _pages(stmts: list[Stmt]) -> list[Stmt]:
    return [st for st in stmts if st.name == "error_page"]


def _swap(stmts: list[Stmt], pages: list[Stmt]) -> list[Stmt]:
    """STMTS with its error_page lines replaced by PAGES, where the first one stood (or at the end)."""
    at = next((i for i, st in enumerate(stmts) if st.name == "error_page"), None)
    rest = [st for st in stmts if st.name != "error_page"]
    if at is None:
        return rest + pages
    return rest[:at] + pages + rest[at:]


def _last_401(stmts: list[Stmt]) -> Stmt | None:
    return next((st for st in reversed(stmts) if st.name == "error_page" and "401" in st.args[:-1]), None)


def _fix_locations(locations: list[Location], pages: _Pages, inherited: Stmt | None, sent: str | None,
                   chain: list[Location], outer: list[list[Stmt]]) -> None:
    """INHERITED: the enclosing levels' ErrorDocument 401 (as the input gives it), SENT: where nginx sends the
    401 there (a named location, or None for the page itself); CHAIN, OUTER: the enclosing locations
    (outermost first) and the enclosing levels (innermost first). A location that asks for a login and
    inherits a page whose 401 it must send elsewhere (sent_to) gets its own error_page."""
    for loc in list(locations):
        here, levels = chain + [loc], [loc.statements] + outer
        own = _pages(loc.statements)
        page, to = inherited, sent
        if _last_401(own) is not None:
            page = _last_401(own)
            to = pages.sent_to(page, here)
            new = pages.replace(own, here)
            if new is not None:
                loc.statements = _swap(loc.statements, new)
        elif page is not None and _asks_login(levels):
            wanted = pages.sent_to(page, here)
            if wanted != to:
                loc.statements = _swap(loc.statements, own + [_sent(page, wanted)])
                to = wanted
        _fix_locations(loc.locations, pages, page, to, here, levels)


def serve_guarded_401_pages(model: NginxModel) -> None:
    main = model.main_server
    http_pages = _pages(main.statements) if main is not None else []
    for server in model.servers:
        taken = {loc.path for loc in server.locations if loc.path.startswith("@")}
        pages = _Pages(server, main, taken)
        own = _pages(server.own_statements if server is main else server.statements)
        effective = own or http_pages
        new = pages.replace(effective, []) if effective else None
        if new is not None:
            # a server-level list replaces the inherited one whole (nginx): the other servers keep theirs
            if server is main:
                server.own_statements = _swap(server.own_statements, new)
            else:
                server.statements = _swap(server.statements, new)
        outer = [server.own_statements, server.statements]
        if main is not None and main is not server:
            outer.append(main.statements)
        page = _last_401(effective)
        _fix_locations([loc for loc in server.locations if not loc.path.startswith("@")], pages, page,
                       pages.sent_to(page, []) if page is not None else None, [], outer)
