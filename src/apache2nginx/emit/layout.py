"""Laying Apache's URL space out as nginx locations.

Apache merges every <Location> that matches a request and walks first-match
lists (ProxyPass, then Redirect, then Alias); nginx picks exactly one
location. For every URL boundary the input names (Location prefixes and the
prefixes of the server's ProxyPass/Alias/Redirect lists) this module computes
what Apache does to requests in that region, and emits it as `location = P`
plus `location ^~ P/` (never a bare `location /p`, which would also match
`/pX`):

- the statements of every <Location> covering the region, in config order;
- the handler: the last covering <Location> with its own ProxyPass, else the
  first list entry covering the region (proxy list before mod_alias's
  redirects before its aliases, as translate_name runs them). A list entry
  that never wins its own region is unreachable in Apache and is reported.
"""
from __future__ import annotations

import copy
import dataclasses
import ipaddress
import re
from fnmatch import fnmatchcase
from itertools import combinations
from typing import Callable

from ..diagnostics import Diagnostics
from ..model import UNSET_WHEN, WALK_FILE, redirects_to, Location, all_nested, every_statement, MapBlock, NginxModel, ProxyTarget, \
    Route, Scope, Server, Stmt, routes_in_force, read_literally, written_literally
from ..passes.access import AUTHZ_MISSING, BASIC_WITHOUT_NAME, USER_WITHOUT_AUTH, AccessConfig, \
    _grants, access_statements, asks_login, directory_slash_statements, fails_authn, fnmatch_regex, merge, \
    options_statements, refuses_all as _refuses_all, server_conditionals
from ..passes.access_cond import KEPT_FROM, KEPT_URI, Conditions
from ..passes.rewrite_model import ALIAS_REFUSAL, DIRECTORY_REFUSAL, LOCATION_REFUSAL, REDIRECTED_FROM, \
    REWRITE_REFUSALS, SYMLINKS_REFUSAL_BELOW, SYMLINKS_UNPLACED
from ..passes.fallback import FALLBACK, FALLBACK_COMMENTS, FALLBACK_DISABLED, FALLBACK_MARK, PATH_INFO_TEST, \
    UNDER_FALLBACK, merged_index
from ..passes.rewrite_compile import DOCROOT_MAP, PER_DIR_PROXY
from ..passes.rewrite_location_headers import REFUSED_RULE
from ..passes.rewrite_dirslash import DOCROOT_DIRECTORY
from ..passes.setenvif import URI_SOURCES
from .render import _unless
from .refused_error_pages import find_location, serving_levels
from .inherit import _FAILS_EARLY as FAILS_EARLY, ACCESS_REFUSAL, FILE, SERVED, _fails_early
from . import dirmethods
from .rule_proxy_headers import carry_directory_proxy_headers
from ..passes import access_proxy, vhost_alias
from ..passes.alias import FCGIWRAP_SOCKET
from ..syntax.span import Span

ACCESS_NAMES = {"allow", "deny", "satisfy", "auth_basic", "auth_basic_user_file", "limit_except", "autoindex",
                "disable_symlinks"}

# the comments of the rewrite-phase checks access_statements makes (part of a region's access rules)
ACCESS_IF_COMMENTS = {"Require user/group", "Require env/expr", "Allow/Deny from env=", "SSLRequire",
                      "access under <If>"}

# the internal location a region of a refused server asks (auth_request) after its own rules: 403
REFUSED_AFTER_RULES = "/.a2n-refused-after-rules"
# the realm of the login a wildcard <Directory> asks for where the request's file lies under it ("off"
# elsewhere: Layout.wildcard_login_refusal)
_WILDCARD_REALM = "$a2n_wildcard_realm"

KIND_ORDER = {"proxy": 0, "proxy-exclude": 0, "proxy-unreachable": 0, "redirect": 1, "alias": 2}
# the entries whose ^~ region may hide a regex entry httpd tries first there (`_maps_under`)
_HIDES_REGEX_ROUTES = ("alias", "proxy-exclude", "redirect", "proxy", "proxy-unreachable")


def _regex_may_reach(pattern: str, fs: str) -> bool:
    """Whether the regular expression of a <Directory ~> or <DirectoryMatch> may match the file name of a
    request in the directory FS or below it (httpd matches it against the whole file name, see
    passes.access._directory_match_refusal): one anchored on a literal path that no such name starts with
    cannot; any other may."""
    if not pattern.startswith("^"):
        return True
    literal = re.match(r"[^.^$*+?()\[\]{}|\\]*", pattern[1:])[0]
    if pattern[1 + len(literal):][:1] in ("?", "*", "{"):
        literal = literal[:-1]      # (its last character may be left out)
    there = fs.rstrip("/") + "/"
    return there.startswith(literal) or literal.startswith(there)


def _no_access_rules(configs: list) -> bool:
    """Whether the sections covering a region hold no access rule (nor a login, a method or TLS section): httpd
    lets everyone through there, wherever a section the translation could not place does not apply."""
    return all(c is None or (isinstance(c, AccessConfig) and c.authz is None and not c.has_compat
                             and c.satisfy is None and not c.auth and c.refuse is None and c.ssl_only is None
                             and not c.ssl_requires and not c.conditionals and not c.limits and not c.stack)
               for c in configs)


def _grants_everyone(configs: list) -> bool:
    """Whether the access rules of the sections covering a region let every request in by themselves
    (`Require all granted`, or Require lines that reduce to it), with no host, method, TLS or expression rule
    beside them: httpd serves there with its handler (a login it asks for nowhere: no Require line needs a
    user), as in a region without access rules of its own."""
    configs = [c for c in configs if c is not None]
    if not configs or any(not isinstance(c, AccessConfig) or c.conditionals or c.limits or c.stack
                          or c.refuse is not None or c.ssl_only is not None or c.ssl_requires for c in configs):
        return False
    eff = merge(configs)
    return eff.authz is not None and not eff.compat and _grants(eff.authz)


def segment_prefix(prefix: str, path: str) -> bool:
    """Apache's prefix match with segment boundaries: `/a` covers `/a` and `/a/x`, not `/ab`."""
    if prefix == "/" or prefix == path:
        return True
    if prefix.endswith("/"):
        return path.startswith(prefix)
    return path.startswith(prefix) and path[len(prefix)] == "/"


def _handlers_off(dirs: list[Scope], covering: list[Scope]) -> tuple[str, int, object]:
    """Whether SetHandler default-handler takes the script handlers back where DIRS (the directories httpd's
    walk reaches, outermost first) and COVERING (the <Location> sections, merged after them) apply: ("all",
    index, directive) where the last SetHandler is a <Location>'s, ("mime", ...) where it is a <Directory>'s
    (mod_mime's AddHandler handlers only: <Files> sections merge after it), else ("", -1, None). SetHandler
    None takes nothing back (passes.misc._handler_off)."""
    last = None
    for i, scope in enumerate(dirs + covering):
        if scope.settings.get("handler"):
            last = (i, scope.settings["handler"])
    if last is None or last[1][0] != "default-handler":
        return ("", -1, None)
    return ("all" if last[1][1] == "location" else "mime", last[0], last[1][2])


def _files_kept(files: list[Scope], off: tuple) -> list[Scope]:
    """FILES without the script handlers SetHandler default-handler takes back (see `_handlers_off`): every
    one for a <Location>'s, AddHandler's for a <Directory>'s."""
    if off[0] == "all":
        return [f for f in files if not f.settings.get("script_alias")]
    if off[0] == "mime":
        return [f for f in files if not f.settings.get("mime_handler")]
    return files


def _variants(path: str) -> list[tuple[str, str]]:
    """(modifier, matched text) of the nginx locations for an Apache prefix."""
    if path == "/":
        return [("", "/")]
    if path.endswith("/"):
        return [("^~", path)]
    return [("=", path), ("^~", path + "/")]


def _lift_own_refusals(after: list[Stmt], gate: str) -> list[Stmt]:
    """AFTER (a region's own rules, then the refusal after them: Layout.refusal_after_rules), with the statuses
    of the rules' refusals marked on them (Stmt.lifted) where a regular expression <Directory> the server is
    refused for may lift them (Layout.regex_reaches): where it applies (GATE: Layout.lift_gate, written after
    the status as `401?GATE`), httpd may serve what nginx answers with the region's 401 or 403, so that
    answer sends the onsuccess headers too there (emit.inherit.refused_headers)."""
    for st in after[:-1]:
        st.lifted = tuple(f"{c}?{gate}" for c in _refusal_statuses([st])) or st.lifted
    return after


def _refusal_statuses(stmts: list[Stmt]) -> tuple[str, ...]:
    """The statuses access statements STMTS may refuse with: 403 (a deny, a `return 403` of an expression's
    test), 401 (a login)."""
    found: set[str] = set()
    for st in stmts:
        if st.name == "deny" or (st.name == "return" and st.args[:1] == ["403"]):
            found.add("403")
        elif (st.name == "auth_basic" and st.args != ["off"]) or (st.name == "return" and st.args[:1] == ["401"]):
            found.add("401")
        if st.block:
            found.update(_refusal_statuses(st.block))
    return tuple(sorted(found))


def _clone(st: Stmt) -> Stmt:
    """A copy of a statement that can be changed without changing the original (its args and block too)."""
    return dataclasses.replace(st, args=list(st.args),
                               block=None if st.block is None else [_clone(b) for b in st.block])


class Layout:
    def __init__(self, model: NginxModel, server: Server, diags: Diagnostics, proxy_emitter):
        self.model = model
        self.alias_refusals: dict = {}      # a section's span -> its A2N742 refusal of AliasMatch URLs
        self.server = server
        self.diags = diags
        self.proxy_emitter = proxy_emitter
        self.redirect_vars: dict[int, str] = {}
        self.redirect_answers: dict[int, list[Stmt]] = {}   # what a Redirect's locations answer with, by route
        self.named_locations = 0      # regex locations whose captures are read by name
        # a prefix location laid out here -> its region: directory configs, covering <Location>s, directories
        # and the entry serving it (where a <LocationMatch> nests into it: `guard_prefixes`)
        self.prefix_regions: dict[int, tuple] = {}
        self.region_access: dict[int, list[Stmt]] = {}     # ... and the access statements laid out there
        self.scope_order: dict[int, int] = {}
        self.nested_regex: dict[int, Scope] = {}    # a <LocationMatch>'s location nested in a prefix one
        self.regex_scopes: list[Scope] = []     # the <LocationMatch> sections, in configuration order
        self.regex_route_locations: list[Location] = []     # the server's AliasMatch-style regex locations
        self.regex_fixups: list[tuple] = []     # mod_dir's fixup for the <LocationMatch> locations (regex_dir_methods)
        self._access_memo: dict[tuple, tuple] = {}  # see `access`
        self._quiet_memo: dict[tuple, tuple] = {}   # ... its questions asked quietly (nothing reported)
        self.refused_after_rules = None     # the span of a refusal after a region's rules (REFUSED_AFTER_RULES)
        self.granting: list = []    # the rules of the <DirectoryMatch> sections left out that only grant (`lifted`)
        self.refusing_globs: list[str] = []     # the wildcards of the <Directory> sections the server is refused for
        self.refusing_regexes: list[str] = []   # ... and the regular expressions (<Directory ~>, <DirectoryMatch>)
        # ... and those whose rules refuse every client where they match (passes.access._compat_shuts)
        self.shut_regexes: list[tuple[str, Span]] = []
        # ... each wildcard with its access rules where they are addresses alone (None: other rules)
        self.wildcard_rules: list[tuple[str, AccessConfig | None, Span]] = []
        # the index lists joined with a FallbackResource -> their own names (passes.fallback.finish_server)
        self.index_names: dict | None = server.settings.get("fallback_index_names")

    def inherited(self) -> tuple[list[Scope], list[Route]]:
        """The sections and lists that apply to this server, merged with the main server's as httpd merges
        them: main-server <Location>s before the host's own, ProxyPass lists main first, mod_alias lists
        (Redirect, Alias) the host's own first."""
        server, main = self.server, self.model.main_server
        if main is None or main is server:
            return list(server.scopes), list(server.routes)
        def kind(routes: list[Route], kinds: tuple[str, ...]) -> list[Route]:
            return [r for r in routes if r.kind in kinds]
        proxies = ("proxy", "proxy-exclude", "proxy-unreachable")
        routes = (kind(main.routes, proxies) + kind(server.routes, proxies)
                  + kind(server.routes, ("redirect",)) + kind(main.routes, ("redirect",))
                  + kind(server.routes, ("alias",)) + kind(main.routes, ("alias",)))
        return list(main.scopes) + list(server.scopes), routes

    def sections(self, attr: str) -> list[Scope]:
        """<Directory> or <Files> sections that apply to this server: the main server's, then its own."""
        main = self.model.main_server
        own = self.server.settings.get(attr, [])
        if main is None or main is self.server:
            return list(own)
        return list(main.settings.get(attr, [])) + list(own)

    def wildcard_refusal(self, routes: list[Route]) -> tuple[str, object] | None:
        """A wildcard <Directory> with access rules (its own server's or the main server's) refuses the
        whole server when a directory this server serves from could match it; one none can match applies
        to no request, in httpd as in nginx (A2N773)."""
        main = self.model.main_server
        pending = list(self.server.settings.get("wildcard_refusals", []))
        if main is not None and main is not self.server:
            pending += main.settings.get("wildcard_refusals", [])
        if not pending:
            return None
        served = [target.split("$", 1)[0] for _, target in self.fs_routes(routes)]
        served += [r.target.split("$", 1)[0] for r in routes if r.regex and r.kind == "alias" and r.target]
        served += [r.target.split("$", 1)[0] for r in routes if r.kind not in ("alias", "proxy") and r.target
                   and r.target.startswith("/")]
        for glob, label, span in pending:
            fixed = re.split(r"[*?\[]", glob, maxsplit=1)[0]
            fixed = fixed[:fixed.rfind("/") + 1] or "/"
            reached = [t for t in served if not t or not t.startswith("/") or t.startswith(fixed)
                       or fixed.startswith(t.rstrip("/") + "/")]
            if reached:
                self.refusing_globs = [g for g, _, _ in pending]
                rules = dict(main.settings.get("wildcard_access", {})) if main is not None else {}
                rules.update(self.server.settings.get("wildcard_access", {}))
                self.wildcard_rules = [(g, rules.get(s), s) for g, _, s in pending]
                if span not in self.model.access_reported:
                    self.model.access_reported.add(span)
                    self.diags.add("A2N740", f"{label}: a wildcard is not translated; nothing inside it was emitted, "
                                   f"and since it holds access rules and {reached[0] or 'a served directory'} may "
                                   "lie under it, the whole server is refused (deny all)", span,
                                   directive=label.split(" ", 1)[0],
                                   hint="write the directory out as a plain path, or add the access rules by hand")
                return (f"{label} (access rules)", span)
        for glob, label, span in pending:
            key = ("A2N773", span)
            if key not in self.model.access_reported:
                self.model.access_reported.add(key)
                self.diags.add("A2N773", f"{label}: no directory the server serves from (DocumentRoot, Alias) can "
                               "match it, so it applies to no request, in httpd as in nginx; nothing was emitted",
                               span, directive=label.split(" ", 1)[0])
        return None

    def wildcard_reaches(self, fs: str) -> bool:
        """Whether a wildcard <Directory> with access rules the server is refused for may apply to the
        directory FS or to one below it: httpd merges its rules with the region's own (the <Directory>
        sections go shortest path first, in configuration order among equals; the directory walk matches a
        wildcard against the path's leading components), and they may let in what
        the region's rules alone refuse, to be served with the onsuccess headers. The region's own rules
        then tell nothing for certain: its refusal stands as an open region's (Stmt.open_region), never as
        one httpd refuses for everyone."""
        return any(self._glob_reaches([p for p in glob.split("/") if p], fs) for glob in self.refusing_globs)

    def wildcard_gates(self, configs: list, fs: str, region: str, span,
                       checked: frozenset = frozenset()) -> tuple[tuple[str, tuple, Span], ...]:
        """Per wildcard <Directory> the server is refused for that may reach the directory FS, where the rules
        httpd merges under it (the region's CONFIGS and the wildcard's, _wildcard_at) are addresses alone that
        refuse some client (passes.access._plain_config): a regular expression over $request_filename matching the
        files under a directory the wildcard matches, the entries and default of a geo block that is "1" where
        the client is refused (address_entries; the renderer makes it where a refusal reads it), and the
        wildcard's span (Stmt.wildcard_gates). Under `<Directory "/srv/www/ad*">` with `Deny from
        127.0.0.1`, httpd answered /admin/a.txt with its own 403, carrying the `Header always` line of
        X-Frame-Options alone, where the refusal of the open region sent the onsuccess line too. So too where
        the rules ask every client for a password (no `satisfy any`) and nginx does not check it there
        (CHECKED: the regexes of the logins it checks, wildcard_logins): httpd answers a request without
        valid credentials with its 401, which carries the always line alone; the refusal sends that line
        alone under the wildcard, whatever the credentials."""
        gates = []
        for regex, wildcard in self._reaching_wildcards(fs):
            rules = self._wildcard_merged(configs, wildcard, region, span)
            if regex in checked or rules is None:
                continue
            if _realm(rules) is not None:
                gate = None if any(st.name == "satisfy" and st.args == ["any"] for st in rules) else ((), "1")
            else:
                gate = ((), "1") if _refuses_everyone(rules) else address_entries(rules)
            if gate is not None:
                gates.append((regex, gate, wildcard[2]))
        return tuple(gates)

    def wildcard_logins(self, configs: list, fs: str, region: str, span) -> list[tuple[str, str, str, Span]]:
        """(regex, realm, user file, span) per wildcard <Directory> the server is refused for that may reach the
        directory FS and whose rules, merged with those of the region's CONFIGS, are a password login alone
        (auth_basic and its user file), where nginx can ask for that login itself (wildcard_login_refusal):
        the region has no access rules of its own, or rules that let everyone in, so that outside the
        wildcard httpd asks for nothing (or the wildcard matches FS itself: its rules replace the region's
        everywhere in it), and every such wildcard reads the same user file. Empty where any of them is not
        such a login (its rules then gate the refusal's headers alone, wildcard_gates)."""
        open_rules = _no_access_rules(configs) or _grants_everyone(configs)
        out = []
        for regex, wildcard in self._reaching_wildcards(fs):
            rules = self._wildcard_merged(configs, wildcard, region, span)
            realm = None if rules is None else _realm(rules)
            if realm is None:
                continue    # (rules without a login: wildcard_gates tells whom they refuse)
            if not open_rules and not re.match(regex, fs.rstrip("/") + "/"):
                return []
            users = next((st.args[0] for st in rules if st.name == "auth_basic_user_file" and st.args), None)
            if users is None or "$" in realm + users \
                    or any(st.name not in ("auth_basic", "auth_basic_user_file") for st in rules):
                return []
            out.append((regex, realm, users, wildcard[2]))
        return out if len({users for _, _, users, _ in out}) == 1 else []

    def wildcard_login_refusal(self, logins: list[tuple[str, str, str, Span]], refusal: Stmt,
                               quiet: bool) -> list[Stmt]:
        """The refusal of an open region that wildcard <Directory> sections asking for a password may reach
        (LOGINS, wildcard_logins), after that login: httpd asks for it under a directory a wildcard matches
        (its 401 carries the `Header always` lines alone) and serves a request with valid credentials with
        its handler (both header tables). nginx asks for it where the request's file lies under such a
        directory (auth_basic with a realm "off" elsewhere, set in the rewrite phase from $request_filename),
        and refuses after it as after a region's own rules (refusal_after_rules: the auth_request marks the
        request let in, and the refusal sends the onsuccess lines for a file httpd serves). Under
        `<Directory "/srv/www/ad*">` with `Require valid-user`, httpd answered /admin/a.txt without
        credentials with its 401 and SAMEORIGIN alone, where the refusal sent the onsuccess DENY too."""
        at = logins[0][3]
        out = [Stmt("set", [_WILDCARD_REALM, "off"], at, comment="the login of a wildcard <Directory> here")]
        for regex, realm, _, where in logins:
            out.append(Stmt("if", [f"($request_filename ~ {regex})"], where,
                            block=[Stmt("set", [_WILDCARD_REALM, realm], where)]))
        out += [Stmt("auth_basic", [_WILDCARD_REALM], at), Stmt("auth_basic_user_file", [logins[0][2]], at)]
        if not quiet:
            self.refused_after_rules = self.refuse_all[1]
        return out + [Stmt("auth_request", [REFUSED_AFTER_RULES], self.refuse_all[1],
                           comment=refusal.comment + ", after the login of a wildcard <Directory>",
                           open_region=True, login=True, wildcard_gates=refusal.wildcard_gates)]

    def _reaching_wildcards(self, fs: str):
        """(regex, (glob, rules, span)) per wildcard <Directory> the server is refused for that may reach the
        directory FS, with rules the layout can merge (passes.access._plain_config): the regex over
        $request_filename matches the files under a directory the wildcard matches (an `if` test takes it as it
        is: no spaces, braces or quotes)."""
        for glob, config, at_glob in self.wildcard_rules:
            parts = [p for p in glob.split("/") if p]
            regex = [fnmatch_regex(p) for p in parts]
            if config is None or None in regex or not self._glob_reaches(parts, fs) \
                    or re.search(r"[\s{};'\"]", "".join(regex)):
                continue
            yield "^/" + "/".join(regex) + "/", (glob, config, at_glob)

    def _wildcard_merged(self, configs: list, wildcard: tuple, region: str, span) -> list[Stmt] | None:
        """The access rules of a region of CONFIGS under a directory the WILDCARD (glob, rules, span) matches,
        merged where httpd's directory walk merges it (_wildcard_at); None where that is not known."""
        glob, config, at_glob = wildcard
        at = self._wildcard_at(configs, glob, at_glob)
        if at is None:
            return None
        return _rules(self.own_access(configs[:at] + [config] + configs[at:], region, span, quiet=True))

    def _wildcard_at(self, configs: list, glob: str, at_glob: Span) -> int | None:
        """Where httpd merges a wildcard <Directory> (GLOB, written at AT_GLOB) among a region's CONFIGS:
        ap_directory_walk goes down the path a component at a time, merging at each the sections of that
        many components (a wildcard's among the plain ones, in configuration order) and then that directory's
        .htaccess. So before the <Directory> sections of more components or of as many written after it, and
        before a .htaccess as deep; after the others (the <Files> and <Location> sections come later). Under
        `<Directory "/srv/www/ad*">` asking for a login and a later `<Directory /srv/www/admin>` with
        `Require ip 10.0.0.1`, httpd answered /admin/a.txt with 403, not its 401. None where the order is
        not known (the sections in different files)."""
        scopes = {id(d.settings["access"]): d for d in self.directories if d.settings.get("access") is not None}
        depth = len([p for p in glob.split("/") if p])
        last = 0
        for i, c in enumerate(configs):
            if c is None or c.walk != "directory":
                continue
            scope = scopes.get(id(c))
            if scope is None or scope.fs_path is None:
                return None
            level = -1 if scope.settings.get("server_level") else len([p for p in scope.fs_path.split("/") if p])
            htaccess = scope.span is None or scope.span.file.endswith(".htaccess")
            if level > depth or (level == depth and htaccess):
                return i
            if level == depth and scope.span.file != at_glob.file:
                return None
            if level == depth and scope.span.line > at_glob.line:
                return i
            last = i + 1
        return last

    @staticmethod
    def _glob_reaches(parts: list[str], fs: str) -> bool:
        """Whether the wildcard of PARTS (its path's components) may match the directory FS or one below it
        (see wildcard_reaches)."""
        return all(fnmatchcase(have, want) for have, want in zip([p for p in fs.split("/") if p], parts))

    def regex_reaches(self, fs: str, shut: list = ()) -> bool:
        """Whether a regular expression <Directory ~> (or <DirectoryMatch>) with access rules the server is
        refused for may apply to a request in the directory FS or below it: httpd merges it after every
        plain <Directory> and .htaccess, so its rules may let in what the region's own rules refuse. Under
        `<Directory ~ "/old/sub/?$">` with `Require all granted`, httpd served /old/sub/ (its index.html,
        with a <FilesMatch>'s onsuccess X-Frame-Options) where the document root's login alone answered 401."""
        skip = {pattern for pattern, _ in shut}
        return any(_regex_may_reach(pattern, fs) for pattern in self.refusing_regexes if pattern not in skip)

    def shut_at(self, configs: list, fs: str | None) -> list[tuple[str, Span]]:
        """(pattern, span) per regular expression <Directory> section the server is refused for that may reach
        the directory FS and refuses every client where it matches (shut_regexes), over a region of CONFIGS
        without mod_access_compat lines or Satisfy of its own (which could lift its refusal): such a section
        lifts none of the region's refusals (regex_reaches), and where it matches, httpd answers its own 403,
        with the `Header always` lines alone, not the file with the onsuccess ones (an open region's refusal
        tests it as a wildcard's gate, Stmt.wildcard_gates). Under `<DirectoryMatch
        "^/srv/www/docs/?$">` holding `<RequireAny> Require all granted` beside `Order allow,deny`, `Allow from
        127.0.0.1` and `Deny from all`, httpd answered /docs/ with its 403 and X-Frame-Options DENY alone,
        where the refusal of the open region sent the onsuccess SAMEORIGIN too."""
        if fs is None or any(c is not None and (not isinstance(c, AccessConfig) or c.has_compat
                                                or c.satisfy is not None) for c in configs):
            return []
        return [(pattern, at) for pattern, at in self.shut_regexes if _regex_may_reach(pattern, fs)]

    def lift_gate(self, fs: str, shut: list = ()) -> str:
        """The regular expressions of the <Directory> sections the server is refused for that may reach the
        directory FS (regex_reaches), one a line: httpd merges one where it matches the request's file name
        (r->filename: the document root's /old/sub/ for GET /old/sub/, as nginx's $request_filename). The
        renderer tests them where a header reads them (render.refusal)."""
        skip = {pattern for pattern, _ in shut}
        return "\n".join(pattern for pattern in self.refusing_regexes if _regex_may_reach(pattern, fs)
                         and pattern not in skip)

    # -- filesystem ----------------------------------------------------------
    def fs_routes(self, routes: list[Route]) -> list[tuple[str, str]]:
        """(URL prefix, directory) pairs through which files are served: the DocumentRoot and each Alias."""
        out = [(r.path, r.target) for r in routes if r.kind == "alias" and not r.regex]
        if self.server.root:
            out.append(("/", self.server.root))
        return out

    @staticmethod
    def fs_path(handler: Route | None, region: str, root: str | None) -> str | None:
        if handler is None:
            return None if root is None else _join(root, region)
        if handler.kind == "alias" and not handler.regex:
            rest = region[len(handler.path):] if region.startswith(handler.path) else ""
            return _join(handler.target, rest)
        return None     # proxied or redirected: no directory applies

    def covering_directories(self, fs: str | None) -> list[Scope]:
        """The <Directory> sections that apply to a path, in httpd's merge order: found by walking the
        path's ancestors in an index (linear in the tree, however many directories there are)."""
        if fs is None:
            return []
        found: list[tuple[int, int, Scope]] = []
        path = fs.rstrip("/") or "/"
        while True:
            for i, d in self.directory_index.get(path, ()):
                # the server's own defaults (Options outside any section) come before every <Directory>
                found.append((-1 if d.settings.get("server_level") else 0 if path == "/" else path.count("/"), i, d))
            if path == "/" or "/" not in path:
                break   # the root, or the last segment of a relative path (Alias /icons icons)
            path = path.rsplit("/", 1)[0] or "/"
        return [d for _, _, d in sorted(found, key=lambda t: (t[0], t[1]))]

    def proxy_configs(self, route: Route, what: str) -> list:
        """The <Proxy> sections' access rules for a location proxying along ROUTE (merged before its
        <Location>s, as httpd's proxy walk stands in for the directory walk)."""
        return access_proxy.configs_for(self.model, self.server, access_proxy.backend_base(route.target),
                                        route.span, what)

    def access(self, configs: list, region: str, span, quiet: bool = False, fs: str | None = None) -> list[Stmt]:
        """The access statements of a region merged from CONFIGS; FS: the directory httpd's directory walk
        reaches for it, where one does."""
        if getattr(self, "refuse_all", None) is not None:
            # a refused server stays refused in every location, nested ones (<Files>) and internal ones too:
            # rules of their own would replace the parent's deny
            unknown = fs is not None and self.wildcard_reaches(fs)
            shut = self.shut_at(configs, fs)
            lifting = fs is not None and self.regex_reaches(fs, shut)
            refuses_all = _refuses_all(configs)
            refusal = Stmt("deny", ["all"], self.refuse_all[1], comment="refused: " + self.refuse_all[0],
                           open_region=unknown or _no_access_rules(configs) or _grants_everyone(configs)
                           or (lifting and refuses_all),
                           shut_region=not unknown and not lifting and refuses_all, login=asks_login(configs),
                           fails_authn=fails_authn(configs))
            logins = self.wildcard_logins(configs, fs, region, span) if unknown and not lifting else []
            if unknown:
                refusal.wildcard_gates = self.wildcard_gates(configs, fs, region, span,
                                                             frozenset(regex for regex, *_ in logins))
            if refusal.open_region:
                refusal.wildcard_gates += tuple((_quote_if_needed(pattern), ((), "1"), at) for pattern, at in shut)
            if logins:
                return self.wildcard_login_refusal(logins, refusal, quiet)
            if lifting and refuses_all:
                # (the region's rules refuse everyone, but where the expression matches httpd may serve: the
                # refusal sends the onsuccess headers there alone, emit.inherit.refused_headers)
                refusal.lifted = (f"403?{self.lift_gate(fs, shut)}",)
            if refusal.open_region or refusal.shut_region:
                return [refusal]
            after = self.refusal_after_rules(configs, region, span, quiet)
            return _lift_own_refusals(after, self.lift_gate(fs, shut)) if after and lifting else after or [refusal]
        return self.lifted(self.own_access(configs, region, span, quiet), configs, region, span)

    def lifted(self, own: list[Stmt], configs: list, region: str, span) -> list[Stmt]:
        """OWN (the rules of a region merged from CONFIGS, in httpd's order), with the statuses of its refusals
        marked on them (Stmt.lifted) where a section the translation leaves out, a <DirectoryMatch> that only
        grants (passes.access._granting_config), may lift them: httpd merges it after the region's
        <Directory> sections and .htaccess, so where its expression matches the directory, httpd serves (its
        answer carries the onsuccess headers) what nginx refuses with a 401 or 403; its refusals then send
        those headers too (emit.inherit.refused_headers), as a security header is never to be lost. Not where
        no directory walk merges it (a proxied region), nor where it changes nothing (a <Location>'s rules
        decide)."""
        walked = [i for i, c in enumerate(configs) if c is not None and c.walk == "directory"]
        if not self.granting or not walked or not _refusal_statuses(own):
            return own
        at = walked[-1] + 1
        freed = self.own_access(configs[:at] + self.granting + configs[at:], region, span, quiet=True)
        if [(st.name, st.args) for st in freed] == [(st.name, st.args) for st in own]:
            return own
        for st in own:
            statuses = _refusal_statuses([st])
            if statuses:
                st.lifted = statuses
                # (nor is a refusal in place of an AuthType without Require an error for everyone any more:
                # the section's Require lines lift httpd's 500, Stmt.shut_region)
                st.shut_region = False
        return own

    def refusal_after_rules(self, configs: list, region: str, span, quiet: bool = False) -> list[Stmt] | None:
        """The refusal of a region with access rules of its own in a refused server: httpd answers there as
        the region's rules say, with its own error (a 401 with its login challenge, a 403) to a request they
        refuse and with its handler to one they let in; its error carries the `Header always` lines alone,
        its success the onsuccess lines too (mod_headers: the error filter applies the always table only).
        A `deny all` answers before the rules, one 403 for every request: the onsuccess line of a header
        both tables name was lost on a success or added to an error. So the region's rules stay, and the
        refusal comes after them: an auth_request to REFUSED_AFTER_RULES, which answers 403 (nginx runs it
        last in the access phase, under `satisfy all`, and an `if` block inherits it) and marks the request
        let in (it sets inherit.SERVED from inherit.FILE: the refusal sends the onsuccess lines where such a
        request names a file, Stmt.open_region). Under `satisfy any` an address that lets in would end nginx's
        access phase before the auth_request: the login is asked of the other addresses alone (_address_login).
        None where nginx would not run it after every rule (a method section, an address list it cannot tell
        as a geo block), or rules nginx cannot check (refused themselves)."""
        own = [st for st in self.own_access(configs, region, span, quiet)
               if st.name not in ("autoindex", "disable_symlinks")]
        if not own or any(st.name not in ("satisfy", "allow", "deny", "auth_basic", "auth_basic_user_file",
                                          "limit_except", "if")
                          or (st.name == "deny" and st.args == ["all"] and st.comment)
                          or (st.name == "if" and st.comment not in ACCESS_IF_COMMENTS) for st in own):
            return None
        if any(st.name == "satisfy" and st.args == ["any"] for st in own):
            if any(st.name == "limit_except" for st in own):
                return None
            if any(st.name == "allow" for st in own):
                own = self._address_login(own, span)
                if own is None:
                    return None
            # (without an allow line the address rules let no request in: the login alone decides)
            own = [st for st in own if st.name not in ("satisfy", "deny")]
        if not quiet:
            self.refused_after_rules = self.refuse_all[1]
        return own + [Stmt("auth_request", [REFUSED_AFTER_RULES], self.refuse_all[1],
                           comment="refused: " + self.refuse_all[0] + ", after the region's own rules",
                           open_region=True)]

    def _address_login(self, own: list[Stmt], span) -> list[Stmt] | None:
        """OWN, a region's `satisfy any` rules of an allow/deny list and a login, as a login asked of the
        addresses the list refuses alone (its realm "off" for the others, from a geo block), so that nginx
        runs a refusal after them under `satisfy all`: httpd lets an address the list admits in without a
        login (its handler's answer, both header tables) and asks the others for one (its 401, the always
        table alone). Under `Allow from 10.0.0.0/8` and `Satisfy Any`, httpd answered /app/sub/a.txt with
        valid credentials with X-Frame-Options SAMEORIGIN and DENY, where the refusal in place of the rules
        sent SAMEORIGIN alone. None where the list is no plain one, or refuses no address."""
        realm = _realm(own)
        if realm is None or "$" in realm or any(st.name == "if" for st in own):
            return None
        refused = self._address_refusal([st for st in own if st.name in ("allow", "deny")], span)
        if refused is None:
            return None
        login = self.model.shared_map("a2n_login_realm_", refused, [("1", realm)], "off", span=span)
        return [dataclasses.replace(st, args=[login]) if st.name == "auth_basic" else st
                for st in own if st.name not in ("allow", "deny")]

    def own_access(self, configs: list, region: str, span, quiet: bool = False) -> list[Stmt]:
        configs = [c for c in configs if c is not None]
        # A server's locations ask for the same merge of the same sections many times over (each <Files>
        # section nested in each location under its directory): lowered once per distinct question, copied out
        # since callers extend what they get. The diagnostics a lowering reports are deduplicated by
        # `self.reported`, so a repeated question would report nothing new.
        # QUIET: the rules only, what lowering them would report is not (a later question that reports asks anew)
        key = (tuple(map(id, configs)), region, id(span))
        cached = self._access_memo.get(key) or (self._quiet_memo.get(key) if quiet else None)
        if cached is None:
            eff = merge(configs)
            diags, reported = (Diagnostics(), set(self.reported)) if quiet else (self.diags, self.reported)
            cached = access_statements(diags, configs, region, span, reported, tls=bool(self.server.ssl),
                                       conditions=Conditions(self.model, self.server))
            if eff.options_span is not None:
                cached += options_statements(eff, getattr(self, "listings_off", False))
            # the key holds ids: keep the keyed objects alive as long as the entry
            cached = (cached, configs, span)
            (self._quiet_memo if quiet else self._access_memo)[key] = cached
        return [_clone(st) for st in cached[0]]

    def dir_slash(self, configs: list, access: list[Stmt], region: str) -> list[Stmt]:
        """DirectorySlash Off over a region serving files: the refusal of a directory without its slash, to go
        after the location's rewrites (see `directory_slash_statements`)."""
        eff = merge([c for c in configs if c is not None])
        if eff.directory_slash is None or eff.directory_slash[0]:
            return []
        span = eff.directory_slash[1]
        if "indexes" in eff.options:
            if ("A2N771", span) not in self.reported:
                self.reported.add(("A2N771", span))
                self.diags.add("A2N771", f"DirectorySlash Off with Options Indexes: httpd lists a directory of "
                               f"{region} requested without its trailing slash (200); nginx redirects it to the "
                               "URL with the slash (301)", span, related=[eff.options_span])
            return []
        if any(st.name == "auth_basic" for st in access) and ("A2N770", span) not in self.reported:
            self.reported.add(("A2N770", span))
            self.diags.add("A2N770", f"DirectorySlash Off in {region}, which asks for a login: nginx refuses a "
                           "directory requested without its trailing slash (403) before it asks for the login, "
                           "where httpd first answers 401 to a request without credentials", span)
        return directory_slash_statements(eff, self.model)

    def dir_method_needs(self, scopes: list[Scope]) -> tuple[bool, bool]:
        """Whether mod_dir's fixup for the methods nginx's index and static modules leave alone changes the
        headers sent here (see emit.dirmethods): (the index file's sections have Header lines, the server
        has onsuccess headers)."""
        main = self.model.main_server
        holders = [self.server] + ([main] if main is not None and main is not self.server else [])
        sections = list(self.files) + [s for s in scopes if s.regex]
        index = any(st.name == "add_header" for s in sections for st in s.statements)
        gated = self.model.onsuccess_ungated
        blocks = [self.model.http_statements] + [h.statements for h in holders] + \
            [s.statements for h in holders for s in h.scopes + h.settings.get("directories", [])
             + h.settings.get("files", [])]
        slash = any(st.name == "add_header" and len(st.args) > 1 and st.args[1] in gated
                    for block in blocks for st in block)
        return index, slash

    def dir_methods(self, configs: list, access: list[Stmt], statements: list[Stmt], span,
                    index: bool = False, again: bool = False) -> list[Stmt]:
        """mod_dir's fixup for PUT, DELETE, OPTIONS and the like over a region serving files (DirectorySlash
        On), where no access rule of nginx's access phase would be skipped (see emit.dirmethods); and for every
        method, the later index names of a list joined with a FallbackResource whose file is missing. INDEX:
        the index files are tried even where their sections send no header of their own (the location's rules
        may answer their URLs: dirmethods.rules_reach_index). AGAIN: an index file's URL may come back to this
        location (a regex location), whose `if` must read it afresh (dirmethods.statements' VOLATILE)."""
        eff = merge([c for c in configs if c is not None])
        if eff.directory_slash is not None and not eff.directory_slash[0]:
            return []
        if dirmethods.has_access_phase(access + statements):
            return []
        forced = index and not self.method_fixups[0]
        index, slash = self.method_fixups[0] or index, self.method_fixups[1]
        names = dirmethods.index_names(statements, self.outer_blocks()) if index else []
        fallback = dirmethods.fallback_statements(self.model, statements, self.outer_blocks(), self.index_names,
                                                  span, self.mapped_elsewhere)
        return fallback + (dirmethods.statements(self.model, names, slash, span, volatile=forced or again)
                           if index or slash else [])

    def slash_after_access(self, server: Server, loc: Location, fixup: tuple | None, named: dict) -> None:
        """mod_dir's redirect of a directory without its slash for other methods in LOC, a location with access
        rules, after nginx's access phase (dirmethods.slash_after_access); only where it changes the headers
        sent (the server has onsuccess headers) and DirectorySlash is On."""
        if fixup is None or not self.method_fixups[1]:
            return
        eff = merge([c for c in fixup[0] if c is not None])
        if eff.directory_slash is not None and not eff.directory_slash[0]:
            return
        main = self.model.main_server if self.model.main_server is not server else None
        outer = [server.own_statements, server.statements] + ([main.statements] if main is not None else [])
        parents = _parents(server.locations, loc) or []
        levels = [p.statements for p in reversed(parents)]
        headers = [st for st in _own_lines_in_force([loc.statements] + levels, outer) if st.name == "add_header"]
        own, made = dirmethods.slash_after_access(self.model, loc, levels + outer + [self.model.http_statements],
                                                  headers, named, fixup[3])
        loc.statements.extend(own)
        if made is not None:
            server.locations.append(made)

    def index_fixups(self, loc: Location, fixup: tuple | None) -> list[Stmt]:
        """mod_dir's fixup for other methods with the index files tried, for a location whose per-directory rules
        (its own and those carried to it) may answer an index file's URL (dirmethods.rules_reach_index), where
        the server's headers alone would not have it try them; else nothing."""
        if fixup is None or self.method_fixups[0]:
            return []
        names = dirmethods.index_names(fixup[2], self.outer_blocks())
        if not dirmethods.rules_reach_index(loc, names):
            return []
        return self.dir_methods(*fixup, index=True)

    def regex_dir_methods(self, loc: Location, proxy: Route | None, configs: list, access: list[Stmt],
                          span) -> None:
        """mod_dir's fixup for other methods in the location LOC of <LocationMatch> sections serving the
        document root (CONFIGS: the sections httpd merges there; PROXY: their handler), kept with the prefix
        regions' to be added last: httpd's fixup runs wherever the URL maps to a directory, so `OPTIONS /d`
        matched by a section is redirected with the `Header always` lines alone (observed with httpd 2.4),
        where nginx's static module answered the regex location's 405 with the onsuccess lines too. The index
        file's URL a directory is rewritten to may match the same location again."""
        if proxy is not None or self.refuse_all is not None:
            return
        fixup = (configs, access, loc.statements, span)
        self.regex_fixups.append((loc, self.dir_methods(*fixup, again=True), fixup))

    def outer_blocks(self) -> list[list[Stmt]]:
        """The blocks a location of this server inherits from, innermost first."""
        main = self.model.main_server
        return [self.server.statements] + ([main.statements] if main is not None and main is not self.server
                                           else []) + [self.model.http_statements]

    def mapped_elsewhere(self, url: str) -> bool:
        """Whether a route of the lists in force (the server's own Alias, ProxyPass, Redirect and their Match
        forms, then the main server's) may claim URL: its file then is not the document root's."""
        for route in routes_in_force(self.server, self.model.main_server):
            if route.kind == "proxy-exclude":
                continue
            if not route.regex:
                if url.startswith(route.path.rstrip("/") or "/"):
                    return True
                continue
            try:
                if re.search(route.path, url):
                    return True
            except re.error:
                return True
        return False

    def run(self) -> None:
        server = self.server
        scopes, all_routes = self.inherited()
        self.scope_order = {id(s): i for i, s in enumerate(scopes)}
        self.directories = self.sections("directories")
        self.directory_index: dict[str, list[tuple[int, Scope]]] = {}
        for i, d in enumerate(self.directories):
            self.directory_index.setdefault(d.fs_path.rstrip("/") or "/", []).append((i, d))
        main = self.model.main_server
        self.refuse_all = server.settings.get("refuse_all") or (main.settings.get("refuse_all") if main else None)
        self.listings_off = bool(server.settings.get("listings_off") or main and main.settings.get("listings_off"))
        self.granting = server.settings.get("granting_sections", []) + \
            (main.settings.get("granting_sections", []) if main is not None and main is not server else [])
        if self.refuse_all is None:
            self.refuse_all = self.wildcard_refusal(all_routes)
        self.refusing_regexes = server.settings.get("refusing_regexes", []) + \
            (main.settings.get("refusing_regexes", []) if main is not None and main is not server else [])
        self.shut_regexes = server.settings.get("shut_regexes", []) + \
            (main.settings.get("shut_regexes", []) if main is not None and main is not server else [])
        self.files = self.sections("files")
        self.filename_refusals = self.server.settings.get("filename_refusals", []) + \
            (main.settings.get("filename_refusals", []) if main is not None and main is not server else [])
        if self.filename_refusals and self.refuse_all is None:
            granting = [s for holder in (server, main) if holder is not None
                        for s in holder.scopes + holder.settings.get("files", []) if s.settings.get("access")]
            if granting:
                span = self.filename_refusals[0][1]
                self.refuse_all = ("<DirectoryMatch> refusal that a later <Files>/<Location> could lift", span)
                if span not in self.model.access_reported:
                    self.model.access_reported.add(span)
                    self.diags.add("A2N740", "a <DirectoryMatch> refusal merges before <Files> and <Location> "
                                   "sections with access rules, which nginx cannot order the same way: the whole "
                                   "server is refused (deny all)", span, related=[g.span for g in granting[:3]])
        files_by_parent: dict[int, list[Scope]] = {}
        for f in self.files:
            files_by_parent.setdefault(id(f.parent) if f.parent is not None else 0, []).append(f)
        self.reported: set = self.model.access_reported
        prefix_scopes = [s for s in scopes if not s.regex]
        regex_scopes = [s for s in scopes if s.regex]
        self.regex_scopes = regex_scopes
        routes = sorted((r for r in all_routes if not r.regex), key=lambda r: KIND_ORDER[r.kind])
        regions: list[str] = []
        seen_regions: set[str] = set()
        for p in [s.path for s in prefix_scopes] + [r.path for r in all_routes if not r.regex]:
            if p not in seen_regions:
                seen_regions.add(p)
                regions.append(p)
        # Directories become URL regions through every route that serves files from them.
        fs_routes = self.fs_routes(all_routes)
        for d in self.directories:
            for url, target in fs_routes:
                if fs_within(target, d.fs_path) and d.fs_path.rstrip("/") != target.rstrip("/"):
                    rest = d.fs_path[len(target.rstrip("/")):]
                    region = (url.rstrip("/") + rest) or "/"
                    if region not in seen_regions:
                        seen_regions.add(region)
                        regions.append(region)
        by_key = {l.key(): l for l in server.locations}   # locations the passes made already
        self.method_fixups = self.dir_method_needs(scopes)
        self.walk_file = bool(server.settings.get("regex_directory_headers") or
                              (main is not None and main.settings.get("regex_directory_headers")))
        if (self.directories or self.files or self.refuse_all or self.filename_refusals or
                server_conditionals(self.model, server) or (any(self.method_fixups) and server.root and not regions)) \
                and "/" not in regions:
            regions.insert(0, "/")
        # `<Location />` applies to every request that reaches httpd's location walk, so its statements go
        # into every location (and a `location /`), not to the server level where nginx would also apply
        # them to the errors it answers before choosing a location.
        root_statements = [st for s in prefix_scopes if s.path == "/" for st in s.statements]
        if root_statements and "/" not in regions:
            regions.insert(0, "/")
        winners: set[int] = set()
        root_access: list[Stmt] = []
        root_region_configs: list = []   # the sections merged for the document root's region, in order
        root_dir_headers: list[Stmt] = []   # the Header lines of the directories the document root's region walks
        exact_only: set[str] = set()     # `/p` of a proxied `/p/` (below)
        exact_spans: dict[str, object] = {}     # ... and the line of the entry that made it
        hiding: list[tuple[Location, list, list[Stmt]]] = []   # ^~ regions of the document root (see below)
        made: list[tuple[Location, Route | None]] = []     # the prefix locations laid out here, with their entry
        redirected: set[int] = set()    # the locations a Redirect answers (mod_alias, before any directory)
        dir_methods: list[tuple[Location, list[Stmt]]] = []     # mod_dir's fixup for other methods (emit.dirmethods)
        for path in regions:
            covering = [s for s in prefix_scopes if segment_prefix(s.path, path)]
            handler: Route | None = None
            for s in covering:
                if s.proxy is not None:
                    handler = s.proxy
            if handler is None:
                for r in routes:
                    if segment_prefix(r.path, path):
                        handler = r
                        break
            if handler is not None:
                winners.add(id(handler))
            fs_handler = handler
            if handler is not None and handler.kind == "proxy-exclude":
                # `ProxyPass P !`: httpd goes on to mod_alias (its Redirects first, then its Aliases) and the
                # document root, and their directories
                after = next((r for r in routes if r.kind == "redirect" and segment_prefix(r.path, path)), None)
                if after is not None:
                    handler = fs_handler = after
                    winners.add(id(after))
                else:
                    fs_handler = next((r for r in routes if r.kind == "alias" and segment_prefix(r.path, path)),
                                      None)
                    if fs_handler is not None:
                        handler = fs_handler        # the Alias serves the excluded path (observed: httpd 2.4)
            fs = self.fs_path(fs_handler, path, server.root)
            dirs = self.covering_directories(fs)
            dir_configs = [d.settings.get("access") for d in dirs]
            if handler is not None and handler.kind == "proxy":
                dir_configs = self.proxy_configs(handler, _describe(path))
            loc_configs = [s.settings.get("access") for s in covering]
            span = covering[-1].span if covering else (handler.span if handler else exact_spans.get(path) or
                                                       (dirs[-1].span if dirs else None))
            access = [] if handler is not None and handler.kind == "redirect" else \
                self.access(dir_configs + loc_configs, _describe(path), span,
                            fs=fs if handler is None or handler.kind != "proxy" else None)
            # the plain refusal of a refused server's region whose refusal comes after its own rules, for a
            # location where per-directory rewrites run before them (merge_into)
            refusal = None
            if self.refuse_all is not None and not (access and access[-1].name == "auth_request"):
                # (a Redirect's region is no open one: httpd answers it with its error response)
                access = [Stmt("deny", ["all"], self.refuse_all[1], comment="refused: " + self.refuse_all[0],
                               open_region=bool(access) and access[0].open_region,
                               shut_region=bool(access) and access[0].shut_region,
                               login=bool(access) and access[0].login, lifted=access[0].lifted if access else (),
                               fails_authn=bool(access) and access[0].fails_authn,
                               wildcard_gates=access[0].wildcard_gates if access else ())]
            elif self.refuse_all is not None:
                refusal = Stmt("deny", ["all"], self.refuse_all[1], comment="refused: " + self.refuse_all[0],
                               login=asks_login(dir_configs + loc_configs),
                               fails_authn=fails_authn(dir_configs + loc_configs))
            if path == "/":
                root_access = access
                root_region_configs = dir_configs + loc_configs
                root_dir_headers = [st for d in dirs for st in d.statements if st.name in _ORDERED_LINES]
            statements = _last_wins(access + [st for d in dirs for st in d.statements] +
                                    [st for s in covering for st in s.statements], self.index_names)
            if self.refuse_all is None and not any(st.lifted for st in access) and \
                    _refuses_all(dir_configs + loc_configs):
                # httpd's access checks refuse everyone there before per-directory rewrite rules run (mod_rewrite's
                # hook_fixup): the refusal standing for those rules answers as httpd's own 403 (Stmt.shut_region)
                statements = [dataclasses.replace(st, shut_region=True)
                              if st.name == "return" and st.comment in REWRITE_REFUSALS else st for st in statements]
            slash = [] if fs is None or self.refuse_all is not None or \
                (handler is not None and (handler.params.get("cgi") or handler.params.get("refused"))) else \
                self.dir_slash(dir_configs + loc_configs, access, _describe(path))
            # mod_dir's fixup for other methods, and what it needs to be made again where the location's rules
            # turn out to reach an index file (after the rules carried between locations: index_fixups)
            fixup = (dir_configs + loc_configs, access, statements, span) \
                if fs is not None and not slash and self.refuse_all is None and \
                not (handler is not None and (handler.params.get("cgi") or handler.params.get("refused"))) else None
            methods = self.dir_methods(*fixup) if fixup is not None else []
            if path == "/" and handler is None and not statements and not slash and not methods and not self.files and \
                    not self.filename_refusals and not (fixup is not None and by_key.get(("", "/")) is not None
                                                        and by_key[("", "/")].directory_rules):
                continue
            if path == "/" and not statements and handler is not None and handler.kind == "redirect" \
                    and all(r is handler for r in all_routes if r.kind != "redirect" or
                            all_routes.index(r) < all_routes.index(handler)) and not scopes:
                # The whole server redirects: a server-level return is the idiomatic form.
                server.statements.extend(self._handler(handler, "/", "/"))
                continue
            files = [] if fs is None else \
                files_by_parent.get(0, []) + [f for d in dirs for f in files_by_parent.get(id(d), ())]
            variants = [("=", path)] if path in exact_only else _variants(path)
            if path == "/" and handler is not None and handler.kind == "redirect" and ("", "/") not in by_key:
                variants = [("^~", "/")]    # mod_alias redirects before any <LocationMatch> or AliasMatch applies
            if not path.endswith("/") and path + "/" in seen_regions:
                # `/p/` is a region of its own, laid out with the entry httpd uses there (the first that
                # matches: `ProxyPass /p/ A` before `ProxyPass /p B` sends /p/x to A, /p alone to B)
                variants = [(m, v) for m, v in variants if v != path + "/"]
            off = _handlers_off(dirs, covering)
            files = _files_kept(files, off)
            for modifier, matched in variants:
                loc = Location(modifier, matched, span=span)
                loc.static_only, loc.mime_off = off[0] == "all", off[0] == "mime"
                if off[0] and modifier == "":
                    self.handler_off_unplaced(server, off)
                loc.statements.extend(statements)
                if handler is not None:
                    loc.statements.extend(self._handler(handler, path, matched, loc.statements))
                self.nest_files(loc, files, dir_configs, loc_configs, matched,
                                [st for s in covering for st in s.statements if st.name in _ORDERED_LINES],
                                fs=fs if handler is None or handler.kind != "proxy" else None,
                                renamed=_aliased_name(handler, path))
                self.refused_index_listing(loc, files, dir_configs, loc_configs)
                existing = by_key.get(loc.key())
                if existing is None:
                    server.locations.append(loc)
                    by_key[loc.key()] = loc
                    made.append((loc, handler))
                    self.prefix_regions[id(loc)] = (dir_configs, covering, dirs, handler)
                    self.region_access[id(loc)] = access
                else:
                    # a pass already made this location (per-directory rewrites, a front controller)
                    self.merge_into(existing, loc, access, refusal)
                    if _refused_redirects(existing.directory_rules):
                        # rules that only refuse: a <LocationMatch> may nest there as in a plain region
                        self.prefix_regions[id(existing)] = (dir_configs, covering, dirs, handler)
                if handler is not None and handler.kind == "redirect":
                    redirected.add(id(existing or loc))
                if modifier in ("^~", "", "=") and (handler is None or handler.kind in _HIDES_REGEX_ROUTES):
                    hiding.append((existing or loc, loc_configs, [st for s in covering for st in s.statements],
                                   handler))
                (existing or loc).statements.extend(slash)     # after the rewrites, as mod_dir runs after them
                if methods or fixup is not None:
                    dir_methods.append((existing or loc, methods, fixup))
            if path.endswith("/") and path != "/" and handler is not None and handler.kind == "proxy" \
                    and path[:-1] not in regions:
                # nginx would 301 `/p` to `/p/` for a proxied `^~ /p/`; httpd's `/p/` prefix simply does not
                # match `/p`, which falls through to the document root, or to a broader entry covering `/p`
                # (`ProxyPass /p/sub/` beside `ProxyPass /p/`): either way it is laid out as an exact region
                # with the rules of what serves it, not the proxied region's <Proxy> and <Location> rules
                if not any(segment_prefix(r.path, path[:-1]) for r in routes) and \
                        not any(s.proxy is not None and segment_prefix(s.path, path[:-1]) for s in prefix_scopes):
                    # the document root's: its place is kept here, the region fills it in
                    holder = Location("=", path[:-1], [], span)
                    server.locations.append(holder)
                    by_key[holder.key()] = holder
                exact_only.add(path[:-1])
                regions.append(path[:-1])
                exact_spans.setdefault(path[:-1], span)
        for r in server.routes:   # only the server's own: an inherited entry may win in another host
            if not r.regex and id(r) not in winners and r.kind != "proxy-exclude":
                self.diags.add("A2N301", f"{r.params.get('directive', r.kind)} {r.path}: an earlier entry matches "
                               "every request this one would, so httpd never uses it; it is left out", r.span,
                               directive=r.params.get("directive"))
        # Regular-expression locations are consulted only for URLs under `location /` (the other prefix
        # locations are ^~): they get the access rules of the document root's region.
        for loc in server.locations:
            if loc.modifier in ("~", "~*") and root_access and not any(st.name == "internal" for st in loc.statements):
                loc.statements[:0] = root_access
        root_configs = [s.settings.get("access") for s in prefix_scopes if s.path == "/"]
        shadowed = _shadowed_regex_proxies(all_routes, prefix_scopes)
        for r in server.routes:
            if id(r) in shadowed:
                self.diags.add("A2N301", f"{r.params.get('directive', r.kind)} {r.path}: a ProxyPass of / tried "
                               "before it matches every request, so httpd never uses it; it is left out", r.span,
                               directive=r.params.get("directive"))
        regex_routes = [r for r in all_routes if r.regex and id(r) not in shadowed]
        regex_redirects: list[tuple[Route, Location]] = []
        self.regex_route_locations = []
        for r in regex_routes:
            loc = self.regex_route(r, root_configs, root_access, root_statements, files_by_parent)
            server.locations.append(loc)
            self.regex_route_locations.append(loc)
            if r.kind == "redirect":
                regex_redirects.append((r, loc))
        # httpd maps a URL by AliasMatch/ProxyPassMatch/RedirectMatch before any section applies; a ^~ region
        # serving the document root would hide the server's regex locations (and so would a plain prefix's nested
        # regex locations, which nginx tries first), so each holds its own copies,
        # with the <Location> sections of its URLs
        # Under an Alias, only an AliasMatch listed before it: mod_alias tries its list in order, first match wins
        order = {id(r): i for i, r in enumerate(all_routes)}
        for loc, loc_configs, loc_statements, owner in hiding if self.refuse_all is None else ():
            if loc.modifier == "=":
                self.exact_regex_route(loc, loc_configs, loc_statements, owner, regex_routes, order, files_by_parent)
                continue
            if loc.modifier != "^~" and not loc.locations:
                continue        # nginx goes on to the server's regex locations from a plain prefix without nested ones
            nested = [self.regex_route(r, loc_configs, None, loc_statements, files_by_parent)
                      for r in regex_routes if _may_match_under(r.path, loc.path, bool(r.params.get("nocase")))
                      and _maps_under(r, owner, order)]
            outer = server.statements + (main.statements if main is not None and main is not server else [])
            for inner in nested:
                _detach_from_region(inner, loc, loc_statements, outer)
            loc.locations[:0] = nested
        # a ^~ region of another entry (Alias, Redirect) hides a RedirectMatch mod_alias may try first
        self.nest_regex_redirects([(loc, h) for loc, h in made if h is not None], regex_redirects, all_routes)
        server_ifs = server_conditionals(self.model, server)
        for loc in server.locations:
            # an internal location a server-level rewrite leads to (RewriteRule [P], a handler): httpd still
            # applies the <Proxy> sections of its backend URL and the host's own <If> sections
            if not any(st.name == "internal" for st in loc.statements) or not loc.path.startswith("/"):
                continue
            if _maps_document_root(loc):
                self.lay_out_document_root(loc, files_by_parent)
                continue
            target = next((st.args[0] for st in loc.statements if st.name == "proxy_pass"), None)
            per_dir = any(st.name == "internal" and st.comment == PER_DIR_PROXY for st in loc.statements)
            proxied = self.proxy_configs(Route("proxy", loc.path, target, span=loc.span), "a RewriteRule [P]") \
                if target and not per_dir else []
            if proxied or server_ifs:
                loc.statements[:0] = self.access(proxied, loc.path, loc.span)
        prefix_locations = [l for l in server.locations if l.modifier in ("", "^~", "=")]
        laid_regex: list[tuple[Scope, Location]] = []
        for s in regex_scopes:
            if not s.settings and not s.statements and s.proxy is None:
                continue    # an empty section changes nothing in httpd: its URLs stay the document root's
            loc = Location("~*" if s.nocase else "~", s.path, span=s.span)
            # nginx consults it for URLs under `location /` only: httpd merges the <LocationMatch> after the
            # sections of those URLs (the document root's), whose refusals and settings it does not replace
            access = self.access(root_region_configs + [s.settings.get("access")], s.path, s.span) \
                if s.settings.get("access") else root_access
            proxied = self.proxy_configs(s.proxy, s.path) if s.proxy is not None and s.proxy.kind == "proxy" else []
            own = self.access(proxied + [p.settings.get("access") for p in prefix_scopes if p.path == "/"] +
                              [s.settings.get("access")], s.path, s.span) if proxied else access
            # ... and the headers of the directories those URLs walk (merged before any <Location> section)
            loc.statements.extend(own + root_dir_headers + root_statements + s.statements)
            if s.proxy is not None:
                loc.statements.extend(self._handler(s.proxy, s.path, s.path, loc.statements))
            server.locations.append(loc)
            laid_regex.append((s, loc))
            self.regex_dir_methods(loc, s.proxy, root_region_configs + [s.settings.get("access")], own, s.span)
            if s.settings.get("access") is not None:
                # (rules of its own or not: merged into a region's chain of <Location> sections, an `AuthMerging`
                # may bring back rules of the region's directories that an earlier section replaced)
                own_access = self.access([s.settings.get("access")], s.path, s.span)
                self.guard_prefixes(s, own_access, prefix_locations)
                self.guard_regex_routes(s, own_access)
            self.carry_regex_headers(s, prefix_locations + self.regex_routes_before(s))
        self.overlap_budget = _REGEX_OVERLAPS
        for i, (s, loc) in enumerate(laid_regex):
            self.nest_regex_overlaps(loc, [s], laid_regex[i + 1:], root_region_configs, root_configs,
                                     root_dir_headers + root_statements)
        dir_methods.extend(self.regex_fixups)

        if self.filename_refusals and self.refuse_all is None:
            for loc in server.locations:
                _guard_filenames(loc, self.filename_refusals)
        if self.walk_file:
            server.own_statements += _walk_file_statements(server.span)
            for loc in server.locations:
                _set_walk_file(loc)
        _nest_script_handlers(server)
        _carry_script_passes(server.locations)
        _carry_directory_rules(server, redirected)
        _carry_directory_rules_into_regex(server, self.diags)
        _carry_rules_into_nested(server.locations, self.diags, server)
        _gate_file_headers_on_walk(server, self.files, self.model)
        _carry_rewrite_refusals(server.locations)
        _carry_fallback(server, self.model.main_server)
        _fallback_error_headers(server, self.model)
        _fallback_landing_headers(server, self.model)
        _fallback_first_flags(server, self.model)
        _fallback_original_uri(server, self.model)
        _fallback_cycles(server, self.model)
        _report_rules_without_fallback(server.locations, self.diags)
        _report_rewrites_into_refusals(server, self.diags)
        _report_fallback_logins(server, self.diags)
        _report_fallbacks_into_refusals(server, self.diags)
        reread = _reread_env_after_rewrites(self.model, server)
        _report_env_after_rewrites(server, self.diags, reread)
        _reread_env_on_error_pages(self.model, server)
        _carry_alias_refusals(server.locations)
        _refuse_directory_names(server.locations)
        _drop_fallback_where_proxied(server.locations)
        _fallback_under_regex_alias(server.locations)
        _fallback_under_prefix_alias(server)
        # (a conditional `Header set` over an earlier one merges through the model's maps, as when rendered)
        carry_directory_proxy_headers(server, _unless(self.model), self.diags)
        todo = [(loc, [server.own_statements, server.statements]) for loc in server.locations]
        while todo:
            loc, outer = todo.pop()
            todo.extend((sub, [loc.statements] + outer) for sub in loc.locations)
            self._name_captures(loc, outer)
        self.redirects_after_rewrites(server)
        slash_named: dict = {}
        for loc, stmts, fixup in dir_methods:
            if dirmethods.has_access_phase(loc.statements + (fixup[1] if fixup is not None else [])):
                # access rules (the region's, or ones a later step laid out here: a <LocationMatch>'s merge,
                # take_merged_rules): httpd checks them before mod_dir's fixup, and the fixup's answer in nginx's
                # rewrite phase would not; its redirect goes after them
                self.slash_after_access(server, loc, fixup, slash_named)
                continue
            # last, after everything carried between locations: mod_dir's fixup runs after every rewrite
            loc.statements.extend(self.index_fixups(loc, fixup) or stmts)
        # (only where a location kept its auth_request: that location declares the FILE the refusal reads, and
        # nginx refuses a configuration reading a variable nothing declares)
        if self.refused_after_rules is not None and any(
                st.name == "auth_request" and st.args == [REFUSED_AFTER_RULES]
                for loc in all_nested(server.locations) for st in loc.statements):
            span = self.refused_after_rules
            server.locations.append(Location("=", REFUSED_AFTER_RULES, [
                Stmt("internal", [], span),
                Stmt("set", [SERVED, FILE], span, comment="the request passed the region's rules"),
                Stmt("return", ["403"], span, comment="the refusal after a region's own rules")], span))

    def redirects_after_rewrites(self, server: Server) -> None:
        """A Redirect reached by a URL a rewrite made: httpd's mod_alias runs after mod_rewrite and makes the
        redirect from the rewritten r->uri (RewriteRule [PT] in the server, or a per-directory rule's internal
        redirect), while the Redirect's map takes the remainder from the raw request line whenever that names
        the prefix too (/docs/inner/a.txt rewritten to /docs/index.html redirected to /app/inner/a.txt). The
        URI the server's rewrite phase starts with is kept (`set`, first in the server), and where the URI
        nginx has reached is another one, the redirect is made from it (the map over $uri)."""
        if not self.redirect_vars:
            return

        def rewrites(statements) -> bool:
            return any(st.name == "rewrite" and st.args[-1] not in ("redirect", "permanent")
                       or st.block and rewrites(st.block) for st in statements)

        todo, found = list(server.locations), rewrites(server.own_statements + server.statements)
        while todo and not found:
            loc = todo.pop()
            todo.extend(loc.locations)
            found = rewrites(loc.statements)
        if not found:
            return
        replaced = {}
        for var in dict.fromkeys(self.redirect_vars.values()):
            replaced[var] = var + _REWRITTEN
            self.model.maps.append(MapBlock(f"$uri|{_FIRST_URI}", replaced[var], [(r"~^(.*)\|\1$", var)],
                                            default=var + _URI_FALLBACK))
            self.model.redirect_uri_fallbacks += 1

        def swap(statements) -> None:
            for st in statements:
                if st.name == "return" and len(st.args) == 2 and st.args[1] in replaced:
                    st.args = [st.args[0], replaced[st.args[1]]]
                elif st.name == "if" and st.args[0][1:].split(" ")[0] in replaced:
                    # (the test that hands an escaped remainder to nginx's rewrite, see _redirect)
                    tested = st.args[0][1:].split(" ")[0]
                    st.args = ["(" + replaced[tested] + st.args[0][1 + len(tested):]]
                if st.block:
                    swap(st.block)

        todo = list(server.locations)
        while todo:
            loc = todo.pop()
            todo.extend(loc.locations)
            swap(loc.statements)
        swap(server.own_statements + server.statements)
        server.own_statements.insert(0, Stmt("set", [_FIRST_URI, "$uri"], None,
                                         comment="the URI before any rewrite: a Redirect a rewritten URI reaches is made from "
                                                 "the rewritten one, as httpd makes it from r->uri"))

    def lay_out_document_root(self, loc: Location, files_by_parent: dict) -> None:
        """The internal location a server-context RewriteRule maps its result onto the document root through
        (rewrite_compile `document_root_file`). httpd walks the directories of the file it maps to, and its
        <Files> sections, as for any file of the document root: their access rules, their headers and other
        settings apply to the result. So the location holds what the document root's own region holds, and a
        nested `^~` location for every <Directory> (or .htaccess) below the root, with what that directory's
        region holds; the nested locations inherit the alias."""
        alias = next(st for st in loc.statements if st.name == "alias")
        root = read_literally(alias.args[0]).rstrip("/") or "/"
        slash = [st for st in loc.statements if st.comment in DOCROOT_DIRECTORY]   # a nested location runs its own
        below = sorted({d.fs_path.rstrip("/") for d in self.directories
                        if d.fs_path.startswith("/") and fs_within(root, d.fs_path)
                        and d.fs_path.rstrip("/") != root}, key=len)
        for fs in [root] + below:
            rest = fs[len(root):].strip("/")
            matched = loc.path + (rest + "/" if rest else "")
            target = loc if not rest else Location("^~", matched, span=loc.span)
            dirs = self.covering_directories(fs)
            dir_configs = [d.settings.get("access") for d in dirs]
            span = dirs[-1].span if dirs else loc.span
            access = self.access(dir_configs, _describe(fs), span, fs=fs)
            statements = _last_wins(access + [st for d in dirs for st in d.statements], self.index_names)
            if target is loc:
                loc.statements[:0] = statements
            else:
                target.statements.extend(statements)
            files = files_by_parent.get(0, []) + [f for d in dirs for f in files_by_parent.get(id(d), ())]
            self.nest_files(target, files, dir_configs, [], matched, fs=fs)
            if target is not loc and (target.statements or target.locations):
                loc.locations.append(target)
                target.statements.extend(copy.deepcopy(slash))

    def regex_route(self, r: Route, loc_configs: list, region_access: list[Stmt] | None,
                    loc_statements: list[Stmt], files_by_parent: dict) -> Location:
        """The regex location of an AliasMatch/ProxyPassMatch/RedirectMatch, under the <Location> sections
        LOC_CONFIGS and LOC_STATEMENTS of the URLs it is consulted for (REGION_ACCESS: their access
        statements when already made)."""
        loc = Location("~*" if r.params.get("nocase") else "~", r.path, span=r.span)
        proxied = self.proxy_configs(r, r.path) if r.kind == "proxy" else []
        # a proxied request walks the <Proxy> sections instead of the directories, then the <Location>s
        if r.kind == "proxy" and self.refuse_all is None:
            access = self.access(proxied + loc_configs, r.path, r.span)
        elif region_access is not None:
            access = region_access
        else:
            roots = [d.settings.get("access") for d in self.covering_directories(self.server.root)]
            access = self.access(roots + loc_configs, r.path, r.span)
        own: list[Stmt] = []
        handler = self._handler(r, r.path, r.path, loc_statements)
        # (an AliasMatch refused for the rewrite rules of a directory it reaches keeps its access rules: their
        # own refusals are reported where they stand)
        checked = r.kind == "alias" and not r.params.get("cgi") and r.params.get("refused") in (None, ALIAS_REFUSAL)
        if checked:
            # the file it maps to is under the target's directories, not the document root's
            access, own, kept = self.regex_alias_access(r, loc_configs, files_by_parent)
            if kept:
                # a map's regular expression replaces the location's captures: the alias reads copies
                handler = [_with_copies(st, kept) if st.name == "alias" else st for st in handler]
                access = [Stmt("set", [v, "$" + k], r.span, comment=CAPTURE_COPY)
                          for k, v in kept.items()] + access
        files = self.file_statements_for_alias(r, files_by_parent) if checked else []
        loc.statements.extend(access + own + files + loc_statements + handler)
        if checked:
            # a directory further down the target adds its headers to the files the captures reach in it:
            # deepest first, as nginx takes the first nested regex location that matches. In a server refused
            # as a whole too: httpd serves those files with them, and the nested location's refusal sends them
            # (emit.inherit.refused_headers), where the AliasMatch location's own refusal does not
            seen: set[str] = set()
            below = [d for d in self.directories if d.fs_path]
            for d in sorted(below, key=lambda d: -d.fs_path.rstrip("/").count("/")):
                found = self.deeper_headers(r, d)
                if found is not None and found[0] not in seen:
                    seen.add(found[0])
                    loc.locations.append(Location(loc.modifier, found[0], access + own + found[1] + files
                                                  + loc_statements + handler, d.span, exact=True))
        return loc

    def exact_regex_route(self, loc: Location, loc_configs: list, loc_statements: list[Stmt], owner: Route | None,
                          regex_routes: list[Route], order: dict[int, int], files_by_parent: dict) -> None:
        """An exact location (`= /docs` of `Alias /docs`, `= /old` of `Redirect /old`) hides the server's regex
        locations, and nginx nests nothing in it. Where a regex entry httpd maps first there (`_maps_under`:
        observed, httpd 2.4 proxies /docs by `ProxyPassMatch ^/(docs)$` under `Alias /docs`) matches its one
        URL, the location becomes that entry's, under the <Location> sections of the URL, with the captures it
        reads taken from the URL. Where they cannot be (an expression Python's re does not read, a capture that
        is not plain text, a location the entry nests), the URL is refused (A2N347). A RedirectMatch mod_alias
        tries first there (`_redirects_first`) is taken the same way: `nest_regex_redirects` nests its copies in
        `^~` locations only, and an exact one holds none (observed: httpd 2.4 refuses /dump.sql by
        `RedirectMatch 403 \\.sql$` under `Alias /dump.sql`)."""
        for r in regex_routes:
            if not (_maps_under(r, owner, order) or _redirects_first(r, owner, order)):
                continue
            groups = _exact_groups(r.path, loc.path, bool(r.params.get("nocase")))
            if groups is False:
                continue
            made = self.regex_route(r, loc_configs, None, loc_statements, files_by_parent)
            if groups is not None and not made.locations:
                loc.statements = [_with_groups(st, groups) for st in made.statements]
                return
            self.diags.add("A2N347", f"{r.params.get('directive', r.kind)} {r.path} may match {loc.path}, which "
                           "httpd maps by it first and nginx answers from an exact location that cannot hold its "
                           f"regex location: {loc.path} is refused (deny all)", r.span,
                           directive=r.params.get("directive"), related=[loc.span] if loc.span else ())
            loc.statements = [Stmt("deny", ["all"], r.span, comment=f"{loc.path} is mapped by {r.path} first")]
            return

    def deeper_headers(self, route: Route, d: Scope) -> tuple[str, list[Stmt]] | None:
        """An AliasMatch location's nested location for the files under the directory D further down its
        target, where D and the directories between it and the target only set headers: (its regular
        expression, the headers of those directories). httpd merges D's sections after the target's for the
        file the capture maps into D, so D's `Header` lines run after theirs there. The nested location's
        expression is the AliasMatch's with a lookahead at the start of the capture the target reads first,
        which only a literal text anchored at the URL's start comes before: the capture starts at the same
        place however the expression matches, so the lookahead holds on every match or on none, and the nested
        expression matches exactly where the capture leads into D, with the captures the alias reads. None
        where no capture reaches D, D is the target's own directory, something else than headers is set on the
        way, the capture may start elsewhere, or where it ends is not known (the target goes on after it with a
        slash or another capture, the capture is repeated)."""
        target = route.target or ""
        ref = re.search(r"\$(\d)", target)
        if ref is None or not route.path:
            return None
        fixed, suffix = target[:ref.start()], target[ref.end():]
        static = fixed[:fixed.rfind("/") + 1].rstrip("/") or "/"
        rel = fixed[fixed.rfind("/") + 1:]
        if not fs_within(static, d.fs_path) or (d.fs_path.rstrip("/") or "/") == static:
            return None
        sub = d.fs_path.rstrip("/")[len(static.rstrip("/")) + 1:]
        if not sub.startswith(rel) or "/" in suffix or "$" in suffix or (suffix and sub.endswith(suffix)):
            return None
        above = {id(c) for c in self.covering_directories(static)}
        chain = [c for c in self.covering_directories(d.fs_path) if id(c) not in above]
        extra = [st for c in chain for st in c.statements]
        if not d.statements or any(st.name not in _HEADER_STATEMENTS for st in extra):
            return None
        group = _capture_bounds(route.path, int(ref.group(1)))
        if group is None:
            return None
        start, end = group
        tail = route.path[end + 1:]
        if not _LITERAL_HEAD.fullmatch(route.path[:start]) or tail[:1] in ("*", "+", "?", "{"):
            return None
        lead = _regex_escape(sub[len(rel):])
        ahead = lead + ("(?:/|$)" if not suffix and tail == "$" else "/")
        if route.params.get("nocase"):
            ahead = "(?-i:" + ahead + ")"
        return route.path[:start] + "(?=" + ahead + ")" + route.path[start:], extra

    def file_statements_for_alias(self, r: Route, files_by_parent: dict) -> list[Stmt]:
        """The statements (headers) of the <Files> sections that match every file an AliasMatch serves: its
        target ends with a fixed suffix after the last capture (`$1.txt`), and a section matching any name
        with that suffix applies to each of them in httpd. nginx cannot nest the section in the alias's
        regex location (a nested regex would replace the captures the alias reads)."""
        target = r.target or ""
        last = max((m.end() for m in re.finditer(r"\$\d", target)), default=None)
        suffix = target[last:] if last is not None else ""
        if last is None or "/" in suffix or not suffix:
            return []
        static = target[:target.find("$")]
        static = static[:static.rfind("/") + 1].rstrip("/") or "/"
        files = files_by_parent.get(0, []) + [f for d in self.covering_directories(static)
                                             for f in files_by_parent.get(id(d), ())]
        out: list[Stmt] = []
        for f in files:
            if f.statements and all(re.search(f.files_regex, "/" + name + suffix) for name in ("a", "zz9-x_y")):
                out.extend(f.statements)
        return out

    @staticmethod
    def nest_regex_redirects(made: list, regex_redirects: list, all_routes: list[Route]) -> None:
        """mod_alias answers a RedirectMatch in the translate phase, before any Alias and before a later
        Redirect (its list is tried in order, the first match wins), whatever <Location> the URL is in; nginx
        looks at regular-expression locations only where the longest prefix location is not `^~`. So a copy
        of each such redirect is nested in the `^~` locations whose URLs it may match, unless a ProxyPass
        (whose translate hook runs first) or an earlier Redirect answers there."""
        if not regex_redirects:
            return
        order = {id(r): i for i, r in enumerate(all_routes)}
        for loc, handler in made:
            if loc.modifier != "^~":
                continue
            if handler is not None and handler.kind in ("proxy", "proxy-unreachable"):
                continue
            copies = [Location(rloc.modifier, rloc.path, list(rloc.statements), rloc.span)
                      for r, rloc in regex_redirects
                      if not (handler is not None and handler.kind == "redirect"
                              and order.get(id(r), 0) > order.get(id(handler), 0))
                      and _may_match_under(r.path, loc.path, rloc.modifier == "~*")]
            loc.locations[:0] = copies

    def regex_alias_access(self, route: Route, loc_configs: list, files_by_parent: dict
                           ) -> tuple[list[Stmt], list[Stmt], dict[str, str]]:
        """An AliasMatch location: (access statements, other statements, kept captures).

        The <Directory> sections over the directory its target names before the first capture apply to
        every file it serves, with their <Files> sections. A directory further down applies only to the
        captures that reach into it, and a <Files> section only to the names it matches: where their rules
        differ from the target's by refusing (or granting what the target refuses), a map over the capture
        or the file name answers 403 in the rewrite phase. A map's regular expression replaces the location's
        captures, so the captures the alias reads are kept first (the third value: capture -> variable).
        Rules that differ otherwise cannot be chosen per capture or name: the location is refused. In a server
        refused as a whole (refuse_all) the location is refused as the target's region is, and keeps that
        region's other statements (its headers): httpd's answer there carries them, a 404 for a missing file
        too (its directory walk merges the target directory's sections and .htaccess before it stops at a
        missing one), so the refusal sends them (emit.inherit.refused_headers)."""
        what = f"the AliasMatch {route.path}"
        target = route.target
        ref = re.search(r"\$(\d)", target)
        fixed = target if ref is None else target[:ref.start()]
        static = (fixed if ref is None else fixed[:fixed.rfind("/") + 1]).rstrip("/") or "/"
        dirs = self.covering_directories(static)
        configs = [d.settings.get("access") for d in dirs]
        own = [st for d in dirs for st in d.statements]
        if self.refuse_all is not None:
            return self.access(configs + loc_configs, what, route.span, fs=static), own, {}
        base = self.access(configs + loc_configs, what, route.span)
        deeper = [] if ref is None else [d for d in self.directories if fs_within(static, d.fs_path)
                                         and (d.fs_path.rstrip("/") or "/") != static]
        refused = self._refuse_alias   # (route, section, why) -> a refusal of the whole location
        # captures into a directory further down: (pattern over the capture, its rules, the directory)
        classes: list[tuple[str, list[Stmt], Scope]] = []
        rel, suffix = (fixed[fixed.rfind("/") + 1:], target[ref.end():]) if ref is not None else ("", "")
        for d in sorted(deeper, key=lambda d: -d.fs_path.rstrip("/").count("/")):
            if any(f.settings.get("access") is not None for f in files_by_parent.get(id(d), ())):
                return refused(route, d, "its <Files> sections hold access rules"), own, {}
            self._not_applied(route, d, bool(d.statements) and self.deeper_headers(route, d) is None)
            stmts = self.access([c.settings.get("access") for c in self.covering_directories(d.fs_path)] +
                                loc_configs, what, d.span, fs=d.fs_path)
            sub = d.fs_path.rstrip("/")[len(static.rstrip("/")) + 1:]
            if stmts == base or not sub.startswith(rel):
                continue     # the same rules, or a directory no capture reaches
            if "/" in suffix or "$" in suffix or (suffix and sub.endswith(suffix)):
                return refused(route, d, "its target goes on after the capture"), own, {}
            classes.append(("~^" + _regex_escape(sub[len(rel):]) + ("/" if suffix else "(?:/|$)"), stmts, d))
        # file names: (pattern over the file name, its rules, the section)
        names: list[tuple[str, list[Stmt], Scope]] = []
        # the server's own <Files> sections (outside any <Directory>) apply to the aliased file too, merged
        # before the directories' ones as httpd appends them
        server_files = files_by_parent.get(0, [])
        for f in server_files + [f for d in dirs for f in files_by_parent.get(id(d), ())]:
            if f not in server_files:    # the server's own: their headers are `file_statements_for_alias`'s
                self._not_applied(route, f, bool(f.statements))
            for _, stmts, d in (c for c in classes if _refuses(c[1]) and f.settings.get("access") is not None):
                # merged after the directories: it may grant in a directory the map refuses
                if not _refuses(self.access([c.settings.get("access") for c in self.covering_directories(d.fs_path)]
                                            + [f.settings["access"]] + loc_configs, what, f.span)):
                    return refused(route, f, f"it decides anew under {d.fs_path}"), own, {}
            if f.settings.get("access") is not None:
                stmts = self.access(configs + [f.settings["access"]] + loc_configs, f"files matching {f.path}",
                                    f.span)
                if stmts != base:
                    regex = f.files_regex
                    if not _refuses(stmts) and regex.endswith(_PATH_INFO):
                        regex = regex[:-len(_PATH_INFO)] + "$"      # the file itself, not a directory of its name
                    names.append(("~" + regex, stmts, f))
        if not classes and not names:
            return base, own, {}
        # a map can only refuse: every other entry must keep the location's rules (the target's, or where the
        # target refuses, the one set of rules the granting entries share)
        granting = [c for c in classes + names if not _refuses(c[1])]
        kept_rules = [base] if not _refuses(base) else [granting[0][1]] if granting else []
        odd = next((c[2] for c in granting if c[1] != kept_rules[0]), None)
        if odd is not None or (names and classes and _refuses(base)):
            return refused(route, odd or names[0][2], "its access rules differ from the target's"), own, {}
        kept = {k: self.model.new_variable("a2n_capture_") for k in dict.fromkeys(re.findall(r"\$(\d)", target))}
        # a <Files> section matches names under the target's directory, never the directories above it (a
        # document root under /home/u/.sites/ is not a dot-file): the map reads the file's path from there on
        below = _with_copies(Stmt("map", [target[len(static.rstrip("/")):]], route.span), kept).args[0]
        guards = []
        for prefix, source, entries in (("a2n_alias_dir_", kept[ref.group(1)] if ref else "", classes),
                                        ("a2n_alias_file_", _quote_if_needed(below), names)):
            if entries:
                guards += self._alias_guards(prefix, source, entries, base, route.span)
        return guards + (kept_rules[0] if kept_rules else []), own, kept

    def _alias_guards(self, prefix: str, source: str, entries: list[tuple[str, list[Stmt], Scope]],
                      base: list[Stmt], span: Span) -> list[Stmt]:
        """The rewrite-phase refusals of an AliasMatch location for the captures or file names (ENTRIES: pattern,
        rules, section) whose rules refuse where the location's (BASE) do not, or the other way round. httpd's
        own refusal (a plain `deny all`) answers a 403 carrying no onsuccess header; a refusal the translation
        makes in place of rules nginx cannot check (an <If> holding access rules, A2N742) stands where httpd
        may serve the file with its onsuccess headers, so its `return 403` is one of rules not translated
        (NOT_TRANSLATED_ALIASED), on which emit.inherit.refused_headers sends them. A directory whose .htaccess
        httpd refuses (AllowOverride) fails the directory walk of the aliased file: httpd answers 500 with the
        server's `Header always` lines alone (emit.inherit._fails_early), so its `return 403` says so
        (FAILING_ALIASED), on which emit.inherit.early_failures gives the block the server's add_header list.
        Each kind gets its own map, listing every entry in order (the first pattern that matches decides)."""
        guards = []

        def sort(stmts: list[Stmt]) -> str | None:
            if not _refuses(stmts):
                return None
            return "failing" if _fails_early(stmts) else "plain" if _plain_refusal(stmts) else "untranslated"
        kinds = (("plain", None), ("failing", FAILING_ALIASED), ("untranslated", NOT_TRANSLATED_ALIASED))
        for which, comment in kinds:
            def kind(stmts: list[Stmt]) -> str:
                return "1" if sort(stmts) == which else "0"
            values = [(p, kind(st)) for p, st, _ in entries]
            if kind(base) == "0" and all(v == "0" for _, v in values):
                continue
            variable = self.model.shared_map(prefix, source, values, kind(base), span=span)
            at = next((section.span for _, st, section in entries if kind(st) == "1"), entries[0][2].span)
            guards.append(Stmt("if", [f"({variable})"], at, block=[Stmt("return", ["403"], at, comment=comment)],
                               comment="a refused section under the AliasMatch target"))
        return guards

    def _not_applied(self, route: Route, section: Scope, has_statements: bool) -> None:
        """A section under an AliasMatch target whose directives other than access rules are left out there."""
        if has_statements and section.span not in self.reported:
            self.reported.add(section.span)
            code = "A2N740" if section.kind == "directory" else "A2N741"
            self.diags.add(code, f"<{'Directory' if section.kind == 'directory' else 'Files'} {section.path}> "
                           f"under the target of AliasMatch {route.path}: only its access rules are applied to the "
                           "files the AliasMatch serves, its other directives are not", section.span,
                           related=[route.span])

    def _refuse_alias(self, route: Route, section: Scope, why: str) -> list[Stmt]:
        said = self.alias_refusals.get(section.span)
        if said is None and section.span not in self.reported:
            self.reported.add(section.span)
            self.alias_refusals[section.span] = self.diags.add(
                "A2N742", f"{section.path} under the target of AliasMatch {route.path}: {why}, and nginx cannot "
                "choose rules by the capture or the file name: every URL of the AliasMatch is refused to everyone "
                "(deny all)", section.span, related=[route.span], urls=[(route.path, route.regex)])
        elif said is not None and (route.path, route.regex) not in said.urls:
            # another AliasMatch onto the same target: its URLs are refused too, for the same section
            said.urls += ((route.path, route.regex),)
            said.relate(route.span)
        return [Stmt("deny", ["all"], section.span, comment="an access rule nginx cannot check: refused")]

    def guard_prefixes(self, scope: Scope, access: list[Stmt], locations: list[Location]) -> None:
        """A <LocationMatch> with access rules also covers URLs under ^~ and = locations, where nginx never consults a
        regex location of the server. A location whose URLs the section's regex never matches is left alone: httpd never
        merges the section there, and a refusal that cannot run would still count as one (the methods a limit_except
        catches refused past it, A2N869). Where httpd's merge of the section into a prefix location's region (its
        directories and <Location> sections, SCOPE among them in configuration order) decides as the region does,
        nothing is done there. Where the merge refuses everyone, the section's URLs are refused in the rewrite phase:
        exact for a plain refusal. Elsewhere, under a prefix location serving files with nothing nginx does not inherit
        into a nested location, it is nested there with that merge (`nest_under_prefix`); otherwise its URLs are
        refused, narrower than httpd (A2N742). ACCESS: the section's own rules, all that is known of a location whose
        region was not laid out here."""
        order = lambda s: self.scope_order.get(id(s), 0)

        def decided(loc: Location) -> tuple[bool, list[Stmt], list]:
            """Whether merging SCOPE may change what httpd decides under LOC, the merge and its sections. Not the
            section's rules alone: a later <Location> of the region may grant what they refuse, and an
            `AuthMerging` joins them to the rules of the region's whole chain of <Location> sections before, which
            may bring back the directories' rules an earlier section replaced (mod_authz_core, see
            passes.access.merge). Nor the statements alone: a refusal in place of rules httpd answers with its own
            error for everyone (Stmt.shut_region: an AuthType without Require beside Order/Allow/Deny) sends no
            onsuccess header, where the merge's refusal stands for rules that may let a request in (the section's
            `Require ip`: httpd served /img/sub/ with its onsuccess Referrer-Policy), and the guard's refusal
            sends them (emit.inherit.refused_headers). Worked out without reporting: only what is laid out is
            reported."""
            region = self.prefix_regions.get(id(loc))
            if region is None:
                return bool(access), access, []
            dir_configs, covering = region[0], region[1]
            configs = dir_configs + [s.settings.get("access") for s in sorted(list(covering) + [scope], key=order)]
            merged = self.access(configs, _describe(loc.path), scope.span, quiet=True)
            before = self.access(dir_configs + [s.settings.get("access") for s in covering], _describe(loc.path),
                                 scope.span, quiet=True)
            # (a location nested in LOC, a <Files> section's or an earlier regex section's, merges sections of
            # its own: the URLs it answers may be decided otherwise)
            return bool(loc.locations) or [_shape(st) for st in merged] != [_shape(st) for st in before] \
                or _lifts_shut(before, merged), merged, \
                configs

        def reached(loc: Location) -> bool:
            if loc.modifier == "=":
                try:
                    return re.search(scope.path, loc.path, re.IGNORECASE if scope.nocase else 0) is not None
                except re.error:
                    pass
            return _may_match_under(scope.path, loc.path, bool(scope.nocase))

        start = _literal_start(scope.path, bool(scope.nocase))

        def shadowed(loc: Location) -> bool:
            """Every URL the section matches under LOC lies under a longer ^~ location, which nginx picks."""
            if start is None or start[1]:
                return False
            return any(o is not loc and o.modifier == "^~" and len(o.path) > len(loc.path)
                       and o.path.startswith(loc.path) and start[0].startswith(o.path) for o in locations)

        others = [s for s in self.regex_scopes if s is not scope and s.settings.get("access") is not None
                  and _regexes_may_overlap(s.path, bool(s.nocase), scope.path, bool(scope.nocase))]

        def exact(loc: Location, merged: list[Stmt]) -> bool:
            """Whether MERGED is httpd's own refusal of every URL the section matches under LOC: also where
            another <LocationMatch> with access rules matches the URL, which httpd merges before or after it
            (a `Satisfy Any` whose host rules pass lifts a later section's `Require`, a later section's rules
            replace its). Worked out for each set of them a URL may match (more than four: taken as not so).
            Under a plain prefix location without nested ones, nginx answers those URLs from the regex
            locations, which merge the sections there (`nest_regex_overlaps`): the refusal is never reached."""
            if not _plain_refusal(merged) or len(others) > 4:
                return False
            if loc.modifier == "" and not loc.locations:
                return True
            region = self.prefix_regions.get(id(loc))
            dir_configs, covering = (region[0], list(region[1])) if region is not None else ([], [])
            # (one an exact location took in, `take_merged_rules`, is among its region's sections already)
            maybe = [o for o in others if not any(o is c for c in covering)]
            return all(_plain_refusal(self.access(dir_configs + [s.settings.get("access") for s in
                                                      sorted(covering + [scope] + list(more), key=order)],
                                       _describe(loc.path), scope.span, quiet=True))
                       for n in range(1, len(maybe) + 1) for more in combinations(maybe, n))

        guarded: list[tuple[Location, list[Stmt], bool]] = []
        for loc in locations:
            if loc.modifier != "=" and shadowed(loc):
                continue
            changed, merged, configs = decided(loc)
            if not changed or not _refuses(merged) and (
                    self.nest_under_prefix(scope, loc) if loc.modifier != "="
                    else reached(loc) and self.take_merged_rules(loc, configs, scope)):
                continue
            if not reached(loc):
                continue
            if configs:
                # the refusal stands for the merge: what it refuses in place of rules not translated is said
                self.access(configs, f"{_describe(loc.path)} matching {scope.path}", scope.span)
            guarded.append((loc, merged, exact(loc, merged)))
        # (a refusal of the translation's own in the merge is reported where it is made)
        if scope.span not in self.reported and any(not _refuses(merged) or _plain_refusal(merged) and not alike
                                                   for loc, merged, alike in guarded):
            self.reported.add(scope.span)
            self.diags.add("A2N742", f"<LocationMatch {scope.path}>: its access rules are enforced in its own "
                           "regex location; under prefix locations nginx never consults it, so its URLs there "
                           "are refused to everyone (return 403)", scope.span)
        op = "~*" if scope.nocase else "~"
        # the regex locations nested in them too (<Files> sections): nginx picks a nested one before any
        # server-level regex location, and rewrite-phase statements are not inherited into it
        todo = list(guarded)
        while todo:
            loc, merged, alike = todo.pop()
            todo.extend((n, merged, alike) for n in loc.locations)
            # httpd's own refusal, or one in place of rules not translated (their headers are sent on it)
            refusal = Stmt("return", ["403"], scope.span, comment=None if alike else NOT_TRANSLATED_HERE)
            loc.statements.insert(0, Stmt("if", [f"($uri {op} {_quote_if_needed(scope.path)})"], scope.span,
                                          block=[refusal], comment=LOCATIONMATCH_GUARD))

    def guard_regex_routes(self, scope: Scope, access: list[Stmt]) -> None:
        """A <LocationMatch> (or `<Location ~>`) with access rules also covers URLs an AliasMatch,
        ProxyPassMatch or RedirectMatch maps: httpd merges it after the directories of the result, but nginx
        picks the route's regex location, listed first, and never consults the section's. So where their
        expressions may match the same URLs, the route's location (and those nested in it) refuses the
        section's URLs in the rewrite phase: exact where the section refuses everyone, else narrower than
        httpd (A2N742). ACCESS: the section's own rules."""
        op = "~*" if scope.nocase else "~"
        guarded = [loc for loc in self.regex_route_locations
                   if _regexes_may_overlap(loc.path, loc.modifier == "~*", scope.path, bool(scope.nocase))]
        if not guarded:
            return
        exact = _refuses(access) and not any(st.comment and "refused" in st.comment for st in access)
        if not _refuses(access) and scope.span not in self.reported:
            self.reported.add(scope.span)
            self.diags.add("A2N742", f"<LocationMatch {scope.path}>: its access rules are enforced in its own "
                           "regex location; nginx picks the regex location of an AliasMatch, ProxyPassMatch or "
                           "RedirectMatch listed before it for URLs both match, so its URLs there are refused to "
                           "everyone (return 403)", scope.span)
        todo = list(guarded)
        while todo:
            loc = todo.pop()
            todo.extend(loc.locations)
            refusal = Stmt("return", ["403"], scope.span, comment=None if exact else NOT_TRANSLATED_HERE)
            loc.statements.insert(0, Stmt("if", [f"($uri {op} {_quote_if_needed(scope.path)})"], scope.span,
                                          block=[refusal], comment=LOCATIONMATCH_GUARD))

    def take_merged_rules(self, loc: Location, configs: list, scope: Scope) -> bool:
        """An exact location whose one URL the <LocationMatch> SCOPE matches takes the rules of SCOPE merged into
        its region (CONFIGS) in place of the region's own, where those are still its statements as laid out.
        SCOPE joins the region's sections there: httpd merges every later <LocationMatch> after it too, so a
        later one is weighed against the rules laid out, not against the region's own (which SCOPE replaced)."""
        own = self.region_access.get(id(loc))
        if own is None or not all(any(st is o for st in loc.statements) for o in own):
            return False
        merged = self.access(configs, f"{_describe(loc.path)} matching {scope.path}", scope.span)
        first = next((i for i, st in enumerate(loc.statements) if any(st is o for o in own)), 0)
        kept = [st for st in loc.statements if not any(st is o for o in own)]
        loc.statements = kept[:first] + merged + kept[first:]
        self.region_access[id(loc)] = merged
        region = self.prefix_regions.get(id(loc))
        if region is not None:
            # (a copy: the region's other locations, `^~ PATH/`, share the list and answer other URLs)
            self.prefix_regions[id(loc)] = (region[0], list(region[1]) + [scope]) + tuple(region[2:])
        return True

    def nest_under_prefix(self, scope: Scope, loc: Location) -> bool:
        """Nest the <LocationMatch> SCOPE in the prefix location LOC (nginx tries the regex locations nested in
        the longest matching prefix even under ^~), with the access rules of LOC's directories and of its
        <Location> sections and SCOPE merged in configuration order, and their statements. False (nothing
        done) where that would not be what httpd does: LOC is not a plain region serving files (an exact
        location, a handler or rewrite-phase statements nginx does not inherit into a nested location), or
        holds a nested location the URLs may also match (which nginx would try first or instead) that cannot
        hold the section's location too (`_hosts_nested`: a <Files> section's does), or an earlier
        <LocationMatch> not nested there changes what httpd decides for URLs both match (`_merged_with_earlier`).
        A region a ProxyPass serves is one too: httpd merges the <Location> sections after its <Proxy> sections,
        and the nested location passes the same backend URL (`_nested_proxy_pass`)."""
        if loc.modifier == "" and not loc.locations:
            return True     # nginx goes on to the server's regex locations from there
        region = self.prefix_regions.get(id(loc))
        if region is None or loc.modifier not in ("", "^~") or not _only_refusing(loc.directory_rules):
            return False
        dir_configs, covering, dirs, handler = region
        rules = {id(st) for st in loc.directory_rules}
        proxied = handler is not None and handler.kind == "proxy"
        if handler is not None and handler.kind != "alias" and not proxied or scope.proxy is not None:
            return False
        if not _may_match_under(scope.path, loc.path, bool(scope.nocase)):
            return True     # none of its URLs lies under this prefix: nothing to guard either
        passing = _nested_proxy_pass(loc, scope.span) if proxied else []
        if passing is None:
            return False
        if any(st.name in _NOT_INHERITED and not (st.name == "if" and st.comment in ACCESS_IF_COMMENTS)
               and not (proxied and st.name == "proxy_pass") and id(st) not in rules for st in loc.statements):
            return False
        hosts = [n for n in loc.locations if n.modifier not in ("~", "~*") or _regexes_may_overlap(
            n.path, n.modifier == "~*", scope.path, bool(scope.nocase))]
        if hosts and (scope.statements or loc.directory_rules or not all(self._hosts_nested(n, loc) for n in hosts)):
            return False
        if any(_reads_captures(st) for st in scope.statements):
            return False
        sections = sorted(list(covering) + [scope], key=lambda s: self.scope_order.get(id(s), 0))
        if self._merged_with_earlier(scope, loc, dir_configs, sections):
            return False
        access = self.access(dir_configs + [s.settings.get("access") for s in sections],
                             f"{_describe(loc.path)} matching {scope.path}", scope.span)
        statements = _last_wins([st for d in dirs for st in d.statements] +
                                [st for s in sections for st in s.statements], self.index_names)
        inner = Location("~*" if scope.nocase else "~", scope.path,
                         _detached(access, loc.statements, scope.span) + _own_listing(access, loc.statements,
                                                                                      scope.span)
                         + statements + passing, scope.span)
        for n in hosts:
            # (its own statements are all inherited: the section's location adds the merged rules alone)
            parent = loc.statements + n.statements
            n.locations.append(Location(inner.modifier, scope.path, _detached(access, parent, scope.span) +
                                        _own_listing(access, parent, scope.span), scope.span))
            self.nested_regex[id(n.locations[-1])] = scope
        loc.locations.append(inner)
        self.nested_regex[id(inner)] = scope
        return True

    def _hosts_nested(self, n: Location, loc: Location) -> bool:
        """Whether a <LocationMatch>'s location with its merged access rules alone can be nested in N, a
        regular expression location nested in a prefix one that matches some of the section's URLs too (a
        <Files> section's): nginx picks N there and never the section's own nested location after it, so
        under `<FilesMatch "\\.(txt|html)$">` in the document root the URLs of `<LocationMatch
        "^/img/.*\\.txt$">` with `Require valid-user` were refused to everyone, where httpd serves the file to
        a valid user with its onsuccess headers (X-Frame-Options DENY beside the always line's SAMEORIGIN).
        So where N holds nothing its nested location would not inherit (no rewrite-phase statement or handler)
        nor access rules but those of LOC's region (httpd merges <Files> sections before <Location> ones, and
        SCOPE's rules replace the directories' there: the nested location's rules are its own), and nests
        nothing, the section's location goes there too, and inherits N's headers."""
        def access(stmts: list[Stmt]) -> list:
            return [_shape(st) for st in stmts if st.name in _ACCESS_NAMES]
        return n.modifier in ("~", "~*") and not n.locations and id(n) not in self.nested_regex and \
            not any(st.name in _NOT_INHERITED or st.name == "alias" for st in n.statements) and \
            access(n.statements) in ([], access(loc.statements))

    def _merged_with_earlier(self, scope: Scope, loc: Location, dir_configs: list, sections: list[Scope]) -> bool:
        """Whether an earlier <LocationMatch> with access settings, not nested in LOC (it decided there as the
        region does; a nested one it may overlap was ruled out before), may match URLs of SCOPE under LOC and
        change what httpd decides for them: httpd merges it before SCOPE, and what SCOPE does not set stays that
        section's (mod_access_compat has no merger, so its Order/Allow/Deny hold under a later section without
        them). The location nested for SCOPE alone would drop them (SECTIONS: the region's <Location> sections
        and SCOPE)."""
        order = lambda s: self.scope_order.get(id(s), 0)
        earlier = [s for s in self.regex_scopes if order(s) < order(scope) and s.settings.get("access") is not None
                   and _may_match_under(s.path, loc.path, bool(s.nocase))
                   and _regexes_may_overlap(s.path, bool(s.nocase), scope.path, bool(scope.nocase))]
        if not earlier:
            return False
        alone = self.access(dir_configs + [s.settings.get("access") for s in sections], _describe(loc.path),
                            scope.span, quiet=True)
        merged = self.access(dir_configs + [s.settings.get("access") for s in sorted(sections + earlier, key=order)],
                             _describe(loc.path), scope.span, quiet=True)
        return [_shape(st) for st in merged] != [_shape(st) for st in alone]

    def regex_routes_before(self, scope: Scope) -> list[Location]:
        """The regex locations of the AliasMatch/ProxyPassMatch/RedirectMatch entries that may match URLs of
        the <LocationMatch> SCOPE: httpd maps the URL by the entry and then merges every matching <Location>
        section, SCOPE's Header lines included (observed: httpd 2.4 sends `Header always set` of `<LocationMatch
        "\\.json$">` with the answer `ProxyPassMatch ^/api/(.*)$` proxies for /api/v1/x.json); nginx lays the
        entry's location out first and stops at the first regex location that matches, so the section's own
        location is never reached there."""
        return [loc for loc in self.regex_route_locations
                if _regexes_may_overlap(loc.path, loc.modifier == "~*", scope.path, bool(scope.nocase))]

    def carry_regex_headers(self, scope: Scope, locations: list[Location]) -> None:
        """A <LocationMatch>'s Header lines also apply to its URLs under ^~ and = locations (and under nested
        ones), where nginx never consults a regex location of the server, and under the regex locations of the
        entries laid out before it (`regex_routes_before`): there each add_header is repeated
        with a value that is its own where the URL matches the expression, and empty elsewhere (a `set`
        replacing the location's own header only there). Its `Header unset` cannot be made conditional."""
        headers = [st for st in scope.statements if st.name == "add_header" and len(st.args) >= 2]
        if not headers:
            return
        key = ("~*" if scope.nocase else "~") + scope.path
        copies = []
        gated = self.model.onsuccess_ungated
        for st in headers:
            value = self.model.shared_map("a2n_hdr_", "$uri", [(key, st.args[1])], '""', span=scope.span)
            if len(st.args) == 2 and st.args[1] in gated and value not in gated:
                # an onsuccess header stays one (written with `always`, ungated on a refusal where it matches)
                found = gated[st.args[1]]
                gated[value] = self.model.shared_map("a2n_hdr_", "$uri", [(key, found)], '""') \
                    if isinstance(found, str) else found
            copies.append(Stmt("add_header", [st.args[0], value, *st.args[2:]], st.span,
                               comment="<LocationMatch> header, where nginx does not reach its location",
                               resets=st.resets, conditional=st.resets is not None, late=st.late))
        todo = list(locations)
        while todo:
            loc = todo.pop()
            todo.extend(loc.locations)
            if self.nested_regex.get(id(loc)) is scope:
                continue    # its own location, nested in a prefix one: its lines are there already
            if not any(st.name == "internal" for st in loc.statements):
                loc.statements.extend(Stmt(c.name, list(c.args), c.span, c.comment, None, c.resets, c.conditional,
                                           late=c.late)
                                      for c in copies)

    def _name_captures(self, loc: Location, outer: list[list[Stmt]]) -> None:
        """A regex location whose directives read its captures as $1..$9 (RedirectMatch, AliasMatch) and that
        holds an `if` or `set` (an access rule put first, a map it reads), or whose access phase reads a
        variable (an auth_basic realm that a map of the other access rules turns off, own or inherited from
        the levels OUTER, innermost first) before a content handler (alias, proxy_pass) reads them: the maps'
        regular expressions reset $1..$9 before the directive reads them (a redirect to /old/.html for
        /old/a.txt, an alias to /srv/alias1/.txt for /blog/a.txt), so the location's captures are read by
        name instead. Per-directory rewrite rules carried into the location (a <Files>
        section's, nested in a directory with rules) read their own regex's captures, never the location's.
        The statements renamed are copies: a location copied elsewhere (a RedirectMatch's, nested in a `^~`
        location) holds the same statements, and names its own regex's captures, or keeps $1..$9, there."""
        if loc.modifier not in ("~", "~*"):
            return
        numbered = re.compile(r"\$(?:\{(\d)\}|(\d))")
        carried = {id(st) for st in loc.directory_rules}

        def own(stmts: list[Stmt]) -> list[Stmt]:
            """The statements whose $1..$9 are the location's: not a `rewrite` (its own regex's), nor what an
            `if` on a regex holds, nor a per-directory rule's statement."""
            out = []
            for st in stmts:
                if st.name == "rewrite" or st.name == "if" and "~" in " ".join(st.args) or id(st) in carried:
                    continue
                out.append(st)
                if st.block:
                    out.extend(own(st.block))
            return out

        first = next((i for i, st in enumerate(loc.statements)
                      if any(any(numbered.search(a) for a in o.args) for o in own([st]))), None)
        if first is None:
            return      # no capture read
        late = loc.statements[first].name not in _REWRITE_PHASE
        if not any(st.name in ("if", "set") for st in loc.statements[:first]) and not (
                late and _access_reads_variables([loc.statements] + outer)):
            return      # read before anything else runs (`set $a2n_capture_1 $1`)
        from ..passes.rewrite_compile import _name_groups
        self.named_locations += 1
        pattern, names = _name_groups(loc.path, f"a2n_lm{self.named_locations}_")
        loc.path = pattern
        loc.statements[:] = [_clone(st) if own([st]) else st for st in loc.statements]
        for st in own(loc.statements):
            if st.name != "if":
                st.args = [numbered.sub(lambda m: "${" + names[int(m.group(1) or m.group(2))] + "}"
                                        if int(m.group(1) or m.group(2)) in names else "", a) for a in st.args]

    def merge_into(self, existing: Location, loc: Location, access: list[Stmt], plain: Stmt | None = None) -> None:
        """httpd checks access before per-directory rewrites run; nginx runs a location's rewrites first.
        A plain refusal moves into the rewrite phase (`return 403` first); anything else is an error.
        PLAIN: the plain refusal of a refused server's region whose ACCESS refuses after its own rules
        (refusal_after_rules): httpd refuses there before its fixups (mod_rewrite's per-directory rules, mod_dir's
        redirect of a directory without its slash), while those rules would answer in nginx's rewrite phase,
        before the auth_request refusing after them (a 301 where httpd answers 403): the region takes the plain
        refusal instead."""
        if existing.directory_rules and any(st.name == "proxy_pass" for st in loc.statements):
            # a proxied URL never walks the directory: its per-directory rules do not run in httpd
            existing.statements = [st for st in existing.statements
                                   if not any(st is r for r in existing.directory_rules)]
            span = next((st.span for st in existing.directory_rules if st.span), existing.span)
            if ("A2N837", span) not in self.reported:
                self.reported.add(("A2N837", span))
                self.diags.add("A2N837", f"the per-directory rewrite rules of {existing.path} do not run for the "
                               "URLs a ProxyPass maps there (httpd never walks the directory for a proxied "
                               "request): left out of the proxied location", span, directive="RewriteRule")
            existing.proxied_rules, existing.directory_rules = existing.directory_rules, []
        rewrites = [st for st in existing.statements if st.name in ("rewrite", "return", "if", "set", "break")]
        if all(st.name == "return" and st.args == ["403"] for st in rewrites):
            rewrites = []   # a refusal in place of the rules (A2N838): nothing runs before the access rules
        if rewrites and access and plain is not None:
            loc.statements = [plain] + [st for st in loc.statements if not any(st is a for a in access)]
            access = [plain]
        if rewrites and access:
            if all(st.name == "deny" and st.args == ["all"] for st in access):
                refusal = Stmt("return", ["403"], access[0].span, comment=ACCESS_REFUSAL)
                existing.statements.insert(0, refusal)
                # carried with the rules into nested locations (a <Files> section's), which run them too, where
                # they inherit this access (_carried_rules)
                existing.directory_rules.insert(0, refusal)
            else:
                self.diags.add("A2N745", f"location {existing.path}: its per-directory rewrite rules run before its "
                               "access rules in nginx, and a rewrite to another location skips them; httpd checks "
                               "access first", access[0].span or existing.span,
                               hint="repeat the access rules in the locations the rules rewrite to")
        existing.statements[:0] = [st for st in loc.statements if st not in existing.statements]
        existing.locations.extend(loc.locations)

    def _report_aliased_name(self, f: Scope, renamed: str, matched: str) -> None:
        """A2N747 for the URLs of an Alias onto a path whose name a file section with access rules matches:
        nginx applies the section to all of them, as httpd does where that path is a file (the rest of the URL
        being path info), not where it is a directory."""
        url = matched.rstrip("/")
        if ("A2N747", f.span, url) in self.reported:
            return
        self.reported.add(("A2N747", f.span, url))
        self.diags.add("A2N747", f"<Files {f.path}>: {url} is aliased to a path named {renamed[1:]}, which the "
                       f"section matches: nginx applies its rules to {url} and every URL below it; httpd does so "
                       f"where that path is a file, not a directory", f.span, urls=[(url, False)])

    def refused_index_listing(self, loc: Location, files: list[Scope], dir_configs: list, loc_configs: list) -> None:
        """mod_dir looks each DirectoryIndex name up with a subrequest, and where one is refused (any status
        but 200 and 404) and no name is found, it answers that refusal instead of letting mod_autoindex list the
        directory (mod_dir.c fixup_dir; observed: 403 for a listing directory under <Files index.php> Require all
        denied, index.php missing). nginx's index module only looks for the files, so autoindex listed it: where
        a <Files> section refuses everyone an index name of LOC, its listing is turned off (nginx answers 403)."""
        if not any(st.name == "autoindex" and st.args == ["on"] for st in loc.statements):
            return
        names = dirmethods.index_names(loc.statements, self.outer_blocks())
        for f in files:
            config = f.settings.get("access")
            if config is None or not f.files_regex or not _refuses_all(dir_configs + [config] + loc_configs):
                continue
            if any(re.search(f.files_regex, "/" + name, re.I if f.nocase else 0) for name in names):
                loc.statements = [Stmt("autoindex", ["off"], st.span, comment=f"httpd refuses the index {f.path}")
                                  if st.name == "autoindex" else st for st in loc.statements]
                return

    def handler_off_unplaced(self, server: Server, off: tuple) -> None:
        """SetHandler default-handler over the whole document root: the server's script handler locations are regex
        locations nginx picks before `location /`, which cannot keep them out."""
        kept_out = [l for l in server.locations if l.runs_scripts and (off[0] == "all" or l.mime_handler)]
        if kept_out and ("A2N101", off[2].span) not in self.reported:
            self.reported.add(("A2N101", off[2].span))
            self.diags.add("A2N101", f"SetHandler {' '.join(off[2].args)} over the document root: the server's "
                           "script handler locations still run the scripts there, which httpd serves as files",
                           off[2].span, directive="SetHandler",
                           hint="scope the script handler to the directories that run scripts")

    def nest_files(self, loc: Location, files: list[Scope], dir_configs: list, loc_configs: list,
                   matched: str, loc_headers: list[Stmt] = (), fs: str | None = None,
                   renamed: str | None = None) -> None:
        """<Files> sections merge between directories and locations; nginx needs them nested in every
        location they apply to (a ^~ location hides the server's regex locations). httpd merges every
        section matching a name, nginx picks the first matching location: see `nest_overlaps` (access) and
        `_with_overlaps` (header lines, where only the first section has access rules). LOC_HEADERS: the
        Header lines of the <Location> sections of LOC, which httpd runs after a <Files> section's
        (ap_location_walk merges after ap_file_walk): a section naming one of their headers gets them again
        after its own lines, so a Location's `Header set` replaces the Files' line as in httpd, instead of
        the Files' line coming after the Location's it inherits (the render drops the inherited copies). FS: the
        directory httpd's directory walk reaches for LOC, where one does (see `access`). RENAMED: `/NAME` of the
        file an Alias maps LOC onto (`_aliased_name`), which the sections matching it hold over all of LOC."""
        before, headers_of, after_of = len(loc.locations), {}, {}
        nested: list[tuple[Scope, Location]] = []
        merged: list = []       # the access of the sections matching an exact location's URL, in order
        for f in files:
            config = f.settings.get("access")
            static = bool(f.settings.get("static_files"))
            if config is None and not f.statements and not static:
                continue
            access = self.access(dir_configs + [config] + loc_configs, f"files matching {f.path}", f.span, fs=fs)
            if loc.modifier == "=" or (renamed is not None and re.search(f.files_regex, renamed)):
                # an exact location cannot hold another: decide for its one URL here; an Alias naming a file of
                # a matching name holds the section over its whole location (the rest of the URL is path info)
                if re.search(f.files_regex, renamed or matched):
                    if renamed is not None and config is not None:
                        self._report_aliased_name(f, renamed, matched)
                    if config is not None:
                        merged.append(config)
                        access = self.access(dir_configs + merged + loc_configs, f"files matching {f.path}",
                                             f.span, fs=fs)
                    # (the refusal after the region's rules too: the merged rules end with their own, and
                    # nginx takes one auth_request a block)
                    loc.statements = [st for st in loc.statements if st.name not in ACCESS_NAMES
                                      and not (st.name == "if" and st.comment in ACCESS_IF_COMMENTS)
                                      and not (st.name == "auth_request" and st.args == [REFUSED_AFTER_RULES])]
                    # <Files> merge after the directories: their once-per-block settings replace the region's
                    own = {st.name for st in f.statements if st.name in _SINGLE_VALUED}
                    loc.statements = access + list(f.statements) + [st for st in loc.statements
                                                                     if st.name not in own]
                continue
            if f.settings.get("script_alias") and any(st.name == "alias" for st in loc.statements):
                loc.locations.append(_aliased_script_location(f, access))
                if f.span not in self.reported:
                    self.reported.add(f.span)
                    self.diags.add("A2N720", f"<FilesMatch {f.path}> under the Alias {loc.path}: scripts run as the "
                                   "aliased file; path info after them (/x.php/extra) answers 404, where httpd runs "
                                   "the script", f.span)
                continue
            regex = f.files_regex
            rules, region = _rules(access), _rules(loc.statements)
            if _admits_more(rules, region) and regex.endswith(_PATH_INFO):
                # rules that may admit what the region refuses hold for the file itself only: a directory of that
                # name (and the paths below it) keeps the region's rules, and so does path info after the file
                regex = regex[:-len(_PATH_INFO)] + "$"
                if ("A2N772", f.span) not in self.reported:
                    self.reported.add(("A2N772", f.span))
                    self.diags.add("A2N772", f"the file section {f.path}: its rules hold in nginx for URLs ending "
                                   "with a matching name; a URL going on after it (path info, /x.css/more) keeps the "
                                   "rules of the directory, where httpd applies the file's and answers 404", f.span)
                mine, theirs = _realm(rules), _realm(region)
                if mine is not None and theirs is not None and mine != theirs and \
                        ("A2N867", f.span) not in self.reported:
                    self.reported.add(("A2N867", f.span))
                    self.diags.add("A2N867", f"the file section {f.path} asks for a login in realm \"{mine}\" where its "
                                   f"directory asks in \"{theirs}\": a URL going on after a matching name (path info, "
                                   "or a name that does not exist followed by more path) gets the directory's "
                                   "challenge in nginx, where httpd asks in the file section's realm", f.span)
            after = _after_files(f.statements, loc_headers)
            own_location = Location("~", regex, _detached(access, loc.statements, f.span) + list(f.statements)
                                    + after, f.span, static_only=static)
            held = _directory_answer(loc.statements, region, rules, own_location.statements)
            if held is not None:
                # httpd matches the section against the name its directory walk stops at: under a directory that
                # does not exist (/d/missing/a.txt) that is `missing`, and the directory's rules hold where no
                # name of the URL before the last matches: its 500 for an AuthType without Require, or the
                # translation's refusal of rules nginx cannot check (httpd answers 403, or 500)
                own_location.statements[:0] = _walk_test(own_location) + [
                    Stmt("if", [f"({WALK})"], f.span, block=[Stmt("return", [held], f.span)],
                         comment="the walk stops at a missing directory's name: the directory's answer holds")]
            loc.locations.append(own_location)
            nested.append((f, own_location))
            headers_of[id(own_location)] = f.statements
            after_of[id(own_location)] = after
        # where a later section has rules of its own, nest_overlaps lays out the later ones' header lines too
        headers_too = not all(f.settings.get("access") is None for f, _ in nested[1:])
        self.overlaps_left = _OVERLAP_LOCATIONS
        for i, (f, own_location) in enumerate(nested):
            self.nest_overlaps(own_location, [f], nested[i + 1:], dir_configs, loc_configs, loc.statements,
                               headers_too=headers_too, loc_headers=loc_headers, fs=fs)
        if not headers_too:
            # a location combining sections' header lines carries the access of the first of them alone: only
            # where no later section has rules of its own (`nest_overlaps` lays those out)
            loc.locations[before:] = _with_overlaps(loc.locations[before:], headers_of, after_of, loc_headers)

    def nest_overlaps(self, outer: Location, matched: list[Scope], later: list[tuple[Scope, Location]],
                      dir_configs: list, loc_configs: list, parent: list[Stmt], depth: int = 0,
                      headers_too: bool = False, loc_headers: list[Stmt] = (), fs: str | None = None) -> None:
        """httpd merges every <Files> section matching a name, in order; nginx answers from the first regex
        location matching the URL. So the location OUTER of the sections MATCHED holds, for each later section
        whose access rules change what those sections decide (HEADERS_TOO: or that has header lines), a nested
        location of its pattern with the rules of them all merged (and their statements): a name matching both
        is judged, and answered with the headers, as httpd does. Merged rules that may admit what the sections
        matched refuse hold where one name matches them all (httpd matches every section against the one name
        its walk stops at), the URL's last or, where they admit no more than the directory, followed by path
        info (`kept_names`): a URL going on after a name only some of them match keeps the outer rules.
        Header lines count a conditional unset's marker; LOC_HEADERS: the <Location> sections' Header lines,
        which httpd runs after every file section's: a nested location naming one of their headers ends with
        them (`_after_files`), as each section's own location does."""
        configs = [f.settings.get("access") for f in matched]
        current = self.access(dir_configs + configs + loc_configs, f"files matching {matched[-1].path}",
                              matched[-1].span, fs=fs)
        for j, (f, loc) in enumerate(later):
            config = f.settings.get("access")
            headers = headers_too and any(st.name in _ORDERED_LINES for st in f.statements)
            if (config is None and not headers) or not _may_overlap(loc.path, outer.path):
                continue
            access = current if config is None else \
                self.access(dir_configs + configs + [config] + loc_configs, f"files matching {f.path}", f.span,
                            fs=fs)
            if not headers and [_refusal_shape(st) for st in access] == [_refusal_shape(st) for st in current]:
                continue
            path = loc.path
            if _admits_more(_rules(access), _rules(current)):
                # rules that may admit what the sections matched refuse hold where one name matches them all:
                # httpd judges the one name its walk stops at, so a URL going on after a name only the sections
                # matched accept (a file and its path info, /.htaccess/a.txt) keeps their rules. Path info after
                # the name matching them all gets the merged rules too (httpd asks the login of
                # /secret.txt/x's sections before its 404), unless they may admit what the directory refuses
                group = matched + [f]
                path = _last_name([s.files_regex for s in group],
                                  self.kept_names(group, access, dir_configs, loc_configs, parent))
            if depth >= 4 or path is None or self.overlaps_left <= 0:
                # more sections overlapping than are laid out: their names are refused rather than opened
                access = [Stmt("deny", ["all"], f.span, comment="overlapping file sections: refused")]
                path = loc.path
            shapes = set()
            statements = []
            for st in [st for s in matched + [f] for st in s.statements]:
                if _shape(st) not in shapes:
                    shapes.add(_shape(st))
                    statements.append(st)
            # (nginx inherits allow/deny and auth_basic through every enclosing level)
            inner = Location("~", path, _detached(access, parent + outer.statements, f.span) + statements
                             + _after_files(statements, loc_headers), f.span,
                             static_only=outer.static_only or loc.static_only)
            outer.locations.append(inner)
            self.overlaps_left -= 1
            if depth < 4 and self.overlaps_left > 0:
                self.nest_overlaps(inner, matched + [f], later[j + 1:], dir_configs, loc_configs, parent, depth + 1,
                                   headers_too, loc_headers, fs)

    def kept_names(self, group: list[Scope], access: list[Stmt], dir_configs: list, loc_configs: list,
                   parent: list[Stmt]) -> list[str] | None:
        """Where the merged rules ACCESS of the file sections GROUP may hold for path info after a name matching
        them all: the patterns of the sections whose own rules (with the directory's) they may widen, names
        the path info must not hold (see `_last_name`); None where they may admit what the directory PARENT
        refuses (they hold for the URL's last name only). A directory of the name is walked through by httpd,
        which judges the name below it with the sections it matches alone."""
        if _admits_more(_rules(access), _rules(parent)):
            return None
        return [s.files_regex for s in group if _admits_more(_rules(access), _rules(self.access(
            dir_configs + [s.settings.get("access")] + loc_configs, f"files matching {s.path}", s.span,
            quiet=True)))]

    def nest_regex_overlaps(self, outer: Location, matched: list[Scope], later: list[tuple[Scope, Location]],
                            root_configs: list, root_locations: list, root_statements: list[Stmt],
                            depth: int = 0) -> None:
        r"""httpd merges every <LocationMatch> (and `<Location ~>`) matching a URL, in configuration order; nginx
        answers from the first matching regex location alone, so a later section's access rules, headers or
        handler were lost where an earlier section also matches (an earlier `<Location ~ ^/api>` shadowing a
        later `<LocationMatch ^/api/.*\.txt$>` that denies). So the location OUTER of the sections MATCHED
        holds, for each later section that may match the same URLs, a nested location of its pattern with the
        sections merged as httpd merges them (access rules, statements, the last section's handler); chains of
        more sections nest further. Where that cannot be laid out exactly, the shared URLs are refused (A2N730)."""
        for j, (f, loc) in enumerate(later):
            if f.settings.get("access") is None and not f.statements and f.proxy is None:
                continue
            if not _regexes_may_overlap(outer.path, outer.modifier == "~*", loc.path, loc.modifier == "~*"):
                continue
            group = matched + [f]
            span = f.span
            why = None
            if depth >= 3:
                why = "more than four sections match the same URLs"
            elif self.overlap_budget <= 0:
                why = f"more than {_REGEX_OVERLAPS} combinations of sections overlap in the server"
            elif any(_reads_captures(st) for s in matched for st in s.statements):
                why = f"the statements of {matched[-1].path} read its captures, which the nested expression replaces"
            elif sum(s.proxy is not None for s in group) > 1:
                why = "several of the sections proxy"
            proxy = next((s.proxy for s in reversed(group) if s.proxy is not None), None)
            if why is None:
                configs = [s.settings.get("access") for s in group]
                if proxy is not None and proxy.kind == "proxy":
                    # a proxied request walks the <Proxy> sections instead of the directories
                    access = self.access(self.proxy_configs(proxy, f.path) + root_locations + configs, f.path, span)
                else:
                    access = self.access(root_configs + configs, f.path, span)
                statements: list[Stmt] = []
                shapes = set()
                for st in root_statements + [st for s in group for st in s.statements]:
                    if _shape(st) not in shapes:
                        shapes.add(_shape(st))
                        statements.append(st)
                inner = Location(loc.modifier, loc.path, _detached(access, outer.statements, span) +
                                 _last_wins(statements, self.index_names), span)
                if proxy is not None:
                    inner.statements.extend(self._handler(proxy, f.path, f.path, inner.statements))
                self.regex_dir_methods(inner, proxy, root_configs + configs, access, span)
            else:
                inner = Location(loc.modifier, loc.path,
                                 [Stmt("deny", ["all"], span, comment="overlapping <LocationMatch> sections: refused")],
                                 span)
                if ("A2N730", span) not in self.reported:
                    self.reported.add(("A2N730", span))
                    self.diags.add("A2N730", f"<LocationMatch {f.path}>: httpd merges it with the earlier "
                                   f"<LocationMatch {matched[-1].path}> for the URLs both match, which nginx cannot "
                                   f"lay out here ({why}): those URLs are refused to everyone (deny all)", span,
                                   related=[s.span for s in matched[:3]])
            outer.locations.append(inner)
            if why is None:
                self.overlap_budget -= 1
                self.nest_regex_overlaps(inner, group, later[j + 1:], root_configs, root_locations, root_statements,
                                         depth + 1)

    def _handler(self, route: Route, region: str, matched: str, before: list[Stmt] | None = None) -> list[Stmt]:
        """The statements that serve ROUTE in a location; BEFORE: the location's statements so far."""
        if route.kind == "proxy-exclude":
            return []
        if route.kind == "proxy-unreachable":
            return [Stmt("return", ["502"], route.span)]
        if route.kind == "proxy":
            return self.proxy_emitter(self.server, route, region, matched, before)
        if route.kind == "alias" and route.params.get("refused"):
            return [Stmt("return", ["403"], route.span, comment=route.params["refused"])]
        if route.kind == "alias" and route.params.get("cgi"):
            span = route.span
            return self._cgi_index(route, matched, before) + [
                    Stmt("fastcgi_split_path_info", [f"^({_regex_escape(route.path)}[^/]+)(/.*)$"], span),
                    Stmt("include", ["fastcgi_params"], span),
                    Stmt("fastcgi_param", ["SCRIPT_FILENAME", route.params["cgi"]], span),
                    Stmt("fastcgi_param", ["PATH_INFO", "$fastcgi_path_info"], span),
                    Stmt("fastcgi_pass", [FCGIWRAP_SOCKET], span)] + self._cgi_failure_page(route, before)
        if route.kind == "alias":
            # the directory as httpd reads it, `$` and all (passes.alias): nginx's alias reads variables
            if route.regex:
                return [Stmt("alias", [written_literally(route.target, captures=True)], route.span)]
            rest = matched[len(route.path):] if matched.startswith(route.path) else ""
            return [Stmt("alias", [written_literally(route.target + rest)], route.span)]
        if route.kind == "redirect":
            return self._redirect(route, region, matched)
        return []

    def _cgi_failure_page(self, route: Route, before: list[Stmt] | None) -> list[Stmt]:
        """A program that fails (it cannot be executed, it ends before its headers, they are malformed) is
        answered 500 by mod_cgi(d), which ap_die_r sends to the ErrorDocument 500 in force: a local page is
        an internal redirect whose answer runs the page's handler and carries its onsuccess headers (observed
        with httpd 2.4: the page with `Header set X-Frame-Options`), a URL a 302. nginx answers the same
        failures itself with 502 (the program's answer is malformed, fcgiwrap cannot be reached), with no page
        and no onsuccess header: that 502 goes to the same page, as a 500. fcgiwrap's own answers (403 for a
        program it cannot execute, 502 for one it cannot start) are the program's answer to nginx and stay."""
        main = self.model.main_server
        levels = [list(before or []), list(self.server.statements)]
        if main is not None and main is not self.server:
            levels.append(list(main.statements))
        page = next((st for level in levels for st in reversed(level)
                     if st.name == "error_page" and "500" in st.args[:-1]), None)
        if page is None:
            return []
        target = page.args[-1]
        answer = [] if redirects_to(target) else ["=500"]
        return [Stmt("error_page", ["502", *answer, target], route.span,
                     comment="mod_cgi answers a program that fails with 500 and its ErrorDocument")]

    def _cgi_index(self, route: Route, matched: str, before: list[Stmt] | None) -> list[Stmt]:
        r"""A ScriptAlias directory's own URL (`/cgi-bin/`): mod_dir looks its DirectoryIndex names up in the
        target directory and redirects internally to the first that exists, which the handler then runs as
        a program; that answer carries the Header lines of the file sections matching the name (a 500 with a
        <FilesMatch "\.html$">'s `Header always` for a non-executable index.html). Without an index file
        httpd refuses to run the directory. nginx would hand the directory URL itself to fcgiwrap, in a
        location none of the file sections' nested locations matches: the same internal redirect, to the
        first name that exists, through an `if (-f ...)` per name. httpd checks access on the directory's URL
        before mod_dir's fixups: where the location's rules refuse everyone, its 403 carries no file section's
        headers, so there is no redirect (nginx's rewrite phase would run before its access phase). Where
        they refuse some addresses (`Require ip`), the same answer for those: a geo block repeats the
        allow/deny list and a client it refuses stops there (`rewrite ... break`), for the location's own
        403. A refusal the translation makes in place of rules it cannot check keeps the redirect: httpd may
        grant and run the index, and a header too many on that 403 is the refusal's own difference. So too
        for a login (_login_refusal): httpd answers the directory's URL without credentials with its own 401,
        without the index's file-section headers."""
        directory = route.path.rstrip("/") + "/"
        if matched != directory or not route.target or "$" in route.target:
            return []
        rules = _rules(before or [])
        if _refuses_everyone(rules):
            return []
        gates = [g for g in (self._address_refusal(_addresses_checked(rules), route.span),
                             self._login_refusal(rules, directory, route.span)) if g is not None]
        main = self.model.main_server
        outer = list(self.server.statements) + (list(main.statements) if main is not None and main is not self.server
                                                else [])
        own = next((st for st in list(before or []) + outer if st.name == "index"), None)
        names = own.args if own is not None else ["index.html"]
        target = route.target.rstrip("/") + "/"
        out = []
        for name in names:
            if not name or "/" in name or "$" in name or re.search(r"[\s;{}()'\"]", name):
                break       # an absolute entry (a URL), the disabled index: no file of the directory
            out.append(Stmt("if", [f"(-f {_quote_if_needed(target + name)})"], route.span,
                            comment="mod_dir: the directory's index file, run as a program",
                            block=[Stmt("rewrite", [f"^{_regex_escape(directory)}$", directory + name, "last"],
                                        route.span)]))
        for gate in reversed(gates if out else []):
            out.insert(0, Stmt("if", [f"({gate})"], route.span, block=[
                Stmt("rewrite", [f"^{_regex_escape(directory)}$", directory, "break"], route.span)],
                               comment="httpd refuses the directory before mod_dir looks for its index"))
        return out

    def _login_refusal(self, rules: list[Stmt], directory: str, span: Span) -> str | None:
        r"""The `if` condition under which httpd asks a request of a ScriptAlias directory's URL for a login
        before mod_dir looks for its index: where the rules ask for one (auth_basic), a request without an
        Authorization header (under `satisfy any`, from an address the allow/deny list refuses). httpd's 401
        then carries no file section's headers (observed: no `Header always` line of a <FilesMatch "\.html$">
        for /cgi-bin/ with index.html there). nginx cannot check credentials before its rewrite phase: a
        request with wrong ones is still redirected to the index, whose 401 carries them (A2N407). Under
        `satisfy all` the rewrite-phase checks (`Require user`) refuse nothing auth_basic lets pass without
        credentials; under `satisfy any` they may stand for a grant, and the redirect stays."""
        if _realm(rules) is None or any("refused" in (st.comment or "") for st in rules):
            return None
        condition = '$http_authorization = ""'
        if any(st.name == "satisfy" and st.args == ["any"] for st in rules):
            if any(st.name == "if" for st in rules):
                return None
            addresses = [st for st in rules if st.name in ("allow", "deny")]
            if addresses and not _refuses_everyone(addresses):
                refused = self._address_refusal(addresses, span)
                if refused is None:
                    return None     # an address list that refuses no one: httpd grants without a login
                condition = self.model.shared_map("a2n_dir_login_", f"{refused}:$http_authorization",
                                                  [("1:", "1")], "0", span=span)
        self.diags.add_once("A2N407", f"ScriptAlias {directory}: httpd asks for the login before it looks for "
                            "the directory's index; nginx redirects a request with wrong credentials to the "
                            "index first, so its 401 carries the Header lines of the index's file sections",
                            span, urls=[("^" + re.escape(directory) + "$", True)])
        return condition

    def _address_refusal(self, rules: list[Stmt], span: Span) -> str | None:
        """A geo variable that is 1 for the addresses a plain allow/deny list refuses (address_entries); None
        where the rules are not such a list or refuse no address."""
        found = address_entries(rules)
        return None if found is None else self.model.shared_map("a2n_refused_addr_", "", list(found[0]), found[1],
                                                                 span=span)

    def _redirect(self, route: Route, region: str, matched: str) -> list[Stmt]:
        code = str(route.status)
        if not route.target:
            return [Stmt("return", [code], route.span)]
        target = self._absolute_target(route.target, whole=code not in _NGINX_REDIRECTS)
        if route.regex:
            answer = self._redirect_answer(code, target + ("" if "?" in target else "$is_args$args"), route.span)
            return self._escaped_captures(route, code, target) + answer
        if "raw-uri" not in route.params:
            route.params["raw-uri"] = True
            self.diags.add("A2N405", f"Redirect {route.path}: the remainder of the path is taken from the raw "
                           "request line ($request_uri); httpd merges repeated slashes and re-escapes it",
                           route.span, directive=route.params.get("directive"))
        if route.path == "/" and target.endswith("/") and "?" not in target:
            return self._redirect_answer(code, target[:-1] + "$request_uri", route.span)
        # Prefix + remainder + (query unless the target has one), taken from the raw request line.
        if id(route) in self.redirect_vars:
            # (copies: the statements are placed in each location the route answers in, and changed there)
            return [dataclasses.replace(st, args=list(st.args), block=[
                dataclasses.replace(b, args=list(b.args)) for b in st.block] if st.block else st.block)
                for st in self.redirect_answers[id(route)]]
        # numbered as if the fallback maps (below) were not there, so each Redirect keeps its name
        var = f"$a2n_redirect_{len(self.model.maps) - self.model.redirect_uri_fallbacks}"
        self.redirect_vars[id(route)] = var
        from ..model import MapBlock
        # mod_alias matches whole path segments (alias_matches): /p covers /p and /p/x, not /px
        rest = "[^?]*" if route.path.endswith("/") else "(?:/[^?]*)?"
        pattern = "~^" + _regex_escape(route.path) + f"(?<a2n_rest>{rest})(?<a2n_query>\\?.*)?$"
        value = target + "$a2n_rest" + ("" if "?" in target else "$a2n_query")
        # A request whose raw line does not name the prefix reached it another way: a per-directory rewrite's
        # internal redirect (httpd runs mod_alias again on the rewritten URL, with the query it kept), or an
        # escaped or unnormalised path. The redirect is made from the URL nginx has reached ($uri), as httpd
        # makes it from r->uri and r->args.
        fallback = var + _URI_FALLBACK
        self.model.maps.append(MapBlock("$request_uri", var, [(pattern, value)], default=fallback,
                                        span=route.span))
        # (httpd escapes the decoded remainder (ap_escape_uri): the map takes it as it stands only where it
        # holds nothing httpd escapes, and leaves the rest to nginx's `rewrite`, which escapes it, below)
        escaping = code in _REWRITE_REDIRECT_FLAGS
        uri_chars = _HTTPD_UNESCAPED if escaping else "."
        uri_rest = f"{uri_chars}*" if route.path.endswith("/") else f"(?:/{uri_chars}*)?"
        self.model.maps.append(MapBlock(
            "$uri", fallback, [("~^" + _regex_escape(route.path) + f"(?<a2n_urest>{uri_rest})$",
                                target + "$a2n_urest" + ("" if "?" in target else "$is_args$args"))],
            default='""', span=route.span))
        self.model.redirect_uri_fallbacks += 1
        self.redirect_answers[id(route)] = self._redirect_answer(code, var, route.span)
        if not escaping:
            return self._redirect(route, region, matched)
        rest = "(.*)" if route.path.endswith("/") else "((?:/.*)?)"
        escaped = Stmt("rewrite", [_quote_if_needed("^" + _regex_escape(route.path) + rest + "$"),
                                   target + "$1" + ("?" if "?" in target else ""),     # (quoted as written)
                                   _REWRITE_REDIRECT_FLAGS[code]], route.span)
        self.redirect_answers[id(route)].insert(0, Stmt(
            "if", [f'({var} = "")'], route.span, block=[escaped],
            comment="the decoded path's remainder holds what httpd escapes: nginx's rewrite escapes it"))
        return self._redirect(route, region, matched)

    def _redirect_answer(self, code: str, url: str, span) -> list[Stmt]:
        """The answer of a redirect with status CODE to URL. mod_alias takes every 3xx status for a redirect
        (ap_is_HTTP_REDIRECT): httpd 2.4 answers `Redirect 300 /p http://...` with 300 and a Location header.
        nginx's `return` sends a Location only for 301, 302, 303, 307 and 308; with another status it writes the
        URL as the body. There the header is written by `add_header ... always` before a bare `return` (with the
        whole URL: `_absolute_target`). A status httpd has no status line for (306, 309-399) it sends as 500,
        with the Location header (observed: httpd 2.4, `Redirect 306 /p URL`)."""
        if code in _NGINX_REDIRECTS or not code.startswith("3"):
            return [Stmt("return", [code, url], span)]
        sent = code if code in _HTTPD_REDIRECTS else "500"
        return [Stmt("add_header", ["Location", url, "always"], span,
                     comment=f"nginx's return {sent} sends no Location" + ("" if sent == code else
                                                                           f": httpd answers {code} with 500")),
                Stmt("return", [sent], span)]

    def _escaped_captures(self, route: Route, code: str, target: str) -> list[Stmt]:
        """What answers a RedirectMatch whose target reads captures, for a path holding characters httpd
        escapes. httpd substitutes the captures of the decoded path and then escapes the URL but its query
        (mod_alias try_alias_list: ap_escape_uri), so /u/bob%0d%0aSet-Cookie:%20x=y is redirected with one
        Location header; nginx's `return` writes the decoded captures as they are, a CR LF among them a header
        of the client's choosing. For such a path (a test without captures, which keeps the location's) nginx's
        `rewrite` makes the redirect, escaping the captures (A2N405 tells how its escaping differs); it redirects
        with 301 and 302 only, so another status refuses the request (A2N408)."""
        if not re.search(r"\$\d", target):
            return []
        test = f'($uri !~ "^{_HTTPD_UNESCAPED}*$")'
        if code not in _REWRITE_REDIRECT_FLAGS:
            self.diags.add("A2N408", f"RedirectMatch {code} {route.path}: nginx cannot escape the captures of a "
                           f"{code} redirect as httpd does; a request whose path holds a character httpd escapes "
                           "(a space, a %-escaped control character, `<`, `\"`...) is refused (403)",
                           route.span, directive=route.params.get("directive"))
            return [Stmt("if", [test], route.span, block=[Stmt("return", ["403"], route.span)],
                         comment="the captures hold what httpd escapes, which nginx's `return` would not")]
        self.diags.add("A2N405", f"RedirectMatch {route.path}: where the path holds characters httpd escapes, "
                       "nginx's rewrite escapes the captures, otherwise than httpd for some of them",
                       route.span, directive=route.params.get("directive"))
        regex = ("(?i)" if route.params.get("nocase") else "") + route.path
        escaped = Stmt("rewrite", [_quote_if_needed(regex), target + ("?" if "?" in target else ""),
                                   _REWRITE_REDIRECT_FLAGS[code]], route.span)
        return [Stmt("if", [test], route.span, block=[escaped],
                     comment="the captures hold what httpd escapes: nginx's rewrite escapes them")]

    def _absolute_target(self, target: str, whole: bool = False) -> str:
        """A local redirect target (a path) as the absolute URL httpd sends: mod_alias makes it one with
        ap_construct_url (scheme, the client's host name, the port it named unless the scheme's default). On a
        server that sends relative Locations (`absolute_redirect off`) nginx would send the path itself, and a
        path starting with "//" (`Redirect /go /` asked for /go/evil.example.net/x) is read by a client as
        another host's URL; so there the URL is written whole, and for a Location header nginx does not make
        (WHOLE: `_redirect_answer`). Elsewhere nginx makes it absolute itself."""
        if not target.startswith("/") or not whole and not any(
                st.name == "absolute_redirect" and st.args == ["off"]
                for st in self.server.statements + self.server.own_statements):
            return target
        holder = self.server.own_statements if self.server.is_main else self.server.statements
        if not any(st.name == "set" and st.args[:1] == [_ORIGIN] for st in holder):
            # (set in the server's rewrite phase: the port map's regular expression, run later, would replace
            # the captures of a location's regular expression or of a `rewrite` before its replacement reads them)
            port = self.model.shared_map("a2n_client_port_", "$request|$http_host", _CLIENT_PORT, '""',
                                         span=self.server.span)
            suffix = self.model.shared_map("a2n_url_port_", f"$scheme:{port}",
                                           [("http:", '""'), ("https:", '""'), ("http:80", '""'),
                                            ("https:443", '""')], f":{port}", span=self.server.span)
            holder.append(Stmt("set", [_ORIGIN, f"$scheme://$host{suffix}"], None,
                               comment="the site's URL as httpd names it in a redirect (ap_construct_url)"))
        return _ORIGIN + target


# the variable holding the site's own URL a local redirect target is made absolute with (Layout._absolute_target)
_ORIGIN = "$a2n_origin"
# the port a client names (httpd's r->parsed_uri.port): in an absolute request URI, else in the Host header
_CLIENT_PORT = [(key, value or '""') for key, value in vhost_alias.CLIENT_PORT]

# the name ending of a Redirect's map over $uri, which its map over the raw request line falls back to
_URI_FALLBACK = "_uri"
# what httpd's ap_escape_uri leaves as it is in a redirect's path (gen_test_char.c, T_OS_ESCAPE_PATH)
_HTTPD_UNESCAPED = r"[-\w.$+!*'(),:;@&=/~]"
# the statuses nginx's `rewrite` can redirect with, and its flag for each
_REWRITE_REDIRECT_FLAGS = {"302": "redirect", "301": "permanent"}
# the statuses nginx's `return` answers with a Location header (Layout._redirect_answer)
_NGINX_REDIRECTS = ("301", "302", "303", "307", "308")
# the 3xx statuses httpd has a status line for (any other one it answers with 500: Layout._redirect)
_HTTPD_REDIRECTS = ("300", "301", "302", "303", "304", "305", "307", "308")
# the name ending of its map telling a rewritten URI (made from $uri) from the requested one, and what it compares
_REWRITTEN = "_rw"
_FIRST_URI = "$a2n_first_uri"


# what access_statements adds for Options (not access rules)
_OPTIONS = {"autoindex", "disable_symlinks"}

# how a file section's URL regex ends (access.basename_regex): the name is the last segment, or path info follows
_PATH_INFO = "(?:/|$)"

# directives nginx takes once per block, which several merged sections may each set: the last merged wins,
# as in httpd's merge of the same setting
# index: a later section's DirectoryIndex replaces; types, default_type: a later section's AddType or ForceType
_SINGLE_VALUED = {"expires", "index", "types", "default_type"}


def _last_fallback_wins(statements: list[Stmt]) -> list[Stmt]:
    """FallbackResource in several merged sections (two <Directory> of one path, a <Location> over a
    <Directory>): httpd keeps the last merged value, `disabled` included, and nginx takes one try_files per
    block. The statements of the last section's line stay (its path-info tests and try_files, or the marker
    of `disabled`); the earlier lines' go."""
    marks = [i for i, st in enumerate(statements)
             if st.name == "try_files" and st.comment in FALLBACK_COMMENTS | {FALLBACK_DISABLED}]
    if len(marks) < 2:
        return statements
    first = marks[-1]
    while first > 0 and statements[first - 1].comment == PATH_INFO_TEST:
        first -= 1
    return [st for i, st in enumerate(statements)
            if i >= first or st.comment not in FALLBACK_COMMENTS | {FALLBACK_DISABLED}]


def _maps_under(regex_route: Route, owner: Route | None, order: dict[int, int]) -> bool:
    """Whether httpd may map a URL of OWNER's prefix region with REGEX_ROUTE (an AliasMatch, RedirectMatch,
    ProxyPassMatch). The document root's region (no OWNER): any of them. mod_proxy's translate hook runs before
    mod_alias's, so an Alias's or a Redirect's region: every ProxyPassMatch (observed: httpd 2.4 proxies
    /docs/x.php by `ProxyPassMatch ^/(.*\\.php)$` under `Alias /docs`, and under `Redirect 410 /old`), and under
    an Alias an AliasMatch listed before it (mod_alias tries its list in order, first match wins; a
    RedirectMatch is nested by `nest_regex_redirects`). A ProxyPass's (or `ProxyPass P !` exclusion's): mod_proxy
    tries ProxyPass and ProxyPassMatch as one list in configuration order and stops at the first entry that
    matches, so a ProxyPassMatch only if listed before it (a <Location>'s own ProxyPass, tried before that list,
    is in no order: nothing); past an exclusion mod_alias maps the excluded URL with every AliasMatch and
    RedirectMatch (observed: httpd 2.4 answers an excluded URL from the AliasMatch's file, or 404 where that file
    is missing, never from the document root's file of that URL)."""
    if owner is None:
        return True
    before = id(regex_route) in order and id(owner) in order and order[id(regex_route)] < order[id(owner)]
    proxied = regex_route.kind in ("proxy", "proxy-unreachable")
    if owner.kind == "proxy-exclude":
        return not proxied or before
    if owner.kind in ("proxy", "proxy-unreachable"):
        return proxied and before
    if owner.kind == "redirect":
        return proxied
    return proxied or regex_route.kind == "alias" and before


def _redirects_first(regex_route: Route, owner: Route | None, order: dict[int, int]) -> bool:
    """Whether REGEX_ROUTE is a RedirectMatch mod_alias answers before OWNER's entry in OWNER's region: its
    translate hook tries the redirect list before the alias list (any Alias), and the redirect list in
    configuration order (a Redirect listed after it). mod_proxy's hook runs first (a ProxyPass: never)."""
    if regex_route.kind != "redirect" or owner is None:
        return False
    if owner.kind == "alias":
        return True
    return owner.kind == "redirect" and order.get(id(regex_route), 0) < order.get(id(owner), 0)


def _shadowed_regex_proxies(routes: list[Route], prefix_scopes: list[Scope]) -> set[int]:
    """The ProxyPassMatch entries httpd never uses: mod_proxy tries a <Location />'s ProxyPass first, then
    the server's ProxyPass and ProxyPassMatch lines as one list in configuration order, and stops at the
    first that matches, so a `ProxyPass /` (or `ProxyPass / !`) takes every request from those after it. nginx
    lays `ProxyPass /` out as `location /`, which lets a regex location win over it: the ProxyPassMatch's
    location would answer requests httpd sends to the other backend, under its <Proxy> rules."""
    whole = any(s.path == "/" and s.proxy is not None and s.proxy.kind in ("proxy", "proxy-unreachable")
                for s in prefix_scopes)
    shadowed: set[int] = set()
    for r in routes:
        if r.regex and r.kind in ("proxy", "proxy-unreachable") and whole:
            shadowed.add(id(r))
        whole = whole or not r.regex and r.path == "/" and r.kind in ("proxy", "proxy-unreachable", "proxy-exclude")
    return shadowed


def _exact_groups(regex: str, path: str, nocase: bool) -> tuple[str, ...] | bool | None:
    """The captures ($0 first) of REGEX matching PATH, False where it does not match, None where that is not
    known (an expression Python's re does not read) or a capture is not plain path text."""
    try:
        found = re.search(regex, path, re.IGNORECASE if nocase else 0)
    except (re.error, OverflowError):
        return None
    if found is None:
        return False
    groups = (found.group(0),) + tuple(g or "" for g in found.groups())
    return None if any(re.search(r"[$\s\"'{};\\]", g) for g in groups) else groups


def _with_groups(st: Stmt, groups: tuple[str, ...]) -> Stmt:
    """ST reading the captures GROUPS ($0, $1...) as the text they hold."""
    def text(m: re.Match) -> str:
        n = int(m.group(1) or m.group(2))
        return groups[n] if n < len(groups) else ""
    return dataclasses.replace(st, args=[re.sub(r"\$(?:\{(\d)\}|(\d))", text, a) for a in st.args],
                               block=[_with_groups(b, groups) for b in st.block] if st.block is not None else None)


def _may_match_under(regex: str, prefix: str, nocase: bool) -> bool:
    """Whether REGEX may match a URL starting with PREFIX: False only where it is anchored with a literal
    text that neither starts PREFIX nor is started by it."""
    if regex.startswith("(?i)"):
        regex, nocase = regex[4:], True
    if not regex.startswith("^"):
        return True
    literal, i = "", 1
    while i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex) and regex[i + 1] in "./-_~":
            literal, i = literal + regex[i + 1], i + 2
            continue
        if c in "\\.^$*+?()[]{}|":
            if c in "*?{" and literal:
                literal = literal[:-1]      # the quantifier makes its last character optional
            break
        literal, i = literal + c, i + 1
    if nocase:
        literal, prefix = literal.lower(), prefix.lower()
    return literal.startswith(prefix) or prefix.startswith(literal)


def _maps_document_root(loc: Location) -> bool:
    """A server-context rule's internal location onto the document root (and nothing else: a handler's
    location aliases the document root too, to run what it maps to)."""
    return any(st.name == "alias" and st.comment == DOCROOT_MAP for st in loc.statements) and \
        all(st.name in ("internal", "alias") or st.comment in DOCROOT_DIRECTORY for st in loc.statements)


def _last_wins(statements: list[Stmt], index_names: dict | None = None) -> list[Stmt]:
    """STATEMENTS of merged sections, of which the last of each single-valued directive stays; INDEX_NAMES:
    the index lists finish_server joined with a fallback, and their own names (passes.fallback)."""
    statements = merged_index(_last_fallback_wins(statements), index_names)
    last = {st.name: i for i, st in enumerate(statements) if st.name in _SINGLE_VALUED}
    if not last:
        return statements
    return [st for i, st in enumerate(statements) if st.name not in _SINGLE_VALUED or last[st.name] == i]


# the comment of the `set` that keeps a location's capture for its alias (statements put in front stay after it)
CAPTURE_COPY = "the capture, kept for the alias"

# the access rules a location holds (what a nested location's own rules replace, _detached)
_ACCESS_NAMES = {"allow", "deny", "auth_basic", "auth_basic_user_file", "auth_request", "satisfy"}

# what nginx does not inherit into a nested location: the rewrite phase, the content handlers, try_files
_NOT_INHERITED = {"rewrite", "return", "if", "set", "break", "try_files", "internal", "limit_except",
                  "proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "memcached_pass"}
_CONTENT = {"proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass", "return", "alias"}
_SCRIPT_PASSES = {"fastcgi_pass", "uwsgi_pass", "scgi_pass"}
_PASSES = _SCRIPT_PASSES | {"proxy_pass", "grpc_pass"}


def _carry_rewrite_refusals(locations: list[Location], refusal: Stmt | None = None) -> None:
    """A location refused in place of rewrite rules that are not translated (REWRITE_REFUSALS) refuses in
    the locations nested in it too: nginx runs only the nested location's rewrite phase, so a <Files>
    location would serve what the region refuses. Not one that refuses in an `if` where a file section
    brings FollowSymLinks back (_reopened_file_rules): the rules are translated there."""
    for loc in locations:
        own = next((st for st in loc.statements if st.name == "return" and st.comment in REWRITE_REFUSALS), None)
        lifted = any(st.name == "if" and any(b.name == "return" and b.comment in REWRITE_REFUSALS for b in st.block)
                     for st in loc.statements)
        if own is None and refusal is not None and not lifted:
            loc.statements.insert(0, Stmt("return", ["403"], refusal.span, comment=refusal.comment,
                                          rule_tests=refusal.rule_tests))
        _carry_rewrite_refusals(loc.locations, own or refusal)


def _carry_alias_refusals(locations: list[Location]) -> None:
    """An Alias's URLs refused because they reach a directory with per-directory rules (ALIAS_REFUSAL, on the
    `^~` location of their prefix) stay refused in the server's longer prefix locations under it (a
    <Directory>'s document-root URL inside the Alias's URLs): nginx picks the longest prefix, which would
    serve the aliased files past the rules. The locations nested in a refused one (a <LocationMatch>'s or a
    <Files> section's under the Alias's URLs) are refused too: nginx runs only the chosen location's rewrite
    phase, and a nested location inherits none of its parent's `return`, where httpd runs the directory's
    rules in the fixups whatever section matched."""
    refusals = [(loc.path, st) for loc in locations if loc.modifier == "^~"
                for st in loc.statements if st.name == "return" and st.comment == ALIAS_REFUSAL]

    def refuse(loc: Location, refusal: Stmt) -> None:
        if not any(st.comment == ALIAS_REFUSAL for st in loc.statements):
            loc.statements.insert(0, Stmt("return", ["403"], refusal.span, comment=refusal.comment))
        for inner in loc.locations:
            if inner.modifier != "@":
                refuse(inner, refusal)

    for loc in locations:
        if loc.modifier not in ("", "^~", "="):
            continue
        refusal = next((st for st in loc.statements if st.name == "return" and st.comment == ALIAS_REFUSAL), None)
        if refusal is None:
            refusal = next((st for path, st in refusals if loc.path.startswith(path) and loc.path != path), None)
        if refusal is not None:
            refuse(loc, refusal)


def _drop_fallback_where_proxied(locations: list[Location]) -> None:
    """A proxied request has a handler (proxy-server), which mod_dir's FallbackResource leaves alone (src:
    mod_dir.c, dir_fixups falls back only when `r->handler == NULL`): a location that proxies drops the
    fallback's statements, whose try_files would otherwise serve the fallback URL instead of the backend."""
    for loc in locations:
        if any(st.name in _PASSES for st in loc.statements):
            loc.statements[:] = [st for st in loc.statements if st.comment not in FALLBACK_COMMENTS]
        _drop_fallback_where_proxied(loc.locations)



def _fallback_under_regex_alias(locations: list[Location], aliased: bool = False) -> None:
    """A FallbackResource's try_files in a regex location with an alias (an AliasMatch into the directory
    that sets it): httpd serves the aliased file where it exists and falls back where nothing is there. nginx
    tests a try_files name there as the alias with the name appended (ngx_http_core_try_files_phase strips
    no location prefix when the alias belongs to a regex location), so `$uri` names
    /alias/path/URI, never a file, and every request fell back: the empty name tests the alias path itself
    and "/" the alias path as a directory. Nested locations inherit the alias (and the way it is mapped)."""
    for loc in locations:
        own = any(st.name == "alias" for st in loc.statements)
        here = (own and loc.modifier in ("~", "~*")) or (aliased and not own
                                                          and not any(st.name == "root" for st in loc.statements))
        if here:
            # (a new statement: the directory's locations share the one the section made)
            loc.statements[:] = [
                Stmt(st.name, [{"$uri": "", "$uri/": "/"}.get(a, a) if i < len(st.args) - 1 else a
                               for i, a in enumerate(st.args)], st.span, comment=st.comment)
                if st.name == "try_files" and st.comment in FALLBACK_COMMENTS else st
                for st in loc.statements]
        _fallback_under_regex_alias(loc.locations, here)


# what the named location _fallback_under_prefix_alias makes says
_ALIAS_FALLBACK = "FallbackResource under an alias: the fallback URL whole"


def _fallback_under_prefix_alias(server: Server) -> None:
    """A FallbackResource's try_files under a prefix or exact location's alias (an Alias into the directory
    that sets it), where the fallback URL starts with that location's path (FallbackResource /app/index.html
    for Alias /app): httpd hands the request that URL. nginx cuts the location's path off a try_files name
    made with variables (ngx_http_core_try_files_phase: `ngx_strncmp(name, r->uri.data, alias)`, then
    `ngx_memmove(name, name + alias, ...)`), the last one, the fallback URL with its $is_args$args, too, so
    it redirected to "index.html" (no location: a 404), or with an exact location to another URL. The
    fallback goes through a named location instead (a name nginx never cuts), outside the alias, whose own
    try_files redirects to the whole URL as the location's did (its internal redirect runs the server's
    rewrite phase again, as a rewrite's `last` would not): `try_files ""` tests the root itself, which is never
    a file. Nested locations inherit the alias (and its length)."""
    named: dict[str, str] = {}      # fallback URL -> the named location going there

    def walk(locations: list[Location], holder: Location | None) -> None:
        for loc in locations:
            here = holder
            if any(st.name == "alias" for st in loc.statements):
                here = loc if loc.modifier in ("", "^~", "=") else None     # a regex location's is not cut
            elif any(st.name == "root" for st in loc.statements):
                here = None
            if here is not None and not loc.path.startswith("@"):
                for i, st in enumerate(loc.statements):
                    url = st.args[-1] if st.name == "try_files" and st.comment == FALLBACK and st.args else ""
                    if "$" not in url or url.startswith("@") or not url.startswith(here.path):
                        continue
                    if url not in named:
                        named[url] = f"@a2n_alias_fallback_{len(named) + 1}"
                        server.locations.append(Location("", named[url], [
                            Stmt("try_files", ["", url], st.span, comment=_ALIAS_FALLBACK)], st.span))
                    loc.statements[i] = Stmt(st.name, st.args[:-1] + [named[url]], st.span, comment=st.comment)
            walk(loc.locations, here)

    walk(list(server.locations), None)


# a location holding one of these answers its requests itself (or serves an alias, where try_files tests the
# document root's names): httpd falls back only for a request no handler took (mod_dir.c, dir_fixups)
_NO_FALLBACK = frozenset({"alias", "return", "stub_status"})


def _carry_fallback(server, main) -> None:
    """A FallbackResource's try_files into the locations under it. httpd merges the setting into every
    directory below the one that sets it, whatever other sections apply there, while nginx does not inherit
    try_files into a location (ngx_http_core_merge_loc_conf has no merge for it): a location made for another
    section (an empty <FilesMatch> too) would answer 404 where httpd serves the fallback. Each location, and
    each one nested in it, without a try_files of its own gets its parent's (the server's, or the main
    server's, which nginx receives in every server that sets none). `FallbackResource disabled` holds a
    marker try_files, which keeps the parent's out and is dropped here. Named locations and those holding a
    handler of their own (_NO_FALLBACK, a backend) are left as they are. The path-info tests (PATH_INFO_TEST,
    the empty `if`s before the try_files) go along: without them a nested location (a <FilesMatch>'s under
    the directory's) would serve the fallback for a file with path info, which httpd answers 404."""
    def fallback_of(statements):
        return next((st for st in statements if st.name == "try_files"
                     and st.comment in FALLBACK_COMMENTS | {FALLBACK_DISABLED}), None)

    def tests_of(statements):
        return [st for st in statements if st.name == "if" and st.comment == PATH_INFO_TEST]

    def carry(locations, inherited, tests) -> None:
        for loc in locations:
            own = fallback_of(loc.statements)
            if own is not None and own.comment == FALLBACK_DISABLED:
                loc.statements.remove(own)
                carry(loc.locations, None, [])
                continue
            own_tests = tests_of(loc.statements) if own is not None else []
            if own is None and inherited is not None and not loc.path.startswith("@") and \
                    not any(st.name in _NO_FALLBACK or st.name in _PASSES for st in loc.statements) and \
                    not any(st.name == "try_files" for st in loc.statements):
                own_tests = [Stmt(st.name, list(st.args), st.span, comment=st.comment, block=[]) for st in tests]
                own = Stmt(inherited.name, list(inherited.args), inherited.span, comment=inherited.comment)
                loc.statements.extend(own_tests + [own])
            carry(loc.locations, own, own_tests)

    top = fallback_of(server.statements)
    if top is None and main is not None and main is not server and server.settings.get(FALLBACK) != "" and \
            not any(st.name == "try_files" for st in server.statements):
        top = fallback_of(main.statements)
    if top is not None and top.comment == FALLBACK_DISABLED:
        top = None
    carry(server.locations, top, [])


# what the statements _fallback_error_headers makes say
_FALLBACK_FROM = "the request falls back from here: a failed fallback keeps this location's always headers"
_FALLBACK_ERROR = "the always header of a location falling back here, on a failed fallback"
_FALLBACK_WITHOUT = "the request falls back from here: a failed fallback drops the always headers it lacks"
# the statuses a failed fallback answers with, the start of a map key over $status: an error (4xx/5xx), and a
# redirect, which an ErrorDocument URL makes of the error (302) or the lookup of the fallback URL meets (a
# Redirect there, a directory without its slash); httpd answers each with the original request's
# configuration. Not 304: a fallback that succeeds answers a conditional request with it, with its own headers.
_FAILED_STATUS = r"~^(?:30[12378]|[45]\d\d)"


def _falling_back(server: Server):
    """(location, the locations around it, its FallbackResource try_files) for each location of SERVER (nested
    ones too, named ones not) that falls back."""
    todo = [(loc, []) for loc in server.locations]
    while todo:
        loc, above = todo.pop()
        todo.extend((inner, above + [loc]) for inner in loc.locations)
        fallback = next((st for st in loc.statements if st.name == "try_files" and st.comment == FALLBACK
                         and st.args), None)
        if fallback is not None and not loc.path.startswith("@"):
            yield loc, above, fallback


def _always_lines(stmts: list[Stmt]) -> list[Stmt]:
    """The `add_header ... always` lines among STMTS."""
    return [st for st in stmts if st.name == "add_header" and len(st.args) >= 3 and "always" in st.args[2:]]


def _fallback_url(server: Server, fallback: Stmt) -> str:
    """The URL a FallbackResource's try_files falls back to: a virtual host's fallback goes through a named
    location (fallback.py), whose own try_files names the URL."""
    url = fallback.args[-1]
    if url.startswith("@"):
        named = next((l for l in server.locations if l.path == url), None)
        inner = next((st for st in named.statements if st.name == "try_files" and st.args), None) \
            if named is not None else None
        url = inner.args[-1] if inner is not None else url
    return url


def _fallback_error_headers(server: Server, model: NginxModel) -> None:
    """A FallbackResource whose URL fails (a missing file: 404, or httpd's recursion limit, 500, where the URL
    falls back again): mod_dir looks the URL up with a subrequest and serves it with
    ap_internal_fast_redirect only where that succeeds (mod_dir.c, fixup_dflt); otherwise the original request
    answers the error, and mod_headers' error filter, inserted with that request's configuration, sends the
    always lines of the URL that fell back (observed with httpd 2.4; a fallback that succeeds carries the
    fallback URL's own headers, as nginx's). So does the redirect an `ErrorDocument 404 http://...` makes of
    that error (302), and one the lookup meets (a Redirect of the fallback URL, a directory without its
    slash). nginx's try_files redirects internally, and the location the fallback URL lands in answers the
    error (its error_page redirect too) with its own add_header lines only. So each location falling back
    sets a flag (the first one the request passes only, where it can fall back again: _fallback_first_flags),
    and the landing location adds each always line it lacks on such an answer (_FAILED_STATUS) where the
    flag is set: a map over $status and the flag (variables survive nginx's internal redirect)."""
    flags: dict[tuple, str] = {}    # (landing location, header line) -> the flag the locations falling back set
    for loc, above, fallback in _falling_back(server):
        url = _fallback_url(server, fallback)
        target = _landing(server, url) or _no_location(server, url)
        if target is None or target is loc:
            continue
        # the location (nested ones too) nginx picks for a fixed URL answers with its own add_header lines
        answers = _answering(server, url) or target
        if answers is loc:
            continue
        theirs = {tuple(st.args) for st in _always_lines(answers.statements)}
        for st in [st for holder in above + [loc] for st in _always_lines(holder.statements)]:
            if tuple(st.args) in theirs:
                continue
            key = (id(target), tuple(st.args))
            flag = flags.get(key)
            if flag is None:
                flag = flags[key] = model.new_variable("a2n_fallback_from_")
                value = model.new_variable("a2n_fallback_header_")
                model.add_map(MapBlock(f"$status|{flag}", value, [(_FAILED_STATUS + r"\|1$", st.args[1])], '""',
                                       volatile=True))
                target.statements.append(Stmt("add_header", [st.args[0], value, "always"], st.span,
                                              comment=_FALLBACK_ERROR))
            if not any(s.name == "set" and s.args[:1] == [flag] for s in loc.statements):
                at = next(i for i, s in enumerate(loc.statements) if s.comment != _FALLBACK_FROM)
                loc.statements.insert(at, Stmt("set", [flag, "1"], fallback.span, comment=_FALLBACK_FROM))


def _answering(server: Server, url: str) -> Location | None:
    """The location (nested ones too) whose add_header lines answer a fixed URL (a FallbackResource's), the
    deepest one nginx picks for it holding any; None where the URL is not fixed or none holds any."""
    url = url[:-len("$is_args$args")] if url.endswith("$is_args$args") else url
    if not url.startswith("/") or url.startswith("//") or any(c in url for c in "$?|%"):
        return None
    chain = serving_levels(server, None, url)[0]
    return next((l for l in reversed(chain) if any(st.name == "add_header" for st in l.statements)), None)


def _fallback_landing_headers(server: Server, model: NginxModel) -> None:
    """The other half of a failed FallbackResource (see _fallback_error_headers): httpd answers the error with
    the original request's configuration, so the always lines of the fallback URL's own section (a
    <FilesMatch> of its name, say) are not sent where the URL that fell back lacks them (observed with httpd
    2.4: a 500 at the recursion limit, or the subrequest's 404). nginx's try_files lands in the location nginx
    picks for the fallback URL, whose add_header lines answer the error. So each location falling back where
    that location sends an always line it lacks sets a flag to the fallback URL, and the line's value there
    becomes a map over $status, the flag and $uri, empty on an error or redirect (_FAILED_STATUS) of that very
    URL. Only a fixed fallback URL is followed, into the location (nested ones too) that nginx picks for it,
    holding the add_header list it sends."""

    def sent(levels: list[list[Stmt]]) -> list[Stmt]:
        # nginx inherits add_header from the enclosing level only where a level has none of its own
        return _always_lines(next((level for level in levels if any(st.name == "add_header" for st in level)), []))

    outer = [server.own_statements, server.statements]
    if model.main_server is not None and model.main_server is not server:
        outer.append(model.main_server.statements)
    wrapped: dict[int, tuple] = {}      # a landing's line made conditional -> (the flag, the line as it was)
    for loc, above, fallback in _falling_back(server):
        url = _fallback_url(server, fallback)
        url = url[:-len("$is_args$args")] if url.endswith("$is_args$args") else url
        target = _answering(server, url)
        if target is None or target is loc:
            continue
        ours = {tuple(st.args) for st in sent([l.statements for l in reversed(above + [loc])] + outer)}
        for i, st in enumerate(target.statements):
            # (a line _fallback_error_headers added is gated already; a value opening with `"` cannot be a
            # map's default, which the template writes as it stands)
            if st.name != "add_header" or len(st.args) < 3 or "always" not in st.args[2:] \
                    or st.comment == _FALLBACK_ERROR or st.args[1].startswith('"'):
                continue
            flag, line = wrapped.get(id(st), (None, tuple(st.args)))
            if line in ours:
                continue
            if flag is None:
                flag = model.new_variable("a2n_fallback_without_")
                value = model.new_variable("a2n_fallback_kept_")
                # the flag holds the URL that fell back: a request a rule sent here elsewhere keeps the line
                model.add_map(MapBlock(f"$status|{flag}|$uri", value,
                                       [(_FAILED_STATUS + r"\|([^|]+)\|\1$", '""')], st.args[1], volatile=True))
                target.statements[i] = dataclasses.replace(st, args=[st.args[0], value, *st.args[2:]])
                wrapped[id(target.statements[i])] = (flag, line)
            if not any(s.name == "set" and s.args[:1] == [flag] for s in loc.statements):
                at = next(j for j, s in enumerate(loc.statements) if s.comment not in (_FALLBACK_FROM,
                                                                                       _FALLBACK_WITHOUT))
                loc.statements.insert(at, Stmt("set", [flag, url], fallback.span, comment=_FALLBACK_WITHOUT))


_FALLBACK_FELL = "the request fell back: a location it falls back from again leaves the flags above as they are"


def _fallback_first_flags(server: Server, model: NginxModel) -> None:
    """A request can fall back more than once before it fails: a fallback URL whose location falls back again,
    until httpd's recursion limit (500), which an ErrorDocument URL turns into a redirect. httpd answers with
    the configuration of the original request, the location the request first fell back from (observed with
    httpd 2.4: `Header always` of a <Location> whose fallback URL lands in another section that falls back
    to it again is sent on that 302), while nginx sets the flags of every location falling back that the
    request passes (_fallback_error_headers, _fallback_landing_headers). So where a location of SERVER sets
    such a flag and a fallback URL lands where the request falls back again, every location falling back
    notes that the request fell back, and sets its flags only before that: a map over the note keeps a flag
    as it is once the note is set."""
    falling = list(_falling_back(server))
    flagged = (_FALLBACK_FROM, _FALLBACK_WITHOUT)
    main = model.main_server if model.main_server is not server else None
    if not any(st.name == "set" and st.comment in flagged for loc, _above, _fb in falling for st in loc.statements) \
            or not any(_falls_back_again(server, main, _fallback_url(server, fb)) for _l, _a, fb in falling):
        return
    fell = model.new_variable("a2n_fallback_fell_")
    for loc, _above, fallback in falling:
        at = 0
        for i, st in enumerate(loc.statements):
            if st.name == "set" and st.comment in flagged and len(st.args) == 2:
                value = model.shared_map("a2n_fallback_flag_", fell, [('""', st.args[1])], st.args[0], volatile=True)
                loc.statements[i] = dataclasses.replace(st, args=[st.args[0], value])
                at = i + 1
        loc.statements.insert(at, Stmt("set", [fell, "1"], fallback.span, comment=_FALLBACK_FELL))


_FALLBACK_URI = "the URL that falls back, kept for the always headers of a failed fallback"
_MAP_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _fallback_original_uri(server: Server, model: NginxModel) -> None:
    """A failed FallbackResource (see _fallback_error_headers) is answered by the original request, so httpd
    evaluates the always lines' conditions (`expr=%{REQUEST_URI} ...`) with the URL that fell back (observed
    with httpd 2.4: REQUEST_URI is that URL on the 500 at the recursion limit); nginx evaluates them in the
    location try_files lands in, where $uri is the fallback URL. So the first location falling back keeps
    $uri in a variable (a map leaves it as it is once set: the landing may fall back again), and every always
    line of the server whose value a map chain over $uri makes gets a copy of that chain over the kept URL on
    an error or redirect (_FAILED_STATUS), the chain as it was otherwise."""
    falling = list(_falling_back(server))
    if not falling:
        return
    # (placeholders, numbered below where a line needs them)
    kept, uri = f"$a2n_fallback_uri_{id(server)}", f"$a2n_fallback_header_uri_{id(server)}"
    by_variable = {"$" + m.variable.lstrip("$"): m for m in model.maps if m.source}
    copies: dict[str, str] = {}

    def copy(text: str) -> str:
        # TEXT with each map variable over $uri (at any depth) replaced by its copy over the kept URL
        def one(m: re.Match) -> str:
            name = "$" + (m.group(1) or m.group(2))
            if name == "$uri":
                return uri
            block = by_variable.get(name)
            if block is None:
                return m.group(0)
            if name not in copies:
                copies[name] = name         # a chain that loops stays as it is
                # (the fallback maps' own $uri is the landing URL, which they test as it is, and a source
                # pairing $uri with a variable the landing sets, a file section's walk, stays with the landing)
                names = {"$" + (n or o) for n, o in _MAP_VARIABLE.findall(block.source)}
                source = block.source if name.startswith("$a2n_fallback_") or any(
                    n != "$uri" and n not in by_variable for n in names) else copy(block.source)
                entries = [(k, copy(v)) for k, v in block.entries]
                default = copy(block.default) if block.default is not None else None
                if (source, entries, default) != (block.source, block.entries, block.default):
                    copies[name] = model.new_variable("a2n_fallback_copy_")
                    model.add_map(dataclasses.replace(block, variable=copies[name], source=source,
                                                      entries=entries, default=default, volatile=True))
            return copies[name]
        return _MAP_VARIABLE.sub(one, text)

    for holder in [server.own_statements, server.statements] + [l.statements for l in all_nested(server.locations)]:
        for i, st in enumerate(holder):
            if st not in _always_lines([st]) or not st.args[1].startswith("$") or " " in st.args[1]:
                continue
            value = copy(st.args[1])
            if value != st.args[1]:
                gated = model.shared_map("a2n_fallback_value_", f"$status|{kept}",
                                         [(_FAILED_STATUS + r"\|.", value)], st.args[1], volatile=True)
                holder[i] = dataclasses.replace(st, args=[st.args[0], gated, *st.args[2:]])
    if not copies or all(name == value for name, value in copies.items()):
        return
    named = {kept: model.new_variable("a2n_fallback_uri_"), uri: model.new_variable("a2n_fallback_header_uri_")}
    for block in model.maps:
        for old, new in named.items():
            block.source = block.source.replace(old, new)
            block.entries = [(k, v.replace(old, new)) for k, v in block.entries]
            block.default = block.default.replace(old, new) if block.default is not None else None
    kept, uri = named[kept], named[uri]
    first = model.new_variable("a2n_fallback_first_")
    model.add_map(MapBlock(kept, first, [('""', "$uri")], kept, volatile=True))
    model.add_map(MapBlock(f"$status|{kept}|$uri", uri, [(_FAILED_STATUS + r"\|([^|]+)\|", "$1")], "$uri",
                           volatile=True))
    for loc, _above, fallback in falling:
        if not any(s.name == "set" and s.args[:1] == [kept] for s in loc.statements):
            at = next(i for i, s in enumerate(loc.statements) if s.comment not in (_FALLBACK_FROM, _FALLBACK_WITHOUT))
            loc.statements.insert(at, Stmt("set", [kept, first], fallback.span, comment=_FALLBACK_URI))


# what the named location _fallback_cycles makes says
_FALLBACK_ONCE = "the fallback URL once: falling back to it again is httpd's recursion limit (500)"


def _fallback_cycles(server: Server, model: NginxModel) -> None:
    """A FallbackResource whose URL lands where the request falls back again, its file missing: mod_dir looks
    the URL up with a subrequest, which falls back again, until httpd's recursion limit answers 500, and the
    original request sends that 500 through its ErrorDocument (observed with httpd 2.4: `ErrorDocument 500
    http://...` redirects, 302). nginx's try_files redirects internally until its own limit, whose 500 skips
    error_page (ngx_http_special_response_handler wants `r->uri_changes != 0`). Where an error_page for 500
    is in force, such a fallback goes through a named location that sets a flag for its URL and answers 500
    itself (error_page applies) where the flag is set already: the request fell back to that URL before and
    came back, as httpd's lookup would forever. The named location sends the add_header and error_page lines
    in force where the request falls back (a location's own ones are copied; the server's it inherits)."""
    main = model.main_server if model.main_server is not server else None
    outer = [server.own_statements, server.statements] + ([main.statements] if main is not None else [])
    every = outer + [l.statements for l in all_nested(server.locations)]
    if not any(st.name == "error_page" and "500" in st.args[:-1] for level in every for st in level):
        return
    flags: dict[str, str] = {}      # fallback URL -> the flag set on falling back to it
    named: dict[tuple, str] = {}    # (URL, the lines copied) -> the named location going there
    replaced: set[str] = set()      # named locations the fallbacks no longer go to
    # (the statements holding the try_files, the locations whose lines are in force there, innermost last)
    holders = [(loc.statements, above + [loc], st)
               for loc, above, st in _named_falling_back(server) + list(_falling_back(server))]
    pushed = _pushed_fallback(server, main)
    if pushed is not None:
        holders.append(pushed)
    for statements, above, fallback in holders:
        url = _fallback_url(server, fallback)
        if not _falls_back_again(server, main, url):
            continue
        copied = _own_lines_in_force([l.statements for l in reversed(above)], outer)
        key = (url, tuple(repr(st) for st in copied))
        if key not in named:
            flag = flags.setdefault(url, model.new_variable("a2n_fallback_again_"))
            named[key] = f"@a2n_fallback_once_{len(named) + 1}"
            server.locations.append(Location("", named[key], [
                Stmt("if", [f"({flag})"], fallback.span, _FALLBACK_ONCE, [Stmt("return", ["500"], fallback.span)]),
                Stmt("set", [flag, "1"], fallback.span),
                *[dataclasses.replace(st) for st in copied],
                Stmt("try_files", ["", url], fallback.span, comment=_FALLBACK_ONCE)], fallback.span))
        if fallback.args[-1].startswith("@"):
            replaced.add(fallback.args[-1])
        once = Stmt(fallback.name, fallback.args[:-1] + [named[key]], fallback.span, comment=fallback.comment)
        if fallback in statements:
            statements[statements.index(fallback)] = once
        else:
            statements.append(once)     # (the main server's, which the server no longer takes from http level)
    used = {st.args[-1] for l in all_nested(server.locations) for st in l.statements
            if st.name == "try_files" and st.args}
    server.locations[:] = [l for l in server.locations if l.path not in replaced or l.path in used]


def _mark_fallback_passes(server: Server) -> None:
    """Where a server rule must not run on the subrequest of a FallbackResource (passes.fallback.subrequest_pass),
    every block of SERVER falling back (a FallbackResource's try_files, or the index list joined with its URL)
    notes it last in its rewrite phase: an internal redirect that leaves the block before any answer is then
    the fallback's or the index's, both of which httpd makes as mod_dir's subrequests. (A rewrite that leaves
    the block stops before the note.)"""
    if not server.settings.get("fallback_pass"):
        return
    falling = (FALLBACK, _ALIAS_FALLBACK, _FALLBACK_ONCE)
    for loc in all_nested(server.locations):
        held = next((st for st in loc.statements if st.name == "try_files" and st.comment in falling
                     or st.name == "index" and st.comment == UNDER_FALLBACK), None)
        if held is not None and not any(st.name == "set" and st.args[:1] == [FALLBACK_MARK] for st in loc.statements):
            loc.statements.append(Stmt("set", [FALLBACK_MARK, "1"], held.span,
                                       comment="falling back here: mod_dir's subrequest"))


def _named_falling_back(server: Server) -> list[tuple]:
    """(named location, [], its try_files) for the named locations of SERVER that fall back to a URL: a
    server-level FallbackResource's (fallback.py), which the server's try_files and its locations' go to."""
    return [(loc, [], st) for loc in server.locations if loc.path.startswith("@") for st in loc.statements
            if st.name == "try_files" and st.comment == FALLBACK and st.args and not st.args[-1].startswith("@")]


def _server_fallback(server: Server, main: Server | None) -> Stmt | None:
    """The FallbackResource try_files in force at SERVER's level: its own, else the main server's, which the
    render gives every server that sets none and does not disable it."""
    own = next((st for st in server.own_statements + server.statements if st.name == "try_files"), None)
    if own is not None or main is None or server.settings.get(FALLBACK) == "":
        return own if own is not None and own.comment == FALLBACK else None
    return next((st for st in main.statements if st.name == "try_files" and st.comment == FALLBACK), None)


def _pushed_fallback(server: Server, main: Server | None) -> tuple | None:
    """(the server's own statements, no locations, the main server's try_files) where SERVER takes that one
    from the http level (the main server's own block too): a server that sets its own instead no longer takes
    it, and the other servers keep theirs."""
    fallback = _server_fallback(server, main)
    top = main if main is not None else server if server.is_main else None
    if fallback is None or top is None or fallback not in top.statements or not fallback.args:
        return None
    return (server.own_statements if server.is_main else server.statements), [], fallback


def _falls_back_again(server: Server, main: Server | None, url: str) -> bool:
    """Whether a fixed fallback URL (with its $is_args$args) lands where nginx falls back again: the location
    nginx picks for it (nested ones too) holds a FallbackResource try_files, or no location takes it and the
    server level does."""
    path = url[:-len("$is_args$args")] if url.endswith("$is_args$args") else url
    if not path.startswith("/") or path.startswith("//") or any(c in path for c in "$?|%@"):
        return False
    chain = serving_levels(server, None, path)[0]
    if not chain:
        return _server_fallback(server, main) is not None
    return any(st.name == "try_files" and st.comment == FALLBACK for st in chain[-1].statements)


def _parents(locations: list[Location], loc: Location) -> list[Location] | None:
    """The locations LOC is nested in, outermost first ([] at the top), or None where it is not among
    LOCATIONS."""
    for candidate in locations:
        if candidate is loc:
            return []
        below = _parents(candidate.locations, loc)
        if below is not None:
            return [candidate] + below
    return None


def _own_lines_in_force(levels: list[list[Stmt]], outer: list[list[Stmt]]) -> list[Stmt]:
    """The add_header and error_page lines in force in a location (LEVELS: its own and those around it,
    innermost first) that a named location does not inherit from the server (OUTER's levels): nginx takes
    each list from the innermost level holding one."""
    return [st for name in ("add_header", "error_page")
            for st in next((level for level in levels + outer if any(s.name == name for s in level)), [])
            if st.name == name and not any(st in level for level in outer)]


def _report_rules_without_fallback(locations: list[Location], diags: Diagnostics) -> None:
    """A FallbackResource (try_files) in a location whose per-directory rules hold an `if` that may leave the
    request in it: nginx serves such a request with the `if` block's configuration, where try_files is not
    inherited (A2N843). Said once per location, for its URLs."""
    for loc in locations:
        if any(st.name == "try_files" and st.comment in FALLBACK_COMMENTS for st in loc.statements):
            kept = next((st for st in loc.statements if st.name == "if" and st.block is not None
                         and st.comment not in FALLBACK_COMMENTS and not _ends_request(st.block)), None)
            if kept is not None and loc.modifier in ("", "^~", "="):
                diags.add("A2N843", f"location {loc.path}: a per-directory rule's `if` may keep a request without "
                          "ending it (its pattern does not match, or it goes on), and nginx then serves it with the "
                          "`if` block's configuration, which has no try_files: 404 there where httpd serves the "
                          "FallbackResource", kept.span, urls=[(loc.path, False)])
        _report_rules_without_fallback(loc.locations, diags)


def _landing(server: Server, target: str, found: dict | None = None) -> Location | None:
    """The top-level location nginx picks for a URL made by a rewrite or try_files (TARGET, variables and all),
    where the URL's fixed start decides it: an exact location of a fixed URL, else the longest prefix location
    it starts with if that is ^~ or the server has no regex location, and no longer prefix location begins
    with the fixed start where a variable follows it (its value could reach one). None where that cannot be
    told. FOUND: the answers already worked out for the server (a rule copied into every location has one
    target: the server's locations are scanned once for it, not once per copy)."""
    if found is not None:
        if target not in found:
            found[target] = _landing(server, target)
        return found[target]
    if not target.startswith("/") or target.startswith("//"):
        return None
    uri = target.split("?", 1)[0]
    uri = uri[:-len("$is_args$args")] if uri.endswith("$is_args$args") else uri
    fixed = uri.split("$", 1)[0]
    if fixed == uri:
        exact = next((l for l in server.locations if l.modifier == "=" and l.path == fixed), None)
        if exact is not None:
            return exact
    tops = [l for l in server.locations if l.modifier in ("", "^~")]
    found = max((l for l in tops if fixed.startswith(l.path)), key=lambda l: len(l.path), default=None)
    if found is None or (found.modifier != "^~" and any(l.modifier in ("~", "~*") for l in server.locations)):
        return None
    if fixed != uri and any(l.path.startswith(fixed) and l.path != fixed for l in tops):
        return None     # (a fixed URL is no longer than itself: a longer prefix cannot match it)
    return found


def _no_location(server: Server, target: str) -> Server | None:
    """SERVER, where no location of it can take TARGET (a fixed URL no prefix or exact location matches, in a
    server without regex locations): nginx answers it with the server's configuration. Else None."""
    if not target.startswith("/") or target.startswith("//"):
        return None
    uri = target.split("?", 1)[0]
    uri = uri[:-len("$is_args$args")] if uri.endswith("$is_args$args") else uri
    if "$" in uri or any(l.modifier in ("~", "~*") for l in server.locations) or \
            any(l.modifier in ("", "^~", "=") and (uri == l.path or (l.modifier != "=" and uri.startswith(l.path)))
                for l in server.locations):
        return None
    return server


REFUSED_HERE = "an access rule nginx cannot check: refused"
# the rewrite-phase refusal of a <LocationMatch>'s URLs under a location that never consults its own (guard_prefixes)
LOCATIONMATCH_GUARD = "<LocationMatch> access rule"
NOT_TRANSLATED_HERE = "its rules are not translated under this prefix"     # a <LocationMatch>'s (guard_prefixes)
NOT_TRANSLATED_ALIASED = "its access rules are not translated for the AliasMatch"    # a section's (_alias_guards)
# a directory's under an AliasMatch target whose .htaccess httpd refuses (_alias_guards, emit.inherit.early_failures)
FAILING_ALIASED = FAILS_EARLY + "a .htaccess directive its AllowOverride forbids, in the AliasMatch target"


def _refusal_reached(target: Location, url: str) -> Stmt | None:
    """The refusal of TARGET a URL rewritten to URL meets: its `deny all` for an access rule nginx cannot
    check or for a .htaccess httpd refuses (FAILS_EARLY), the `return 403` of a <Location>, an Alias or a
    directory refused for rewrite rules the translation leaves out there (LOCATION_REFUSAL, ALIAS_REFUSAL,
    DIRECTORY_REFUSAL), or the `return 403` of a <LocationMatch> whose rules are not translated under this
    prefix where the section's regex may match a URL with URL's fixed start."""
    for r in target.statements:
        if r.name == "deny" and r.args == ["all"] and (r.comment == REFUSED_HERE
                                                        or (r.comment or "").startswith(FAILS_EARLY)):
            return r
        if r.name == "return" and r.args == ["403"] and r.comment in (LOCATION_REFUSAL, ALIAS_REFUSAL,
                                                                      DIRECTORY_REFUSAL):
            return r
        if r.name == "if" and r.comment == LOCATIONMATCH_GUARD and r.block:
            m = re.fullmatch(r'\(\$uri (~\*?) (.*)\)', r.args[0] if r.args else "", re.S)
            inner = next((b for b in r.block if b.name == "return" and b.comment == NOT_TRANSLATED_HERE), None)
            if m is None or inner is None:
                continue
            regex = m.group(2)
            if regex.startswith('"') and regex.endswith('"'):
                regex = re.sub(r'\\(.)', r'\1', regex[1:-1])
            fixed = url.split("?", 1)[0].split("$", 1)[0]
            if _may_match_under(regex, fixed, m.group(1) == "~*"):
                return inner
    return None


def _refused_landing(server: Server, target: str, per_dir: bool) -> Location | None:
    """The ^~ location a URL made by a rewrite lands in, where the locations under its fixed start that a
    variable's value could reach instead (which `_landing` leaves undecided) are all refused as that one is,
    so that each answers the rewritten request alike: for a RewriteRule the translation leaves out, a
    <Location>'s or a directory's (a per-directory rule's result, PER_DIR), or for a .htaccess httpd refuses
    (FAILS_EARLY), with every location nested in them (a regex location under a directory's prefix) refused for
    it too: httpd fails the directory walk of each URL there the same way; or, for any rule, all refused to
    everyone for an access rule nginx cannot check (`_refused_here`)."""
    if not target.startswith("/") or target.startswith("//"):
        return None
    fixed = target.split("?", 1)[0].split("$", 1)[0]
    tops = [l for l in server.locations if l.modifier in ("", "^~")]
    found = max((l for l in tops if fixed.startswith(l.path)), key=lambda l: len(l.path), default=None)
    if found is None or found.modifier != "^~":
        return None
    reached = [found] + [l for l in server.locations if l.modifier in ("", "^~", "=") and l.path.startswith(fixed)]
    if per_dir and all(any(r.name == "return" and r.args == ["403"] and r.comment in (LOCATION_REFUSAL,
                                                                                      DIRECTORY_REFUSAL)
                           for r in l.statements) for l in reached):
        return found

    def failing(loc: Location) -> bool:
        return _fails_early(loc.statements) and all(failing(inner) for inner in loc.locations)
    if all(failing(l) for l in reached) or all(_refused_here(l) for l in reached):
        return found
    return None


def _regex_landing(server: Server, target: str) -> Location | None:
    """The top-level regex location nginx picks for every URL a rewrite makes (TARGET, variables and all):
    the first regex location that matches every URL with TARGET's fixed start (`_matches_all_under`), where
    no regex location before it may match one (`_may_match_under`) and no exact, ^~ or nesting prefix
    location could take one first (nginx checks regexes after the longest prefix, unless that is ^~ or one of
    its nested locations matches). A `<Location ~ "^/private">` refused for an access rule nginx cannot check
    is where `RewriteRule ^/data(?:/(.*))?$ /private/$1 [PT]` sends its requests, which `_landing` (prefix
    locations alone) leaves undecided. With nested locations, only one they are all refused in as it is
    (`_refused_here`). None where that cannot be told."""
    if not target.startswith("/") or target.startswith("//"):
        return None
    fixed = target.split("?", 1)[0].split("$", 1)[0]
    if any(loc.modifier in ("", "^~", "=") and (loc.path.startswith(fixed) or (fixed.startswith(loc.path)
                                                                             and loc.modifier != "="))
           and (loc.modifier != "" or loc.locations) for loc in server.locations):
        return None
    for loc in server.locations:
        if loc.modifier not in ("~", "~*"):
            continue
        if _matches_all_under(loc.path, fixed, loc.modifier == "~*"):
            nested = all_nested(loc.locations)
            return loc if not nested or all(_refused_here(l) for l in [loc] + nested) else None
        if _may_match_under(loc.path, fixed, loc.modifier == "~*"):
            return None
    return None


def _matches_all_under(regex: str, prefix: str, nocase: bool) -> bool:
    """Whether REGEX matches every URL starting with PREFIX: it is `^` and a literal text PREFIX starts with."""
    if regex.startswith("(?i)"):
        regex, nocase = regex[4:], True
    if not regex.startswith("^"):
        return False
    if re.search(r"[\\.^$*+?()\[\]{}|]", re.sub(r"\\[./\-_~]", "", regex[1:])):
        return False
    literal = re.sub(r"\\([./\-_~])", r"\1", regex[1:])
    return (prefix.lower().startswith(literal.lower()) if nocase else prefix.startswith(literal))


def _refused_here(loc: Location) -> bool:
    """LOC is refused to everyone for an access rule nginx cannot check (its `deny all`, REFUSED_HERE): a
    rewritten URL nginx routes there is refused (403) whichever of the locations under the rule's fixed start
    its variable part picks, where httpd's internal redirect runs the section's own rules (and serves, say)."""
    return any(r.name == "deny" and r.args == ["all"] and r.comment == REFUSED_HERE for r in loc.statements)


def _report_rewrites_into_refusals(server: Server, diags: Diagnostics) -> None:
    """A rewrite whose result lies in a region refused for an access rule nginx cannot check (A2N742: a
    region's `deny all`, or a <LocationMatch>'s `return 403` under a prefix location, guard_prefixes): the
    requests it rewrites meet that refusal in nginx (403), where httpd's internal redirect runs the region's own
    rules (a login asked with 401 and its challenge, say). The refusal's diagnostic speaks of the region's URLs;
    this one, at the rule, of the URLs the rule rewrites there (its regex, and a per-directory rule's own
    directory where it rewrites the index file looked up there, _index_requests). A per-directory rule's result
    in a <Location> refused for a RewriteRule the translation leaves out (LOCATION_REFUSAL) meets that refusal
    the same way, where httpd runs the section's rules on it (A2N870); so does one under an Alias refused for the
    rewrite rules of the directory it maps to (ALIAS_REFUSAL), where httpd serves the aliased file (after [END]
    no rule runs there) or runs those rules on it (A2N871); so does one in a directory refused in place of the
    per-directory rules the translation leaves out there (DIRECTORY_REFUSAL, A2N838), whose .htaccess rules
    httpd's internal redirect runs on the result, and may serve it (A2N889; observed with httpd 2.4: a
    <Directory> rule rewriting /api/a.txt to /blog/sub/index.html answered 200 where a conditional rule of
    /blog's .htaccess is not translated; a server-context rule's A2N889 is noted as it is compiled). Only a
    result whose fixed start decides the prefix location nginx picks (a ^~ one, or a server without regex
    locations) is followed, or one every location of which under that start is refused alike
    (`_refused_landing`). A rule emitted in several locations (a <Directory>'s rules copied into the locations
    of its <Location> sections) is reported once, for the URLs every copy rewrites there: the index request one
    copy's `index` rewrites, another's lacks."""
    seen: dict = {}         # (file, line, landing) -> the diagnostic reported for it (None: none)
    landings: dict = {}

    def walk(statements: list[Stmt], where: Location | None) -> None:
        for st in statements:
            if st.block is not None:
                walk(st.block, where)
            if st.name != "rewrite" or len(st.args) < 2 or st.args[-1] in ("redirect", "permanent", "break"):
                continue
            target = _landing(server, st.args[1], landings)
            if target is None:
                target = _refused_landing(server, st.args[1], where is not None)
            if target is None:
                target = _regex_landing(server, st.args[1])
            refusal = _refusal_reached(target, st.args[1]) if target is not None else None
            lies = "the URL it makes lies in"
            if refusal is None:
                target, refusal = _fixed_refusal(server, st.args[1])
            if refusal is None:
                target, refusal = _index_refusal(server, st.args[1])
                lies = "the index file of the URL it makes lies in"
            if refusal is None or target is where or st.span is None:
                continue
            regex = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", st.args[0])
            try:
                re.compile(regex)
            except re.error:
                if where is None or where.modifier not in ("", "^~"):
                    continue
                url = (where.path, False)
            else:
                url = (regex, True)
            key = (st.span.file, st.span.line, target.path)
            # a per-directory rule rewrites its directory's own URL too where it rewrites the index file (httpd's
            # mod_dir looks the index up with a subrequest the rule rewrites, and redirects there; nginx's
            # `index` redirects internally to the index file, which the location's rule rewrites)
            urls = [url] + (_index_requests(server, where, url) if where is not None else [])
            if key in seen:
                if seen[key] is not None:
                    seen[key].urls += tuple(u for u in urls if u not in seen[key].urls)
                continue
            seen[key] = None
            if (refusal.comment or "").startswith(FAILS_EARLY):
                # the internal redirect's directory walk reads the .htaccess httpd refuses: a 500, before any
                # section of the new URL applies, where nginx's refusal answers 403
                seen[key] = diags.add(
                    "A2N895", f"RewriteRule to {st.args[1]}: the URL it makes lies in {target.path}, whose "
                    ".htaccess httpd refuses (AllowOverride): httpd answers 500 Internal Server Error for the "
                    "requests the rule rewrites there, the translation refuses them (403)", st.span,
                    directive="RewriteRule", related=[refusal.span] if refusal.span else [], urls=urls)
                continue
            if refusal.comment == ALIAS_REFUSAL:
                if where is not None:
                    seen[key] = diags.add(
                        "A2N871", f"RewriteRule to {st.args[1]} (per-directory): the URL it makes lies in "
                        f"{target.path}, an Alias into a directory with rewrite rules, which the translation "
                        "refuses (403); httpd's internal redirect serves the result there (running no rule "
                        "again after [END]), where nginx refuses the requests this rule rewrites there",
                        st.span, directive="RewriteRule",
                        related=[refusal.span] if refusal.span and refusal.span != st.span else [], urls=urls)
                continue
            if refusal.comment == DIRECTORY_REFUSAL:
                if where is not None:       # (a server-context rule's is noted as it is compiled)
                    seen[key] = diags.add(
                        "A2N889", f"RewriteRule to {st.args[1]} (per-directory): the URL it makes lies in "
                        f"{target.path}, which the translation refuses (403) for per-directory rules it leaves "
                        "out; httpd's internal redirect runs those rules on the result and may serve it, where "
                        "nginx refuses the requests this rule rewrites there", st.span, directive="RewriteRule",
                        related=[refusal.span] if refusal.span and refusal.span != st.span else [], urls=urls)
                continue
            if refusal.comment == LOCATION_REFUSAL:
                if where is not None:       # (a server-context [PT] rule's is A2N866)
                    seen[key] = diags.add(
                        "A2N870", f"RewriteRule to {st.args[1]} (per-directory): the URL it makes lies in "
                        f"{target.path}, which the translation refuses (403) for a RewriteRule there it does "
                        "not translate; httpd's internal redirect runs that section's rules on the result, "
                        "where nginx refuses the requests this rule rewrites there", st.span,
                        directive="RewriteRule", related=[refusal.span], urls=urls)
                continue
            seen[key] = diags.add(
                "A2N742", f"RewriteRule to {st.args[1]}: {lies} {target.path}, which is "
                "refused to everyone (403) for an access rule nginx cannot check there; the requests the rule "
                "rewrites are refused there too", st.span, directive="RewriteRule", related=[refusal.span],
                urls=urls)

    walk(server.statements + server.own_statements, None)
    todo = list(server.locations)
    while todo:
        loc = todo.pop()
        todo.extend(loc.locations)
        walk(loc.statements, loc)


def _fixed_uri(target: str) -> str | None:
    """The path of a rewrite's result TARGET where it is a fixed URL (no variable but the query it keeps)."""
    uri = target.split("?", 1)[0]
    uri = uri[:-len("$is_args$args")] if uri.endswith("$is_args$args") else uri
    return uri if "$" not in uri and uri.startswith("/") and not uri.startswith("//") else None


def _fixed_refusal(server: Server, target: str) -> tuple[Location | None, Stmt | None]:
    r"""The location nginx's own lookup picks for a rewrite's fixed result TARGET (a file's URL), nested ones
    too, and its refusal (`_refusal_reached`): `_landing` follows the top-level prefix location alone, so a
    result a <Files> section's regex location nested in it refuses (`RewriteRule ^/old/(.*\.txt)$
    /old/index.html` under `<Files ~ "\.html$">` with `Satisfy Any` and `Require env`) went unreported, where
    httpd runs that section's rules on it. (None, None) where no refusal is met."""
    uri = _fixed_uri(target)
    landing = _fixed_location(server, uri) if uri is not None and not uri.endswith("/") else None
    refusal = _refusal_reached(landing, uri) if landing is not None else None
    return (landing, refusal) if refusal is not None else (None, None)


def _index_refusal(server: Server, target: str) -> tuple[Location | None, Stmt | None]:
    """The location, and its refusal (`_refusal_reached`), that the index file of a directory URL made by a
    rewrite (TARGET, a fixed URL ending with a slash) meets: nginx's `index` redirects internally to the index
    file, whose location (a <Files> section's regex location nested in the directory's) may be refused for an
    access rule nginx cannot check, as httpd's mod_dir looks the index up with a subrequest that runs that
    section's rules (a login asked with 401). (None, None) where no refusal is met or nginx's choice of
    location cannot be told."""
    uri = _fixed_uri(target)
    directory = _fixed_location(server, uri) if uri is not None and uri.endswith("/") else None
    if directory is None:
        return None, None
    for name in _index_names(server, directory):
        landing = _fixed_location(server, uri + name)
        refusal = _refusal_reached(landing, uri + name) if landing is not None else None
        if refusal is not None:
            return landing, refusal
    return None, None


def _fixed_location(server: Server, url: str) -> Location | None:
    """The location nginx picks for URL, a fixed URL (nginx's own lookup, `find_location`)."""
    chain, _ = find_location(server.locations, url, [])
    return chain[-1] if chain else None


def _index_requests(server: Server, where: Location, url: tuple[str, bool]) -> list[tuple[str, bool]]:
    """The request for WHERE's own directory (its path, with the slash), where the rule's regex (URL) matches
    one of the index files nginx's `index` there (or the server's) looks up: the internal redirect to the
    index runs the location's rules, which rewrite it too (as mod_dir's lookup of the index does in httpd)."""
    regex, is_regex = url
    if not is_regex or where.modifier not in ("", "^~") or not where.path.endswith("/"):
        return []
    if not any(re.search(regex, where.path + name) for name in _index_names(server, where)):
        return []
    return [("^" + re.escape(where.path) + "$", True)]


def _login(statements: list[Stmt], inherited: str | None) -> str | None:
    """The realm a location's auth_basic asks for (nginx inherits it from the enclosing level), None for none
    or where `satisfy any` may admit without one."""
    if any(st.name == "satisfy" and st.args == ["any"] for st in statements):
        return None
    auth = next((st for st in statements if st.name == "auth_basic" and st.args), None)
    if auth is None:
        return inherited
    return None if auth.args[0] == "off" else auth.args[0]


def _fallback_login(server: Server, url: str, top: str | None) -> tuple[Location | None, str | None]:
    """The location a FallbackResource's URL lands in and the realm nginx asks for there (TOP: the server's).
    A fixed URL is looked up as nginx does, nested locations included (a <Files "*.html"> login is a regex
    location nested in the prefix one), the realm inherited down the chain; a URL with variables, by its fixed
    start (`_landing`), with the login of that location alone."""
    uri = url.split("?", 1)[0]
    uri = uri[:-len("$is_args$args")] if uri.endswith("$is_args$args") else uri
    if "$" in uri or not uri.startswith("/") or uri.startswith("//"):
        target = _landing(server, url)
        return target, _login(target.statements, top) if target is not None else None
    chain, _ = find_location(server.locations, uri, [])
    realm = top
    for level in chain:
        realm = _login(level.statements, realm)
    return (chain[-1] if chain else None), realm


def _fallback_holders(server: Server):
    """Each location (the server itself for a virtual host's own FallbackResource) whose try_files is a
    FallbackResource's, with that try_files, the URL it falls back to, the realm nginx asks for there (auth_basic
    inherited down the nesting) and the server's own realm."""
    top = _login(server.statements, None)
    # the server's own try_files (a virtual host's FallbackResource) serves the URLs no location takes: "/"
    holders = [(Location("", "/", list(server.statements), server.span), top)] \
        if not any(l.modifier in ("", "^~") and l.path == "/" for l in server.locations) else []
    todo = [(loc, top) for loc in server.locations]
    while todo or holders:
        loc, inherited = holders.pop() if holders else todo.pop()
        own = _login(loc.statements, inherited)
        todo.extend((inner, own) for inner in loc.locations)
        fallback = next((st for st in loc.statements if st.name == "try_files" and st.comment in FALLBACK_COMMENTS
                         and st.args), None)
        if fallback is None or loc.modifier not in ("", "^~", "=") or fallback.span is None \
                or loc.path.startswith("@"):
            continue
        yield loc, fallback, _fallback_url(server, fallback), own, top


def _report_fallback_logins(server: Server, diags: Diagnostics) -> None:
    """A FallbackResource whose URL asks for a login where the requests falling back do not (A2N767). httpd
    looks the fallback URL up with a subrequest (mod_dir.c, fixup_dflt): its configuration differs from the
    request's, so authentication runs there, and without credentials the subrequest's 401 is the answer, but
    mod_auth_basic's challenge stays in the subrequest's headers: 401 with no WWW-Authenticate (observed with
    httpd 2.4). nginx's try_files redirects internally and auth_basic answers 401 with its challenge. Said once
    per FallbackResource line, for the URLs of the locations concerned."""
    said: dict = {}
    for loc, fallback, url, own, top in _fallback_holders(server):
        if own is not None:
            continue
        target, realm = _fallback_login(server, url, top)
        if realm is None or target is loc:
            continue
        diag = said.get(fallback.span)
        if diag is None:
            said[fallback.span] = diags.add(
                "A2N767", f"FallbackResource {url.replace('$is_args$args', '')}: the fallback URL asks "
                f"for a login ({realm}) where {loc.path} does not; httpd looks it up with a subrequest, whose 401 "
                "it answers without the subrequest's challenge (no WWW-Authenticate), where nginx's try_files "
                "answers auth_basic's 401 with it", fallback.span, directive="FallbackResource",
                related=[target.span] if target.span else [], urls=[(loc.path, False)])
        elif (loc.path, False) not in diag.urls:
            diag.urls += ((loc.path, False),)


def _report_fallbacks_into_refusals(server: Server, diags: Diagnostics) -> None:
    """A FallbackResource whose URL (or, for a directory URL, its index file) lands where the translation
    refuses every request (`_refusal_reached`). httpd looks the URL up with a subrequest (mod_dir.c,
    fixup_dflt) that maps it and applies its own sections, so the request falling back is answered as that URL
    is; nginx's try_files redirects internally into the refused location: 403 for every request falling back.
    - a region refused to everyone for an access rule nginx cannot check (A2N742: the region's `deny all`, or a
      <LocationMatch>'s `return 403` under a prefix location): the subrequest runs that rule and serves where
      it grants (observed with httpd 2.4: a <FilesMatch> of .html files with `Require not expr` over
      `FallbackResource /index.html` answers 200 to a missing file under the fallback's <Location>);
    - any other refusal (A2N766: a <Location> refused for a RewriteRule it leaves out, an Alias or a directory
      refused for rewrite rules): the URL's own sections answer (observed with httpd 2.4: a ProxyPass whose URL lacks a
      slash answered its 500 there).
    The refusal's own diagnostic speaks of its region's URLs; this one, at the FallbackResource line, of the
    URLs of the locations that fall back there (those refused themselves aside: their own refusal answers
    before try_files), as `_report_rewrites_into_refusals` does for a rewrite's result. Said once per
    FallbackResource line."""
    said: dict = {}
    for loc, fallback, url, _own, top in _fallback_holders(server):
        if _refusal_reached(loc, loc.path) is not None:
            continue
        target, _realm = _fallback_login(server, url, top)
        refusal = _refusal_reached(target, url) if target is not None else None
        lies = "the fallback URL lies in"
        if refusal is None:
            target, refusal = _index_refusal(server, url)
            lies = "the index file of the fallback URL lies in"
        if refusal is None or target is loc:
            continue
        diag = said.get(fallback.span)
        if diag is not None:
            if (loc.path, False) not in diag.urls:
                diag.urls += ((loc.path, False),)
            continue
        fell = url.replace('$is_args$args', '')
        if refusal.comment in (REFUSED_HERE, NOT_TRANSLATED_HERE):
            code, message = "A2N742", (
                f"FallbackResource {fell}: {lies} {target.path}, which is refused to everyone (403) for an access "
                f"rule nginx cannot check there; httpd's subrequest for it runs that rule, nginx refuses the "
                f"requests under {loc.path} that fall back")
        else:
            code, message = "A2N766", (
                f"FallbackResource {fell}: {lies} {target.path}, which the translation refuses (403); httpd looks "
                "the URL up with a subrequest that applies that URL's own sections and mappings, where nginx's "
                "try_files meets the refusal: the requests that fall back get 403 from nginx where httpd may "
                "answer otherwise")
        said[fallback.span] = diags.add(code, message, fallback.span, directive="FallbackResource",
                                        related=[refusal.span] if refusal.span else [], urls=[(loc.path, False)])


def _reread_env_after_rewrites(model: NginxModel, server: Server) -> set[int]:
    """A per-directory rewrite in a server whose `SetEnvIf Request_URI` variables are read on the request's own
    path (see _report_env_after_rewrites): httpd's internal redirect to the result runs the server's SetEnvIf
    lines again, on the rewritten path. Where the rule is a plain `rewrite` of the location (no condition
    around it) and a variable is a map of $uri alone, the variable is set again, right before the rewrite and
    only where its regex matches, from a copy of its map over the rule's result (its path: SetEnvIf reads no
    query). A rule under conditions (RewriteCond: an `if` around the rewrite) cannot hold a second `if`: there
    the variable is set, right before the rewrite, from a map of $uri that gives the copy where the rule's
    regex matches (its captures fill the result) and the variable's own value elsewhere; so too before the 403
    standing for a rule left out whose result is known (Stmt.rule_result: an [END] rule whose result crosses
    another section), whose answer stands for httpd's on that result. So too before the refusal that stands
    for a directory's rules left out, from their results (and before an Alias's refusal of the directory's
    URLs, where httpd runs the same rules), and before the translation's refusals that answer ahead of a
    directory's rules (_reread_ahead_of_refusals). The rest stays as A2N768 says.
    Returns the ids of the rewrites so followed (in every location holding them) and of the rules left out so
    followed."""
    pin = next((st for st in server.own_statements if st.name == "set" and st.args[:1] == ["$a2n_setenv_uri_pin"]),
               None)
    if pin is None:
        return set()
    names = ["$" + n for n in re.findall(r"\$\{(\w+)\}", pin.args[1])]
    maps = [m for m in model.maps if m.variable in names and m.source in URI_SOURCES and not m.hostnames]
    if not maps or len(maps) != len(names):
        return set()
    followed: set[int] = set()
    _read_any_after_location_rules(model, server, maps)

    def followable(st: Stmt) -> bool:
        return st.name == "rewrite" and len(st.args) >= 2 and st.args[-1] not in ("redirect", "permanent") \
            and st.args[1].startswith("/") and not re.search(r"[\s'\"{};]", st.args[0] + st.args[1])

    def reread(st: Stmt) -> Stmt:
        result = st.args[1].split("?", 1)[0]
        return Stmt("if", [f"($uri ~ {st.args[0]})"], st.span,
                    comment="SetEnvIf Request_URI again on the rule's result, as httpd's redirect runs it",
                    block=[Stmt("set", [m.variable, model.shared_map(
                        m.variable.lstrip("$") + "_after_", result, list(m.entries), m.default, m.span)], st.span)
                        for m in maps])

    def reread_within(regex: str, target: str, span,
                      comment: str = "SetEnvIf Request_URI again on the rule's result, as httpd's redirect runs it"
                      ) -> list[Stmt]:
        result = target.split("?", 1)[0]
        return [Stmt("set", [m.variable, model.shared_map(
            m.variable.lstrip("$") + "_if_", "$uri",
            [("~" + regex, model.shared_map(m.variable.lstrip("$") + "_after_", result, list(m.entries),
                                            m.default, m.span, volatile="$" in result))],
            m.variable, m.span, volatile=True)], span, comment=comment)
            for m in maps]

    def left_out(st: Stmt) -> bool:
        """The 403 standing for a per-directory rule left out whose regex and result are known."""
        return st.name == "return" and st.comment == REFUSED_RULE and st.rule_result is not None \
            and not re.search(r"[\s'\"{};]", "".join(st.rule_result))

    def reread_rule(st: Stmt) -> list[Stmt] | None:
        """The variables as httpd's answer reads them where ST, a `rewrite` or `return` of the rules, applies
        (for a `return`, where the `if` block holding it holds): set again on the result of a rewrite or of
        a rule left out; on the request's own path where the rule answers itself (a redirect, [F], `-` [L]).
        None where not known."""
        if followable(st) or left_out(st):
            return reread_within(*(st.args[:2] if st.name == "rewrite" else st.rule_result), st.span)
        own_path = "httpd answers here on the request's own path"
        if st.name == "rewrite" and len(st.args) >= 2 and not re.search(r"[\s'\"{};]", st.args[0]) \
                and (st.args[-1] in ("redirect", "permanent") or st.args[1] == "$uri"):
            return reread_within(st.args[0], "$uri", st.span, own_path)
        if st.name == "return" and (st.comment is None or st.comment.startswith("httpd ")):
            # (a rule's own answer, [F], [G], a redirect, or httpd's refusal of its result; not a 403 the
            # translation answers in place of rules it leaves out, whose result is not known)
            return [Stmt("set", [m.variable, model.shared_map(m.variable.lstrip("$") + "_after_", "$uri",
                                                              list(m.entries), m.default, m.span, volatile=True)],
                         st.span, comment=own_path) for m in maps]
        return None

    todo = list(server.locations)
    while todo:
        loc = todo.pop()
        todo.extend(loc.locations)
        rules = {id(st) for st in loc.directory_rules}
        out, changed = [], False
        for st in loc.statements:
            if id(st) in rules and followable(st):
                out.append(reread(st))
                changed = True
                followed.add(id(st))
            elif id(st) in rules and st.name == "if" and st.block:
                block = []
                for inner in st.block:
                    if followable(inner) or left_out(inner):
                        block.extend(reread_rule(inner))
                        followed.add(id(inner))
                    block.append(inner)
                st.block = block
            out.append(st)
        if changed:
            loc.statements = out
    preludes: dict[int, list[Stmt]] = {}

    def prelude(loc: Location | Stmt) -> list[Stmt]:
        """_rules_ahead of the rules of LOC (or those a refusal keeps unplaced: Stmt.unplaced_rules), made once
        (its maps only where a refusal takes it)."""
        if id(loc) not in preludes:
            rules = loc.unplaced_rules if isinstance(loc, Stmt) else loc.directory_rules
            preludes[id(loc)] = _rules_ahead(rules, followable, reread, reread_rule)
        return preludes[id(loc)]
    _reread_ahead_of_refusals(server.locations, prelude)
    # A location the translation refuses (403 where httpd may answer) over a directory whose parent has rules:
    # httpd runs the parent's rules there (_carry_directory_rules leaves them out of the refusal), and the
    # headers of its answer follow their result: the refusal's too, with the variables set again where a rule
    # applies (its conditions too, _rules_ahead).
    own = server.settings.get("rewrite_directories", set())
    ruled = sorted((loc for loc in server.locations if loc.modifier in ("", "^~") and loc.directory_rules
                    and loc.path.endswith("/")), key=lambda l: len(l.path), reverse=True)
    for loc in server.locations:
        if loc.modifier not in ("", "^~", "=") or loc.directory_rules \
                or not any(st.name == "deny" and st.args == ["all"] and "refused" in (st.comment or "")
                           for st in loc.statements):
            continue
        parent = next((r for r in ruled if loc.path.startswith(r.path) and loc.path != r.path), None)
        if parent is None or any(p != parent.path and p.startswith(parent.path)
                                 and (loc.path.rstrip("/") + "/").startswith(p) for p in own):
            continue
        ifs = prelude(parent)
        if not ifs:
            continue
        for inner in all_nested([loc]):
            if not inner.directory_rules:
                inner.statements[:0] = copy.deepcopy(ifs)
    # A directory refused in place of its per-directory rules (A2N838, rewrite._refuse_region): httpd still
    # runs them, and its answer's Header lines test the variables as the redirect to a rule's result sets
    # them. Right before the refusal, where a rule's pattern matches (first match first), each variable is
    # set again from a copy of its map over that rule's result, unless the result is not known or leads to
    # a directory with rules of its own (or a parent's), whose redirect httpd may rewrite again (but for one
    # the rules of that directory, refused too, are known to end on: _settled_result); and not for a
    # directory requested without its slash, which mod_dir's fixup redirects (301) after the rules ran,
    # before their result is served (SLASH: DirectorySlash is on).
    refused_rules = server.settings.get("refused_rule_results", [])
    for refusal, _, slash, entries, _ in refused_rules:
        kept = []
        for key, result, rule in entries:
            settled = _settled_result(result, own, refused_rules) if result else None
            if result and not any((result.split("$", 1)[0].rstrip("/") + "/").startswith(p)
                                  or "$" in result and p.startswith(result.split("$", 1)[0]) for p in own):
                kept.append((key, result))
                followed.add(id(rule))
            elif settled:
                kept.append((key, settled))
                followed.add(id(rule))
            else:
                kept.append((key, '""'))
        if not any(result != '""' for _, result in kept):
            continue
        result = model.shared_map("a2n_rwres_", "$uri", kept, '""', refusal.span)
        tests = [Stmt("set", ["$a2n_rwres", result], refusal.span)]
        if slash:
            tests.append(Stmt("if", ["(-d $request_filename)"], refusal.span,
                              comment="mod_dir: a directory without its slash is redirected, not rewritten",
                              block=[Stmt("set", ["$a2n_rwres", model.shared_map(
                                  "a2n_rwres_dir_", "$uri", [("~/$", result)], '""')], refusal.span)]))
        tests.append(Stmt("if", ["($a2n_rwres)"], refusal.span,
                          comment="SetEnvIf Request_URI again on the result of the rules left out, as httpd's "
                                  "redirect runs it",
                          block=[Stmt("set", [m.variable, model.shared_map(
                              m.variable.lstrip("$") + "_after_", result, list(m.entries), m.default, m.span)],
                              refusal.span) for m in maps]))
        for loc in all_nested(server.locations):
            at = next((n for n, st in enumerate(loc.statements) if st is refusal), None)
            # (not behind another refusal that answers first: an Alias's, which sets them again itself)
            if at is not None and not any(st.name == "return" for st in loc.statements[:at]):
                loc.statements[at:at] = tests
    return followed


def _read_any_after_location_rules(model: NginxModel, server: Server, maps: list) -> None:
    """A <Location> refused for a RewriteRule the translation leaves out (LOCATION_REFUSAL, A2N805): httpd
    runs the rule on the mapped file path, and its internal redirect to the result runs the server's
    `SetEnvIf Request_URI` lines (MAPS: each variable's map of $uri) again on the new path, renaming the
    old values REDIRECT_*; the answer's Header lines test the new values (observed with httpd 2.4:
    `RewriteRule "^(.*)$" /app/ [L,PT]` in <Location /app> answered /app/a.txt with the <FilesMatch>'s
    `Header always append Referrer-Policy no-referrer env=!txt`, as /app/ sets no `txt`). The result is not
    known, so the refusal's headers are sent where any value of a variable sends them (Stmt.readings: a
    map giving each value the variable's map may take), a security header on more answers rather than
    fewer (emit.inherit.refused_headers)."""
    refusals = [st for loc in all_nested(server.locations) for st in loc.statements
                if st.name == "return" and st.comment == LOCATION_REFUSAL]
    if not refusals:
        return
    readings = tuple((m.variable, model.shared_map(m.variable.lstrip("$") + "_any_", "$uri", [], value, m.span))
                     for m in maps for value in dict.fromkeys([m.default or '""'] + [v for _, v in m.entries]))
    for st in refusals:
        st.readings = readings


def _rules_ahead(rules: list[Stmt], followable, reread, reread_rule) -> list[Stmt]:
    """The statements that set the `SetEnvIf Request_URI` variables again as a directory's RULES would (see
    _reread_env_after_rewrites), for a refusal that answers ahead of them: per rule (REREAD: a plain internal
    `rewrite`; REREAD_RULE: the `rewrite` or `return` of an `if` block, or any other), the variables as
    httpd's answer reads them where it applies, the last rule first, so that the first rule that applies
    decides, as the first rule whose rewrite ends the rules ([L], [END]) or that answers (a redirect) does in
    httpd; before them, the tests of the rules' conditions those `if` blocks read (_tests_read). The
    statements stop at a rule not known, at one that answers every request, or at a rewrite that does not end
    the rules (a later rule would test its result). Empty where no rule rewrites to another path."""
    if not any(followable(b) or (b.name == "return" and b.rule_result is not None)
               for st in rules for b in [st] + list(st.block or ())):
        return []
    tests: list[Stmt] = []
    answers: list[list[Stmt]] = []
    for st in rules:
        acts = [b for b in st.block or () if b.name in ("rewrite", "return")] if st.name == "if" else [st]
        if _rule_test(st):
            tests.append(st)
            continue
        if not any(b.name in ("rewrite", "return") for b in acts) or st.comment == ACCESS_REFUSAL:
            continue
        sets = [[reread(st)]] if st.name != "if" and followable(st) else [reread_rule(b) for b in acts]
        if any(r is None for r in sets):
            break
        answers.append([Stmt("if", st.args, st.span, comment=st.comment or "where this rule applies",
                             block=[r for rs in sets for r in rs])] if st.name == "if" else sets[0])
        if st.name == "return" or any(b.name == "rewrite" and b.args[-1] not in ("break", "last", "redirect",
                                                                                  "permanent") for b in acts):
            break
    return _tests_read(tests, answers) + [r for unit in answers[::-1] for r in unit]


def _rule_test(st: Stmt) -> bool:
    """Whether ST may set a variable the rules' conditions test: a `set`, or an `if` block of `set` lines alone."""
    return (st.name == "set" and len(st.args) == 2) or \
        (st.name == "if" and bool(st.block) and all(b.name == "set" and len(b.args) == 2 for b in st.block))


def _tests_read(tests: list[Stmt], answers: list[list[Stmt]]) -> list[Stmt]:
    """Copies of the TESTS (_rule_test) that the conditions of ANSWERS read, directly or through other tests."""
    read = set(re.findall(r"\$\{?(\w+)", " ".join(a for unit in answers for st in unit if st.name == "if"
                                                    for a in st.args)))
    kept: list[Stmt] = []
    for st in reversed(tests):
        sets = [st] if st.name == "set" else st.block
        if any(b.args[0].lstrip("$") in read for b in sets):
            kept.append(copy.deepcopy(st))
            read |= set(re.findall(r"\$\{?(\w+)", " ".join(st.args[1:] if st.name == "set" else st.args)))
            read |= {w for b in sets for w in re.findall(r"\$\{?(\w+)", " ".join(b.args[1:]))}
    return kept[::-1]


def _reread_ahead_of_refusals(locations: list[Location], prelude: Callable[[Location], list[Stmt]],
                              ruled: Location | None = None, kept: Stmt | None = None) -> None:
    """The translation's refusal of a region under a directory with per-directory rules (a section it cannot
    place, `deny all`): httpd, where that section does not apply, runs the rules and serves their result
    through an internal redirect, which runs the server's `SetEnvIf Request_URI` lines again on the
    rewritten path, and the answer's Header lines test those values (`Header onsuccess set
    X-Content-Type-Options nosniff env=!txt` was sent on /admin/a.txt?debug=1, which a rule under a query
    condition rewrote to /api/). nginx refuses ahead of the rules (the `return 403` that repeats the refusal
    there, ACCESS_REFUSAL), and a file section's location nested in the directory's runs none of them (it
    refuses every request): its 403 tested the values read on the request's own path and lost the header.
    The variables are set again right before such a refusal, from the rules of the location (PRELUDE,
    _rules_ahead), or those of the nearest enclosing location with rules (RULED) for a nested location
    without rules of its own. So too before the refusal after a region's own rules (_refused_after_rules) of
    a nested location the rules are not carried into (_carry_rules_into_nested): httpd runs them where the
    section the translation leaves out does not apply. So too before the refusal of a directory whose rules
    an unplaced section may keep from running (A2N844, Stmt.unplaced_rules), and its copies in the locations
    nested in the directory's (KEPT: the refusal holding the rules), from those rules: httpd runs them where
    that section does not apply."""
    for loc in locations:
        source = loc if loc.directory_rules else ruled
        # (not where the region's own rules refuse everyone: httpd refuses there before the rules run)
        refused = any(st.name == "deny" and st.args == ["all"] and "refused" in (st.comment or "")
                      and not st.shut_region for st in loc.statements) or _refused_after_rules(loc)
        at = next((n for n, st in enumerate(loc.statements) if st.name == "return" and st.comment == ACCESS_REFUSAL),
                  None)
        unplaced = next((n for n, st in enumerate(loc.statements) if st.name == "return"
                         and st.comment == SYMLINKS_UNPLACED and (st.unplaced_rules or kept is not None)), None)
        if unplaced is not None:
            kept = loc.statements[unplaced] if loc.statements[unplaced].unplaced_rules else kept
            loc.statements[unplaced:unplaced] = copy.deepcopy(prelude(kept))
        elif source is not None and refused and at is not None:
            loc.statements[at:at] = copy.deepcopy(prelude(source))
        elif source is not None and refused and not loc.directory_rules and loc.modifier != "@" \
                and not any(st.name == "internal" for st in loc.statements):
            loc.statements[:0] = copy.deepcopy(prelude(source))
        _reread_ahead_of_refusals(loc.locations, prelude, source, kept)


def _settled_result(result: str, own: set[str], refused_rules: list) -> str | None:
    """The path httpd's redirects end on from RESULT, a per-directory rule's result (a plain path) inside a
    directory with rules of its own (OWN), where that directory's rules are left out too (REFUSED_RULES, as
    rewrite._refuse_region records them) and known: the redirect's new request runs them on RESULT, and the
    first whose pattern matches rewrites it again (followed while it leads to another such path), answers on
    it (a redirect, [F]) or rewrites it to itself, which httpd redirects to again and again on the same path
    until its recursion limit (LimitInternalRecursion: a 500 whose Header lines test the variables SetEnvIf
    sets on that path; observed with httpd 2.4 for `RewriteRule "^([^/]+)/?$" /app/index.html [L]` in
    <Directory /srv/www/app>). A path no rule matches ends there where every rule that may redirect has an
    entry. None where it is not known: a back-reference left in the path, a directory under another with
    rules, a directory whose rules are translated, an entry not known, a directory index (mod_dir's own
    redirect)."""
    by_prefix = {prefix: (entries, redirecting) for _, prefix, _, entries, redirecting in refused_rules}
    path = result.split("?", 1)[0]          # (SetEnvIf's Request_URI: the path alone)
    for _ in range(10):
        if "$" in path or path.endswith("/"):
            return None
        under = [p for p in own if (path.rstrip("/") + "/").startswith(p)]
        if not under:
            return path
        if len(under) != 1 or under[0] not in by_prefix:
            return None
        entries, redirecting = by_prefix[under[0]]
        hit, target = False, None
        for key, target, _ in entries:
            regex = key[2:] if key.startswith("~*") else key[1:]
            try:
                if re.search(regex, path, re.I if key.startswith("~*") else 0):
                    hit = True
                    break
            except re.error:
                return None
        if not hit:
            known = {id(rule) for _, _, rule in entries}
            return path if all(id(rule) in known for rule in redirecting) else None
        if target is None:
            return None
        if target in ("", path):
            return path
        path = target.split("?", 1)[0]
    return None


def _reread_env_on_error_pages(model: NginxModel, server: Server) -> None:
    """An ErrorDocument's local URL in a server whose `SetEnvIf Request_URI` variables are read on the request's
    own path (setenvif._pin_request_uri): httpd answers the error by an internal redirect to the document, whose
    header_parser runs the server's SetEnvIf lines again on the document's path (the old values are renamed
    REDIRECT_*), so the Header lines of the answer test the variables as that path sets them (observed with httpd
    2.4: `SetEnvIf Request_URI "\\.txt$"` sets nothing on the 401 for /api/a.txt answered by /errors/401.html).
    nginx's error_page redirect runs the server's rewrite phase again but keeps the values read on the request's
    own path: where $uri is the document's path, each variable (a map of $uri alone) is set again from a copy of
    its map over that path. A request for the document's own URL gets the value it had."""
    pin = next((st for st in server.own_statements if st.name == "set" and st.args[:1] == ["$a2n_setenv_uri_pin"]),
               None)
    if pin is None:
        return
    names = ["$" + n for n in re.findall(r"\$\{(\w+)\}", pin.args[1])]
    maps = [m for m in model.maps if m.variable in names and m.source in URI_SOURCES and not m.hostnames]
    if not maps or len(maps) != len(names):
        return
    holders = [server] if server.is_main else [model.main_server, server]
    targets: dict[str, None] = {}
    for st in every_statement([h for h in holders if h is not None]):
        if st.name == "error_page" and st.args and st.args[-1].startswith("/"):
            path = st.args[-1].split("?", 1)[0]
            if not re.search(r"[\s'\"{};$\\]", path):
                targets[path] = None
    at = server.own_statements.index(pin) + 1
    rereads = {path: tuple((m.variable, model.shared_map(m.variable.lstrip("$") + "_after_", path, list(m.entries),
                                                         m.default, m.span)) for m in maps) for path in targets}
    server.own_statements[at:at] = [
        Stmt("if", [f"($uri = {path})"], pin.span,
             comment="ErrorDocument: httpd's redirect to the page runs SetEnvIf again on its path",
             block=[Stmt("set", list(pair), pin.span) for pair in rereads[path]])
        for path in targets]
    # (the refusals answering 403 in place of such a page read them as either path sets them: emit.refusal_pages)
    server.settings["env_on_error_pages"] = rereads


def _report_env_after_rewrites(server: Server, diags: Diagnostics, followed: set[int] = frozenset()) -> None:
    """A per-directory rewrite in a server whose `SetEnvIf Request_URI` variables are read on the request's own
    path (setenvif._pin_request_uri) (A2N768). httpd's per-directory result is an internal redirect: the new
    request's header_parser runs the server's SetEnvIf lines again, on the rewritten URL (mod_setenvif's
    match_headers reads the server's lines at a request's first call; the redirect renames the old values
    REDIRECT_*), so a Header line's env= follows the new path. nginx keeps the value of the request's own path.
    Said once per rule, for the URLs it rewrites (its regex); not for a rule whose result the variables follow
    (FOLLOWED, _reread_env_after_rewrites)."""
    if not any(st.name == "set" and st.args[:1] == ["$a2n_setenv_uri_pin"] for st in server.own_statements):
        return
    seen: set = set()

    def walk(statements: list[Stmt], where: Location) -> None:
        for st in statements:
            if st.block is not None:
                walk(st.block, where)
            if st.name != "rewrite" or len(st.args) < 2 or st.args[-1] in ("redirect", "permanent") or \
                    st.span is None or (st.span.file, st.span.line) in seen or id(st) in followed:
                continue
            regex = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", st.args[0])
            try:
                re.compile(regex)
            except re.error:
                if where.modifier not in ("", "^~"):
                    continue
                url = (where.path, False)
            else:
                url = (regex, True)
            seen.add((st.span.file, st.span.line))
            diags.add("A2N768", f"RewriteRule to {st.args[1]} (per-directory): httpd's internal redirect runs the "
                      "server's SetEnvIf lines again on the rewritten URL, so a `SetEnvIf Request_URI` variable "
                      "follows the new path; nginx keeps the value read on the request's own path, and the Header "
                      "lines that test it may differ", st.span, directive="RewriteRule", urls=[url])

    todo = list(server.locations)
    while todo:
        loc = todo.pop()
        todo.extend(loc.locations)
        walk(loc.directory_rules, loc)
    # (the rules left out where their directory is refused, whose results the refusal does not follow)
    for _, prefix, _, entries, redirecting in server.settings.get("refused_rule_results", []):
        keys = {id(rule): key for key, _, rule in entries}
        for rule in redirecting:
            if id(rule) in followed or (rule.span.file, rule.span.line) in seen:
                continue
            seen.add((rule.span.file, rule.span.line))
            url = (prefix, False)
            if id(rule) in keys:
                regex = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", keys[id(rule)].lstrip("~*"))
                try:
                    re.compile(regex)
                    url = (regex, True)
                except re.error:
                    pass
            diags.add("A2N768", f"RewriteRule to {rule.substitution} (per-directory, left out where the directory "
                      "is refused): httpd's internal redirect runs the server's SetEnvIf lines again on the "
                      "rewritten URL, so a `SetEnvIf Request_URI` variable follows the new path; nginx's refusal "
                      "keeps the value read on the request's own path, and the Header lines that test it may "
                      "differ", rule.span, directive="RewriteRule", urls=[url])


def _ends_request(block: list[Stmt]) -> bool:
    """Whether an `if` block always ends the request in nginx's rewrite phase: a `return`, or a rewrite of every
    URL (`^`) that redirects or starts over."""
    last = block[-1] if block else None
    if last is None:
        return False
    if last.name == "return":
        return True
    return last.name == "rewrite" and last.args[:1] == ["^"] and last.args[-1] in ("last", "redirect", "permanent")


def _carry_directory_rules(server: Server, redirected: set[int] = frozenset()) -> None:
    """httpd creates a module's per-directory configuration only for a section that uses one of its directives
    (ap_set_config_vectors), so a <Directory> (or <Location>) below a directory with rewrite rules, holding no
    mod_rewrite directive, keeps the parent's rules and engine. nginx runs only the chosen location's rewrite
    phase: every prefix location under the directory's URL (not the directory's own name, which mod_rewrite
    declines for mod_dir's slash redirect, nor a place with rules of its own, nor one mapped elsewhere or
    proxied, nor one a Redirect answers: REDIRECTED, the ids of those) gets the parent's per-directory
    statements first. mod_alias answers a Redirect in the translate phase (translate_alias_redir), before
    the request walks any directory, so the directory's rules never run for those URLs. Where a ProxyPass
    takes the directory's URL, its rules (`proxied_rules`) go only into the locations under it that are not
    proxied: the URLs a `ProxyPass ... !` hands back to the document root, which walk the directory. A
    location that refuses every request (`Require all denied` in a <Directory> below) gets none: httpd's
    access check refuses before the rules run in the fixups, where nginx's rewrite phase would answer (a
    redirect) before its `deny all`. Nor does one refused for a <Location>'s rules (LOCATION_REFUSAL): httpd
    merges the <Location> sections after every <Directory>, and config_perdir_merge keeps the later section's
    rules, so the directory's never run there; ahead of the refusal they would answer (proxy, redirect) what
    httpd answers without them."""
    own = server.settings.get("rewrite_directories", set())
    ruled = sorted((loc for loc in server.locations if loc.modifier in ("", "^~")
                    and (loc.directory_rules or loc.proxied_rules) and loc.path.endswith("/")),
                   key=lambda l: len(l.path), reverse=True)
    if not ruled:
        return
    for loc in server.locations:
        if loc.modifier not in ("", "^~", "=") or loc.directory_rules or id(loc) in redirected:
            continue
        path = loc.path
        parent = next((r for r in ruled if path.startswith(r.path) and path != r.path), None)
        if parent is None:
            continue
        if any(p != parent.path and p.startswith(parent.path) and (path.rstrip("/") + "/").startswith(p)
               for p in own):
            continue    # a deeper directory with mod_rewrite directives of its own governs it
        if any(st.name in ("alias", "proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass")
               for st in loc.statements):
            continue
        if any(st.name == "return" and st.comment == LOCATION_REFUSAL for st in loc.statements):
            continue    # a <Location>'s own rules replace the directory's
        if _refused_after_rules(loc):
            continue    # every request ends in the access phase: the region's rules' error or the refusal
        rules = _reopened_rules(server, parent.directory_rules or parent.proxied_rules, loc)
        if _refuses(_rules(loc.statements)):
            # httpd refuses in its access check, before the inherited rules run in the fixups
            _carry_past_refusal(server, loc, rules)
            continue
        _give_directory_rules(server, loc, _carried_rules(rules, loc, nested=False))


def _reopened_rules(server: Server, rules: list[Stmt], loc: Location) -> list[Stmt]:
    """RULES as carried into LOC, without the refusal of a directory whose Options take FollowSymLinks away
    (AH00670) where LOC lies under a <Directory> below it that brings them back (rewrite._reopened): httpd
    runs the directory's rules there and serves the file."""
    path = loc.path.rstrip("/") + "/"
    dropped = {id(refusal) for refusal, prefixes in server.settings.get("symlinks_reopened", [])
               if any(path.startswith(p) for p in prefixes)}
    return [st for st in rules if id(st) not in dropped]


def _reopened_file_rules(server: Server | None, copies: list[Stmt], inner: Location) -> list[Stmt]:
    """COPIES as carried into INNER, a file section's location nested in a directory's, where the directory's
    refusal (AH00670) is lifted for the names that section matches (rewrite._reopening_files): httpd merges the
    <Files> section after the directory walk, applying the directory's Options modifiers again, and runs the
    directory's rules for the file. nginx's location also takes a URL whose name is followed by more (path
    info, a directory of that name and the files below it), where httpd matched another name or none: the
    refusal stays there."""
    tail = "(?:/|$)"
    if server is None or inner.modifier not in ("~", "~*") or not inner.path.endswith(tail):
        return copies
    name = inner.path[:-len(tail)] + "$"
    name = f"(?i:{name})" if inner.modifier == "~*" else name
    spared = {id(refusal): [name] + matches for refusal, files, matches
              in server.settings.get("symlinks_reopened_files", []) if any(regex == inner.path for regex, _ in files)}

    def guard(st: Stmt) -> Stmt:
        # (the <LocationMatch> sections that bring FollowSymLinks back spare their URLs too)
        refusal = st.block[0] if st.name == "if" else st
        regexes = spared[id(st)]
        regex = "|".join(f"(?:{r})" for r in regexes) if len(regexes) > 1 else regexes[0]
        return Stmt("if", [f"($uri !~ {_quote_if_needed(regex)})"], st.span,
                    block=[Stmt("return", ["403"], st.span, comment=refusal.comment)])

    return [guard(st) if id(st) in spared else st for st in copies]


def _give_directory_rules(server: Server, loc: Location, copies: list[Stmt]) -> None:
    """LOC runs the per-directory statements COPIES first (after its <LocationMatch> refusals,
    `_after_access_guards`), and sends the headers of their refusal."""
    at = _after_access_guards(loc.statements)
    loc.statements[at:at] = copies
    loc.directory_rules.extend(copies)
    loc.statements.extend(_refusal_headers(server, copies))


def _after_access_guards(stmts: list[Stmt]) -> int:
    """Where carried per-directory statements go in a location's STMTS: after the `if` refusing the URLs of a
    <LocationMatch> with access rules (LOCATIONMATCH_GUARD). httpd merges the section's rules for the original
    URL and refuses in its access check, before the directory's rules run in the fixups; nginx runs the
    rewrite phase in order, and a `rewrite ... last` ahead of the refusal would carry the request to the
    result's location, past it (a `Require all denied` over /docs/ answered 200 from the rule's /app/)."""
    return max((i + 1 for i, st in enumerate(stmts) if st.name == "if" and st.comment == LOCATIONMATCH_GUARD),
               default=0)


def _carry_past_refusal(server: Server, loc: Location, rules: list[Stmt]) -> None:
    """The locations nested in LOC (one whose URLs lie below a directory with per-directory RULES, and which
    refuses every request itself: `deny all`, so it runs none of them) that grant access again with rules of
    their own: a <LocationMatch> with `Satisfy Any` and `Allow from all` merged over a <Location> that
    refuses. httpd's access check lets those URLs through, and the directory's rules then run in the fixups
    (a rewrite, an internal redirect whose URL has access rules of its own, a login); nginx runs only the
    nested location's rewrite phase, which would serve the file without them. Each such location gets the
    rules first; one without access rules of its own keeps the refusal and passes them on to those in it."""
    for inner in loc.locations:
        if inner.modifier == "@" or inner.directory_rules or \
                any(st.name == "internal" or st.name in _CONTENT for st in inner.statements):
            continue
        own = _rules(inner.statements)
        if not own or _refuses(own):
            _carry_past_refusal(server, inner, rules)
            continue
        _give_directory_rules(server, inner, _carried_rules(rules, inner, nested=False))


def _refusal_headers(server: Server, copies: list[Stmt]) -> list[Stmt]:
    """The headers the refusal standing for a directory's left-out rules carries (rewrite._refuse_region:
    those of the sections the rules may rewrite to), for a location below the directory that COPIES (its
    carried per-directory statements) give that refusal: httpd runs the directory's rules for every URL
    under it, a deeper <Directory> without mod_rewrite directives of its own keeping them, and the internal
    redirect to their result sends the Header lines of the result's sections there too."""
    out: list[Stmt] = []
    for refusal, carried in server.settings.get("refusal_headers", []):
        if any(st is refusal for st in copies):
            out.extend(Stmt(h.name, list(h.args), h.span, comment=h.comment, resets=h.resets,
                            conditional=h.conditional, late=h.late) for h in carried)
    return out


# the comment of the refusal a regex location gets where the per-directory rules of its URLs are not one set
REGEX_RULES_REFUSAL = "the per-directory rules of its URLs differ: refused"


def _carry_directory_rules_into_regex(server: Server, diags: Diagnostics) -> None:
    """httpd runs a directory's per-directory rules for every file of the directory, whatever <LocationMatch>
    (or `<Location ~>`) section its URL also matches. nginx chooses a server-level regex location over any
    prefix location but a `^~` one, and runs only the chosen location's rewrite phase: each such location
    whose URLs may lie under a location with per-directory statements gets those statements first, as a
    prefix location below the directory does (_carry_directory_rules). Its URLs never reach it under a `^~`
    location, nor past the deepest directory location holding them all. Where they may lie under locations
    with different rules, nginx cannot tell which set is the URL's: the location refuses (403, A2N890). Not
    a location mapped elsewhere, passed to a backend or answering itself (mod_alias answers before the
    directory walk), nor one that refuses every request (httpd's access check refuses before the rules):
    the locations nested in that one which grant again get them instead (_carry_past_refusal)."""
    ruled = sorted((loc for loc in server.locations if loc.modifier in ("", "^~")
                    and loc.directory_rules and loc.path.endswith("/")), key=lambda l: len(l.path), reverse=True)
    if not ruled:
        return
    for loc in server.locations:
        refuses = _refuses(_rules(loc.statements))
        if loc.modifier not in ("~", "~*") or loc.directory_rules or \
                any(st.name in _CONTENT for st in loc.statements) or (refuses and not loc.locations):
            continue
        start = _literal_start(loc.path, loc.modifier == "~*")
        reached: list[Location] = []
        enclosed = False
        for r in ruled:     # deepest first
            if start is None:
                if r.modifier != "^~":
                    reached.append(r)
                continue
            fixed, nocase = start
            path, fixed = (r.path.lower(), fixed.lower()) if nocase else (r.path, fixed)
            if fixed.startswith(path):
                if not enclosed and r.modifier != "^~":
                    reached.append(r)     # every URL of the location lies under it: the deepest such counts
                enclosed = True
            elif path.startswith(fixed) and r.modifier != "^~":
                reached.append(r)
        sets = {tuple(_shape(st) for st in _carried_rules(r.directory_rules, loc, nested=False)) for r in reached}
        if not reached:
            continue
        if len(sets) == 1:
            copies = _carried_rules(reached[0].directory_rules, loc, nested=False)
        else:
            span = next((st.span for r in reached for st in r.directory_rules if st.span), loc.span)
            copies = [Stmt("return", ["403"], span, comment=REGEX_RULES_REFUSAL)]
            diags.add("A2N890", f"location {loc.path}: its URLs may lie under directories with different "
                      f"per-directory rules ({', '.join(sorted(r.path for r in reached))}); nginx runs one "
                      "location's rewrite statements and cannot tell which set is the URL's, so the translation "
                      "refuses the location (403)", loc.span or span, directive="RewriteRule")
        if refuses:
            _carry_past_refusal(server, loc, copies)
        else:
            _give_directory_rules(server, loc, copies)


def _carried_rules(rules: list[Stmt], target: Location, nested: bool) -> list[Stmt]:
    """The per-directory statements RULES as repeated in TARGET. The `return 403` standing for the enclosing
    location's `deny all` ahead of its rules (merge_into) comes only where that `deny all` is TARGET's access
    too: a location NESTED in it with no access rules of its own, which nginx lets inherit them. Elsewhere
    TARGET's own access rules hold (a location beside it, or one with rules of its own), and they do not refuse
    every request (the callers give no rules to one that does): a section merged after the directory's, such
    as a <Directory> below with `Require all granted` (after the directory's .htaccess, ap_directory_walk),
    lets the request through httpd's access check, and the rules run in the fixups."""
    inherits = nested and not _rules(target.statements)
    return [st for st in rules if inherits or not (st.name == "return" and st.comment == ACCESS_REFUSAL)]


# nested locations one <Files> region's overlapping sections may make (`nest_overlaps`): every combination of
# N sections is a location, so many sections over one name would take time and output growing as N**4; past
# this many, the names of further combinations are refused, as past the nesting depth
_OVERLAP_LOCATIONS = 256


def _exact_name(regex: str) -> str | None:
    """The one file name a file section's pattern matches (`<Files "data.json">`), or None."""
    m = re.fullmatch(r"\(\?:\^\|/\)((?:[A-Za-z0-9_~-]|\\\.)+)(?:\(\?:/\|\$\)|\$)", regex)
    return m.group(1).replace("\\.", ".") if m else None


def _admits_more(rules: list[Stmt], region: list[Stmt]) -> bool:
    """Whether a file section's access RULES may admit a request the enclosing rules REGION refuse: not
    where the region admits everyone, nor where RULES are the region's with only access tests after them, nor
    a plain refusal."""
    restricts = [_shape(st) for st in rules[:len(region)]] == [_shape(st) for st in region] and all(
        st.name == "if" and st.comment in ACCESS_IF_COMMENTS for st in rules[len(region):])
    return bool(region) and not restricts and not _refuses(rules)


def _last_name(regexes: list[str], kept: list[str] | None = None) -> str | None:
    """A URL regex matching where the last segment is a name every one of the file sections' REGEXES
    (access.basename_regex: a segment, last or followed by path info) accepts; None where one is not of
    that form. KEPT (a list, maybe empty): or where such a segment is followed by path info holding no name
    one of the KEPT patterns accepts: httpd's walk stops at a file of that name, the rest being path info,
    and merges the sections (it asks /secret.txt/x's login before its 404); where the segment is a
    directory, the walk goes on to a name below, judged by the sections it matches (`kept_names`)."""
    body = {}
    for regex in dict.fromkeys(regexes):
        if not regex.startswith(_SEGMENT) or not regex.endswith(_PATH_INFO):
            return None
        body[regex] = regex[len(_SEGMENT):-len(_PATH_INFO)]
    if kept is None:
        return _SEGMENT + "".join(f"(?={b}$)" for b in body.values()) + "[^/]*$"
    tail = _PATH_INFO
    if kept:
        below = "|".join(f"(?:{body[regex]})" for regex in dict.fromkeys(kept))
        tail = f"(?:$|/(?!(?:[^/]*/)*(?:{below}){_PATH_INFO}))"
    return _SEGMENT + "".join(f"(?={b}{_PATH_INFO})" for b in body.values()) + "[^/]*" + tail


def _may_overlap(a: str, b: str) -> bool:
    """Whether two file sections' URL patterns may match the same name: False only where one names a single
    file the other does not match."""
    for one, other in ((a, b), (b, a)):
        name = _exact_name(one)
        if name is not None:
            return re.search(other, "/" + name) is not None
    return True


# how many merged locations of overlapping <LocationMatch> sections a server gets (each section may overlap
# every later one: the combinations grow fast); the overlaps beyond are refused (A2N730)
_REGEX_OVERLAPS = 200


def _literal_start(regex: str, nocase: bool) -> tuple[str, bool] | None:
    r"""The literal text every URL a location's regex matches starts with (`^/api/` of `^/api/.*\.txt$`), and
    whether it compares without case; None where the regex is not anchored or alternates at its top."""
    if regex.startswith("(?i)"):
        regex, nocase = regex[4:], True
    if not regex.startswith("^") or "|" in regex:
        return None
    return access_proxy.literal_prefix(regex, True)[0], nocase


def _regexes_may_overlap(a: str, a_nocase: bool, b: str, b_nocase: bool) -> bool:
    """Whether two regex locations may match the same URL: False only where both are anchored at literal
    starts neither of which begins the other."""
    one, other = _literal_start(a, a_nocase), _literal_start(b, b_nocase)
    if one is None or other is None:
        return True
    (x, xi), (y, yi) = one, other
    if xi or yi:
        x, y = x.lower(), y.lower()
    return x.startswith(y) or y.startswith(x)


# the directives nginx runs in the rewrite phase, before the access phase and the content handler
_REWRITE_PHASE = {"if", "set", "rewrite", "return", "break"}


def _access_reads_variables(levels: list[list[Stmt]]) -> bool:
    """Whether the auth_basic or auth_basic_user_file in effect (LEVELS from the innermost out: nginx merges each
    from the nearest level setting it) reads a variable: nginx evaluates it in the access phase, after the
    location matched and before its content handler, and a map's regular expression matching there replaces
    the location's captures."""
    for name in ("auth_basic", "auth_basic_user_file"):
        st = next((st for level in levels for st in level if st.name == name and st.args), None)
        if st is not None and "$" in st.args[0]:
            return True
    return False


def _reads_captures(st: Stmt) -> bool:
    """The statement (or one in its block) reads numbered captures ($1..$9)."""
    return any(re.search(r"\$\{?\d", a) for a in st.args) or any(_reads_captures(b) for b in st.block or ())


def _rule_errors(stmts: list[Stmt]) -> list[Stmt]:
    """The `return 4xx/5xx` of per-directory rules ([F], [G], [R=4xx]) among STMTS: not a refusal that stands
    for the whole region or httpd's refusal of an unsafe result (those carry a comment saying so)."""
    out = []
    for st in stmts:
        if st.name == "return" and st.args and st.args[0].isdigit() and int(st.args[0]) >= 400 and not st.comment:
            out.append(st)
        out.extend(_rule_errors(st.block or []))
    return out


def _index_files_matched(inner: Location, index: list[str]) -> list[str]:
    """The INDEX names whose file the regex location INNER (a file section's) matches (all of them where the
    pattern does not compile here)."""
    flags = re.IGNORECASE if inner.modifier == "~*" else 0
    try:
        return [n for n in index if re.search(inner.path, "/" + n, flags)]
    except re.error:
        return index


def _index_error_headers(inner: Location, rules: list[Stmt], diags: Diagnostics, index: list[str]) -> None:
    """mod_dir looks a directory URL's index file up with a subrequest, which runs the per-directory rules: an
    error they answer for the index file becomes the directory's answer (mod_dir.c, fixup_dir: `error_notfound
    = rr->status`), with the headers of the directory request, which no <Files> section matching the index
    file's name adds. nginx redirects to the index file internally, into that section's nested location, whose
    `add_header ... always` lines then apply: A2N847 says so."""
    headers = [st for st in inner.statements if st.name == "add_header" and "always" in st.args]
    errors = _rule_errors(rules)
    if not headers or not errors or inner.modifier not in ("~", "~*"):
        return
    named = _index_files_matched(inner, index)
    if not named:
        return
    for st in errors:
        diags.add("A2N847", f"a per-directory rule answers {st.args[0]} for {named[0]}, the index file mod_dir looks "
                  "up for a directory URL: httpd sends that answer for the directory, without the headers of the "
                  f"file section matching {named[0]}; nginx answers in that section's location, with "
                  f"{', '.join(sorted({h.args[0] for h in headers}))}", st.span, directive="RewriteRule",
                  related=[headers[0].span] if headers[0].span else ())


def _index_refusal_headers(inner: Location, parent: Location, directory: Location, server: Server | None,
                           diags: Diagnostics, index: list[str]) -> None:
    """mod_dir looks a directory URL's index file up with a subrequest, which runs the file's own access
    checks: where the sections matching the index file's name refuse (a login, a Require, a deny), mod_dir
    answers the directory request with the subrequest's error (mod_dir.c, fixup_dir: `error_notfound =
    rr->status`, a lone index's 401 returned at once), but the subrequest stopped before mod_headers' filters
    were set and the answer goes out with the headers of the directory request, which no <Files> section
    matching the index file's name adds. nginx redirects to the index file internally, into that section's
    location (INNER, nested in PARENT), refuses there and sends its `add_header ... always` lines the
    directory's location (DIRECTORY, or the SERVER it inherits them from) does not have: A2N893 says so, once
    for each such line."""
    own = _rules(inner.statements)
    if inner.modifier not in ("~", "~*") or not own or \
            [_shape(st) for st in own] == [_shape(st) for st in _rules(parent.statements)]:
        return
    if not any(st.name == "deny" or st.name == "if" or (st.name == "auth_basic" and st.args != ["off"])
               for st in own):
        return
    theirs = {_shape(st) for st in directory.statements if st.name == "add_header"} or \
        {_shape(st) for st in (server.statements if server is not None else []) if st.name == "add_header"}
    headers = [st for st in inner.statements
               if st.name == "add_header" and "always" in st.args and _shape(st) not in theirs]
    if not headers:
        return
    named = _index_files_matched(inner, index)
    if not named:
        return
    for st in headers:
        message = (f"the access rules of the file section matching {named[0]}, the index file mod_dir looks up "
                   "for a directory URL, may refuse it: httpd sends that refusal for the directory, without the "
                   f"file section's headers; nginx refuses in that section's location, with {st.args[0]}")
        diags.add_once("A2N893", message, st.span, directive="Header", related=[own[0].span] if own[0].span else ())


def _index_names(server: Server | None, loc: Location) -> list[str]:
    """The index file names nginx looks up in LOC (the location's or server's `index`, else index.html)."""
    for holder in (loc.statements, server.statements if server is not None else []):
        own = next((st for st in holder if st.name == "index"), None)
        if own is not None:
            return [a for a in own.args if "$" not in a]
    return ["index.html"]


def _carry_rules_into_nested(locations: list[Location], diags: Diagnostics | None = None,
                             server: Server | None = None) -> None:
    """nginx runs only the chosen location's rewrite phase, and a nested location (a <Files> section's) inherits
    none of its parent's rewrite statements: the per-directory rules of a location are repeated first in each
    location nested in it that has none of its own (after its <LocationMatch> refusals, `_after_access_guards`) (httpd applies them to every file of the directory, the
    ones a <Files> section matches too). Rules that would lead past a file section's access rules are not
    emitted at all (A2N745). A nested location that refuses every request (`Require all denied` in a <Files>
    section) gets none: httpd refuses before the per-directory rules run, where nginx's rewrite phase would
    answer (a redirect) before its `deny all`. Nor does one that a refused server refuses after its region's
    own rules (_refused_after_rules, its own auth_request or one it inherits, AFTER): every request ends in its
    access phase, with the rules' error or the 403, as httpd refuses in its access check before the rules
    run in the fixups; carried there they would answer first (a `RewriteRule ... [R]` of a directory that a
    <Directory ~> section left out refuses was answered 302 where httpd answered 403). Rules that answer
    nothing but 403 (_only_refusing) are still carried: they let no request through, and their refusal
    carries the headers of their result (_reread_env_after_rewrites)."""
    def carry(loc: Location, rules: list[Stmt], directory: Location, after: bool = False) -> None:
        for inner in loc.locations:
            if inner.modifier == "@" or any(st.name == "internal" for st in inner.statements):
                continue
            if diags is not None:
                _index_refusal_headers(inner, loc, directory, server, diags, _index_names(server, loc))
            refused_after = (_refused_after_rules(inner) or (after and not _rules(inner.statements))) \
                and not _only_refusing(rules)
            if not inner.directory_rules and (refused_after or _refuses(_rules(inner.statements))):
                carry(inner, rules, directory, refused_after)
                continue
            if rules and not inner.directory_rules and not any(st.name in _CONTENT for st in inner.statements):
                # (not a location mapped elsewhere or passed to a backend)
                copies = _reopened_file_rules(server, _carried_rules(rules, inner, nested=True), inner)
                at = _after_access_guards(inner.statements)
                inner.statements[at:at] = copies
                inner.directory_rules.extend(copies)
                if diags is not None:
                    _index_error_headers(inner, copies, diags, _index_names(server, loc))
            carry(inner, inner.directory_rules, directory)

    for loc in locations:
        carry(loc, loc.directory_rules, loc)


def _redirects(stmts: list[Stmt]) -> bool:
    """Whether STMTS (or a block among them) may answer with a redirect (`return 3xx`, `rewrite ... redirect`)."""
    for st in stmts:
        if st.name == "return" and st.args and (not st.args[0].isdigit() or 300 <= int(st.args[0]) < 400):
            return True
        if st.name == "rewrite" and st.args[-1:] in (["redirect"], ["permanent"]):
            return True
        if st.block and _redirects(st.block):
            return True
    return False


# the walk test's variable: empty where httpd's directory walk stops at the name a file section's location
# matched (its Header lines apply), else the URI tested
WALK = "$a2n_walk"
_WALK_COMMENT = "httpd matches the file section against the name its directory walk stops at"


def _walk_test(loc: Location) -> list[Stmt]:
    """The statements that set WALK for a request in the file section's location LOC: the walk stops at the
    first segment that is not a directory. Where the directory holding the URL's last segment exists, it
    stops there, and the section applies if that name matches; where it is missing (or a file), it stops
    higher up, and the section does not apply if no segment before the last matches. (A matching segment
    higher up that the walk may or may not reach keeps the headers, A2N512.)"""
    span = loc.span
    op = "~*" if loc.modifier == "~*" else "~"
    regex = _quote_if_needed(loc.path)
    return [
        Stmt("set", ["$a2n_walk_at", "w"], span, comment=_WALK_COMMENT),
        Stmt("set", ["$a2n_walk_dir", "$request_filename"], span),
        Stmt("if", ['($a2n_walk_dir ~ "^(?<a2n_walk_parent>.*)/[^/]*$")'], span,
             block=[Stmt("set", ["$a2n_walk_dir", "$a2n_walk_parent"], span)]),
        Stmt("if", ["(!-d $a2n_walk_dir)"], span, comment="the directory holding the last segment is missing",
             block=[Stmt("set", ["$a2n_walk_at", "${a2n_walk_at}m"], span)]),
        Stmt("set", ["$a2n_walk_name", "$uri"], span),
        Stmt("if", ['($uri ~ "^(?<a2n_walk_up>.*)(?<a2n_walk_last>/[^/]*)$")'], span,
             block=[Stmt("set", ["$a2n_walk_name", "$a2n_walk_last"], span)]),
        Stmt("if", [f"($a2n_walk_up {op} {regex})"], span, comment="a segment before the last matches",
             block=[Stmt("set", ["$a2n_walk_at", "${a2n_walk_at}h"], span)]),
        Stmt("if", [f"($a2n_walk_name {op} {regex})"], span, comment="the last segment matches",
             block=[Stmt("set", ["$a2n_walk_at", "${a2n_walk_at}l"], span)]),
        Stmt("set", [WALK, "$uri"], span),
        Stmt("if", ['($a2n_walk_at ~ "^w(?:h?l|mhl?)$")'], span, comment="the section applies",
             block=[Stmt("set", [WALK, ""], span)]),
    ]


def _walk_test_without_if(loc: Location, tests: list[Stmt], model: NginxModel) -> list[Stmt]:
    """_walk_test for a file section's location under a FallbackResource: a request an `if` keeps is served
    with the `if` block's configuration, which has no try_files (404 where httpd falls back), and the walk's
    tests hold for every request. The names are tested in maps instead; the directory holding the last
    segment is missing, for a request that stays in the location, only where a file stands higher up (else
    the request falls back), which the path-info tests (TESTS, the empty `if`s that keep such a request from
    falling back) tell."""
    span = loc.span
    op = "~*" if loc.modifier == "~*" else "~"
    up = model.shared_map("a2n_walk_up_", "$uri", [(r"~^(.*)/[^/]*$", "$1")], '""', span, volatile=True)
    name = model.shared_map("a2n_walk_name_", "$uri", [(r"~(/[^/]*)$", "$1")], "$uri", span, volatile=True)
    higher = model.shared_map("a2n_walk_higher_", up, [(op + loc.path, "h")], '""', span, volatile=True)
    last = model.shared_map("a2n_walk_last_", name, [(op + loc.path, "l")], '""', span, volatile=True)
    applies = model.shared_map("a2n_walk_applies_", "$a2n_walk_at", [(r"~^w(?:h?l|mhl?)$", '""')], "$uri",
                               span, volatile=True)
    missing = [Stmt("if", list(st.args), span, comment="a file stands higher up: the directory holding the "
                    "last segment is missing", block=[Stmt("set", ["$a2n_walk_at", "${a2n_walk_at}m"], span)])
               for st in tests]
    return [
        Stmt("set", ["$a2n_walk_at", "w"], span, comment=_WALK_COMMENT),
        *missing,
        Stmt("set", ["$a2n_walk_at", f"${{a2n_walk_at}}{higher}{last}"], span,
             comment="a segment before the last, and the last, match"),
        Stmt("set", [WALK, applies], span, comment="empty where the section applies"),
    ]


def _alias_walk_test(loc: Location, statements: list[Stmt], regexes: list[str], model: NginxModel) -> list[Stmt]:
    """STATEMENTS of the AliasMatch location LOC (the file sections' lines gated on WALK) after the walk test
    over the file it maps to. httpd walks the aliased file's directories as well: for /mirror/sub/a.txt onto
    /srv/www/$1.txt with no directory sub it tests `sub` against the section (REGEXES), which misses, and
    answers the 404 with the lines before the section's. The walk's regular expressions replace the captures
    the alias reads: it reads copies made first (the copies the location has already, for its access maps,
    are moved first too). The names are the file's path below the target's fixed
    directory; where several sections' lines are gated, a name higher up matching any of them keeps them
    (REGEXES carry a case-insensitive section's `(?i:...)`)."""
    span = loc.span
    alias = next(st for st in statements if st.name == "alias")
    kept = {k: model.new_variable("a2n_capture_") for k in dict.fromkeys(re.findall(r"\$(\d)", alias.args[0]))}
    copies = [st for st in statements if st.name == "set" and st.comment == CAPTURE_COPY] + \
        [Stmt("set", [v, "$" + k], span, comment=CAPTURE_COPY) for k, v in kept.items()]
    path = _with_copies(alias, kept).args[0]
    fixed = path[:path.find("$")]
    below = path[len(fixed[:fixed.rfind("/")]):]
    section = Location("~", regexes[0] if len(regexes) == 1 else "|".join(f"(?:{r})" for r in regexes), span=span)
    test = [Stmt("set", ["$a2n_walk_name", below], span) if st.name == "set" and st.args[:1] == ["$a2n_walk_name"]
            else _on_name(st) for st in _walk_test(section)]
    body = [_with_copies(st, kept) if st.name == "alias" else st for st in statements
            if not (st.name == "set" and st.comment == CAPTURE_COPY)]
    return copies + test + body


def _on_name(st: Stmt) -> Stmt:
    """The walk test's split of the URI, over the aliased file's name ($a2n_walk_name) instead."""
    if st.name == "if" and st.args and st.args[0].startswith("($uri ~"):
        return Stmt("if", ["($a2n_walk_name" + st.args[0][len("($uri"):]], st.span, st.comment, block=st.block)
    return st


def _walk_missed(model: NginxModel) -> str:
    """A variable set where the walk misses the name (WALK is the URI tested) and $uri is still that URI: a
    rule's `rewrite ... break` serves another file from the location (whose headers it keeps, as before)."""
    variable = "$a2n_walk_missed"
    if not model.has_map(variable):
        model.maps.append(MapBlock(f"{WALK}|$uri", variable, [(r"~^(.*)\|\1$", "1")], '""', volatile=True))
    return variable


def _header_names(stmts: list[Stmt]) -> set[str]:
    """The (lower-cased) names of the headers STMTS add."""
    return {st.args[0].lower() for st in stmts if st.name == "add_header" and st.args}


def _line_key(st: Stmt) -> tuple:
    """What tells one Header line from another: its place in the input, and what it sends."""
    span = st.span
    return (span.file, span.line, span.column) if span is not None else (id(st),), tuple(st.args)


def _header_lines(stmts: list[Stmt], enclosing: dict[str, set]) -> dict[str, set]:
    """ENCLOSING with the lines of the headers STMTS add, by (lower-cased) name."""
    out = {name: set(keys) for name, keys in enclosing.items()}
    for st in stmts:
        if st.name == "add_header" and st.args:
            out.setdefault(st.args[0].lower(), set()).add(_line_key(st))
    return out


def _gate_file_headers_on_walk(server: Server, files: list[Scope], model: NginxModel) -> None:
    """httpd merges a <Files>/<FilesMatch> section by the name its directory walk stops at: the first segment
    that is not a directory (server/request.c ap_directory_walk puts the rest in path info), so for
    /files/sub/a.txt with no directory sub it tests `sub`, not `a.txt`. nginx's location of the section
    matches the URL's own names. Where per-directory rewrite rules carried into the section's location
    answer a redirect (which httpd makes in its fixups, after the walks, with the `Header always` lines of
    the sections merged), the section's Header lines are sent only where the walk reaches the name (WALK,
    tested before the rules), and a Header unset takes the lines before it away only there. So too where a
    line of the section names a header an enclosing block adds: on a miss (the 404 under a missing
    directory) httpd sends the enclosing line alone, where the section's set or unset would replace it or
    its add would join it. So too where an error page in force there is a URL elsewhere (ErrorDocument 404
    http://...): httpd answers the miss with a redirect (302) carrying none of the section's lines, as it
    does a rule's redirect. (An append or merge that the render joins to an enclosing set's line is sent
    joined, as before; a header only the section adds is sent on such a miss's error answer, A2N512.) Under a
    FallbackResource the walk is tested without `if` blocks, which would leave the fallback's try_files
    behind (_walk_test_without_if)."""
    from .refusal_pages import _in_force
    unless = _unless(model)
    lines = {id(st) for f in files for st in f.statements
             if st.name == "add_header" or st.name == "proxy_hide_header" and st.resets}
    if not lines:
        return
    section_of = {id(st): f for f in files for st in f.statements}
    missed = None

    def gated(st: Stmt, enclosing: dict[str, set]) -> list[Stmt] | None:
        nonlocal missed
        if st.name == "add_header" and (len(st.args) < 2 or not st.args[1]) or copied(st, enclosing):
            return None
        missed = missed or _walk_missed(model)
        if st.name == "proxy_hide_header":
            # an unset: the lines before it send nothing where the walk reaches the name (a backend's own
            # copy is hidden everywhere, as before)
            name, table = st.args[0], st.resets[1]
            unset = Stmt(UNSET_WHEN, [name, unless(missed, "1"), *(["always"] if table == "always" else [])],
                         st.span, st.comment, None, st.resets, True)
            return [Stmt("proxy_hide_header", list(st.args), st.span, st.comment), unset]
        # (an append or merge joined to an enclosing set where the two meet takes the set's line, as before)
        return [Stmt("add_header", [st.args[0], unless(missed, st.args[1]), *st.args[2:]], st.span, st.comment,
                     None, st.resets, True, plain=st.plain, joins=st.joins, adds=st.adds)]

    def copied(st: Stmt, enclosing: dict[str, set]) -> bool:
        # the enclosing block's copy of the very same line (a section nested in the location of another
        # section whose lines it carries): httpd merges that line once, walk or not, and nginx inherits the
        # enclosing copy; a gated copy beside it would be a second line (an append joined to itself)
        return bool(st.args) and _line_key(st) in enclosing.get(st.args[0].lower(), set())

    def replaces_enclosing(inner: Location, enclosing: dict[str, set]) -> bool:
        return any(id(st) in lines and st.args and not copied(st, enclosing)
                   and enclosing.get(st.args[0].lower()) for st in inner.statements)

    def error_pages(stmts: list[Stmt], enclosing: list[Stmt]) -> list[Stmt]:
        return _in_force([st for st in stmts if st.name == "error_page"], enclosing)

    def redirects_errors(pages: list[Stmt]) -> bool:
        # nginx answers an error sent to a URL with a 302 to it, from the location the error arose in
        return any(st.args and redirects_to(st.args[-1]) for st in pages)

    main = model.main_server

    def tests_of(own: Stmt | None, statements: list[Stmt]) -> list[Stmt] | None:
        # the path-info tests of the FallbackResource OWN (None: none, or disabled), the ones of its named
        # location where a virtual host's goes through one
        if own is None or own.comment == FALLBACK_DISABLED:
            return None
        if own.args and own.args[-1].startswith("@"):
            named = next((l for s in (server, main) if s is not None for l in s.locations
                          if l.path == own.args[-1]), None)
            statements = named.statements if named is not None else []
        return [st for st in statements if st.name == "if" and st.comment == PATH_INFO_TEST]

    def fallback_of(statements: list[Stmt]) -> Stmt | None:
        return next((st for st in statements if st.name == "try_files"
                     and st.comment in FALLBACK_COMMENTS | {FALLBACK_DISABLED}), None)

    def fallback_tests(loc: Location, inherited: list[Stmt] | None) -> list[Stmt] | None:
        # the path-info tests of the FallbackResource _carry_fallback gives LOC (None: it has none)
        own = fallback_of(loc.statements)
        if own is not None:
            return tests_of(own, loc.statements)
        if inherited is None or loc.path.startswith("@") or any(
                st.name in _NO_FALLBACK or st.name in _PASSES or st.name == "try_files" for st in loc.statements):
            return None
        return inherited

    def gate(loc: Location, enclosing: dict[str, set], pages: list[Stmt], fallback: list[Stmt] | None) -> None:
        enclosing = _header_lines(loc.statements, enclosing)
        pages = error_pages(loc.statements, pages)
        fallback = fallback_tests(loc, fallback)
        for inner in loc.locations:
            # INNER is gated before the locations nested in it are looked at: a copy they carry of a line it
            # gates is no copy of a line sent walk or not, and is gated too
            if inner.modifier in ("~", "~*") and inner.path.startswith(_SEGMENT) \
                    and (_redirects(inner.directory_rules) or replaces_enclosing(inner, enclosing)
                         or redirects_errors(error_pages(inner.statements, pages))):
                out, changed = [], False
                for st in inner.statements:
                    made = gated(st, enclosing) if id(st) in lines else None
                    out.extend(made if made is not None else [st])
                    changed = changed or made is not None
                if changed:
                    tests = fallback_tests(inner, fallback)
                    inner.statements[:] = (_walk_test(inner) if tests is None else
                                           _walk_test_without_if(inner, tests, model)) + out
            else:
                gate_alias(inner, enclosing, pages)
            gate(inner, enclosing, pages, fallback)

    def gate_alias(inner: Location, enclosing: dict[str, set], pages: list[Stmt]) -> None:
        # an AliasMatch location carrying the lines of the file sections matching every file it serves
        alias = next((st for st in inner.statements if st.name == "alias"), None)
        if inner.modifier not in ("~", "~*") or alias is None or not alias.args or "$" not in alias.args[0] \
                or not (replaces_enclosing(inner, enclosing) or redirects_errors(error_pages(inner.statements,
                                                                                              pages))):
            return
        out, regexes = [], []
        for st in inner.statements:
            made = gated(st, enclosing) if id(st) in lines else None
            out.extend(made if made is not None else [st])
            if made is not None:
                f = section_of[id(st)]
                regexes.append(f"(?i:{f.files_regex})" if f.nocase else f.files_regex)
        if regexes:
            inner.statements[:] = _alias_walk_test(inner, out, list(dict.fromkeys(regexes)), model)

    outer = _header_lines(model.http_statements + server.statements, {})
    outer_pages = error_pages(server.statements, error_pages(main.statements, []) if main is not None
                              and main is not server else [])
    top, holder = fallback_of(server.statements), server.statements
    if top is None and main is not None and main is not server and server.settings.get(FALLBACK) != "" and \
            not any(st.name == "try_files" for st in server.statements):
        top, holder = fallback_of(main.statements), main.statements
    top_tests = tests_of(top, holder)
    for loc in server.locations:
        gate_alias(loc, outer, outer_pages)
        gate(loc, outer, outer_pages, top_tests)


def _refuse_directory_names(locations: list[Location]) -> None:
    """httpd maps /dir (no slash) onto the directory itself. mod_rewrite declines that name for the directory
    its rules stand in (leaving mod_dir's slash redirect), but a directory below whose Options take
    FollowSymLinks away (its <Directory>, or a <Location> of its name without a trailing slash) is refused
    (AH00670) before the redirect: the exact location nginx keeps for the name refuses too."""
    refused = {loc.path.rstrip("/"): st for loc in locations if loc.modifier in ("", "^~") and loc.path != "/"
               for st in loc.statements if st.name == "return" and st.comment == SYMLINKS_REFUSAL_BELOW}
    for loc in locations:
        refusal = refused.get(loc.path) if loc.modifier == "=" else None
        if refusal is not None and not any(st.comment == SYMLINKS_REFUSAL_BELOW for st in loc.statements):
            loc.statements.insert(0, Stmt("return", ["403"], refusal.span, comment=refusal.comment))


def _carry_script_passes(locations: list[Location], passes: list[Stmt] | None = None) -> None:
    """A location that runs scripts (ScriptAlias: fastcgi_pass to fcgiwrap) and the file-section locations
    nested in it: nginx does not inherit a content handler into a nested location, which served the program
    as a file (its source, where httpd runs it). Each nested location without a handler of its own gets the
    enclosing one's pass (its parameters are inherited)."""
    for loc in locations:
        own = [st for st in loc.statements if st.name in _SCRIPT_PASSES]
        if not own and passes and not any(st.name in _CONTENT or st.name == "internal" for st in loc.statements):
            loc.statements.extend(passes)
            own = passes
        if loc.locations:
            _carry_script_passes(loc.locations, own or None)


def _nest_script_handlers(server: Server) -> None:
    """httpd runs a script handler (a <FilesMatch> SetHandler, ProxyPassMatch to FastCGI) for every URL it
    matches, whatever <Directory>/<Location> sections also apply. nginx consults the server's regex locations
    only when the longest prefix location is not ^~ and no regex nested in it matched first: there the file
    was served as it is (a PHP script's source). Each such place gets the handlers nested, after its own
    regexes, without their access statements (the place's own apply, by inheritance)."""
    handlers = [l for l in server.locations if l.modifier in ("~", "~*")
                and (l.runs_scripts or any(st.name in _SCRIPT_PASSES for st in l.statements))
                and not any(st.name == "internal" for st in l.statements)]
    if not handlers:
        return

    def copies() -> list[Location]:
        return [Location(h.modifier, h.path, [st for st in h.statements if st.name not in ACCESS_NAMES and not (
            st.name == "if" and st.comment in ACCESS_IF_COMMENTS)], h.span) for h in handlers]

    def serves_files(loc: Location) -> bool:
        return not loc.static_only and not any(st.name in _CONTENT or st.name == "internal" for st in loc.statements)

    def aliased() -> list[Location]:
        # under an Alias the script is the aliased file: $request_filename, not $document_root
        return [_aliased_handler(c.modifier, c.path, c.statements, c.span, []) for c in copies()
                if any(st.name in ("fastcgi_pass", "return") for st in c.statements)]

    def kept(loc: Location, made: list[Location]) -> list[Location]:
        # SetHandler default-handler in a <Directory> takes back mod_mime's handlers only (AddHandler)
        return [c for c, h in zip(made, handlers) if not (loc.mime_off and h.mime_handler)]

    for loc in server.locations:
        alias = loc.modifier == "^~" and any(st.name == "alias" for st in loc.statements) and \
            not any(st.name in _CONTENT - {"alias"} for st in loc.statements)
        if not alias and (loc.modifier not in ("", "^~", "=") or not serves_files(loc)):
            continue
        if loc.modifier == "=":
            h = next((h for h in handlers if re.search(h.path, loc.path, re.I if h.modifier == "~*" else 0)), None)
            if h is not None and not (loc.mime_off and h.mime_handler):
                loc.statements.extend(copies()[handlers.index(h)].statements)
            continue
        make = aliased if alias else copies
        for nested in loc.locations:
            if nested.modifier in ("~", "~*") and serves_files(nested):
                nested.locations.extend(make() if alias else kept(loc, make()))
        if loc.modifier == "^~":
            loc.locations.extend(make() if alias else kept(loc, make()))


def _guard_filenames(loc: Location, refusals: list) -> None:
    """A <DirectoryMatch> refusal in every location that serves files (not a proxy, not a redirect), nested
    ones included: nginx runs only the selected location's rewrite-phase directives."""
    names = {st.name for st in loc.statements}
    if not names & {"proxy_pass", "uwsgi_pass", "grpc_pass", "stub_status", "return"}:
        first = next((i for i, st in enumerate(loc.statements) if st.comment != CAPTURE_COPY), len(loc.statements))
        loc.statements[first:first] = [Stmt("if", [f"($request_filename ~ {_quote_if_needed(regex)})"], span,
                                   block=[Stmt("return", ["403"], span)], comment="<DirectoryMatch> refusal")
                              for regex, span in refusals]
    for inner in loc.locations:
        _guard_filenames(inner, refusals)


def _set_walk_file(loc: Location) -> None:
    """WALK_FILE in every location, nested ones included: empty in a proxy or a redirect (httpd's directory
    walk merges no <DirectoryMatch> for a proxied request, nor for mod_alias's redirect), else the name the
    walk stops at (_walk_file_statements: the server's own, for a request no location takes, read the
    server's root). In a location with try_files it is the request's file name itself: a request an `if`
    keeps is served with the `if` block's configuration, which has no try_files (the name is then longer
    than httpd's under a missing directory or after a file)."""
    names = {st.name for st in loc.statements}
    first = next((i for i, st in enumerate(loc.statements) if st.comment != CAPTURE_COPY), len(loc.statements))
    if names & {"proxy_pass", "uwsgi_pass", "grpc_pass", "stub_status", "return"}:
        loc.statements.insert(first, Stmt("set", [WALK_FILE, '""'], loc.span,
                                          comment="httpd merges no <DirectoryMatch> here"))
    else:
        loc.statements[first:first] = _walk_file_statements(loc.span)[:1 if "try_files" in names else None]
    for inner in loc.locations:
        _set_walk_file(inner)


# how many directories above the request's file _walk_file_statements looks at
_WALK_FILE_LEVELS = 2


def _walk_file_statements(span) -> list[Stmt]:
    """The statements that set WALK_FILE. httpd's directory walk stops at the first segment that is missing
    or not a directory and puts the rest in path info: for /sub/x without a directory sub, r->filename is
    /srv/www/sub, which `<DirectoryMatch "/sub/">` does not match (observed: no header), where nginx's
    $request_filename is /srv/www/sub/x. So the name is $request_filename, or the highest of the directories
    above it (up to _WALK_FILE_LEVELS) that is missing or a file (under deeper missing directories the name
    stays longer than httpd's)."""
    out = [Stmt("set", [WALK_FILE, "$request_filename"], span,
                comment="httpd tests <DirectoryMatch> against the name its directory walk stops at"),
           Stmt("set", ["$a2n_walk_file_dir", "$request_filename"], span)]
    for _ in range(_WALK_FILE_LEVELS):
        out += [Stmt("if", ['($a2n_walk_file_dir ~ "^(?<a2n_walk_file_up>.+)/[^/]*$")'], span,
                     block=[Stmt("set", ["$a2n_walk_file_dir", "$a2n_walk_file_up"], span)]),
                Stmt("if", ["(!-d $a2n_walk_file_dir)"], span, comment="a missing directory, or a file",
                     block=[Stmt("set", [WALK_FILE, "$a2n_walk_file_dir"], span)])]
    return out


def _aliased_script_location(f: Scope, access: list[Stmt]) -> Location:
    """A script handler under an Alias: $document_root is not the script's directory there, and try_files is
    unreliable with alias, so the script is the aliased file itself (no path info, reported by the pass)."""
    return _aliased_handler("~", f.settings["script_alias"], f.statements, f.span, access)


def _aliased_handler(modifier: str, regex: str, handler: list[Stmt], span, access: list[Stmt]) -> Location:
    if not any(st.name == "fastcgi_pass" for st in handler):
        return Location(modifier, regex, access + list(handler), span)   # a refusal (Options ExecCGI off)
    statements = [st for st in handler if st.name not in ("fastcgi_split_path_info", "try_files")
                  and not (st.name == "fastcgi_param" and st.args[0] in ("SCRIPT_FILENAME", "PATH_INFO"))
                  and not (st.name == "set" and st.args[0] == "$a2n_path_info")]
    first = handler[0].span if handler else span
    statements[:0] = [Stmt("if", ["(!-f $request_filename)"], first, block=[Stmt("return", ["404"], first)],
                           comment="httpd runs only files that exist")]
    statements.insert(-1, Stmt("fastcgi_param", ["SCRIPT_FILENAME", "$request_filename"], first))
    return Location(modifier, regex, access + statements, span)


def _rules(stmts: list[Stmt]) -> list[Stmt]:
    """The access rules among a block's statements (not Options' autoindex, nor a Vary header)."""
    return [st for st in stmts if (st.name in ACCESS_NAMES and st.name not in _OPTIONS) or
            (st.name == "if" and st.comment in ACCESS_IF_COMMENTS)]


def _realm(stmts: list[Stmt]) -> str | None:
    """The realm of a block's login (auth_basic), None where it asks for none."""
    return next((st.args[0] for st in stmts if st.name == "auth_basic" and st.args and st.args != ["off"]), None)


def _shape(st: Stmt) -> tuple:
    """A statement as nginx reads it (wherever in the input it came from)."""
    return st.name, tuple(st.args), tuple(_shape(b) for b in st.block or ())


def _refusal_shape(st: Stmt) -> tuple:
    r"""A statement as nginx reads it, and, on the translation's refusal of a refused server's region, what it
    stands for: httpd's handler (Stmt.open_region: a success carrying the onsuccess headers), its own error for
    everyone (Stmt.shut_region: none of them), a login or an error its rules may answer. Two `deny all` lines
    alike to nginx send different headers on the refusal (emit.inherit.refused_headers): under a refused
    server, `<FilesMatch "^notes\.">` with `Require all denied` and a later `<FilesMatch "\.bak$">` with
    `Require all granted` were both `deny all`, so no location was nested for the names matching both, and
    the first section's refusal (httpd's 403 for everyone) dropped the onsuccess headers (HSTS) on
    /notes.bak, which httpd serves with them (it merges the later section's grant)."""
    return _shape(st) + (st.open_region, st.shut_region, tuple(st.lifted), st.login, st.fails_authn,
                         tuple(g[0] for g in st.wildcard_gates))


def _nested_proxy_pass(loc: Location, span) -> list[Stmt] | None:
    """What passes a request of the proxied prefix location LOC on from a regex location nested in it, to
    the same backend URL: nginx takes no URI in a regex location's proxy_pass, so the prefix is replaced by
    the URI with a rewrite (break: the rest of the rewrite phase is done) and the address alone is passed,
    as the prefix location's proxy_pass replaces it. None where the prefix location's is not one plain
    proxy_pass (a variable in it, a URI nginx would read otherwise in a rewrite)."""
    passes = [st for st in loc.statements if st.name == "proxy_pass"]
    if len(passes) != 1 or len(passes[0].args) != 1 or "$" in passes[0].args[0]:
        return None
    st = passes[0]
    m = re.match(r"([a-z]+://[^/]+)(/.*)?$", st.args[0])
    if m is None:
        return None
    address, uri = m.group(1), m.group(2)
    if not uri:
        return [Stmt("proxy_pass", [address], st.span, comment=st.comment)]   # the request URI unchanged
    if re.search(r'[\s;{}"\'?]', uri):
        return None
    return [Stmt("rewrite", [_quote_if_needed(f"(?s)^{_regex_escape(loc.path)}(.*)$"), uri + "$1", "break"], span,
                 comment="the URI the prefix location's proxy_pass sends"),
            Stmt("proxy_pass", [address], st.span)]


def _detached(access: list[Stmt], parent: list[Stmt], span) -> list[Stmt]:
    """A nested location's own access statements (its section's rules merged in full): nginx would otherwise
    let it inherit the enclosing location's allow/deny list, auth_basic and satisfy where it sets none."""
    names = {st.name for st in access}
    extra = []
    if not names & {"allow", "deny"} and any(st.name in ("allow", "deny") for st in parent):
        extra.append(Stmt("allow", ["all"], span))
    if "auth_basic" not in names and any(st.name == "auth_basic" and st.args != ["off"] for st in parent):
        extra.append(Stmt("auth_basic", ["off"], span))
    if "satisfy" not in names and any(st.name == "satisfy" and st.args != ["all"] for st in parent):
        extra.append(Stmt("satisfy", ["all"], span))
    return access + extra


def _own_listing(access: list[Stmt], parent: list[Stmt], span) -> list[Stmt]:
    """`autoindex off` for a location nested in one that lists directories, where the Options merged for its
    section (ACCESS, which holds `autoindex on` where they keep Indexes) do not: nginx would inherit the
    listing that httpd's mod_autoindex refuses (403) under `<LocationMatch "^/x/"> Options None`."""
    if any(st.name == "autoindex" for st in access) or not any(st.name == "autoindex" and st.args == ["on"]
                                                               for st in parent):
        return []
    return [Stmt("autoindex", ["off"], span)]


# a directive nginx inherits into a nested location, and its value where nothing sets it
_RESETS = {"expires": ["off"], "charset": ["off"], "autoindex": ["off"],
           # a ProxyPass region's worker settings (timeout=, connectiontimeout=, keepalive=): httpd's are the
           # nested ProxyPassMatch's own worker's, whose unset ones are httpd's defaults (60s, as nginx's)
           "proxy_read_timeout": ["60s"], "proxy_send_timeout": ["60s"], "proxy_connect_timeout": ["60s"],
           "proxy_socket_keepalive": ["off"]}


def _detach_from_region(inner: Location, region: Location, applied: list[Stmt], outer: list[Stmt]) -> None:
    """A regex location (AliasMatch, ProxyPassMatch, RedirectMatch) nested in a region's prefix location so
    that nginx consults it there: httpd maps its URLs before any section applies, so the region's own
    statements (its <Directory> sections', its access rules) do not apply to them, only its <Location>
    sections' (APPLIED, which the nested location holds itself). nginx would inherit the rest: the access
    rules are made the nested location's own, a single value is set back to the server's (OUTER) or nginx's
    default, and the array families are left to the render (`not_inherited`)."""
    own = {id(st) for st in applied}
    dropped = [st for st in region.statements if id(st) not in own]
    inner.not_inherited = dropped
    access = [st for st in inner.statements if st.name in ("allow", "deny", "auth_basic", "satisfy")]
    inner.statements.extend(_detached(access, region.statements, inner.span)[len(access):])
    for name in dict.fromkeys(st.name for st in dropped if st.name in _RESETS):
        if not any(st.name == name for st in inner.statements):
            server = [st for st in outer if st.name == name]
            inner.statements.append(Stmt(name, list(server[-1].args) if server else list(_RESETS[name]),
                                         inner.span, comment="not inherited from the enclosing location"))


def _with_copies(st: Stmt, kept: dict[str, str]) -> Stmt:
    """The statement reading the kept copies (`${a2n_capture_N}`) instead of the captures `$k`."""
    def copy(m: re.Match) -> str:
        return "${" + kept[m.group(1)][1:] + "}" if m.group(1) in kept else m.group(0)
    return Stmt(st.name, [re.sub(r"\$(\d)", copy, a) for a in st.args], st.span, comment=st.comment)


def _directory_answer(directory: list[Stmt], region: list[Stmt], rules: list[Stmt], own: list[Stmt]) -> str | None:
    """The status a file section's location answers where httpd's walk misses the section's name (a missing
    directory of the URL): the directory's fixed 500 for an AuthType without its authorization (DIRECTORY's
    `return 500`), or 403 where its rules (REGION) are the translation's refusal; None where the section
    (RULES, OWN) answers so itself or the directory answers otherwise."""
    if any(st.name == "return" and st.args == ["500"] and st.comment in _AUTH_FAILURES for st in directory):
        return None if any(st.name == "return" and st.args == ["500"] for st in own) else "500"
    if region and _refuses(region) and rules and not _refuses(rules):
        return "403"
    return None


# the comments of the directory's fixed 500 for an authentication without its counterpart (passes/access.py)
_AUTH_FAILURES = (AUTHZ_MISSING, USER_WITHOUT_AUTH, BASIC_WITHOUT_NAME)


def _refuses(stmts: list[Stmt]) -> bool:
    """The statements refuse every request (a plain `deny all`)."""
    return bool(stmts) and all(st.name == "deny" and st.args == ["all"] for st in stmts)


def _refused_redirects(stmts: list[Stmt]) -> bool:
    """STMTS are per-directory rules that refuse some requests and answer nothing else ([F] rules, or redirects
    left out and refused in their place: passes.rewrite._redirects_refused), not a refusal of every request."""
    return any(st.name == "if" for st in stmts) and _only_refusing(stmts)


def _only_refusing(stmts: list[Stmt]) -> bool:
    """Per-directory rules (their statements) that answer nothing but 403, if anything: run in nginx's rewrite
    phase, before the access rules httpd checks first, they let through no request those rules refuse, and
    refuse only what httpd's rules refuse after them (a 403 where httpd may ask for a login). A location nested
    for a <LocationMatch> gets them again (_carry_rules_into_nested)."""
    for st in stmts:
        if st.name == "return" and st.args != ["403"] or st.name not in ("set", "if", "return"):
            return False
        if st.block and not _only_refusing(st.block):
            return False
    return True


def _refused_after_rules(loc: Location) -> bool:
    """LOC refuses every request after the access rules of its region (Scope.refusal_after_rules: an auth_request
    to REFUSED_AFTER_RULES, which its nested locations inherit): httpd answers there in its access check, with
    the rules' error or what the translation refuses, before any per-directory rule or mod_dir's redirect."""
    return any(st.name == "auth_request" and st.args == [REFUSED_AFTER_RULES] for st in loc.statements)


def _lifts_shut(before: list[Stmt], merged: list[Stmt]) -> bool:
    """BEFORE refuses in place of rules httpd answers with its own error for everyone (Stmt.shut_region), and
    MERGED, the same statements, in place of rules that may let a request in."""
    return any(st.shut_region for st in before) and not any(st.shut_region for st in merged)


def _plain_refusal(stmts: list[Stmt]) -> bool:
    """The statements refuse every request as httpd does, not in place of rules the translation cannot check."""
    return _refuses(stmts) and not any(st.comment and "refused" in st.comment for st in stmts)


def address_entries(rules: list[Stmt]) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """The entries and default of a geo block that is 1 for the addresses a plain allow/deny list refuses
    (nginx applies the first line matching the address; geo the longest prefix, so a line inside an earlier
    one's network is dropped); None where the rules are not such a list or refuse no address."""
    if not rules or any(st.name not in ("allow", "deny") or len(st.args) != 1 or "refused" in (st.comment or "")
                        for st in rules) or not any(st.name == "deny" for st in rules):
        return None
    entries, seen, default = [], [], "0"
    for st in rules:
        value = "1" if st.name == "deny" else "0"
        if st.args[0] == "all":
            default = value
            break
        try:
            network = ipaddress.ip_network(st.args[0], strict=False)
        except ValueError:
            return None
        if any(network.version == n.version and network.subnet_of(n) for n in seen):
            continue
        seen.append(network)
        entries.append((str(network), value))
    return tuple(entries), default


def _addresses_checked(rules: list[Stmt]) -> list[Stmt]:
    """The allow/deny list that refuses an address whatever else the rules ask for: the rules themselves
    where they ask for no login; under a login, the list alone (`satisfy all`: the address is checked as
    well as the login) or none (`satisfy any`: a login admits a refused address)."""
    if _realm(rules) is None:
        return rules
    if any(st.name == "satisfy" and st.args == ["any"] for st in rules):
        return []
    return [st for st in rules if st.name in ("allow", "deny")]


def _refuses_everyone(rules: list[Stmt]) -> bool:
    """Plain allow/deny lists of httpd's own that refuse every request: only `deny` lines before the first
    `... all`, which is a `deny all` (nginx applies the first line that matches the address). Not a refusal
    the translation makes in place of rules it cannot check, where httpd may grant."""
    if not rules or any(st.name not in ("allow", "deny") or "refused" in (st.comment or "") for st in rules):
        return False
    for st in rules:
        if st.name == "allow":
            return False
        if st.args == ["all"]:
            return True
    return False


def fs_within(directory: str, path: str) -> bool:
    """A <Directory> covers the directory itself and everything below it, by whole path components."""
    directory = directory.rstrip("/")
    return not directory or path == directory or path.startswith(directory + "/")


def _join(base: str, rest: str) -> str:
    return (base.rstrip("/") + "/" + rest.lstrip("/")).rstrip("/") or "/"


def _quote_if_needed(pattern: str) -> str:
    return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"' if re.search(r'[\s;{}"\']|^#', pattern) \
        else pattern


def _aliased_name(handler: Route | None, region: str) -> str | None:
    """`/NAME` where the region is an Alias onto a path of another last name, written as a file's
    (`Alias /doc /srv/www/p/secret.txt`, no `/` closing either side): httpd's file walk tests <Files> sections
    against that path's name (secret.txt), not the URL's (doc), and the rest of a longer URL (/doc/a) is path
    info after that file; None elsewhere."""
    if handler is None or handler.kind != "alias" or handler.regex or region != handler.path or \
            region.endswith("/") or handler.target.endswith("/"):
        return None
    name, url_name = handler.target.rsplit("/", 1)[-1], region.rsplit("/", 1)[-1]
    return None if not name or not url_name or name == url_name else "/" + name


def _describe(region: str) -> str:
    return f"the URL region {region}"


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


# what a <Directory> translates its `Header` lines to: all an AliasMatch's nested location takes from it
_HEADER_STATEMENTS = {"add_header", "proxy_hide_header", UNSET_WHEN}
# an expression's start up to its first capture group: a literal text anchored at the subject's start
_LITERAL_HEAD = re.compile(r"\^(?:[^\\.^$*+?()\[\]{}|]|\\[^\w])*\((?:\?P?<\w+>|\?'\w+')?")


def _capture_bounds(regex: str, n: int) -> tuple[int, int] | None:
    """Where capture group N of REGEX holds its expression: (just inside its opening parenthesis, after a
    name; its closing parenthesis). None where it is not found or a branch reset renumbers the groups."""
    if "(?|" in regex:
        return None
    count, opened, depth, in_class, i = 0, None, 0, False, 0
    while i < len(regex):
        c = regex[i]
        if c == "\\":
            if regex.startswith("\\Q", i):
                return None
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += 1 + (regex[i + 1:i + 2] == "^")
            i += regex[i:i + 1] == "]"
            continue
        elif c == "(":
            depth += 1
            named = re.match(r"\(\?P?<(?![=!])\w+>|\(\?'\w+'", regex[i:])
            if named or not regex.startswith(("(?", "(*"), i):
                count += 1
                if count == n:
                    opened, depth = i + (named.end() if named else 1), 1
        elif c == ")":
            depth -= 1
            if opened is not None and depth == 0:
                return opened, i
        i += 1
    return None


def lay_out(model: NginxModel, diags: Diagnostics, proxy_emitter) -> None:
    from .challenge_pages import keep_challenges
    from .guarded_401_pages import serve_guarded_401_pages
    from .missing_error_pages import keep_statuses_of_missing_pages
    from .refusal_pages import keep_refusals_plain
    from .refused_error_pages import keep_statuses_of_refused_pages, send_login_page_headers
    from .refused_index_names import try_later_index_names
    from .rerun import route_reruns
    for server in model.servers:
        Layout(model, server, diags, proxy_emitter).run()
    keep_statuses_of_refused_pages(model, diags)
    keep_statuses_of_missing_pages(model)
    send_login_page_headers(model, diags)
    for server in model.servers:
        keep_refusals_plain(model, server)
    keep_challenges(model)
    serve_guarded_401_pages(model)
    route_reruns(model)
    for server in model.servers:
        _mark_fallback_passes(server)
        keep_request_uri(model, server)
        hold_redirected_from(model, server)
        _drop_unreached_rule_proxies(server)
        _refuse_limited_methods_past_rewrite_refusals(server.locations, diags)
    try_later_index_names(model)


def keep_request_uri(model: NginxModel, server: Server) -> None:
    """Where an access condition of SERVER reads %{REQUEST_URI} through access_cond.kept_request_uri: sets
    KEPT_URI to the path the request had before the server's rules (KEPT_FROM, first in the server) right
    before each server rewrite without [PT] (where its regex matches), which leaves httpd's r->uri as it was,
    and empties it before a server rewrite with [PT] (hook_uri2file makes its result r->uri) and before a
    per-directory rewrite to a URL path (httpd's internal redirect to the result, whose r->uri is the new
    path). An internal redirect of nginx's own (a directory's index, a rerun of the server's rules) starts
    again at the server's rewrite phase, which empties it first."""
    kept = server.settings.get("uri_kept_rewrites") or []
    if not kept or not server.settings.get("kept_uri_read"):
        return

    def key(st: Stmt):
        return (st.span.file, st.span.line, tuple(st.args)) if st.span is not None else id(st)

    kept_keys = {key(st) for st in kept}
    per_dir = _per_dir_rewrite_lines(server)
    internal = _internal_rewrite

    def track(st: Stmt, value: str) -> Stmt:
        source = model.shared_map("a2n_kept_set_", "$uri", [("~" + st.args[0], value)], KEPT_URI, st.span,
                                  volatile=True)
        return Stmt("set", [KEPT_URI, source], st.span,
                    comment="httpd's r->uri: the request's own path" if value == KEPT_FROM else
                    "httpd's r->uri: the rewritten path")

    done: set[int] = set()      # blocks some locations share

    def place(stmts: list[Stmt], server_level: bool) -> list[Stmt]:
        out: list[Stmt] = []
        for st in stmts:
            if st.block and id(st) not in done:
                done.add(id(st))
                st.block[:] = place(st.block, server_level)
            if server_level and key(st) in kept_keys:
                out.append(track(st, KEPT_FROM))
            elif internal(st) and (server_level and not st.args[1].startswith("/a2n_") or not server_level
                                   and st.span is not None and (st.span.file, st.span.line) in per_dir):
                out.append(track(st, '""'))
            out.append(st)
        return out

    server.own_statements[:] = [Stmt("set", [KEPT_FROM, "$uri"], None), Stmt("set", [KEPT_URI, ""], None)] + \
        place(server.own_statements, True)
    for loc in all_nested(server.locations):
        loc.statements[:] = place(loc.statements, False)


def _per_dir_rewrite_lines(server: Server) -> set[tuple[str, int]]:
    """The lines (file, line) of the per-directory rewrites of SERVER's locations."""
    lines = set()
    for loc in all_nested(server.locations):
        stack = list(loc.directory_rules)
        while stack:
            st = stack.pop()
            stack.extend(st.block or [])
            if st.name == "rewrite" and st.span is not None:
                lines.add((st.span.file, st.span.line))
    return lines


def _internal_rewrite(st: Stmt) -> bool:
    """A rewrite to a URL path (no external redirect)."""
    return st.name == "rewrite" and len(st.args) >= 2 and st.args[-1] not in ("redirect", "permanent") \
        and st.args[1].startswith("/")


def hold_redirected_from(model: NginxModel, server: Server) -> None:
    """Where a RequestHeader condition of SERVER reads the path a per-directory rewrite redirected the request
    from (passes.headers._hold_redirected_conditions): sets REDIRECTED_FROM to $uri right before each
    per-directory rewrite to a URL path (where its regex matches), the path httpd's mod_headers fixup saw
    before the internal redirect to the result. Nothing empties it: the redirected request keeps the headers
    set on the way (an internal redirect of nginx's own starts again at the server's rewrite phase, which
    leaves it as it is, as httpd's internal redirect leaves headers_in). A server where no such rewrite is
    left declares it empty (the maps reading it are shared by every server)."""
    if not server.settings.get("redirected_from_read"):
        return
    per_dir = _per_dir_rewrite_lines(server)
    done: set[int] = set()      # blocks some locations share
    placed = []

    def place(stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for st in stmts:
            if st.block and id(st) not in done:
                done.add(id(st))
                st.block[:] = place(st.block)
            if _internal_rewrite(st) and st.span is not None and (st.span.file, st.span.line) in per_dir:
                source = model.shared_map("a2n_redirected_set_", "$uri", [("~" + st.args[0], "$uri")],
                                          REDIRECTED_FROM, st.span, volatile=True)
                out.append(Stmt("set", [REDIRECTED_FROM, source], st.span,
                                comment="the path httpd's RequestHeader conditions saw before the redirect"))
                placed.append(st)
            out.append(st)
        return out

    for loc in all_nested(server.locations):
        loc.statements[:] = place(loc.statements)
    if not placed:
        server.own_statements.insert(0, Stmt("set", [REDIRECTED_FROM, '""'], None))


def _rewrite_refusal(stmts: list[Stmt]) -> Stmt | None:
    """A rewrite-phase statement among STMTS (an `if` block's too) that answers with an error status."""
    for st in stmts:
        if st.name == "return" and st.args and st.args[0].isdigit() and int(st.args[0]) >= 400:
            return st
        if st.name == "if" and st.block:
            found = _rewrite_refusal(st.block)
            if found is not None:
                return found
    return None


def _refuse_limited_methods_past_rewrite_refusals(locations: list[Location], diags: Diagnostics) -> None:
    """nginx gives the methods a `limit_except` block catches the block's own configuration
    (ngx_http_update_location_config), which holds none of the location's rewrite-phase statements, and
    `if`/`return` cannot go inside it: a refusal the location makes in its rewrite phase does not run for those
    methods, and the block's login would admit them where httpd refuses (WIDENED ACCESS). The block then
    refuses every method it catches (deny all, A2N869)."""
    said: set = set()
    for loc in all_nested(locations):
        refusal = _rewrite_refusal(loc.statements)
        if refusal is None:
            continue
        for st in loc.statements:
            if st.name != "limit_except" or st.block is None or (
                    st.block and (st.block[0].name, st.block[0].args) == ("deny", ["all"])
                    and not any(b.name.startswith("auth_") for b in st.block)):
                continue    # (refused already: the first access rule wins, and no login could admit)
            st.block[:] = [Stmt("deny", ["all"], st.span, comment="a refusal of this location's rewrite phase "
                                "would not run for these methods")]
            if st.span in said:
                continue
            said.add(st.span)
            diags.add("A2N869", f"the methods <LimitExcept {' '.join(st.args)}> catches at {loc.path}: nginx "
                      "runs none of the location's rewrite-phase statements for them, among them a refusal "
                      f"({' '.join(refusal.args)}); they are refused (deny all)", st.span,
                      related=[refusal.span] if refusal.span else [])


def _statement_text(stmts: list[Stmt], out: list[str]) -> None:
    for st in stmts:
        out.extend(st.args)
        if st.block:
            _statement_text(st.block, out)


def _drop_unreached_rule_proxies(server: Server) -> None:
    """A per-directory [P] rule's internal location is reached only by the rule's `rewrite` into it; where the
    location holding the rules was not laid out (a <Location> ProxyPass serves the URLs: httpd walks no
    directory for a proxied request, so the rules never run there), the internal one is unreached, and its
    statements name variables only the dropped rules set, which nginx refuses to start with."""
    rule_proxies = [loc for loc in server.locations
                    if any(st.name == "internal" and st.comment == PER_DIR_PROXY for st in loc.statements)]
    if not rule_proxies:
        return
    proxies = {id(loc) for loc in rule_proxies}
    text: list[str] = []
    _statement_text(server.statements, text)

    def walk(locations: list[Location]) -> None:
        for loc in locations:
            if id(loc) not in proxies:
                _statement_text(loc.statements, text)
            walk(loc.locations)
    walk(server.locations)
    joined = "\n".join(text)
    unreached = [loc for loc in rule_proxies if loc.path not in joined]
    if unreached:
        gone = {id(loc) for loc in unreached}
        server.locations[:] = [loc for loc in server.locations if id(loc) not in gone]


__all__ = ["lay_out", "segment_prefix", "ProxyTarget", "Scope"]


_HEADER_LINES = ("add_header", "proxy_hide_header")


def _with_overlaps(files: list[Location], own: dict[int, list[Stmt]], after: dict[int, list[Stmt]],
                   loc_headers: list[Stmt]) -> list[Location]:
    r"""FILES (the regex locations of a region's file sections, in configuration order), preceded by a location
    for the names several of them match where a later one has headers: httpd merges every file section that
    matches, nginx uses the first matching location alone, so the later sections' Header lines were lost where
    an earlier one also matches (`<FilesMatch "\.txt$">` then `<FilesMatch "\.(txt|html)$">`: a.txt). Such a
    location holds the first section's statements and the others' header lines, in order (mod_headers runs
    them so); the ones of more sections come first. Up to _OVERLAPS sections are combined. OWN: each
    location's section's own statements (by id), the header lines taken from the later ones. AFTER: the copies
    of LOC_HEADERS (the <Location>'s Header lines, see `_after_files`) each location ends with: httpd runs
    them after every file section's lines, so a combined location has them after the later ones' too."""
    regexes = [i for i, f in enumerate(files) if f.modifier == "~" and id(f) in own]
    if len(regexes) < 2 or len(regexes) > _OVERLAPS:
        return files
    shared: list[Location] = []
    for size in range(len(regexes), 1, -1):
        for group in combinations(regexes, size):
            group_locations = [files[i] for i in group]
            first, *later = group_locations
            headers = [st for f in later for st in own[id(f)] if st.name in _ORDERED_LINES]
            if not headers:
                continue
            if not all(f.path.startswith(_SEGMENT) for f in group_locations) or _disjoint(group_locations):
                continue
            # every section tests the same name: the one segment both match from its start
            regex = _SEGMENT + "".join(f"(?={f.path[len(_SEGMENT):]})" for f in group_locations)
            copies = {id(st) for st in after.get(id(first), ())}
            shared.append(Location("~", regex, [st for st in first.statements if id(st) not in copies] + headers
                                   + _after_files(own[id(first)] + headers, loc_headers), first.span,
                                   static_only=first.static_only))
    return shared + files


_OVERLAPS = 5
# a file section's regex for names ending with one of some extensions (`\.(css|js)$`, `(?i)\.txt$`)
_EXTENSIONS = re.compile(r"\(\?:\^\|/\)\[\^/\]\*\??(?:\(\?i?:\\\.\(?([\w|]+)\)?\)|\\\.(\w+))"
                         r"(?:\(\?:/\|\$\)|\$)")


def _disjoint(locations: list[Location]) -> bool:
    """Whether no name can match every one of the file LOCATIONS: extension lists that share no extension."""
    sets = []
    for loc in locations:
        m = _EXTENSIONS.fullmatch(loc.path)
        if m is None:
            return False
        sets.append({e.lower() for e in (m.group(1) or m.group(2)).split("|")})
    return not set.intersection(*sets)
# how a file section's regex starts: at a segment of the URL
_SEGMENT = "(?:^|/)"


# the statements a Header line becomes
_HEADER_LINES = ("add_header", "proxy_hide_header")
# ... and a conditional `Header unset`'s marker, which acts on the lines before it (emit.inherit.header_order)
_ORDERED_LINES = _HEADER_LINES + (UNSET_WHEN,)


def _after_files(files_statements: list[Stmt], loc_headers: list[Stmt]) -> list[Stmt]:
    """Copies of LOC_HEADERS (a <Location>'s Header lines) to follow a <Files> section's own lines, when the
    section has a Header line for one of their names: httpd runs the Location's lines after the Files' ones."""
    names = {st.args[0].lower() for st in files_statements if st.name in _ORDERED_LINES and st.args}
    if not names or not any(st.args and st.args[0].lower() in names for st in loc_headers):
        return []
    return [Stmt(st.name, list(st.args), st.span, st.comment, None, st.resets, st.conditional, plain=st.plain,
                 joins=st.joins, adds=st.adds, late=st.late) for st in loc_headers]
