"""The benchmarks run in their tiny mode, so they cannot rot (their figures are not asserted)."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_parse_scaling_benchmark_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_scaling.py"), "--tiny"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "lines/s" in proc.stdout
