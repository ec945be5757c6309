"""mod_ssl: the TLS settings of a virtual host.

Certificates, protocols (httpd's `all -SSLv3 ...` arithmetic turned into an
explicit list, since the two servers' defaults differ), ciphers, sessions,
stapling, client certificates and the backend (SSLProxy*) side. Where nginx
checks less than httpd (backend certificate names, per-path client
certificates), an error or warning says so.
"""
from __future__ import annotations

import re

from ..model import Server, Stmt, read_literally
from ..syntax.tree import Directive
from .base import Context, Disposition, flag, on_off_directive, Rule, table, value_directive


def ssl_engine(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value not in ("on", "off", "optional"):
        ctx.diags.add("A2N001", f"SSLEngine {value}: expected on, off or optional", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if value == "optional":
        return Disposition.UNSUPPORTED
    ctx.server.ssl = value == "on"
    ctx.server.settings["ssl_engine_span"] = d.span
    return Disposition.EXACT




def inherit_engine(ctx: Context, server: Server) -> None:
    """httpd merges the main server's SSLEngine into every virtual host that sets none of its own (observed:
    `SSLEngine on` outside <VirtualHost> makes a `*:443` host speak TLS, and plain HTTP to it gets 400). Its
    certificates merge the same way; the translation writes them at http level, where nginx's servers inherit
    them. Settled before any server is finished, since others read whether a server is TLS."""
    if server is not ctx.main and "ssl_engine_span" not in server.settings:
        server.ssl = ctx.main.ssl


def finish_server(ctx: Context, server: Server) -> None:
    """A TLS server needs a certificate and key in nginx; supply what httpd would use: its own, else the main
    server's (written at http level, which the server block inherits)."""
    finish_openssl_commands(ctx, server)
    if not server.ssl:
        return
    finish_tls(ctx, server)
    names = {s.name for s in server.statements} | {s.name for s in ctx.main.statements}
    if "ssl_certificate" not in names:
        ctx.diags.add("A2N206", "SSLEngine on without SSLCertificateFile: httpd refuses to start such a server; "
                      "the translation rejects every TLS handshake (ssl_reject_handshake on)",
                      server.span or server.settings.get("ssl_engine_span"), directive="SSLEngine")
        server.statements.append(Stmt("ssl_reject_handshake", ["on"], server.span))
    elif "ssl_certificate_key" not in names:
        cert = next(s for s in [*server.statements, *ctx.main.statements] if s.name == "ssl_certificate")
        ctx.diags.add("A2N207", "no SSLCertificateKeyFile: httpd reads the private key from "
                      f"{read_literally(cert.args[0])}, so ssl_certificate_key names the same file", cert.span,
                      directive="SSLCertificateFile")
        server.statements.append(Stmt("ssl_certificate_key", [cert.args[0]], cert.span))


def certificate_file(nginx_name: str):
    """SSLCertificateFile and its kin: httpd reads a `$` in the file name as itself, where nginx's
    ssl_certificate, ssl_certificate_key and proxy_ssl_certificate read variables. The name is written as
    NginxModel.literal writes it; nginx then loads the file at every handshake, in the worker process (as its
    user, where httpd reads it as root at startup): reported (A2N241)."""
    plain = value_directive(nginx_name)

    def handler(ctx: Context, d: Directive) -> Disposition:
        if not d.args or "$" not in d.args[0]:
            return plain(ctx, d)
        ctx.emit(nginx_name, [ctx.model.literal(d.args[0])], d.span)
        ctx.diags.add("A2N241", f"{d.name} {d.args[0]}: nginx reads a `$` in {nginx_name} as a variable; the "
                      "translation writes it as `${a2n_dollar}`, so nginx loads the file at every TLS handshake, "
                      "as its worker user", d.span, directive=d.name,
                      hint="rename the file without `$`")
        return Disposition.APPROXIMATE
    return handler


RULES = table(
    Rule("SSLEngine", Disposition.EXACT, ssl_engine),
    Rule("SSLCertificateFile", Disposition.EXACT, certificate_file("ssl_certificate")),
    Rule("SSLCertificateKeyFile", Disposition.EXACT, certificate_file("ssl_certificate_key")),
)


# ----------------------------------------------------------------- protocols and ciphers

PROTOCOLS = ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]
_ALIASES = {"tlsv1": "TLSv1", "tlsv1.1": "TLSv1.1", "tlsv1.2": "TLSv1.2", "tlsv1.3": "TLSv1.3", "sslv3": "SSLv3",
            "sslv2": "SSLv2"}


def protocol_set(args: list[str]) -> list[str] | None:
    """httpd's SSLProtocol: left to right, a bare token replaces the set, +/- add or remove."""
    current: set[str] = set()
    for arg in args:
        sign = arg[0] if arg[0] in "+-" else ""
        token = arg[1:] if sign else arg
        low = token.lower()
        members = set(PROTOCOLS) if low == "all" else {_ALIASES.get(low, "")}
        if "" in members:
            return None
        if sign == "+":
            current |= members
        elif sign == "-":
            current -= members
        else:
            current = set(members)
    return [p for p in PROTOCOLS if p in current]


def ssl_protocol(ctx: Context, d: Directive) -> Disposition:
    protos = protocol_set(list(d.args))
    if protos is None:
        ctx.diags.add("A2N001", f"SSLProtocol {' '.join(d.args)}: unknown protocol", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if not protos:
        ctx.diags.add("A2N218", "SSLProtocol leaves no protocol enabled", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.settings["ssl_protocols"] = (protos, d.span)
    return Disposition.EXACT


# Per-path TLS requirements httpd enforces by renegotiating: a client that cannot meet them gets no answer there.
REFUSING_PER_PATH = {"sslciphersuite", "sslverifydepth"}


def _per_location_tls(ctx: Context, d: Directive) -> bool:
    if ctx.scope is None:
        return False
    if d.key in REFUSING_PER_PATH:
        from .access import refuse_here
        ctx.diags.add("A2N221", f"{d.name} inside a section: httpd renegotiates TLS for that path and refuses "
                      "clients that cannot meet it; nginx sets TLS parameters per server only, so the region is "
                      "refused to everyone instead (deny all)", d.span, directive=d.name,
                      hint="give the path its own server name with these TLS settings")
        refuse_here(ctx, f"{d.name} {' '.join(d.args)}", d.span)
        return True
    ctx.diags.add("A2N221", f"{d.name} inside <Location>: httpd renegotiates TLS for that path; nginx sets TLS "
                  "parameters per server only, so the path does NOT get them in the translation", d.span,
                  directive=d.name, hint="give the path its own server name, or enforce the requirement in the "
                  "application")
    return True


def ssl_cipher_suite(ctx: Context, d: Directive) -> Disposition:
    args = list(d.args)
    if len(args) == 2 and args[0].upper() == "TLSV1.3":
        ctx.emit("ssl_conf_command", ["Ciphersuites", args[1]], d.span)
        return Disposition.EXACT
    if len(args) == 2 and args[0].upper() == "SSL":
        args = args[1:]
    if len(args) != 1:
        return Disposition.UNSUPPORTED
    ctx.emit("ssl_ciphers", [args[0]], d.span)
    return Disposition.EXACT




def ssl_session_cache(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0] if d.args else ""
    low = value.lower()
    if low == "none":
        # mod_ssl leaves OpenSSL's cache off (SSL_SESS_CACHE_OFF: no session ID is sent), as nginx's `off` does;
        # nginx's `none` is httpd's nonenotnull (an ID is sent, nothing is stored)
        ctx.model.http_statements.append(Stmt("ssl_session_cache", ["off"], d.span))
        return Disposition.EXACT
    if low == "nonenotnull":
        ctx.model.http_statements.append(Stmt("ssl_session_cache", ["none"], d.span))
        return Disposition.EXACT
    m = re.match(r"^shm(?:cb|ht)?:[^(]*(?:\((\d+)\))?$", value, re.I)
    if m:
        size = int(m.group(1) or 512000)
        ctx.model.http_statements.append(Stmt("ssl_session_cache", [f"shared:SSL:{max(1, size // 1024)}k"], d.span))
        return Disposition.EXACT
    if re.match(r"^dbm:.", value, re.I):
        # a DBM file on the local disk every httpd process reads and writes: one cache for the machine's processes
        # and all virtual hosts, as nginx's shared zone at http level is for its workers and servers
        ctx.model.http_statements.append(Stmt("ssl_session_cache", ["shared:SSL:10m"], d.span))
        ctx.diags.add("A2N228", f"SSLSessionCache {value}: httpd's DBM file grows without bound (entries leave when "
                      "they expire); nginx's shared memory zone of 10m holds about 40000 sessions and drops the "
                      "oldest when full", d.span, directive=d.name, hint="size the zone for the sessions "
                      "SSLSessionCacheTimeout keeps alive at peak")
        return Disposition.APPROXIMATE
    ctx.diags.add("A2N219", f"SSLSessionCache {value}: only caches on this machine (shmcb, shm, dbm) translate; "
                  "nginx has no cache shared between machines (distcache, memcache, redis)", d.span,
                  directive=d.name)
    return Disposition.UNSUPPORTED


# OpenSSL SSL_CONF commands naming the key-exchange groups: what nginx's ssl_ecdh_curve sets (SSL_CTX_set1_groups_list,
# OpenSSL's own default list when unset, in both servers).
GROUP_COMMANDS = {"curves", "groups", "ecdhparameters"}


def ssl_openssl_conf_cmd(ctx: Context, d: Directive) -> Disposition:
    """SSLOpenSSLConfCmd Name Value: an OpenSSL SSL_CONF_cmd() applied after mod_ssl's own settings, as nginx applies
    ssl_conf_command after its own (both with the FILE|SERVER|CERTIFICATE flags). The group commands become
    ssl_ecdh_curve, which every nginx has; the rest ssl_conf_command (nginx 1.19.4+)."""
    if len(d.args) != 2:
        ctx.diags.add("A2N001", "SSLOpenSSLConfCmd takes a command name and a value", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    name, value = d.args
    if name.lower() in GROUP_COMMANDS:
        if name.lower() == "ecdhparameters" and value.lower() in ("automatic", "+automatic"):
            return Disposition.EXACT   # OpenSSL ignores it in configuration files: its default list stays
        if name.lower() == "ecdhparameters" and ":" in value:
            ctx.diags.add("A2N001", f"SSLOpenSSLConfCmd ECDHParameters {value}: OpenSSL takes one group here "
                          "(use Groups for a list); httpd refuses to start", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        ctx.settings["ecdh_curve"] = (value, d.span)
        return Disposition.EXACT
    if ctx.model.nginx_version < (1, 19, 4):
        ctx.diags.add("A2N227", f"SSLOpenSSLConfCmd {name}: nginx's ssl_conf_command needs nginx 1.19.4 or later; "
                      "nothing was emitted", d.span, directive=d.name, hint="target nginx 1.19.4+ (--nginx-version)")
        return Disposition.UNSUPPORTED
    ctx.settings.setdefault("ssl_conf_commands", []).append((name, value, d.span))
    return Disposition.EXACT


def finish_openssl_commands(ctx: Context, server: Server) -> None:
    """httpd runs the main server's commands, then the virtual host's; nginx's ssl_conf_command is inherited
    only by a level with none of its own, so a server with its own repeats the main server's first."""
    curve = server.settings.get("ecdh_curve")
    if curve:
        server.statements.append(Stmt("ssl_ecdh_curve", [curve[0]], curve[1]))
    own = server.settings.get("ssl_conf_commands") or []
    if not own:
        return
    inherited = ctx.main.settings.get("ssl_conf_commands") or [] if server is not ctx.main else []
    for name, value, span in inherited + own:
        server.statements.append(Stmt("ssl_conf_command", [name, value], span))


def ssl_session_timeout(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0] if d.args else ""
    if not value.isdigit():
        return Disposition.UNSUPPORTED
    ctx.emit("ssl_session_timeout", [f"{value}s"], d.span)
    return Disposition.EXACT


def ssl_chain(ctx: Context, d: Directive) -> Disposition:
    ctx.diags.add("A2N220", f"SSLCertificateChainFile {d.args[0] if d.args else ''}: nginx reads the chain from the "
                  "ssl_certificate file; append the chain to the certificate file (cat cert chain > fullchain)",
                  d.span, directive=d.name, hint="point SSLCertificateFile at a file holding certificate and chain")
    return Disposition.APPROXIMATE


def ssl_options(ctx: Context, d: Directive) -> Disposition:
    """SSLOptions +StdEnvVars: the SSL_* variables for the scripts of a TLS server. Recorded here and given to
    its FastCGI locations once they exist (fastcgi.finish_server); the other options have no nginx side."""
    words = [a.lower() for a in d.args]
    if "+stdenvvars" in words or "stdenvvars" in words:
        ctx.server.settings.setdefault("ssl_std_env", []).append(d)
        return Disposition.APPROXIMATE      # settled by fastcgi.finish_model
    return Disposition.NOT_APPLICABLE


def ssl_verify_client(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    mapping = {"none": "off", "optional": "optional", "require": "on", "optional_no_ca": "optional_no_ca"}
    if value not in mapping:
        return Disposition.UNSUPPORTED
    if ctx.scope is not None:
        from .access import refuse_here
        if value in ("require", "optional"):
            ctx.diags.add("A2N221", "SSLVerifyClient inside a section (per-path client certificates) is not "
                          "translated; the region is refused to everyone instead (deny all)",
                          d.span, directive=d.name, hint="set ssl_verify_client optional on the server and "
                          "`if ($ssl_client_verify != SUCCESS) { return 403; }` in the location")
        refuse_here(ctx, "SSLVerifyClient " + value if value in ("require", "optional") else None, d.span)
        return Disposition.UNSUPPORTED if value in ("require", "optional") else Disposition.EXACT
    ctx.emit("ssl_verify_client", [mapping[value]], d.span)
    if value == "require":
        ctx.diags.add("A2N237", "SSLVerifyClient require: httpd aborts the handshake of a client without a "
                      "certificate, nginx completes it and answers 400", d.span, directive=d.name)
    if value != "none":
        ctx.diags.add("A2N222", "client certificates: nginx before 1.26.3/1.27.4 lets a TLS 1.3 session resumed "
                      "from another virtual host skip ssl_verify_client (CVE-2025-23419)", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT




def ssl_verify_depth(ctx: Context, d: Directive) -> Disposition:
    if not d.args or not d.args[0].isdigit():
        return Disposition.UNSUPPORTED
    ctx.emit("ssl_verify_depth", [d.args[0]], d.span)
    return Disposition.EXACT


def ssl_stapling(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value == "off":
        return Disposition.EXACT
    ctx.emit("ssl_stapling", ["on"], d.span)
    ctx.emit("ssl_stapling_verify", ["on"], d.span)
    ctx.diags.add("A2N223", "SSLUseStapling: nginx needs a resolver to fetch OCSP responses and caches them per "
                  "worker; add `resolver` with your DNS servers", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def ssl_proxy_verify(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value == "require":
        ctx.emit("proxy_ssl_verify", ["on"], d.span)
        return Disposition.EXACT
    if value == "none":
        ctx.emit("proxy_ssl_verify", ["off"], d.span)
        ctx.diags.add("A2N224", "SSLProxyVerify none: httpd still checks the backend certificate's name and expiry "
                      "(SSLProxyCheckPeerName/Expire); nginx checks nothing without proxy_ssl_verify on",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.UNSUPPORTED


def ssl_proxy_check(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value == "off":
        return Disposition.EXACT   # nginx checks nothing unless proxy_ssl_verify is on
    ctx.diags.add("A2N224", f"{d.name} on: nginx checks the backend certificate only with proxy_ssl_verify on",
                  d.span, directive=d.name)
    return Disposition.APPROXIMATE


def ssl_proxy_protocol(ctx: Context, d: Directive) -> Disposition:
    protos = protocol_set(list(d.args))
    if not protos:
        return Disposition.UNSUPPORTED
    ctx.emit("proxy_ssl_protocols", protos, d.span)
    return Disposition.EXACT


def ssl_strict_sni(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value not in ("on", "off"):
        ctx.diags.add("A2N001", f"SSLStrictSNIVHostCheck {value}: expected on or off", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.server.settings["strict_sni"] = (value == "on", d.span)
    return Disposition.EXACT


def _strict_sni(ctx: Context, server: Server):
    """The server's SSLStrictSNIVHostCheck, its own else the main server's (mod_ssl merges it per server)."""
    return server.settings.get("strict_sni") or ctx.main.settings.get("strict_sni")


def finish_model(ctx: Context) -> None:
    """SSLStrictSNIVHostCheck on: httpd answers 403 to a request on a TLS connection without SNI when the
    connection's address is shared by several virtual hosts, where the check is on in the host the Host
    header selects or in the one that made the handshake (the address's first). nginx selects the server
    by Host and serves it; each such TLS server refuses requests with an empty $ssl_server_name instead,
    before anything else (httpd checks when it reads the request)."""
    vhosts = [s for s in ctx.model.servers if not s.is_main]
    sharing: dict = {}
    for server in vhosts:
        for key in {l.socket.key() for l in server.listens}:
            sharing.setdefault(key, []).append(server)
    for server in vhosts:
        if not server.ssl:
            continue
        shared = [servers for key, servers in sharing.items() if server in servers and len(servers) > 1]
        strict = [_strict_sni(ctx, s) for s in [server] + [servers[0] for servers in shared]]
        on = next((st for st in strict if st and st[0]), None)
        if not shared or on is None:
            continue
        server.own_statements.insert(0, Stmt("if", ['($ssl_server_name = "")'], on[1],
                                             block=[Stmt("return", ["403"], on[1])],
                                             comment="SSLStrictSNIVHostCheck: no SNI, no name-based host"))


def _wrap_rules() -> None:
    for key, rule in list(RULES.items()):
        if rule.handler is not None and not key.startswith("sslproxy") and key not in ("sslengine", "ssloptions"):
            RULES[key] = Rule(rule.name, rule.disposition, _server_only(rule.handler), rule.note, rule.section)


def finish_tls(ctx: Context, server: Server) -> None:
    if not server.ssl:
        return
    protos = server.settings.get("ssl_protocols") or ctx.main.settings.get("ssl_protocols")
    if protos:
        server.statements.append(Stmt("ssl_protocols", protos[0], protos[1]))
    else:
        # httpd's default `all -SSLv3`; nginx's own default differs between versions.
        server.statements.append(Stmt("ssl_protocols", PROTOCOLS, None))


def _verifies_clients(ctx: Context, d: Directive) -> bool:
    """Whether client certificates are asked for where `d` stands: by its own section or by its server."""
    siblings = d.parent.children if d.parent is not None else []
    if any(c.key == "sslverifyclient" and flag(c) in ("require", "optional", "optional_no_ca") for c in siblings):
        return True
    return any(st.name == "ssl_verify_client" and st.args != ["off"]
               for holder in (ctx.server, ctx.main) for st in holder.statements)


def _server_only(handler):
    """nginx takes TLS settings per server: inside <Location> they are a per-path renegotiation it lacks."""
    def wrapped(ctx: Context, d: Directive) -> Disposition:
        if d.key == "sslverifydepth" and ctx.scope is not None and not _verifies_clients(ctx, d):
            return Disposition.EXACT  # no client certificate is asked for here: httpd ignores the depth too
        if d.key != "sslverifyclient" and _per_location_tls(ctx, d):
            return Disposition.UNSUPPORTED
        return handler(ctx, d)
    return wrapped


RULES.update(table(
    Rule("SSLProtocol", Disposition.EXACT, ssl_protocol),
    Rule("SSLCipherSuite", Disposition.EXACT, ssl_cipher_suite),
    Rule("SSLHonorCipherOrder", Disposition.EXACT, on_off_directive("ssl_prefer_server_ciphers")),
    Rule("SSLSessionCache", Disposition.EXACT, ssl_session_cache),
    Rule("SSLSessionCacheTimeout", Disposition.EXACT, ssl_session_timeout),
    Rule("SSLOpenSSLConfCmd", Disposition.EXACT, ssl_openssl_conf_cmd),
    Rule("SSLSessionTickets", Disposition.EXACT, on_off_directive("ssl_session_tickets")),
    Rule("SSLCertificateChainFile", Disposition.APPROXIMATE, ssl_chain),
    Rule("SSLCACertificateFile", Disposition.EXACT, value_directive("ssl_client_certificate")),
    Rule("SSLCARevocationFile", Disposition.EXACT, value_directive("ssl_crl")),
    Rule("SSLVerifyClient", Disposition.EXACT, ssl_verify_client),
    Rule("SSLVerifyDepth", Disposition.EXACT, ssl_verify_depth),
    Rule("SSLUseStapling", Disposition.APPROXIMATE, ssl_stapling),
    Rule("SSLStaplingCache", Disposition.NOT_APPLICABLE, note="nginx caches OCSP responses per worker"),
    Rule("SSLStaplingResponderTimeout", Disposition.NOT_APPLICABLE, note="nginx uses resolver_timeout"),
    Rule("SSLStaplingReturnResponderErrors", Disposition.NOT_APPLICABLE, note="nginx never staples errors"),
    Rule("SSLCompression", Disposition.EXACT, lambda ctx, d: Disposition.EXACT if (d.args and d.args[0].lower() ==
                                                                                    "off") else Disposition.UNSUPPORTED),
    Rule("SSLRandomSeed", Disposition.NOT_APPLICABLE, note="OpenSSL seeds itself"),
    Rule("SSLPassPhraseDialog", Disposition.NOT_APPLICABLE, note="builtin dialog: nginx asks no pass phrase "
         "(use ssl_password_file for encrypted keys)"),
    Rule("SSLCryptoDevice", Disposition.NOT_APPLICABLE, note="nginx uses OpenSSL's default engine"),
    Rule("SSLOptions", Disposition.NOT_APPLICABLE, ssl_options, note="exports TLS data to CGI/SSI scripts or "
         "changes SSLRequire/FakeBasicAuth details; StdEnvVars becomes fastcgi_param SSL_* where a TLS server has "
         "FastCGI locations"),
    Rule("SSLProxyVerify", Disposition.EXACT, ssl_proxy_verify),
    Rule("SSLProxyCheckPeerName", Disposition.EXACT, ssl_proxy_check),
    Rule("SSLProxyCheckPeerCN", Disposition.EXACT, ssl_proxy_check),
    Rule("SSLProxyCheckPeerExpire", Disposition.EXACT, ssl_proxy_check),
    Rule("SSLProxyCACertificateFile", Disposition.EXACT, value_directive("proxy_ssl_trusted_certificate")),
    Rule("SSLProxyMachineCertificateFile", Disposition.EXACT, certificate_file("proxy_ssl_certificate")),
    Rule("SSLProxyProtocol", Disposition.EXACT, ssl_proxy_protocol),
    Rule("SSLProxyCipherSuite", Disposition.EXACT, value_directive("proxy_ssl_ciphers")),
    Rule("SSLInsecureRenegotiation", Disposition.NOT_APPLICABLE, note="nginx never allows insecure renegotiation"),
    Rule("SSLStrictSNIVHostCheck", Disposition.EXACT, ssl_strict_sni),
))


_wrap_rules()
