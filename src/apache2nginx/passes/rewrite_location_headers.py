"""The <Location> `Header always` lines a server-context RewriteRule's own answer carries.

httpd merges the <Location> sections (ap_location_walk) before translate_name runs, so a redirect, [F], [G]
or [R=4xx] answered by a server-context rule is sent with the `Header always` headers (err_headers_out) of the
<Location>/<LocationMatch> sections matching the request's URL. nginx answers these rules in its
server-rewrite phase, before a location is chosen, with the server's add_header list only.

The rules' answers get those headers through server-level `add_header NAME $var always`, whose variable is
empty except right before a rule answers: the region's value is worked out from the original URL first (as
httpd's walk sees it), and each answering statement copies it into the header's variable. Elsewhere the
variable stays empty, so a location that inherits the server's list sends nothing more.

A server-context [P] rule proxies through an internal location (rewrite_compile), which no <Location> of the
original URL reaches; httpd's proxied answer carries the Header lines (both tables) of the sections matching
that URL. So the rule's target names, through a variable worked out from the original URL, a copy of the
internal location per combination of matching sections, holding their header statements.
"""
from __future__ import annotations

import copy
import re

from ..model import Location, Server, Stmt
from .rewrite_compile import _quote_regex

__all__ = ["carry_location_headers", "carry_proxy_headers"]


def _answers(st: Stmt) -> bool:
    return st.name == "return" or st.name == "rewrite" and st.args[-1:] in (["redirect"], ["permanent"])


def _region(scope) -> str:
    """The regular expression over $uri for the URLs a <Location> (or <LocationMatch>) covers."""
    if scope.regex:
        return scope.path
    path = scope.path
    if path == "/":
        return "^/"
    escaped = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", path)
    return "^" + escaped if path.endswith("/") else "^" + escaped + "(/|$)"


def _headers(ctx, server: Server) -> list[tuple[str, list[tuple[object, str]]]]:
    """(header name, [(section, value)]) in httpd's merge order, for each header a matching section's
    `Header always` sets (a later section's value replaces an earlier one's, "" unsets)."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    named: dict[str, tuple[str, list]] = {}
    for scope in (s for h in holders for s in h.scopes if s.kind == "location"):
        for st in scope.statements:
            if st.name != "add_header" or len(st.args) < 3 or st.args[-1] != "always":
                continue
            name = st.args[0]
            named.setdefault(name.lower(), (name, []))[1].append((scope, st.args[1]))
    return list(named.values())


def carry_location_headers(ctx, server: Server, statements: list[Stmt]) -> None:
    """Give the answering statements among STATEMENTS (server-context rewrite output) the matching
    <Location> sections' `Header always` headers."""
    if not any(_answers(st) or st.name == "if" and any(_answers(b) for b in st.block or []) for st in statements):
        return
    headers = _headers(ctx, server)
    if not headers:
        return
    counter = ctx.options.setdefault("_rewrite_location_headers", [0])
    before: list[Stmt] = []
    copies: list[Stmt] = []
    for name, values in headers:
        counter[0] += 1
        region, sent = f"$a2n_rwloc{counter[0]}_in", f"$a2n_rwloc{counter[0]}"
        before.append(Stmt("set", [region, ""], None))
        for scope, value in values:
            op = "~*" if scope.nocase else "~"
            before.append(Stmt("if", [f"($uri {op} {_quote_regex(_region(scope))})"], scope.span,
                               block=[Stmt("set", [region, value], scope.span)],
                               comment=f"{name}: httpd merges <Location> before the server's rewrite rules"))
        before.append(Stmt("set", [sent, ""], None))
        copies.append(Stmt("set", [sent, region], None))
        server.own_statements.append(Stmt("add_header", [name, sent, "always"], values[0][0].span,
                                          comment="on the server rewrite rules' own answers"))
    out: list[Stmt] = []
    for st in statements:
        if st.name == "if" and st.block and any(_answers(b) for b in st.block):
            at = next(n for n, b in enumerate(st.block) if _answers(b))
            st.block[at:at] = [Stmt(c.name, list(c.args), st.span) for c in copies]
            out.append(st)
        elif st.name == "return":
            out.extend(Stmt(c.name, list(c.args), st.span) for c in copies)
            out.append(st)
        elif _answers(st):
            # a redirecting rewrite: inside an `if` on its own pattern, which the copies go before
            out.append(Stmt("if", [f"($uri ~ {_quote_regex(st.args[0])})"], st.span,
                            block=[Stmt(c.name, list(c.args), st.span) for c in copies] + [st]))
        else:
            out.append(st)
    statements[:] = before + out


# more combinations of sections than this for one proxied rule: refused (each is a location)
_MAX_COMBINATIONS = 16


def _within(prefix: str, path: str) -> bool:
    """httpd's <Location PREFIX> covers PATH (whole segments unless PREFIX ends with a slash)."""
    return prefix == "/" or path == prefix or path.startswith(prefix if prefix.endswith("/") else prefix + "/")


def _may_share(a, b) -> bool:
    """Can one URL be in both sections (plain prefixes only when one holds the other)?"""
    return a.regex or b.regex or _within(a.path, b.path) or _within(b.path, a.path)


def _may_hold(scope, urls: list[tuple[str, bool]] | None) -> bool:
    """Can a URL starting with one of the literal prefixes URLS (each with whether it is case-blind) be in
    the section? (None: any URL.)"""
    if urls is None or scope.regex:
        return True
    for prefix, nocase in urls:
        a, b = (prefix.lower(), scope.path.lower()) if nocase or scope.nocase else (prefix, scope.path)
        if a.startswith(b) or b.startswith(a):
            return True
    return False


def carry_proxy_headers(ctx, server: Server, statements: list[Stmt]) -> None:
    """Give the internal locations of the server-context [P] rules among STATEMENTS the header statements of
    the <Location>/<LocationMatch> sections matching the original URL (see the module's docstring)."""
    proxies = server.settings.pop("rewrite_proxy_locations", [])
    holders = [server] if server is ctx.main else [ctx.main, server]
    carrying = [sc for h in holders for sc in h.scopes if sc.kind == "location"
                and any(st.name in ("add_header", "proxy_hide_header") for st in sc.statements)]
    chooser: list[Stmt] = []
    for loc, urls in proxies:
        scopes = [sc for sc in carrying if _may_hold(sc, urls)]
        if not scopes:
            continue
        combos: list[tuple[int, ...]] = [()]
        for i, scope in enumerate(scopes):
            combos += [c + (i,) for c in combos if all(_may_share(scopes[j], scope) for j in c)]
            if len(combos) - 1 > _MAX_COMBINATIONS:
                break
        if len(combos) - 1 > _MAX_COMBINATIONS:
            loc.statements.append(Stmt("deny", ["all"], loc.span, comment="refused: the headers of the "
                                       "<Location> sections of the original URL are not carried here"))
            ctx.diags.add("A2N514", "RewriteRule [P]: the original URL may match more than "
                          f"{_MAX_COMBINATIONS} combinations of <Location> sections with Header lines, which "
                          "httpd's proxied answer carries; the rule's proxying is refused (deny all)", loc.span,
                          directive="RewriteRule")
            continue
        counter = ctx.options.setdefault("_rewrite_proxy_headers", [0])
        counter[0] += 1
        select = f"$a2n_pxsel{counter[0]}"
        chooser.append(Stmt("set", [select, ""], None))
        for i, scope in enumerate(scopes):
            op = "~*" if scope.nocase else "~"
            chooser.append(Stmt("if", [f"($uri {op} {_quote_regex(_region(scope))})"], scope.span,
                                block=[Stmt("set", [select, "${" + select[1:] + "}_" + str(i + 1)], scope.span)],
                                comment="the <Location> headers a [P] rule's proxied answer carries"))
        base = loc.path[:-1]
        _retarget(statements, base, select)
        for combo in combos[1:]:
            inner = [copy.copy(st) for j in combo for st in scopes[j].statements
                     if st.name in ("add_header", "proxy_hide_header")]
            server.locations.append(Location(loc.modifier, base + "".join(f"_{j + 1}" for j in combo) + "/",
                                             [copy.copy(st) for st in loc.statements] + inner, loc.span))
    statements[:0] = chooser


def _retarget(statements: list[Stmt], base: str, select: str) -> None:
    """The rewrites into BASE/ go to BASE<select>/: the internal location of the sections matched."""
    for st in statements:
        if st.name == "rewrite" and len(st.args) > 1 and st.args[1].startswith(base + "/"):
            st.args[1] = base + select + st.args[1][len(base):]
        if st.block:
            _retarget(st.block, base, select)
