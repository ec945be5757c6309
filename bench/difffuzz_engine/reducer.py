"""Delta debugging of a failing case down to a minimal one that still fails the same way.

`Reducer(case, still_fails)` shrinks, while `still_fails(candidate)` holds (for the fuzzer: verify still
shows the same class of failure):

1. the requests (first only those whose line matches a failing difference, when a hint is given; then
   ddmin over the lines);
2. the configuration, top-down: ddmin over each list of directives and sections (the top level, then the
   children of every section left, recursively; Listen lines are kept, so the case stays a whole
   configuration), the same over each .htaccess file, and the files of the case's own document root;
3. sections replaced by their contents (a <RequireAll> of one rule, an <If> whose condition does not
   matter), then arguments simplified (a Header's `always` or condition, a RewriteRule's flags one by one,
   extra words of Require, ServerAlias, DirectoryIndex, Options);

and repeats 2-3 until nothing more goes. It is bounded: at most `max_runs` calls of the predicate and
`max_seconds` of time; past either it stops with the smallest failing case found so far. Results are
cached by the case's content, so a candidate is never run twice.
"""
from __future__ import annotations

import re
import time
from typing import Callable

from .model import Case, Node


class Budget(Exception):
    """The reducer's runs or time are spent."""


class Reducer:
    def __init__(self, case: Case, still_fails: Callable[[Case], bool], max_runs: int = 150,
                 max_seconds: float = 600.0, hint_requests: list[str] | None = None):
        self.best = case.copy()
        self.still_fails = still_fails
        self.max_runs = max_runs
        self.deadline = time.monotonic() + max_seconds
        self.hint = hint_requests
        self.runs = 0
        self.cache: dict[str, bool] = {}
        self.exhausted = False

    # ----------------------------------------------------------------------------- the predicate
    def test(self, candidate: Case) -> bool:
        """Whether CANDIDATE still fails; a failing one becomes the best case."""
        key = candidate.key()
        if key in self.cache:
            return self.cache[key]
        if self.runs >= self.max_runs or time.monotonic() > self.deadline:
            raise Budget()
        self.runs += 1
        ok = bool(self.still_fails(candidate))
        self.cache[key] = ok
        if ok and candidate.size() + len(candidate.requests) <= self.best.size() + len(self.best.requests):
            self.best = candidate
        return ok

    # ----------------------------------------------------------------------------- ddmin
    def ddmin(self, count: int, build: Callable[[list[int]], Case]) -> list[int]:
        """The indices 0..count-1 kept: ddmin over complements, trying the empty set first."""
        keep = list(range(count))
        if not keep:
            return keep
        if self.test(build([])):
            return []
        granularity = 2
        while keep:
            size = max(1, len(keep) // granularity)
            chunks = [keep[i:i + size] for i in range(0, len(keep), size)]
            for chunk in chunks:
                rest = [i for i in keep if i not in chunk]
                if rest != keep and self.test(build(rest)):
                    keep = rest
                    granularity = max(granularity - 1, 2)
                    break
            else:
                if size == 1:
                    break
                granularity = min(len(keep), granularity * 2)
        return keep

    # ----------------------------------------------------------------------------- containers
    @staticmethod
    def container(case: Case, path: tuple) -> list:
        """The list PATH names: ("config", i, j...) a section's children, ("htaccess", dir), ("requests",)."""
        if path[0] == "requests":
            return case.requests
        if path[0] == "htaccess":
            nodes = case.htaccess[path[1]]
            rest = path[2:]
        else:
            nodes = case.config
            rest = path[1:]
        for i in rest:
            nodes = nodes[i].children
        return nodes

    def reduce_list(self, path: tuple) -> None:
        base = self.best
        items = list(self.container(base, path))
        # the Listen lines stay: without them the case is a snippet, which is translated otherwise (a
        # RewriteRule with no RewriteEngine is on in a snippet, off in a whole configuration)
        pinned = {i for i, node in enumerate(items) if path[0] == "config" and node.name.lower() in PINNED}
        free = [i for i in range(len(items)) if i not in pinned]

        def build(indices: list[int]) -> Case:
            c = base.copy()
            chosen = sorted(pinned | {free[k] for k in indices})
            self.container(c, path)[:] = [self.container(c, path)[i] for i in chosen]
            return c
        self.ddmin(len(free), build)      # (each success became the best case)

    def reduce_tree(self, path: tuple) -> None:
        self.reduce_list(path)
        nodes = self.container(self.best, path)
        for i in range(len(nodes)):
            nodes = self.container(self.best, path)
            if i < len(nodes) and nodes[i].is_section and nodes[i].children:
                self.reduce_tree(path + (i,))

    def reduce_requests(self) -> None:
        if self.hint is not None and len(self.hint) < len(self.best.requests):
            c = self.best.copy()
            c.requests = [r for r in c.requests if r in set(self.hint)]
            self.test(c)
        self.reduce_list(("requests",))

    def reduce_files(self) -> None:
        if not self.best.own_docroot or not self.best.files:
            return
        base = self.best
        names = sorted(base.files)

        def build(indices: list[int]) -> Case:
            c = base.copy()
            c.files = {names[i]: base.files[names[i]] for i in indices}
            return c
        self.ddmin(len(names), build)

    def reduce_htaccess(self) -> None:
        for rel in sorted(self.best.htaccess):
            if rel not in self.best.htaccess:
                continue
            c = self.best.copy()
            del c.htaccess[rel]
            if self.test(c):
                continue
            self.reduce_tree(("htaccess", rel))

    # ----------------------------------------------------------------------------- simplification
    def _sites(self) -> list[tuple]:
        """(container path, index) of every node, parents before children."""
        out = []

        def walk(path: tuple, nodes: list[Node]):
            for i, n in enumerate(nodes):
                out.append((path, i))
                if n.is_section:
                    walk(path + (i,), n.children)
        walk(("config",), self.best.config)
        for rel, nodes in sorted(self.best.htaccess.items()):
            walk(("htaccess", rel), nodes)
        return out

    def unwrap_sections(self) -> bool:
        """Replace sections by their contents, one at a time; True when one went."""
        progress = False
        for path, i in self._sites():
            nodes = self.container(self.best, path) if self._valid(path) else None
            if nodes is None or i >= len(nodes) or not nodes[i].is_section or not nodes[i].children:
                continue
            if nodes[i].name not in UNWRAPPABLE:
                continue
            c = self.best.copy()
            target = self.container(c, path)
            target[i:i + 1] = target[i].children
            if self.test(c):
                progress = True
        return progress

    def _valid(self, path: tuple) -> bool:
        try:
            self.container(self.best, path)
            return True
        except (IndexError, KeyError, TypeError):
            return False

    def simplify_args(self) -> bool:
        progress = False
        for path, i in self._sites():
            if not self._valid(path):
                continue
            nodes = self.container(self.best, path)
            if i >= len(nodes):
                continue
            for args in simpler_args(nodes[i]):
                c = self.best.copy()
                self.container(c, path)[i].args = args
                if self.test(c):
                    progress = True
                    break
        return progress

    # ----------------------------------------------------------------------------- the whole reduction
    def run(self) -> Case:
        try:
            self.reduce_requests()
            for _ in range(4):
                before = self.best.key()
                self.reduce_tree(("config",))
                self.reduce_htaccess()
                self.unwrap_sections()
                self.simplify_args()
                self.reduce_files()
                if self.best.key() == before:
                    break
            self.reduce_requests()
        except Budget:
            self.exhausted = True
        return self.best


# directives the reduction keeps, so a reduced case stays a whole configuration
PINNED = {"listen"}

UNWRAPPABLE = {"RequireAll", "RequireAny", "If", "ElseIf", "Else", "Limit", "LimitExcept", "Files", "FilesMatch",
               "Location", "LocationMatch", "Directory", "DirectoryMatch", "VirtualHost"}


def simpler_args(node: Node) -> list[list[str]]:
    """Simpler argument lists for a directive, most promising first."""
    name, args = node.name.lower(), node.args
    out: list[list[str]] = []
    if node.is_section:
        return out
    if name in ("header", "requestheader"):
        if args and args[0] in ("always", "onsuccess"):
            out.append(args[1:])
        if args and (args[-1].startswith(("env=", '"expr=', "expr=")) and len(args) > 2):
            out.append(args[:-1])
    elif name in ("rewriterule", "rewritecond"):
        if args and re.fullmatch(r"\[.*\]", args[-1]):
            flags = args[-1][1:-1].split(",")
            out.append(args[:-1])
            if len(flags) > 1:
                for f in flags:
                    out.append(args[:-1] + ["[" + ",".join(x for x in flags if x != f) + "]"])
    elif name in ("require", "serveralias", "directoryindex", "options", "allow", "deny") and len(args) > 2:
        for j in range(len(args) - 1, 0, -1):
            out.append(args[:j] + args[j + 1:])
    elif name in ("serveralias", "directoryindex", "options") and len(args) == 2:
        out += [args[:1], args[1:]]
    elif name == "redirect" and len(args) == 3 and not args[0].startswith("/"):
        out.append(args[1:])
    return out
