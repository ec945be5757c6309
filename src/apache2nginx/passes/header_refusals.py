"""mod_headers' `Header always` lines on the answers nginx gives before it knows the virtual host.

nginx refuses a request line whose target is not a path, or whose path climbs above the root or holds a
malformed %-escape, with 400 before it reads the Host header, so that answer comes from the default server
of the address, with the default server's add_header lines (observed with nginx 1.22). httpd reads the whole request first and
answers from the virtual host the Host names, with that host's `Header always` lines. So the default
server sends, on those answers only (`$uri` is still empty then, and never is afterwards), the `always`
headers the other virtual hosts of its address send. What one server cannot send for every host is
reported (A2N511) at the hosts it concerns; a security header sent with another value there stays a
difference verify never explains.
"""
from __future__ import annotations

from ..model import Server, Stmt
from .base import Context


def _always_headers(server: Server, main: Server) -> dict[str, list[tuple[str, str, Stmt]]]:
    """name (lower-cased) -> the (name, value, statement) of each `add_header ... always` line of that name the
    server level of `server` sends, in order (`Header set` then `Header add` of one name send both; the main
    server's lines are replaced by the server's own of that name). A value may be a condition's variable
    (`Header always set ... expr=`): nginx evaluates it on its 400 with what it has read then (no request
    header, an empty $uri), where httpd has the whole request; A2N511 reports that answer as differing."""
    out: dict[str, list[tuple[str, str, Stmt]]] = {}
    holders = [main.statements] + ([server.own_statements] if server.is_main else [server.statements])
    for statements in holders:
        own: dict[str, list[tuple[str, str, Stmt]]] = {}
        for stmt in statements:
            if stmt.name == "add_header" and stmt.block is None and len(stmt.args) == 3 \
                    and stmt.args[2] == "always" and stmt.args[1]:
                own.setdefault(stmt.args[0].lower(), []).append((stmt.args[0], stmt.args[1], stmt))
        out.update(own)
    return out


def finish(ctx: Context) -> None:
    """Give each default server the `always` headers of its address's other hosts, for the answers nginx
    makes before it reads the Host header."""
    defaults: dict[str, Server] = {}
    by_socket: dict[str, dict[int, Server]] = {}
    for server in ctx.model.servers:
        for listen in server.listens:
            socket = listen.socket.nginx()
            by_socket.setdefault(socket, {})[id(server)] = server
            if listen.default_server:
                defaults[socket] = server
    hosts: dict[int, tuple[Server, dict[int, Server]]] = {}
    for socket, default in defaults.items():
        others = hosts.setdefault(id(default), (default, {}))[1]
        others.update((key, s) for key, s in by_socket[socket].items() if s is not default)
    for default, others in hosts.values():
        if others:
            _give(ctx, default, list(others.values()), ctx.main)


def _values(lines: list[tuple[str, str, Stmt]] | None) -> tuple[str, ...] | None:
    return tuple(value for _, value, _ in lines) if lines else None


def _give(ctx: Context, default: Server, others: list[Server], main: Server) -> None:
    own = _always_headers(default, main)
    theirs = {id(s): _always_headers(s, main) for s in others}
    for name, lines in own.items():
        for server in others:
            if name not in theirs[id(server)]:
                _report(ctx, server, f"also sends {lines[0][0]}: {', '.join(_values(lines))}, which the default "
                        "server sends")
    names = dict.fromkeys(name for s in others for name in theirs[id(s)]
                          if _values(theirs[id(s)][name]) != _values(own.get(name)))
    for name in names:
        setting = [s for s in others if name in theirs[id(s)]]
        lines = theirs[id(setting[0])][name]
        header, values = lines[0][0], _values(lines)
        if name in own:
            for server in setting:
                if _values(theirs[id(server)][name]) != _values(own[name]):
                    _report(ctx, server, f"sends {header}: {', '.join(_values(own[name]))} (the default server's) "
                            f"where this host sends {', '.join(_values(theirs[id(server)][name]))}")
            continue
        holder = default.own_statements if default.is_main else default.statements
        for _, value, stmt in lines:
            variable = ctx.model.shared_map("a2n_unrouted_", "$uri", [('""', value)], '""', stmt.span)
            holder.append(Stmt("add_header", [header, variable, "always"], stmt.span,
                               comment="on the 400 nginx answers before it reads Host, as the hosts of this address do"))
        for server in setting[1:]:
            if _values(theirs[id(server)][name]) != values:
                _report(ctx, server, f"sends {header}: {', '.join(values)} (another host's) where this host sends "
                        f"{', '.join(_values(theirs[id(server)][name]))}")
        for server in [default] + [s for s in others if name not in theirs[id(s)]]:
            _report(ctx, server, f"also sends {header}: {', '.join(values)}, which another host of the address sends")


def _report(ctx: Context, server: Server, what: str) -> None:
    ctx.diags.add("A2N511", "a request whose target is not a path (`~`), or whose path climbs above the root "
                  "or holds a malformed %-escape, is refused by nginx before it reads the Host header, from the "
                  f"default server of the address: the answer for this host {what}", server.span, directive="Header")
