"""The server-name hash sizes nginx.conf gets: `emit.hashes.fits` must agree with the real `nginx -t` on
whether a set of names fits, and a translation with thousands of names must make nginx -t quiet."""
from __future__ import annotations

import random
import string
import subprocess

import pytest

from apache2nginx.emit.hashes import fits


def _warns(nginx_bin: str, tmp_path, names: list[str], bucket: int, max_size: int) -> bool:
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"events {{}}\nhttp {{ server_names_hash_bucket_size {bucket}; server_names_hash_max_size "
                    f"{max_size};\n server {{ listen 127.0.0.1:1; }}\n"
                    f" server {{ listen 127.0.0.1:1; server_name {' '.join(names)}; }} }}\n")
    proc = subprocess.run([nginx_bin, "-t", "-p", str(tmp_path), "-c", "nginx.conf", "-e", "/dev/stderr"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return "could not build" in proc.stderr


@pytest.mark.parametrize("seed", range(6))
def test_the_hash_emulation_agrees_with_nginx(seed, tmp_path, nginx_bin):
    rng = random.Random(seed)
    agree = 0
    for _ in range(6):
        count = rng.choice([40, 150, 400, 900])
        bucket, max_size = rng.choice([64, 128]), rng.choice([256, 512, 1024])
        names = list(dict.fromkeys(".".join("".join(rng.choice(string.ascii_lowercase) for _ in
                                                    range(rng.randint(2, 14))) for _ in range(rng.randint(2, 3)))
                                   for _ in range(count)))
        assert fits(names, bucket, max_size, budget=10**9) == (not _warns(nginx_bin, tmp_path, names, bucket, max_size)), \
            (seed, len(names), bucket, max_size)
        agree += 1
    assert agree == 6


def test_a_translation_defining_many_variables_sizes_their_hash(tmp_path, nginx_bin):
    """Rules with captures define hundreds of variables through `set` and named captures, and almost no
    maps: the sizing must count every name the translation defines, or `nginx -t` warns (lint fails)."""
    from conftest import run_cli
    lines = ["Listen 80", "ServerName a.example", "DocumentRoot /srv/www", "RewriteEngine On"]
    for i in range(60):
        lines += [f"RewriteCond %{{QUERY_STRING}} ^k{i}=(.*)$", f"RewriteRule ^/p{i}/(.*)$ /q/$1?v=%1 [L]"]
    (tmp_path / "apache.conf").write_text("\n".join(lines) + "\n")
    out = tmp_path / "nginx.conf"
    assert run_cli("convert", str(tmp_path / "apache.conf"), "-o", str(out)).returncode == 0
    text = out.read_text()
    assert "variables_hash_max_size" in text
    assert run_cli("lint", "--nginx", nginx_bin, str(out)).returncode == 0
    bare = tmp_path / "bare.conf"
    bare.write_text("".join(line for line in text.splitlines(keepends=True) if "variables_hash" not in line))
    proc = run_cli("lint", "--nginx", nginx_bin, str(bare))
    assert proc.returncode != 0 and "variables_hash" in proc.stderr   # what the sizing is there for
