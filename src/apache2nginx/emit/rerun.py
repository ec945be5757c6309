"""A per-directory rewrite whose result the server's own rules may take again.

httpd serves a per-directory rewrite to a URL path through an internal redirect (mod_rewrite's
redirect-handler, ap_internal_redirect): the new URL is processed as a request of its own, and the server's
RewriteRules (translate_name) see it first, so a server rule may redirect or rewrite the result again. nginx's
`rewrite ... last` in a location only searches the locations again (the find-config phase): the server's
rewrite phase does not run for the new URI. ngx_http_internal_redirect does start there (as try_files' last
argument, error_page and the index module use it), so the marked rewrites (passes.rewrite._rerun_server_rules)
go to an internal location whose try_files hands the result to it: `try_files ""` tests the root itself,
which is never a file, so the fallback URI always applies. This is done last, once every step of the layout
has read the rewrites' own targets (where they land, which refusals they meet).
"""
from __future__ import annotations

from ..model import Location, NginxModel, Stmt
from .dirmethods import FIXUPS

RERUN = "httpd runs the server's rules again on the result (an internal redirect)"
PREFIX = "/a2n_rerun"
# "1" on the pass through the server's rewrite phase that a rerun starts, where the server's rules read
# %{REQUEST_METHOD} (passes.rewrite._method_pass): httpd's internal redirect keeps the request's method
RERUN_PASS = "$a2n_rerun_pass"


def route_reruns(model: NginxModel) -> None:
    for server in model.servers:
        done: dict[int, Stmt] = {}
        for loc in server.locations:
            _reroute(loc, done)
        if done:
            span = next(iter(done.values())).span
            marks = [Stmt("set", [RERUN_PASS, "1"], span)] if server.settings.get("rewrite_method_pass") else []
            server.locations.append(Location("^~", PREFIX + "/", [
                Stmt("internal", [], span), *marks,
                Stmt("rewrite", [f"(?s)^{PREFIX}(/.*)$", "$1", "break"], span),
                Stmt("try_files", ["", "$uri$is_args$args"], span,
                     comment="an internal redirect: the server's rewrite phase runs again on the result"),
            ], span))


def _reroute(loc: Location, done: dict[int, Stmt]) -> None:
    loc.statements[:] = _statements(loc.statements, done)
    for inner in loc.locations:
        _reroute(inner, done)


# what runs in the rewrite phase after a `rewrite` without a flag, with the rewritten URI
_REWRITE_PHASE = frozenset({"rewrite", "return", "if", "set", "break"})


def _statements(stmts: list[Stmt], done: dict[int, Stmt]) -> list[Stmt]:
    out = []
    for n, st in enumerate(stmts):
        if st.name == "rewrite" and st.comment == RERUN and not st.args[1].startswith(PREFIX + "/"):
            if len(st.args) == 2 and any(later.name in _REWRITE_PHASE and later.comment not in FIXUPS
                                         for later in stmts[n + 1:]):
                # a rewrite without a flag that statements after it see: the location's own go on with the
                # rewritten URI, as they did
                st = Stmt("rewrite", st.args, st.span)
            else:
                if id(st) not in done:
                    done[id(st)] = Stmt("rewrite", [st.args[0], PREFIX + st.args[1], "last"], st.span,
                                        comment=RERUN)
                st = done[id(st)]
        elif st.block and st.name == "if":
            st.block[:] = _statements(st.block, done)
        out.append(st)
    return out
