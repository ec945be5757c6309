"""mod_rewrite idioms that become idiomatic nginx: force-HTTPS decided per server, whole-site and
canonical-host redirects, front controllers, literal redirects."""
from __future__ import annotations

import re

from ..model import Server, Stmt
from .base import Context
from .rewrite_model import _WHOLE, Cond, RRule, _status, flag_values

_HTTPS_OFF = {"off", "^off$", "!on", "!^on$", "!=on", "=off"}


def _https_test(cond: Cond) -> str | None:
    """'off' when the condition holds on plain HTTP, 'on' when it holds on TLS, None otherwise. (%{SERVER_PORT}
    is no such test: httpd takes it from the Host header's port, vhost_alias.server_port_variable.)"""
    if cond.test.upper() == "%{HTTPS}":
        p = cond.pattern.lower()
        if p in _HTTPS_OFF:
            return "off"
        if p in ("on", "^on$", "=on", "!off", "!^off$", "!=off"):
            return "on"
    if cond.test.upper() == "%{REQUEST_SCHEME}" and cond.pattern.lower() in ("http", "^http$", "=http"):
        return "off"
    return None




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


def whole_site_redirect(rule: RRule, server_name: str = "$host") -> Stmt | None:
    """`RewriteRule ^(.*)$ https://host/$1 [R=301,L]` with no conditions: `return 301 https://host$request_uri`.
    SERVER_NAME becomes SERVER_NAME's nginx variable (`server_name_variable`)."""
    if rule.conds or "R" not in rule.flags or rule.pattern not in _WHOLE:
        return None
    m = re.fullmatch(r"(https?://(?:%\{HTTP_HOST\}|%\{SERVER_NAME\}|[A-Za-z0-9.\-:\[\]]+))"
                     r"(?:/\$1|%\{REQUEST_URI\}|/)?", rule.substitution)
    if not m or "?" in rule.substitution:
        return None
    if rule.substitution.endswith("/") and "(" in rule.pattern:
        return None   # redirects everything to the home page, not this form
    host = m.group(1).replace("%{HTTP_HOST}", "$http_host").replace("%{SERVER_NAME}", server_name)
    code = _status(rule.flags["R"])
    if code is None or not 300 <= int(code) < 400:
        return None
    if rule.substitution.endswith("/$1") and captures_slash(rule.pattern):
        host += "/"   # $1 starts with the path's own slash: httpd sends a doubled one
    return Stmt("return", [code, host + "$request_uri"], rule.span,
                comment="httpd appends the decoded path re-escaped; $request_uri is the raw one")


def qmark_refusal(rule: RRule, request_uri: str = "$uri") -> list[Stmt]:
    """A whole-path redirect (`https://host/$1`, `https://host%{REQUEST_URI}`) whose path may hold a `?` the
    request %-escaped: httpd 2.4.60+ refuses it (AH10508: it would split the query off), answering 403.
    REQUEST_URI: the nginx variable that holds %{REQUEST_URI} where the statement stands."""
    whole = "$1" in rule.substitution and "(" in rule.pattern
    if not whole and "%{REQUEST_URI}" not in rule.substitution.upper():
        return []
    return [Stmt("if", [f'({"$uri" if whole else request_uri} ~ "\\?")'], rule.span, block=[Stmt(
        "return", ["403"], rule.span, comment="httpd 2.4.60+ refuses: a `?` the request holds would split the "
        "query off (AH10508)")])]


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
    redirect.own_statements.extend(qmark_refusal(rule))
    redirect.own_statements.append(Stmt("return", [code, target], rule.span,
                                        comment="canonical host: RewriteCond %{HTTP_HOST} + RewriteRule"))
    position = ctx.model.servers.index(server)
    if negated and not [n for n in names if n != host] and _shares_address(server, ctx.model.servers[:position]):
        # No other name reaches this host, and it is not the first on its address (the one unknown hosts
        # reach): a server of its own would answer for nothing. The rule stays a condition in the server,
        # where it still redirects a Host that carries a port, as httpd does.
        return False
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


def _shares_address(server: Server, earlier: list[Server]) -> bool:
    """Whether a virtual host before `server` names one of its addresses (so `server` is not the default
    there)."""
    mine = {address.lower() for address, _ in server.addresses}
    return any(not other.is_main and mine & {address.lower() for address, _ in other.addresses}
               for other in earlier)


# Patterns every server-context URL path matches (it always starts with `/`).
_ANY_PATH = {".", "^.", "/", "^/", "^"} | {p for p in ("^.*$", ".*", "^(.*)$", "(.*)", "^(.*)", "^/?(.*)$",
                                                          "^/?(.*)", "^/(.*)$", "^/(.*)", "^/.*", "(.+)", "^(.+)$")}


def fold_proxy_env(rules: list[RRule | None], per_dir: str | None) -> list[RRule | None]:
    """A [P] target naming %{ENV:X} where every rule before it that sets X does so unconditionally, for every
    path, with a literal value (after the per-server %{HTTPS} decisions): the value is that literal, and the
    backend is fixed (httpd's manual sets the scheme this way)."""
    if per_dir is not None or any(r is not None and ("C" in r.flags or "S" in r.flags) for r in rules):
        return rules
    out = list(rules)
    for i, rule in enumerate(rules):
        if rule is None or "P" not in rule.flags or "%{ENV:" not in rule.substitution.upper():
            continue
        substitution = rule.substitution
        for m in re.finditer(r"%\{ENV:([^}]+)\}", rule.substitution, re.I):
            value = _constant_env(rules[:i], m.group(1))
            if value is None:
                break
            substitution = substitution.replace(m.group(0), value)
        else:
            out[i] = RRule(rule.pattern, substitution, rule.flags, rule.conds, rule.span, rule.directive, rule.index)
    return out


def _constant_env(before: list[RRule | None], name: str) -> str | None:
    value = None
    for rule in before:
        if rule is None:
            continue
        settings = flag_values(rule.flags, "E")
        # the last of the rule's settings of this name is the one that stays
        setting = next((x for x in reversed(settings) if x.partition(":")[0].lstrip("!") == name),
                       settings[-1] if settings else "")
        var, colon, literal = setting.partition(":")
        if var.lstrip("!") != name:
            if "N" in rule.flags:
                return None      # a restart re-runs the setters with another URI: keep it simple
            continue
        if var.startswith("!") or not colon or re.search(r"[$%\\]", literal) or rule.conds or \
                rule.pattern not in _ANY_PATH or set(rule.flags) - {"E", "NC"} or rule.substitution != "-":
            return None
        value = literal
    return value
