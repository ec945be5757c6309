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
mod_cgi's `cgi-script` goes to fcgiwrap, which runs CGI programs.

mod_cgi and mod_fcgid run a script only where the merged Options of its
directory include ExecCGI, and answer 403 (before looking for the file)
elsewhere. Options are known only once the whole server is read, so such a
handler's location is settled in `finish_server`: fcgiwrap/FastCGI where every
directory it serves allows ExecCGI, `return 403` where none does, and refused
with an error where they differ.
Other `<FilesMatch>`/`<Files>` sections belong to the access pass, which
hands script-handler ones here.
"""
from __future__ import annotations

import re

from ..model import Location, Scope, Stmt, routes_in_force
from .alias import FCGIWRAP_SOCKET
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


def _file_handler(value: str) -> tuple[str, str | None] | None:
    """script_handler, plus mod_cgi's handler (fcgiwrap runs CGI programs for nginx)."""
    if value.lower() == "cgi-script":
        return FCGIWRAP_SOCKET, "fcgiwrap"
    return script_handler(value)


# handlers that run only where Options ExecCGI is in effect (mod_cgi, mod_fcgid)
_NEEDS_EXEC_CGI = {"cgi-script", "fcgid-script"}


def _handlers(section: Section) -> list[Directive]:
    return [c for c in section.children if not c.is_section and c.key == "sethandler" and c.args
            and c.unresolved is None and _file_handler(c.args[0]) is not None]


def handles(section: Section) -> bool:
    """A <FilesMatch> whose SetHandler runs scripts (the access pass owns the other file sections)."""
    return bool(_handlers(section))


def files_section(ctx: Context, section: Section) -> Disposition:
    handlers = _handlers(section)
    regexes = _url_regex(section.args[-1]) if section.args and section.key == "filesmatch" else None
    inside = ctx.scope
    if regexes is None or (inside is not None and inside.kind != "directory"):
        ctx.diags.add("A2N101", f"<{section.name} {' '.join(section.args)}>: this FastCGI file section is not "
                      "translated; nothing inside it was emitted", section.span, directive="<" + section.name,
                      hint="translate it as a regex location by hand")
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    location_regex, split = regexes
    rest = [c for c in section.children if c is not handlers[0]]
    before = len(ctx.diags)
    disposition, scope = _script_location(ctx, handlers[0], location_regex, split, section.args[-1], section.span)
    ctx.count(handlers[0], disposition)     # the section's handler counts it (a directive's own rule would)
    for said in ctx.diags.since(before):    # what the handler's approximation costs, the section's too
        said.relate(section.span)
    if scope is not None:
        previous, ctx.scope = ctx.scope, scope
        try:
            ctx.walk(rest)
        finally:
            ctx.scope = previous
        return disposition
    ctx.walk(rest, untranslated=section)
    ctx.diags.add("A2N720", f"<FilesMatch {section.args[-1]}> + FastCGI becomes `location ~ {location_regex}`: "
                  "httpd matched the file's name, nginx matches the URL (it is repeated inside every prefix "
                  "location, where nginx would not look for it; under an Alias the script is the aliased file, "
                  "without path info)", section.span, directive="<FilesMatch")
    return Disposition.APPROXIMATE


def _script_location(ctx: Context, d: Directive, location_regex: str, split: str, name: str, span,
                     mime: bool = False):
    """The regex location handing the scripts `d` (SetHandler in a file section, AddHandler) names to their
    server: at server level one of the server's, inside a <Directory> a file scope nested into every location
    serving it (returned, with the disposition, for the section's other directives). MIME: mod_mime's
    handler (AddHandler), which SetHandler default-handler in a <Directory> takes back."""
    handler = d.args[0]
    target, server = _file_handler(handler)
    statements = [
        Stmt("fastcgi_split_path_info", [split], d.span),
        Stmt("try_files", ["$fastcgi_script_name", "=404"], d.span, comment="httpd runs only files that exist"),
        Stmt("include", ["fastcgi_params"], d.span),
        Stmt("fastcgi_param", ["SCRIPT_FILENAME", "$document_root$fastcgi_script_name"], d.span),
        # try_files moves $uri onto the script it found, which empties $fastcgi_path_info: keep it first
        Stmt("set", ["$a2n_path_info", "$fastcgi_path_info"], d.span),
        Stmt("fastcgi_param", ["PATH_INFO", "$a2n_path_info"], d.span),
        Stmt("fastcgi_pass", [target], d.span),
    ]
    disposition = Disposition.APPROXIMATE if server is not None else Disposition.EXACT
    if handler.lower().startswith("proxy:"):
        # the worker httpd picks for it (<Proxy URL> or ProxySet parameters apply; proxy.finish_model)
        ctx.model.script_handlers.append((handler[len("proxy:"):], statements, d))
    inside = ctx.scope
    if handler.lower() in _NEEDS_EXEC_CGI:
        # settled once the server's Options are known (finish_server), which also says where scripts go
        ctx.server.settings.setdefault("exec_cgi_gates", []).append(
            (statements, inside.fs_path if inside is not None else None, d, (target, server)))
    else:
        _say_where_scripts_go(ctx, d, target, server)
    if inside is None:
        ctx.server.locations.append(Location("~", location_regex, statements, span, runs_scripts=True,
                                             mime_handler=mime))
        return disposition, None
    # nested into every location serving the directory, with the access rules of the section
    scope = Scope(name, regex=True, span=span, kind="files", files_regex=location_regex, parent=inside,
                  statements=statements, settings={"script_alias": location_regex.removesuffix("(/|$)") + "$",
                                                   "mime_handler": mime})
    ctx.server.settings.setdefault("files", []).append(scope)
    return disposition, scope


def add_handler(ctx: Context, d: Directive) -> Disposition:
    """AddHandler HANDLER ext...: mod_mime gives the handler to every file with one of these extensions anywhere
    after the first dot of its name (a.cgi and a.cgi.txt, not cgi.txt; case-insensitive). Script handlers become
    a regex location as a <FilesMatch> does; handlers nginx has no counterpart for are reported."""
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "AddHandler needs a handler and at least one extension", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if _file_handler(d.args[0]) is not None and ctx.scope is not None and ctx.scope.kind == "location":
        return refuse_in_location(ctx, d, d.args[1:])
    if _file_handler(d.args[0]) is None or (ctx.scope is not None and ctx.scope.kind != "directory"):
        ctx.diags.add("A2N101", f"AddHandler {d.args[0]}: only script handlers (CGI, FastCGI, PHP) at server level "
                      "or in a <Directory> are translated; nothing was emitted", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    exts = "|".join(re.escape(e.lstrip(".")) for e in d.args[1:] if e.lstrip("."))
    location_regex = f"(?i)\\.(?:{exts})(?:\\.[^/]*)?(/|$)"
    split = f"(?i)^(.+?\\.(?:{exts})(?:\\.[^/]*)?)(/.*)$"
    disposition, _ = _script_location(ctx, d, location_regex, split, f"*.{exts}", d.span, mime=True)
    ctx.diags.add("A2N726", f"AddHandler {' '.join(d.args)}: httpd hands every file with one of these extensions "
                  "anywhere in its name to the handler (a.php.jpg too), and so does `location ~ "
                  f"{location_regex}`; nginx matches the URL where httpd matched the file's name", d.span,
                  directive=d.name, hint="prefer <FilesMatch \\.ext$> with SetHandler on the Apache side, so a "
                  "double extension does not run")
    return Disposition.APPROXIMATE


def refuse_in_location(ctx: Context, d: Directive, extensions: list[str] | None) -> Disposition:
    """A script handler in a <Location> (AddHandler for EXTENSIONS, SetHandler for every file when None):
    httpd runs the files there, or answers 403 where Options ExecCGI is off (mod_cgi, mod_fcgid). It is not
    translated; leaving it out would make nginx send the scripts' source, so those URLs answer 403."""
    span = d.span
    refusal = Stmt("return", ["403"], span, comment=f"{d.name} {d.args[0]}: not translated in a <Location>")
    if extensions is None:
        ctx.emit(refusal.name, refusal.args, span).comment = refusal.comment
        which = "every URL of the section answers 403"
    else:
        exts = "|".join(re.escape(e.lstrip(".")) for e in extensions if e.lstrip("."))
        ctx.emit("if", [f'($uri ~ "(?i)\\.(?:{exts})(?:\\.[^/]*)?(/|$)")'], span, block=[refusal])
        which = "URLs naming a file with one of these extensions answer 403"
    ctx.diags.add("A2N101", f"{d.name} {' '.join(d.args)} inside a <Location>: script handlers are translated at "
                  f"server level or in a <Directory> only; {which} instead of running the scripts (httpd answers "
                  "403 too where Options ExecCGI is off)", span, directive=d.name,
                  hint="move the handler into the <Directory> of the files")
    return Disposition.UNSUPPORTED


def directory_handler(ctx: Context, d: Directive) -> Disposition:
    """SetHandler HANDLER in a <Directory>: httpd hands every request mapped into the directory to the handler,
    whatever the file's name. mod_cgi and mod_fcgid answer 403 where Options ExecCGI is off, before looking
    for the file ("Options ExecCGI is off in this directory"), so the gate settles it with the server's
    Options (finish_server); where ExecCGI holds, the directory's locations pass the requested file to
    fcgiwrap or the FastCGI server."""
    target, server = _file_handler(d.args[0])
    statements = [Stmt("include", ["fastcgi_params"], d.span),
                  Stmt("fastcgi_param", ["SCRIPT_FILENAME", "$request_filename"], d.span),
                  Stmt("fastcgi_pass", [target], d.span)]
    ctx.scope.statements.extend(statements)
    ctx.scope.settings["handler"] = (d.args[0].lower(), "directory", d)    # (misc._handler_off)
    if d.args[0].lower() in _NEEDS_EXEC_CGI:
        ctx.server.settings.setdefault("exec_cgi_gates", []).append(
            (statements, ctx.scope.fs_path, d, (target, server), ctx.scope.statements))
    else:
        _say_where_scripts_go(ctx, d, target, server)
    return Disposition.APPROXIMATE if server is not None else Disposition.EXACT


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


def _say_where_scripts_go(ctx: Context, d: Directive, target: str, server: str | None) -> None:
    handler = d.args[0]
    if handler.lower() == "cgi-script":
        ctx.diags.add("A2N722", f"{d.name} cgi-script: nginx runs no CGI programs; the scripts go to fcgiwrap at "
                      f"{target.removeprefix('unix:')}, which must be running", d.span, directive=d.name,
                      hint="apt-get install fcgiwrap (it listens on /run/fcgiwrap.socket)")
    elif server is not None:
        ctx.diags.add("A2N721", f"{d.name} {handler}: httpd runs these scripts itself; nginx sends "
                      f"them to a FastCGI server at {target}, where {server} must be listening", d.span,
                      directive=d.name,
                      hint=f"start {server} on {target.removeprefix('unix:')}, or change fastcgi_pass")


def exec_cgi_option(ctx: Context, d: Directive) -> Disposition:
    """Options ExecCGI is a permission the handlers read: every file handler, [H] rule and ScriptAlias this
    translation builds honours it (fcgiwrap or FastCGI where it holds, 403 where it does not). What the input
    cannot show is a handler set outside it (the main config's AddHandler cgi-script)."""
    if ctx.model.full:
        return Disposition.EXACT
    ctx.diags.add("A2N750", f"Options {' '.join(d.args)}: the translation runs scripts where the handlers in this "
                  "input say so; a handler set outside it (AddHandler cgi-script in the main server config) is not "
                  "seen, and nginx would send such files as they are", d.span, directive=d.name,
                  hint="translate the full server configuration, or add a fcgiwrap location for those scripts")
    return Disposition.APPROXIMATE


def fcgid_wrapper(ctx: Context, d: Directive) -> Disposition:
    """FcgidWrapper PROGRAM [.ext]: mod_fcgid starts PROGRAM for matching scripts; nginx starts nothing."""
    program = d.args[0] if d.args else ""
    ctx.diags.add("A2N721", f"{d.name} {program}: nginx does not start FastCGI programs; the translation sends "
                  f"scripts to {FASTCGI_SOCKET}", d.span, directive=d.name,
                  hint=f"run it as a FastCGI server there (spawn-fcgi -s {FASTCGI_SOCKET.removeprefix('unix:')} -- "
                       f"{program}) or use php-fpm")
    return Disposition.APPROXIMATE


# The parameters nginx's stock fastcgi_params file sets (an include cannot be edited per location).
STOCK_PARAMS = {"QUERY_STRING", "REQUEST_METHOD", "CONTENT_TYPE", "CONTENT_LENGTH", "SCRIPT_NAME", "REQUEST_URI",
                "DOCUMENT_URI", "DOCUMENT_ROOT", "SERVER_PROTOCOL", "REQUEST_SCHEME", "HTTPS", "GATEWAY_INTERFACE",
                "SERVER_SOFTWARE", "REMOTE_ADDR", "REMOTE_PORT", "REMOTE_USER", "SERVER_ADDR", "SERVER_PORT",
                "SERVER_NAME", "REDIRECT_STATUS"}


# The values nginx's stock fastcgi_params file gives the parameters whose value httpd computes alike.
STOCK_VALUES = {"QUERY_STRING": "$query_string", "REQUEST_METHOD": "$request_method", "CONTENT_TYPE": "$content_type",
                "CONTENT_LENGTH": "$content_length", "SCRIPT_NAME": "$fastcgi_script_name",
                "REQUEST_URI": "$request_uri", "DOCUMENT_ROOT": "$document_root",
                "SERVER_PROTOCOL": "$server_protocol", "REQUEST_SCHEME": "$scheme", "REMOTE_ADDR": "$remote_addr",
                "REMOTE_PORT": "$remote_port", "SERVER_ADDR": "$server_addr", "SERVER_PORT": "$server_port",
                "SERVER_NAME": "$server_name"}
_REQENV = re.compile(r"%\{reqenv:([A-Za-z0-9_]+)\}", re.I)


def proxy_fcgi_set_env_if(ctx: Context, d: Directive) -> Disposition:
    """ProxyFCGISetEnvIf COND [!]NAME [VALUE]: httpd sets (or with `!` removes) a parameter of every FastCGI
    request after building the standard ones, when COND holds. An unconditional one with a literal value is
    the FastCGI locations' last fastcgi_param of that name (PHP-FPM keeps the last of a repeated name), a
    removal drops the translation's own parameter; finish_server applies them once the locations exist.
    `%{reqenv:NAME}` in the value is the parameter NAME as the location sends it at that point (httpd
    evaluates them in order, on the parameters built so far)."""
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "ProxyFCGISetEnvIf needs a condition and a variable name", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    condition, variable = d.args[0], d.args[1]
    value = d.args[2] if len(d.args) > 2 else ""
    unset = variable.startswith("!")
    name = variable.lstrip("!")
    why = None
    if condition.lower() not in ("true", "false"):
        why = "only the conditions true and false are translated"
    elif re.search(r"[$\\]", _REQENV.sub("", value)) or "%{" in _REQENV.sub("", value):
        why = "only a literal value or %{reqenv:NAME} is translated"
    elif ctx.scope is not None:
        why = "only server-wide ones are translated"
    elif not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        why = "the name cannot be a FastCGI parameter"
    elif unset and name.upper() in STOCK_PARAMS:
        why = "nginx's fastcgi_params file sets this parameter, and an included file cannot be edited here"
    if why:
        ctx.diags.add("A2N101", f"ProxyFCGISetEnvIf {' '.join(d.args)}: {why}; nothing was emitted for it", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    if condition.lower() == "true":
        ctx.settings.setdefault("fcgi_env", []).append((name, None if unset else value, d))
    return Disposition.EXACT


def _fcgi_blocks(ctx: Context, server) -> list[list[Stmt]]:
    """The statement lists of the FastCGI handlers this pass built for the server (and its main server's)."""
    holders = [server] + ([ctx.main] if server is not ctx.main else [])
    lists = []
    for holder in holders:
        lists += [loc.statements for loc in holder.locations]
        lists += [scope.statements for scope in holder.settings.get("files", [])]
        lists += [scope.statements for scope in holder.scopes]
    return [block for block in lists if any(st.name == "fastcgi_pass" for st in block)]


def _served_directories(ctx: Context, server) -> list[str]:
    """The filesystem trees a server-level file handler can reach: the document roots of the servers that
    hold it (a main-server one is inherited by every virtual host) and the Alias targets there."""
    from .rewrite_handler import document_root
    servers = [server] + (ctx.model.servers if server is ctx.main else [])
    out = [document_root(ctx, s) for s in servers]
    for s in servers + ([ctx.main] if server is not ctx.main else []):
        for loc in s.locations:
            out += [st.args[0].rstrip("/") for st in loc.statements if st.name == "alias" and st.args
                    and not any(x.name == "fastcgi_pass" for x in loc.statements)]
    return out


def _gate_exec_cgi(ctx: Context, server) -> None:
    """Settle the ExecCGI handlers of `server` (see the module docstring)."""
    for statements, directory, directive, (target, runner), *host in server.settings.get("exec_cgi_gates", []):
        before = len(ctx.diags)
        placed = list(statements)
        disposition = _gate(ctx, server, statements, directory, directive, target, runner)
        if host:
            # the statements stand in a region's own list (SetHandler in a <Directory>): put the gate's there
            at = next(i for i, st in enumerate(host[0]) if st is placed[0])
            host[0][at:at + len(placed)] = statements
        section = directive.parent
        if getattr(section, "is_section", False) and section.key in ("files", "filesmatch"):
            # the file section stands or falls with its handler, and its diagnostics name it
            if disposition is not None:
                ctx.redispose(section, disposition)
            for said in ctx.diags.since(before):
                said.relate(section.span)


def _gate(ctx: Context, server, statements, directory, directive, target, runner) -> Disposition | None:
    """One ExecCGI-gated handler: its scripts run where ExecCGI holds, 403 where it does not; the handler's
    new disposition (None: unchanged)."""
    from .rewrite_handler import exec_cgi
    trees = [directory.rstrip("/")] if directory is not None else _served_directories(ctx, server)
    verdicts = {exec_cgi(ctx, server, tree) for tree in trees}
    if verdicts == {True}:
        _say_where_scripts_go(ctx, directive, target, runner)
        return None
    handler = directive.args[0]
    span = directive.span
    statements[:] = [Stmt("return", ["403"], span, comment=f"{handler}: Options ExecCGI is off here")]
    if verdicts == {False}:
        ctx.redispose(directive, Disposition.EXACT)
        ctx.diags.add("A2N723", f"{directive.name} {handler}: Options ExecCGI is off where these files are, so "
                      "httpd refuses to run them (403, even for a missing file) and so does the translation", span,
                      directive=directive.name)
        return Disposition.EXACT
    ctx.redispose(directive, Disposition.UNSUPPORTED)
    ctx.diags.add("A2N724", f"{directive.name} {handler}: Options ExecCGI differs between the directories these "
                  f"files may be in ({', '.join(trees)} and the sections below them), so the translation "
                  "answers 403 for all of them where httpd runs some", span, directive=directive.name,
                  hint="give the directories that run scripts their own <Directory> section with the "
                       "<FilesMatch> inside it")
    return Disposition.UNSUPPORTED


# SSLOptions +StdEnvVars: the SSL_* variables nginx has (mod_ssl's names; empty ones are not sent, as httpd sets
# none on a plain connection)
SSL_STD_ENV = [("SSL_PROTOCOL", "$ssl_protocol"), ("SSL_CIPHER", "$ssl_cipher"),
               ("SSL_SESSION_ID", "$ssl_session_id"), ("SSL_TLS_SNI", "$ssl_server_name"),
               ("SSL_CLIENT_VERIFY", "$ssl_client_verify"), ("SSL_CLIENT_S_DN", "$ssl_client_s_dn"),
               ("SSL_CLIENT_I_DN", "$ssl_client_i_dn"), ("SSL_CLIENT_M_SERIAL", "$ssl_client_serial"),
               ("SSL_CLIENT_V_START", "$ssl_client_v_start"), ("SSL_CLIENT_V_END", "$ssl_client_v_end"),
               ("SSL_CLIENT_V_REMAIN", "$ssl_client_v_remain")]


def _ssl_std_env(ctx: Context, server) -> None:
    """SSLOptions +StdEnvVars on a TLS server: every FastCGI location this pass built gets the SSL_* variables
    nginx has. Where the option stands in a section, httpd exports them to that section's scripts only; the
    translation gives them to all of the server's (more scripts see them, none sees fewer)."""
    options = (server.settings.get("ssl_std_env") or []) + \
        ((ctx.main.settings.get("ssl_std_env") or []) if server is not ctx.main else [])
    if not options or not server.ssl:
        return
    blocks, routes = _fcgi_blocks(ctx, server), _fcgi_routes(ctx, server)
    for d in options if routes else []:
        ctx.model.ssl_env_applied.add(id(d))
        ctx.redispose(d, Disposition.UNSUPPORTED if not blocks else Disposition.APPROXIMATE)
        ctx.diags.add("A2N101", f"SSLOptions {' '.join(d.args)}: the FastCGI routes of ProxyPass/ProxyPassMatch do "
                      "not get the SSL_* variables; nothing was emitted for them", d.span, directive=d.name,
                      hint="add fastcgi_param SSL_PROTOCOL $ssl_protocol (and the others the application reads) "
                           "to those locations")
    if not blocks:
        return
    for block in blocks:
        have = {st.args[0] for st in block if st.name == "fastcgi_param" and st.args}
        block += [Stmt("fastcgi_param", [name, var, "if_not_empty"], options[0].span)
                  for name, var in SSL_STD_ENV if name not in have]
    for d in options:
        if id(d) not in ctx.model.ssl_env_applied:
            ctx.model.ssl_env_applied.add(id(d))
            ctx.diags.add("A2N725", f"SSLOptions {' '.join(d.args)}: the FastCGI locations get the SSL_* variables "
                          "nginx has (" + ", ".join(n for n, _ in SSL_STD_ENV) + "); the rest (SSL_SESSION_RESUMED, "
                          "SSL_CIPHER_USEKEYSIZE, SSL_CLIENT_S_DN_CN and the other DN parts, SSL_SERVER_*, "
                          "SSL_VERSION_*...) are not sent" + ("; in a section, httpd exported them only to its "
                          "scripts, nginx to every script of the server" if d.parent is not None and
                          getattr(d.parent, "is_section", False) and d.parent.key != "virtualhost" else ""),
                          d.span, directive=d.name, hint="add fastcgi_param lines with a map for the variables "
                          "the application reads")


def finish_model(ctx: Context) -> None:
    """SSLOptions +StdEnvVars no FastCGI location of a TLS server took: nothing in nginx reads it."""
    for server in [ctx.main] + ctx.model.servers:
        for d in server.settings.get("ssl_std_env") or []:
            if id(d) not in ctx.model.ssl_env_applied:
                ctx.model.ssl_env_applied.add(id(d))
                ctx.redispose(d, Disposition.NOT_APPLICABLE)
                ctx.diags.add("A2N102", f"{d.name}: not applicable to nginx: StdEnvVars exports the SSL_* variables "
                              "to scripts, and no FastCGI location of a TLS server in this input runs any (where "
                              "one does, it gets fastcgi_param SSL_* $ssl_*)", d.span, directive=d.name)


def _fcgi_routes(ctx: Context, server) -> list:
    """The server's ProxyPass/ProxyPassMatch routes to FastCGI (TCP or Unix socket): the layout builds their
    locations, so the settings this pass puts into its own FastCGI blocks do not reach them."""
    return [r for r in routes_in_force(server, ctx.main) + [sc.proxy for sc in server.scopes if sc.proxy]
            if r.kind == "proxy" and r.proxy and ctx.model.upstreams[r.proxy.upstream].protocol == "fastcgi"]


def finish_server(ctx: Context, server) -> None:
    _gate_exec_cgi(ctx, server)
    _ssl_std_env(ctx, server)
    pass_set_env_if(ctx, server)
    overrides = (ctx.main.settings.get("fcgi_env") or []) + \
        ((server.settings.get("fcgi_env") or []) if server is not ctx.main else [])
    if not overrides:
        return
    fcgi_routes = _fcgi_routes(ctx, server)
    inherited = {st.args[0] for holder in (server, ctx.main) for st in holder.statements
                 if st.name == "fastcgi_param" and st.args}
    unknown: dict[int, tuple[Directive, str]] = {}
    for block in _fcgi_blocks(ctx, server):
        for name, value, d in overrides:
            if value is not None:
                value = _REQENV.sub(lambda m: _param_value(block, m.group(1), d, unknown), value)
            block[:] = [st for st in block if not (st.name == "fastcgi_param" and st.args and st.args[0] == name)]
            if value is not None:
                block.append(Stmt("fastcgi_param", [name, value], d.span))
    for d, name in unknown.values():
        ctx.redispose(d, Disposition.UNSUPPORTED)
        ctx.diags.add("A2N101", f"ProxyFCGISetEnvIf {' '.join(d.args)}: the FastCGI location does not send {name} "
                      "(or not as httpd computes it), so %{reqenv:" + name + "} is left empty there", d.span,
                      directive=d.name)
    for name, value, d in overrides:
        if fcgi_routes or (value is None and name in inherited):
            ctx.redispose(d, Disposition.UNSUPPORTED)
            ctx.diags.add("A2N101", f"ProxyFCGISetEnvIf {' '.join(d.args)}: "
                          + ("the FastCGI routes of ProxyPass do not get it" if fcgi_routes else
                             f"{name} is set server-wide (SetEnv), which a location cannot take back")
                          + "; nothing was emitted for them", d.span, directive=d.name)


def _param_value(block: list[Stmt], name: str, d: Directive, unknown: dict) -> str:
    """The value BLOCK sends for the FastCGI parameter NAME: its last fastcgi_param of that name, else the stock
    file's (when the block includes it). Unknown ones are noted and read as empty, as httpd reads an unset one."""
    own = [st for st in block if st.name == "fastcgi_param" and st.args and st.args[0].upper() == name.upper()]
    # a variable at the end is braced, so text after the reference cannot lengthen its name
    if own and len(own[-1].args) >= 2:
        return re.sub(r"\$(\w+)$", r"${\1}", own[-1].args[1])
    if name.upper() in STOCK_VALUES and any(st.name == "include" and st.args == ["fastcgi_params"] for st in block):
        return "${" + STOCK_VALUES[name.upper()][1:] + "}"
    unknown.setdefault(id(d), (d, name))
    return ""


RULES = table(
    Rule("AddHandler", Disposition.APPROXIMATE, add_handler),
    Rule("ProxyFCGISetEnvIf", Disposition.EXACT, proxy_fcgi_set_env_if),
    Rule("FcgidWrapper", Disposition.APPROXIMATE, fcgid_wrapper),
    Rule("FCGIWrapper", Disposition.APPROXIMATE, fcgid_wrapper),
)


RULES = contexts.checked(RULES)


# ----------------------------------------------------------------- SetEnvIf variables in scripts' environment

def set_env_if_variables(model, diags, server, reader: str) -> list[tuple[str, str]]:
    """(NAME, nginx variable) for each variable a server-level SetEnvIf of SERVER (or its main server) sets:
    httpd hands them to CGI and FastCGI programs (r->subprocess_env) and to SSI's echo. A name that
    per-directory SetEnvIf lines also set is not passed (one variable cannot follow the directories; reported
    once per server and READER, "FastCGI" or "SSI"); one that lines set to the empty string is passed with
    that caveat (A2N716)."""
    from . import setenvif
    main = model.main_server
    names = dict.fromkeys(list((main.settings.get("setenvif") or {}).keys()) +
                          list((server.settings.get("setenvif") or {}).keys()))
    per_dir: dict[str, object] = {}
    for line in setenvif._registry(model).lines:
        if line.server is server or line.server is main:
            per_dir.setdefault(line.name, line)
            names.setdefault(line.name)
    said = main.settings.setdefault("script_env_said", set())
    out = []
    for name in names:
        if name in per_dir:
            line = per_dir[name]
            if (id(server), name, reader) not in said:
                said.add((id(server), name, reader))
                written = _original_case(model, name, None, line.span)
                diags.add("A2N715", f"SetEnvIf {written}: set per directory ({_scope_label(line.scope)}, line "
                              f"{line.span.line}); the translation does not hand it to {reader} "
                              f"{'pages' if reader == 'SSI' else 'programs'}, which httpd gives it to", line.span,
                              directive="SetEnvIf")
            continue
        variable = setenvif.server_variable(model, server, name)
        if variable is None:
            continue
        if "empty" in setenvif.notes_for(model, name) and (id(server), name, reader, "empty") not in said:
            said.add((id(server), name, reader, "empty"))
            written = _original_case(model, name, variable)
            diags.add("A2N716", f"SetEnvIf {written}: a line sets it to the empty string; {reader} "
                          + ("programs get no parameter then (httpd passes an empty one)" if reader == "FastCGI"
                             else "pages echo it as unset then (httpd echoes nothing)"), server.span,
                          directive="SetEnvIf")
        out.append((_original_case(model, name, variable), variable))
    return out


def _scope_label(scope) -> str:
    kind = {"directory": "Directory", "files": "Files", "location": "Location"}.get(scope.kind, scope.kind)
    return f"<{kind} {scope.fs_path or scope.path}>"


def _original_case(model, name: str, variable: str | None, span=None) -> str:
    """The variable's name as the input writes it (httpd keeps its case; the model keys it lower-cased): as the
    SetEnvIf line at SPAN, or the line of the map that sets VARIABLE, wrote it."""
    from .setenvif import written_name
    if span is None:
        span = next((m.span for m in model.maps if m.variable == variable and m.span is not None), None)
    return written_name(model, name, span) if span is not None else name


def pass_set_env_if(ctx: Context, server) -> None:
    """FastCGI (and fcgiwrap's CGI) locations of SERVER get the server-level SetEnvIf variables as parameters,
    sent only when set (an unset variable is no parameter in httpd either)."""
    blocks = _fcgi_blocks(ctx, server)
    if not blocks:
        return
    for name, variable in set_env_if_variables(ctx.model, ctx.diags, server, "FastCGI"):
        for block in blocks:
            if any(st.name == "fastcgi_param" and st.args and st.args[0] == name for st in block):
                continue        # SetEnv or ProxyFCGISetEnvIf of the same name: theirs is the value
            at = next((i for i, st in enumerate(block) if st.name == "fastcgi_pass"), len(block))
            block.insert(at, Stmt("fastcgi_param", [name, variable, "if_not_empty"], None,
                                  comment=f"SetEnvIf {name}"))
