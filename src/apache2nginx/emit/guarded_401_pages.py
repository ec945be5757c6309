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
"""
from __future__ import annotations

from ..model import Location, NginxModel, Server, Stmt
from .refused_error_pages import serving_levels

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


def _page_chain(server: Server, main: Server | None, target: str) -> list[Location] | None:
    """The page's location chain (outermost first) when it asks for a login and only serves a file."""
    chain, levels = serving_levels(server, main, target)
    auth = _auth(levels)
    if auth is None or auth == ["off"]:
        return None
    for loc in chain:
        if loc.runs_scripts or any(st.name not in _CARRIED + _IGNORED for st in loc.statements):
            return None
    return chain


def _local_401(st: Stmt) -> bool:
    return (st.name == "error_page" and "401" in st.args[:-1] and st.args[-1].startswith("/")
            and "?" not in st.args[-1] and "$" not in st.args[-1])


class _Pages:
    """The named page locations of one server, one per page URL."""

    def __init__(self, server: Server, main: Server | None, taken: set[str]):
        self.server, self.main, self.taken = server, main, taken
        self.made: dict[str, str] = {}

    def name(self, st: Stmt) -> str | None:
        target = st.args[-1]
        if target in self.made:
            return self.made[target]
        chain = _page_chain(self.server, self.main, target)
        if chain is None:
            return None
        n = 1
        while f"{PAGE}{n}" in self.taken:
            n += 1
        name = f"{PAGE}{n}"
        self.taken.add(name)
        body = [Stmt("if", ["($request_method !~ ^(?:GET|HEAD)$)"], st.span,
                     comment="httpd asks for the page with GET; nginx's file handler would answer 405",
                     block=[Stmt("return", ["401"], st.span)])]
        for loc in chain:
            body.extend(Stmt(s.name, list(s.args), s.span, s.comment, s.block, s.resets, s.conditional)
                        for s in loc.statements if s.name in _CARRIED)
        body.append(Stmt("try_files", [target, "=401"], st.span,
                         comment="the page without its location's login, as httpd serves it"))
        self.server.locations.append(Location("", name, body, st.span))
        self.made[target] = name
        return name

    def replace(self, pages: list[Stmt]) -> list[Stmt] | None:
        """PAGES with each guarded 401 page sent to its named location; None when none is guarded."""
        out, changed = [], False
        for st in pages:
            name = self.name(st) if _local_401(st) else None
            if name is None:
                out.append(st)
                continue
            changed = True
            rest = [a for a in st.args[:-1] if a != "401"]
            if rest:
                out.append(Stmt("error_page", rest + [st.args[-1]], st.span, comment=st.comment))
            out.append(Stmt("error_page", ["401", name], st.span,
                            comment=f"the page {st.args[-1]} asks for the same login: served as a file"))
        return out if changed else None


def _pages(stmts: list[Stmt]) -> list[Stmt]:
    return [st for st in stmts if st.name == "error_page"]


def _swap(stmts: list[Stmt], pages: list[Stmt]) -> list[Stmt]:
    """STMTS with its error_page lines replaced by PAGES, where the first one stood (or at the end)."""
    at = next((i for i, st in enumerate(stmts) if st.name == "error_page"), None)
    rest = [st for st in stmts if st.name != "error_page"]
    if at is None:
        return rest + pages
    return rest[:at] + pages + rest[at:]


def _fix_locations(locations: list[Location], pages: _Pages) -> None:
    for loc in list(locations):
        own = _pages(loc.statements)
        if own:
            new = pages.replace(own)
            if new is not None:
                loc.statements = _swap(loc.statements, new)
        _fix_locations(loc.locations, pages)


def serve_guarded_401_pages(model: NginxModel) -> None:
    main = model.main_server
    http_pages = _pages(main.statements) if main is not None else []
    for server in model.servers:
        taken = {loc.path for loc in server.locations if loc.path.startswith("@")}
        pages = _Pages(server, main, taken)
        own = _pages(server.own_statements if server is main else server.statements)
        effective = own or http_pages
        new = pages.replace(effective) if effective else None
        if new is not None:
            # a server-level list replaces the inherited one whole (nginx): the other servers keep theirs
            if server is main:
                server.own_statements = _swap(server.own_statements, new)
            else:
                server.statements = _swap(server.statements, new)
        _fix_locations([loc for loc in server.locations if not loc.path.startswith("@")], pages)
