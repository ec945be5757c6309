"""mod_expires: ExpiresActive, ExpiresByType, ExpiresDefault.

Becomes `expires $var` with a map on the response's Content-Type (a regular
expression so a charset parameter still matches). httpd sets Expires and
Cache-Control only where a response has no Expires yet; nginx's `expires`
overrides a backend's headers, which the translation reports.
"""
from __future__ import annotations

import re

from ..model import MapBlock, Stmt
from ..syntax.tree import Directive
from . import contexts
from .base import Context, Disposition, flag, Rule, table

UNITS = {"year": 31536000, "month": 2592000, "week": 604800, "day": 86400, "hour": 3600, "minute": 60,
         "second": 1}


def parse_expiry(text: str) -> str | None:
    """`access plus 1 month` / `A2592000` / `modification plus 2 hours` as an nginx expires value."""
    text = text.strip()
    m = re.fullmatch(r"([AM])(\d+)", text)
    if m:
        return ("modified " if m.group(1) == "M" else "") + f"{m.group(2)}s"
    words = text.lower().split()
    if not words or words[0] not in ("access", "now", "modification"):
        return None
    base = "modified " if words[0] == "modification" else ""
    words = words[1:]
    if words and words[0] == "plus":
        words = words[1:]
    if len(words) % 2:
        return None
    total = 0
    for number, unit in zip(words[::2], words[1::2]):
        if not number.isdigit():
            return None
        unit = unit.rstrip("s")
        if unit not in UNITS:
            return None
        total += int(number) * UNITS[unit]
    return f"{base}{total}s"


def expires_active(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value not in ("on", "off"):
        return Disposition.UNSUPPORTED
    ctx.settings["expires_active"] = (value == "on", d.span)
    return Disposition.EXACT


def expires_by_type(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) < 2:
        return Disposition.UNSUPPORTED
    value = parse_expiry(d.args[1])
    if value is None:
        ctx.diags.add("A2N001", f"ExpiresByType: cannot read the time {d.args[1]!r}", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.settings.setdefault("expires_types", {})[d.args[0].lower()] = (value, d.span)
    return Disposition.APPROXIMATE


def expires_default(ctx: Context, d: Directive) -> Disposition:
    value = parse_expiry(d.args[0]) if d.args else None
    if value is None:
        return Disposition.UNSUPPORTED
    ctx.settings["expires_default"] = (value, d.span)
    return Disposition.APPROXIMATE


def _type_regex(mime: str) -> str:
    body = "".join("[^;]*" if c == "*" else "\\" + c if c in ".+()[]{}^$|\\?" else c for c in mime)
    return f"~*^{body}(\\s*;|$)"


def finish_server(ctx: Context, server) -> None:
    main = ctx.main
    # the server, then its <Location>, <Directory> and <Files> sections (each section's expiry rules become
    # its locations' own `expires`, which replaces the server's there as httpd's per-section merge does)
    sections = server.scopes + server.settings.get("directories", []) + server.settings.get("files", [])
    holders = [(server.settings, server.statements, None)] + [(s.settings, s.statements, s) for s in sections]
    for settings, statements, scope in holders:
        active = settings.get("expires_active")
        if active is None and scope is None and server is not main:
            active = main.settings.get("expires_active")
        if active is None and scope is not None:
            # A <Location> inherits the server's expiry rules; only its own rules make a new map.
            if "expires_types" not in settings and "expires_default" not in settings:
                continue
            active = server.settings.get("expires_active") or main.settings.get("expires_active")
        if not active:
            continue
        if not active[0]:
            if scope is not None or server is not main:
                statements.append(Stmt("expires", ["off"], active[1]))
            continue
        types = dict(main.settings.get("expires_types", {}) if server is not main else {})
        types.update(server.settings.get("expires_types", {}))
        if scope is not None:
            types.update(settings.get("expires_types", {}))
        default = settings.get("expires_default") or server.settings.get("expires_default") or \
            main.settings.get("expires_default")
        if not types and not default:
            continue
        var = f"$a2n_expires_{sum(1 for m in ctx.model.maps if m.variable.startswith('$a2n_expires'))}"
        entries = [(_type_regex(mime), value) for mime, (value, _) in types.items()]
        ctx.model.maps.append(MapBlock("$sent_http_content_type", var, entries,
                                       default[0] if default else "off", span=active[1]))
        statements.append(Stmt("expires", [var], active[1]))
        ctx.diags.add("A2N709", "mod_expires becomes `expires` with a Content-Type map: nginx also replaces the "
                      "Expires and Cache-Control headers of proxied responses, which httpd leaves alone when "
                      "they already have Expires", active[1])


RULES = table(
    Rule("ExpiresActive", Disposition.EXACT, expires_active),
    Rule("ExpiresByType", Disposition.APPROXIMATE, expires_by_type),
    Rule("ExpiresDefault", Disposition.APPROXIMATE, expires_default),
)


RULES = contexts.checked(RULES)
