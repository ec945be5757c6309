"""Diagnostics: what the translator tells the user, and how it is rendered.

Owns the `Diagnostic` record (code, severity, message, span, hint), the
collection a run accumulates (`Diagnostics`), and the three renderers:
compiler-style text (with the source line and a caret, coloured on a TTY),
JSON (the contract's list of objects) and SARIF 2.1.0. The stable codes and
their explain texts live in `codes.py`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterable, Iterator

from . import __version__
from .codes import CODES, CodeInfo, lookup
from .syntax.span import Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


@dataclass(slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    directive: str | None = None
    severity: Severity = field(default=None)  # type: ignore[assignment]
    related: list[Span] = field(default_factory=list)
    # the URLs the diagnostic speaks of when its line does not tell them: (prefix, False) or (regex, True),
    # as a refusal of an Alias's URLs reported at the section that caused it (verify's explainer reads it)
    urls: tuple[tuple[str, bool], ...] = ()
    _related_seen: set | None = field(default=None, repr=False, compare=False)

    def relate(self, span: Span | None) -> None:
        """Name one more location this diagnostic covers (once; never its own line). Constant time, so a
        region-wide diagnostic can name thousands of lines."""
        if span is None:
            return
        if self._related_seen is None:
            self._related_seen = {(s.file, s.line) for s in self.related}
            if self.span is not None:
                self._related_seen.add((self.span.file, self.span.line))
        key = (span.file, span.line)
        if key not in self._related_seen:
            self._related_seen.add(key)
            self.related.append(span)

    def __post_init__(self) -> None:
        info = lookup(self.code)
        if self.severity is None:
            self.severity = Severity(info.severity)
        if self.hint is None:
            self.hint = info.hint

    def to_json(self) -> dict:
        span = self.span
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "file": span.file if span else None,
            "line": span.line if span else None,
            "column": span.column if span else None,
            "end_line": span.end_line if span else None,
            "end_column": span.end_column if span else None,
            "directive": self.directive,
            "hint": self.hint,
            "related": [{"file": r.file, "line": r.line, "column": r.column} for r in self.related],
        }


class Diagnostics:
    """The diagnostics of one run, in the order they were found."""

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []
        self._once: set[tuple[str, Span | None]] = set()

    def add(self, code: str, message: str, span: Span | None = None, *, hint: str | None = None,
            directive: str | None = None, severity: Severity | None = None,
            related: Iterable[Span] = (), urls: Iterable[tuple[str, bool]] = ()) -> Diagnostic:
        diag = Diagnostic(code, message, span, hint, directive, severity, list(related),  # type: ignore[arg-type]
                          tuple(urls))
        self._items.append(diag)
        return diag

    def add_once(self, code: str, message: str, span: Span | None = None, **kwargs) -> Diagnostic | None:
        """add(), unless add_once() already reported CODE at SPAN (a source line reached from several places)."""
        if (code, span) in self._once:
            return None
        self._once.add((code, span))
        return self.add(code, message, span, **kwargs)

    def extend(self, other: Iterable[Diagnostic]) -> None:
        self._items.extend(other)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def since(self, count: int) -> list[Diagnostic]:
        """The diagnostics added after the first COUNT (what one step of a pass reported)."""
        return self._items[count:]

    def at_least(self, severity: Severity) -> list[Diagnostic]:
        return [d for d in self._items if d.severity.rank >= severity.rank]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self._items)

    def sorted(self) -> list[Diagnostic]:
        def key(d: Diagnostic):
            s = d.span
            return (s.file, s.line, s.column) if s else ("", 0, 0)
        return sorted(self._items, key=key)


# --------------------------------------------------------------------------- text

# related locations the text form shows under a diagnostic (JSON and SARIF carry all of them)
RELATED_SHOWN = 6

_COLOURS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.INFO: "\x1b[1;36m"}
_BOLD, _RESET, _BLUE = "\x1b[1m", "\x1b[0m", "\x1b[1;34m"


class SourceCache:
    """Reads source lines lazily for the text renderer (files and stdin text)."""

    def __init__(self) -> None:
        self._texts: dict[str, list[str]] = {}

    def remember(self, name: str, text: str) -> None:
        self._texts[name] = text.splitlines()

    def line(self, name: str, line: int) -> str | None:
        lines = self._texts.get(name)
        if lines is None:
            from .syntax.parser import DEFAULT_MAX_INPUT, InputRefused, read_input
            try:
                # only a regular file of a sane size: a diagnostic may name a device, a FIFO or a huge file
                raw = read_input(name, DEFAULT_MAX_INPUT)
            except (OSError, InputRefused):
                raw = b""
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
            lines = self._texts[name] = text.splitlines()
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return None


def render_text(diags: Iterable[Diagnostic], sources: SourceCache | None = None, colour: bool = False) -> str:
    sources = sources or SourceCache()
    out: list[str] = []
    for d in diags:
        sev = d.severity.value
        label = f"{_COLOURS[d.severity]}{sev}[{d.code}]{_RESET}" if colour else f"{sev}[{d.code}]"
        where = f"{d.span}: " if d.span else "apache2nginx: "
        msg = f"{_BOLD}{d.message}{_RESET}" if colour else d.message
        out.append(f"{where}{label}: {msg}")
        if d.span:
            src = sources.line(d.span.file, d.span.line)
            if src is not None:
                src = src.replace("\t", " ")
                gutter = f"{d.span.line:>5} | "
                out.append(f"{_BLUE if colour else ''}{gutter}{_RESET if colour else ''}{src}")
                width = 1
                if d.span.end_line == d.span.line and d.span.end_column > d.span.column:
                    width = d.span.end_column - d.span.column
                caret = " " * (len(gutter) + d.span.column - 1) + "^" + "~" * max(0, min(width, 200) - 1)
                out.append(f"{_COLOURS[d.severity] if colour else ''}{caret}{_RESET if colour else ''}")
        if d.hint:
            out.append(f"      = hint: {d.hint}")
        for rel in d.related[:RELATED_SHOWN]:
            out.append(f"      = see: {rel.file}:{rel.line}:{rel.column}")
        if len(d.related) > RELATED_SHOWN:
            out.append(f"      = see: {len(d.related) - RELATED_SHOWN} more lines (--format json lists them all)")
    return "\n".join(out) + ("\n" if out else "")


# --------------------------------------------------------------------------- text at server scale

# A code repeating more than this many times (at one severity) is printed as one entry with a count, its
# directives and its first locations: a Debian tree has a hundred not-applicable LoadModule/AddLanguage lines,
# and a warning of one site template repeats once per site. Errors and warnings group only when they repeat a
# lot. JSON and SARIF always list every diagnostic.
GROUP_ABOVE = {Severity.INFO: 3, Severity.WARNING: 10, Severity.ERROR: 10}
GROUP_LOCATIONS = 3     # first locations a group names
GROUP_DIRECTIVES = 4    # directive names a group counts before "N more"


@dataclass(slots=True)
class Group:
    """Diagnostics of one code and severity printed as one entry (text output only)."""

    code: str
    severity: Severity
    items: list[Diagnostic]


def group(diags: Iterable[Diagnostic], above: dict[Severity, int] | None = None) -> list[Diagnostic | Group]:
    """The entries the text form prints: each diagnostic on its own, except that the diagnostics of a code
    repeating more than `above[severity]` times become one Group, placed where the first of them stands."""
    above = GROUP_ABOVE if above is None else above
    diags = list(diags)
    by_key: dict[tuple[str, Severity], list[Diagnostic]] = {}
    for d in diags:
        by_key.setdefault((d.code, d.severity), []).append(d)
    out: list[Diagnostic | Group] = []
    placed: set[tuple[str, Severity]] = set()
    for d in diags:
        key = (d.code, d.severity)
        items = by_key[key]
        if len(items) <= above[d.severity]:
            out.append(d)
        elif key not in placed:
            placed.add(key)
            out.append(Group(d.code, d.severity, items))
    return out


def _render_group(g: Group, colour: bool, detail: bool) -> list[str]:
    n = len(g.items)
    files = len({d.span.file for d in g.items if d.span})
    count = f"×{n}" + (f" in {files} files" if files > 1 else "")
    label = f"{_COLOURS[g.severity]}{g.severity.value}[{g.code}]{_RESET}" if colour else f"{g.severity.value}[{g.code}]"
    summary = lookup(g.code).summary
    out = [f"{label} {count}: {_BOLD if colour else ''}{summary}{_RESET if colour else ''}"]
    if not detail:
        return out
    names: dict[str, int] = {}
    for d in g.items:
        if d.directive:
            names[d.directive] = names.get(d.directive, 0) + 1
    if names:
        ranked = sorted(names.items(), key=lambda kv: (-kv[1], kv[0].lower()))
        shown = ", ".join(f"{name} ×{c}" for name, c in ranked[:GROUP_DIRECTIVES])
        more = f", and {len(ranked) - GROUP_DIRECTIVES} more" if len(ranked) > GROUP_DIRECTIVES else ""
        out.append(f"      = directives: {shown}{more}")
    located = [d.span for d in g.items if d.span]
    if located:
        first = ", ".join(f"{s.file}:{s.line}" for s in located[:GROUP_LOCATIONS])
        more = f", … ({len(located) - GROUP_LOCATIONS} more)" if len(located) > GROUP_LOCATIONS else ""
        out.append(f"      = first at: {first}{more}")
    out.append(f"      = hint: `apache2nginx explain {g.code}` says what it means; --no-group or --diagnostics json "
               f"lists all {n}")
    return out


def render_report(diags: Iterable[Diagnostic], sources: SourceCache | None = None, colour: bool = False, *,
                  severity: Severity = Severity.INFO, grouped: bool = True, detail: bool = True) -> str:
    """The text form for a whole run: the diagnostics of `severity` and above, repeating codes grouped
    (`grouped`), a group's directives, first locations and hint shown with `detail`. Diagnostics printed
    on their own keep the full form (source line, caret, hint)."""
    shown = [d for d in diags if d.severity.rank >= severity.rank]
    entries = group(shown) if grouped else shown
    out: list[str] = []
    single: list[Diagnostic] = []
    for entry in entries:
        if isinstance(entry, Group):
            if single:
                out.append(render_text(single, sources, colour))
                single = []
            out.append("\n".join(_render_group(entry, colour, detail)) + "\n")
        else:
            single.append(entry)
    if single:
        out.append(render_text(single, sources, colour))
    return "".join(out)


def hidden_line(diags: Iterable[Diagnostic], severity: Severity) -> str | None:
    """What a --severity threshold left out, so the reader knows it is there: "58 warnings, 133 infos not
    shown (--severity info shows them)"."""
    counts = {s: 0 for s in Severity}
    for d in diags:
        if d.severity.rank < severity.rank:
            counts[d.severity] += 1
    parts = [f"{counts[s]} {s.value}{'s' if counts[s] != 1 else ''}" for s in (Severity.WARNING, Severity.INFO)
             if counts[s]]
    if not parts:
        return None
    lowest = Severity.INFO if counts[Severity.INFO] else Severity.WARNING
    return f"{', '.join(parts)} not shown (--severity {lowest.value} shows them)"


# --------------------------------------------------------------------------- json

def render_json(diags: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diags], indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- sarif

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _sarif_uri(file: str) -> str:
    """An artifact URI: a relative path (what GitHub code scanning resolves against the checkout) when the file
    lies under the working directory or was given relative, else a file:// URI; percent-encoded either way."""
    from urllib.parse import quote
    if file == "<stdin>":
        return "stdin"
    path = Path(file)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(Path.cwd().resolve())
        except (ValueError, OSError):
            return path.as_uri()
    # a name that is not UTF-8 holds surrogate escapes: its bytes are percent-encoded as they are on disk
    return quote(path.as_posix(), safe="/-._~!$&'()*+,;=:@", errors="surrogateescape")


def _sarif_text(text: str) -> str:
    """TEXT as a SARIF message can hold it: a file name that is not UTF-8 (read as surrogate escapes) shows
    its bytes as \\xNN escapes, since a SARIF log is UTF-8 and a lone surrogate is no character of it."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _sarif_location(span: Span) -> dict:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _sarif_uri(span.file)},
            "region": {
                "startLine": max(1, span.line),
                "startColumn": max(1, span.column),
                "endLine": max(span.line, span.end_line, 1),
                "endColumn": max(1, span.end_column if span.end_line > span.line or span.end_column > span.column
                                 else span.column + 1),
            },
        }
    }


def _sarif_rule(info: CodeInfo) -> dict:
    explain = info.explain.strip()
    rule = {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": explain.split("\n\n")[0].removeprefix("What it means: ")},
        "help": {"text": explain + (f"\n\nHint: {info.hint}" if info.hint else ""),
                 "markdown": "\n\n".join(_help_markdown(p) for p in explain.split("\n\n"))
                 + (f"\n\n**Hint:** {info.hint}" if info.hint else "")},
        "defaultConfiguration": {"level": _SARIF_LEVEL[Severity(info.severity)]},
        "properties": {"tags": ["apache2nginx", info.name]},
    }
    return rule


def _help_markdown(paragraph: str) -> str:
    for head in ("What it means:", "Why it matters:", "How to fix it:"):
        if paragraph.startswith(head):
            return f"**{head}**{paragraph[len(head):]}"
    return paragraph


def sarif_document(diags: Iterable[Diagnostic]) -> dict:
    diags = list(diags)
    used = sorted({d.code for d in diags})
    rule_index = {code: i for i, code in enumerate(used)}
    rules = [_sarif_rule(lookup(code)) for code in used]
    results = []
    for d in diags:
        result: dict = {
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": _sarif_text(d.message + (f" (hint: {d.hint})" if d.hint else ""))},
        }
        if d.span:
            result["locations"] = [_sarif_location(d.span)]
        if d.related:
            result["relatedLocations"] = [
                dict(_sarif_location(s), id=i, message={"text": _sarif_text(f"source: {s.file}:{s.line}")})
                for i, s in enumerate(d.related)]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "apache2nginx",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": "https://pypi.org/project/apache2nginx/",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def render_sarif(diags: Iterable[Diagnostic]) -> str:
    return json.dumps(sarif_document(diags), indent=2, ensure_ascii=False) + "\n"


def render(diags: Iterable[Diagnostic], fmt: str, sources: SourceCache | None = None, colour: bool = False) -> str:
    if fmt == "json":
        return render_json(diags)
    if fmt == "sarif":
        return render_sarif(diags)
    return render_text(diags, sources, colour)


__all__ = ["CODES", "Diagnostic", "Diagnostics", "Group", "Severity", "SourceCache", "group", "hidden_line", "render",
           "render_report", "render_text", "render_json", "render_sarif", "sarif_document"]
