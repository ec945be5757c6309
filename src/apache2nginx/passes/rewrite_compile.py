"""Compiling one RewriteRule (with its conditions) into nginx rewrite-module statements: variables,
back-references, RewriteMap lookups, condition tests, flags and the rewrite/return that acts."""
from __future__ import annotations

import os
import re
from dataclasses import replace

from ..model import Location, MapBlock, Server, Stmt
from ..syntax.span import Span
from . import access_proxy
from .early_headers import early_request_headers
from .base import Context
from .fallback import FALLBACK
from .rewrite_compare import integer_compare, string_compare
from .rewrite_handler import (SUBREQUEST_FAILS, HandlerRefused, access_granting, access_restricted, document_root,
                              handler_route, per_directory_access, url_lookup_blocker, written_document_root,
                              _static_directory)
from .rewrite_model import (alternates_at_top, flag_values, pieces, regex_tokens, _MATCH_ALL, _TIME_PARTS, Cond,
                            PER_DIR_VARIABLES,
                            RewriteContext, RewriteMapDef, RRule, VARIABLES, _capture_starts_path, _status,
                            env_variable, END_MARK, ends_rewriting, rule_urls)
from . import rewrite_dirslash as dirslash
from . import rewrite_unsafe as unsafe_rules
from .rewrite_prefix import ABSOLUTE_KEY, leading_kinds
from .vhost_alias import server_name_variable, server_port_variable

# %{REQUEST_METHOD} in server context: the request's method, GET on the pass after nginx's index redirect
# (rewrite._method_pass)
METHOD = "$a2n_rw_method"
# %{REQUEST_METHOD} in a per-directory context: the request's method, GET on the pass after nginx's index
# redirect (rewrite._dir_method_pass)
DIR_METHOD = "$a2n_rw_dir_method"


class Unsupported(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message
        # the file a refused per-directory rule's result names, where known (_result_file)
        self.result: str | None = None
        # the URL a refused per-directory [END] rule rewrites to, as nginx's `rewrite` would write it (end_flag)
        self.target: str | None = None


class Compiler:
    def __init__(self, ctx: Context, server: Server, state: RewriteContext):
        self.ctx = ctx
        self.server = server
        self.state = state
        self.per_dir = state.per_dir
        self.out: list[Stmt] = []
        self.needs_request_uri = False
        self.needs_method = False           # a server-context condition reads %{REQUEST_METHOD} (METHOD)
        self.needs_dir_method = False       # a per-directory condition reads it (DIR_METHOD)
        self.counter = 0
        self.tests_built: list[Stmt] = []   # `set` statements that build a composite test string
        self.lookups: list[Stmt] = []       # statements that look RewriteMap values up
        self.unrolling = False              # compiling an [N] rule that the caller repeats
        # %{ENV:REDIRECT_STATUS} in a per-directory context: the rules that redirect internally mark it
        self.mark_redirects = state.per_dir is not None and uses_redirect_status(state.rules)
        self.redirect_status_rules: set[int] = set()
        self.noted: set[tuple[str, int]] = set()   # (code, rule) reported once, however often it is compiled
        self.mapped_root: str | None = None   # the document root a server-context result maps under
        self.mapped_alias = False             # the result is a file under an Alias target
        # (the rule's flag, the index name mod_dir's lookup is followed with) where mod_dir's check follows it
        self.dirslash: tuple[str | None, str | None, bool] | None = None
        # server-context rewrites whose answer carries the original URL's <Location> headers (finish_server)
        self.carried_rewrites: list[Stmt] = []
        # the server-context rewrites without [PT]: httpd's r->uri stays the request's own path
        self.uri_kept_rewrites: list[Stmt] = []
        # id of the 403 standing for a rule left out -> the <Directory>/<Files> sections with Header lines its
        # result may fall under, and whether that result is a directory (rewrite._refused_instead,
        # carry_refusal_headers)
        self.refusal_sections: dict[int, tuple[list, bool]] = {}
        self.per_dir_proxies: list[Location] = []   # the internal locations of per-directory [P] rules
        self.server_facts: dict[str, object] = {}     # facts read from the whole server once (`server_fact`)

    def server_fact(self, key: str, compute):
        """A fact about the whole server (its sections, its index names), computed once for every rule."""
        if key not in self.server_facts:
            self.server_facts[key] = compute()
        return self.server_facts[key]

    # -- values --------------------------------------------------------------
    def variable(self, name: str, rule: RRule | None = None) -> str:
        value = self._variable(name, rule)
        if value.startswith("$http_") and value[1:] in early_request_headers(self.ctx.model, self.server):
            # httpd runs `RequestHeader ... early` when it reads the request, before mod_rewrite reads the
            # header; nginx's $http_ variable keeps the client's value (access_cond refuses alike)
            raise Unsupported("A2N806", f"%{{{name}}}: a `RequestHeader ... early` line changes the header before "
                              "httpd's rewrite rules read it, and nginx reads the client's")
        return value

    def _variable(self, name: str, rule: RRule | None = None) -> str:
        upper = name.upper()
        if upper.startswith("HTTP_") and upper not in VARIABLES:
            return self._unset_variable()
        if upper.startswith("HTTP:") and not _HEADER_NAME.fullmatch(name[5:]):
            # a header name nginx cannot spell as a variable (a brace or a blank would break the file)
            raise Unsupported("A2N806", f"%{{{name}}}: {name[5:]!r} is not a header name nginx can read")
        if upper.startswith("HTTP:"):
            return "$http_" + name[5:].lower().replace("-", "_")
        if upper == "ENV:REDIRECT_STATUS" and self.per_dir is not None and self.mark_redirects:
            self._redirect_status(rule)
            # an error_page pass carries the error in $status ("000" otherwise), as httpd's ErrorDocument
            # request carries it in REDIRECT_STATUS; other passes read what the rewrites marked
            _ensure_map(self.ctx, MapBlock('"$status:$a2n_redirect_status"', "$a2n_redirect_status_env",
                                           [("~^000:(.*)$", "$1"), ("~^(\\d+):", "$1")], '""', volatile=True))
            return "$a2n_redirect_status_env"
        if upper.startswith("ENV:"):
            if name[4:] in self.ctx.options.get("rewrite_env", ()):
                return env_variable(name[4:])
            raise Unsupported("A2N806", f"%{{{name}}} is not set by a RewriteRule [E=] flag of this input (SetEnv, "
                              "SetEnvIf or the process environment are not translated into nginx variables)")
        if upper == "REMOTE_HOST" and not self.ctx.options.get("hostname_lookups"):
            return "$remote_addr"   # HostnameLookups Off: httpd gives the address itself
        if upper in _TIME_PARTS:
            return self._time_variable(upper)
        if upper.startswith("SSL:") or upper.startswith("TIME") or \
                upper in ("IS_SUBREQ", "API_VERSION", "REMOTE_HOST", "REMOTE_IDENT", "REQUEST_BODY"):
            raise Unsupported("A2N806", f"%{{{name}}} has no nginx equivalent in this translator")
        if upper.startswith("LA-U:") or upper.startswith("LA-F:"):
            raise Unsupported("A2N806", f"%{{{name}}} (a look-ahead) has no nginx equivalent")
        if self.per_dir is not None and upper in PER_DIR_VARIABLES:
            return PER_DIR_VARIABLES[upper]
        if upper == "SERVER_NAME":
            return server_name_variable(self.ctx, self.server)
        if upper == "SERVER_PORT":
            return server_port_variable(self.ctx, self.server)
        if upper == "REQUEST_METHOD" and self.per_dir is None:
            self.needs_method = True
            return METHOD
        if upper == "REQUEST_METHOD":
            self.needs_dir_method = True
            return DIR_METHOD
        if upper in VARIABLES:
            value = VARIABLES[upper]
            if value == "$a2n_request_uri":
                self.needs_request_uri = True
            if value == "$a2n_https":
                self._https_map()
            return value
        raise Unsupported("A2N806", f"%{{{name}}} has no nginx equivalent in this translator")

    def _unset_variable(self) -> str:
        """An always empty value: mod_rewrite knows only a fixed list of %{HTTP_*} names (HTTP_ACCEPT,
        HTTP_COOKIE, HTTP_FORWARDED, HTTP_HOST, HTTP_PROXY_CONNECTION, HTTP_REFERER, HTTP_USER_AGENT); any other,
        such as %{HTTP_X_ROLE} or %{HTTP_AUTHORIZATION}, expands to "" in httpd (observed: `!^admin$` holds with
        "X-Role: admin" sent), whereas nginx's $http_x_role is the header the client sends. A header is read
        with %{HTTP:X-Role}."""
        variable = "$a2n_rw_unset"
        if not self.ctx.model.has_map(variable):
            self.ctx.model.maps.append(MapBlock("$uri", variable, [], '""'))
        return variable

    def _redirect_status(self, rule: RRule | None) -> None:
        if rule is None or id(rule.directive) in self.redirect_status_rules:
            return
        self.redirect_status_rules.add(id(rule.directive))
        from .base import Disposition
        rule.settle(self.ctx, Disposition.APPROXIMATE, self.ctx.diags.add(
            "A2N324", "%{ENV:REDIRECT_STATUS}: httpd sets it on the request an internal redirect creates (200 after "
            "a per-directory rewrite, the error for an ErrorDocument); the translation marks the rewrites of these "
            "rules and reads an error_page pass's $status", rule.span, directive="RewriteRule"))

    def _time_variable(self, name: str) -> str:
        """httpd's TIME_* variables (local time) cut out of nginx's $time_iso8601, also local time."""
        variable = "$a2n_" + name.lower()
        if not self.ctx.model.has_map(variable):
            self.ctx.model.maps.append(MapBlock(
                "$time_iso8601", variable,
                [("~^(\\d{4})-(\\d\\d)-(\\d\\d)T(\\d\\d):(\\d\\d):(\\d\\d)", _TIME_PARTS[name])], '""'))
        return variable

    def _https_map(self) -> None:
        if not self.ctx.model.has_map("$a2n_https"):
            self.ctx.model.maps.append(MapBlock("$https", "$a2n_https", [('""', "off")], "on"))

    def expand(self, text: str, rule: RRule, cond_names: dict[int, str],
               rule_names: dict[int, str] | None = None) -> str:
        """Substitution text as nginx text: %{VAR}, ${map:key|default}, $N (rule captures: nginx's own, or named
        ones saved before the conditions ran) and %N (named condition captures); literal text keeps a `$`
        (httpd's `\\$`, or one before anything but a digit or `{`) literal, which a geo block supplies (nginx
        has no escape for it)."""
        return "".join(self.piece_value(kind, value, rule, cond_names, rule_names)
                       for kind, value in pieces(text))

    def piece_value(self, kind: str, value: str, rule: RRule, cond_names: dict[int, str],
                    rule_names: dict[int, str] | None = None) -> str:
        """One piece of a substitution (see `pieces`) as nginx text."""
        if kind == "text":
            return self.ctx.model.literal(value)
        if kind == "var":
            return "${" + self.variable(value, rule)[1:] + "}"
        if kind == "map":
            name, _, rest = value.partition(":")
            key, bar, default = _split_default(rest)
            return self.map_value(name, key, default if bar else None, rule, cond_names, rule_names)
        n = int(value)
        if kind == "rule" and rule_names is not None:
            return "${" + rule_names[n] + "}" if n in rule_names else ""   # httpd: empty
        if kind == "rule":
            return f"${n}" if n else "${uri}"   # nginx reads exactly one digit after $
        return "${" + cond_names[n] + "}" if n in cond_names else ""

    # -- RewriteMap lookups --------------------------------------------------
    def random_value(self, mapdef: RewriteMapDef, key: str, default: str | None, rule: RRule) -> str:
        """rnd: a literal key's `a|b|c` alternatives picked per request by split_clients on $request_id
        (random); httpd draws a random number per lookup: the same spread, not the same sequence."""
        if re.search(r"[$%]", key):
            raise Unsupported("A2N804", f"${{{mapdef.name}:{key}}}: an rnd map looked up with a key built from the "
                              "request is not translated")
        choices = [c for c in mapdef.entries.get(key, "").split("|") if c]
        if not choices:
            return default if default is not None and not re.search(r"[$%]", default) else ""
        if len(choices) == 1 and "$" not in choices[0]:
            return choices[0]
        if any("$" in c or '"' in c for c in choices):
            raise Unsupported("A2N804", f"${{{mapdef.name}:{key}}}: an alternative holds `$` or a quote")
        cache = self.ctx.options.setdefault("rewrite_random", {})
        if (id(mapdef), key) not in cache:
            variable = f"$a2n_random{len(cache) + 1}"
            share = int(10000 / len(choices)) / 100
            block = [Stmt(f"{share:.2f}%", [c], None) for c in choices[:-1]] + [Stmt("*", [choices[-1]], None)]
            self.ctx.model.http_statements.append(Stmt("split_clients", ["${request_id}", variable], mapdef.span,
                                                       block=block))
            cache[(id(mapdef), key)] = variable
            self.ctx.diags.add("A2N834", f"RewriteMap {mapdef.name} (rnd) key {key}: one of {len(choices)} "
                               "alternatives picked per request by split_clients; httpd picks at random per lookup",
                               mapdef.span, directive="RewriteMap")
        return "${" + cache[(id(mapdef), key)][1:] + "}"

    def map_value(self, name: str, key: str, default: str | None, rule: RRule, cond_names: dict[int, str],
                  rule_names: dict[int, str] | None) -> str:
        mapdef = self.server.settings.get("rewrite_maps", {}).get(name) or \
            self.ctx.main.settings.get("rewrite_maps", {}).get(name)
        if mapdef is None:
            if default is None:
                raise Unsupported("A2N804", f"${{{name}:...}} uses a map no RewriteMap defines (httpd substitutes "
                                  "an empty string)")
            # httpd starts without the map and falls back to the default at every lookup (observed)
            from .base import Disposition
            rule.settle(self.ctx, Disposition.APPROXIMATE, self.ctx.diags.add(
                "A2N325", f"${{{name}:{key}|{default}}}: no RewriteMap {name} is defined in this input, so httpd "
                "uses the default at every lookup, and so does the translation", rule.span, directive="RewriteRule"))
            return self.expand(default, rule, cond_names, rule_names)
        if mapdef.problem:
            raise Unsupported("A2N804", f"${{{name}:...}}: {mapdef.problem}")
        if mapdef.kind == "rnd":
            return self.random_value(mapdef, key, default, rule)
        if mapdef.kind == "int":
            function = mapdef.source.partition(":")[2].lower()
            if function == "tolower" and key.upper() in ("%{SERVER_NAME}", "%{HTTP_HOST}"):
                self.ctx.diags.add("A2N832", f"${{{name}:{key}}}: nginx's $host is the lower-cased host name"
                                   + (" without the port %{HTTP_HOST} includes" if "HTTP_HOST" in key.upper()
                                      else " (as %{SERVER_NAME} is under UseCanonicalName Off)"),
                                   rule.span, directive="RewriteRule")
                return "${host}"
            raise Unsupported("A2N804", f"${{{name}:{key}}}: int:{function} has no nginx equivalent for a value "
                              "other than the host name")
        key_value = self.expand(key, rule, cond_names, rule_names)
        default_value = self.expand(default, rule, cond_names, rule_names) if default is not None else ""
        cache = self.ctx.options.setdefault("rewrite_map_blocks", {})
        source = (name, id(mapdef), key_value)
        if source not in cache:
            number = len(cache) + 1
            variable = f"$a2n_map{number}"
            # nginx matches map strings ignoring case, httpd's txt keys are exact: every value carries its key,
            # and the lookup keeps it only when the key matches exactly.
            entries = [(_map_key(k), f"{k} {v}") for k, v in mapdef.entries.items()]
            self.ctx.model.maps.append(MapBlock(_quote_value(key_value), variable, entries, '""',
                                                span=mapdef.span, volatile=True))
            cache[source] = variable
        found = cache[source]
        self.counter += 1
        pair, value = f"$a2n_lookup{self.counter}_pair", f"$a2n_lookup{self.counter}"
        self.lookups.extend([
            Stmt("set", [pair, f"{key_value} ${{{found[1:]}}}"], rule.span),
            Stmt("set", [value, default_value], rule.span, comment=f"${{{name}:...}} (RewriteMap)"),
            Stmt("if", [f'({pair} ~ "^(\\S+) \\1 (\\S*)$")'], rule.span, block=[Stmt("set", [value, "$2"], rule.span)]),
        ])
        return "${" + value[1:] + "}"

    # -- regular expressions -------------------------------------------------
    def rule_regex(self, rule: RRule) -> tuple[str, bool]:
        pattern, negate = rule.pattern, False
        if pattern.startswith("!"):
            pattern, negate = pattern[1:], True
        if self.per_dir is not None:
            prefix = self.per_dir.rstrip("/") + "/"
            esc = re.escape(prefix)
            # httpd matches the path without the directory's prefix: a `^` inside the pattern (`(^|/)\.`) means
            # just after that prefix, which a fixed-length lookbehind says
            inner = f"(?<=^{esc})"
            if alternates_at_top(pattern):
                pattern = "(?:" + pattern + ")"     # the prefix comes before every alternative (`^a|b$`)
            if pattern.startswith("^"):
                pattern = "^" + esc + _inner_anchors(pattern[1:], inner)
            else:
                pattern = "^" + esc + ".*?" + _inner_anchors(pattern, inner) if pattern not in ("", ".*") \
                    else "^" + esc + ".*"
        if "NC" in rule.flags:
            pattern = "(?i)" + pattern
        return pattern, negate

    # -- conditions ----------------------------------------------------------
    def condition(self, cond: Cond, rule: RRule, name_prefix: str, cond_names: dict[int, str],
                  rule_names: dict[int, str]) -> tuple[str, dict[int, str] | None]:
        """The nginx if-condition for one RewriteCond, and its named captures (for %N).

        `rule_names` are the rule pattern's captures saved under names before any condition ran (httpd
        matches the pattern first), `cond_names` those of the last condition that captured."""
        test = cond.test
        pattern = cond.pattern
        negate = pattern.startswith("!")
        if negate:
            pattern = pattern[1:]
        nocase = "NC" in cond.flags
        if test.lower() == "expr":
            return self._expr_condition(pattern, negate), None
        m = re.fullmatch(r"%\{([^}]+)\}", test)
        if m:
            var = self.variable(m.group(1), rule)
        else:
            self.lookups = []
            value = self.expand(test, rule, cond_names, rule_names)
            var = f"${name_prefix}t{len(self.tests_built)}"
            self.tests_built.extend(self.lookups + [Stmt("set", [var, value], cond.span)])
            self.lookups = []
        operator = cond_operator(pattern)
        # file tests
        if operator and pattern in ("-f", "-d", "-x", "-s", "-F", "-U", "-l", "-L", "-h"):
            kinds = {"-f": "-f", "-d": "-d", "-x": "-x", "-s": "-f"}
            if pattern == "-U" and test.upper() == "%{REQUEST_URI}":
                why = url_lookup_blocker(self.ctx, self.server, self.state)
                if why is not None:
                    raise Unsupported("A2N809", f"RewriteCond -U (a subrequest for the URL) is not translated: {why}")
                from .base import Disposition
                rule.settle(self.ctx, Disposition.APPROXIMATE, self.ctx.diags.add(
                    "A2N328", "RewriteCond %{REQUEST_URI} -U: httpd looks the URL up in a subrequest, which this "
                    "configuration refuses only for paths it cannot parse (a % without two hex digits, %00, %2F, "
                    "or %2E dot segments above the root); the translation tests for those", cond.span,
                    directive="RewriteCond"))
                # the URL is valid unless the subrequest fails: -U holds where the failure regex does not match
                return f"{var} {'~' if negate else '!~'} {_quote_regex(SUBREQUEST_FAILS)}", None
            if pattern not in kinds:
                raise Unsupported("A2N809", f"RewriteCond {pattern} has no nginx equivalent")
            if pattern == "-s":
                self.ctx.diags.add("A2N810", "RewriteCond -s (non-empty file) becomes -f: the size is not checked",
                                   cond.span, directive="RewriteCond")
            return f"{'!' if negate else ''}{kinds[pattern]} {var}", None
        compare = operator and re.match(r"(<=|>=|<|>)(.*)$", pattern, re.S)
        if compare:
            if nocase:
                raise Unsupported("A2N811", f"RewriteCond comparison {pattern!r} with [NC] is not translated")
            regex = string_compare(compare.group(1), compare.group(2))
            return f"{var} {'!~' if negate else '~'} {_quote_regex(regex)}", None
        compare = operator and re.match(r"-(lt|le|eq|ne|ge|gt)(.*)$", pattern, re.S)
        if compare:
            op = compare.group(1)
            regex = integer_compare("-eq" if op == "ne" else "-" + op, compare.group(2))
            if regex is None:
                raise Unsupported("A2N811", f"RewriteCond {pattern!r}: the value compared with is not an integer")
            negate = negate != (op == "ne")
            return f"{var} {'!~' if negate else '~'} {_quote_regex(regex)}", None
        if operator and pattern.startswith("="):
            literal = pattern[1:]
            if literal == '""':
                literal = ""      # httpd's spelling of the empty string
            if nocase or "$" in literal or '"' in literal or "\\" in literal:
                regex = "^" + _pcre_literal(literal) + "$"
                op = ("!~*" if negate else "~*") if nocase else ("!~" if negate else "~")
                return f"{var} {op} {_quote_regex(regex)}", None
            return f"{var} {'!=' if negate else '='} \"{literal}\"", None
        names: dict[int, str] | None = None
        if not negate:
            pattern, names = _name_groups(pattern, name_prefix)
        op = ("!~*" if negate else "~*") if nocase else ("!~" if negate else "~")
        return f"{var} {op} {_quote_regex(pattern)}", names

    def _expr_condition(self, expression: str, negate: bool) -> str:
        """`RewriteCond expr "..."`: mod_rewrite reads the second argument (after a `!`) as an ap_expr, as <If>
        does, never as a regex tested against the text "expr" (observed: `expr "%{REQUEST_URI} =~ m#^/p4#"`
        holds for /p4/a.txt). The expression is compiled into maps as an <If>'s is; %{REQUEST_URI} is httpd's
        r->uri, which earlier rewrites of these rules do not change."""
        from .header_expr import HeaderCondition, Untranslatable
        compiler = HeaderCondition(self.ctx.model, request_only=True, prefix="a2n_rwx_", exact_case=True,
                                   uri_source=lambda: self.variable("REQUEST_URI"))
        try:
            variable = compiler.compile(expression)
        except Untranslatable as e:
            raise Unsupported("A2N806", f"RewriteCond expr {expression!r}: the expression is not translated ({e})")
        return f'{variable} {"=" if negate else "!="} ""'

    # -- one rule ------------------------------------------------------------
    def rule_statements(self, rule: RRule, guards: list[str] = (), marks: list[str] = ()) -> list[Stmt]:
        """One rule as nginx statements. `guards` are extra tests that must all hold (a [C] chain or an
        [S] skip), `marks` variables set to 1 when the rule matches (for the rules that depend on it)."""
        self.dirslash = None
        stmts = self._rule_statements(rule, guards, marks)
        dirslash.note_index_rewrite(self, rule)
        if self.dirslash is None or not _holds(stmts, dirslash.DIRSLASH):
            return stmts
        return [dirslash.reset(rule)] + stmts + dirslash.after(rule, *self.dirslash,
                                                              missing=dirslash.missing_answer(self),
                                                              no_index=dirslash.location_index_lists(self))

    def _rule_statements(self, rule: RRule, guards: list[str] = (), marks: list[str] = ()) -> list[Stmt]:
        flags = rule.flags
        for f in flags:
            if f == "T" and rule.substitution == "-" and not rule.conds and not rule.pattern.startswith("!"):
                continue
            if f == "N" and not self.unrolling:
                raise Unsupported("A2N813", "[N] restarts the whole ruleset; it is translated only on the first "
                                  "rule of its context")
            if f == "T":
                raise Unsupported("A2N813", f"the [{f}] flag is not translated")
            if f == "QSL" and rule.substitution.count("?") > 1:
                raise Unsupported("A2N813", "[QSL] with more than one `?` in the substitution is not translated")
        span = rule.span
        self.counter += 1
        tag = f"a2n_rw{self.counter}"
        pattern, negate = self.rule_regex(rule)
        # tests: (AND group, nginx condition, statements that build its test string first)
        tests: list[tuple[int, str, list[Stmt]]] = []
        groups = 0
        for guard in guards:
            tests.append((groups, guard, []))
            groups += 1
        rule_names: dict[int, str] | None = None
        if any(_uses_rule_capture(text) for text in [c.test for c in rule.conds] + _flag_values(rule)) or \
                (self.dynamic_prefix(rule) or _if_chosen(self.ctx, self.server, rule)) and \
                re.search(r"(?<!\\)\$\d", rule.substitution):
            # (the regex of a map that picks a per-directory prefix, or an <If> chain's read before a [QSD]
            # redirect (_dropped_query), resets $1..$9 too)
            # httpd matches the pattern before it looks at the conditions: save its captures by name, since
            # every regex a condition runs resets $1..$9.
            named, rule_names = ("", {}) if negate else _name_groups(pattern, f"{tag}_r")
            tests.append((groups, f"$uri {'!~' if negate else '~'} {_quote_regex(named or pattern)}", []))
            groups += 1
        self.capturing_cond = None
        cond_groups = _deciding_groups(rule)
        cond_names: dict[int, str] = {}
        for group in cond_groups:
            for cond in group:
                self.tests_built = []
                text, names = self.condition(cond, rule, f"{tag}_c{len(tests)}_", cond_names, rule_names or {})
                tests.append((groups, text, self.tests_built))
                if names is not None:
                    cond_names = names   # %N come from the last regular expression that matched
                    self.capturing_cond = cond
            if "OR" in group[-1].flags:
                # an [OR] chain left open, read for its %N only: the rule applies whatever it tests
                tests.append((groups, "$uri", []))
            groups += 1
        self.lookups = []
        action = self.action(rule, pattern, negate, cond_names, rule_names)
        if self.per_dir is None and ends_rewriting(rule) and self.server.settings.get("rewrite_end_mark"):
            marks = list(marks) + [END_MARK]    # the directories' rules do not run after it (rewrite._end_guard)
        action = [Stmt("set", [mark, "1"], span) for mark in marks] + action
        if self.mark_redirects and action and _internal_rewrite(action[-1]):
            # httpd's internal redirect gives the next pass REDIRECT_STATUS=200
            marks = list(marks) + ["$a2n_redirect_status"]
            action.insert(len(action) - 1, Stmt("set", ["$a2n_redirect_status", "200"], span,
                                                comment="the next pass sees REDIRECT_STATUS"))
        unsafe = self.unsafe_plan(rule)
        if unsafe.always:
            action = [Stmt("return", ["403"], span,
                           comment="httpd 2.4.60+ refuses the space of the rewritten query (AH10410)")]
        simple = not guards and not rule.conds     # the rule's own pattern alone decides whether it applies
        check_names = rule_names
        if unsafe.checks and not simple and check_names is None and not negate and (pattern not in _MATCH_ALL or any(
                kind == "rule" for check in unsafe.checks for kind, _ in check.pieces)):
            # where the rule applies, and the back-references the checks read, by name: the conditions' regexes
            # reset $1..$9
            named, check_names = _name_groups(pattern, f"{tag}_k")
            tests.append((groups, f"$uri ~ {_quote_regex(named)}", []))
            groups += 1
        # nginx allows no `if` inside an `if`: map lookups run before the test of the whole rule
        lookups, self.lookups = self.lookups, []
        trailing = False
        if negate and rule_names is None:
            tests.append((groups, f"$uri !~ {_quote_regex(pattern)}", []))
            groups += 1
        elif not negate and (marks or (pattern not in _MATCH_ALL and not (
                action and action[-1].name == "rewrite" and action[-1].args[0] == pattern
                and not any(st.name == "set" and st.args[0] == "$args" for st in action)
                and not (tests and self.carries(action[-1]))))):
            # only `rewrite` tests the pattern itself: test it last, so $1..$9 in a `return` are its captures
            tests.append((groups, f"$uri ~ {_quote_regex(pattern)}", []))
            groups += 1
            trailing = True
        if not action:
            return []
        refusal: list[Stmt] = []
        checked = bool(unsafe.checks) and simple     # the checks stand before the rule's own statements
        if checked:
            # the rule's captures are read by name (`set` would %-escape a numbered one, as nginx does with the
            # captures of a request that held %-escapes)
            if negate:
                named, names = pattern, {}
            elif rule_names is not None:
                named, names = None, rule_names
            else:
                named, names = _name_groups(pattern, f"{tag}_k")
            needs = negate or pattern not in _MATCH_ALL or \
                any(kind == "rule" for check in unsafe.checks for kind, _ in check.pieces)
            applies = tests[0][1] if named is None else f"$uri {'!~' if negate else '~'} {_quote_regex(named)}"
            refusal = self.refusal(rule, unsafe, tag, cond_names, names, applies if needs else None)
        if not tests:
            return refusal + lookups + action
        if groups == 1 and len(tests) == 1 and not lookups and (checked or not unsafe.checks):
            return refusal + tests[0][2] + [Stmt("if", [f"({tests[0][1]})"], span, block=action)]
        var = "$" + tag
        # every group variable starts empty, so the concatenation is all ones only when every group matched
        out = [Stmt("set", [var, ""], span)] + [Stmt("set", [f"${tag}_g{gi}", ""], span) for gi in range(groups)]
        # the refusal's own tests run before the pattern is tested last for a `return`: any regex resets $1..$9
        late = bool(unsafe.checks) and not checked     # the checks stand after the conditions
        split = len(tests) - 1 if late and trailing else len(tests)
        for gi, text, before in tests[:split]:
            out.extend(before)
            out.append(Stmt("if", [f"({text})"], span, block=[Stmt("set", [f"${tag}_g{gi}", "1"], span)]))
        if late:
            head = groups - (len(tests) - split)
            if split < len(tests):
                out.append(Stmt("set", [var, "".join(f"${{{tag}_g{gi}}}" for gi in range(head))], span))
            else:
                out.extend(lookups)
                lookups = []
                out.append(Stmt("set", [var, "".join(f"${{{tag}_g{gi}}}" for gi in range(groups))], span))
            out.extend(self.refusal(rule, unsafe, tag, cond_names, {} if negate else check_names,
                                    f"{var} = {'1' * head}"))
        for gi, text, before in tests[split:]:
            out.extend(before)
            out.append(Stmt("if", [f"({text})"], span, block=[Stmt("set", [f"${tag}_g{gi}", "1"], span)]))
        if not late or split < len(tests):
            out.extend(lookups)
            out.append(Stmt("set", [var, "".join(f"${{{tag}_g{gi}}}" for gi in range(groups))], span))
        out.append(Stmt("if", [f"({var} = {'1' * groups})"], span, block=action))
        return refusal + out

    def carries(self, stmt: Stmt) -> bool:
        """Whether STMT, a rule's `rewrite` to a file path, is given the original URL's <Location> headers
        (carry_rewrite_headers), whose values are copied right before it (in the `if` of its other tests) for
        the answer of its result. httpd carries them only where the rule applies. Where the pattern was left
        to `rewrite` alone, a request whose conditions hold and whose URL the pattern does not match got them
        too (its own location then sent the <Location> header twice), and so did the pass the index module's
        internal redirect of a directory result runs again: its URI, under the document root's internal
        location, is in no section, and the header httpd sends with the index file was lost. So the
        conditions' test holds the pattern as well."""
        return any(st is stmt for st in self.carried_rewrites)

    def check_value(self, kind: str, text: str, rule: RRule, cond_names: dict[int, str],
                    rule_names: dict[int, str] | None, regex: str, joined: bool = False) -> str | None:
        """A piece's nginx value for a refusal check; "" where it can never match REGEX (a literal, or a map
        whose every value is known), None where its known value always does. JOINED: REGEX spans the pieces
        (text is kept as it is)."""
        if kind == "text" and joined:
            return self.piece_value(kind, text, rule, cond_names, rule_names)
        if kind == "text":
            return None if re.search(regex, text) else ""
        if kind != "map":
            return self.piece_value(kind, text, rule, cond_names, rule_names)
        name, _, rest = text.partition(":")
        key, bar, default = _split_default(rest)
        mapdef = self.server.settings.get("rewrite_maps", {}).get(name) or \
            self.ctx.main.settings.get("rewrite_maps", {}).get(name)
        if mapdef is None:      # httpd uses the default at every lookup (A2N325 says so where the rule expands it)
            return "".join(self.check_value(k, v, rule, cond_names, rule_names, regex, joined) or ""
                           for k, v in pieces(default)) if bar else ""
        if mapdef.kind == "int":
            return ""           # int:tolower of the host name, the only one translated
        known = list((mapdef.entries or {}).values()) if mapdef.kind == "txt" else \
            [c for v in (mapdef.entries or {}).values() for c in v.split("|")] if mapdef.kind == "rnd" else None
        if known is not None and not any(re.search(regex, v) for v in known) and \
                not (bar and re.search(r"[$%]", default)) and not (bar and re.search(regex, default)):
            return ""
        return self.piece_value(kind, text, rule, cond_names, rule_names)

    def unsafe_plan(self, rule: RRule) -> "unsafe_rules.Plan":
        """What httpd 2.4.60+ refuses this rule's result for (see rewrite_unsafe)."""
        if "R" in rule.flags:
            code = _status(rule.flags["R"])
            if code is None or not 300 <= int(code) < 400:
                return unsafe_rules.Plan()      # the status is the answer: the substitution is dropped
        try:
            return unsafe_rules.plan(rule)
        except unsafe_rules.Refused as exc:
            raise Unsupported("A2N851", str(exc)) from None

    def refusal(self, rule: RRule, unsafe: "unsafe_rules.Plan", tag: str, cond_names: dict[int, str],
                rule_names: dict[int, str] | None, applies: str | None) -> list[Stmt]:
        """403 where httpd refuses the rule's result: each check's values are taken where the rule applies
        (APPLIES, an nginx condition; None: always), then tested. RULE_NAMES: the back-references by name (None:
        nginx's own $1..$9 of APPLIES)."""
        span = rule.span
        before = self.lookups
        self.lookups = []
        values = []
        for check in unsafe.checks:
            parts = [self.check_value(kind, text, rule, cond_names, rule_names, check.regex, check.joined)
                     for kind, text in check.pieces]
            if any(part is None for part in parts):
                # a value known here that holds what httpd refuses: refused wherever the rule applies
                values = [("", "", unsafe_rules.Check([], "", check.why))]
                break
            value = "".join(parts)
            if "$" in value.replace("${a2n_dollar}", ""):
                values.append((f"${tag}_u{len(values)}", value, check))
        lookups, self.lookups = self.lookups, before
        if values and not values[0][0]:
            stmt = Stmt("return", ["403"], span, comment=f"httpd 2.4.60+ refuses: {values[0][2].why}")
            return lookups + ([Stmt("if", [f"({applies})"], span, block=[stmt])] if applies else [stmt])
        if not values:
            return []
        sets = [Stmt("set", [name, value], span) for name, value, _ in values]
        out = lookups + ([Stmt("set", [name, ""], span) for name, _, _ in values] +
                         [Stmt("if", [f"({applies})"], span, block=sets)] if applies is not None else sets)
        for name, _, check in values:
            out.append(Stmt("if", [f"({name} ~ {_quote_regex(check.regex)})"], span, block=[Stmt(
                "return", ["403"], span, comment=f"httpd 2.4.60+ refuses: {check.why}")]))
        return out

    def action(self, rule: RRule, pattern: str, negate: bool, cond_names: dict[int, str],
               rule_names: dict[int, str] | None = None) -> list[Stmt]:
        flags, span = rule.flags, rule.span
        if "F" in flags:
            return [Stmt("return", ["403"], span)]
        if "G" in flags:
            return [Stmt("return", ["410"], span)]
        out: list[Stmt] = []
        for value in flag_values(flags, "E"):
            if value:
                name, _, val = value.partition(":")
                unset = name.startswith("!")
                name = name.lstrip("!")
                out.append(Stmt("set", [env_variable(name), "" if unset else self.expand(val, rule, cond_names,
                                                                                           rule_names)], span))
                self.ctx.diags.add("A2N814", f"[E={value}]: the environment variable becomes an nginx variable; "
                                   "modules that read it in httpd do not see it", span, directive="RewriteRule")
        subst = rule.substitution
        if subst == "-" and "T" in flags:
            # Force the type of responses the pattern matches: a regex location with an emptied types map.
            self.server.locations.append(Location("~", pattern, [
                Stmt("types", [], span, block=[]),
                Stmt("default_type", [flags["T"]], span, comment="RewriteRule [T]")], span))
            self.ctx.diags.add("A2N827", f"RewriteRule {rule.pattern} - [T={flags['T']}]: a regular-expression "
                               "location sets the type; it is not consulted for URLs under ^~ prefix locations",
                               span, directive="RewriteRule")
            return out
        for data in flag_values(flags, "CO"):
            out.extend(self.cookie(rule, data, cond_names, rule_names))
        if subst == "-":
            if "H" in flags and "R" not in flags:
                return out + self.handler(rule, pattern, negate, None,
                                          "break" if "END" in flags else ("last" if "L" in flags else None))
            if "R" in flags:
                code = _status(flags["R"])
                if code is not None and not 300 <= int(code) < 400:
                    # outside 3xx httpd drops the substitution and answers with the status, as if [L]
                    return out + [Stmt("return", [code], span)]
                raise Unsupported("A2N815", "[R] with substitution - redirects to the same URL in a loop")
            if "L" in flags or "END" in flags:
                if self.per_dir is not None:
                    # in a location, an `if` may only hold return, set and flagged rewrites: the same stop
                    out.append(Stmt("rewrite", ["^" if negate else pattern, "$uri", "break"], span,
                                    comment="RewriteRule - [L]: the remaining rules are skipped"))
                else:
                    out.append(Stmt("break", [], span, comment="RewriteRule - [L]: the remaining rules are skipped"))
            return out
        if "P" in flags:
            return out + self.proxy(rule, pattern, negate, cond_names)
        redirect = "R" in flags or re.match(r"^https?://", subst) is not None
        target = self.redirect_text(rule, cond_names, rule_names) if redirect else \
            self.expand(subst, rule, cond_names, rule_names)
        escaping = [f for f in ("B", "BNP", "BCTLS", "BNE") if f in flags]
        if escaping and re.search(r"(?<!\\)\$\d", subst):
            self.ctx.diags.add("A2N828", f"RewriteRule {rule.pattern} {subst} [{','.join(escaping)}]: nginx escapes "
                               "a back-reference only after the `?` of the target and only when the request URI "
                               "itself held %-escapes or `+`; httpd escapes every non-alphanumeric character",
                               rule.span, directive="RewriteRule")
        qsa, qsd = "QSA" in flags, "QSD" in flags
        self.mapped_root, self.mapped_alias = None, False
        if self.per_dir is not None:
            target = self.with_prefix(rule, subst, target, redirect)
        else:
            target = _server_relative(subst, target)
            if not redirect and "PT" not in flags:
                target = self.file_path(rule, subst, target)
        target = _query_flags(target, qsa, qsd)
        if redirect:
            code = _status(flags.get("R", ""))
            if code is None:
                raise Unsupported("A2N813", f"[R={flags.get('R')}] is not a status code")
            if not 300 <= int(code) < 400:
                return out + [Stmt("return", [code], span)]
            form = self.redirect_form(rule, code, negate, cond_names, rule_names)
            if form is not None:
                regex, values = form
                if values:
                    target = self.redirect_text(rule, cond_names, rule_names, values)
                    target = self.with_prefix(rule, subst, target, True) if self.per_dir is not None else \
                        _server_relative(subst, target)
                    target = _query_flags(target, qsa, qsd)
                return out + _dropped_query(self.ctx, self.server, rule, target) + [
                    Stmt("rewrite", [regex, target, "permanent" if code == "301" else "redirect"], span)]
            keep = not target.endswith("?") and "?" not in target
            target = target.rstrip("?") + ("$is_args$args" if keep else "")
            return out + _dropped_query(self.ctx, self.server, rule, target) + [Stmt("return", [code, target], span)]
        # per-directory [PT] leaves the ruleset before [END] is noted (mod_rewrite's apply_rewrite_list): the
        # internal redirect runs the rules again, as nginx's `last` does (a rule that matches its own result ends
        # in both servers' redirect limit, 500)
        # In server context nginx's `break` and `last` both end the server's rewrites and go on to choose the
        # location of the result, but `break` also marks the location as not found for that URI: an `alias`
        # there (an Alias, or the document root's internal location) then fails with 500 ("alias cannot be used
        # in location where URI was rewritten"). `last` serves [END] there.
        end = "END" in flags and "PT" not in flags and self.per_dir is not None
        flag = "break" if end else ("last" if ("L" in flags or "PT" in flags or "END" in flags) else None)
        if end and "H" not in flags:
            flag = self.end_flag(rule, target)
        if self.per_dir is None and "PT" not in flags and "H" not in flags:
            self._refuse_past_access("A2N327", "httpd keeps the original URL for the access rules of {where}, "
                                     "nginx would search locations again with the rewritten one", "<Location> sections",
                                     self._urls_around(rule, negate, target), grants=True)
            self._refuse_past_fallback(rule, negate, target)
        carried = self.per_dir is None and "PT" not in flags and "H" not in flags and \
            self._past_location_headers(rule, negate, target)
        if self.per_dir is None and "PT" in flags:
            self._refuse_location_proxy(target)
            self._note_refused_location(rule, target)
        if self.per_dir is None and "H" not in flags:
            self._note_refused_directory(rule, target)
        if "H" in flags:
            return out + self.handler(rule, pattern, negate, target, flag)
        planned = self.per_dir is None and "PT" not in flags and dirslash.plan(self, rule, negate, target)
        if planned or self.per_dir is None and dirslash.index_only(self, rule, negate, target):
            # mod_dir's redirect of a directory result comes after the rewrite, before the rule stops the rules
            self.dirslash = (flag, dirslash.index_lookup(self, target), planned)
            stmt = Stmt("rewrite", ["^" if negate else pattern, target], span)
            self.uri_kept_rewrites.append(stmt)
            if carried:
                self.carried_rewrites.append(stmt)
            return out + [stmt, dirslash.record(self, rule)]
        # a negated pattern has no captures: rewrite whatever the URI is
        stmt = Stmt("rewrite", ["^" if negate else pattern, target] + ([flag] if flag else []), span)
        if self.per_dir is None and "PT" not in flags:
            self.uri_kept_rewrites.append(stmt)
        if carried:
            self.carried_rewrites.append(stmt)
        return out + [stmt]


    # -- redirect targets ----------------------------------------------------
    def redirect_text(self, rule: RRule, cond_names: dict[int, str], rule_names: dict[int, str] | None,
                      values: dict[tuple[str, str], str] | None = None) -> str:
        """A redirect's substitution as nginx text. Without [NE] httpd escapes the result (ap_escape_uri, path and
        query alike, lower-case hex): the substitution's own text is escaped here; VALUES replace pieces by other
        nginx text (back-references of the regex the `rewrite` tests instead)."""
        parts = pieces(rule.substitution)
        raw = "NE" in rule.flags
        last = "QSL" in rule.flags
        marks = [i for i, (kind, text) in enumerate(parts) if kind == "text" and "?" in text]
        split = (marks[-1] if last else marks[0]) if marks else None
        out = []
        for i, (kind, text) in enumerate(parts):
            if values and (kind, text) in values:
                out.append(values[(kind, text)])
                continue
            if kind == "text" and not raw:
                if i == split:
                    cut = text.rindex("?") if last else text.index("?")
                    text = httpd_escape(text[:cut]) + "?" + httpd_escape(text[cut + 1:])
                else:
                    text = httpd_escape(text)
            out.append(self.piece_value(kind, text, rule, cond_names, rule_names))
        return "".join(out)

    def redirect_form(self, rule: RRule, code: str, negate: bool, cond_names: dict[int, str],
                      rule_names: dict[int, str] | None) -> tuple[str, dict] | None:
        """How a redirect is written: (regex, piece values) for a `rewrite ... permanent|redirect`, whose
        captures nginx escapes as httpd escapes the values it expands (space, `"`, `#`, `%`, control characters
        and bytes past ASCII: not `<>[\\]^`{|}`, and upper-case hex), or None for a `return`, which sends its values
        as they are: with [NE] (as httpd does), another status than 301/302, or the substitution's own text alone.
        Where nginx can neither escape nor keep a value as httpd does, A2N816 says so."""
        parts = pieces(rule.substitution)
        sources = {_redirect_source(kind, text) for kind, text in parts} - {None}
        if "NE" in rule.flags:
            return None
        marks = [i for i, (kind, text) in enumerate(parts) if kind == "text" and "?" in text]
        path = parts[:marks[0]] + [("text", parts[marks[0]][1].split("?", 1)[0])] if marks else parts
        decoded = any(kind == "text" and re.search(r"[<>\[\\\]^`{|}]", text) for kind, text in path)
        if not sources and (decoded or negate or code not in ("301", "302")):
            return None         # `return` sends the escaped text as it is, where `rewrite` would decode %3c...
        unchanged = self.uri_unchanged(rule)
        cond = self.capturing_cond
        if code in ("301", "302") and not negate:
            if sources <= {"rule"}:
                # the rule's own captures as nginx's $1..$9 (escaped), even where the conditions read them by name
                form = (self.rule_regex(rule)[0], {} if rule_names is None else {
                    ("rule", text): (f"${text}" if text != "0" else "${uri}") for kind, text in parts if kind == "rule"})
            elif sources == {"uri"} and unchanged:
                form = ("^(.*)$", {("var", text): "$1" for kind, text in parts
                                   if kind == "var" and text.upper() == "REQUEST_URI"})
            elif sources == {"cond"} and unchanged and cond is not None and cond.test.upper() == "%{REQUEST_URI}" \
                    and not cond.pattern.startswith("!"):
                regex = ("(?i)" if "NC" in cond.flags else "") + cond.pattern
                form = (regex, {("cond", text): f"${text}" for kind, text in parts if kind == "cond"})
            else:
                form = (self.rule_regex(rule)[0], {})
                self.note_once(rule, "A2N816", f"RewriteRule {rule.pattern} {rule.substitution}: httpd escapes the "
                               "values the redirect expands (without [NE]); nginx sends them as they are", rule.span,
                               directive="RewriteRule")
            if decoded:
                self.note_once(rule, "A2N816", f"RewriteRule {rule.pattern} {rule.substitution}: httpd escapes "
                               "characters such as < > ^ { } | of the target (without [NE]); nginx's rewrite sends "
                               "them unescaped", rule.span, directive="RewriteRule")
            if sources & {"rule", "uri", "cond"}:
                self.note_once(rule, "A2N852", f"RewriteRule {rule.pattern} {rule.substitution}: nginx escapes the "
                               "request's values in the redirect as httpd does, but for < > [ \\ ] ^ ` { | } (kept), "
                               "upper-case hex past ASCII, and & + ; in a query (escaped)", rule.span,
                               directive="RewriteRule")
            return form
        self.note_once(rule, "A2N816", f"RewriteRule {rule.pattern} {rule.substitution}: httpd escapes the values "
                       "the redirect expands (without [NE]); nginx's `return` sends them as they are", rule.span,
                       directive="RewriteRule")
        return None

    def uri_unchanged(self, rule: RRule) -> bool:
        """No rule before RULE in its context can have rewritten the URL and gone on: %{REQUEST_URI} is $uri."""
        for earlier in self.state.rules:
            if earlier.directive is rule.directive:
                return True
            if earlier.substitution != "-" and not {"L", "END", "R", "F", "G", "P", "N"} & set(earlier.flags) \
                    and not earlier.substitution.lower().startswith(unsafe_rules.REDIRECT_SCHEMES):
                return False
            if "N" in earlier.flags:
                return False
        return True

    def note_once(self, rule: RRule, code: str, message: str, span: Span | None, **kwargs) -> None:
        """A diagnostic about a rule, once (an [N] rule is compiled once per repetition)."""
        if (code, id(rule.directive)) not in self.noted:
            self.noted.add((code, id(rule.directive)))
            self.ctx.diags.add(code, message, span, **kwargs)

    def dynamic_prefix(self, rule: RRule) -> bool:
        """Whether the rule's per-directory prefix is chosen per request (see `with_prefix`)."""
        if self.per_dir is None or rule.substitution == "-" or {"P", "F", "G"} & set(rule.flags):
            return False
        kinds = leading_kinds(rule.substitution, rule, True, self.ctx.options)
        return "rel" in kinds and kinds != {"rel"}

    def with_prefix(self, rule: RRule, subst: str, target: str, redirect: bool) -> str:
        """A per-directory target with the directory's prefix where httpd adds it: to an expanded path that
        neither starts with `/` nor is an absolute URI. httpd swaps it for RewriteBase, or strips the
        DocumentRoot from an internal rewrite; a redirect without RewriteBase keeps the filesystem path."""
        kinds = leading_kinds(subst, rule, True, self.ctx.options)
        if "rel" not in kinds:
            return self._directory_file_path(subst, target, redirect)
        if self.state.base:
            prefix = self.state.base.rstrip("/") + "/"
        elif redirect:
            prefix = document_root(self.ctx, self.server) + self.per_dir.rstrip("/") + "/"
            where = "a relative redirect target" if kinds == {"rel"} else \
                "the redirect target where its value turns out relative (neither `/...` nor a URL; a map decides)"
            self.note_once(rule, "A2N330", f"RewriteRule {rule.pattern} {subst}: without RewriteBase httpd puts the "
                               f"directory's filesystem path ({prefix}) in front of {where}, and so does the "
                               "translation", rule.span, directive="RewriteRule",
                               hint="add RewriteBase with the URL path of the directory")
        else:
            prefix = self.per_dir.rstrip("/") + "/"
        if kinds == {"rel"}:
            return prefix + target
        # known only at request time: a map over the expanded path (before any `?`) picks the prefix
        path = target.split("?", 1)[0]
        cache = self.ctx.options.setdefault("rewrite_prefix_maps", {})
        key = (path, prefix)
        if key not in cache:
            variable = f"$a2n_prefix{len(cache) + 1}"
            cache[key] = variable
            self.ctx.model.maps.append(MapBlock(_quote_value(path) if path else '""', variable,
                                                [("~^/", '""'), (ABSOLUTE_KEY, '""')], _quote_value(prefix),
                                                span=rule.span, volatile=True))
        if "abs" in kinds and not redirect:
            self.note_once(rule, "A2N329", f"RewriteRule {rule.pattern} {subst}: the substitution starts with a value "
                               "known only at request time; the directory's prefix is added only where it does not "
                               "start with `/`, as httpd does, but where it is a full URL (http://...) httpd "
                               "redirects to it and nginx rewrites to it", rule.span, directive="RewriteRule",
                               hint="start the substitution with `/` or a literal path")
        return "${" + cache[key][1:] + "}" + target

    def _directory_file_path(self, subst: str, target: str, redirect: bool) -> str:
        """A per-directory target that starts with a filesystem path: httpd swaps the directory for RewriteBase,
        or (without one) strips the DocumentRoot from an internal rewrite's result."""
        root = document_root(self.ctx, self.server)
        directory = root + self.per_dir.rstrip("/")
        if self.state.base:
            if _starts_path(subst, directory) and target.startswith(directory + "/"):
                return self.state.base.rstrip("/") + target[len(directory):]
        elif not redirect and _starts_path(subst, root) and target.startswith(root + "/"):
            return target[len(root):]
        return target

    def file_path(self, rule: RRule, subst: str, target: str) -> str:
        """A server-context substitution httpd reads as a file path: its first path segment exists on the
        server (mod_rewrite's prefix_stat). Under the DocumentRoot or an Alias target it becomes the URL that
        serves the file; elsewhere it is reported."""
        root = document_root(self.ctx, self.server)
        holders = {id(h): h for h in (self.server, self.ctx.main)}.values()
        routes = [r for h in holders for r in h.routes]
        # a ProxyPass inside a <Location> claims that section's URLs in nginx as the server's do (mod_rewrite's
        # translate_name returns first in httpd, so neither takes a result it reads as a file path)
        routes += [replace(scope.proxy, path=scope.path, regex=scope.regex, span=scope.proxy.span or scope.span)
                   for h in holders for scope in h.scopes
                   if scope.kind == "location" and scope.proxy is not None and scope.proxy.kind == "proxy"]
        # ([H] maps its result onto the document root itself: an Alias target's URL would not reach the file)
        candidates = [(root, "", None)] + [(r.target.rstrip("/"), r.path.rstrip("/"), r) for r in routes
                                          if r.kind == "alias" and not r.regex and r.target.startswith("/")
                                          and "H" not in rule.flags]
        url = None
        if subst.upper().startswith("%{DOCUMENT_ROOT}") and target.startswith("${document_root}"):
            rest = target[len("${document_root}"):]
            if rest == "" or rest.startswith(("/", "?", "${a2n_request_uri}")):
                url, chosen, fs = ("/" + rest.lstrip("/") if not rest.startswith("$") else rest), None, root
        if url is None:
            for fs, url_base, route in sorted(candidates, key=lambda c: -len(c[0])):
                if fs and _starts_path(subst, fs) and target.startswith(fs) and "\\" not in subst[:len(fs)]:
                    url, chosen = url_base + target[len(fs):], route
                    url = "/" + url.lstrip("/") if not url.startswith("/") else url
                    break
        if url is not None:
            static = re.split(r"[$?]", url, maxsplit=1)[0]
            dynamic = static != url.split("?", 1)[0]
            claimed = next((r for r in routes if r is not chosen and (
                r.regex or _segment_prefix(r.path, static) or dynamic and r.path.startswith(static))), None)
            if claimed is None:
                if chosen is None:
                    self.mapped_root = fs
                else:
                    self.mapped_alias = True
                self.note_once(rule, "A2N332", f"RewriteRule {rule.pattern} {subst}: httpd reads the substitution as "
                                   f"the file {fs}/...; the translation rewrites to {url}, the URL that serves it",
                                   rule.span, directive="RewriteRule")
                return url
            where = f" ({claimed.span.file_line})" if claimed.span else ""
            self.note_once(rule, "A2N331", f"RewriteRule {rule.pattern} {subst}: httpd reads the substitution as a "
                               f"file path under {fs}, but the URL that would serve that file is also claimed by a "
                               f"{claimed.kind} route{where}; the translation rewrites to the path as a URL",
                               rule.span, directive="RewriteRule",
                               hint="add [PT] if the substitution is meant as a URL path, or rewrite to the file's URL", urls=rule_urls(rule))
            return target
        if subst.upper().startswith("%{DOCUMENT_ROOT}"):
            self.note_once(rule, "A2N331", f"RewriteRule {rule.pattern} {subst}: httpd reads the substitution as a "
                           f"file path under {root}, and what follows %{{DOCUMENT_ROOT}} is not a path the "
                           "translation can turn into the file's URL; it rewrites to the path as a URL", rule.span,
                           directive="RewriteRule", hint="start what follows %{DOCUMENT_ROOT} with `/`", urls=rule_urls(rule))
            return target
        if re.fullmatch(r"/(\?.*)?", subst):
            self.note_once(rule, "A2N331", f"RewriteRule {rule.pattern} {subst}: httpd reads `/` as the filesystem's "
                           "root, a directory: it redirects to add a slash to the request's path, or refuses where "
                           "<Directory /> denies; the translation rewrites to the document root's /", rule.span,
                           directive="RewriteRule", hint="add [PT] if the substitution is meant as a URL path", urls=rule_urls(rule))
            return target
        if "UNSAFEPREFIXSTAT" in rule.flags and _first_segment_expands(subst):
            self.note_once(rule, "A2N850", f"RewriteRule {rule.pattern} {subst} [UnsafePrefixStat]: httpd reads the "
                           "result as a file path where its first segment, taken from the request, exists on the "
                           "server; the translation rewrites it as a URL path", rule.span, directive="RewriteRule")
            return target
        m = re.match(r"/([^/$%?\\]+)(?=/|\?|$)", subst)
        if m and (m.group(1) in STANDARD_DIRECTORIES or os.path.exists("/" + m.group(1))):
            self.note_once(rule, "A2N331", f"RewriteRule {rule.pattern} {subst}: /{m.group(1)} exists on the server, "
                               "so httpd reads the substitution as a file path and serves that file; the translation "
                               "rewrites to it as a URL path under the document root", rule.span,
                               directive="RewriteRule",
                               hint="add [PT] if it is meant as a URL path; to serve the file, give it a URL (an "
                                    "Alias, or a location with alias) and rewrite to that", urls=rule_urls(rule))
            return target
        return self.document_root_file(rule, subst, target, root, routes)

    def document_root_file(self, rule: RRule, subst: str, target: str, root: str, routes: list) -> str:
        """No first segment of the substitution exists on the server: mod_rewrite hands the path to
        ap_core_translate, which maps it under the DocumentRoot (hook_uri2file), and the translate phase ends
        there: an Alias, ProxyPass or Redirect of that URL never sees it (they match the request's own URL).
        Where one claims the URL, nginx would route the rewritten URI to it: the rule rewrites into an internal
        location that maps the path onto the document root instead, as the [H] rules do, where nothing can
        rewrite the result again and no access rule of the document root would be left behind. httpd runs the
        per-directory rewrite rules of the file's directories on it too (a `<Directory>` [R] rule answered a
        request with a query string with its 302, and served the file with its <FilesMatch> X-Frame-Options
        otherwise); the internal location cannot run them, and the route would answer without the file's
        headers (or serve what such a rule refuses): where one may match, or where a later rule may rewrite
        the result (the internal location cannot stand in) and the file's sections have Header lines, the rule
        is refused as for the directory's access rules (A2N861)."""
        static = re.split(r"[$?]", target, maxsplit=1)[0]
        dynamic = static != target.split("?", 1)[0]
        claimed = next((r for r in routes if r.regex or _segment_prefix(r.path, static) or
                        dynamic and r.path.startswith(static)), None)
        if claimed is None or not target.startswith("/"):
            self.mapped_root = root
            return target
        where = f" ({claimed.span.file_line})" if claimed.span else ""
        at = next((i for i, r in enumerate(self.state.rules) if r.directive is rule.directive), None)
        later = self.state.rules[at + 1:] if at is not None else None
        made = self.ctx.options.setdefault("rewrite_docroot_locations", {})    # (server, root) -> its prefix
        prefix = made.get((id(self.server), root)) or f"/a2n_docroot_{len(made) + 1}"
        # a later rule sees the result (httpd: the path; nginx: the internal URI): none may match either
        last = later is not None and all(_apart(r.pattern, static) and _apart(r.pattern, prefix + static)
                                         for r in later)
        # a later rule may see the result: the rule rewrites to the path as a URL, which the route answers
        rerun = not ({"L", "END"} & set(rule.flags) or last)
        applied = self._applied_to_file(rule, root, static, dynamic, rerun)
        if applied is not None:
            raise Unsupported("A2N861", f"httpd reads the substitution as the file {root}{static} (no Alias or "
                              f"ProxyPass applies to it) and {applied}; nginx would hand the URL to the "
                              f"{claimed.kind} route{where}, past those rules")
        if rerun:
            self.note_once(rule, "A2N331", f"RewriteRule {rule.pattern} {subst}: httpd reads the substitution as a "
                           f"file path under the document root {root} (no Alias or ProxyPass applies to it), but the "
                           f"URL is claimed by a {claimed.kind} route{where}; the translation rewrites to the path "
                           "as a URL, which that route serves", rule.span, directive="RewriteRule",
                           hint="add [PT] if the substitution is meant as a URL path", urls=rule_urls(rule))
            return target
        index = dirslash.docroot_index_name(self)
        if (id(self.server), root) not in made:
            made[(id(self.server), root)] = prefix
            self.server.locations.append(Location("^~", prefix + "/", [
                Stmt("internal", [], rule.span),
                Stmt("alias", [written_document_root(self.ctx, self.server, root + "/")], rule.span,
                     comment=DOCROOT_MAP)]
                + dirslash.in_document_root(rule.span, index), rule.span))
        self.needs_request_uri = True      # mod_dir's redirect there names the request's own path
        dirslash.note_escaping(self, rule)
        followed = ("; the internal location does the same (the lookup for GET and HEAD), but answers 404 where no "
                    "index file is found that way (httpd: 403)") if index else ""
        self.note_once(rule, "A2N345", f"RewriteRule {rule.pattern} {subst}: httpd maps the result under the "
                       f"document root {root}, past the {claimed.kind} route of that URL{where}; the translation "
                       "serves it from there through an internal location. httpd's directory handling (the "
                       "trailing-slash redirect, the index file) works on the request's own URL, and its index "
                       "lookup runs the rules again" + followed, rule.span, directive="RewriteRule",
                       urls=rule_urls(rule))
        if index is None:
            self.note_once(rule, "A2N346", f"RewriteRule {rule.pattern} {subst}: where the result is a directory, "
                           "httpd looks its index file up as the request's own URL plus each DirectoryIndex name "
                           "of that directory; the server's DirectoryIndex lists differ, name a path or are "
                           "disabled, so the internal location refuses (403) a directory result whose request "
                           "URL ends with a slash", rule.span, directive="RewriteRule",
                           hint="add [PT] if the substitution is meant as a URL path", urls=rule_urls(rule))
        return prefix + target

    def _applied_to_file(self, rule: RRule, root: str, static: str, dynamic: bool, rerun: bool) -> str | None:
        """What httpd applies to the file ROOT+STATIC a server rule's result maps to that nginx would pass by,
        handing the URL to the route that claims it, and the internal location of the document root cannot
        give it: the access rules of its directory (a refusal for its .htaccess, a Require), the per-directory
        rewrite rules of its directories (which may refuse or redirect it), or, where a later rule may rewrite
        the result (RERUN: the internal location cannot stand in), the Header lines of its sections. None where
        nothing is passed by."""
        blocking = per_directory_access(self.ctx, self.server, root + _static_directory(static), "/",
                                        deny_ok=False)
        if blocking is not None:
            held = f" ({blocking.span.file_line})" if getattr(blocking, "span", None) else ""
            return f"checks the access rules of its directory{held} on it"
        if self._directory_rules_may_match(root, static, dynamic):
            return "runs the per-directory rewrite rules of its directory on it, with the headers of its sections"
        if rerun and self.result_sections(rule):
            return "sends the Header lines of its sections with it"
        return None

    def _directory_rules_may_match(self, root: str, static: str, dynamic: bool) -> bool:
        """Whether a per-directory rule may see the server rule's result, the file ROOT+STATIC: httpd runs the
        rules of each directory holding that file (mod_rewrite's fixup) on its path below the directory, which
        the internal location of the document root would not. A rule cannot where its pattern is anchored with
        a literal text apart from that path, or, for a result with no variable part, does not match it
        (`^(.*)\\.txt$` never sees `app/inner/`); a directory given by a pattern may hold anything."""
        path = root.rstrip("/") + static
        for h in {id(h): h for h in (self.server, self.ctx.main)}.values():
            for state in h.settings.get("directory_rewrites", {}).values():
                if not state.rules:
                    continue
                directory = (state.directory or "").rstrip("/")
                if not state.literal or re.search(r"[*?\[]", directory):
                    return True
                if dynamic and directory.startswith(path):
                    return True     # the variable part may lead into the directory
                if not (path + "/").startswith(directory + "/"):
                    continue
                rel = path[len(directory):].lstrip("/")
                if any(_rule_may_match(r, rel, dynamic) for r in state.rules):
                    return True
        return False

    def handler(self, rule: RRule, pattern: str, negate: bool, target: str | None, flag: str | None) -> list[Stmt]:
        try:
            return handler_route(self, rule, pattern, negate, target, flag)
        except HandlerRefused as exc:
            raise Unsupported("A2N813", exc.message) from None

    def _websocket_headers(self, span: Span) -> list[Stmt]:
        """[P] to ws:// or wss://: HTTP/1.1 and the Upgrade handshake passed on, as mod_proxy_wstunnel does."""
        _ensure_map(self.ctx, MapBlock("$http_upgrade", "$a2n_upgrade", [("~*^websocket$", "websocket")], '""'))
        _ensure_map(self.ctx, MapBlock("$http_upgrade", "$a2n_connection_upgrade", [("~*^websocket$", "upgrade")],
                                       "close"))
        return [Stmt("proxy_http_version", ["1.1"], span),
                Stmt("proxy_set_header", ["Upgrade", "$a2n_upgrade"], span),
                Stmt("proxy_set_header", ["Connection", "$a2n_connection_upgrade"], span)]

    def _refuse_past_access(self, code: str, message: str, unlocated: str,
                            urls: list[tuple[str, bool]] | None = None, grants: bool = False) -> None:
        """A rewrite nginx would take past access rules httpd checks on the original URL: not translated.
        URLS, where known, are literal prefixes of every URL the rule can see or make: sections of other URLs
        refuse the same requests in both servers (neither URL is theirs). GRANTS: the result is served from a
        file whose <Directory> rules httpd merges under the original URL's <Location> sections, so a <Location>
        granting every request counts too (_past_grant)."""
        restricted = [scope for scope in access_restricted(self.ctx, self.server, files=False)
                      if urls is None or _may_hold(scope, urls)]
        if grants:
            restricted += self._past_grant(urls)
        if restricted:
            where = restricted[0].span
            raise Unsupported(code, message.format(
                where=f"the section at {where.file}:{where.line}" if where else unlocated))
        # a <Location> the translation refuses whole (its RewriteRule is not translated, rewrite._in_location)
        # governs the original URL only in httpd; nginx's location of the result would refuse it
        holders = {id(h): h for h in (self.server, self.ctx.main)}.values()
        refused = next((scope for h in holders for scope in h.scopes if scope.kind == "location"
                        and scope.settings.get("rewrite_refused") and (urls is None or _may_hold(scope, urls))), None)
        if refused is not None:
            where = f"the <Location> at {refused.span.file_line}" if refused.span else unlocated
            raise Unsupported(code, f"httpd applies {where}, which the translation refuses (403) for its "
                              "RewriteRule, to the original URL only; nginx would search locations again with the "
                              "rewritten one and refuse it there")

    def _past_grant(self, urls: list[tuple[str, bool]] | None) -> list:
        """The <Location> sections granting every request (`Require all granted`, where a <Directory> section
        could refuse) that may hold some URL of a server-context rewrite to a file path but not certainly all of
        them. httpd walks <Location> with the original URL and merges it over the <Directory> sections of the
        file the result maps to: `<Location /docs/x> Require all granted` opens a request rewritten from
        /docs/x to /static/, past the document root's `Require all denied` (404 for a missing file, 200 with
        Allow for OPTIONS). nginx searches locations again with the rewritten URI, whose location refuses it
        (403); a rewrite into such a section from outside it would open in nginx what httpd refuses. A section
        holding every URL the rule sees and makes governs both alike."""
        def governs_all(scope) -> bool:
            return urls is not None and (scope.path == "/" and not scope.regex
                                         or all(_inside(scope, url, nocase) for url, nocase in urls))
        return [scope for scope in access_granting(self.ctx, self.server)
                if (urls is None or _may_hold(scope, urls)) and not governs_all(scope)]

    def end_flag(self, rule: RRule, target: str) -> str:
        """The flag of a per-directory [END] rewrite. httpd serves its result through an internal redirect (the
        redirect-handler): the new URL's <Location>/<Directory> access rules apply, while mod_rewrite, having
        noted END in the request pool the redirect shares (mod_rewrite.c, `really_last_key`), runs no more
        rules, neither the server's nor any directory's. nginx's `break` keeps the result in the rule's own
        location, past the access rules of the result's; `last`, from a location, selects the result's
        location without the server's rewrites again. So `break` where no section with access rules may hold
        the result; `last` where one may and the result's location runs no per-directory rules (its literal
        start lies outside every directory with rules); otherwise the rule is not translated (A2N860) and
        refuses its requests (rewrite._refused_instead). The internal redirect also maps the result through
        mod_alias and mod_proxy again (their translate_name hooks: a Redirect, an Alias, a ProxyPass of the new
        URL): where one may take the result, `last` too, so that nginx selects that entry's location, or the
        rule is refused (A2N862) where the result may fall under per-directory rules. The rest of the new URL's
        configuration (its <Location>/<Directory> DirectoryIndex, Header, FallbackResource...) is merged for it
        too, and only it: where a section that does not govern the rule's own directory may hold the result, or
        one with settings that governs it may not hold the result (a <Location> Header line nginx's `break` would
        still send), `last` as well, or the rule is refused (A2N877)."""
        fixed = re.match(r"[^$?]*", target).group()
        made = [(fixed, "NC" in rule.flags)] if fixed.startswith("/") else None
        root = document_root(self.ctx, self.server).rstrip("/")
        restricted = [scope for scope in access_restricted(self.ctx, self.server)
                      if made is None or self._may_serve(scope, made, root)]
        routed = [route for h in {id(h): h for h in (self.server, self.ctx.main)}.values() for route in h.routes
                  if _route_may_take(route, made)]
        configured = self._result_settings(made, root)
        left = self._settings_left(made, root)
        if not restricted and not routed and not configured and not left:
            return "break"
        prefixes = self.server.settings.get("rewrite_prefixes", []) + [self.per_dir.rstrip("/") + "/"]
        if made is not None and fixed != "/" and \
                not any(fixed.startswith(p) or p.startswith(fixed) for p in prefixes):
            return "last"
        if not restricted and not routed:
            # a section of settings the result may fall under though the rule's directory does not, or one
            # that governs the rule's directory though the result may fall outside it
            scope = (configured or left)[0]
            where = f" at {scope.span.file_line}" if scope.span else ""
            how = (f"with the configuration of the section{where}, which does not govern the rule's own directory,"
                   if configured else f"without the configuration of the section{where}, which governs the rule's "
                   "own directory but may not govern the result,")
            exc = Unsupported("A2N877", f"httpd serves the result of this [END] rewrite (an internal redirect) {how} "
                              "and runs no rewrite rules there; the result may fall under per-directory rules that "
                              "nginx would run again, and `break` would serve it with "
                              + ("the rule's own location's settings instead" if configured else
                                 "that section's settings"))
            exc.result = _result_file(target, root)
            exc.target = target
            raise exc
        if not restricted:
            route = routed[0]
            where = f" at {route.span.file_line}" if route.span else ""
            exc = Unsupported("A2N862", f"httpd maps the result of this [END] rewrite (an internal redirect) "
                              f"through the {route.params.get('directive', route.kind)}{where} and runs no rewrite "
                              "rules there; the result may fall under per-directory rules that nginx would run "
                              "again, so the translation cannot send it through that entry's location")
            exc.target = target
            raise exc
        where = f"{restricted[0].span.file_line}" if restricted[0].span else "a section"
        exc = Unsupported("A2N860", f"httpd checks the access rules of the section at {where} on the result "
                          "of this [END] rewrite (an internal redirect) and runs no rewrite rules there; the "
                          "result may fall under per-directory rules that nginx would run again, so the "
                          "translation cannot send it through that section's location")
        exc.target = target
        raise exc

    def _refuse_past_fallback(self, rule: RRule, negate: bool, target: str) -> None:
        """A server-context rewrite to a file path without [PT] keeps the original URL for the <Location>
        sections, FallbackResource among them: where the file it maps to is missing (and no handler took it),
        mod_dir hands the request to the fallback URL of the sections matching the original URL (mod_dir.c,
        dir_fixups and fixup_dflt, with the request's per-directory configuration), whose subrequest the
        server's rules rewrite again (a missing result falls back again, until the subrequest nesting limit
        answers 500, AH00125). nginx searches locations with the rewritten URI: a rule out of a <Location> with
        a FallbackResource (or `disabled`) loses it, one into such a <Location> gains it. A section that
        certainly holds every URL the rule sees and makes governs both alike; any other that may hold one of
        them stops the translation (A2N879), and the rule's requests are refused."""
        urls = self._urls_around(rule, negate, target)
        holders = {id(h): h for h in (self.server, self.ctx.main)}.values()
        for scope in (s for h in holders for s in h.scopes):
            if scope.kind != "location" or FALLBACK not in scope.settings:
                continue
            if urls is not None and (not _may_hold(scope, urls)
                                     or all(_inside(scope, url, nocase) for url, nocase in urls)):
                continue
            where = f" at {scope.span.file_line}" if scope.span else ""
            raise Unsupported("A2N879", f"httpd keeps the original URL for <Location> sections, so the "
                              f"FallbackResource of the <Location {scope.path}>{where} applies where the original "
                              "URL is in it and the rewritten file is missing (its subrequest rewritten again); "
                              "nginx would search locations again with the rewritten URI")

    def _past_location_headers(self, rule: RRule, negate: bool, target: str) -> bool:
        """Whether the answer of a server-context rewrite to a file path must carry the Header lines of
        <Location> sections its original URL may be in (httpd walks them with that URL: see
        rewrite_location_headers.carry_rewrite_headers). They are carried from the server's add_header list,
        which nginx's location of the result keeps only if it has none of its own: where a section with
        Header lines may govern the result in nginx (a <Location>, <Directory> or <Files>), the rule is not
        translated (A2N842)."""
        from .rewrite_location_headers import header_scopes
        around = self._urls_around(rule, negate, None)
        fixed = re.match(r"[^$?]*", target).group()
        made = [(fixed, "NC" in rule.flags)] if fixed.startswith("/") else None
        # a section that certainly holds every URL the rule sees and makes governs both alike: nginx's location
        # of the result has its lines as httpd's answer does
        # (a section with `Header unset` lines alone too: it takes the server's lines away where it applies)
        scopes = header_scopes(self.ctx, self.server, unsets=True)
        both = {id(scope) for scope in scopes if around is not None
                and made is not None and all(_inside(scope, url, nocase) for url, nocase in around + made)}
        origin = [scope for scope in scopes if id(scope) not in both and (around is None or _may_hold(scope, around))]
        if not origin:
            # the result may still fall under a <Location> with Header lines that none of the original URLs is
            # in: httpd's walk, with the original URL, never merges it; nginx's location of the result applies them
            into = next((scope for scope in scopes
                         if id(scope) not in both and (made is None or _may_hold(scope, made))), None)
            if into is None:
                return False
            where = f" at {into.span.file_line}" if into.span else ""
            raise Unsupported("A2N842", f"httpd keeps the original URL for <Location> sections, so the Header lines "
                              f"of the <Location {into.path}>{where}, which the result falls under, are not applied "
                              "to it; nginx's location of the result applies them (sets or unsets)")
        root = document_root(self.ctx, self.server).rstrip("/")
        for scope in header_scopes(self.ctx, self.server, ("location", "directory", "files")):
            if made is not None and not self._may_serve(scope, made, root):
                continue
            where = f"{scope.span.file_line}" if scope.span else scope.path
            raise Unsupported("A2N842", f"httpd sends the Header lines of the <Location> sections matching the "
                              f"original URL (the one at {origin[0].span.file_line}) with the "
                              f"result, and those of the result's own sections; in nginx the location of the "
                              f"result, which has Header lines of its own ({where}), keeps only its own"
                              if origin[0].span else "httpd sends the Header lines of the <Location> sections "
                              "matching the original URL with the result; nginx's location of the result keeps "
                              "only its own")
        return True

    def result_sections(self, rule: RRule) -> list:
        """The <Directory>/<Files> sections with Header lines whose region a server-context rule's result may
        fall under (its substitution's literal start, as a URL or as a file path under the document root;
        every such section where that start is not known)."""
        from .rewrite_location_headers import header_scopes
        root = document_root(self.ctx, self.server).rstrip("/")
        fixed = re.match(r"[^$%?\\]*", rule.substitution).group()
        if fixed.startswith(root + "/"):
            fixed = fixed[len(root):]
        made = [(fixed, "NC" in rule.flags)] if fixed.startswith("/") else None
        return [scope for scope in header_scopes(self.ctx, self.server, ("directory", "files"))
                if made is None or self._may_serve(scope, made, root)]

    def _result_settings(self, made: list[tuple[str, bool]] | None, root: str) -> list:
        """The <Location> and <Directory> sections of this server (and the main server) with settings of their
        own (directives, a ProxyPass, a FallbackResource) that may hold a per-directory result starting with one
        of the literal prefixes MADE (None: any) but do not govern the whole of the rule's own directory (a
        <LocationMatch> may not): httpd merges their settings for the result's internal redirect, nginx's
        `break` serves it with the rule's own location's."""
        directory = root + self.per_dir.rstrip("/")
        url = self.per_dir.rstrip("/") + "/"
        out = []
        for h in {id(h): h for h in (self.server, self.ctx.main)}.values():
            for scope in h.settings.get("directories", []) + h.scopes:
                if not (scope.statements or scope.proxy is not None or FALLBACK in scope.settings):
                    continue
                if scope.kind == "location" and not scope.regex:
                    own = url.lower().startswith(scope.path.lower()) if scope.nocase else url.startswith(scope.path)
                elif scope.kind == "directory" and not scope.regex and scope.fs_path is not None:
                    path = scope.fs_path.rstrip("/")
                    own = directory == path or directory.startswith(path + "/")
                elif scope.kind == "location":
                    own = False         # a <LocationMatch>: which of the rule's URLs it holds is not known
                else:
                    continue
                if not own and (made is None or self._may_serve(scope, made, root)):
                    out.append(scope)
        return out

    def _settings_left(self, made: list[tuple[str, bool]] | None, root: str) -> list:
        """The <Location> and <Directory> sections of this server (and the main server) with settings of their
        own that govern the rule's own directory but may not govern a per-directory result starting with one of
        the literal prefixes MADE (None: any): httpd's internal redirect to the result merges the new URL's
        sections only, so their settings (a Header line...) are not the result's; nginx's `break` serves it
        with the rule's own location's, theirs among them."""
        directory = root + self.per_dir.rstrip("/")
        url = self.per_dir.rstrip("/") + "/"
        out = []
        for h in {id(h): h for h in (self.server, self.ctx.main)}.values():
            for scope in h.settings.get("directories", []) + h.scopes:
                if not (scope.statements or scope.proxy is not None or FALLBACK in scope.settings) or scope.regex:
                    continue
                if scope.kind == "location":
                    own = url.lower().startswith(scope.path.lower()) if scope.nocase else url.startswith(scope.path)
                    holds = made is not None and all(_inside(scope, result, nocase) for result, nocase in made)
                elif scope.kind == "directory" and scope.fs_path is not None:
                    path = scope.fs_path.rstrip("/")
                    own = directory == path or directory.startswith(path + "/")
                    # an ancestor of the document root governs every result mapped under it
                    holds = path == "" or root == path or root.startswith(path + "/") or made is not None and \
                        all((root + result).startswith(path + "/") for result, _ in made)
                else:
                    continue
                if own and not holds:
                    out.append(scope)
        return out

    def _may_serve(self, scope, made: list[tuple[str, bool]], root: str) -> bool:
        """Whether nginx's location of a server-context result starting with one of the literal prefixes MADE
        may be the translation of SCOPE (a <Files> one, or a regex <Directory>: may)."""
        if scope.kind == "location":
            return _may_hold(scope, made)
        if scope.kind != "directory" or scope.regex or scope.fs_path is None:
            return True
        path = scope.fs_path.rstrip("/")
        if path != root and not path.startswith(root + "/"):
            # outside the document root: only a result that maps elsewhere (an Alias target) may be there
            return self.mapped_root is None
        prefix = path[len(root):]
        return any(url.startswith(prefix + "/") or (prefix + "/").startswith(url) or url == prefix
                   for url, _ in made)

    def _refuse_location_proxy(self, target: str) -> None:
        """[PT] hands the result to the translate hooks, but mod_proxy looks a ProxyPass written inside a
        <Location> up in the sections of the request's original URL (proxy_trans reads the per-directory
        configuration the early location walk merged): a result under such a section is not proxied, httpd maps
        it under the document root (and its <Directory> rules) instead, where nginx's location would proxy it."""
        static = re.match(r"[^$?]*", target).group()
        dynamic = static != target.split("?", 1)[0]
        holders = {id(h): h for h in (self.server, self.ctx.main)}.values()
        for scope in (s for h in holders for s in h.scopes):
            if scope.proxy is None or scope.regex or scope.proxy.kind != "proxy":
                continue
            if _segment_prefix(scope.path, static) or (dynamic and scope.path.startswith(static)) or \
                    (not static.startswith("/")):
                where = f"{scope.span.file_line}" if scope.span else scope.path
                raise Unsupported("A2N780", f"the result may fall under the <Location {scope.path}> that proxies "
                                  f"({where}): httpd's mod_proxy looks that ProxyPass up for the request's original "
                                  "URL only, so it serves the file under the document root where nginx would proxy")

    def _fed_urls(self, rule: RRule) -> list[tuple[str, bool]]:
        """The URLs a server-context RULE rewrites, as a diagnostic names them: those its pattern, or an earlier
        rule of the list feeding it, matches (each a regex, with whether it is one); every URL where a pattern
        is negated."""
        rules = self.state.rules
        at = next((i for i, r in enumerate(rules) if r is rule), len(rules))
        seen = rules[:at] + [rule]
        if any(r.pattern.startswith("!") for r in seen):
            return [("/", False)]
        return [(("(?i)" if "NC" in r.flags else "") + r.pattern, True) for r in seen]

    def _note_refused_location(self, rule: RRule, target: str) -> None:
        """[PT] hands the result to the translate hooks and httpd walks the <Location> sections of the new URL,
        as nginx searches the locations of the rewritten URI: a result under a <Location> the translation
        refuses whole (its RewriteRule is not translated, rewrite._in_location) is refused (403) in nginx for
        the rule's own URLs too (A2N866, naming them: the URLs the rule, or an earlier rule of the list feeding
        it, matches), where httpd may serve it."""
        fixed = re.match(r"[^$?]*", target).group()
        made = [(fixed, "NC" in rule.flags)] if fixed.startswith("/") else None
        holders = {id(h): h for h in (self.server, self.ctx.main)}.values()
        refused = next((scope for h in holders for scope in h.scopes if scope.kind == "location"
                        and scope.settings.get("rewrite_refused") and (made is None or _may_hold(scope, made))), None)
        if refused is None:
            return
        urls = self._fed_urls(rule)
        where = f" ({refused.span.file_line})" if refused.span else ""
        self.note_once(rule, "A2N866", f"RewriteRule {rule.pattern} {rule.substitution} [PT]: the result may fall "
                       f"under <Location {refused.path}>{where}, which the translation refuses (403) for its "
                       "RewriteRule; httpd walks that section for the result too, and may serve it, where nginx "
                       "refuses the requests the rule rewrites there", rule.span, directive="RewriteRule",
                       related=[refused.span] if refused.span else [], urls=urls)

    def _note_refused_directory(self, rule: RRule, target: str) -> None:
        """httpd maps a server-context rewrite's result to a file, [PT] or not, and runs the <Directory> sections
        and .htaccess files of its directory, as nginx searches the locations of the rewritten URI. Where the
        result may fall in a directory the translation refuses whole in place of per-directory rules it leaves
        out (rewrite._refuse_region, A2N838/A2N882), nginx refuses the rule's own URLs too (A2N889, naming them:
        the URLs the rule, or an earlier rule of the list feeding it, matches), where httpd may serve them."""
        fixed = re.match(r"[^$%?]*", target).group()
        refused = next(((url, span) for urls, span in self.server.settings.get("rewrite_refused_directories", [])
                        for url in urls if not fixed.startswith("/") or fixed.startswith(url)
                        or url.startswith(fixed) or fixed == url.rstrip("/")), None)
        if refused is None:
            return
        urls = self._fed_urls(rule)
        url, span = refused
        self.note_once(rule, "A2N889", f"RewriteRule {rule.pattern} {rule.substitution}: the result may fall under "
                       f"{url}, which the translation refuses (403) for per-directory rules it leaves out; httpd "
                       "runs those rules for the result and may serve it, where nginx refuses the requests the rule "
                       "rewrites there", rule.span, directive="RewriteRule", related=[span] if span else [],
                       urls=urls)

    def _urls_around(self, rule: RRule, negate: bool, target: str | None) -> list[tuple[str, bool]] | None:
        """Literal prefixes of the URLs a server-context rule may see (its pattern's, and those of earlier rules
        that can hand it their result) and of the URL it makes (TARGET; None for an internal one no section
        governs), each with whether it is matched case-blind; None where one is not known."""
        feeding = []
        rules = self.state.rules
        at = next((i for i, r in enumerate(rules) if r is rule), len(rules))
        for i, earlier in enumerate(rules[:at]):
            if {"L", "END", "R", "F", "G", "P"} & set(earlier.flags):
                continue
            # a result that no rule from the next one to this one can match reaches this rule as it is, and
            # this rule cannot match it: the earlier rule's URLs are never this rule's
            made = re.match(r"[^$%?\\]*", earlier.substitution).group()
            if earlier.substitution != "-" and all("NC" not in r.flags and _apart(r.pattern, made)
                                                   for r in rules[i + 1:at + 1]):
                continue
            feeding.append(earlier)
        prefixes = [None if negate else literal_prefix(rule.pattern)]
        prefixes += [None if r.pattern.startswith("!") else literal_prefix(r.pattern) for r in feeding]
        if target is not None:
            fixed = re.match(r"[^$]*", target).group()
            prefixes.append(fixed if fixed.startswith("/") else None)
        if any(p is None for p in prefixes):
            return None
        nocase = "NC" in rule.flags or any("NC" in r.flags for r in feeding)
        return [(p, nocase) for p in prefixes]

    def cookie(self, rule: RRule, data: str, cond_names: dict[int, str],
               rule_names: dict[int, str] | None) -> list[Stmt]:
        """[CO=NAME:VALUE:DOMAIN[:LIFETIME[:PATH[:SECURE[:HTTPONLY[:SAMESITE]]]]]]: the Set-Cookie header httpd
        builds, in a variable that a server-wide `add_header ... always` sends (empty: no header)."""
        sep = ":"
        if data.startswith(";"):
            data, sep = data[1:], ";"
        parts = [p for p in data.split(sep)]
        if len(parts) < 3 or not all(parts[:3]):
            raise Unsupported("A2N813", "[CO] needs at least NAME:VALUE:DOMAIN (httpd sets no cookie otherwise)")
        name, value, domain = parts[:3]
        lifetime, path, secure, httponly, samesite = (parts[3:] + [None] * 5)[:5]
        text = f"{name}={value}; path={path or '/'}; domain={domain}"
        # httpd joins the pieces with apr_pstrcat, which stops at the first absent one: reproduce that.
        if lifetime is not None:
            minutes = int(re.match(r"\s*[+-]?\d*", lifetime).group().strip() or 0) if \
                re.match(r"\s*[+-]?\d", lifetime) else 0
            if minutes:
                text += f"; Max-Age={minutes * 60}"
                self.ctx.diags.add("A2N829", f"[CO={rule.flags['CO']}]: the cookie's lifetime is sent as Max-Age="
                                   f"{minutes * 60}; httpd sends an expires= date", rule.span,
                                   directive="RewriteRule")
            else:
                return self._cookie_statements(rule, text, cond_names, rule_names)
        if secure is not None:
            if secure.lower() not in ("true", "1", "secure"):
                return self._cookie_statements(rule, text, cond_names, rule_names)
            text += "; secure"
        if httponly is not None:
            if httponly.lower() not in ("true", "1", "httponly"):
                return self._cookie_statements(rule, text, cond_names, rule_names)
            text += "; HttpOnly"
        if samesite and samesite.lower() not in ("0", "false"):
            text += f"; SameSite={samesite}"
        return self._cookie_statements(rule, text, cond_names, rule_names)

    def _cookie_statements(self, rule: RRule, text: str, cond_names: dict[int, str],
                           rule_names: dict[int, str] | None) -> list[Stmt]:
        self.ctx.options["rewrite_cookies"] = number = self.ctx.options.get("rewrite_cookies", 0) + 1
        var = f"$a2n_cookie{number}"
        inits = sum(1 for st in self.server.own_statements if st.name == "set" and st.args[0].startswith("$a2n_cookie"))
        self.server.own_statements.insert(inits, Stmt("set", [var, ""], rule.span))
        self.server.own_statements.append(Stmt("add_header", ["Set-Cookie", var, "always"], rule.span,
                                               comment="RewriteRule [CO]: empty unless the rule matched"))
        return [Stmt("set", [var, self.expand(text, rule, cond_names, rule_names)], rule.span)]

    def _proxy_host(self, host: str, rule: RRule) -> Stmt:
        """ProxyPreserveHost On (here or in the main server): httpd sends the client's Host, as for ProxyPass."""
        from ..model import MapBlock
        preserve = self.server.settings.get("preserve_host") or self.ctx.main.settings.get("preserve_host")
        if not preserve or preserve[0] != "on":
            return Stmt("proxy_set_header", ["Host", host], rule.span)
        if not self.ctx.model.has_map("$a2n_host"):
            self.ctx.model.maps.append(MapBlock("$http_host", "$a2n_host", [('""', "$host")], "$http_host"))
        return Stmt("proxy_set_header", ["Host", "$a2n_host"], preserve[1])

    def proxy(self, rule: RRule, pattern: str, negate: bool, cond_names: dict[int, str]) -> list[Stmt]:
        """[P] to a fixed backend: rewrite into an internal location that proxies, prefix swapped for the path."""
        from .proxy import forwarded_headers
        lead = r"(?:/|%\{REQUEST_URI\}" + (r"|\$1" if self.per_dir is None and _capture_starts_path(rule.pattern)
                                           else "") + ")"
        m = re.fullmatch(r"(https?|wss?)://([A-Za-z0-9.\-]+(?::\d+)?)(" + lead + r"[^?]*)?(\?.*)?", rule.substitution)
        if not m or negate:
            raise Unsupported("A2N812", "[P] to a backend built from the request (or with a negated pattern) is "
                              "not translated: a host taken from the request makes an open proxy")
        self._refuse_past_access("A2N880", "[P] would proxy through an internal location that the access rules of "
                                 "{where} do not reach, where httpd applies them to the original URL",
                                 "this server's sections", self._urls_around(rule, negate, None))
        scheme, host, path, query = m.group(1), m.group(2), m.group(3) or "/", m.group(4) or ""
        websocket = scheme.startswith("ws")
        scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
        number = self.ctx.options["rewrite_proxies"] = self.ctx.options.get("rewrite_proxies", 0) + 1
        prefix = f"/a2n_proxy_{number}"
        target = self.expand(prefix + path + query, rule, cond_names)
        if query and "QSA" not in rule.flags and not target.endswith("?"):
            target += "?"
        loc = Location("^~", prefix + "/", [
            Stmt("internal", [], rule.span, comment=PER_DIR_PROXY if self.per_dir is not None else None),
            Stmt("proxy_pass", [f"{scheme}://{host}/"], rule.span,
                 comment="RewriteRule [P]: httpd's default worker, no connection reuse"),
            self._proxy_host(host, rule),
            *forwarded_headers(self.ctx.model, self.server, self.ctx.main, None, rule.span, self.ctx.diags, before=[]),
            Stmt("proxy_redirect", ["off"], rule.span),
        ] + (self._websocket_headers(rule.span) if websocket else []), rule.span)
        self.server.locations.append(loc)
        if self.per_dir is not None:
            self.per_dir_proxies.append(loc)
        if self.per_dir is None:
            # with the literal prefixes of the original URLs that can reach the rule (None: any)
            self.server.settings.setdefault("rewrite_proxy_locations", []).append(
                (loc, self._urls_around(rule, negate, None)))
        self.ctx.diags.add("A2N825", f"RewriteRule [P] to {scheme}://{host}: proxied through an internal location, "
                           "without connection reuse as httpd's default worker", rule.span, directive="RewriteRule")
        return [Stmt("rewrite", [pattern, target, "last"], rule.span)]


# the comment of a per-directory [P]'s internal location: mod_rewrite proxies it in the fixups, after the access
# checks of the directory, so no <Proxy> section applies to it (the proxy walk ran for the original URL)
PER_DIR_PROXY = "a per-directory [P]: no <Proxy> section applies"
# the comment of the alias of a server-context rule's internal location onto the document root
# (`document_root_file`): the layout gives it the <Directory> and <Files> sections of the files it maps to
DOCROOT_MAP = "the document root, as httpd maps a local substitution"


# top-level directories of a Linux system: a substitution under one is a file path to httpd (prefix_stat)
STANDARD_DIRECTORIES = {"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt",
                        "proc", "root", "run", "sbin", "snap", "srv", "sys", "tmp", "usr", "var"}


def _first_segment_expands(subst: str) -> bool:
    """The substitution's first path segment holds a back-reference or variable (httpd 2.4.60+ does not read such
    a result as a file path unless [UnsafePrefixStat])."""
    parts = pieces(subst)
    if not parts or parts[0][0] != "text":
        return bool(parts)
    text = parts[0][1]
    return text.startswith("/") and not re.search(r"[/?]", text[1:]) and len(parts) > 1


# what ap_escape_uri leaves as it is (gen_test_char's T_OS_ESCAPE_PATH): letters, digits and these
_PATH_SAFE = set("$-_.+!*'(),:;@&=/~")


def httpd_escape(text: str) -> str:
    """TEXT as httpd escapes a redirect target without [NE] (ap_escape_uri), byte by byte, lower-case hex."""
    data = text.encode("utf-8", "surrogateescape")
    return "".join(chr(b) if (b < 0x80 and chr(b).isalnum()) or chr(b) in _PATH_SAFE else f"%{b:02x}" for b in data)


def _server_relative(subst: str, target: str) -> str:
    """Server context: httpd puts `/` before a result that is neither a path nor a URL."""
    if re.match(r"[^/$%\\]", subst) and not re.match(r"^[a-z][a-z0-9+.-]*://", target, re.I):
        return "/" + target
    return target


def _if_chosen(ctx: Context, server: Server, rule: RRule) -> str:
    """The variables of the <If> chains' Header lines a [QSD] redirect by RULE reads before it empties $args
    (_dropped_query), joined; empty where there are none."""
    if "QSD" not in rule.flags or "?" in rule.substitution or \
            "R" not in rule.flags and not re.match(r"^https?://", rule.substitution):
        return ""
    from .headers import chosen_variables
    return "".join(chosen_variables(ctx, server))


def _dropped_query(ctx: Context, server: Server, rule: RRule, target: str) -> list[Stmt]:
    """A redirect by a [QSD] rule whose substitution has no query of its own: httpd drops the request's query
    before it answers (splitout_queryargs: r->args = NULL), so a `Header expr=` reading QUERY_STRING sees none
    on the redirect. nginx's redirect keeps $args: it is emptied first (where the target does not read it).
    An <If> chain's Header lines were chosen before the rules ran (ap_if_walk follows the first location walk,
    before translate_name; for per-directory rules, the walk after map_to_storage), with the request's query:
    the maps choosing their values (evaluated once a request, then kept) are read before $args is emptied."""
    if "QSD" not in rule.flags or "?" in rule.substitution or re.search(r"\$(?:args|query_string|arg_)", target):
        return []
    chosen = _if_chosen(ctx, server, rule)
    pin = [Stmt("set", ["$a2n_if_chosen", chosen], rule.span, comment="the <If> Header lines httpd chose "
                "before the rules, with the request's query")] if chosen else []
    return pin + [Stmt("set", ["$args", ""], rule.span,
                       comment="[QSD]: httpd answers the redirect with no query string")]


def _result_file(target: str, root: str) -> str | None:
    """The file a per-directory rewrite's TARGET (a URL path) names under the document root ROOT, where its path
    is literal (no variable, no %-escape), for a rule refused in its place (Unsupported.result): no section
    with access rules nor any Alias, Redirect or ProxyPass may take the result of an A2N877 rule, so httpd's
    internal redirect maps it through ROOT and its handler serves the file there (a success) where it exists."""
    path = target.split("?", 1)[0]
    return root + path if re.fullmatch(r"/[A-Za-z0-9._~/-]*", path) else None


def _query_flags(target: str, qsa: bool, qsd: bool) -> str:
    """A substitution with `?` replaces the query (a trailing `?` stops nginx appending it) unless [QSA]; [QSD]
    drops the request's."""
    if "?" in target:
        if (qsd or not qsa) and not target.endswith("?"):
            return target + "?"      # httpd replaces the query (after [QSD], with its own); nginx would append the old one
        return target
    return target + "?" if qsd else target


def _redirect_source(kind: str, text: str) -> str | None:
    """Where a piece of a redirect's substitution comes from, for the escaping httpd gives it: "rule" ($N),
    "uri" (%{REQUEST_URI}), "cond" (%N), "raw" (another value that may need escaping), None (text, or a value
    with nothing to escape)."""
    if kind == "rule":
        return "rule"
    if kind == "cond":
        return "cond"
    if kind == "var":
        name = text.upper()
        if name == "REQUEST_URI":
            return "uri"
        return None if name in unsafe_rules.SAFE_VARIABLES else "raw"
    return "raw" if kind == "map" else None


def _starts_path(text: str, path: str) -> bool:
    """`text` starts with the filesystem path `path`, followed by `/`, `?` or nothing."""
    return text.startswith(path) and text[len(path):len(path) + 1] in ("/", "?", "")


def _segment_prefix(prefix: str, path: str) -> bool:
    """A URL prefix covers `path` (as Alias and ProxyPass compare: whole segments, or a trailing slash)."""
    prefix = prefix or "/"
    return path == prefix or path.startswith(prefix if prefix.endswith("/") else prefix + "/")


def uses_redirect_status(rules: list[RRule]) -> bool:
    return any("%{ENV:REDIRECT_STATUS}" in text.upper() for r in rules
               for text in [r.substitution] + [c.test for c in r.conds] + list(r.flags.values()))


def _apart(pattern: str, path: str) -> bool:
    """Whether the rule pattern PATTERN cannot match any URI starting with the literal PATH: it is anchored
    with a literal text that neither starts PATH nor is started by it."""
    if pattern.startswith("!") or not pattern.startswith("^"):
        return False
    m = re.match(r"[^\\.^$*+?()\[\]{}|]*", pattern[1:])
    literal = m.group(0) if m else ""
    rest = pattern[1 + len(literal):]
    if rest[:1] in ("*", "?", "{"):
        literal = literal[:-1]      # the quantifier makes its last character optional
    if not literal:
        return False
    return not (literal.startswith(path) or path.startswith(literal))


def _rule_may_match(rule: RRule, path: str, dynamic: bool) -> bool:
    """Whether RULE's pattern may match the per-directory PATH (a literal start of it where DYNAMIC). A
    pattern Python cannot read, or a negated one, may."""
    if _apart(rule.pattern, path):
        return False
    if dynamic or rule.pattern.startswith("!"):
        return True
    try:
        return re.search(rule.pattern, path, re.IGNORECASE if "NC" in rule.flags else 0) is not None
    except re.error:
        return True


def _internal_rewrite(stmt: Stmt) -> bool:
    """A `rewrite` that changes the URI and searches locations again (httpd: an internal redirect)."""
    return stmt.name == "rewrite" and (len(stmt.args) < 3 or stmt.args[2] in ("last",)) and \
        not stmt.args[1].startswith(("http://", "https://", "/a2n_proxy_", "$scheme"))


def _deciding_groups(rule: RRule) -> list[list[Cond]]:
    """The rule's conditions as [OR] groups.

    httpd (apply_rewrite_rule) goes through the conditions in order: a false [OR] condition just moves on
    (another may still be true), a true one skips the rest of its [OR] chain together with the plain
    condition that closes it, and only a false plain condition fails the rule. An [OR] chain left open at
    the end of the list (no plain condition after it) therefore never fails the rule: httpd applies it
    whatever the chain tests. The chain is dropped here, or kept open (always true) where the rule reads %N,
    which such a condition sets where it matches."""
    groups: list[list[Cond]] = []
    for cond in rule.conds:
        if groups and "OR" in groups[-1][-1].flags:
            groups[-1].append(cond)
        else:
            groups.append([cond])
    if not groups or "OR" not in groups[-1][-1].flags:
        return groups
    texts = [rule.substitution] + [c.test for c in rule.conds] + list(rule.flags.values())
    return groups if any(re.search(r"(?<!\\)%\d", str(t)) for t in texts) else groups[:-1]


def _uses_rule_capture(text: str) -> bool:
    """$N outside the rule's own rewrite, or a map lookup (whose regex resets $1..$9)."""
    return re.search(r"(?<!\\)\$\d", text) is not None or "${" in text


def _inner_anchors(pattern: str, replacement: str) -> str:
    """`pattern` with every `^` that anchors (not escaped, not in a character class) replaced."""
    return "".join(replacement if pattern[i:j] == "^" else pattern[i:j] for i, j in regex_tokens(pattern))


def _pcre_literal(text: str) -> str:
    """`text` matched literally by PCRE (`\\Q...\\E` cannot hold `\\E`; escape byte by byte instead)."""
    return "".join(c if c.isalnum() or c == "_" else "\\" + c if ord(c) < 128 else c for c in text)


def _map_key(key: str) -> str:
    """A literal nginx map key: `\\` keeps a leading `~` or a parameter name from being read as one."""
    return "\\" + key if key.startswith("~") or key in ("default", "hostnames", "include", "volatile") else key


def _split_default(text: str) -> tuple[str, str, str]:
    """`key|default` at the top level of a map lookup (a `|` inside a nested %{...} or ${...} is not it)."""
    depth = 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "|" and depth == 0:
            return text[:i], "|", text[i + 1:]
    return text, "", ""


def cond_operator(body: str) -> bool:
    """Whether httpd may read a CondPattern (without its `!`) as an operator (a file test, a string or integer
    comparison) rather than a regex: mod_rewrite's cmd_rewritecond looks for one only where the pattern has at
    least two characters, so a lone `=`, `<`, `>` or `-` is a regex matching that character (observed:
    `RewriteCond %{HTTP_REFERER} !=` holds for a request without Referer)."""
    return len(body) >= 2


_HEADER_NAME = re.compile(r"[A-Za-z0-9_-]+")


def _quote_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if not value or \
        re.search(r'[\s;{}"\'$]|^#', value) else value


def _flag_values(rule: RRule) -> list[str]:
    return flag_values(rule.flags, "E") + flag_values(rule.flags, "CO") + \
        ([rule.substitution] if "${" in rule.substitution else [])


def _ensure_map(ctx: Context, block: MapBlock) -> None:
    if not ctx.model.has_map(block.variable):
        ctx.model.maps.append(block)


def _quote_regex(pattern: str) -> str:
    return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"' if re.search(r'[\s;{}"\']|^#', pattern) \
        else pattern


def _name_groups(pattern: str, prefix: str) -> tuple[str, dict[int, str]]:
    """Turn the capturing groups of a condition regex into named ones, so a later rewrite (which resets
    $1..$9) keeps them for %N."""
    names: dict[int, str] = {}
    out = []
    i, n, count = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i:j + 1])
            i = j + 1
            continue
        if c == "(" and not pattern.startswith("(?", i):
            count += 1
            name = f"{prefix}{count}"
            names[count] = name
            out.append(f"(?<{name}>")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), names


def literal_prefix(regex: str) -> str | None:
    """The literal text every match of an anchored REGEX starts with ("/shop/" for ^/shop/(.*)), None when
    the regex is not anchored at the start or has alternatives."""
    if not regex.startswith("^") or "|" in regex:
        return None
    return access_proxy.literal_prefix(regex, True)[0]


def _route_may_take(route, urls: list[tuple[str, bool]] | None) -> bool:
    """Whether a Redirect, Alias or ProxyPass entry (its regex form too) may map a URL starting with one of
    URLS (None: any URL). A `ProxyPass ... !` maps nothing by itself."""
    if route.kind == "proxy-exclude":
        return False
    if urls is None:
        return True
    nocase_route = bool(route.params.get("nocase"))
    fixed = literal_prefix(route.path) if route.regex else route.path
    if not fixed:
        return True
    for url, nocase in urls:
        a, b = (fixed.lower(), url.lower()) if nocase or nocase_route else (fixed, url)
        if a.startswith(b) or b.startswith(a):
            return True
    return False


def _may_hold(scope, urls: list[tuple[str, bool]]) -> bool:
    """Whether a section with access rules may govern a URL starting with one of URLS (a <Location> prefix
    either starts one of them or starts with one; any other section, a regex one, may)."""
    if scope.kind != "location":
        return True
    if scope.regex:
        # an anchored expression: the literal text every URL it matches starts with, as a prefix
        fixed = literal_prefix(scope.path)
        if not fixed:
            return True
        return any((fixed.lower().startswith(url.lower()) or url.lower().startswith(fixed.lower()))
                   if nocase or scope.nocase else (fixed.startswith(url) or url.startswith(fixed))
                   for url, nocase in urls)
    for url, nocase in urls:
        path = scope.path
        if nocase or scope.nocase:
            url, path = url.lower(), path.lower()
        if url.startswith(path) or path.startswith(url):
            return True
    return False


def _inside(scope, url: str, nocase: bool) -> bool:
    """Whether a plain <Location> certainly governs every URL starting with the literal URL (whole segments
    unless its path ends with a slash)."""
    if scope.kind != "location" or scope.regex:
        return False
    path = scope.path
    if nocase and not scope.nocase:
        return False        # the URL's case is not known
    if scope.nocase:
        url, path = url.lower(), path.lower()
    return path == "/" or url.startswith(path) if path.endswith("/") else url.startswith(path + "/")


def _holds(stmts: list[Stmt], variable: str) -> bool:
    """Whether a `set` of VARIABLE stands among STMTS (or in their blocks)."""
    return any(st.name == "set" and st.args[:1] == [variable] or st.block and _holds(st.block, variable)
               for st in stmts)
