"""mod_rewrite: RewriteEngine, RewriteCond, RewriteRule, RewriteBase, RewriteOptions, RewriteMap.

Rules are collected per context (a virtual host, the main server, or a
per-directory context such as a `.htaccess` file) and compiled once the whole
context is read, because RewriteEngine and RewriteBase apply wherever they
stand.

Idioms become idiomatic nginx before anything generic is tried:
- force-HTTPS (`%{HTTPS} off` + redirect to https) is decided per server —
  always true on a plain-HTTP server, never on a TLS one — and becomes a
  plain `return 301`;
- canonical-host redirects on a literal host become a server of their own;
- front controllers (`!-f` + `!-d` + rewrite to one script) become `try_files`;
- runs of literal-path redirects collapse into one `map`.

Everything else is compiled rule by rule, in order, at the phase httpd runs
it (server context: before location selection, like translate_name): each
rule's conditions set flag variables (nginx `if` has no AND/OR or nesting)
and one `rewrite`/`return` acts on them. Query strings follow httpd: a
substitution with `?` replaces the query unless QSA (so a trailing `?` stops
nginx appending it), QSD drops it. Constructs nginx cannot express are errors.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Location, MapBlock, Server, Stmt
from ..syntax.span import Span
from ..syntax.tree import Directive
from .base import Context, Disposition, flag, Rule, table
from .rewrite_compare import integer_compare, string_compare

# %{VAR} -> nginx variable (server context meaning).
VARIABLES = {
    "HTTP_HOST": "$http_host", "HTTP_USER_AGENT": "$http_user_agent", "HTTP_REFERER": "$http_referer",
    "HTTP_COOKIE": "$http_cookie", "HTTP_ACCEPT": "$http_accept", "HTTP_FORWARDED": "$http_forwarded",
    "HTTP_PROXY_CONNECTION": "$http_proxy_connection", "QUERY_STRING": "$args", "THE_REQUEST": "$request",
    "REQUEST_METHOD": "$request_method", "REQUEST_SCHEME": "$scheme", "SERVER_PORT": "$server_port",
    "SERVER_NAME": "$server_name", "SERVER_ADDR": "$server_addr", "SERVER_PROTOCOL": "$server_protocol",
    "REMOTE_ADDR": "$remote_addr", "REMOTE_PORT": "$remote_port", "REMOTE_USER": "$remote_user",
    "DOCUMENT_ROOT": "$document_root", "REQUEST_URI": "$a2n_request_uri", "HTTPS": "$a2n_https",
    "REQUEST_FILENAME": "$a2n_request_uri", "SCRIPT_FILENAME": "$a2n_request_uri",
    "CONN_REMOTE_ADDR": "$realip_remote_addr",
}
def env_variable(name: str) -> str:
    """The nginx variable an [E=NAME] flag sets (prefixed: nginx refuses `set` on its own names, case-blind)."""
    return "$a2n_env_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


# %{TIME_*} as pieces of $time_iso8601 (2026-11-21T06:37:07+00:00); TIME_WDAY has no source in nginx.
_TIME_PARTS = {"TIME_YEAR": "$1", "TIME_MON": "$2", "TIME_DAY": "$3", "TIME_HOUR": "$4", "TIME_MIN": "$5",
               "TIME_SEC": "$6", "TIME": "$1$2$3$4$5$6"}

PER_DIR_VARIABLES = {"REQUEST_FILENAME": "$request_filename", "SCRIPT_FILENAME": "$request_filename"}
_VAR = re.compile(r"%\{([A-Za-z_:][A-Za-z0-9_:.\-]*)\}")
_FLAG_SPLIT = re.compile(r",(?![^\[]*\])")


@dataclass
class Cond:
    test: str
    pattern: str
    flags: set[str]
    span: Span
    directive: Directive


@dataclass
class RRule:
    pattern: str
    substitution: str
    flags: dict[str, str]
    conds: list[Cond]
    span: Span
    directive: Directive
    index: int = 0


@dataclass
class RewriteContext:
    """The rewrite state of one server (or per-directory context)."""

    engine: bool | None = None
    engine_span: Span | None = None
    base: str | None = None
    rules: list[RRule] = field(default_factory=list)
    pending: list[Cond] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    per_dir: str | None = None     # URL prefix of a per-directory context (None: server context)
    inherit: str | None = None      # RewriteOptions Inherit ("after") / InheritBefore ("before"), in a vhost
    inherit_down: str | None = None  # RewriteOptions InheritDown[Before], in the main server
    directory: str | None = None   # the <Directory> path, turned into per_dir once DocumentRoot is known
    mapped: bool = False           # some server serves that directory


PER_DIRECTORY = {"rewriteengine", "rewritecond", "rewriterule", "rewritebase", "rewriteoptions"}


def _state(ctx: Context) -> RewriteContext:
    if ctx.directory is not None:
        states = ctx.server.settings.setdefault("directory_rewrites", {})
        key = id(ctx.directory)
        if key not in states:
            states[key] = RewriteContext(directory=ctx.directory.args[0] if ctx.directory.args else "")
        return states[key]
    holder = ctx.scope.settings if ctx.scope is not None else ctx.server.settings
    if "rewrite" not in holder:
        holder["rewrite"] = RewriteContext(per_dir=ctx.options.get("htaccess_dir"))
    return holder["rewrite"]


def _capture_starts_path(pattern: str) -> bool:
    """In server context, $1 of these patterns begins with the URL path's own `/`: `^(/...` anchors it, and
    an unanchored `(.*...` matches leftmost, from the start of the path."""
    return pattern.startswith(("^(/", "^(.*", "(.*", "^(.+", "(.+"))


def _status(value: str) -> str | None:
    """[R=...]: a status code, the keywords httpd knows, 302 when empty; None when it is none of those."""
    code = {"permanent": "301", "temp": "302", "seeother": "303", "": "302"}.get(value.lower(), value)
    return code if code.isdigit() and 100 <= int(code) < 600 else None


def _bracketed(text: str) -> bool:
    return len(text) >= 2 and text[0] == "[" and text[-1] == "]"


def _flags(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text:
        return out
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    for part in _FLAG_SPLIT.split(body):
        part = part.strip()
        if not part:
            continue
        key, _, value = part.partition("=")
        out[key.strip().upper()] = value.strip()
    return out


_LONG = {"LAST": "L", "NOCASE": "NC", "REDIRECT": "R", "QSAPPEND": "QSA", "QSDISCARD": "QSD", "NOESCAPE": "NE",
         "PASSTHROUGH": "PT", "PROXY": "P", "FORBIDDEN": "F", "GONE": "G", "ENV": "E", "COOKIE": "CO",
         "TYPE": "T", "HANDLER": "H", "SKIP": "S", "CHAIN": "C", "NEXT": "N", "NOSUBREQ": "NS",
         "DISCARDPATH": "DPI", "ORNEXT": "OR", "NOVARY": "NV", "QSLAST": "QSL", "BACKREFNOPLUS": "BNP"}


# The flags httpd 2.4 accepts (anything else: "unknown flag", the configuration is refused).
RULE_FLAGS = {"B", "BCTLS", "BNE", "BNP", "C", "CO", "DPI", "E", "END", "F", "G", "H", "L", "N", "NC", "NE", "NS",
              "P", "PT", "QSA", "QSD", "QSL", "R", "S", "T", "UNSAFEALLOW3F", "UNSAFEPREFIXSTAT"}
COND_FLAGS = {"NC", "OR", "NV"}


def _normalise(flags: dict[str, str]) -> dict[str, str]:
    return {_LONG.get(k, k): v for k, v in flags.items()}


# ----------------------------------------------------------------- directive handlers

def rewrite_engine(ctx: Context, d: Directive) -> Disposition:
    state = _state(ctx)
    value = flag(d)
    if value not in ("on", "off"):
        ctx.diags.add("A2N001", "RewriteEngine takes on or off", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    state.engine, state.engine_span = value == "on", d.span
    ctx.options["rewrite_engine_mentioned"] = True
    return Disposition.EXACT


def rewrite_cond(ctx: Context, d: Directive) -> Disposition:
    if ctx.scope is not None and ctx.directory is None:
        return _in_location(ctx, d)
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteCond needs a test string and a condition", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if len(d.args) > 2 and not _bracketed(d.args[2]):
        ctx.diags.add("A2N001", f"RewriteCond flags {d.args[2]!r} are not in [brackets]: httpd refuses the "
                      "configuration (bad flag delimiters)", d.arg_span(2), directive=d.name,
                      hint="quote a pattern that holds a space, e.g. \"-gt 10\"")
        return Disposition.UNSUPPORTED
    flags = {f.upper() for f in _flags(d.args[2] if len(d.args) > 2 else None)}
    flags = {_LONG.get(f, f) for f in flags}
    unknown = sorted(flags - COND_FLAGS)
    if unknown:
        ctx.diags.add("A2N001", f"RewriteCond: unknown flag {unknown[0]!r}; httpd refuses the configuration",
                      d.arg_span(2), directive=d.name)
        return Disposition.UNSUPPORTED
    _state(ctx).pending.append(Cond(d.args[0], d.args[1], flags, d.span, d))
    _state(ctx).directives.append(d)
    return Disposition.EXACT


def rewrite_rule(ctx: Context, d: Directive) -> Disposition:
    if ctx.scope is not None and ctx.directory is None:
        return _in_location(ctx, d)
    state = _state(ctx)
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteRule needs a pattern and a substitution", d.span, directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    if len(d.args) > 2 and not _bracketed(d.args[2]):
        ctx.diags.add("A2N001", f"RewriteRule flags {d.args[2]!r} are not in [brackets]: httpd refuses the "
                      "configuration (bad flag delimiters)", d.arg_span(2), directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    flags = _normalise(_flags(d.args[2] if len(d.args) > 2 else None))
    unknown = sorted(f for f in flags if f not in RULE_FLAGS)
    if unknown:
        ctx.diags.add("A2N001", f"RewriteRule: unknown flag {unknown[0]!r}; httpd refuses the configuration",
                      d.arg_span(2), directive=d.name)
        state.pending = []
        return Disposition.UNSUPPORTED
    if flags.get("E"):
        ctx.options.setdefault("rewrite_env", set()).add(flags["E"].lstrip("!").partition(":")[0])
    if len(d.args) > 3:
        ctx.diags.add("A2N801", f"RewriteRule has {len(d.args)} arguments; httpd refuses more than three "
                      "(a comment after the flags?)", d.span, directive=d.name)
    rule = RRule(d.args[0], d.args[1], flags, state.pending, d.span, d, len(state.rules))
    state.pending = []
    state.rules.append(rule)
    state.directives.append(d)
    return Disposition.EXACT   # the real disposition is settled when the context is compiled


def rewrite_base(ctx: Context, d: Directive) -> Disposition:
    if d.args:
        _state(ctx).base = d.args[0]
    return Disposition.EXACT


def rewrite_options(ctx: Context, d: Directive) -> Disposition:
    opts = {a.lower() for a in d.args}
    inherit = opts & {"inherit", "inheritbefore", "inheritdown", "inheritdownbefore"}
    if inherit and ctx.directory is None and ctx.scope is None and ctx.options.get("htaccess_dir") is None:
        # server context: a virtual host takes the main server's rules (after its own, or before them)
        state = _state(ctx)
        if inherit & {"inherit", "inheritbefore"} and ctx.in_vhost:
            state.inherit = "before" if "inheritbefore" in inherit else "after"
        if inherit & {"inheritdown", "inheritdownbefore"} and not ctx.in_vhost:
            state.inherit_down = "before" if "inheritdownbefore" in inherit else "after"
        if state.inherit or state.inherit_down:
            return Disposition.EXACT
    if inherit:
        ctx.diags.add("A2N802", f"RewriteOptions {' '.join(d.args)}: a directory's inherited rules are not copied "
                      "into this context; add them here by hand", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if opts & {"allowanyuri", "mergebase", "allownoslash", "ignorecontextinfo", "legacyprefixdocroot",
               "ignoreinherit", "longurloptimization"}:
        ctx.diags.add("A2N803", f"RewriteOptions {' '.join(d.args)}: an edge switch with no nginx counterpart",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


@dataclass
class RewriteMapDef:
    """A RewriteMap as the rules see it: its kind and, for txt maps, the entries httpd would look up."""

    name: str
    kind: str                      # txt, rnd, int, dbm, prg, dbd, fastdbd
    source: str
    span: Span
    entries: dict[str, str] | None = None   # first occurrence of each key wins, as in httpd
    problem: str | None = None      # why rules cannot use it


def read_txt_map(text: str) -> dict[str, str]:
    """httpd's txt map format: `key value` lines; lines starting with `#` or white space are skipped, the
    first line for a key wins, a key without a value is no entry."""
    entries: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line[0] == "#" or line[0].isspace():
            continue
        words = line.split()
        if len(words) >= 2 and words[0] not in entries:
            entries[words[0]] = words[1]
    return entries


def rewrite_map(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "RewriteMap needs a name and a type:source", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name, source = d.args[0], d.args[1]
    kind, _, path = source.partition(":")
    kind = kind.lower().split("=", 1)[0]
    mapdef = RewriteMapDef(name, kind, source, d.span)
    ctx.settings.setdefault("rewrite_maps", {})[name] = mapdef
    if kind in ("txt", "rnd"):
        locate = ctx.options.get("locate")
        found = locate(path) if locate else None
        if found is None:
            ctx.diags.add("A2N831", f"RewriteMap {name}: the map file {path} was not found; httpd refuses to start "
                          "without it, and the translation's map is empty", d.span, directive=d.name,
                          hint="convert where the map file is present (or pass --server-root)")
            mapdef.entries = {}
            return Disposition.UNSUPPORTED
        try:
            mapdef.entries = read_txt_map(found.read_text(encoding="utf-8", errors="surrogateescape"))
        except OSError as exc:
            ctx.diags.add("A2N831", f"RewriteMap {name}: the map file {path} cannot be read ({exc.strerror})",
                          d.span, directive=d.name)
            mapdef.entries = {}
            return Disposition.UNSUPPORTED
        unsafe = [k for k, v in mapdef.entries.items() if "$" in v or "$" in k or "{" in v]
        if unsafe:
            mapdef.problem = f"its entry {unsafe[0]!r} holds `$` or `{{`, which nginx map values read as variables"
        return Disposition.UNSUPPORTED if mapdef.problem else Disposition.EXACT
    if kind == "int":
        if path.lower() in ("tolower", "toupper", "escape", "unescape"):
            return Disposition.EXACT   # each use is judged where it stands
        mapdef.problem = f"int:{path} is not a function httpd provides"
        ctx.diags.add("A2N804", f"RewriteMap {name} {source}: {mapdef.problem}", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    mapdef.problem = f"{kind} maps ask a program or a database at request time"
    ctx.diags.add("A2N804", f"RewriteMap {name} {source}: {kind} maps are not translated; rules that use "
                  f"${{{name}:...}} are reported", d.span, directive=d.name,
                  hint="export a dbm map to a txt map (httxt2dbm's input) and point RewriteMap at it" if kind == "dbm"
                  else "replace the program or database lookup with an nginx map or an auth_request service")
    return Disposition.UNSUPPORTED


def _in_location(ctx: Context, d: Directive) -> Disposition:
    ctx.diags.add("A2N805", f"{d.name} inside <Location>: httpd applies it to the mapped file path, in a way "
                  "the translation does not reproduce; nothing was emitted", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


RULES = table(
    Rule("RewriteEngine", Disposition.EXACT, rewrite_engine),
    Rule("RewriteCond", Disposition.EXACT, rewrite_cond),
    Rule("RewriteRule", Disposition.EXACT, rewrite_rule),
    Rule("RewriteBase", Disposition.EXACT, rewrite_base),
    Rule("RewriteOptions", Disposition.EXACT, rewrite_options),
    Rule("RewriteMap", Disposition.EXACT, rewrite_map),
)


# ----------------------------------------------------------------- compilation

class Unsupported(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Compiler:
    def __init__(self, ctx: Context, server: Server, state: RewriteContext):
        self.ctx = ctx
        self.server = server
        self.state = state
        self.per_dir = state.per_dir
        self.out: list[Stmt] = []
        self.needs_request_uri = False
        self.counter = 0
        self.tests_built: list[Stmt] = []   # `set` statements that build a composite test string
        self.lookups: list[Stmt] = []       # statements that look RewriteMap values up
        self.unrolling = False              # compiling an [N] rule that the caller repeats

    # -- values --------------------------------------------------------------
    def variable(self, name: str, rule: RRule | None = None) -> str:
        upper = name.upper()
        if upper.startswith("HTTP:"):
            return "$http_" + name[5:].lower().replace("-", "_")
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
        if upper in VARIABLES:
            value = VARIABLES[upper]
            if value == "$a2n_request_uri":
                self.needs_request_uri = True
            if value == "$a2n_https":
                self._https_map()
            return value
        if upper.startswith("HTTP_"):
            return "$http_" + upper[5:].lower()
        raise Unsupported("A2N806", f"%{{{name}}} has no nginx equivalent in this translator")

    def _time_variable(self, name: str) -> str:
        """httpd's TIME_* variables (local time) cut out of nginx's $time_iso8601, also local time."""
        variable = "$a2n_" + name.lower()
        if not any(m.variable == variable for m in self.ctx.model.maps):
            self.ctx.model.maps.append(MapBlock(
                "$time_iso8601", variable,
                [("~^(\\d{4})-(\\d\\d)-(\\d\\d)T(\\d\\d):(\\d\\d):(\\d\\d)", _TIME_PARTS[name])], '""'))
        return variable

    def _https_map(self) -> None:
        if not any(m.variable == "$a2n_https" for m in self.ctx.model.maps):
            self.ctx.model.maps.append(MapBlock("$https", "$a2n_https", [('""', "off")], "on"))

    def expand(self, text: str, rule: RRule, cond_names: dict[int, str],
               rule_names: dict[int, str] | None = None) -> str:
        """Substitution text: %{VAR}, $N (rule captures: nginx's own, or named ones saved before the
        conditions ran) and %N (named condition captures)."""
        if "${" in text:
            text = self.expand_maps(text, rule, cond_names, rule_names)
        text = _VAR.sub(lambda m: "${" + self.variable(m.group(1), rule)[1:] + "}", text)

        def backref(m: re.Match) -> str:
            n = int(m.group(2))
            if m.group(1) == "$" and rule_names is not None:
                return "${" + rule_names[n] + "}" if n in rule_names else ""   # httpd: empty
            if m.group(1) == "$":
                return f"${n}" if n else "$uri"   # nginx reads exactly one digit after $
            return "${" + cond_names[n] + "}" if n in cond_names else ""
        return re.sub(r"(?<!\\)([$%])(\d)", backref, text)

    # -- RewriteMap lookups --------------------------------------------------
    def expand_maps(self, text: str, rule: RRule, cond_names: dict[int, str],
                    rule_names: dict[int, str] | None) -> str:
        """Replace each `${map:key|default}` with a variable that `self.lookups` statements fill in."""
        out, i = [], 0
        while True:
            start = text.find("${", i)
            if start < 0:
                out.append(text[i:])
                return "".join(out)
            end, depth = start + 2, 1
            while end < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if depth:
                raise Unsupported("A2N804", f"the map lookup {text[start:]!r} is not closed")
            body = text[start + 2:end - 1]
            name, colon, rest = body.partition(":")
            if not colon:
                raise Unsupported("A2N804", f"${{{body}}} is not a map lookup (${{map:key}})")
            key, bar, default = _split_default(rest)
            out.append(text[i:start])
            out.append(self.map_value(name, key, default if bar else None, rule, cond_names, rule_names))
            i = end

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
            raise Unsupported("A2N804", f"${{{name}:...}} uses a map no RewriteMap defines")
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
            if pattern.startswith("^"):
                pattern = "^" + esc + pattern[1:]
            else:
                pattern = "^" + esc + ".*?" + pattern if pattern not in ("", ".*") else "^" + esc + ".*"
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
        m = re.fullmatch(r"%\{([^}]+)\}", test)
        if m:
            var = self.variable(m.group(1), rule)
        else:
            self.lookups = []
            value = self.expand(test, rule, cond_names, rule_names)
            var = f"${name_prefix}t{len(self.tests_built)}"
            self.tests_built.extend(self.lookups + [Stmt("set", [var, value], cond.span)])
            self.lookups = []
        # file tests
        if pattern in ("-f", "-d", "-x", "-s", "-F", "-U", "-l", "-L", "-h"):
            kinds = {"-f": "-f", "-d": "-d", "-x": "-x", "-s": "-f"}
            if pattern not in kinds:
                raise Unsupported("A2N809", f"RewriteCond {pattern} has no nginx equivalent")
            if pattern == "-s":
                self.ctx.diags.add("A2N810", "RewriteCond -s (non-empty file) becomes -f: the size is not checked",
                                   cond.span, directive="RewriteCond")
            return f"{'!' if negate else ''}{kinds[pattern]} {var}", None
        compare = re.match(r"(<=|>=|<|>)(.*)$", pattern, re.S)
        if compare:
            if nocase:
                raise Unsupported("A2N811", f"RewriteCond comparison {pattern!r} with [NC] is not translated")
            regex = string_compare(compare.group(1), compare.group(2))
            return f"{var} {'!~' if negate else '~'} {_quote_regex(regex)}", None
        compare = re.match(r"-(lt|le|eq|ne|ge|gt)(.*)$", pattern, re.S)
        if compare:
            op = compare.group(1)
            regex = integer_compare("-eq" if op == "ne" else "-" + op, compare.group(2))
            if regex is None:
                raise Unsupported("A2N811", f"RewriteCond {pattern!r}: the value compared with is not an integer")
            negate = negate != (op == "ne")
            return f"{var} {'!~' if negate else '~'} {_quote_regex(regex)}", None
        if pattern.startswith("="):
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

    # -- one rule ------------------------------------------------------------
    def rule_statements(self, rule: RRule, guards: list[str] = (), marks: list[str] = ()) -> list[Stmt]:
        """One rule as nginx statements. `guards` are extra tests that must all hold (a [C] chain or an
        [S] skip), `marks` variables set to 1 when the rule matches (for the rules that depend on it)."""
        flags = rule.flags
        for f in flags:
            if f == "T" and rule.substitution == "-" and not rule.conds and not rule.pattern.startswith("!"):
                continue
            if f == "N" and not self.unrolling:
                raise Unsupported("A2N813", "[N] restarts the whole ruleset; it is translated only on the first "
                                  "rule of its context")
            if f in ("H", "T"):
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
        if any(_uses_rule_capture(text) for text in [c.test for c in rule.conds] + _flag_values(rule)):
            # httpd matches the pattern before it looks at the conditions: save its captures by name, since
            # every regex a condition runs resets $1..$9.
            named, rule_names = ("", {}) if negate else _name_groups(pattern, f"{tag}_r")
            tests.append((groups, f"$uri {'!~' if negate else '~'} {_quote_regex(named or pattern)}", []))
            groups += 1
        cond_groups: list[list[Cond]] = []
        for cond in rule.conds:
            if cond_groups and "OR" in cond_groups[-1][-1].flags:
                cond_groups[-1].append(cond)
            else:
                cond_groups.append([cond])
        cond_names: dict[int, str] = {}
        for group in cond_groups:
            for cond in group:
                self.tests_built = []
                text, names = self.condition(cond, rule, f"{tag}_c{len(tests)}_", cond_names, rule_names or {})
                tests.append((groups, text, self.tests_built))
                if names is not None:
                    cond_names = names   # %N come from the last regular expression that matched
            groups += 1
        self.lookups = []
        action = self.action(rule, pattern, negate, cond_names, rule_names)
        action = [Stmt("set", [mark, "1"], span) for mark in marks] + action
        # nginx allows no `if` inside an `if`: map lookups run before the test of the whole rule
        lookups, self.lookups = self.lookups, []
        if negate and rule_names is None:
            tests.append((groups, f"$uri !~ {_quote_regex(pattern)}", []))
            groups += 1
        elif not negate and (marks or (pattern not in _MATCH_ALL and not (action and action[-1].name == "rewrite"))):
            # only `rewrite` tests the pattern itself: test it last, so $1..$9 in a `return` are its captures
            tests.append((groups, f"$uri ~ {_quote_regex(pattern)}", []))
            groups += 1
        if not action:
            return []
        if not tests:
            return lookups + action
        if groups == 1 and len(tests) == 1 and not lookups:
            return tests[0][2] + [Stmt("if", [f"({tests[0][1]})"], span, block=action)]
        var = "$" + tag
        # every group variable starts empty, so the concatenation is all ones only when every group matched
        out = [Stmt("set", [var, ""], span)] + [Stmt("set", [f"${tag}_g{gi}", ""], span) for gi in range(groups)]
        for gi, text, before in tests:
            out.extend(before)
            out.append(Stmt("if", [f"({text})"], span, block=[Stmt("set", [f"${tag}_g{gi}", "1"], span)]))
        out.extend(lookups)
        out.append(Stmt("set", [var, "".join(f"${{{tag}_g{gi}}}" for gi in range(groups))], span))
        out.append(Stmt("if", [f"({var} = {'1' * groups})"], span, block=action))
        return out

    def action(self, rule: RRule, pattern: str, negate: bool, cond_names: dict[int, str],
               rule_names: dict[int, str] | None = None) -> list[Stmt]:
        flags, span = rule.flags, rule.span
        if "F" in flags:
            return [Stmt("return", ["403"], span)]
        if "G" in flags:
            return [Stmt("return", ["410"], span)]
        out: list[Stmt] = []
        for key, value in flags.items():
            if key == "E" and value:
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
        if "CO" in flags:
            out.extend(self.cookie(rule, cond_names, rule_names))
        if subst == "-":
            if "R" in flags:
                code = _status(flags["R"])
                if code is not None and not 300 <= int(code) < 400:
                    # outside 3xx httpd drops the substitution and answers with the status, as if [L]
                    return out + [Stmt("return", [code], span)]
                raise Unsupported("A2N815", "[R] with substitution - redirects to the same URL in a loop")
            if "L" in flags or "END" in flags:
                out.append(Stmt("break", [], span, comment="RewriteRule - [L]: the remaining rules are skipped"))
            return out
        if "P" in flags:
            return out + self.proxy(rule, pattern, negate, cond_names)
        target = self.expand(subst, rule, cond_names, rule_names)
        escaping = [f for f in ("B", "BNP", "BCTLS", "BNE") if f in flags]
        if escaping and re.search(r"(?<!\\)\$\d", subst):
            self.ctx.diags.add("A2N828", f"RewriteRule {rule.pattern} {subst} [{','.join(escaping)}]: nginx escapes "
                               "a back-reference only after the `?` of the target and only when the request URI "
                               "itself held %-escapes or `+`; httpd escapes every non-alphanumeric character", rule.span, directive="RewriteRule")
        qsa, qsd = "QSA" in flags, "QSD" in flags
        redirect = "R" in flags or re.match(r"^https?://", subst) is not None
        if not redirect and self.per_dir is not None and not target.startswith("/"):
            base = self.state.base or self.per_dir
            target = base.rstrip("/") + "/" + target
        if "?" in target:
            if qsd:
                target = target.split("?", 1)[0] + "?"
            elif not qsa and not target.endswith("?"):
                target += "?"      # httpd replaces the query; nginx would append the old one
        elif qsd:
            target += "?"
        if redirect:
            code = _status(flags.get("R", ""))
            if code is None:
                raise Unsupported("A2N813", f"[R={flags.get('R')}] is not a status code")
            if not 300 <= int(code) < 400:
                return out + [Stmt("return", [code], span)]
            if "NE" not in flags and re.search(r"[#\s]", subst):
                self.ctx.diags.add("A2N816", "the redirect target contains characters httpd escapes (without "
                                   "[NE]); nginx sends them as written", span, directive="RewriteRule")
            if code in ("301", "302") and not negate:
                return out + [Stmt("rewrite", [pattern, target, "permanent" if code == "301" else "redirect"],
                                   span)]
            keep = not target.endswith("?") and "?" not in target
            target = target.rstrip("?") + ("$is_args$args" if keep else "")
            return out + [Stmt("return", [code, target], span)]
        flag = "break" if "END" in flags else ("last" if ("L" in flags or "PT" in flags) else None)
        if negate:
            # a negated pattern has no captures: rewrite whatever the URI is
            return out + [Stmt("rewrite", ["^", target] + ([flag] if flag else []), span)]
        return out + [Stmt("rewrite", [pattern, target] + ([flag] if flag else []), span)]


    def _websocket_headers(self, span: Span) -> list[Stmt]:
        """[P] to ws:// or wss://: HTTP/1.1 and the Upgrade handshake passed on, as mod_proxy_wstunnel does."""
        _ensure_map(self.ctx, MapBlock("$http_upgrade", "$a2n_upgrade", [("~*^websocket$", "websocket")], '""'))
        _ensure_map(self.ctx, MapBlock("$http_upgrade", "$a2n_connection_upgrade", [("~*^websocket$", "upgrade")],
                                       "close"))
        return [Stmt("proxy_http_version", ["1.1"], span),
                Stmt("proxy_set_header", ["Upgrade", "$a2n_upgrade"], span),
                Stmt("proxy_set_header", ["Connection", "$a2n_connection_upgrade"], span)]

    def cookie(self, rule: RRule, cond_names: dict[int, str], rule_names: dict[int, str] | None) -> list[Stmt]:
        """[CO=NAME:VALUE:DOMAIN[:LIFETIME[:PATH[:SECURE[:HTTPONLY[:SAMESITE]]]]]]: the Set-Cookie header httpd
        builds, in a variable that a server-wide `add_header ... always` sends (empty: no header)."""
        data, sep = rule.flags["CO"], ":"
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

    def proxy(self, rule: RRule, pattern: str, negate: bool, cond_names: dict[int, str]) -> list[Stmt]:
        """[P] to a fixed backend: rewrite into an internal location that proxies, prefix swapped for the path."""
        lead = r"(?:/|%\{REQUEST_URI\}" + (r"|\$1" if self.per_dir is None and _capture_starts_path(rule.pattern)
                                           else "") + ")"
        m = re.fullmatch(r"(https?|wss?)://([A-Za-z0-9.\-]+(?::\d+)?)(" + lead + r"[^?]*)?(\?.*)?", rule.substitution)
        if not m or negate:
            raise Unsupported("A2N812", "[P] to a backend built from the request (or with a negated pattern) is "
                              "not translated: a host taken from the request makes an open proxy")
        scheme, host, path, query = m.group(1), m.group(2), m.group(3) or "/", m.group(4) or ""
        websocket = scheme.startswith("ws")
        scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
        number = self.ctx.options["rewrite_proxies"] = self.ctx.options.get("rewrite_proxies", 0) + 1
        prefix = f"/a2n_proxy_{number}"
        target = self.expand(prefix + path + query, rule, cond_names)
        if query and "QSA" not in rule.flags and not target.endswith("?"):
            target += "?"
        loc = Location("^~", prefix + "/", [
            Stmt("internal", [], rule.span),
            Stmt("proxy_pass", [f"{scheme}://{host}/"], rule.span,
                 comment="RewriteRule [P]: httpd's default worker, no connection reuse"),
            Stmt("proxy_set_header", ["Host", host], rule.span),
            Stmt("proxy_set_header", ["X-Forwarded-For", "$proxy_add_x_forwarded_for"], rule.span),
            Stmt("proxy_set_header", ["X-Forwarded-Host", "$http_host"], rule.span),
            Stmt("proxy_set_header", ["X-Forwarded-Server", "$server_name"], rule.span),
            Stmt("proxy_redirect", ["off"], rule.span),
        ] + (self._websocket_headers(rule.span) if websocket else []), rule.span)
        self.server.locations.append(loc)
        self.ctx.diags.add("A2N825", f"RewriteRule [P] to {scheme}://{host}: proxied through an internal location; "
                           "X-Forwarded-Host/-Server are set, not appended as httpd does", rule.span,
                           directive="RewriteRule")
        return [Stmt("rewrite", [pattern, target, "last"], rule.span)]


def _uses_rule_capture(text: str) -> bool:
    """$N outside the rule's own rewrite, or a map lookup (whose regex resets $1..$9)."""
    return re.search(r"(?<!\\)\$\d", text) is not None or "${" in text


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


def _quote_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if re.search(r'[\s;{}"\'$]', value) \
        else value


def _flag_values(rule: RRule) -> list[str]:
    return [v for k, v in rule.flags.items() if k in ("E", "CO") and v] + \
        ([rule.substitution] if "${" in rule.substitution else [])


def _ensure_map(ctx: Context, block: MapBlock) -> None:
    if not any(m.variable == block.variable for m in ctx.model.maps):
        ctx.model.maps.append(block)


def _quote_regex(pattern: str) -> str:
    return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"' if re.search(r'[\s;{}"\']', pattern) \
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


# ----------------------------------------------------------------- idioms

_HTTPS_OFF = {"off", "^off$", "!on", "!^on$", "!=on", "=off"}


def _https_test(cond: Cond) -> str | None:
    """'off' when the condition holds on plain HTTP, 'on' when it holds on TLS, None otherwise."""
    if cond.test.upper() == "%{HTTPS}":
        p = cond.pattern.lower()
        if p in _HTTPS_OFF:
            return "off"
        if p in ("on", "^on$", "=on", "!off", "!^off$", "!=off"):
            return "on"
    if cond.test.upper() in ("%{SERVER_PORT}",) and cond.pattern in ("80", "^80$", "=80"):
        return "off"
    if cond.test.upper() == "%{REQUEST_SCHEME}" and cond.pattern.lower() in ("http", "^http$", "=http"):
        return "off"
    return None


_MATCH_ALL = {"^", "^.*$", ".*", "^(.*)$", "(.*)", "^(.*)", "^/?(.*)$", "^/?(.*)", "(?i)^", "(?i).*"}
_WHOLE = {"^(.*)$", "^/?(.*)$", "(.*)", "^/(.*)$", "^(.*)", "^", ".*", "^.*$", "^/(.*)", "^/?(.*)"}


def static_https(rule: RRule, server_tls: bool) -> RRule | None:
    """Drop %{HTTPS} conditions a server decides statically; None when the rule can never fire."""
    kept = []
    for cond in rule.conds:
        t = _https_test(cond)
        if t is None or "OR" in cond.flags:
            kept.append(cond)
            continue
        holds = (t == "on") == server_tls
        if not holds:
            return None
    return RRule(rule.pattern, rule.substitution, rule.flags, kept, rule.span, rule.directive, rule.index)


def whole_site_redirect(rule: RRule) -> Stmt | None:
    """`RewriteRule ^(.*)$ https://host/$1 [R=301,L]` with no conditions: `return 301 https://host$request_uri`."""
    if rule.conds or "R" not in rule.flags or rule.pattern not in _WHOLE:
        return None
    m = re.fullmatch(r"(https?://(?:%\{HTTP_HOST\}|%\{SERVER_NAME\}|[A-Za-z0-9.\-:\[\]]+))"
                     r"(?:/\$1|%\{REQUEST_URI\}|/)?", rule.substitution)
    if not m or "?" in rule.substitution:
        return None
    if rule.substitution.endswith("/") and "(" in rule.pattern:
        return None   # redirects everything to the home page, not this form
    host = m.group(1).replace("%{HTTP_HOST}", "$http_host").replace("%{SERVER_NAME}", "$server_name")
    code = _status(rule.flags["R"])
    if code is None or not 300 <= int(code) < 400:
        return None
    if rule.substitution.endswith("/$1") and captures_slash(rule.pattern):
        host += "/"   # $1 starts with the path's own slash: httpd sends a doubled one
    return Stmt("return", [code, host + "$request_uri"], rule.span,
                comment="httpd appends the decoded path re-escaped; $request_uri is the raw one")


def front_controller(rules: list[RRule]) -> tuple[int, str] | None:
    """`!-f` + `!-d` conditions and a rewrite of everything to one script: (index of the rule, script)."""
    for i, rule in enumerate(rules):
        tests = {(c.test.upper(), c.pattern) for c in rule.conds if "OR" not in c.flags}
        if len(rule.conds) != 2 or tests != {("%{REQUEST_FILENAME}", "!-f"), ("%{REQUEST_FILENAME}", "!-d")}:
            continue
        if rule.pattern not in _WHOLE | {"^(.+)$", ".", "^(.*)$"} or "R" in rule.flags:
            continue
        script = rule.substitution.split("?", 1)[0]
        if not re.fullmatch(r"/?[A-Za-z0-9_./-]+", script) or "$" in rule.substitution:
            continue
        return i, script
    return None


def _script_passthrough(rule: RRule, script: str) -> bool:
    """`RewriteRule ^index\\.php$ - [L]` before a front controller: try_files serves the script as it is."""
    if rule.conds or rule.substitution != "-" or set(rule.flags) - {"L", "END", "NC"}:
        return False
    name = script.rsplit("/", 1)[-1]
    return rule.pattern in (f"^{re.escape(name)}$", f"^{name}$", f"^/{re.escape(name)}$", f"^/{name}$")


def literal_redirect(rule: RRule) -> tuple[str, str, str] | None:
    """A condition-free redirect of one literal path: (path, target, code)."""
    if rule.conds or "R" not in rule.flags:
        return None
    # a literal path: every `.` escaped (an unescaped one matches any character)
    m = re.fullmatch(r"\^(/?(?:[A-Za-z0-9_/\-~]|\\\.)*)\$", rule.pattern)
    if not m or re.search(r"[$%?\s]", rule.substitution) or "NC" in rule.flags or set(rule.flags) - {"R", "L"}:
        return None
    code = _status(rule.flags["R"])
    if code is None or not 300 <= int(code) < 400:
        return None
    return m.group(1).replace("\\.", "."), rule.substitution, code


def canonical_host(rule: RRule) -> tuple[str, bool, str] | None:
    """`RewriteCond %{HTTP_HOST} [!]^host$` + a whole-path redirect: (host, negated, return target)."""
    if len(rule.conds) != 1 or "R" not in rule.flags or rule.pattern not in _WHOLE:
        return None
    cond = rule.conds[0]
    if cond.test.upper() != "%{HTTP_HOST}" or cond.flags - {"NC"}:
        return None
    pattern, negated = cond.pattern, cond.pattern.startswith("!")
    if negated:
        pattern = pattern[1:]
    m = re.fullmatch(r"\^((?:[A-Za-z0-9-]|\\\.)+)\$", pattern)
    if not m:
        return None
    host = m.group(1).replace("\\.", ".").lower()
    t = re.fullmatch(r"(https?://[A-Za-z0-9.\-]+(?::\d+)?)(?:/\$1|%\{REQUEST_URI\}|/)?", rule.substitution)
    if not t or (rule.substitution.endswith("/") and "(" in rule.pattern):
        return None
    slash = "/" if rule.substitution.endswith("/$1") and captures_slash(rule.pattern) else ""
    return host, negated, t.group(1) + slash + "$request_uri"


def captures_slash(pattern: str) -> bool:
    """In server context the path starts with `/`: `^(.*)$` captures it, `^/(.*)$` and `^/?(.*)$` do not."""
    return pattern in ("^(.*)$", "(.*)", "^(.*)")


def _split_canonical(ctx: Context, server: Server, rule: RRule) -> bool:
    """A canonical-host redirect becomes a server of its own for the redirected names, as nginx prefers."""
    found = canonical_host(rule)
    if found is None or server is ctx.main or server.ssl is None:
        return False
    host, negated, target = found
    names = [n for n in server.names]
    if host not in names:
        return False
    code = _status(rule.flags["R"])
    if code is None or not 300 <= int(code) < 400:
        return False
    redirect = Server(span=rule.span, addresses=list(server.addresses), ssl=server.ssl,
                      statements=[s for s in server.statements if s.name.startswith("ssl_")])
    redirect.own_statements.append(Stmt("return", [code, target], rule.span,
                                        comment="canonical host: RewriteCond %{HTTP_HOST} + RewriteRule"))
    position = ctx.model.servers.index(server)
    if negated:
        # Every name but `host` (and, as the first vhost, unknown hosts) is redirected.
        redirect.names = [n for n in names if n != host]
        redirect.name_spans = [rule.span] * len(redirect.names)
        server.names, server.name_spans = [host], [server.name_spans[0] if server.name_spans else rule.span]
        ctx.model.servers.insert(position, redirect)
    else:
        redirect.names, redirect.name_spans = [host], [rule.span]
        server.names = [n for n in names if n != host]
        server.name_spans = server.name_spans[:len(server.names)]
        ctx.model.servers.insert(position + 1, redirect)
    redirect.has_server_name = True
    ctx.diags.add("A2N822", f"canonical-host rule for {host}: a server of its own answers with the redirect; "
                  "nginx matches the host name without its port, where %{HTTP_HOST} includes a port the "
                  "client sent", rule.span, directive="RewriteRule")
    return True


N_UNROLL = 16


def _not_translated(ctx: Context, rule: RRule, code: str, why: str) -> None:
    """Report a rule (and its conditions) as untranslated: an error, never a silent drop."""
    ctx.diags.add(code, f"RewriteRule {rule.pattern} {rule.substitution}: {why}; nothing was emitted for this rule",
                  rule.span, directive="RewriteRule")
    for directive in [rule.directive] + [c.directive for c in rule.conds]:
        ctx.redispose(directive, Disposition.UNSUPPORTED)


def _unrolled(ctx: Context, compiler: Compiler, rule: RRule) -> tuple[list[Stmt], bool]:
    """The first rule of a context with [N]: restarting the ruleset from the top re-applies this rule until
    it no longer matches, so it is written out that many times (at most N_UNROLL); within httpd's bound a
    further match answers 500 as httpd does."""
    limit = rule.flags.get("N", "")
    # observed on httpd 2.4: with N=k the rule may apply k-2 times, the next match is a 500
    rounds = max(int(limit) - 2, 0) if limit.isdigit() and int(limit) > 0 else 32000 - 2
    times = min(rounds, N_UNROLL)
    if "L" in rule.flags or "END" in rule.flags or "R" in rule.flags or "P" in rule.flags:
        raise Unsupported("A2N813", "[N] together with [L], [END], [R] or [P] is not translated")
    plain = RRule(rule.pattern, rule.substitution, {k: v for k, v in rule.flags.items() if k != "N"}, rule.conds,
                  rule.span, rule.directive, rule.index)
    out: list[Stmt] = []
    for _ in range(times):
        out.extend(compiler.rule_statements(plain))
    bounded = rounds <= N_UNROLL
    if bounded:
        # httpd gives up with a 500 once the bound is reached and the rule still matches
        fail = RRule(rule.pattern, "-", {"R": "500"}, rule.conds, rule.span, rule.directive, rule.index)
        out.extend(compiler.rule_statements(fail))
    else:
        ctx.diags.add("A2N833", f"RewriteRule {rule.pattern} {rule.substitution} [N]: repeated {times} times; "
                      f"httpd repeats it until it no longer matches (up to {rounds} times)", rule.span,
                      directive="RewriteRule")
    return out, bounded


class _Flow:
    """[C] and [S] across a ruleset: which guards a rule runs under and which marks it sets.

    A rule after a [C] rule runs only if that rule matched (`$a2n_chainN = 1`); the N rules after an [S=N]
    rule run only if it did not (`$a2n_skipN = ""`). A rule whose head could not be translated is not
    translated either: it would run where httpd skips it."""

    def __init__(self) -> None:
        self.number = 0
        self.chain: str | None = None          # guard from the previous rule's [C]
        self.chain_broken: str | None = None   # why the chain cannot be followed
        self.chain_never = False               # the chain's head can never fire
        self.skips: list[list] = []            # [remaining rules, guard or None when the [S] rule failed]
        self.pending_init: list[Stmt] = []

    def enter(self, rule: RRule | None, original: RRule) -> tuple[list[str], list[str], str | None, bool]:
        """(guards, marks, why it cannot be translated or None, whether it can never fire)."""
        guards = [g for _, g in self.skips if g]
        blocked = next(("it is skipped by an [S] rule that is not translated" for _, g in self.skips
                        if g is None), None)
        self.skips = [[n - 1, g] for n, g in self.skips if n - 1 > 0]
        if self.chain is not None:
            guards.append(self.chain)
        if self.chain_broken is not None:
            blocked = blocked or self.chain_broken
        never = self.chain_never
        self.chain, self.chain_broken, self.chain_never = None, None, False
        if rule is None or never:
            # A rule that can never fire never skips, and the rules chained to it never run either.
            self.chain_never = "C" in original.flags
            return guards, [], None, True
        marks: list[str] = []
        self.pending_init = []
        if "C" in rule.flags:
            self.number += 1
            mark = f"$a2n_chain{self.number}"
            marks.append(mark)
            self.pending_init.append(Stmt("set", [mark, ""], rule.span))
            self.chain = f"{mark} = 1"
        skip = rule.flags.get("S")
        if skip is not None:
            if not skip.isdigit() or int(skip) < 1:
                blocked = blocked or f"[S={skip}] is not a positive number of rules"
            else:
                self.number += 1
                mark = f"$a2n_skip{self.number}"
                marks.append(mark)
                self.pending_init.append(Stmt("set", [mark, ""], rule.span))
                self.skips.append([int(skip), f'{mark} = ""'])
        if blocked is not None and "C" in rule.flags:
            self.chain, self.chain_broken = None, "it is chained ([C]) to a rule that is not translated"
        return guards, marks, blocked, False

    def emitted(self, stmts: list[Stmt]) -> None:
        stmts[:0] = self.pending_init

    def failed(self, rule: RRule) -> None:
        if "C" in rule.flags:
            self.chain, self.chain_broken = None, "it is chained ([C]) to a rule that is not translated"
        if "S" in rule.flags and self.skips and self.skips[-1][1] and self.skips[-1][1].startswith(
                f"$a2n_skip{self.number} "):
            self.skips[-1][1] = None


# ----------------------------------------------------------------- per server

LITERAL_MAP_THRESHOLD = 8


def finish_server(ctx: Context, server: Server) -> None:
    own = list(server.settings.get("directory_rewrites", {}).values())
    inherited = [] if server is ctx.main else list(ctx.main.settings.get("directory_rewrites", {}).values())
    for state in inherited + own:
        prefix = _directory_url(ctx, server, state.directory or "")
        if prefix is None:
            continue
        state.mapped = True
        state.per_dir = prefix
        _finish_state(ctx, server, state)
    state = server.settings.get("rewrite")
    main_state = ctx.main.settings.get("rewrite") if server is not ctx.main else None
    if main_state is not None:
        state = _merged_with_main(state, main_state)
    if state is not None:
        _finish_state(ctx, server, state)


def finish_model(ctx: Context) -> None:
    """Per-directory rules no server serves: httpd never applies them, and they are reported."""
    states = [s for server in [ctx.main] + ctx.model.servers
              for s in server.settings.get("directory_rewrites", {}).values()]
    for state in {id(s): s for s in states}.values():
        if state.mapped:
            continue
        for rule in state.rules:
            ctx.diags.add("A2N826", f"RewriteRule in <Directory {state.directory}>: no DocumentRoot of this "
                          "configuration serves the directory, so the URL it governs is unknown; nothing was emitted",
                          rule.span, directive="RewriteRule")
        for directive in state.directives:
            ctx.redispose(directive, Disposition.UNSUPPORTED)


def _merged_with_main(state: RewriteContext | None, main: RewriteContext) -> RewriteContext | None:
    """A virtual host's rewrite state as httpd merges it: the engine setting comes from the main server
    unless the host sets its own, and the main server's rules join only with Inherit (or InheritDown)."""
    mode = (state.inherit if state is not None else None) or main.inherit_down
    if state is None:
        if mode is None or not main.rules:
            return None
        state = RewriteContext()
    merged = RewriteContext(engine=state.engine if state.engine is not None else main.engine,
                            engine_span=state.engine_span or main.engine_span, base=state.base,
                            rules=list(state.rules), pending=state.pending, directives=list(state.directives),
                            per_dir=state.per_dir)
    if mode is not None:
        copies = [RRule(r.pattern, r.substitution, dict(r.flags), list(r.conds), r.span, r.directive, r.index)
                  for r in main.rules]
        merged.rules = copies + merged.rules if mode == "before" else merged.rules + copies
    return merged


def _directory_url(ctx: Context, server: Server, directory: str) -> str | None:
    """The URL path a filesystem directory serves through the server's DocumentRoot."""
    from .core import DEFAULT_DOCUMENT_ROOT
    root = (server.root or ctx.main.root or DEFAULT_DOCUMENT_ROOT).rstrip("/")
    directory = directory.rstrip("/")
    if directory == root:
        return "/"
    if directory.startswith(root + "/"):
        return directory[len(root):] + "/"
    return None


def _finish_state(ctx: Context, server: Server, state: RewriteContext) -> None:
    if state.pending:
        for cond in state.pending:
            ctx.diags.add("A2N817", "RewriteCond with no RewriteRule after it: httpd ignores it", cond.span,
                          directive="RewriteCond")
    if not state.rules:
        return
    if state.engine is None and not ctx.options.get("rewrite_engine_mentioned"):
        # No RewriteEngine anywhere in the input: a snippet meant for a context that turns it on.
        ctx.diags.add("A2N824", "the input never sets RewriteEngine: its rules are translated as if the including "
                      "context turned it on (httpd ignores them otherwise)", state.rules[0].span,
                      directive="RewriteRule", hint="add RewriteEngine On to the file if it is used on its own")
        state.engine = True
        for directive in state.directives:
            ctx.redispose(directive, Disposition.APPROXIMATE)
    if not state.engine:
        for rule in state.rules:
            ctx.diags.add("A2N818", "RewriteEngine is not on in this context: httpd ignores this rule, and so does "
                          "the translation", rule.span, directive="RewriteRule")
        for directive in state.directives:
            ctx.redispose(directive, Disposition.NOT_APPLICABLE)
        return
    compiler = Compiler(ctx, server, state)
    tls = server.ssl
    # [C] chains and [S] skips make rules depend on their neighbours: keep every position (None for a rule
    # that can never fire) and leave the ruleset-wide idioms alone.
    flow = any("C" in r.flags or "S" in r.flags for r in state.rules)
    rules: list[RRule | None] = []
    for rule in state.rules:
        decided = static_https(rule, tls)
        if decided is None:
            ctx.diags.add("A2N819", f"RewriteRule {rule.pattern}: its %{{HTTPS}} condition never holds on this "
                          f"{'TLS' if tls else 'plain-HTTP'} server, so httpd never applies it", rule.span,
                          directive="RewriteRule")
            if flow:
                rules.append(None)
            continue
        rules.append(decided)
    statements: list[Stmt] = []
    location_statements: list[Stmt] = []
    fc = front_controller(rules) if not flow else None
    if fc is not None:
        i, script = fc
        prefix = (state.per_dir or "/").rstrip("/") + "/"
        target = script if script.startswith("/") else (state.base or prefix).rstrip("/") + "/" + script
        server.locations.insert(0, Location("^~" if prefix != "/" else "", prefix, [
            Stmt("try_files", ["$uri", "$uri/", target + "$is_args$args"], rules[i].span,
                 comment="front controller: RewriteCond !-f, !-d and RewriteRule")], rules[i].span))
        if state.per_dir is None:
            ctx.diags.add("A2N820", "front controller in server context: httpd tests the URL path itself as a file "
                          "name (%{REQUEST_FILENAME} is not mapped yet), which rarely exists; the translation "
                          "applies the intended document-root test (try_files)", rules[i].span,
                          directive="RewriteRule")
        rules = [r for j, r in enumerate(rules) if j != i and not _script_passthrough(r, target)]
    literal = [literal_redirect(r) if not flow else None for r in rules]
    run: list[int] = [i for i, lit in enumerate(literal) if lit is not None]
    map_indices: set[int] = set()
    if len(run) >= LITERAL_MAP_THRESHOLD and state.per_dir is None:
        # Literal redirects are first-match and independent: one hashed map keeps lookup cost flat.
        by_code: dict[str, list[int]] = {}
        for i in run:
            by_code.setdefault(literal[i][2], []).append(i)
        for code, indices in by_code.items():
            if len(indices) < LITERAL_MAP_THRESHOLD:
                continue
            var = f"$a2n_redirect_{code}_{len(ctx.model.maps)}"
            entries: list[tuple[str, str]] = []
            seen: set[str] = set()
            for i in indices:
                path, target, _ = literal[i]
                path = path if path.startswith("/") else "/" + path
                if path not in seen:
                    seen.add(path)
                    # nginx map strings match ignoring case, httpd's patterns do not: the value carries the
                    # path, and the redirect happens only when it equals $uri exactly.
                    entries.append((_map_key(path), f"{path} {target}"))
            span = rules[indices[0]].span
            ctx.model.maps.append(MapBlock("$uri", var, entries, '""', span=span))
            pair = f"{var}_pair"
            statements.append(Stmt("set", [pair, f"$uri {var}"], span,
                                   comment=f"{len(entries)} literal RewriteRule redirects"))
            statements.append(Stmt("if", [f'({pair} ~ "^(\\S+) \\1 (\\S+)$")'], span,
                                   block=[Stmt("return", [code, "$2$is_args$args"], span)]))
            map_indices |= set(indices)
    flow_state = _Flow()
    for i, rule in enumerate(rules):
        if i in map_indices:
            continue
        guards, marks, blocked, never = flow_state.enter(rule, state.rules[i] if flow else rule)
        if never:
            if rule is not None:
                ctx.diags.add("A2N819", f"RewriteRule {rule.pattern}: it is chained ([C]) to a rule that never "
                              "applies on this server, so httpd never applies it either", rule.span,
                              directive="RewriteRule")
            continue
        if blocked is not None:
            _not_translated(ctx, rule, "A2N830", blocked)
            flow_state.failed(rule)
            continue
        if "N" in rule.flags and i == 0 and not guards and not marks:
            try:
                stmts, exact = _unrolled(ctx, compiler, rule)
            except Unsupported as exc:
                _not_translated(ctx, rule, exc.code, exc.message)
                continue
            for directive in [rule.directive] + [c.directive for c in rule.conds]:
                ctx.redispose(directive, Disposition.EXACT if exact else Disposition.APPROXIMATE)
            (location_statements if state.per_dir is not None else statements).extend(stmts)
            continue
        if guards or marks:
            try:
                stmts = compiler.rule_statements(rule, guards, marks)
            except Unsupported as exc:
                _not_translated(ctx, rule, exc.code, exc.message)
                flow_state.failed(rule)
                continue
            flow_state.emitted(stmts)
            (location_statements if state.per_dir is not None else statements).extend(stmts)
            continue
        if rule.substitution.endswith("/$1") and captures_slash(rule.pattern) and "R" in rule.flags:
            ctx.diags.add("A2N823", f"RewriteRule {rule.pattern} {rule.substitution}: in server context $1 starts "
                          "with the path's slash, so httpd redirects to a doubled slash; the translation does the "
                          "same", rule.span, directive="RewriteRule", hint="use ^/?(.*)$ as the pattern")
        if state.per_dir is None and _split_canonical(ctx, server, rule):
            continue
        whole = whole_site_redirect(rule) if state.per_dir is None else None
        if whole is not None:
            statements.append(whole)
            ctx.diags.add("A2N405", f"RewriteRule {rule.pattern}: the redirect keeps the raw request path "
                          "($request_uri); httpd merges repeated slashes and re-escapes it", rule.span,
                          directive="RewriteRule")
            continue
        try:
            stmts = compiler.rule_statements(rule)
        except Unsupported as exc:
            _not_translated(ctx, rule, exc.code, exc.message)
            continue
        (location_statements if state.per_dir is not None else statements).extend(stmts)
    if compiler.needs_request_uri:
        # %{REQUEST_URI} keeps the original path through the whole ruleset in server context.
        statements.insert(0, Stmt("set", ["$a2n_request_uri", "$uri"], None))
        location_statements.insert(0, Stmt("set", ["$a2n_request_uri", "$uri"], None))
    if state.per_dir is not None and location_statements:
        prefix = state.per_dir.rstrip("/") + "/"
        loc = next((l for l in server.locations if l.path == prefix and l.modifier in ("", "^~")), None)
        if loc is None:
            loc = Location("^~" if prefix != "/" else "", prefix, [], state.rules[0].span)
            server.locations.append(loc)
        loc.statements = location_statements + loc.statements
        ctx.diags.add("A2N821", "per-directory rewrite rules run in nginx before the location's access checks; "
                      "httpd runs them after authentication and authorization", state.rules[0].span,
                      directive="RewriteRule")
    server.own_statements.extend(statements)
