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

from ..model import ApacheListen, ListenDirective, Server, Socket
from ..syntax.tree import Directive, Section
from .base import Context, Disposition, Rule, table

_ADDR = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\[\]]+))?(?::(?P<port>\d+|\*))?$")


def _ipv6(text: str) -> str | None:
    """`[addr]` in canonical form; httpd (getaddrinfo) accepts leading zeros nginx refuses."""
    try:
        return "[" + ipaddress.IPv6Address(re.sub(r"(?<![0-9A-Fa-f])0+(?=[0-9A-Fa-f])", "", text)).compressed + "]"
    except ValueError:
        return None


def _parse_listen(text: str) -> tuple[str | None, int, bool] | None:
    if text.isdigit():
        return None, int(text), False
    m = _ADDR.match(text)
    if not m or not m.group("port") or m.group("port") == "*":
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


def _nginx_name(ctx: Context, d: Directive, index: int, name: str) -> str:
    """httpd wildcards (`*`, `?` anywhere) in nginx form."""
    if "*" not in name and "?" not in name:
        return name
    if (name.startswith("*.") and "*" not in name[2:] and "?" not in name) or \
       (name.endswith(".*") and "*" not in name[:-2] and "?" not in name):
        return name
    regex = "".join(".*" if c == "*" else "." if c == "?" else "\\" + c if c in ".+()[]{}^$|\\" else c
                    for c in name)
    ctx.diags.add("A2N204", f"ServerAlias {name} becomes the regular expression ~^{regex}$", d.arg_span(index),
                  directive=d.name)
    return f"~^{regex}$"


def server_name(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", "ServerName requires a host name", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name = _clean_name(ctx, d, 0, d.args[0])
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
        ctx.server.names.append(_nginx_name(ctx, d, i, alias.lower()))
        ctx.server.name_spans.append(d.arg_span(i))
    return Disposition.EXACT


def document_root(ctx: Context, d: Directive) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", "DocumentRoot requires a directory", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.server.root = d.args[0]
    ctx.server.root_span = d.span
    return Disposition.EXACT


def virtual_host(ctx: Context, section: Section) -> Server:
    server = Server(span=section.span)
    for i, addr in enumerate(section.args):
        server.addresses.append((addr, section.arg_span(i)))
    if not section.args:
        ctx.diags.add("A2N001", "<VirtualHost> requires at least one address", section.span, directive="<VirtualHost")
    return server


RULES = table(
    Rule("Listen", Disposition.EXACT, listen),
    Rule("ServerName", Disposition.EXACT, server_name),
    Rule("ServerAlias", Disposition.EXACT, server_alias),
    Rule("DocumentRoot", Disposition.EXACT, document_root),
    Rule("VirtualHost", Disposition.EXACT, section=True),
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
        elif port_text.isdigit():
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


def resolve_sockets(ctx: Context) -> None:
    model = ctx.model
    listens = model.apache_listens
    vhosts = [s for s in model.servers if not s.is_main]
    if not listens and vhosts:
        ctx.diags.add("A2N201", "no Listen directive in the input: listening on the ports the virtual hosts name",
                      vhosts[0].span)
    seen_default: set[tuple] = set()
    covered: set[tuple] = set()
    for server in vhosts:
        added: set[tuple] = set()
        for sock, ssl in _vhost_sockets(ctx, server, listens):
            if sock.key() in added:
                continue
            added.add(sock.key())
            covered.add(sock.key())
            ld = ListenDirective(sock, ssl=ssl, span=server.span)
            if sock.key() not in seen_default:
                ld.default_server = True
                seen_default.add(sock.key())
            server.listens.append(ld)
    main = ctx.main
    main_needed = bool(listens) and (not vhosts or main.root or main.names)
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
    # Virtual hosts inherit the main server's name and document root where they set none.
    for server in vhosts:
        if not server.names and main.names:
            server.names = [main.names[0]]
        if server.root is None and main.root is not None:
            server.root, server.root_span = main.root, main.root_span
