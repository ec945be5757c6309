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
        parts = [("".join(rng.choice("abcxyz019-") for _ in range(rng.randint(1, 6)))) for _ in range(rng.randint(1, 6))]
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
