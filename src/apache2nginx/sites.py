"""The per-site summary `convert` prints before its tally: one row per Apache file.

A row is a file that defines virtual hosts (a site), with what its directives
became and the errors reported in it; the directives of the other files
(apache2.conf, mods-enabled/, conf-enabled/ ...) share one row. Without any
virtual host every file with directives is a row. The text table is capped for
trees of thousands of sites: the sites with errors or unsupported directives
come first, the rest is one "… N more sites" line. `--format json` lists every
file (`files`, with its virtual hosts).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from .diagnostics import Diagnostic, Severity
from .passes.base import Disposition, Tally

ROWS_SHOWN = 10      # rows the text table shows before "… N more sites"


@dataclass
class SiteRow:
    file: str
    directives: int = 0
    exact: int = 0
    approximate: int = 0
    unsupported: int = 0
    not_applicable: int = 0
    unknown: int = 0
    errors: int = 0
    virtual_hosts: int = 0
    files: int = 1            # the files a row stands for (more than one: the row of the other files)

    def add(self, counts: dict[Disposition, int], errors: int) -> None:
        self.directives += sum(counts.values())
        self.exact += counts[Disposition.EXACT]
        self.approximate += counts[Disposition.APPROXIMATE]
        self.unsupported += counts[Disposition.UNSUPPORTED]
        self.not_applicable += counts[Disposition.NOT_APPLICABLE]
        self.unknown += counts[Disposition.UNKNOWN]
        self.errors += errors

    @property
    def troubled(self) -> bool:
        return bool(self.errors or self.unsupported or self.unknown)

    def to_json(self) -> dict:
        return {"file": self.file, "virtual_hosts": self.virtual_hosts, "directives": self.directives,
                "exact": self.exact, "approximate": self.approximate, "unsupported": self.unsupported,
                "not_applicable": self.not_applicable, "unknown": self.unknown, "errors": self.errors}


def file_rows(tally: Tally, diags: Iterable[Diagnostic], config) -> list[SiteRow]:
    """Every file with directives, in the order the run read them, with its virtual hosts and errors."""
    errors: dict[str, int] = {}
    for d in diags:
        if d.severity is Severity.ERROR and d.span is not None:
            errors[d.span.file] = errors.get(d.span.file, 0) + 1
    vhosts: dict[str, int] = {}
    if config is not None:
        for node in config.walk():
            if node.is_section and node.key == "virtualhost" and node.span is not None:
                vhosts[node.span.file] = vhosts.get(node.span.file, 0) + 1
    rows = []
    for file, counts in tally.files.items():
        row = SiteRow(file, virtual_hosts=vhosts.get(file, 0))
        row.add(counts, errors.get(file, 0))
        rows.append(row)
    return rows


def site_table(rows: list[SiteRow], quiet: bool = False, limit: int = ROWS_SHOWN) -> str:
    """The text table ("" when the run read one file, or, with `quiet`, when no row has an error)."""
    if len(rows) < 2:
        return ""
    short = _namer(rows)
    sites = [r for r in rows if r.virtual_hosts]
    others = [r for r in rows if not r.virtual_hosts]
    other = None
    noun = "site"
    if sites and others:
        other = SiteRow(short(others[0].file) + (f" and {len(others) - 1} more files" if len(others) > 1 else ""),
                        files=len(others))
        for r in others:
            other.add({Disposition.EXACT: r.exact, Disposition.APPROXIMATE: r.approximate,
                       Disposition.UNSUPPORTED: r.unsupported, Disposition.NOT_APPLICABLE: r.not_applicable,
                       Disposition.UNKNOWN: r.unknown}, r.errors)
    elif not sites:
        sites, noun = rows, "file"
    ranked = sorted(sites, key=lambda r: (-r.errors, -(r.unsupported + r.unknown), -r.approximate, short(r.file)))
    if quiet:
        candidates = [r for r in ranked if r.errors]
        if other is not None and not other.errors:
            other = None
        if not candidates and other is None:
            return ""
    else:
        candidates = ranked
    # a long table shows only the sites that need work: errors first, then unsupported directives
    shown = candidates if len(candidates) <= limit + 1 else [r for r in candidates if r.troubled][:limit]
    taken = {id(r) for r in shown}
    rest = [r for r in ranked if id(r) not in taken]
    table = [(short(r.file), r) for r in shown] + ([(other.file, other)] if other is not None else [])
    lines = []
    if table:
        width = max(len(noun), *(len(name) for name, _ in table))
        lines.append(f"{noun:<{width}}  directives  exact  approximate  unsupported  errors")
        for name, r in table:
            lines.append(f"{name:<{width}}  {r.directives:>10}  {r.exact:>5}  {r.approximate:>11}  "
                         f"{r.unsupported + r.unknown:>11}  {r.errors:>6}")
    if rest:
        lines.append(_rest_line(rest, noun, quiet, more=bool(table)))
    return "\n".join(lines) + "\n"


def _rest_line(rest: list[SiteRow], noun: str, quiet: bool, more: bool = True) -> str:
    n = len(rest)
    plural = f"{'… ' if more else ''}{n}{' more' if more else ''} {noun}{'s' if n != 1 else ''}"
    if quiet:
        with_errors = sum(1 for r in rest if r.errors)
        return plural + (f", {with_errors} of them with errors (--format json lists every one)"
                                if with_errors else " without errors")
    if not any(r.approximate or r.troubled for r in rest):
        return f"{plural}, all exact"
    parts = []
    with_errors = sum(1 for r in rest if r.errors)
    if with_errors:
        parts.append(f"{with_errors} with errors")
    unsupported = sum(1 for r in rest if r.troubled and not r.errors)
    if unsupported:
        parts.append(f"{unsupported} with unsupported directives")
    approximate = sum(1 for r in rest if r.approximate and not r.troubled)
    if approximate:
        parts.append(f"{approximate} with approximate directives")
    exact = n - with_errors - unsupported - approximate
    return f"{plural}: {', '.join(parts)}" + (f", {exact} all exact" if exact else "") \
        + " (--format json lists every one)"


def _namer(rows: list[SiteRow]):
    """Names files below the directory all the rows' files share (whole paths when that is /)."""
    try:
        common = os.path.commonpath([os.path.dirname(os.path.abspath(r.file)) for r in rows])
    except ValueError:
        common = ""
    if common in ("", os.sep):
        return lambda file: file
    return lambda file: os.path.relpath(os.path.abspath(file), common)
