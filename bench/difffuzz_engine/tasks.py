"""The units of work the runner hands its worker processes: check one seed (generate, verify, classify) and
reduce one seed's failure class to a fixture candidate directory.

A failure's candidate directory is `OUT/<class slug>/seed-<S>/` (reduced) or `OUT/unreduced/seed-<S>/`
(as generated); either holds the case as verify runs it (apache.conf, requests.txt, users.htpasswd,
docroot/ and args.txt when it serves its own tree) and `observed.json` with the difference.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
import traceback
from pathlib import Path

from .generator import generate
from .model import Case, open_to_workers
from .reducer import Reducer
from .verifier import VERIFY_TIMEOUT, Outcome, family, run_verify, severity

EXAMPLES = 5        # differences of a class kept in observed.json


def slug(cls: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", cls.lower()).strip("-")[:80] or "class"


def _scratch(out: Path, prefix: str) -> Path:
    scratch = out / ".work"
    scratch.mkdir(parents=True, exist_ok=True)
    scratch.chmod(0o755)
    d = Path(tempfile.mkdtemp(prefix=prefix, dir=scratch))
    d.chmod(0o755)
    return d


def verify_case(case: Case, out: Path, timeout: float = VERIFY_TIMEOUT) -> Outcome:
    """Write CASE to a scratch directory under OUT, run verify there, remove the directory."""
    d = _scratch(out, f"seed-{case.seed}-")
    try:
        case.write(d)
        return run_verify(d, case.verify_args(), timeout)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _examples(outcome: Outcome, cls: str) -> list[dict]:
    return outcome.classes.get(cls, [])[:EXAMPLES]


def write_candidate(case: Case, directory: Path, seed: int, cls: str, outcome: Outcome | None,
                    reduction: dict | None) -> Path:
    if directory.exists():
        shutil.rmtree(directory)
    case.write(directory)
    observed = {
        "seed": seed, "class": cls, "family": family(cls),
        "reason": outcome.reason if outcome else "",
        "differences": _examples(outcome, cls) if outcome else [],
        "summary": (outcome.report or {}).get("summary") if outcome else None,
        "reduction": reduction,
        "reproduce": f"python bench/difffuzz.py --seed {seed} --count 1",
        "verify": "apache2nginx verify apache.conf --requests requests.txt "
                  + " ".join(case.verify_args()) + " --format json",
    }
    (directory / "observed.json").write_text(json.dumps(observed, indent=2, default=str) + "\n")
    open_to_workers(directory)
    return directory


def check(seed: int, out: str, timeout: float = VERIFY_TIMEOUT) -> dict:
    """Generate SEED's case and verify it. A failing case is written to OUT/unreduced/seed-S."""
    out_dir = Path(out)
    started = time.monotonic()
    try:
        case = generate(seed)
    except Exception as exc:        # a bug of the generator: reported, never dropped
        return {"seed": seed, "status": "error", "classes": {"generator-error " + type(exc).__name__: []},
                "reason": traceback.format_exc(limit=3)[-600:], "compared": 0, "requests": 0,
                "seconds": time.monotonic() - started}
    try:
        outcome = verify_case(case, out_dir, timeout)
    except Exception as exc:
        outcome = Outcome("error", {"verify-error runner " + type(exc).__name__: []},
                          reason=traceback.format_exc(limit=3)[-600:])
    result = {"seed": seed, "status": outcome.status, "reason": outcome.reason, "compared": outcome.compared,
              "requests": len(case.requests), "size": case.size(), "own_docroot": case.own_docroot,
              "classes": {c: _examples(outcome, c)[:2] for c in sorted(outcome.classes, key=severity)},
              "seconds": time.monotonic() - started}
    if outcome.status in ("fail", "error"):
        first = sorted(outcome.classes, key=severity)[0]
        result["fixture"] = str(write_candidate(case, out_dir / "unreduced" / f"seed-{seed}", seed, first,
                                                outcome, None))
    return result


_REQUEST = re.compile(r"^(?P<method>\S+) (?P<scheme>\w+)://(?P<host>[^/]*):(?P<port>\d+)(?P<path>.*)$")


def hint_requests(case: Case, differences: list[dict]) -> list[str]:
    """The case's request lines that ask what the differences' requests asked (method, host name, path)."""
    from apache2nginx.verify.probes import parse_request_file
    wanted = set()
    for d in differences:
        m = _REQUEST.match(d.get("request", ""))
        if m:
            wanted.add((m.group("method"), m.group("host"), m.group("path")))
    out = []
    for line in case.requests:
        try:
            probe = parse_request_file(line, 80)[0]
        except (ValueError, IndexError):
            continue
        if (probe.method, probe.server_name or "-", probe.path) in wanted:
            out.append(line)
    return out


def reduce_failure(seed: int, cls: str, out: str, max_runs: int = 150, max_seconds: float = 600.0,
                   timeout: float = VERIFY_TIMEOUT) -> dict:
    """Shrink SEED's case while verify still shows CLS; write the result to OUT/<slug>/seed-S."""
    out_dir = Path(out)
    started = time.monotonic()
    case = generate(seed)
    outcomes: dict[str, Outcome] = {}

    def still_fails(candidate: Case) -> bool:
        outcome = verify_case(candidate, out_dir, timeout)
        outcomes[candidate.key()] = outcome
        return cls in outcome.classes

    first = verify_case(case, out_dir, timeout)
    if cls not in first.classes:
        # not reproduced (a flaky difference): kept as generated, said so
        target = write_candidate(case, out_dir / slug(cls) / f"seed-{seed}", seed, cls, first,
                                 {"reproduced": False, "runs": 1})
        return {"seed": seed, "class": cls, "fixture": str(target), "reduced": False, "reproduced": False,
                "seconds": time.monotonic() - started}
    reducer = Reducer(case, still_fails, max_runs=max_runs, max_seconds=max_seconds,
                      hint_requests=hint_requests(case, first.classes[cls]) if first.classes[cls] else None)
    reducer.cache[case.key()] = True
    outcomes[case.key()] = first
    best = reducer.run()
    final = outcomes.get(best.key(), first)
    reduction = {"reproduced": True, "runs": reducer.runs + 1, "budget_spent": reducer.exhausted,
                 "size_before": case.size(), "size_after": best.size(), "requests_before": len(case.requests),
                 "requests_after": len(best.requests), "seconds": round(time.monotonic() - started, 1)}
    best.comment = f"difffuzz seed {seed}, reduced: {cls}"
    target = write_candidate(best, out_dir / slug(cls) / f"seed-{seed}", seed, cls, final, reduction)
    # the other classes the reduced case still shows: its fixture stands for them too
    return {"seed": seed, "class": cls, "fixture": str(target), "reduced": True,
            "also": sorted(c for c in final.classes if c != cls), **reduction}
