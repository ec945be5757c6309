"""mod_vhost_alias: VirtualDocumentRoot, VirtualScriptAlias and their IP forms.

httpd builds the file name of every request from a format string and the
request's server name (`ap_get_server_name`: the Host header's name with
UseCanonicalName Off, the ServerName with On) or, for the `IP` forms, the
address the connection arrived on. The name is split at its dots: `%0` is the
whole name, `%N` the Nth part, `%-N` the Nth part from the end, `%N+` the Nth
part and all after it, `%-N+` the Nth part from the end and all before it;
`.M` selects characters of that part the same way; a part or character that
does not exist is `_`; letters are lower-cased. `%p` is the server port, `%%`
a percent sign.

In nginx the whole name is `$host` (lower-cased, without port or trailing
dot, the server name when the request has no Host, as httpd's), the address
`$server_addr`; each other part comes from a `map` on it whose regular
expression selects exactly what httpd's interpolation would, with `_` as the
default. mod_alias's Alias and ScriptAlias take precedence, as in httpd,
because they are translated as locations of their own.
"""
from __future__ import annotations

import re

from ..model import Route, Server
from ..syntax.tree import Directive
from .base import Context, Disposition

_SPEC = re.compile(r"%(?:(?P<pct>%)|(?P<port>p)|(?P<nd>-?)(?P<n>\d)(?P<np>\+?)(?:\.(?P<md>-?)(?P<m>\d)(?P<mp>\+?))?)")


# what httpd's vhost_alias_set accepts: after each %, `p`, `%`, or -?N+? with an optional .-?M+?
_VALID_FORMAT = re.compile(r"(?:[^%]|%(?:[p%]|(?>-?\d\+?)(?:\.-?\d|(?!\.))))*")


def check_format(fmt: str) -> str | None:
    """httpd's own check of a format string (vhost_alias_set); the error text it gives, or None."""
    if not fmt.startswith("/"):
        return None if fmt.lower() == "none" else "format string must start with '/' or be 'none'"
    return None if _VALID_FORMAT.fullmatch(fmt) else "syntax error in format string"


def interpolate(name: str, fmt: str, port: int = 80) -> str:
    """httpd's vhost_alias_interpolate for one name (a static ServerName), without the URI."""
    parts_end = [i for i, c in enumerate(name) if c == "."][:18]
    dots = [-1] + parts_end + [len(name)]
    ndots = len(dots) - 1
    out: list[str] = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        if m.group("pct"):
            out.append("%")
            continue
        if m.group("port"):
            out.append(str(port))
            continue
        n, nd, np_ = int(m.group("n")), bool(m.group("nd")), bool(m.group("np"))
        mm = int(m.group("m") or 0)
        md, mp = bool(m.group("md")), bool(m.group("mp"))
        text = name
        start, end = dots[0] + 1, dots[ndots]
        if n:
            if n > ndots:
                text, start, end = "_", 0, 1
            elif not nd:
                start = dots[n - 1] + 1
                if not np_:
                    end = dots[n]
            else:
                if not np_:
                    start = dots[ndots - n] + 1
                end = dots[ndots - n + 1]
        if mm:
            if mm > end - start:
                text, start, end = "_", 0, 1
            elif not md:
                start = start + mm - 1
                if not mp:
                    end = start + 1
            else:
                if not mp:
                    start = end - mm
                end = end - mm + 1
        out.append(text[start:end].lower())
    out.append(fmt[pos:])
    return "".join(out)


def part_regex(n: int, nd: bool, np_: bool, m: int, md: bool, mp: bool) -> str:
    """A regular expression whose first capture is what `%[-]N[+][.[-]M[+]]` selects from a name;
    it does not match where httpd would interpolate `_`."""
    c = "." if (n == 0 or np_) else "[^.]"
    skip = _times(c, m - 1)
    if m == 0:
        region = f"({c}*)"
    elif not md and not mp:
        region = f"{skip}({c}){c}*"
    elif not md:
        region = f"{skip}({c}+)"
    elif not mp:
        region = f"{c}*({c}){skip}"
    else:
        region = f"({c}*{c}){skip}"
    head, tail = "[^.]*\\.", "\\.[^.]*"
    if n == 0:
        return f"^{region}$"
    if not nd and not np_:
        return f"^{_repeat(head, n - 1)}{region}(?:\\..*)?$"
    if not nd:
        return f"^{_repeat(head, n - 1)}{region}$"
    if not np_:
        return f"^(?:.*\\.)?{region}{_repeat(tail, n - 1)}$"
    return f"^{region}{_repeat(tail, n - 1)}$"


def _repeat(unit: str, times: int) -> str:
    if times == 0:
        return ""
    return unit if times == 1 else f"(?:{unit}){{{times}}}"


def _times(unit: str, times: int) -> str:
    return "" if times <= 0 else unit if times == 1 else f"{unit}{{{times}}}"


def nginx_expression(ctx: Context, fmt: str, source: str, port: str) -> tuple[str, bool]:
    """The format as an nginx value over SOURCE ($host or $server_addr); True when it needed maps."""
    out: list[str] = []
    pos = 0
    mapped = False
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        if m.group("pct"):
            out.append("%")
            continue
        if m.group("port"):
            variable = port
        else:
            n, mm = int(m.group("n")), int(m.group("m") or 0)
            if n == 0 and mm == 0:
                variable = source
            else:
                regex = part_regex(n, bool(m.group("nd")), bool(m.group("np")), mm, bool(m.group("md")),
                                   bool(m.group("mp")))
                variable = ctx.model.shared_map("a2n_vhost_", source, [("~" + regex, "$1")], "_")
                mapped = True
        following = fmt[pos:pos + 1]
        if following.isalnum() or following == "_":
            variable = "${" + variable[1:] + "}"   # would run into the variable's name otherwise
        out.append(variable)
    out.append(fmt[pos:])
    return "".join(out), mapped


# ----------------------------------------------------------------------------------- directives

def virtual_root(ctx: Context, d: Directive) -> Disposition:
    """Record the format; finish_server turns it into `root` (or a CGI route) once ServerName and
    UseCanonicalName are known. A `none` value switches an inherited one off."""
    if len(d.args) != 1:
        ctx.diags.add("A2N001", f"{d.name} takes one argument", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    error = check_format(d.args[0])
    if error:
        ctx.diags.add("A2N001", f"{d.name} {d.args[0]}: {error} (httpd refuses it)", d.arg_span(0),
                      directive=d.name)
        return Disposition.UNSUPPORTED
    if "$" in d.args[0] or "{" in d.args[0] or ";" in d.args[0]:
        ctx.diags.add("A2N101", f"{d.name} {d.args[0]}: `$`, `{{` or `;` in the path has no nginx "
                      "spelling here; nothing was emitted for it", d.arg_span(0), directive=d.name)
        return Disposition.UNSUPPORTED
    key = "vhost_cgi" if "scriptalias" in d.key else "vhost_root"
    ip = d.key.endswith("ip")
    value = None if d.args[0].lower() == "none" else d.args[0]
    ctx.server.settings[key] = (value, ip, d)
    if key == "vhost_root" and value is not None and not ip:
        # Provisional, so that passes reading the root while the server is walked see a per-host one.
        ctx.server.root = nginx_expression(ctx, value, "$host", "$server_port")[0].rstrip("/") or "/"
        ctx.server.root_expression = True
        ctx.server.root_span = d.span
    return Disposition.APPROXIMATE if key == "vhost_cgi" and value is not None else Disposition.EXACT


def _setting(ctx: Context, server: Server, key: str):
    own = server.settings.get(key)
    if own is not None or server is ctx.main:
        return own
    return ctx.main.settings.get(key)


def _canonical(ctx: Context, server: Server) -> str:
    canonical = _setting(ctx, server, "use_canonical_name")
    return canonical[0] if canonical else "off"


def server_name_variable(ctx: Context, server: Server) -> str:
    """nginx's value for httpd's SERVER_NAME: the client's host name under UseCanonicalName Off (httpd's default;
    both lower-case it and fall back to the server's name without a Host), the ServerName under On or DNS."""
    return "$server_name" if _canonical(ctx, server) in ("on", "dns") else "$host"


# httpd's r->parsed_uri.port: the port of an absolute request URI (the Host header is not read then), else of
# the Host header (vhost.c fix_hostname keeps it there for ap_get_server_port); leading zeros are dropped
CLIENT_PORT = [(r"~^\S+\s[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]*?:0*(\d+)[/?#\s]", "$1"),
                (r"~^\S+\s[A-Za-z][A-Za-z0-9+.-]*://", None), (r"~\|[^|]*:0*(\d+)$", "$1")]


def server_port_variable(ctx: Context, server: Server) -> str:
    """nginx's value for httpd's SERVER_PORT (ap_get_server_port): under UseCanonicalName Off (the default) the
    port the client named, in an absolute request URI or else the Host header (observed: a request with
    "Host: www.example.com:8443" sees 8443 on a server listening on 80), without one the ServerName's port, else
    the scheme's default; under On always the latter. nginx's $server_port is the port it listens on."""
    port = _port(ctx, server)
    entries = [] if _canonical(ctx, server) == "on" else [(key, value or port) for key, value in CLIENT_PORT]
    return ctx.model.shared_map("a2n_server_port_", "$request|$http_host", entries, port)


def _name_source(ctx: Context, server: Server, d: Directive, ip: bool) -> tuple[str | None, str]:
    """(nginx variable or None, static name) httpd takes the server name from."""
    if ip:
        return "$server_addr", ""
    mode = _canonical(ctx, server)
    if mode == "on":
        for holder in (server, ctx.main):
            if holder.has_server_name and holder.names and not holder.names[0].startswith("~"):
                return None, holder.names[0]
        return None, ""     # httpd would use the machine's own host name
    if mode == "dns":
        return None, ""
    return "$host", ""


def _static_root(ctx: Context, server: Server):
    """The DocumentRoot in effect without mod_vhost_alias (None: httpd's compiled-in one, filled in later)."""
    for holder in (server, ctx.main):
        own = holder.settings.get("static_root")
        if own:
            return own
    return None, None


def _port(ctx: Context, server: Server) -> str:
    """httpd's ap_get_server_port with UseCanonicalName Off: the port of an absolute request URI, else of the
    ServerName, else the scheme's default; the Host header's port is not used (checked against httpd)."""
    raw = server.settings.get("server_name_port") or ctx.main.settings.get("server_name_port")
    return raw or ("443" if server.ssl else "80")


def finish_server(ctx: Context, server: Server) -> None:
    for key in ("vhost_root", "vhost_cgi"):
        setting = _setting(ctx, server, key)
        if setting is None:
            continue
        if setting[0] is None:
            if key == "vhost_root":   # `none`: the plain DocumentRoot applies again
                server.root, server.root_span = _static_root(ctx, server)
                server.root_expression = False
            continue
        fmt, ip, d = setting
        source, static = _name_source(ctx, server, d, ip)
        if source is None and not static:
            ctx.redispose(d, Disposition.UNSUPPORTED)
            why = ("with UseCanonicalName DNS httpd takes the name from a reverse lookup of the server address"
                   if _canonical(ctx, server) == "dns" else
                   "with UseCanonicalName On and no ServerName httpd takes the machine's own host name")
            ctx.diags.add("A2N230", f"{d.name} {fmt}: {why}; nginx cannot, so the per-host root was not emitted",
                          d.span, directive=d.name)
            continue
        if "%p" in fmt:
            ctx.redispose(d, Disposition.APPROXIMATE)
            port = _port(ctx, server)
            ctx.diags.add("A2N231", f"{d.name} {fmt}: %p is the port of ServerName, else the scheme's default "
                          f"({port} here), as httpd reads it; httpd would take a port given in an absolute request "
                          "URI instead", d.span, directive=d.name)
        else:
            port = ""
        if source is None:
            value, mapped = interpolate(static, fmt.replace("%p", "\x00")).replace("\x00", port), False
        else:
            value, mapped = nginx_expression(ctx, fmt, source, port)
        if mapped:
            ctx.redispose(d, Disposition.APPROXIMATE)
            ctx.diags.add("A2N232", f"{d.name} {fmt}: the parts of the host name come from regular-expression "
                          "maps; a request whose first use of the document root follows a regex location's "
                          "match sees $1... of the map instead of the location's captures", d.span,
                          directive=d.name, hint="use named captures (?<name>...) in regex locations")
        if key == "vhost_root":
            server.root = value.rstrip("/") or "/"
            server.root_expression = True
            server.root_span = d.span
            _directories_below(ctx, server, fmt, d)
        elif server is ctx.main:
            server.settings["vhost_cgi_value"] = (value, d)   # see finish_model
        else:
            _script_alias(ctx, server, value, d)


def finish_model(ctx: Context) -> None:
    """The main server's VirtualScriptAlias serves the main server only: every virtual host that inherits
    it got its own route. A route on the main server would be inherited by every virtual host, so it is
    added only where none of them switched it off."""
    pending = ctx.main.settings.get("vhost_cgi_value")
    vhosts = [s for s in ctx.model.servers if s is not ctx.main]
    if pending is None or (vhosts and ctx.main not in ctx.model.servers):
        return
    value, d = pending
    off = [s for s in vhosts if s.settings.get("vhost_cgi") and s.settings["vhost_cgi"][0] is None]
    if off:
        ctx.redispose(d, Disposition.UNSUPPORTED)
        ctx.diags.add("A2N101", f"{d.name} {d.args[0]}: the main server's per-host CGI directory is not emitted "
                      "for it, since the virtual hosts that switch it off would inherit it in nginx", d.span,
                      directive=d.name, related=[s.settings["vhost_cgi"][2].span for s in off])
        return
    _script_alias(ctx, ctx.main, value, d)


def _directories_below(ctx: Context, server: Server, fmt: str, d: Directive) -> None:
    """<Directory> sections at or below the per-host part of the root apply per host in httpd; the layout
    matches directories by their path, so they would apply nowhere: say so."""
    prefix = fmt[:fmt.index("%")] if "%" in fmt else None
    if prefix is None:
        return
    prefix = prefix[:prefix.rfind("/") + 1]
    holders = [server] + ([ctx.main] if server is not ctx.main else [])
    for holder in holders:
        for scope in holder.settings.get("directories", []):
            fs = scope.fs_path
            if fs and (fs.rstrip("/") + "/").startswith(prefix) and len(fs.rstrip("/") + "/") > len(prefix) \
                    and id(scope) not in ctx.model.access_reported:
                ctx.model.access_reported.add(id(scope))
                ctx.diags.add("A2N233", f"<Directory {fs}> lies inside the per-host directories of {d.name} "
                              f"{fmt}: nothing in it is applied in nginx", scope.span, directive="<Directory",
                              related=[d.span], hint="repeat its directives in a server block for that host")


def _script_alias(ctx: Context, server: Server, value: str, d: Directive) -> None:
    """VirtualScriptAlias: URLs under /cgi-bin/ run programs from the per-host directory, like a
    ScriptAlias /cgi-bin/ (mod_alias's own ScriptAlias for /cgi-bin/ is seen first in httpd)."""
    from .alias import FCGIWRAP_SOCKET
    if any(r.kind == "alias" and r.path == "/cgi-bin/" for r in server.routes):
        return      # the server's own ScriptAlias /cgi-bin/: mod_alias translates first
    target = value.rstrip("/") + "/"
    variable = ctx.model.shared_map("a2n_cgi_", "$fastcgi_script_name",
                                    [("~^/cgi\\-bin/(?<a2n_cgi_path>.*)$", target + "$a2n_cgi_path")], '""')
    server.routes.append(Route("alias", "/cgi-bin/", target, span=d.span,
                               params={"directive": d.name, "cgi": variable}))
    reported = ctx.main.settings.setdefault("vhost_cgi_reported", set())
    if id(d) in reported:
        return      # said once for a main-server directive every virtual host inherits
    reported.add(id(d))
    ctx.diags.add("A2N406", f"{d.name}: the programs run through fcgiwrap at "
                  f"{FCGIWRAP_SOCKET.removeprefix('unix:')} (install and start it); a program in a subdirectory "
                  "is not found, and a missing one answers 403 (fcgiwrap) instead of httpd's 404",
                  d.span, directive=d.name, hint="apt-get install fcgiwrap (it listens on /run/fcgiwrap.socket)")

