"""mod_proxy_html settings are judged by whether anything turns the filter on."""
from __future__ import annotations

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics


def _convert(tmp_path, text):
    conf = tmp_path / "site.conf"
    conf.write_text(text)
    diags = Diagnostics()
    result = convert([InputSpec(str(conf), conf)], ConvertOptions(), diags)
    return result.tally.summary(), [d.code for d in diags]


def test_link_tables_without_the_filter_have_no_effect(tmp_path):
    summary, codes = _convert(tmp_path, "ProxyHTMLLinks a href\nProxyHTMLEvents onclick\n")
    assert summary["not_applicable"] == 2 and summary["unsupported"] == 0
    assert "A2N333" not in codes and "A2N101" not in codes


def test_the_filter_on_anywhere_makes_every_setting_unsupported(tmp_path):
    # the settings stand before the section that enables the filter, as in the stock proxy-html.conf
    summary, codes = _convert(tmp_path, "ProxyHTMLLinks a href\n<Location /app/>\nProxyHTMLEnable On\n"
                              "</Location>\n")
    assert summary["unsupported"] == 2
    assert codes.count("A2N333") == 1 and codes.count("A2N101") == 1


def test_the_filter_off_is_exactly_nginx(tmp_path):
    summary, codes = _convert(tmp_path, "ProxyHTMLEnable Off\n")
    assert summary["exact"] == 1 and "A2N333" not in codes
