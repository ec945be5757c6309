"""How much verify explains: run `apache2nginx verify` on every fixture case (or every Apache file named)
and print the totals — requests compared, same, explained, unexplained, WIDENED, LOST SECURITY HEADER —
the explained share, and which codes explain the most.

    python3 bench/verify_share.py                      # every fixture case
    python3 bench/verify_share.py ../shared/corpus/x.conf ...
    python3 bench/verify_share.py --json out.json      # also each input's summary

Each run has a timeout; only loopback traffic (verify's own sandboxes).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "cases"


def run_one(apache: Path, args: list[str], timeout: float) -> dict:
    cmd = [sys.executable, "-m", "apache2nginx", "verify", apache.name, *args, "--format", "json"]
    try:
        proc = subprocess.run(cmd, cwd=apache.parent, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if proc.returncode == 2 or not proc.stdout.strip():
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    doc = json.loads(proc.stdout)
    out = dict(doc["summary"])
    out["by_code"] = Counter(d["explained_by"] for d in doc["differences"] if d["explained_by"])
    return out


def inputs(paths: list[str]) -> list[tuple[Path, list[str]]]:
    if paths:
        return [(Path(p).resolve(), []) for p in paths]
    out = []
    for case in sorted(CASES.iterdir()):
        args = (case / "args.txt").read_text().split() if (case / "args.txt").exists() else []
        if "--nginx-version" in args or (case / "verify-refused.txt").exists():
            continue
        extra = ["--requests", "requests.txt"] if (case / "requests.txt").exists() else []
        out.append((case / "apache.conf", args + extra))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--json", help="write each input's summary here")
    opts = parser.parse_args(argv)
    totals = Counter()
    codes = Counter()
    failed: dict[str, str] = {}
    each = {}
    for apache, args in inputs(opts.paths):
        name = str(apache.relative_to(ROOT)) if apache.is_relative_to(ROOT) else str(apache)
        result = run_one(apache, args, opts.timeout)
        each[name] = {k: (dict(v) if isinstance(v, Counter) else v) for k, v in result.items()}
        if "error" in result:
            failed[name] = result["error"]
            continue
        for key in ("compared", "same", "explained", "unexplained", "widened", "lost_security"):
            totals[key] += result.get(key, 0)
        totals["inputs"] += 1
        codes.update(result["by_code"])
        if result.get("unexplained"):
            print(f"unexplained: {name}: {result['unexplained']}", flush=True)
    share = 100.0 * totals["explained"] / totals["compared"] if totals["compared"] else 0.0
    print(f"{totals['inputs']} inputs verified, {len(failed)} could not run")
    print(f"{totals['compared']} requests: {totals['same']} same, {totals['explained']} explained ({share:.2f}%), "
          f"{totals['unexplained']} unexplained, {totals['widened']} widened, {totals['lost_security']} lost security")
    print("top explaining codes: " + ", ".join(f"{c} {n}" for c, n in codes.most_common(10)))
    for name, why in sorted(failed.items()):
        print(f"could not run: {name}: {why}")
    if opts.json:
        Path(opts.json).write_text(json.dumps(each, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
