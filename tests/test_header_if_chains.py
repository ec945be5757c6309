"""Header lines inside <If>/<ElseIf>/<Else>: one add_header per header a chain sets, whose map picks the first
member whose expression holds; unsets that only some members make are reported; mod_expires' modification
times go to `expires modified`."""
from __future__ import annotations

import re

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics


def _convert(tmp_path, text: str, htaccess: bool = False):
    conf = tmp_path / (".htaccess" if htaccess else "httpd.conf")
    conf.write_text(text if htaccess else "Listen 80\n<VirtualHost *:80>\nServerName h.test\n" + text +
                    "\n</VirtualHost>\n")
    diags = Diagnostics()
    options = ConvertOptions(htaccess_dir="/") if htaccess else ConvertOptions()
    result = convert([InputSpec(str(conf), conf)], options, diags)
    return "".join(result.outputs.values()), [d.code for d in diags]


def _map(out: str, variable: str) -> str:
    m = re.search(r"map (\S+) \$" + re.escape(variable.lstrip("$")) + r" \{\n(.*?)\n\}", out, re.S)
    assert m, out
    return m.group(1) + "\n" + m.group(2)


CHAIN = """
<If "%{REQUEST_URI} =~ m#^/admin/#">
    Header always set X-Zone admin
</If>
<ElseIf "%{REQUEST_URI} =~ m#^/api/#">
    Header always set X-Zone api
</ElseIf>
<Else>
    Header always set X-Zone public
</Else>
"""


def test_a_chain_on_one_variable_is_one_map_tried_in_order(tmp_path):
    out, codes = _convert(tmp_path, CHAIN)
    assert "A2N101" not in codes and "A2N501" not in codes
    variable = re.search(r"add_header X-Zone (\$\S+) always;", out).group(1)
    assert out.count("add_header X-Zone") == 1
    body = _map(out, variable)
    assert body.splitlines()[0] == "$uri"
    assert body.index("^/admin/") < body.index("^/api/") and "default public;" in body


def test_a_chain_over_several_variables_picks_the_first_that_holds(tmp_path):
    out, codes = _convert(tmp_path, """
<If "%{QUERY_STRING} =~ /debug/">
    Header always set X-Mode debug
</If>
<ElseIf "%{REQUEST_METHOD} == 'POST'">
    Header always set X-Mode write
</ElseIf>
""")
    assert "A2N101" not in codes
    variable = re.search(r"add_header X-Mode (\$\S+) always;", out).group(1)
    body = _map(out, variable)
    assert "~^1 debug;" in body and "~^01 write;" in body and 'default "";' in body


def test_an_unset_in_every_member_is_the_plain_unset_and_in_some_is_reported(tmp_path):
    out, codes = _convert(tmp_path, """
Header always set X-Outer kept
<If "%{REQUEST_URI} =~ m#^/a#">
    Header onsuccess unset X-Backend
    Header always unset X-Outer
</If>
<Else>
    Header onsuccess unset X-Backend
</Else>
""")
    assert "proxy_hide_header X-Backend;" in out
    assert codes.count("A2N509") == 1


def test_an_unset_in_every_member_without_an_else_is_reported(tmp_path):
    """Without an <Else>, httpd merges no member where no expression holds, and the header added above stays."""
    out, codes = _convert(tmp_path, """
Header add X-Outer on
<Directory /srv/app>
    <If "-R '10.0.0.0/8'">
        Header unset X-Outer
    </If>
    <ElseIf "%{QUERY_STRING} =~ /debug/">
        Header unset X-Outer
    </ElseIf>
</Directory>
""")
    assert "proxy_hide_header X-Outer;" not in out and 'add_header X-Outer "";' not in out
    assert codes.count("A2N509") == 2


def test_a_response_variable_cannot_choose_a_member(tmp_path):
    _, codes = _convert(tmp_path, """
<If "%{CONTENT_TYPE} =~ m#html#">
    Header always set X-Html yes
</If>
""")
    assert "A2N501" in codes


def test_htaccess_headers_report_their_server_level(tmp_path):
    out, codes = _convert(tmp_path, "Header always set X-Frame-Options DENY\n", htaccess=True)
    assert "add_header X-Frame-Options DENY always;" in out
    assert codes.count("A2N510") == 1


def test_expires_modification_is_an_argument_of_expires(tmp_path):
    out, codes = _convert(tmp_path, 'ExpiresActive On\nExpiresByType text/html "modification plus 1 hour"\n'
                                    'ExpiresDefault M60\n')
    assert re.search(r"expires modified \$a2n_expires_\d+;", out)
    assert "modified 3600s" not in out and "3600s;" in out and "default 60s;" in out
    assert "A2N713" in codes and "A2N712" not in codes


def test_expires_modification_beside_access_times_is_refused(tmp_path):
    out, codes = _convert(tmp_path, 'ExpiresActive On\nExpiresByType text/html "modification plus 1 hour"\n'
                                    'ExpiresByType text/css "access plus 1 day"\n')
    assert "expires modified" not in out and '"modified ' not in out
    assert re.search(r'text/html.*" off;', out)
    assert codes.count("A2N712") == 1
