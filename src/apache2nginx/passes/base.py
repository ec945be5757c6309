"""The pass framework: directive tables, dispositions and the translation context.

Every Apache module family has one pass module that declares a table of the
directives it owns. Each entry states the directive's disposition (exact,
approximate, unsupported, not-applicable) and, where it translates, the
handler that fills the model. The driver (`passes.translate`) looks every
directive up in the merged table; nothing is translated or dropped without a
disposition being counted and, where behaviour differs, a diagnostic.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from ..diagnostics import Diagnostics
from ..model import NginxModel, Scope, Server, Stmt
from ..syntax.tree import Directive, Section


class Disposition(str, Enum):
    EXACT = "exact"
    APPROXIMATE = "approximate"
    UNSUPPORTED = "unsupported"
    NOT_APPLICABLE = "not_applicable"
    UNKNOWN = "unknown"


def loosest(*dispositions: Disposition) -> Disposition:
    """The least faithful of translated dispositions (exact < approximate < unsupported)."""
    order = [Disposition.EXACT, Disposition.APPROXIMATE, Disposition.UNSUPPORTED]
    return max(dispositions, key=order.index)


@dataclass
class Tally:
    counts: dict[Disposition, int] = field(default_factory=lambda: {d: 0 for d in Disposition})
    by_name: dict[str, dict[Disposition, int]] = field(default_factory=dict)
    # (span, name, disposition) of every directive translated approximately or not at all, for checks that
    # each one is reported
    inexact: list = field(default_factory=list)
    # per Apache file (the file each directive stands in): its dispositions, for the per-site summary
    files: dict[str, dict[Disposition, int]] = field(default_factory=dict)

    def add_file(self, file: str, disposition: Disposition) -> None:
        per = self.files.setdefault(file, {d: 0 for d in Disposition})
        per[disposition] += 1

    def add(self, disposition: Disposition, name: str = "") -> None:
        self.counts[disposition] += 1
        if name:
            per = self.by_name.setdefault(name.lower(), {d: 0 for d in Disposition})
            per[disposition] += 1

    def remove(self, disposition: Disposition, name: str = "") -> None:
        self.counts[disposition] -= 1
        if name and name.lower() in self.by_name:
            self.by_name[name.lower()][disposition] -= 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> dict[str, int]:
        c = self.counts
        return {"directives": self.total, "exact": c[Disposition.EXACT], "approximate": c[Disposition.APPROXIMATE],
                "unsupported": c[Disposition.UNSUPPORTED], "not_applicable": c[Disposition.NOT_APPLICABLE],
                "unknown": c[Disposition.UNKNOWN]}

    def line(self) -> str:
        s = self.summary()
        return (f"{s['directives']} directives: {s['exact']} exact, {s['approximate']} approximate, "
                f"{s['unsupported']} unsupported, {s['not_applicable']} not applicable, {s['unknown']} unknown")


@dataclass
class Context:
    """What a handler sees: the model, the current server and where it stands.

    `scope` is the Apache <Location> being translated (None at server level);
    `walk` lets a section handler translate the directives inside it.
    """

    model: NginxModel
    diags: Diagnostics
    main: Server
    server: Server
    section: Section | None = None
    options: dict = field(default_factory=dict)
    scope: Scope | None = None
    walk: Callable | None = None
    redispose: Callable | None = None   # settle a directive's disposition after the fact (set by the driver)
    count: Callable | None = None       # tally a directive a section handler translated itself (set by the driver)
    directory: Section | None = None    # the <Directory> a per-directory directive stands in
    # the expression of the server-level <DirectoryMatch> (or <Directory ~>) whose Header line is translated
    # (headers.regex_directory_section)
    filename_regex: str | None = None

    def emit(self, name: str, args: list[str], span=None, block: list[Stmt] | None = None) -> Stmt:
        stmt = Stmt(name, list(args), span, block=block)
        (self.scope.statements if self.scope is not None else self.server.statements).append(stmt)
        return stmt

    @property
    def settings(self) -> dict:
        """Per-region Apache settings (ProxyPreserveHost, SetEnv, ...) read when the region is laid out."""
        return self.scope.settings if self.scope is not None else self.server.settings

    def setting(self, key: str, default=None):
        """A setting as Apache merges it: the region's own, else the server's, else the main server's."""
        for holder in (self.scope.settings if self.scope else None, self.server.settings, self.main.settings):
            if holder is not None and key in holder:
                return holder[key]
        return default

    @property
    def in_vhost(self) -> bool:
        return self.server is not self.main


Handler = Callable[[Context, Directive], "Disposition | None"]


@dataclass(frozen=True)
class Rule:
    """One row of a pass's directive table."""

    name: str
    disposition: Disposition
    handler: Handler | None = None
    note: str = ""                 # why: shown with not-applicable and approximate dispositions
    section: bool = False          # the rule is for `<name>` sections


def table(*rules: Rule) -> dict[str, Rule]:
    out: dict[str, Rule] = {}
    for rule in rules:
        key = ("<" if rule.section else "") + rule.name.lower()
        assert key not in out, key
        out[key] = rule
    return out


def clean_path(path: str) -> str:
    """An absolute path as httpd uses it: slashes merged, `.` and `..` segments resolved lexically (`..`
    at the root stays there), a trailing slash kept. httpd cleans <Directory> paths, DocumentRoot and the
    file names Alias, AliasMatch and ScriptAlias build (apr_filepath_merge) and the URL of an internal
    redirect (ap_getparents, MergeSlashes On); nginx uses `alias /a/../b/` and a redirect to `/a/../b` as
    written, so a location for /b or a <Directory /b> refusal would never apply there. Only the fixed part
    before the first `$` or `%` (a capture or variable) is cleaned: what is substituted there is known
    only to the request."""
    if not path.startswith("/"):
        return path
    variable = re.search(r"[$%]", path)
    cut = path.rfind("/", 0, variable.start()) + 1 if variable else len(path)
    head, tail = path[:cut], path[cut:]
    segments = re.sub("/+", "/", head).split("/")
    out: list[str] = []
    for segment in segments[1:]:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    if segments[-1] in (".", "..") and (not out or out[-1]):
        out.append("")
    return "/" + "/".join(out).lstrip("/") + tail if out else "/" + tail


def clean_url(url: str) -> str:
    """A local URL (`/path?query`) with its path cleaned as httpd cleans an internal redirect's
    (clean_path); the query string is kept as written. Other values (relative, full URLs) are unchanged."""
    path, sep, query = url.partition("?")
    return clean_path(path) + sep + query if url.startswith("/") else url


def flag(d: Directive) -> str:
    """The first argument, lower-cased ("" when there is none): on/off style values."""
    return d.args[0].lower() if d.args else ""


def on_off_directive(nginx_name: str) -> Handler:
    """A handler for `Directive on|off` that maps one to one onto an nginx on/off directive."""
    def handler(ctx: Context, d: Directive) -> Disposition:
        value = flag(d)
        if value not in ("on", "off"):
            return Disposition.UNSUPPORTED
        ctx.emit(nginx_name, [value], d.span)
        return Disposition.EXACT
    return handler


def value_directive(nginx_name: str) -> Handler:
    """A handler for `Directive VALUE` that maps onto `nginx_name VALUE` (a file or a list)."""
    def handler(ctx: Context, d: Directive) -> Disposition:
        if not d.args:
            ctx.diags.add("A2N001", f"{d.name} needs a value", d.span, directive=d.name)
            return Disposition.UNSUPPORTED
        ctx.emit(nginx_name, [d.args[0]], d.span)
        return Disposition.EXACT
    return handler
