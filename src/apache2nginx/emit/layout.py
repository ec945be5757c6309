"""Laying Apache's URL space out as nginx locations.

Apache merges every <Location> that matches a request and walks first-match
lists (ProxyPass, then Redirect, then Alias); nginx picks exactly one
location. For every URL boundary the input names (Location prefixes and the
prefixes of the server's ProxyPass/Alias/Redirect lists) this module computes
what Apache does to requests in that region, and emits it as `location = P`
plus `location ^~ P/` (never a bare `location /p`, which would also match
`/pX`):

- the statements of every <Location> covering the region, in config order;
- the handler: the last covering <Location> with its own ProxyPass, else the
  first list entry covering the region (proxy list before mod_alias's
  redirects before its aliases, as translate_name runs them). A list entry
  that never wins its own region is unreachable in Apache and is reported.
"""
from __future__ import annotations

from ..diagnostics import Diagnostics
from ..model import Location, NginxModel, ProxyTarget, Route, Scope, Server, Stmt

KIND_ORDER = {"proxy": 0, "proxy-exclude": 0, "redirect": 1, "alias": 2}


def segment_prefix(prefix: str, path: str) -> bool:
    """Apache's prefix match with segment boundaries: `/a` covers `/a` and `/a/x`, not `/ab`."""
    if prefix == "/" or prefix == path:
        return True
    if prefix.endswith("/"):
        return path.startswith(prefix)
    return path.startswith(prefix) and path[len(prefix)] == "/"


def _variants(path: str) -> list[tuple[str, str]]:
    """(modifier, matched text) of the nginx locations for an Apache prefix."""
    if path == "/":
        return [("", "/")]
    if path.endswith("/"):
        return [("^~", path)]
    return [("=", path), ("^~", path + "/")]


class Layout:
    def __init__(self, model: NginxModel, server: Server, diags: Diagnostics, proxy_emitter):
        self.model = model
        self.server = server
        self.diags = diags
        self.proxy_emitter = proxy_emitter
        self.redirect_vars: dict[int, str] = {}

    def inherited(self) -> tuple[list[Scope], list[Route]]:
        """The sections and lists that apply to this server, merged with the main server's as httpd merges
        them: main-server <Location>s before the host's own, ProxyPass lists main first, mod_alias lists
        (Redirect, Alias) the host's own first."""
        server, main = self.server, self.model.main_server
        if main is None or main is server:
            return list(server.scopes), list(server.routes)
        def kind(routes: list[Route], kinds: tuple[str, ...]) -> list[Route]:
            return [r for r in routes if r.kind in kinds]
        proxies = ("proxy", "proxy-exclude")
        routes = (kind(main.routes, proxies) + kind(server.routes, proxies)
                  + kind(server.routes, ("redirect",)) + kind(main.routes, ("redirect",))
                  + kind(server.routes, ("alias",)) + kind(main.routes, ("alias",)))
        return list(main.scopes) + list(server.scopes), routes

    def run(self) -> None:
        server = self.server
        scopes, all_routes = self.inherited()
        prefix_scopes = [s for s in scopes if not s.regex]
        regex_scopes = [s for s in scopes if s.regex]
        routes = sorted((r for r in all_routes if not r.regex), key=lambda r: KIND_ORDER[r.kind])
        regions: list[str] = []
        for p in [s.path for s in prefix_scopes] + [r.path for r in all_routes if not r.regex]:
            if p not in regions:
                regions.append(p)
        # `<Location />` applies to every request that reaches httpd's location walk, so its statements go
        # into every location (and a `location /`), not to the server level where nginx would also apply
        # them to the errors it answers before choosing a location.
        root_statements = [st for s in prefix_scopes if s.path == "/" for st in s.statements]
        if root_statements and "/" not in regions:
            regions.insert(0, "/")
        winners: set[int] = set()
        for path in regions:
            covering = [s for s in prefix_scopes if segment_prefix(s.path, path)]
            handler: Route | None = None
            for s in covering:
                if s.proxy is not None:
                    handler = s.proxy
            if handler is None:
                for r in routes:
                    if segment_prefix(r.path, path):
                        handler = r
                        break
            if handler is not None:
                winners.add(id(handler))
            statements = [st for s in covering for st in s.statements]
            if path == "/" and handler is None and not statements:
                continue
            if path == "/" and not statements and handler is not None and handler.kind == "redirect" \
                    and not any(r.kind != "redirect" for r in all_routes) and not scopes:
                # The whole server redirects: a server-level return is the idiomatic form.
                server.statements.extend(self._handler(handler, "/", "/"))
                continue
            span = covering[-1].span if covering else (handler.span if handler else None)
            for modifier, matched in _variants(path):
                loc = Location(modifier, matched, span=span)
                loc.statements.extend(statements)
                if handler is not None:
                    loc.statements.extend(self._handler(handler, path, matched))
                server.locations.append(loc)
            if path.endswith("/") and path != "/" and handler is not None and handler.kind == "proxy" \
                    and path[:-1] not in regions:
                # nginx would 301 `/p` to `/p/` for a proxied `^~ /p/`; httpd's `/p/` prefix simply does not
                # match `/p`, which falls through to the document root.
                server.locations.append(Location("=", path[:-1], list(statements), span))
        for r in server.routes:   # only the server's own: an inherited entry may win in another host
            if not r.regex and id(r) not in winners and r.kind != "proxy-exclude":
                self.diags.add("A2N301", f"{r.params.get('directive', r.kind)} {r.path}: an earlier entry matches "
                               "every request this one would, so httpd never uses it; it is left out", r.span,
                               directive=r.params.get("directive"))
        for r in all_routes:
            if r.regex:
                loc = Location("~*" if r.params.get("nocase") else "~", r.path, span=r.span)
                loc.statements.extend(root_statements + self._handler(r, r.path, r.path))
                server.locations.append(loc)
        for s in regex_scopes:
            loc = Location("~*" if s.nocase else "~", s.path, span=s.span)
            loc.statements.extend(root_statements + s.statements)
            if s.proxy is not None:
                loc.statements.extend(self._handler(s.proxy, s.path, s.path))
            server.locations.append(loc)

    def _handler(self, route: Route, region: str, matched: str) -> list[Stmt]:
        if route.kind == "proxy-exclude":
            return []
        if route.kind == "proxy":
            return self.proxy_emitter(self.server, route, region, matched)
        if route.kind == "alias":
            if route.regex:
                return [Stmt("alias", [route.target], route.span)]
            rest = matched[len(route.path):] if matched.startswith(route.path) else ""
            return [Stmt("alias", [route.target + rest], route.span)]
        if route.kind == "redirect":
            return self._redirect(route, region, matched)
        return []

    def _redirect(self, route: Route, region: str, matched: str) -> list[Stmt]:
        code = str(route.status)
        if not route.target:
            return [Stmt("return", [code], route.span)]
        if route.regex:
            target = route.target
            return [Stmt("return", [code, target + ("" if "?" in target else "$is_args$args")], route.span)]
        target = route.target
        if "raw-uri" not in route.params:
            route.params["raw-uri"] = True
            self.diags.add("A2N405", f"Redirect {route.path}: the remainder of the path is taken from the raw "
                           "request line ($request_uri); httpd merges repeated slashes and re-escapes it",
                           route.span, directive=route.params.get("directive"))
        if route.path == "/" and target.endswith("/") and "?" not in target:
            return [Stmt("return", [code, target[:-1] + "$request_uri"], route.span)]
        # Prefix + remainder + (query unless the target has one), taken from the raw request line.
        if id(route) in self.redirect_vars:
            return [Stmt("return", [code, self.redirect_vars[id(route)]], route.span)]
        var = f"$a2n_redirect_{len(self.model.maps)}"
        self.redirect_vars[id(route)] = var
        from ..model import MapBlock
        pattern = "~^" + _regex_escape(route.path) + "(?<a2n_rest>[^?]*)(?<a2n_query>\\?.*)?$"
        value = target + "$a2n_rest" + ("" if "?" in target else "$a2n_query")
        self.model.maps.append(MapBlock("$request_uri", var, [(pattern, value)], default='""', span=route.span))
        return [Stmt("return", [code, var], route.span)]


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


def lay_out(model: NginxModel, diags: Diagnostics, proxy_emitter) -> None:
    for server in model.servers:
        Layout(model, server, diags, proxy_emitter).run()


__all__ = ["lay_out", "segment_prefix", "ProxyTarget", "Scope"]
