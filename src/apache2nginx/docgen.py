"""Generate docs/diagnostics.md: every diagnostic code of the registry, documented.

    python -m apache2nginx.docgen            # rewrite docs/diagnostics.md
    python -m apache2nginx.docgen --check    # exit 1 when it is out of date

Everything comes from the registry (src/apache2nginx/codes.py: severity, summary, the
explain text in its three parts, the hint) and from the repository: the example of a code is
the smallest fixture (fixtures/**/apache.conf with expected-codes.txt, `line:CODE` a line)
whose conversion reports it, and "reported by" names the command whose modules raise it.
A code no fixture triggers says so rather than showing an invented example.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .codes import CODES, CodeInfo, explains
from .effects import describe_effects
from .fileio import write_atomic

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path("docs") / "diagnostics.md"
REFRESH = "python -m apache2nginx.docgen"
PACKAGE = Path(__file__).resolve().parent

RANGES = {
    "0": "Reading and loading the Apache input",
    "1": "Directive dispositions",
    "2": "Core, listeners and virtual hosts",
    "3": "Proxying and load balancing",
    "4": "Redirects, aliases and CGI",
    "5": "Response headers",
    "6": "Logging",
    "7": "Other modules, access control and .htaccess",
    "8": "mod_rewrite",
    "9": "Self-checks, nginx -t and lint",
}
PARTS = ("What it means", "Why it matters", "How to fix it")
WHOLE_FILE_LINES = 16      # a fixture this short is shown whole
CONTEXT = 3                # else this many lines either side of the reported one


@dataclass
class Example:
    fixture: Path           # the case directory, relative to the root
    line: int | None
    snippet: str
    first_line: int
    args: str


# ----------------------------------------------------------------------------- sources of facts

def find_examples(root: Path) -> dict[str, Example]:
    """code → the example from the shortest fixture that reports it (on a line of apache.conf itself)."""
    found: dict[str, tuple[tuple, Example]] = {}
    for codes_file in sorted((root / "fixtures").rglob("expected-codes.txt")):
        case = codes_file.parent
        apache = case / "apache.conf"
        if not apache.is_file():
            continue
        lines = apache.read_text(encoding="utf-8", errors="replace").splitlines()
        own_only = not any(p.suffix == ".conf" and p.name not in ("apache.conf", "expected.conf")
                           or p.name == ".htaccess" for p in case.rglob("*") if p.is_file())
        args = (case / "args.txt").read_text().strip() if (case / "args.txt").exists() else ""
        for entry in codes_file.read_text().split():
            where, _, code = entry.rpartition(":")
            line = int(where) if where.isdigit() else None
            if line is not None and (line > len(lines) or not own_only):
                continue        # the line is in an included file: the snippet would mislead
            if line is None and len(lines) > WHOLE_FILE_LINES:
                continue
            rank = (line is None, len(lines), str(case))
            if code in found and found[code][0] <= rank:
                continue
            if len(lines) <= WHOLE_FILE_LINES:
                start, stop = 1, len(lines)
            else:
                start, stop = max(1, line - CONTEXT), min(len(lines), line + CONTEXT)
            snippet = "\n".join(lines[start - 1:stop]).strip("\n")
            found[code] = (rank, Example(case.relative_to(root), line, snippet, start, args))
    return {code: ex for code, (_, ex) in found.items()}


# (verify's modules name codes only to explain differences with them: they report none)
_COMMAND_OF = (("lint", "apache2nginx lint"), ("passes", "apache2nginx convert"),
               ("syntax", "apache2nginx convert"), ("emit", "apache2nginx convert"),
               ("convert.py", "apache2nginx convert"), ("htaccess.py", "apache2nginx convert"))
_LITERAL = re.compile(r"[\"'](A2N\d{3})[\"']")


def find_reporters(package: Path = PACKAGE) -> dict[str, list[str]]:
    """code → the commands whose modules name it as a literal (convert also runs under check and verify)."""
    out: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).parts[0]
        command = next((c for prefix, c in _COMMAND_OF if rel == prefix), None)
        if command is None:
            continue
        for code in _LITERAL.findall(path.read_text(encoding="utf-8", errors="replace")):
            out.setdefault(code, set()).add(command)
    order = [c for _, c in _COMMAND_OF]
    return {code: sorted(cmds, key=order.index) for code, cmds in out.items()}


# ----------------------------------------------------------------------------- rendering

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def md_escape(text: str) -> str:
    """Escape what Markdown would swallow (<tags>, *emphasis*) outside code spans; code spans stay as written."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape_plain(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    return text.replace("\\", "\\\\").replace("<", "&lt;").replace("*", "\\*")


def md_unescape(text: str) -> str:
    """The inverse of md_escape (for tests comparing the page with the registry)."""
    return re.sub(r"\\([\\*])", r"\1", text.replace("&lt;", "<"))


def explain_parts(info: CodeInfo) -> list[tuple[str | None, str]]:
    """The explain text as (part title or None, paragraph) pairs, in order."""
    parts = []
    for para in info.explain.split("\n\n"):
        head, sep, rest = para.partition(":")
        if sep and head.strip() in PARTS:
            parts.append((head.strip(), rest.strip()))
        else:
            parts.append((None, para.strip()))
    return parts


def anchor(code: str) -> str:
    return code.lower()


def render_code(info: CodeInfo, example: Example | None, reporters: list[str]) -> str:
    lines = [f"### {info.code}", "", f"`{info.name}` · **{info.severity}**"
             + (f" · reported by {', '.join(f'`{r}`' for r in reporters)}" if reporters else ""), "",
             f"{md_escape(info.summary)}", ""]
    for title, para in explain_parts(info):
        lines += [f"**{title}:** {md_escape(para)}" if title else md_escape(para), ""]
    if info.hint:
        lines += [f"**Hint printed with the diagnostic:** {md_escape(info.hint)}", ""]
    declared = explains(info.code)
    lines += ["**In `verify`, it can explain:** "
              + (md_escape(describe_effects(declared)) if declared else "no difference."), ""]
    if example is None and reporters == ["apache2nginx lint"]:
        lines += ["**Example:** reported on nginx files by `apache2nginx lint`; the explanation above shows the "
                  "pattern it looks for.", ""]
    elif example is None:
        lines += ["**Example:** no fixture in this repository triggers this code yet; the explanation above "
                  "describes the situation.", ""]
    else:
        where = f"line {example.line} of " if example.line else ""
        run = f"apache2nginx convert apache.conf{' ' + example.args if example.args else ''}"
        lines += [f"**Example:** {where}`{example.fixture.as_posix()}/apache.conf` (`{run}`; the expected "
                  f"nginx output is `expected.conf` beside it):", "", "```apache", example.snippet, "```", ""]
    return "\n".join(lines)


def generate(root: Path = ROOT) -> str:
    examples = find_examples(root)
    reporters = find_reporters()
    codes = sorted(CODES.values(), key=lambda i: i.code)
    out = [
        "# Diagnostic codes",
        "",
        f"<!-- Generated from src/apache2nginx/codes.py by `{REFRESH}`; do not edit by hand. -->",
        "",
        "Every divergence between what Apache did and what the nginx translation does is reported as a "
        "diagnostic with a stable code. `apache2nginx explain CODE` prints the same explanation in the "
        "terminal; `apache2nginx explain` lists every code. Severities: **error** (behaviour is lost, or "
        "access, authentication or TLS is weaker: never ignore), **warning** (nginx behaves differently in "
        "the way described), **info** (nothing to do, usually).",
        "",
        f"{len(codes)} codes. Examples are the smallest fixtures of this repository whose conversion reports "
        "the code; a fixture's `expected.conf` shows the nginx that comes out and `expected-codes.txt` every "
        "code it reports.",
        "",
    ]
    by_range: dict[str, list[CodeInfo]] = {}
    for info in codes:
        by_range.setdefault(info.code[3], []).append(info)
    out += ["## Index", ""]
    for digit, infos in by_range.items():
        out += [f"**{RANGES.get(digit, f'A2N{digit}xx')}**", "", "| Code | Name | Severity | Summary |",
                "| --- | --- | --- | --- |"]
        out += [f"| [{i.code}](#{anchor(i.code)}) | `{i.name}` | {i.severity} | "
                f"{md_escape(i.summary).replace('|', '&#124;')} |" for i in infos]
        out.append("")
    for digit, infos in by_range.items():
        out += [f"## A2N{digit}xx: {RANGES.get(digit, 'Other codes')}", ""]
        for info in infos:
            out.append(render_code(info, examples.get(info.code), reporters.get(info.code, [])))
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m apache2nginx.docgen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository checkout (default: %(default)s)")
    parser.add_argument("--output", type=Path, help="the page to write (default: ROOT/docs/diagnostics.md)")
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 when the page is out of date")
    args = parser.parse_args(argv)
    target = args.output or args.root / OUTPUT
    text = generate(args.root)
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current != text:
            print(f"{target} is out of date: run `{REFRESH}`", file=sys.stderr)
            return 1
        return 0
    write_atomic(target, text)
    print(f"wrote {target} ({len(CODES)} codes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
