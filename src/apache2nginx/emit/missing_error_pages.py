"""ErrorDocument pages whose file is missing.

httpd serves a local ErrorDocument through an internal redirect; where the page's file is missing, that
redirect fails with a 404 and httpd answers the ORIGINAL status with its built-in message ("Additionally, a
404 Not Found error was encountered while trying to use an ErrorDocument", http_request.c ap_die_r;
observed with httpd 2.4: `ErrorDocument 403 /forbidden.html` without the file answers 403). nginx's
`error_page 403 /forbidden.html` answered the page location's own 404 instead (recursive_error_pages is off,
so that 404 takes no error_page and replaces the status).

In the location nginx serves each such page from, the translation answers the original status itself when
the page's file is missing during the error_page redirect: a map over `$status:$uri` (nginx keeps the error
in `$status` across the redirect, and `$uri` is the page's path there; on a request of its own `$status` is
still 000) gives the page's file (`$request_filename`) only on that redirect, and `/` (which always exists)
otherwise, so `if (!-e ...) { return CODE; }` fires only where httpd's redirect would fail. nginx answers
that `return` with its own page (no second error_page on a redirected request). A page whose location does
not serve files from disk (a proxy, a script, rewrite rules, try_files) is left as it is. A 404's page
missing answers 404 either way; a page sent with another status (`error_page 404 =200 /page`) is left too.
The `return` is the page location's, so its answer carries that location's `always` headers, as nginx's 404
there did; httpd's carries the original request's error headers (not changed here).
"""
from __future__ import annotations

import re

from ..model import Location, NginxModel, Server, Stmt, all_nested
from .refused_error_pages import find_location

# statements after which the page's URL may be answered by something other than its file on disk
_NOT_FILES = frozenset({"proxy_pass", "fastcgi_pass", "scgi_pass", "uwsgi_pass", "grpc_pass", "memcached_pass",
                        "rewrite", "try_files", "return", "perl", "empty_gif", "stub_status"})
# a page path nginx's map takes literally (no quoting, no `$`, no regex marker)
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9._~/-]*$")


def _pages(server: Server, main: Server | None) -> dict[str, list[str]]:
    """The local pages of SERVER's error_page lines (and the http level's it inherits) -> the statuses sent
    there unchanged, 404 aside (a missing page answers 404 in both servers)."""
    statements = list(server.statements) + list(server.own_statements)
    if main is not None and main is not server:
        statements += main.statements
    statements += [st for loc in all_nested(server.locations) for st in loc.statements]
    pages: dict[str, list[str]] = {}
    for st in statements:
        if st.name != "error_page" or any(a.startswith("=") for a in st.args[:-1]):
            continue
        target = st.args[-1].split("?", 1)[0]
        if not _PLAIN_PATH.match(target) or target.endswith("/"):
            continue
        codes = pages.setdefault(target, [])
        codes.extend(c for c in st.args[:-1] if c.isdigit() and c != "404" and c not in codes)
    return {target: codes for target, codes in pages.items() if codes}


def _serves_files(chain: list[Location], server: Server) -> bool:
    """Whether the location nginx serves a page from (the innermost of CHAIN, the server where none matches)
    answers its URLs from their files (nginx's static handler); a conditional `return` (a refusal's guard, a
    directory's slash redirect) is no answer of its own."""
    if chain and (chain[-1].modifier == "@" or any(loc.runs_scripts for loc in chain)):
        return False
    levels = [loc.statements for loc in chain] if chain else [server.statements, server.own_statements]
    stack = [st for level in levels for st in level]
    guarded = {id(b) for st in stack if st.name == "if" for b in st.block or [] if b.name == "return"}
    while stack:
        st = stack.pop()
        if st.name in _NOT_FILES and id(st) not in guarded:
            return False
        stack.extend(st.block or [])
    return True


def _guards(model: NginxModel, pages: dict[str, list[str]]) -> list[Stmt]:
    """The `if` answering each status itself where one of PAGES (served from the same place: page -> the
    statuses sent there) is missing on the error_page redirect."""
    out = []
    for code in sorted({c for codes in pages.values() for c in codes}):
        served = sorted(target for target, codes in pages.items() if code in codes)
        variable = model.shared_map("a2n_errdoc_file_", "$status:$uri",
                                    [(f"{code}:{target}", "$request_filename") for target in served], "/",
                                    volatile=True)
        what = f"page {served[0]} is" if len(served) == 1 else f"pages {', '.join(served)} are"
        out.append(Stmt("if", [f"(!-e {variable})"], None, block=[Stmt("return", [code], None)],
                        comment=f"httpd answers {code} itself where its ErrorDocument {what} missing"))
    return out


def keep_statuses_of_missing_pages(model: NginxModel) -> None:
    """Each server's local error pages served from files get their guards first in the location serving them
    (the server's own block where none matches them), one `if` per status there."""
    main = model.main_server
    for server in model.servers:
        places: dict[int, tuple[list[Stmt], dict[str, list[str]]]] = {}
        for target, codes in sorted(_pages(server, main).items()):
            chain, _ = find_location(server.locations, target, [])
            if not _serves_files(chain, server):
                continue
            statements = chain[-1].statements if chain else server.own_statements
            places.setdefault(id(statements), (statements, {}))[1][target] = codes
        for statements, pages in places.values():
            statements[:0] = _guards(model, pages)
