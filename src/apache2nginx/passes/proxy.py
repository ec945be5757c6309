"""mod_proxy and mod_proxy_balancer: ProxyPass routes, balancers, backend requests.

Owns the backend side. Every backend gets an `upstream` with connection reuse
(`keepalive`, `proxy_http_version 1.1`, `Connection ""`), because mod_proxy
reuses backend connections by default and nginx would otherwise speak
HTTP/1.0 with `Connection: close`. `<Proxy balancer://>` members keep their
order, weights and states; Apache's `retry` ban is approximated with
`max_fails`/`fail_timeout` and said so. The request Apache sends is rebuilt
explicitly: Host (ProxyPreserveHost), X-Forwarded-For/-Host/-Server
(ProxyAddHeaders), Location rewriting (ProxyPassReverse, else
`proxy_redirect off`), timeouts.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import reduce

from ..model import MapBlock, ProxyTarget, Route, Server, Stmt, Upstream, UpstreamServer
from ..syntax.tree import Directive, Section
from .base import Context, Disposition, Rule, loosest, table
from .proxy_numbers import atoi_seconds, loadfactor, nginx_duration, timeout_ms

_URL = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<host>\[[^\]]+\]|[^/:]*)(?::(?P<port>\d+))?(?P<path>/.*)?$")
_HOST = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.~%-]*")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "fcgi": 9000, "uwsgi": 3031}
HTTP_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
PROTOCOLS = {"http": "http", "https": "http", "ws": "http", "wss": "http", "fcgi": "fastcgi", "uwsgi": "uwsgi"}
WORKER_KEYS = {"timeout", "connectiontimeout", "retry", "keepalive", "disablereuse", "enablereuse", "max", "ttl",
               "upgrade", "flushpackets", "min", "smax", "acquire", "ping", "loadfactor", "status", "route",
               "lbset", "redirect", "iobuffersize", "receivebuffersize", "flushwait", "secret", "mapping",
               "addressttl", "responsefieldsize", "hcmethod", "hcinterval", "hcpasses", "hcfails", "hcuri",
               "hcexpr", "hctemplate", "lbmethod", "maxattempts", "nofailover", "stickysession",
               "stickysessionsep", "scolonpathdelim", "failonstatus", "failontimeout", "forcerecovery",
               "growth", "proxyrequests"}


def parse_url(text: str):
    m = _URL.match(text)
    if not m:
        return None
    scheme = m.group("scheme").lower()
    port = m.group("port")
    if port and (not port.isdigit() or len(port) > 5 or not 1 <= int(port) <= 65535):
        return None      # httpd refuses the URL ("invalid port"), nginx too
    host = m.group("host")
    if scheme == "balancer":
        # a balancer's name becomes an upstream's: one token nginx reads (`}` or `;` would end it)
        host = re.sub(r"[^A-Za-z0-9_.-]", "_", host)
    elif not _HOST.fullmatch(host):
        return None      # not a host name or address: nginx could not write it in a server line
    return scheme, host, port, m.group("path") or ""


def _params(ctx: Context, d: Directive, args: list[str], start: int) -> dict[str, str]:
    params: dict[str, str] = {}
    for i, arg in enumerate(args):
        key, sep, value = arg.partition("=")
        if not sep:
            if arg.lower() in ("nocanon", "interpolate", "noquery"):
                params[arg.lower()] = "on"
                continue
            ctx.diags.add("A2N001", f"{d.name}: {arg!r} is not a key=value parameter", d.arg_span(start + i),
                          directive=d.name)
            continue
        key = key.lower()
        number = _number(key, value)
        if number is False:
            ctx.diags.add("A2N001", f"{d.name}: httpd refuses {key}={value} ({_REFUSED[key]}) and does not start",
                          d.arg_span(start + i), directive=d.name, hint="write a value httpd accepts")
            continue
        params[key] = value if number is None else number
    return params


# what httpd says of a value it refuses (set_worker_param in mod_proxy.c)
_REFUSED = {"retry": "Retry must be a positive value", "timeout": "Timeout must be at least one second",
            "ttl": "TTL must be at least one second", "max": "Max must be a positive number",
            "connectiontimeout": "Connectiontimeout has wrong format or is under one millisecond",
            "loadfactor": "LoadFactor must be a number between 1..100"}


def _number(key: str, value: str):
    """A worker parameter's number as the rest of the pass reads it: retry= and ttl= whole seconds (max= a
    count) as digits, timeout= and connectiontimeout= as nginx durations, loadfactor= in hundredths; False where
    httpd refuses the value, None for the other parameters (kept as written)."""
    if key in ("retry", "ttl", "max"):
        number = atoi_seconds(value, 1 if key == "ttl" else 0)     # (max= is a count, read alike)
        return False if number is None else str(number)
    if key == "timeout":
        seconds = atoi_seconds(value, 1)
        return False if seconds is None else f"{seconds}s"
    if key == "connectiontimeout":
        ms = timeout_ms(value)
        return False if ms is None else nginx_duration(ms)
    if key == "loadfactor":
        hundredths = loadfactor(value)
        return False if hundredths is None else str(hundredths)
    return None


# ----------------------------------------------------------------- upstreams

def _upstream_name(scheme: str, host: str, port: str | None) -> str:
    """The nginx upstream standing for httpd's worker at scheme://host:port."""
    port_num = int(port) if port else DEFAULT_PORTS.get(scheme, 80)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", host.strip("[]")) + f"_{port_num}"


def _claim_upstream(model, key: tuple, base: str, make) -> Upstream:
    """The upstream standing for KEY (what httpd tells its workers and balancers apart by), made by
    MAKE(name) the first time. nginx compares upstream names case-insensitively and refuses two of one name
    ("duplicate upstream"), and a balancer's name may be a host upstream's (balancer://app_8080 and
    http://app:8080): a name another key holds, in any letter case, gets a number appended."""
    name = model.upstream_keys.get(key)
    if name is not None:
        return model.upstreams[name]
    taken = {n.lower() for n in model.upstreams}
    name, n = base, 1
    while name.lower() in taken:
        n += 1
        name = f"{base}_{n}"
    model.upstream_keys[key] = name
    up = model.upstreams[name] = make(name)
    return up


def _balancer_key(server: Server, name: str) -> tuple:
    """httpd keeps a balancer in the server that defines it (its name lower-cased: balancer://App is
    balancer://app) and a virtual host sees its own and the main server's; two virtual hosts' balancers of
    one name are two balancers."""
    return ("balancer", id(server), name.lower())


def _balancer(ctx: Context, name: str, span) -> Upstream:
    """The upstream of balancer://NAME as the current server defines it."""
    return _claim_upstream(ctx.model, _balancer_key(ctx.server, name), name,
                           lambda n: Upstream(n, span=span, balancer=True))


def balancer_upstream(model, server: Server, main: Server, name: str) -> Upstream | None:
    """The balancer a request of SERVER reaches by balancer://NAME: the main server's, which httpd lists
    before a virtual host's own, where it has members, else the server's own."""
    for holder in (main, server):
        found = model.upstream_keys.get(_balancer_key(holder, name))
        if found is not None and model.upstreams[found].servers:
            return model.upstreams[found]
    found = model.upstream_keys.get(_balancer_key(server, name))
    return model.upstreams[found] if found is not None else None


# httpd 2.4.7+: `unix:/path/to.sock|http://host/path` reaches the backend over a Unix domain socket
_UNIX_SOCKET = re.compile(r"^unix:(?P<sock>/[^|]+)\|(?P<url>.+)$", re.I)


def _backend_path(path: str) -> str:
    """The path of a ProxyPass / ProxyPassMatch URL as httpd sends it over HTTP: mod_proxy_http canonicalises
    the URL's path and encodes a '?' in it (http://b/q.php?p= asks the backend for /q.php%3Fp=abc, the
    client's own query appended after); nginx's proxy_pass would take the '?' as the start of a query."""
    return path.replace("?", "%3F")


def _upstream_for(ctx: Context, d: Directive, url: str, index: int) -> ProxyTarget | None:
    sock = _UNIX_SOCKET.match(url)
    if sock:
        url = sock.group("url")
    parsed = parse_url(url)
    if parsed is None:
        ctx.diags.add("A2N302", f"{d.name}: {url} is not a URL the translator understands; its requests answer "
                      "502 in the translation", d.arg_span(index), directive=d.name)
        return None
    scheme, host, port, path = parsed
    if scheme in HTTP_SCHEMES or scheme == "balancer":
        path = _backend_path(path)
    if scheme == "balancer":
        # The <Proxy balancer://> section may come later in the file: httpd reads the whole
        # configuration first, so the members are checked when the server is laid out.
        up = balancer_upstream(ctx.model, ctx.server, ctx.main, host)
        if up is None or not up.servers:
            up = _balancer(ctx, host, d.span)
        return ProxyTarget(up.scheme, up.name, path, up.host_header, d.span)
    if scheme not in PROTOCOLS:
        ctx.diags.add("A2N302", f"{d.name}: the {scheme}:// backend protocol has no nginx equivalent; its requests "
                      "answer 502 in the translation", d.arg_span(index), directive=d.name)
        return None
    protocol = PROTOCOLS[scheme]
    port_num = int(port) if port else DEFAULT_PORTS.get(scheme, 80)
    name = _upstream_name(scheme, host, port)
    address = f"{host}:{port_num}"
    # one upstream per host as written and per scheme (what nginx speaks to it); nginx would take two
    # spellings of one name in another letter case for one upstream name, so the second gets a number
    key = ("host", protocol, HTTP_SCHEMES.get(scheme, "http"), host, port_num)
    if sock:
        # the host part names the backend (its Host header) but is never resolved or connected to
        name = "unix" + re.sub(r"[^A-Za-z0-9_.-]", "_", sock.group("sock"))
        address = f"unix:{sock.group('sock')}"
        key = ("unix", protocol, HTTP_SCHEMES.get(scheme, "http"), sock.group("sock"))
    host_header = host + (f":{port}" if port else "")
    up = _claim_upstream(ctx.model, key, name, lambda n: Upstream(
        n, [UpstreamServer(address, [], d.span, url=f"{scheme}://{host}" + (f":{port}" if port else ""))],
        span=d.span, protocol=protocol, scheme=HTTP_SCHEMES.get(scheme, "http"), host_header=host_header,
        # mod_proxy_fcgi and _uwsgi reuse connections only with enablereuse=on.
        reuse=protocol == "http"))
    return ProxyTarget(up.scheme, up.name, path, up.host_header, d.span)


# ----------------------------------------------------------------- ProxyPass

def proxy_pass(ctx: Context, d: Directive) -> Disposition:
    args = list(d.args)
    in_location = ctx.scope is not None and not ctx.scope.regex
    if in_location:
        path = ctx.scope.path
        if not args:
            ctx.diags.add("A2N001", "ProxyPass needs a URL", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        url, rest, url_index = args[0], args[1:], 0
    else:
        if ctx.scope is not None:
            ctx.diags.add("A2N304", "ProxyPass in <LocationMatch> is not allowed by httpd (use ProxyPassMatch)",
                          d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        if len(args) < 2:
            ctx.diags.add("A2N001", "ProxyPass needs a path and a URL", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        # mod_proxy's alias_match lets a run of slashes in the path match any run in the URL (/t// takes
        # /t/y and /t//y alike, the rest after the run goes to the backend); nginx's locations see the URL
        # with its slashes merged, so the location names the path with its runs made one slash
        path, url, rest, url_index = re.sub("/+", "/", args[0]), args[1], args[2:], 1
    if url == "!":
        exclusion = Route("proxy-exclude", path, span=d.span, params={"directive": "ProxyPass"})
        if in_location:
            # the <Location> merged last wins: its URLs are served here, not proxied (observed on httpd 2.4)
            ctx.scope.proxy = exclusion
        else:
            ctx.server.routes.append(exclusion)
        return Disposition.EXACT
    params = _params(ctx, d, rest, url_index + 1)
    target = _upstream_for(ctx, d, url, url_index)
    if target is None:
        _unreachable(ctx, d, path, url, regex=False, in_scope=in_location)
        return Disposition.UNSUPPORTED
    # nocanon sends the raw request path; where the backend path is the public one, so does a proxy_pass
    # without a URI part (the request URI as the client sent it, not the decoded and re-encoded one)
    raw = "nocanon" in params and (target.path or "/") == path and not url.lower().startswith("balancer:")
    disposition = _apply_worker_params(ctx, d, target, params, url, raw=raw)
    if raw:
        params["raw_uri"] = "1"
    if path.endswith("/") != (target.path or "/").endswith("/"):
        ctx.diags.add("A2N319", f"ProxyPass {path} {url}: the trailing slashes differ, so httpd joins the rest of "
                      "the path literally (a doubled or missing slash); the translation does the same", d.span,
                      directive=d.name)
    no_path = re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+", url) is not None
    if no_path and not target.path and path.endswith("/"):
        # httpd appends the rest of the path to the URL as it is: /x under ProxyPass / balancer://foo becomes
        # balancer://foox, a balancer that does not exist, and under ProxyPass /p/ http://host:8081 the port
        # 8081x, or the host name hostx: httpd answers 500 (AH01144; observed for ports and host names alike)
        params["balancer_join"] = "1"
        port = re.search(r":(\d+)$", url)
        if port and int(port.group(1)) * 10 > 65535:
            # digits appended to the port (up to the next slash) make a number past 65535: a bad request (400)
            params["join_digits_400"] = "1"
        what = "the balancer's name" if url.lower().startswith("balancer:") else "the host and port"
        ctx.diags.add("A2N343", f"ProxyPass {path} {url}: the path ends with a slash and the URL has no path, "
                      f"so httpd appends the rest of the path to {what} ({url}x for {path}x) and "
                      f"answers 500 for everything but {path} itself; the translation does the same, but before its "
                      "access checks: where access rules refuse such a request, httpd answers 401/403 and nginx 500, without "
                      "the refusal's headers (its challenge, its ErrorDocument page's)",
                      d.span,
                      directive=d.name)
    if params.get("mapping", "").lower() == "encoded":
        ctx.diags.add("A2N344", f"ProxyPass {path} {url} mapping=encoded: httpd also passes paths holding %2F "
                      "(encoded slashes) to the backend; the translation answers them 404, as httpd does "
                      "without mapping=encoded", d.span, directive=d.name)
        if "%" in path:
            # httpd matches this path against the request as the client encoded it (/special%3Fsegment); nginx's
            # locations see the decoded path (/special?segment), and the emitter checks the encoded form. %2F
            # and %25 stay: decoding them would change which path segments the location names.
            params["encoded_path"] = path
            path = re.sub(r"%(?![2][Ff5])([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), path)
    ctx.server.settings.setdefault("workers", []).append(url.lower())
    route = Route("proxy", path, url, proxy=target, params={**params, "directive": "ProxyPass"}, span=d.span)
    if in_location:
        ctx.scope.proxy = route
    else:
        ctx.server.routes.append(route)
        if params.get("mapping", "").lower() == "servlet" and path.strip("/"):
            _servlet_parameters(ctx, d, path, url)
    return disposition


def _servlet_parameters(ctx: Context, d: Directive, path: str, url: str) -> None:
    """mapping=servlet: httpd matches the path segment by segment, each with or without `;parameters`
    (/app;jsessionid=1/x), and sends the backend a path it rebuilds in ways of its own (parameters dropped
    from some segments, kept in others). Those requests are not proxied by the translation: a regex
    location answers them 502 rather than letting the document root serve them."""
    segments = [re.escape(seg).replace("/", "\\/") for seg in path.strip("/").split("/")]
    # (`;` written \x3B: nginx would read it as the end of the location line)
    regex = "^/" + "/".join(f"{seg}(?:\\x3B[^/]*)?" for seg in segments) + "(?:[\\x3B/].*)?$"
    # only requests with a parameter reach it: the route's own locations take the rest first
    ctx.diags.add("A2N342", f"ProxyPass {path} {url} mapping=servlet: requests with path parameters "
                  f"({path.rstrip('/')};name=value) are not proxied by the translation; they answer 502", d.span,
                  directive=d.name)
    ctx.server.routes.append(Route("proxy-unreachable", regex, url, regex=True, span=d.span,
                                   params={"directive": d.name}))


def _unreachable(ctx: Context, d: Directive, path: str, url: str, regex: bool, in_scope: bool) -> None:
    """A proxied path whose backend nginx cannot speak to still belongs to the proxy: it answers 502 (what
    httpd answers when its backend fails), never the document root's files, which httpd would not serve."""
    route = Route("proxy-unreachable", path, url, regex=regex, span=d.span, params={"directive": d.name})
    if in_scope:
        ctx.scope.proxy = route
    else:
        ctx.server.routes.append(route)


def proxy_pass_match(ctx: Context, d: Directive) -> Disposition:
    args = list(d.args)
    if ctx.scope is not None and ctx.scope.regex:
        regex, url, rest, idx = ctx.scope.path, args[0] if args else "", args[1:], 0
    elif ctx.scope is None and len(args) >= 2:
        regex, url, rest, idx = args[0], args[1], args[2:], 1
    else:
        ctx.diags.add("A2N001", "ProxyPassMatch needs a regular expression and a URL", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if url == "!":
        ctx.diags.add("A2N305", "ProxyPassMatch ! exclusions are not translated; nothing was emitted for it",
                      d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    params = _params(ctx, d, rest, idx + 1)
    target = _upstream_for(ctx, d, url, idx)
    if target is None:
        _unreachable(ctx, d, regex, url, regex=True, in_scope=ctx.scope is not None)
        return Disposition.UNSUPPORTED
    _apply_worker_params(ctx, d, target, params, url)
    route = Route("proxy", regex, url, regex=True, proxy=target, params={**params, "directive": "ProxyPassMatch"},
                  span=d.span)
    if "$" in target.path:
        ctx.diags.add("A2N306", "ProxyPassMatch with $N: nginx substitutes decoded captures; an encoded CR/LF, "
                      "? or # in the request reaches the backend decoded", d.span, directive=d.name)
    elif target.path:
        ctx.diags.add("A2N306", "ProxyPassMatch without $N: httpd appends the request path re-escaped, nginx "
                      "appends $uri, the decoded path; an encoded space, CR/LF, ? or # reaches the backend decoded",
                      d.span, directive=d.name)
    else:
        ctx.diags.add("A2N306", "ProxyPassMatch: nginx passes the request URI of a regex location as the client "
                      "sent it, where httpd sends its canonical (decoded and re-escaped) form", d.span,
                      directive=d.name)
    if ctx.scope is not None:
        ctx.scope.proxy = route
    else:
        ctx.server.routes.append(route)
    return Disposition.APPROXIMATE


def _apply_worker_params(ctx: Context, d: Directive, target: ProxyTarget, params: dict, url: str,
                         raw: bool = False) -> Disposition:
    up = ctx.model.upstreams[target.upstream]
    disposition = Disposition.EXACT
    for key, value in params.items():
        if key in ("directive", "nocanon"):
            continue
        low = value.lower()
        if key in ("timeout", "connectiontimeout", "flushpackets", "upgrade", "keepalive"):
            continue  # location-level, applied by the emitter from route.params
        if key in ("enablereuse", "disablereuse"):
            up.reuse = (key == "enablereuse") == (low == "on")
        elif key == "retry":
            _retry(ctx, d, up, value)
        elif key == "max":
            for s in up.servers:
                s.params = [p for p in s.params if not p.startswith("max_conns=")] + [f"max_conns={value}"]
            ctx.diags.add("A2N307", f"max={value}: nginx answers 502 beyond max_conns where httpd queues "
                          "requests for a free connection", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
        elif key == "ttl":
            up.statements.append(Stmt("keepalive_timeout", [f"{value}s" if value.isdigit() else value], d.span))
        elif key in ("min", "smax"):
            pass  # connection pool tuning: nginx sizes its pool with keepalive N
        elif key == "mapping" and low == "encoded" and d.key == "proxypass":
            pass    # the location matches the decoded path (proxy_pass)
        elif key == "mapping" and low == "servlet" and d.key == "proxypass" and len(d.args) > 2:
            disposition = Disposition.APPROXIMATE   # proxy_pass: the paths with parameters answer 502
        else:
            ctx.diags.add("A2N308", f"{d.name} parameter {key}={value} is not translated", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
    if "nocanon" in params and not raw:
        ctx.diags.add("A2N309", "nocanon: nginx sends the normalised URI (as without nocanon) for a proxy_pass with "
                      "a path", d.span, directive=d.name)
        disposition = Disposition.APPROXIMATE
    elif raw:
        ctx.diags.add("A2N339", "nocanon: nginx forwards the request URI byte for byte; httpd merges repeated "
                      "slashes in it first (/api//a reaches the backend as /api/a)", d.span, directive=d.name)
        disposition = Disposition.APPROXIMATE
    return disposition


def _retry(ctx: Context, d: Directive | None, up: Upstream, value: str, implicit: bool = False,
           server: UpstreamServer | None = None) -> None:
    targets = [server] if server else up.servers
    for s in targets:
        s.params = [p for p in s.params if not p.startswith(("max_fails=", "fail_timeout="))]
        if value == "0":
            s.params.append("max_fails=0")
        else:
            s.params += ["max_fails=1", f"fail_timeout={value}s"]
    up.retry_set = True
    said = up.retry_report
    if said is None:
        lone = "" if up.balancer else "; nginx never bans the only server of an upstream"
        up.retry_report = ctx.diags.add(
            "A2N310", f"upstream {up.name}: Apache's retry={value} {'(its default) ' if implicit else ''}is "
            f"approximated by {'max_fails=0' if value == '0' else f'max_fails=1 fail_timeout={value}s'}{lone}",
            d.span if d else up.span, directive=d.name if d else None)
    elif d is not None:
        said.relate(d.span)      # the same approximation, for another member or setting
        if f"retry={value} " not in said.message:
            said.message += f"; retry={value} likewise by max_fails=1 fail_timeout={value}s" if value != "0" \
                else "; retry=0 by max_fails=0"


# ----------------------------------------------------------------- balancers

def proxy_section(ctx: Context, section: Section) -> Disposition:
    if not section.args:
        ctx.diags.add("A2N001", "<Proxy> needs a URL", section.span, directive="<Proxy")
        return Disposition.UNSUPPORTED
    url = section.args[0]
    parsed = parse_url(url)
    if not parsed or parsed[0] != "balancer":
        from .access import _has_access
        if _has_access(section):
            from .access_proxy import proxy_access_section, regex_proxy_pattern
            return proxy_access_section(ctx, section, *regex_proxy_pattern(section))
        if parsed and section.key == "proxy" and (section.children or len(section.args) > 1) and \
                all(not c.is_section and c.key == "proxyset" for c in section.children) and \
                all("=" in a for a in section.args[1:]):
            # the settings of the worker for this URL (httpd defines the worker if no ProxyPass has), given
            # on the section's line (httpd 2.4.26+) or by ProxySet inside it
            if len(section.args) > 1:
                ctx.model.pending_workers.append((url, _params(ctx, section, section.args[1:], 1), section))
            previous = ctx.options.get("worker")
            ctx.options["worker"] = url
            try:
                ctx.walk(section.children)
            finally:
                ctx.options["worker"] = previous
            return Disposition.EXACT
        else:
            ctx.diags.add("A2N101", f"<Proxy {url}>: settings for proxied URLs are not translated yet; "
                          "nothing inside it was emitted", section.span, directive="<Proxy")
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    up = _balancer(ctx, parsed[1], section.span)
    up.balancer, up.span = True, section.span
    previous = ctx.options.get("balancer")
    ctx.options["balancer"] = up
    from .access_proxy import ACCESS_KEYS, proxy_access_section
    if any(c.key in ACCESS_KEYS for c in section.children):
        proxy_access_section(ctx, section, url, False, others=False)
    try:
        ctx.walk([c for c in section.children if c.key not in ACCESS_KEYS])
    finally:
        ctx.options["balancer"] = previous
    _finish_balancer(ctx, up, section)
    return Disposition.EXACT


def balancer_member(ctx: Context, d: Directive) -> Disposition:
    up: Upstream | None = ctx.options.get("balancer")
    args = list(d.args)
    if up is None:
        if len(args) >= 2 and args[0].lower().startswith("balancer://"):
            name = parse_url(args[0])[1] if parse_url(args[0]) else None
            if name:
                up = _balancer(ctx, name, d.span)
                args = args[1:]
        if up is None:
            ctx.diags.add("A2N001", "BalancerMember outside <Proxy balancer://...>", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
    if not args:
        ctx.diags.add("A2N001", "BalancerMember needs a URL", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    parsed = parse_url(args[0])
    if not parsed or parsed[0] not in PROTOCOLS:
        ctx.diags.add("A2N302", f"BalancerMember {args[0]}: the {parsed[0] if parsed else 'given'} protocol has no "
                      "nginx equivalent; the member is left out", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    scheme, host, port, path = parsed
    if up.servers and (PROTOCOLS[scheme], HTTP_SCHEMES.get(scheme, "http")) != (up.protocol, up.scheme):
        return _other_scheme_member(ctx, d, up, args[0])
    port_num = int(port) if port else DEFAULT_PORTS.get(scheme, 80)
    member = UpstreamServer(f"{host}:{port_num}", [], d.span, url=args[0].rstrip("/"), loadfactor=Fraction(1))
    if scheme in ("ws", "wss"):
        # a ws:// member tunnels a WebSocket upgrade, as a ws:// ProxyPass URL does (the emitter's upgrade maps)
        up.location_params.setdefault("upgrade", "websocket")
    if not up.servers:
        up.protocol, up.scheme = PROTOCOLS[scheme], HTTP_SCHEMES.get(scheme, "http")
        up.host_header = host + (f":{port}" if port else "")
        up.reuse = up.protocol == "http"
    if path not in ("", "/"):
        ctx.diags.add("A2N311", f"BalancerMember {args[0]}: a member path is prefixed to every request in httpd; "
                      "nginx upstream servers have no path", d.span, directive=d.name)
    up.servers.append(member)
    disposition = Disposition.EXACT
    params = _params(ctx, d, args[1:], 1)
    for key, value in params.items():
        low = value.lower()
        if key == "loadfactor":
            member.loadfactor = Fraction(int(value), 100)     # hundredths, as httpd keeps it
        elif key == "status":
            for flag in re.findall(r"([+-]?)([A-Za-z])", value):
                sign, letter = flag
                if sign == "-":
                    continue
                letter = letter.upper()
                if letter in ("H", "R"):
                    member.params.append("backup")
                    if letter == "R":
                        member.spare = True
                        ctx.diags.add("A2N312", "status=+R (hot spare) becomes backup: nginx uses backups only when "
                                      "every primary server is down", d.span, directive=d.name)
                        disposition = Disposition.APPROXIMATE
                elif letter in ("D", "S"):
                    member.params.append("down")
                elif letter == "I":
                    member.params = [p for p in member.params if not p.startswith(("max_fails", "fail_timeout"))]
                    member.params.append("max_fails=0")
                    member.ignore_errors = True
                else:
                    ctx.diags.add("A2N308", f"status=+{letter} has no nginx equivalent", d.span, directive=d.name)
                    disposition = Disposition.APPROXIMATE
        elif key == "lbset":
            if value == "0":
                continue
            if value == "1":
                member.params.append("backup")
            ctx.diags.add("A2N312", f"lbset={value}: nginx has only primary and backup servers", d.span,
                          directive=d.name)
            disposition = Disposition.APPROXIMATE
        elif key == "retry":
            if not member.ignore_errors:
                _retry(ctx, d, up, value, server=member)
            disposition = Disposition.APPROXIMATE
        elif key == "max":
            member.params.append(f"max_conns={value}")
            disposition = Disposition.APPROXIMATE
        elif key == "route":
            member.route = value
        elif key in ("disablereuse", "enablereuse"):
            if (key == "disablereuse") == (low == "on"):
                up.reuse = False
        elif key == "ttl":
            up.statements.append(Stmt("keepalive_timeout", [f"{value}s" if value.isdigit() else value], d.span))
        elif key in ("timeout", "connectiontimeout", "keepalive", "flushpackets", "min", "smax"):
            up.location_params[key] = value
        else:
            ctx.diags.add("A2N308", f"BalancerMember parameter {key}={value} is not translated", d.span,
                          directive=d.name)
            disposition = Disposition.APPROXIMATE
    return disposition


def _other_scheme_member(ctx: Context, d: Directive, up: Upstream, url: str) -> Disposition:
    """A member spoken to in another protocol than the balancer's first (https:// beside http://, fcgi://
    beside http://): httpd speaks to each member by its own URL; an nginx upstream is passed to in one
    protocol (proxy_pass https://NAME), which the other members do not answer. The member is left out: the
    requests httpd sends it go to the other members, and fail where they are down."""
    first = up.servers[0].url or up.servers[0].address
    ctx.diags.add("A2N302", f"BalancerMember {url}: nginx speaks one protocol to every server of an upstream and "
                  f"balancer://{up.name} is spoken to as its first member {first} is; the member is left out, "
                  "and the requests httpd sends it go to the other members", d.span, directive=d.name,
                  hint="put the members of each protocol in a balancer of their own")
    return Disposition.UNSUPPORTED


def proxy_set(ctx: Context, d: Directive) -> Disposition:
    up: Upstream | None = ctx.options.get("balancer")
    args = list(d.args)
    if up is None and args and args[0].lower().startswith("balancer://"):
        parsed = parse_url(args[0])
        if parsed:
            up = _balancer(ctx, parsed[1], d.span)
        args = args[1:]
    if up is None:
        worker = ctx.options.get("worker")
        if worker is None and args and "://" in args[0]:
            worker, args = args[0], args[1:]
        if worker is None:
            ctx.diags.add("A2N101", "ProxySet outside a balancer or worker URL is not translated", d.span,
                          directive=d.name)
            return Disposition.UNSUPPORTED
        return _worker_set(ctx, d, worker, _params(ctx, d, args, 0))
    disposition = Disposition.EXACT
    for key, value in _params(ctx, d, args, 0).items():
        low = value.lower()
        settings = up.lb
        if key == "lbmethod":
            if low == "byrequests":
                pass
            elif low == "bybusyness":
                settings["method"] = "least_conn"
            elif low == "bytraffic":
                ctx.diags.add("A2N313", "lbmethod=bytraffic balances by bytes transferred; nginx balances requests "
                              "round-robin", d.span, directive=d.name)
                disposition = Disposition.APPROXIMATE
            else:
                ctx.diags.add("A2N314", f"lbmethod={value} has no nginx equivalent; round-robin is used", d.span,
                              directive=d.name)
                disposition = Disposition.UNSUPPORTED
        elif key == "stickysession":
            ctx.diags.add("A2N315", f"stickysession={value}: session stickiness is lost (nginx open source has no "
                          "route-based sticky sessions; the map-based emulation is not generated yet)", d.span,
                          directive=d.name, hint="emulate with map $cookie_... and per-route upstreams, or hash")
            disposition = Disposition.UNSUPPORTED
        elif key == "maxattempts":
            settings["tries"] = int(value) + 1 if value.isdigit() else None
            disposition = Disposition.APPROXIMATE
        elif key == "failonstatus":
            codes = [c.strip() for c in value.split(",") if c.strip()]
            settings["next_upstream"] = codes
            ctx.diags.add("A2N316", f"failonstatus={value}: nginx also retries the request on the next server "
                          "(idempotent methods only), where httpd returns that response", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
        elif key == "failontimeout":
            pass  # nginx always counts timeouts as failures
        elif key in ("nofailover", "timeout", "growth", "forcerecovery", "scolonpathdelim", "stickysessionsep"):
            ctx.diags.add("A2N308", f"ProxySet {key}={value} is not translated", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
        elif key == "retry":
            for s in up.servers:
                _retry(ctx, d, up, value, server=s)
            disposition = Disposition.APPROXIMATE
        else:
            ctx.diags.add("A2N308", f"ProxySet {key}={value} is not translated", d.span, directive=d.name)
            disposition = Disposition.APPROXIMATE
    return disposition


def _worker_set(ctx: Context, d: Directive, url: str, params: dict) -> Disposition:
    """ProxySet URL key=value (or inside <Proxy URL>): the parameters of httpd's worker for URL, which the
    ProxyPass lines whose URL starts with it share. Outside <Proxy> httpd only changes a worker an earlier
    ProxyPass defined (whose URL is a prefix of this one) and refuses the configuration otherwise (observed).
    Applied once every route is known (finish_model)."""
    parsed = parse_url(url)
    if parsed is None or parsed[0] not in PROTOCOLS:
        ctx.diags.add("A2N302", f"ProxySet {url}: the {parsed[0] if parsed else 'given'} backend protocol has no "
                      "nginx equivalent; nothing was emitted for it", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if ctx.options.get("worker") is None and not any(
            url.lower().startswith(w) for w in ctx.server.settings.get("workers", []) +
            ctx.main.settings.get("workers", [])):
        ctx.diags.add("A2N001", f"ProxySet {url}: httpd refuses the configuration (ProxySet can not find the "
                      "worker): outside <Proxy> it only changes the worker of an earlier ProxyPass whose URL "
                      "starts this one", d.span, directive=d.name, hint="move it into <Proxy URL>")
        return Disposition.UNSUPPORTED
    ctx.model.pending_workers.append((url, params, d))
    return Disposition.EXACT


def _apply_worker_sets(ctx: Context) -> None:
    """The worker parameters of ProxySet on the routes that share the worker (their URL starts with its own):
    timeouts and keepalive in their locations, the rest on their upstream."""
    routes = [r for s in [ctx.main] + ctx.model.servers for r in
              s.routes + [sc.proxy for sc in s.scopes if sc.proxy is not None] if r.kind == "proxy" and r.proxy]
    for url, params, d in ctx.model.pending_workers:
        label = f"<Proxy {url}>" if d.is_section else f"ProxySet {url}"
        sharing = [r for r in routes if r.target.lower().startswith(url.lower())]
        handlers = [h for h in ctx.model.script_handlers if _worker_url(h[0]).lower().startswith(url.lower())]
        if not sharing and not handlers:
            ctx.diags.add("A2N336", f"{label}: no ProxyPass or FastCGI handler of this input uses this worker, so "
                          "its parameters reach no nginx location; a route to it elsewhere (another file, a "
                          "RewriteRule [P]) does not get them", d.span, directive=d.name,
                          hint="translate the files with the ProxyPass lines together with this one")
            ctx.redispose(d, Disposition.APPROXIMATE)
            continue
        disposition = Disposition.EXACT
        if sharing:
            disposition = _apply_to_routes(ctx, d, label, url, params, sharing)
        if handlers:
            disposition = loosest(disposition, _apply_to_script_handlers(ctx, d, url, params, handlers))
        ctx.redispose(d, disposition)


def _apply_to_routes(ctx: Context, d: Directive, label: str, url: str, params: dict, sharing: list) -> Disposition:
    """A worker's parameters on the ProxyPass routes sharing it: timeouts and keepalive in their locations,
    the rest on their upstream."""
    local = {k: v for k, v in params.items() if k in ("timeout", "connectiontimeout", "keepalive", "flushpackets")}
    own = sorted({k for r in sharing for k in local if k in r.params})
    for r in sharing:
        for key, value in local.items():
            r.params.setdefault(key, value)
    disposition = Disposition.EXACT
    rest = {k: v for k, v in params.items() if k not in local}
    for name in sorted({r.proxy.upstream for r in sharing}):
        up = ctx.model.upstreams[name]
        target = ProxyTarget(up.scheme, name, "", up.host_header, d.span)
        disposition = loosest(disposition, _apply_worker_params(ctx, d, target, rest, url))
    if own:
        ctx.diags.add("A2N337", f"{label} and a ProxyPass to it both set {', '.join(own)}: httpd's routes share "
                      "one worker, which keeps the value read last for all of them; each nginx location keeps its "
                      "ProxyPass's own value", d.span, directive=d.name, hint="set the parameter in one place")
        disposition = loosest(disposition, Disposition.APPROXIMATE)
    return disposition


def _standbys_only(up: Upstream) -> None:
    """A balancer whose every member is a hot standby (status=+H), a spare (+R) or of a higher lbset, all
    nginx backup servers, which nginx refuses alone ("no servers in upstream"). httpd finds no member of the
    first set and takes the next set or the standbys, which then serve every request: they become the primary
    servers. A spare only stands in for a member httpd finds unusable: a balancer of spares only answers 503,
    and beside a standby the standby serves every request (observed), so spares are left out (beside a higher
    lbset httpd may still use one: the lbset's A2N312 says the tiers differ)."""
    if up.servers and all("backup" in s.params for s in up.servers):
        up.servers = [s for s in up.servers if not s.spare]
        for s in up.servers:
            s.params = [p for p in s.params if p != "backup"]


def _resolve_balancers(ctx: Context) -> None:
    """Each virtual host's balancer:// routes on the balancer httpd finds for them at request time (see
    `balancer_upstream`): a ProxyPass is read before the server's own <Proxy balancer://> may come, so its
    route first names the server's own balancer."""
    for server in ctx.model.servers:
        if server is ctx.main:
            continue
        for r in server.routes + [sc.proxy for sc in server.scopes if sc.proxy is not None]:
            parsed = parse_url(r.target) if r.proxy and r.target else None
            if parsed and parsed[0] == "balancer":
                found = balancer_upstream(ctx.model, server, ctx.main, parsed[1])
                if found is not None:
                    r.proxy.upstream = found.name


def _worker_url(handler_url: str) -> str:
    """The URL httpd matches workers against for a handler's `unix:/sock|fcgi://host/` (the part after the
    pipe) or `fcgi://host:port`."""
    sock = _UNIX_SOCKET.match(handler_url)
    return sock.group("url") if sock else handler_url


# worker parameters read per request, as the FastCGI location's own settings
_FASTCGI_LOCAL = {"timeout": ("fastcgi_read_timeout", "fastcgi_send_timeout"),
                  "connectiontimeout": ("fastcgi_connect_timeout",)}


def _apply_to_script_handlers(ctx: Context, d: Directive, url: str, params: dict, handlers: list) -> Disposition:
    """A worker's parameters on the FastCGI handlers (SetHandler "proxy:fcgi://...") that use it: the
    locations pass to an upstream of their server, which keeps connections (fastcgi_keep_conn) where the worker
    reuses them (enablereuse=on), with its timeouts."""
    disposition = Disposition.EXACT
    local = {k: v for k, v in params.items() if k in ("timeout", "connectiontimeout", "keepalive", "flushpackets")}
    rest = {k: v for k, v in params.items() if k not in local}
    done: set[str] = set()
    for handler_url, statements, hd in handlers:
        target = _upstream_for(ctx, hd, handler_url, 0)
        if target is None:
            continue
        up = ctx.model.upstreams[target.upstream]
        if target.upstream not in done:
            done.add(target.upstream)
            disposition = loosest(disposition, _apply_worker_params(ctx, d, target, rest, url))
        extra = [Stmt(name, [_duration(value)], d.span) for key, value in local.items()
                 for name in _FASTCGI_LOCAL.get(key, ())]
        if local.get("keepalive", "").lower() == "on":
            extra.append(Stmt("fastcgi_socket_keepalive", ["on"], d.span))
        if local.get("flushpackets", "").lower() in ("on", "auto"):
            extra.append(Stmt("fastcgi_buffering", ["off"], d.span))
        if up.reuse:
            extra.append(Stmt("fastcgi_keep_conn", ["on"], d.span, comment="the worker reuses connections"))
        for i, st in enumerate(statements):
            if st.name == "fastcgi_pass":
                statements[i] = Stmt("fastcgi_pass", [target.upstream], st.span, comment=st.comment)
                statements[i + 1:i + 1] = [x for x in extra if not any(y.name == x.name for y in statements)]
                break
    return disposition


def _finish_balancer(ctx: Context, up: Upstream, section: Section | None) -> None:
    if not up.servers:
        return
    factors = [Fraction(s.loadfactor) for s in up.servers]
    if len(set(factors)) > 1:
        denominator = reduce(lambda a, b: a * b // math.gcd(a, b), (f.denominator for f in factors), 1)
        ints = [int(f * denominator) for f in factors]
        g = reduce(math.gcd, ints)
        for s, w in zip(up.servers, ints):
            if w // g != 1:
                s.params.insert(0, f"weight={w // g}")
    if not up.retry_set:
        _retry(ctx, None, up, "60", implicit=True)
    method = up.lb.get("method")
    if method:
        up.statements.insert(0, Stmt(method, [], section.span if section else None))


# ----------------------------------------------------------------- other directives

def _setting(key: str, kind: str = "flag"):
    def handler(ctx: Context, d: Directive) -> Disposition:
        if not d.args:
            ctx.diags.add("A2N001", f"{d.name} needs a value", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        value = d.args[0].lower() if kind == "flag" else d.args[0]
        ctx.settings[key] = (value, d.span)
        return Disposition.EXACT
    return handler


def proxy_pass_reverse(ctx: Context, d: Directive) -> Disposition:
    args = list(d.args)
    if ctx.scope is not None and not ctx.scope.regex and len(args) == 1:
        path, url = ctx.scope.path, args[0]
    elif len(args) >= 2:
        path, url = args[0], args[1]
    else:
        ctx.diags.add("A2N001", "ProxyPassReverse needs a path and a URL", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    parsed = parse_url(url)
    if not parsed:
        ctx.diags.add("A2N302", f"ProxyPassReverse {url}: not a URL", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    # A balancer's members may be defined later in the file: they are expanded when laid out.
    ctx.settings.setdefault("reverse", []).append((url, path, d.span))
    ctx.diags.add("A2N338", f"ProxyPassReverse {path} {url} becomes proxy_redirect: nginx rewrites the Location and "
                  "Refresh headers, httpd Location, Content-Location and URI", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def proxy_requests(ctx: Context, d: Directive) -> Disposition:
    if d.args and d.args[0].lower() == "on":
        ctx.diags.add("A2N317", "ProxyRequests On makes httpd a forward proxy; nginx has no forward proxy and "
                      "nothing was emitted", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    return Disposition.EXACT


def proxy_via(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0].lower() if d.args else "off"
    if value == "off":
        return Disposition.EXACT
    if value == "block":
        ctx.emit("proxy_set_header", ["Via", ""], d.span)
        ctx.emit("proxy_hide_header", ["Via"], d.span)
        return Disposition.EXACT
    ctx.diags.add("A2N318", f"ProxyVia {d.args[0]}: the Via header is not added by nginx", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def proxy_error_override(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0].lower() if d.args else "off"
    ctx.settings["error_override"] = (value == "on", d.args[1:], d.span)
    return Disposition.EXACT if value in ("on", "off") else Disposition.UNSUPPORTED


def proxy_timeout(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        return Disposition.UNSUPPORTED
    seconds = atoi_seconds(d.args[0], 1)      # atoi: `ProxyTimeout 500ms` is 500 seconds
    if seconds is None:
        ctx.diags.add("A2N001", f"ProxyTimeout {d.args[0]}: httpd refuses it (Proxy Timeout must be at least 1 "
                      "second) and does not start", d.span, directive=d.name, hint="write a value httpd accepts")
        return Disposition.UNSUPPORTED
    ctx.settings["proxy_timeout"] = (f"{seconds}s", d.span)
    return Disposition.EXACT


def ssl_proxy_engine(ctx: Context, d: Directive) -> Disposition:
    ctx.settings["ssl_proxy"] = ((d.args[0].lower() if d.args else "off") == "on", d.span)
    return Disposition.EXACT


def _cookie(nginx_name: str):
    """ProxyPassReverseCookieDomain/Path: httpd compares a prefix (the domain case-insensitively) and replaces
    the whole attribute value; nginx's regex form does the same."""
    def handler(ctx: Context, d: Directive) -> Disposition:
        if len(d.args) < 2:
            ctx.diags.add("A2N001", f"{d.name} needs two values", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        internal, public = d.args[0], d.args[1]
        escaped = "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in internal)
        ctx.emit(nginx_name, [f"~^{escaped}.*$", public], d.span)
        return Disposition.EXACT
    return handler


RULES = table(
    Rule("ProxyPassReverseCookieDomain", Disposition.EXACT, _cookie("proxy_cookie_domain")),
    Rule("ProxyPassReverseCookiePath", Disposition.EXACT, _cookie("proxy_cookie_path")),
    Rule("ProxyPass", Disposition.EXACT, proxy_pass),
    Rule("ProxyPassMatch", Disposition.APPROXIMATE, proxy_pass_match),
    Rule("ProxyPassReverse", Disposition.APPROXIMATE, proxy_pass_reverse),
    Rule("ProxyPreserveHost", Disposition.EXACT, _setting("preserve_host")),
    Rule("ProxyAddHeaders", Disposition.EXACT, _setting("add_headers")),
    Rule("ProxyTimeout", Disposition.EXACT, proxy_timeout),
    Rule("ProxyErrorOverride", Disposition.EXACT, proxy_error_override),
    Rule("ProxyRequests", Disposition.EXACT, proxy_requests),
    Rule("ProxyVia", Disposition.EXACT, proxy_via),
    Rule("BalancerMember", Disposition.EXACT, balancer_member),
    Rule("ProxySet", Disposition.EXACT, proxy_set),
    Rule("SSLProxyEngine", Disposition.EXACT, ssl_proxy_engine),
    Rule("Proxy", Disposition.EXACT, proxy_section, section=True),
)


# ----------------------------------------------------------------- emission

def _setting_value(server: Server, main: Server, scope_settings: dict | None, key: str, default=None):
    for holder in (scope_settings, server.settings, main.settings):
        if holder and key in holder:
            return holder[key]
    return default


# per-directory proxy settings a <Location> gives every request proxied in it, by whichever ProxyPass
_LOCATION_SETTINGS = ("preserve_host", "add_headers")


def _scope_settings(server: Server, route: Route, region: str) -> dict | None:
    """The settings of the section holding ROUTE (a ProxyPass inside a <Location>), with ProxyPreserveHost
    and ProxyAddHeaders from every <Location> covering REGION, the last in the file winning: httpd merges
    them per directory, so in a <Location /app/> they govern the requests a server-level ProxyPass /app/
    passes there too (the client's Host sent, no X-Forwarded-* headers), where nginx read them only for a
    ProxyPass written inside the section."""
    own = next((s.settings for s in server.scopes if s.proxy is route), None)
    merged = dict(own or {})
    for scope in server.scopes:
        if scope.kind == "location" and not scope.regex and _covers(scope.path, region):
            merged.update({key: scope.settings[key] for key in _LOCATION_SETTINGS if key in scope.settings})
    return merged if merged or own is not None else None


def _covers(prefix: str, path: str) -> bool:
    from ..emit.layout import segment_prefix
    return segment_prefix(prefix, path)


def _literal_server_name(server: Server) -> str | None:
    """The server's ServerName as the input writes it, where that is not its lower-cased server_name (httpd sends
    it so in X-Forwarded-Server); None when it is the same or cannot be read back."""
    written = server.settings.get("server_name_written")
    if not written or not server.names:
        return None
    name = written.split("://", 1)[-1]
    if not name.startswith("[") and name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name == server.names[0] or name.lower() != server.names[0] or not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        return None
    return name


def _duration(value: str) -> str:
    if value.endswith("ms") and value[:-2].isdigit():
        return value
    return f"{value}s" if value.isdigit() else value


def forwarded_headers(model, server: Server, main: Server, scope_settings: dict | None, span, diags,
                      before: list[Stmt] | None = None) -> list[Stmt]:
    """The X-Forwarded-For/-Host/-Server lines mod_proxy_http adds to a request it passes (ProxyAddHeaders,
    on by default), appended to what the client sent as httpd appends them; for ProxyPass routes and
    RewriteRule [P] alike. BEFORE: the statements of the location the lines go into, when known: a RequestHeader
    of one of these names there (or in the server, or the main server) changed the header first, so the line
    appends to the value it made (see `_after_request_header`)."""
    add_headers = _setting_value(server, main, scope_settings, "add_headers", ("on", None))
    if add_headers[0] == "off":
        return []
    state = main.settings.setdefault("x_forwarded", {"maps": set(), "literals": {}, "notes": set()})

    def ensure_map(var: str, block: MapBlock) -> None:
        if var not in state["maps"]:
            state["maps"].add(var)
            if not model.has_map(var):
                model.maps.append(block)

    ensure_map("$a2n_x_forwarded_host", MapBlock("$http_x_forwarded_host", "$a2n_x_forwarded_host",
                                                 [('""', "$http_host")], '"$http_x_forwarded_host, $http_host"'))
    # httpd sends the server's ServerName; with none in the input (here or in the main server), the name
    # it determined for the machine at startup: nginx's $hostname
    named = server.has_server_name or main.has_server_name
    name, var = ("$server_name", "$a2n_x_forwarded_server") if named else \
        ("$hostname", "$a2n_x_forwarded_server_hostname")
    literal = _literal_server_name(server if server.has_server_name else main) if named else None
    if literal:
        # httpd sends the name as the input writes it; server_name (and $server_name) is lower-cased
        literals = state["literals"]
        number = literals.setdefault(literal, len(literals) + 1)
        name, var = literal, f"$a2n_x_forwarded_server_{number}"
    ensure_map(var, MapBlock("$http_x_forwarded_server", var, [('""', name)],
                             f'"$http_x_forwarded_server, {name}"'))
    if not named and "hostname" not in state["notes"]:
        state["notes"].add("hostname")
        diags.add("A2N340", "no ServerName in the input: httpd names the machine in X-Forwarded-Server by "
                  "the fully qualified name it resolves for the host name at startup (or by its address "
                  "when none resolves); nginx sends the host name ($hostname)", span)
    where = add_headers[1] or span
    out = [Stmt("proxy_set_header", ["X-Forwarded-For", "$proxy_add_x_forwarded_for"], where),
           Stmt("proxy_set_header", ["X-Forwarded-Host", "$a2n_x_forwarded_host"], where),
           Stmt("proxy_set_header", ["X-Forwarded-Server", var], where)]
    if before is not None:
        chain = list(main.statements) + (list(server.statements) if server is not main else []) + list(before)
        additions = {"x-forwarded-for": "$remote_addr", "x-forwarded-host": "$http_host",
                     "x-forwarded-server": name}
        out = [_after_request_header(model, st, chain, additions[st.args[0].lower()]) for st in out]
    return out


def _after_request_header(model, stmt: Stmt, chain: list[Stmt], addition: str) -> Stmt:
    """mod_proxy_http adds its X-Forwarded-* values (ap_proxy_create_hdrbrgd: apr_table_mergen, ", " between)
    to the request headers as the fixups left them, after RequestHeader ran: `RequestHeader set
    X-Forwarded-Server "a, b"` reaches the backend as "a, b, <ServerName>", an `unset` as the name alone. The
    last RequestHeader of the name in CHAIN (outer blocks first) gave the value the line appends to; the line
    replaces that RequestHeader's proxy_set_header (`resets`, see emit.inherit), or nginx would send both."""
    header = stmt.args[0].lower()
    given = next((st for st in reversed(chain) if st.name == "proxy_set_header" and st.resets == (header, "request")
                  and len(st.args) > 1), None)
    if given is None:
        return stmt
    value = given.args[1]
    if value == "":
        new = addition
    elif "$" not in value:
        new = f"{value}, {addition}"
    else:
        new = model.shared_map("a2n_forwarded_", value, [('""', addition)], f'"{value}, {addition}"')
    out = Stmt("proxy_set_header", [stmt.args[0], new], stmt.span,
               comment="mod_proxy appends to what RequestHeader leaves")
    out.resets = (header, "request")
    return out


def emitter(model, main: Server, diags):
    """The function the layout step calls for a proxied region: nginx statements for one location."""
    maps_done: set[str] = set()

    def ensure_map(var: str, block: MapBlock) -> None:
        if var not in maps_done and not model.has_map(var):
            maps_done.add(var)
            model.maps.append(block)

    def reverse_urls(server: Server, url: str) -> list[str]:
        parsed = parse_url(url)
        if parsed and parsed[0] == "balancer":
            up = balancer_upstream(model, server, main, parsed[1])
            return [(s.url or f"http://{s.address}") + parsed[3] for s in up.servers] if up else []
        return [url]

    def emit(server: Server, route: Route, region: str, matched: str, before: list[Stmt] | None = None
             ) -> list[Stmt]:
        target: ProxyTarget = route.proxy
        up = model.upstreams[target.upstream]
        span = route.span
        if not up.servers:
            if "no-members" not in up.notes:
                up.notes.add("no-members")
                diags.add("A2N303", f"balancer://{up.name} has no usable members in the input; httpd answers 503 "
                          "(no workers) and so does the translation", span)
            return [Stmt("return", ["503"], span)]
        scope_settings = _scope_settings(server, route, region)
        if up.scheme == "https" and not _setting_value(server, main, scope_settings, "ssl_proxy", (False, None))[0]:
            # mod_proxy_http refuses a TLS backend unless SSLProxyEngine is on for the server (AH01961; without
            # mod_ssl, no handler takes the URL, AH01144): every request the route passes fails with 500
            if "no-ssl-proxy" not in up.notes:
                up.notes.add("no-ssl-proxy")
                diags.add("A2N341", f"{route.target}: the backend speaks TLS and SSLProxyEngine is not on for this "
                          "server; httpd cannot reach it and answers 500, and so does the translation (before its access "
                          "checks: where access rules refuse a request, httpd answers 401/403 and nginx 500, without the "
                          "refusal's headers)", span)
            return [Stmt("return", ["500"], span)]
        if route.params.get("encoded_path"):
            # httpd compares the path as the client encoded it, case and all: /special%3fsegment is not
            # /special%3Fsegment to it (404), though both decode to this location's path
            encoded = route.params["encoded_path"]
            escaped = "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in encoded)
            tail = "(/|$|[?])" if not encoded.endswith("/") else ""
            guard = [Stmt("if", [f'($request_uri !~ "^{escaped}{tail}")'], span,
                          block=[Stmt("return", ["404"], span)])]
            return guard + emit_proxy(server, route, region, matched, before)
        if route.params.get("balancer_join"):
            # only the path itself (or one going on with a second slash) names the balancer
            escaped = "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in route.path)
            guard = [Stmt("if", [f'($uri !~ "^{escaped}(/|$)")'], span, block=[Stmt("return", ["500"], span)])]
            if route.params.get("join_digits_400"):
                guard.insert(0, Stmt("if", [f'($uri ~ "^{escaped}[0-9]+(/|$)")'], span,
                                     block=[Stmt("return", ["400"], span)]))
            return guard + emit_proxy(server, route, region, matched, before)
        return emit_proxy(server, route, region, matched, before)

    def emit_proxy(server: Server, route: Route, region: str, matched: str, before: list[Stmt] | None = None
                   ) -> list[Stmt]:
        target: ProxyTarget = route.proxy
        up = model.upstreams[target.upstream]
        span = route.span
        scope_settings = _scope_settings(server, route, region)
        if up.protocol == "fastcgi":
            from .fastcgi import set_env_if_variables
            return _fastcgi(route, target, up, matched, span) + [
                Stmt("fastcgi_param", [name, variable, "if_not_empty"], span, comment=f"SetEnvIf {name}")
                for name, variable in set_env_if_variables(model, diags, server, "FastCGI")]
        if up.protocol == "uwsgi":
            return [Stmt("include", ["uwsgi_params"], span), Stmt("uwsgi_pass", [target.upstream], span)]
        out: list[Stmt] = []
        base = f"{up.scheme}://{target.upstream}"
        if route.regex:
            uri = target.path
            if uri and "$" not in uri:
                # ProxyPassMatch without $N appends the whole path to the URL's.
                uri = uri.rstrip("/") + "$uri"
            out.append(Stmt("proxy_pass", [f"{base}{uri}$is_args$args" if uri else base], span))
        else:
            rest = matched[len(route.path):] if matched.startswith(route.path) else ""
            raw = route.params.get("raw_uri")
            out.append(Stmt("proxy_pass", [base if raw else f"{base}{target.path + rest or '/'}"], span,
                            comment="nocanon: the request URI as the client sent it" if raw else None))
        websocket = route.params.get("upgrade", up.location_params.get("upgrade", "")).lower() == "websocket" or \
            route.target.lower().startswith("ws")
        # SetEnv force-proxy-request-1.0 / proxy-nokeepalive where this route's requests pass (misc.set_env)
        force10 = None if websocket else _setting_value(server, main, scope_settings, "proxy_force10")
        nokeepalive = None if websocket else _setting_value(server, main, scope_settings, "proxy_nokeepalive")
        if force10:
            # httpd sends an HTTP/1.0 request without a Connection header (1.0 closes by default)
            out += [Stmt("proxy_http_version", ["1.0"], force10[1]),
                    Stmt("proxy_set_header", ["Connection", ""], force10[1])]
        elif nokeepalive and up.reuse:
            out += [Stmt("proxy_http_version", ["1.1"], span),
                    Stmt("proxy_set_header", ["Connection", "close"], nokeepalive[1])]
        if (up.reuse or websocket) and not (force10 or nokeepalive):
            out.append(Stmt("proxy_http_version", ["1.1"], span))
        if websocket:
            ensure_map("$a2n_upgrade", MapBlock("$http_upgrade", "$a2n_upgrade", [("~*^websocket$", "websocket")],
                                                '""'))
            ensure_map("$a2n_connection_upgrade", MapBlock("$http_upgrade", "$a2n_connection_upgrade",
                                                           [("~*^websocket$", "upgrade")],
                                                           '""' if up.reuse else "close"))
            out.append(Stmt("proxy_set_header", ["Upgrade", "$a2n_upgrade"], span))
            out.append(Stmt("proxy_set_header", ["Connection", "$a2n_connection_upgrade"], span))
        elif up.reuse and not (force10 or nokeepalive):
            out.append(Stmt("proxy_set_header", ["Connection", ""], span))
        preserve = _setting_value(server, main, scope_settings, "preserve_host", ("off", None))
        if preserve[0] == "on":
            ensure_map("$a2n_host", MapBlock("$http_host", "$a2n_host", [('""', "$host")], "$http_host"))
            out.append(Stmt("proxy_set_header", ["Host", "$a2n_host"], preserve[1]))
        else:
            out.append(Stmt("proxy_set_header", ["Host", up.host_header], span))
            hosts = {(s.url or s.address).split("://")[-1] for s in up.servers}
            if len(hosts) > 1 and "host" not in up.notes:
                up.notes.add("host")
                diags.add("A2N320", f"upstream {up.name}: httpd sends each member its own Host; nginx sends "
                          f"{up.host_header} to all of them", span)
        out += forwarded_headers(model, server, main, scope_settings, span, diags,
                                 before if before is not None else [])
        if up.scheme == "https":
            out.append(Stmt("proxy_ssl_server_name", ["on"], span))
            out.append(Stmt("proxy_ssl_name", [up.host_header.rsplit(":", 1)[0]], span))
            if "tls" not in up.notes:
                up.notes.add("tls")
                diags.add("A2N224", f"upstream {up.name}: httpd checks the backend certificate's name and expiry by "
                          "default; nginx checks nothing unless proxy_ssl_verify is on", span)
        reverse = [(u, path, rspan) for holder in (scope_settings or {}, server.settings)
                   for url, path, rspan in holder.get("reverse", []) if segment_prefix_or_equal(path, region)
                   for u in reverse_urls(server, url)]
        if reverse:
            ensure_map("$a2n_host", MapBlock("$http_host", "$a2n_host", [('""', "$host")], "$http_host"))
            out += [Stmt("proxy_redirect", [u, f"$scheme://$a2n_host{path}"], rspan) for u, path, rspan in reverse]
        else:
            out.append(Stmt("proxy_redirect", ["off"], span))
        params = {**up.location_params, **route.params}
        # httpd's chain: the worker's timeout=, else ProxyTimeout, else Timeout.
        timeout = params.get("timeout") or _setting_value(server, main, scope_settings, "proxy_timeout",
                                                          (None, None))[0]
        if not timeout:
            core_timeout = _setting_value(server, main, None, "timeout", (None, None))[0]
            if core_timeout and core_timeout.endswith("ms"):
                core_timeout = core_timeout[:-2] + "s"     # httpd reads `Timeout 500ms` with atoi: 500 seconds
            timeout = core_timeout if core_timeout and core_timeout != "60s" else None
        if timeout:
            out.append(Stmt("proxy_read_timeout", [_duration(timeout)], span))
            out.append(Stmt("proxy_send_timeout", [_duration(timeout)], span))
        if params.get("connectiontimeout"):
            out.append(Stmt("proxy_connect_timeout", [_duration(params["connectiontimeout"])], span))
        if params.get("keepalive", "").lower() == "on":
            out.append(Stmt("proxy_socket_keepalive", ["on"], span))
        if params.get("flushpackets", "").lower() in ("on", "auto"):
            out.append(Stmt("proxy_buffering", ["off"], span))
        if up.lb.get("next_upstream"):
            out.append(Stmt("proxy_next_upstream", ["error", "timeout"] + [
                f"http_{c}" for c in up.lb["next_upstream"] if c in ("500", "502", "503", "504", "403", "404", "429")],
                span))
        if up.lb.get("tries"):
            out.append(Stmt("proxy_next_upstream_tries", [str(up.lb["tries"])], span))
        override = _setting_value(server, main, scope_settings, "error_override", (False, [], None))
        if override[0]:
            out.append(Stmt("proxy_intercept_errors", ["on"], override[2]))
        return out

    return emit


def _fastcgi(route: Route, target: ProxyTarget, up: Upstream, matched: str, span) -> list[Stmt]:
    """mod_proxy_fcgi through ProxyPass/ProxyPassMatch: the URL's path is the script's file name."""
    if route.regex:
        script = target.path or "$document_root$fastcgi_script_name"
        if target.path and "$" not in target.path:
            # ProxyPassMatch without $N appends the whole path to the URL's (as for http backends)
            script = target.path.rstrip("/") + "$uri"
    else:
        rest = matched[len(route.path):] if matched.startswith(route.path) else ""
        script = (target.path + rest) if target.path else "$document_root$fastcgi_script_name"
        if not rest and matched.endswith("/"):
            script = target.path.rstrip("/") + "$fastcgi_script_name" if target.path else script
    out = [Stmt("include", ["fastcgi_params"], span),
           Stmt("fastcgi_param", ["SCRIPT_FILENAME", script], span),
           Stmt("fastcgi_pass", [target.upstream], span)]
    if up.reuse:
        out.append(Stmt("fastcgi_keep_conn", ["on"], span))
    return out


def segment_prefix_or_equal(prefix: str, path: str) -> bool:
    from ..emit.layout import segment_prefix
    return segment_prefix(prefix, path) or segment_prefix(path, prefix)


def finish_model(ctx: Context) -> None:
    """Worker parameters set by ProxySet, and connection reuse for every upstream whose Apache workers reuse
    connections."""
    _resolve_balancers(ctx)
    _apply_worker_sets(ctx)
    for up in ctx.model.upstreams.values():
        _standbys_only(up)
    # upstreams only FastCGI handlers pass to: their locations set the script's parameters themselves
    routed = {r.proxy.upstream for s in [ctx.main] + ctx.model.servers
              for r in s.routes + [sc.proxy for sc in s.scopes if sc.proxy is not None] if r.proxy}
    handled = {st.args[0] for _, statements, _ in ctx.model.script_handlers for st in statements
               if st.name == "fastcgi_pass"} - routed
    for up in ctx.model.upstreams.values():
        if up.protocol != "http" and up.servers and up.name not in handled:
            ctx.diags.add("A2N321", f"upstream {up.name}: the {up.protocol} backend is passed with its script "
                          "name taken from the URL; check the parameters the application expects", up.span)
        if up.reuse and not any(s.name == "keepalive" for s in up.statements):
            up.statements.append(Stmt("keepalive", ["32"], up.span))
