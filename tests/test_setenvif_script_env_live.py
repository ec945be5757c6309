"""SetEnvIf's variables reach CGI programs (through fcgiwrap) and SSI's `echo var` on real servers, from httpd
and from the translation alike; a variable a <Directory> also sets is reported rather than passed wrong."""
from __future__ import annotations

import os
import shutil
import tempfile

from live import apache, fcgiwrap, free_port, nginx, request, translate

PAGE = 'probe=<!--#echo var="IS_PROBE" --> never=<!--#echo var="NEVER_SET" -->\n'
SCRIPT = '#!/bin/sh\nprintf "Content-Type: text/plain\\n\\n"\necho "IS_PROBE=${IS_PROBE-unset}"\n'


def _docroot() -> str:
    # readable (and the script runnable) by the servers' unprivileged workers
    root = tempfile.mkdtemp(prefix="a2n-env-")
    os.chmod(root, 0o755)
    for rel, text, mode in (("page.shtml", PAGE, 0o644), ("env.cgi", SCRIPT, 0o755)):
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(text)
        os.chmod(os.path.join(root, rel), mode)
    return root


def test_set_env_if_variables_reach_cgi_and_ssi(apache_bin, nginx_bin, fcgiwrap_bin):
    root = _docroot()
    sock = os.path.join(root, "fcgi.sock")
    port = free_port()
    conf = f"""Listen 127.0.0.1:{port}
DocumentRoot {root}
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
SetEnvIf User-Agent "Probe" IS_PROBE=yes
SetEnvIf User-Agent "NoSuchAgent" NEVER_SET=1
<Directory {root}>
    Options +Includes +ExecCGI
    AddHandler cgi-script .cgi
    Require all granted
</Directory>
<Directory {root}/deep>
    SetEnvIf User-Agent "Probe" IN_DIR=deep
</Directory>
"""
    try:
        text, messages = translate(conf)
        assert "A2N715" in messages and "IN_DIR" in messages     # the per-directory one is reported
        text = text.replace("unix:/run/fcgiwrap.socket", "unix:" + sock)
        asks = [(p, ua) for p in ("/page.shtml", "/env.cgi") for ua in ("Probe/1", "Other")]
        with fcgiwrap(fcgiwrap_bin, sock):
            with apache(conf, apache_bin, port, modules=("include", "cgid")):
                a = {k: request(port, k[0], headers={"User-Agent": k[1]}) for k in asks}
            with nginx(text, nginx_bin, f"127.0.0.1:{port}") as nport:
                n = {k: request(nport, k[0], headers={"User-Agent": k[1]}) for k in asks}
        assert a[("/page.shtml", "Probe/1")][2] == "probe=yes never=(none)\n"
        assert a[("/env.cgi", "Probe/1")][2].strip() == "IS_PROBE=yes"
        for k in asks:
            assert a[k][0] == n[k][0] == 200 and a[k][2] == n[k][2], (k, a[k][2], n[k][2])
    finally:
        shutil.rmtree(root, ignore_errors=True)
