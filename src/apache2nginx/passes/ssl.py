"""mod_ssl: the TLS settings of a virtual host.

This version translates the socket and certificate essentials (SSLEngine,
SSLCertificateFile, SSLCertificateKeyFile); the other SSL directives are
reported as unsupported until their mappings land.
"""
from __future__ import annotations

from ..model import Server, Stmt
from ..syntax.tree import Directive
from .base import Context, Disposition, Rule, table


def ssl_engine(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0].lower() if d.args else ""
    if value not in ("on", "off", "optional"):
        ctx.diags.add("A2N001", f"SSLEngine {value}: expected on, off or optional", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if value == "optional":
        return Disposition.UNSUPPORTED
    ctx.server.ssl = value == "on"
    return Disposition.EXACT


def _file_stmt(nginx_name: str):
    def handler(ctx: Context, d: Directive) -> Disposition:
        if not d.args:
            ctx.diags.add("A2N001", f"{d.name} requires a file", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        ctx.server.statements.append(Stmt(nginx_name, [d.args[0]], d.span))
        return Disposition.EXACT
    return handler


def finish_server(ctx: Context, server: Server) -> None:
    """A TLS server needs a certificate and key in nginx; supply what httpd would use."""
    if not server.ssl:
        return
    names = {s.name for s in server.statements}
    if "ssl_certificate" not in names:
        ctx.diags.add("A2N206", "SSLEngine on without SSLCertificateFile: httpd refuses to start such a server; "
                      "the translation rejects every TLS handshake (ssl_reject_handshake on)",
                      server.span, directive="SSLEngine")
        server.statements.append(Stmt("ssl_reject_handshake", ["on"], server.span))
    elif "ssl_certificate_key" not in names:
        cert = next(s for s in server.statements if s.name == "ssl_certificate")
        ctx.diags.add("A2N207", f"no SSLCertificateKeyFile: httpd reads the private key from {cert.args[0]}, "
                      "so ssl_certificate_key names the same file", cert.span, directive="SSLCertificateFile")
        server.statements.append(Stmt("ssl_certificate_key", [cert.args[0]], cert.span))


RULES = table(
    Rule("SSLEngine", Disposition.EXACT, ssl_engine),
    Rule("SSLCertificateFile", Disposition.EXACT, _file_stmt("ssl_certificate")),
    Rule("SSLCertificateKeyFile", Disposition.EXACT, _file_stmt("ssl_certificate_key")),
)
