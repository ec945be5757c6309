"""Putting a difference down to its cause: the diagnostic of the translation that accounts for what one
request saw differently in httpd and nginx, or none."""
from __future__ import annotations

import os
import re

from ..diagnostics import Diagnostic, Severity
from ..emit.layout import segment_prefix
from ..syntax.loader import LoadedConfig
from .paths import normalized_path, request_path
from .probes import Probe, VHostInfo

INFO_EXPLAINERS = {"A2N405", "A2N226", "A2N339"}
FIELD_CODES = {
    "status": ("A2N226",),          # a 405 to a POST on a static file (A2N226 is a candidate only then)
    "connection": ("A2N222", "A2N221"),
    "backend header host": ("A2N320",),
    "backend": ("A2N315", "A2N310", "A2N312", "A2N316"),
    "backend header x-forwarded-host": ("A2N204",),
}


def htaccess_regions(docroot: str | None) -> dict[str, str]:
    """The URL prefix each .htaccess of a user's document root governs (served as the site's root)."""
    out: dict[str, str] = {}
    for dirpath, _, filenames in os.walk(docroot) if docroot else ():
        if ".htaccess" in filenames:
            rel = os.path.relpath(dirpath, docroot)
            out[os.path.join(dirpath, ".htaccess")] = "/" if rel == "." else "/" + rel.replace(os.sep, "/")
    return out


class Explainer:
    """Finds the diagnostic that accounts for a difference on a given request."""

    def __init__(self, config: LoadedConfig, diags: list[Diagnostic], vhosts: list[VHostInfo],
                 htaccess_regions: dict[str, str] | None = None):
        # Loading decisions (A2N0xx: includes, conditionals, variables) apply to both servers alike, so they
        # never explain a difference; neither does a note that does not change behaviour (info).
        self.diags = [d for d in diags if d.span and not d.code.startswith("A2N0")
                      and (d.severity.rank >= Severity.WARNING.rank or d.code in INFO_EXPLAINERS)]
        self.vhosts = vhosts
        self.htaccess_regions = htaccess_regions or {}          # .htaccess file -> the URL prefix it governs
        self.locations: list[tuple[str, str, int, int]] = []   # file, prefix, first, last line
        # a route's line -> the URL prefixes or regexes it maps (a macro's line stands for every expansion)
        self.routes: dict[tuple[str, int], list[tuple[str, bool]]] = {}
        for node in config.walk():
            if node.is_section and node.key in ("location", "proxy", "directory", "files", "filesmatch",
                                                "locationmatch") and node.args:
                self.locations.append((node.file, node.args[0] if node.key == "location" else "",
                                       node.line, node.close_line))
            route = _route_of(node)
            if route is not None:
                self.routes.setdefault((node.file, node.line), []).append(route)

    def vhost_for(self, probe: Probe) -> VHostInfo | None:
        on_port = [v for v in self.vhosts if probe.port in v.ports]
        for v in on_port:
            if probe.host.lower() in v.names:
                return v
        return on_port[0] if on_port else None

    def explain(self, probe: Probe, field_name: str, statuses: tuple = ()) -> str | None:
        vh = self.vhost_for(probe)
        path = normalized_path(probe.path)
        candidates = []
        nearness: dict[int, int] = {}
        for d in self.diags:
            s = d.span
            inside_vhost = vh is not None and s.file == vh.file and vh.line <= s.line <= vh.end_line
            in_any_vhost = any(v.file == s.file and v.line <= s.line <= v.end_line for v in self.vhosts)
            if not inside_vhost and in_any_vhost:
                continue
            region = self.htaccess_regions.get(s.file)
            if region is not None and not segment_prefix(region, path or "/"):
                continue
            section = next(((pfx, a, b) for f, pfx, a, b in self.locations if f == s.file and a <= s.line <= b),
                           None)
            if section is not None and section[0] and not segment_prefix(section[0], path or "/"):
                continue
            routes = self.routes.get((s.file, s.line))
            if routes is not None and not any(_route_governs(r, p) for r in routes
                                              for p in (path or "/", request_path(probe.path))):
                continue        # a Redirect/Alias/ProxyPass line speaks only of the requests it maps
            # the nearer the diagnostic to the request (its own mapping, then its section), the likelier its cause
            nearness[id(d)] = 2 if routes is not None else (1 if section is not None and section[0] else 0)
            candidates.append(d)
        # An error means the translation knowingly left the directive out: it accounts for anything that
        # follows in its region. A warning accounts only for the fields its kind of change can affect.
        candidates = [d for d in candidates
                      if (d.severity is Severity.ERROR or can_explain(d.code, field_name))
                      # POST to a static file: only a 405 on one side is that difference
                      and not (d.code == "A2N226" and (probe.method in ("GET", "HEAD") or 405 not in statuses))]
        preferred = FIELD_CODES.get(field_name, ())
        for code in preferred:
            for d in candidates:
                if d.code == code:
                    return d.code
        # the nearest diagnostic wins, then the one that names the field most precisely ("header set-cookie"
        # before "header")
        return max(candidates, key=lambda d: (nearness[id(d)], _specificity(d.code, field_name))).code \
            if candidates else None


# Which observed fields a code can account for. A family's entry applies unless a code has its own.
_FIELDS_BY_CODE = {
    "A2N1": {"*"},                                   # something was not translated at all
    "A2N2": {"status", "location", "header", "connection", "body", "backend"},
    "A2N3": {"status", "location", "header", "body", "backend", "connection"},
    "A2N4": {"status", "location", "body", "backend"},
    "A2N5": {"header", "backend header"},
    "A2N6": set(),                                   # logs are not observed
    "A2N8": set(),
    "A2N803": {"*"}, "A2N810": {"status", "body", "backend", "location"}, "A2N814": {"header", "status"},
    "A2N816": {"location"}, "A2N820": {"status", "body", "backend"}, "A2N821": {"status"},
    "A2N822": {"status", "location"}, "A2N823": {"location"}, "A2N824": {"*"},
    "A2N825": {"backend header x-forwarded-host", "backend header x-forwarded-server"},
    "A2N827": {"header content-type", "status"}, "A2N828": {"backend", "location", "status"},
    "A2N829": {"header set-cookie"}, "A2N833": {"status", "location", "backend", "body"},
    "A2N329": {"status", "location", "body"}, "A2N330": set(), "A2N331": {"status", "body", "header"},
    "A2N834": {"status", "location", "backend", "body", "header"}, "A2N832": {"status", "location", "backend"},
    "A2N701": set(), "A2N702": {"*"}, "A2N703": set(), "A2N704": {"header"},
    "A2N705": {"backend header x-forwarded-for", "status"}, "A2N706": {"backend header x-forwarded-for", "status"},
    "A2N707": {"status", "body", "header"}, "A2N708": {"status", "body", "backend"},
    "A2N709": {"header expires", "header cache-control"}, "A2N710": {"header etag"},
    "A2N711": {"status", "backend", "body"}, "A2N720": {"status", "body", "backend"},
    # a script server nginx needs running (php-fpm, fcgiwrap): under verify none is
    "A2N721": {"status", "body", "backend"}, "A2N722": {"status", "body", "backend"},
    "A2N724": {"status", "body"}, "A2N725": set(), "A2N726": {"status", "body", "backend"},
    "A2N338": {"header content-location", "header uri", "header refresh"}, "A2N339": {"backend path"},
    "A2N226": {"status", "body", "header"}, "A2N747": {"status"},
    "A2N220": set(), "A2N290": set(), "A2N234": set(), "A2N235": {"body"}, "A2N236": {"body"}, "A2N222": {"connection", "status"}, "A2N221": {"connection", "status"},
    "A2N9": set(),
}


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


def _specificity(code: str, field_name: str) -> int:
    allowed = _FIELDS_BY_CODE.get(code) or _FIELDS_BY_CODE.get(code[:4], set())
    return max((len(f) for f in allowed if field_name == f or field_name.startswith(f + " ")), default=0)


def can_explain(code: str, field_name: str) -> bool:
    allowed = _FIELDS_BY_CODE.get(code)
    if allowed is None:
        allowed = _FIELDS_BY_CODE.get(code[:4], set())
    if "*" in allowed:
        return True
    return any(field_name == f or field_name.startswith(f + " ") for f in allowed)
