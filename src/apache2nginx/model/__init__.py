"""The intermediate model: what nginx needs to know, independent of Apache syntax.

Passes fill it from the Apache tree; emitters render it. Every object keeps the
Apache span it came from so output can carry `# from file:line` comments and
diagnostics can point back at the source.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..syntax.span import Span


@dataclass
class Socket:
    """One address:port nginx listens on (`address` None means every address)."""

    address: str | None
    port: int
    ipv6: bool = False

    def key(self) -> tuple:
        return (self.address or ("[::]" if self.ipv6 else "*"), self.port)

    def nginx(self) -> str:
        if self.ipv6:
            return f"{self.address or '[::]'}:{self.port}"
        return f"{self.address}:{self.port}" if self.address else str(self.port)


@dataclass
class ListenDirective:
    socket: Socket
    ssl: bool = False
    default_server: bool = False
    span: Span | None = None


@dataclass
class Stmt:
    """A plain nginx directive emitted as is (used for directives without richer structure)."""

    name: str
    args: list[str]
    span: Span | None = None
    comment: str | None = None


@dataclass
class Server:
    span: Span | None
    is_main: bool = False
    names: list[str] = field(default_factory=list)
    has_server_name: bool = False
    name_spans: list[Span] = field(default_factory=list)
    listens: list[ListenDirective] = field(default_factory=list)
    root: str | None = None
    root_span: Span | None = None
    ssl: bool = False
    statements: list[Stmt] = field(default_factory=list)
    # Addresses from the <VirtualHost> line, resolved into listens by the vhost pass.
    addresses: list[tuple[str, Span]] = field(default_factory=list)


@dataclass
class ApacheListen:
    address: str | None
    port: int
    ipv6: bool
    ssl: bool
    span: Span


@dataclass
class NginxModel:
    full: bool = False
    servers: list[Server] = field(default_factory=list)
    apache_listens: list[ApacheListen] = field(default_factory=list)
    http_statements: list[Stmt] = field(default_factory=list)
