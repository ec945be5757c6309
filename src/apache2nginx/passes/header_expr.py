"""ap_expr conditions of mod_headers (`Header ... expr=...`) as nginx maps.

httpd evaluates `expr=` when the response leaves (mod_headers is an output
filter), so `%{CONTENT_TYPE}` is the response's type. nginx has no
expressions, but `map` over response and request variables is evaluated
just as late, when `add_header` reads it, and `add_header` sends nothing for
an empty value. So a condition becomes maps that yield `1` or empty, combined
by further maps for `&&`, `||` and `!`, and the header's value becomes a map
that is the value when the condition holds and empty otherwise.

The subset translated: `%{VAR} =~ m#re#flags` / `!~`, `==` / `!=` against a
quoted string or a number, `%{REQUEST_STATUS}` against a number with the integer comparisons (`-eq`,
`-ne`, `-lt`, `-le`, `-gt`, `-ge`), `-z` / `-n`, `true` / `false`, parentheses, `!`, `&&`, `||`,
over CONTENT_TYPE, HTTPS, REQUEST_METHOD, REQUEST_SCHEME, REMOTE_ADDR,
HTTP_HOST, SERVER_PROTOCOL, REQUEST_STATUS ($status), `req:`/`http:` request headers (also as
`req('Name')`) and `resp:` response headers. `<If>` sections use the same
compiler, limited to what is known before the response.
Anything else raises `Untranslatable`, and the header is reported.

Reading a request header through `req:`/`http:` makes httpd add its name to
the response's Vary (ap_expr's add_vary), whether the condition holds or not,
but only when evaluation reaches it: `&&` and `||` stop early (observed with
httpd 2.4: `%{HTTP:X-D} == 'b' && %{HTTP:X-E} == 'c'` varies on X-E only when
X-D is b). `vary_values()` gives those names, each guarded by a map that is
the name when evaluation reaches the read, for `add_header Vary`.
"""
from __future__ import annotations

import re

from ..model import MapBlock
from .core import CONTENT_TYPE
from .pcre import empty_match

# ap_expr variable -> the nginx variable holding the same text.
# REQUEST_URI is r->uri, the decoded path without the query, and after an internal redirect (a front
# controller's rewrite, a directory index) the new one (observed with httpd 2.4: /log%69n matches m#/login$#,
# /login rewritten to /index.php does not); nginx's $uri is the same, and $args the raw query as QUERY_STRING.
# CONTENT_TYPE: the type httpd gives the file where nginx sends none (core.content_type_maps).
_VARIABLES = {"content_type": CONTENT_TYPE, "https": "$a2n_https", "request_method": "$request_method",
              "request_uri": "$uri", "query_string": "$args",
              "request_scheme": "$scheme", "remote_addr": "$remote_addr", "http_host": "$http_host",
              "server_protocol": "$server_protocol", "ssl_protocol": "$ssl_protocol", "ssl_cipher": "$ssl_cipher",
              # r->status as the response leaves: an ErrorDocument's redirect keeps the error's (internal_internal_
              # redirect copies it), as nginx's error_page keeps $status
              "request_status": "$status"}
# SSL_CLIENT_S_DN_x / SSL_CLIENT_I_DN_x -> the attribute's name in nginx's RFC 2253 DN strings
_DN_PARTS = {"c": "C", "st": "ST", "l": "L", "o": "O", "ou": "OU", "cn": "CN", "uid": "UID", "email": "emailAddress"}
_DN_SOURCES = {"ssl_client_s_dn_": "$ssl_client_s_dn", "ssl_client_i_dn_": "$ssl_client_i_dn"}
# What only exists once the response does: an <If> (evaluated before the handler) cannot test it.
RESPONSE_VARIABLES = ("$sent_http_", "$status", CONTENT_TYPE)

_TOKEN = re.compile(r"""\s*(?:
    (?P<var>%\{[^}]+\}) |
    (?P<func>(?:req|http|resp)\(\s*'[^']*'\s*\)) |
    (?P<regex>m(?P<d>[^\w\s])(?P<body>(?:\\.|(?!(?P=d)).)*)(?P=d)(?P<flags>[a-z]*)
        | /(?P<sbody>(?:\\.|[^/])*)/(?P<sflags>[a-z]*)) |
    (?P<str>'[^']*'|"[^"]*") |
    (?P<num>\d+)(?![\w.]) |
    (?P<op>=~|!~|==|!=|=|&&|\|\||-(?:eq|ne|lt|le|gt|ge)\b|-z\b|-n\b|-ipmatch\b|-R\b|!|\(|\)|\{|\}|,) |
    (?P<word>(?:true|false|and|or|not|in|eq|ne)\b)
    )""", re.X)


MAX_NESTING = 50     # parentheses and negations one inside another that an expression may hold


class Untranslatable(ValueError):
    """The expression uses something this translation does not express."""


def _tokens(text: str) -> list[tuple[str, str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise Untranslatable(f"cannot read {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group("var"):
            out.append(("var", m.group("var")[2:-1], ""))
        elif m.group("func"):
            func, _, arg = m.group("func").partition("(")
            out.append(("var", func + ":" + arg.strip(" )").strip("'"), ""))
        elif m.group("regex"):
            body = m.group("body") if m.group("body") is not None else m.group("sbody")
            flags = m.group("flags") if m.group("body") is not None else m.group("sflags")
            out.append(("regex", body, flags or ""))
        elif m.group("str"):
            out.append(("str", m.group("str")[1:-1], ""))
        elif m.group("num"):
            out.append(("str", m.group("num"), ""))     # a digit string is a word, compared as a string by ==/!=
        elif m.group("op"):
            out.append(("op", m.group("op"), ""))
        else:
            out.append(("word", m.group("word"), ""))
    return out


def _matches_empty(pattern: str, caseless: bool) -> bool:
    """Whether httpd's PCRE finds a match for the regular expression in the empty string (pcre.empty_match:
    Python's `re` reads `\\h` or `{,3}` otherwise). Where that cannot be told the comparison is refused: a
    guess would add or leave out the map's `""` key, and with it decide every request without the header."""
    empty = empty_match(pattern, caseless)
    if empty is None:
        raise Untranslatable(f"the regular expression {pattern!r}: whether it matches an empty value (a missing "
                             "header) cannot be told")
    return empty


def expression_reads(text: str) -> set[str]:
    """The names of the %{VAR}s (and req:/http:/resp: reads) TEXT holds, lower-cased; Untranslatable where it
    cannot be read."""
    return {value.lower() for kind, value, _ in _tokens(text) if kind == "var"}


def _vary_name(name: str) -> str | None:
    """The request header whose read httpd adds to Vary: `req:`/`http:`, but never Host (observed with httpd
    2.4: neither %{HTTP_HOST} nor %{HTTP:Host} adds it)."""
    prefix, _, header = name.partition(":")
    return header if header and prefix.lower() in ("req", "http") and header.lower() != "host" else None


def _variable(name: str) -> str:
    lower = name.lower()
    if lower in _VARIABLES:
        return _VARIABLES[lower]
    prefix, _, header = lower.partition(":")
    if header and re.fullmatch(r"[a-z0-9-]+", header):
        if prefix in ("req", "http"):
            return "$http_" + header.replace("-", "_")
        if prefix == "resp":
            return "$sent_http_" + header.replace("-", "_")
    raise Untranslatable(f"%{{{name}}} has no nginx variable here")


class HeaderCondition:
    """Compiles one expression into maps on the model; `compile` returns the variable that is 1 or empty."""

    def __init__(self, model, request_only: bool = False, prefix: str = "a2n_hdr_", ssl_compat: bool = False,
                 exact_case: bool = True, uri_source=None, port_source=None, method_source=None):
        self.model = model
        # gives the nginx variable holding the method httpd's <If> merge reads (headers._merged_method)
        self.method_source = method_source
        # gives the nginx variable holding httpd's SERVER_PORT (vhost_alias.server_port_variable), if known here
        self.port_source = port_source
        # gives the nginx variable holding httpd's r->uri where it is not $uri (access_cond.kept_request_uri)
        self.uri_source = uri_source
        self._depth = 0      # parentheses and negations open where the parser stands
        self.reads_uri = False
        # nginx compares a map's plain strings ignoring case; ap_expr's == does not, so literals become
        # case-sensitive regexes (exact_case=False only where the compared value has no case)
        self.exact_case = exact_case
        self.request_only = request_only
        self.prefix = prefix
        # SSLRequire's dialect: `eq`/`ne` compare strings (in `Require expr` they compare integers)
        self.ssl_compat = ssl_compat
        # request headers read, each with the conditions (variable, must hold) under which evaluation reaches it
        self.vary: list[tuple[str, tuple[tuple[str, bool], ...]]] = []
        # whether a condition read %{REQUEST_STATUS}: a refusal the translation writes has another status
        self.reads_status = False
        self._guard: tuple[tuple[str, bool], ...] = ()

    def _map(self, source: str, entries: list[tuple[str, str]], default: str = '""') -> str:
        variable = self.model.shared_map(self.prefix, source, entries, default)
        if source == "$uri" and not self.request_only and variable not in self.model.request_uri_maps:
            self.model.request_uri_maps.append(variable)
        return variable

    def compile(self, text: str, guard: tuple[tuple[str, bool], ...] = ()) -> str:
        """GUARD: the conditions (variable, must hold) under which httpd evaluates TEXT at all (an <ElseIf>
        only where the expressions before it failed), for the request headers it adds to Vary."""
        self.tokens, self.pos, self._guard = _tokens(text), 0, tuple(guard)
        if not self.tokens:
            raise Untranslatable("empty expression")
        result = self._or()
        if self.pos != len(self.tokens):
            raise Untranslatable(f"unexpected {self.tokens[self.pos][1]!r}")
        return result

    def negate(self, condition: str) -> str:
        """1 where CONDITION (1 or empty) is empty."""
        return self._map(condition, [('""', "1")])

    def all_of(self, conditions: list[str]) -> str:
        """1 where every one of CONDITIONS (each 1 or empty) is 1."""
        if len(conditions) == 1:
            return conditions[0]
        return self._map("".join(conditions), [("1" * len(conditions), "1")])

    def any_of(self, conditions: list[str]) -> str:
        """1 where one of CONDITIONS (each 1 or empty) is 1."""
        if len(conditions) == 1:
            return conditions[0]
        return self._map("".join(conditions), [("~1", "1")])

    def digit(self, condition: str) -> str:
        """1 or 0: a condition as one character, so that several read in a row keep their places."""
        return self._map(condition, [("1", "1")], "0")

    def value_map(self, condition: str, value: str) -> str:
        """A variable that is VALUE when the condition holds, empty otherwise."""
        return self._map(condition, [("1", value or '""')])

    def value_or(self, condition: str, value: str, otherwise: str) -> str:
        """A variable that is VALUE when the condition holds, OTHERWISE else."""
        from ..emit.render import quote
        return self._map(condition, [("1", value or '""')], quote(otherwise) if otherwise else '""')

    def value_when_set(self, variable: str, value: str, negate: bool) -> str:
        """A variable that is VALUE when VARIABLE is non-empty (empty, with NEGATE), empty otherwise."""
        if negate:
            return self._map(variable, [('""', value or '""')])
        # a map's default is written as given (entries are quoted when rendered)
        from ..emit.render import quote
        return self._map(variable, [('""', '""')], quote(value) if value else '""')

    def _peek(self, kind: str, value: str | None = None) -> bool:
        if self.pos >= len(self.tokens):
            return False
        k, v, _ = self.tokens[self.pos]
        return k == kind and (value is None or v == value)

    def _take(self) -> tuple[str, str, str]:
        if self.pos >= len(self.tokens):
            raise Untranslatable("the expression ends too early")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def _or(self) -> str:
        return self._chain(self._and, ("||", "or"), False, self.any_of)

    def _and(self) -> str:
        return self._chain(self._unary, ("&&", "and"), True,
                           lambda parts: self._map("".join(parts), [("1" * len(parts), "1")]))

    def _chain(self, operand, words: tuple[str, str], go_on: bool, combine) -> str:
        """Operands joined by `&&` (GO_ON True: the next is evaluated while they hold) or `||`."""
        outer = self._guard
        parts = [operand()]
        while self._peek("op", words[0]) or self._peek("word", words[1]):
            self._take()
            self._guard = self._guard + ((parts[-1], go_on),)
            parts.append(operand())
        self._guard = outer
        return parts[0] if len(parts) == 1 else combine(parts)

    def _read(self, name: str) -> str:
        """The nginx variable of %{NAME}, noting a request header httpd adds to Vary."""
        header = _vary_name(name)
        if header is not None:
            self.vary.append((header, self._guard))
        if name.lower() == "server_port" and self.port_source is not None:
            return self.port_source()
        variable = _variable(name)
        if variable == "$request_method" and self.method_source is not None:
            return self.method_source()
        if variable == "$uri":
            self.reads_uri = True
            return self.uri_source() if self.uri_source is not None else variable
        return variable

    def vary_values(self) -> list[str]:
        """The values of `add_header Vary` that name what httpd varies on: a header's name, or a map that is
        the name when evaluation reached its read."""
        guards: dict[str, list] = {}
        for header, guard in self.vary:
            guards.setdefault(header.lower(), [header]).append(guard)
        values = []
        for header, *found in guards.values():
            if any(not g for g in found):
                values.append(header)
                continue
            reached = []
            for guard in found:
                parts = [v if must else self._map(v, [('""', "1")]) for v, must in guard]
                reached.append(parts[0] if len(parts) == 1 else
                               self._map("".join(parts), [("1" * len(parts), "1")]))
            source = reached[0] if len(reached) == 1 else self._map("".join(reached), [("~1", "1")])
            values.append(self._map(source, [("1", header)]))
        return values

    def _unary(self) -> str:
        """A negation, a parenthesised expression or an atom.

        httpd's bison parser takes hundreds of nested parentheses or negations (200 pass `apache2 -t`);
        this parser recurses per level, so past MAX_NESTING the expression is refused, located by the caller,
        instead of overflowing Python's recursion limit and losing the whole conversion."""
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                raise Untranslatable(f"the expression nests more than {MAX_NESTING} deep")
            return self._unary_inner()
        finally:
            self._depth -= 1

    def _unary_inner(self) -> str:
        if self._peek("op", "!") or self._peek("word", "not"):
            self._take()
            return self._map(self._unary(), [('""', "1")])
        if self._peek("op", "("):
            self._take()
            inner = self._or()
            if not self._peek("op", ")"):
                raise Untranslatable("unbalanced parentheses")
            self._take()
            return inner
        return self._atom()

    def _atom(self) -> str:
        kind, value, _ = self._take()
        if kind == "word" and value in ("true", "false"):
            return self._map("1" if value == "true" else '""', [("1", "1")])
        if kind == "op" and value == "-R":
            # -R 'net': the client's address is in the network (%{REMOTE_ADDR} -ipmatch 'net')
            k, operand, _ = self._take()
            if k != "str":
                raise Untranslatable("-R needs a quoted network")
            return self._ip_match(operand)
        if kind == "op" and value in ("-z", "-n"):
            k, name, _ = self._take()
            if k != "var":
                raise Untranslatable(f"{value} needs a %{{VAR}}")
            return self._map(self._read(name), [('""', "1")] if value == "-z" else [('""', '""')],
                             '""' if value == "-z" else "1")
        if kind != "var":
            raise Untranslatable(f"unexpected {value!r}")
        dn = self._dn_part(value)
        if value.lower() == "ssl_client_verify":
            return self._verify_compare()
        source = dn[0] if dn else self._read(value)
        if self.request_only and source.startswith(RESPONSE_VARIABLES):
            raise Untranslatable(f"%{{{value}}} is not known before the response")
        self.reads_status = self.reads_status or source == "$status"
        if source == "$a2n_https" and not self.model.has_map(source):
            # ap_expr's %{HTTPS} is "on" or "off"; nginx's $https is "on" or empty
            self.model.maps.append(MapBlock("$https", source, [('""', "off")], "on"))
        _, op, _ = self._take()
        if op == "-ipmatch":
            k, operand, _ = self._take()
            if source != "$remote_addr" or k != "str":
                raise Untranslatable("-ipmatch on anything but %{REMOTE_ADDR} and a quoted network")
            return self._ip_match(operand)
        if op == "=":
            op = "=="    # ap_expr's other spelling of string equality (observed with httpd 2.4)
        if op in ("eq", "ne"):
            if not self.ssl_compat:
                raise Untranslatable(f"{op!r} compares integers")
            op = "==" if op == "eq" else "!="
        if op == "in":
            values = self._word_list()
            if dn:
                return self._dn_compare(dn, values, True)
            return self._map(source, self._literal_keys(values, "1"))
        k, operand, flags = self._take()
        if op in _INTEGER_OPS:
            return self._integer_compare(source, op, k, operand)
        if dn:
            if op not in ("==", "!=") or k != "str":
                raise Untranslatable(f"%{{{value}}} {op} {operand!r}")
            return self._dn_compare(dn, [operand], op == "==")
        if op in ("=~", "!~") and k == "regex":
            if set(flags) - {"i"}:
                raise Untranslatable(f"regex flags {flags!r}")
            key = ("~*" if "i" in flags else "~") + operand
            entries = [(key, "1")] if op == "=~" else [(key, '""')]
            if _matches_empty(operand, "i" in flags):
                # nginx's map tries no regular expression on an empty value (a response with no type)
                entries.insert(0, ('""', entries[0][1]))
            return self._map(source, entries, '""' if op == "=~" else "1")
        if op in ("==", "!=") and k == "str":
            if op == "==":
                return self._map(source, self._literal_keys([operand], "1"))
            return self._map(source, self._literal_keys([operand], '""'), "1")
        raise Untranslatable(f"the comparison {op!r} with {operand!r}")

    def _integer_compare(self, source: str, op: str, kind: str, operand: str) -> str:
        """%{REQUEST_STATUS} -eq|-ne|-lt|-le|-gt|-ge NUMBER: ap_expr compares the two sides as integers
        (apr_atoi64 of each). nginx's $status is always a number without leading zeros, so a map over it
        with one regular expression for "at least K" (or the number itself, for -eq/-ne) decides it. Other
        variables are refused: apr_atoi64 reads leading blanks, a sign and stops at the first non-digit; but
        %{SERVER_PORT}'s map holds digits without leading zeros too (vhost_alias.server_port_variable)."""
        numeric = source == "$status" or (self.port_source is not None and source == self.port_source())
        if not numeric or kind != "str" or not operand.isdigit():
            raise Untranslatable(f"the integer comparison {op!r} with {operand!r} on anything but "
                                 "%{REQUEST_STATUS}, %{SERVER_PORT} and a number")
        number = int(operand)
        if op in ("-eq", "-ne"):
            return self._map(source, [(str(number), "1" if op == "-eq" else '""')], '""' if op == "-eq" else "1")
        least = number + 1 if op in ("-gt", "-le") else number
        holds = op in ("-gt", "-ge")
        return self._map(source, [(f"~^(?:{_at_least(least)})$", "1" if holds else '""')],
                         '""' if holds else "1")

    def _verify_compare(self) -> str:
        """%{SSL_CLIENT_VERIFY} ==/!=/in SUCCESS or NONE: httpd's and nginx's $ssl_client_verify agree on those
        two (a certificate verified, none sent); httpd's GENEROUS and both servers' FAILED:reason differ."""
        _, op, _ = self._take()
        if op in ("eq", "ne") and self.ssl_compat:
            op = "==" if op == "eq" else "!="
        if op == "in":
            values = self._word_list()
        elif op in ("==", "!="):
            k, operand, _ = self._take()
            if k != "str":
                raise Untranslatable(f"%{{SSL_CLIENT_VERIFY}} {op} {operand!r}")
            values = [operand]
        else:
            raise Untranslatable(f"%{{SSL_CLIENT_VERIFY}} {op}")
        if not set(values) <= {"SUCCESS", "NONE"}:
            raise Untranslatable(f"%{{SSL_CLIENT_VERIFY}} compared with {values!r} (only SUCCESS and NONE read the "
                                 "same in nginx)")
        if op == "!=":
            return self._map("$ssl_client_verify", self._literal_keys(values, '""'), "1")
        return self._map("$ssl_client_verify", self._literal_keys(values, "1"))

    def _ip_match(self, text: str) -> str:
        """1 when $remote_addr (what allow/deny read) is in the IPv4 network TEXT (httpd's forms: a/nn,
        a/mask, a partial address, a full one)."""
        from .access import Refused, _network
        from .access_cond import ipv4_regex
        try:
            regex = ipv4_regex(_network(text, None))
        except Refused:
            regex = None
        if regex is None:
            raise Untranslatable(f"the network {text!r} (IPv6 or not an address)")
        return self._map("$remote_addr", [("~" + regex, "1")])

    def _literal_keys(self, values: list[str], result: str) -> list[tuple[str, str]]:
        if not self.exact_case:
            return [(_literal_key(v), result) for v in values]
        for v in values:
            _literal_key(v)
        # nginx's map tries no regular expression on an empty value: the empty string is a plain key
        keys = [('""', result)] if "" in values else []
        rest = sorted(set(values) - {""})
        if rest:
            keys.append(("~^(?:" + "|".join(re.escape(v) for v in rest) + ")$", result))
        return keys

    def _word_list(self) -> list[str]:
        """`{ "a", "b" }` after `in`: quoted strings only."""
        if not self._peek("op", "{"):
            raise Untranslatable("`in` needs a {list}")
        self._take()
        values = []
        while True:
            k, v, _ = self._take()
            if k != "str":
                raise Untranslatable(f"unexpected {v!r} in a list")
            values.append(v)
            k, v, _ = self._take()
            if (k, v) == ("op", "}"):
                return values
            if (k, v) != ("op", ","):
                raise Untranslatable(f"unexpected {v!r} in a list")

    @staticmethod
    def _dn_part(name: str) -> tuple[str, str] | None:
        lower = name.lower()
        for prefix, source in _DN_SOURCES.items():
            if lower.startswith(prefix):
                part = _DN_PARTS.get(lower[len(prefix):])
                if part is None:
                    raise Untranslatable(f"%{{{name}}} has no nginx variable here")
                return source, part
        return None

    def _dn_compare(self, dn: tuple[str, str], values: list[str], equal: bool) -> str:
        """httpd's SSL_CLIENT_S_DN_CN is the first CN of the certificate's name, unescaped (observed with
        httpd 2.4: `"Snake Oil, Ltd."` matches); nginx's $ssl_client_s_dn is the whole name in RFC 2253
        form, reversed (the first CN is the last one there) and escaped. So a printable ASCII value is
        escaped as OpenSSL does, and the test is a regex over whole attribute tokens (escape pairs kept
        together) for the last token of that attribute."""
        source, part = dn
        if any(not re.fullmatch(r"[\x20-\x7e]*", v) for v in values):
            raise Untranslatable(f"a certificate name compared with {values!r} (characters beyond printable ASCII)")
        token = r"(?:[^,+\\]|\\.)*"
        alternatives = "|".join(re.escape(_rfc2253(v)) for v in sorted(set(values)))
        key = (f"~^(?:{token}[,+])*{part}=(?:{alternatives})"
               f"(?:[,+](?!{part}=){token})*$")
        return self._map(source, [(key, "1")] if equal else [(key, '""')], '""' if equal else "1")


_INTEGER_OPS = ("-eq", "-ne", "-lt", "-le", "-gt", "-ge")


def _at_least(number: int) -> str:
    """A regular expression for the decimal numbers (no leading zeros) of at least NUMBER."""
    if number <= 0:
        return r"\d+"
    digits = str(number)
    parts = [rf"[1-9]\d{{{len(digits)},}}", digits]
    for i, digit in enumerate(digits):
        if digit != "9":
            rest = len(digits) - i - 1
            parts.append(digits[:i] + f"[{int(digit) + 1}-9]" + (rf"\d{{{rest}}}" if rest else ""))
    return "|".join(parts)


def simple_match(text: str) -> tuple[str, str] | None:
    """(nginx variable, map key) when TEXT is one `%{VAR} =~ m#re#[i]` or `%{VAR} == 'str'` over a request
    variable that adds nothing to Vary: a chain of such tests on one variable is one map, whose regexes nginx
    tries in order (the first that matches wins, as the first <If>/<ElseIf> that holds does)."""
    try:
        tokens = _tokens(text)
    except Untranslatable:
        return None
    if len(tokens) != 3:
        return None
    (k1, name, _), (k2, op, _), (k3, operand, flags) = tokens
    if k1 != "var" or k2 != "op" or _vary_name(name) is not None:
        return None
    try:
        source = _variable(name)
    except Untranslatable:
        return None
    if source.startswith(RESPONSE_VARIABLES) or source == "$a2n_https":
        return None
    if op == "=~" and k3 == "regex" and set(flags) <= {"i"}:
        return source, ("~*" if "i" in flags else "~") + operand
    if op in ("==", "=") and k3 == "str" and "%{" not in operand:
        return source, "~^(?:" + re.escape(operand) + ")$"
    return None


def key_matches_empty(key: str) -> bool:
    """Whether the map KEY (a `~`/`~*` regular expression, as simple_match gives) matches the empty value:
    nginx's map tries no regular expression on an empty value, so such a key needs a `""` twin. Where PCRE2
    cannot tell, it is taken to match: the member's header then goes out on an empty value, where httpd may
    send it (a header left out where httpd sends it is the worse error)."""
    if not key.startswith("~"):
        return key == '""'
    caseless = key.startswith("~*")
    try:
        return _matches_empty(key[2:] if caseless else key[1:], caseless)
    except Untranslatable:
        return True


def _rfc2253(value: str) -> str:
    """VALUE as OpenSSL writes it in an RFC 2253 name (X509_NAME_print_ex, XN_FLAG_RFC2253)."""
    out = []
    for i, c in enumerate(value):
        if c in ',+"\\<>;' or (i == 0 and c in "# ") or (i == len(value) - 1 and c == " "):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def _literal_key(operand: str) -> str:
    """A map key matching exactly OPERAND."""
    if "%{" in operand:
        raise Untranslatable("a variable inside a compared string")
    key = operand or '""'
    if key in ("default", "hostnames", "include", "volatile") or key.startswith(("~", "\\")):
        key = "\\" + key
    return key
