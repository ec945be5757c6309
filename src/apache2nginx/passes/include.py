"""mod_include (server-side includes) becomes nginx's ssi module.

Owns: AddOutputFilter (mod_mime's filters by extension; INCLUDES is the one translated), XBitHack and the
SSI* settings, and the Includes part of Options (access.options hands it here). SetOutputFilter and
AddOutputFilterByType belong to the misc pass; their INCLUDES filter is meant to come here through
`set_output_filter` and `add_output_filter_by_type`.

httpd parses a response when the INCLUDES filter is attached to it (SetOutputFilter: every response of the
scope; AddOutputFilter: by any extension of the file's name; AddOutputFilterByType: by the response's
content type) *and* Options Includes or IncludesNOEXEC is in effect there (src: includes_filter removes
itself otherwise). Where the filter is attached without the option, httpd sends the file as it is, but
without an ETag and never as a 304 (includes_setup runs first): that is reported (A2N762), nothing is
emitted. nginx parses where `ssi on` is set and the response's type is in ssi_types (text/html always).

So for every <Directory> (and the server's own Options) where the filter and the option first meet, the
translation emits, in that section's locations: SetOutputFilter -> `ssi on; ssi_types *;`; by type ->
`ssi on; ssi_types T...;`; by extension -> a nested `location ~ (?i)\\.ext(\\.[^/]*)?$` (a <Files>-like
section) with `ssi on; ssi_types *;`. Each is approximate (A2N757): nginx's SSI has no exec, fsize,
flastmod or printenv, its `if expr=` is not ap_expr, and its error text differs. Where httpd parses and the
translation cannot say so (XBitHack, a subdirectory that changes the parent's SSI state, a <Location>, an
extension list inside <Files>) the directive is unsupported (A2N758). SSI settings without an nginx
equivalent are reported (A2N759).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Scope, Stmt
from ..syntax.span import Span
from ..syntax.tree import Directive
from . import contexts
from .base import Context, Disposition, flag, Rule, table

# ----------------------------------------------------------------- what the directives record


@dataclass
class Attach:
    """One filter directive as it bears on INCLUDES: SetOutputFilter (`set`, replacing the scope's list),
    AddOutputFilter (`ext`, per extension) or AddOutputFilterByType (`type`)."""

    how: str
    includes: bool
    values: tuple[str, ...]
    directive: Directive


@dataclass
class State:
    """What httpd does for requests in a region: parse (Options Includes/IncludesNOEXEC), exec allowed,
    and where the INCLUDES filter is attached."""

    parse: bool = False
    exec_: bool = False
    set_: Directive | None = None              # SetOutputFilter INCLUDES in effect
    exts: dict[str, Directive | None] = field(default_factory=dict)   # ext -> AddOutputFilter (None: removed)
    types: dict[str, Directive] = field(default_factory=dict)
    xbithack: Directive | None = None          # XBitHack on/full in effect
    options: list[Span] = field(default_factory=list)

    @property
    def filters(self) -> list[Directive]:
        out = [self.set_] if self.set_ is not None else []
        out += [d for d in self.exts.values() if d is not None] + list(self.types.values())
        return list(dict.fromkeys(out))

    def key(self) -> tuple:
        """What nginx's emission depends on."""
        if not self.parse or not self.filters:
            return ()
        exts = tuple(sorted(e for e, d in self.exts.items() if d is not None))
        return (self.set_ is not None, exts if self.set_ is None else (), tuple(sorted(self.types))
                if self.set_ is None else ())


def _record(ctx: Context, attach: Attach) -> None:
    ctx.settings.setdefault("ssi", []).append(attach)
    ctx.main.settings.setdefault("ssi_filters", []).append(attach.directive)


def _in_location(ctx: Context, d: Directive, what: str) -> Disposition | None:
    if ctx.scope is not None and ctx.scope.kind not in ("directory", "files"):
        ctx.diags.add("A2N758", f"{d.name} {' '.join(d.args)} inside <{ctx.scope.kind.capitalize()}>: {what} is not "
                      "translated there; responses httpd parses are sent unparsed", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    return None


def _files_options(ctx: Context, d: Directive) -> None:
    """Options inside a <Files> section (the access pass reports them, A2N743) still decide whether httpd
    parses the files it matches: kept for the SSI state of that section."""
    if ctx.scope is None or ctx.scope.kind != "files" or "ssi_options" in ctx.scope.settings:
        return
    parent = getattr(d, "parent", None)
    words = [(a, c.span) for c in getattr(parent, "children", ()) if not c.is_section and c.key == "options"
             for a in c.args]
    ctx.scope.settings["ssi_options"] = words


def add_output_filter(ctx: Context, d: Directive) -> Disposition:
    """AddOutputFilter FILTER[;FILTER] ext...: mod_mime attaches the filters to files with any of these
    extensions (anywhere in the name after its first dot, case-insensitive)."""
    if len(d.args) < 2:
        ctx.diags.add("A2N001", f"{d.name} needs a filter and at least one extension", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    names = [f.upper() for f in d.args[0].split(";") if f]
    others = [f for f in names if f != "INCLUDES"]
    disposition = Disposition.APPROXIMATE
    if others:
        ctx.diags.add("A2N101", f"{d.name} {';'.join(others)}: this output filter has no nginx translation by "
                      "extension; nothing was emitted for it", d.span, directive=d.name)
        disposition = Disposition.UNSUPPORTED
    ctx.main.settings.setdefault("ssi_other", {})[id(d)] = disposition
    exts = tuple(e.lstrip(".").lower() for e in d.args[1:] if e.lstrip("."))
    if "INCLUDES" not in names:
        # it replaces the filters of these extensions, INCLUDES among them
        ctx.settings.setdefault("ssi", []).append(Attach("ext", False, exts, d))
        return disposition
    refused = _in_location(ctx, d, "a filter by extension")
    if refused is None and ctx.scope is not None and ctx.scope.kind == "files":
        ctx.diags.add("A2N758", f"{d.name} {' '.join(d.args)} inside <Files>: a filter by extension is not "
                      "translated there; responses httpd parses are sent unparsed", d.span, directive=d.name)
        refused = Disposition.UNSUPPORTED
    if refused is not None:
        return refused
    _record(ctx, Attach("ext", True, exts, d))
    return disposition


def set_output_filter(ctx: Context, d: Directive, filters: list[str]) -> Disposition | None:
    """For the misc pass's SetOutputFilter: it replaces the scope's filter list, so one without INCLUDES
    detaches it. Returns the disposition of the INCLUDES part (None when there is none)."""
    includes = any(f.upper() == "INCLUDES" for f in filters)
    if not includes:
        ctx.settings.setdefault("ssi", []).append(Attach("set", False, (), d))
        return None
    refused = _in_location(ctx, d, "SetOutputFilter INCLUDES")
    if refused is not None:
        return refused
    _files_options(ctx, d)
    _record(ctx, Attach("set", True, (), d))
    return Disposition.APPROXIMATE


def add_output_filter_by_type(ctx: Context, d: Directive, types: list[str]) -> Disposition:
    """For the misc pass's AddOutputFilterByType INCLUDES type...: attached by the response's content type."""
    refused = _in_location(ctx, d, "AddOutputFilterByType INCLUDES")
    if refused is not None:
        return refused
    _files_options(ctx, d)
    _record(ctx, Attach("type", True, tuple(t.lower() for t in types), d))
    return Disposition.APPROXIMATE


def options_includes(ctx: Context, d: Directive) -> Disposition:
    """Options Includes/IncludesNOEXEC: the gate, not the filter. Alone it changes nothing (httpd parses only
    where an INCLUDES filter is attached too); where both meet, the filter's directive carries the
    translation and its differences. So the option itself is exact."""
    return Disposition.EXACT


def xbithack(ctx: Context, d: Directive) -> Disposition:
    """XBitHack on|full: httpd parses text/html files whose owner-execute bit is set (where Options Includes
    is in effect). nginx cannot test file permissions; decided once the Options are known."""
    value = flag(d)
    if value not in ("on", "off", "full"):
        ctx.diags.add("A2N001", f"XBitHack takes on, off or full, not {' '.join(d.args)}", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.settings["ssi_xbithack"] = d if value != "off" else None
    return Disposition.EXACT


# ----------------------------------------------------------------- SSI settings

_DEFAULTS = {"ssitimeformat": "%A, %d-%b-%Y %H:%M:%S %Z", "ssiundefinedecho": "(none)", "ssistarttag": "<!--#",
             "ssiendtag": "-->"}


def ssi_setting(ctx: Context, d: Directive) -> Disposition:
    """SSITimeFormat, SSIUndefinedEcho, SSIStartTag, SSIEndTag: nginx's ssi module has the same defaults
    (timefmt, "(none)", <!--# and -->) and no directive to change them."""
    value = d.args[0] if d.args else ""
    if value == _DEFAULTS[d.key]:
        return Disposition.EXACT
    ctx.diags.add("A2N759", f"{d.name} {value}: nginx's ssi module cannot be configured this way; pages it "
                  f"parses use the default ({_DEFAULTS[d.key]})", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def ssi_error_msg(ctx: Context, d: Directive) -> Disposition:
    """SSIErrorMsg: nginx prints its own text, or nothing with ssi_silent_errors. An empty message, or one
    that is only an HTML comment (invisible in a page), becomes ssi_silent_errors on."""
    value = d.args[0] if d.args else ""
    if re.fullmatch(r"\s*(<!--.*?-->\s*)?", value, re.S) and ctx.scope is None:
        ctx.emit("ssi_silent_errors", ["on"], d.span)
        if value.strip():
            ctx.diags.add("A2N759", f"SSIErrorMsg {value}: nginx writes nothing in place of a failed SSI "
                          "directive (ssi_silent_errors on) where httpd writes this comment", d.span,
                          directive=d.name)
            return Disposition.APPROXIMATE
        return Disposition.EXACT
    ctx.diags.add("A2N759", f"SSIErrorMsg {value}: nginx writes its own text ([an error occurred while "
                  "processing the directive]) in place of a failed SSI directive", d.span, directive=d.name)
    return Disposition.UNSUPPORTED


def ssi_last_modified(ctx: Context, d: Directive) -> Disposition:
    """SSILastModified on keeps Last-Modified on parsed pages: nginx's ssi_last_modified on, which also keeps
    a weak ETag where httpd drops it (unless SSIETag on)."""
    value = flag(d)
    if value == "off":
        return Disposition.EXACT
    if value != "on" or ctx.scope is not None:
        ctx.diags.add("A2N759", f"SSILastModified {' '.join(d.args)} inside a section: not translated (only "
                      "server-wide); parsed pages are sent without Last-Modified", d.span, directive=d.name)
        return Disposition.UNSUPPORTED
    ctx.emit("ssi_last_modified", ["on"], d.span)
    ctx.diags.add("A2N759", "SSILastModified on becomes ssi_last_modified on, which also keeps a weak ETag on "
                  "parsed pages (httpd drops the ETag unless SSIETag on)", d.span, directive=d.name)
    return Disposition.APPROXIMATE


def ssi_etag(ctx: Context, d: Directive) -> Disposition:
    value = flag(d)
    if value == "off":
        return Disposition.EXACT     # nginx drops the ETag of parsed pages too (weak with ssi_last_modified)
    ctx.diags.add("A2N759", f"SSIETag {' '.join(d.args)}: nginx never keeps a parsed page's strong ETag", d.span,
                  directive=d.name)
    return Disposition.UNSUPPORTED


def ssi_legacy_expr(ctx: Context, d: Directive) -> Disposition:
    """SSILegacyExprParser: the dialect of `<!--#if expr=-->`. nginx's is neither, though closer to the legacy
    one; the difference is reported with every translated filter (A2N757)."""
    if flag(d) == "on":
        ctx.diags.add("A2N759", "SSILegacyExprParser on: nginx's `if expr=` knows only `$v`, `$v = text`, "
                      "`$v != text` and /regex/, not &&, ||, ! or comparisons", d.span, directive=d.name)
        return Disposition.APPROXIMATE
    return Disposition.EXACT


# ----------------------------------------------------------------- where httpd parses

def _apply_options(state: State, words: list[tuple[str, Span]]) -> None:
    """httpd's Options merge for the Includes bits (src: core.c set_options, merge_core_dir_configs)."""
    if not words:
        return
    lowered = [(w.lower(), span) for w, span in words]
    for i, (w, span) in enumerate(lowered):
        if (i == 0 or span != lowered[i - 1][1]) and w[:1] not in "+-":
            state.parse = state.exec_ = False     # each line is read alone: one without +/- starts from none
        name = w.lstrip("+-")
        if name == "none":
            state.parse = state.exec_ = False
        elif w.startswith("-") and name in ("includes", "all"):
            state.parse = state.exec_ = False
        elif w.startswith("-") and name == "includesnoexec":
            state.parse = False
        elif not w.startswith("-") and name in ("includes", "all"):
            state.parse = state.exec_ = True
            state.options.append(span)
        elif not w.startswith("-") and name == "includesnoexec":
            state.parse, state.exec_ = True, False
            state.options.append(span)


def _apply_filters(state: State, settings: dict) -> None:
    for a in settings.get("ssi", ()):
        if a.how == "set":
            state.set_ = a.directive if a.includes else None
        elif a.how == "ext":
            for e in a.values:
                state.exts[e] = a.directive if a.includes else None
        else:
            for t in a.values:
                state.types[t] = a.directive
    if "ssi_xbithack" in settings:
        state.xbithack = settings["ssi_xbithack"]


def _state(bases: list[dict], chain: list[Scope]) -> State:
    state = State()
    for settings in bases:
        _apply_filters(state, settings)
    for scope in chain:
        access = scope.settings.get("access")
        _apply_options(state, (access.options or []) if access is not None else [])
        _apply_options(state, scope.settings.get("ssi_options", []))
        _apply_filters(state, scope.settings)
    return state


def _ext_regex(exts: list[str]) -> str:
    body = "|".join(re.escape(e) for e in exts)
    return f"(?i)\\.({body})(\\.[^/]*)?$" if len(exts) > 1 else f"(?i)\\.{body}(\\.[^/]*)?$"


def _statements(state: State, span: Span | None) -> list[Stmt]:
    if state.set_ is not None:
        return [Stmt("ssi", ["on"], span), Stmt("ssi_types", ["*"], span)]
    if not state.types:
        return []
    out = [Stmt("ssi", ["on"], span)]
    others = [t for t in state.types if t != "text/html"]
    if others:
        out.append(Stmt("ssi_types", others, span))
    return out


class _Server:
    def __init__(self, ctx: Context, server):
        self.ctx, self.server, self.main = ctx, server, ctx.main
        holders = [self.main] if server is self.main else [self.main, server]
        self.bases = [h.settings for h in holders]
        self.dirs = [d for h in holders for d in h.settings.get("directories", [])
                     if d.kind == "directory" and not d.regex]
        self.own = {id(d) for d in server.settings.get("directories", [])}
        self.by_path: dict[str, list[Scope]] = {}
        for d in self.dirs:
            self.by_path.setdefault(_key(d), []).append(d)
        self.outcomes = ctx.main.settings.setdefault("ssi_outcomes", {})

    def chain(self, path: str, upto: Scope | None = None) -> list[Scope]:
        parts = path.split("/")
        ancestors = [""] + ["/".join(parts[:i]) for i in range(2, len(parts) + 1)]
        out = [x for a in dict.fromkeys(ancestors) for x in self.by_path.get(a, ())]
        if upto is not None:
            out = out[:out.index(upto) + 1]
        return out

    def parent_path(self, path: str) -> str | None:
        while "/" in path:     # a relative path's last segment has no parent
            path = path.rsplit("/", 1)[0]
            if path in self.by_path:
                return path
        return None

    def note(self, d: Directive, outcome: str, **extra) -> None:
        self.outcomes.setdefault(id(d), (d, {}))[1].setdefault(outcome, extra)

    def run(self) -> None:
        holders = self.bases + [s.settings for s in self.dirs + self.server.settings.get("files", [])]
        if not any("ssi" in h or "ssi_xbithack" in h for h in holders):
            return
        states = {p: _state(self.bases, self.chain(p)) for p in self.by_path}
        base = _state(self.bases, [])
        for path, state in states.items():
            here = [d for d in self.by_path[path] if id(d) in self.own]
            if not here:
                # the main server's section: its SSI statements (made with the main server) apply here too
                mine = _state(self.bases[:1], self.chain(path))
                if mine.key() != state.key():
                    for d in state.filters or mine.filters:
                        self.note(d, "conflict", span=self.by_path[path][-1].span, path=path)
                continue
            parent_path = self.parent_path(path)
            parent = states[parent_path] if parent_path is not None else base
            self.directory(here[-1], state, parent)
        for f in self.server.settings.get("files", []):
            if "ssi" in f.settings:
                self.files(f, states)
        self.unparsed(states, base)

    def directory(self, scope: Scope, state: State, parent: State) -> None:
        if state.parse and state.xbithack is not None:
            self.note(state.xbithack, "xbithack", span=scope.span)
        key, parent_key = state.key(), parent.key()
        if key == parent_key:
            return
        if parent_key:
            # a subdirectory changing what its parent parses: both would land in the same location
            for d in state.filters or parent.filters:
                self.note(d, "conflict", span=scope.span, path=scope.fs_path)
            return
        span = scope.span
        scope.statements.extend(_statements(state, span))
        exts = [e for e, d in state.exts.items() if d is not None] if state.set_ is None else []
        if exts:
            self.extension_location(scope, state, exts)
        for d in state.filters:
            self.note(d, "emitted", span=span, exec_=state.exec_, options=list(state.options),
                      by_type=bool(state.types) and state.set_ is None and "text/html" not in state.types)

    def extension_location(self, scope: Scope, state: State, exts: list[str]) -> None:
        regex = _ext_regex(exts)
        holders = [self.main] if self.server is self.main else [self.main, self.server]
        others = [f for h in holders for f in h.settings.get("files", [])
                  if f.settings.get("access") is not None or f.statements]
        below = [f for f in others if f.parent is not None and f.parent.fs_path and scope.fs_path
                 and _key(f.parent).startswith(_key(scope) + "/")]
        directives = [d for d in state.exts.values() if d is not None]
        if below:
            # a deeper <Files> section would be nested after this one: nginx would use ours for the names both
            # match, and skip its access rules
            for d in directives:
                self.note(d, "files", span=below[0].span)
            return
        probes = ["/x." + e for e in exts] + ["/.x." + e for e in exts]
        for f in others:
            if any(re.search(f.files_regex, p) for p in probes):
                for d in directives:
                    self.note(d, "shadowed", span=f.span)
        owner = self.server if id(scope) in self.own else self.main
        owner.settings.setdefault("files", []).append(
            Scope(regex, regex=True, span=directives[0].span, kind="files", files_regex=regex, parent=scope,
                  statements=[Stmt("ssi", ["on"], directives[0].span), Stmt("ssi_types", ["*"], directives[0].span)],
                  settings={"ssi_generated": True}))

    def files(self, f: Scope, states: dict) -> None:
        parent_path = _key(f.parent) if f.parent is not None else None
        chain = self.chain(parent_path, f.parent) if f.parent is not None else \
            [s for s in self.by_path.get("", ()) if s.settings.get("server_level")]
        parent = _state(self.bases, chain)
        state = _state(self.bases, chain + [f])
        if f.parent is None and any(s.settings.get("access") and s.settings["access"].options
                                    for s in self.dirs if not s.settings.get("server_level")) \
                and not f.settings.get("ssi_options"):
            # a server-wide <Files> whose parsing depends on each directory's Options
            for d in state.filters:
                self.note(d, "conflict", span=f.span, path=f.path)
            return
        if state.key() == parent.key():
            return
        if state.key():
            f.statements.extend(_statements(state, f.span))
            for d in state.filters:
                self.note(d, "emitted", span=f.span, exec_=state.exec_, options=list(state.options),
                          by_type=bool(state.types) and state.set_ is None and "text/html" not in state.types)
        else:
            f.statements.append(Stmt("ssi", ["off"], f.span))

    def unparsed(self, states: dict, base: State) -> None:
        """Filters attached where no Options Includes ever meets them."""
        for state in list(states.values()) + [base]:
            if not state.parse:
                for d in state.filters:
                    self.note(d, "unparsed")


def _key(scope: Scope) -> str:
    return (scope.fs_path or "").rstrip("/")


def finish_server(ctx: Context, server) -> None:
    _Server(ctx, server).run()


def finish_model(ctx: Context) -> None:
    """Each filter directive's disposition, from what every server made of it."""
    for d in ctx.main.settings.get("ssi_filters", []):
        outcome = ctx.main.settings.get("ssi_outcomes", {}).get(id(d), (d, {}))[1]
        other = ctx.main.settings.get("ssi_other", {}).get(id(d), Disposition.APPROXIMATE)
        label = f"{d.name} {' '.join(d.args)}"
        if "conflict" in outcome or "files" in outcome:
            extra = outcome.get("conflict") or outcome.get("files")
            if "conflict" in outcome:
                why = (f"the directory {extra.get('path') or '/'} changes what httpd parses there (Options or "
                       "filters); its nginx location takes the SSI setting of the directory above it, so nginx "
                       "parses those responses as there (or, in a virtual host, as the main server's section says)")
            else:
                why = ("a <Files> section in a subdirectory would be shadowed by the nested ssi location (and its "
                       "access rules skipped), so none was emitted: nginx parses nothing where httpd does")
            ctx.diags.add("A2N758", f"{label}: {why}", d.span, directive=d.name,
                          related=[extra["span"]] if extra.get("span") else [])
            ctx.redispose(d, Disposition.UNSUPPORTED)
            continue
        if "emitted" in outcome:
            info = outcome["emitted"]
            parts = ["nginx's ssi module has no exec, fsize, flastmod or printenv, its `if expr=` is not httpd's "
                     "expression syntax, and its error text differs"]
            if info.get("exec_"):
                parts.append("Options Includes lets pages run <!--#exec-->, which nginx never does "
                             "(IncludesNOEXEC is the closer match)")
            if info.get("by_type"):
                parts.append("nginx also parses text/html responses wherever ssi is on")
            if "shadowed" in outcome:
                parts.append("names a <Files> section also matches are not parsed")
            ctx.diags.add("A2N757", f"{label}: server-side includes become nginx's ssi; " + "; ".join(parts), d.span,
                          directive=d.name, related=info.get("options", [])[:3])
            if d.key == "addoutputfilter":
                ctx.redispose(d, other if other is Disposition.UNSUPPORTED else Disposition.APPROXIMATE)
            continue
        if "unparsed" in outcome or not outcome:
            ctx.diags.add("A2N762", f"{label}: no Options Includes is in effect where this filter applies, so httpd "
                          "parses nothing; it still sends those files without an ETag and never as 304 Not "
                          "Modified, which nginx does", d.span, directive=d.name)
            if d.key == "addoutputfilter":
                ctx.redispose(d, other if other is Disposition.UNSUPPORTED else Disposition.APPROXIMATE)
    _echo_variables(ctx)
    for d, outcome in ctx.main.settings.get("ssi_outcomes", {}).values():
        if "xbithack" in outcome:
            ctx.diags.add("A2N758", f"XBitHack {' '.join(d.args)}: nginx cannot test a file's execute bit; the "
                          "text/html files httpd parses for it are sent unparsed", d.span, directive=d.name,
                          hint="rename those pages (.shtml) and attach the filter by extension instead")
            ctx.redispose(d, Disposition.UNSUPPORTED)


# ----------------------------------------------------------------- SetEnvIf variables for `echo var`

# nginx's own variables (and the prefixes of its families): a SetEnvIf variable of such a name cannot be set
# for SSI's echo without changing what the rest of the configuration reads
_NGINX_VARIABLES = frozenset("""
    ancient_browser args binary_remote_addr body_bytes_sent bytes_sent connection connection_requests
    connection_time content_length content_type date_gmt date_local document_root document_uri
    fastcgi_path_info fastcgi_script_name gzip_ratio host hostname http2 https invalid_referer is_args
    limit_conn_status limit_rate limit_req_status memcached_key modern_browser msec msie nginx_version pid pipe
    proxy_add_x_forwarded_for proxy_host proxy_port proxy_protocol_addr proxy_protocol_port
    proxy_protocol_server_addr proxy_protocol_server_port query_string realip_remote_addr realip_remote_port
    realpath_root remote_addr remote_port remote_user request request_body request_body_file
    request_completion request_filename request_id request_length request_method request_time request_uri
    scheme secure_link secure_link_expires server_addr server_name server_port server_protocol status
    tcpinfo_rcv_space tcpinfo_rtt tcpinfo_rttvar tcpinfo_snd_cwnd time_iso8601 time_local uid_got uid_reset
    uid_set uri""".split())
_NGINX_PREFIXES = ("arg_", "cookie_", "http_", "sent_http_", "sent_trailer_", "upstream_", "ssl_", "a2n_")


def _parses(server) -> bool:
    holders = server.scopes + server.settings.get("directories", []) + server.settings.get("files", [])
    return any(st.name == "ssi" and st.args == ["on"] for h in holders for st in h.statements)


def _echo_variables(ctx: Context) -> None:
    """httpd's `<!--#echo var="NAME" -->` reads the request's environment, SetEnvIf's variables among them;
    nginx's echo reads nginx variables by the lower-cased name. Every server whose pages are parsed sets each
    such variable at server level: the SetEnvIf value, `(none)` (what both echo for an unset variable) where
    none is set, since a variable nginx knows is empty, not unset, in a server that does not set it."""
    from .fastcgi import set_env_if_variables
    model = ctx.model
    everywhere = _parses(ctx.main)
    servers = [s for s in model.servers if everywhere or _parses(s)]
    found = {id(s): set_env_if_variables(model, ctx.diags, s, "SSI") for s in servers}
    names: dict[str, str] = {}
    for pairs in found.values():
        for name, _ in pairs:
            names.setdefault(name.lower(), name)
    for lower, name in list(names.items()):
        if not re.fullmatch(r"[a-z0-9_]+", lower) or lower in _NGINX_VARIABLES or lower.startswith(_NGINX_PREFIXES):
            del names[lower]
            ctx.diags.add("A2N715", f"SetEnvIf {name}: nginx's ssi module echoes nginx variables, and {name} is "
                          "not a name the translation can give one (nginx has its own by that name, or the name "
                          "holds other characters than letters, digits and _); SSI pages echo it as nginx's own "
                          "or (none)", ctx.options.get("main_span"), directive="SetEnvIf")
    for server in servers:
        values = {name.lower(): variable for name, variable in found[id(server)]}
        for lower, name in names.items():
            variable = values.get(lower)
            value = model.shared_map("a2n_ssi_", variable, [('""', "(none)")], variable) if variable else "(none)"
            server.own_statements.append(Stmt("set", ["$" + lower, value], None,
                                              comment=f"SetEnvIf {name}, for SSI's echo var"))


RULES = table(
    Rule("AddOutputFilter", Disposition.APPROXIMATE, add_output_filter),
    Rule("XBitHack", Disposition.EXACT, xbithack),
    Rule("SSITimeFormat", Disposition.EXACT, ssi_setting),
    Rule("SSIUndefinedEcho", Disposition.EXACT, ssi_setting),
    Rule("SSIStartTag", Disposition.EXACT, ssi_setting),
    Rule("SSIEndTag", Disposition.EXACT, ssi_setting),
    Rule("SSIErrorMsg", Disposition.EXACT, ssi_error_msg),
    Rule("SSILastModified", Disposition.EXACT, ssi_last_modified),
    Rule("SSIETag", Disposition.EXACT, ssi_etag),
    Rule("SSILegacyExprParser", Disposition.EXACT, ssi_legacy_expr),
)
RULES = contexts.checked(RULES)

# What a <Directory> or <Files> section may hold for this pass (access.IN_DIRECTORY / IN_FILES).
SECTION_DIRECTIVES = {"addoutputfilter", "xbithack", "ssitimeformat", "ssiundefinedecho", "ssierrormsg",
                      "ssilastmodified", "ssietag", "ssilegacyexprparser"}
