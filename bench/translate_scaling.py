"""End-to-end `apache2nginx convert` throughput, scaling and memory on large configurations.

What it measures
    The wall time of `python3 -m apache2nginx convert apache2.conf -o nginx.conf` AS A PROCESS -- interpreter
    start and imports, reading and parsing every file, Include/Define/IfModule loading, every translation
    pass, rendering through the templates, the self-check re-parse and writing the output (convert does not
    run the linter) -- on the synthetic Debian-style configurations of bench/_common.py (the same as
    parse_scaling.py's): a main apache2.conf that Includes conf-enabled/*.conf and sites-enabled/*.conf,
    sites holding many <VirtualHost> blocks with SSL, Header directives, <Proxy balancer://> with
    BalancerMember lines, ProxyPass/ProxyPassReverse lists, RewriteCond/RewriteRule sets, <IfModule> ->
    <Location> nesting, <Directory> and <FilesMatch> sections and a few continuation lines.

    Sizes are about 10,000, 100,000 and 300,000 lines; each is converted N times (best taken; default 3, 2
    from 100k). Each run's peak RSS and CPU time (user + system) are that process's own (os.wait4's rusage);
    the smallest are reported. CPU seconds stay meaningful on a machine other work keeps busy, where wall
    seconds do not.
    Printed: a table of size, files, lines, seconds, CPU seconds, lines/s and peak RSS; then the targets:
      * 100k lines converted in under 2 s;
      * time(100k)/time(10k) at most 11 (linear);
      * peak RSS of convert on the 100k configuration under 300 MB.
    The script only prints figures; it exits 0 unless a conversion fails (exit status 2 or no output).

How to run
    python3 bench/translate_scaling.py                   # 1k, 10k, 100k lines
    python3 bench/translate_scaling.py --sizes 10000,100000 --repeat 5
    python3 bench/translate_scaling.py --tiny            # ~100/300/1000 lines, 1 run (smoke test)
    python3 bench/translate_scaling.py --profile         # also cProfile one in-process convert of the largest
    python3 bench/translate_scaling.py --keep            # keep the configurations (and outputs) to look at

Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import GENERATORS, fmt_size, generate

TARGET_SECONDS_100K = 2.0
TARGET_RATIO = 11.0
TARGET_RSS_MB = 300
TIMEOUT = 600


def convert_once(main: Path, out: Path) -> tuple[float, float, int, float]:
    """One `convert` process; returns (wall seconds, peak RSS in MB, exit status, CPU seconds)."""
    err = out.with_suffix(".stderr")
    with open(err, "wb") as stderr:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "apache2nginx", "convert", str(main), "-o", str(out)],
                                stdout=subprocess.DEVNULL, stderr=stderr, cwd=main.parent)
        deadline = t0 + TIMEOUT
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                proc.wait()
                raise RuntimeError(f"convert of {main} took more than {TIMEOUT} s")
            time.sleep(0.002)
        elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1) or not out.exists():
        tail = err.read_text(errors="replace")[-2000:]
        raise RuntimeError(f"convert exited {proc.returncode}:\n{tail}")
    return elapsed, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime


def profile(main: Path, out: Path) -> None:
    """cProfile of one in-process conversion (what the process does after its imports)."""
    import cProfile
    import pstats
    from apache2nginx.convert import ConvertOptions, convert, gather_inputs
    from apache2nginx.diagnostics import Diagnostics
    cwd = os.getcwd()
    os.chdir(main.parent)
    try:
        diags = Diagnostics()
        specs = gather_inputs([str(main)], diags)
        prof = cProfile.Profile()
        prof.enable()
        result = convert(specs, ConvertOptions(), diags)
        prof.disable()
        out.write_text("".join(result.outputs.values()), encoding="utf-8")
    finally:
        os.chdir(cwd)
    stats = pstats.Stats(prof)
    print("\ncProfile of one in-process convert of the largest configuration (by cumulative time):")
    stats.sort_stats("cumulative").print_stats(r"apache2nginx|templates", 30)
    print("by own time (all functions):")
    stats.sort_stats("tottime").print_stats(20)


def _run_generator(kind: str, sizes: list[int], tmp: Path, reps_for, args) -> None:
    """Convert each size of one generator's configurations; print the table and the targets."""
    configs = []
    for size in sizes:
        main_path, lines, nfiles = generate(tmp / f"cfg-{size}", size, kind)
        configs.append((size, main_path, lines, nfiles))
    print(f"\ngenerator: {kind}")
    convert_once(configs[0][1], tmp / "warmup.conf")        # page cache, .pyc files
    print(f"{'target':>8} {'files':>6} {'lines':>9} {'reps':>4} {'seconds':>9} {'CPU s':>7} {'lines/s':>11} "
          f"{'peak RSS MB':>12} {'out lines':>10}")
    results: dict[int, tuple[int, float, float]] = {}
    for size, main_path, lines, nfiles in configs:
        out = tmp / f"nginx-{size}.conf"
        best, rss, cpu = float("inf"), float("inf"), float("inf")
        for _ in range(reps_for(size)):
            elapsed, peak, _status, used = convert_once(main_path, out)
            best, rss, cpu = min(best, elapsed), min(rss, peak), min(cpu, used)
        out_lines = out.read_text(encoding="utf-8").count("\n")
        results[size] = (lines, best, rss)
        print(f"{fmt_size(size):>8} {nfiles:>6} {lines:>9,} {reps_for(size):>4} {best:>9.3f} {cpu:>7.2f} "
              f"{lines / best:>11,.0f} {rss:>12.0f} {out_lines:>10,}", flush=True)
    for size in sizes:
        lines, best, rss = results[size]
        if size == 100_000 or (size > 100_000 and 100_000 not in results and size == sizes[-1]):
            print(f"  convert {lines:,} lines: {best:.2f} s   target < {TARGET_SECONDS_100K:g} s at 100k   "
                  f"{'PASS' if best < TARGET_SECONDS_100K * lines / 100_000 else 'MISS'}")
    for prev, size in zip(sizes, sizes[1:]):
        ratio = results[size][1] / results[prev][1]
        limit = TARGET_RATIO * (size / prev) / 10
        print(f"  scaling time({fmt_size(size)})/time({fmt_size(prev)}) = {ratio:.2f}   (lines ratio "
              f"{results[size][0] / results[prev][0]:.2f})   target <= {limit:.3g}   "
              f"{'PASS' if ratio <= limit else 'MISS'}")
    for size in sizes:
        lines, best, rss = results[size]
        if size >= 100_000:
            print(f"  peak RSS converting {lines:,} lines: {rss:.0f} MB   target < {TARGET_RSS_MB} MB at 100k   "
                  f"{'PASS' if rss < TARGET_RSS_MB * max(1, lines / 100_000) else 'MISS'}")
    if args.profile:
        profile(configs[-1][1], tmp / "profiled.conf")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,300000",
                    help="comma-separated target line counts (default: 10000,100000,300000)")
    ap.add_argument("--generators", default=",".join(GENERATORS),
                    help=f"comma-separated generators among {', '.join(GENERATORS)} (default: all)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="conversions per size, best taken (default 3; 2 for sizes >= 100k)")
    ap.add_argument("--tiny", action="store_true",
                    help="sizes ~100/300/1000 lines, 1 run each (smoke test; figures not meaningful)")
    ap.add_argument("--profile", action="store_true", help="also cProfile one conversion of the largest size")
    ap.add_argument("--keep", action="store_true", help="keep the configurations and outputs and print where")
    args = ap.parse_args(argv)
    sizes = [100, 300, 1000] if args.tiny else [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] <= 0:
        ap.error("--sizes needs positive line counts")

    def reps_for(size: int) -> int:
        if args.repeat is not None:
            return max(1, args.repeat)
        return 1 if args.tiny else 2 if size >= 100_000 else 3

    kinds = [k.strip() for k in args.generators.split(",") if k.strip()]
    if not kinds or any(k not in GENERATORS for k in kinds):
        ap.error(f"--generators takes names among {', '.join(GENERATORS)}")
    tmp = Path(tempfile.mkdtemp(prefix="a2n-translate-bench-"))
    try:
        print(f"apache2nginx convert, end to end as a process  (python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs, {'tiny mode' if args.tiny else 'best of N'}, load average "
              f"{os.getloadavg()[0]:.1f})")
        for kind in kinds:
            _run_generator(kind, sizes, tmp / kind, reps_for, args)
        if args.tiny:
            print("(tiny mode: sizes too small for the targets to mean anything)")
        if args.keep:
            print(f"\nconfigurations and outputs kept in {tmp}")
    except RuntimeError as exc:
        print(f"conversion failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
