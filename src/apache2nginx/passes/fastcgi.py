"""mod_proxy_fcgi: `SetHandler "proxy:fcgi://..."` inside `<FilesMatch>`.

httpd hands a request to PHP-FPM (or any FastCGI server) only when the
resolved, existing file matches the FilesMatch pattern. nginx matches URLs,
so the translation is the regex location with nginx's standard guard:
`fastcgi_split_path_info` plus `try_files $fastcgi_script_name =404`, without
which `/uploads/x.jpg/y.php` would reach PHP. Other `<FilesMatch>`/`<Files>`
sections belong to the access pass, which hands FastCGI ones here.
"""
from __future__ import annotations

import re

from ..model import Location, Stmt
from ..syntax.tree import Directive, Section
from .base import Context, Disposition, Rule, table

_TARGET = re.compile(r"^proxy:(?:unix:(?P<sock>[^|]+)\|)?fcgi://(?P<host>[^/:]+)(?::(?P<port>\d+))?", re.I)


def fcgi_target(handler: str) -> str | None:
    m = _TARGET.match(handler)
    if not m:
        return None
    if m.group("sock"):
        return f"unix:{m.group('sock')}"
    return f"{m.group('host')}:{m.group('port') or '9000'}"


def _url_regex(files_regex: str) -> tuple[str, str] | None:
    """(location regex, split_path_info regex) for a basename pattern ending in an extension test."""
    m = re.fullmatch(r"(?P<body>.*?)\$", files_regex.strip('"'))
    if not m:
        return None
    body = m.group("body")
    if body.startswith("^") or "/" in body:
        return None
    body = re.sub(r"^\.\+", "", re.sub(r"^\.\*", "", body))
    # fastcgi_split_path_info needs exactly two captures: the pattern's own groups must not capture.
    inner = re.sub(r"(?<!\\)\((?!\?)", "(?:", body)
    return f"[^/]{inner}(/|$)", f"^(.+?{inner})(/.*)$"


def handles(section: Section) -> bool:
    """A <FilesMatch> whose SetHandler hands files to FastCGI (the access pass owns the other file sections)."""
    return any(not c.is_section and c.key == "sethandler" and c.args and fcgi_target(c.args[0])
               for c in section.children)


def files_section(ctx: Context, section: Section) -> Disposition:
    handlers = [c for c in section.children if not c.is_section and c.key == "sethandler" and c.args]
    target = fcgi_target(handlers[0].args[0]) if handlers else None
    regexes = _url_regex(section.args[-1]) if section.args and section.key == "filesmatch" else None
    if target is None or regexes is None or ctx.scope is not None:
        ctx.diags.add("A2N101", f"<{section.name} {' '.join(section.args)}>: this FastCGI file section is not "
                      "translated; nothing inside it was emitted", section.span, directive="<" + section.name,
                      hint="translate it as a regex location by hand")
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    location_regex, split = regexes
    span = handlers[0].span
    statements = [
        Stmt("fastcgi_split_path_info", [split], span),
        Stmt("try_files", ["$fastcgi_script_name", "=404"], span,
             comment="httpd runs only files that exist"),
        Stmt("include", ["fastcgi_params"], span),
        Stmt("fastcgi_param", ["SCRIPT_FILENAME", "$document_root$fastcgi_script_name"], span),
        Stmt("fastcgi_param", ["PATH_INFO", "$fastcgi_path_info"], span),
        Stmt("fastcgi_pass", [target], span),
    ]
    ctx.server.locations.append(Location("~", location_regex, statements, section.span))
    for child in section.children:
        if child is handlers[0]:
            continue
        ctx.walk([child], untranslated=section)
    ctx.diags.add("A2N720", f"<FilesMatch {section.args[-1]}> + FastCGI becomes `location ~ {location_regex}`: "
                  "regex locations are not consulted under ^~ prefix locations, and httpd matched the file's name, "
                  "not the URL", section.span, directive="<FilesMatch")
    return Disposition.APPROXIMATE


def set_handler_fcgi(ctx: Context, d: Directive) -> Disposition:
    """SetHandler proxy:fcgi outside a FilesMatch: every request in the region goes to FastCGI."""
    target = fcgi_target(d.args[0])
    if target is None:
        ctx.diags.add("A2N302", f"SetHandler {d.args[0]}: only fcgi:// handlers are translated", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.emit("include", ["fastcgi_params"], d.span)
    ctx.emit("fastcgi_param", ["SCRIPT_FILENAME", "$request_filename"], d.span)
    ctx.emit("fastcgi_pass", [target], d.span)
    return Disposition.APPROXIMATE


RULES = table()
