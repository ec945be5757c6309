"""The gixy bridge: gixy-ng's security findings as A2N967 diagnostics.

gixy-ng depends on a module that is also named `crossplane` (from ngxparse),
which clashes with the crossplane this package uses, so gixy is never
imported: it is found as a separate program (`--gixy PATH`, else $A2N_GIXY,
else `gixy` on $PATH), run with `-f json`, and its report (a JSON list of
objects with `plugin`, `severity`, `summary`, `reason`, `reference`, `file`,
`line`, ...) is converted here. A gixy that fails or prints no JSON is
reported as A2N968, never as a crash.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass

# gixy's severities to ours: HIGH is an error, MEDIUM a warning, LOW and UNSPECIFIED are info.
SEVERITY = {"HIGH": "error", "MEDIUM": "warning", "LOW": "info", "UNSPECIFIED": "info"}
# gixy checks that repeat one of our own (same problem, same line): ours is kept, gixy's dropped.
SAME_AS_OURS = {"add_header_redefinition": "A2N960", "alias_traversal": "A2N961", "if_is_evil": "A2N962",
                "missing_resolver": "A2N965"}


@dataclass
class GixyIssue:
    plugin: str
    severity: str          # ours: error / warning / info
    message: str
    file: str | None
    line: int | None


@dataclass
class GixyRun:
    issues: list[GixyIssue]
    failure: str | None = None     # why gixy could not report, if it could not


def find_gixy(explicit: str | None = None) -> str | None:
    """The gixy program to run: --gixy, else $A2N_GIXY, else `gixy` on $PATH (None: not installed)."""
    if explicit:
        return shutil.which(explicit) or None     # the command line reports a --gixy that is no program
    env = os.environ.get("A2N_GIXY")
    if env:
        return shutil.which(env) or env           # run_gixy reports one that does not run (A2N968)
    return shutil.which("gixy")


def parse_report(text: str, default_file: str) -> list[GixyIssue]:
    """gixy's JSON report (a list of issue objects) as issues; raises ValueError when it is not one."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("gixy's report is not a JSON list")
    issues = []
    for item in data:
        if not isinstance(item, dict):
            continue
        plugin = str(item.get("plugin") or "gixy")
        severity = SEVERITY.get(str(item.get("severity", "")).upper(), "warning")
        parts = [str(item.get("summary") or "").strip().rstrip(".")]
        if item.get("reason"):
            parts.append(str(item["reason"]).strip())
        message = f"gixy [{plugin}]: " + "; ".join(p for p in parts if p)
        if item.get("reference"):
            message += f" (see {item['reference']})"
        line = item.get("line")
        issues.append(GixyIssue(plugin, severity, message, item.get("file") or item.get("path") or default_file,
                                int(line) if isinstance(line, int) or (isinstance(line, str) and line.isdigit())
                                else None))
    return issues


def run_gixy(gixy: str, path: str, skips: tuple[str, ...] = (), timeout: float = 120) -> GixyRun:
    cmd = [gixy, "-f", "json"]
    if skips:
        cmd += ["--skips", ",".join(skips)]
    cmd.append(path)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return GixyRun([], f"gixy timed out after {timeout:.0f} s")
    except OSError as exc:
        return GixyRun([], f"cannot run {gixy}: {exc.strerror or exc}")
    out = proc.stdout.strip()
    try:
        # gixy exits 1 when it found issues; only the report tells whether it worked.
        issues = parse_report(out, path) if out else None
    except ValueError:
        issues = None
    if issues is None:
        why = (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}").splitlines()
        return GixyRun([], f"gixy printed no JSON report: {why[-1][:300] if why else ''}")
    return GixyRun(issues)
