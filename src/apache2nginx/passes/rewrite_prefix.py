"""The per-directory prefix of a substitution, decided on its expanded value as httpd decides it.

In a per-directory context mod_rewrite expands the substitution first and only then adds the directory
back (`add per-dir prefix`, later swapped for RewriteBase or stripped of the DocumentRoot): unless the
expanded path starts with `/` or is an absolute URI (`http://...`, `mailto:`...). A substitution that
begins with a variable, a back-reference or a map lookup therefore gets the prefix or not depending on
what that value holds at request time (Symfony's `%{ENV:BASE}/index.php`: BASE is empty or `/sub`, so
never a prefix).

`leading_kinds` says what the expanded value can begin with: "/" (an absolute path), "rel" (anything the
prefix is added to, including an empty path) or "abs" (an absolute URI). Where the answer is one kind
the translator decides at conversion time; otherwise a volatile map over the expanded path chooses the
prefix per request.
"""
from __future__ import annotations

import re

from .rewrite_model import RRule, env_variable, regex_tokens

ALL = frozenset({"/", "rel", "abs", "empty"})
# is_absolute_uri() of mod_rewrite (httpd 2.4): these schemes, case-insensitive
ABSOLUTE = re.compile(r"(?i)^(?:(?:ajp|balancer|fcgi|ftp|gopher|https?|h2c?|ldap|nntp|scgi|wss?)://"
                      r"|(?:mailto|news|unix):)")
# the same as an nginx map key (no capturing groups: a map's regex must not reset the rule's $1..$9)
ABSOLUTE_KEY = "~*^(?:(?:ajp|balancer|fcgi|ftp|gopher|https?|h2c?|ldap|nntp|scgi|wss?)://|(?:mailto|news|unix):)"
_SCHEMES = tuple(f"{s}://" for s in ("ajp", "balancer", "fcgi", "ftp", "gopher", "http", "https", "h2", "h2c",
                                       "ldap", "nntp", "scgi", "ws", "wss")) + ("mailto:", "news:", "unix:")
# server variables whose value always starts with `/`, or never with `/` (nor is a URI)
_SLASH_VARIABLES = {"REQUEST_URI", "REQUEST_FILENAME", "SCRIPT_FILENAME", "DOCUMENT_ROOT", "CONTEXT_DOCUMENT_ROOT",
                    "SCRIPT_NAME"}
_NAME_VARIABLES = {"SERVER_NAME", "SERVER_PORT", "REMOTE_ADDR", "REQUEST_METHOD", "REQUEST_SCHEME", "SERVER_ADDR",
                   "REMOTE_PORT", "HTTPS"}


def record_env(options: dict, value: str, rule: RRule, per_dir: bool) -> None:
    """Remember an [E=NAME:VALUE] flag: %{ENV:NAME} holds one of these values, or nothing."""
    name, _, val = value.partition(":")
    if name.startswith("!"):
        return                        # unset: empty, which `empty` already covers
    options.setdefault("rewrite_env_values", {}).setdefault(name, []).append((val, rule, per_dir))


def server_env(server, value: str, server_level: bool) -> None:
    """Note on SERVER which variables its [E=NAME:VALUE] flags set (settings "rewrite_env"): NAME -> the
    nginx variable, for a server-level rule setting a literal non-empty value; NAME -> None where another
    rule unsets it, sets it per directory, or to a value that may be empty (present in httpd, where the
    nginx variable would read as unset). setenvif.resolve reads it for env= readers."""
    name, _, val = value.lstrip("!").partition(":")
    known = server.settings.setdefault("rewrite_env", {})
    plain = server_level and not value.startswith("!") and val and not re.search(r"[$%\\]", val)
    if plain and known.get(name.lower(), env_variable(name)) == env_variable(name):
        known[name.lower()] = env_variable(name)
    else:
        known[name.lower()] = None


def _pieces(text: str):
    """The substitution as (kind, text, end) pieces: literal, var (%{...}), map (${...}), rule ($N), cond (%N);
    `end` is where the piece stops in `text`."""
    i, n = 0, len(text)
    literal = []
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            literal.append(text[i + 1])
            i += 2
            continue
        if c in "%$" and i + 1 < n and text[i + 1] == "{":
            end, depth = i + 2, 1
            while end < n and depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if literal:
                yield "literal", "".join(literal), i
                literal = []
            yield ("var" if c == "%" else "map"), text[i + 2:end - 1], end
            i = end
            continue
        if c in "%$" and i + 1 < n and text[i + 1].isdigit():
            if literal:
                yield "literal", "".join(literal), i
                literal = []
            yield ("cond" if c == "%" else "rule"), text[i + 1], i + 2
            i += 2
            continue
        literal.append(c)
        i += 1
    if literal:
        yield "literal", "".join(literal), n


def leading_kinds(text: str, rule: RRule, per_dir: bool, options: dict, depth: int = 0) -> set[str]:
    """What the expansion of `text` (in `rule`) can start with: a subset of {"/", "rel", "abs"}."""
    out: set[str] = set()
    for kind, value, end in _pieces(text):
        if kind == "var" and value.upper().startswith("ENV:") and depth < 4:
            values = options.get("rewrite_env_values", {}).get(value[4:])
            if values is not None and all(_literal(v) for v, _, _ in values):
                # literal values (h5bp's PROTO: http or https): read each with what follows it, or unset
                rest = text[end:]
                for val, _, _ in values:
                    out |= leading_kinds(val + rest, rule, per_dir, options, depth + 1)
                return out | leading_kinds(rest, rule, per_dir, options, depth + 1)
        if kind == "literal":
            if value.startswith("/"):
                out.add("/")
            elif ABSOLUTE.match(value):
                out.add("abs")
            elif any(scheme.startswith(value.lower()) for scheme in _SCHEMES):
                out |= {"rel", "abs"}         # a scheme completed by what follows, perhaps
            else:
                out.add("rel")
            return out
        kinds = _piece_kinds(kind, value, rule, per_dir, options, depth)
        out |= kinds - {"empty"}
        if "empty" not in kinds:
            return out
    out.add("rel")                    # all of it may be empty: httpd adds the prefix to an empty path
    return out


def _piece_kinds(kind: str, value: str, rule: RRule, per_dir: bool, options: dict, depth: int) -> set[str]:
    if kind == "rule":
        if not per_dir:
            return set(ALL)
        start = _group_start(rule.pattern, int(value))
        if start is not None and (rule.pattern[:start] == "^" or rule.pattern[start - 1] == "/"):
            # the path after the directory's prefix, or after a `/` of it: its slashes are merged, so never `/`
            return {"rel", "empty"}
        # a per-directory path has its slashes merged: it holds no `://`
        return {"/", "rel", "empty"}
    if kind == "cond":
        # %N come from the last regular expression condition that matched (a negated one captures nothing):
        # any of them, where [OR] lets one be skipped
        regex = [c for c in rule.conds if not re.match(r"!|-[A-Za-z]|[<>=]", c.pattern)]
        if not any("OR" in c.flags for c in rule.conds):
            regex = regex[-1:]
        if not regex or value != "1":
            return set(ALL)
        out = set()
        for cond in regex:
            out |= _first_group_kinds(cond.test, cond.pattern)
        return out
    if kind == "var":
        upper = value.upper()
        if upper.startswith("ENV:") and depth < 4:
            values = options.get("rewrite_env_values", {}).get(value[4:])
            if values is None:
                return set(ALL)
            out = {"empty"}           # unset until a rule sets it
            for val, setter, setter_per_dir in values:
                if val == "":
                    continue
                kinds = leading_kinds(val, setter, setter_per_dir, options, depth + 1)
                # leading_kinds counts an all-empty value as "rel": here it is empty, the rest decides
                if _may_be_empty(val):
                    kinds = kinds | {"empty"}
                out |= kinds
            return out
        if upper in _SLASH_VARIABLES:
            return {"/"}
        if upper in _NAME_VARIABLES:
            return {"rel"}
        if upper == "HTTP_HOST":
            return {"rel", "empty"}       # empty without a Host header (HTTP/1.0)
        return set(ALL)
    return set(ALL)


def _first_group_kinds(test: str, pattern: str) -> set[str]:
    """What group 1 of a condition's pattern starts with: `^(/...`, or a group at the start of the match
    over %{REQUEST_URI} (anchored, or `(.*`/`(.+` that any later match could start earlier)."""
    if pattern.startswith("^(/"):
        return {"/"}
    if test.upper().startswith("%{REQUEST_URI}") and (pattern.startswith("^(") or pattern.startswith(("(.*", "(.+"))):
        group = pattern[pattern.index("(") + 1:]
        return {"/"} if group.startswith((".+", "/")) and not group.startswith(".+?") else {"/", "empty"}
    return set(ALL)


def _literal(text: str) -> bool:
    return all(kind == "literal" for kind, _, _ in _pieces(text))


def _may_be_empty(text: str) -> bool:
    """Whether the expansion of `text` may be empty (only literals are known not to be)."""
    return not any(kind == "literal" for kind, _, _ in _pieces(text))


def _group_start(pattern: str, n: int) -> int | None:
    """The index of the `(` that opens capturing group `n` of a regular expression."""
    count = 0
    for i, j in regex_tokens(pattern):
        if pattern[i] == "(" and j == i + 1 and not pattern.startswith("(?", i):
            count += 1
            if count == n:
                return i
    return None
