"""ErrorDocument pages that their own access rules refuse.

httpd serves a local ErrorDocument through an internal redirect that passes the page URL's own access checks.
When those refuse the page, httpd keeps the original status and sends its built-in message ("Additionally, a
403 Forbidden error was encountered while trying to use an ErrorDocument"). nginx's error_page redirect also
runs the page location's access phase, but a refusal there replaces the status: a 404 (a `%2F` path, a missing
file in a granted directory) became nginx's 403.

Where the page's nginx location refuses everybody (`deny all` with no `allow` and no `satisfy any`, from
the input's own access rules, not a refusal the translation adds), the translation sends that status to a
named location answering the original status with nginx's own page instead, and reports it (A2N239). Its
answer carries the `Header always` lines of the location whose status it answers (a copy of it per list:
emit.inherit.error_pages_with_headers), as httpd answers the original request with its error headers after
the page's redirect fails (observed with httpd 2.4), and none of the page's.

A page refused only to some clients (a login, an address rule) fails the same way for them: httpd answers a
404 with its message (and the challenge), nginx answered the page location's 401. nginx cannot serve the page to the
clients that pass and keep the status for the others (the redirected request takes no second error_page), so
those statuses answer from the same named location, to every client (A2N881); a status the refusal itself
answers with (401 for a login, 403 for an address rule) is left as it is. The clients httpd lets see the page
get its headers with it (a `Header onsuccess set` of the server too: the redirected request's own), on a 404
of a missing file, of path info after a file and of a `%2F` path alike (observed with httpd 2.4): the named
location sends them to every client, as below (A2N885).

Where the page's location is refused by the translation itself (an access rule nginx cannot check, a
construct it cannot express: a `deny all` or a `return 403` it adds in place of the input's rules), nginx's
error_page answered that 403 for every status sent there. httpd answers the original status whichever way
its own rules decide: with the page where they grant it, with its built-in message (and the challenge of a
login) where they refuse it. Those statuses answer from the same named location too, to every client
(A2N876). Where httpd serves the page, its answer carries the page's own headers (its Header lines, onsuccess
and always alike: the redirected request runs the page's handler and output filters); where its rules refuse
the page, none of them (observed with httpd 2.4). nginx cannot tell the two apart, so the named location
sends the page's headers with the original status, as for a page httpd serves (A2N885); a header whose value
depends on the answer itself (its URL, a file found) is not sent (A2N886). One gated on the status is sent with
its value, as on a refusal (render.any_status): httpd sent an onsuccess `Header append Referrer-Policy
no-referrer "expr=%{REQUEST_STATUS} == 404"` with its 404 page for a `%2F` path, which the named location lost.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import replace

from ..diagnostics import Diagnostics
from ..model import UNSET_WHEN, Location, NginxModel, Server, Stmt
from .refusal_pages import FAILS_EARLY, is_refusal

_ACCESS = ("allow", "deny")
# the comments of the rewrite-phase checks of an environment variable (emit.layout.ACCESS_IF_COMMENTS)
_ENV_GATES = ("Require env/expr", "Allow/Deny from env=")
# the statements standing for the page's Header lines (emit.inherit merges them as it does a location's)
_HEADERS = ("add_header", UNSET_WHEN)
# nginx variables whose value is the answer's or the location's, not the request's: in the named location
# they are not what they are at the page's URL
_ANSWER_VARIABLES = re.compile(r"(?:status|uri|document_uri|upstream_\w+|sent_http_\w+|request_filename|"
                               r"document_root|realpath_root|fastcgi_\w+|a2n_\w+)$")
_VARIABLE = re.compile(r"\$\{?(\w+)")


def plain_page(code: str, challenge: str = "", target: str = "") -> str:
    """The named location answering CODE plainly; with CHALLENGE, one that also sends it (one per realm);
    with TARGET, one that sends that page's headers (one per page)."""
    name = f"@a2n_status_{code}"
    if challenge:
        name += f"_challenge_{zlib.crc32(challenge.encode()):08x}"
    if target:
        name += f"_page_{zlib.crc32(target.encode()):08x}"
    return name


def plain_location(name: str, code: str, challenge: str, headers: list[Stmt]) -> Location:
    body = [replace(st) for st in headers] + [Stmt("return", [code], None)]
    if challenge:
        body.insert(0, Stmt("add_header", ["WWW-Authenticate", challenge, "always"], None,
                            comment="httpd keeps the challenge of the page's refused login"))
    return Location("", name, body)


def _request_only(model: NginxModel, value: str, seen: frozenset = frozenset()) -> bool:
    """Whether VALUE reads only what the request holds (its headers, arguments, method...), through the maps
    it names: what it gives in the named location is what it gives at the page's URL."""
    for name in _VARIABLE.findall(value):
        block = next((b for b in model.maps if b.variable == "$" + name), None)
        if block is None:
            if _ANSWER_VARIABLES.match(name):
                return False
            continue
        if name in seen:
            continue
        if block.volatile or not block.source or not all(
                _request_only(model, v, seen | {name})
                for v in [block.source, block.default or "", *(v for _, v in block.entries)]):
            return False
    return True


def _page_headers(model: NginxModel, server: Server, main: Server | None,
                  target: str, code: str | None = None) -> tuple[list[Stmt], list[str]]:
    """The statements of the page's Header lines, from its location chain (outermost first, after the server's
    and the http level's onsuccess ones, whose gate the named location inherits shut), as httpd sends
    them on the page it serves: an onsuccess header's gate opened (the named location is not at the page's
    URL, where the gate sends it on any status), always. And the names of the headers whose value the named
    location cannot give (one read from the answer). None where the refusal stands for an error httpd answers
    the page with for certain (a .htaccess that fails, rules that refuse everyone: shut_region). A line gated on
    the status is read at CODE, the status httpd sends the page with and the named location answers (at any
    status where CODE is None: render.any_status)."""
    chain, levels = serving_levels(server, main, target)
    access = _access_rules(levels)
    if access and (access[0].shut_region or (access[0].comment or "").startswith(FAILS_EARLY)):
        return [], []
    from .render import any_status
    ungated = model.onsuccess_ungated
    out: list[Stmt] = []
    lost: list[str] = []
    # the server's and the http level's onsuccess headers too: the named location inherits them, but their
    # gate is shut there (a 404 at a URL not the page's), where httpd sends them on the page it serves
    outer = [st for level in reversed(levels[len(chain):]) for st in level
             if st.name == "add_header" and len(st.args) > 1 and isinstance(ungated.get(st.args[1]), str)]
    for statements in [outer] + [loc.statements for loc in chain]:
        for st in statements:
            if st.name not in _HEADERS:
                continue
            args = list(st.args)
            if st.name == "add_header" and len(args) > 1:
                if isinstance(ungated.get(args[1]), str):
                    # (a `Header always` line gated on the status has its plain value there: its own map)
                    args[1] = any_status(model, args[1] if "always" in args[2:] else ungated[args[1]], code)
                    if not args[1]:
                        continue    # (its condition does not hold on CODE: it sends nothing, nor replaces)
                if not _request_only(model, args[1]):
                    lost.append(args[0])
                    continue
                if "always" not in args[2:]:
                    args.append("always")
            elif st.name == UNSET_WHEN and not _request_only(model, args[1]):
                lost.append(args[0])
                continue
            out.append(Stmt(st.name, args, st.span, st.comment, st.block, st.resets, st.conditional, st.plain,
                            st.joins, late=st.late))
    if not any(st.name == "add_header" for st in out):
        out = []
    return out, lost


def _regex_matches(loc: Location, uri: str) -> bool:
    try:
        pattern = re.compile(loc.path, re.IGNORECASE if loc.modifier == "~*" else 0)
    except (re.error, OverflowError, RecursionError):
        return False
    return pattern.search(uri) is not None


def find_location(locations: list[Location], uri: str, chain: list[Location]) -> tuple[list[Location], bool]:
    r"""nginx's location lookup (ngx_http_core_find_location): an exact match; else the longest prefix, whose
    nested locations are searched next; then, unless that prefix is `^~`, this level's regexes in order, the
    first that matches searched in turn for its own nested locations (a `\.html` location inside a `<FilesMatch>`
    one). Returns the chain of locations from the outermost to the one chosen, and whether the search ended."""
    for loc in locations:
        if loc.modifier == "=" and loc.path == uri:
            return chain + [loc], True
    prefixes = [loc for loc in locations if loc.modifier in ("", "^~") and not loc.path.startswith("@")
                and uri.startswith(loc.path)]
    best = max(prefixes, key=lambda loc: len(loc.path), default=None)
    found = chain
    if best is not None:
        found = chain + [best]
        if best.locations:
            inner, done = find_location(best.locations, uri, found)
            if done:
                return inner, True
            found = inner
        if best.modifier == "^~":
            return found, False
    for loc in locations:
        if loc.modifier in ("~", "~*") and _regex_matches(loc, uri):
            return find_location(loc.locations, uri, chain + [loc])[0], True
    return found, False


def _refuses_everybody(levels: list[list[Stmt]]) -> bool:
    """LEVELS from the innermost out: nginx inherits allow/deny and satisfy from the nearest level setting any."""
    access = _access_rules(levels)
    return (bool(access) and access[0].name == "deny" and access[0].args == ["all"] and _satisfy(levels) != ["any"]
            and not is_refusal(access[0]))   # the translation's own refusal: httpd may serve the page


def _refused_by_translation(levels: list[list[Stmt]]) -> bool:
    """Whether a refusal the translation adds refuses everybody there, LEVELS from the innermost out: the
    `deny all` in force (no `satisfy any`), or a `return 403` standing for rewrite rules in the location."""
    access = _access_rules(levels)
    return ((bool(access) and is_refusal(access[0]) and _satisfy(levels) != ["any"])
            or any(st.name == "return" and is_refusal(st) for st in levels[0]))


def _access_rules(levels: list[list[Stmt]]) -> list[Stmt]:
    rules = next((level for level in levels if any(st.name in _ACCESS for st in level)), [])
    return [st for st in rules if st.name in _ACCESS]


def _satisfy(levels: list[list[Stmt]]) -> list[str]:
    return next((st.args for level in levels for st in level if st.name == "satisfy"), ["all"])


def _refuses_some(levels: list[list[Stmt]]) -> tuple[set[str], str]:
    """The statuses the page's location refuses some clients with, LEVELS from the innermost out, and the
    login's challenge: 401 where a login is asked for (auth_basic and its user file, each inherited from the
    nearest level setting it), 403 where an address rule of the input denies before any `allow all`. Under
    `satisfy any` a client passes with either, and nginx answers the login's 401. A realm held in a variable
    (a login asked for only under conditions) is left as it is: no statuses."""
    realm = next((st.args for level in levels for st in level if st.name == "auth_basic"), None)
    users = next((st.args for level in levels for st in level if st.name == "auth_basic_user_file"), None)
    login = realm is not None and realm != ["off"] and users is not None
    if login and "$" in realm[0]:
        return set(), ""
    challenge = f'Basic realm="{realm[0]}"' if login else ""
    access = _access_rules(levels)
    opened = next((i for i, st in enumerate(access) if st.name == "allow" and st.args == ["all"]), len(access))
    addresses = any(st.name == "deny" and not is_refusal(st) for st in access[:opened]) or _gated(levels[0])
    if _satisfy(levels) == ["any"]:
        if access and opened == 0:
            return set(), ""
        return ({"401"}, challenge) if login else ({"403"}, "") if addresses else (set(), "")
    return ({"401"} if login else set()) | ({"403"} if addresses else set()), challenge


def _gated(stmts: list[Stmt]) -> bool:
    """Whether the location's rewrite-phase checks of an environment variable or expression (`Require env`,
    `Allow/Deny from env=`) refuse some requests with 403. httpd's ErrorDocument page refused by such a rule
    leaves the error's own status with httpd's built-in message; nginx's error_page would answer the 403."""
    return any(st.name == "if" and st.comment in _ENV_GATES and
               any(b.name == "return" and b.args[:1] == ["403"] for b in st.block or []) for st in stmts)


def serving_levels(server: Server, main: Server | None, uri: str) -> tuple[list[Location], list[list[Stmt]]]:
    """The chain of locations nginx serves URI from (outermost first), and the statement levels it inherits
    from, innermost first: those locations, the server and the http level (Apache's main server)."""
    chain, _ = find_location(server.locations, uri.split("?", 1)[0], [])
    levels = [loc.statements for loc in reversed(chain)] + [server.own_statements, server.statements]
    if main is not None and main is not server:
        levels.append(main.statements)
    return chain, levels


def _refusals(server: Server, main: Server | None, uri: str) -> tuple[set[str], str, str]:
    """The statuses URI's location refuses some clients with, the login's challenge, and who it refuses:
    "everybody" by the input's rules, everybody by the "translation"'s own refusal, or "some"."""
    levels = serving_levels(server, main, uri)[1]
    if _refuses_everybody(levels):
        return {"403"}, "", "everybody"
    if _refused_by_translation(levels):
        return {"403"}, "", "translation"
    return *_refuses_some(levels), "some"


def _replace(pages: list[Stmt], refused: dict[str, str]) -> list[Stmt]:
    """PAGES with each code whose page is refused sent to its plain named location (REFUSED: code -> name)."""
    out = []
    for st in pages:
        codes = [a for a in st.args[:-1] if a in refused]
        kept = [a for a in st.args[:-1] if a not in refused]
        if any(a.isdigit() for a in kept):     # (not an `=500` answer left alone)
            out.append(Stmt("error_page", kept + [st.args[-1]], st.span, comment=st.comment))
        answer = next((a[1:] for a in kept if a.startswith("=")), None)
        out.extend(Stmt("error_page", [code, refused[code]], st.span,
                        comment=f"httpd keeps the {answer or code} where its page {st.args[-1]} is refused:")
                   for code in codes)
    return out


def _refused_codes(model: NginxModel, server: Server, main: Server | None, pages: list[Stmt], diags: Diagnostics,
                   reported: set, needed: dict[str, tuple[str, str, list[Stmt]]]) -> dict[str, str]:
    """The codes of PAGES whose page is refused -> the named location answering them, each added to NEEDED
    (name -> code, challenge and the page's headers)."""
    refused = {}
    for st in pages:
        target = st.args[-1]
        if not target.startswith("/"):
            continue
        statuses, challenge, refused_to = _refusals(server, main, target)
        # httpd serves the page to the clients its rules let in (with its headers): nginx's named location
        # cannot tell them apart, so it sends the page's headers on every answer it stands for
        # (`error_page 502 =500 /page`: the status the page is sent with, httpd's)
        answer = next((a[1:] for a in st.args[:-1] if a.startswith("=") and a[1:].isdigit()), None)
        for code in st.args[:-1]:
            if not code.isdigit() or code in statuses or not statuses:
                continue   # a page refused with its own status: httpd answers that status, and so does nginx
            headers, lost = _page_headers(model, server, main, target, answer or code) \
                if refused_to != "everybody" else ([], [])
            refused[code] = plain_page(answer or code, challenge, target if headers else "")
            needed[refused[code]] = (answer or code, challenge, headers)
            if answer is not None or (id(st), code) in reported:
                continue   # (the page's own error_page for that status says it)
            reported.add((id(st), code))
            if refused_to == "translation":
                diags.add("A2N876", f"ErrorDocument {code} {target}: the translation refuses the page (a rule there "
                          f"nginx cannot reproduce), where httpd answers {code} with the page or, when its own rules "
                          f"refuse it, with its built-in message; nginx answers {code} with its own page (its "
                          "error_page would have answered the refusal's 403)", st.span)
            elif refused_to == "everybody":
                diags.add("A2N239", f"ErrorDocument {code} {target}: the page's own access rules refuse it, so "
                          f"httpd answers {code} with its built-in message; nginx answers {code} with its own page "
                          "(its error_page would have answered the refusal's 403)", st.span)
            else:
                refusal = " or ".join(sorted(statuses))
                diags.add("A2N881", f"ErrorDocument {code} {target}: the page's own access rules refuse it to some "
                          f"clients ({refusal}), and httpd answers them {code} with its built-in message; nginx "
                          f"answers {code} with its own page to every client (its error_page would have answered "
                          f"the refusal's {refusal}), also to those httpd serves the page", st.span)
            if headers:
                names = ", ".join(dict.fromkeys(h.args[0] for h in headers if h.name == "add_header"))
                diags.add("A2N885", f"ErrorDocument {code} {target}: nginx answers {code} with the page's headers "
                          f"({names}), which httpd sends where it serves the page; where its own rules refuse the "
                          "page, httpd sends none of them", st.span)
            if lost:
                names = ", ".join(dict.fromkeys(lost))
                diags.add("A2N886", f"ErrorDocument {code} {target}: the page's headers {names} depend on the answer "
                          f"(its status, URL or file), which nginx's plain {code} in place of the refused page does "
                          "not have: nginx does not send them, where httpd sends them with the page", st.span)
    return refused


def _error_page_headers(model: NginxModel, server: Server, main: Server | None, levels: list[list[Stmt]],
                        code: str = "401") -> tuple[Stmt | None, list[Stmt], list[str]]:
    """The ErrorDocument CODE in force at LEVELS (innermost first), the headers httpd sends with its page, and
    the names of those nginx cannot give there (one read from the page's own answer, see _page_headers): a
    local page it serves, or the named location already standing for one the translation refuses
    (plain_location, which reports its own). No headers where no such page answers, or its own rules refuse
    it. A level's latest ErrorDocument for CODE is httpd's (the rendering keeps that one: _last_error_pages)."""
    page = next((st for level in levels for st in reversed(level) if st.name == "error_page"
                 and code in st.args[:-1]), None)
    if page is None or any(a.startswith("=") for a in page.args[:-1]):
        return page, [], []
    target = page.args[-1]
    if target.startswith("@"):
        named = next((loc for loc in server.locations if loc.path == target), None)
        return page, [replace(st) for st in (named.statements if named is not None else [])
                      if st.name in _HEADERS and st.args[:1] != ["WWW-Authenticate"]], []
    if not target.startswith("/") or _refusals(server, main, target)[2] == "everybody":
        return page, [], []
    return page, *_page_headers(model, server, main, target, code)


def _own_statuses(stmts: list[Stmt]) -> list[str]:
    """The statuses httpd may answer with itself where STMTS hold the translation's refusal: 401 where its
    rules may ask for a login (Stmt.login); 403 in any case: its own rules may refuse (everyone, some clients
    or methods: a <Limit> kept before the refusal's auth_request), and so may a directory without an index
    file it does not list (Options -Indexes), which nginx's refusal cannot tell from what httpd serves; 404
    where httpd serves the region: a request naming no file there (`/blog/a%20b`, a missing rewrite result)
    is answered with the ErrorDocument 404 page. Not where httpd fails before (a .htaccess it answers 500 for)
    or its own rules refuse everyone (Stmt.shut_region): no request of the region reaches its handler; nor
    where it relays a backend's answer (a proxied or FastCGI location), whose 404 is the backend's own. 500
    where its rules may end a request with an error of its authentication settings (Stmt.fails_authn: an
    AuthType without Require), which httpd answers with the ErrorDocument 500 page, whether or not it
    refuses the others (a shut region's 403 by address or method)."""
    refusals = [st for st in stmts if is_refusal(st)]
    if not refusals:
        return []
    served = not any(st.shut_region or (st.comment or "").startswith(FAILS_EARLY) for st in refusals) \
        and not any(st.name.endswith("_pass") for st in stmts)
    return (["401"] if any(st.login for st in refusals) else []) + ["403"] + (["404"] if served else []) + \
        (["500"] if any(st.fails_authn for st in refusals) else [])


def _held_lines(model: NginxModel, levels: list[list[Stmt]]) -> tuple[set[str], dict[str, str]]:
    """The headers the add_header lines at LEVELS send on the refusal: those a line sends on every answer it
    makes (a plain value, an onsuccess gate the refusal opens: emit.inherit.refused_headers), and, for the
    others, the variables of their lines under a condition of the request alone (Stmt.conditional, a
    variable no onsuccess gate makes: a `Header set` under env=, a section the refused rules may rewrite
    to), joined: such a line sends nothing on some answers the refusal stands for. An onsuccess gate the
    refusal leaves shut (it stands for httpd's own errors alone: Stmt.shut_region) sends nothing on it."""
    shut = any(st.shut_region for st in levels[0] if is_refusal(st))
    lines = [st for level in levels for st in level if st.name == "add_header" and st.args
             and not (shut and len(st.args) > 1 and st.args[1] in model.onsuccess_ungated)]

    def held(st: Stmt) -> bool:
        return st.conditional and len(st.args) > 1 and _LINE_VARIABLE.fullmatch(st.args[1]) is not None \
            and st.args[1] not in model.onsuccess_ungated
    named = {st.args[0].lower() for st in lines if not held(st)}
    out: dict[str, str] = {}
    for st in lines:
        if st.args[0].lower() not in named:
            out[st.args[0].lower()] = out.get(st.args[0].lower(), "") + st.args[1]
    return named, out


# an add_header value that is one variable
_LINE_VARIABLE = re.compile(r"\$\w+")


def _send_on_refusals(model: NginxModel, server: Server, main: Server | None, locations: list[Location],
                      outer: list[list[Stmt]], diags: Diagnostics, reported: set) -> None:
    """OUTER: the levels enclosing LOCATIONS, innermost first, down to the http level."""
    from .render import _unless
    unless = _unless(model)
    for loc in locations:
        levels = [loc.statements] + outer
        for code in _own_statuses(loc.statements):
            named, held = _held_lines(model, levels)
            page, headers, lost = _error_page_headers(model, server, main, levels, code)
            what = {"401": "its login's 401", "404": "its 404 of a request naming no file",
                    "500": "its 500 of an AuthType without Require"}.get(code, "its own 403")
            for st in headers:
                name = st.args[0].lower()
                if name in named:
                    continue
                if name in held and st.name == "add_header":
                    # (sent where the location's own lines of the header send nothing: one answer, one value)
                    st = replace(st, args=[st.args[0], unless(held[name], st.args[1]), *st.args[2:]])
                loc.statements.append(replace(st, comment=f"httpd answers {what} here with the ErrorDocument "
                                                          "page, which carries this header"))
            lost = [name for name in dict.fromkeys(lost) if name.lower() not in named | set(held)]
            if lost and (id(page), tuple(lost)) not in reported:
                reported.add((id(page), tuple(lost)))
                what = {"401": "login", "404": "missing files", "500": "authentication errors"}.get(code,
                                                                                                "access rules")
                diags.add("A2N887", f"ErrorDocument {code} {page.args[-1]}: the translation refuses a region whose "
                          f"{what} httpd answers with the page, and the page's headers {', '.join(lost)} depend "
                          "on its own answer (its status, URL or file), which nginx's 403 in its place does not "
                          "have: nginx does not send them, where httpd sends them with the page", page.span)
        _send_on_refusals(model, server, main, loc.locations, levels, diags, reported)


def send_login_page_headers(model: NginxModel, diags: Diagnostics) -> None:
    """A refusal the translation adds where the region's own rules may ask for a login (Stmt.login) stands for
    httpd's 401 too, which httpd answers with the ErrorDocument 401 page in force: a local page is an internal
    redirect (http_request.c internal_internal_redirect: the new request keeps the status and the error
    headers, and gets a headers_out table of its own) whose answer carries the page's own headers (its
    sections' Header lines, onsuccess and always alike: the redirected request runs the page's fixups and
    handler; observed with httpd 2.4). nginx's refusal answers 403, which no error_page for 401 answers: the
    page's headers go on that 403 (always), but for a header the refused location sends itself there (emit.
    inherit.refused_headers); one whose value nginx cannot give there is reported (A2N887). So does any refusal
    under a local ErrorDocument 403 page, which stands for httpd's own 403 too (_own_statuses): httpd answers
    it with the page and its headers (observed with httpd 2.4: a <Location>'s `Header always set
    X-Frame-Options` of the page on the 403 of a <Limit> refusing the method, and of a directory without an
    index file), where nginx answers the refusal's named page (emit.refusal_pages), which sends the refused
    location's lines alone. And any refusal of a region httpd serves, under a local ErrorDocument 404 page:
    httpd answers a request there naming no file with the page and its headers (observed with httpd 2.4: a
    <FilesMatch "\\.html$"> onsuccess X-Content-Type-Options of /errors/404.html on `GET /blog/a%20b` under a
    <Directory> whose rewrite rules the translation leaves out), where nginx's 403 sent the refused
    location's lines alone. And any refusal of a region whose AuthType has no Require line (Stmt.fails_authn),
    under a local ErrorDocument 500 page: httpd answers the requests its address and method rules let through
    with 500 (AH01627) and the page, whose answer carries the server's onsuccess Referrer-Policy too
    (observed with httpd 2.4), where nginx's 403 takes no error_page for 500; a shut region's refusal leaves
    the onsuccess gates shut, so the page's value of such a header goes on it. A header the location sends
    only under a condition of the request (a section its rules may rewrite to) gets the page's value where
    that line sends nothing (_held_lines)."""
    main = model.main_server
    reported: set = set()
    for server in model.servers:
        levels = [server.own_statements, server.statements]
        if main is not None and main is not server:
            levels.append(main.statements)
        _send_on_refusals(model, server, main, server.locations, levels, diags, reported)


def _fix_locations(model: NginxModel, locations: list[Location], server: Server, main: Server | None,
                   diags: Diagnostics, reported: set, needed: dict[str, tuple[str, str, list[Stmt]]]) -> None:
    for loc in locations:
        pages = [st for st in loc.statements if st.name == "error_page"]
        refused = _refused_codes(model, server, main, pages, diags, reported, needed) if pages else {}
        if refused:
            position = next(i for i, st in enumerate(loc.statements) if st.name == "error_page")
            rest = [st for st in loc.statements if st.name != "error_page"]
            loc.statements = rest[:position] + _replace(pages, refused) + rest[position:]
        _fix_locations(model, loc.locations, server, main, diags, reported, needed)


def keep_statuses_of_refused_pages(model: NginxModel, diags: Diagnostics) -> None:
    main = model.main_server
    main_pages = [st for st in main.statements if st.name == "error_page"] if main is not None else []
    reported: set = set()
    replaced: dict[int, list[Stmt]] = {}
    needed: dict[int, dict[str, tuple[str, str, list[Stmt]]]] = {}
    for server in model.servers:
        own = [st for st in server.statements if st.name == "error_page"]
        pages = own or (main_pages if server is not main else [])
        needed[id(server)] = {}
        refused = _refused_codes(model, server, main, pages, diags, reported, needed[id(server)])
        if refused or (not own and server is not main and main is not None):
            replaced[id(server)] = _replace(pages, refused)
        _fix_locations(model, server.locations, server, main, diags, reported, needed[id(server)])
    main_changed = main is not None and replaced.get(id(main)) not in (None, main_pages)
    for server in model.servers:
        pages = replaced.get(id(server))
        own = any(st.name == "error_page" for st in server.statements)
        if pages is None or (not own and server is not main and not main_changed and pages == main_pages):
            continue
        if not own and server is not main and pages == replaced.get(id(main), main_pages):
            continue   # inherits the same list from the http level
        rest = [st for st in server.statements if st.name != "error_page"]
        server.statements = rest + pages
    for server in model.servers:
        for name, (code, challenge, headers) in sorted(needed[id(server)].items()):
            if not any(loc.path == name for loc in server.locations):
                server.locations.append(plain_location(name, code, challenge, headers))
