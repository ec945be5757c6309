"""One lint run over nginx files: nginx -t, our structural checks, gixy, as one list of diagnostics.

Owns the order and the merging: `nginx -t` in the sandbox (sandbox.py) first,
then the checks of checks.py, then gixy's findings (gixy.py) minus those that
repeat one of ours at the same place. Every diagnostic points into the nginx
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
from .sandbox import nginx_test


@dataclass
class LintOptions:
    nginx: str | None = None               # the nginx binary; None skips `nginx -t`
    gixy: str | None = None                # the gixy program; None: gixy not run
    gixy_skips: tuple[str, ...] = ()
    source_root: str | None = None         # where the Apache files named in source comments are
    unreadable: list[str] = field(default_factory=list)


def readable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.R_OK)


def lint_file(path: str, options: LintOptions, diags: Diagnostics) -> None:
    if not readable(path):
        diags.add("A2N013", f"cannot read {path}", Span.point(path))
        options.unreadable.append(path)
        return
    if options.nginx:
        _nginx_t(path, options.nginx, diags)
    ours = _own_checks(path, options, diags)
    if options.gixy:
        _gixy(path, options, diags, ours)


def _nginx_t(path: str, nginx: str, diags: Diagnostics) -> None:
    result = nginx_test(path, nginx)
    for m in result.messages:
        span = Span.point(m.file, m.line or 1) if m.file else Span.point(path)
        code = "A2N901" if m.level in ("emerg", "alert", "crit", "error") else "A2N903"
        diags.add(code, f"nginx: {m.message}", span)
    if not result.ok and not result.messages:
        diags.add("A2N901", f"nginx -t failed: {result.output.strip()[:500]}", Span.point(path))


def _own_checks(path: str, options: LintOptions, diags: Diagnostics) -> set[tuple[str, str, int]]:
    """Run checks.py; returns (code, file, line) of every place a finding covers, for gixy's de-duplication."""
    try:
        cfg, findings = checks.run_checks(path, options.source_root)
    except (OSError, UnicodeDecodeError, ValueError):
        return set()   # crossplane could not read it at all; nginx -t has said why
    covered = set()
    for f in findings:
        diags.add(f.code, f.message, cfg.span(f.node), directive=f.node.name, related=f.related)
        for line in (f.node.line, *f.lines):
            covered.add((f.code, _same(f.node.file), line))
    return covered


def _same(file: str) -> str:
    return str(Path(file).resolve())


def _gixy(path: str, options: LintOptions, diags: Diagnostics, ours: set[tuple[str, str, int]]) -> None:
    run = gixy.run_gixy(options.gixy, path, options.gixy_skips)   # type: ignore[arg-type]
    if run.failure:
        diags.add("A2N968", run.failure, Span.point(path))
        return
    for issue in run.issues:
        file = path if not issue.file or _same(issue.file) == _same(path) else issue.file
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
