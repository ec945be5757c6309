"""The <Location> `Header always` lines a server-context RewriteRule's own answer carries.

httpd merges the <Location> sections (ap_location_walk) before translate_name runs, so a redirect, [F], [G]
or [R=4xx] answered by a server-context rule is sent with the `Header always` headers (err_headers_out) of the
<Location>/<LocationMatch> sections matching the request's URL. nginx answers these rules in its
server-rewrite phase, before a location is chosen, with the server's add_header list only.

The rules' answers get those headers through server-level `add_header NAME $var always`, whose variable is
empty except right before a rule answers: the region's value is worked out from the original URL first (as
httpd's walk sees it), and each answering statement copies it into the header's variable. Elsewhere the
variable stays empty, so a location that inherits the server's list sends nothing more.
"""
from __future__ import annotations

import re

from ..model import Server, Stmt
from .rewrite_compile import _quote_regex

__all__ = ["carry_location_headers"]


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
