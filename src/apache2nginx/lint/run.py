"""One lint run over nginx files: nginx -t, our structural checks, gixy, as one list of diagnostics.

Owns the order and the merging: `nginx -t` in the sandbox (sandbox.py) first,
then the checks of checks.py, then gixy's findings (gixy.py) minus those that
repeat one of ours at the same place. The input is read once, by source.py
(confined, regular files only, size-capped); the checks and gixy read the
sandbox's vetted copy of it, never the user's paths, and their findings are
mapped back to the user's files. Every diagnostic points into the nginx
file (file:line:col); a related location points into the Apache source when
the nginx line carries a source comment naming a file that exists. The
command line (cli.py) only chooses the inputs, the format and the threshold.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostics, Severity
from ..syntax.span import Span
from . import checks, gixy
from .sandbox import Sandbox


@dataclass
class LintOptions:
    nginx: str | None = None               # the nginx binary; None skips `nginx -t`
    gixy: str | None = None                # the gixy program; None: gixy not run
    gixy_skips: tuple[str, ...] = ()
    source_root: str | None = None         # where the Apache files named in source comments are
    prefix: str | None = None              # where relative includes resolve (default: each file's directory)
    allow_include: tuple[str, ...] = ()    # more directories includes may read
    unreadable: list[str] = field(default_factory=list)


def readable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.R_OK)


def lint_file(path: str, options: LintOptions, diags: Diagnostics) -> None:
    if not readable(path):
        diags.add("A2N013", f"cannot read {path}", Span.point(path))
        options.unreadable.append(path)
        return
    box = Sandbox(conf_prefix=options.prefix, allow_include=options.allow_include, lint=True)
    try:
        refused = box.build(path)
        show = _Display(path, box)
        for m in refused:
            what = "lint refuses" if m.level == "refused" else "nginx"
            diags.add("A2N901", f"{what}: {m.message}", show.span(m.file, m.line, m.column))
        if box.orig_main is None:
            return
        if options.nginx:
            result = box.test(options.nginx)
            for m in result.messages:
                code = "A2N901" if m.level in ("emerg", "alert", "crit", "error") else "A2N903"
                diags.add(code, f"nginx: {m.message}", show.span(m.file, m.line))
            if not result.ok and not result.messages:
                diags.add("A2N901", f"nginx -t failed: {result.output.strip()[:500]}", Span.point(path))
        ours = _own_checks(str(box.orig_main), options, diags, show)
        if options.gixy:
            _gixy(str(box.orig_main), options, diags, ours, show)
    finally:
        box.cleanup()


class _Display:
    """The user's name for a file lint read: the path as given for the file given, an included file relative to
    the working directory when the file given was named so, else absolute; sandbox copies map back."""

    def __init__(self, given: str, box: Sandbox):
        self.given = given
        self.main = box.source.main if box.source else os.path.abspath(given)
        self.orig = str(box.orig_dir)
        self.relative = not os.path.isabs(given)

    def file(self, file: str | None) -> str:
        if not file:
            return self.given
        if file.startswith(self.orig + "/"):
            file = file[len(self.orig):]
        file = os.path.normpath(os.path.abspath(file))
        if file == self.main:
            return self.given
        if self.relative:
            rel = os.path.relpath(file)
            if not rel.startswith(".."):
                return rel
        return file

    def span(self, file: str | None, line: int | None, column: int | None = None) -> Span:
        return Span.point(self.file(file), line or 1, column or 1)


def _own_checks(path: str, options: LintOptions, diags: Diagnostics, show: _Display) -> set[tuple[str, str, int]]:
    """Run checks.py; returns (code, file, line) of every place a finding covers, for gixy's de-duplication."""
    try:
        cfg, findings = checks.run_checks(path, options.source_root, rename=show.file,
                                          roots=_roots(show, options))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return set()   # crossplane could not read it at all; nginx -t has said why
    covered = set()
    for f in findings:
        diags.add(f.code, f.message, cfg.span(f.node), directive=f.node.name, related=f.related)
        for line in (f.node.line, *f.lines):
            covered.add((f.code, _same(f.node.file), line))
    return covered


def _roots(show: _Display, options: LintOptions) -> list[str]:
    """Where the Apache files named in source comments may be read from."""
    roots = [os.path.dirname(show.main), os.getcwd(), *options.allow_include]
    if options.source_root:
        roots.append(options.source_root)
    if options.prefix:
        roots.append(options.prefix)
    return [os.path.realpath(r) for r in roots]


def _same(file: str) -> str:
    return str(Path(file).resolve())


def _gixy(path: str, options: LintOptions, diags: Diagnostics, ours: set[tuple[str, str, int]],
          show: _Display) -> None:
    run = gixy.run_gixy(options.gixy, path, options.gixy_skips)   # type: ignore[arg-type]
    if run.failure:
        diags.add("A2N968", run.failure, Span.point(show.given))
        return
    for issue in run.issues:
        file = show.file(issue.file or path)
        mine = gixy.SAME_AS_OURS.get(issue.plugin)
        if mine and (mine, _same(file), issue.line) in ours:
            continue
        line = issue.line or 1
        diags.add("A2N967", issue.message, Span.point(file, line, _indent(file, line)),
                  severity=Severity(issue.severity), directive=issue.plugin)


def _indent(file: str, line: int) -> int:
    """The column of the first non-blank character of a line (gixy gives lines only)."""
    try:
        with open(file, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    return len(text) - len(text.lstrip()) + 1 if text.strip() else 1
    except OSError:
        pass
    return 1
