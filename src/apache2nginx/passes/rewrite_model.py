"""mod_rewrite's rules as the translation reads them: conditions, rules, per-context state, flags, maps
and the %{VARIABLE} table; shared by the handlers, the compiler and the idioms."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..syntax.span import Span
from ..syntax.tree import Directive

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
# the path a per-directory rewrite to a URL path redirected the request from: httpd's r->uri of the request that
# its internal redirect replaced (emit.layout.hold_redirected_from sets it), empty where none did
REDIRECTED_FROM = "$a2n_redirected_from"


def env_variable(name: str) -> str:
    """The nginx variable an [E=NAME] flag sets (prefixed: nginx refuses `set` on its own names, case-blind)."""
    return "$a2n_env_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


# %{TIME_*} as pieces of $time_iso8601 (2026-11-21T06:37:07+00:00); TIME_WDAY has no source in nginx.
_TIME_PARTS = {"TIME_YEAR": "$1", "TIME_MON": "$2", "TIME_DAY": "$3", "TIME_HOUR": "$4", "TIME_MIN": "$5",
               "TIME_SEC": "$6", "TIME": "$1$2$3$4$5$6"}

PER_DIR_VARIABLES = {"REQUEST_FILENAME": "$request_filename", "SCRIPT_FILENAME": "$request_filename"}
_FLAG_SPLIT = re.compile(r",(?![^\[]*\])")


@dataclass
class Cond:
    test: str
    pattern: str
    flags: set[str]
    span: Span
    directive: Directive
    refused: bool = False   # httpd cannot compile its regular expression (an A2N001 said so)


@dataclass
class RRule:
    pattern: str
    substitution: str
    flags: dict[str, str]
    conds: list[Cond]
    span: Span
    directive: Directive
    index: int = 0

    def settle(self, ctx, disposition, diag=None) -> None:
        """The rule and its conditions share one fate; DIAG, the diagnostic that says why, names the lines
        of the ones it does not stand on."""
        for directive in [self.directive] + [c.directive for c in self.conds]:
            ctx.redispose(directive, disposition)
            if diag is not None:
                diag.relate(directive.span)


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
    literal: bool = True           # a <Directory> of a path (not <DirectoryMatch> nor <Directory ~ regex>)
    mapped: bool = False           # some server serves that directory
    shadowed: str | None = None    # its document-root URL, which an Alias/Redirect/ProxyPass maps elsewhere


# set where a server-context [END] applied: the per-directory rules of the request do not run (rewrite._end_guard)
END_MARK = "$a2n_end"


def ends_rewriting(rule: "RRule") -> bool:
    """A rule that notes END for the rest of the request where it applies (apply_rewrite_list sets
    really_last_key in the request's pool): [END] without [PT], whose pass-through leaves the rules first."""
    return "END" in rule.flags and "PT" not in rule.flags


PER_DIRECTORY = {"rewriteengine", "rewritecond", "rewriterule", "rewritebase", "rewriteoptions"}


def _capture_starts_path(pattern: str) -> bool:
    """In server context, $1 of these patterns begins with the URL path's own `/`: `^(/...` anchors it, and
    an unanchored `(.*...` matches leftmost, from the start of the path."""
    return pattern.startswith(("^(/", "^(.*", "(.*", "^(.+", "(.+"))


# the comments of the `return 403` that stands for rules refusing requests that are not translated: the
# layout repeats it in the locations it nests there
DIRECTORY_REFUSAL = "per-directory rules that may refuse are not translated"
# an Alias onto a directory with per-directory rules: its URLs there are refused
ALIAS_REFUSAL = "per-directory rewrite rules of an aliased directory are not translated"
LOCATION_REFUSAL = "a RewriteRule here is not translated: refused"
# the path and the URL the tests of such a <Location>'s rules read (Stmt.rule_tests): httpd matches a rule
# against the mapped file path, then against the index file's where mod_dir looks one up
REWRITE_FILE = "$a2n_rwfile"
REWRITE_URI = "$a2n_rwuri"
SYMLINKS_REFUSAL = "RewriteEngine On without FollowSymLinks: httpd refuses the directory (AH00670)"
# the same below the directory whose rules they are: there the directory's own name (no slash) is refused too
SYMLINKS_REFUSAL_BELOW = "RewriteEngine On above, without FollowSymLinks here: httpd refuses the directory (AH00670)"
# the same where a section the translation cannot place may take FollowSymLinks away (A2N844): httpd refuses only
# where it applies and runs the rules elsewhere, so the 403 is the translation's (emit.inherit._refusal)
SYMLINKS_UNPLACED = "RewriteEngine On where a section may take FollowSymLinks away: not translated, the " \
    "directory refused (AH00670 there)"
REWRITE_REFUSALS = (DIRECTORY_REFUSAL, LOCATION_REFUSAL, SYMLINKS_REFUSAL, SYMLINKS_REFUSAL_BELOW, SYMLINKS_UNPLACED)


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
        key = key.strip().upper()
        if key in _REPEATABLE and out.get(key):
            out[key] += _SEPARATOR + value.strip()    # every [E=]/[CO=] of a rule counts, in order
        else:
            out[key] = value.strip()
    return out


# [E=] and [CO=] may be given several times in one rule (each sets a variable or a cookie); their values are
# kept together in the flag's entry, apart by a character a configuration line cannot hold
_REPEATABLE = {"E", "ENV", "CO", "COOKIE"}
_SEPARATOR = "\x1f"


def flag_values(flags: dict[str, str], key: str) -> list[str]:
    """Every value given to a repeatable flag ([E=...], [CO=...]) of a rule, in order."""
    value = flags.get(key)
    return [v for v in value.split(_SEPARATOR) if v] if value else []


_LONG = {"LAST": "L", "NOCASE": "NC", "REDIRECT": "R", "QSAPPEND": "QSA", "QSDISCARD": "QSD", "NOESCAPE": "NE",
         "PASSTHROUGH": "PT", "PROXY": "P", "FORBIDDEN": "F", "GONE": "G", "ENV": "E", "COOKIE": "CO",
         "TYPE": "T", "HANDLER": "H", "SKIP": "S", "CHAIN": "C", "NEXT": "N", "NOSUBREQ": "NS",
         "DISCARDPATH": "DPI", "ORNEXT": "OR", "NOVARY": "NV", "QSLAST": "QSL", "BACKREFNOPLUS": "BNP"}


# The flags httpd 2.4 accepts (anything else: "unknown flag", the configuration is refused).
RULE_FLAGS = {"B", "BCTLS", "BNE", "BNP", "C", "CO", "DPI", "E", "END", "F", "G", "H", "L", "N", "NC", "NE", "NS",
              "P", "PT", "QSA", "QSD", "QSL", "R", "S", "T", "UNSAFEALLOW3F", "UNSAFEPREFIXSTAT"}
COND_FLAGS = {"NC", "OR", "NV"}


def _normalise(flags: dict[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in flags.items():
        key = _LONG.get(k, k)
        out[key] = out[key] + _SEPARATOR + v if key in _REPEATABLE and out.get(key) and v else v
    return out


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


def _closing_curly(text: str, start: int) -> int | None:
    """The index of the `}` closing a `{` just before START (nested braces counted), as httpd finds it."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _colon_in_curlies(text: str, start: int, end: int) -> bool:
    depth = 0
    for c in text[start:end]:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ":" and depth == 0:
            return True
    return False


def pieces(text: str) -> list[tuple[str, str]]:
    """A substitution (or a condition's test string) as httpd's do_expand reads it, in order: ("text", the
    literal characters, `\\X` read as X), ("var", NAME) for %{NAME}, ("map", BODY) for ${BODY} (a BODY with a
    `:`; without one `${` is literal), ("rule", "N") for $N and ("cond", "N") for %N. A `%{` or `${` without
    its `}`, and a `$` or `%` before anything else, are literal."""
    out: list[tuple[str, str]] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            out.append(("text", "".join(buf)))
            buf.clear()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            buf.append(text[i + 1] if i + 1 < n else c)
            i += 2
            continue
        if c in "$%" and i + 1 < n:
            following = text[i + 1]
            if following == "{":
                end = _closing_curly(text, i + 2)
                if end is not None and (c == "%" or _colon_in_curlies(text, i + 2, end)):
                    flush()
                    out.append(("var" if c == "%" else "map", text[i + 2:end]))
                    i = end + 1
                    continue
                buf.append(text[i:i + 2])
                i += 2
                continue
            if following.isdigit():
                flush()
                out.append(("rule" if c == "$" else "cond", following))
                i += 2
                continue
        buf.append(c)
        i += 1
    flush()
    return out


# Patterns that match every URL path (and those that capture all of it).
_MATCH_ALL = {"^", "^.*$", ".*", "^(.*)$", "(.*)", "^(.*)", "^/?(.*)$", "^/?(.*)", "(?i)^", "(?i).*"}
_WHOLE = {"^(.*)$", "^/?(.*)$", "(.*)", "^/(.*)$", "^(.*)", "^", ".*", "^.*$", "^/(.*)", "^/?(.*)"}


def regex_tokens(pattern: str):
    """(start, end) of each atom of a regular expression as its syntax sees it: an escape (`\\x`) or a
    character class (`[...]`, with `]` first and escapes inside) is one atom, any other character another."""
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            end = i + 2
        elif c == "[":
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            end = j + 1
        else:
            end = i + 1
        yield i, min(end, len(pattern))
        i = end


def alternates_at_top(pattern: str) -> bool:
    """Whether a regular expression holds a `|` outside every group and class: its `^` and `$` then bind to
    one alternative each (`^/a|\\.bak$` is `(^/a)|(\\.bak$)`), so text put before or after it needs a group."""
    depth = 0
    for i, j in regex_tokens(pattern):
        atom = pattern[i:j]
        depth += {"(": 1, ")": -1}.get(atom, 0)
        if atom == "|" and depth == 0:
            return True
    return False


def rule_urls(rule: RRule) -> list[tuple[str, bool]]:
    """The URLs a server-context rule applies to, as a diagnostic names them (Diagnostic.urls): its pattern;
    none named (every URL) for a negated pattern."""
    return [(("(?i)" if "NC" in rule.flags else "") + rule.pattern.lstrip("!"), True)] \
        if not rule.pattern.startswith("!") else []
