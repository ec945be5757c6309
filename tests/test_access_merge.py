"""How the access pieces model httpd's merge and nginx's inheritance: mod_access_compat's one config per
section, SetEnvIf on a missing header, one `satisfy` per location around limit_except, and the AliasMatch
and file-section locations nginx nests."""
from __future__ import annotations

import re

import pytest

from apache2nginx.model import Stmt
from apache2nginx.passes.access import AccessConfig, Authz, Refused, _settle_satisfy, compat_passes, merge
from apache2nginx.passes.setenvif import map_entries

from conftest import run_cli


def test_a_section_with_only_allow_deny_resets_satisfy():
    earlier = AccessConfig(order="deny,allow", denies=[("all", None)], satisfy="any")
    later = AccessConfig(order="deny,allow", denies=[("all", None)])
    assert merge([earlier]).satisfy == "any"
    eff = merge([earlier, later])
    assert eff.satisfy == "all" and eff.compat


def test_a_section_with_only_satisfy_resets_the_host_rules():
    earlier = AccessConfig(order="allow,deny", allows=[("10.0.0.0/8", None)])
    eff = merge([earlier, AccessConfig(satisfy="any")])
    assert eff.order == "deny,allow" and not eff.allows and not eff.denies and compat_passes(eff)
    # under Satisfy All a host check that admits everyone says nothing: Require alone decides
    assert not merge([earlier, AccessConfig(satisfy="all")]).compat


def _require(what: str, merging: str | None = None, walk: str = "location") -> AccessConfig:
    return AccessConfig(authz=Authz("any", children=[Authz("leaf", "all", [what])]), merging=merging, walk=walk)


def _leaves(authz) -> list[str]:
    return [authz.args[0]] if authz.op == "leaf" else [a for c in authz.children for a in _leaves(c)]


def test_a_walk_merges_its_own_sections_before_the_earlier_walks():
    # the location chain (granted, then granted with AuthMerging And) takes And, and joins the directory's
    denied = _require("denied", walk="directory")
    eff = merge([denied, _require("granted"), _require("granted", "and")])
    assert eff.authz.op == "all" and _leaves(eff.authz) == ["denied", "granted", "granted"]
    # the chain of one walk alone is merged as its sections are
    assert _leaves(merge([_require("denied"), _require("granted"), _require("granted", "and")]).authz) == \
        ["granted", "granted"]


def test_authmerging_off_without_require_drops_the_earlier_lines():
    eff = merge([_require("denied", walk="directory"), AccessConfig(merging="off", walk="location")])
    assert eff.authz is None
    # a section saying nothing of mod_authz_core's keeps them
    assert _leaves(merge([_require("denied", walk="directory"), AccessConfig(walk="location")]).authz) == ["denied"]


def test_an_expression_matching_the_empty_string_gets_an_exact_empty_key():
    assert map_entries("~^$", "1") == [('""', "1")]
    assert map_entries("~*^(|debug)$", "1") == [('""', "1"), ("~*^(|debug)$", "1")]
    assert map_entries("~^(x?)$", "v$1") == [('""', "v"), ("~^(x?)$", "v$1")]
    assert map_entries("~^https?://", "1") == [("~^https?://", "1")]


def test_one_satisfy_serves_the_location_and_its_limit_except():
    both_in = [Stmt("satisfy", ["any"]), Stmt("allow", ["10.0.0.0/8"]), Stmt("deny", ["all"]),
               Stmt("auth_basic", ["R"])]
    inside, outside, satisfy = _settle_satisfy(both_in, [Stmt("auth_basic", ["R"])], None)
    assert [st.args for st in satisfy] == [["any"]]
    assert all(st.name != "satisfy" for st in inside + outside)
    both_out = [Stmt("satisfy", ["all"]), Stmt("deny", ["all"]), Stmt("auth_basic", ["R"])]
    with pytest.raises(Refused):
        _settle_satisfy(both_in, both_out, None)


def _convert(tmp_path, text: str) -> str:
    conf = tmp_path / "apache.conf"
    conf.write_text(text)
    proc = run_cli("convert", str(conf), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.stdout


def test_limit_except_holds_no_satisfy(tmp_path):
    out = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName l.example
    DocumentRoot /srv/www
    <Location /up>
        AuthType Basic
        AuthName "Up"
        AuthUserFile /etc/apache2/up.htpasswd
        <LimitExcept GET>
            Order Deny,Allow
            Deny from all
            Allow from 10.0.0.0/8
            Require valid-user
            Satisfy Any
        </LimitExcept>
    </Location>
</VirtualHost>
""")
    block = out[out.index("location ^~ /up/"):]
    assert block.index("satisfy any;") < block.index("limit_except GET {")
    assert "satisfy" not in block[block.index("limit_except GET {"):block.index("}")]


def test_aliasmatch_applies_its_targets_directories(tmp_path):
    out = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName a.example
    DocumentRoot /srv/www
    AliasMatch ^/files/(.*)$ /srv/files/$1
    AliasMatch ^/team/(.*)$ /srv/team/$1
    <Directory /srv/files/secret>
        Require all denied
    </Directory>
    <Directory /srv/team>
        Require all denied
    </Directory>
</VirtualHost>
""")
    team = out[out.index("location ~ ^/team/"):]
    assert team.index("deny all;") < team.index("alias /srv/team/$1;")
    files = out[out.index("location ~ ^/files/"):]
    files = files[:files.index("\n    }")]
    # the map's regex would replace the location's captures: the alias reads a copy taken first
    assert re.search(r"set \$(a2n_capture_\d+) \$1;", files)
    assert 'alias "/srv/files/${a2n_capture_' in files
    assert re.search(r"map \$a2n_capture_\d+ \$a2n_alias_dir_\d+ \{[^}]*~\^secret\(\?:/\|\$\) 1;", out)


def test_a_granting_file_section_matches_the_file_not_a_directory_of_its_name(tmp_path):
    out = _convert(tmp_path, """Listen 80
<VirtualHost *:80>
    ServerName f.example
    DocumentRoot /srv/www
    <Directory /srv/www/private>
        Require all denied
        <FilesMatch "\\.css$">
            Require all granted
        </FilesMatch>
    </Directory>
</VirtualHost>
""")
    private = out[out.index("location ^~ /private/"):]
    nested = private[private.index("location ~"):]
    assert nested.splitlines()[0].split(" {")[0].endswith("$")     # no `(?:/|$)`: path info is not the file
    assert "allow all;" in nested.split("}")[0]                     # not the enclosing deny all
