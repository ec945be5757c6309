"""Core and virtual hosts: Listen, <VirtualHost>, ServerName, ServerAlias, DocumentRoot.

Owns the socket model: Apache's Listen lines become nginx `listen` sockets
(a bare port is dual-stack on Linux, so it also gets `[::]:port`); every
virtual host listens only on sockets Apache really opened; the first virtual
host per socket is the `default_server` there, as in Apache; the main server
answers on sockets no virtual host covers.
"""
from __future__ import annotations

import ipaddress
import re

from ..emit import dirindex
from ..model import ApacheListen, ListenDirective, MapBlock, Scope, Server, Socket, Stmt
from ..syntax.tree import Directive, Section
from . import vhost_alias
from . import contexts
from .base import Context, Disposition, clean_path, clean_url, flag, on_off_directive, Rule, table
from .pcre import httpd_refuses

DEFAULT_DOCUMENT_ROOT = "/var/www/html"   # DocumentRoot compiled into Debian's httpd
_ADDR = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\[\]]+))?(?::(?P<port>\d+|\*))?$")


def _ipv6(text: str) -> str | None:
    """`[addr]` in canonical form; httpd (getaddrinfo) accepts leading zeros nginx refuses."""
    try:
        return "[" + ipaddress.IPv6Address(re.sub(r"(?<![0-9A-Fa-f])0+(?=[0-9A-Fa-f])", "", text)).compressed + "]"
    except ValueError:
        return None


def _port(text: str) -> int | None:
    """A TCP port as httpd and nginx accept it (1-65535), else None."""
    if not text.isdigit() or len(text) > 5 or not 1 <= int(text) <= 65535:
        return None
    return int(text)


def _parse_listen(text: str) -> tuple[str | None, int, bool] | None:
    if text.isdigit():
        port = _port(text)
        return (None, port, False) if port else None
    m = _ADDR.match(text)
    if not m or not m.group("port") or m.group("port") == "*" or _port(m.group("port")) is None:
        return None
    if m.group("v6"):
        v6 = _ipv6(m.group("v6"))
        return (v6, int(m.group("port")), True) if v6 else None
    return m.group("host"), int(m.group("port")), False


def listen(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", "Listen requires an address and port", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    parsed = _parse_listen(d.args[0])
    if parsed is None:
        ctx.diags.add("A2N001", f"Listen {d.args[0]}: not a valid [address:]port", d.arg_span(0), directive=d.name)
        return Disposition.UNSUPPORTED
    address, port, ipv6 = parsed
    if address in ("0.0.0.0",):
        address = "0.0.0.0"
    # The protocol argument (and 443's implied "https") does not make httpd speak TLS:
    # only a virtual host with SSLEngine on does, so `ssl` comes from SSLEngine alone.
    ctx.model.apache_listens.append(ApacheListen(address, port, ipv6, False, d.span))
    return Disposition.EXACT


def _clean_name(ctx: Context, d: Directive, index: int, name: str) -> str:
    original = name
    if "://" in name:
        name = name.split("://", 1)[1]
    if name.startswith("["):
        name = name.split("]", 1)[0] + "]"
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name != original:
        ctx.diags.add("A2N203", f"ServerName {original}: only the host name {name} is kept for server_name",
                      d.arg_span(index), directive=d.name)
    return name.lower()


def _glob_regex(name: str) -> str:
    """An httpd name (`*` and `?` as wildcards, every other character literal) as an anchored nginx regex."""
    return "~^" + "".join(".*" if c == "*" else "." if c == "?" else "\\" + c if c in ".+()[]{}^$|\\~" else c
                          for c in name) + "$"


# The characters of a host name as httpd keeps it from a Host header (fix_hostname answers 400 to any
# other), plus the `*` and `?` of a wildcard; an IPv6 literal is kept without its brackets.
_HTTPD_HOST_NAME = re.compile(r"[a-z0-9._:*?-]+")


def _nginx_name(ctx: Context, d: Directive, index: int, name: str) -> str | None:
    """httpd wildcards (`*`, `?` anywhere) in nginx form, or None for a name no Host header ever matches.
    httpd compares a name without `*` or `?` literally, so `.example.net` (nginx: example.net and every
    subdomain) becomes the regular expression of that literal name. httpd takes an IPv6 Host without its
    brackets (`[::1]` is matched as `::1`), while nginx's $host keeps them: `::1` becomes `[::1]`, and a
    bracketed name, like one with a character httpd refuses in a Host header (`~`, `^`), never matches."""
    if not _HTTPD_HOST_NAME.fullmatch(name):
        ctx.diags.add("A2N242", f"ServerAlias {name}: httpd never takes a Host header to this name (it answers "
                      "400 to one with these characters, and matches an IPv6 address without brackets); the "
                      "name is left out", d.arg_span(index), directive=d.name)
        return None
    if ":" in name:
        name = f"[{name}]"
    if "*" not in name and "?" not in name:
        if name.startswith("."):
            regex = _glob_regex(name)
            ctx.diags.add("A2N204", f"ServerAlias {name} is a literal name to httpd; it becomes the regular "
                          f"expression {regex}", d.arg_span(index), directive=d.name)
            return regex
        return name
    if (name.startswith("*.") and "*" not in name[2:] and "?" not in name) or \
       (name.endswith(".*") and "*" not in name[:-2] and "?" not in name):
        return name
    regex = _glob_regex(name)
    ctx.diags.add("A2N204", f"ServerAlias {name} becomes the regular expression {regex}", d.arg_span(index),
                  directive=d.name)
    return regex


def server_name(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", "ServerName requires a host name", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name = _clean_name(ctx, d, 0, d.args[0])
    port = re.search(r":(\d+)$", d.args[0].split("://", 1)[-1])
    if port:
        ctx.server.settings["server_name_port"] = port.group(1)
    ctx.server.settings["server_name_written"] = d.args[0]   # as the input writes it (httpd sends it so)
    names = ctx.server.names
    if ctx.server.has_server_name:
        names[0] = name  # a later ServerName replaces the earlier one
        ctx.server.name_spans[0] = d.span
    else:
        names.insert(0, name)
        ctx.server.name_spans.insert(0, d.span)
        ctx.server.has_server_name = True
    return Disposition.EXACT


def server_alias(ctx: Context, d: Directive) -> Disposition:
    for i, alias in enumerate(d.args):
        name = _nginx_name(ctx, d, i, alias.lower())
        if name is not None:
            ctx.server.names.append(name)
            ctx.server.name_spans.append(d.arg_span(i))
    return Disposition.EXACT


def document_root(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", "DocumentRoot requires a directory", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    # httpd reads a `$` in the path as itself: nginx's root reads variables (see NginxModel.literal)
    ctx.server.root = clean_path(d.args[0])
    ctx.model.literal(ctx.server.root)
    ctx.server.root_expression = False
    ctx.server.root_span = d.span
    ctx.server.settings["static_root"] = (ctx.server.root, d.span)
    return Disposition.EXACT


def virtual_host(ctx: Context, section: Section) -> Disposition:
    if ctx.in_vhost or ctx.scope is not None:
        ctx.diags.add("A2N101", "<VirtualHost> is only allowed at the top level; nothing inside it was emitted",
                      section.span, directive="<VirtualHost")
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    server = Server(span=section.span)
    for i, addr in enumerate(section.args):
        server.addresses.append((addr, section.arg_span(i)))
    if not section.args:
        ctx.diags.add("A2N001", "<VirtualHost> requires at least one address", section.span, directive="<VirtualHost")
    ctx.model.servers.append(server)
    ctx.server = server
    try:
        ctx.walk(section.children)
    finally:
        ctx.server = ctx.main
    return Disposition.EXACT


def location(ctx: Context, section: Section) -> Disposition:
    """<Location>/<LocationMatch>: a URL region whose directives the layout step merges."""
    regex = section.key == "locationmatch" or (len(section.args) >= 2 and section.args[0] == "~")
    if ctx.scope is not None:
        ctx.diags.add("A2N101", f"<{section.name}> inside another <Location> is not allowed by httpd",
                      section.span, directive="<" + section.name)
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    args = section.args[1:] if section.args and section.args[0] == "~" else section.args
    if not args:
        ctx.diags.add("A2N001", f"<{section.name}> needs a path", section.span, directive="<" + section.name)
        return Disposition.UNSUPPORTED
    path = args[0]
    refused = httpd_refuses(path) if regex else None
    if refused is not None:
        # httpd does not start ("Regex could not be compiled"): nothing inside is emitted
        ctx.diags.add("A2N001", f"<{section.name} {path}>: regex could not be compiled ({refused}); httpd refuses "
                      "the configuration", section.span, directive="<" + section.name)
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    if not regex and any(c in path for c in "*?["):
        ctx.diags.add("A2N101", f"<{section.name} {path}>: wildcard Location paths are not translated yet; nothing "
                      "inside it was emitted", section.span, directive="<" + section.name)
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    if not regex and "//" in path:
        path = re.sub("/+", "/", path)
    scope = Scope(path, regex=regex, span=section.span)
    ctx.server.scopes.append(scope)
    ctx.scope = scope
    try:
        ctx.walk(section.children)
    finally:
        ctx.scope = None
    if regex and (scope.statements or scope.settings or scope.proxy is not None):
        # (an empty section lays out no location: nothing of it can be missed)
        ctx.diags.add("A2N208", f"<{section.name} {path}>: nginx uses the first matching "
                      "regular-expression location, where httpd merges every matching section", section.span,
                      directive="<" + section.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


RULES = table(
    Rule("Listen", Disposition.EXACT, listen),
    Rule("ServerName", Disposition.EXACT, server_name),
    Rule("ServerAlias", Disposition.EXACT, server_alias),
    Rule("DocumentRoot", Disposition.EXACT, document_root),
    Rule("VirtualHost", Disposition.EXACT, virtual_host, section=True),
    Rule("Location", Disposition.EXACT, location, section=True),
    Rule("LocationMatch", Disposition.APPROXIMATE, location, section=True),
)


# --------------------------------------------------------------- socket resolution

def _vhost_sockets(ctx: Context, server: Server, listens: list[ApacheListen]) -> list[tuple[Socket, bool]]:
    """Sockets (with their TLS flag) a virtual host receives requests on."""
    out: list[tuple[Socket, bool]] = []
    no_listen = not listens
    for text, span in server.addresses:
        host, _, port_text = text.rpartition(":") if not text.endswith("]") else (text, "", "")
        if host == "" and not text.startswith("["):
            host, port_text = text, ""
        if host.startswith("[") and host.endswith("]"):
            address, ipv6 = _ipv6(host[1:-1]), True
            if address is None:
                ctx.diags.add("A2N001", f"<VirtualHost {text}>: not a valid IPv6 address", span,
                              directive="<VirtualHost")
                continue
        elif host in ("*", "_default_"):
            address, ipv6 = None, False
        elif re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", host):
            address, ipv6 = host, False
        else:
            ctx.diags.add("A2N202", f"<VirtualHost {text}>: {host} is resolved by DNS when httpd starts; "
                          f"the translation listens on every address of the port", span, directive="<VirtualHost")
            address, ipv6 = None, False
        ports: list[int]
        if port_text in ("", "*"):
            ports = sorted({l.port for l in listens}) if listens else [80]
        elif _port(port_text) is not None:
            ports = [int(port_text)]
        else:
            ctx.diags.add("A2N001", f"<VirtualHost {text}>: not a valid address:port", span, directive="<VirtualHost")
            continue
        for port in ports:
            if no_listen:
                out.append((Socket(address, port, ipv6), server.ssl))
                if address is None and not ipv6:
                    out.append((Socket(None, port, True), server.ssl))
                continue
            matching = [l for l in listens if l.port == port and
                        (l.address is None or address is None or l.address == address)]
            if not matching:
                ctx.diags.add("A2N200", f"<VirtualHost {text}>: no Listen opens port {port}; httpd never serves "
                              f"this virtual host there, so no listen is emitted", span, directive="<VirtualHost")
                continue
            ssl = server.ssl
            if address is not None:
                out.append((Socket(address, port, ipv6), ssl))
                continue
            for l in matching:
                if l.address is None:   # bare port: dual stack
                    out.append((Socket(None, port, False), ssl))
                    out.append((Socket(None, port, True), ssl))
                else:
                    out.append((Socket(l.address, port, l.ipv6), ssl))
    return out


def _wildcard_matches(pattern: str, name: str) -> bool:
    if pattern.startswith("~"):
        return re.fullmatch(pattern[2:-1] if pattern.startswith("~^") else pattern[1:], name) is not None
    if pattern.startswith("*."):
        return name.endswith(pattern[1:])
    if pattern.endswith(".*"):
        return name.startswith(pattern[:-1])
    return False


class _NameIndex:
    """The earlier virtual hosts' wildcard and regex names, indexed by what they match (`*.example.com` by
    `.example.com`, `www.example.*` by `www.example.`), and the sockets where an earlier host has a trailing
    wildcard or a regex: each later name looks up its own suffixes and prefixes, so the checks stay linear in
    the number of names; regular expressions, which no index serves, are tried one by one for exact names."""

    def __init__(self) -> None:
        self.suffixes: dict[str, list[tuple[int, Server, set]]] = {}
        self.prefixes: dict[str, list[tuple[int, Server, set]]] = {}
        self.regexes: list[tuple[int, Server, set, list[str]]] = []
        self.trailing_sockets: set = set()
        self.regex_sockets: set = set()

    def add(self, order: int, server: Server, sockets: set, names: list[str]) -> None:
        patterns = []
        for p in names:
            if p.startswith("*."):
                self.suffixes.setdefault(p[1:], []).append((order, server, sockets))
            elif p.endswith(".*") and not p.startswith("~"):
                self.prefixes.setdefault(p[:-1], []).append((order, server, sockets))
                self.trailing_sockets |= sockets
            elif p.startswith("~"):
                patterns.append(p)
        if patterns:
            self.regexes.append((order, server, sockets, patterns))
            self.regex_sockets |= sockets

    def covering(self, name: str, sockets: set) -> list[tuple[int, Server, set]]:
        """Earlier hosts sharing a socket whose name matches every name NAME matches, yet which nginx ranks
        below NAME (an exact name below any wildcard or regex; a wildcard below a longer one of its side)."""
        if name.startswith("*."):
            dots = [i for i, c in enumerate(name) if c == "." and i > 1]
            lists = [self.suffixes.get(name[i:], ()) for i in dots] + [self.suffixes.get(name[1:], ())]
        elif name.endswith(".*"):
            stem = name[:-1]
            lists = [self.prefixes.get(stem[:i + 1], ()) for i, c in enumerate(stem) if c == "."]
        else:
            dots = [i for i, c in enumerate(name) if c == "."]
            lists = [self.suffixes.get(name[i:], ()) for i in dots] + \
                    [self.prefixes.get(name[:i + 1], ()) for i in dots]
            lists.append([(o, h, hs) for o, h, hs, patterns in self.regexes
                          if any(_wildcard_matches(p, name) for p in patterns)])
        return [e for entries in lists for e in entries if sockets & e[2]]

    def overlapping(self, name: str, sockets: set) -> bool:
        """Whether an earlier host sharing a socket may match some names NAME matches with a name nginx ranks
        below NAME: for a leading wildcard, any trailing wildcard (both match www.x.example.com for `www.*`
        and `*.example.com`) or regex; for a trailing wildcard, any regex."""
        if name.startswith("*."):
            return bool(sockets & (self.trailing_sockets | self.regex_sockets))
        return name.endswith(".*") and bool(sockets & self.regex_sockets)


def _shadowed_names(ctx: Context, vhosts: list[Server]) -> None:
    """httpd takes the first virtual host (config order) whose name or alias matches; nginx prefers an exact
    name, then the longest leading wildcard, then the longest trailing wildcard, then the first regex. A later
    name that an earlier host's name covers on all its sockets is never selected by httpd, so it is dropped;
    one an earlier host's name only partly covers (on some sockets, or some names) becomes a regular
    expression, which nginx tries after every exact and wildcard name and in configuration order, as httpd
    does. A regex written for an exact name is recorded so later exact duplicates still see it."""
    index = _NameIndex()
    for order, later in enumerate(vhosts):
        sockets = {l.socket.key() for l in later.listens}
        keep = []
        for name in later.names:
            if name.startswith(("~", "$")):
                keep.append(name)
                continue
            owners = index.covering(name, sockets)
            first = min(owners, key=lambda e: e[0]) if owners else None
            if first is not None and any(sockets <= e[2] for e in owners):
                ctx.diags.add("A2N225", f"server name {name}: an earlier virtual host's wildcard name already "
                              "matches it, so httpd never selects this one for it; the name is left out (nginx "
                              "would prefer it)", later.span, related=[first[1].span] if first[1].span else [])
                continue
            if first is not None or index.overlapping(name, sockets):
                regex = _glob_regex(name)
                ctx.diags.add("A2N204", f"server name {name}: an earlier virtual host's name matches some of "
                              f"the same requests; it becomes the regular expression {regex}, which nginx tries "
                              "after the earlier names, in configuration order as httpd does", later.span)
                later.settings.setdefault("regex_names", {})[regex] = name
                name = regex
            keep.append(name)
        later.names = keep
        index.add(order, later, sockets, keep)


def resolve_sockets(ctx: Context) -> None:
    model = ctx.model
    listens = model.apache_listens
    vhosts = [s for s in model.servers if not s.is_main]
    if not listens and vhosts:
        ctx.diags.add("A2N201", "no Listen directive in the input: listening on the ports the virtual hosts name",
                      vhosts[0].span)
    # httpd decides TLS per connection by the address's first host (mod_ssl's pre_connection hook reads the
    # base server's SSLEngine): a later host's own SSLEngine on is served in plain HTTP there, as nginx does
    # once no listen of the socket says ssl (it refuses to start with a default server lacking a certificate)
    seen_default: set[tuple] = set()
    socket_tls: dict[tuple, bool] = {}
    covered: set[tuple] = set()
    for server in vhosts:
        added: set[tuple] = set()
        for sock, ssl in _vhost_sockets(ctx, server, listens):
            if sock.key() in added:
                continue
            added.add(sock.key())
            covered.add(sock.key())
            ld = ListenDirective(sock, ssl=socket_tls.setdefault(sock.key(), ssl), span=server.span,
                                 http2=bool(server.settings.get("listen_http2") or ctx.main.settings.get("listen_http2")))
            if sock.key() not in seen_default:
                ld.default_server = True
                seen_default.add(sock.key())
            server.listens.append(ld)
        if server.ssl and server.listens and not any(l.ssl for l in server.listens):
            server.ssl = False      # its requests arrive in plain HTTP: SSLRequireSSL refuses them
    main = ctx.main
    if not listens and not vhosts and (main.own_statements or main.locations or main.routes or main.scopes):
        # A configuration fragment (a .htaccess, a snippet) with request handling but no socket of its
        # own: it serves on port 80, as Debian's ports.conf would have it.
        ctx.diags.add("A2N201", "no Listen and no <VirtualHost>: the directives are translated as a server "
                      "listening on port 80", None)
        listens = [ApacheListen(None, 80, False, False, None)]
        model.apache_listens = listens
    main_needed = bool(listens) and (not vhosts or main.root or main.names or main.own_statements
                                     or main.locations or main.routes)
    if main_needed:
        for l in listens:
            socks = [Socket(l.address, l.port, l.ipv6)] if l.address else [Socket(None, l.port, False),
                                                                         Socket(None, l.port, True)]
            for sock in socks:
                # A socket belongs to the main server when no virtual host covers it.
                wildcard = (("[::]" if sock.ipv6 else "*"), sock.port)
                if sock.key() in covered or wildcard in covered:
                    continue
                main.listens.append(ListenDirective(sock, ssl=main.ssl, default_server=True, span=l.span))
        if main.listens:
            ctx.diags.add("A2N205", "the main server (directives outside <VirtualHost>) answers on "
                          + ", ".join(l.socket.nginx() for l in main.listens), main.listens[0].span)
            model.servers.insert(0, main)
    # Virtual hosts inherit the main server's name and document root where they set none; with no
    # DocumentRoot anywhere, httpd serves its compiled-in default (Debian's build: /var/www/html).
    # A host with ServerAlias but no ServerName takes the main ServerName too (ap_fixup_virtual_hosts)
    # and httpd selects it for that name like for its aliases.
    for server in vhosts + ([main] if main in model.servers else []):
        if not server.has_server_name and main.names and server is not main:
            server.names = [main.names[0]] + server.names
            server.name_spans = main.name_spans[:1] + server.name_spans
        if server.root is None:
            if main.root is not None:
                server.root, server.root_span = main.root, main.root_span
                server.root_expression = main.root_expression
            else:
                server.root = DEFAULT_DOCUMENT_ROOT
    _shadowed_names(ctx, vhosts)
    _taken_names(ctx, vhosts)


def _taken_names(ctx: Context, vhosts: list[Server]) -> None:
    """httpd selects the first virtual host of an address whose name matches; a later one with the same
    exact name never answers for it there (nginx would warn "conflicting server name" and ignore it too), so
    the name is left out of the later server when an earlier one has it on every socket of the later one.
    Where the earlier one has it on some sockets only, httpd still selects the later one on the others: the
    name becomes a regular expression there, which nginx tries after the earlier exact name. A virtual host
    with no name of its own (and no main ServerName) is known by the machine's name: nginx's `$hostname`,
    unless an earlier nameless one has it. One left with no name, default on none of its addresses, is a
    host httpd never answers from (A2N238): it is not emitted, since nginx would give it the requests
    without a Host header."""
    owners: dict[tuple[str, tuple], Server] = {}
    for server in vhosts:
        sockets = [l.socket.key() for l in server.listens]
        default = any(l.default_server for l in server.listens)
        machine_name = not server.names and not server.has_server_name and not default
        if machine_name:
            server.names, server.name_spans = ["$hostname"], [server.span] if server.span else []
        regex_names = server.settings.get("regex_names", {})
        keep, spans, dropped, earlier_hosts = [], [], [], []
        for i, name in enumerate(server.names):
            plain = regex_names.get(name, name).lower()
            taken = [] if plain.startswith("~") else [
                owners[(plain, sock)] for sock in sockets if owners.get((plain, sock), server) is not server]
            if taken and (len(taken) == len(sockets) or plain.startswith("$")):
                dropped.append(name)
                earlier_hosts.extend(taken[:1])
                continue
            if taken and not name.startswith("~"):
                regex = _glob_regex(plain)
                ctx.diags.add("A2N204", f"server name {name}: an earlier virtual host has it on some of this "
                              f"one's addresses only; it becomes the regular expression {regex}, which nginx "
                              "tries after the earlier exact name, as httpd selects the earlier host there",
                              server.span, related=[taken[0].span] if taken[0].span else [])
                name = regex
            keep.append(name)
            spans.append(server.name_spans[min(i, len(server.name_spans) - 1)] if server.name_spans else None)
            for sock in sockets:
                owners.setdefault((plain, sock), server)
        related = list({id(e): e.span for e in earlier_hosts if e.span}.values())[:3]
        if not keep and not default and server.listens:
            ctx.diags.add("A2N238", "httpd never answers from this virtual host: it is not the first of its "
                          "address, and an earlier one has every name it has; it is left out", server.span,
                          related=related, directive="<VirtualHost")
            ctx.model.servers.remove(server)
            continue
        server.names = keep
        if dropped:
            server.name_spans = [s for s in spans if s is not None]
            ctx.diags.add("A2N238", f"server name {', '.join(dropped)}: an earlier virtual host of the same address "
                          "has it, so httpd never selects this one for it; the name is left out", server.span,
                          related=related, directive="<VirtualHost")
        if machine_name and keep:
            ctx.diags.add("A2N238", "this virtual host names no ServerName: httpd knows it by the machine's name "
                          "(its fully qualified form), nginx by `$hostname` (the name gethostname() gives)",
                          server.span, directive="<VirtualHost")


# --------------------------------------------------------------- request handling defaults

def _seconds(value: str) -> str | None:
    if value.isdigit():
        return f"{value}s"
    if value.endswith("ms") and value[:-2].isdigit():
        return value
    return None


def _http_level(ctx: Context) -> bool:
    """Directives of the main server apply to every virtual host: emit them at http level."""
    return not ctx.in_vhost and ctx.scope is None


def directory_index(ctx: Context, d: Directive) -> Disposition:
    names = [a for a in d.args]
    if not names:
        return Disposition.UNSUPPORTED
    if names == ["disabled"]:
        # mod_dir then tries no index file: mod_autoindex lists the directory (Options Indexes) or refuses it
        # with 403. nginx's index module cannot be switched off, but an absolute (last) entry is an internal
        # redirect made without looking at the disk: to a location that answers 403 (written after a relative
        # entry that answers 404 where the URL names no directory, see dirindex.written).
        ctx.emit("index", [dirindex.DISABLED_INDEX], d.span)
        ctx.main.settings["directory_index_disabled"] = d.span
        ctx.diags.add("A2N209", "DirectoryIndex disabled: nginx's index module cannot be switched off; a "
                      "directory request is answered 403 from an internal location (httpd lists the directory "
                      "where Options Indexes is on)", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    names = _clean_index_names(ctx, d, names)
    # nginx accepts an absolute (URL) entry only last; httpd tries them in order.
    if any(n.startswith("/") for n in names[:-1]):
        ctx.diags.add("A2N210", "DirectoryIndex: nginx accepts an absolute entry only in the last position; "
                      "later entries were dropped", d.span, directive=d.name)
        names = names[:next(i for i, n in enumerate(names) if n.startswith("/")) + 1]
    # Several DirectoryIndex lines of one section add to its list; a later section's list replaces an earlier
    # one's (mod_dir's merge), which the layout does by keeping the last `index` of a location
    ctx.model.literal("".join(names))    # the renderer writes a `$` of a name literally (index reads variables)
    holder = ctx.scope.statements if ctx.scope is not None else ctx.server.statements
    own = next((st for st in holder if st.name == "index" and st.args != [dirindex.DISABLED_INDEX]), None)
    if own is not None:
        if own.args[-1] != dirindex.DISABLED_INDEX:    # entries after a refused one are never reached
            own.args.extend(names)
        return Disposition.EXACT
    ctx.emit("index", names, d.span)
    return Disposition.EXACT


def _clean_index_names(ctx: Context, d: Directive, names: list[str]) -> list[str]:
    """DirectoryIndex entries as httpd's subrequests reach them: mod_dir looks each entry up as a URL relative
    to the requested directory, and httpd cleans that URL (`.`, `..`, `//`: base.clean_path) before it walks
    its sections. nginx's index module redirects to the URL as written, which no location of the cleaned URL
    matches, so the entries are cleaned here. A relative entry that climbs above its directory (or names it)
    cannot be, its target depending on the directory requested: it and the later entries become a refusal
    (A2N240)."""
    out = []
    for name in names:
        if name.startswith("/"):
            out.append(clean_url(name))
            continue
        cleaned = clean_url("/" + name)[1:]
        if _climbs(name.partition("?")[0]) or not cleaned.partition("?")[0]:
            ctx.diags.add("A2N240", f"DirectoryIndex {name}: nginx's index module does not clean the URL it "
                          "redirects to, so a directory request that reaches this entry is refused (403)",
                          d.span, directive=d.name)
            ctx.main.settings["directory_index_disabled"] = d.span
            return out + [dirindex.DISABLED_INDEX]
        out.append(cleaned)
    return out


def _climbs(path: str) -> bool:
    """Whether a relative path's `..` segments go above the directory it starts from."""
    depth = 0
    for segment in path.split("/"):
        depth += -1 if segment == ".." else 0 if segment in ("", ".") else 1
        if depth < 0:
            return True
    return False


def error_document(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) != 2 or not d.args[0].isdigit():
        ctx.diags.add("A2N001", "ErrorDocument takes two arguments, a status code and a target (a message of "
                      "several words is quoted); httpd refuses the configuration", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    code, target = d.args[0], d.args[1]
    if _error_document_status_left_out(ctx, d, code):
        return Disposition.UNSUPPORTED if int(code) not in _HTTPD_STATUSES else Disposition.NOT_APPLICABLE
    kind = _error_document_kind(target)
    if target.lower() == "default":
        return _default_document(ctx, d, code)
    if code == "401" and kind == "url":
        # core.c set_error_document: a full URL for 401 is ignored (AH00113), so it neither sets nor resets the
        # 401 document: httpd sends its own 401 with the challenge; nginx's error_page would redirect instead
        ctx.diags.add("A2N784", f"ErrorDocument 401 {target}: httpd ignores a full URL for 401 (AH00113) and "
                      "answers with its own 401 page; the translation leaves it out too", d.span, directive=d.name)
        return Disposition.NOT_APPLICABLE
    if kind != "message":
        # httpd redirects to the URL as written, `$` and all; error_page reads variables in it
        ctx.emit("error_page", [code, ctx.model.literal(clean_url(target))], d.span)
        return Disposition.EXACT
    name = f"@a2n_error_{code}_{len(ctx.server.locations) + len(ctx.model.maps)}"
    from ..model import Location, Stmt
    ctx.emit("error_page", [code, name], d.span)
    # an empty types map: the message is text/html whatever the URL's extension (/favicon.ico), as in httpd
    ctx.server.locations.append(Location("", name, [Stmt("types", [], d.span, block=[]),
                                                    Stmt("default_type", ["text/html"], d.span),
                                                    Stmt("return", [code, _message(ctx, target)], d.span)],
                                     d.span))
    ctx.diags.add("A2N211", f"ErrorDocument {code} with a message: nginx returns the text from a named location "
                  "(as text/html); httpd sends it as is", d.span, directive=d.name)
    return Disposition.APPROXIMATE


# the statuses httpd 2.4 knows (http_protocol.c status_lines): ErrorDocument refuses any other
# ("Unsupported HTTP response code", observed with apache2 -t for every code from 100 to 599)
_HTTPD_STATUSES = frozenset([100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226,
                             300, 301, 302, 303, 304, 305, 307, 308, *range(400, 418), 421, 422, 423, 424, 426,
                             428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511])


def _error_document_status_left_out(ctx: Context, d: Directive, code: str) -> bool:
    """Whether ErrorDocument's status CODE leaves the directive out, saying why: httpd refuses a status it does
    not know, and accepts one below 300 (`ErrorDocument 200 /ok.html` passes apache2 -t) which no error answer
    ever uses; nginx's error_page refuses a status outside 300-599, and the whole configuration with it."""
    if int(code) not in _HTTPD_STATUSES:
        ctx.diags.add("A2N001", f"ErrorDocument {code}: httpd refuses the configuration (Unsupported HTTP "
                      "response code)", d.span, directive=d.name)
        return True
    if int(code) < 300:
        ctx.diags.add("A2N258", f"ErrorDocument {code}: httpd never sends an error document for a status below "
                      "300, and nginx's error_page refuses one; the translation leaves it out",
                      d.span, directive=d.name)
        return True
    return False


def _default_document(ctx: Context, d: Directive, code: str) -> Disposition:
    """`ErrorDocument CODE default` (any case): httpd's own answer for CODE again, overriding the document an
    enclosing level set for it (core.c stores errordocument_default for the status, which the merge keeps):
    a <Directory> refusal under a server's `ErrorDocument 403 http://...` answers a plain 403. nginx has no
    way to take one status out of the error_page lines a block inherits, so CODE goes to the named location
    answering it with nginx's own page (emit.refused_error_pages.plain_location); the main server's has nothing
    to override."""
    if ctx.scope is None and ctx.server is ctx.model.main_server:
        return Disposition.EXACT
    from ..emit.refused_error_pages import plain_location, plain_page
    name = plain_page(code)
    ctx.emit("error_page", [code, name], d.span)
    if not any(loc.path == name for loc in ctx.server.locations):
        ctx.server.locations.append(plain_location(name, code, "", []))
    return Disposition.EXACT


def _error_document_kind(target: str) -> str:
    """What httpd makes of an ErrorDocument target (core.c set_error_document), from its text alone: with a
    blank it is a message, else a leading `/` is a local page and a scheme (ap_is_url: letters, digits, `+`, `-`,
    `.` then `:`, any case: `ftp:`, `HTTPS:`) a URL to redirect to, anything else a message. The quotes around
    the word are config syntax the parser strips: `"/errors/404.html"` is the local page, a quoted URL a
    redirect (observed with httpd 2.4). nginx's error_page redirects to any target not starting with `/` or `@`,
    so each kind keeps its form."""
    if " " in target:
        return "message"
    if target.startswith("/"):
        return "local"
    from ..model import redirects_to
    return "url" if redirects_to(target) else "message"


def _message(ctx: Context, text: str) -> str:
    """An ErrorDocument message as the body of nginx's `return`: httpd sends a `$` as written (`$1`: an empty
    capture in both), nginx's return reads `$name` as a variable (`$args`: the client's query string)."""
    return ctx.model.literal_but_captures(text)


def keepalive(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value == "off":
        ctx.settings["keepalive_timeout"] = ("0", d.span)
    elif value != "on":
        return Disposition.UNSUPPORTED
    else:
        ctx.settings.setdefault("keepalive_on", True)
    return Disposition.EXACT


def _number_setting(key: str, fmt):
    def handler(ctx: Context, d: Directive) -> Disposition:
        value = d.args[0] if d.args else ""
        out = fmt(value)
        if out is None:
            ctx.diags.add("A2N001", f"{d.name} {value}: not a valid value", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        if key == "keepalive_timeout" and ctx.settings.get("keepalive_timeout", ("",))[0] == "0":
            return Disposition.EXACT  # KeepAlive Off wins
        if ctx.scope is not None and key == "limit_request_body":
            ctx.emit("client_max_body_size", [out], d.span)   # a per-directory limit in httpd
            return Disposition.EXACT
        ctx.settings[key] = (out, d.span)
        return Disposition.EXACT
    return handler


def _requests(value: str) -> str | None:
    if not value.isdigit():
        return None
    return "1000000000" if value == "0" else value   # 0 is unlimited in httpd


def _bytes(value: str) -> str | None:
    return value if value.isdigit() else None       # 0 is unlimited in both


def server_tokens(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value in ("prod", "productonly", "major", "minor", "min", "minimal"):
        ctx.settings["server_tokens"] = ("off", d.span)
    elif value in ("os", "full"):
        ctx.settings["server_tokens"] = ("on", d.span)
    else:
        return Disposition.UNSUPPORTED
    ctx.diags.add("A2N212", f"ServerTokens {d.args[0]}: nginx sends `Server: nginx` with server_tokens off, "
                  "nginx/version with on; httpd's banner differs", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def trace_enable(ctx: Context, d: Directive) -> Disposition:
    ctx.options.setdefault("trace_enable", []).append(d)
    value = flag(d)
    if value == "off":
        return Disposition.EXACT
    ctx.diags.add("A2N213", f"TraceEnable {d.args[0] if d.args else ''}: nginx always answers TRACE with 405",
                  d.span, directive=d.name)
    return Disposition.APPROXIMATE


def add_default_charset(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0] if d.args else ""
    if value.lower() == "off":
        ctx.emit("charset", ["off"], d.span)
        return Disposition.EXACT
    charset = "iso-8859-1" if value.lower() == "on" else value
    ctx.emit("charset", [charset], d.span)
    ctx.emit("charset_types", ["text/plain"], d.span)   # text/html is always included
    ctx.diags.add("A2N214", "AddDefaultCharset: nginx adds the charset to text/html and text/plain responses it "
                  "serves or proxies; httpd also only where none is set", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def _mime_extensions(ctx: Context, d: Directive, args: list[str]) -> list[str] | None:
    """mod_mime's extension arguments (case-insensitive, leading dot optional), or None where the directive
    is not translated in this place (a URL or directory section would need a whole `types` map of its own)."""
    exts = []
    for i, raw in enumerate(args):
        ext = raw.lstrip(".").lower()
        if "." in ext:
            # httpd looks each dot-separated part of a file name up on its own: `css.br` is never one of them
            ctx.diags.add("A2N234", f"{d.name} ... {raw}: an extension with a dot never matches in httpd (each "
                          "part of a file name is looked up alone); nothing is emitted for it", d.arg_span(i + 1),
                          directive=d.name)
            continue
        if ext:
            exts.append(ext)
    if exts and ctx.scope is not None and not (d.key == "addtype" and ctx.scope.kind in ("directory", "location")):
        ctx.diags.add("A2N101", f"{d.name} inside <{ctx.scope.kind.capitalize()}>: only server-wide MIME mappings "
                      "are translated; nothing was emitted for it", d.span, directive=d.name)
        return None
    return exts


def _record_extensions(ctx: Context, d: Directive, key: str) -> Disposition:
    """`Directive VALUE .ext...`: (VALUE, extensions, span) kept under KEY for the server's type map."""
    exts = _mime_extensions(ctx, d, d.args[1:])
    if exts is None:
        return Disposition.UNSUPPORTED
    if exts:    # else only extensions httpd never matches: nothing to do, as in httpd
        ctx.settings.setdefault(key, []).append((d.args[0], exts, d.span))
    return Disposition.EXACT


def add_type(ctx: Context, d: Directive) -> Disposition:
    if len(d.args) < 2:
        return Disposition.UNSUPPORTED
    return _record_extensions(ctx, d, "types")


def force_type(ctx: Context, d: Directive) -> Disposition:
    """ForceType TYPE in a section: httpd's core sets TYPE on every file there after mod_mime has typed it
    (observed: /f/a.txt goes out as text/html, and a Header condition on %{CONTENT_TYPE} sees it). nginx: an
    empty `types` map with TYPE as default_type, in the section's locations. At server level, and ForceType
    None (which takes an outer one back), it is not translated."""
    if not d.args:
        ctx.diags.add("A2N001", "ForceType needs a media type", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if ctx.scope is None or d.args[0].lower() == "none":
        ctx.diags.add("A2N101", f"ForceType {d.args[0]}: translated inside a <Directory>, <Location> or <Files> "
                      "section only; nothing was emitted for it", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    from ..emit.render import quote
    # a file of the section always has a type now: the section's own typing (default_type "") gives way
    ctx.scope.statements[:] = [st for st in ctx.scope.statements if st.name not in ("types", "default_type")]
    ctx.emit("types", [], d.span, block=[]).comment = f"ForceType {d.args[0]}: every file has this type"
    ctx.emit("default_type", [quote(d.args[0])], d.span)
    return Disposition.EXACT


def finish_section_types(ctx: Context, server: Server) -> None:
    """AddType in a <Directory> or <Location>: httpd adds the mapping for the files there. A `types` block in a
    location replaces the whole inherited map, so each such section gets the server's map (nginx's mime.types,
    the main server's and the server's AddType lines) with its own lines last (Layout keeps the last section's
    block where several merge)."""
    main = ctx.main
    base = (main.settings.get("types") or []) + ((server.settings.get("types") or []) if server is not main else [])
    for scope in server.settings.get("directories", []) + server.scopes:
        own = scope.settings.get("types")
        if own:
            scope.statements += _types_statements(base + own, charsets=[], whole=True)


def add_charset(ctx: Context, d: Directive) -> Disposition:
    """AddCharset CHARSET .ext...: httpd appends `; charset=CHARSET` to the type of files with the extension;
    the type map gets the parameter for those extensions (their own AddType, else nginx's stock type)."""
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "AddCharset needs a charset and at least one extension", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    return _record_extensions(ctx, d, "charsets")


def types_config(ctx: Context, d: Directive) -> Disposition:
    ctx.settings["types_config"] = (d.args[0] if d.args else "", d.span)
    ctx.diags.add("A2N215", f"TypesConfig {d.args[0] if d.args else ''}: Apache's mime.types format differs from "
                  "nginx's; nginx's own mime.types is included instead", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def use_canonical_name(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if ctx.scope is None:
        ctx.settings["use_canonical_name"] = (value, d.span)
    if value == "off":
        ctx.emit("server_name_in_redirect", ["off"], d.span)
        return Disposition.EXACT
    if value == "on":
        ctx.emit("server_name_in_redirect", ["on"], d.span)
        ctx.diags.add("A2N216", "UseCanonicalName On: nginx uses server_name for its own redirects and the "
                      "listening port (port_in_redirect); httpd also uses them for SERVER_NAME/PORT", d.span,
                      directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.UNSUPPORTED




def protocols(ctx: Context, d: Directive) -> Disposition:
    protos = [a.lower() for a in d.args]
    ctx.settings["http2"] = ("h2" in protos, d.span)
    if "h2c" in protos:
        ctx.diags.add("A2N217", "Protocols h2c (HTTP/2 over cleartext with Upgrade) has no nginx equivalent",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


def stock_mime_types() -> list[tuple[str, list[str]]]:
    """nginx's stock mime.types as (type, extensions), in file order."""
    from importlib import resources
    text = resources.files("apache2nginx.data").joinpath("nginx-mime.types").read_text("utf-8")
    body = text[text.index("{") + 1:text.rindex("}")]
    out = []
    for entry in body.split(";"):
        words = entry.split()
        if len(words) >= 2 and not words[0].startswith("#"):
            out.append((words[0], words[1:]))
    return out


# the variable standing for httpd's %{CONTENT_TYPE} in translated conditions (passes.header_expr)
CONTENT_TYPE = "$a2n_content_type"
# extensions httpd's stock table types (Debian's /etc/mime.types, which httpd reads by default there) and
# nginx's mime.types does not, that end the names of precompressed files (page.html.gz is application/gzip
# to httpd, AddEncoding or not: observed with httpd 2.4)
_HTTPD_ONLY_TYPES = {"gz": "application/gzip", "tgz": "application/x-gtar-compressed", "xz": "application/x-xz",
                     "zst": "application/zstd"}


def content_type_maps(ctx: Context) -> None:
    """The type httpd gives a file, for the conditions that read %{CONTENT_TYPE} (CONTENT_TYPE). mod_mime types
    a file by every extension of its name, left to right, the last one with a type winning; an extension of
    no type (a language such as .en, a charset, an encoding, an unknown word) leaves the earlier one's
    (observed with httpd 2.4: page.html.en and page.html.foo are text/html, page.html.utf8 with AddCharset
    too, its charset added, which the map leaves out). nginx types a file by the last extension of its URL
    only, and sends nothing for page.html.en where the block has `default_type ""`
    (passes.headers._untyped_stays_untyped). So where nginx sends no type, the condition reads the type of the name's last extension that has one (the served file's name: an Alias's target
    names it, as httpd's does); a type nginx sends (a backend's, ForceType's, a known last extension's)
    is read as it is."""
    if not any(CONTENT_TYPE in block.source for block in ctx.model.maps):
        return
    table = _file_types(ctx)
    typed = "|".join(re.escape(ext) for ext in sorted(table))
    # the base name (leading dots are part of it), then the extension, then only extensions of no type
    last_typed = f"~*/\\.*[^/.][^/]*?\\.([^/.]+)(?:\\.(?!(?:{typed})(?:\\.|$))[^/.]*)*$"
    ext = ctx.model.shared_map("a2n_file_ext_", "$request_filename", [(last_typed, "$1")], '""')
    by_type = ctx.model.shared_map("a2n_file_type_", ext, sorted(table.items()), '""')
    ctx.model.add_map(MapBlock("$sent_http_content_type", CONTENT_TYPE, [('""', by_type)],
                               "$sent_http_content_type"))


def content_type_source(ctx: Context) -> str:
    """The variable a map reads httpd's content type from: CONTENT_TYPE where a condition reads it already
    (its block sends no type for a file of no known last extension, `default_type ""`), else nginx's own
    (where nginx types every file, the file maps would never be read)."""
    return CONTENT_TYPE if any(CONTENT_TYPE in block.source for block in ctx.model.maps) else \
        "$sent_http_content_type"


def _file_types(ctx: Context) -> dict[str, str]:
    """Extension -> type as the translation types files: nginx's mime.types, the extensions httpd's stock
    table adds that end precompressed names, and every server's AddType (a server's own map is not
    told apart: one map serves them all)."""
    table = {ext: mime for mime, exts in stock_mime_types() for ext in exts}
    table.update(_HTTPD_ONLY_TYPES)
    for server in [ctx.main] + ctx.model.servers:
        for mime, exts, _span in server.settings.get("types") or []:
            for ext in exts:
                table[ext] = mime
    return table


def add_encoding(ctx: Context, d: Directive) -> Disposition:
    """AddEncoding ENCODING .ext...: httpd sends `Content-Encoding: ENCODING` with files having the extension
    among the dot-separated parts of their name (and mod_deflate leaves them alone)."""
    if len(d.args) < 2:
        ctx.diags.add("A2N001", "AddEncoding needs an encoding and at least one extension", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    exts = _mime_extensions(ctx, d, d.args[1:])
    if exts is None:
        return Disposition.UNSUPPORTED
    if not exts:
        return Disposition.EXACT    # only extensions httpd never matches: nothing to do, as in httpd
    ctx.settings.setdefault("encodings", []).append((d.args[0], exts, d, d.span))
    return Disposition.EXACT


def _encodings(ctx: Context, server: Server, encodings: list) -> None:
    """A map from the served file's name to its Content-Encoding, and one add_header with it (an empty value
    sends no header). The last AddEncoding naming an extension wins, as in httpd's extension table."""
    by_ext: dict[str, str] = {}
    for encoding, exts, _d, _span in encodings:
        for ext in exts:
            by_ext[ext] = encoding
    grouped: dict[str, list[str]] = {}
    for ext, encoding in by_ext.items():
        grouped.setdefault(encoding, []).append(ext)
    if not grouped:
        return
    entries = [("~*\\.(?:" + "|".join(re.escape(e) for e in exts) + ")(?:\\.[^/]*)?$", encoding)
               for encoding, exts in grouped.items()]
    variable = ctx.model.shared_map("a2n_content_encoding_", "$uri", entries, '""')
    span = encodings[-1][3]
    (server.own_statements if server is ctx.main else server.statements).append(
        Stmt("add_header", ["Content-Encoding", variable], span,
             comment="AddEncoding: the encoding of the served file"))
    for _encoding, _exts, d, dspan in encodings:
        ctx.redispose(d, Disposition.APPROXIMATE)
    said = ctx.main.settings.setdefault("encodings_reported", set())
    if span in said:
        return
    said.add(span)
    ctx.diags.add("A2N761", "AddEncoding: Content-Encoding is sent for files whose name has the extension (any "
                  "part after the first dot), on successful and redirect responses; nginx's gzip compresses such "
                  "a file again where gzip is on and its type is in gzip_types, which httpd's mod_deflate does not "
                  "(proxied responses for such URLs get the header in both servers)", span, directive="AddEncoding",
                  hint="add `gzip off;` to the locations serving these files if gzip is on for their types",
                  related=[dspan for _e, _x, _d, dspan in encodings if dspan != span])


def _types(server: Server, types: list, full_main: bool, charsets: list = ()) -> None:
    """AddType (and AddCharset) on top of nginx's mime.types, in the server block."""
    server.statements += _types_statements(types, charsets)
    if full_main:
        server.statements.append(Stmt("default_type", ["application/octet-stream"], None))


def _types_statements(types: list, charsets: list = (), whole: bool = False) -> list[Stmt]:
    """AddType (and AddCharset) on top of nginx's mime.types. A `types` block replaces the inherited map, so it
    either follows `include mime.types` or, when an extension is already there (or WHOLE: one block only, for
    a location), carries the merged map whole (nginx warns about a duplicate extension otherwise)."""
    added = {ext: (mime, span) for mime, exts, span in types for ext in exts}
    stock = stock_mime_types()
    stock_type = {e: mime for mime, exts in stock for e in exts}
    for charset, exts, span in charsets:
        for ext in exts:
            mime, _ = added.get(ext, (stock_type.get(ext), None))
            if mime is None:
                continue    # httpd adds a charset only to a type it knows
            base = mime.split(";", 1)[0].strip()
            if "charset=" in mime.lower():
                continue    # mod_mime keeps a charset the type already names
            added[ext] = (f"{base}; charset={charset}", span)
    entries: dict[tuple[str, object], list[str]] = {}
    for ext, (mime, span) in added.items():
        entries.setdefault((mime, span), []).append(ext)
    from ..emit.render import quote
    # a type with a parameter holds `;` and a blank: the entry's name must be quoted
    final = [(quote(mime), exts, span) for (mime, span), exts in entries.items()]
    stock_exts = set(stock_type)
    if final and (whole or added.keys() & stock_exts):
        block = []
        for mime, exts in stock:
            kept = [e for e in exts if e not in added]
            if kept:
                block.append(Stmt(mime, kept, None))
        block += [Stmt(mime, exts, span) for mime, exts, span in final]
        return [Stmt("types", [], final[0][2], block=block, comment="nginx's mime.types with the AddType overrides")]
    out = [Stmt("include", ["mime.types"], None)]
    if final:
        out.append(Stmt("types", [], final[0][2], block=[Stmt(mime, exts, span) for mime, exts, span in final]))
    return out


DEFAULTS = (
    # (setting, nginx directive, Apache default) — nginx's own defaults differ, so they are always written.
    # MaxKeepAliveRequests is not among them: httpd's 100 would make nginx close (and a TLS client
    # handshake again) ten times as often as its own 1000, a cost no response shows; an explicit
    # MaxKeepAliveRequests is still translated.
    ("keepalive_timeout", "keepalive_timeout", "5s"),
    ("keepalive_requests", "keepalive_requests", None),
    ("limit_request_body", "client_max_body_size", "1g"),
)


def finish_model(ctx: Context) -> None:
    vhost_alias.finish_model(ctx)
    for server in ctx.model.servers:
        _relative_redirects(ctx, server)
    span = ctx.main.settings.get("directory_index_disabled")
    if span is not None:
        # the target of `index DISABLED_INDEX` (DirectoryIndex disabled), in every server: an index entry
        # set at http level (the main server's) is inherited by all of them
        for server in ctx.model.servers:
            server.locations.append(dirindex.target_location(span))
    if ctx.main in ctx.model.servers and ctx.main.settings.get("encodings"):
        _encodings(ctx, ctx.main, ctx.main.settings["encodings"])


def _relative_redirects(ctx: Context, server: Server) -> None:
    """nginx's own redirects (a directory without its slash, a relative `rewrite`/`return` target) on a port
    that is not the scheme's default. httpd (UseCanonicalName Off, UseCanonicalPhysicalPort Off) names the port
    the Host header gives, and no port when it gives none: behind a proxy that sends `Host: name` to port 8080
    the client is sent back to port 80. nginx's absolute redirects carry the listening port instead (or none,
    with port_in_redirect off, even when the Host names one); a relative Location is resolved by the client
    against the URL it asked for, which is what httpd names in both cases."""
    ports = [(l.socket.port, l.ssl) for l in server.listens]
    if not any(port != (443 if ssl else 80) for port, ssl in ports):
        return
    canonical = server.settings.get("use_canonical_name") or ctx.main.settings.get("use_canonical_name")
    if canonical and canonical[0] != "off":
        return      # UseCanonicalName On/DNS: server_name_in_redirect and the listening port (A2N216)
    named = _server_port(ctx, server)
    if named and not any(int(named) == (443 if ssl else 80) for _, ssl in ports):
        return      # httpd names ServerName's port when the Host has none, as nginx names the listening one
    holder = server.own_statements if server.is_main else server.statements
    holder.append(Stmt("absolute_redirect", ["off"], None,
                       comment="httpd's redirects name the Host's port, or none: a relative Location"))


def _server_port(ctx: Context, server: Server) -> str | None:
    """The port httpd names when the Host gives none (server_rec->port, ap_get_server_port): a ServerName's
    port (none for a ServerName without one); without a ServerName, the port of the first <VirtualHost>
    address (ap_parse_vhost_addrs), else the main server's ServerName port."""
    if server.has_server_name:
        return server.settings.get("server_name_port")
    if server.addresses:
        port = re.search(r":(\d+)$", server.addresses[0][0])
        if port:
            return port.group(1)
    return ctx.main.settings.get("server_name_port")


def finish_server(ctx: Context, server: Server) -> None:
    """Settings that become directives once the whole server is seen, and httpd's defaults made explicit."""
    vhost_alias.finish_server(ctx, server)
    main = ctx.main
    if server is not main or ctx.model.full or not ctx.model.servers:
        # every server nginx answers with: a virtual host, the main server of a whole configuration, or the
        # main server of a file without virtual hosts
        trace_off = any(flag(t) == "off" for t in ctx.options.get("trace_enable", []))
        ctx.diags.add("A2N226", "nginx's static file handler answers POST (and other methods but GET/HEAD) "
                      "with 405 where httpd serves the file" + ("" if trace_off else
                                                                "; nginx also answers TRACE with 405, which "
                                                                "httpd echoes (TraceEnable defaults to on)"),
                      server.span or ctx.options.get("main_span"))
    for key, name, default in DEFAULTS:
        own = server.settings.get(key)
        if own:
            server.statements.append(Stmt(name, [own[0]], own[1]))
        elif default is not None and (server is main) == ctx.model.full and not main.settings.get(key):
            # Full configs carry httpd's defaults once at http level; site files in each server.
            server.statements.append(Stmt(name, [default], None, comment="httpd default"))
    timeout = server.settings.get("timeout")
    if timeout:
        for name in ("client_header_timeout", "client_body_timeout", "send_timeout"):
            server.statements.append(Stmt(name, [timeout[0]], timeout[1]))
    tokens = server.settings.get("server_tokens")
    if tokens:
        server.statements.append(Stmt("server_tokens", [tokens[0]], tokens[1]))
    types = server.settings.get("types") or []
    charsets = server.settings.get("charsets") or []
    if server is not main and (types or charsets):
        # a server's own `types` block replaces the http-level one: it carries the main server's mappings too
        types = (main.settings.get("types") or []) + types
        charsets = (main.settings.get("charsets") or []) + charsets
    if types or charsets or (server is main and ctx.model.full):
        _types(server, types, full_main=server is main and ctx.model.full, charsets=charsets)
    finish_section_types(ctx, server)
    # Each server block gets one header over its whole extension table (the main server's entries first):
    # an http-level one would be repeated next to a server's own by the add_header inheritance.
    encodings = (main.settings.get("encodings") or []) + (server.settings.get("encodings") or [])
    if encodings and server is not main:
        _encodings(ctx, server, encodings)   # the main server's own: finish_model, once it is known to serve
    h2 = server.settings.get("http2") or (main.settings.get("http2") if server is not main else None)
    if h2 and h2[0]:
        if ctx.model.nginx_version >= (1, 25, 1):
            server.statements.append(Stmt("http2", ["on"], h2[1]))
        else:
            server.settings["listen_http2"] = True


def content_digest(ctx: Context, d: Directive) -> Disposition:
    """ContentDigest: Off is httpd's default (no Content-MD5), which is all nginx does."""
    value = flag(d)
    if value == "off":
        return Disposition.EXACT
    if value != "on":
        ctx.diags.add("A2N001", f"ContentDigest {d.args[0] if d.args else ''}: expected On or Off", d.span,
                      directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.diags.add("A2N229", "ContentDigest On: httpd adds a Content-MD5 header (the body's MD5) to the files it "
                  "serves itself; nginx cannot send one, so the translation serves them without it", d.span,
                  directive=d.name, hint="drop the directive (RFC 7231 removed Content-MD5), or have clients check "
                  "the ETag or a published checksum instead")
    return Disposition.UNSUPPORTED


RULES.update(table(
    Rule("DirectoryIndex", Disposition.EXACT, directory_index),
    Rule("ErrorDocument", Disposition.EXACT, error_document),
    Rule("KeepAlive", Disposition.EXACT, keepalive),
    Rule("KeepAliveTimeout", Disposition.EXACT, _number_setting("keepalive_timeout", _seconds)),
    Rule("MaxKeepAliveRequests", Disposition.EXACT, _number_setting("keepalive_requests", _requests)),
    Rule("Timeout", Disposition.EXACT, _number_setting("timeout", _seconds)),
    Rule("LimitRequestBody", Disposition.EXACT, _number_setting("limit_request_body", _bytes)),
    Rule("ServerTokens", Disposition.APPROXIMATE, server_tokens),
    Rule("ServerSignature", Disposition.NOT_APPLICABLE,
         note="nginx's own error pages carry no server signature beyond the Server header"),
    Rule("TraceEnable", Disposition.EXACT, trace_enable),
    Rule("AddDefaultCharset", Disposition.APPROXIMATE, add_default_charset),
    Rule("AddType", Disposition.EXACT, add_type),
    Rule("ForceType", Disposition.EXACT, force_type),
    Rule("AddCharset", Disposition.EXACT, add_charset),
    Rule("AddEncoding", Disposition.EXACT, add_encoding),
    Rule("TypesConfig", Disposition.APPROXIMATE, types_config),
    Rule("UseCanonicalName", Disposition.EXACT, use_canonical_name),
    Rule("EnableSendfile", Disposition.EXACT, on_off_directive("sendfile")),
    Rule("ContentDigest", Disposition.EXACT, content_digest),
    Rule("EnableMMAP", Disposition.NOT_APPLICABLE, note="nginx decides on memory mapping itself"),
    Rule("Protocols", Disposition.EXACT, protocols),
    Rule("AccessFileName", Disposition.NOT_APPLICABLE, note="nginx reads no per-directory files; .htaccess content "
         "must be translated into the configuration"),
    Rule("NameVirtualHost", Disposition.NOT_APPLICABLE, note="obsolete since httpd 2.4; name-based virtual hosts "
         "need no declaration in either server"),
    Rule("ServerPath", Disposition.NOT_APPLICABLE, note="legacy support for HTTP/1.0 clients without Host"),
    Rule("VirtualDocumentRoot", Disposition.EXACT, vhost_alias.virtual_root),
    Rule("VirtualDocumentRootIP", Disposition.EXACT, vhost_alias.virtual_root),
    Rule("VirtualScriptAlias", Disposition.APPROXIMATE, vhost_alias.virtual_root),
    Rule("VirtualScriptAliasIP", Disposition.APPROXIMATE, vhost_alias.virtual_root),
))


RULES = contexts.checked(RULES)
