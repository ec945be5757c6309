"""A DirectoryIndex name whose file section refuses it: the next name is tried.

mod_dir looks each DirectoryIndex name up with a subrequest that runs the access checks of the sections
matching it (mod_dir.c fixup_dir). Where a name that is not the last one is refused, httpd goes on to the
next name and serves the first one found; only where none is found does it answer the refusal, without the
refused lookup's headers (observed with httpd 2.4: `DirectoryIndex home.html index.html` under
`<Files ~ "^home\\.">` with `Require valid-user` answers a directory request without valid credentials with
its index.html, 200, and a directory holding only home.html with 401 and no WWW-Authenticate; with valid
credentials home.html is served). nginx's index module only looks for the files and redirects to the first
one found, whose location's auth_basic answers 401 with the challenge.

Where the location of such a name (a file section's regex location nested in the directory's) refuses in
its access phase alone (auth_basic's 401, allow/deny's 403), that status is sent to a named location. A
request for the file itself (not the index module's redirect from the directory, which the directory's
location marks with its own URI) gets its refusal back, with the section's headers and the challenge. The
index lookup's drops the challenge (`satisfy any` with `allow all`: nginx clears a challenge a granted access
phase follows) and goes on as mod_dir does: an internal redirect to the first later name whose file exists,
which nginx's locations check again; the refusal's status where there is none. An ErrorDocument for that
status is left to answer it (nginx takes one error_page a request).
"""
from __future__ import annotations

import re
from dataclasses import replace

from ..model import UNSET_WHEN, Location, NginxModel, Server, Stmt
from .refused_error_pages import find_location

# the statements of a file section's location that answer or redirect other than in its access phase
_NOT_PLAIN = frozenset({"error_page", "if", "return", "rewrite", "auth_request",
                        "limit_except", "try_files", "alias", "proxy_pass", "fastcgi_pass", "scgi_pass",
                        "uwsgi_pass", "grpc_pass"})
# the statements standing for the section's Header lines, which its refusal of the file itself keeps
_HEADERS = ("add_header", UNSET_WHEN)
# a name nginx's index module looks up as a file of the directory (no variable, no path)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._~-]+$")


def try_later_index_names(model: NginxModel) -> None:
    """Every server's top-level directory locations (see the module's docstring)."""
    for server in model.servers:
        for directory in list(server.locations):
            _directory(model, server, directory)


def _index_names(model: NginxModel, server: Server, loc: Location) -> list[str]:
    """The index names nginx looks up in LOC: its own `index`, the server's or the http level's."""
    main = model.main_server.statements if model.main_server is not None else []
    for holder in (loc.statements, server.statements, main):
        own = next((st for st in holder if st.name == "index"), None)
        if own is not None:
            return list(own.args)
    return ["index.html"]


def _refuses_in_access(loc: Location) -> bool:
    """Whether LOC refuses in its access phase alone (a login, address rules), nothing answering or
    redirecting in its other phases."""
    auth = next((st for st in loc.statements if st.name == "auth_basic"), None)
    if auth is not None and auth.args[:1] == ["off"]:
        return False
    return bool(_statuses(loc)) and not loc.locations and not any(st.name in _NOT_PLAIN for st in loc.statements)


def _lands_in(server: Server, directory: Location, name: str) -> Location | None:
    """The location nested in DIRECTORY that nginx picks for the index file NAME of DIRECTORY's URL."""
    chain, _ = find_location(server.locations, directory.path + name, [])
    if len(chain) >= 2 and chain[-2] is directory and any(chain[-1] is loc for loc in directory.locations):
        return chain[-1]
    return None


def _refused_names(server: Server, directory: Location, names: list[str]) -> dict[int, Location]:
    """The names but the last (by position) whose lookup nginx makes in a file section's location nested in
    DIRECTORY that refuses in its access phase alone -> that location."""
    out: dict[int, Location] = {}
    for i, name in enumerate(names[:-1]):
        section = _lands_in(server, directory, name)
        if section is not None and _refuses_in_access(section):
            out[i] = section
    return out


def _directory(model: NginxModel, server: Server, directory: Location) -> None:
    """DIRECTORY (a prefix location over a directory): its names that a file section refuses. One with header
    lines, an error page or a mapping of its own is left as it is (the named locations answer with the
    server's)."""
    if directory.modifier not in ("", "^~") or not directory.path.endswith("/") or \
            any(st.name in ("alias", "add_header", "error_page", "try_files") for st in directory.statements):
        return
    names = _index_names(model, server, directory)
    if len(names) < 2 or not all(_PLAIN_NAME.match(n) for n in names):
        return
    pages = _inherited_pages(server, model)
    refused = {i: s for i, s in _refused_names(server, directory, names).items() if _statuses(s, pages)}
    if not refused:
        return
    span = directory.span
    marker = model.new_variable("a2n_refidx_dir_")
    directory.statements.insert(0, Stmt("set", [marker, "$uri"], span,
                                        comment="the directory the index module looks its names up in"))
    for section in {id(s): s for s in refused.values()}.values():
        own = [i for i, s in refused.items() if s is section]
        _send_to_next(model, server, directory, section, marker, own, names, pages)


def _from_index(model: NginxModel, marker: str, names: list[str], own: list[int], span) -> str:
    """A map telling the index module's redirect to one of SECTION's names (OWN) from the directory whose
    URI the directory's location kept in MARKER: 1 there, empty for a request for the file itself."""
    alternatives = "|".join(re.escape(names[i]) for i in own)
    return model.shared_map("a2n_refidx_from_", f"{marker}|$uri", [(f"~^(.*)\\|\\1(?:{alternatives})$", "1")],
                            '""', span, volatile=True)


def _next_name(model: NginxModel, marker: str, refused: str, later: str, span) -> str:
    """The URI of the LATER name in the directory where nginx's index module redirected to REFUSED (empty
    elsewhere: `-f` then tests the document root, a directory)."""
    return model.shared_map("a2n_refidx_next_", f"{marker}|$uri",
                            [(f"~^(.*)\\|\\1{re.escape(refused)}$", f"$1{later}")], '""', span, volatile=True)


def _send_to_next(model: NginxModel, server: Server, directory: Location, section: Location, marker: str,
                  own: list[int], names: list[str], pages: list[Stmt]) -> None:
    """SECTION's refusals (each status its access phase answers, _statuses) sent to a pair of named
    locations: the first answers a request for the file itself as SECTION did (with its header lines), the
    second goes on to the later names of the index lookup. PAGES: the error_page lines SECTION inherits,
    which it keeps beside its own."""
    span = section.span
    inherited = [st for st in directory.statements if st.name == "root"]
    from_index = _from_index(model, marker, names, own, span)
    steps = _later_names(model, server, directory, section, marker, own, names)
    headers = [replace(st) for st in section.statements if st.name in _HEADERS]
    for code in _statuses(section, pages):
        base = model.new_variable("a2n_refidx_")[1:]
        first, then = f"@{base}", f"@{base}_next"
        section.statements.append(Stmt("error_page", [code, "=", first], span,
                                       comment="httpd tries the next DirectoryIndex name where this one is refused"))
        server.locations.append(Location("", first, inherited + headers + [
            Stmt("if", [f'({from_index} = "")'], span, block=[
                Stmt("return", [code], span, comment="a request for the file itself: its refusal")]),
            Stmt("satisfy", ["any"], span),
            Stmt("allow", ["all"], span, comment="a granted access phase drops a login's challenge, as mod_dir "
                                                 "does with the refused lookup's headers"),
            Stmt("try_files", ["", then], span)], span))
        server.locations.append(Location("", then, inherited + [replace(st, block=[replace(b) for b in st.block])
                                                              for st in steps] + [
            Stmt("return", [code], span, comment="no later name found: httpd answers the refusal")], span))
    section.statements.extend(replace(st) for st in pages)


def _statuses(section: Location, pages: list[Stmt] = ()) -> list[str]:
    """The statuses SECTION's access phase refuses with (401 for a login, 403 for an address rule) that
    none of PAGES answers (an ErrorDocument's page is left to answer the file's refusal)."""
    names = {st.name for st in section.statements}
    codes = ["401"] * ("auth_basic" in names) + ["403"] * ("deny" in names)
    return [c for c in codes if not any(c in st.args[:-1] for st in pages)]


def _later_names(model: NginxModel, server: Server, directory: Location, section: Location, marker: str,
                 own: list[int], names: list[str]) -> list[Stmt]:
    """The internal redirects to the names after each of OWN whose file exists, in order."""
    steps: list[Stmt] = []
    for i in own:
        for later in names[i + 1:]:
            if _lands_in(server, directory, later) is section:
                continue        # the same rules refuse it too
            target = _next_name(model, marker, names[i], later, section.span)
            steps.append(Stmt("if", [f"(-f $document_root{target})"], section.span, block=[
                Stmt("rewrite", ["^", target, "last"], section.span)]))
    return steps


def _inherited_pages(server: Server, model: NginxModel) -> list[Stmt]:
    """The error_page lines the file section's location inherits (from the server, else the http level),
    which its own error_page would replace."""
    for level in (list(server.own_statements) + list(server.statements),
                  model.main_server.statements if model.main_server is not None else []):
        pages = [st for st in level if st.name == "error_page"]
        if pages:
            return pages
    return []
