"""The intermediate model: what nginx needs to know, independent of Apache syntax.

Passes fill it from the Apache tree; emitters render it. Every object keeps the
Apache span it came from so output can carry `# from file:line` comments and
diagnostics can point back at the source.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..syntax.span import Span


@dataclass
class Socket:
    """One address:port nginx listens on (`address` None means every address)."""

    address: str | None
    port: int
    ipv6: bool = False

    def key(self) -> tuple:
        return (self.address or ("[::]" if self.ipv6 else "*"), self.port)

    def nginx(self) -> str:
        if self.ipv6:
            return f"{self.address or '[::]'}:{self.port}"
        return f"{self.address}:{self.port}" if self.address else str(self.port)


@dataclass
class ListenDirective:
    socket: Socket
    ssl: bool = False
    default_server: bool = False
    span: Span | None = None
    http2: bool = False


@dataclass(slots=True)
class Stmt:
    """An nginx directive; `block` holds the children of a block directive (if, limit_except, ...).
    Slotted: a large configuration makes hundreds of thousands of them."""

    name: str
    args: list[str]
    span: Span | None = None
    comment: str | None = None
    block: list["Stmt"] | None = None
    # (lower-cased header name, "always" or "onsuccess"): an Apache `Header [always] set|unset` this statement
    # stands for, which replaces the same header an enclosing block adds (nginx would send both); on
    # proxy_set_header/fastcgi_param, (name, "request"): a RequestHeader's, replacing an earlier RequestHeader's
    resets: tuple[str, str] | None = None
    # with `resets`: the statement stands for a conditional `Header set` (env= or expr=), whose value is a
    # variable that is empty where the condition does not hold, so it replaces the earlier header only where
    # set; on a RequestHeader's statements, one whose value is computed from the client's header (a condition,
    # append, merge, setifempty, edit), which replaces nothing
    conditional: bool = False
    # on an add_header of an unconditional Header set/add/append/merge line: the value httpd gives (the
    # argument may be a map sending it on some answers only, see passes.headers.onsuccess); with
    # `conditional`, on a conditional Header set's: the value it gives where its condition holds
    plain: str | None = None
    # with `plain`: "append" or "merge", a line httpd joins to the first same header of its table with ", "
    # (apr_table_mergen), which an enclosing block's `Header set` may have given (see emit.inherit); on a
    # conditional line's (env= or expr=), whose variable NginxModel.header_values knows, too: one a line of an
    # earlier section may have given
    joins: str | None = None
    # on an add_header of a `Header add` line: httpd adds its header whatever the table already holds (a
    # `Header set X 1` of the server and a section's `Header add X 1` send X twice), so an enclosing block's
    # line with the same arguments is a duplicate of it only if it is a copy of the same line (emit.inherit)
    adds: bool = False
    # on the `deny all` of a server refused for a section the translation cannot place: the region has no
    # access rules of its own (or rules that let everyone in), so httpd's answer there is its handler's wherever that section does not apply
    # (a file it serves: a success), not an error (emit.inherit.refused_headers)
    open_region: bool = False
    # ... and where the region's own access rules refuse everyone: httpd's answer there is its own 403, which
    # carries no onsuccess header; so is its 403 or 500 where they hold an AuthType without Require (passes.
    # access._errs_for_everyone)
    shut_region: bool = False
    # on an access statement of httpd's own rules (a deny, a login) that a section the translation leaves out
    # may lift (a <DirectoryMatch> that only grants, merged after every <Directory>): the statuses nginx's
    # refusal by it answers (401, 403), where httpd may serve with its onsuccess headers (emit.inherit.
    # refused_headers). A status written `401?REGEXES` holds where the request's file name matches one of
    # REGEXES alone (one a line: the <Directory ~> sections a refused server leaves out, emit.layout.
    # _lift_own_refusals); so on the translation's own refusal of a region whose rules refuse everyone
    lifted: tuple[str, ...] = ()
    # on the `deny all` (or the auth_request after a wildcard's login) of an open region that a wildcard
    # <Directory> the server is refused for may reach (emit.layout.Layout.wildcard_gates): (regex, geo, span) per
    # such wildcard, the regex over $request_filename matching the files under a directory it matches, GEO the
    # (entries, default) of a geo block "1" where the rules merged there (addresses alone, or a login nginx does
    # not ask for there) refuse the client: httpd answers its own 403 (401) there, which carries no onsuccess
    # header (emit.inherit._served_tests)
    wildcard_gates: tuple[tuple[str, tuple, Span], ...] = ()
    # on the translation's refusal of a region whose own rules may ask for a login (AuthType Basic and a Require
    # line that needs a user, passes.access.asks_login): httpd's 401 there is answered with the ErrorDocument
    # 401 page, whose headers the refusal sends (emit.refused_error_pages.send_login_page_headers)
    login: bool = False
    # ... and of a region whose own rules may end a request with httpd's 500 for its authentication settings
    # (an AuthType without Require, passes.access.fails_authn): httpd answers that 500 with the ErrorDocument
    # 500 page, whose headers the refusal sends too
    fails_authn: bool = False
    # on the `return 403` of a <Location> refused for its RewriteRules (LOCATION_REFUSAL), where nginx can tell
    # which requests those rules apply to: (value, conditions, index) per rule, in httpd's order, each
    # condition an nginx `if` test reading REWRITE_FILE and REWRITE_URI (and DIR_METHOD for %{REQUEST_METHOD}:
    # the request's method, GET in mod_dir's index subrequest; passes.rewrite._location_rule_tests),
    # all of which hold where the rule applies; VALUE is "1" where httpd's answer is then the backend's ([P]),
    # "" where it is an error (a redirect, [F], [G]); INDEX: whether it runs on mod_dir's lookup of a
    # directory's index file too (a subrequest: not an [R] or [NS] rule). Elsewhere httpd serves the file the
    # URL names: the refusal sends the onsuccess headers where it does (emit.inherit._served_tests). None: not
    # known.
    rule_tests: tuple | None = None
    # on the `return 403` standing for a per-directory rewrite rule left out (passes.rewrite._refused_instead):
    # the file its result names, where its path is literal; httpd answers there with that file (a success,
    # both header tables) where it exists, and with an error elsewhere (emit.inherit._result_tests)
    result: str | None = None
    # ... and the rule's regex (over $uri) with the URL path of its result, where that path is literal or reads
    # the regex's own captures: httpd's internal redirect to it runs the server's `SetEnvIf Request_URI` lines
    # again there (emit.layout._reread_env_after_rewrites)
    rule_result: tuple[str, str] | None = None
    # on the `return 403` refusing a directory whose rules httpd runs only where an unplaced section leaves
    # FollowSymLinks on (passes.rewrite._refuse_unplaced): the rules compiled but not placed, from which the
    # layout sets the `SetEnvIf Request_URI` variables again ahead of the refusal (emit.layout._rules_ahead)
    unplaced_rules: list | None = None
    # on an `error_page 403` naming the translation's plain refusal page in place of a local ErrorDocument page
    # (emit.refusal_pages): the variables httpd's internal redirect to that page sets again on its path (SetEnvIf
    # Request_URI), each with the variable of its value there (emit.layout._reread_env_on_error_pages)
    rereads: tuple[tuple[str, str], ...] = ()
    # on the `return 403` of a <Location> refused for its RewriteRules (LOCATION_REFUSAL): the readings of the
    # `SetEnvIf Request_URI` variables httpd's internal redirect to the rules' result (not known) may set again,
    # each pair a reading of its own (a variable, and a map giving one of its values) (emit.layout.
    # _read_any_after_location_rules)
    readings: tuple[tuple[str, str], ...] = ()
    # on the statements of a Header line inside an <If>/<ElseIf>/<Else>: httpd merges the expression sections
    # after every other section, even one enclosed in a <Directory> (ap_if_walk), so the line acts after the
    # plain Header lines of every block, an inner <Directory>'s or <Location>'s too (emit.inherit.header_order)
    late: bool = False


# Not an nginx directive: a conditional `Header unset NAME` (args: NAME, a variable non-empty where the
# condition holds, and `always` for that table), which makes the earlier add_header lines of NAME in the
# nginx block it meets send nothing where the variable is set, and is then left out (emit.inherit).
UNSET_WHEN = "a2n_unset_when"

# The name httpd's directory walk stops at (r->filename), which the Header lines of a <DirectoryMatch> test:
# set in the server and in every location, empty where a backend answers (emit.layout._set_walk_file,
# passes.headers._in_regex_directory).
WALK_FILE = "$a2n_walk_file"
# always `$`: how a literal dollar sign is written where nginx reads variables (NginxModel.literal)
DOLLAR = "$a2n_dollar"


def redirects_to(target: str) -> bool:
    """Whether an error_page TARGET is a URL to redirect to (nginx answers a 302 to it), as httpd redirects to
    an ErrorDocument URL of any scheme (`ftp:`, `HTTPS:`; passes.core._error_document_kind)."""
    return re.match(r"[A-Za-z0-9+.-]+:", target) is not None


def written_literally(text: str, captures: bool = False) -> str:
    """TEXT with each `$` written `${a2n_dollar}` (NginxModel.literal, which also defines the variable);
    CAPTURES: but a `$` before a digit, a regex capture (`$1`) in both servers."""
    if not captures:
        return text.replace("$", "${" + DOLLAR[1:] + "}")
    return "".join(written_literally(part) if i % 2 == 0 else part
                   for i, part in enumerate(re.split(r"(\$[0-9])", text)))


def read_literally(text: str) -> str:
    """The Apache text `written_literally` wrote as TEXT."""
    return text.replace("${" + DOLLAR[1:] + "}", "$")


# nginx array-like directives: a block that defines any of a family inherits none of its
# parent's, so the emitter repeats the parent's list first (Apache merges them instead).
ARRAY_FAMILIES = (
    frozenset({"add_header"}),
    frozenset({"proxy_set_header"}),
    frozenset({"error_page"}),
    frozenset({"proxy_redirect"}),
    frozenset({"proxy_cookie_domain"}),
    frozenset({"proxy_cookie_path"}),
    frozenset({"proxy_hide_header"}),
    frozenset({"allow", "deny"}),
    frozenset({"fastcgi_param"}),
    frozenset({"access_log"}),
)


@dataclass
class ProxyTarget:
    """Where a proxied region goes: `upstream` names an upstream block, `path` the backend URI part."""

    scheme: str              # http / https
    upstream: str            # upstream block name
    path: str                # backend path ("" when the URL had none)
    host_header: str         # host[:port] Apache sends when ProxyPreserveHost is off
    span: Span | None = None


@dataclass
class Location:
    """One nginx location; `modifier` is "", "=", "^~", "~", "~*" or "@" (named)."""

    modifier: str
    path: str
    statements: list[Stmt] = field(default_factory=list)
    span: Span | None = None
    locations: list["Location"] = field(default_factory=list)
    # a script handler (or its 403 where Options ExecCGI is off): the layout repeats it in prefix locations
    runs_scripts: bool = False
    # files served as files (SetHandler None in a <Files> section, default-handler in a <Location>): no script
    # handler is nested into it
    static_only: bool = False
    # a script handler mod_mime gives by extension (AddHandler): default-handler in a <Directory> takes it back
    mime_handler: bool = False
    # where SetHandler default-handler of a <Directory> is in force: no mod_mime handler is nested into it
    mime_off: bool = False
    # per-directory rewrite statements a <Directory> or .htaccess put here: never run for proxied URLs
    directory_rules: list = field(default_factory=list)
    # the per-directory statements of a directory whose URL a ProxyPass takes here: they never run in this
    # location, only in the locations under it that a `ProxyPass ... !` leaves to the directory
    proxied_rules: list = field(default_factory=list)
    # statements of the enclosing location that httpd does not apply to this one's URLs (a <Directory>'s, in
    # an AliasMatch nested in that directory's region to map them elsewhere): the render keeps nginx from
    # inheriting them (it repeats the rest of their families here, or stops an add_header list)
    not_inherited: list = field(default_factory=list)
    # a nested location whose expression matches exactly the URLs its section applies to (an AliasMatch's for
    # a directory below its target): the enclosing location never answers them, so its refusal sends none of
    # this one's headers (emit.inherit.refused_headers)
    exact: bool = False

    def key(self) -> tuple[str, str]:
        return (self.modifier, self.path)


def all_nested(locations: list[Location]) -> list[Location]:
    """LOCATIONS and every location nested in them, at any depth, breadth first."""
    out, queue = [], list(locations)
    while queue:
        loc = queue.pop(0)
        out.append(loc)
        queue.extend(loc.locations)
    return out


@dataclass
class UpstreamServer:
    address: str
    params: list[str] = field(default_factory=list)
    span: Span | None = None
    url: str = ""                     # the member URL as Apache names it (for proxy_redirect)
    loadfactor: object = 1            # fractions.Fraction; scaled to integer weights
    route: str | None = None
    ignore_errors: bool = False
    spare: bool = False               # httpd's status=+R: it only stands in for an unusable member


@dataclass
class Upstream:
    name: str
    servers: list[UpstreamServer] = field(default_factory=list)
    statements: list[Stmt] = field(default_factory=list)
    span: Span | None = None
    reuse: bool = True        # backend connection reuse (keepalive); off with disablereuse
    protocol: str = "http"    # http | fastcgi | uwsgi
    scheme: str = "http"      # http | https, for proxy_pass
    host_header: str = ""     # host[:port] httpd sends when ProxyPreserveHost is off
    balancer: bool = False
    lb: dict = field(default_factory=dict)             # lbmethod, failover settings from ProxySet
    location_params: dict = field(default_factory=dict)  # member timeouts etc. applied where it is used
    retry_set: bool = False
    notes: set = field(default_factory=set)            # diagnostics already given for this upstream
    retry_report: object = None                         # the retry= diagnostic, which later members' lines join


@dataclass
class MapBlock:
    source: str                     # "" for a geo block: its values are literal text, `$` included
    variable: str
    entries: list[tuple[str, str]] = field(default_factory=list)
    default: str | None = None
    hostnames: bool = False
    span: Span | None = None
    volatile: bool = False          # re-evaluated at every use (its source changes within a request)


@dataclass
class LogFormat:
    name: str
    format: str
    escape: str | None = None
    span: Span | None = None


@dataclass
class Server:
    span: Span | None
    is_main: bool = False
    names: list[str] = field(default_factory=list)
    has_server_name: bool = False
    name_spans: list[Span] = field(default_factory=list)
    listens: list[ListenDirective] = field(default_factory=list)
    root: str | None = None
    root_span: Span | None = None
    # `root` is an nginx expression (VirtualDocumentRoot's per-host directory), not a path written as is
    root_expression: bool = False
    ssl: bool = False
    statements: list[Stmt] = field(default_factory=list)
    # Statements that stay inside this server block even for Apache's main server (whose `statements`
    # are emitted at http level so that every virtual host inherits them).
    own_statements: list[Stmt] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    # Addresses from the <VirtualHost> line, resolved into listens by the vhost pass.
    addresses: list[tuple[str, Span]] = field(default_factory=list)
    # Apache state the layout step turns into locations.
    scopes: list["Scope"] = field(default_factory=list)
    routes: list["Route"] = field(default_factory=list)
    settings: dict = field(default_factory=dict)


def routes_in_force(server: Server, main: Server | None) -> list["Route"]:
    """The routes of the lists (Alias, ProxyPass, Redirect and their Match forms) that may map a request of
    SERVER: its own, then the main server's, which every virtual host inherits."""
    if main is None or main is server:
        return list(server.routes)
    return list(server.routes) + list(main.routes)


def every_statement(servers: list[Server]):
    """Every statement of SERVERS, at any depth: their own, their scopes' and sections', their locations' (nested
    too), and the statements inside blocks (`if`, `limit_except`)."""
    stack: list[Stmt] = []
    for server in servers:
        stack += list(server.statements) + list(server.own_statements)
        for sc in server.scopes + server.settings.get("directories", []) + server.settings.get("files", []):
            stack += sc.statements
        stack += [st for loc in all_nested(server.locations) for st in loc.statements]
    while stack:
        st = stack.pop()
        yield st
        stack.extend(st.block or [])


@dataclass
class Scope:
    """An Apache section region and what its directives asked for: a <Location>/<LocationMatch> (URL
    space), a <Directory> (`fs_path`: the layout finds the URLs that reach it) or a <Files>/<FilesMatch>
    (`files_regex`: matched against the last path segment, nested into the locations it applies to)."""

    path: str
    regex: bool = False
    nocase: bool = False
    statements: list[Stmt] = field(default_factory=list)
    proxy: "Route | None" = None
    settings: dict = field(default_factory=dict)
    span: Span | None = None
    kind: str = "location"            # location | directory | files
    fs_path: str | None = None        # directory: the filesystem path
    files_regex: str | None = None    # files: a PCRE over the URL whose match means "the basename matches"
    parent: "Scope | None" = None     # files inside a <Directory>


@dataclass
class Route:
    """A first-match URL mapping from the server's lists: ProxyPass, Alias, Redirect."""

    kind: str                 # proxy | proxy-exclude | alias | redirect
    path: str                 # URL prefix (or regex when `regex`)
    target: str = ""          # backend URL, filesystem path, or redirect URL
    status: int = 0           # redirects
    regex: bool = False
    proxy: ProxyTarget | None = None
    params: dict = field(default_factory=dict)
    span: Span | None = None


@dataclass
class ApacheListen:
    address: str | None
    port: int
    ipv6: bool
    ssl: bool
    span: Span


@dataclass
class NginxModel:
    full: bool = False
    nginx_version: tuple[int, ...] = (1, 22)
    servers: list[Server] = field(default_factory=list)
    apache_listens: list[ApacheListen] = field(default_factory=list)
    http_statements: list[Stmt] = field(default_factory=list)
    upstreams: dict[str, Upstream] = field(default_factory=dict)
    # what an upstream stands for (a backend's scheme, host and port; a balancer of a server) -> its name
    upstream_keys: dict = field(default_factory=dict)
    maps: list[MapBlock] = field(default_factory=list)
    log_formats: dict[str, LogFormat] = field(default_factory=dict)
    main_statements: list[Stmt] = field(default_factory=list)   # nginx main context (full configs)
    pending_workers: list = field(default_factory=list)   # ProxySet URL k=v: (url, params, directive)
    # FastCGI handlers (SetHandler proxy:...): (worker URL, the location's statements, the directive)
    script_handlers: list = field(default_factory=list)
    ssl_env_applied: set = field(default_factory=set)      # SSLOptions +StdEnvVars given to FastCGI locations
    main_server: Server | None = None   # Apache's main server: its settings apply to every virtual host
    # spans of access rules already reported as refused, so a section many locations share is said once
    access_reported: set = field(default_factory=set)
    request_header_ops: list = field(default_factory=list)   # every RequestHeader read (headers.finish_model)
    conditional_header_sets: bool = False   # a conditional Header set was emitted (emit.inherit may need maps)
    # an onsuccess header's variable (empty on the answers httpd sends without its onsuccess table: the
    # renderer writes its add_header with `always`) -> the value it has where that table is sent
    onsuccess_ungated: dict = field(default_factory=dict)
    # a header's variable a server rewrite rule carries from the original URL's <Location> sections (passes.
    # rewrite_location_headers), whose values are onsuccess ones -> (source, entries ungated, span) of the
    # map a refusal standing where httpd serves the rewritten file sends (emit.render makes it when asked)
    carried_ungated: dict = field(default_factory=dict)
    # a conditional Header line's variable (env= or expr=, or a section's line sent only where httpd's walk
    # merges the section) -> the value it is where not empty: emit.inherit joins a later section's append or
    # merge to it where both are sent
    header_values: dict = field(default_factory=dict)
    inherited_maps_made: bool = False   # the maps that merging inherited statements needs are in `maps`
    # the maps over $uri of `Header ... expr=%{REQUEST_URI}...` conditions (passes.header_expr): httpd reads
    # r->uri, which a server rewrite without [PT] leaves as it was (passes.rewrite pins them before one)
    request_uri_maps: list = field(default_factory=list)
    # generated map variables: how many of each prefix, and the variable of each distinct map (linear lookups)
    _variable_counts: dict = field(default_factory=dict)
    _maps_by_content: dict = field(default_factory=dict)
    _map_variables: set = field(default_factory=set)     # variables of maps[:_maps_indexed] (maps only grows)
    _maps_indexed: int = 0
    redirect_uri_fallbacks: int = 0   # the maps over $uri that Redirects' raw-URI maps fall back to

    def has_map(self, variable: str) -> bool:
        """Whether a map defines VARIABLE: an index over `maps`, caught up with what was appended since."""
        for block in self.maps[self._maps_indexed:]:
            self._map_variables.add(block.variable)
        self._maps_indexed = len(self.maps)
        return variable in self._map_variables

    def add_map(self, block: MapBlock) -> None:
        """Append BLOCK unless a map already defines its variable."""
        if not self.has_map(block.variable):
            self.maps.append(block)

    def literal(self, text: str) -> str:
        """Apache's literal TEXT as the argument of an nginx directive that reads variables in its value
        (add_header, proxy_set_header, map values, return, rewrite): httpd sends a `$` as it is written
        (observed: `Header set X "a$args"` sends `a$args`), nginx reads `$name` as a variable (the client's
        query string, a request header) and refuses a `$` before no name ("invalid variable name"). nginx has
        no escape for `$`: each is written `${a2n_dollar}`, a geo block's variable that is always `$`."""
        if "$" not in text:
            return text
        self.add_map(MapBlock("", DOLLAR, [], '"$"'))
        return written_literally(text)

    def literal_but_captures(self, text: str) -> str:
        """TEXT as `literal` gives it, but a `$` before a digit stays a regex capture (`$1`: RedirectMatch's
        target and an ErrorDocument message take httpd's captures there, as nginx reads them)."""
        self.literal(re.sub(r"\$[0-9]", "", text))      # (defines the variable where one is written)
        return written_literally(text, captures=True)

    def literal_substitution(self, text: str) -> str:
        """An ap_pregsub template (a RedirectMatch's target) as `literal_but_captures` gives it: `$0`..`$9`
        are the captures, and a backslash takes the next character as itself (observed: httpd 2.4 redirects
        by `http://x.example.com/\\$1/$1` to the text `$1` then the capture, by `\\x` to `x`), where nginx
        would keep the backslash and read the capture."""
        parts = re.findall(r"\$[0-9]|\\.|.", text, re.DOTALL)     # a capture, an escaped character, any other
        captured = [len(p) == 2 and p[0] == "$" for p in parts]
        self.literal("".join(p[-1] for p, c in zip(parts, captured) if not c))   # (defines the variable)
        return "".join(p if c else written_literally(p[-1]) for p, c in zip(parts, captured))

    def new_variable(self, prefix: str, suffix: str = "") -> str:
        """`$<prefix><n><suffix>`, numbered per prefix in the order they are asked for."""
        n = self._variable_counts[prefix] = self._variable_counts.get(prefix, 0) + 1
        return f"${prefix}{n}{suffix}"

    def shared_map(self, prefix: str, source: str, entries: list[tuple[str, str]], default: str,
                   span: Span | None = None, volatile: bool = False) -> str:
        """The variable of a map with this content, added once (numbered with PREFIX; `span`: where the
        first one asking for it stands; VOLATILE: re-evaluated at every use)."""
        key = (prefix, source, tuple(entries), default, volatile)
        variable = self._maps_by_content.get(key)
        if variable is None:
            variable = self._maps_by_content[key] = self.new_variable(prefix)
            self.maps.append(MapBlock(source, variable, entries, default, span=span, volatile=volatile))
        return variable
