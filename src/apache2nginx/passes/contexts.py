"""httpd's context rules for the directives of the core-family passes.

A directive httpd allows only outside <Directory>, <Files>, <Location> and <If>
(KeepAlive, Timeout, DocumentRoot, ErrorLog ...) makes httpd refuse the whole
configuration when it stands inside one ("not allowed here"). Its handler would
otherwise write a server-wide setting from inside a section, or a region setting
nothing reads, so the translation reports it as httpd does instead.
"""
from __future__ import annotations

from dataclasses import replace

from ..catalogue import known
from ..syntax.tree import Directive
from .base import Context, Disposition, Handler, Rule

_SERVER_ONLY = "only outside <Directory>"


def _server_only(handler: Handler) -> Handler:
    def checked(ctx: Context, d: Directive) -> Disposition | None:
        if ctx.scope is not None:
            ctx.diags.add("A2N001", f"{d.name} not allowed in <{ctx.scope.kind.capitalize()}> context: httpd refuses "
                          "the configuration", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        return handler(ctx, d)
    checked.__wrapped__ = handler   # type: ignore[attr-defined]
    return checked


def checked(rules: dict[str, Rule]) -> dict[str, Rule]:
    """The table with every server-only directive's handler refusing section contexts."""
    out = {}
    for key, rule in rules.items():
        info = None if rule.section else known(rule.name)
        if rule.handler is not None and info is not None and _SERVER_ONLY in info.context:
            rule = replace(rule, handler=_server_only(rule.handler))
        out[key] = rule
    return out
