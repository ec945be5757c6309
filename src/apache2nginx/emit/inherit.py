"""nginx array-directive inheritance, made to behave like Apache's merging.

nginx inherits `add_header`, `proxy_set_header`, `error_page`, allow/deny and
the like into a block only when that block defines none of its own; Apache
merges the enclosing list with the inner one. So wherever a block defines a
member of such a family, the enclosing block's effective list is repeated
first. Without this, a location with one `add_header` silently loses every
security header set at server level.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import replace
from typing import Callable

from ..model import ARRAY_FAMILIES, UNSET_WHEN, Stmt
from ..passes.alias import CGI_REFUSAL
from ..passes.rewrite_compile import DIR_METHOD
from ..passes.rewrite_location_headers import REFUSED_RULE, TARGET_HEADER
from ..passes.rewrite_model import REWRITE_FILE, REWRITE_URI

_FAMILY_OF = {name: family for family in ARRAY_FAMILIES for name in family}
_ADD_HEADER = _FAMILY_OF["add_header"]


# (a conditional header's variable, a value) -> a variable that is VALUE where the first is empty, else empty
Unless = Callable[[str, str], str]


def merge(parent: list[Stmt], child: list[Stmt], unless: Unless | None = None) -> list[Stmt]:
    """The child's statements with the parent's members of every array family the child also uses."""
    used = {_FAMILY_OF[s.name] for s in child if s.name in _FAMILY_OF}
    if _ADD_HEADER not in used:
        unset = {s.resets for s in child if s.name in ("proxy_hide_header", UNSET_WHEN) and s.resets}
        if unset and any(s.name == "add_header" and s.args and _table(s) in unset for s in parent):
            # a `Header unset` of a header the parent adds: the child needs its own add_header list to lose it
            used.add(_ADD_HEADER)
    if not used:
        return _last_error_pages([s for s in child if s.name != UNSET_WHEN])
    # The parent's copies go first (Apache order: outer, then inner); exact duplicates are dropped. An
    # append/merge line is a duplicate only of a copy of its own Apache line: a parent's line with the same
    # arguments from another one (a `Header set X v` with a section's `Header append X v`) runs before it in
    # httpd, which joins the two ("v, v"; header_order writes that).
    # A child may list an Apache line again that the parent has (a location nested for overlapping file
    # sections repeats the outer section's lines, so that a later section's unset acts on them): the
    # parent's copy in the same role (its comment: not one made for a refusal's or a fallback's answer) is a
    # duplicate whatever its value, which a later line of the parent may have rewritten already (an unset's
    # gate), so it goes by the line rather than by its arguments. So does an add line (`Header add`): httpd
    # adds it next to a parent's line with the same arguments from another one (a `Header set X 1` of the
    # server and a section's `Header add X 1` send X twice).
    seen = {(s.name, tuple(s.args), s.span if s.joins or s.adds else None) for s in child}
    relisted = {(s.span, s.comment, *_table(s)) for s in child
                if s.name == "add_header" and s.args and s.span is not None}
    inherited = [s for s in parent if (_FAMILY_OF.get(s.name) in used or late_unset(s) and _ADD_HEADER in used)
                 and (s.name, tuple(s.args), None) not in seen
                 and (s.name, tuple(s.args), s.span) not in seen
                 and not (s.name == "add_header" and s.args and (s.span, s.comment, *_table(s)) in relisted)]
    merged = header_order(inherited + child, len(inherited), unless)
    if _ADD_HEADER in used and not any(s.name == "add_header" for s in merged) \
            and any(s.name == "add_header" for s in parent):
        # every inherited header was unset here: an empty value sends nothing but stops nginx's inheritance
        hidden = next(s for s in child if s.name == "proxy_hide_header" and s.resets)
        merged.append(Stmt("add_header", [hidden.args[0], ""] + (["always"] if hidden.resets[1] == "always" else []),
                           hidden.span))
    return _last_error_pages(merged)


def header_order(stmts: list[Stmt], start: int = 0, unless: Unless | None = None) -> list[Stmt]:
    """mod_headers runs a block's operations in order on one table (outer blocks first): `set` and `unset`
    drop what came before for that header and table, a conditional `set` drops it where its condition holds.
    nginx sends every add_header (and every proxy_set_header) of a block, so the earlier ones are left out,
    or made conditional on the later one's variable being empty. Only statements from START on act (those
    before are final already). A line of an <If> section (Stmt.late) acts after every other line, whichever
    block holds it (_after_late); so does the marker of an <If> section's `Header unset` (UNSET_WHEN), which
    stays in OUT for the lines after it and is left out of what is returned (effective carries it on)."""
    if not any(s.resets or s.joins for s in stmts[start:]) and not any(s.late and s.resets for s in stmts):
        return _always_first(stmts)
    out: list[Stmt | None] = [s for s in stmts[:start] if s.name != UNSET_WHEN or s.late]
    earlier: dict[tuple, list[int]] = {}
    carried: set[int] = set()       # the block's own lines carrying <Location> headers (_merged_after)
    for i, s in enumerate(out):
        key = _replaces(s) if late_unset(s) else _operand(s)
        if key is not None:
            earlier.setdefault(key, []).append(i)
    for s in stmts[start:]:
        if s.joins:
            # (httpd joins a plain line to the lines before it, never to an <If> section's, merged after it)
            places = [i for i in earlier.get(_operand(s), []) if (s.late or out[i] is None or not out[i].late)
                      and not late_unset(out[i]) and not _merged_after(i, carried, s)]
            joined = _join(out, places, s, unless) or _combine(out, places, s, unless)
            if joined is True:
                continue
            s = joined or s
        if s.name == UNSET_WHEN:
            # a conditional `Header unset`: the lines before it send nothing where its variable is set
            if unless is None:
                raise ValueError("a conditional Header unset needs `unless` to render")
            for i in earlier.get(_replaces(s), []):
                old = out[i]
                if old is not None and len(old.args) > 1 and old.args[1] and not old.late \
                        and not _merged_after(i, carried, s):
                    out[i] = Stmt("add_header", [old.args[0], unless(s.args[1], old.args[1]), *old.args[2:]],
                                  old.span, comment=old.comment)
            if s.late:
                earlier.setdefault(_replaces(s), []).append(len(out))
                out.append(s)
            continue
        key = _replaces(s)
        if key is not None:
            value = s.args[1] if s.name == "add_header" and len(s.args) > 1 else ""
            # a plain line does not act on an <If> section's before it, which httpd merges after it
            acted = [i for i in earlier.get(key, []) if (s.late or out[i] is None or not out[i].late)
                     and not _merged_after(i, carried, s)]
            if s.name == "add_header" and s.conditional and "$" in value:
                if unless is None:
                    raise ValueError("a conditional Header set needs `unless` to render")
                for i in acted:
                    old = out[i]
                    if old is not None and len(old.args) > 1 and old.args[1] and not late_unset(old):
                        out[i] = Stmt("add_header", [old.args[0], unless(value, old.args[1]), *old.args[2:]],
                                      old.span, comment=old.comment, late=old.late)
            elif not s.conditional or (s.name == "add_header" and value):
                for i in acted:
                    out[i] = None
                earlier[key] = [i for i in earlier.get(key, []) if i not in acted]
        if not s.late:
            s = _after_late(out, earlier, s, unless)
            if s is None:
                continue
        key = _operand(s)
        if key is not None:
            earlier.setdefault(key, []).append(len(out))
        if _carried(s):
            carried.add(len(out))
        out.append(s)
    return _always_first([s for s in out if s is not None and s.name != UNSET_WHEN])


def _merged_after(i: int, carried: set[int], s: Stmt) -> bool:
    """Whether the line at I is one of CARRIED, the server block's own lines carrying the <Location> headers of
    a request a server-context rule rewrote (_CARRIERS), which S, a line of the server's own, cannot act on:
    httpd merges the <Location> sections after the server's lines (and before its <If> sections' lines, which
    do act on them), so a server's `Header always set X 1 expr=...` leaves a <Location>'s `Header append X on`
    as it is (observed: both are sent with the file a rule rewrites to). A location's own lines still act on
    the copies it inherits (before START in header_order)."""
    return i in carried and not s.late


def late_unset(s: Stmt | None) -> bool:
    """Whether S is the marker of an <If> section's `Header unset` for some requests (passes.headers.
    _partial_unset), which acts on the lines of inner blocks too."""
    return s is not None and s.name == UNSET_WHEN and s.late


def _after_late(out: list[Stmt | None], earlier: dict[tuple, list[int]], s: Stmt, unless: Unless | None
                ) -> Stmt | None:
    """S, a plain line, as the lines of <If> sections before it in OUT leave it: httpd merges every expression
    section after the other sections (ap_if_walk), even one enclosed in an outer <Directory> or in the server
    (observed: a <Directory>'s `<If> Header set X on` wins over an inner <Directory>'s `Header set X other`
    where the expression holds). So an <If> line's `set` (or `unset`) of S's header replaces S: where its
    condition holds (a conditional one: S is sent only where its variable is empty), or everywhere. None
    where S is never sent. (Observed too: a server's `<Else> Header unset X` takes away a <Directory>'s plain
    `Header set X dir` where the <If> fails: its marker makes S empty there.)"""
    key = _operand(s)
    if key is None or s.name != "add_header" or len(s.args) < 2:
        return s
    for i in earlier.get(key, []):
        late = out[i]
        if late is None or not late.late or late.resets is None or _replaces(late) != key:
            continue
        value = late.args[1] if late.name == "add_header" and len(late.args) > 1 else ""
        if late.name == UNSET_WHEN:
            if unless is None:
                raise ValueError("a conditional Header unset needs `unless` to render")
            s = replace(s, args=[s.args[0], unless(late.args[1], s.args[1]), *s.args[2:]],
                        conditional=s.conditional or s.resets is not None)
        elif late.name == "add_header" and late.conditional and "$" in value:
            if unless is None:
                raise ValueError("a conditional Header set needs `unless` to render")
            s = replace(s, args=[s.args[0], unless(value, s.args[1]), *s.args[2:]],
                        conditional=s.conditional or s.resets is not None)
        elif not late.conditional or (late.name == "add_header" and value):
            return None
    return s


def _join(out: list[Stmt | None], places: list[int], s: Stmt, unless: Unless | None) -> bool | Stmt:
    """`Header append|merge` S after the lines OUT[PLACES] of the same header and table, an enclosing block's
    `set` first (a <Directory>'s, where S is of a <FilesMatch> merged after it; the server's, where S is of a
    section): httpd joins S's value to that set's with ", " (apr_table_mergen; merge: unless one of its
    comma-separated members is the value already), one header line where nginx would send two. The set's
    line takes the joined value. Where the set is a conditional one alone (env= or expr=), it takes the joined
    value where its condition holds, and S is sent only where it does not (httpd's append adds a header of
    its own where there is none): that line of S is returned. False (S stays a line of its own) where a line
    before it is not a plain one (its value is not known here) or no set starts them (a backend's own copy
    may come first)."""
    lines = [i for i in places if out[i] is not None]
    join = getattr(unless, "join", None)
    if not lines or join is None or s.plain is None:
        return False
    first = out[lines[0]]
    alone = len(lines) == 1 and first.conditional and first.plain is not None
    if first.resets is None or (not alone and any(out[i].plain is None or out[i].conditional for i in lines)):
        return False
    old = first.plain
    joined = old if s.joins == "merge" and s.plain in [t.strip() for t in old.split(",")] else f"{old}, {s.plain}"
    value = first.args[1] if alone and joined == old else join(first.args[1], old, joined, alone)
    if value is None:
        return False
    if not (alone and joined == old):
        out[lines[0]] = Stmt("add_header", [first.args[0], value, *first.args[2:]], first.span,
                             comment=f"joined with a later Header {s.joins}" + (" where its condition holds"
                                                                                   if alone else ""),
                             resets=first.resets, conditional=first.conditional, plain=joined)
    if not alone:
        return True
    return Stmt("add_header", [s.args[0], unless(first.args[1], s.args[1]), *s.args[2:]], s.span,
                comment="where the earlier Header set's condition does not hold")


def _combine(out: list[Stmt | None], places: list[int], s: Stmt, unless: Unless | None) -> bool | Stmt:
    """`Header append|merge` S after the lines OUT[PLACES] of the same header and table that _join leaves (no
    set starts them, or one is conditional), where each is a line of a known value, sent always or where its
    variable is not empty (a conditional line, or an onsuccess gate: NginxModel.header_values): a <Location>'s
    line after a <FilesMatch>'s, both conditional. httpd joins S's value to the first of them that is there
    with ", " (apr_table_mergen; merge: unless one of its comma-separated members is the value already), one
    header line, and adds a header of its own where none is; nginx would send each line. So each line takes
    a map over which of them are there: the joined value where it is the first one there and S is too, its
    own value elsewhere; S's own line is sent only where none of them is (none: a line sent always takes
    every join). False (S stays a line of its own) where a line is not known so."""
    from .render import quote
    values, value_map = getattr(unless, "values", None), getattr(unless, "map", None)
    lines = [i for i in places if out[i] is not None]
    if not lines or value_map is None or len(s.args) < 2:
        return False

    def known(st: Stmt) -> tuple[str, str | None] | None:
        """ST's value where sent, and the variable that is that value or empty (None: sent always)."""
        if st.args[1] in values:
            return values[st.args[1]], st.args[1]
        if st.plain is not None and not st.conditional and st.args[1] == st.plain:
            return st.plain, None
        return None
    own = known(s)
    found = [known(out[i]) for i in lines]
    if own is None or None in found:
        return False
    # a line sent always is always the first one there for the lines after it: they never take the join
    cut = next((k for k, (_, var) in enumerate(found) if var is None), len(found) - 1)
    lines, found = lines[:cut + 1], found[:cut + 1]
    variables = [var for _, var in found + [own]]
    for k, (i, (old, var)) in enumerate(zip(lines, found)):
        if s.joins == "merge" and own[0] in [t.strip() for t in old.split(",")]:
            continue
        where = "~^" + "0:" * k + "1:" + "[01]:" * (len(lines) - 1 - k) + "1$"
        first = out[i]
        out[i] = Stmt("add_header", [first.args[0], value_map(variables, [(where, f"{old}, {own[0]}")],
                                                              var or quote(old)), *first.args[2:]],
                      first.span, comment=f"joined with a later Header {s.joins} where both are sent",
                      resets=first.resets, conditional=first.conditional)
    if found[-1][1] is None:
        return True
    return Stmt("add_header", [s.args[0], value_map(variables, [("0:" * len(lines) + "1", own[0])], '""'),
                               *s.args[2:]], s.span, comment="where no earlier line of the header is sent")


def _always_first(stmts: list[Stmt]) -> list[Stmt]:
    """httpd sends a response's always table (err_headers_out) before its onsuccess one (headers_out):
    ap_http_header_filter overlays the first on the second (apr_table_overlay puts the overlay's entries
    first). So for one header name the `Header always` lines go before the others, which keep their order;
    nginx sends add_header lines as they are written."""
    places: dict[str, list[int]] = {}
    for i, s in enumerate(stmts):
        if s.name == "add_header" and len(s.args) > 1:
            places.setdefault(s.args[0].lower(), []).append(i)
    out = stmts
    for indexes in places.values():
        group = [stmts[i] for i in indexes]
        ordered = sorted(group, key=lambda s: _table(s)[1] != "always")
        if ordered != group:
            out = list(out) if out is stmts else out
            for i, s in zip(indexes, ordered):
                out[i] = s
    return out


def _operand(s: Stmt) -> tuple | None:
    """What a later `set`/`unset` can take away: a response header in its table, or a request header a
    RequestHeader gave the backend (proxy_set_header) or the FastCGI program (fastcgi_param)."""
    if s.name == "add_header" and s.args:
        return ("add_header", *_table(s))
    if s.resets is not None and s.name in ("proxy_set_header", "fastcgi_param"):
        return (s.name, *s.resets)
    return None


def _replaces(s: Stmt) -> tuple | None:
    """The operand S replaces (Header set/unset, RequestHeader set/unset), if any."""
    if s.resets is None:
        return None
    return ("add_header", *s.resets) if s.name in ("add_header", "proxy_hide_header", UNSET_WHEN) \
        else (s.name, *s.resets)


def _last_error_pages(stmts: list[Stmt]) -> list[Stmt]:
    """One error_page per status, the last one: httpd's ErrorDocument keeps the innermost and latest target
    for a status, while nginx uses the first error_page that names it."""
    pages = [s for s in stmts if s.name == "error_page"]
    if len(pages) < 2:
        return stmts
    taken: set[str] = set()
    keep: dict[int, Stmt | None] = {}
    for s in reversed(pages):
        codes = [a for a in s.args if a.isdigit()]
        left = [a for a in codes if a not in taken]
        taken.update(codes)
        if left == codes:
            keep[id(s)] = s
        elif left:
            copy = Stmt(s.name, left + [a for a in s.args if not a.isdigit()], s.span, comment=s.comment,
                        rereads=s.rereads)
            keep[id(s)] = copy
        else:
            keep[id(s)] = None
    out = []
    for s in stmts:
        if s.name != "error_page":
            out.append(s)
        elif keep[id(s)] is not None:
            out.append(keep[id(s)])
    return out


def _table(add_header: Stmt) -> tuple[str, str]:
    return add_header.args[0].lower(), "always" if add_header.args[-1] == "always" else "onsuccess"


def server_block(parent: list[Stmt], own: list[Stmt], statements: list[Stmt], unless: Unless | None = None,
                 ) -> tuple[list[Stmt], list[Stmt]]:
    """A server block's statements under the http-level PARENT, and what its locations inherit. OWN are the
    statements kept in the block even for Apache's main server (whose STATEMENTS are at http level already,
    so they are passed empty for it). An add_header (or another array member) among OWN stops nginx's
    inheritance of the http-level list as much as one among STATEMENTS does: the parent's copies are
    repeated then too, or the security headers set at http level are lost on every response."""
    if not any(s.name in _FAMILY_OF for s in own):
        block = own + merge(parent, statements, unless)
        return block, effective(parent, statements, unless)
    block = merge(parent, own + statements, unless)
    return block, effective(parent, own + statements, unless)


def effective(parent: list[Stmt], child: list[Stmt], unless: Unless | None = None) -> list[Stmt]:
    """What applies inside the child: its own statements plus every parent family it does not define."""
    merged = merge(parent, child, unless)
    used = {_FAMILY_OF[s.name] for s in merged if s.name in _FAMILY_OF}
    # (and the markers of the <If> sections' unsets, which act on an inner block's lines too: header_order)
    return merged + [s for s in parent if s.name in _FAMILY_OF and _FAMILY_OF[s.name] not in used] + \
        [s for s in parent + child if late_unset(s)]


def error_pages_with_headers(parent: list[Stmt], locations: list, unless: Unless | None = None) -> list:
    """LOCATIONS, with a copy of a message ErrorDocument's named location for each that sends other
    `Header always` lines than the server. httpd answers `ErrorDocument 403 "text"` with the error headers
    (the always table) of the request's own <Location>; nginx's `error_page 403 @name` answers from the named
    location, with the server's add_header list only (a location's X-Frame-Options was lost on its 403).
    Such a location names a copy holding its own add_header list (nginx adds `always` ones to errors). So does
    a refused location whose 403 the plain refusal page answers (refusal_pages), and a nested one (a file
    section's `Header always` under a directory whose .htaccess refuses with a message: its 403 is answered
    by the page the enclosing location names). So does a named location answering a status plainly in place
    of a local page httpd refuses or cannot serve (refused_error_pages, guarded_401_pages): httpd's redirected
    request fails, and ap_die answers the original request with its built-in message and that request's error
    headers (observed with httpd 2.4: a <Location>'s `Header always` lines on the 401 whose page asks for a
    login again); one standing for a page httpd may serve (`_page_`) holds the page's headers instead."""
    from .refusal_pages import REFUSED_PAGE
    named = {loc.path: loc for loc in locations if loc.path.startswith("@a2n_error_") or loc.path == REFUSED_PAGE
             or (loc.path.startswith("@a2n_status_") and "_page_" not in loc.path)}
    if not named:
        return locations
    copies: dict[tuple, object] = {}
    out = [loc if loc.path.startswith("@") else _paged(loc, parent, named, copies, {}, unless, parent)
           for loc in locations]
    return out + list(copies.values())


def _paged(loc, parent: list[Stmt], named: dict, copies: dict, inherited: dict[str, str],
           unless: Unless | None, server: list[Stmt]):
    """LOC (and the locations nested in it) with an error_page naming a copy of a message page that sends
    its own `Header always` lines, where those differ from the page's. INHERITED: status -> the page nginx
    would use in LOC without one of its own (the enclosing location's). SERVER: the server block's
    statements, which a named page inherits wherever the location naming it is nested."""
    from dataclasses import replace
    plain = effective(parent, loc.statements, unless)
    inside = plain
    if unless is not None and hasattr(unless, "ungate"):
        # a refused location's 403 carries its onsuccess headers too (refused_headers), and those of the file
        # sections nested in it: so does its page
        inside = refused_headers(inside, parent, unless.ungate, loc.locations, unless)
    headers = [s for s in inside if s.name == "add_header" and s.args and s.args[-1] == "always"]
    pages = []
    chosen = dict(inherited)
    for page in _last_error_pages([s for s in inside if s.name == "error_page"]):
        target = named.get(page.args[-1])
        if target is None:
            continue
        codes = [a for a in page.args[:-1] if a.isdigit()]
        path = _page_copy(target, headers, server, copies, unless)
        if any(inherited.get(c, target.path) != path for c in codes):
            pages.append(Stmt("error_page", page.args[:-1] + [path], page.span,
                              comment="with this location's Header always lines", rereads=page.rereads))
        chosen.update((c, path) for c in codes)
    statements = _guard_pages(loc.statements, inside, parent, named, copies, unless, server)
    nested = [_paged(i, [s for s in plain if s not in (i.not_inherited or ())], named, copies, chosen, unless,
                     server) for i in loc.locations]
    if not pages and statements is loc.statements and all(a is b for a, b in zip(nested, loc.locations)):
        return loc
    return replace(loc, statements=list(statements) + pages, locations=nested)


def _page_copy(target, headers: list[Stmt], server: list[Stmt], copies: dict, unless: Unless | None) -> str:
    """The named page TARGET, or a copy of it sending HEADERS (`Header always` lines) where TARGET sends others.
    HEADERS are the whole list already (the server's lines the location keeps, and its own in their place):
    the server's other add_header lines are not inherited by the copy (`not_inherited`), or the render would
    repeat one the location takes away under a condition (`Header always unset X "expr=..."`, whose 404 in
    httpd sends no X where the condition holds) next to the conditional copy of it."""
    from ..model import Location
    theirs = [s for s in effective(server, target.statements, unless)
              if s.name == "add_header" and s.args and s.args[-1] == "always" and not _challenge(s)]
    if [tuple(s.args) for s in theirs] == [tuple(s.args) for s in headers]:
        return target.path
    key = (target.path, tuple(tuple(s.args) for s in headers))
    copy = copies.get(key)
    if copy is None:
        copy = Location(target.modifier, f"{target.path}_{len(copies) + 1}",
                        [s for s in target.statements if s.name != "add_header" or _challenge(s)] + headers,
                        target.span, not_inherited=[s for s in server if s.name == "add_header" and s not in headers])
        copies[key] = copy
    return copy.path


def _guard_pages(stmts: list[Stmt], inside: list[Stmt], parent: list[Stmt], named: dict, copies: dict,
                 unless: Unless | None, server: list[Stmt]) -> list[Stmt]:
    """STMTS (a location's own), each `if` guard refusing some of its URLs (a <LocationMatch>'s rules nginx
    cannot check under a prefix location) given its own `error_page 403` where the location's 403 page is a
    message page: the guard's block sends the headers the refusal carries (refused_headers: the onsuccess
    ones httpd's answer there may carry, a security header among them), but nginx answers its `return 403`
    from the named page, with that page's add_header list (a Content-Security-Policy was lost on it). The
    page is a copy sending the block's `Header always` lines. INSIDE: the location's effective statements,
    the guards' blocks holding the refusal's headers, in the same order as in STMTS. A guard sending its 403
    to a named page of its own (the plain refusal, where the location's is a local page: refusal_pages) names
    such a copy in place of it. A block adding no header sends the location's list (nginx inherits it into the
    `if`), so its page is a copy sending the location's `Header always` lines: a <Directory>'s `Header always
    set X-Frame-Options`, which httpd sends on the page it serves there, was lost on the refusal's plain 403."""
    def page_for_403(block: list[Stmt]) -> Stmt | None:
        return next((p for p in reversed(_last_error_pages([s for s in block if s.name == "error_page"]))
                     if "403" in p.args[:-1]), None)

    def named_page(block: list[Stmt]) -> bool:
        own = page_for_403(block)
        return own is not None and own.args[-1] in named
    page = page_for_403(inside)
    target = named.get(page.args[-1]) if page is not None else None
    guards = [s for s in stmts if _guard(s)]
    if not guards or (target is None and not any(named_page(s.block) for s in guards)):
        return stmts
    blocks = [s.block for s in if_blocks(inside, parent, unless) if _guard(s)]
    out, k = [], 0
    for s in stmts:
        if _guard(s) and k < len(blocks):
            block, k = blocks[k], k + 1
            headers = _always_headers(block if any(b.name == "add_header" for b in block) else inside)
            own = page_for_403(s.block)
            if named_page(s.block):
                path = _page_copy(named[own.args[-1]], headers, server, copies, unless)
                if path != own.args[-1]:
                    s = Stmt("if", s.args, s.span, s.comment, [
                        Stmt("error_page", own.args[:-1] + [path], own.span, comment=own.comment,
                             rereads=own.rereads)
                        if b is own else b for b in s.block])
            elif target is not None and not any(b.name == "error_page" for b in s.block):
                path = _page_copy(target, headers, server, copies, unless)
                if path != target.path:
                    at = next(i for i, b in enumerate(s.block) if _refusal(b))
                    s = Stmt("if", s.args, s.span, s.comment, s.block[:at] + [
                        Stmt("error_page", ["403", path], page.span,
                             comment="the refusal's page sends the refusal's Header always lines",
                             rereads=page.rereads)] + s.block[at:])
        out.append(s)
    return out


def _always_headers(stmts: list[Stmt]) -> list[Stmt]:
    """The add_header lines of STMTS that nginx sends on errors too (`always`): those an error page's copy sends."""
    return [s for s in stmts if s.name == "add_header" and s.args and s.args[-1] == "always"]


def _challenge(s: Stmt) -> bool:
    """The login challenge an error page for 401 repeats (challenge_pages), or the one a plain status keeps
    (refused_error_pages): not one of the location's headers."""
    return s.name == "add_header" and s.args[:1] == ["WWW-Authenticate"]


def _refusal(s: Stmt) -> bool:
    """A `deny all` (or a rewrite-phase `return 403`) the translation wrote in place of a region it could not
    translate, not one of httpd's own refusals."""
    if s.name == "deny" and s.args == ["all"]:
        return bool(s.comment) and "refused" in s.comment
    if s.name == "auth_request":
        return bool(s.comment) and "refused" in s.comment
    return s.name == "return" and s.args == ["403"] and bool(s.comment) and "not translated" in s.comment


def _guard(s: Stmt) -> bool:
    """An `if` whose block is such a refusal, for some URLs of a location (a <LocationMatch>'s rules nginx
    cannot check under a prefix location)."""
    return s.name == "if" and bool(s.block) and any(_refusal(b) for b in s.block)


def refused_headers(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str],
                    nested: list = (), unless: Unless | None = None) -> list[Stmt]:
    """STMTS of a location the translation refuses (403 where httpd answers, likely with success), with every
    onsuccess header sent on that 403: httpd's answer there may carry it, and a security header is never to be lost
    (but one a plain `Header always` line sends too: httpd's errors carry that line alone); so is a `Header always`
    whose condition reads the response's status, and an onsuccess line's condition on the status is read as holding
    (the 403 says nothing of httpd's status: render.any_status). UNGATE: such a header's variable -> its value
    wherever httpd sends it (a KeyError for any other value). NESTED: the location's own nested locations (file
    sections): a request the refusal answers may be one httpd serves a matching file for (a directory's index:
    `GET /` is /index.html to a <FilesMatch "\\.html$">), so their headers are sent on it too; not those of a nested
    location matching exactly the URLs its section applies to (Location.exact, _answered_by_refusal), which answers
    them itself. A refusal of some URLs only (an `if` guard) gets the headers in its block, whose add_header list
    nginx uses for the 403 it answers. Where the whole server is refused over a region of static files without
    access rules of its own (_serving), the onsuccess line of a header a `Header always` line names too is sent
    where the request names a file httpd would serve (SERVED), as httpd's 200 carries both lines and its 404 the
    always line alone; a `Header always` line whose condition holds on no answer httpd makes for such a file
    (`expr=%{REQUEST_STATUS} == 404`) is sent where the request names none, and the onsuccess lines of its header
    where it names one. So are httpd's own refusals (a deny, a login) that a section the translation leaves out may
    lift (Stmt.lifted): there httpd may serve, so their 401 or 403 sends the onsuccess headers too. A <Location>
    refused for a RewriteRule left out sends each header where any reading of the `SetEnvIf Request_URI` variables
    sends it (_read_any)."""
    return _read_any(_refused_headers(stmts, parent, ungate, nested, unless), stmts, ungate)


def _refused_headers(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str],
                     nested: list = (), unless: Unless | None = None) -> list[Stmt]:
    """refused_headers, before the readings of _read_any."""
    whole = any(_refusal(s) for s in stmts)
    lifted = tuple(sorted({c for s in stmts for c in s.lifted}))
    if not whole and not lifted:
        return _guarded_headers(stmts, parent, ungate, nested, unless)
    # (a refusal after the region's own rules that a regular expression section may lift: theirs too, where
    # it applies; the refusal's own 403 in any case, but where it stands for rules refusing everyone that
    # such a section may lift: there alone, layout.Layout.access)
    own = {c for s in stmts if _refusal(s) for c in s.lifted}
    statuses = tuple(sorted((own or {"403"}) | {c for c in lifted if c.partition("?")[0] != "403"})) if whole \
        else lifted or ("403",)
    sent = _sent_on_refusal(stmts, parent, ungate, nested, unless, statuses)
    if sent is None:
        # (a guard ahead of the refusal inherits the location's list otherwise, which is the refusal's)
        return _guarded_headers(stmts, parent, ungate, nested, unless)
    return [s for s in stmts if s.name != "add_header"] + _reread(sent, [s for s in stmts if s.name == "error_page"],
                                                                  ungate)


def _read_any(out: list[Stmt], stmts: list[Stmt], ungate: Callable[[str], str]) -> list[Stmt]:
    """OUT, the statements of a location refused for a <Location>'s RewriteRule left out (a refusal in STMTS
    with Stmt.readings), with each header sent where any reading of the `SetEnvIf Request_URI` variables sends
    it: httpd's internal redirect to the rule's result (not known) sets them again on the new path, and its
    answer's Header lines (an `env=!txt` line of `Header always`) test those values, not the request's own
    path's, which nginx's refusal reads. A security header goes on more answers rather than fewer."""
    readings = next((s.readings for s in stmts if _refusal(s) and s.readings), ())
    reread = getattr(ungate, "reread", None)
    if not readings or reread is None:
        return out
    return [replace(s, args=[s.args[0], _any_reading(s.args[1], readings, reread)] + s.args[2:])
            if s.name == "add_header" and len(s.args) >= 2 else s for s in out]


def _any_reading(value: str, readings: tuple[tuple[str, str], ...], reread: Callable) -> str:
    """VALUE, sent where the request's own reading or any of READINGS (each its own) sends it."""
    for pair in readings:
        value = reread(value, (pair,))
    return value


def _guarded_headers(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str], nested: list,
                     unless: Unless | None) -> list[Stmt]:
    """STMTS with each `if` guard refusing some of their URLs (a <LocationMatch>'s rules nginx cannot check
    under this prefix location) sending the headers of a refusal (see refused_headers) in its block. The
    guard answers ahead of the location's own refusal, if any, so its headers are worked out as if that
    refusal were not there; this matters where that refusal sends no onsuccess header, as it stands for
    region rules refusing everyone (Stmt.shut_region): where the <LocationMatch> applies, httpd merges its
    rules over the region's, and they may let the request in (an AuthType without Require, answered 403 or
    500, beside a <LocationMatch>'s `Require ip`: httpd served /img/sub/ with its onsuccess Referrer-Policy,
    where nginx's 403 lost it)."""
    if not any(_guard(s) for s in stmts):
        return stmts
    sent = _sent_on_refusal([s for s in stmts if not _refusal(s)], parent, ungate, nested, unless)
    if sent is None:
        return stmts
    # (a guard's block names its own page)
    sent = _reread(sent, [b for s in stmts if _guard(s) for b in s.block if b.name == "error_page"], ungate)
    return [Stmt("if", s.args, s.span, s.comment, sent + list(s.block)) if _guard(s) else s for s in stmts]


def _reread(sent: list[Stmt], pages: list[Stmt], ungate: Callable[[str], str]) -> list[Stmt]:
    """SENT, where the refusal's 403 stands for a local ErrorDocument page's (one of PAGES), whose redirect sets
    SetEnvIf variables again on its path (refusal_pages): each header goes where either path's variables send
    it."""
    rereads = next((p.rereads for p in reversed(_last_error_pages(pages)) if "403" in p.args[:-1]), ())
    if rereads and getattr(ungate, "reread", None) is not None:
        return [replace(s, args=[s.args[0], ungate.reread(s.args[1], rereads)] + s.args[2:])
                if s.name == "add_header" and len(s.args) >= 2 else s for s in sent]
    return sent


def file_section_refusal(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str],
                         from_gate: Callable[[str], bool]) -> list[Stmt]:
    """STMTS of a file section's location that refuses requests by httpd's own rules (a `deny`: every client
    after a first `deny all`, or those its `allow` lines leave out; or a login, AuthType with Require
    valid-user, answered 401): httpd matches the section against the name its directory walk stops at, so
    under a missing directory (/missing/a.txt is seen as `missing`, /sub/.htaccess as `sub`) the section
    does not apply and httpd answers 404, where nginx, matching the URL's last name, refuses or asks for the
    login (A2N747). A `Header always` whose condition reads the status (`expr=%{REQUEST_STATUS} == 404`) is
    sent on that 403 or 401 with its value, as on the translation's own refusals: httpd's status is not known
    there, and a security header is never to be lost. The onsuccess lines are sent on that 403 or 401 too
    where a local ErrorDocument page answers the 404 (_missing_file_page)."""
    statuses = _file_section_statuses(stmts)
    # (a client an `allow` admits gets nginx's own answer, whose status the header's map reads as before)
    if not statuses or any(_refusal(s) for s in stmts):
        return stmts
    headers = [s for s in stmts if s.name == "add_header"] or [s for s in parent if s.name == "add_header"]
    paged = _local_404_page(stmts, parent)
    sent, changed = [], False
    for s in headers:
        if len(s.args) >= 3 and s.args[-1] == "always" and s.args[1].startswith("$") and not from_gate(s.args[1]):
            value = _ungated(s, ungate)
            if value is not None:
                sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, value, s.args[1], statuses), "always"],
                                 s.span, comment="also on the refusal: httpd answers 404 where a directory is missing"))
                changed = True
                continue
        missing = _missing_file_page(s, ungate, from_gate, statuses) if paged else None
        sent.append(missing or s)
        changed = changed or missing is not None
    return [s for s in stmts if s.name != "add_header"] + sent if changed else stmts


def _local_404_page(stmts: list[Stmt], parent: list[Stmt]) -> bool:
    """Whether the 404 of a location of STMTS (inheriting PARENT's error_page lines where it has none: nginx)
    is answered by a local ErrorDocument page, a URL of the server."""
    pages = [s for s in stmts if s.name == "error_page"] or [s for s in parent if s.name == "error_page"]
    page = next((p for p in reversed(_last_error_pages(pages)) if "404" in p.args[:-1]), None)
    return page is not None and page.args[-1].startswith("/")


def _missing_file_page(s: Stmt, ungate: Callable[[str], str], from_gate: Callable[[str], bool],
                       statuses: tuple[str, ...]) -> Stmt | None:
    """S, an onsuccess add_header of a file section's location refusing with STATUSES, sent on that refusal
    too where the request names no file (ungate's `served`), or None where S is no such line. Under a missing
    directory httpd's 404 is the local ErrorDocument page's answer, carrying the onsuccess headers:
    `GET /sub/.htaccess` under <FilesMatch "^\\.ht"> with `ErrorDocument 404 /errors/404.html` came with the
    server's `Header onsuccess set X-Frame-Options SAMEORIGIN`, where nginx's 403 carried none. Where the file
    exists httpd refuses it itself, with no onsuccess header (its 403 for /.htpasswd)."""
    served = getattr(ungate, "served", None)
    if served is None or len(s.args) < 2 or not s.args[1].startswith("$") or not from_gate(s.args[1]):
        return None
    value = _ungated(s, ungate)
    if value is None:
        return None
    return Stmt("add_header", [s.args[0], on_refusal(ungate, served(value, True), s.args[1], statuses), "always"],
                s.span, comment="also on the refusal: httpd answers a missing directory with its 404 page")


def _file_section_statuses(stmts: list[Stmt]) -> tuple[str, ...]:
    """The statuses a file section's own access rules in STMTS answer with: 403 for a `deny`, 401 for a
    login (`auth_basic` other than off); none where the section refuses no one."""
    statuses = []
    if any(s.name == "auth_basic" and s.args != ["off"] for s in stmts):
        statuses.append("401")
    if any(s.name == "deny" for s in stmts):
        statuses.append("403")
    return tuple(statuses)


def on_refusal(ungate: Callable[[str], str], value: str, otherwise: str, statuses: tuple[str, ...] = ("403",)) -> str:
    """VALUE on the refusal's own answer (403, or the STATUSES it answers), OTHERWISE on any other answer of
    the refused location: one nginx makes before its access phase, such as the 301 it answers for a proxied
    or FastCGI prefix location's URL without its slash (httpd's redirect there carries no onsuccess header),
    or a rewrite's redirect. UNGATE's `refusal` makes the map (the renderer's); without it, VALUE."""
    refusal = getattr(ungate, "refusal", None)
    if refusal is None or value == otherwise:
        return value
    return refusal(value, otherwise) if statuses == ("403",) else refusal(value, otherwise, statuses)


# the variable the tests of a refused open region set where the request names a file httpd would serve
SERVED = "$a2n_served"
# ... and the one they set instead where the region's own rules run first (an auth_request refusal): the
# refusal's internal location sets SERVED from it, for a request those rules let in
FILE = "$a2n_file"

_FOR_SERVED = "also on the refusal, for a file httpd serves"
_FOR_ERRORS = "also on the refusal, where the request names no file httpd serves"

# what makes a location's answer other than the static file its URL names (through the root or an alias:
# $request_filename names it either way)
_NOT_STATIC = {"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "return", "rewrite", "try_files",
               "autoindex"}

# the `return 403` standing for a refusing location's `deny all` ahead of its per-directory rewrites
# (layout.merge_into): the refusal itself, moved into the rewrite phase, not an answer of its own
ACCESS_REFUSAL = "refused before the directory's rewrites, as in httpd"


def _serving(stmts: list[Stmt], ungate: Callable[[str], str]) -> bool:
    """Whether STMTS are those of a location refused for a section the translation cannot place, over a
    region of static files without access rules of its own, or whose rules let everyone in (Stmt.open_region):
    there httpd serves the file a URL names with its handler (a success, both header tables), and answers any
    other URL with an error (404, or mod_dir's 301: the always table alone). Said by the tests SERVED reads (_served_tests).
    The `return 403` that repeats the refusal ahead of the directory's rewrite rules (ACCESS_REFUSAL) is that
    refusal, not an answer of its own: httpd's 200 for /files/ under a <Directory> with rewrite rules carried
    both header tables there too, where the refusal had sent the always line alone."""
    return getattr(ungate, "served", None) is not None and \
        any(_refusal(s) and (s.open_region or (s.rule_tests is not None and not _guarded(stmts))) for s in stmts) \
        and not any(s.name in _NOT_STATIC and not _refusal(s) and s.comment != ACCESS_REFUSAL
                    for s in _ahead_of_rules(stmts))


def _ahead_of_rules(stmts: list[Stmt]) -> list[Stmt]:
    """STMTS without the directory's rewrite rules a refusal answers ahead of (ACCESS_REFUSAL): nginx never
    runs them there."""
    at = _refusal_at(stmts)
    if at is None:
        return stmts
    return stmts[:at + 1] + [s for s in stmts[at + 1:] if s.name not in _RULE_STATEMENTS]


def _refusal_at(stmts: list[Stmt]) -> int | None:
    """The position of the `return 403` repeating a refusal ahead of the directory's rules (ACCESS_REFUSAL)."""
    return next((i for i, s in enumerate(stmts) if s.name == "return" and s.comment == ACCESS_REFUSAL), None)


# the statements a directory's rewrite rules are written as (in the rewrite phase)
_RULE_STATEMENTS = {"rewrite", "return", "set", "if", "break"}


def _guarded(stmts: list[Stmt]) -> bool:
    """Whether STMTS hold access rules that may refuse and that nginx checks in its access phase (a deny, a
    login), after the refusal's rewrite-phase 403, which answers their refusals too: a <Location> refused
    for its rewrite rules (Stmt.rule_tests) is an open region without them. An `if` answering 401 or 403
    (access rules under an <If>) is no such rule: nginx answers it ahead of the refusal, and its answer
    sends what httpd's own refusal does (_own_answer)."""
    return any(s.name in ("deny", "auth_request", "limit_except") and not _refusal(s)
               or (s.name == "auth_basic" and s.args != ["off"]) for s in stmts)


def _own_answer(s: Stmt) -> bool:
    """Whether S is an `if` answering 401 or 403 for httpd's own rules (access rules under an <If>, a
    refusal httpd makes itself), not for the translation's refusal (_guard), nor one sending headers of its
    own (a directory's index file refused as the location is, refusal_alternatives: they say what it sends)."""
    return s.name == "if" and not _guard(s) and not any(b.name == "add_header" for b in s.block or ()) and \
        any(b.name == "return" and b.args[:1] in (["401"], ["403"]) for b in s.block or ())


def _own_answers(stmts: list[Stmt]) -> list[Stmt]:
    """STMTS with SERVED emptied in each `if` answering for httpd's own rules (_own_answer) before it answers:
    httpd's own 403 (`Require ip 127.0.0.1` under an <ElseIf>, checked before the per-directory rewrite
    rules run) is an error carrying the `Header always` lines alone, where the requests it lets in get the
    handler's or the [P] backend's success with the onsuccess lines too (X-Frame-Options DENY and
    SAMEORIGIN); nginx answers that `if` first, with the location's add_header lines."""
    return [Stmt("if", s.args, s.span, s.comment, [Stmt("set", [SERVED, ""], s.span, comment="httpd refuses "
                 "here itself: its error carries no onsuccess header")] + list(s.block)) if _own_answer(s) else s
            for s in stmts]


# the statuses httpd may answer a request naming a file of an open region with (SERVED): its handler's success
# (a range's 206, a revalidation's 304), or the error of a refused section that applies there after all (a
# wildcard <Directory>'s deny or login, a .htaccess that fails)
_FILE_STATUSES = ("200", "206", "304", "401", "403", "500")


def _on_errors_only(s: Stmt, value: str | None, ungate: Callable[[str], str], from_gate) -> bool:
    """Whether S, an add_header of a refused location whose VALUE is sent on every refusal, is a `Header
    always` line whose condition reads the response's status alone and holds on none of the answers httpd
    may make for a file it finds (_FILE_STATUSES: `expr=%{REQUEST_STATUS} == 404`): httpd sends it only
    where the request names no such file. So for an onsuccess line gated so (its value where httpd sends the
    table: ungate's `gated`), which httpd sends with the ErrorDocument page of its 404 alone."""
    at_status = getattr(ungate, "at_status", None)
    if value is None or at_status is None or from_gate is None or len(s.args) < 2 or _carried(s):
        return False
    if s.args[-1] == "always" and len(s.args) >= 3 and not from_gate(s.args[1]):
        read = s.args[1]
    elif from_gate(s.args[1]) and getattr(ungate, "gated", None) is not None:
        read = ungate.gated(s.args[1])
    else:
        return False
    return all(at_status(read, status) == "" for status in _FILE_STATUSES)


def _undecided(everywhere: list[Stmt], succeeding: set[str], ungate: Callable[[str], str]) -> None:
    """Report (UNGATE's `report`, A2N884) the `Header always` lines among EVERYWHERE, whose condition reads the
    response's status and which a refusal sends on every answer, of a header whose onsuccess lines it sends
    too (SUCCEEDING): httpd's answer there is a success, carrying the onsuccess lines (and the always line
    where its condition holds on it), or an error, carrying the always line alone where it holds; the
    refusal cannot tell which, and the value it sends follows neither."""
    report = getattr(ungate, "report", None)
    for s in everywhere if report is not None else ():
        if s.args[0].lower() in succeeding:
            report(s.args[0], s.span)


def _held(stmts: list[Stmt], headers: list[Stmt], ungated: dict[int, str | None], ungate: Callable[[str], str],
          from_gate) -> dict[str, str]:
    """Header name -> the variables of the `Header always` lines among HEADERS that send it under a condition,
    on the refusal in STMTS (UNGATED: the value each line sends on it, None for such a line): httpd's errors
    carry that line alone where it holds, and no line of the header where it does not (its successes the
    onsuccess lines after it: ap_http_header_filter overlays headers_out on err_headers_out); so the refusal
    sends the onsuccess lines only where the always lines of the header send nothing, as it sends a plain
    always line alone. So in place of CGI programs (httpd's 404 where none is), and of access rules nginx
    cannot check: a 403 of httpd's own under an <If>'s `Header always set X-Frame-Options DENY` carried DENY
    alone, where nginx's refusal sent DENY and the <Location>'s onsuccess SAMEORIGIN too. Not in an open
    region, whose refusal sends the onsuccess lines where httpd serves a file (_serving), nor for the lines
    of a section the refused rules may rewrite to (TARGET_HEADER), which stand for that section's answer."""
    if from_gate is None or (_serving(stmts, ungate) and not any(_refusal(s) and s.comment == CGI_REFUSAL
                                                                 for s in stmts)):
        return {}
    refused = getattr(ungate, "refused", {})
    held: dict[str, str] = {}
    for s in headers:
        if ungated[id(s)] is None and len(s.args) >= 3 and s.args[-1] == "always" and not _carried(s) \
                and s.comment != TARGET_HEADER and _VARIABLES.fullmatch(s.args[1]) \
                and not any(from_gate(v) or v in refused for v in _VARIABLE.findall(s.args[1])):
            held[s.args[0].lower()] = held.get(s.args[0].lower(), "") + s.args[1]
    return held


def _relaying(stmts: list[Stmt]) -> bool:
    """Whether STMTS are those of a proxied location refused for a section the translation cannot place, over
    a region without access rules of its own (Stmt.open_region): there httpd answers with the backend's
    answer, as its proxy handler relays it."""
    return any(_refusal(s) and s.open_region for s in stmts) and any(s.name == "proxy_pass" for s in stmts)


def served_tests(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str],
                 index: list[str] | None = None) -> list[Stmt]:
    """STMTS of a location, with the tests that set SERVED first where one of its add_header lines (an `if`
    block's too: a directory's index file, refusal_alternatives) reads it. Where the refusal comes after the
    region's own rules (an auth_request), FILE is set in any case: the refusal's internal location reads it.
    INDEX: the `index` names in force in the location (its own, else those it inherits), if any."""
    variables = getattr(ungate, "served_variables", None) or set()

    def reads(block: list[Stmt]) -> bool:
        return any((s.name == "add_header" and len(s.args) > 1 and s.args[1] in variables)
                   or (s.name == "if" and s.block and reads(s.block)) for s in block)
    # first: nginx runs the location's rewrite-phase statements in order, and an `if` block may answer
    span = next((s.span for s in stmts if _refusal(s)), None)
    if not variables or not reads(stmts) or any(s.name == "set" and s.args[:1] == [SERVED] for s in stmts):
        after = any(_refusal(s) and s.name == "auth_request" for s in stmts)
        if after and not any(s.name == "set" and s.args[:1] in ([SERVED], [FILE]) for s in stmts):
            return [Stmt("set", [FILE, ""], span, comment="no file httpd serves here carries a header")] + stmts
        return stmts
    tests = _served_tests(stmts, parent, ungate, span, index)
    ahead: list[Stmt] = []
    if _refusal_at(stmts) is not None:
        ahead = _rule_tests_ahead(stmts)
    else:
        stmts = [Stmt("if", s.args, s.span, s.comment, _rule_answers(s.block)) if _guard(s) else s for s in stmts]
    stmts = _own_answers(stmts)
    tests += _result_tests(ahead + stmts, _index_names(stmts, parent, index), span) + ahead
    if any(s.args[:1] == [FILE] for s in tests):
        # an `if` block answering before the region's rules (a directory's index file, refusal_alternatives)
        # sends the headers of a file httpd serves, as a refusal in place of the rules did
        stmts = [Stmt("if", s.args, s.span, s.comment, [Stmt("set", [SERVED, FILE], s.span)] + s.block)
                 if s.name == "if" and s.block and reads(s.block) and any(b.name == "return" for b in s.block)
                 else s for s in stmts]
    return tests + stmts


def _rule_answers(block: list[Stmt]) -> list[Stmt]:
    """BLOCK of a guard answering 403 in place of a per-directory rewrite rule left out (REFUSED_RULE), with
    SERVED emptied before that 403: where the rule applies httpd answers with its result, not with the file
    the URL names (`RewriteRule ^(.*)\\.txt$ /files/$1 [END]` made /files/a.txt mod_dir's 301 to /files/a/,
    which carried the `Header always` line alone), so the refusal sends what it sends where the server is
    not refused: the always line alone."""
    out = []
    for s in block:
        if s.name == "return" and s.comment == REFUSED_RULE:
            out.append(_unserved(s, s.result))
        out.append(s)
    return out


def _rule_tests_ahead(stmts: list[Stmt]) -> list[Stmt]:
    """The tests emptying SERVED where one of the directory's rewrite rules applies, for STMTS whose refusal
    answers ahead of those rules (ACCESS_REFUSAL), so that nginx runs none of them: httpd runs them, and
    where one applies it answers with the rule's result (/files/a.txt made mod_dir's 301 to /files/a/ under
    `RewriteRule ^(.*)\\.txt$ /files/$1 [END]`, its always line alone), not with the file the URL names. The
    rules' variables are set as they would be (their `set` lines, and `if` blocks of `set` lines alone), each
    answering `if` block (where its `rewrite`'s regex matches too) and `rewrite` empties SERVED where it
    applies; the tests stop at a `break`, or at a `rewrite` whose regex cannot be written as an `if` test."""
    at = _refusal_at(stmts)
    out: list[Stmt] = []
    for s in stmts[at + 1:] if at is not None else ():
        if s.name == "set" or (s.name == "if" and s.block and all(b.name == "set" for b in s.block)):
            out.append(s)
        elif s.name == "if" and s.block and any(b.name in ("return", "rewrite") for b in s.block):
            sets = [b for b in s.block if b.name == "set"]
            rewrites = [b for b in s.block if b.name == "rewrite"]
            if not rewrites:
                out.append(Stmt("if", s.args, s.span, block=sets + [_unserved(s, _refused_result(s.block))]))
            elif len(rewrites) == 1 and _testable(rewrites[0]):
                # both the block's test and the rewrite's regex: nginx nests no `if`
                out += [Stmt("set", [_HIT, ""], s.span), Stmt("if", s.args, s.span, block=sets + [
                        Stmt("set", [_HIT, "1"], s.span)]),
                        Stmt("if", [f"($uri ~ {rewrites[0].args[0]})"], s.span, block=[
                            Stmt("set", [_HIT, "${" + _HIT[1:] + "}1"], s.span)]),
                        Stmt("if", [f"({_HIT} = 11)"], s.span, block=[
                            _unserved(s, _rewrite_result(rewrites[0], stmts))])]
            else:
                break
        elif s.name == "rewrite" and _testable(s):
            out.append(Stmt("if", [f"($uri ~ {s.args[0]})"], s.span, block=[_unserved(s, _rewrite_result(s, stmts))]))
        elif s.name == "return":
            out.append(_unserved(s, _refused_result([s])))
            break
        elif s.name in _RULE_STATEMENTS:
            break
    return out


# where an `if` block of the rules holds, and then where the `rewrite` in it applies too (_rule_tests_ahead)
_HIT = "$a2n_rwhit"


def _testable(s: Stmt) -> bool:
    """Whether the regex of S, a `rewrite`, can be written as an `if` test as it is."""
    return len(s.args) >= 2 and not re.search(r"[\s{};'\"]", s.args[0])


def _unserved(s: Stmt, result: str | None = None) -> Stmt:
    """SERVED as a rewrite rule's answer leaves it where S applies: empty (an error, a redirect, a result not
    known), or, for a rule whose RESULT names a file (Stmt.result), whether httpd serves that file
    (_result_tests, which reads RESULT off the statement made)."""
    if result is not None:
        return Stmt("set", [SERVED, _RESULT + f"{zlib.crc32(result.encode()):08x}"], s.span,
                    comment="a rewrite rule answers here with its result's file", result=result)
    return Stmt("set", [SERVED, ""], s.span, comment="a rewrite rule answers here, not the URL's file")


def _refused_result(block: list[Stmt]) -> str | None:
    """The result file (Stmt.result) of the 403 in BLOCK standing for a per-directory rule left out, if any."""
    return next((b.result for b in block if b.name == "return" and b.comment == REFUSED_RULE), None)


def _rewrite_result(s: Stmt, stmts: list[Stmt]) -> str | None:
    """The file the result of S, a `rewrite ... break` among the STMTS of a location, names where its target is
    a literal path: the location's static handler serves it from its root ($document_root; not under an
    alias, whose $document_root is the alias's). Another flag (a redirect, `last` into another location) or a
    target with variables: None."""
    path = s.args[1].split("?", 1)[0] if len(s.args) > 2 and s.args[2] == "break" else ""
    if not re.fullmatch(r"/[A-Za-z0-9._~/-]*", path) or any(b.name == "alias" for b in stmts):
        return None
    return "$document_root" + path


# the variable of each result file of a rewrite rule (_result_tests): "1" where httpd serves that file
_RESULT = "$a2n_rwresult"


def _result_tests(stmts: list[Stmt], names: list[str], span) -> list[Stmt]:
    """For each result file (Stmt.result) that a rewrite rule's test of SERVED in STMTS reads (_unserved), a
    variable "1" where httpd's answer with that result is its handler's success: the file exists (a directory
    result, with its slash, holds one of the index files NAMES) and the method is one the handler serves a
    file to. Under `RewriteRule ^(.*)\\.txt$ /files/home.html [END]`, httpd answered /files/a.txt with
    home.html's 200, which carried both the `Header always` line and the onsuccess one of a header (DENY,
    SAMEORIGIN); where the result is missing it answers 404, or mod_dir's 301 for a directory named without
    its slash: the always line alone."""
    results: dict[str, str] = {}

    def walk(block: list[Stmt]) -> None:
        for s in block:
            if s.name == "set" and s.args[:1] == [SERVED] and s.result is not None:
                results.setdefault(s.args[1], s.result)
            if s.block:
                walk(s.block)
    walk(stmts)
    out: list[Stmt] = []
    for variable, result in results.items():
        files = [result + n for n in names] if result.endswith("/") else [result]
        out.append(Stmt("set", [variable, ""], span, comment="httpd serves the result of a rewrite rule"))
        out += [Stmt("if", [f"(-f {f})"], span, block=[Stmt("set", [variable, "1"], span)]) for f in files]
        out.append(Stmt("if", ["($request_method !~ ^(?:GET|HEAD|POST|OPTIONS)$)"], span,
                        block=[Stmt("set", [variable, ""], span)]))
    return out


def _index_names(stmts: list[Stmt], parent: list[Stmt], inherited: list[str] | None) -> list[str]:
    """The index file names mod_dir looks up in a directory of the location of STMTS (see _served_tests)."""
    index = next((s.args for s in stmts if s.name == "index"), None) or \
        next((s.args for s in parent if s.name == "index"), None) or inherited or ["index.html"]
    return [n for n in index if n and not n.startswith("/") and "$" not in n and "/" not in n]


def _served_tests(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str], span,
                  inherited: list[str] | None = None) -> list[Stmt]:
    """SERVED set where the request names a file, or a directory (with its slash) holding an index file: the
    answers httpd's handler makes with a success in an open region (see _serving). The index names are the
    DirectoryIndex mod_dir applies to the directory: the innermost section's that sets one (mod_dir merges it
    per directory), which is the `index` nginx uses there: the location's, else the one it inherits
    (INHERITED: from the server or the http level too), else httpd's default; none for `DirectoryIndex
    disabled`, whose entry is an absolute URL. Not where the rules of a wildcard <Directory> the server is
    refused for refuse the client (_wildcard_tests)."""
    names = _index_names(stmts, parent, inherited)
    comment = "a file httpd serves here (its answer carries its onsuccess headers)"
    out = [Stmt("set", [SERVED, ""], span, comment=comment)]
    variable = SERVED
    if any(_refusal(s) and s.name == "auth_request" for s in stmts):
        # the region's rules run before the refusal: a file httpd serves to a request they let in
        variable = FILE
        out.append(Stmt("set", [FILE, ""], span))
    out.append(Stmt("if", ["(-f $request_filename)"], span, block=[Stmt("set", [variable, "1"], span)]))
    for name in names:
        out.append(Stmt("if", [f"(-f $request_filename{ungate.index_of(name)})"], span,
                        block=[Stmt("set", [variable, "1"], span)]))
    # httpd's handler (default_handler, server/core.c) answers a file with a success for GET, HEAD, POST and
    # OPTIONS only: any other method (PUT, DELETE) gets its own 405, an error with the always table alone
    out.append(Stmt("if", ["($request_method !~ ^(?:GET|HEAD|POST|OPTIONS)$)"], span,
                    block=[Stmt("set", [variable, ""], span)]))
    out.extend(_wildcard_tests(stmts, ungate, variable, span))
    rules = next((s.rule_tests for s in stmts if _refusal(s) and s.rule_tests), None)
    if rules:
        out.extend(_rule_tests(rules, names, ungate, variable, span))
    return out


# "1" where a wildcard <Directory>'s rules refuse the client under a directory it matches (_wildcard_tests)
_WILDCARD = "$a2n_wildcard"


def _wildcard_tests(stmts: list[Stmt], ungate: Callable[[str], str], variable: str, span) -> list[Stmt]:
    """The tests emptying VARIABLE (SERVED, or FILE) where a wildcard <Directory> the server is refused for
    applies to the request's file and the rules merged there refuse the client (Stmt.wildcard_gates): httpd
    answers its own 403 there, with the always table alone, not the file. The regex tests $request_filename
    in an `if`; nginx nests no `if`, so a variable carries the client's refusal (UNGATE's `geo` makes the geo
    block telling it) from the first test to the second."""
    gates = next((s.wildcard_gates for s in stmts if _refusal(s) and s.wildcard_gates), ())
    geo = getattr(ungate, "geo", None)
    if not gates or geo is None:
        return []
    out = [Stmt("set", [_WILDCARD, ""], span, comment="a wildcard <Directory>'s rules refuse the client here")]
    for regex, (entries, default), at in gates:
        # (rules refusing everyone: no address to tell, the default alone)
        out.append(Stmt("if", [f"($request_filename ~ {regex})"], at, block=[
            Stmt("set", [_WILDCARD, geo(entries, default) if entries else default], at)]))
    out.append(Stmt("if", [f"({_WILDCARD})"], span, block=[Stmt("set", [variable, ""], span)]))
    return out


def _rule_tests(rules: tuple, names: list[str], ungate: Callable[[str], str], variable: str, span) -> list[Stmt]:
    """The tests of a <Location>'s rewrite rules (Stmt.rule_tests) after those of the file httpd serves:
    where a rule applies, httpd answers with its error (VARIABLE emptied) or its [P] backend's answer (VARIABLE
    set). httpd runs the rules against the mapped path, and where none applies to a directory, against the
    index file mod_dir finds in it (the first of NAMES there), in a subrequest that skips some of them; the
    first rule that applies answers, so the tests run last to first, the index file's before the
    directory's."""
    chosen = "$a2n_rwindex"
    out = [Stmt("set", [chosen, ""], span, comment="the index file httpd's mod_dir finds, where the URL is "
                "a directory's")]
    for name in reversed(names):
        out.append(Stmt("if", [f"(-f $request_filename{ungate.index_of(name)})"], span,
                        block=[Stmt("set", [chosen, name], span)]))
    # (a condition on %{REQUEST_METHOD} reads DIR_METHOD: the request's method, GET in mod_dir's subrequest)
    places = [("$request_filename", "$uri", (), False, "$request_method"),
              (f"$request_filename{chosen}", f"$uri{chosen}", (f"({chosen})",), True, "GET")]
    applies = "$a2n_rwapply"
    for file, uri, guard, index, method in reversed(places):
        for value, conditions, subrequest in reversed(rules):
            if index and not subrequest:
                continue
            tests = list(guard) + [f"({c})" for c in conditions]
            out += [Stmt("set", [REWRITE_FILE, file], span), Stmt("set", [REWRITE_URI, uri], span),
                    Stmt("set", [applies, ""], span, comment="where the RewriteRule applies")]
            if any(DIR_METHOD in c for c in conditions):
                out.insert(len(out) - 1, Stmt("set", [DIR_METHOD, method], span))
            out += [Stmt("if", [t], span, block=[Stmt("set", [applies, "${a2n_rwapply}1"], span)]) for t in tests]
            out.append(Stmt("if", [f"({applies} = {'1' * len(tests)})"], span,
                            block=[Stmt("set", [variable, value], span)]))
    return out + _slashless_directory(variable, span)


def _slashless_directory(variable: str, span) -> list[Stmt]:
    """The tests emptying VARIABLE (SERVED) for a directory requested without its slash: httpd answers it
    with mod_dir's 301, an error carrying the `Header always` lines alone, whatever rule matches its name
    (`GET /docs/a` for the directory /docs/a under `RewriteRule ^([^/]+)/?$ http://b/rw/$1 [P]` was a 301 to
    /docs/a/ with X-Frame-Options DENY alone), where the [P] rule's test had said httpd relays the backend's
    answer. nginx nests no `if`: the directory test leaves its mark in a variable the URL is read with."""
    mark = "$a2n_rwdir"
    return [Stmt("set", [mark, ""], span, comment="mod_dir redirects a directory requested without its slash"),
            Stmt("if", ["(-d $request_filename)"], span, block=[Stmt("set", [mark, "1"], span)]),
            Stmt("set", [mark, "${" + mark[1:] + "}$uri"], span),
            Stmt("if", [f'({mark} ~ "^1.*[^/]$")'], span, block=[Stmt("set", [variable, ""], span)])]


def _sent_on_refusal(stmts: list[Stmt], parent: list[Stmt], ungate: Callable[[str], str],
                     nested: list, unless: Unless | None, statuses: tuple[str, ...] = ("403",)) -> list[Stmt] | None:
    """The add_header list of a refusal in STMTS (see refused_headers), or None when it is the location's.
    STATUSES: the refusal's answers."""
    if any(_refusal(s) and s.shut_region for s in stmts):
        return None     # the region's own rules refuse everyone: httpd's 403 (or 500) carries no onsuccess line either
    headers = [s for s in stmts if s.name == "add_header"] or [s for s in parent if s.name == "add_header"]
    # (a header a server rewrite rule's answer carries is empty everywhere else: the refusal does not send it)
    named = {s.args[0].lower() for s in headers if s.args and not _carried(s)}
    ungated = {id(s): _ungated(s, ungate) for s in headers}
    # a header a plain `Header always` line sends: httpd's own errors carry that line alone (the onsuccess
    # table is dropped on them), its successes the onsuccess line too (A2N515); the refusal is an error
    # (not an empty value: nginx sends none, it only stops the inheritance of a header httpd does not apply)
    always = {s.args[0].lower() for s in headers if ungated[id(s)] is None and len(s.args) >= 3
              and s.args[-1] == "always" and "$" not in s.args[1] and s.args[1] != ""}
    from_gate = getattr(unless, "from_gate", None)
    held = _held(stmts, headers, ungated, ungate, from_gate)
    if _relaying(stmts):
        # ... but in a proxied region, where httpd relays the backend's answer (a success carries the onsuccess
        # line too) and nginx cannot tell its status without asking it: both lines go on the refusal there,
        # as the onsuccess line of a header no `Header always` line names
        always, held = set(), {}
    serving = _serving(stmts, ungate)
    errors_only: set[int] = set()
    if serving:
        # ... except in an open region, where httpd serves the files the URLs name: there the onsuccess line
        # of a header a `Header always` line sends too (with a condition or without) goes on the refusal
        # where the request names such a file, and not on the others (httpd's 404 carries the always line
        # alone). A `Header always` line whose condition reads the status is no such onsuccess line: its
        # status says nothing of httpd's (200 or 404), so it goes on every refusal with its value, as elsewhere
        refused = getattr(ungate, "refused", {})
        twins = {s.args[0].lower() for s in headers if ungated[id(s)] is None and len(s.args) >= 3
                 and s.args[-1] == "always" and not _carried(s) and s.args[1] not in refused}
        # ... but the onsuccess lines of its header go where the request names such a file all the same (httpd's
        # other answers are errors), and where its condition holds on no answer httpd makes for a file it finds
        # (`== 404`, _on_errors_only), the line goes on the refusal where the request names no such file only
        errors_only = {id(s) for s in headers if _on_errors_only(s, ungated[id(s)], ungate, from_gate)}
        twins |= {s.args[0].lower() for s in headers if ungated[id(s)] is not None and len(s.args) >= 3
                  and s.args[-1] == "always" and not _carried(s) and from_gate is not None
                  and not from_gate(s.args[1])}
    # a line carried from a section the refused rules may rewrite to (TARGET_HEADER) that sends the value an
    # own line sends on the refusal, where the section is the location's own (or one it merges): httpd's answer,
    # rewritten or not, runs that section's lines once (mod_headers' filter, on the final request), so the
    # refusal sends the value once, not on two header lines
    targets = [(s.args[0].lower(), s.args[1]) for s in headers if s.comment == TARGET_HEADER and len(s.args) >= 2]
    sent, changed = [], False
    # the headers whose onsuccess lines the refusal sends, and the status-gated always lines it sends on every
    # answer (see _undecided)
    succeeding: set[str] = set()
    everywhere: list[Stmt] = []
    for s in headers:
        value = ungated[id(s)]
        if serving and id(s) in errors_only:
            sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, ungate.served(value, absent=True),
                                                                  s.args[1], statuses), "always"], s.span,
                             comment=_FOR_ERRORS))
            if from_gate is not None and from_gate(s.args[1]):
                succeeding.add(s.args[0].lower())     # (an onsuccess line: sent with httpd's 404 page)
            changed = True
        elif value is not None and serving and s.args[0].lower() in twins and (from_gate is None or from_gate(s.args[1])):
            sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, ungate.served(value), s.args[1],
                                                                  statuses), "always"], s.span,
                             comment=_FOR_SERVED))
            succeeding.add(s.args[0].lower())
            changed = True
        elif _carried(s) and getattr(ungate, "carried", lambda _: None)(s.args[1]):
            # a header a server rewrite rule carries from the original URL's sections to the file it rewrites
            # to: httpd serves that file with its onsuccess values, which the refusal standing there sends
            sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, ungate.carried(s.args[1]), s.args[1],
                                                                  statuses), "always"], s.span,
                             comment="also on the refusal, as httpd serves the rewritten file"))
            changed = True
        elif value is None or s.args[0].lower() in always:
            sent.append(s)
        else:
            if s.args[0].lower() in held and unless is not None:
                value = unless(held[s.args[0].lower()], value)
            if (s.args[0].lower(), value) in targets:
                targets.remove((s.args[0].lower(), value))
                sent.append(s)
                continue
            sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, value, s.args[1], statuses), "always"],
                             s.span, comment="also on the refusal"))
            if from_gate is not None and not from_gate(s.args[1]):
                everywhere.append(s)
            else:
                succeeding.add(s.args[0].lower())
            changed = True
    _undecided(everywhere, succeeding, ungate)
    taken: set[tuple[str, str]] = set()
    for inner in _answered_by_refusal(nested):
        try:
            # the section's own lines as httpd runs them: a later `Header set` replaces a merge/add before it
            own = header_order(list(inner.statements), 0, unless)
        except ValueError:
            own = inner.statements
        for s in own:
            if s.name != "add_header" or len(s.args) < 2 or s.args[0].lower() in named or _carried(s):
                continue
            try:
                value = ungate(s.args[1])
            except KeyError:
                value = s.args[1]
            if (s.args[0].lower(), value) in taken:
                continue        # another section's same header and value: one answer carries it once
            taken.add((s.args[0].lower(), value))
            sent.append(Stmt("add_header", [s.args[0], on_refusal(ungate, value, '""', statuses), "always"], s.span,
                             comment="also on the refusal (a file section under it)"))
            changed = True
    return sent if changed else None


def _answered_by_refusal(nested: list) -> list:
    """The locations of NESTED (at any depth) whose URLs a refusal of the enclosing location may answer: not
    a location matching exactly the URLs its section applies to (Location.exact), nor those under it. An
    AliasMatch's nested location for a directory below its target matches where the capture leads into that
    directory, and nginx picks it there before the enclosing location's refusal could answer: httpd sends
    that directory's headers on those files only, not on the AliasMatch's other files."""
    out, queue = [], [loc for loc in nested if not loc.exact]
    while queue:
        loc = queue.pop(0)
        out.append(loc)
        queue.extend(inner for inner in loc.locations if not inner.exact)
    return out


# the variables of the headers a server-context rewrite rule's own answer carries (passes/
# rewrite_location_headers): set right before the rule answers, empty on every other answer
_CARRIERS = ("$a2n_rwhdr", "$a2n_rwloc")


# an add_header value made of variables alone (a conditional line's map): empty where none of them sends one
_VARIABLES = re.compile(r"(?:\$\w+|\$\{\w+\})+")
_VARIABLE = re.compile(r"\$\w+|\$\{\w+\}")


def _carried(s: Stmt) -> bool:
    return len(s.args) >= 2 and s.args[1].startswith(_CARRIERS)


def _ungated(s: Stmt, ungate: Callable[[str], str]) -> str | None:
    """The value an onsuccess add_header S sends wherever httpd sends it, or None for any other line."""
    try:
        return ungate(s.args[1]) if len(s.args) >= 2 else None
    except KeyError:
        return None


def if_blocks(stmts: list[Stmt], parent: list[Stmt], unless: Unless | None = None) -> list[Stmt]:
    """STMTS of a location, with the location's add_header list first in every `if` block that adds a header
    of its own: such a block inherits none of the location's (nginx), so its answer (a 401 with its challenge)
    lost every header the location and the server send, `always` security headers among them."""
    if not any(s.name == "if" and s.block and any(b.name == "add_header" for b in s.block) for s in stmts):
        return stmts
    outer = [s for s in stmts if s.name == "add_header"] or [s for s in parent if s.name == "add_header"]
    if not outer:
        return stmts
    out = []
    for s in stmts:
        if s.name == "if" and s.block and any(b.name == "add_header" for b in s.block):
            # a header the block sends already (a refusal's own copy, see refused_headers) is not repeated
            own = {b.args[0].lower() for b in s.block if b.name == "add_header" and b.args}
            s = Stmt("if", s.args, s.span, s.comment,
                     merge([h for h in outer if h.args and h.args[0].lower() not in own], list(s.block), unless))
        out.append(s)
    return out


# the comment of the refusal standing for httpd's 500 where a .htaccess fails to parse (passes/access.py)
_FAILS_EARLY = "httpd answers 500: "


def _fails_early(stmts: list[Stmt]) -> bool:
    """A location every request of which httpd answers 500 before its sections apply: a .htaccess httpd
    refuses (AllowOverride) fails the directory walk in map_to_storage, and ap_process_request_internal
    (server/request.c) returns before its second location walk, with r->per_dir_config left at the
    server's defaults (lookup_defaults)."""
    return any(s.name == "deny" and s.args == ["all"] and (s.comment or "").startswith(_FAILS_EARLY) for s in stmts)


def _redirects_first(stmts: list[Stmt]) -> bool:
    """A location answering every request it takes with a redirect (`return 3xx`: a server's Redirect or
    RedirectMatch, placed as a location of its own). mod_alias redirects in translate_name, before the
    directory walk where a .htaccess fails (ap_process_request_internal, server/request.c): the failure never
    happens there, and ap_die answers the redirect with the configuration the first location walk merged, so
    the <Location> sections' `Header always` lines apply. nginx's return runs in the rewrite phase, before the
    refusal's access phase, and sends the location's add_header list."""
    return any(s.name == "return" and s.args and s.args[0].isdigit() and 300 <= int(s.args[0]) < 400
               for s in stmts)


def early_failures(locations: list, failing: bool = False, parent: list[Stmt] = (), above: tuple = ()) -> list:
    """LOCATIONS, where one httpd answers 500 before its sections apply (see _fails_early), and every location
    nested in it, sends none of its own headers: httpd's error response carries the server's `Header always`
    lines only (mod_headers reads the server's configuration then), none of a <Location>, <Directory> or file
    section's. Without an add_header of its own the location inherits the server's list, as httpd does; but
    not the server's lines carrying the <Location> headers of a request a server-context rule rewrites
    (_CARRIERS, set by the rule): ap_process_request_internal (server/request.c) resets r->per_dir_config to
    the server's defaults after translate_name, so the <Location> sections the first walk merged for the
    original URL are gone when the directory walk fails. A Redirect's or RedirectMatch's location keeps its
    headers (_redirects_first): httpd answers it before the walk. So does a regex location nested in the
    failing region for an AliasMatch (_mapped_away): its URLs are mapped elsewhere in translate_name, the
    failing directory's walk never happens for them; its guard refusing the captures mapped under a failing
    .htaccess answers as httpd's 500 does (_failing_guards). PARENT: the add_header list the locations inherit;
    ABOVE: the header names the enclosing locations add."""
    blank = [Stmt("add_header", [s.args[0], "", "always"], None, resets=(s.args[0].lower(), "always"),
                  comment="httpd's 500 for a failing .htaccess drops the <Location> headers of a rewritten URL")
             for s in parent if s.name == "add_header" and _carried(s)
             # (not a header the server sends too: the blank line would take that one away as well)
             and not any(t.name == "add_header" and t.args and t.args[0].lower() == s.args[0].lower()
                         and not _carried(t) for t in parent)]
    out, changed = [], False
    for loc in locations:
        names = above + tuple(s.args[0] for s in loc.statements if s.name == "add_header" and s.args)
        fails = (failing and not _mapped_away(loc)) or _fails_early(loc.statements)
        inner = early_failures(loc.locations, fails, parent, names) if loc.locations else loc.locations
        fails = fails and not _redirects_first(loc.statements)
        guarded = _failing_guards(loc.statements, parent, names)
        if not fails and inner is loc.locations and guarded is loc.statements:
            out.append(loc)
            continue
        statements = [s for s in loc.statements if s.name != "add_header"] + blank if fails else guarded
        out.append(replace(loc, statements=statements, locations=inner))
        changed = True
    return out if changed else locations


def _mapped_away(loc) -> bool:
    """LOC is nested in a failing region for URLs httpd maps elsewhere before any section applies (an
    AliasMatch, emit.layout._detach_from_region: the region's refusal is among the statements it does not
    inherit). mod_alias maps them in translate_name, so the directory walk that fails on the region's
    .htaccess is the alias target's, not the region's: httpd answers them with the <Location> headers (a
    `Header always set X-Frame-Options` on the 404 of a missing target, observed), where nginx's copy of the
    region's failure sent the server's alone. A target under a failing .htaccess is refused by LOC's own
    guard (emit.layout, a2n_alias_dir_)."""
    return _fails_early(loc.not_inherited or [])


def _failing_guard(s: Stmt) -> bool:
    """An `if` refusing the captures of an AliasMatch whose target lies under a .htaccess httpd refuses
    (emit.layout.FAILING_ALIASED, a `return 403` marked _FAILS_EARLY)."""
    return s.name == "if" and bool(s.block) and any(
        b.name == "return" and (b.comment or "").startswith(_FAILS_EARLY) for b in s.block)


def _failing_guards(stmts: list[Stmt], parent: list[Stmt], names: tuple) -> list[Stmt]:
    """STMTS, with each _failing_guard's block sending the server's add_header list (PARENT's lines but those
    carrying a rewritten URL's <Location> headers) and no other header (an empty value for every name NAMES,
    the location's and its enclosing ones', holds): the directory walk of the aliased file reads the refused
    .htaccess and httpd answers 500 with the server's `Header always` lines alone (observed: no
    X-Frame-Options of the <Location> covering the URL), where nginx's `return 403` in an `if` sends the
    location's list. Where no location adds a header (nor a rewrite carries one) the block inherits the
    server's list as it is."""
    carried = tuple(s.args[0] for s in parent if s.name == "add_header" and s.args and _carried(s))
    others = {n.lower(): n for n in reversed(names + carried)}
    if not others or not any(_failing_guard(s) for s in stmts):
        return stmts
    server = [s for s in parent if s.name == "add_header" and s.args and not _carried(s)]
    sent = {s.args[0].lower() for s in server}
    blank = [Stmt("add_header", [n, "", "always"], None, resets=(low, "always"),
                  comment="httpd's 500 for a failing .htaccess drops the <Location> headers")
             for low, n in others.items() if low not in sent]
    return [replace(s, block=server + blank + [b for b in s.block if b.name != "add_header"])
            if _failing_guard(s) else s for s in stmts]
