"""Time `apache2nginx convert --docroot` on a generated tree of .htaccess files.

    python3 bench/htaccess_tree.py [--files 5000] [--jobs 0]

Generates, in a temporary directory, a document root with N directories (nested
three deep), each holding a .htaccess of the kinds real sites carry (front
controller rewrites, access rules, Options, headers, file sections), and a
site configuration whose DocumentRoot it stands for. Then runs the product as a
process, end to end (read, parse on every core, translate, render, self-check),
once with --jobs 1 and once with the requested jobs, and prints the times, files
per second and the ratio. It reports figures; it is not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KINDS = [
    "RewriteEngine On\nRewriteBase /{url}/\nRewriteCond %{{REQUEST_FILENAME}} !-f\n"
    "RewriteCond %{{REQUEST_FILENAME}} !-d\nRewriteRule . /{url}/index.php [L]\n",
    "Require all denied\n",
    "Options -Indexes\nHeader set X-Section {n}\n",
    "<FilesMatch \"\\.(bak|sql|log)$\">\n    Require all denied\n</FilesMatch>\n",
    "Order Allow,Deny\nAllow from 10.{a}.0.0/16\n",
    "RewriteEngine On\nRewriteRule ^old-{n}\\.html$ /{url}/new-{n}.html [R=301,L]\n",
]


def build(root: Path, count: int) -> Path:
    docroot = root / "site"
    for n in range(count):
        rel = f"d{n // 400}/s{(n // 20) % 20}/p{n}"
        directory = docroot / rel
        directory.mkdir(parents=True, exist_ok=True)
        (directory / ".htaccess").write_text(KINDS[n % len(KINDS)].format(url=rel, n=n, a=n % 250))
    conf = root / "site.conf"
    conf.write_text("Listen 80\n<Directory /srv/site>\n    AllowOverride All\n</Directory>\n"
                    "<VirtualHost *:80>\n    ServerName tree.example.com\n    DocumentRoot /srv/site\n"
                    "</VirtualHost>\n")
    return conf


def run(conf: Path, docroot: Path, jobs: int) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "apache2nginx", "convert", str(conf), "--docroot",
                           f"{docroot}=/srv/site", "--jobs", str(jobs), "-o", str(conf.parent / "out.conf"),
                           "--diagnostics", "json"], capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"convert failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=0, help="worker processes for the second run (0: every core)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="a2n-htaccess-") as tmp:
        conf = build(Path(tmp), args.files)
        docroot = Path(tmp) / "site"
        one = run(conf, docroot, 1)
        many = run(conf, docroot, args.jobs)
        lines = (Path(tmp) / "out.conf").read_text().count("\n")
    cores = os.cpu_count() or 1
    print(f".htaccess files: {args.files}  output: {lines} nginx lines  machine cores: {cores}")
    print(f"--jobs 1: {one:.2f} s ({args.files / one:.0f} files/s)")
    print(f"--jobs {args.jobs or cores}: {many:.2f} s ({args.files / many:.0f} files/s)")
    print(f"ratio jobs1/jobsN: {one / many:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
