"""Parse+load throughput and scaling of apache2nginx on large configurations.

What it measures
    The wall time of `apache2nginx.syntax.loader.load()` -- reading every file,
    the tree-sitter parse, building the Directive/Section tree, and the
    loader's work (Include/IncludeOptional with globs, Define and ${VAR},
    conditional sections) -- on synthetic but realistic Debian-style Apache
    configurations of about 1,000, 10,000 and 100,000 lines. Nothing after
    loading (model, passes, emitting nginx) is timed.

    The configuration is a main `apache2.conf` that includes `conf-enabled/*.conf`
    and `sites-enabled/*.conf`; the sites hold many `<VirtualHost *:443>`
    blocks (ServerName/ServerAlias/DocumentRoot, SSL, Header lines with quoted
    arguments, `<Proxy balancer://...>` with BalancerMember lines,
    ProxyPass/ProxyPassReverse, RewriteCond/RewriteRule sets, `<IfModule>` ->
    `<Location>` nesting, `<Directory>` with Require, comments, and a few
    backslash-newline continuations). Line counts are counted from the generated
    files and checked against `LoadedConfig.lines`, so every file must be read.

    Each size is timed in-process, best of N repetitions (after one warm-up
    load of the smallest configuration). Reported per size: files, lines,
    nodes loaded, seconds, lines/s, the part of those seconds spent in Python's
    cyclic garbage collector ("gc s") and its number of full (generation 2)
    collections ("gc2"); then time(largest)/time(next) and the targets:
      * parse+load throughput >= 200,000 lines/s (judged on the largest size);
      * scaling ratio <= 1.1 x the nominal size ratio (11 for 100k vs 10k).
    The script only prints figures; it always exits 0 unless loading fails.

How to run
    python3 bench/parse_scaling.py                      # 1k, 10k, 100k lines, best of 3
    python3 bench/parse_scaling.py --sizes 1000,10000,100000 --repeat 5
    python3 bench/parse_scaling.py --tiny               # ~100/300/1000 lines, 1 rep (smoke test)
    python3 bench/parse_scaling.py --profile            # also cProfile one load of the largest size
    python3 -m cProfile -s cumtime bench/parse_scaling.py --sizes 100000 --repeat 1

Uses only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from pathlib import Path

from apache2nginx.diagnostics import Diagnostics
from apache2nginx.syntax.loader import load

from _common import fmt_size, generate  # shared with translate_scaling.py

TARGET_LINES_PER_S = 200_000
SCALING_SLACK = 1.1          # allowed time ratio = 1.1 x size ratio (11 for 100k/10k)

# ----------------------------------------------------------------------------- timing

class _GcTimer:
    """Time spent in the cyclic garbage collector (all generations) while active."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.full = 0
        self._t0 = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._t0
            self.full += info.get("generation") == 2

    def __enter__(self) -> "_GcTimer":
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self)


def load_once(main: Path):
    diags = Diagnostics()
    with _GcTimer() as gct:
        t0 = time.perf_counter()
        cfg = load(main, None, diags)
        elapsed = time.perf_counter() - t0
    assert cfg is not None, f"load() returned None for {main}"
    assert not diags.has_errors, "loading reported errors:\n" + "\n".join(
        f"  {d.code} {d.span}: {d.message}" for d in list(diags)[:10])
    return cfg, diags, elapsed, gct


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Time apache2nginx parse+load on synthetic configs of growing size.")
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="comma-separated target line counts (default: 1000,10000,100000)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="repetitions per size, best taken (default 3; 2 for sizes >= 100k)")
    ap.add_argument("--tiny", action="store_true",
                    help="sizes ~100/300/1000 lines, 1 repetition (smoke test; figures not meaningful)")
    ap.add_argument("--profile", action="store_true",
                    help="also run cProfile over one load of the largest size and print apache2nginx hotspots")
    ap.add_argument("--keep", action="store_true", help="keep the generated configurations and print where")
    args = ap.parse_args(argv)

    if args.tiny:
        sizes = [100, 300, 1000]
    else:
        sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    sizes = sorted(set(sizes))
    if not sizes or sizes[0] <= 0:
        ap.error("--sizes needs positive line counts")

    def reps_for(size: int) -> int:
        if args.repeat is not None:
            return max(1, args.repeat)
        if args.tiny:
            return 1
        return 2 if size >= 100_000 else 3

    tmp = Path(tempfile.mkdtemp(prefix="a2n-parse-bench-"))
    try:
        configs = []
        for size in sizes:
            main_path, lines, nfiles = generate(tmp / f"cfg-{size}", size)
            configs.append((size, main_path, lines, nfiles))

        print(f"apache2nginx parse+load benchmark  (python {sys.version.split()[0]}, "
              f"{'tiny mode' if args.tiny else 'best of N'})")
        # Warm-up: language/grammar loading, imports, caches.
        load_once(configs[0][1])

        results = []
        print(f"{'target':>8} {'files':>6} {'lines':>9} {'nodes':>9} {'reps':>4} {'seconds':>9} "
              f"{'lines/s':>11} {'gc s':>7} {'gc2':>4} {'diags':>5}")
        for size, main_path, lines, nfiles in configs:
            best, best_gc = float("inf"), None
            reps = reps_for(size)
            for _ in range(reps):
                cfg = None          # the previous tree must not stay alive during the next load
                gc.collect()
                cfg, diags, elapsed, gct = load_once(main_path)
                if elapsed < best:
                    best, best_gc = elapsed, gct
                assert cfg.lines == lines, f"loader read {cfg.lines} lines, generated {lines}"
                assert len(cfg.files) == nfiles, f"loader read {len(cfg.files)} files, generated {nfiles}"
            nodes = sum(1 for _ in cfg.walk())
            cfg = None
            rate = lines / best if best > 0 else float("inf")
            results.append((size, lines, best, rate))
            print(f"{fmt_size(size):>8} {nfiles:>6} {lines:>9,} {nodes:>9,} {reps:>4} {best:>9.4f} "
                  f"{rate:>11,.0f} {best_gc.seconds:>7.3f} {best_gc.full:>4} {len(diags):>5}")

        print()
        big = results[-1]
        status = "PASS" if big[3] >= TARGET_LINES_PER_S else "MISS"
        print(f"throughput at {big[1]:,} lines: {big[3]:,.0f} lines/s   "
              f"target >= {TARGET_LINES_PER_S:,} lines/s   {status}")
        if len(results) >= 2:
            prev = results[-2]
            ratio = big[2] / prev[2] if prev[2] > 0 else float("inf")
            limit = SCALING_SLACK * big[0] / prev[0]
            status = "PASS" if ratio <= limit else "MISS"
            print(f"scaling time({fmt_size(big[0])})/time({fmt_size(prev[0])}) = {ratio:.2f}   "
                  f"(lines ratio {big[1] / prev[1]:.2f})   target <= {limit:.3g}   {status}")
        if args.tiny:
            print("(tiny mode: sizes too small for the targets to mean anything)")

        if args.profile:
            import cProfile
            import pstats
            prof = cProfile.Profile()
            prof.enable()
            load_once(configs[-1][1])
            prof.disable()
            print(f"\ncProfile of one load of {configs[-1][2]:,} lines (apache2nginx functions, by cumtime):")
            stats = pstats.Stats(prof)
            stats.sort_stats("cumulative").print_stats(r"apache2nginx", 20)
            print("by tottime (all functions):")
            stats.sort_stats("tottime").print_stats(15)

        if args.keep:
            print(f"\nconfigurations kept in {tmp}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
