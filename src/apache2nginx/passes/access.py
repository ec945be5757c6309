"""Sections and access control: <Directory>, <Files>, <FilesMatch>; mod_authz_core (Require,
<RequireAll>/<RequireAny>/<RequireNone>, AuthMerging), mod_authz_host (Require ip/host/local),
mod_access_compat (Order, Allow, Deny, Satisfy), mod_auth_basic with mod_authn_file (AuthType Basic,
AuthName, AuthUserFile, AuthBasicProvider), mod_authz_groupfile, and Options/AllowOverride.

What each section says is recorded on its Scope (`settings["access"]`, an AccessConfig); the layout
step merges the sections that cover a region in httpd's order (directories shortest first, then files,
then locations; within a group config order, main server before virtual host) and `effective_access`
turns the result into nginx `allow`/`deny`/`satisfy`/`auth_basic`.

The one rule here: access is never widened. A Require tree, an Allow/Deny form or an authentication
provider that nginx cannot check exactly becomes `deny all` in that region, with an error that says
what was refused — nginx then refuses more than httpd, never less.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import re
from dataclasses import dataclass, field

from ..htaccess import NOT_ALLOWED, missing_from_tree
from ..model import Scope, Stmt, redirects_to, written_literally
from ..syntax.span import Span
from ..syntax.tree import Directive, Section
from .access_proxy import proxy_match_section
from .access_cond import DENIED, GRANTED, NEUTRAL, NGINX_METHODS, CondRefused, Conditions, check_expression, \
    compat_condition, httpd_methods
from .auth_files import NGINX_ONLY_SCHEMES, group_members, nginx_passwords, nginx_reads_otherwise
from .base import Context, Disposition, Rule, clean_path, loosest, table
from . import fallback
from .fallback import fallback_resource
from .header_expr import Untranslatable
from .pcre import empty_match
from .rewrite_model import alternates_at_top
from .setenvif import set_env_if_expr
from ..syntax.parser import read_text


# ----------------------------------------------------------------- what a section says

@dataclass
class Authz:
    """A Require tree: containers ("any", "all", "none") or a leaf (one Require line)."""

    op: str
    kind: str = ""
    args: list[str] = field(default_factory=list)
    negated: bool = False
    children: list["Authz"] = field(default_factory=list)
    span: Span | None = None
    elsewhere: bool = False     # stands for a section whose lines are all for other methods (_project)


@dataclass
class AccessConfig:
    authz: Authz | None = None                 # the section's own Require lines (implicit RequireAny)
    authz_span: Span | None = None
    merging: str | None = None                 # AuthMerging (None: not said)
    walk: str | None = None                    # the walk of httpd's that merges the section (see merge)
    order: str | None = None                   # mod_access_compat
    allows: list[tuple[str, Span]] | None = None
    denies: list[tuple[str, Span]] | None = None
    compat_span: Span | None = None
    satisfy: str | None = None
    satisfy_span: Span | None = None
    auth: dict[str, tuple[str, Span]] = field(default_factory=dict)   # type, name, userfile, ...
    options: list[tuple[str, Span]] | None = None                     # Options, as written
    listing: list[tuple[str, Span]] | None = None   # Options of a <Location>: only Indexes counts
    directory_slash: tuple[bool, Span] | None = None                  # DirectorySlash (mod_dir)
    stack: list[Authz] = field(default_factory=list)                  # open <Require*> containers
    refuse: tuple[str | None, Span] | None = None   # a TLS requirement nginx cannot check here (None: lifted)
    ssl_only: Span | None = None                   # SSLRequireSSL
    ssl_requires: list = field(default_factory=list)   # SSLRequire expressions: (text, span)
    conditionals: list = field(default_factory=list)   # <If>/<ElseIf>/<Else> members with access rules
    limits: list = field(default_factory=list)     # (limit|limitexcept, methods, AccessConfig, span)

    @property
    def has_compat(self) -> bool:
        return self.order is not None or self.allows is not None or self.denies is not None


def _config(ctx: Context) -> AccessConfig | None:
    scope = ctx.scope
    if scope is None:
        htaccess = ctx.options.get("htaccess_dir")
        if htaccess is None:
            return None
        scope = ctx.server.settings.get("htaccess_scope")
        if scope is None:
            # A .htaccess file's own directives govern the directory it stands in.
            scope = Scope(htaccess if htaccess.endswith("/") or htaccess == "/" else htaccess, span=None)
            ctx.server.scopes.append(scope)
            ctx.server.settings["htaccess_scope"] = scope
    return scope.settings.setdefault("access", AccessConfig(walk=walk_of(scope)))


def walk_of(scope: Scope) -> str:
    """The walk of httpd's request.c that merges SCOPE's section: `directory` (<Directory>, <DirectoryMatch>,
    .htaccess), `files`, `location`, `proxy` (mod_proxy's walk, in the directory walk's place) or `if`. A .htaccess
    read on its own (scope of kind location, no span) is the directory walk's."""
    if scope.kind == "location" and scope.span is None:
        return "directory"
    return scope.kind


def _not_here(ctx: Context, d: Directive) -> Disposition:
    label = f"<{d.name}>" if d.is_section else d.name
    ctx.diags.add("A2N001", f"{label} is not allowed outside <Directory>, <Location> or <Files>: httpd refuses "
                  "the configuration", d.span, directive=("<" if d.is_section else "") + d.name)
    if d.is_section:
        ctx.walk(d.children, untranslated=d)
    return Disposition.UNSUPPORTED


def in_section(handler):
    """A directive httpd allows only inside <Directory>, <Location> or <Files> (or a .htaccess): the handler
    gets that section's AccessConfig."""
    def wrapped(ctx: Context, d: Directive) -> Disposition:
        config = _config(ctx)
        if config is None:
            return _not_here(ctx, d)
        return handler(ctx, d, config)
    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


# ----------------------------------------------------------------- Require and its containers

@in_section
def require(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    args = list(d.args)
    negated = bool(args) and args[0].lower() == "not"
    if negated:
        args = args[1:]
    if not args:
        ctx.diags.add("A2N001", "Require needs a provider (all, ip, valid-user, ...)", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    leaf = Authz("leaf", args[0].lower(), args[1:], negated, span=d.span)
    if leaf.kind == "expr":
        # httpd hands the rest of the line to ap_expr as written, quotes and all (one pair around the
        # whole expression is dropped)
        try:
            leaf.args = [expression_text(d, len(d.args) - len(args) + 1, strip_quotes=True)]
        except Untranslatable:
            leaf.args = []      # refused below (and wherever the layout meets it)
    _add(config, leaf)
    try:
        _leaf_form(leaf)
    except Refused as exc:
        if exc.maps:
            return Disposition.EXACT    # the layout refuses the region itself where no map can decide
        _refused_now(ctx, exc.message, d.span)
        return Disposition.UNSUPPORTED
    return Disposition.EXACT


def _refused_now(ctx: Context, what: str, span: Span) -> None:
    """Say at the directive that the regions it governs are refused; the layout then stays quiet about it."""
    ctx.diags.add("A2N742", f"{what}: nginx cannot check this exactly, so every region it governs is refused "
                  "to everyone (deny all)", span,
                  hint="rewrite the rule with Require ip / Require valid-user / Require all, or put the check in "
                       "front of nginx (auth_request)")
    ctx.model.access_reported.add(span)


def _add(config: AccessConfig, node: Authz) -> None:
    """Into the open container, or the section's own implicit <RequireAny>."""
    if config.stack:
        config.stack[-1].children.append(node)
        return
    if config.authz is None:
        config.authz = Authz("any", span=node.span)
    config.authz.children.append(node)
    config.authz_span = config.authz_span or node.span


@in_section
def require_container(ctx: Context, section: Section, config: AccessConfig) -> Disposition:
    node = Authz({"requireall": "all", "requireany": "any", "requirenone": "none"}[section.key], span=section.span)
    _add(config, node)
    config.stack.append(node)
    try:
        ctx.walk(section.children)
    finally:
        config.stack.pop()
    return Disposition.EXACT


@in_section
def auth_merging(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    config.merging = (d.args[0].lower() if d.args else "off")
    return Disposition.EXACT


# ----------------------------------------------------------------- mod_access_compat

@in_section
def order(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    value = "".join(d.args).lower().replace(" ", "")
    if value not in ("deny,allow", "allow,deny", "mutual-failure"):
        ctx.diags.add("A2N001", f"Order {' '.join(d.args)}: httpd accepts Deny,Allow, Allow,Deny or "
                      "Mutual-failure", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    config.order = value
    config.compat_span = config.compat_span or d.span
    _after_method_section(config, order=value)
    return Disposition.EXACT


def _after_method_section(config: AccessConfig, **values) -> None:
    """mod_access_compat keeps an Order and a Satisfy per method, and each line sets them for the methods it
    covers (all of them outside <Limit>/<LimitExcept>), so the last line read wins (observed on httpd 2.4:
    `<LimitExcept GET> Order deny,allow ... </LimitExcept>` followed by `Order allow,deny` orders the other
    methods allow,deny). A line for every method after the section replaces what the section set."""
    for _, _, inner, _ in config.limits:
        for name, value in values.items():
            setattr(inner, name, value)


@in_section
def allow_deny(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    args = list(d.args)
    if not args or args[0].lower() != "from" or len(args) < 2:
        ctx.diags.add("A2N001", f"{d.name} needs `from` and at least one host", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    entries = [(a, d.span) for a in args[1:]]
    if d.key == "allow":
        config.allows = (config.allows or []) + entries
    else:
        config.denies = (config.denies or []) + entries
    config.compat_span = config.compat_span or d.span
    return Disposition.EXACT


@in_section
def satisfy(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    value = d.args[0].lower() if d.args else ""
    if value not in ("all", "any"):
        ctx.diags.add("A2N001", "Satisfy takes All or Any", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    config.satisfy = value
    config.satisfy_span = config.satisfy_span or d.span
    _after_method_section(config, satisfy=value, satisfy_span=d.span)
    return Disposition.EXACT


# ----------------------------------------------------------------- authentication

DEBIAN_SERVER_ROOT = "/etc/apache2"
_AUTH_KEYS = {"authtype": "type", "authname": "name", "authuserfile": "userfile", "authgroupfile": "groupfile",
              "authbasicprovider": "provider"}


@in_section
def auth_setting(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    if not d.args:
        ctx.diags.add("A2N001", f"{d.name} needs a value", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    value = " ".join(d.args)
    if d.key in ("authuserfile", "authgroupfile") and not value.startswith("/"):
        # httpd reads a relative name under ServerRoot; nginx would read it under its own prefix
        value = (ctx.options.get("server_root") or DEBIAN_SERVER_ROOT).rstrip("/") + "/" + value
    config.auth.pop(_READ_FROM.get(_AUTH_KEYS[d.key], ""), None)
    if d.key == "authuserfile":
        _check_password_file(ctx, d, value, config)
    if d.key == "authgroupfile":
        locate = ctx.options.get("locate")
        found = locate(d.args[0]) if locate and d.args else None
        if found is not None:
            try:
                config.auth["groupfile_local"] = (read_text(found), d.span)
                ctx.diags.add("A2N755", f"AuthGroupFile {value}: the groups are read now and written into the "
                              "translation; later changes to the file need another conversion", d.span,
                              directive=d.name)
            except OSError:
                pass
    if d.key == "authuserfile":
        ctx.model.literal(value)      # `$` is itself to httpd: the statements write it literally (_basic_auth)
    if d.key == "authname":
        value = _realm(ctx, config, value, d.span)
    config.auth[_AUTH_KEYS[d.key]] = (value, d.span)
    if (d.key == "authtype" and value.lower() not in ("basic", "none")) or \
            (d.key == "authbasicprovider" and value.lower() != "file"):
        _refused_now(ctx, f"{d.name} {value} (only Basic with password files is translated)", d.span)
        return Disposition.UNSUPPORTED
    return Disposition.EXACT


# what the translation reads from a setting (its file) now, dropped where a later section sets it again
_READ_FROM = {"groupfile": "groupfile_local", "userfile": "userfile_refused", "name": "name_refused"}
_EXPR_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _realm(ctx: Context, config: AccessConfig, value: str, span: Span) -> str:
    """AuthName as nginx's auth_basic is to send it. httpd 2.4 reads AuthName as an ap_expr string
    (mod_authn_core set_authname): backslash escapes decoded, %{VAR} and $0-$9 filled in per request (those
    are refused here: `%{SERVER_NAME}` was sent as the request's host name); mod_auth_basic sends the result
    with its quotes escaped (ap_escape_quotes: `Basic realm="Staff \\"only\\""`) and a `$` as written. nginx
    puts auth_basic's value in the challenge as it is, reading `$name` as a variable."""
    if "%{" in value or re.search(r"\$[0-9]", value):
        config.auth["name_refused"] = (f"AuthName {value} (an expression httpd fills in per request)", span)
        return value
    text = re.sub(r"\\([0-7]{1,3}|.)", _expr_escape, value, flags=re.S)
    return ctx.model.literal(re.sub(r'\\.|"', lambda m: m.group(0) if len(m.group(0)) == 2 else '\\"', text,
                                    flags=re.S))


def _expr_escape(m: re.Match) -> str:
    """One backslash escape of an ap_expr string (ap_expr_scan.l): octal, \\n \\r \\t \\b \\f, or the
    character itself."""
    code = m.group(1)
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    return _EXPR_ESCAPES.get(code, code)


def merge_auth(into: dict, settings: dict) -> dict:
    """INTO with a later section's Auth* SETTINGS (httpd inherits each one by one): what was read from an
    earlier section's file goes where SETTINGS names another (httpd reads that one, even one the translation
    cannot read)."""
    for key, derived in _READ_FROM.items():
        if key in settings:
            into.pop(derived, None)
    into.update(settings)
    return into


def password_scheme(hashed: str) -> str:
    """The scheme of one htpasswd hash, as nginx's auth_basic sees it."""
    if hashed.startswith("$apr1$"):
        return "apr1"
    if hashed.startswith("{SHA}"):
        return "sha1"
    if hashed.startswith(NGINX_ONLY_SCHEMES):
        return "nginx-only"
    if hashed.startswith(("$2y$", "$2a$", "$2b$")):
        return "bcrypt"
    if hashed.startswith(("$1$", "$5$", "$6$")) or (len(hashed) == 13 and "$" not in hashed):
        return "crypt"
    return "unknown"


def _check_password_file(ctx: Context, d: Directive, path: str, config: AccessConfig) -> None:
    """Report password hashes nginx may not check: bcrypt needs the system crypt(3) to know it (libxcrypt,
    Debian 12 and later); anything unrecognised fails every login. Where nginx reads the file otherwise than
    httpd (nginx_reads_otherwise: a continuation line, {PLAIN} or {SSHA} hashes httpd refuses), the logins under
    this file are refused."""
    locate = ctx.options.get("locate")
    found = locate(d.args[0]) if locate and d.args else None
    if found is None:
        return
    try:
        text = read_text(found)
    except OSError:
        return
    otherwise = nginx_reads_otherwise(text)
    if otherwise:
        config.auth["userfile_refused"] = (f"AuthUserFile {path} with {otherwise}", d.span)
    schemes = {password_scheme(hashed.strip()) for hashed in nginx_passwords(text).values()}
    if "bcrypt" in schemes:
        ctx.diags.add("A2N754", f"{path}: bcrypt password hashes: nginx checks them with the system's crypt(3), "
                      "which knows bcrypt only with libxcrypt (Debian 12 and later); elsewhere every such login "
                      "fails", d.span, directive=d.name)
    if "unknown" in schemes:
        ctx.diags.add("A2N754", f"{path}: password hashes nginx does not recognise (only $apr1$, {{SHA}}, "
                      "bcrypt and crypt(3) forms): those users cannot log in", d.span, directive=d.name)


@in_section
def auth_unsupported(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    """Digest, LDAP, DBM, DBD and other providers: the regions that require a user are refused."""
    config.auth.setdefault("unsupported", (d.name, d.span))
    _refused_now(ctx, f"{d.name} (an authentication provider nginx does not have)", d.span)
    return Disposition.UNSUPPORTED


def refuse_here(ctx: Context, what: str | None, span: Span) -> None:
    """A requirement of this section nginx cannot check per location (None: a later section lifts it)."""
    config = _config(ctx)
    if config is not None and not (what and config.refuse and config.refuse[0]):  # the first reason is kept
        config.refuse = (what, span)


@in_section
def ssl_require_ssl(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    config.ssl_only = d.span
    return Disposition.EXACT


def expression_text(d: Directive, start: int, strip_quotes: bool) -> str:
    """The expression httpd reads from a directive that takes its line raw (Require expr, SSLRequire): the
    words as written. A quoted word that itself holds quotes or backslashes is not rebuilt."""
    args, quoted = d.args[start:], d.quoted[start:]
    if strip_quotes and len(args) == 1 and quoted[0]:
        if '"' in args[0] or "\\" in args[0]:
            raise Untranslatable("quotes or backslashes inside the quoted expression")
        return args[0]
    words = []
    for arg, q in zip(args, quoted):
        if q and ('"' in arg or "'" in arg or "\\" in arg):
            raise Untranslatable("quotes or backslashes inside a quoted word")
        words.append(f'"{arg}"' if q else arg)
    return " ".join(words)


def section_expression(d: Directive, start: int, strip_quotes: bool) -> str:
    """The expression of an <If>/<ElseIf>: httpd reads the section's argument as one word (ap_getword_conf,
    which folds `\\` and an escaped quote as the parser does), so the expression is that word, backslashes
    and all; anything else is read as expression_text does."""
    if d.is_section and start == 0 and len(d.args) == 1:
        return d.args[0]
    return expression_text(d, start, strip_quotes)


@in_section
def ssl_require(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    """SSLRequire EXPR (mod_ssl's access check, src: ssl_hook_Access): on a TLS connection the request is
    refused (403) unless the expression holds, every SSLRequire of every merged section counting; on a
    plain connection it is not consulted at all. The expression becomes maps (`eq`/`ne` compare strings
    in this dialect)."""
    try:
        text = expression_text(d, 0, strip_quotes=False)
        check_expression(text, ssl_compat=True)
    except Untranslatable as exc:
        text = " ".join(d.args)
        config.refuse = (f"SSLRequire {text} ({exc})", d.span)
        _refused_now(ctx, f"SSLRequire {text} ({exc})", d.span)
        return Disposition.UNSUPPORTED
    config.ssl_requires.append((text, d.span))
    return Disposition.EXACT


# ----------------------------------------------------------------- Options and overrides

def _server_defaults(ctx: Context, span: Span) -> AccessConfig:
    """Server context: the per-directory defaults every directory of this server starts from."""
    scope = ctx.server.settings.get("server_options")
    if scope is None:
        scope = Scope("/", span=span, kind="directory", fs_path="/", settings={"server_level": True})
        ctx.server.settings["server_options"] = scope
        ctx.server.settings.setdefault("directories", []).insert(0, scope)
    return scope.settings.setdefault("access", AccessConfig())


def options(ctx: Context, d: Directive) -> Disposition:
    _record_symlink_options(ctx, d)
    config = _config(ctx)
    if config is None:
        config = _server_defaults(ctx, d.span)
    includes_only = all(a.lower().lstrip("+-") in ("includes", "includesnoexec") for a in d.args)
    if ctx.scope is not None and ctx.scope.kind == "files" and includes_only:
        return Disposition.EXACT     # the SSI gate of this <Files> section: the include pass reads it there
    if ctx.scope is not None and ctx.scope.kind != "directory":
        return _section_options(ctx, d, config)
    config.options = (config.options or []) + [(a, d.span) for a in d.args]
    granted = {a.lower().lstrip("+") for a in d.args if not a.startswith("-")}
    disposition = Disposition.EXACT
    _report_listing_page(ctx, d, granted)
    if granted & {"multiviews"}:
        ctx.diags.add("A2N751", "Options MultiViews: nginx does not negotiate content (/doc finding doc.html or "
                      "doc.en.html); those URLs answer 404", d.span, directive=d.name,
                      hint="add try_files $uri $uri.html $uri/ =404 where extensionless URLs must work")
        disposition = Disposition.APPROXIMATE
    if granted & {"includes", "includesnoexec"}:
        from .include import options_includes    # mod_include's gate; the filter carries the translation
        options_includes(ctx, d)
    if granted & {"execcgi", "all"}:
        from .fastcgi import exec_cgi_option
        disposition = loosest(disposition, exec_cgi_option(ctx, d))
    return disposition



def _report_listing_page(ctx: Context, d: Directive, granted: set[str]) -> None:
    """Options granting Indexes: nginx's autoindex draws its own listing page (observed: httpd without
    IndexOptions FancyIndexing lists the names only, in its own HTML; nginx's page shows each file's time and
    size), so a listing's body differs. The IndexOptions line, where there is one, says how (passes/mime)."""
    if granted & {"indexes", "all"}:
        ctx.diags.add("A2N235", f"Options {' '.join(d.args)}: nginx's autoindex listing page is its own (it "
                      "shows each file's time and size; httpd's lists the names only unless IndexOptions "
                      "FancyIndexing); the files listed are the same", d.span, directive=d.name)


def _record_symlink_options(ctx: Context, d: Directive) -> None:
    """Keep the Options of a <Files> section for mod_rewrite's symlink check (rewrite._symlinks_taken_files):
    httpd merges them after the directory walk, and its per-directory rewrite fixup reads the merged Options
    (observed: `<Files "*.txt"> Options None` answered 403 for /data/a.txt under a <Directory> with
    RewriteEngine On)."""
    if ctx.scope is not None and ctx.scope.kind == "files":
        ctx.scope.settings.setdefault("section_options", []).extend((a, d.span) for a in d.args)


def record_unplaced_options(ctx: Context, d: Directive, section) -> None:
    """Keep the Options of a section the translation leaves out (<If>, <DirectoryMatch>, <Directory ~>) for
    mod_rewrite's symlink check (rewrite._symlinks_taken_unplaced): httpd merges them after the plain
    <Directory> sections, and its per-directory rewrite fixup reads the merged Options (observed: `<If
    "%{REQUEST_URI} =~ /\\.txt$/"> Options None` answered 403 for /data/a.txt under a <Directory> with
    RewriteEngine On). Recorded with the section's directory regex (None: it may apply anywhere) and the
    plain <Directory> it stands in, if any."""
    args = [a.strip('"') for a in section.args] if getattr(section, "is_section", False) else []
    regex = None
    if section.key == "directorymatch" or section.key == "directory" and args[:1] == ["~"]:
        regex = args[-1] if args else None
    where, parent = None, d.parent
    while where is None and parent is not None and getattr(parent, "is_section", False):
        path = parent.args[-1].strip('"') if parent.args else ""
        if parent.key == "directory" and parent.args[:1] != ["~"] and not any(c in path for c in "*?["):
            where = path.rstrip("/")
        parent = parent.parent
    label = f"<{section.name} {' '.join(section.args)}>" if args else f"<{section.name}>"
    ctx.server.settings.setdefault("unplaced_options", []).append((label, regex, where, [(a, d.span) for a in d.args]))


def _section_options(ctx: Context, d: Directive, config: AccessConfig) -> Disposition:
    """Options in a <Location> or <Files> section. httpd merges them after the <Directory> sections' (the same
    merge) and mod_autoindex reads the result in its handler, so their Indexes turns listings on or off
    (observed: `<Location /app> Options -Indexes` under a document root with Options Indexes refuses GET
    /app/, 403); the symlink checks were made in the directory walk before, so the symlink options change
    nothing for the files served (mod_rewrite's own check reads a <Location>'s: `location_options`). A <Files>
    section applies to a directory request only where its pattern matches the empty name (files_directories):
    its Indexes would turn listings off everywhere, so they are off in the whole server."""
    words = [a.lower().lstrip("+-") for a in d.args]
    if ctx.scope.kind == "location":
        _report_listing_page(ctx, d, {a.lower().lstrip("+") for a in d.args if not a.startswith("-")})
        # httpd merges them after the directory's all the same: mod_rewrite's symlink check reads them
        ctx.scope.settings.setdefault("location_options", []).extend((a, d.span) for a in d.args)
        config.listing = (config.listing or []) + [(a, d.span) for a in d.args]
    elif files_directories(d.parent) and (may_stop_listings(d.args) or {"indexes", "all"} & set(words)):
        if may_stop_listings(d.args):
            untranslated_options(ctx, d, d.parent)
        else:
            ctx.diags.add("A2N743", f"Options {' '.join(d.args)} in <{d.parent.name} {' '.join(d.parent.args)}>, "
                          "which applies to every directory request: the listings it allows are not translated "
                          "(nginx refuses them, 403)", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    if all(w == "indexes" for w in words):
        return Disposition.EXACT
    others = " ".join(a for a in d.args if a.lower().lstrip("+-") != "indexes")
    ctx.diags.add("A2N743", f"Options {' '.join(d.args)} outside <Directory>: "
                  + ("only its Indexes is translated (listings on or off); " if ctx.scope.kind == "location" else "")
                  + f"{others} is not: httpd checks symlinks in its directory walk, before this section merges (its "
                  "symlink options count only for mod_rewrite's own check, which the rewrite pass follows)",
                  d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def files_directories(section) -> bool:
    """Whether a <Files>/<FilesMatch> SECTION applies to directory requests: httpd's file walk tests the
    name after the last slash of the file name, empty for a directory requested with its slash (observed:
    `<Files "f"> Options +Indexes` does not list /f/, `<FilesMatch "^$"> Options -Indexes` refuses every
    listing), so only a pattern that matches the empty name does (`*`, `.*`)."""
    if section is None or not getattr(section, "is_section", False) or section.key not in ("files", "filesmatch"):
        return True
    args = section.args
    pattern = args[-1] if args else ""
    if section.key == "files" and not (len(args) >= 2 and args[0] == "~"):
        return set(pattern) <= {"*"}
    return empty_match(pattern) is not False     # PCRE's answer (Python's `re` reads `\h` otherwise)


def may_stop_listings(args: list[str]) -> bool:
    """Whether an Options line may turn Indexes off where it applies: `-Indexes` (or `-All`), or a line whose
    first keyword has no +/- and that does not name Indexes (or All) after a reset."""
    words = [a.lower() for a in args]
    if any(w in ("-indexes", "-all") for w in words):
        return True
    return bool(words) and words[0][:1] not in ("+", "-") and \
        not any(w.lstrip("+") in ("indexes", "all") for w in words)


def untranslated_options(ctx: Context, d: Directive, section) -> None:
    """Options inside a section the translation leaves out (<If>, <DirectoryMatch>, <Directory ~>), or a <Files>
    section that applies to every directory request (files_directories): httpd
    merges it over the region's own Options where it applies, and mod_autoindex reads the result, so it may
    refuse a listing (403) where nginx's autoindex would draw it. Where it may turn Indexes off, listings
    are turned off in the whole server (narrowing, reported), never left on where httpd may refuse them."""
    if not may_stop_listings(d.args) or not files_directories(section):
        return
    what = f"<{section.name} {' '.join(section.args)}>"
    ctx.server.settings.setdefault("listings_off", (what, d.span))
    ctx.diags.add("A2N743", f"Options {' '.join(d.args)} in {what}: httpd refuses directory listings (403) where "
                  "it applies, which the translation cannot place; listings are off in the whole server",
                  d.span, directive=d.name,
                  hint="turn listings off with Options -Indexes in the <Directory> or <Location> they concern")


def directory_slash(ctx: Context, d: Directive) -> Disposition:
    """DirectorySlash On|Off (mod_dir). Off: a directory requested without its trailing slash is neither
    redirected nor given its DirectoryIndex; mod_autoindex lists it (Options Indexes) or refuses it (403;
    observed: POST 404). The layout places the refusal where the merged setting is Off."""
    value = d.args[0].lower() if d.args else ""
    if value not in ("on", "off") or len(d.args) != 1:
        ctx.diags.add("A2N001", "DirectorySlash takes On or Off", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    config = _config(ctx) or _server_defaults(ctx, d.span)
    config.directory_slash = (value == "on", d.span)
    return Disposition.EXACT


def accept_path_info(ctx: Context, d: Directive) -> Disposition:
    value = d.args[0].lower() if d.args else ""
    if value == "on":
        ctx.diags.add("A2N753", "AcceptPathInfo On: httpd serves /file.html/extra as file.html; nginx answers 404",
                      d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT   # Off and Default: static files refuse path info in both servers


def allow_override(ctx: Context, d: Directive) -> Disposition:
    values = {a.lower() for a in d.args}
    if values <= {"none"}:
        return Disposition.EXACT      # httpd reads no .htaccess there, nor does nginx
    where = ctx.scope.fs_path if ctx.scope is not None and ctx.scope.fs_path else "this directory"
    ctx.diags.add("A2N744", f"{d.name} {' '.join(d.args)}: httpd reads .htaccess files under {where}; nginx never "
                  "does, so their rules must be converted too", d.span, directive=d.name,
                  hint=f"convert them with `apache2nginx convert --docroot` or `--htaccess-dir` for each file under "
                       f"{where}")
    return Disposition.APPROXIMATE


# ----------------------------------------------------------------- sections

def _walk_into(ctx: Context, section: Section, scope: Scope, kind: str) -> None:
    """Record a filesystem section on its server and translate its contents into it."""
    ctx.server.settings.setdefault(kind, []).append(scope)
    previous, ctx.scope = ctx.scope, scope
    try:
        ctx.walk(section.children)
    finally:
        ctx.scope = previous


def directory(ctx: Context, section: Section) -> Disposition:
    """<Directory path>: recorded with its filesystem path; the layout finds every URL that reaches it."""
    args = section.args
    regex = section.key == "directorymatch" or (len(args) >= 2 and args[0] == "~")
    if regex and ctx.scope is None and args and _directory_match_refusal(ctx, section, args[-1]):
        return Disposition.EXACT
    headers = regex and ctx.scope is None and args and any(c.key == "header" for c in section.children)
    if headers and all(c.key == "header" for c in section.children):
        # Header lines alone: each is sent where the name httpd's walk stops at matches (headers._in_regex_directory)
        ctx.walk(section.children, untranslated=section)
        return Disposition.EXACT
    if ctx.scope is not None or regex or not args or any(c in args[0] for c in "*?["):
        what = "inside another section" if ctx.scope is not None else \
            "a regular expression or wildcard" if args else "without a path"
        refusing = _has_access(section)
        wildcard = ctx.scope is None and not regex and args and refusing
        if wildcard:
            # Whether any URL reaches it is known once every DocumentRoot and Alias is read (the layout
            # decides: a wildcard no served directory can match, like RHEL's /home/*/public_html with
            # UserDir disabled, applies to nothing).
            ctx.server.settings.setdefault("wildcard_refusals", []).append(
                (re.sub("/+", "/", args[0]), f"<{section.name} {' '.join(args)}>", section.span))
            # (its rules, where they are plain enough for the layout to tell whom they refuse)
            ctx.server.settings.setdefault("wildcard_access", {})[section.span] = _plain_config(section)
            ctx.walk(section.children, untranslated=section)
            return Disposition.UNSUPPORTED
        # a section of rules that only grant: leaving it out can only refuse more than httpd (where it
        # applies), so the rest of the server is served as translated
        granting = refusing and ctx.scope is None and _only_grants(section)
        ctx.diags.add("A2N740", f"<{section.name} {' '.join(args)}>: {what} is not translated; nothing inside it "
                      + ("but its Header lines " if headers else "") + "was emitted"
                      + (", and its access rules only grant: nginx may refuse there what httpd "
                                       "lets through (its refusals there send the onsuccess headers too)"
                                       if granting else
                                       ", and since it holds access rules the whole server is refused (deny all)"
                                       if refusing else ""),
                      section.span, directive="<" + section.name,
                      hint="write the directory out as a plain path, or add the access rules by hand")
        if refusing and not granting:
            if ctx.scope is None:
                ctx.server.settings["refuse_all"] = (f"<{section.name} {' '.join(args)}> (access rules)",
                                                     section.span)
                if regex and args:
                    # where it may match, its rules may lift the region's own (the layout says where)
                    ctx.server.settings.setdefault("refusing_regexes", []).append(args[-1].strip('"'))
                if regex and args and _compat_shuts(section):
                    # ... unless they refuse every client there (where the region has no compat rules of its own)
                    ctx.server.settings.setdefault("shut_regexes", []).append((args[-1].strip('"'), section.span))
            else:
                _config(ctx).refuse = (f"<{section.name} {' '.join(args)}> (access rules)", section.span)
        if refusing:
            ctx.model.access_reported.add(section.span)
        if granting:
            # merged after every <Directory>, it may lift their refusals (the layout says where)
            ctx.server.settings.setdefault("granting_sections", []).append(_granting_config(section))
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    path = re.sub("/+", "/", clean_path(args[0])).rstrip("/") or "/"
    scope = Scope(path, span=section.span, kind="directory", fs_path=path, settings={"section": section})
    tree = ctx.options.get("docroot_tree")
    if tree is not None:
        # the document root read (--docroot) has no such directory: httpd never merges the section (its
        # directory walk stops at the missing segment), see headers.header
        scope.settings["missing_directory"] = missing_from_tree(tree, path)
    _walk_into(ctx, section, scope, "directories")
    refusals = ctx.options.get("refused_directories", {})
    refused = refusals.get(path)
    if refused is None and ctx.in_vhost:
        refused = refusals.get((ctx.server.span, path))    # refused in this virtual host alone
    if refused is not None:
        # a .htaccess httpd refuses to apply (AllowOverride): every request there is a 500 in httpd
        scope.settings.setdefault("access", AccessConfig(walk=walk_of(scope))).refuse = refused
        # said when it was read (A2N748, A2N778): that refusal alone, not another one of the same lines in a
        # virtual host that reads the file (its access rules may be refused for another reason, A2N742)
        ctx.model.access_reported.add(refused)
    return Disposition.EXACT


def _denying_container(node) -> bool:
    """A <RequireAny> or <RequireAll> of nothing but `Require all denied` lines (or such sections): it denies
    every request, as the line does (mod_authz_core: a denied member fails RequireAll, and RequireAny
    grants only through a member that grants)."""
    return node.is_section and node.key in ("requireany", "requireall") and bool(node.children) and all(
        _denying_container(c) if c.is_section else
        c.key == "require" and [a.lower() for a in c.args] == ["all", "denied"] for c in node.children)


def _refuses_everyone(section: Section) -> bool:
    """The section's access rules are a plain refusal: `Require all denied` (or sections of nothing else),
    or `Deny from all` without Allow."""
    access = [c for c in section.children if not c.is_section and c.key in ACCESS_DIRECTIVES]
    requires = [[a.lower() for a in c.args] for c in access if c.key == "require"]
    containers = [c for c in section.children if _denying_container(c)]
    compat = [c for c in access if c.key in ("order", "allow", "deny")]
    if any(c.key not in ("require", "order", "allow", "deny") for c in access):
        return False
    if containers:
        return all(r == ["all", "denied"] for r in requires) and not compat
    if requires:
        return requires == [["all", "denied"]] and not compat
    denies = [[a.lower() for a in c.args] for c in compat if c.key == "deny"]
    return ["from", "all"] in denies and not any(c.key == "allow" for c in compat)


def _compat_shuts(section: Section) -> bool:
    """The section's mod_access_compat lines refuse every client, and no `Satisfy any` lets its Require lines
    admit one instead: `Deny from all` under `Order allow,deny` or `Mutual-failure` (a deny overrides any
    allow), or under `Order deny,allow` (the default) without an Allow line. With Satisfy All (the default)
    httpd needs both halves to let a request in, so its own 403 answers there whatever the Require lines
    (or a <RequireAny> holding `Require all granted`) say: observed under a <DirectoryMatch> holding both."""
    lines = [(c.key, [a.lower() for a in c.args]) for c in section.children if not c.is_section]
    if any(c.is_section and c.key not in ("requireany", "requireall", "requirenone") for c in section.children) \
            or any(key == "satisfy" and words != ["all"] for key, words in lines):
        return False
    orders = ["".join(words) for key, words in lines if key == "order"]
    order = orders[-1] if orders else "deny,allow"
    if order not in ("deny,allow", "allow,deny", "mutual-failure") or ("deny", ["from", "all"]) not in lines:
        return False
    return order != "deny,allow" or not any(key == "allow" for key, _ in lines)


def _directory_match_refusal(ctx: Context, section: Section, pattern: str) -> bool:
    """<DirectoryMatch re> (or <Directory ~ re>) that refuses everyone. httpd matches the expression against
    the request's whole file name (observed: `/\\.git` refuses /.gitignore too) and merges it after every
    plain <Directory>, so the refusal becomes a test of nginx's $request_filename in every location serving
    files (the layout places it, or refuses the server where a <Files> or <Location> section with access
    rules could grant those files again). Anything else inside is reported as not translated."""
    if any(c.is_section and not _denying_container(c) for c in section.children) or not _refuses_everyone(section):
        return False
    walk_access_into(ctx, section, Scope(pattern, regex=True, span=section.span, kind="directory",
                                         settings={"section": section}),
                     ACCESS_DIRECTIVES | {"requireany", "requireall"})
    ctx.server.settings.setdefault("filename_refusals", []).append((pattern.strip('"'), section.span))
    return True


def files(ctx: Context, section: Section) -> Disposition:
    """<Files>/<FilesMatch>: a pattern on the file's name, nested into the locations it applies to.
    A FilesMatch that hands PHP to FastCGI belongs to the fastcgi pass."""
    from . import fastcgi
    if fastcgi.handles(section):
        return fastcgi.files_section(ctx, section)
    args = section.args
    regex = section.key == "filesmatch" or (len(args) >= 2 and args[0] == "~")
    pattern = args[-1] if args else ""
    url_regex = basename_regex(pattern, regex) if args else None
    inside = ctx.scope
    if url_regex is None or (inside is not None and inside.kind != "directory"):
        why = "its pattern cannot be turned into a URL regular expression" if url_regex is None else \
            "it stands inside a section other than <Directory>"
        refusing = _has_access(section)
        ctx.diags.add("A2N741", f"<{section.name} {' '.join(args)}>: {why}; nothing inside it was emitted"
                      + (", and since it holds access rules the whole region is refused (deny all)"
                         if refusing else ""),
                      section.span, directive="<" + section.name)
        if refusing:
            refusal = (f"<{section.name} {' '.join(args)}> (access rules)", section.span)
            if ctx.scope is None:
                ctx.server.settings["refuse_all"] = refusal
            else:
                _config(ctx).refuse = refusal
            ctx.model.access_reported.add(section.span)
        ctx.walk(section.children, untranslated=section)
        return Disposition.UNSUPPORTED
    if _has_access(section):
        ctx.diags.add("A2N747", f"<{section.name} {' '.join(args)}>: a URL does not tell a file from a directory, so "
                      "nginx also refuses a directory whose name matches (and the paths below it), where httpd "
                      "refuses only the file; path info after a refused file (/x.sql/y) stays refused as in httpd",
                      section.span, directive="<" + section.name,
                      hint="if a directory of a matching name must stay reachable (e.g. /.well-known/), add a "
                           "^~ location for it")
    scope = Scope(pattern, regex=True, span=section.span, kind="files", files_regex=url_regex, parent=inside)
    _walk_into(ctx, section, scope, "files")
    if _asks_login(section):
        ctx.server.settings.setdefault("login_file_sections", []).append(section)
    return Disposition.EXACT


def _asks_login(section: Section) -> bool:
    """Whether SECTION's access rules can ask for a login (401 with a challenge): a Require of a user, a group or
    any valid user, in the section or a container inside it (its AuthType may come from the directory)."""
    stack = list(section.children)
    while stack:
        node = stack.pop()
        if node.is_section:
            stack.extend(node.children)
        elif node.key == "require" and node.args and node.args[0].lower() in ("valid-user", "user", "group"):
            return True
    return False


def _missing_page_redirects(server) -> bool:
    """Whether the server may answer 404 with a redirect: an ErrorDocument 404 to a full URL, at server level or
    in one of its sections."""
    scopes = server.settings.get("directories", []) + server.settings.get("files", []) + server.scopes
    return any(s.name == "error_page" and "404" in s.args[:-1] and redirects_to(s.args[-1])
               for holder in [server.statements] + [scope.statements for scope in scopes] for s in holder)


def _login_under_missing_page(ctx: Context, server) -> None:
    """A file section that asks for a login, in a server that redirects its 404s (ErrorDocument 404 to a
    URL): httpd matches the section against the name its directory walk stops at, so under a missing
    directory (/missing/.htpasswd is seen as `missing`) it answers 404, which the ErrorDocument makes a 302
    without a challenge, where nginx, matching the URL's last name, asks for the login (401 with
    WWW-Authenticate). A file section of the main server applies in every virtual host (reported once)."""
    sections = server.settings.get("login_file_sections", []) + \
        (ctx.main.settings.get("login_file_sections", []) if server is not ctx.main else [])
    if not sections or not (_missing_page_redirects(server) or _missing_page_redirects(ctx.main)):
        return
    for section in sections:
        ctx.diags.add_once("A2N891", f"<{section.name} {' '.join(section.args)}>: under a directory that does "
                           "not exist httpd does not apply the section and redirects the 404 to its ErrorDocument "
                           "page, where nginx asks for the login (401 with WWW-Authenticate)", section.span,
                           directive="<" + section.name,
                           hint="only URLs under missing directories differ; nginx asks for a login there where "
                                "httpd redirects")


@in_section
def limit_section(ctx: Context, section: Section, config: AccessConfig) -> Disposition:
    """<Limit>/<LimitExcept>: access rules for some methods only (observed on httpd 2.4: the section's
    rules replace earlier sections' for every method, and a method no rule applies to is granted).
    Translated with nginx's limit_except; what it cannot express refuses the region. The names are httpd's
    method numbers (httpd_methods): `post` is no method nginx has, and HEAD covers GET."""
    methods, unknown = httpd_methods(section.args)
    inner = AccessConfig()
    scope = Scope(section.name, span=section.span, kind="limit", settings={"access": inner})
    previous, ctx.scope = ctx.scope, scope
    try:
        ctx.walk(section.children)
    finally:
        ctx.scope = previous
    _lift_from_limit(inner, config)
    if inner.authz is None and not inner.has_compat and inner.satisfy is None and inner.refuse is None:
        return Disposition.EXACT      # nothing that holds for some methods only
    if unknown or config.limits or inner.refuse:
        why = _unknown_methods(unknown) if unknown else \
            "a second method section" if config.limits else inner.refuse[0]
        config.refuse = (f"<{section.name} {' '.join(section.args)}> ({why})", section.span)
        _refused_now(ctx, f"<{section.name} {' '.join(section.args)}> ({why})", section.span)
        return Disposition.UNSUPPORTED
    config.limits.append((section.key, methods, inner, section.span))
    return Disposition.EXACT


def _lift_from_limit(inner: AccessConfig, config: AccessConfig) -> None:
    """What a <Limit>/<LimitExcept> holds that httpd keeps per section, not per method, goes to the section
    around it, for every method: the Auth* settings, AuthMerging (mod_authz_core keeps one merge mode per
    section and only tags the Require lines with the methods), SSLRequireSSL and SSLRequire (mod_ssl). Only
    Require lines and mod_access_compat's Order, Allow, Deny and Satisfy are per method (observed on httpd 2.4:
    `<Limit GET> AuthMerging And </Limit>` ANDs the section's own Require lines with the earlier sections'
    for every method)."""
    merge_auth(config.auth, inner.auth)
    if inner.merging is not None:
        config.merging = inner.merging
    config.ssl_only = config.ssl_only or inner.ssl_only
    config.ssl_requires.extend(inner.ssl_requires)


def _unknown_methods(names: list[str]) -> str:
    """Why method names nginx has no method for refuse: a name httpd would read as a known method in capitals
    is one of its own there (case-sensitive lookup), which no request of a known method matches."""
    said = f"methods nginx does not know: {', '.join(names)}"
    if any(n.upper() in NGINX_METHODS for n in names):
        said += "; httpd reads method names case-sensitively"
    return said


def if_section(ctx: Context, section: Section) -> Disposition:
    """<If>/<ElseIf>/<Else>: per-request expressions are not translated; one that holds access rules
    refuses what it governs (its section, or the whole server) instead of leaving it open."""
    what = f"<{section.name}{' ' + ' '.join(section.args) if section.args else ''}>"
    from .access_if import track
    track(ctx, section)
    if not section.children:
        return Disposition.EXACT      # nothing to apply under any condition
    if if_redirect(ctx, section):
        return Disposition.EXACT
    if _has_access(section):
        config = _config(ctx)
        from .access_if import if_access
        if config is None and ctx.scope is None:
            # in a <VirtualHost> (or the main server): merged last into every request the host answers
            config = ctx.server.settings.setdefault("if_access", AccessConfig(walk="if"))
            done = if_access(ctx, section, config, section_expression)
            if done is not None:
                return done
            config = None
        elif config is not None and not config.stack:
            done = if_access(ctx, section, config, section_expression)
            if done is not None:
                return done
        if config is not None:
            config.refuse = (f"{what} (access rules under an expression)", section.span)
        else:
            ctx.server.settings["refuse_all"] = (f"{what} (access rules under an expression)", section.span)
        _refused_now(ctx, f"{what} (access rules under an expression)", section.span)
    else:
        from .headers import if_headers
        done = if_headers(ctx, section, section_expression)
        if done is not None:
            return done
        ctx.diags.add("A2N101", f"{what}: expression sections are not translated yet; nothing inside it was emitted",
                      section.span, directive="<" + section.name)
    ctx.walk(section.children, untranslated=section)
    return Disposition.UNSUPPORTED


def if_redirect(ctx: Context, section: Section) -> bool:
    """<If "expr"> Redirect [status] /path URL </If> at server level (httpd's documented canonical-host form):
    a server-level `if` on maps of the expression, returning the redirect with the rest of the path and the
    query kept. For a path other than `/` one map over the expression's result and the request line matches
    the prefix (whole segments, as mod_alias does) and builds the target."""
    from .alias import _status
    from .header_expr import HeaderCondition, Untranslatable
    # the next expression section of the block, whatever stands between (access_if._chain)
    siblings = [c for c in section.parent.children if c.is_section and c.key in ("if", "elseif", "else")] \
        if section.parent is not None else []
    following = siblings[siblings.index(section) + 1:] if section in siblings else []
    if section.key != "if" or ctx.scope is not None or not section.args or \
            (following and following[0].key in ("elseif", "else")):
        return False
    redirects = []
    for child in section.children:
        if child.is_section or child.key not in ("redirect", "redirectpermanent", "redirecttemp") or \
                child.unresolved is not None:
            return False
        status, rest = _status(ctx, child, list(child.args))
        if len(rest) != 2 or not rest[0].startswith("/") or not 300 <= status < 400 or \
                not re.match(r"^https?://", rest[1]) or "$" in rest[1] or " " in rest[1]:
            return False
        redirects.append((child, status, rest[0], rest[1]))
    if len(redirects) != 1:
        return False
    try:
        compiler = HeaderCondition(ctx.model, request_only=True)
        condition = compiler.compile(section.args[0])
    except Untranslatable:
        return False
    from .headers import emit_vary
    emit_vary(ctx, compiler, section.span, False)    # httpd drops it on the redirect itself, nginx sends it
    child, status, path, target = redirects[0]
    if path == "/" and target.endswith("/") and "?" not in target:
        test, location = condition, target[:-1] + "$request_uri"
    else:
        from ..emit.layout import _regex_escape
        from ..model import MapBlock
        rest = "[^?]*" if path.endswith("/") else "(?:/[^?]*)?"
        test = location = f"$a2n_if_redirect_{len(ctx.model.maps)}"
        ctx.model.maps.append(MapBlock(
            condition + "$request_uri", location,
            [(f"~^1{_regex_escape(path)}(?<a2n_rest>{rest})(?<a2n_query>\\?.*)?$",
              target + "$a2n_rest" + ("" if "?" in target else "$a2n_query"))], default='""', span=child.span))
    # after access in httpd (a fixup), before it in nginx: reported where the server has access rules
    ctx.server.settings.setdefault("if_redirects", []).append(
        Stmt("if", [f"({test})"], section.span, block=[Stmt("return", [str(status), location], child.span)]))
    ctx.count(child, Disposition.EXACT)
    ctx.diags.add("A2N405", f"{child.name} in {section.name}: the redirect appends the rest of the path from "
                  "$request_uri, byte for byte as the client sent it" + (
                      "" if test == condition else f", and {path} is compared with the request as sent: a path "
                      "httpd reads as it only once decoded or with repeated slashes merged is not redirected"),
                  child.span, directive=child.name)
    return True


def finish_model(ctx: Context) -> None:
    """What the layout needs to resolve `Require env`: the variables RewriteRule [E=] flags set."""
    ctx.main.settings["access_rewrite_env"] = set(ctx.options.get("rewrite_env", ()))


def finish_server(ctx: Context, server) -> None:
    """A server's <If> redirects (the main server's too: httpd merges its sections into every virtual host)
    run in nginx's server rewrite phase, before any access rule; httpd redirects only requests it admits.
    Then mod_dir's index lists under a FallbackResource (fallback.py), and the file sections asking for a login
    where httpd redirects its 404s (A2N891)."""
    fallback.finish_server(ctx, server)
    _login_under_missing_page(ctx, server)
    redirects = (ctx.main.settings.get("if_redirects", []) if server is not ctx.main else []) + \
        server.settings.get("if_redirects", [])
    if not redirects:
        return
    # httpd merges each <If> over what came before, and mod_alias puts the later section's redirects first
    # (observed: of two matching ones the last <If> redirects); nginx's first matching `if` returns
    redirects = redirects[::-1]
    server.own_statements.extend(redirects)
    restricted = [s for holder in (server, ctx.main)
                  for s in holder.settings.get("directories", []) + holder.settings.get("files", []) + holder.scopes
                  if s.settings.get("access") is not None]
    if restricted:
        ctx.diags.add("A2N745", "an <If> redirect runs before the access rules in nginx: a request httpd refuses "
                      "(401/403) is redirected instead", redirects[0].span,
                      related=[s.span for s in restricted[:3] if s.span is not None])


ACCESS_DIRECTIVES = {"require", "order", "allow", "deny", "satisfy", "authtype", "authname", "authuserfile",
                     "authgroupfile", "authbasicprovider", "authmerging", "authdigestprovider", "authdigestdomain",
                     "authldapurl", "authdbmuserfile", "authdbduserpwquery", "sslrequire", "sslrequiressl"}
# What a <Directory> or <Files> region can hold in this translation (anything else is reported there).
# their handler itself decides in a section: a no-op for dotted extensions (never matched), else reported
MIME_EXTENSION_DIRECTIVES = {"addtype", "addcharset", "addencoding", "forcetype"}
# Per-path client certificates and ciphers are access rules too: their handlers refuse the region.
TLS_PER_PATH = {"sslverifyclient", "sslverifydepth", "sslciphersuite"}
# mod_include's directives (the include pass decides per section whether httpd parses there)
SSI_DIRECTIVES = {"addoutputfilter", "setoutputfilter", "addoutputfilterbytype", "xbithack", "ssitimeformat",
                  "ssiundefinedecho", "ssierrormsg", "ssilastmodified", "ssietag", "ssilegacyexprparser"}
IN_DIRECTORY = ACCESS_DIRECTIVES | TLS_PER_PATH | SSI_DIRECTIVES | {
    "if", "elseif", "else", "limit", "limitexcept", "fallbackresource", "acceptpathinfo", "options", "directoryslash",
    "allowoverride", "allowoverridelist", "directoryindex", "header", "rewriteengine", "rewritecond", "rewriterule",
    "rewritebase", "rewriteoptions", "requireall", "requireany", "requirenone", "files", "filesmatch",
    "expiresactive", "expiresbytype", "expiresdefault", "adddefaultcharset", "fcgiwrapper", "fcgidwrapper",
    "contentdigest", "addhandler", "sethandler", "errordocument", "redirect", "redirectmatch", "redirectpermanent",
    "redirecttemp", *MIME_EXTENSION_DIRECTIVES}
IN_LIMIT = ACCESS_DIRECTIVES | {"requireall", "requireany", "requirenone"}
# Options in a <Files> section: only the SSI gate is taken (options() reports the rest there)
IN_FILES = ACCESS_DIRECTIVES | TLS_PER_PATH | SSI_DIRECTIVES | {
    "requireall", "requireany", "requirenone", "limit", "limitexcept", "header", "if", "elseif", "else",
    "sethandler", "expiresactive", "expiresbytype", "expiresdefault", "options", "contentdigest", "errordocument",
    *MIME_EXTENSION_DIRECTIVES}


def walk_access_into(ctx: Context, section: Section, scope: Scope, keys, done: set[int] = frozenset()) -> None:
    """Translate a section's access directives (names in `keys`) into `scope`; the rest of it (but the
    directives whose ids are in DONE, translated by the caller) is reported as not translated there."""
    previous, ctx.scope = ctx.scope, scope
    try:
        ctx.walk([c for c in section.children if c.key in keys])
    finally:
        ctx.scope = previous
    ctx.walk([c for c in section.children if c.key not in keys and id(c) not in done], untranslated=section)


def _has_access(section: Section) -> bool:
    stack = list(section.children)
    while stack:
        node = stack.pop()
        if node.key in ACCESS_DIRECTIVES or node.key in ("requireall", "requireany", "requirenone"):
            return True
        if node.is_section:
            stack.extend(node.children)
    return False


def _only_grants(section: Section) -> bool:
    """Whether SECTION holds nothing but access rules that can only let more requests through than the
    sections around it: `Require all granted` (it replaces the Require lines before it), and mod_access_compat
    lines that allow by default under `Satisfy Any` (the section's Order/Allow/Deny replace the earlier ones
    whole, and without `Satisfy Any` of its own the merged Satisfy falls back to All, which can refuse)."""
    order, allow_all, compat, satisfy_any = "deny,allow", False, False, False
    for node in section.children:
        if node.is_section:
            return False
        words = [a.lower() for a in node.args]
        if node.key == "require" and words == ["all", "granted"]:
            continue
        if node.key == "order" and len(words) == 1:
            order, compat = words[0], True
        elif node.key == "allow":
            allow_all, compat = allow_all or words == ["from", "all"], True
        elif node.key == "satisfy" and words == ["any"]:
            satisfy_any = True
        else:
            return False
    return not compat or (satisfy_any and (order == "deny,allow" or (order == "allow,deny" and allow_all)))


def _granting_config(section: Section) -> AccessConfig:
    """The access rules of a section that only grants (_only_grants) as the directory walk merges them: httpd
    merges regex directory sections after every plain <Directory> and .htaccess (request.c, ap_directory_walk;
    docs: sections.html, "How the sections are merged"), so where it applies its `Require all granted`
    replaces their Require lines (AuthMerging Off) and its Order/Allow/Satisfy their mod_access_compat lines."""
    config = AccessConfig(walk="directory")
    for node in section.children:
        words = [a.lower() for a in node.args]
        if node.key == "require":
            _add(config, Authz("leaf", "all", ["granted"], span=node.span))
        elif node.key == "order":
            config.order, config.compat_span = words[0], config.compat_span or node.span
        elif node.key == "allow":
            config.allows = (config.allows or []) + [(a, node.span) for a in node.args[1:]]
            config.compat_span = config.compat_span or node.span
        elif node.key == "satisfy":
            config.satisfy, config.satisfy_span = "any", node.span
    return config


def _plain_config(section: Section) -> AccessConfig | None:
    """The access rules of a section the translation leaves out (a wildcard <Directory>) as the directory walk
    merges them, where they are addresses or a password login alone: Order, Allow/Deny from, Satisfy, `Require
    all`, `Require [not] ip` and `Require valid-user` lines (an implicit <RequireAny>), and AuthType Basic with
    its AuthName and an absolute AuthUserFile. None for anything else (a Require container, another provider
    or login, a nested section): what those refuse is not known without the request."""
    config = AccessConfig(walk="directory")
    for node in section.children:
        words = [a.lower() for a in node.args]
        if node.is_section:
            if _has_access(node):
                return None
        elif node.key == "require" and words == ["valid-user"]:
            _add(config, Authz("leaf", "valid-user", [], False, span=node.span))
        elif node.key in ("authtype", "authname", "authuserfile") and node.args:
            if (node.key == "authtype" and words != ["basic"]) or \
                    (node.key == "authuserfile" and not node.args[0].startswith("/")) or \
                    (node.key == "authname" and re.search(r'[$%"\\]', node.args[0])):
                return None
            config.auth[_AUTH_KEYS[node.key]] = (" ".join(node.args), node.span)
        elif node.key == "require":
            negated = words[:1] == ["not"]
            leaf = words[1:] if negated else words
            if len(leaf) < 2 or leaf[0] not in ("all", "ip") or \
                    (leaf[0] == "all" and (negated or leaf[1:] not in (["granted"], ["denied"]))):
                return None
            _add(config, Authz("leaf", leaf[0], list(node.args[len(node.args) - len(leaf) + 1:]), negated,
                               span=node.span))
        elif node.key == "order" and "".join(words) in ("deny,allow", "allow,deny", "mutual-failure"):
            config.order, config.compat_span = "".join(words), config.compat_span or node.span
        elif node.key in ("allow", "deny") and words[:1] == ["from"] and len(words) > 1:
            entries = [(a, node.span) for a in node.args[1:]]
            if node.key == "allow":
                config.allows = (config.allows or []) + entries
            else:
                config.denies = (config.denies or []) + entries
            config.compat_span = config.compat_span or node.span
        elif node.key == "satisfy" and words in (["all"], ["any"]):
            config.satisfy, config.satisfy_span = words[0], node.span
        elif node.key in ACCESS_DIRECTIVES:
            return None
    return config


def basename_regex(pattern: str, regex: bool) -> str | None:
    """A PCRE over the URL path that matches when its last segment is a name the pattern accepts."""
    if not regex:
        segment = fnmatch_regex(pattern)
        # a segment, last or followed by path info (httpd matched the file the path info follows)
        return None if segment is None else "(?:^|/)" + segment + "(?:/|$)"
    body = pattern
    # leading inline flags (`(?i)\.htpasswd$`) hold for the whole expression: a scoped group keeps them
    # valid inside the URL regex (Python's re refuses global flags past its start; PCRE would take them)
    flags = re.match(r"\(\?([imsx]+)\)", body)
    if flags:
        body = body[flags.end():]
    # `^`/`$` bind to one alternative of a top-level `|` (`^\.ht|\.bak$`), not to the whole expression:
    # there they stay assertions on the name, kept inside the group
    alternates = alternates_at_top(body)
    anchored = body.startswith("^") and not alternates
    if anchored:
        body = body[1:]
    # `^` opening an alternative (`(^a|b)`, `x|^y`, `^a|b`) is the start of the name too
    body = re.sub(r"(?:(?<=[(|])|^)\^", "(?<![^/])", body)
    if "^" in body.replace("[^", "").replace("(?<![^/])", "") or "/" in body.replace("(?<![^/])", ""):
        return None
    ends = body.endswith("$") and not body.endswith("\\$") and not alternates
    if ends:
        body = body[:-1]
    body = _within_segment(body)
    # any segment, last or followed by path info (httpd matched the file the path info follows)
    out = "(?:^|/)" + ("" if anchored else "[^/]*?") + f"(?{flags.group(1) if flags else ''}:" + body + ")" + \
        ("(?:/|$)" if ends else "[^/]*(?:/|$)")
    try:
        re.compile(out)
    except (re.error, OverflowError, RecursionError):
        return None       # not a regular expression (an unbalanced parenthesis): httpd refuses it too
    return out


def fnmatch_regex(pattern: str) -> str | None:
    """A PCRE matching the names of one path segment that the wildcard PATTERN accepts (httpd's fnmatch: * and
    ? never match `/`; [...] is a class; a leading `.` has no special rule); None where PATTERN holds a `/` or
    an unclosed class."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            klass = _fnmatch_class(pattern, i)
            if klass is None:
                return None
            out.append(klass[0])
            i = klass[1]
        elif c == "/":
            return None
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _fnmatch_class(pattern: str, i: int) -> tuple[str, int] | None:
    """The PCRE class for the wildcard class opening at PATTERN[I] and the index of its closing `]`; None
    where it is not closed. As httpd's fnmatch reads it: `!` or `^` first negates, a `]` right after `[` (or
    `[!`) is a member, `\\` escapes the next character; a name holds no `/`, so a negated class excludes it."""
    j = i + 1
    negate = pattern[j:j + 1] in ("!", "^")
    j += negate
    members = []
    while j < len(pattern) and (pattern[j] != "]" or not members):
        if pattern[j] == "\\" and j + 1 < len(pattern):
            members.append(pattern[j:j + 2])
            j += 2
            continue
        members.append("\\" + pattern[j] if pattern[j] in "[]" else "" if pattern[j] == "/" else pattern[j])
        j += 1
    if j >= len(pattern):
        return None
    if not "".join(members):        # `[/]`: no name holds it
        return "[^/]" if negate else "(?!)", j
    return "[" + ("^/" if negate else "") + "".join(members) + "]", j


def _within_segment(body: str) -> str:
    """Keep every wildcard of a file-name expression inside one path segment: a name holds no `/`, so
    `.` becomes `[^/]`, negated classes and \\S \\W \\D exclude `/` too, and `$` (the end of the name) is the
    end of the segment. The names it matches are the same."""
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            pair = body[i:i + 2]
            out.append({"\\S": "[^/\\s]", "\\W": "[^/\\w]", "\\D": "[^/\\d]"}.get(pair, pair))
            i += 2
            continue
        if c == "[":
            j = i + 1
            if j < len(body) and body[j] == "^":
                j += 1
            if j < len(body) and body[j] == "]":
                j += 1
            while j < len(body) and body[j] != "]":
                j += 2 if body[j] == "\\" else 1
            cls = body[i:j + 1]
            out.append("[^/" + cls[2:] if cls.startswith("[^") and not cls.startswith("[^/") else cls)
            i = j + 1
            continue
        out.append("[^/]" if c == "." else "(?=/|$)" if c == "$" else c)
        i += 1
    return "".join(out)


# ----------------------------------------------------------------- merging and emitting

@dataclass
class Effective:
    """What httpd decides for a region, after merging its sections in order."""

    authz: Authz | None = None
    order: str | None = None
    allows: list[tuple[str, Span]] = field(default_factory=list)
    denies: list[tuple[str, Span]] = field(default_factory=list)
    compat: bool = False
    compat_span: Span | None = None
    satisfy: str = "all"
    auth: dict[str, tuple[str, Span]] = field(default_factory=dict)
    options: set[str] = field(default_factory=lambda: {"followsymlinks"})
    options_span: Span | None = None
    directory_slash: tuple[bool, Span] | None = None
    refuse: tuple[str | None, Span] | None = None
    ssl_only: Span | None = None
    ssl_requires: list = field(default_factory=list)
    conditionals: list = field(default_factory=list)


def merge(configs: list[AccessConfig]) -> Effective:
    """httpd's merge: a section's Require lines replace earlier ones (unless AuthMerging, see _merged_authz),
    any of Order/Allow/Deny replaces the earlier set, Satisfy and each Auth* setting are inherited one by one."""
    eff = Effective()
    eff.authz = _merged_authz(configs)
    for c in configs:
        if c.has_compat or c.satisfy:
            # mod_access_compat has no merge function: a section with any of its directives (Satisfy
            # too) replaces the earlier one whole, what it does not say taking the defaults
            eff.compat = True
            eff.order = c.order or "deny,allow"
            eff.allows = list(c.allows or [])
            eff.denies = list(c.denies or [])
            eff.compat_span = c.compat_span or c.satisfy_span
            eff.satisfy = c.satisfy or "all"
        merge_auth(eff.auth, c.auth)
        if c.options:
            eff.options = _merge_options(eff.options, c.options)
            eff.options_span = c.options[0][1]
        if c.listing:
            eff.options = _merge_listing(eff.options, c.listing)
            eff.options_span = eff.options_span or c.listing[0][1]
        if c.directory_slash is not None:
            eff.directory_slash = c.directory_slash
        if c.refuse is not None:
            eff.refuse = c.refuse
        if c.ssl_only is not None:
            eff.ssl_only = c.ssl_only
        eff.ssl_requires += c.ssl_requires     # httpd appends every merged section's list
        eff.conditionals += c.conditionals     # expression sections merge last, whichever section holds them
    if eff.compat and eff.satisfy == "all" and compat_passes(eff):
        eff.compat = False      # admits every request: Require alone decides
    if eff.compat and eff.satisfy == "any" and _authorizes_everyone(eff, configs):
        eff.compat = False      # the host check is never the only gate: the empty Require side admits
    return eff


def _merged_authz(configs: list[AccessConfig]) -> Authz | None:
    """The Require lines httpd applies after merging CONFIGS in order. Each walk of request.c (directory,
    files, location, proxy, if) first merges its own matching sections into one chain, and merges that chain
    onto what the earlier walks made (ap_location_walk: `now_merged`, then r->per_dir_config). mod_authz_core's
    merge is not associative: the chain takes the AuthMerging of its last section that says one, so a
    <Location> with `AuthMerging And` joins the <Directory> rules that an earlier <Location>'s own Require lines
    had replaced (observed on httpd 2.4: `<Location /d> Require all granted` then `<Location ~ ^/d/x>
    Require all granted / AuthMerging And` over a `<Directory>` with `Require all denied` refuses /d/x)."""
    merged = None       # (Require lines, AuthMerging) of the walks merged so far
    chain, walk = None, None
    for c in configs:
        own = (c.authz if c.authz is not None and c.authz.children else None, c.merging)
        if own == (None, None):
            continue        # nothing of mod_authz_core's in the section: httpd merges no config of it
        if chain is not None and c.walk is not None and c.walk == walk:
            chain = _authz_merge(chain, own)
            continue
        if chain is not None:
            merged = chain if merged is None else _authz_merge(merged, chain)
        chain, walk = own, c.walk
    if chain is not None:
        merged = chain if merged is None else _authz_merge(merged, chain)
    return merged[0] if merged is not None else None


def _authz_merge(base: tuple, new: tuple) -> tuple:
    """mod_authz_core's merge_authz_core_dir_config on (Require lines, AuthMerging) pairs: a config without
    lines or AuthMerging keeps the base; `AuthMerging Off` or none replaces it (lines or no lines); And/Or
    joins the two sets of lines and takes the new config's AuthMerging (a side whose lines are all for other
    methods, see _project, counts for nothing there)."""
    (base_authz, _), (new_authz, op) = base, new
    if op is None and new_authz is None and base_authz is not None:
        return base
    if op in (None, "off") or (base_authz is None and new_authz is None):
        return new
    if base_authz is not None and new_authz is not None:
        if base_authz.elsewhere or new_authz.elsewhere:
            # lines all limited to other methods: apply_authz_sections finds them NEUTRAL under Or and
            # GRANTED under And ("directive limited to other methods"), so the other side decides alone
            return (new_authz if base_authz.elsewhere else base_authz, op)
        return (Authz("all" if op == "and" else "any", children=[base_authz, new_authz], span=new_authz.span), op)
    return (base_authz or new_authz, op)


def _authorizes_everyone(eff: Effective, configs: list[AccessConfig]) -> bool:
    """Satisfy Any with no Require line and no AuthType over the region (none in an expression or method
    section either): when Order/Allow/Deny refuses, httpd asks mod_authz_core, which grants a region without
    authorization directives (src: request.c, ap_process_request_internal, SATISFY_ANY runs access_checker_ex
    after a failed access_checker; mod_authz_core.c, authorize_user_core: "authorization result: granted (no
    directives)"), so every request is admitted whatever the addresses."""
    if eff.authz is not None and eff.authz.children:
        return False
    if auth_type_without_authz(eff) is not None or "unsupported" in eff.auth:
        return False
    return not eff.conditionals and not any(c.limits for c in configs)


def compat_passes(eff: Effective) -> bool:
    """mod_access_compat admits every request: Deny,Allow with nothing denied (the defaults a section with
    only Satisfy gets) or with `Allow from all`; Allow,Deny (or Mutual-failure) with `Allow from all` and
    no Deny."""
    allows = {v.lower() for v, _ in eff.allows}
    if eff.order == "deny,allow":
        return not eff.denies or "all" in allows
    return "all" in allows and not eff.denies


def compat_refuses(eff: Effective) -> bool:
    """mod_access_compat refuses every request: Deny,Allow with `Deny from all` and no Allow line;
    Allow,Deny and Mutual-failure with no Allow line (nothing is allowed) or with `Deny from all` (a
    match of Deny refuses there whatever Allow says)."""
    allows = {v.lower() for v, _ in eff.allows}
    denies = {v.lower() for v, _ in eff.denies}
    if eff.order == "deny,allow":
        return not allows and "all" in denies
    return not allows or "all" in denies


class _Options(set):
    """Options in force, with the +/- modifiers httpd carries along (opts_add, opts_remove): a later section
    written with +/- only applies them again over what it inherits."""
    plus: frozenset = frozenset()
    minus: frozenset = frozenset()


def _merge_options(current: set[str], written: list[tuple[str, Span]]) -> set[str]:
    """The Options in force after a section's Options lines (`written`, word by word) apply over `current`
    (src: core.c set_options, merge_core_dir_configs). Each line is read on its own: one whose first keyword
    has no +/- resets the section's options to none before adding its own (a later such line drops what earlier
    lines set), and makes the section's options replace the inherited ones; the +/- words keep counting in
    the modifiers, which a section below written with +/- only applies again."""
    opts, add, remove, explicit = set(), set(), set(), False
    lines: list[list[str]] = []
    last = None
    for w, span in written:
        if not lines or span != last:
            lines.append([])
        lines[-1].append(w.lower())
        last = span
    for words in lines:
        if words[0][:1] not in ("+", "-"):
            opts, explicit = set(), True
        for w in words:
            name = w.lstrip("+-")
            names = {"indexes", "includes", "followsymlinks", "execcgi"} if name == "all" else \
                set() if name == "none" else {name}
            if w.startswith("-"):
                remove, add, opts = remove | names, add - names, opts - names
            elif w.startswith("+"):
                add, remove, opts = add | names, remove - names, opts | names
            else:
                opts |= names
    out = _Options(opts)
    if not explicit:
        add, remove = (set(getattr(current, "plus", ())) - remove) | add, \
            (set(getattr(current, "minus", ())) - add) | remove
        out = _Options((set(current) - remove) | add)
    out.plus, out.minus = frozenset(add), frozenset(remove)
    return out


def _merge_listing(current: set[str], written: list[tuple[str, Span]]) -> set[str]:
    """The Options in force after the Options lines of a <Location> or <LocationMatch> (`written`) apply over
    `current`, of which only Indexes changes. httpd merges those sections' Options as a <Directory>'s (the
    same bit-by-bit merge, so `Options None` there turns listings off and `-Indexes` removes them) and
    mod_autoindex reads the merged result in its handler; but the symlink checks were made during the
    directory walk, before these sections merge, so FollowSymLinks there changes nothing for the files
    served (mod_rewrite's own check reads it: passes.rewrite, `location_options`)."""
    merged = _merge_options(current, written)
    out = _Options((set(current) - {"indexes"}) | (set(merged) & {"indexes"}))
    out.plus = _with_indexes_of(getattr(current, "plus", ()), merged.plus)
    out.minus = _with_indexes_of(getattr(current, "minus", ()), merged.minus)
    return out


def _with_indexes_of(mine, theirs) -> frozenset:
    """MINE, with Indexes as THEIRS has it."""
    return frozenset((set(mine) - {"indexes"}) | (set(theirs) & {"indexes"}))


class Refused(Exception):
    """A construct nginx cannot check exactly: the region is refused (deny all). MAPS: nginx's allow/deny
    list cannot, but the layout's decision maps (access_cond) evaluate it, so a directive is not refused for it."""

    def __init__(self, message: str, span: Span | None, maps: bool = False):
        super().__init__(message)
        self.message, self.span, self.maps = message, span, maps


def access_statements(ctx_diags, configs: list[AccessConfig], region: str, span: Span | None,
                      reported: set, tls: bool = False, conditions: Conditions | None = None) -> list[Stmt]:
    """nginx statements enforcing `eff`; `deny all` plus an error for whatever cannot be enforced exactly.
    `reported` collects (span, message) already said, so a section shared by many locations is reported once.
    `tls`: the server answers over TLS only (SSLRequireSSL holds). `conditions` compiles environment
    variables and expressions for this server (without it they are refused)."""
    if conditions is not None:
        configs = server_conditionals(conditions.model, conditions.server) + list(configs)
    varied = len(conditions.vary) if conditions is not None else 0
    try:
        eff = merge(configs)
        if eff.refuse is not None and eff.refuse[0] is not None:
            raise Refused(eff.refuse[0], eff.refuse[1])
        if eff.ssl_only is not None and not tls:
            return [Stmt("deny", ["all"], eff.ssl_only, comment="SSLRequireSSL on a plain-HTTP server")]
        try:
            main = conditions.model.main_server if conditions is not None else None
            if eff.ssl_requires and not tls and (conditions is None or (main is not None and main.ssl)):
                # a virtual host may take SSLEngine from the main server in httpd: not known to be plain
                raise Refused(f"SSLRequire {eff.ssl_requires[0][0]} (on a server whose TLS is not known)",
                              eff.ssl_requires[0][1])
            ssl_checks = _ssl_requires(eff, conditions) if tls else []
            limited = [c for c in configs if c.limits]
            if eff.conditionals:
                from .access_if import chains, enforce
                found = chains(eff.conditionals)
                if len(found) > 1 or limited:
                    raise Refused("access rules under several expression chains or beside method sections",
                                  found[-1].span)
                try:
                    stmts = enforce(found[0], configs, eff, span, conditions, lambda e: _decision(e, conditions),
                                    lambda: _enforce(eff, span, conditions))
                except Refused:
                    # address rules beside the chain: every decision as maps, addresses over $remote_addr
                    stmts = enforce(found[0], configs, eff, span, conditions,
                                    lambda e: _decision(e, conditions, addresses=True),
                                    lambda: _enforce(eff, span, conditions))
            elif limited:
                stmts = _enforce_limits(configs, limited, span, conditions)
            else:
                stmts = _enforce(eff, span, conditions)
        except CondRefused as exc:
            raise Refused(exc.message, exc.span)
        for marker, code, message, hint in (
                (AUTHZ_MISSING, "A2N774", f"AuthType with no Require in any section that covers {region}: httpd "
                 "answers every request there 500 (AH01627, \"AuthType configured with no corresponding "
                 "authorization directives\"), and so does the translation",
                 "add the Require line the login is meant for (Require valid-user), or remove the AuthType"),
                (USER_WITHOUT_AUTH, "A2N775", f"a Require that needs a user, and no AuthType in any section that "
                 f"covers {region}: httpd answers every request there 500 (AH00027, \"No authentication done but "
                 "request not allowed without authentication\"), and so does the translation",
                 "add AuthType Basic, AuthName and AuthUserFile for the login, or a Require that needs no user"),
                (BASIC_WITHOUT_NAME, "A2N776", f"AuthType Basic with no AuthName over {region}, where a login is "
                 "required: httpd answers every request there 500 (AH01615, \"need AuthName\"), credentials or "
                 "not, and so does the translation", "add AuthName \"...\" beside the AuthType"),
                (AUTHZ_MISSING_BY_ADDRESS, "A2N897", f"AuthType with no Require beside Order/Allow/Deny under "
                 f"Satisfy Any over {region}: httpd serves an address the host check admits and answers the "
                 "others 500 (AH01627); the translation lets the same addresses in and refuses the others 403",
                 "add the Require line the login is meant for (Require valid-user), or remove the AuthType")):
            missing = next((st for st in stmts if st.comment == marker), None)
            if missing is not None and (code, missing.span) not in reported:
                reported.add((code, missing.span))
                ctx_diags.add(code, message, missing.span, hint=hint)
        if conditions is not None and conditions.headers and conditions.model.nginx_version < (1, 23):
            where = next((st.span for st in ssl_checks + stmts if st.name == "if"), span)
            if ("A2N756", where) not in reported:
                reported.add(("A2N756", where))
                names = ", ".join(sorted(h[5:].replace("_", "-") for h in conditions.headers))
                ctx_diags.add("A2N756", f"the access decision of {region} reads the request header(s) {names}: "
                              "httpd joins repeated lines of a header, nginx before 1.23 reads the first one",
                              where)
        # httpd adds the request headers its expressions read to Vary on the responses it admits (observed);
        # across Require lines it may stop before reading them all, where nginx names every one
        vary = [Stmt("add_header", ["Vary", v], span) for v in dict.fromkeys(conditions.vary[varied:])] \
            if conditions is not None else []
        return ssl_checks + stmts + vary
    except Refused as exc:
        if exc.span not in reported and (exc.message, exc.span) not in reported:
            reported.add(exc.span)
            ctx_diags.add("A2N742", f"{exc.message}: nginx cannot check this exactly, so {region} is refused "
                          "to everyone (deny all)", exc.span,
                          hint="rewrite the rule with Require ip / Require valid-user / Require all, or put the "
                               "check in front of nginx (auth_request)")
        if exc.message.endswith(NOT_ALLOWED):
            # httpd's answer is a 500 for certain, with the error headers only (not the onsuccess ones a
            # refusal in place of a possible success sends, see emit.inherit.refused_headers)
            return [Stmt("deny", ["all"], exc.span, comment="httpd answers 500: a .htaccess directive its "
                         "AllowOverride forbids")]
        return [Stmt("deny", ["all"], exc.span, comment="an access rule nginx cannot check: refused",
                     shut_region=_errs_for_everyone(configs) or refuses_all(configs), login=asks_login(configs),
                     fails_authn=fails_authn(configs))]


def _errs_for_everyone(configs: list[AccessConfig]) -> bool:
    """Whether httpd answers every request of the region with an error of its own, whatever its address and
    method: an AuthType with no Require line under Satisfy All, for each class of methods a method section
    makes (_project). mod_access_compat refuses some addresses (403) and mod_authz_core's access_checker_ex
    ends the others with 500 (AH01627), both before mod_headers' fixup fills the onsuccess table; the error
    response carries the `Header always` lines alone (src: request.c, ap_process_request_internal;
    mod_authz_core.c, authorize_user_core; observed on httpd 2.4). A refusal in its place (Stmt.shut_region)
    sends no onsuccess header."""
    limited = {(c.limits[0][0], frozenset(c.limits[0][1])) for c in configs if c.limits}
    if not configs or len(limited) > 1:
        return False
    try:
        eff = merge(configs)
        views = [merge([_project(c, inside) for c in configs]) for inside in (True, False)] if limited else [eff]
    except Refused:
        return False
    if eff.refuse is not None or eff.conditionals:
        return False
    return all(v.satisfy != "any" and auth_type_without_authz(v) is not None for v in views)


def refuses_all(configs: list) -> bool:
    """Whether the sections covering a region refuse everyone by themselves (`Deny from all` without Allow or
    Require, or `Require all denied` alone, or beside any other line of a <RequireAll>): httpd answers there
    with its own 403, whatever a section the translation could not place adds, or a rule nginx cannot check
    beside it. mod_authz_core ends a <RequireAll> at its first denied child, and a child before it can only
    make the answer an error too (AUTHZ_GENERAL_ERROR, a 500: apply_authz_sections); the error response
    carries the `Header always` lines alone. So does a <RequireAll> holding `Require ip A` and `Require not
    ip A`: the one the client's address does not satisfy ends it, denied, whatever that address."""
    configs = [c for c in configs if c is not None]
    if not configs or any(not isinstance(c, AccessConfig) or c.conditionals or c.limits or c.stack
                          or c.refuse is not None or c.ssl_only is not None or c.ssl_requires for c in configs):
        return False
    try:
        eff = merge(configs)
    except Refused:
        return False

    if eff.authz is None:
        return eff.compat and eff.satisfy != "any" and not eff.allows \
            and any(host.lower() == "all" for host, _ in eff.denies)
    return _always_denied(eff.authz) and not eff.compat


def _always_denied(authz: Authz) -> bool:
    """A Require tree that denies every request, whoever asks and whatever the request holds: `Require all
    denied`, a <RequireAll> with such a child (or `Require ip A` beside `Require not ip A`), a <RequireAny> of
    nothing else. mod_authz_core's check_provider_list ends a <RequireAll> at its first AUTHZ_DENIED child and
    returns DENIED, which no other child (a `Require user` without credentials: AUTHZ_DENIED_NO_USER) turns
    into a request for a login: httpd answers 403 and sends no challenge (observed with httpd 2.4)."""
    if authz.op == "leaf":
        return authz.kind == "all" and [a.lower() for a in authz.args] == ["denied"] and not authz.negated
    if authz.op == "all":
        ips = {(tuple(c.args), c.negated) for c in authz.children if c.op == "leaf" and c.kind == "ip"}
        return any(_always_denied(c) for c in authz.children) or \
            any((args, False) in ips and (args, True) in ips for args, _ in ips)
    return authz.op == "any" and bool(authz.children) and all(_always_denied(c) for c in authz.children)


def server_conditionals(model, server) -> list[AccessConfig]:
    """The <If> sections with access rules a virtual host (or the main server) holds outside any section."""
    holders = [server] + ([model.main_server] if model.main_server is not None and model.main_server is not server
                          else [])
    return [h.settings["if_access"] for h in reversed(holders) if h.settings.get("if_access") is not None]


def _ssl_requires(eff: Effective, conditions: Conditions | None) -> list[Stmt]:
    """SSLRequire on a TLS server: refused (403) unless every expression holds. It is an access check
    (like Allow/Deny), which `Satisfy Any` lets a login override: that is not translated."""
    if not eff.ssl_requires:
        return []
    text, where = eff.ssl_requires[0]
    if conditions is None:
        raise Refused(f"SSLRequire {text}", where)
    if eff.satisfy == "any":
        raise Refused(f"SSLRequire {text} under Satisfy Any", where)
    out = []
    for text, where in eff.ssl_requires:
        variable = conditions.expression(text, True, where)
        conditions.mark_volatile(variable)
        out.append(Stmt("if", [f'({variable} = "")'], where, comment="SSLRequire",
                        block=[Stmt("return", ["403"], where)]))
    return out


def _decision(eff: Effective, conditions: Conditions | None, addresses: bool = False) -> str | None:
    """The region's decision as a constant or decision map (G granted), or None when its rules are not a
    Require tree of variables, expressions, methods and constants (and addresses, with ADDRESSES)."""
    if eff.compat and eff.satisfy == "any" and compat_passes(eff):
        return GRANTED
    if eff.compat and eff.satisfy != "any" and compat_refuses(eff):
        return DENIED       # Satisfy All: mod_access_compat's refusal is the answer (403), before any login
    if eff.compat or conditions is None:
        return None
    authz = _simplify(eff.authz) if eff.authz is not None else None
    if authz is None:
        return None if auth_type_without_authz(eff) else GRANTED

    if not (_plain(authz) if addresses else _plain(authz, ("all", "env", "expr", "method"))):
        return None
    return conditions.tri(authz)


def _has_cond(node: Authz) -> bool:
    if node.op == "leaf":
        return node.kind in COND_KINDS
    return any(_has_cond(c) for c in node.children)


COND_KINDS = ("env", "expr")


def _cond_enforce(authz: Authz, conditions: Conditions | None, span: Span | None) -> list[Stmt]:
    """A Require tree with environment variables or expressions: its decision as maps (access_cond).
    Require ip lines directly under the top <RequireAll> become nginx's allow/deny list beside it."""
    if conditions is None:
        raise Refused("Require env/expr", authz.span)
    children = authz.children if authz.op == "all" else [authz]
    ips = [c for c in children if c.op == "leaf" and c.kind in ("ip", "local")]
    rest = [c for c in children if c not in ips]
    positive = [c for c in ips if not c.negated]
    if len(positive) > 1 or any(_has_ip(c) for c in rest):
        # addresses elsewhere in the tree: they become expressions over $remote_addr too
        value = conditions.tri(authz)
        return conditions.refuse_unless(value, (GRANTED,), authz.span, "Require env/expr")
    allow = [a for c in positive for a in _leaf_form(c)[1]]
    deny = [a for c in ips if c.negated for a in _leaf_form(c)[2]]
    value = conditions.tri(Authz("all", children=rest, span=authz.span) if authz.op == "all" else authz)
    what = "Require env/expr"
    if positive:
        # granted when the address matches and nothing else denies
        return conditions.refuse_unless(value, (GRANTED, NEUTRAL), authz.span, what) + \
            _ip_list(allow, deny, authz.span)
    return conditions.refuse_unless(value, (GRANTED,), authz.span, what) + (_ip_list(["all"], deny, authz.span)
                                                                          if deny else [])


def _cond_user_enforce(eff: Effective, authz: Authz, conditions: Conditions | None) -> list[Stmt]:
    """Users beside variables or expressions, the users directly under the top container. httpd decides
    without a user first (src: authz_core): <RequireAll> is denied (403, no login asked) when another
    child denies, else the login decides; <RequireAny> is granted without a login when another child
    grants, else the login decides. nginx: a 403 before auth_basic, or auth_basic's realm `off` when the
    rest grants (only valid-user there: a listed-user test would also reject a login httpd ignores)."""
    if conditions is None:
        raise Refused("Require env/expr together with users", authz.span)
    users = [c for c in authz.children if c.op == "leaf" and c.kind in ("valid-user", "user", "group")]
    rest = [c for c in authz.children if c not in users]
    if authz.op not in ("all", "any") or not users or any(_has_user(c) for c in rest) or \
            any(c.negated for c in users):
        raise Refused("Require env/expr together with users deeper in the tree", authz.span)
    form = _users([_leaf_form(c) for c in users]) if authz.op == "any" else None
    what = "Require env/expr"
    if authz.op == "all":
        forms = [_form(c) for c in users]
        if len(forms) > 1:
            raise Refused("several user requirements that must all hold", authz.span)
        value = conditions.tri(Authz("all", children=rest, span=authz.span))
        return conditions.refuse_unless(value, (GRANTED, NEUTRAL), authz.span, what) + \
            _basic_auth(eff, authz.span) + _user_filter(eff, forms[0], authz.span)
    if form != ("user", None):
        raise Refused("Require user or group in a <RequireAny> with env/expr (only valid-user)", authz.span)
    value = conditions.tri(Authz("any", children=rest, span=authz.span))
    auth = _basic_auth(eff, authz.span)
    if value in (GRANTED, DENIED, NEUTRAL):
        return [] if value == GRANTED else auth
    realm = _quote_realm(auth[0].args[0])
    switch = conditions.variable(conditions.map(value, [(DENIED, realm), (NEUTRAL, realm)], "off"))
    conditions.mark_volatile(switch)
    return [Stmt("auth_basic", [switch], auth[0].span, comment="off where the rest of the <RequireAny> grants")] + \
        auth[1:]


_REALM_OFF = "AuthName off (a realm to httpd, which asks for the login; nginx reads auth_basic off as no login)"


def _quote_realm(realm: str) -> str:
    """A realm as a map value: nginx reads exactly `off` there as no authentication (its comparison minds
    case: `Off` is a realm), httpd asks for the login with the realm "off"."""
    if realm == "off":
        raise Refused(_REALM_OFF, None)
    return realm


def _has_ip(node: Authz) -> bool:
    if node.op == "leaf":
        return node.kind in ("ip", "local")
    return any(_has_ip(c) for c in node.children)


def _plain(node: Authz, kinds=("all", "env", "expr", "method", "ip", "local")) -> bool:
    """A tree of leaves the decision maps can evaluate."""
    if node.op == "leaf":
        return node.kind in kinds
    return all(_plain(c, kinds) for c in node.children)


def _compat_has_env(eff: Effective) -> bool:
    return any(v.lower().startswith("env=") for v, _ in eff.allows + eff.denies)


def _compat_env(eff: Effective, conditions: Conditions | None) -> list[Stmt]:
    """Order/Allow/Deny with `env=` entries: the decision over the variables as maps; addresses beside them
    only where the three passes reduce to (addresses) AND (variables)."""
    span = eff.compat_span
    if conditions is None:
        raise Refused("Allow/Deny from env=", span)

    def split(entries):
        env = [(v, s) for v, s in entries if v.lower().startswith("env=")]
        hosts = [(v, s) for v, s in entries if not v.lower().startswith("env=")]
        return env, hosts, any(v.lower() == "all" for v, _ in hosts)
    allow_env, allow_hosts, all_allowed = split(eff.allows)
    deny_env, deny_hosts, all_denied = split(eff.denies)
    what = "Allow/Deny from env="
    if eff.order == "deny,allow":
        # admitted when an Allow matches or no Deny does
        if all_allowed:
            return [Stmt("allow", ["all"], span)]
        if all_denied and not allow_hosts:
            value = compat_condition(conditions, allow_env, [], "allow,deny", span)
            return conditions.refuse_unless(value, (GRANTED,), span, what)
        value = compat_condition(conditions, allow_env + _cidr(allow_hosts), deny_env + _cidr(deny_hosts),
                                 "deny,allow", span)
        return conditions.refuse_unless(value, (GRANTED,), span, what)
    # Allow,Deny and Mutual-failure: admitted when an Allow matches and no Deny does
    if all_denied or not (allow_env or allow_hosts):
        return [Stmt("deny", ["all"], span)]
    if (allow_env and allow_hosts and not all_allowed) or (deny_env and deny_hosts):
        # addresses and variables on one side: the whole decision as maps
        allows = [("all", span)] if all_allowed else allow_env + _cidr(allow_hosts)
        value = compat_condition(conditions, allows, deny_env + _cidr(deny_hosts), "allow,deny", span)
        return conditions.refuse_unless(value, (GRANTED,), span, what)
    env_allows = allow_env if allow_env and not all_allowed else [("all", span)]
    value = compat_condition(conditions, env_allows, deny_env, "allow,deny", span)
    hosts = ["all"] if all_allowed or not allow_hosts else [_compat_host(v, s) for v, s in allow_hosts]
    denied = [_compat_host(v, s) for v, s in deny_hosts]
    ips = [] if hosts == ["all"] and not denied else _ip_list(hosts, denied, span)
    return conditions.refuse_unless(value, (GRANTED,), span, what) + ips


def _cidr(entries: list) -> list:
    return [(_compat_host(v, s), s) for v, s in entries]


def _enforce(eff: Effective, span: Span | None, conditions: Conditions | None = None) -> list[Stmt]:
    authz = _simplify(eff.authz) if eff.authz is not None else None
    if eff.compat and eff.satisfy == "any":
        # Satisfy Any: admitted when the host check passes or the Require tree grants (src: request.c,
        # ap_process_request_internal skips authn/authz once the access checker admits)
        if compat_passes(eff) or (authz is not None and _grants(authz)):
            return []
        if not (eff.authz is not None and eff.authz.children) and auth_type_without_authz(eff) is None:
            # no Require line and no AuthType: mod_authz_core's access_checker_ex grants ("no directives",
            # AH01628), which admits the request whatever the host check said
            return []
        if authz is not None and _denies(authz):
            return _compat_env(eff, conditions) if _compat_has_env(eff) else _compat_list(eff)
    if authz is None and auth_type_without_authz(eff):
        return _authz_missing(eff)
    if authz is not None and _always_denied(authz):
        # denied before any login is asked for (403, no challenge): no auth_basic, nor the rewrite-phase user
        # test, which would answer 401 before nginx's allow/deny list
        return [Stmt("deny", ["all"], authz.span)]
    if authz is not None and _has_cond(authz):
        if _has_user(authz):
            if eff.compat:
                raise Refused("Require env/expr and users together with Order/Allow/Deny", eff.compat_span)
            return _cond_user_enforce(eff, authz, conditions)
        required = _cond_enforce(authz, conditions, span)
        if not eff.compat:
            return required
        # Satisfy All: the host check (Order/Allow/Deny) and the Require tree must both admit the request
        if eff.satisfy == "any":
            raise Refused("Order/Allow/Deny with Satisfy Any together with Require env/expr", eff.compat_span)
        hosts = _compat_env(eff, conditions) if _compat_has_env(eff) else _compat_list(eff)
        lists = [[st for st in part if st.name in ("allow", "deny")] for part in (hosts, required)]
        lists = [l for l in lists if l and l != [Stmt("allow", ["all"], l[0].span)]]
        if len(lists) > 1:
            raise Refused("Order/Allow/Deny on addresses together with Require ip and env/expr", eff.compat_span)
        return [st for st in hosts + required
                if not (st.name == "allow" and st.args == ["all"] and lists)]
    if eff.compat and _compat_has_env(eff):
        form = _form(authz) if authz is not None else ("grant",)
        if form[0] == "deny":
            return [Stmt("deny", ["all"], authz.span)]
        if form[0] != "grant":
            raise Refused("Allow/Deny from env= together with Require", eff.compat_span)
        return _compat_env(eff, conditions)
    try:
        form = _form(authz) if authz is not None else ("grant",)
    except Refused:
        if authz is None or conditions is None or eff.compat or not _plain(authz):
            raise
        # a combination of addresses nginx's allow/deny list cannot order: the decision as maps
        return _cond_enforce(authz, conditions, span)
    user = None
    if form[0] == "user" and not eff.compat and _no_auth_type(eff):
        return [Stmt("return", ["500"], authz.span, comment=USER_WITHOUT_AUTH)]
    if form[0] == "user" and not eff.compat and _basic_without_name(eff):
        return [Stmt("return", ["500"], eff.auth["type"][1], comment=BASIC_WITHOUT_NAME)]
    if form[0] in ("user", "ip+user"):
        user = _basic_auth(eff, authz.span if authz else span)
    if eff.compat:
        compat_list = _compat_list(eff)
        if form[0] == "grant":
            return compat_list
        if form[0] == "deny":
            return [Stmt("deny", ["all"], authz.span)]
        if form[0] == "user":
            if form[1] is not None:
                raise Refused("Order/Allow/Deny together with Require user or group", eff.compat_span)
            return [Stmt("satisfy", [eff.satisfy], eff.compat_span)] + compat_list + user
        raise Refused("Order/Allow/Deny together with a Require on addresses", eff.compat_span)
    if form[0] == "grant":
        return []
    if form[0] == "deny":
        return [Stmt("deny", ["all"], authz.span)]
    if form[0] == "ip":
        return _ip_list(form[1], form[2], authz.span)
    if form[0] == "user":
        return user + _user_filter(eff, form, authz.span)
    if form[0] == "ip+user":
        _, allow, deny, how = form
        return [Stmt("satisfy", [how], authz.span)] + _ip_list(allow, deny, authz.span) + user
    if form[0] == "method":
        return [Stmt("limit_except", sorted(form[1]), authz.span, block=[Stmt("deny", ["all"], authz.span)])]
    raise Refused("this Require combination", authz.span)


def auth_type_without_authz(eff: Effective) -> Span | None:
    """The AuthType (other than None) of a region whose merged sections hold no Require line: httpd answers
    every request there 500 (src: mod_authz_core.c, authorize_user_core, AH01627 "AuthType configured with
    no corresponding authorization directives"). mod_authn_core reads `AuthType None` as no type."""
    if eff.authz is not None and eff.authz.children:
        return None
    kind = eff.auth.get("type")
    if kind is None or kind[0].lower() == "none":
        return None
    return kind[1]


AUTHZ_MISSING = "AuthType without Require: httpd answers 500"


USER_WITHOUT_AUTH = "Require user without AuthType: httpd answers 500"


AUTHZ_MISSING_BY_ADDRESS = "AuthType without Require under Satisfy Any: httpd answers 500 where the hosts refuse"


def _no_auth_type(eff: Effective) -> bool:
    """No AuthType (or AuthType None) and no other authentication directive nginx lacks: a Require that needs
    a user makes httpd look for one no module can give; the request then ends 500 whatever it carries (src:
    request.c, ap_process_request_internal, AH00027 "No authentication done but request not allowed without
    authentication"; mod_authn_core's authenticate_no_user admits without a user when there is no AuthType)."""
    kind = eff.auth.get("type")
    return (kind is None or kind[0].lower() == "none") and "unsupported" not in eff.auth


BASIC_WITHOUT_NAME = "AuthType Basic without AuthName: httpd answers 500"


def _basic_without_name(eff: Effective) -> bool:
    """AuthType Basic with no AuthName: mod_auth_basic ends every request it is asked to authenticate with
    500, before it reads any credentials or provider (src: mod_auth_basic.c, authenticate_basic_user, AH01615
    "need AuthName")."""
    kind = eff.auth.get("type")
    return kind is not None and kind[0].lower() == "basic" and "name" not in eff.auth


def _authz_missing(eff: Effective) -> list[Stmt]:
    """httpd's 500 for an AuthType without authorization (auth_type_without_authz). It comes from the
    access_checker_ex hook, after mod_access_compat's check (request.c): Order/Allow/Deny that refuse some
    clients would answer them 403 first, which a rewrite-phase `return` cannot follow, so that is refused."""
    where = auth_type_without_authz(eff)
    if eff.compat and eff.satisfy == "all" and not _compat_has_env(eff):
        hosts = _compat_list(eff)
        if [(st.name, st.args) for st in hosts] == [("deny", ["all"])]:
            return hosts        # refused to everyone before authorization is asked
    if eff.compat and eff.satisfy == "any" and not _compat_has_env(eff):
        # under Satisfy Any an address the host check admits is served, authorization unasked (request.c,
        # ap_process_request_internal): the host list lets those in; the others get httpd's 500, nginx's 403
        hosts = _compat_list(eff)
        hosts[-1] = dataclasses.replace(hosts[-1], comment=AUTHZ_MISSING_BY_ADDRESS)
        return hosts
    if eff.compat:
        answers = "serves or answers 500" if eff.satisfy == "any" else "answers 403 or 500"
        raise Refused(f"AuthType without Require beside Order/Allow/Deny (httpd {answers} by address)",
                      eff.compat_span or where)
    return [Stmt("return", ["500"], where, comment=AUTHZ_MISSING)]


def _user_filter(eff: Effective, form: tuple, span: Span | None) -> list[Stmt]:
    """Require user/group: auth_basic checks the password, and a rewrite-phase test on the claimed name
    (empty: no credentials yet, so auth_basic still sends its challenge) answers 401 for anyone else, as
    httpd re-asks a user it does not authorize. Groups are read from AuthGroupFile now (reported)."""
    if form[1] is None:
        return []
    names = set(form[1])
    if len(form) > 2:
        names |= _group_members(eff, form[2], span)
    realm = eff.auth.get("name", ("Restricted", span))[0]     # (quotes escaped as mod_auth_basic does)
    pattern = "^(?:|" + "|".join(_literal_regex(n) for n in sorted(names)) + ")$"
    return [Stmt("if", [f'($remote_user !~ "{pattern}")'], span, comment="Require user/group",
                 block=[Stmt("add_header", ["WWW-Authenticate", f'Basic realm="{realm}"', "always"], span),
                        Stmt("return", ["401"], span)])]


def _literal_regex(text: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "\\" + c for c in text)


def _group_members(eff: Effective, groups: frozenset, span: Span | None) -> set[str]:
    local = eff.auth.get("groupfile_local")
    if local is None:
        raise Refused(f"Require group {' '.join(sorted(groups))} (the AuthGroupFile cannot be read here)", span)
    return group_members(local[0], groups)


def _grants(node: Authz) -> bool:
    """The tree grants every request (whatever a request carries)."""
    try:
        return _form(node) == ("grant",)
    except Refused:
        return False


def _denies(node: Authz) -> bool:
    try:
        return _form(node) == ("deny",)
    except Refused:
        return False


def _has_user(node: Authz) -> bool:
    if node.op == "leaf":
        return node.kind in ("valid-user", "user", "group")
    return any(_has_user(c) for c in node.children)


def asks_login(configs: list) -> bool:
    """Whether httpd may answer a region merged from CONFIGS with a login's 401: AuthType Basic in force (each
    Auth* setting is inherited on its own, see merge) and a Require line that needs a user, in a section or in
    a method section of one. mod_auth_basic's challenge ends the request with 401, which httpd answers with
    the ErrorDocument 401 in force (http_request.c ap_die)."""
    configs = [c for c in configs if isinstance(c, AccessConfig)]
    kind = next((c.auth["type"][0] for c in reversed(configs) if "type" in c.auth), None)
    if kind is None or kind.lower() != "basic":
        return False
    trees = [c.authz for c in configs] + [inner.authz for c in configs for _, _, inner, _ in c.limits]
    return any(t is not None and _has_user(t) for t in trees)


def _compat_refuses_everyone(eff: Effective) -> bool:
    """Whether the merged Order/Allow/Deny lines of EFF refuse every client under `Satisfy All`; False where an
    address cannot be read (that refusal is reported where the lines are lowered)."""
    if not eff.compat or eff.satisfy != "all" or _compat_has_env(eff):
        return False
    try:
        return [(st.name, st.args) for st in _compat_list(eff)] == [("deny", ["all"])]
    except Refused:
        return False


def fails_authn(configs: list) -> bool:
    """Whether httpd may end a request of a region merged from CONFIGS with its own 500 for its authentication
    settings, for every method or for those of a class a method section makes (_project): an AuthType with no
    Require line (auth_type_without_authz, AH01627), or a Require that needs a user with no AuthType (AH00027)
    or an AuthType Basic without AuthName (AH01615); not where Order/Allow/Deny refuse everyone first (their
    403 comes before, request.c). httpd answers that 500 with the ErrorDocument 500 in force (http_request.c
    ap_die): a local page through an internal redirect whose answer carries the page's own headers, the
    server's `Header onsuccess` lines too (observed with httpd 2.4)."""
    configs = [c for c in configs if isinstance(c, AccessConfig)]
    views = [[_project(c, inside) for c in configs] for inside in (True, False)] \
        if any(c.limits for c in configs) else [configs]
    for view in views:
        try:
            eff = merge(view)
        except Refused:
            continue
        if _compat_refuses_everyone(eff):
            continue
        user = eff.authz is not None and _has_user(eff.authz)
        if auth_type_without_authz(eff) is not None or (user and (_no_auth_type(eff) or _basic_without_name(eff))):
            return True
    return False


def _enforce_limits(configs: list[AccessConfig], limited: list[AccessConfig], span: Span | None,
                    conditions: Conditions | None = None) -> list[Stmt]:
    """<Limit>/<LimitExcept> (observed on httpd 2.4): a section's Require lines, limited or not, replace the
    earlier sections' for every method (unless AuthMerging), and a method none of them applies to is granted;
    its Order/Allow/Deny likewise replace the earlier ones. So there are two classes of methods, those the
    method section covers and the others, each with its own merged rules; nginx's limit_except names the
    methods that keep the location's own statements and holds the others'."""
    sets = {(c.limits[0][0], frozenset(c.limits[0][1])) for c in limited}
    kind, methods = next(iter(sets))
    where = limited[-1].limits[0][3]
    if len(sets) > 1:
        raise Refused("method sections for different methods in the sections that cover this region", where)
    inside = _enforce(merge([_project(c, True) for c in configs]), where, conditions)
    outside = _enforce(merge([_project(c, False) for c in configs]), span, conditions)
    if _same_statements(inside, outside):
        # both classes end with the same rules: an AuthMerging can join the method section's lines to a
        # section's for every method, and a later section's Require lines replace the method section for
        # every method (a `Require method` there included, observed on httpd 2.4). No method block is needed,
        # so whatever the rules compile to stands at location level, as for a region without one
        return outside
    if any(st.comment in (AUTHZ_MISSING, USER_WITHOUT_AUTH, BASIC_WITHOUT_NAME) for st in inside + outside):
        raise Refused("AuthType without Require for some methods (httpd answers them 500; nginx's method "
                      "blocks cannot)", where)
    if any(st.name in ("if", "limit_except") for st in inside + outside):
        # limit_except holds access-phase directives only
        raise Refused("Require env/expr, Require user or Require method inside a method section", where)
    inside, outside, satisfy = _settle_satisfy(_self_contained(inside, outside, where), outside, where)
    if kind == "limitexcept":
        # the listed methods keep the location's statements; every other method (nginx: not listed) is inside
        keep, location_level, block = sorted(methods), outside, inside
    else:
        if outside and not all(st.name == "deny" and st.args == ["all"] for st in inside):
            # methods nginx does not know would get the listed methods' (looser) rules
            raise Refused("<Limit> with rules beside it for the other methods (use <LimitExcept>)", where)
        keep = [m for m in NGINX_METHODS if m not in methods and not (m == "HEAD" and "GET" in methods)]
        location_level, block = outside, inside
    return satisfy + location_level + [Stmt("limit_except", keep, where, block=block or [Stmt("allow", ["all"],
                                                                                               where)])]


def _same_statements(one: list[Stmt], other: list[Stmt]) -> bool:
    """Whether two lists of statements say the same, wherever they come from."""
    def key(stmts):
        return [(st.name, list(st.args), key(st.block) if st.block is not None else None) for st in stmts]
    return key(one) == key(other)


def _self_contained(inside: list[Stmt], outside: list[Stmt], where: Span | None) -> list[Stmt]:
    """A limit_except block inherits the location's allow/deny list and auth_basic where it has none of its
    own: the block says `allow all` / `auth_basic off` then, so that only its own rules count."""
    names = {st.name for st in inside}
    extra = []
    if not names & {"allow", "deny"} and any(st.name in ("allow", "deny") for st in outside):
        extra.append(Stmt("allow", ["all"], where))
    if "auth_basic" not in names and any(st.name == "auth_basic" for st in outside):
        extra.append(Stmt("auth_basic", ["off"], where))
    return inside + extra


def _settle_satisfy(inside: list[Stmt], outside: list[Stmt], where: Span | None
                    ) -> tuple[list[Stmt], list[Stmt], list[Stmt]]:
    """nginx takes `satisfy` at location level only, and the limit_except block inherits it: one value must
    serve both. It decides only where a block has both an allow/deny list and auth_basic; where both do and
    want different values, the region is refused."""
    def wanted(stmts: list[Stmt]) -> tuple[str | None, bool]:
        value = next((st.args[0] for st in stmts if st.name == "satisfy"), "all")
        matters = any(st.name in ("allow", "deny") for st in stmts) and \
            any(st.name == "auth_basic" and st.args != ["off"] for st in stmts)
        return value, matters
    (want_in, in_matters), (want_out, out_matters) = wanted(inside), wanted(outside)
    if in_matters and out_matters and want_in != want_out:
        raise Refused(f"Satisfy {want_in.capitalize()} for the methods of a method section and Satisfy "
                      f"{want_out.capitalize()} for the others (nginx has one per location)", where)
    value = want_in if in_matters else want_out if out_matters else None
    span = next((st.span for st in inside + outside if st.name == "satisfy"), where)
    strip = [[st for st in part if st.name != "satisfy"] for part in (inside, outside)]
    return strip[0], strip[1], ([Stmt("satisfy", [value], span)] if value is not None else [])


def _project(config: AccessConfig, inside: bool) -> AccessConfig:
    """A section's rules for one class of methods: its unlimited lines, plus the method section's when the
    class is the one it covers. A section that says anything about access still replaces earlier ones."""
    if not config.limits:
        return config
    _, _, inner, where = config.limits[0]
    # a Satisfy inside the method section holds for its methods only
    view = AccessConfig(merging=config.merging, walk=config.walk,
                        satisfy=(inner.satisfy if inside else None) or config.satisfy,
                        satisfy_span=(inner.satisfy_span if inside else None) or config.satisfy_span,
                        auth=merge_auth(dict(config.auth), inner.auth), options=config.options,
                        refuse=config.refuse, ssl_only=config.ssl_only)
    lines = (config.authz.children if config.authz else []) + \
        (inner.authz.children if inside and inner.authz else [])
    if config.authz is not None or inner.authz is not None:
        # no line applies to this class: httpd grants it (and the earlier sections' rules no longer count),
        # unless an AuthMerging joins other lines to these (_authz_merge)
        view.authz = Authz("any", children=lines or [Authz("leaf", "all", ["granted"], span=where)], span=where,
                           elsewhere=not lines)
        view.authz_span = where
    if config.has_compat or inner.has_compat:
        view.order = (inner.order if inside and inner.order else None) or config.order or "deny,allow"
        view.allows = list(config.allows or []) + (list(inner.allows or []) if inside else [])
        view.denies = list(config.denies or []) + (list(inner.denies or []) if inside else [])
        view.compat_span = config.compat_span or inner.compat_span
    return view


def _simplify(node: Authz) -> Authz:
    if node.op == "leaf":
        return node
    children = [_simplify(c) for c in node.children]
    if node.op in ("any", "all") and len(children) == 1:
        return children[0]
    return Authz(node.op, children=children, span=node.span or (children[0].span if children else None))


def _users(forms: list[tuple]) -> tuple:
    """Several user requirements in a RequireAny: valid-user absorbs lists; lists and groups add up."""
    if any(f[0] == "user" and f[1] is None for f in forms):
        return ("user", None)
    names = frozenset().union(*(f[1] for f in forms if f[0] == "user"))
    groups = frozenset().union(*(f[1] for f in forms if f[0] == "group"))
    return ("user", names, groups) if groups else ("user", names)


def _form(node: Authz) -> tuple:
    """Classify a Require tree into a shape nginx can enforce, or raise Refused."""
    if node.op == "leaf":
        form = _leaf_form(node)
        return ("user", frozenset(), form[1]) if form[0] == "group" else form
    if node.op == "none":
        raise Refused("<RequireNone>", node.span)
    forms = [_form(c) for c in node.children]
    kinds = {f[0] for f in forms}
    if node.op == "any":
        if "grant" in kinds:
            return ("grant",)
        forms = [f for f in forms if f[0] != "deny"]
        if not forms:
            return ("deny",)
        kinds = {f[0] for f in forms}
        if kinds == {"ip"}:
            if any(f[2] for f in forms):
                raise Refused("Require not ip inside a <RequireAny>", node.span)
            return ("ip", [a for f in forms for a in f[1]], [])
        if kinds == {"user"}:
            return _users(forms)
        if kinds <= {"ip", "user"} and "user" in kinds:
            ips = [f for f in forms if f[0] == "ip"]
            if any(f[2] for f in ips):
                raise Refused("Require not ip inside a <RequireAny>", node.span)
            if _users([f for f in forms if f[0] == "user"]) != ("user", None):
                raise Refused("Require user or group together with addresses", node.span)
            return ("ip+user", [a for f in ips for a in f[1]], [], "any")
        if kinds == {"method"}:
            return ("method", set().union(*(f[1] for f in forms)))
        raise Refused("this <RequireAny> combination", node.span)
    # all
    if "deny" in kinds:
        return ("deny",)
    forms = [f for f in forms if f[0] != "grant"]
    if not forms:
        return ("grant",)
    kinds = {f[0] for f in forms}
    if kinds == {"ip"} or kinds == {"notip"} or kinds == {"ip", "notip"}:
        positive = [f for f in forms if f[0] == "ip"]
        if len(positive) > 1:
            raise Refused("two Require ip lines that must both hold", node.span)
        allow = positive[0][1] if positive else ["all"]
        deny = [a for f in forms for a in f[2]]
        return ("ip", allow, deny)
    if kinds == {"user"} and len(forms) == 1:
        return forms[0]
    if kinds <= {"ip", "notip", "user"} and "user" in kinds:
        if any(f != ("user", None) for f in forms if f[0] == "user"):
            raise Refused("Require user or group together with other requirements", node.span)
        positive = [f for f in forms if f[0] == "ip"]
        if len(positive) > 1:
            raise Refused("two Require ip lines that must both hold", node.span)
        deny = [a for f in forms if f[0] in ("ip", "notip") for a in f[2]]    # ("user", None) has no third part
        return ("ip+user", positive[0][1] if positive else ["all"], deny, "all")
    raise Refused("this <RequireAll> combination", node.span)


def _leaf_form(leaf: Authz) -> tuple:
    kind, args = leaf.kind, leaf.args
    what = f"Require {'not ' if leaf.negated else ''}{kind} {' '.join(args)}".strip()
    if kind == "all":
        value = args[0].lower() if args else ""
        if leaf.negated or value not in ("granted", "denied"):
            raise Refused(what, leaf.span)
        return ("grant",) if value == "granted" else ("deny",)
    if kind == "ip":
        nets = [_network(a, leaf.span) for a in args]
        if leaf.negated:
            return ("notip", [], nets)
        return ("ip", nets, [])
    if kind == "local" and not leaf.negated:
        return ("ip", ["127.0.0.0/8", "::1"], [])
    if kind == "valid-user" and not leaf.negated:
        return ("user", None)
    if kind == "user" and not leaf.negated and args:
        return ("user", frozenset(args))
    if kind == "group" and not leaf.negated and args:
        return ("group", frozenset(args))
    if kind == "env" and args:
        return ("cond",)
    if kind == "expr" and args:
        try:
            check_expression(" ".join(args), ssl_compat=False)
        except Untranslatable as exc:
            raise Refused(f"{what} ({exc})", leaf.span)
        return ("cond",)
    if kind == "method":
        methods, unknown = httpd_methods(args)
        if unknown or not methods:
            raise Refused(f"{what} ({_unknown_methods(unknown) if unknown else 'no method'})", leaf.span)
        if leaf.negated:
            raise Refused(what, leaf.span, maps=True)
        return ("method", methods)
    raise Refused(what, leaf.span)


def _network(text: str, span: Span | None) -> str:
    """httpd's address forms: a full address, a partial one (`10.1` = 10.1.0.0/16), `a/nn`, `a/mask`."""
    try:
        if "/" in text:
            addr, _, mask = text.partition("/")
            if "." in mask:
                return str(ipaddress.ip_network(f"{addr}/{mask}", strict=False))
            return str(ipaddress.ip_network(text, strict=False))
        if ":" in text:
            return str(ipaddress.ip_address(text))
        parts = text.rstrip(".").split(".")
        if len(parts) < 4 and all(p.isdigit() for p in parts):
            net = ".".join(parts + ["0"] * (4 - len(parts)))
            return str(ipaddress.ip_network(f"{net}/{8 * len(parts)}", strict=False))
        return str(ipaddress.ip_address(text))
    except ValueError:
        raise Refused(f"the host or address {text!r} (host names need DNS lookups nginx does not do)", span)


def _ip_list(allow: list[str], deny: list[str], span: Span | None) -> list[Stmt]:
    out = [Stmt("deny", [d], span) for d in deny]
    if allow == ["all"]:
        return out + [Stmt("allow", ["all"], span)]
    return out + [Stmt("allow", [a], span) for a in allow] + [Stmt("deny", ["all"], span)]


def _compat_list(eff: Effective) -> list[Stmt]:
    """mod_access_compat's three passes as nginx's first-match allow/deny list."""
    allows = [_compat_host(v, s) for v, s in eff.allows]
    denies = [_compat_host(v, s) for v, s in eff.denies]
    span = eff.compat_span
    # An explicit `allow all` ends a list whose default is to allow: under `satisfy any` nginx counts only
    # a matching allow as a grant.
    if eff.order == "deny,allow":
        # default allow; Deny applies, then Allow overrides it
        if "all" in allows:
            return [Stmt("allow", ["all"], span)]
        return [Stmt("allow", [a], span) for a in allows] + [Stmt("deny", [d], span) for d in denies] + \
            [Stmt("allow", ["all"], span)]
    # allow,deny and mutual-failure: default deny; allowed only if Allow matches and Deny does not
    if "all" in denies:
        return [Stmt("deny", ["all"], span)]
    out = [Stmt("deny", [d], span) for d in denies]
    if "all" in allows:
        return out + [Stmt("allow", ["all"], span)]
    return out + [Stmt("allow", [a], span) for a in allows] + [Stmt("deny", ["all"], span)]


def _compat_host(value: str, span: Span) -> str:
    if value.lower() == "all":
        return "all"
    if value.lower().startswith("env="):
        raise Refused(f"Allow/Deny from {value} (environment variables)", span)
    return _network(value, span)


def _basic_auth(eff: Effective, span: Span | None) -> list[Stmt]:
    if "unsupported" in eff.auth:
        name, where = eff.auth["unsupported"]
        raise Refused(f"{name} (an authentication method or provider nginx does not have)", where)
    kind = eff.auth.get("type")
    if kind is None or kind[0].lower() != "basic":
        raise Refused(f"AuthType {kind[0] if kind else '(none)'} (only Basic is translated)",
                      kind[1] if kind else span)
    if _basic_without_name(eff):
        # httpd answers 500 to the requests it authenticates, nginx cannot tell those from the others here
        raise Refused("AuthType Basic without AuthName (httpd answers 500 where it would ask for the login)",
                      kind[1])
    provider = eff.auth.get("provider")
    if provider is not None and provider[0].lower() != "file":
        raise Refused(f"AuthBasicProvider {provider[0]}", provider[1])
    userfile = eff.auth.get("userfile")
    if userfile is None:
        raise Refused("Require valid-user without an AuthUserFile", span)
    for refused in ("userfile_refused", "name_refused"):
        if refused in eff.auth:
            raise Refused(*eff.auth[refused])
    name = eff.auth.get("name", ("", span))[0] or "Restricted"
    if name == "off":
        raise Refused(_REALM_OFF, eff.auth["name"][1])
    # httpd reads a `$` of the file name as itself; auth_basic_user_file reads variables (_realm wrote the name)
    return [Stmt("auth_basic", [name], kind[1]),
            Stmt("auth_basic_user_file", [written_literally(userfile[0])], userfile[1])]


def options_statements(eff: Effective, listings_off: bool = False) -> list[Stmt]:
    """Options Indexes -> autoindex (not where LISTINGS_OFF: Options in a section left out may refuse them,
    untranslated_options); symlink options -> disable_symlinks (nginx follows by default)."""
    out = []
    span = eff.options_span
    if "indexes" in eff.options and not listings_off:
        out.append(Stmt("autoindex", ["on"], span))
    if "followsymlinks" not in eff.options:
        out.append(Stmt("disable_symlinks", ["if_not_owner" if "symlinksifownermatch" in eff.options else "on"],
                        span))
    return out


def directory_slash_statements(eff: Effective, model) -> list[Stmt]:
    """DirectorySlash Off (without Options Indexes) where nginx would redirect a directory requested without
    its slash: refused in the rewrite phase, GET and HEAD with 403 and POST with 404 as httpd answers (other
    methods keep nginx's 405). The statements go after the location's rewrites (httpd's mod_rewrite fixup
    runs before mod_dir's)."""
    if eff.directory_slash is None or eff.directory_slash[0] or "indexes" in eff.options:
        return []
    span = eff.directory_slash[1]
    out = []
    for methods, status in (("GET|HEAD", "403"), ("POST", "404")):
        variable = model.shared_map("a2n_dirslash_", "$request_method:$uri",
                                    [(f"~^(?:{methods}):.*[^/]$", "$request_filename")], '""', span=span)
        out.append(Stmt("if", [f"(-d {variable})"], span, block=[Stmt("return", [status], span)],
                        comment="DirectorySlash Off: a directory without its slash"))
    return out


RULES = table(
    Rule("Require", Disposition.EXACT, require),
    Rule("RequireAll", Disposition.EXACT, require_container, section=True),
    Rule("RequireAny", Disposition.EXACT, require_container, section=True),
    Rule("RequireNone", Disposition.EXACT, require_container, section=True),
    Rule("AuthMerging", Disposition.EXACT, auth_merging),
    Rule("Order", Disposition.EXACT, order),
    Rule("Allow", Disposition.EXACT, allow_deny),
    Rule("Deny", Disposition.EXACT, allow_deny),
    Rule("Satisfy", Disposition.EXACT, satisfy),
    Rule("AuthType", Disposition.EXACT, auth_setting),
    Rule("AuthName", Disposition.EXACT, auth_setting),
    Rule("AuthUserFile", Disposition.EXACT, auth_setting),
    Rule("AuthGroupFile", Disposition.EXACT, auth_setting),
    Rule("AuthBasicProvider", Disposition.EXACT, auth_setting),
    Rule("AuthDigestProvider", Disposition.UNSUPPORTED, auth_unsupported),
    Rule("AuthDigestDomain", Disposition.UNSUPPORTED, auth_unsupported),
    Rule("AuthLDAPURL", Disposition.UNSUPPORTED, auth_unsupported),
    Rule("AuthDBMUserFile", Disposition.UNSUPPORTED, auth_unsupported),
    Rule("AuthDBDUserPWQuery", Disposition.UNSUPPORTED, auth_unsupported),
    Rule("SSLRequireSSL", Disposition.EXACT, ssl_require_ssl),
    Rule("SSLRequire", Disposition.EXACT, ssl_require),
    Rule("Options", Disposition.EXACT, options),
    Rule("FallbackResource", Disposition.EXACT, fallback_resource),
    Rule("DirectorySlash", Disposition.EXACT, directory_slash),
    Rule("AcceptPathInfo", Disposition.EXACT, accept_path_info),
    Rule("AllowOverride", Disposition.EXACT, allow_override),
    Rule("AllowOverrideList", Disposition.EXACT, allow_override),
    Rule("If", Disposition.UNSUPPORTED, if_section, section=True),
    Rule("ElseIf", Disposition.UNSUPPORTED, if_section, section=True),
    Rule("Else", Disposition.UNSUPPORTED, if_section, section=True),
    Rule("Limit", Disposition.UNSUPPORTED, limit_section, section=True),
    Rule("LimitExcept", Disposition.UNSUPPORTED, limit_section, section=True),
    Rule("Directory", Disposition.EXACT, directory, section=True),
    Rule("DirectoryMatch", Disposition.UNSUPPORTED, directory, section=True),
    Rule("Files", Disposition.EXACT, files, section=True),
    Rule("ProxyMatch", Disposition.EXACT, proxy_match_section, section=True),
    Rule("SetEnvIfExpr", Disposition.UNSUPPORTED, set_env_if_expr),
    Rule("FilesMatch", Disposition.EXACT, files, section=True),
)
