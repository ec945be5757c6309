"""mod_ssl's server settings merge from the main server into the virtual hosts: SSLEngine and the
certificate files a host does not set itself are the main server's."""
from __future__ import annotations

from pathlib import Path

from apache2nginx.convert import ConvertOptions, InputSpec, convert
from apache2nginx.diagnostics import Diagnostics


def _convert(tmp_path: Path, text: str):
    path = tmp_path / "apache.conf"
    path.write_text(text)
    diags = Diagnostics()
    result = convert([InputSpec(str(path), path)], ConvertOptions(jobs=1), diags)
    return result, [d.code for d in diags]


def test_a_main_server_certificate_without_a_key_serves_the_host_that_inherits_it(tmp_path):
    # the main server's lines apply to every host wherever they stand, after the host's section too
    result, codes = _convert(tmp_path, "Listen 443\n<VirtualHost *:443>\n    ServerName a.example.com\n"
                                       "    SSLEngine on\n</VirtualHost>\nSSLCertificateFile /etc/ssl/site.pem\n")
    assert not result.fatal
    text = "".join(result.outputs.values())
    assert "listen 443 ssl" in text
    assert "ssl_certificate_key /etc/ssl/site.pem;" in text       # httpd reads the key from the same file
    assert "A2N207" in codes and "A2N206" not in codes
