"""Smaller modules: mod_ratelimit, mod_env, mod_filter/mod_deflate, mod_expires, mod_remoteip, mod_status.

mod_ratelimit is bandwidth per response (`rate-limit` in KiB/s), which is
nginx's `limit_rate`, not request-rate limiting. mod_deflate becomes gzip
(with gzip_proxied any and gzip_vary, as DEFLATE compresses proxied responses
and adds Vary). mod_remoteip becomes real_ip, with trust-everyone flagged as a
security risk. A status page keeps its access rules or is reported.
"""
from __future__ import annotations

import ipaddress
import re

from ..model import Stmt
from ..syntax.tree import Directive
from . import contexts
from .base import Context, Disposition, flag, Rule, table

RATELIMIT_VARS = {"rate-limit", "rate-initial-burst"}


def set_output_filter(ctx: Context, d: Directive) -> Disposition:
    filters = [f for a in d.args for f in a.replace(";", " ").split()]
    disposition = Disposition.EXACT
    from . import include
    ssi = include.set_output_filter(ctx, d, filters)
    if ssi is not None:
        disposition = ssi
    for f in filters:
        upper = f.upper()
        if upper == "RATE_LIMIT" and ctx.scope is not None and ctx.scope.kind in ("directory", "files"):
            ctx.diags.add("A2N101", f"{d.name} RATE_LIMIT inside <{ctx.scope.kind.capitalize()}>: only server-wide "
                          "and <Location> rate limits are translated; nothing was emitted", d.span, directive=d.name)
            disposition = Disposition.UNSUPPORTED
        elif upper == "RATE_LIMIT":
            ctx.settings["rate_limit_filter"] = d.span
        elif upper == "INCLUDES":
            continue
        elif upper == "DEFLATE":
            ctx.emit("gzip", ["on"], d.span)
            ctx.emit("gzip_proxied", ["any"], d.span)
            ctx.emit("gzip_vary", ["on"], d.span)
            ctx.emit("gzip_types", ["*"], d.span)
            ctx.emit("gzip_http_version", ["1.0"], d.span)     # httpd compresses for HTTP/1.0 clients too
            ctx.diags.add("A2N704", f"{d.name} DEFLATE becomes gzip for every type: nginx skips responses shorter "
                          "than gzip_min_length (20 bytes), which httpd compresses, and decides on proxied "
                          "responses from the request's Via header", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
        else:
            ctx.diags.add("A2N101", f"{d.name} {f}: this output filter has no nginx translation; nothing was emitted",
                          d.span, directive=d.name)
            disposition = Disposition.UNSUPPORTED
    return disposition


def set_env(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        return Disposition.UNSUPPORTED
    name = d.args[0]
    value = d.args[1] if len(d.args) > 1 else ""
    # mod_env sets it before the response's headers are made: Header env= readers widen (setenvif.EnvReader)
    from .setenvif import note_untranslated
    note_untranslated(ctx, name)
    if name.lower() == "rate-limit":
        ctx.settings["rate_limit"] = (value, d.span)
        return Disposition.EXACT
    if name.lower() == "rate-initial-burst":
        ctx.settings["rate_burst"] = (value, d.span)
        return Disposition.EXACT
    if name.lower().startswith("rate-"):
        ctx.diags.add("A2N701", f"SetEnv {name}: mod_ratelimit knows only rate-limit and rate-initial-burst; httpd "
                      "ignores this variable, and so does the translation", d.span, directive=d.name)
        return Disposition.NOT_APPLICABLE
    if name.lower() == "no-gzip":
        # mod_deflate compresses nothing where no-gzip is set (SetEnv runs before the output filters)
        ctx.emit("gzip", ["off"], d.span)
        return Disposition.EXACT
    if name.lower() in PROXY_PROTOCOL_VARIABLES:
        # read by mod_proxy_http for each request it passes: the routes of this region say so (proxy.emitter);
        # finish_proxy_env checks that the region is one whose routes can carry it
        ctx.settings[PROXY_PROTOCOL_VARIABLES[name.lower()]] = (value, d.span)
        ctx.settings.setdefault("proxy_env_directives", []).append(d)
        return Disposition.EXACT
    if name.lower() == "proxy-sendcl":
        # nginx buffers the request body and sends it with Content-Length (proxy_request_buffering on, its
        # default, which the translation never turns off): what proxy-sendcl makes mod_proxy_http do
        return Disposition.EXACT
    if name.lower() == "proxy-interim-response" and value.lower() == "suppress":
        return Disposition.EXACT   # nginx passes no 1xx interim response from a backend to the client
    if name.lower() in MODULE_VARIABLES or name.lower().startswith("proxy-"):
        ctx.diags.add("A2N702", f"SetEnv {name}: httpd's modules change their behaviour on this variable; the "
                      "translation does not carry it", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        ctx.diags.add("A2N702", f"SetEnv {name}: not a variable name a FastCGI parameter can carry", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    # httpd hands the request's environment to CGI and FastCGI programs (mod_proxy_fcgi, fcgiwrap for CGI):
    # as a fastcgi_param it reaches the same programs, and only them. httpd passes a `$` as itself, where
    # fastcgi_param reads variables (NginxModel.literal).
    ctx.emit("fastcgi_param", [name, ctx.model.literal(value)], d.span)
    ctx.diags.add("A2N760", f"SetEnv {name}: passed to FastCGI (and CGI) programs as a fastcgi_param; httpd's own "
                  "conditions on it (Header env=, CustomLog env=, %{ENV:...}e) do not see it in nginx", d.span,
                  directive=d.name)
    return Disposition.APPROXIMATE


# mod_proxy_http's per-request protocol switches and the setting the proxy emitter reads for each.
PROXY_PROTOCOL_VARIABLES = {"force-proxy-request-1.0": "proxy_force10", "proxy-nokeepalive": "proxy_nokeepalive"}


def finish_proxy_env(ctx: Context, server) -> None:
    """force-proxy-request-1.0 / proxy-nokeepalive reach the proxied routes of a whole server, or of the
    <Location> that holds the ProxyPass itself. Set in another section (a <Directory>, or a <Location> whose
    requests another section proxies), the translation cannot tell which routes it covers: reported."""
    for scope in server.scopes:
        directives = scope.settings.get("proxy_env_directives") or []
        if not directives or (scope.kind == "location" and scope.proxy is not None and scope.proxy.kind == "proxy"):
            continue
        for d in directives:
            scope.settings.pop(PROXY_PROTOCOL_VARIABLES[d.args[0].lower()], None)
            ctx.diags.add("A2N702", f"SetEnv {d.args[0]}: mod_proxy_http reads it for each request it passes; "
                          "the translation carries it only to the routes of a whole server or of the <Location> "
                          "holding the ProxyPass, and this section is neither", d.span, directive=d.name,
                          hint="move it into the <Location> with the ProxyPass, or set proxy_http_version 1.0 / "
                          "proxy_set_header Connection close in the nginx location by hand")
            ctx.redispose(d, Disposition.UNSUPPORTED)


# Variables httpd's modules act on (mod_proxy, mod_deflate/brotli, protocol workarounds, mod_cache,
# mod_log_config conventions are ordinary variables): a fastcgi_param would lose their effect.
MODULE_VARIABLES = {"force-proxy-request-1.0", "downgrade-1.0", "force-response-1.0", "nokeepalive",
                    "gzip-only-text/html", "force-gzip", "no-brotli", "force-no-vary", "suppress-error-charset",
                    "redirect-carefully", "ssl-unclean-shutdown", "no-cache", "cache-control", "no-proxy",
                    "no-etag", "ap_trust_cgilike_cl", "h2-push", "ssl-accurate-shutdown", "cache-enable"}


def user_dir(ctx: Context, d: Directive) -> Disposition:
    """UserDir: `/~user/` URLs served from each user's directory. The translation maps no such URLs, so
    `UserDir disabled` (for everyone or a list of users) is what nginx does already; enabling forms are
    reported."""
    if d.args and d.args[0].lower() == "disabled":
        return Disposition.EXACT
    ctx.diags.add("A2N101", f"UserDir {' '.join(d.args)}: per-user directories (/~user/) are not translated; those "
                  "URLs fall through to the document root", d.span, directive=d.name,
                  hint="add `location ~ ^/~(?<user>[^/]+)(?<rest>/.*)?$ { alias /home/$user/public_html$rest; }` "
                       "by hand, with the access rules of the users' directories")
    return Disposition.UNSUPPORTED


def finish_scopes(ctx: Context, server) -> None:
    """Turn mod_ratelimit settings into limit_rate where the RATE_LIMIT filter is on."""
    holders = [(server.settings, server.statements)] + [(s.settings, s.statements) for s in server.scopes]
    for settings, statements in holders:
        if "rate_limit_filter" not in settings:
            if "rate_limit" in settings:
                ctx.diags.add("A2N703", "SetEnv rate-limit without SetOutputFilter RATE_LIMIT has no effect in "
                              "httpd; nothing is emitted", settings["rate_limit"][1])
            continue
        rate = settings.get("rate_limit") or server.settings.get("rate_limit")
        if rate and rate[0].isdigit():
            statements.append(Stmt("limit_rate", [f"{rate[0]}k"], rate[1]))
            statements.append(Stmt("proxy_ignore_headers", ["X-Accel-Limit-Rate"], rate[1]))
            burst = settings.get("rate_burst")
            if burst and burst[0].isdigit():
                statements.append(Stmt("limit_rate_after", [f"{burst[0]}k"], burst[1]))


def add_output_filter_by_type(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) < 2:
        return Disposition.UNSUPPORTED
    filters = d.args[0].upper().split(";")
    if filters == ["INCLUDES"]:
        from . import include
        return include.add_output_filter_by_type(ctx, d, d.args[1:])
    if filters != ["DEFLATE"] or ctx.scope is not None and ctx.scope.kind in ("directory", "files"):
        ctx.diags.add("A2N101", f"AddOutputFilterByType {d.args[0]}: only DEFLATE is translated"
                      + (f", and not inside <{ctx.scope.kind.capitalize()}>" if ctx.scope is not None else ""),
                      d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    types = ctx.settings.setdefault("gzip_types", [])
    types.extend(t for t in d.args[1:] if t not in types)
    ctx.settings["gzip_span"] = d.span
    ctx.settings.setdefault("gzip_spans", []).append(d.span)
    return Disposition.APPROXIMATE


def finish_gzip(ctx: Context, server) -> None:
    for settings, statements in [(server.settings, server.statements)] + [(s.settings, s.statements)
                                                                          for s in server.scopes]:
        types = settings.get("gzip_types")
        if not types:
            continue
        span = settings.get("gzip_span")
        statements += [Stmt("gzip", ["on"], span), Stmt("gzip_types", [t for t in types if t != "text/html"] or
                                                        ["text/plain"], span),
                       Stmt("gzip_proxied", ["any"], span), Stmt("gzip_vary", ["on"], span),
                       Stmt("gzip_http_version", ["1.0"], span)]
        ctx.diags.add("A2N704", "mod_deflate becomes gzip: nginx always compresses text/html once gzip is on, and "
                      "its gzip_proxied decision looks at the request's Via header", span,
                      related=list(dict.fromkeys(other for other in settings.get("gzip_spans", []) if other != span)))


def remote_ip_header(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        return Disposition.UNSUPPORTED
    ctx.settings["remoteip_header"] = (d.args[0], d.span)
    return Disposition.EXACT


def _address(text: str) -> str:
    """An address or network in the canonical form nginx accepts (httpd also takes zero-padded IPv6)."""
    try:
        return str(ipaddress.ip_network(re.sub(r"(?<![0-9A-Fa-f])0+(?=[0-9A-Fa-f])", "", text.strip("[]")),
                                        strict=False)).replace("/32", "").replace("/128", "")
    except ValueError:
        return text


def remote_ip_proxy(ctx: Context, d: Directive) -> Disposition:
    ctx.settings.setdefault("remoteip_proxies", []).extend((_address(a), d.span) for a in d.args)
    if d.key.startswith("remoteiptrusted"):
        ctx.diags.add("A2N705", f"{d.name}: httpd refuses private addresses reported by these proxies; nginx's "
                      "set_real_ip_from trusts whatever they report", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


def finish_remoteip(ctx: Context, server) -> None:
    header = server.settings.get("remoteip_header") or (ctx.main.settings.get("remoteip_header")
                                                         if server is not ctx.main else None)
    if not header:
        return
    proxies = server.settings.get("remoteip_proxies") or ctx.main.settings.get("remoteip_proxies") or []
    server.statements.append(Stmt("real_ip_header", [header[0]], header[1]))
    if not proxies:
        ctx.diags.add("A2N706", "RemoteIPHeader without RemoteIPInternalProxy/TrustedProxy trusts every client: "
                      "anyone can set their address with this header. The translation keeps that "
                      "(set_real_ip_from 0.0.0.0/0 and ::/0) but it is a security risk", header[1],
                      directive="RemoteIPHeader", hint="list the proxies with RemoteIPInternalProxy")
        proxies = [("0.0.0.0/0", header[1]), ("::/0", header[1])]
    for addr, span in proxies:
        server.statements.append(Stmt("set_real_ip_from", [addr], span))
    server.statements.append(Stmt("real_ip_recursive", ["on"], header[1]))


def set_handler(ctx: Context, d: Directive) -> Disposition:
    handler = flag(d)
    if ctx.scope is not None and ctx.scope.kind == "files":
        return _files_handler(ctx, d, handler)
    if ctx.scope is not None and ctx.scope.kind in ("directory", "location") and handler in ("none", "default-handler"):
        return _handler_off(ctx, d)
    if ctx.scope is not None and ctx.scope.kind in ("directory", "location") and not handler.startswith("proxy:"):
        from .fastcgi import _file_handler, directory_handler, refuse_in_location
        if _file_handler(d.args[0]) is not None:
            return directory_handler(ctx, d) if ctx.scope.kind == "directory" else \
                refuse_in_location(ctx, d, None)
    if ctx.scope is not None and ctx.scope.kind == "directory" and handler not in ("server-status",):
        ctx.diags.add("A2N101", f"SetHandler {d.args[0] if d.args else ''} inside a <Directory>: not translated "
                      "there; nothing was emitted for it", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if ctx.scope is None and handler not in ("none", "default-handler"):
        # nginx takes a content handler (stub_status, fastcgi_pass) only in a location
        ctx.diags.add("A2N101", f"SetHandler {d.args[0] if d.args else ''} outside any section (for the whole "
                      "server) is not translated; nothing was emitted", d.span, directive=d.name,
                      hint="put it in a <Location /> or <Directory> section")
        return Disposition.UNSUPPORTED
    if handler == "server-status":
        ctx.emit("stub_status", [], d.span)
        ctx.diags.add("A2N707", "server-status becomes stub_status: the page shows different figures; its access "
                      "rules must be translated with it", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    if handler == "balancer-manager":
        ctx.diags.add("A2N708", "balancer-manager has no nginx open-source equivalent; nothing was emitted",
                      d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if handler in ("none", "default-handler"):
        return Disposition.EXACT
    if handler.startswith("proxy:"):
        from .fastcgi import set_handler_fcgi
        return set_handler_fcgi(ctx, d)
    ctx.diags.add("A2N101", f"SetHandler {d.args[0] if d.args else ''} is not translated; nothing was emitted",
                  d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def _handler_off(ctx: Context, d: Directive) -> Disposition:
    """SetHandler default-handler (or None) in a <Directory> or <Location>. Observed in httpd 2.4: core's
    type-checker sets the merged SetHandler after mod_mime has given AddHandler's handler, so default-handler
    serves the files there as files (a <Location> merges after every other section and also takes back a
    <FilesMatch> handler; a <Directory>'s only mod_mime's), while None sets nothing and AddHandler's scripts
    still run. The layout keeps the handlers default-handler takes back out of the region's locations
    (Location.static_only, Location.mime_off); a later section's own SetHandler replaces it."""
    ctx.scope.settings["handler"] = (flag(d), ctx.scope.kind, d)
    return Disposition.EXACT


def _files_handler(ctx: Context, d: Directive, handler: str) -> Disposition:
    """SetHandler None in a <Files> section: the files it matches are served as files. Inside a <Directory>
    its nested location is kept free of the server's script handlers (the layout nests them everywhere else),
    as httpd's merge lets this section's handler win for those files. At server level the order against the
    server's own script sections decides, which is not translated."""
    if handler in ("none", "default-handler"):
        inside = ctx.scope.parent
        if inside is not None and inside.kind == "directory":
            ctx.scope.settings["static_files"] = d
            return Disposition.EXACT
        scripts = [loc for loc in ctx.server.locations if any(st.name == "fastcgi_pass" for st in loc.statements)]
        if not scripts:
            return Disposition.EXACT
    if handler.startswith("proxy:"):
        # httpd hands these files to a backend (or answers 500 where the worker is not defined): nginx must not
        # serve them from the disk instead
        ctx.emit("return", ["502"], d.span)
        ctx.diags.add("A2N101", f"SetHandler {d.args[0]} inside <Files>: this proxy handler is not translated for "
                      "file sections; the files it matches answer 502 instead of being proxied", d.span,
                      directive=d.name, hint="proxy them by hand (fastcgi_pass or proxy_pass in the location)")
        return Disposition.UNSUPPORTED
    why = "a script location of the server still takes these files" if handler in ("none", "default-handler") \
        else "only script handlers (FastCGI, PHP) are translated for file sections"
    ctx.diags.add("A2N101", f"SetHandler {d.args[0] if d.args else ''} inside <Files>: {why}; nothing was emitted",
                  d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def finish_server(ctx: Context, server) -> None:
    finish_proxy_env(ctx, server)
    finish_scopes(ctx, server)
    finish_gzip(ctx, server)
    finish_remoteip(ctx, server)


RULES = table(
    Rule("SetOutputFilter", Disposition.EXACT, set_output_filter),
    Rule("SetEnv", Disposition.EXACT, set_env),
    Rule("UserDir", Disposition.EXACT, user_dir),
    Rule("AddOutputFilterByType", Disposition.APPROXIMATE, add_output_filter_by_type),
    Rule("RemoteIPHeader", Disposition.EXACT, remote_ip_header),
    Rule("RemoteIPInternalProxy", Disposition.EXACT, remote_ip_proxy),
    Rule("RemoteIPTrustedProxy", Disposition.APPROXIMATE, remote_ip_proxy),
    Rule("SetHandler", Disposition.APPROXIMATE, set_handler),
    Rule("ExtendedStatus", Disposition.NOT_APPLICABLE, note="stub_status has no extended mode"),
    Rule("ProxyStatus", Disposition.NOT_APPLICABLE, note="it adds balancer details to server-status, and "
         "stub_status shows none"),
)


RULES = contexts.checked(RULES)
