"""Fixture cases: fixtures/**/apache.conf with expected.conf (nginx) and
expected-codes.txt (diagnostic codes, one `line:CODE` per diagnostic).

Conversions run inside the case directory on `apache.conf`, so source
comments read `# apache.conf:N` and outputs are stable wherever the checkout is.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def case_dirs() -> list[Path]:
    return sorted(p.parent for p in FIXTURES.rglob("apache.conf"))


def convert_case(case: Path) -> tuple[str, list[str], int]:
    """(nginx text, ['line:CODE', ...], exit code) for one case."""
    args = (case / "args.txt").read_text().split() if (case / "args.txt").exists() else []
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", "apache.conf", "--format", "json", *args],
                          cwd=case, capture_output=True, text=True, timeout=120)
    doc = json.loads(proc.stdout)
    text = "".join(doc["output"].values())
    codes = [f"{d['line'] if d['line'] is not None else '-'}:{d['code']}" for d in doc["diagnostics"]]
    return text, codes, proc.returncode
