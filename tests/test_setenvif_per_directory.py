"""Per-directory SetEnvIf read by Header env=: a chain per region, in httpd's merge order, and readers
refused (A2N717) where one nginx variable cannot serve every request they apply to."""
from __future__ import annotations

import re

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics


def _convert(body: str):
    text = "Listen 80\n<VirtualHost *:80>\nServerName t.example\nDocumentRoot /var/www/t\n" + body + \
        "</VirtualHost>\n"
    result = convert([InputSpec("t.conf", data=text.encode())], ConvertOptions(), Diagnostics())
    out = "\n".join(result.outputs.values())
    codes = [(d.code, d.span.line if d.span else None) for d in result.diagnostics]
    return out, codes, result.tally


def _maps(out: str) -> dict[str, tuple[str, str, list[str]]]:
    """variable -> (source, default, entry lines)"""
    found = {}
    for m in re.finditer(r"map (\S+) (\S+) \{[^\n]*\n(.*?)\n\}", out, re.S):
        lines = [l.strip().rstrip(";") for l in m.group(3).splitlines()]
        default = next(l.split(None, 1)[1] for l in lines if l.startswith("default "))
        found[m.group(2)] = (m.group(1), default, [l for l in lines if not l.startswith("default ")])
    return found


def test_files_section_like_h5bp_gets_its_own_chain():
    out, codes, tally = _convert('<FilesMatch "\\.(png|gif)$">\n SetEnvIf Origin ":" IS_CORS\n'
                                 ' Header always set Access-Control-Allow-Origin "*" env=IS_CORS\n</FilesMatch>\n')
    assert not [c for c in codes if c[0] in ("A2N702", "A2N501", "A2N717")]
    header = re.search(r"add_header Access-Control-Allow-Origin (\$\w+) always;", out).group(1)
    maps = _maps(out)
    source, default, entries = maps[header]
    assert maps[source][0] == "$http_origin" and maps[source][2] == ["~: 1"]
    assert tally.summary()["unsupported"] == 0


def test_directory_lines_merge_before_files_lines_whatever_the_text_order():
    out, codes, _ = _convert('<Directory /var/www/t/p>\n <Files "*.png">\n  SetEnvIf X-A "1" K=files\n'
                             '  Header always set X-K "k" env=K\n </Files>\n SetEnvIf X-A "1" !K\n</Directory>\n')
    assert "A2N717" not in [c for c, _ in codes]
    maps = _maps(out)
    header = re.search(r"add_header X-K (\$\w+) always;", out).group(1)
    chain = maps[header][0]
    # the last link is the <Files> line (it wins); its default is the <Directory> line's variable. env= tests
    # whether K is set, so the chain carries 1 where a line sets it (its value may be empty), "" where it unsets
    assert maps[chain][2] == ["~1 1"]
    assert maps[maps[chain][1]][2] == ['~1 ""']


def test_per_directory_line_overrides_the_server_level_one():
    out, codes, _ = _convert('SetEnvIf X-S "1" S\n<Location /a>\n SetEnvIf X-D "1" !S\n'
                             ' Header always set X-S "y" env=S\n</Location>\n')
    maps = _maps(out)
    header = re.search(r"add_header X-S (\$\w+) always;", out).group(1)
    chain = maps[header][0]
    # the server-level chain is read through the map that empties it on a refused request line
    read = maps[chain][1]
    assert maps[chain][0] == "$http_x_d" and maps[read][0] == "$request_method"
    assert maps[maps[read][1]][0] == "$http_x_s"


def test_server_level_reader_of_a_per_directory_variable_holds_everywhere():
    # httpd may send the header for any request the reader applies to: nginx sends it for every one (A2N717)
    out, codes, tally = _convert('SetEnvIf X-S "1" S\nHeader always set X-S "y" env=S\n'
                                 '<Directory /var/www/t/d>\n SetEnvIf X-D "1" !S\n</Directory>\n')
    assert ("A2N717", 6) in codes
    assert re.search(r"add_header X-S \$\w+ always;", out)


def test_reader_in_a_directory_holds_everywhere_when_a_subdirectory_also_sets_it():
    out, codes, _ = _convert('<Directory /var/www/t/d>\n SetEnvIf X-D "1" V\n Header always set X-V "y" env=V\n'
                             '</Directory>\n<Directory /var/www/t/d/sub>\n SetEnvIf X-E "1" V\n</Directory>\n')
    assert ("A2N717", 7) in codes and "add_header X-V" in out and "$http_x_e" not in out


def test_covering_directory_and_disjoint_locations_are_fine():
    out, codes, _ = _convert('<Directory /var/www/t>\n SetEnvIf X-D "1" V\n</Directory>\n'
                             '<Directory /var/www/t/d>\n SetEnvIf X-E "1" !V\n Header always set X-V "y" env=V\n'
                             '</Directory>\n<Location /a>\n SetEnvIf X-L "1" W\n Header always set X-W "1" env=W\n'
                             '</Location>\n<Location /b>\n SetEnvIf X-M "1" W\n Header always set X-W "2" env=W\n'
                             '</Location>\n')
    assert "A2N717" not in [c for c, _ in codes]
    maps = _maps(out)
    header = re.search(r"add_header X-V (\$\w+) always;", out).group(1)
    chain = maps[header][0]
    assert maps[chain][0] == "$http_x_e" and maps[maps[chain][1]][0] == "$http_x_d"


def test_line_inside_an_untranslated_section_is_not_taken_for_a_server_level_one():
    out, codes, _ = _convert('<If "true">\n SetEnvIf X-Q "1" Q\n</If>\nHeader always set X-Q "q" env=Q\n')
    # the untranslated line may set Q for any request: the header is sent for every one (an error says so)
    assert ("A2N702", 6) in codes and ("A2N702", 8) in codes
    assert "$http_x_q" not in out and "add_header X-Q" in out


def test_require_env_still_refuses_a_per_directory_variable():
    # httpd evaluates per-directory SetEnvIf before the access checks (header_parser), but the access rules
    # read only the server-level chain: the region is refused rather than opened
    out, codes, _ = _convert('<Directory /var/www/t/d>\n SetEnvIf X-K "^yes$" OK\n Require env OK\n</Directory>\n')
    assert any(c == "A2N742" for c, _ in codes)
    assert re.search(r"location \^~ /d/ \{[^}]*deny all;", out)


def test_a_later_server_level_line_reaches_an_earlier_reader():
    out, codes, _ = _convert('SetEnvIf X-A "1" V\nHeader always set X-V "y" env=V\nSetEnvIf X-B "1" !V\n')
    maps = _maps(out)
    header = re.search(r"add_header X-V (\$\w+) always;", out).group(1)
    read = maps[header][0]
    assert maps[read][0] == "$request_method" and maps[maps[read][1]][0] == "$http_x_b"
    # the reader's first map, made before the later line was read, is gone
    assert sum(1 for s, _, _ in maps.values() if s.startswith("$a2n_setenv_")) == 1
