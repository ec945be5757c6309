"""mod_expires: ExpiresActive, ExpiresByType, ExpiresDefault.

Becomes `expires $var` with a map on the response's Content-Type (a regular
expression so a charset parameter still matches). httpd sets Expires and
Cache-Control only where a response has no Expires yet; nginx's `expires`
overrides a backend's headers, which the translation reports.
"""
from __future__ import annotations

import re

from ..model import Stmt
from ..syntax.tree import Directive
from . import contexts
from .core import content_type_source
from .base import Context, Disposition, flag, Rule, table

MAX_SECONDS = 10 ** 12    # some 31,700 years
UNITS = {"year": 31536000, "month": 2592000, "week": 604800, "day": 86400, "hour": 3600, "minute": 60,
         "second": 1}


def parse_expiry(text: str) -> str | None:
    """`access plus 1 month` / `A2592000` / `modification plus 2 hours` as an nginx expires value."""
    text = text.strip()
    m = re.fullmatch(r"([AM])(\d+)", text)
    if m:
        if int(m.group(2)) > MAX_SECONDS:
            return None
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
    if total > MAX_SECONDS:
        return None      # beyond any date either server can write (httpd overflows, nginx refuses)
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


_KEYS = ("expires_active", "expires_types", "expires_default")


def _chains(ctx: Context, server) -> dict[int, list]:
    """For each <Directory>/<Files> section of the server, the sections httpd merges before it: the plain
    <Directory> sections over its directory (shallowest first, the main server's before the host's), then a
    <Files> section's own directory. Indexed by path, so a tree of thousands of sections stays linear."""
    holders = [server] if server is ctx.main else [ctx.main, server]
    by_path: dict[str, list] = {}
    for h in holders:
        for d in h.settings.get("directories", []):
            if d.kind == "directory" and not d.regex:
                by_path.setdefault((d.fs_path or "").rstrip("/"), []).append(d)

    def directory_chain(d) -> list:
        if d.kind != "directory" or d.regex:
            return [d]
        parts = (d.fs_path or "").rstrip("/").split("/")
        ancestors = [""] + ["/".join(parts[:i]) for i in range(2, len(parts) + 1)]
        return [x for a in ancestors for x in by_path.get(a, ())]

    chains = {}
    for d in server.settings.get("directories", []):
        chains[id(d)] = directory_chain(d)
    for f in server.settings.get("files", []):
        chains[id(f)] = (directory_chain(f.parent) if f.parent is not None else []) + [f]
    return chains


def finish_server(ctx: Context, server) -> None:
    """Each holder with expiry rules of its own gets an `expires` of the rules httpd merges there: the main
    server's, the host's, then every section before it in the merge (ExpiresActive and ExpiresDefault: the
    last set; ExpiresByType: merged). A section's `expires` replaces the server's in its locations."""
    main = ctx.main
    base = [main.settings] + ([server.settings] if server is not main else [])
    sections = server.scopes + server.settings.get("directories", []) + server.settings.get("files", [])
    chains = _chains(ctx, server) if any(k in s.settings for s in sections for k in _KEYS) else {}
    holders = [(server.settings, server.statements, None)] + [(s.settings, s.statements, s) for s in sections]
    for settings, statements, scope in holders:
        if scope is None and server is main and "expires_active" not in settings:
            continue
        if scope is not None and not any(k in settings for k in _KEYS):
            continue          # inherits its region's `expires` (or the server's)
        merged = base + [x.settings for x in chains.get(id(scope), [scope] if scope is not None else [])]
        active = next((m["expires_active"] for m in reversed(merged) if "expires_active" in m), None)
        if not active:
            continue
        if not active[0]:
            if scope is not None or server is not main:
                statements.append(Stmt("expires", ["off"], active[1]))
            continue
        types: dict = {}
        for m in merged:
            types.update(m.get("expires_types", {}))
        default = next((m["expires_default"] for m in reversed(merged) if "expires_default" in m), None)
        if not types and not default:
            continue
        modified, types, default = _base(ctx, types, default)
        entries = [(_type_regex(mime), value) for mime, (value, _) in types.items()]
        # (sites with the same expiry rules share one map) over the type httpd gives the file where nginx
        # sends none (core.content_type_maps: page.html.en is text/html to mod_mime, which mod_expires reads)
        var = ctx.model.shared_map("a2n_expires_", content_type_source(ctx), entries,
                                   default[0] if default else "off", active[1])
        statements.append(Stmt("expires", (["modified"] if modified else []) + [var], active[1]))
        said = ctx.diags.add("A2N709", "mod_expires becomes `expires` with a Content-Type map: nginx also replaces "
                             "the Expires and Cache-Control headers of proxied responses, which httpd leaves alone "
                             "when they already have Expires", active[1])
        for span in [span for _, span in types.values()] + ([default[1]] if default else []):
            said.relate(span)


def _base(ctx: Context, types: dict, default):
    """nginx reads `modified` only as an argument of its own (`expires modified $var`), never from the
    variable's value: a value "modified 183600s" sets no header at all (observed with nginx 1.22). So when
    every time of the map counts from the file's modification the map holds bare times under `expires
    modified`; where access-based and modification-based times are mixed, one `expires` cannot hold both,
    and the modification-based ones are left out (reported). (modified, types, default) to emit."""
    def is_modified(value: str) -> bool:
        return value.startswith("modified ")

    values = [v for v, _ in types.values()] + ([default[0]] if default else [])
    if not any(is_modified(v) for v in values):
        return False, types, default
    if all(is_modified(v) for v in values):
        spans = [span for _, span in types.values()] + ([default[1]] if default else [])
        said = ctx.diags.add("A2N713", "mod_expires counts from the file's modification: for a file older than the "
                             "period httpd sends `Cache-Control: max-age=0` and an Expires of now, nginx "
                             "`Cache-Control: no-cache` and the Expires in the past (both stale at once)", spans[0])
        for span in spans[1:]:
            said.relate(span)
        return True, {mime: (v[len("modified "):], span) for mime, (v, span) in types.items()}, \
            ((default[0][len("modified "):], default[1]) if default else None)
    kept = {}
    for mime, (value, span) in types.items():
        if is_modified(value):
            _refuse_modified(ctx, f"ExpiresByType {mime}", span)
            kept[mime] = ("off", span)       # not the region's default: httpd gives this type its own time
        else:
            kept[mime] = (value, span)
    if default and is_modified(default[0]):
        _refuse_modified(ctx, "ExpiresDefault", default[1])
        default = None
    return False, kept, default


def _refuse_modified(ctx: Context, what: str, span) -> None:
    ctx.diags.add("A2N712", f"{what}: a time counted from the file's modification beside times counted from "
                  "the access cannot share one nginx `expires` (`modified` is an argument of the directive, not a "
                  "value its variable can give); nothing is sent for this type", span, directive=what.split()[0],
                  hint="use access-based times for every type of the region, or give the modification-based "
                  "types a <FilesMatch> (nginx location) of their own with `expires modified`")


RULES = table(
    Rule("ExpiresActive", Disposition.EXACT, expires_active),
    Rule("ExpiresByType", Disposition.APPROXIMATE, expires_by_type),
    Rule("ExpiresDefault", Disposition.APPROXIMATE, expires_default),
)


RULES = contexts.checked(RULES)
