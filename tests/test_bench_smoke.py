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


def test_redirect_scaling_benchmark_runs(apache_bin, nginx_bin, wrk_bin):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "redirect_scaling.py"), "--tiny"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "nginx(" in proc.stdout and "req/s" in proc.stdout


def test_htaccess_tree_benchmark_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "htaccess_tree.py"), "--files", "24"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "files/s" in proc.stdout


def test_translate_scaling_benchmark_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "translate_scaling.py"), "--tiny"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "lines/s" in proc.stdout and "scaling time(" in proc.stdout and "peak RSS" in proc.stdout


def test_served_benchmark_runs(apache_bin, nginx_bin, wrk_bin):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "served.py"), "--tiny"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "req/s" in proc.stdout and "c/b = " in proc.stdout and "c/a = " in proc.stdout


def test_server_tree_benchmark_runs(apache_bin, nginx_bin):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "server_tree.py"), "--tiny"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "convert --out-dir" in proc.stdout and "nginx -t" in proc.stdout
