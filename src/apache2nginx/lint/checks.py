"""Our own structural checks of nginx configurations (A2N960-A2N966, A2N969).

This module owns the configuration tree the checks walk (crossplane's parse
with includes followed and comments kept, each directive knowing its parent
block and the Apache `file:line` its source comment names), the helpers that
answer "which value of directive X is in effect here" the way nginx inherits
(plain directives from the nearest level that sets them, array directives such
as add_header and proxy_set_header only from the nearest level that has any),
and one small function per check. Each check looks for one mistake that a
migration from httpd tends to make and nginx -t does not catch:

  A2N960  add_header in a block drops the add_headers of the levels above
  A2N961  alias traversal: `location /foo { alias /data/foo/; }`
  A2N962  an `if` in a location that does more than return/rewrite/set
  A2N963  an upstream without `keepalive`
  A2N964  proxy_pass to an upstream without HTTP/1.1 and `Connection ""`
  A2N965  a *_pass with variables and no resolver in effect
  A2N966  a bare prefix location that widens an Apache <Location>/ProxyPass/Alias boundary
  A2N969  a variable nginx does not know (nginx -t refuses the configuration; found even without nginx)

`nginx -t` (sandbox.py) stays the syntax gate; these checks run on whatever
crossplane can parse, and skip what they cannot.
"""
from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import crossplane

from ..nginx_variables import Scan
from ..syntax.span import Span

# Blocks that hold an http configuration level (nginx merges each into the one around it).
SCOPES = {"http", "server", "location", "if", "limit_except"}
PASS_DIRECTIVES = ("proxy_pass", "fastcgi_pass", "uwsgi_pass", "scgi_pass", "grpc_pass")
# `# apache.conf:42`, `# RewriteRule [P]: ... apache.conf:42`, `# from parts/v.conf:7`
_SOURCE_COMMENT = re.compile(r"(?:^|\s)(?P<file>[^\s:#]+):(?P<line>\d+)\s*$")


@dataclass(eq=False)
class Node:
    """One nginx directive: its name and arguments, where it stands, and the block around it."""

    name: str
    args: list[str]
    file: str
    line: int
    parent: "Node | None" = None
    block: "list[Node] | None" = None
    source: tuple[str, int] | None = None   # the Apache file:line its source comment names

    def children(self, name: str) -> list["Node"]:
        return [n for n in self.block or () if n.name == name]

    @property
    def context(self) -> str:
        """The name of the enclosing block directive ('main' at the top)."""
        return self.parent.name if self.parent else "main"


@dataclass
class Finding:
    code: str
    node: Node
    message: str
    related: list[Span] = field(default_factory=list)
    lines: tuple[int, ...] = ()     # other lines of the same file the finding is about


@dataclass
class Config:
    """A parsed configuration: a synthetic root node holding the top-level directives."""

    root: Node
    path: str
    source_root: Path | None = None
    errors: list[dict] = field(default_factory=list)
    _lines: dict[str, list[str]] = field(default_factory=dict)
    roots: list[str] | None = None    # where Apache files named in comments may be read (None: anywhere)

    def walk(self) -> Iterator[Node]:
        stack = list(reversed(self.root.block or []))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.block or []))

    def upstream_names(self) -> set[str]:
        return {n.args[0] for n in self.walk() if n.name == "upstream" and n.args and n.context != "stream"}

    # -- locating ---------------------------------------------------------------
    def text_line(self, file: str, line: int) -> str:
        lines = self._lines.get(file)
        if lines is None:
            lines = _read_lines(file)
            self._lines[file] = lines
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def span(self, node: Node) -> Span:
        """The directive's name in the nginx file (crossplane gives lines only; the column is found)."""
        text = self.text_line(node.file, node.line)
        m = re.search(r"(?<![\w$-])" + re.escape(node.name) + r"(?![\w-])", text) if node.name else None
        col = m.start() + 1 if m else 1
        return Span(node.file, node.line, col, node.line, col + max(len(node.name), 1))

    def apache_source(self, node: Node) -> tuple[Path, int] | None:
        """The Apache file (resolved, existing) and line a directive's source comment names."""
        if node.source is None:
            return None
        name, line = node.source
        candidates = [Path(name)] if os.path.isabs(name) else [
            *([self.source_root / name] if self.source_root else []),
            Path(node.file).resolve().parent / name, Path(self.path).resolve().parent / name, Path(name)]
        for cand in candidates:
            if self.roots is not None and not _within(os.path.realpath(cand), self.roots):
                continue      # an untrusted comment must not make lint read (and quote) any file it names
            if cand.is_file():
                return cand, line
        return None

    def related(self, node: Node) -> list[Span]:
        """The Apache source of a directive as a related location, when its comment names one that exists."""
        found = self.apache_source(node)
        if not found:
            return []
        path, line = found
        return [Span.point(_display(path), line)]


_MAX_READ = 10 * 1024 * 1024


def _within(real: str, roots: list[str]) -> bool:
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)


def _read_lines(file: str) -> list[str]:
    """A file's lines, if it is a regular file of sane size (never a device or FIFO)."""
    import stat
    try:
        st = os.stat(file)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_READ:
            return []
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return []
            with os.fdopen(os.dup(fd), "rb") as fh:
                data = fh.read(_MAX_READ)
        finally:
            os.close(fd)
    except OSError:
        return []
    return data.decode("utf-8", "replace").splitlines()


def _display(path: Path) -> str:
    """A path as it is best shown: relative to the working directory when it lies under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load(path: str, source_root: str | None = None, rename: Callable[[str], str] | None = None,
         roots: list[str] | None = None) -> Config:
    """Parse `path` (includes followed, combined into one tree) with every directive's source comment.
    lint passes the sandbox's vetted copy, `rename` giving each copy's original name, and the `roots` Apache
    files named in source comments may be read from."""
    payload = crossplane.parse(path, combine=True, comments=True, check_ctx=False, check_args=False,
                               catch_errors=True)
    rename = rename or (lambda f: f)
    root = Node("main", [], rename(path), 0, None, [])
    cfg = Config(root, rename(path), Path(source_root) if source_root else None, list(payload.get("errors", [])),
                 roots=roots)
    parsed = payload["config"][0]["parsed"] if payload.get("config") else []
    _build(parsed, root, path, rename)
    return cfg


def _build(items: list[dict], parent: Node, file: str, rename: Callable[[str], str]) -> None:
    last: Node | None = None
    for d in items:
        dfile = rename(d.get("file", file))
        if d["directive"] == "#":
            m = _SOURCE_COMMENT.search(d.get("comment", ""))
            if m:
                # A comment on the line of a directive (after `;` or after `{`) names its source.
                if last is not None and last.line == d["line"] and last.file == dfile and last.source is None:
                    last.source = (m.group("file"), int(m.group("line")))
                elif parent.line == d["line"] and parent.file == dfile and parent.source is None:
                    parent.source = (m.group("file"), int(m.group("line")))
            continue
        node = Node(d["directive"], list(d.get("args", [])), dfile, d.get("line", 0), parent)
        parent.block.append(node)  # type: ignore[union-attr]
        if "block" in d:
            node.block = []
            _build(d["block"], node, d.get("file", file), rename)
        last = node


# --------------------------------------------------------------------- inheritance

def scope_of(node: Node) -> Node:
    """The configuration level a directive stands in (the root stands for http in a bare snippet)."""
    p = node.parent
    while p is not None and p.parent is not None and p.name not in SCOPES:
        p = p.parent
    return p  # type: ignore[return-value]


def in_effect(level: Node, name: str) -> list[Node]:
    """The `name` directives nginx applies at `level`: its own, else those of the nearest level above
    that has any (how both plain and array directives are inherited)."""
    p: Node | None = level
    while p is not None:
        own = p.children(name)
        if own:
            return own
        p = p.parent
    return []


def _location_path(node: Node) -> tuple[str, str] | None:
    """(modifier, path) of a location; modifier '' for a plain prefix."""
    if not node.args:
        return None
    if len(node.args) >= 2 and node.args[0] in ("=", "^~", "~", "~*"):
        return node.args[0], node.args[1]
    arg = node.args[0]
    for mod in ("^~", "~*", "~", "="):   # `location =/x` and `location ~^/x` are legal too
        if arg.startswith(mod) and len(arg) > len(mod):
            return mod, arg[len(mod):]
    return "", arg


def _header_name(node: Node) -> str:
    return node.args[0].lower() if node.args else ""


def _pass_host(url: str) -> str:
    """The host part of a *_pass address (scheme, port and path removed)."""
    rest = re.sub(r"^[a-z0-9+.-]+://", "", url, flags=re.I)
    if rest.startswith("["):
        return rest[: rest.find("]") + 1] if "]" in rest else rest
    return re.split(r"[/:]", rest, maxsplit=1)[0]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


# --------------------------------------------------------------------- the checks

def check_add_header_dropped(cfg: Config) -> Iterator[Finding]:
    """A2N960: a block with add_header of its own loses the enclosing levels' add_headers."""
    for node in cfg.walk():
        if node.name not in ("server", "location", "if", "limit_except") or node.block is None:
            continue
        own = node.children("add_header")
        if not own or node.parent is None:
            continue
        above = in_effect(node.parent, "add_header")
        # a header this block names itself, or hides from the backend too, is meant to differ here
        names = {_header_name(h) for h in own} | {_header_name(h) for h in node.children("proxy_hide_header")}
        lost = [h for h in above if _header_name(h) not in names]
        if _answers_with_error(node):
            # add_header without `always` is never sent on the error this block returns
            lost = [h for h in lost if "always" in h.args[2:]]
        if not lost:
            continue
        listed = ", ".join(f"{h.args[0] if h.args else '?'} (line {h.line})" for h in lost)
        yield Finding("A2N960", own[0],
                      f"this {node.name}'s add_header replaces the inherited ones: {listed} "
                      f"{'is' if len(lost) == 1 else 'are'} not sent here", cfg.related(own[0]),
                      tuple(h.line for h in lost if h.file == own[0].file))


# The statuses nginx's add_header (without `always`) adds headers to.
_ADD_HEADER_STATUSES = {"200", "201", "204", "206", "301", "302", "303", "304", "307", "308"}


def _answers_with_error(node: Node) -> bool:
    """True for a block that ends by returning a status add_header without `always` skips."""
    returns = node.children("return")
    return bool(returns) and bool(returns[-1].args) and returns[-1].args[0].isdigit() \
        and returns[-1].args[0] not in _ADD_HEADER_STATUSES


def check_alias_traversal(cfg: Config) -> Iterator[Finding]:
    """A2N961: prefix location without a trailing slash, alias with one."""
    for node in cfg.walk():
        if node.name != "location":
            continue
        loc = _location_path(node)
        if not loc or loc[0] not in ("", "^~") or loc[1].endswith("/") or loc[1].startswith("@"):
            continue
        for alias in node.children("alias"):
            if alias.args and alias.args[0].endswith("/"):
                yield Finding("A2N961", alias,
                              f"location {loc[1]} has no trailing slash but alias {alias.args[0]} has: "
                              f"{loc[1]}../ reaches the directory above {alias.args[0]}", cfg.related(alias))


_SAFE_IN_IF = {"return", "set"}
_REWRITE_FLAGS = {"last", "break", "redirect", "permanent"}
# Response headers are safe next to a `return`: the response is produced in the if's own configuration. So
# is the error page that answers the status the `return` sends (nginx looks it up in that configuration).
_WITH_RETURN = {"add_header", "add_trailer", "error_page"}


# patterns of `rewrite` that match every URI (`.` with (?s) matches a decoded line break too)
_EVERY_URI = {"^", "(?s)^(.*)$"}


def _answers(node) -> bool:
    """Whether NODE in an `if` answers the request whenever it runs: `return`, or a redirecting `rewrite` of
    every URI."""
    return node.name == "return" or node.name == "rewrite" and len(node.args) >= 3 and \
        node.args[0] in _EVERY_URI and node.args[-1] in ("redirect", "permanent")


def check_if_in_location(cfg: Config) -> Iterator[Finding]:
    """A2N962: `if` in a location holding more than return, rewrite with a flag (or before a return), or set."""
    for node in cfg.walk():
        if node.name != "if" or node.context != "location":
            continue
        unsafe = []
        returns = any(_answers(inner) for inner in node.block or ())
        for inner in node.block or ():
            if inner.name in _SAFE_IN_IF or (returns and inner.name in _WITH_RETURN):
                continue
            if inner.name == "rewrite" and (returns or len(inner.args) >= 3 and inner.args[-1] in _REWRITE_FLAGS):
                # a rewrite without a flag before the block's `return` (or redirect of every URI) only changes
                # $uri/$args for it: the request never goes on in the if's own configuration
                continue
            unsafe.append(inner)
        if unsafe:
            names = ", ".join(dict.fromkeys(f"{u.name}{'' if u.name != 'rewrite' else ' without a flag'}"
                                            for u in unsafe))
            yield Finding("A2N962", node, f"`if` inside a location also does {names}: only return, "
                          "rewrite ... last|break|redirect|permanent and set are safe there", cfg.related(node),
                          tuple(u.line for u in unsafe if u.file == node.file))


def _apache_disables_reuse(cfg: Config, node: Node) -> bool:
    """The Apache source line asks for no connection reuse (ProxyPass ... disablereuse=On / enablereuse=Off):
    an nginx side without keepalive is then faithful, not a mistake."""
    found = cfg.apache_source(node)
    if not found:
        return False
    text = cfg.text_line(str(found[0]), found[1]).lower().replace('"', "")
    return bool(re.search(r"\bdisablereuse=on\b|\benablereuse=off\b", text))


def _apache_closes_backend(cfg: Config, nodes: list) -> bool:
    """The statements in effect come from SetEnv force-proxy-request-1.0 / proxy-nokeepalive: httpd closes
    the backend connection after each request there, so nginx's not reusing it is faithful."""
    for node in nodes:
        found = cfg.apache_source(node)
        text = cfg.text_line(str(found[0]), found[1]).lower() if found else ""
        if re.search(r"\bsetenv\s+\"?(force-proxy-request-1\.0|proxy-nokeepalive)\b", text):
            return True
    return False


def check_upstream_keepalive(cfg: Config) -> Iterator[Finding]:
    """A2N963: an http upstream block without `keepalive N` (unless its Apache source disables reuse). One only
    FastCGI/uwsgi/SCGI passes reach is left alone: those keep connections only when asked (fastcgi_keep_conn,
    as mod_proxy_fcgi's enablereuse)."""
    other = {_pass_host(n.args[0]) for n in cfg.walk() if n.name in PASS_DIRECTIVES and n.name != "proxy_pass"
             and n.args}
    proxied = {_pass_host(n.args[0]) for n in cfg.walk() if n.name == "proxy_pass" and n.args}
    for node in cfg.walk():
        name = node.args[0] if node.args else "?"
        if node.name == "upstream" and name in other and name not in proxied:
            continue
        if node.name == "upstream" and node.context != "stream" and node.block is not None \
                and not node.children("keepalive") and not _apache_disables_reuse(cfg, node):
            yield Finding("A2N963", node, f"upstream {name} has no keepalive: every request opens a new "
                          "backend connection", cfg.related(node))


def check_proxy_keepalive_headers(cfg: Config) -> Iterator[Finding]:
    """A2N964: proxy_pass to an upstream without proxy_http_version 1.1 and Connection "" in effect."""
    upstreams = cfg.upstream_names()
    for node in cfg.walk():
        if node.name != "proxy_pass" or not node.args:
            continue
        host = _pass_host(node.args[0])
        if "$" in host or host not in upstreams or _apache_disables_reuse(cfg, node):
            continue
        level = scope_of(node)
        version = in_effect(level, "proxy_http_version")
        missing = []
        if not version or not version[-1].args or version[-1].args[0] != "1.1":
            missing.append("proxy_http_version 1.1")
        connection = [h for h in in_effect(level, "proxy_set_header")
                      if len(h.args) >= 2 and h.args[0].lower() == "connection"]
        value = connection[-1].args[1] if connection else None
        if value is None or not (value == "" or "$" in value or value.lower() == "upgrade"):
            missing.append('proxy_set_header Connection ""')
        if missing and not _apache_closes_backend(cfg, version + connection):
            yield Finding("A2N964", node, f"proxy_pass to upstream {host} without {' and '.join(missing)} in "
                          "effect: its keepalive connections are not reused", cfg.related(node))


def check_pass_resolver(cfg: Config) -> Iterator[Finding]:
    """A2N965: a *_pass address with variables whose host needs run-time DNS, and no resolver in effect."""
    upstreams = cfg.upstream_names()
    for node in cfg.walk():
        if node.name not in PASS_DIRECTIVES or not node.args or "$" not in node.args[0]:
            continue
        url = node.args[0]
        if re.sub(r"^[a-z0-9+.-]+://", "", url, flags=re.I).startswith("unix:"):
            continue
        host = _pass_host(url)
        if "$" not in host and (host in upstreams or _is_ip(host)):
            continue
        if in_effect(scope_of(node), "resolver"):
            continue
        yield Finding("A2N965", node, f"{node.name} {url} has variables, so its host is resolved per request, "
                      "and no resolver is in effect: requests get 502", cfg.related(node))


_APACHE_BOUNDARY = re.compile(
    r"""^\s*(?:<\s*(?P<section>Location)\s+|(?P<directive>ProxyPass|Alias|ScriptAlias)\s+)["']?(?P<path>/[^\s"'>]*)""",
    re.I)


def check_apache_boundary(cfg: Config) -> Iterator[Finding]:
    """A2N966: a bare `location /p` whose source is Apache's segment-bounded <Location /p>/ProxyPass/Alias."""
    for node in cfg.walk():
        if node.name != "location":
            continue
        loc = _location_path(node)
        if not loc or loc[0] != "" or loc[1] == "/" or loc[1].endswith("/") or loc[1].startswith("@"):
            continue
        found = cfg.apache_source(node)
        if not found:
            continue
        path, line = found
        text = cfg.text_line(str(path), line)
        m = _APACHE_BOUNDARY.match(text)
        if not m or m.group("path").rstrip("/") != loc[1]:
            continue
        what = f"<Location {m.group('path')}>" if m.group("section") else f"{m.group('directive')} {m.group('path')}"
        yield Finding("A2N966", node,
                      f"location {loc[1]} also matches {loc[1]}X (e.g. {loc[1]}-old, {loc[1]}.bak), which Apache's "
                      f"{what} does not: use `location = {loc[1]}` and `location ^~ {loc[1]}/`",
                      [Span.point(_display(path), line)])


def check_unknown_variables(cfg: Config) -> Iterator[Finding]:
    """A2N969: a directive of the http context reads a variable that nginx has no module for and nothing in
    the configuration declares (nginx_variables.py). Skipped when crossplane could not read part of the
    configuration (an include it could not follow may hold the declaration)."""
    if cfg.errors:
        return
    scan = Scan()
    stack: list[tuple[Node, tuple[str, ...]]] = [(n, ()) for n in reversed(cfg.root.block or [])]
    while stack:
        node, ctx = stack.pop()
        scan.statement(node.name, node.args, ctx, node)
        if node.block:
            inner = ctx + (node.name,)
            stack.extend((child, inner) for child in reversed(node.block))
    for var, where in scan.unknown():
        node = where if isinstance(where, Node) else cfg.root
        if not var:
            yield Finding("A2N969", node, f"{node.name} reads $, a dollar sign no variable name follows (invalid "
                          f"variable name; nginx has no escape for it, a geo or map variable can hold one): nginx "
                          f"-t refuses the whole configuration")
            continue
        yield Finding("A2N969", node, f"{node.name} reads ${var}, which no nginx module provides and nothing in "
                      f"the configuration declares (set, map, geo, a named capture ...): nginx -t refuses the whole "
                      f"configuration")


CHECKS: tuple[Callable[[Config], Iterator[Finding]], ...] = (
    check_add_header_dropped, check_alias_traversal, check_if_in_location, check_upstream_keepalive,
    check_proxy_keepalive_headers, check_pass_resolver, check_apache_boundary, check_unknown_variables)


def run_checks(path: str, source_root: str | None = None, rename: Callable[[str], str] | None = None,
               roots: list[str] | None = None) -> tuple[Config, list[Finding]]:
    cfg = load(path, source_root, rename, roots)
    findings = [f for check in CHECKS for f in check(cfg)]
    findings.sort(key=lambda f: (f.node.file, f.node.line, f.code))
    return cfg, findings
