"""One run of `apache2nginx verify --format json` on a case directory, and the failure classes of what it
found.

The run is a process of its own (a hang or a crash cannot take the fuzzer down; its process group is
killed at the deadline). Its outcome is one of:

- `ok`: both servers ran and every difference was explained;
- `fail`: a WIDENED ACCESS, a LOST SECURITY HEADER or an unexplained difference (the classes say which);
- `invalid`: httpd refused the configuration ("httpd did not start"): a bug of the generator, not of the
  translation;
- `error`: anything else (verify crashed, timed out, nginx refused the translation, convert refused the
  input): class `verify-error`, with the reason.

A class names the kind of difference without the request: `widened status 403->200`, `lost-security header
x-frame-options missing`, `unexplained status 200->404`, `unexplained header x-fuzz-a added`,
`unexplained location changed`, `unexplained backend path changed`.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

VERIFY_TIMEOUT = 180.0


@dataclass
class Outcome:
    status: str                                   # ok | fail | invalid | error
    classes: dict[str, list[dict]] = field(default_factory=dict)    # class -> the differences that show it
    compared: int = 0
    reason: str = ""                              # for invalid and error: the first line of the message
    seconds: float = 0.0
    report: dict | None = None                    # verify's JSON

    @property
    def failing(self) -> bool:
        return self.status == "fail"


def change(apache, nginx) -> str:
    if apache in (None, [], ""):
        return "added"
    if nginx in (None, [], ""):
        return "missing"
    return "changed"


def classify(difference: dict) -> str | None:
    """The class of one difference of verify's JSON, None for an explained one."""
    field_name = difference["field"]
    a, n = difference["apache"], difference["nginx"]
    if difference.get("widened"):
        if field_name != "status":
            return None           # the same request's status difference stands for it
        return f"widened status {a}->{n}"
    if difference.get("lost_security"):
        return f"lost-security {field_name} {change(a, n)}"
    if difference.get("explained_by"):
        return None
    if field_name == "status":
        return f"unexplained status {a}->{n}"
    if field_name == "connection":
        return "unexplained connection " + ("httpd-failed" if isinstance(a, str) else "nginx-failed")
    if field_name == "body":
        return "unexplained body"
    return f"unexplained {field_name} {change(a, n)}"


SEVERITY = ("widened", "lost-security", "unexplained status", "unexplained")


def severity(cls: str) -> tuple:
    """Sort key: the worst class first (widened access, lost protection, a status, the rest)."""
    for rank, prefix in enumerate(SEVERITY):
        if cls.startswith(prefix):
            return (rank, cls)
    return (len(SEVERITY), cls)


def family(cls: str) -> str:
    """The class with the generator's own names (X-Fuzz-A..C) and status numbers folded, for grouping."""
    return re.sub(r"x-fuzz-[a-z]", "x-fuzz-*", cls)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        line = line.strip()
        if line:
            line = re.sub(r"/tmp/[^\s:;'\")]+", "<tmp>", line)
            return line[:300]
    return ""


def run_verify(directory: Path, extra: list[str], timeout: float = VERIFY_TIMEOUT,
               python: str | None = None) -> Outcome:
    """verify on DIRECTORY's apache.conf with its requests.txt (and EXTRA arguments)."""
    started = time.monotonic()
    cmd = [python or sys.executable, "-m", "apache2nginx", "verify", "apache.conf", "--requests", "requests.txt",
           "--format", "json", *extra]
    proc = subprocess.Popen(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return Outcome("error", {"verify-error timeout": []}, reason=f"verify took more than {timeout:.0f}s",
                       seconds=time.monotonic() - started)
    finally:
        _kill_group(proc)       # servers it left behind, if any
    seconds = time.monotonic() - started
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    if proc.returncode == 2 and "httpd did not start" in stderr:
        reason = _httpd_reason(stderr)
        return Outcome("invalid", reason=reason, seconds=seconds)
    if proc.returncode not in (0, 1):
        return Outcome("error", {f"verify-error {_error_kind(stderr, proc.returncode)}": []},
                       reason=_error_reason(stderr) or f"exit status {proc.returncode}", seconds=seconds)
    try:
        report = json.loads(stdout)
    except ValueError:
        return Outcome("error", {"verify-error crash": []}, reason="verify printed no JSON: "
                       + _first_line(stderr or stdout), seconds=seconds)
    classes: dict[str, list[dict]] = {}
    for difference in report.get("differences", []):
        cls = classify(difference)
        if cls is not None:
            classes.setdefault(cls, []).append(difference)
    status = "fail" if classes else "ok"
    if proc.returncode == 1 and not classes:
        status, classes = "fail", {"unexplained (exit 1 without a difference)": []}
    return Outcome(status, classes, report.get("summary", {}).get("compared", 0), seconds=seconds, report=report)


def _error_kind(stderr: str, code: int) -> str:
    """What kind of failure a verify run that compared nothing had: `crash IndexError` (an internal error),
    `A2N900` (an error diagnostic's code that stopped it), `nginx-refused`, or `exit-N`."""
    m = re.search(r"internal error: (\w+)", stderr)
    if m:
        return f"crash {m.group(1)}"
    if re.search(r"nginx configuration:|nginx did not start", stderr):
        return "nginx-refused"
    if "echo backends did not start" in stderr:
        return "backends"
    m = re.search(r"error\[(A2N\d+)\]", stderr)
    if m:
        return m.group(1)
    return f"exit-{code}"


def _error_reason(stderr: str) -> str:
    for line in stderr.splitlines():
        if re.search(r"internal error|error\[A2N|could not run|Traceback", line):
            return re.sub(r"/tmp/[^\s:;'\")]+", "<tmp>", line.strip())[:300]
    return _first_line(stderr)


def _httpd_reason(stderr: str) -> str:
    for line in stderr.splitlines():
        if re.search(r"AH\d+|Syntax error|Invalid command|not allowed here|Either all Options", line):
            return re.sub(r"/tmp/[^\s:;'\")]+", "<tmp>", line.strip())[:300]
    return _first_line(stderr)


def _kill_group(proc: subprocess.Popen) -> None:
    """End the verify process and whatever it started (its own process group), if still there."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
