"""Differential fuzzer of the translation: generated Apache configurations run under real httpd and their
translation under real nginx (`apache2nginx verify`), judged by verify's strict explainer.

    python bench/difffuzz.py [--seed S] [--count N] [--time SECONDS] [--jobs J] [--format text|json]
                             [--out DIR] [--reduce new|all|none] [--reduce-runs R] [--reduce-time SECONDS]

Config i gets seed S+i: any failure is reproduced by `--seed X --count 1`. For each one the generator
(bench/difffuzz_engine/generator.py) writes a small configuration weighted towards interactions, the
document root it names and the requests aimed at every construct (probes.py); verify adds its own boundary
probes. A WIDENED ACCESS, a LOST SECURITY HEADER or an unexplained difference is a failure, of a class
such as `widened status 403->200` or `unexplained header x-fuzz-a missing`; a verify run that crashes,
times out or whose translation nginx refuses is a failure of class `verify-error ...`. A configuration
httpd refuses is a generator bug: counted (`invalid`), not a failure.

Each failing case is written to OUT/unreduced/seed-S/. With --reduce new (the default) the first seed
of each class (X-Fuzz-A..C header names folded) is delta-debugged (reducer.py) to a minimal configuration
and request set that still fails the same way, written as a fixture candidate to OUT/<class>/seed-S/
(apache.conf, requests.txt, docroot/ and args.txt when it serves its own tree, observed.json); --reduce
all reduces every failure, none none. A reduction is bounded by --reduce-runs verify runs and
--reduce-time seconds.

Prints {"configs", "requests", "failures": [{"seed", "class", "fixture"}], ...} with --format json, a
summary otherwise; exits 1 on any failure, 0 otherwise. --time stops starting configurations after that
many seconds (reductions already begun finish within their own bounds). Traffic only goes to 127.0.0.1;
every verify run has a deadline and is killed with its servers past it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from difffuzz_engine import tasks                                          # noqa: E402
from difffuzz_engine.verifier import VERIFY_TIMEOUT, family, severity      # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1, help="the first configuration's seed (default 1)")
    ap.add_argument("--count", type=int, default=None, help="configurations to run (default 20; with --time, "
                                                            "as many as the time allows)")
    ap.add_argument("--time", type=float, default=None, help="stop starting configurations after SECONDS")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--format", choices=["text", "json"], default="text")
    ap.add_argument("--out", default=None, help="where failing cases and fixture candidates go "
                                                "(default: a new directory under the temporary directory)")
    ap.add_argument("--reduce", choices=["new", "all", "none"], default="new",
                    help="reduce the first failure of each class (new), every failure (all), or none")
    ap.add_argument("--reduce-runs", type=int, default=150, help="verify runs one reduction may make")
    ap.add_argument("--reduce-time", type=float, default=600.0, help="seconds one reduction may take")
    ap.add_argument("--verify-timeout", type=float, default=VERIFY_TIMEOUT, help="seconds one verify run may take")
    args = ap.parse_args(argv)
    if args.count is None:
        args.count = 10 ** 9 if args.time else 20
    return args


class Run:
    def __init__(self, args):
        self.args = args
        self.out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="difffuzz-"))
        self.out.mkdir(parents=True, exist_ok=True)
        os.chmod(self.out, 0o755)
        self.results: dict[int, dict] = {}
        self.reductions: dict[tuple[int, str], dict] = {}
        self.claimed: set[str] = set()          # class families a reduction was started for
        self.queued: dict[int, list[str]] = {}  # seed -> its classes still to reduce
        self.started = time.monotonic()
        self.live = sys.stderr.isatty()
        self.interrupted = False

    def progress(self, text: str) -> None:
        if self.live:
            sys.stderr.write(f"\r\033[Kdifffuzz: {text}")
            sys.stderr.flush()

    def wanted_reductions(self, result: dict) -> list[str]:
        """The classes of a failing check to reduce, worst first: with --reduce new those whose family no
        reduction has claimed yet (claimed now)."""
        if self.args.reduce == "none":
            return []
        out = []
        for cls in sorted(result.get("classes", {}), key=severity):
            if cls.startswith("generator-error"):
                continue
            if self.args.reduce == "all" or family(cls) not in self.claimed:
                self.claimed.add(family(cls))
                out.append(cls)
        return out

    def next_reduction(self, seed: int) -> str | None:
        """The next class of SEED to reduce: one at a time, and none that a reduced case of the same seed
        already shows (its fixture stands for that class too)."""
        queue = self.queued.get(seed, [])
        while queue:
            cls = queue.pop(0)
            cover = next((r for (s, _), r in self.reductions.items() if s == seed and cls in r.get("also", ())),
                         None)
            if cover is None:
                return cls
            self.reductions[(seed, cls)] = {"seed": seed, "class": cls, "fixture": cover["fixture"], "reduced": True,
                                            "covered_by": cover["class"]}
        return None

    def execute(self) -> None:
        args = self.args
        deadline = self.started + args.time if args.time else None
        seeds = iter(range(args.seed, args.seed + args.count))
        pending: dict = {}                     # future -> ("check", seed) | ("reduce", seed, cls)
        exhausted = False
        pool = ProcessPoolExecutor(max_workers=max(1, args.jobs))
        try:
            while True:
                while not exhausted and sum(1 for k in pending.values() if k[0] == "check") < 2 * args.jobs:
                    if deadline is not None and time.monotonic() > deadline:
                        exhausted = True
                        break
                    seed = next(seeds, None)
                    if seed is None:
                        exhausted = True
                        break
                    pending[pool.submit(tasks.check, seed, str(self.out), args.verify_timeout)] = ("check", seed)
                if not pending:
                    break
                done, _ = wait(pending, timeout=5, return_when=FIRST_COMPLETED)
                for future in done:
                    kind = pending.pop(future)
                    try:
                        value = future.result()
                    except BrokenProcessPool:
                        raise
                    except Exception as exc:     # a task that raised: its seed is still reported
                        value = self._lost(kind, f"{type(exc).__name__}: {exc}")
                    if kind[0] == "check":
                        self.results[kind[1]] = value
                        self.queued[kind[1]] = self.wanted_reductions(value)
                    else:
                        self.reductions[(kind[1], kind[2])] = value
                    cls = self.next_reduction(kind[1])
                    if cls is not None:
                        pending[pool.submit(tasks.reduce_failure, kind[1], cls, str(self.out), args.reduce_runs,
                                            args.reduce_time, args.verify_timeout)] = ("reduce", kind[1], cls)
                self.progress(f"{len(self.results)} configs, {len(self.failures())} failures, "
                              f"{sum(1 for k in pending.values() if k[0] == 'reduce')} reducing")
        except BrokenProcessPool:
            for kind in pending.values():
                value = self._lost(kind, "a worker process died")
                if kind[0] == "check":
                    self.results[kind[1]] = value
        except KeyboardInterrupt:
            # (stopped by hand: the configurations that finished are reported; those in flight are not counted)
            self.interrupted = True
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            shutil.rmtree(self.out / ".work", ignore_errors=True)
            if self.live:
                sys.stderr.write("\r\033[K")

    @staticmethod
    def _lost(kind: tuple, reason: str) -> dict:
        if kind[0] == "check":
            return {"seed": kind[1], "status": "error", "classes": {"verify-error runner": []}, "reason": reason,
                    "compared": 0, "requests": 0, "seconds": 0.0}
        return {"seed": kind[1], "class": kind[2], "fixture": None, "reduced": False, "error": reason}

    # ----------------------------------------------------------------------------- the report
    def failures(self) -> list[dict]:
        out = []
        for seed in sorted(self.results):
            result = self.results[seed]
            if result["status"] not in ("fail", "error"):
                continue
            for cls in sorted(result["classes"], key=severity):
                reduced = self.reductions.get((seed, cls))
                fixture = reduced["fixture"] if reduced and reduced.get("fixture") else result.get("fixture")
                entry = {"seed": seed, "class": cls, "fixture": fixture,
                         "reduced": bool(reduced and reduced.get("reduced"))}
                if reduced and reduced.get("covered_by"):
                    entry["covered_by"] = reduced["covered_by"]     # the reduction of another class shows it
                if result["status"] == "error":
                    entry["reason"] = result.get("reason", "")
                example = (result["classes"].get(cls) or [None])[0]
                if example:
                    entry["request"] = example.get("request")
                out.append(entry)
        return out

    def document(self) -> dict:
        results = list(self.results.values())
        elapsed = time.monotonic() - self.started
        invalid = [{"seed": r["seed"], "reason": r["reason"]} for r in results if r["status"] == "invalid"]
        failures = self.failures()
        families = Counter(family(f["class"]) for f in failures)
        return {
            "configs": len(results),
            "requests": sum(r.get("compared", 0) for r in results),
            "failures": failures,
            "failing_configs": sum(1 for r in results if r["status"] in ("fail", "error")),
            "passing_configs": sum(1 for r in results if r["status"] == "ok"),
            "invalid": invalid,
            "valid_share": round(100.0 * (len(results) - len(invalid)) / len(results), 1) if results else 0.0,
            "classes": dict(sorted(families.items(), key=lambda kv: severity(kv[0]))),
            "reductions": [v for _, v in sorted(self.reductions.items())],
            "seconds": round(elapsed, 1),
            "configs_per_minute": round(60.0 * len(results) / elapsed, 1) if elapsed else 0.0,
            "jobs": self.args.jobs,
            "out": str(self.out),
            "interrupted": self.interrupted,
        }

    def text(self, doc: dict) -> str:
        seeds = sorted(self.results)
        span = f"seeds {seeds[0]}-{seeds[-1]}" if seeds else "no seeds"
        lines = [f"difffuzz: {doc['configs']} configs ({span}), {doc['requests']} requests compared in "
                 f"{doc['seconds']}s ({doc['configs_per_minute']} configs/min on {doc['jobs']} jobs)",
                 f"httpd accepted {doc['valid_share']}% of the configurations; "
                 f"{doc['passing_configs']} passed, {doc['failing_configs']} failed"]
        for item in doc["invalid"][:10]:
            lines.append(f"  httpd refused seed {item['seed']}: {item['reason']}")
        by_family: dict[str, list[dict]] = defaultdict(list)
        for f in doc["failures"]:
            by_family[family(f["class"])].append(f)
        if by_family:
            lines.append(f"{len(doc['failures'])} failures in {len(by_family)} classes:")
        for fam in sorted(by_family, key=severity):
            items = by_family[fam]
            seeds_ = ", ".join(str(f["seed"]) for f in items[:8]) + (" ..." if len(items) > 8 else "")
            reduced = next((f["fixture"] for f in items if f["reduced"]), None)
            lines.append(f"  {fam:<50} {len(items):>4}x  seeds {seeds_}")
            if reduced:
                lines.append(f"  {'':<50}        reduced: {reduced}")
            elif items[0].get("fixture"):
                lines.append(f"  {'':<50}        case: {items[0]['fixture']}")
            if items[0].get("reason"):
                lines.append(f"  {'':<50}        {items[0]['reason']}")
        lines.append(f"cases and fixture candidates: {doc['out']}")
        if doc["interrupted"]:
            lines.append("interrupted: the configurations still running were not counted")
        return "\n".join(lines)


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        import apache2nginx  # noqa: F401  (verify runs as `python -m apache2nginx` with this interpreter)
    except ImportError:
        print("difffuzz: apache2nginx is not importable by this Python; run it with the project's environment",
              file=sys.stderr)
        return 2
    run = Run(args)
    signal.signal(signal.SIGTERM, _stop)     # (a CI job's timeout ends the run as Ctrl-C does: with its report)
    run.execute()
    doc = run.document()
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
    else:
        print(run.text(doc))
    return 1 if doc["failures"] else 130 if run.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
