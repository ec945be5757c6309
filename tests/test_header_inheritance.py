"""Header lists across nested blocks: nginx drops an enclosing add_header list wherever a block adds its own,
httpd merges them in order (an inner set or unset replacing the outer header of that name and table)."""
from __future__ import annotations

import json

from conftest import ROOT, run_cli


def _locations(tmp_path, text: str) -> dict[str, list[list[str]]]:
    (tmp_path / "apache.conf").write_text(text)
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    out = "".join(json.loads(proc.stdout)["output"].values())
    (tmp_path / "out.conf").write_text(out)
    import crossplane
    parsed = crossplane.parse(str(tmp_path / "out.conf"), single=True, check_ctx=False, check_args=False)
    found: dict[str, list[list[str]]] = {}
    # an onsuccess header's value is a map that is empty where httpd sends no onsuccess header (nginx's own
    # redirects and errors; the add_header is written with `always`): read as its value on a 200
    onsuccess = {d["args"][1]: next(x["args"][0] for x in d["block"] if x["directive"].startswith("~^(?:200|"))
                 for d in parsed["config"][0]["parsed"]
                 if d["directive"] == "map" and d["args"][1].startswith("$a2n_onsuccess_")}

    # the other maps over one variable (a file section's lines gated on httpd's directory walk, the enclosing
    # lines they replace): read where the walk reaches the section's name ($a2n_walk_missed empty)
    maps = {d["args"][1]: (d["args"][0], {x["directive"].strip('"'): (x["args"] or [""])[0].strip('"')
                                          for x in d["block"]})
            for d in parsed["config"][0]["parsed"]
            if d["directive"] == "map" and d["args"][1] not in onsuccess and " " not in d["args"][0]
            and "|" not in d["args"][0] and ":" not in d["args"][0]}

    def value(v: str) -> tuple[str, bool]:
        """(the value, whether it is an onsuccess value)"""
        if v in onsuccess:
            return onsuccess[v], True
        if v == "$a2n_walk_missed":
            return "", False
        if v in maps:
            source, table = maps[v]
            key, _ = value(source)
            got = table.get(key, table.get("default", ""))
            return value(got) if got.startswith("$") else (got, False)
        return v, False

    def args(x):
        resolved, success = value(x["args"][1]) if len(x["args"]) > 1 else ("", False)
        if len(x["args"]) == 3 and success and x["args"][2] == "always":
            return [x["args"][0], resolved]
        return [x["args"][0], resolved, *x["args"][2:]] if len(x["args"]) > 1 else x["args"]

    def walk(block):
        for d in block:
            if d["directive"] == "location":
                found[" ".join(d["args"])] = [[x["directive"]] + args(x)
                                              for x in d.get("block", []) if x["directive"] == "add_header"
                                              and args(x)[1:2] != [""]]
            walk(d.get("block", []))
    walk(parsed["config"][0]["parsed"])
    return found


def test_a_nested_files_location_keeps_the_headers_of_its_directory_and_server(tmp_path):
    locs = _locations(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName h.example.com
    DocumentRoot /srv/h
    Header set X-Server yes
    Header always set X-Frame-Options DENY
    <Directory /srv/h/sub>
        Header set X-Dir yes
        <Files "*.pdf">
            Header set X-Pdf yes
            Header always set X-Frame-Options SAMEORIGIN
        </Files>
    </Directory>
</VirtualHost>
""")
    pdf = next(v for k, v in locs.items() if "pdf" in k)
    assert ["add_header", "X-Server", "yes"] in pdf and ["add_header", "X-Dir", "yes"] in pdf
    assert ["add_header", "X-Pdf", "yes"] in pdf
    frames = [h for h in pdf if h[1] == "X-Frame-Options"]
    assert frames == [["add_header", "X-Frame-Options", "SAMEORIGIN", "always"]]


def test_an_inner_set_replaces_only_the_same_table(tmp_path):
    """`Header set` (onsuccess) does not replace `Header always set` of the same name: httpd sends both."""
    locs = _locations(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName h.example.com
    DocumentRoot /srv/h
    Header always set X-A outer
    Header set X-B outer
    <Location /in>
        Header set X-A inner
        Header unset X-B
    </Location>
</VirtualHost>
""")
    inner = locs["^~ /in/"]
    assert ["add_header", "X-A", "outer", "always"] in inner and ["add_header", "X-A", "inner"] in inner
    assert not any(h[1] == "X-B" for h in inner)


def test_a_request_header_built_on_an_earlier_one_is_reported(tmp_path):
    """RequestHeader append in a section computes from the client's value in nginx, where httpd appends to
    what the server's RequestHeader set: A2N508, naming both lines. A plain set after a set is exact."""
    (tmp_path / "apache.conf").write_text("""Listen 80
<VirtualHost *:80>
    ServerName h.example.com
    ProxyPass / http://127.0.0.1:8081/
    RequestHeader set X-Trace "edge"
    RequestHeader set X-Plain "a"
    <Location /api>
        RequestHeader append X-Trace "api"
        RequestHeader set X-Plain "b"
    </Location>
</VirtualHost>
""")
    proc = run_cli("convert", "apache.conf", "--diagnostics", "json", cwd=tmp_path)
    chained = [d for d in json.loads(proc.stderr) if d["code"] == "A2N508"]
    assert [(d["line"], d["severity"]) for d in chained] == [(8, "warning")]
    assert [r["line"] for r in chained[0]["related"]] == [5]


def test_a_refusal_sends_a_rewrite_target_sections_line_once(tmp_path):
    """The 403 standing for a <Location>'s RewriteRule (A2N805) carries the Header lines of the sections the
    rule may rewrite to; where that is the location's own section, httpd's answer runs its lines once, so the
    refusal sends each value on one line, not the carried copy and the location's own line both."""
    case = ROOT / "fixtures" / "cases" / "class-rewrite-location-refusal-header-once"
    (tmp_path / "apache.conf").write_text((case / "apache.conf").read_text())
    proc = run_cli("convert", "apache.conf", "--format", "json", cwd=tmp_path)
    (tmp_path / "out.conf").write_text("".join(json.loads(proc.stdout)["output"].values()))
    import crossplane
    parsed = crossplane.parse(str(tmp_path / "out.conf"), single=True, check_ctx=False, check_args=False)
    top = parsed["config"][0]["parsed"]
    # a map over $status gives a line's value on the refusal (its 403 entry), elsewhere the value itself
    by_status = {d["args"][1]: {x["directive"]: x["args"][0] for x in d["block"]}
                 for d in top if d["directive"] == "map" and d["args"][0] == "$status"}

    def on_refusal(v: str) -> str:
        return by_status[v].get("403", by_status[v]["default"]) if v in by_status else v
    locations = [d for s in top if s["directive"] == "server" for d in s["block"] if d["directive"] == "location"
                 and d["args"][-1] in ("/old", "/old/")]
    assert locations
    for loc in locations:
        sent = [on_refusal(x["args"][1]) for x in loc["block"]
                if x["directive"] == "add_header" and x["args"][0] == "X-Frame-Options"]
        assert len(sent) == len(set(sent)), sent
