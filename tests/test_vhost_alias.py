"""mod_vhost_alias interpolation: the nginx maps select what httpd's vhost_alias_interpolate does."""
from __future__ import annotations

import itertools
import random
import re

from apache2nginx.passes.vhost_alias import check_format, interpolate, part_regex


def test_interpolation_follows_the_documented_examples():
    name = "www.domain.example.com"
    cases = {"%0": name, "%1": "www", "%2": "domain", "%-1": "com", "%-2": "example", "%2+": "domain.example.com",
             "%-2+": "www.domain.example", "%5": "_", "%-5": "_", "%2.1": "d", "%2.-1": "n", "%2.2+": "omain",
             "%2.-2+": "domai", "%1.9": "_", "%%": "%", "%p": "8080"}
    for spec, want in cases.items():
        assert interpolate(name, "/" + spec, 8080) == "/" + want, spec
    assert interpolate("WWW.Example.COM", "/h/%0/%2") == "/h/www.example.com/example"


def _nginx_value(name: str, n, nd, np_, m, md, mp) -> str:
    """What the emitted map yields: its regex's first capture, else the default `_`."""
    if n == 0 and m == 0:
        return name
    found = re.search(part_regex(n, nd, np_, m, md, mp), name)
    return found.group(1) if found else "_"


def test_every_spec_form_matches_httpd_on_many_names():
    rng = random.Random(7)
    names = ["a", "ab", "www.example.com", "x.y", "one.two.three.four.five", "a.bc.def", "abc.d"]
    for _ in range(200):
        parts = ["".join(rng.choice("abcxyz019-") for _ in range(rng.randint(1, 6)))
                 for _ in range(rng.randint(1, 6))]
        names.append(".".join(parts))
    forms = itertools.product(range(0, 7), (False, True), (False, True), range(0, 5), (False, True), (False, True))
    for n, nd, np_, m, md, mp in forms:
        if n == 0 and (nd or np_) or m == 0 and (md or mp):
            continue
        spec = "%" + ("-" if nd else "") + str(n) + ("+" if np_ else "") + \
            (("." + ("-" if md else "") + str(m) + ("+" if mp else "")) if m else "")
        for name in names:
            want = interpolate(name, "/" + spec)[1:]
            assert _nginx_value(name, n, nd, np_, m, md, mp) == want, (spec, name)


def test_format_strings_httpd_refuses():
    assert check_format("/srv/%0/docs") is None and check_format("none") is None
    assert check_format("srv/%0") == "format string must start with '/' or be 'none'"
    assert check_format("/srv/%x") == "syntax error in format string"
    assert check_format("/srv/%1.x") == "syntax error in format string"


def test_per_host_roots_serve_what_httpd_serves(apache_bin, nginx_bin, tmp_path):
    """Real httpd and nginx on the same per-host directories (verify leaves VirtualDocumentRoot paths as they
    are): the translation answers as httpd does, and a static root in its place does not."""
    import json
    import os
    import shutil
    import tempfile

    from conftest import run_cli

    base = tempfile.mkdtemp(prefix="a2n-vha-")
    try:
        os.chmod(base, 0o755)
        fmt = f"{base}/%-2/%1.1/%2+"
        hosts = ["www.example.com", "shop.example.com", "a.b.example.org", "x.example.org"]
        for host in hosts:
            d = interpolate(host, fmt)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "index.html"), "w") as f:
                f.write(f"site of {host}\n")
        for root, dirs, files in os.walk(base):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o755)
        conf = tmp_path / "apache.conf"
        conf.write_text("Listen 80\n<VirtualHost *:80>\n    ServerName www.example.com\n"
                        "    ServerAlias *.example.com *.example.org\n"
                        f'    VirtualDocumentRoot "{fmt}"\n</VirtualHost>\n')
        (tmp_path / "requests.txt").write_text("".join(f"GET http://{h}/\nGET http://{h.upper()}/index.html\n"
                                                       for h in hosts))
        common = ["--requests", "requests.txt", "--format", "json", "--apache", apache_bin, "--nginx-bin", nginx_bin]
        proc = run_cli("verify", "apache.conf", *common, cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert json.loads(proc.stdout)["summary"]["unexplained"] == 0
        out = run_cli("convert", "apache.conf", cwd=tmp_path).stdout
        static = interpolate(hosts[0], fmt)
        wrong = re.sub(r"root [^;]*;", f"root {static};", out)
        (tmp_path / "wrong.conf").write_text(wrong)
        proc = run_cli("verify", "apache.conf", "--nginx", "wrong.conf", *common, cwd=tmp_path, timeout=300)
        assert json.loads(proc.stdout)["summary"]["unexplained"] >= 3
    finally:
        shutil.rmtree(base, ignore_errors=True)
