"""Access rules in <Proxy> and <ProxyMatch> sections.

For a proxied request (ProxyPass, ProxyPassMatch, RewriteRule [P]) httpd walks the <Proxy> sections in
place of the <Directory> ones (src: mod_proxy's proxy_walk), matching each against the backend URL the
request is mapped to ("http://backend/app/x": no query string): <Proxy url> as a plain prefix
(strncmp, no segment boundary), a wildcard one with fnmatch (`*` crosses `/`), <ProxyMatch re> and
<Proxy ~ re> as an unanchored regex. The matching sections merge in config order (main server first),
then the <Location> sections merge after them.

nginx has no such walk, so each location that proxies gets the sections that match every backend URL it
can send, merged before its <Location>s. A section that matches only some of them cannot be told apart
per request: the location is refused (deny all) with an error, never left open.
"""
from __future__ import annotations

import re

from ..model import Scope
from ..syntax.tree import Section
from .base import Context, Disposition

# what a <Proxy> section's access part may hold (the rest is reported as not translated); mod_ssl's
# SSLRequireSSL and SSLRequire are access checks of the per-directory configuration the walk merges
# (observed: SSLRequireSSL in <Proxy> refuses every plain-HTTP request ProxyPass would forward, 403)
ACCESS_KEYS = {"require", "order", "allow", "deny", "satisfy", "authtype", "authname", "authuserfile",
               "authgroupfile", "authbasicprovider", "authmerging", "authdigestprovider", "authdigestdomain",
               "authldapurl", "authdbmuserfile", "authdbduserpwquery", "requireall", "requireany", "requirenone",
               "limit", "limitexcept", "sslrequiressl", "sslrequire"}


def proxy_access_section(ctx: Context, section: Section, pattern: str, regex: bool,
                         others: bool = True) -> Disposition:
    """Record the section's access rules, to be merged into the locations whose backend URLs it matches
    (`others`: report the rest of the section as not translated)."""
    from .access import AccessConfig
    scope = Scope(pattern, regex=regex, span=section.span, kind="proxy", settings={"access": AccessConfig(walk="proxy")})
    previous, ctx.scope = ctx.scope, scope
    try:
        ctx.walk([c for c in section.children if c.key in ACCESS_KEYS])
    finally:
        ctx.scope = previous
    if others:
        ctx.walk([c for c in section.children if c.key not in ACCESS_KEYS], untranslated=section)
    ctx.server.settings.setdefault("proxy_access", []).append(scope)
    return Disposition.EXACT


def proxy_match_section(ctx: Context, section: Section) -> Disposition:
    """<ProxyMatch re>: access rules for the backend URLs the expression matches."""
    if not section.args:
        ctx.diags.add("A2N001", "<ProxyMatch> needs a regular expression", section.span, directive="<ProxyMatch")
        return Disposition.UNSUPPORTED
    return proxy_access_section(ctx, section, section.args[-1], True)


def sections_for(model, server) -> list[Scope]:
    main = model.main_server
    own = server.settings.get("proxy_access", [])
    if main is None or main is server:
        return list(own)
    return list(main.settings.get("proxy_access", [])) + list(own)


def literal_prefix(pattern: str, regex: bool) -> tuple[str, bool]:
    """(the text every match starts with, whether the pattern is that text followed by anything)."""
    if regex:
        if not pattern.startswith("^"):
            return "", pattern in ("", ".*", "^")
        if "|" in pattern:
            return "", False        # alternatives (^/a|^/b): no one text starts every match
        body = pattern[1:]
        out, i = [], 0
        while i < len(body):
            c = body[i]
            if c == "\\" and i + 1 < len(body) and not body[i + 1].isalnum():
                out.append(body[i + 1])
                i += 2
                continue
            if c in ".^$*+?()[]{}|\\":
                break
            out.append(c)
            i += 1
        rest = body[i:]
        # a quantifier applies to the last literal character, which then is not certain
        if rest[:1] in ("*", "?", "{") and out:
            out.pop()
            return "".join(out), False
        return "".join(out), rest in ("", ".*")
    cut = min([pattern.index(c) for c in "*?[" if c in pattern] or [len(pattern)])
    literal = pattern[:cut]
    if cut == len(pattern):
        return literal, True            # a plain prefix (strncmp)
    return literal, pattern[cut:] == "*" or set(pattern[cut:]) == {"*"}


def coverage(scope: Scope, base: str) -> str:
    """Whether the section matches "all", "none" or only "some" of the backend URLs that start with BASE."""
    if scope.regex and not re.search(r"\$|\(\?[=!<]|\\[bBzZ]", scope.path):
        try:
            if re.search(scope.path, base):
                return "all"        # the match stays whatever follows BASE
        except re.error:
            return "some"
    literal, everything = literal_prefix(scope.path, scope.regex)
    if base.startswith(literal):
        return "all" if everything else "some"
    if literal.startswith(base):
        return "some"
    return "none"


def configs_for(model, server, base: str | None, span, what: str) -> list:
    """The AccessConfigs of the <Proxy> sections for a location proxying to backend URLs starting with BASE
    (None: not known), in merge order; one that matches only some of them becomes a refusal."""
    from .access import AccessConfig
    out = []
    for scope in sections_for(model, server):
        config = scope.settings.get("access")
        if config is None:
            continue
        covered = "some" if base is None else coverage(scope, base)
        if covered == "none":
            continue
        if covered == "all":
            out.append(config)
            continue
        label = f"<Proxy{'Match' if scope.regex else ''} {scope.path}>"
        refusal = AccessConfig(walk="proxy")
        refusal.refuse = (f"{label} (access rules matching only some of the backend URLs of {what})", scope.span)
        out.append(refusal)
    return out


def backend_base(target: str) -> str | None:
    """The part every backend URL of a proxy target starts with (up to a variable or capture)."""
    cut = min([target.index(c) for c in "$" if c in target] or [len(target)])
    return target[:cut] or None


def regex_proxy_pattern(section: Section) -> tuple[str, bool] | None:
    """<Proxy ~ re> is a regex section like <ProxyMatch re>."""
    args = section.args
    if len(args) >= 2 and args[0] == "~":
        return args[-1], True
    return (args[0], False) if args else None
