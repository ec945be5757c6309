"""`convert --jobs N` on many inputs: worker processes read the inputs (and check the outputs), and what
comes out -- files, diagnostics, exit status -- is exactly what one process gives."""
from __future__ import annotations

from pathlib import Path

from conftest import run_cli

from apache2nginx.convert import PARALLEL_FROM

SITE = """\
<VirtualHost *:80>
    ServerName site{i}.example.com
    ServerAlias www.site{i}.example.com *.dev{i}.example.com
    DocumentRoot /srv/www/site{i}
    Header always set X-Site "site{i}"
    <Proxy balancer://pool{i}>
        BalancerMember http://10.0.{i}.1:8080 retry=5
        BalancerMember http://10.0.{i}.2:8080
    </Proxy>
    ProxyPass /api/ balancer://pool{i}/api/
    ProxyPassReverse /api/ balancer://pool{i}/api/
    RewriteEngine On
    RewriteCond %{{HTTP_HOST}} ^www\\.(.+)$ [NC]
    RewriteRule ^/?(.*)$ http://%1/$1 [R=301,L]
    <Location /admin>
        Require ip 10.0.0.0/8
    </Location>
</VirtualHost>
"""


def _sites(root: Path, count: int, broken: int | None = None) -> Path:
    sites = root / "sites-enabled"
    sites.mkdir()
    for i in range(count):
        text = SITE.format(i=i)
        if i == broken:
            text = text.replace("</Location>", "")         # a syntax error in one input
        if i == 3:
            text = ""                                      # an input without directives
        (sites / f"{i:03d}-site{i}.conf").write_text(text, encoding="utf-8")
    return sites


def _tree(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())} if directory.exists() else {}


def test_jobs_out_dir_gives_the_sequential_outputs(tmp_path):
    sites = _sites(tmp_path, PARALLEL_FROM + 4)
    runs = {}
    for jobs in ("1", "2", "0"):
        out = tmp_path / f"out-{jobs}"
        proc = run_cli("convert", str(sites), "--out-dir", str(out), "--jobs", jobs, cwd=tmp_path, timeout=300)
        runs[jobs] = (proc.returncode, proc.stderr, _tree(out))
    assert runs["1"][0] in (0, 1), runs["1"][1]
    assert len(runs["1"][2]) == PARALLEL_FROM + 5     # one per input, plus the shared file
    assert runs["2"] == runs["1"]
    assert runs["0"] == runs["1"]


def test_jobs_single_output_and_json_match(tmp_path):
    sites = _sites(tmp_path, PARALLEL_FROM + 2)
    outs = {}
    for jobs in ("1", "2"):
        proc = run_cli("convert", str(sites), "--jobs", jobs, "--format", "json", cwd=tmp_path, timeout=300)
        outs[jobs] = (proc.returncode, proc.stdout)
    assert outs["1"][0] in (0, 1)
    assert '"output"' in outs["1"][1]
    assert outs["2"] == outs["1"]


def test_jobs_with_an_input_in_error_reports_as_sequentially(tmp_path):
    sites = _sites(tmp_path, PARALLEL_FROM + 2, broken=5)
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out-{jobs}"
        proc = run_cli("convert", str(sites), "--out-dir", str(out), "--jobs", jobs, cwd=tmp_path, timeout=300)
        runs[jobs] = (proc.returncode, proc.stderr, _tree(out))
    assert runs["1"][0] == 2 and not runs["1"][2]
    assert runs["2"] == runs["1"]


def test_jobs_never_start_more_workers_than_cores_or_tasks(monkeypatch):
    """--jobs 600 on two cores starts two workers: ProcessPoolExecutor forks every worker it is given."""
    from apache2nginx import workers
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    assert workers.worker_count(600, 1000) == 2
    assert workers.worker_count(0, 1000) == 2
    assert workers.worker_count(600, 1) == 1
    assert workers.worker_count(1, 1000) == 1


def test_htaccess_tree_with_many_jobs_starts_at_most_the_cores(tmp_path, monkeypatch):
    """A docroot of 200 .htaccess files read with --jobs 600 asks the pool for the cores, not 600."""
    from apache2nginx import htaccess, workers
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.syntax.loader import LoadOptions, load
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    asked = []

    class Pool:
        def __init__(self, max_workers, initializer):
            asked.append(max_workers)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def map(self, fn, items, chunksize):
            return map(fn, items)

    monkeypatch.setattr(htaccess, "ProcessPoolExecutor", Pool)
    for i in range(htaccess.PARALLEL_FROM):
        (tmp_path / "tree" / f"d{i}").mkdir(parents=True)
        (tmp_path / "tree" / f"d{i}" / ".htaccess").write_text("Options -Indexes\n")
    conf = tmp_path / "apache.conf"
    conf.write_text(f'<Directory "{tmp_path}/tree">\nAllowOverride All\n</Directory>\n')
    diags = Diagnostics()
    config = load(str(conf), LoadOptions(), diags)
    htaccess.collect(tmp_path / "tree", f"{tmp_path}/tree", config, diags, jobs=600)
    assert asked == [2]
