"""The login challenge survives an ErrorDocument 401.

auth_basic puts its WWW-Authenticate header in the response itself, so an error_page for 401 keeps it.
`Require user` is checked in the rewrite phase instead (access.py `_user_filter`): `return 401` with an
`add_header ... always` of its `if` block, and nginx's headers filter reads add_header from the location
that finally answers, which for `error_page 401 @page` is the error page's: the challenge would be lost,
where httpd sends it with its ErrorDocument. Where a named error location for 401 exists, each such test
also keeps its challenge in $a2n_challenge, and the error location sends it (empty, so not sent, when
auth_basic answered the 401 itself). An ErrorDocument 401 with a local URL is an internal redirect in both
servers: httpd keeps the challenge (err_headers_out go along with the redirect), nginx answers from the
page's own location, any one of the server's. So a server with such a page sends $a2n_challenge from
every location (a server-level add_header, which the render repeats in the locations that have their own);
nginx keeps the variable's value across the redirect.
"""
from __future__ import annotations

from ..model import Location, MapBlock, NginxModel, Stmt

CHALLENGE = "$a2n_challenge"
ERROR_401 = "@a2n_error_401_"


def _locations(locations: list[Location]):
    for loc in locations:
        yield loc
        yield from _locations(loc.locations)


def _challenge_tests(stmts: list[Stmt]):
    """The `if` blocks that answer 401 with a challenge of their own, however deeply nested."""
    for st in stmts:
        block = st.block or []
        if st.name == "if" and any(s.name == "return" and s.args[:1] == ["401"] for s in block):
            sent = next((s for s in block if s.name == "add_header" and s.args[:1] == ["WWW-Authenticate"]), None)
            if sent is not None and sent.args[1] != CHALLENGE:
                yield st, sent
        yield from _challenge_tests(block)


def _local_401(stmts: list[Stmt]) -> bool:
    return any(s.name == "error_page" and "401" in s.args[:-1] and s.args[-1].startswith("/") for s in stmts)


def _servers_with_local_pages(model: NginxModel) -> list:
    """The servers (the main server's statements stand for the http level) with an ErrorDocument 401 page
    that is a local URL, in the server or in one of its locations."""
    main = model.main_server
    out = []
    for server in model.servers:
        if _local_401(server.statements) or _local_401(server.own_statements) \
                or any(_local_401(loc.statements) for loc in _locations(server.locations)):
            out.append(main if main is not None and _local_401(main.statements) else server)
    return list({id(s): s for s in out}.values())


def keep_challenges(model: NginxModel) -> None:
    pages = [loc for server in model.servers for loc in _locations(server.locations)
             if loc.path.startswith(ERROR_401)]
    local = _servers_with_local_pages(model)
    if not pages and not local:
        return
    tests = [t for server in model.servers for loc in _locations(server.locations)
             for t in _challenge_tests(loc.statements)]
    if not tests:
        return
    done: set[int] = set()
    for test, sent in tests:
        if id(test.block) in done:
            continue        # one block shared by several locations
        done.add(id(test.block))
        at = next(i for i, s in enumerate(test.block) if s.name == "return")
        test.block.insert(at, Stmt("set", [CHALLENGE, sent.args[1]], sent.span,
                                   comment="for the ErrorDocument 401 page, whose headers are its own"))
    for loc in pages:
        loc.statements.insert(0, Stmt("add_header", ["WWW-Authenticate", CHALLENGE, "always"], loc.span,
                                      comment="the challenge of a Require user test (empty otherwise)"))
    if local and not model.has_map(CHALLENGE):
        # empty until a test sets it: the server-level add_header reads it on every answer, and a variable only
        # `set` somewhere would be an uninitialised one (a warning logged each time) everywhere else
        model.maps.append(MapBlock("$status", CHALLENGE, [], '""'))
    for server in local:
        server.statements.append(Stmt("add_header", ["WWW-Authenticate", CHALLENGE, "always"], None,
                                      comment="for an ErrorDocument 401 page: the challenge of a Require user "
                                              "test (empty otherwise)"))
