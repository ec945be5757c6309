"""The header lists a refused location's 403 takes for the URLs httpd answers with another section's lines.

A location the translation refuses answers 403 where httpd may serve, with the headers of its own sections
(emit.inherit.refused_headers): a security header httpd's answer carries is never to be lost. For two kinds
of its URLs, httpd's answer carries the Header lines of other sections, merged in httpd's order:

- a directory URL (ending with `/`): mod_dir serves the index file through an internal redirect to
  DIR/index.html (mod_dir.c, fixup_dir), whose answer carries the lines of the file sections matching that
  name merged after the directory's: a server's `Header set X-Frame-Options DENY` and a
  <FilesMatch "\\.html$">'s `Header add X-Frame-Options SAMEORIGIN` both come on `GET /dir/`;
- a URL a per-directory rule rewrites internally: mod_rewrite's fixup hands the request to its redirect
  handler, whose ap_internal_redirect walks the <Location>, <Directory> and file sections of the rewritten
  URL again; the answer carries their lines (none of the first URL's: its header filter stays with the
  request left behind).

nginx sends one add_header list per block. The refusal gets, for those URLs, the list of the nginx location
that answers the index file or the rewritten URL, through an `if` on the URL placed before the refusal, which
answers the refusal's 403 itself with the block's add_header list (emit.inherit.if_blocks completes it with
the location's other headers). Where an error page answers the location's 403s (the refusal's own plain page,
a message ErrorDocument: both named locations, see refusal_pages), nginx would answer the `if`'s 403 from
that named location too, with its add_header list, not the block's: the block names a copy of it that holds
the block's list.
"""
from __future__ import annotations

import re
from typing import Callable

from ..model import Location, Stmt
from ..passes.rewrite_compile import _quote_regex
from .inherit import Unless, _carried, _refusal, effective, merge, refused_headers

# the comment of the refusal in the `if` of a URL whose httpd answer carries another list than the refusal's
GUARDED = "refused as the location is"
# the answers of a rewrite that are no internal redirect: the client is sent elsewhere
_EXTERNAL = ("redirect", "permanent")
# where a substitution's literal start ends: a back-reference, a variable
_DYNAMIC = re.compile(r"[$]")


class Alternatives:
    """The server's prefix locations and the list they inherit (PARENT), for the refusals of its locations."""

    def __init__(self, parent: list[Stmt], locations: list[Location], unless: Unless,
                 pages: list[Location] | None = None):
        self.parent = parent
        self.locations = [loc for loc in locations if loc.modifier in ("", "^~", "=")]
        self.unless = unless
        # the named locations that answer error pages (PAGES: the server's locations with the copies made for
        # their headers, emit.inherit.error_pages_with_headers)
        self.named = {loc.path: loc for loc in (locations if pages is None else pages)
                      if loc.modifier == "" and loc.path.startswith("@")}
        self.copies: dict[tuple, Location] = {}     # (named location, add_header list) -> its copy

    def answered(self, stmts: list[Stmt], inherited: list[Stmt]) -> list[Stmt]:
        """STMTS (a location's, rendered) with an `error_page 403` in each `if` added here whose 403 an
        error page of the location would answer from a named location: to a copy of that location with the
        block's add_header list (nginx sends the list of the location that answers)."""
        guards = [s for s in stmts if s.name == "if" and s.block and
                  any(b.name == "return" and b.comment == GUARDED for b in s.block)]
        if not guards:
            return stmts
        pages = [s for s in stmts if s.name == "error_page"] or [s for s in inherited if s.name == "error_page"]
        page = next((p for p in reversed(pages) if "403" in p.args[:-1]), None)
        target = self.named.get(page.args[-1]) if page is not None else None
        if target is None:
            return stmts
        out = []
        for s in stmts:
            if any(s is g for g in guards):
                headers = [b for b in s.block if b.name == "add_header"]
                key = (target.path, tuple(tuple(h.args) for h in headers))
                copy = self.copies.get(key)
                if copy is None:
                    copy = Location(target.modifier, f"{target.path}_rewritten_{len(self.copies) + 1}",
                                    [b for b in target.statements if b.name != "add_header"] + headers,
                                    target.span)
                    self.copies[key] = copy
                s = Stmt("if", s.args, s.span, s.comment, list(s.block) + [
                    Stmt("error_page", ["403", copy.path], s.span, comment="with this block's headers")])
            out.append(s)
        return out

    def add(self, stmts: list[Stmt], loc: Location, inherited: list[Stmt], outer: list[Stmt] = ()) -> list[Stmt]:
        """STMTS (LOC's merged statements, refused_headers applied; INHERITED: what LOC inherits) with an
        `if` first for each kind of URL whose httpd answer carries another list than the refusal's. OUTER:
        the statements of the location LOC is nested in, whose per-directory rules httpd applies to LOC's
        URLs too (a refused file section's location holds no copy of them)."""
        if not any(_refusal(s) for s in stmts):
            return stmts
        # (compared as sent on the refusal's 403: a refusal's header is a map over the status, inherit.on_refusal)
        own = [tuple(self._at_refusal(s.args)) for s in stmts if s.name == "add_header"]
        guards: list[Stmt] = []
        seen: set[tuple] = set()

        def guard(condition: str, headers: list[Stmt], span, comment: str) -> None:
            key = tuple(tuple(s.args) for s in headers)
            if not headers or list(key) == own or (condition, key) in seen:
                return
            seen.add((condition, key))
            guards.append(Stmt("if", [f"($uri ~ {_quote_regex(condition)})"], span, comment,
                               [Stmt("return", ["403"], span, comment=GUARDED)]
                               + [Stmt(s.name, list(s.args), s.span, s.comment) for s in headers]))

        index = self._index_headers(loc, inherited)
        if index is not None:
            guard("/$", index, loc.span, "a directory's index file: its file section's headers")
        for rule in _internal_rewrites(stmts) or _internal_rewrites(list(outer)):
            target = self._target_headers(rule.args[1], loc)
            if target is not None:
                guard(rule.args[0], target, rule.span, "the rule rewrites to another location: its headers")
        if not guards:
            return stmts
        at = _settings_ahead(stmts)
        return stmts[:at] + guards + stmts[at:]

    # ------------------------------------------------------------------------------------------------

    def _sent(self, statements: list[Stmt]) -> list[Stmt]:
        """STATEMENTS' add_header lines as httpd's served answer carries them: every value ungated, `always`."""
        out = []
        for s in statements:
            if s.name != "add_header" or len(s.args) < 2 or _carried(s):
                continue
            value = _ungated(self._at_refusal(s.args)[1], self.unless.ungate)
            if not value:
                continue
            out.append(Stmt("add_header", [s.args[0], value, "always"], s.span, s.comment))
        return out

    def _at_refusal(self, args: list[str]) -> list[str]:
        """An add_header's ARGS with the value a refusal's map over the status gives on its 403."""
        refused = getattr(self.unless.ungate, "refused", {})
        if len(args) < 2 or args[1] not in refused:
            return args
        return [args[0], refused[args[1]], *args[2:]]

    def _index_headers(self, loc: Location, inherited: list[Stmt]) -> list[Stmt] | None:
        """The headers of the nested file section's location nginx answers LOC's index file from, if any
        (the innermost one matching the index file's URL: _answering)."""
        if loc.modifier not in ("", "^~") or not loc.locations:
            return None
        base = loc.path if loc.path.endswith("/") else loc.path + "/"
        inside = effective(inherited, loc.statements, self.unless)
        # (httpd serves the first of the names that exists: the first is the one the translation follows)
        for name in _index_names(loc.statements, inherited)[:1]:
            found = _answering(loc.locations, base + name, inside, self.unless)
            if found is not None:
                inner, outer = found
                answered = refused_headers(merge(outer, inner.statements, self.unless), outer,
                                           self.unless.ungate, inner.locations, self.unless)
                return self._sent(answered)
        return None

    def _target_headers(self, target: str, loc: Location) -> list[Stmt] | None:
        """The headers of the location(s) nginx serves a rewrite's TARGET from (several: each value once),
        or None where that is LOC itself or no prefix location of the server is known to hold it."""
        path = target.split("?", 1)[0]
        if not path.startswith("/"):
            return None
        literal = _DYNAMIC.split(path, 1)[0]
        holders = _holders(self.locations, literal, literal == path, self.parent, self.unless)
        if not holders or all(h is loc for h, _ in holders):
            return None
        out: list[Stmt] = []
        taken: set[tuple] = set()
        for holder, inherited in holders:
            for s in self._sent(refused_headers(merge(inherited, holder.statements, self.unless), inherited,
                                                self.unless.ungate, holder.locations, self.unless)):
                if tuple(s.args) not in taken:
                    taken.add(tuple(s.args))
                    out.append(s)
        return out


def _holders(locations: list[Location], literal: str, exact: bool, inherited: list[Stmt],
             unless: Unless) -> list[tuple[Location, list[Stmt]]]:
    """(location, what it inherits) for the prefix locations among LOCATIONS (and those nested in them) that
    may serve a URL starting with LITERAL (EXACT: the whole URL): nginx's longest match, and where the URL
    goes on past LITERAL, every longer location starting with it."""
    prefixes = [c for c in locations if c.modifier in ("", "^~", "=")]
    chosen: list[Location] = []
    if exact:
        chosen = [c for c in prefixes if c.modifier == "=" and c.path == literal][:1]
    covering = [c for c in prefixes if c.modifier != "=" and literal.startswith(c.path)]
    if not chosen and covering:
        chosen.append(max(covering, key=lambda c: len(c.path)))
    if not exact:
        chosen += [c for c in prefixes if c.path.startswith(literal) and len(c.path) > len(literal)
                   and c not in chosen]
    out: list[tuple[Location, list[Stmt]]] = []
    for c in chosen:
        inner = _holders(c.locations, literal, exact, effective(inherited, c.statements, unless), unless) \
            if any(n.modifier in ("", "^~", "=") for n in c.locations) else []
        out.extend(inner or [(c, inherited)])
    return out


def _answering(locations: list[Location], url: str, inherited: list[Stmt],
               unless: Unless) -> tuple[Location, list[Stmt]] | None:
    """(location, what it inherits) of the regex location among LOCATIONS that nginx answers URL from, or
    None: the first that matches, and within it the first of its own nested ones that matches, as deep as
    they go (ngx_http_core_find_location looks the nested locations of a matched regex location up too).
    A file section nested in another (<Files index.html> holding the lines of a <FilesMatch "\\.html$">
    that overlaps it) answers from the inner one, whose add_header list is the one nginx sends."""
    for inner in locations:
        if inner.modifier not in ("~", "~*"):
            continue
        try:
            found = re.search(inner.path, url, re.IGNORECASE if inner.modifier == "~*" else 0)
        except re.error:
            continue
        if found:
            deeper = _answering(inner.locations, url, effective(inherited, inner.statements, unless), unless)
            return deeper or (inner, inherited)
    return None


def _index_names(statements: list[Stmt], inherited: list[Stmt]) -> list[str]:
    """The index names nginx tries in the location (its own `index`, the inherited one, else index.html):
    only plain names (not a variable, not an absolute URL the translation points a refusal at)."""
    for holder in (statements, inherited):
        found = [s for s in holder if s.name == "index"]
        if found:
            return [a for a in found[-1].args if "$" not in a and not a.startswith("/")]
    return ["index.html"]


def _settings_ahead(stmts: list[Stmt]) -> int:
    """How many of STMTS, from the first, only set variables (`set`, an `if` of `set` lines alone): the
    `SetEnvIf Request_URI` variables set again as a per-directory rule's result reads them (layout's
    _reread_ahead_of_refusals), which the headers of a guard's 403 test too. A guard placed ahead of them
    answered with the values read on the request's own path: `Header onsuccess set X-Content-Type-Options
    nosniff env=!txt` was lost on a .txt URL that httpd rewrote internally to a directory index and
    answered with it."""
    n = 0
    for st in stmts:
        if not (st.name == "set" or st.name == "if" and st.block and all(b.name == "set" for b in st.block)):
            break
        n += 1
    return n


def _internal_rewrites(stmts: list[Stmt]) -> list[Stmt]:
    """The internal `rewrite`s among STMTS (at any depth of `if` blocks), in order."""
    out = []
    for s in stmts:
        if s.name == "rewrite" and len(s.args) >= 2 and not (set(s.args[2:]) & set(_EXTERNAL)) \
                and s.args[1].startswith("/"):
            out.append(s)
        elif s.block:
            out.extend(_internal_rewrites(s.block))
    return out


def _ungated(value: str, ungate: Callable[[str], str]) -> str:
    try:
        return ungate(value)
    except KeyError:
        return value
