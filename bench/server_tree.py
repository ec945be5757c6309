"""A whole Debian server of many sites, converted into a deployable nginx tree.

What it measures
    Debian's stock /etc/apache2 (the installed apache2 package) copied with rewrite, proxy, proxy_http,
    headers, ssl and expires enabled, default-ssl enabled, and N generated site files (reverse proxies,
    redirecting old names, static sites with expiry rules, canonical-host sites; bench/_common.py's
    `site`), each enabled as a2ensite would. Then, as processes:
      * `apache2nginx convert apache2.conf --out-dir OUT` (wall time, best of --repeat);
      * `nginx -t -p OUT -c nginx.conf`: its warnings and errors are counted (the target is none);
      * with --verify, `apache2nginx verify apache2.conf`: requests compared, unexplained, WIDENED ACCESS
        and LOST SECURITY HEADER counts (the target is 0 for each), and its wall time.
    Printed: one line per figure. Exits 0 unless a command fails to run; the figures are not asserted here
    (tests/test_server_tree.py asserts what must hold).

How to run
    python3 bench/server_tree.py                 # 2,000 sites
    python3 bench/server_tree.py --sites 500 --verify
    python3 bench/server_tree.py --tiny          # 20 sites, one run (smoke test)

Needs Debian's apache2 (for /etc/apache2) and nginx; only the standard library and apache2nginx.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402


def _run(args: list[str], timeout: float) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return proc, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--verify", action="store_true", help="also run verify on the server (slow)")
    parser.add_argument("--tiny", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the trees to look at")
    args = parser.parse_args()
    if args.tiny:
        args.sites, args.repeat = 20, 1
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    work = Path(tempfile.mkdtemp(prefix="a2n-server-tree-"))
    try:
        root = work / "apache2"
        conf = _common.debian_server(root)
        envvars = root / "envvars"
        envvars.write_text(envvars.read_text() + f"\nexport APACHE_LOG_DIR={work / 'logs'}\n")
        (work / "logs").mkdir()
        _common.add_sites(root, args.sites)
        lines = sum(_common.count_lines(p.read_text()) for p in root.rglob("*.conf") if p.is_file())
        out = work / "nginx"
        best = None
        for _ in range(args.repeat):
            shutil.rmtree(out, ignore_errors=True)
            proc, took = _run([sys.executable, "-m", "apache2nginx", "convert", str(conf), "--out-dir", str(out),
                               "--quiet"], 1800)
            if proc.returncode not in (0, 1) or not (out / "nginx.conf").exists():
                print(f"convert failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}", file=sys.stderr)
                return 2
            best = took if best is None else min(best, took)
        files = sum(1 for p in out.rglob("*") if p.is_file() or p.is_symlink())
        print(f"sites                 {args.sites:,} site files ({lines:,} lines of Apache configuration)")
        print(f"convert --out-dir     {best:.2f} s  ({lines / best:,.0f} lines/s), {files:,} files written")
        proc, took = _run([nginx, "-t", "-p", str(out), "-c", "nginx.conf", "-e", "/dev/stderr"], 600)
        problems = [line for line in proc.stderr.splitlines()
                    if re.search(r"\[(warn|emerg|alert|crit|error)\]", line)]
        print(f"nginx -t              exit {proc.returncode}, {len(problems)} warnings or errors, {took:.2f} s")
        for line in problems[:5]:
            print("    " + line)
        if args.verify:
            proc, took = _run([sys.executable, "-m", "apache2nginx", "verify", str(conf), "--format", "json"], 3600)
            try:
                summary = json.loads(proc.stdout)["summary"]
            except (ValueError, KeyError):
                print(f"verify failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}", file=sys.stderr)
                return 2
            print(f"verify                {summary['compared']:,} requests in {took:.1f} s: {summary['same']:,} same, "
                  f"{summary['explained']:,} explained ({summary['explained_share']}%), "
                  f"{summary['unexplained']} unexplained, {summary['widened']} WIDENED, "
                  f"{summary['lost_security']} LOST")
        return 0
    finally:
        if args.keep:
            print(f"kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
