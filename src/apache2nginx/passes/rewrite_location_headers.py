"""The <Location> `Header always` lines a server-context RewriteRule's own answer carries.

httpd merges the <Location> sections (ap_location_walk) before translate_name runs, so a redirect, [F], [G]
or [R=4xx] answered by a server-context rule is sent with the `Header always` headers (err_headers_out) of the
<Location>/<LocationMatch> sections matching the request's URL; not through a local ErrorDocument, whose
internal redirect sends the page with its own sections' headers (the rule answered before mod_headers' fixup
could fill err_headers_out, which the redirect keeps). nginx answers these rules in its
server-rewrite phase, before a location is chosen, with the server's add_header list only.

The rules' answers get those headers through server-level `add_header NAME $var always`, whose variable is
empty except right after a rule answers: which section's value applies is worked out from the original URL
first (as httpd's walk sees it), each answering statement copies that choice, and a map gives the value as
the answer leaves (a condition on its status is read then, never before). Elsewhere the variable stays
empty, so a location that inherits the server's list sends nothing more.

A server-context [P] rule proxies through an internal location (rewrite_compile), which no <Location> of the
original URL reaches; httpd's proxied answer carries the Header lines (both tables) of the sections matching
that URL. So the rule's target names, through a variable worked out from the original URL, a copy of the
internal location per combination of matching sections, holding their header statements.

The same holds for the file a rule rewrites to (no [PT]): httpd's answer carries the Header lines of the
<Location> sections of the original URL, which nginx's location of the rewritten URI does not hold; they are
carried through server-level add_header lines (carry_rewrite_headers; the compiler refuses a rule whose result
nginx would serve from a location with add_header lines of its own, A2N842). A directory result's index file is
served, in httpd, through mod_dir's subrequest for the request's own URL plus the index name, which walks the
same sections; nginx's index module makes an internal redirect that runs the server's rewrite phase again,
where the carried values stay as the first pass chose them (rewrite_pass_again). A rule left out and refused
in its place (A2N327, A2N780, A2N842) answers 403 where httpd may serve: that 403 carries the headers httpd's
answer could (carry_refusal_headers); so does the 403 of a location refused for a section the translation
cannot place, where the rewritten file lands and httpd serves it: the carried onsuccess values there are
the success's (_carried_map, emit.inherit). mod_dir's redirect of a directory result carries that directory's
`Header always` lines (carry_dirslash_headers).

The same early walk gives a rule's error answer ([F], [G], [R=4xx]) the ErrorDocument of the matching
<Location> sections, whose page (with its own headers) httpd sends with the status; nginx's server-level
answer knew only the server's error_page (carry_location_error_pages).
"""
from __future__ import annotations

import copy
import re

from ..model import UNSET_WHEN, Location, Server, Stmt
from .rewrite_compile import _apart, _quote_regex
from .rewrite_model import alternates_at_top

__all__ = ["TARGET_HEADER", "carry_location_error_pages", "carry_location_headers", "carry_proxy_headers",
           "refused_directory_headers"]


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


def _literal_start(scope) -> str:
    """The literal text every URL a <Location> (or anchored <LocationMatch>) covers starts with ("" if none)."""
    if not scope.regex:
        return scope.path
    if scope.nocase or not scope.path.startswith("^"):
        return ""
    literal = re.match(r"[^\\.^$*+?()\[\]{}|]*", scope.path[1:]).group(0)
    return literal[:-1] if scope.path[1 + len(literal):][:1] in ("*", "?", "{") else literal


def _headers(ctx, server: Server, unsets: bool = False) -> list[tuple[str, list[tuple[object, str, Stmt]]]]:
    """(header name, [(section, value, statement)]) in httpd's merge order, for each header a matching
    section's `Header always` lines give (how a later line acts on an earlier one: _carry); with UNSETS, for
    each one they take away from the server's lines too (_over_server)."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    named: dict[str, tuple[str, list]] = {}
    for scope in (s for h in holders for s in h.scopes if s.kind == "location"):
        for lower, name, value, st in _table_lines(scope, "always"):
            named.setdefault(lower, (name, []))[1].append((scope, value, st))
    return [(name, values) for lower, (name, values) in named.items()
            if any(st.name == "add_header" for *_, st in values)
            or unsets and _server_lines(ctx, server, lower, "always")]


def _table_lines(scope, table: str) -> list[tuple[str, str, str, Stmt]]:
    """(lower name, name, value, statement) of SCOPE's header lines acting on httpd's TABLE ("always":
    err_headers_out, or "onsuccess"), in order: its add_header lines and its `Header unset` ones (an
    unconditional one, proxy_hide_header, as a `set` of nothing; a conditional one, UNSET_WHEN, whose value
    is its condition's variable). mod_headers runs them in order on the table, so `Header always set
    X-Frame-Options SAMEORIGIN expr=...` then `Header always unset X-Frame-Options expr=...` sends nothing
    where the condition holds: a carried header takes the unset into account as the section's own lines do
    (emit.inherit.header_order)."""
    out = []
    for st in scope.statements:
        if st.name == "add_header" and len(st.args) >= 2:
            if ("always" if len(st.args) > 2 and st.args[-1] == "always" else "onsuccess") == table:
                out.append((st.args[0].lower(), st.args[0], st.args[1], st))
        elif st.name == "proxy_hide_header" and st.resets is not None and st.resets[1] == table:
            out.append((st.resets[0], st.args[0], '""', st))
        elif st.name == UNSET_WHEN and st.resets is not None and st.resets[1] == table:
            out.append((st.resets[0], st.args[0], st.args[1], st))
    return out


def carry_location_headers(ctx, server: Server, statements: list[Stmt], skip: set[str] = frozenset()) -> None:
    """Give the answering statements among STATEMENTS (server-context rewrite output) the matching
    <Location> sections' `Header always` headers (but those named in SKIP, lower-cased: carried already)."""
    if not any(_answers(st) or st.name == "if" and any(_answers(b) for b in st.block or []) for st in statements):
        return
    headers = [h for h in _headers(ctx, server, unsets=True) if h[0].lower() not in skip]
    if not headers:
        return
    # the answers are the points the values are carried to: which section's value applies is worked out
    # first, and a map gives the value when the response leaves. A `set` of the value itself would read a
    # condition's map (`expr=%{REQUEST_STATUS} == 404`) before the response: nginx caches a map's value, so
    # the header was lost on every later answer of the request too (a 404 the location sends)
    points: list[Stmt] = []

    def walk(stmts: list[Stmt], top: bool) -> None:
        for st in stmts:
            if st.name == "return" or _answers(st):
                points.append(st)
            elif st.block and top:
                walk(st.block, False)
    walk(statements, True)
    # (an ErrorDocument page of the answer is an internal redirect whose own sections give its headers: the
    # rule answered in translate_name, before mod_headers' fixup put these in err_headers_out)
    _carry(ctx, server, statements, points, {name.lower(): (name, values) for name, values in headers},
           "on the rewrite rules' own answers: httpd merges <Location> before the rules run", paged=False,
           over_server=True)


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


# ----------------------------------------------------------------- headers httpd's served answer would carry

# the comment on the 403 a server-context rule not translated answers with in its place (rewrite._refused_instead)
REFUSED_RULE = "the rule is not translated: refused"


def _gated(ctx, value: str) -> bool:
    return value in ctx.model.onsuccess_ungated and isinstance(ctx.model.onsuccess_ungated[value], str)


def header_scopes(ctx, server: Server, kinds: tuple[str, ...] = ("location",), unsets: bool = False) -> list:
    """The sections of SERVER (and the main server) of KINDS whose translation holds an add_header; with
    UNSETS, or a `Header unset` line (_unsets)."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    out = []
    for h in holders:
        pool = list(h.scopes) + (list(h.settings.get("directories", [])) + list(h.settings.get("files", []))
                                 if set(kinds) - {"location"} else [])
        for scope in pool:
            if scope.kind in kinds and any(st.name == "add_header" and len(st.args) >= 2 or unsets and _unsets(st)
                                           for st in scope.statements):
                out.append(scope)
    return out


def _unsets(st: Stmt) -> bool:
    """ST stands for a `Header unset` line (plain: proxy_hide_header; under a condition: UNSET_WHEN). A
    section holding one acts on the server's lines as one with a `Header set` does: httpd merges it after
    them (a <Location /shop/>'s `Header unset X-Fuzz-A` takes the server's X-Fuzz-A away there)."""
    return st.name in ("proxy_hide_header", UNSET_WHEN) and st.resets is not None


def _carried_variables(ctx) -> tuple[str, str]:
    """A new carried header's pair of variables: which section's value applies, and the value sent."""
    counter = ctx.options.setdefault("_rewrite_carried_headers", [0])
    counter[0] += 1
    return f"$a2n_rwhdr{counter[0]}_in", f"$a2n_rwhdr{counter[0]}"


def rewrite_pass_again(ctx) -> str:
    """A variable empty in the request's first pass through the server's rewrite phase and "1" when an
    internal redirect (the index module's, error_page's) runs it again: a map is evaluated once per request
    and keeps its value across internal redirects, so the first $uri it saw tells the later passes apart
    (read first at the top of the first pass, before any rewrite)."""
    first = ctx.model.shared_map("a2n_rwfirst_", "$uri", [], "$uri")
    return ctx.model.shared_map("a2n_rwagain_", f"$uri|{first}", [(r"~^(.*)\|\1$", '""')], "1", volatile=True)


def _again_unanswered(ctx) -> str:
    """Like rewrite_pass_again, but empty also where error_page's internal redirect runs the server's rewrite phase
    again (an error status set, $status): "1" only on an internal redirect made before any answer (the
    index module's)."""
    return ctx.model.shared_map("a2n_rwkept_", f"{rewrite_pass_again(ctx)}:$status", [("1:000", "1")], '""',
                                volatile=True)


def _carried_map(ctx, source: str, entries: list[tuple[str, str]], span=None) -> str:
    """The map over SOURCE giving a carried header's value (ENTRIES, empty by default). Where an entry is an
    onsuccess value (empty on an error), the same map over the values ungated is kept for it
    (model.carried_ungated; the renderer makes it where a refusal sends it): a 403 refusing the rewritten
    request where httpd serves the file it names (a section whose access rules are not translated) carries
    the success's headers, as the refusal of a location does (emit.inherit), for a security header is never
    to be lost there."""
    variable = ctx.model.shared_map("a2n_rwhdr_", source, entries, '""', span=span)
    carried = ctx.model.carried_ungated
    if any(_gated(ctx, value) or value in carried for _, value in entries):
        carried.setdefault(variable, (source, [(key, ctx.model.onsuccess_ungated[value] if _gated(ctx, value)
                                                else value) for key, value in entries], span))
    return variable


def _acts(st: Stmt | None, value: str) -> str:
    """How a carried line acts on the earlier lines of its header and table, as mod_headers runs them (see
    emit.inherit.header_order): "set" (an unconditional `Header set`, or one not known: replaces them), "when"
    (a conditional `set`, whose VALUE is empty where its condition does not hold: replaces them where it
    holds) or "add" (add, append, merge: leaves them); "unset" for a conditional `Header unset`, whose VALUE
    is not empty where its condition holds: the lines before it send nothing there, and it sends nothing."""
    if st is not None and st.name == UNSET_WHEN:
        return "unset"
    if st is not None and st.name == "proxy_hide_header":
        return "set"
    if st is None or st.resets is not None and not (st.conditional and "$" in value):
        return "set"
    return "when" if st.resets is not None else "add"


def _carry(ctx, server: Server, statements: list[Stmt], points, entries: dict, what: str,
           paged: bool = True, over_server: bool = False) -> None:
    """Send, on the answers that follow each of POINTS (statements among STATEMENTS, or in their blocks),
    the header values ENTRIES name: {lower name: (name, [(section or None for the server, value[, statement])])}
    in httpd's merge order, for the entries whose section matches the original URL. Which entries apply is
    worked out from the original URL before the rules ($uri then is the request's own); a server-level
    `add_header NAME $value always` reads it through a map, so a gated value is still evaluated at the
    response (its status), and it stays empty wherever no carrying point was passed.
    A later entry acts on the earlier ones as its statement says (_acts): the last `set` that applies gives
    one line (an index in the first variable); each add and conditional set that applies after it is a line
    of its own (a flag in a variable of its own, cleared by a later `set`), and a conditional set's line
    replaces the lines before it where its value is not empty, as httpd's `set` under a condition does (a
    value merged before a `set` whose expr= does not hold is still sent). A section's `Header unset` is an
    entry too (_table_lines): a plain one a `set` of nothing, a conditional one empties the lines before it
    where its condition holds, as the location's own lines are merged (emit.inherit.header_order).

    PAGED false: the values are cleared on error_page's internal redirect of an answer, where httpd's
    ErrorDocument page does not carry them (they never reached err_headers_out, which the redirect keeps).
    OVER_SERVER: the entries are the <Location> sections' lines, which httpd merges after the server's own
    (ENTRIES keyed by (lower name, table), or by name alone for the always table): where a `set` or `unset`
    among them applies, the server's lines of its header and table are not sent (_over_server)."""
    if not entries or not points:
        return
    before: list[Stmt] = []
    resets: list[Stmt] = []
    copies: list[Stmt] = []
    for key, (name, values) in entries.items():
        values = [entry if len(entry) == 3 else (*entry, None) for entry in values]
        acts = [_acts(st, value) for _, value, st in values]
        plain = "set" in acts
        region, sent = _carried_variables(ctx) if plain else ("", "")
        flags = {i: _carried_variables(ctx) for i, act in enumerate(acts, 1) if act != "set"}
        before.extend([Stmt("set", [region, ""], None)] if plain else [])
        before.extend(Stmt("set", [flag, ""], None) for flag, _ in flags.values())
        choices = []
        for i, (scope, value, _) in enumerate(values, 1):
            if i in flags:
                sets = [Stmt("set", [flags[i][0], "1"], None)]
            else:
                choices.append((str(i), value))
                sets = [Stmt("set", [region, str(i)], None)] + \
                    [Stmt("set", [flag, ""], None) for j, (flag, _) in flags.items() if j < i]
            if scope is None:
                sets[0].comment = f"{name}: {what}"
                before.extend(sets)
            else:
                op = "~*" if scope.nocase else "~"
                for st in sets:
                    st.span = scope.span
                before.append(Stmt("if", [f"($uri {op} {_quote_regex(_region(scope))})"], scope.span,
                                   block=sets, comment=f"{name}: {what}"))
        if plain:
            resets.append(Stmt("set", [sent, ""], None))
            copies.append(Stmt("set", [sent, region], None))
        for flag, carried in flags.values():
            resets.append(Stmt("set", [carried, ""], None))
            copies.append(Stmt("set", [carried, flag], None))
        own = {i: _carried_map(ctx, flags[i][1], [("1", values[i - 1][1])],
                               span=values[i - 1][0].span if values[i - 1][0] is not None else None)
               for i in flags}
        if over_server:
            _over_server(ctx, server, name, key[1] if isinstance(key, tuple) else "always",
                         ([sent] if plain else []) + [own[j] for j in flags if acts[j - 1] in ("when", "unset")])
        lines = []
        if plain and any(value != '""' for _, value in choices):
            lines.append((0, _carried_map(ctx, sent, choices, span=values[-1][0].span
                                          if values[-1][0] is not None else None)))
        lines += list(own.items())
        for at, line in lines:
            if at and acts[at - 1] == "unset":
                continue        # (a conditional unset sends nothing of its own)
            # (a flag is set only where no later `set` applies: a conditional line, or a conditional unset,
            # after the one that applies replaces it where it holds)
            for j in (j for j in flags if j > at and acts[j - 1] in ("when", "unset")):
                line = _carried_map(ctx, own[j], [('""', line)])
            server.own_statements.append(Stmt("add_header", [name, line, "always"], None, comment=what))
    # the index module's internal redirect of a directory result (mod_dir's index subrequest in httpd, whose
    # <Location> walk sees the request's own URL plus the index name) runs these statements again on the
    # index file's URI: the values the first pass chose are kept, not cleared
    if paged:
        before.append(Stmt("if", [f"({rewrite_pass_again(ctx)} = \"\")"], None, block=resets,
                           comment="not on an internal redirect: the first pass's values stay"))
    else:
        before.append(Stmt("if", [f"({_again_unanswered(ctx)} = \"\")"], None, block=resets,
                           comment="not on the index module's internal redirect: the first pass's values stay; "
                                   "an ErrorDocument page does not carry them"))
    wanted = {id(p) for p in points}

    def place(stmts: list[Stmt], top: bool) -> list[Stmt]:
        out: list[Stmt] = []
        for st in stmts:
            carried = [Stmt(c.name, list(c.args), st.span) for c in copies]
            if id(st) in wanted and top and st.name == "rewrite":
                # a rewrite standing alone: inside an `if` on its own pattern, which the copies go before
                out.append(Stmt("if", [f"($uri ~ {_quote_regex(st.args[0])})"], st.span, block=carried + [st]))
                continue
            if id(st) in wanted:
                out.extend(carried)
            elif st.block:
                st.block[:] = place(st.block, False)
            out.append(st)
        return out
    statements[:] = before + place(statements, True)


def _server_lines(ctx, server: Server, lower: str, table: str) -> bool:
    """Whether the server (or the main server, or the http level) holds an add_header of the header LOWER in
    TABLE ("always" or "onsuccess")."""
    from ..emit.inherit import _table
    held = list(ctx.model.http_statements) + list(ctx.main.statements) + list(ctx.main.own_statements) + \
        (list(server.statements) if server is not ctx.main else [])
    return any(st.name == "add_header" and len(st.args) >= 2 and _table(st) == (lower, table) for st in held)


def _over_server(ctx, server: Server, name: str, table: str, variables: list[str]) -> None:
    """The server's lines of the header NAME in TABLE are not sent where one of VARIABLES (a carried
    <Location> line's, not empty where its `Header set` or `unset` applies) is set. httpd merges the
    <Location> sections of the request's own URL after the server's configuration, so a <Location /shop/>'s
    `Header unset X-Fuzz-A` takes away the server's `Header set X-Fuzz-A 1`, and its `Header set X-Fuzz-C 2`
    replaces a server's `Header set X-Fuzz-C 1`, on the file a server-context rule rewrites /shop/a.txt to
    (observed: no X-Fuzz-A, X-Fuzz-C 2 alone), as on the rule's own redirect. nginx sends the server's
    add_header lines there beside the carried ones. Each variable is the marker of a conditional unset
    (UNSET_WHEN) after the server's lines, which emit.inherit.header_order applies to the lines before it
    (not to the carried lines, _merged_after)."""
    if not _server_lines(ctx, server, name.lower(), table):
        return
    holder = server.own_statements if server is ctx.main else server.statements
    for variable in variables:
        holder.append(Stmt(UNSET_WHEN, [name, variable, *(["always"] if table == "always" else [])], None,
                           comment="httpd merges <Location> with the request's own URL after the server",
                           resets=(name.lower(), table), conditional=True))


def carry_refusal_headers(ctx, server: Server, statements: list[Stmt], results: dict[int, tuple[list, bool]]) -> None:
    """The 403 a server-context rule left out answers with (REFUSED_RULE) stands for an answer httpd may
    serve, with the headers of the server, of the <Location> sections matching the original URL and of the
    <Directory>/<Files> sections of the result (RESULTS: id of the refusal -> those sections, every one that
    may hold the result, and whether the result is a directory). nginx sends the server's onsuccess ones on no
    403 and the sections' not at all (the <Location> `Header always` lines are carried already,
    carry_location_headers): the refusal sends their values, as a refused location's 403 does (emit.inherit.
    refused_headers); a security header is never to be lost. httpd keeps a header's `Header always` lines
    (err_headers_out) and its onsuccess ones (headers_out) apart: a line acts on the earlier lines of its own
    table only, so each table's values are carried apart (an onsuccess `Header append X-Frame-Options
    SAMEORIGIN` leaves a `Header always set X-Frame-Options DENY` as it is). A directory result (a path ending
    with a slash, mapped for the request's own path) is never served as the result's file: mod_dir answers
    it, with its redirect (to the request's path with a slash, or the one its index lookup of that path
    through the rules again ends in) or with the index file of the request's own path, so the result
    sections' onsuccess lines are not on httpd's answer (its redirect drops that table) unless it lists the
    directory (Options Indexes)."""
    points = []

    def walk(stmts: list[Stmt]) -> None:
        for st in stmts:
            if st.name == "return" and st.comment == REFUSED_RULE:
                points.append(st)
            if st.block:
                walk(st.block)
    walk(statements)
    if not points:
        return

    def ungated(value: str) -> str:
        return ctx.model.onsuccess_ungated[value] if _gated(ctx, value) else value

    def table(st: Stmt) -> str:
        return "onsuccess" if _gated(ctx, st.args[1]) or len(st.args) < 3 or st.args[-1] != "always" else "always"

    # (lower name, name, section or None, value, statement) in httpd's merge order
    common: list[tuple] = []
    parents = list(ctx.model.http_statements) + list(ctx.main.statements) + \
        (list(server.statements) if server is not ctx.main else [])
    for st in parents:
        if st.name == "add_header" and len(st.args) >= 2 and _gated(ctx, st.args[1]):
            common.append((st.args[0].lower(), st.args[0], None, ungated(st.args[1]), st))
    located = []
    for scope in header_scopes(ctx, server):
        for st in scope.statements:
            if st.name == "add_header" and len(st.args) >= 2 and _gated(ctx, st.args[1]):
                located.append((st.args[0].lower(), st.args[0], scope, ungated(st.args[1]), st))
    listed = _may_list(ctx, server)
    groups: dict[tuple, list[Stmt]] = {}
    sections: dict[tuple, tuple[list, bool]] = {}
    for point in points:
        found, directory = results.get(id(point), ([], False))
        key = (tuple(id(s) for s in found), directory)
        groups.setdefault(key, []).append(point)
        sections[key] = (found, directory)
    for key, group in groups.items():
        found, directory = sections[key]
        own = [(st.args[0].lower(), st.args[0], None, ungated(st.args[1]), st) for scope in found
               for st in scope.statements if st.name == "add_header" and len(st.args) >= 2
               and not (directory and not listed and table(st) == "onsuccess")]
        entries: dict = {}
        # the always table first, as httpd sends it (ap_http_header_filter overlays err_headers_out on headers_out)
        for kind in ("always", "onsuccess"):
            for lower, name, scope, value, st in common + own + located:
                if table(st) == kind:
                    entries.setdefault((lower, kind), (name, []))[1].append((scope, value, st))
        _carry(ctx, server, statements, group, entries, "on the refusal standing for a server rewrite rule")


def _may_list(ctx, server: Server) -> bool:
    """Whether a <Directory> section (or the server's own Options) of SERVER or the main server turns Options
    Indexes on: mod_autoindex may then answer a directory result with a listing, a success."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    for scope in (d for h in holders for d in h.settings.get("directories", [])):
        access = scope.settings.get("access")
        if any(arg.lower().lstrip("+") in ("indexes", "all") for arg, _ in getattr(access, "options", None) or []):
            return True
    return False


def carry_rewrite_headers(ctx, server: Server, statements: list[Stmt], points: list[Stmt]) -> set[str]:
    """httpd walks <Location> sections with the request's own URL, which a server-context rewrite to a file
    path leaves as it is: the served file's answer carries the Header lines of the sections matching the
    original URL. POINTS are such rewrites (the compiler checked that no section with Header lines governs
    their result in nginx, which would keep its own list only): the answer after them gets those values.
    The rules' own answers (redirects, refusals: carry_location_headers) send the same variables, set there
    too (an onsuccess value is empty on them by its gate), so no header goes twice. Returns the lower-cased
    names carried."""
    if not points:
        return set()
    # httpd keeps a header's `Header always` lines (err_headers_out) and its onsuccess ones (headers_out) in
    # two tables: a later section's `set` replaces the same table's value only, and the error a rewrite to a
    # missing file ends in still carries the always one (X-Fuzz-C: 1 of `Header always set X-Fuzz-C 1` before
    # `Header set X-Fuzz-C "a b"` in one <Location>). So each table's values are carried apart, the always
    # one first as httpd sends it (ap_http_header_filter overlays err_headers_out on headers_out)
    entries: dict = {}
    for table in ("always", "onsuccess"):
        for scope in header_scopes(ctx, server, unsets=True):
            for lower, name, value, st in _table_lines(scope, table):
                entries.setdefault((lower, table), (name, []))[1].append((scope, value, st))
    # (a section's `Header unset` alone is carried where the server has a line of its header for it to take
    # away: _over_server)
    entries = {key: (name, values) for key, (name, values) in entries.items()
               if any(st.name == "add_header" for *_, st in values) or _server_lines(ctx, server, *key)}
    answers: list[Stmt] = []

    def walk(stmts: list[Stmt], top: bool) -> None:
        for st in stmts:
            if st.name == "return" or (not top and _answers(st)):
                answers.append(st)
            elif st.block:
                walk(st.block, False)
    walk(statements, True)
    wrapped = [st for st in statements if st.name == "rewrite" and _answers(st)]
    _carry(ctx, server, statements, list(points) + answers + wrapped,
           entries, "httpd merges <Location> with the request's own URL", over_server=True)
    return {lower for lower, _ in entries}


def _dirslash_redirect(st: Stmt) -> bool:
    """An `if` holding mod_dir's redirect of a server-context rule's directory result (rewrite_dirslash)."""
    from .rewrite_dirslash import is_slash_redirect
    return is_slash_redirect(st)


def carry_dirslash_headers(ctx, server: Server, statements: list[Stmt]) -> None:
    """mod_dir's redirect of a directory a server-context rule maps to (rewrite_dirslash) is an error answer
    made for the mapped directory: it carries the `Header always` lines (err_headers_out) of the <Directory>
    sections of that directory, merged shortest path first (a longer one's value replaces). nginx answers it
    in the server rewrite phase, with the server's list: the values are worked out from the rewritten $uri
    (the URL of the directory under the document root) right before the redirect, and sent with it only."""
    from .rewrite_handler import document_root
    if not any(_dirslash_redirect(st) for st in statements):
        return
    root = document_root(ctx, server).rstrip("/")
    carried = {name.lower() for name, _ in _headers(ctx, server)}     # the <Location> ones: carried already
    named: dict[str, tuple[str, list]] = {}
    scopes = [s for s in header_scopes(ctx, server, ("directory",)) if not s.regex and s.fs_path is not None]
    for scope in sorted(scopes, key=lambda s: len(s.fs_path.rstrip("/"))):
        path = scope.fs_path.rstrip("/")
        if path != root and not path.startswith(root + "/"):
            continue
        prefix = path[len(root):]
        for st in scope.statements:
            if st.name != "add_header" or len(st.args) < 3 or st.args[-1] != "always" or _gated(ctx, st.args[1]):
                continue
            if st.args[0].lower() in carried:
                continue
            regex = "^" + re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", prefix) + "(/|$)" if prefix else "^/"
            named.setdefault(st.args[0].lower(), (st.args[0], []))[1].append((regex, st.args[1], scope.span))
    if not named:
        return
    init: list[Stmt] = []
    regions: list[Stmt] = []
    copies: list[Stmt] = []
    for name, values in named.values():
        region, sent = _carried_variables(ctx)
        init.append(Stmt("set", [sent, ""], None))
        regions.append(Stmt("set", [region, ""], None))
        for regex, value, span in values:
            regions.append(Stmt("if", [f"($uri ~ {_quote_regex(regex)})"], span,
                                block=[Stmt("set", [region, value], span)],
                                comment=f"{name}: mod_dir's redirect carries the directory's Header always lines"))
        copies.append(Stmt("set", [sent, region], None))
        server.own_statements.append(Stmt("add_header", [name, sent, "always"], values[-1][2],
                                          comment="on mod_dir's redirect of a rewritten directory"))
    out: list[Stmt] = list(init)
    previous = False        # the redirect's `if`s stand together (slash_redirect): the values are worked out once
    for st in statements:
        redirect = _dirslash_redirect(st)
        if redirect and not previous:
            out.extend(Stmt(r.name, list(r.args), r.span, r.comment,
                            [Stmt(b.name, list(b.args), b.span) for b in r.block] if r.block else None)
                       for r in regions)
        if redirect:
            at = next(n for n, b in enumerate(st.block) if b.name in ("return", "rewrite"))
            st.block[at:at] = [Stmt(c.name, list(c.args), st.span) for c in copies]
        previous = redirect
        out.append(st)
    statements[:] = out


# a character that ends the literal start of a substitution: a back-reference, a variable, a query
_SUBSTITUTION_END = re.compile(r"[$%?\\]")


def _result_prefixes(rules, prefix: str) -> list[tuple[str, bool]] | None:
    """The literal URL prefixes (with False: case matters) the internal rewrites among RULES, per-directory
    rules of the URL PREFIX, may lead to (None: any URL). A redirect ([R], an absolute URL), a proxied rule
    ([P]) and `-` lead to no other section of the server."""
    out = []
    for rule in rules:
        target = rule.substitution
        if target == "-" or "R" in rule.flags or "P" in rule.flags or re.match(r"[a-z][a-z0-9+.-]*://", target, re.I):
            continue
        literal = _SUBSTITUTION_END.split(target, 1)[0]
        if not literal.startswith("/"):
            literal = prefix + literal          # relative to the directory (no RewriteBase: its URL)
        if literal == "/":
            return None
        out.append((literal, False))
    return out


# the comment on a header line the refusal standing for per-directory rules carries from a section they may
# rewrite to (refused_directory_headers; emit.inherit sends it once beside the refused location's own line)
TARGET_HEADER = "also on the refusal (a section its rules may rewrite to)"


def refused_directory_headers(ctx, server: Server, rules, prefix: str) -> list[Stmt]:
    """The headers of the <Location> sections the per-directory RULES of the URL PREFIX may rewrite a
    request to, sent on the 403 that stands for those rules where they are left out (A2N838). httpd's
    per-directory rewrite ends in an internal redirect (ap_internal_redirect, mod_rewrite's fixup handler)
    whose new request merges the sections of the rewritten URL: the answer carries their Header lines (an
    `X-Frame-Options DENY` of <Location /old/> on `GET /private/` rewritten to /old/). Each value is the one
    httpd sends on a success; a security header is never to be lost, and a header too many on the 403 is
    the refusal's own difference. Where the rules' patterns and substitutions are plain enough, a line is
    sent only where a rule rewrites the request (or a directory's index file) into its section, and there it
    replaces an enclosing line its section's `Header set` replaces: elsewhere httpd answers without that
    section (the enclosing X-Frame-Options DENY, not a rewrite target's SAMEORIGIN)."""
    urls = _result_prefixes(rules, prefix)
    if urls == []:
        return []

    def ungated(value: str) -> str:
        return ctx.model.onsuccess_ungated[value] if _gated(ctx, value) else value

    out: list[Stmt] = []
    taken: set[tuple[str, str]] = set()
    where = _rewritten_urls(rules, prefix)
    results = _rewritten_results(rules, prefix) if where is not None else None
    scopes = [scope for scope in header_scopes(ctx, server) if _may_hold(scope, urls)] + \
        _result_file_sections(ctx, server, rules, prefix, urls)
    for scope in scopes:
        region = _scope_region(ctx, server, scope) if results else None
        for st in _section_lines(ctx, scope, ungated):
            if st.name != "add_header" or len(st.args) < 2:
                continue
            value = st.args[1]
            if (st.args[0].lower(), value, region) in taken:
                continue
            taken.add((st.args[0].lower(), value, region))
            if region is not None:
                # sent where a rule rewrites the request into the section only
                result = ctx.model.shared_map("a2n_rwurl_", _seen_uri(ctx, where), results, '""')
                value = ctx.model.shared_map("a2n_rwdir_", result, [(region, value)], '""', st.span)
            elif where is not None:
                # sent where a rule may rewrite the request only
                value = ctx.model.shared_map("a2n_rwdir_", _seen_uri(ctx, where), [(where, value)], '""', st.span)
            # (there it replaces an enclosing line of the header as the section's `Header set` does:
            # emit.inherit.header_order)
            out.append(Stmt("add_header", [st.args[0], value, "always"], st.span,
                            comment=TARGET_HEADER,
                            resets=st.resets if where is not None else None, conditional=where is not None))
    return out


def _section_lines(ctx, scope, ungated) -> list[Stmt]:
    """The header lines of SCOPE as its answer in httpd carries them, with the values httpd sends on a
    success (UNGATED): mod_headers runs a section's lines in order on one table, where a later `Header set`
    or `unset` drops the earlier lines of its header (a conditional one where its condition holds), so
    `Header set X-Frame-Options SAMEORIGIN env=!debug` then `Header set X-Frame-Options DENY` sends DENY
    alone; nginx would send each line (emit.inherit.header_order combines them as for a location's own)."""
    from ..emit.inherit import header_order
    from ..emit.render import _unless
    from .header_join import known_lines
    from .headers import _plain
    plain, known = _plain(ctx), known_lines(ctx)
    lines = []
    for st in scope.statements:
        if st.name == "add_header" and len(st.args) >= 2:
            line = copy.copy(st)
            line.args = [st.args[0], ungated(st.args[1]), *st.args[2:]]
            # the value a line sends (where its condition holds), which an append/merge after it joins to
            # (header_join.mark_plain records it for the section's own lines later)
            if id(st) in plain and plain[id(st)][1] and line.args[1] == plain[id(st)][1]:
                line.plain = plain[id(st)][1]
            elif id(st) in known and known[id(st)][1] and line.args[1].startswith("$"):
                ctx.model.header_values.setdefault(line.args[1], known[id(st)][1])
                if line.resets and line.conditional:
                    line.plain = known[id(st)][1]
            st = line
        lines.append(st)
    try:
        return header_order(lines, 0, _unless(ctx.model))
    except ValueError:
        return lines


# a substitution whose result a map can compute: literal text and the pattern's back-references
_SIMPLE_SUBSTITUTION = re.compile(r"(?:[^$%?\\{}\s;'\"]|\$[0-9])*")


def _rewritten_results(rules, prefix: str) -> list[tuple[str, str]] | None:
    """The entries of a map from $uri to the URL the first of RULES whose pattern matches it rewrites it to,
    or None where a substitution is not plain text and back-references."""
    entries = []
    for rule in rules:
        target = rule.substitution
        if not _SIMPLE_SUBSTITUTION.fullmatch(target) or "R" in rule.flags or "P" in rule.flags or target == "-":
            return None
        key = _rewritten_urls([rule], prefix)
        if key is None:
            return None
        entries.append((key, target if target.startswith("/") else prefix + target))
    return entries or None


# the flags of a rule whose result refused_rule_results follows: none changes which URL the rule rewrites to
_PLAIN_RESULT_FLAGS = {"L", "END", "NC", "QSA", "QSD", "QSL", "NE", "PT", "DPI", "E", "NS", "T", "H", "CO"}


def refused_rule_results(rules, prefix: str) -> tuple[list[tuple[str, str | None, object]], list]:
    """The per-directory RULES of the URL PREFIX, left out where the directory is refused in their place
    (A2N838), read for the layout, which sets the `SetEnvIf Request_URI` variables of the refusal again from
    their results (emit.layout._reread_env_after_rewrites): httpd's internal redirect to a rule's result runs
    the server's SetEnvIf lines again on it, and the Header lines of its answer test those values. Returns
    the entries (a map key over $uri matching the URLs a rule applies to, first match first; the URL the
    request ends on; the rule) and the rules that may redirect internally. The URL is "" where httpd answers
    on the request's own URL (a redirect, [F], [G], [P], `-` with [L]), and None where it is not known: a
    rule under conditions, one whose result later rules may rewrite again (no [L] or [END] before others),
    or a substitution other than a path and the pattern's back-references. A rule that rewrites nothing and
    goes on (`-`) adds nothing; the entries stop at one whose URLs no key can match (a negated pattern) or
    that chains, skips or starts over ([C], [S], [N])."""
    entries: list[tuple[str, str | None, object]] = []
    stopped = False
    for n, rule in enumerate(rules):
        flags = rule.flags
        key = _rewritten_urls([rule], prefix)
        stopped = stopped or key is None or any(f in flags for f in ("C", "S", "N"))
        if stopped:
            continue
        ends = any(f in flags for f in ("L", "END")) or n == len(rules) - 1
        target = rule.substitution
        if any(f in flags for f in ("R", "F", "G", "P")) or target == "-" and ends:
            entries.append((key, None if rule.conds else "", rule))
        elif target == "-":
            continue
        elif rule.conds or not ends or not target.startswith("/") or "$0" in target \
                or not _SIMPLE_SUBSTITUTION.fullmatch(target) or not set(flags) <= _PLAIN_RESULT_FLAGS:
            entries.append((key, None, rule))
        else:
            entries.append((key, target, rule))
    redirecting = [r for r in rules if r.substitution != "-" and not any(f in r.flags for f in ("R", "F", "G", "P"))]
    return entries, redirecting


def _scope_region(ctx, server: Server, scope) -> str | None:
    """A map key matching the URLs of SCOPE (a <Location> or a <Directory> with a literal path), else None."""
    from .rewrite import _directory_url
    if getattr(scope, "regex", False) or getattr(scope, "nocase", False):
        return None
    if scope.kind == "location":
        url = scope.path
    elif scope.kind == "directory" and getattr(scope, "fs_path", None):
        url = _directory_url(ctx, server, scope.fs_path)
    else:
        return None
    if not url or not url.startswith("/"):
        return None
    if url.endswith("/"):
        return "~^" + re.escape(url.rstrip("/")) + "(?:/|$)" if url != "/" else "~^/"
    return "~^" + re.escape(url) + "(?:/|$)"


def _indexed_uri(ctx) -> str:
    """The URL the per-directory rules see in mod_dir's index subrequest for a directory's URL: its index
    file (httpd's default DirectoryIndex, index.html)."""
    return "$uri" + ctx.model.shared_map("a2n_index_", "$uri", [("~/$", "index.html")], '""')


def _seen_uri(ctx, where: str) -> str:
    """The URL whose path the per-directory rules see where one rewrites (WHERE: the map key matching the
    URLs they may rewrite, _rewritten_urls): mod_rewrite's fixup runs them on the request's own path first,
    a directory's with its slash and a file's with its path info (`a.txt/` for `GET /a.txt/`); only where
    none rewrites it does mod_dir's fixup look a directory's index file up, whose subrequest runs them on
    that file (_indexed_uri). A URL ending in `/` may be a file with path info, which mod_dir declines: the
    index file's result counts there too, a header too many on the refusal being the refusal's own
    difference."""
    return ctx.model.shared_map("a2n_rwseen_", "$uri", [(where, "$uri")], _indexed_uri(ctx))


def _rewritten_urls(rules, prefix: str) -> str | None:
    """A map key matching the URLs (nginx's $uri) under PREFIX that one of the per-directory RULES may
    rewrite: httpd matches a rule's pattern against the path with the directory's prefix taken off, and a
    request no pattern matches is answered without a rewrite (with the headers of its own sections, an
    enclosing `X-Frame-Options DENY` rather than a rewrite target's SAMEORIGIN). None where a pattern is
    not read so (a negated one, an alternative at its top level): every URL may be rewritten."""
    parts, nocase = [], False
    for rule in rules:
        pattern = getattr(rule, "pattern", None)
        if not isinstance(pattern, str) or pattern.startswith("!") or alternates_at_top(pattern):
            return None
        nocase = nocase or "NC" in rule.flags
        if pattern.startswith("^"):
            parts.append(re.escape(prefix) + "(?:" + pattern[1:] + ")")
        elif "^" in pattern.replace("\\^", "").replace("[^", ""):
            return None
        else:
            parts.append(re.escape(prefix) + ".*(?:" + pattern + ")")
    if not parts:
        return None
    regex = "^(?:" + "|".join(parts) + ")"
    if re.search(r"[\s;{}'\"]", regex):
        return None     # (not a map key nginx reads as written)
    try:
        re.compile(regex)
    except re.error:
        return None
    return ("~*" if nocase else "~") + regex


def _result_file_sections(ctx, server: Server, rules, prefix: str, urls: list[tuple[str, bool]] | None) -> list:
    """The <Directory> sections (a .htaccess among them) and <Files> sections with Header lines that may
    govern the file a rewritten URL of URLS maps to through the document root: the internal redirect walks
    the directories and file sections of that file, whose Header lines httpd's answer carries (a .htaccess
    `Header set Referrer-Policy` of /private/ on `GET /blog/x/a.txt` rewritten to /private/index.html).
    Shortest directory first, then the file sections, as httpd merges them."""
    from .rewrite import _directory_url
    # the results whose whole URL is known (no back-reference): a file section's pattern is matched on it
    exact = {(rule.substitution if rule.substitution.startswith("/") else prefix + rule.substitution)
             for rule in rules if not _SUBSTITUTION_END.search(rule.substitution)}
    directories, held = [], set()
    holders = [server] if server is ctx.main else [ctx.main, server]
    for scope in (d for h in holders for d in h.settings.get("directories", [])):
        if scope.regex or scope.fs_path is None:
            continue
        url = _directory_url(ctx, server, scope.fs_path)
        if url is None:
            continue
        if urls is None or any(u.startswith(url) or url.startswith(u) or url == u + "/" for u, _ in urls):
            held.add(id(scope))
            if any(st.name == "add_header" and len(st.args) >= 2 for st in scope.statements):
                directories.append((url, scope))
    directories.sort(key=lambda pair: len(pair[0]))
    files = []
    for scope in header_scopes(ctx, server, ("files",)):
        parent = getattr(scope, "parent", None)
        if parent is not None and parent.kind == "directory" and id(parent) not in held:
            continue
        if urls is not None and scope.files_regex and all(u in exact for u, _ in urls):
            try:
                if not any(re.search(scope.files_regex, u) for u, _ in urls):
                    continue
            except re.error:
                pass
        files.append(scope)
    return [scope for _, scope in directories] + files


# ------------------------------------------------------- the <Location> ErrorDocument of a rule's own answer

# the internal locations a server-context rule's error answer is sent to (one per status and section)
RULE_ERROR_PREFIX = "/.a2n-rule-error-"


def carry_location_error_pages(ctx, server: Server, statements: list[Stmt]) -> None:
    """Answer the error statuses of the server-context rules among STATEMENTS with the ErrorDocument of the
    <Location>/<LocationMatch> sections matching the original URL. httpd merges those sections (the first
    ap_location_walk of ap_process_request_internal, server/request.c) before translate_name, and ap_die
    answers a rule's [F], [G] or [R=4xx] with the ErrorDocument in force then: the last matching section
    naming one for the status, else the server's. nginx answers the rule in its server-rewrite phase, before
    a location is chosen, where only the server's error_page applies (and error_page is not allowed in a
    server-level `if`). So which section's page applies is worked out from the original URL first (as for
    the headers, carry_proxy_headers), and each such answer becomes a rewrite to an internal location per
    section holding its error_page, which answers the status there; one holding the server's pages answers
    it where no section names a page. The internal location, without headers of its own, sends the server's
    add_header list, as the server-level answer did. A rule whose pattern cannot reach any such section keeps
    its own `return`: there $uri stays the request's, which the server's header conditions read."""
    statuses: dict[str, list[tuple[Stmt, str | None]]] = {}

    def walk(stmts: list[Stmt], pattern: str | None) -> None:
        for st in stmts:
            if (st.name == "return" and len(st.args) == 1 and st.args[0].isdigit() and int(st.args[0]) >= 400
                    and not (st.comment or "").startswith(REFUSED_RULE)):
                statuses.setdefault(st.args[0], []).append((st, pattern))
            elif st.block and st.name == "if" and pattern is None:
                test = re.fullmatch(r'\(\$uri ~ "?(\^[^"]*)"?\)', " ".join(st.args))
                walk(st.block, test.group(1) if test else "")
    walk(statements, None)
    if not statuses:
        return
    holders = [server] if server is ctx.main else [ctx.main, server]
    scopes = [sc for h in holders for sc in h.scopes if sc.kind == "location"]
    chooser: list[Stmt] = []
    for code, answers in sorted(statuses.items()):
        paging = [(sc, [st for st in sc.statements if st.name == "error_page" and code in st.args[:-1]])
                  for sc in scopes]
        paging = [(sc, pages) for sc, pages in paging if pages]
        answers = [st for st, pattern in answers
                   if not pattern or not all(_apart(pattern, _literal_start(sc)) for sc, _ in paging)]
        if not paging or not answers:
            continue
        base = f"{RULE_ERROR_PREFIX}{code}"
        select = f"$a2n_rule_error_{code}"
        chooser.append(Stmt("set", [select, base], None))
        for i, (scope, pages) in enumerate(paging, 1):
            op = "~*" if scope.nocase else "~"
            chooser.append(Stmt("if", [f"($uri {op} {_quote_regex(_region(scope))})"], scope.span,
                                block=[Stmt("set", [select, f"{base}-{i}"], scope.span)],
                                comment="the <Location> ErrorDocument of a rule's own answer"))
            server.locations.append(Location("=", f"{base}-{i}", [
                Stmt("internal", [], scope.span),
                *(Stmt("error_page", list(st.args), st.span, comment=st.comment) for st in pages),
                Stmt("return", [code], scope.span)], scope.span))
        server.locations.append(Location("=", base, [Stmt("internal", [], None), Stmt("return", [code], None)]))
        for st in answers:
            st.name, st.args = "rewrite", ["^", select, "last"]
            st.comment = ((st.comment + "; ") if st.comment else "") + \
                "httpd answers with the ErrorDocument of the <Location> sections of the original URL"
    statements[:0] = chooser
