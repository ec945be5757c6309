"""mod_setenvif: SetEnvIf and SetEnvIfNoCase as chains of nginx maps.

httpd sets an environment variable when a request attribute matches a
regex; later lines for the same variable override earlier ones when they
match. nginx has no request environment, but a `map` per line whose default
is the previous line's variable reproduces the same last-match-wins value,
evaluated lazily when something reads it. The variables serve the
directives that test them: `Header ... env=[!]NAME` and
`CustomLog ... env=[!]NAME` (see `condition_variable`).

The old-browser workarounds (nokeepalive, downgrade-1.0 ...) stay
not-applicable (mime pass); variables no translated directive reads are
still built, so a later reader finds them.
"""
from __future__ import annotations

import re

from ..model import MapBlock
from ..syntax.tree import Directive
from .base import Context, Disposition

# SetEnvIf attribute -> nginx variable (httpd's Request_URI is the decoded path, like nginx's $uri).
_ATTRIBUTES = {"remote_addr": "$remote_addr", "server_addr": "$server_addr", "request_method": "$request_method",
               "request_protocol": "$server_protocol", "request_uri": "$uri"}


def _attribute(name: str) -> str | None:
    lower = name.lower()
    if lower in _ATTRIBUTES:
        return _ATTRIBUTES[lower]
    if re.fullmatch(r"[A-Za-z0-9-]+", name) and lower != "remote_host":
        return "$http_" + lower.replace("-", "_")
    return None


def _safe(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def set_env_if(ctx: Context, d: Directive, assignments: list[str], attribute: str, regex: str,
               nocase: bool) -> Disposition:
    source = _attribute(attribute)
    env = ctx.server.settings.setdefault("setenvif", {})
    main = ctx.model.main_server.settings.get("setenvif", {}) if ctx.model.main_server is not ctx.server else {}
    if source is not None and source.startswith("$http_") and (attribute.lower() in env or attribute.lower() in main):
        # httpd reads the header if the request has it, else the variable an earlier line set
        source = None
    for assignment in assignments:
        name, _, value = assignment.lstrip("!").partition("=")
        # what access rules need to know of every variable (Require env): untranslated setters, empty values
        if source is None or ctx.scope is not None:
            _note(ctx, name, "untranslated")
        elif not assignment.startswith("!") and "=" in assignment and (not value or "$" in value):
            _note(ctx, name, "empty")       # set to an empty string (or a capture that may be empty)
    if source is None or ctx.scope is not None:
        why = "per-directory SetEnvIf" if ctx.scope is not None else \
            f"the attribute {attribute} (host names, header-name patterns and other variables)"
        ctx.diags.add("A2N702", f"{d.name} {attribute}: {why} is not translated; the variables it sets are not "
                      "carried into nginx", d.span, directive=d.name,
                      hint="express the condition with a map over the matching nginx variable")
        return Disposition.UNSUPPORTED
    key = ("~*" if nocase else "~") + regex
    for assignment in assignments:
        unset = assignment.startswith("!")
        name, _, value = assignment.lstrip("!").partition("=")
        if not name:
            continue
        value = "" if unset else (value if "=" in assignment else "1")
        previous = env.get(name.lower()) or main.get(name.lower())
        variable = ctx.model.new_variable("a2n_setenv_", "_" + _safe(name))
        # httpd's $1..$9 in the value are the regex's captures, as in an nginx map value
        ctx.model.maps.append(MapBlock(source, variable, [(key, value or '""')], previous or '""', span=d.span))
        env[name.lower()] = variable
    return Disposition.EXACT


def set_env_if_expr(ctx: Context, d: Directive) -> Disposition:
    """SetEnvIfExpr: not translated; the variables it may set are remembered (Require env refuses them)."""
    for assignment in d.args[1:]:
        _note(ctx, assignment.lstrip("!").partition("=")[0], "untranslated")
    ctx.diags.add("A2N702", f"{d.name}: expression conditions are not translated; the variables it sets are not "
                  "carried into nginx", d.span, directive=d.name,
                  hint="express the condition with a map over the matching nginx variable")
    return Disposition.UNSUPPORTED


def _note(ctx: Context, name: str, what: str) -> None:
    ctx.model.main_server.settings.setdefault("setenvif_notes", {}).setdefault(name.lower(), set()).add(what)


def notes_for(model, name: str) -> set[str]:
    """How SetEnvIf lines anywhere in the input set NAME beyond a translated map: "untranslated" (a line
    nginx has no map for), "empty" (set to the empty string, which the map cannot tell from unset)."""
    return model.main_server.settings.get("setenvif_notes", {}).get(name.lower(), set()) \
        if model.main_server is not None else set()


def server_variable(model, server, name: str) -> str | None:
    """The nginx variable holding NAME as SetEnvIf in SERVER (or the main server) left it, if any."""
    name = name.lower()
    found = server.settings.get("setenvif", {}).get(name)
    if found is None and model.main_server is not None:
        found = model.main_server.settings.get("setenvif", {}).get(name)
    return found


def variable_for(ctx: Context, name: str) -> str | None:
    """The nginx variable holding NAME as SetEnvIf in this server (or the main server) left it, if any."""
    return server_variable(ctx.model, ctx.server, name)


def condition_variable(ctx: Context, condition: str) -> str | None:
    """For `env=NAME` / `env=!NAME`: a variable that is 1 when the condition holds and 0 otherwise (nginx's
    `if=` and add_header values read it), or None when NAME is not set by a translated SetEnvIf."""
    negate = condition.startswith("!")
    source = variable_for(ctx, condition.lstrip("!"))
    if source is None:
        return None
    # httpd tests whether the variable is set; an unset one is empty here
    return ctx.model.shared_map("a2n_unset_" if negate else "a2n_set_", source,
                                [('""', "1" if negate else "0")], "0" if negate else "1")
