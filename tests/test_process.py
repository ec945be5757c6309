"""Process-level directives: the run-time user carries over into a complete nginx.conf; what cannot is said."""
from __future__ import annotations

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics


def _convert(tmp_path, text):
    conf = tmp_path / "httpd.conf"
    conf.write_text("ServerRoot /etc/apache2\nPidFile /run/httpd.pid\nListen 80\n" + text)
    diags = Diagnostics()
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(), diags)
    return "".join(result.outputs.values()), result.tally.summary(), diags


def test_user_and_group_become_nginx_user_in_either_order(tmp_path):
    out, _, _ = _convert(tmp_path, "Group web\nUser www-data\n")
    assert "\nuser www-data web;" in out


def test_a_group_without_user_is_reported_not_dropped(tmp_path):
    out, summary, diags = _convert(tmp_path, "Group web\n")
    assert "\nuser " not in out
    assert any(d.code == "A2N102" and d.directive == "Group" and d.span.line == 4 for d in diags)


def test_hostname_lookups_on_is_reported_off_is_exact(tmp_path):
    _, summary, diags = _convert(tmp_path, "HostnameLookups On\n")
    assert [d.code for d in diags if d.code == "A2N290"] == ["A2N290"] and summary["approximate"] == 1
    _, summary, diags = _convert(tmp_path, "HostnameLookups Off\n")
    assert not any(d.code == "A2N290" for d in diags)
