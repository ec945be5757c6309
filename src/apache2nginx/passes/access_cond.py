"""Access rules nginx checks with maps: `Require env`, `Require expr`, `Require method` inside a tree with
them, `Allow/Deny from env=` and `SSLRequire`.

mod_authz_core evaluates a Require tree to one of three results (src: apply_authz_sections): granted,
denied or neutral. A leaf is granted or denied; `Require not X` turns granted into denied and denied
into neutral; <RequireAll> is denied if a child is denied, else granted if a child is granted, else
neutral; <RequireAny> is granted if a child is granted, else denied if one is, else neutral;
<RequireNone> is a negated <RequireAny>. Anything but granted at the top refuses the request (403).

Here every node becomes a map whose value is G, D or N (or a constant, when it does not depend on the
request), each container a map over its children's values concatenated, and the region refuses with
`if ($decision != G) { return 403; }` (rewrite phase: before the location's own access checks, which
for a refusal that needs no credentials changes nothing). Environment variables are resolved when the
region is laid out, per server: a variable a translated SetEnvIf sets is its map chain's variable, one
nothing sets before authorization (SetEnv and per-directory rewrites run later, in fixups) never
matches, and one set some other way (a RewriteRule [E=], an untranslated SetEnvIf) is refused.
"""
from __future__ import annotations

import re

from ..model import Stmt, every_statement
from ..syntax.span import Span
from .header_expr import HeaderCondition, Untranslatable
from .early_headers import early_request_headers
from .setenvif import RAW_PATH, URI_SOURCES, notes_for, server_variable

GRANTED, DENIED, NEUTRAL = "G", "D", "N"
PREFIX = "a2n_authz_"
# BrowserMatch lines setting these are not translated (old-browser workarounds), so their state is unknown
_UNKNOWN_VARS = {"nokeepalive", "ssl-unclean-shutdown", "downgrade-1.0", "force-response-1.0",
                 "redirect-carefully", "gzip-only-text/html", "no-gzip", "suppress-error-charset"}


NGINX_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "MKCOL", "COPY", "MOVE", "OPTIONS", "PROPFIND",
                 "PROPPATCH", "LOCK", "UNLOCK", "PATCH")


def httpd_methods(names) -> tuple[set[str], list[str]]:
    """The methods nginx knows that httpd's method numbers for NAMES (<Limit>, <LimitExcept>, Require method)
    cover, and the names that are none of them. httpd looks a name up as written (ap_method_number_of is
    case-sensitive: `post` is not POST but a method of its own, which <Limit> registers) and numbers HEAD as
    GET (M_GET), so a rule for either covers both (observed on httpd 2.4: `<Limit HEAD>` and `Require method
    HEAD` hold for GET too). The set names GET wherever HEAD is named, as nginx's limit_except exempts HEAD
    with GET but never GET with HEAD; HEAD beside GET only where it was written (a test of $request_method
    adds it)."""
    covered, unknown = set(), []
    for name in names:
        if name == "HEAD":
            covered |= {"GET", "HEAD"}
        elif name in NGINX_METHODS:
            covered.add(name)
        else:
            unknown.append(name)
    return covered, unknown


class CondRefused(Exception):
    def __init__(self, message: str, span: Span | None):
        super().__init__(message)
        self.message, self.span = message, span


def check_expression(text: str, ssl_compat: bool) -> None:
    """Raise Untranslatable now (at the directive) for an expression no map can evaluate."""
    from ..model import NginxModel
    HeaderCondition(NginxModel(), request_only=True, ssl_compat=ssl_compat, exact_case=True).compile(text)


class Conditions:
    """Compiles conditions of one server's regions into maps on the model."""

    def __init__(self, model, server):
        self.model, self.server = model, server
        # decision maps not written yet: "@n" -> (source, entries, default). A map over another one's
        # result is composed into one map over the first one's source, and only maps a check reads are added
        self.pending: dict[str, tuple[str, list, str]] = {}
        self.boolean: set[str] = set()      # expression variables: "1" or empty
        self.headers: set[str] = set()      # request headers a decision reads (nginx < 1.23: the first copy)
        self.read: set[str] = set()         # every nginx variable the decision's maps read
        self.vary: list[str] = []           # add_header Vary values for the request headers expressions read

    # -- the pieces -------------------------------------------------------------------------
    def _map(self, source: str, entries: list[tuple[str, str]], default: str) -> str:
        inner = self.pending.get(source)
        if inner is not None and all(len(k) == 2 or not k.startswith("~") for k, _ in entries) and \
                not any("$" in v for _, v in inner[1] + [("", inner[2])]):
            def apply(value: str) -> str:
                for key, out in entries:
                    if (key[1:] in value) if key.startswith("~") else key == value:
                        return out
                return default
            return self._map(inner[0], [(k, apply(v)) for k, v in inner[1]], apply(inner[2]))
        if inner is not None:
            source = self.variable(source)
        # an entry giving the default can go only where no later one would then match instead: nginx tries
        # plain strings first, then the expressions in order
        exact = [(k, v) for k, v in entries if not k.startswith("~")]
        regexes = [(k, v) for k, v in entries if k.startswith("~")]
        while regexes and regexes[-1][1] == default:
            regexes.pop()
        if not regexes:
            exact = [(k, v) for k, v in exact if v != default]
        entries = exact + regexes
        if not entries:
            return default
        token = f"@{len(self.pending)}"
        self.pending[token] = (source, entries, default)
        return token

    def map(self, source: str, entries: list[tuple[str, str]], default: str) -> str:
        return self._map(source, entries, default)

    def digit(self, variable: str) -> str:
        """1 when an expression's variable is 1, else 0 (a position that keeps its width when concatenated)."""
        return self._map(variable, [("1", "1")], "0")

    def pick_constant(self, select: str, outcomes: dict[int, str]) -> str:
        """OUTCOMES[k] for the selected k (a constant per outcome)."""
        return self._map(select, [(str(k), v) for k, v in outcomes.items() if k != 0], outcomes.get(0, NEUTRAL))

    def variable(self, value: str) -> str:
        """The nginx variable of a decision (its map added now)."""
        if not value.startswith("@"):
            return value
        source, entries, default = self.pending[value]
        return self.model.shared_map(PREFIX, source, entries, default)

    def env_source(self, name: str, span: Span | None) -> str | None:
        """The variable holding environment variable NAME at authorization time ("" when unset), or None
        when nothing sets it before then."""
        lower = name.lower()
        rewrite = {n.lower() for n in self.model.main_server.settings.get("access_rewrite_env", ())} \
            if self.model.main_server is not None else set()
        notes = notes_for(self.model, lower)
        if lower in rewrite or "untranslated" in notes or lower in _UNKNOWN_VARS or \
                lower.startswith("redirect_") or lower == "unique_id":
            raise CondRefused(f"the environment variable {name} (set by a RewriteRule [E=], a SetEnvIf/"
                              "BrowserMatch line that is not translated, or httpd itself)", span)
        if "empty" in notes:
            raise CondRefused(f"the environment variable {name} (a SetEnvIf line sets it to the empty string, "
                              "which nginx cannot tell from unset)", span)
        variable = server_variable(self.model, self.server, lower)
        if variable is not None:
            self._note_headers(variable, span)
            if "uri" in self.read and not self._pinned(variable):
                # httpd's SetEnvIf reads the URI as the client sent it; nginx's $uri after the server's rewrites
                raise CondRefused(f"the environment variable {name} (a SetEnvIf on Request_URI, and the server "
                                  "rewrites URLs before nginx reads it)", span)
            if "uri" in self.read and self._redirects():
                raise CondRefused(f"the environment variable {name} (a SetEnvIf on Request_URI, which httpd "
                                  "matches again on the path of an internal redirect: per-directory rewrite rules, "
                                  "a local ErrorDocument)", span)
        return variable

    def _pinned(self, variable: str) -> bool:
        """Whether every map of $uri behind VARIABLE is read first thing in the server (setenvif's pin), before
        its rewrite rules change $uri: as httpd's server-level SetEnvIf, which runs at post_read_request,
        before mod_rewrite's translate_name, and whose variables a subrequest (mod_dir's index) inherits."""
        pinned = self._pin_names()
        return bool(pinned) and not [m for m in self._maps_behind(variable)
                                     if ("$uri" in m.source or RAW_PATH in m.source) and m.variable not in pinned]

    def _pin_names(self) -> set[str]:
        """The variables setenvif's pin reads first thing in the server."""
        pin = next((st for st in getattr(self.server, "own_statements", [])
                    if st.name == "set" and st.args[:1] == ["$a2n_setenv_uri_pin"]), None)
        return {"$" + n for n in re.findall(r"\$\{(\w+)\}", pin.args[1])} if pin is not None else set()

    def _redirects(self) -> bool:
        """Whether httpd may redirect a request of the server internally where nginx keeps the pinned values: the
        result of per-directory rewrite rules, a local ErrorDocument whose page the layout does not read again
        (_error_pages_reread). The new request runs the server's SetEnvIf lines again on its own path
        (mod_setenvif's match_headers at its header_parser, first call of the new request), where nginx keeps
        the pinned value. (mod_dir's index and FallbackResource are subrequests, which inherit the variables.)"""
        servers = [s for s in (self.server, self.model.main_server) if s is not None]
        if any(s.settings.get("rewrite_directories") for s in servers):
            return True
        reread = self._error_pages_reread()
        return any(st.name == "error_page" and st.args[-1:] and st.args[-1].startswith("/") and
                   not (reread and not re.search(r"[\s'\"{};$\\]", st.args[-1].split("?", 1)[0]))
                   for st in every_statement(servers))

    def _error_pages_reread(self) -> bool:
        """Whether the layout sets the pinned variables again where $uri is an ErrorDocument's page (each a map of
        $uri alone, the page's path plain: emit.layout._reread_env_on_error_pages). nginx's error_page redirect
        runs the server's rewrite phase again, before its access phase, so the page's access rules read the
        variables as httpd's internal redirect to the page sets them (its header_parser runs SetEnvIf again on
        the page's path), and the request's own path keeps the pinned values."""
        names = self._pin_names()
        maps = [m for m in self.model.maps if m.variable in names]
        return bool(names) and len(maps) == len(names) and \
            all(m.source in URI_SOURCES and not m.hostnames for m in maps)

    def _maps_behind(self, variable: str) -> list:
        maps = {m.variable: m for m in self.model.maps}
        stack, seen, found = [variable], set(), []
        while stack:
            m = maps.get(stack.pop())
            if m is None or m.variable in seen:
                continue
            seen.add(m.variable)
            found.append(m)
            stack += ["$" + n for n in re.findall(r"\$(\w+)", " ".join([m.source, m.default or ""] +
                                                                           [v for _, v in m.entries]))]
        return found

    def _note_headers(self, variable: str, span: Span | None) -> None:
        """Record the request headers the maps behind VARIABLE read (Host excepted: both servers refuse a
        repeated one); refuse a decision reading one an early RequestHeader changes (_early_headers)."""
        holder = self.model.main_server.settings if self.model.main_server is not None else {}
        count, maps = holder.get("access_map_index", (-1, {}))
        if count != len(self.model.maps):
            maps = {m.variable: m for m in self.model.maps}
            holder["access_map_index"] = (len(self.model.maps), maps)
        stack, seen, headers = [variable], set(), set()
        while stack:
            m = maps.get(stack.pop())
            if m is None or m.variable in seen:
                continue
            seen.add(m.variable)
            for name in re.findall(r"\$(\w+)", m.source + " " + (m.default or "")):
                self.read.add(name)
                if name.startswith("http_") and name != "http_host":
                    headers.add(name)
                stack.append("$" + name)
        self.headers |= headers
        self._early_headers(headers, span)

    def _early_headers(self, headers: set[str], span: Span | None) -> None:
        """`RequestHeader ... early` changes the request header when httpd reads the request, before SetEnvIf
        and the access checks read it (observed: `RequestHeader set X-Role guest early` makes `SetEnvIf X-Role
        ^admin$` never match); nginx has no phase that runs first and its $http_ variables keep the client's
        value, so a decision reading such a header would follow the client's: refused."""
        changed = early_request_headers(self.model, self.server)
        if headers & changed:
            names = ", ".join(sorted(h[5:].replace("_", "-") for h in headers & changed))
            raise CondRefused(f"the request header(s) {names}, which a `RequestHeader ... early` line changes "
                              "before httpd's access checks read them", span)

    def expression(self, text: str, ssl_compat: bool, span: Span | None) -> str:
        """A variable that is 1 when the ap_expr holds, empty otherwise."""
        try:
            kept = self.server.settings.get("uri_kept_rewrites")
            compiler = HeaderCondition(self.model, request_only=True, prefix=PREFIX, ssl_compat=ssl_compat,
                                       exact_case=True,
                                       uri_source=(lambda: kept_request_uri(self.model, self.server)) if kept
                                       else None)
            variable = compiler.compile(text)
            if kept and compiler.reads_uri:
                self.server.settings["kept_uri_read"] = True
                self.read.add("uri")
            self.vary.extend(compiler.vary_values())
            self.boolean.add(variable)
            self._note_headers(variable, span)
            return variable
        except Untranslatable as exc:
            raise CondRefused(f"the expression {text!r} ({exc})", span)

    def truth(self, variable: str, negate: bool = False) -> str:
        """G when VARIABLE is 1 (D otherwise); negated, D when it is 1 (N otherwise)."""
        self.boolean.add(variable)
        if negate:
            return self._map(variable, [("1", DENIED)], NEUTRAL)
        return self._map(variable, [("1", GRANTED)], DENIED)

    # -- Require trees ------------------------------------------------------------------------
    def tri(self, node) -> str:
        """G, D or N when the node's result is known now, else a variable holding it."""
        if node.op == "leaf":
            return self._leaf(node)
        values = [self.tri(c) for c in node.children]
        if node.op == "all":
            value = self._combine(values, DENIED, GRANTED)
        else:
            value = self._combine(values, GRANTED, DENIED)
        if node.op == "none":
            value = self._negate(value)
        return value

    def _combine(self, values: list[str], first: str, second: str) -> str:
        """`first` if any child is, else `second` if any child is, else neutral."""
        if first in values:
            return first
        variables = [v for v in values if _dynamic(v)]
        has_second = second in values
        if not variables:
            return second if has_second else NEUTRAL
        if len(variables) == 1 and not has_second:
            return variables[0]
        source = variables[0] if len(variables) == 1 else "".join(self.variable(v) for v in variables)
        entries = [("~" + first, first)]
        if has_second:
            return self._map(source, entries, second)
        return self._map(source, entries + [("~" + second, second)], NEUTRAL)

    def _negate(self, value: str) -> str:
        if not _dynamic(value):
            return DENIED if value == GRANTED else NEUTRAL
        return self._map(value, [(GRANTED, DENIED)], NEUTRAL)

    def _leaf(self, leaf) -> str:
        kind, args, span = leaf.kind, leaf.args, leaf.span
        if kind == "all":
            value = GRANTED if args and args[0].lower() == "granted" else DENIED
        elif kind == "env":
            sources = [self.env_source(a, span) for a in args]
            variables = [s for s in sources if s is not None]
            if not variables:
                value = DENIED
            else:
                # granted when any of the variables is set
                value = self._map("".join(variables), [('""', DENIED)], GRANTED)
        elif kind == "expr":
            value = self.truth(self.expression(" ".join(args), False, span))
        elif kind in ("ip", "local"):
            from .access import _leaf_form
            form = _leaf_form(leaf if kind == "ip" else Authz_local(span))
            value = self.address(form[1] or form[2], span)
            return self._negate(value) if leaf.negated else value
        elif kind == "method":
            methods, unknown = httpd_methods(args)
            if "TRACE" in unknown:
                raise CondRefused("Require method TRACE (nginx answers TRACE itself)", span)
            if unknown or not methods:
                raise CondRefused(f"Require method {' '.join(args)} (methods nginx does not know, or httpd "
                                  "does not: it reads method names case-sensitively)", span)
            if "GET" in methods:
                methods.add("HEAD")     # httpd numbers HEAD as GET
            value = self._map("$request_method", [("~^(?:" + "|".join(sorted(methods)) + ")$", GRANTED)], DENIED)
        else:
            raise CondRefused(f"Require {kind} together with Require env/expr", span)
        return self._negate(value) if leaf.negated else value

    def address(self, networks: list[str], span: Span | None) -> str:
        """G when the client's address ($remote_addr, as allow/deny see it) is in one of NETWORKS, else D:
        IPv4 networks as expressions over the dotted text (also in its IPv4-mapped IPv6 form), ::1 as itself."""
        entries = []
        for net in networks:
            if net == "::1":
                entries.append(("~^::1$", GRANTED))
                continue
            regex = ipv4_regex(net)
            if regex is None:
                raise CondRefused(f"the IPv6 network {net} inside a Require env/expr combination", span)
            entries.append(("~" + regex, GRANTED))
        return self._map("$remote_addr", entries, DENIED)

    # -- what nginx checks --------------------------------------------------------------------
    def mark_volatile(self, variable: str) -> None:
        """Mark volatile the maps behind VARIABLE that read the URI (directly or through another map): nginx
        keeps a map's value for the whole request, and an internal redirect (the index file of a directory,
        a try_files fallback) changes the URI. httpd checks the index file's own URI (mod_dir's subrequest),
        so the decision must be made anew there. Not a SetEnvIf map read first thing in the server (`_pinned`):
        its value stays the request's own path's, as httpd's variable does."""
        maps = {m.variable: m for m in self.model.maps}
        pinned = self._pin_names()
        memo: dict[str, bool] = {}

        def reads_uri(name: str) -> bool:
            if name in memo:
                return memo[name]
            memo[name] = False      # a cycle reads nothing more
            m = maps.get(name)
            if m is None or name in pinned:
                return False
            names = re.findall(r"\$(\w+)", m.source + " " + (m.default or "") + " " +
                               " ".join(v for _, v in m.entries))
            result = any(n in _URI_VARIABLES or reads_uri("$" + n) for n in names)
            memo[name] = result
            if result:
                m.volatile = True
            return result
        reads_uri(variable)

    def refuse_unless(self, value: str, wanted: tuple[str, ...], span: Span | None, what: str) -> list[Stmt]:
        """Statements refusing (403) every request whose decision is not one of WANTED."""
        stmts = self._refuse_unless(value, wanted, span, what)
        for st in stmts:
            for name in re.findall(r"\$\w+", " ".join(st.args)):
                self.mark_volatile(name)
        return stmts

    def _refuse_unless(self, value: str, wanted: tuple[str, ...], span: Span | None, what: str) -> list[Stmt]:
        if not _dynamic(value):
            return [] if value in wanted else [Stmt("deny", ["all"], span, comment=what)]
        known = self.pending.get(value)
        if known is not None and re.fullmatch(r"\$\w+", known[0]) and len(known[1]) == 1 and (known[1][0][0] == '""' or
                                                         (known[1][0][0] == "1" and known[0] in self.boolean)):
            # a decision on whether one variable is empty: test the variable itself
            refused_empty, refused_set = known[1][0][1] not in wanted, known[2] not in wanted
            if known[1][0][0] == "1":
                refused_empty, refused_set = refused_set, refused_empty
            if refused_empty != refused_set:
                test = f'({known[0]} {"=" if refused_empty else "!="} "")'
                return [Stmt("if", [test], span, comment=what, block=[Stmt("return", ["403"], span)])]
        value = self.variable(value)
        if wanted == (GRANTED,):
            test = f"({value} != {GRANTED})"
        else:
            test = f"({value} = {DENIED})"
        return [Stmt("if", [test], span, comment=what, block=[Stmt("return", ["403"], span)])]


# httpd's r->uri where a server rewrite without [PT] applied (see kept_request_uri)
KEPT_URI, KEPT_FROM = "$a2n_kept_uri", "$a2n_kept_from"


def kept_request_uri(model, server) -> str | None:
    """The variable an access condition reads for %{REQUEST_URI} in a server with RewriteRules that keep the
    URL (server context, no [PT]: rewrite_compile's uri_kept_rewrites), None in other servers. Such a rule
    changes r->filename only (mod_rewrite's hook_uri2file): r->uri, which <If> and `Require expr` read in the
    sections of the file reached, is still the request's own path (observed with httpd 2.4: /app/inner/a.txt
    rewritten to /app/ is refused by `<If "%{REQUEST_URI} =~ m#\\.txt$#"> Require all denied` in the
    <Directory> of /app/). nginx's rewrite changes $uri. KEPT_URI holds the path the request had before such a
    rule applied, empty where none did or where later a rule with [PT] or a per-directory rule (httpd's
    internal redirect) made the rewritten path the request's own (emit.layout.keep_request_uri sets it):
    the map gives $uri where it is empty."""
    if not server.settings.get("uri_kept_rewrites"):
        return None
    return model.shared_map("a2n_kept_uri_", KEPT_URI, [('""', "$uri")], KEPT_URI, volatile=True)


# nginx variables an internal redirect changes
_URI_VARIABLES = {"uri", "document_uri", "request_filename", "fastcgi_script_name", "fastcgi_path_info"}


def compat_condition(cond: Conditions, allows: list, denies: list, order: str, span: Span | None) -> str:
    """mod_access_compat's decision over `env=` entries and addresses (CIDR): G when the request is admitted,
    D when not.
    Deny,Allow admits when an Allow matches or no Deny does; Allow,Deny (and Mutual-failure) when an Allow
    matches and no Deny does. `env=V` matches when V is set, `env=!V` when it is not."""
    def matches(entries) -> str:
        values = []
        for value, where in entries:
            if value == "all":
                values.append(GRANTED)
                continue
            if not value.lower().startswith("env="):
                values.append(cond.address([value], where))     # an address already in CIDR form
                continue
            name = value[4:]
            negate = name.startswith("!")
            source = cond.env_source(name.lstrip("!"), where)
            if source is None:
                values.append(GRANTED if negate else DENIED)
            elif negate:
                values.append(cond._map(source, [('""', GRANTED)], DENIED))
            else:
                values.append(cond._map(source, [('""', DENIED)], GRANTED))
        return cond._combine(values, GRANTED, DENIED) if values else DENIED
    allow, deny = matches(allows), matches(denies)
    if order == "deny,allow":
        return cond._combine([allow, _invert(cond, deny)], GRANTED, DENIED)
    return cond._combine([allow, _invert(cond, deny)], DENIED, GRANTED)


def Authz_local(span):
    from .access import Authz
    return Authz("leaf", "local", [], span=span)


def ipv4_regex(net: str) -> str | None:
    """An expression matching exactly the dotted-quad texts of the addresses in NET (an IPv4 address or CIDR
    network), None for IPv6."""
    import ipaddress
    try:
        network = ipaddress.ip_network(net, strict=False)
    except ValueError:
        return None
    if network.version != 4:
        return None
    octets = str(network.network_address).split(".")
    full, bits = divmod(network.prefixlen, 8)
    parts = [re.escape(o) for o in octets[:full]]
    if full < 4:
        if bits:
            low = int(octets[full])
            high = low + (1 << (8 - bits)) - 1
            parts.append("(?:" + "|".join(str(n) for n in range(low, high + 1)) + ")")
        else:
            parts.append(r"\d+")
        parts += [r"\d+"] * (4 - len(parts))
    return "^(?:::ffff:)?" + r"\.".join(parts) + "$"


def _dynamic(value: str) -> bool:
    return value.startswith(("$", "@"))


def _invert(cond: Conditions, value: str) -> str:
    """G <-> D (a match test: never neutral)."""
    if not _dynamic(value):
        return DENIED if value == GRANTED else GRANTED
    return cond._map(value, [(GRANTED, DENIED)], GRANTED)
