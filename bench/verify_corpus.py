"""Corpus measure for `verify`: on how many real-world inputs httpd accepts does verify start both servers?

    python3 bench/verify_corpus.py ../shared/corpus [--jobs 2] [--timeout 120] [--only SUBSTRING] [--quiet]
                                   [--json rows.json]

For each input of the corpus's INPUTS.txt:

1. translate it as `verify` does (missing includes reported, not fatal); an input the translator refuses
   (exit 2 of convert: httpd refuses it too) is counted apart;
2. write httpd's sandbox configuration for it (ApacheSandbox, with stand-in backends and synthesised
   document roots) and ask httpd whether it accepts it (`apache2 -t`): the bar is "verify starts both
   servers on every input httpd accepts in the sandbox";
3. run `python -m apache2nginx verify FILE --format json` with a timeout: exit 0 or 1 means both servers
   ran and were compared; exit 2 (or a timeout) means verify could not run, and the first line of its
   message, with paths and numbers blanked, is the reason.

Prints one line per input (unless --quiet), then the counts and the reasons grouped. Traffic only goes to
127.0.0.1; every subprocess has a timeout. It reports figures; it is not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def sandbox_accepts(path: Path, apache_bin: str) -> tuple[str, str]:
    """("refused-by-translator" | "accepted" | "rejected", httpd's message) for one input."""
    code = r"""
import sys, subprocess, tempfile, shutil
from pathlib import Path
from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics
from apache2nginx.syntax.loader import LoadOptions
from apache2nginx.verify import probes as probe_mod
from apache2nginx.verify.apache_sandbox import ApacheSandbox, collect_backends
from apache2nginx.verify.docroots import synthesize_docroots
path, apache_bin = sys.argv[1], sys.argv[2]
diags = Diagnostics()
result = convert([InputSpec(path, Path(path))], ConvertOptions(load=LoadOptions(missing_includes="warn")), diags)
if result.fatal or result.config is None:
    print("REFUSED"); sys.exit(0)
work = Path(tempfile.mkdtemp(prefix="a2n-bench-"))
try:
    probes = probe_mod.generate(result.config)
    paths = synthesize_docroots(result.config, probes, work / "docroots", None)
    backends = {b: f"127.0.0.1:{9 + i}" for i, b in enumerate(collect_backends(result.config))}
    (work / "c").mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days",
                    "2", "-keyout", str(work / "c/verify.key"), "-out", str(work / "c/verify.crt")], check=True,
                   capture_output=True, timeout=60)
    box = ApacheSandbox(result.config, backends, paths, (str(work / "c/verify.crt"), str(work / "c/verify.key")),
                        apache_bin)
    try:
        conf = box.write()
        proc = subprocess.run([apache_bin, "-t", "-f", str(conf)], capture_output=True, text=True, timeout=60)
        print("ACCEPTED" if proc.returncode == 0 else "REJECTED")
        print(proc.stderr.strip())
    finally:
        shutil.rmtree(box.prefix, ignore_errors=True)
finally:
    shutil.rmtree(work, ignore_errors=True)
"""
    try:
        proc = subprocess.run([sys.executable, "-c", code, str(path), apache_bin], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        return "rejected", "timeout writing or testing the sandbox"
    first, _, rest = proc.stdout.partition("\n")
    if first == "REFUSED":
        return "refused-by-translator", ""
    if first == "ACCEPTED":
        return "accepted", rest
    if first == "REJECTED":
        return "rejected", rest.strip()
    return "rejected", "sandbox crashed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]


# httpd's words for a directive that belongs in a .htaccess file: the input is one (a snippet cut out of one)
PER_DIRECTORY = re.compile(r"not allowed here|only valid in per-directory|not allowed in <VirtualHost>")


def run_verify(path: Path, apache_bin: str, timeout: float, *extra: str) -> tuple[int | None, str, dict]:
    try:
        proc = subprocess.run([sys.executable, "-m", "apache2nginx", "verify", str(path), "--format", "json",
                               "--apache", apache_bin, *extra], capture_output=True, text=True, timeout=timeout,
                              cwd=tempfile.gettempdir(), env={**os.environ, "NO_COLOR": "1"})
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout:.0f}s", {}
    summary = {}
    if proc.returncode in (0, 1):
        try:
            summary = json.loads(proc.stdout)["summary"]
        except (ValueError, KeyError):
            pass
    return proc.returncode, proc.stderr, summary


def reason_of(stderr: str) -> str:
    """The reason verify gave, blanked of paths, ports and line numbers so that alike failures group."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    keep = [ln for ln in lines if "could not run" in ln or "Traceback" in ln or "Error" in ln or "AH0" in ln]
    text = " | ".join((keep or lines or ["(no message)"])[:1])
    if "did not start" in text or "Syntax error" in text:
        # httpd's own words: the line after "Syntax error on line N", else its last
        after = [lines[i + 1] for i, ln in enumerate(lines[:-1]) if "Syntax error" in ln]
        emerg = [ln.split("] ", 4)[-1] for ln in lines if ":emerg]" in ln and "AH02311" not in ln]
        text = "httpd did not start: " + (after or emerg or lines[-1:])[0]
    if "Traceback" in stderr:
        text = "crash: " + lines[-1]
    text = re.sub(r"/[\w./@+-]+", "PATH", text)
    text = re.sub(r"\d+", "N", text)
    return text[:220]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--apache", default="/usr/sbin/apache2")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--only", default="", help="only the inputs whose path holds this")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--json", help="write every input's row (httpd's verdict, verify's summary) to this file")
    args = ap.parse_args()
    inputs = [ln.strip() for ln in (args.corpus / "INPUTS.txt").read_text().splitlines()
              if ln.strip() and args.only in ln]
    start = time.perf_counter()

    def one(rel: str) -> dict:
        path = (args.corpus / rel).resolve()
        state, message = sandbox_accepts(path, args.apache)
        row = {"input": rel, "httpd": state, "httpd_message": message}
        if state == "refused-by-translator":
            return row
        rc, err, summary = run_verify(path, args.apache, args.timeout)
        row.update(rc=rc, summary=summary, reason=None if rc in (0, 1) else reason_of(err))
        if state == "rejected" and PER_DIRECTORY.search(message):
            # httpd refuses it as a server configuration: verify it as the .htaccess it is
            row["htaccess_rc"] = run_verify(path, args.apache, args.timeout, "--htaccess-dir", "/")[0]
        return row

    rows = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for row in pool.map(one, inputs):
            rows.append(row)
            if not args.quiet:
                status = row["httpd"] if row["httpd"] == "refused-by-translator" else \
                    f"{row['httpd']:<9} verify rc={row['rc']}" + (f"  {row['reason']}" if row["reason"] else "")
                print(f"{row['input']}: {status}", flush=True)
                if row["httpd"] == "rejected" and row["httpd_message"]:
                    print("    httpd: " + row["httpd_message"].splitlines()[-1][:200], flush=True)
    counted = [r for r in rows if r["httpd"] != "refused-by-translator"]
    accepted = [r for r in counted if r["httpd"] == "accepted"]
    ran = [r for r in counted if r.get("rc") in (0, 1)]
    ran_accepted = [r for r in accepted if r.get("rc") in (0, 1)]
    print()
    print(f"inputs: {len(rows)}  refused by the translator: {len(rows) - len(counted)}")
    print(f"httpd accepts the sandboxed config (apache2 -t): {len(accepted)}  rejects: {len(counted) - len(accepted)}")
    print(f"verify ran (exit 0/1): {len(ran)} of {len(counted)}; of those httpd accepts: {len(ran_accepted)} of "
          f"{len(accepted)}")
    print(f"verify could not run where httpd accepts: {len(accepted) - len(ran_accepted)}")
    per_dir = [r for r in counted if "htaccess_rc" in r]
    print(f"rejected as a server configuration for .htaccess-only directives: {len(per_dir)}; verify ran on "
          f"{sum(r['htaccess_rc'] in (0, 1) for r in per_dir)} of them with --htaccess-dir /")
    grouped = Counter(r["reason"] for r in accepted if r.get("rc") not in (0, 1))
    for reason, n in grouped.most_common():
        print(f"  {n:4}  {reason}")
    rejected = Counter(reason_of((r["httpd_message"].splitlines() or [""])[-1]) for r in counted
                       if r["httpd"] != "accepted")
    if rejected:
        print("httpd rejects the sandboxed config:")
        for reason, n in rejected.most_common():
            print(f"  {n:4}  {reason}")
    totals = Counter()
    codes = Counter()
    for r in ran:
        for key in ("compared", "same", "explained", "unexplained", "widened", "lost_security"):
            totals[key] += r["summary"].get(key, 0)
        codes.update(r["summary"].get("explained_by_code", {}))
    share = 100.0 * totals["explained"] / totals["compared"] if totals["compared"] else 0.0
    print(f"requests compared: {totals['compared']}: {totals['same']} same, {totals['explained']} explained "
          f"({share:.2f}%), {totals['unexplained']} unexplained ({totals['widened']} WIDENED ACCESS, "
          f"{totals['lost_security']} LOST SECURITY HEADER)")
    print("differences explained, by code: " + ", ".join(f"{c} {n}" for c, n in codes.most_common(12)))
    for r in sorted(ran, key=lambda r: -r["summary"].get("unexplained", 0)):
        if r["summary"].get("unexplained"):
            print(f"  unexplained {r['summary']['unexplained']:4}  {r['input']}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"({time.perf_counter() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
