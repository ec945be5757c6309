"""Script handlers in `<FilesMatch>`: mod_proxy_fcgi, mod_php and mod_fcgid.

httpd hands a request to PHP-FPM (or any FastCGI server) only when the
resolved, existing file matches the FilesMatch pattern. nginx matches URLs,
so the translation is the regex location with nginx's standard guard:
`fastcgi_split_path_info` plus `try_files $fastcgi_script_name =404`, without
which `/uploads/x.jpg/y.php` would reach PHP. At server level it is a server
regex location; inside a `<Directory>` it is nested into every location that
serves the directory, with the section's access rules.

mod_php (`application/x-httpd-php`) runs PHP inside httpd and mod_fcgid
(`fcgid-script`, FcgidWrapper) spawns its FastCGI programs itself; nginx does
neither, so those handlers are sent to a FastCGI server the user runs
(php-fpm, or the wrapper under spawn-fcgi) at `FASTCGI_SOCKET`, warned.
Other `<FilesMatch>`/`<Files>` sections belong to the access pass, which
hands script-handler ones here.
"""
from __future__ import annotations

import re

from ..model import Location, Scope, Stmt
from ..syntax.tree import Directive, Section
from . import contexts
from .base import Context, Disposition, Rule, table

# Where a handler httpd runs itself (mod_php, mod_fcgid) is sent: Debian's php-fpm socket.
FASTCGI_SOCKET = "unix:/run/php/php-fpm.sock"
_IN_PROCESS = re.compile(r"^(?:application/x-httpd-php|php\d*-script)$", re.I)

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


def script_handler(value: str) -> tuple[str, str | None] | None:
    """(fastcgi_pass target, the server the user must run there, if any) for a handler that runs scripts."""
    target = fcgi_target(value)
    if target is not None:
        return target, None
    if value.lower() == "fcgid-script":
        return FASTCGI_SOCKET, "the FcgidWrapper program (under spawn-fcgi) or php-fpm"
    if _IN_PROCESS.match(value):
        return FASTCGI_SOCKET, "php-fpm"
    return None


def _handlers(section: Section) -> list[Directive]:
    return [c for c in section.children if not c.is_section and c.key == "sethandler" and c.args
            and script_handler(c.args[0]) is not None]


def handles(section: Section) -> bool:
    """A <FilesMatch> whose SetHandler runs scripts (the access pass owns the other file sections)."""
    return bool(_handlers(section))


def files_section(ctx: Context, section: Section) -> Disposition:
    handlers = _handlers(section)
    target, server = script_handler(handlers[0].args[0])
    regexes = _url_regex(section.args[-1]) if section.args and section.key == "filesmatch" else None
    inside = ctx.scope
    if regexes is None or (inside is not None and inside.kind != "directory"):
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
    if server is not None:
        ctx.diags.add("A2N721", f"SetHandler {handlers[0].args[0]}: httpd runs these scripts itself; nginx sends "
                      f"them to a FastCGI server at {target}, where {server} must be listening", span,
                      directive=handlers[0].name,
                      hint=f"start {server} on {target.removeprefix('unix:')}, or change fastcgi_pass")
    rest = [c for c in section.children if c is not handlers[0]]
    disposition = Disposition.APPROXIMATE if server is not None else Disposition.EXACT
    ctx.count(handlers[0], disposition)
    if inside is not None:
        # nested into every location serving the directory, with the access rules of the section
        scope = Scope(section.args[-1], regex=True, span=section.span, kind="files",
                      files_regex=location_regex, parent=inside, statements=statements,
                      settings={"script_alias": location_regex.removesuffix("(/|$)") + "$"})
        ctx.server.settings.setdefault("files", []).append(scope)
        previous, ctx.scope = ctx.scope, scope
        try:
            ctx.walk(rest)
        finally:
            ctx.scope = previous
        return disposition
    ctx.server.locations.append(Location("~", location_regex, statements, section.span))
    ctx.walk(rest, untranslated=section)
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


def fcgid_wrapper(ctx: Context, d: Directive) -> Disposition:
    """FcgidWrapper PROGRAM [.ext]: mod_fcgid starts PROGRAM for matching scripts; nginx starts nothing."""
    program = d.args[0] if d.args else ""
    ctx.diags.add("A2N721", f"{d.name} {program}: nginx does not start FastCGI programs; the translation sends "
                  f"scripts to {FASTCGI_SOCKET}", d.span, directive=d.name,
                  hint=f"run it as a FastCGI server there (spawn-fcgi -s {FASTCGI_SOCKET.removeprefix('unix:')} -- "
                       f"{program}) or use php-fpm")
    return Disposition.APPROXIMATE


RULES = table(
    Rule("FcgidWrapper", Disposition.APPROXIMATE, fcgid_wrapper),
    Rule("FCGIWrapper", Disposition.APPROXIMATE, fcgid_wrapper),
)


RULES = contexts.checked(RULES)
