"""Putting a difference down to its cause: the diagnostic of the translation that accounts for what one
request saw differently in httpd and nginx, or none."""
from __future__ import annotations

import dataclasses
import fnmatch
import os
import posixpath
import re
from dataclasses import dataclass

from ..codes import explains
from ..diagnostics import Diagnostic
from ..effects import Effect, directive_effects
from ..emit.layout import segment_prefix
from ..htaccess import access_names
from ..syntax.loader import LoadedConfig
from .compare import Observation
from .paths import names_directory, normalized_path, request_path
from .probes import Probe, VHostInfo


@dataclass(frozen=True)
class AliasedRegion:
    """The URLs an AliasMatch (or ScriptAliasMatch) maps to a file under a .htaccess's directory (PLACE, a
    filesystem path): mod_alias maps them in translate_name, and httpd's directory walk of that file reads the
    .htaccess, whatever the URL's own place (observed: `AliasMatch ^/old/(.*)\\.txt$ /srv/www/$1.txt` answers
    /old/old/inner/a.txt with the 500 of a failing /srv/www/old/inner/.htaccess)."""
    regex: str
    target: str         # the substitution: $0-$9 and & for the match, as mod_alias's ap_pregsub reads them
    place: str

    def covers(self, path: str) -> bool:
        try:
            m = re.search(re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", self.regex), path)
        except re.error:
            return False        # unreadable here: not counted as reaching the directory
        if m is None:
            return False

        def group(g: re.Match) -> str:
            if g.group(1) is not None:
                return g.group(1)
            try:
                return m.group(int(g.group(2) or 0)) or ""
            except IndexError:
                return ""
        file = posixpath.normpath(re.sub(r"\\([$&])|\$(\d)|&", group, self.target))
        return file == self.place or file.startswith(self.place.rstrip("/") + "/")


def in_region(entry: str | AliasedRegion, path: str) -> bool:
    """Whether a request for PATH (decoded, normalised) is one whose directory walk reads the .htaccess
    ENTRY (a URL prefix, or an AliasedRegion) stands for."""
    return entry.covers(path) if isinstance(entry, AliasedRegion) else segment_prefix(entry, path)


def htaccess_regions(docroot: str | None, config: LoadedConfig | None = None
                     ) -> dict[str, list[str | AliasedRegion]]:
    """The URL prefixes each .htaccess of a user's document root governs: its place under the site's root,
    and under every Alias of CONFIG whose target is a DocumentRoot (which the tree stands for) or lies in one:
    httpd reads the file for the aliased URLs too; and the URLs every AliasMatch maps into its directory under
    a DocumentRoot (AliasedRegion)."""
    aliases: list[tuple[str, str]] = []        # (URL prefix, target relative to a document root: "" or "/sub")
    matches: list[tuple[str, str]] = []        # (AliasMatch regex, its target)
    roots: set[str] = set()
    if config is not None:
        roots = {n.args[0].rstrip("/") for n in config.walk()
                 if not n.is_section and n.key == "documentroot" and n.args}
        matches = [(n.args[0], n.args[1]) for n in config.walk()
                   if not n.is_section and n.key in ("aliasmatch", "scriptaliasmatch") and len(n.args) == 2]
        for n in config.walk():
            if n.is_section or n.key not in ("alias", "scriptalias") or len(n.args) != 2:
                continue
            url, target = n.args[0].rstrip("/") or "/", n.args[1].rstrip("/")
            for root in roots:
                if target == root or target.startswith(root + "/"):
                    aliases.append((url, target[len(root):]))
    names = access_names(config, None) if config is not None else (".htaccess",)
    out: dict[str, list[str | AliasedRegion]] = {}
    for dirpath, _, filenames in os.walk(docroot) if docroot else ():
        name = next((n for n in names if n in filenames), None)
        if name is not None:
            rel = os.path.relpath(dirpath, docroot)
            place = "" if rel == "." else "/" + rel.replace(os.sep, "/")
            prefixes = [place or "/"]
            for url, target in aliases:
                if place == target or place.startswith(target + "/"):
                    prefixes.append(url.rstrip("/") + place[len(target):] or "/")
                elif target.startswith(place + "/"):
                    prefixes.append(url)        # the file's directory holds the alias's target
            prefixes += [AliasedRegion(regex, target, root + place) for regex, target in matches for root in roots]
            out[os.path.join(dirpath, name)] = prefixes
    return out


@dataclass
class Case:
    """One difference to explain: the request, both answers, and the compared field's two values."""
    probe: Probe
    apache: Observation
    nginx: Observation
    field: str
    apache_value: object
    nginx_value: object
    # nginx's answer is the redirect an ErrorDocument 403 with a URL makes of a 403 (Explainer.explain)
    refused_by_redirect: bool = False

    @property
    def change(self) -> str:
        if self.apache_value in (None, [], ""):
            return "added"
        if self.nginx_value in (None, [], ""):
            return "missing"
        return "changed"

    def holds(self, condition: str) -> bool:
        a, n, p = self.apache, self.nginx, self.probe
        statuses = [o.status for o in (a, n) if o.status]
        return {
            "proxied": a.backend is not None or n.backend is not None,
            "not-proxied": a.backend is None and n.backend is None,
            "error-status": any(st >= 400 for st in statuses),
            "server-error": any(st >= 500 for st in statuses),
            "success": 200 <= a.status < 300,
            "redirect": any(300 <= st < 400 for st in statuses),
            "status-405": 405 in statuses,
            "unsafe-method": p.method not in ("GET", "HEAD"),
            "query": "?" in p.path,
            "encoded-path": "%" in p.path.split("?", 1)[0],
            "unnormalised-path": bool(re.search(r"//|/\.\.?(/|$)", p.path.split("?", 1)[0])),
            "host-port": ":" in (p.host or ""),
            "https": p.scheme == "https",
            "no-backend-process": True,     # verify runs no php-fpm or fcgiwrap for nginx
            "trace-method": p.method == "TRACE",
            "options-method": p.method == "OPTIONS",
            "encoded-slash": "%2f" in p.path.split("?", 1)[0].lower(),
            "doubled-slash": "//" in p.path.split("?", 1)[0],
            "directory-request": names_directory(p.path),
            "path-info": any("." in seg.strip(".") for seg in p.path.split("?", 1)[0].split("/")[1:-1]),
            "inner-segment": len([seg for seg in normalized_path(p.path).split("/") if seg]) > 1,
            "status-403": 403 in statuses or self.refused_by_redirect,
            "status-404": 404 in statuses,
            "nginx-refused": n.status in (401, 403),
            "httpd-refused": a.status in (401, 403),
            "conditional-request": any(k.lower() in ("if-none-match", "if-modified-since") for k in p.headers),
            "credentials": any(k.lower() == "authorization" for k in p.headers),
            "same-items": _items(self.apache_value) == _items(self.nginx_value) != set(),
            "nginx-failed": n.error is not None and a.error is None,
            "refused-before-host": n.status == 400 and refused_request_line(p.path),
        }[condition]


def _items(value: object) -> set[str]:
    """A header's values as the set of their comma-separated items."""
    lines = value if isinstance(value, list) else [] if value is None else [value]
    return {item.strip() for line in lines for item in str(line).split(",") if item.strip()}


def refused_request_line(path: str) -> bool:
    """Whether nginx refuses this path while it parses the request line: a target that is neither a path
    nor an absolute URL (`~`, `*`), a malformed %-escape, or dot segments (%-decoded) that climb above the
    root."""
    raw = path.split("?", 1)[0]
    if not raw.startswith("/") and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", raw):
        return True
    if re.search(r"%(?![0-9A-Fa-f]{2})", raw):
        return True
    depth = 0
    for segment in re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), raw).split("/")[1:]:
        if segment == "..":
            depth -= 1
            if depth < 0:
                return True
        elif segment not in ("", "."):
            depth += 1
    return False


def matches(effect: Effect, case: Case) -> bool:
    """Whether one declared effect accounts for the case's difference."""
    if not effect.covers(case.field):
        return False
    if effect.change != "any" and effect.change != case.change:
        return False
    return all(case.holds(c) for c in effect.when)


def declared_effects(diag: Diagnostic) -> tuple[Effect, ...]:
    """What a diagnostic can cause: its code's declaration, with `directive` resolved to what the
    directive it names can change."""
    out: list[Effect] = []
    for effect in explains(diag.code):
        if effect.field == "directive":
            out.extend(Effect(e.field, effect.change if e.change == "any" else e.change, effect.when + e.when)
                       for e in directive_effects(diag.directive))
        else:
            out.append(effect)
    return tuple(out)


@dataclass
class _Region:
    """Where a section of the Apache input applies, as far as a request's URL tells."""
    kind: str
    arg: str
    first: int
    last: int

    def admits(self, path: str) -> bool:
        try:
            if self.kind == "location":
                return segment_prefix(self.arg, path or "/")
            if self.kind == "locationmatch":
                return re.search(self.arg, path) is not None
            if path.endswith("/") or not path.rsplit("/", 1)[-1]:
                return True             # a directory: the file it serves (an index) is not known here
            # <Files> sections see the file a request maps to: any segment, with path info after it
            names = [n for n in path.split("/") if n]
            if self.kind == "filesmatch" or (self.kind == "files" and self.arg == "~"):
                return any(re.search(self.arg, n) for n in names)
            if self.kind == "files":
                return any(fnmatch.fnmatchcase(n, self.arg) for n in names)
        except re.error:
            return True
        return True


_REGION_SECTIONS = ("location", "locationmatch", "files", "filesmatch")


class Explainer:
    """Finds the diagnostic that accounts for a difference on a given request: one whose region covers
    the request and whose code declares that kind of difference under the request's conditions."""

    def __init__(self, config: LoadedConfig, diags: list[Diagnostic], vhosts: list[VHostInfo],
                 htaccess_regions: dict[str, list[str | AliasedRegion]] | None = None):
        self.vhosts = vhosts
        self.htaccess_regions = htaccess_regions or {}          # .htaccess file -> the URLs it governs
        regions: dict[str, list[_Region]] = {}                  # file -> sections that narrow where they apply
        # a route's line -> the URL prefixes or regexes it maps (a macro's line stands for every expansion)
        self.routes: dict[tuple[str, int], list[tuple[str, bool]]] = {}
        for node in config.walk():
            if node.is_section and node.key in _REGION_SECTIONS and node.args:
                args = node.args
                arg = args[1] if len(args) > 1 and args[0] == "~" else args[0]
                kind = {"location": "locationmatch", "files": "filesmatch"}.get(node.key, node.key) \
                    if len(args) > 1 and args[0] == "~" else node.key
                regions.setdefault(node.file, []).append(_Region(kind, arg, node.line, node.close_line))
            route = _route_of(node)
            if route is not None:
                self.routes.setdefault((node.file, node.line), []).append(route)
        # ErrorDocument 403 with a URL: httpd answers its 403s with a 302 there, and so does nginx's error_page
        # (docs: ErrorDocument, "a redirect status code (302)"; src: http_request.c, ap_die_r)
        self.refusal_pages = {n.args[1] for n in config.walk() if not n.is_section and n.key == "errordocument"
                              and len(n.args) > 1 and n.args[0] == "403" and re.match(r"https?://", n.args[1])}
        # every ErrorDocument with a URL: its page -> the error statuses whose answers are redirects there; not
        # 401, whose full URL httpd ignores (core.c, set_error_document: AH00113) and sends its own 401 page
        self.error_pages: dict[str, set[int]] = {}
        for n in config.walk():
            if not n.is_section and n.key == "errordocument" and len(n.args) > 1 and n.args[0].isdigit() \
                    and n.args[0] != "401" and re.match(r"https?://", n.args[1]):
                self.error_pages.setdefault(n.args[1], set()).add(int(n.args[0]))
        # each diagnostic that can explain anything, with its virtual host and enclosing sections, computed once
        self.entries: list[tuple[Diagnostic, list[VHostInfo], list[_Region], tuple[Effect, ...]]] = []
        for d in diags:
            effects_ = declared_effects(d) if d.span else ()
            if not effects_:
                continue
            s = d.span
            # every virtual host whose lines hold the diagnostic (a macro's body stands for each expansion)
            homes = [v for v in vhosts if v.file == s.file and v.line <= s.line <= v.end_line]
            enclosing = [r for r in regions.get(s.file, ()) if r.first <= s.line <= r.last]
            self.entries.append((d, homes, enclosing, effects_))
        # indexed by virtual host: a request meets only its own host's diagnostics and those outside every host
        self.by_vhost: dict[int, list] = {}
        self.everywhere: list = []
        for entry in self.entries:
            if not entry[1]:
                self.everywhere.append(entry)
            for home in entry[1]:
                self.by_vhost.setdefault(id(home), []).append(entry)

    def vhost_for(self, probe: Probe) -> VHostInfo | None:
        on_port = [v for v in self.vhosts if probe.port in v.ports]
        host = probe.server_name.lower().rstrip(".")     # the Host header's name, without its port
        for v in on_port:
            # httpd tries each host's ServerName and exact aliases, then its wildcard ones, host by host
            if host in v.names or any(fnmatch.fnmatchcase(host, w) for w in v.wildcards):
                return v
        return on_port[0] if on_port else None

    def default_for(self, probe: Probe) -> VHostInfo | None:
        """The first virtual host on the probe's port, which answers what nginx refuses before reading Host."""
        return next((v for v in self.vhosts if probe.port in v.ports), None)

    def underlying(self, o: Observation) -> Observation:
        """The answer as the error it stands for where it is the redirect an ErrorDocument with a URL makes of an
        error (one status only has that page): httpd answers the error with a 302 there, and so does nginx's
        error_page. A redirect a rule makes to the same URL counts as that error too, which can only make
        verify stricter (a refusal nginx lacks is WIDENED ACCESS)."""
        statuses = self.error_pages.get(o.location or "") if 300 <= o.status < 400 else None
        if not statuses or len(statuses) != 1:
            return o
        return dataclasses.replace(o, status=next(iter(statuses)), location=None)

    def explain(self, case: Case) -> str | None:
        """The code of the diagnostic that accounts for CASE, or None."""
        a, n = self.underlying(case.apache), self.underlying(case.nginx)
        if a.status != n.status and (a is not case.apache or n is not case.nginx) \
                and case.field in ("status", "location"):
            # an error one server turned into a redirect to its page: the status differs, and the Location that
            # differs is that redirect's; both go with the statuses the answers stand for
            case = dataclasses.replace(case, apache=a, nginx=n, field="status", apache_value=a.status,
                                       nginx_value=n.status)
        probe = case.probe
        n = case.nginx
        if n.location in self.refusal_pages and 300 <= n.status < 400:
            # nginx's 403 made a redirect by error_page (only nginx's: httpd's would hide a refusal nginx lacks);
            # the Location that differs is the one of that redirect: it goes with the refusal's status
            case = dataclasses.replace(case, refused_by_redirect=True,
                                       field="status" if case.field == "location" else case.field)
        vh = self.vhost_for(probe)
        path = normalized_path(probe.path)
        # the forms a route may see the path in: normalised, decoded, and raw (a route written with %-escapes,
        # as ProxyPass mapping=encoded matches it)
        forms = (path or "/", request_path(probe.path), probe.path.split("?", 1)[0])
        best: tuple | None = None
        entries = self.by_vhost.get(id(vh), []) + self.everywhere
        default = self.default_for(probe)
        if default is not None and default is not vh:
            # nginx answers a request line it refuses before reading Host from the address's default server:
            # that server's diagnostics of those answers (and only those) speak of every host of the address
            entries += [(d, homes, enclosing, tuple(e for e in effects_ if "refused-before-host" in e.when))
                        for d, homes, enclosing, effects_ in self.by_vhost.get(id(default), [])]
        for d, homes, enclosing, effects_ in entries:
            region = self.htaccess_regions.get(d.span.file)
            if region is not None and not any(in_region(r, path or "/") for r in region):
                continue
            # a diagnostic naming its URLs speaks of those, wherever its line is
            routes = list(d.urls) or self.routes.get((d.span.file, d.span.line))
            if not d.urls and not all(r.admits(path) for r in enclosing):
                continue
            if routes is not None and not any(_route_governs(r, p) for r in routes for p in forms):
                continue        # a Redirect/Alias/ProxyPass line speaks only of the requests it maps
            fitting = [e for e in effects_ if matches(e, case)]
            if not fitting:
                continue
            # the nearer the diagnostic to the request (its own mapping, then its section), the likelier its
            # cause; then the declaration that names the difference most precisely
            nearness = 2 if routes is not None else (1 if enclosing else 0)
            precision = max(_precision(e) for e in fitting)
            key = (nearness, precision)
            if best is None or key > best[0]:
                best = (key, d.code)
        return best[1] if best else None


def _precision(effect: Effect) -> int:
    return (0 if effect.field == "*" else len(effect.field)) + 10 * len(effect.when) + \
        (5 if effect.change != "any" else 0)


_ROUTES = {"redirect", "redirectpermanent", "redirecttemp", "redirectmatch", "alias", "aliasmatch", "scriptalias",
           "scriptaliasmatch", "proxypass", "proxypassmatch"}
_REDIRECT_STATUS = {"permanent", "temp", "seeother", "gone"}


def _route_of(node) -> tuple[str, bool] | None:
    """The URL prefix (or regex, True) a server-level mapping directive governs, None for anything else."""
    if node.is_section or node.key not in _ROUTES or not node.args:
        return None
    args = list(node.args)
    if node.key in ("redirect", "redirectmatch") and len(args) > 1 and (args[0].lower() in _REDIRECT_STATUS
                                                                         or args[0].isdigit()):
        args.pop(0)
    regex = node.key.endswith("match")
    if len(args) < 2 or not (regex or args[0].startswith("/")):
        return None             # inside a <Location> (no path of its own): the section says where it applies
    return args[0], regex


def _route_governs(route: tuple[str, bool], path: str) -> bool:
    """Whether a request for PATH (decoded, normalised) is one the route maps; an unreadable regex may be."""
    text, regex = route
    if not regex:
        return path.startswith(text.rstrip("/") or "/")
    try:
        return re.search(text, path) is not None
    except re.error:
        return True
