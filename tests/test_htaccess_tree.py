"""`convert --docroot`: the .htaccess files httpd honours join the translation; verify proves it."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

CONF = """Listen 80
<Directory /srv/site>
    AllowOverride All
</Directory>
<Directory /srv/site/quiet>
    AllowOverride None
</Directory>
<Directory /srv/site/files-only>
    AllowOverride FileInfo
</Directory>
<VirtualHost *:80>
    ServerName tree.example.com
    DocumentRoot /srv/site
</VirtualHost>
"""


def make_tree(root: Path) -> Path:
    site = root / "site"
    files = {
        "index.html": "home\n",
        "private/.htaccess": "Require all denied\n",
        "private/a.txt": "secret\n",
        "quiet/.htaccess": "Require all denied\n",       # AllowOverride None: httpd never reads it
        "quiet/a.txt": "open\n",
        "files-only/.htaccess": "Options -Indexes\n",    # not allowed by FileInfo: httpd answers 500
        "files-only/a.txt": "x\n",
        "blog/.htaccess": "RewriteEngine On\nRewriteRule ^old$ new.html [L]\n",
        "blog/new.html": "new\n",
        "blog/old": "old\n",
    }
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    (root / "site.conf").write_text(CONF)
    return site


def test_docroot_htaccess_files_are_read_as_httpd_honours_them(tmp_path):
    site = make_tree(tmp_path)
    proc = run_cli("convert", str(tmp_path / "site.conf"), "--docroot", f"{site}=/srv/site", "--format", "json")
    doc = json.loads(proc.stdout)
    codes = [d["code"] for d in doc["diagnostics"]]
    text = "".join(doc["output"].values())
    assert "A2N748" in codes                        # Options under AllowOverride FileInfo
    assert "location ^~ /private/" in text and "deny all" in text.split("location ^~ /private/")[1].split("}")[0]
    quiet = text.split("location ^~ /quiet/")[1].split("}")[0]
    assert "deny" not in quiet                      # AllowOverride None: not read, as by httpd
    assert "rewrite ^/blog/old$ /blog/new.html last" in text
    info = next(d for d in doc["diagnostics"] if d["code"] == "A2N749")
    assert "3 .htaccess file(s) read" in info["message"] and "1 not read" in info["message"]


def test_docroot_tree_behaves_like_httpd(apache_bin, nginx_bin):
    # the servers' workers must be able to read the tree (pytest's tmp_path is private to its user)
    import shutil
    import tempfile
    tmp_path = Path(tempfile.mkdtemp(prefix="a2n-tree-"))
    try:
        _tree_behaves(tmp_path, apache_bin, nginx_bin)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _tree_behaves(tmp_path: Path, apache_bin: str, nginx_bin: str) -> None:
    site = make_tree(tmp_path)
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    requests = tmp_path / "requests.txt"
    requests.write_text("\n".join(f"GET http://tree.example.com/{p}" for p in
                                  ["index.html", "private/a.txt", "quiet/a.txt", "files-only/a.txt", "blog/old",
                                   "blog/new.html"]) + "\n")
    # the verify sandbox serves the tree at the DocumentRoot's place, so the paths stand for it directly
    conf = tmp_path / "site.conf"
    conf.write_text(CONF.replace("/srv/site", str(site)))
    proc = run_cli("verify", str(conf), "--docroot", str(site), "--requests", str(requests), "--format", "json",
                   "--apache", apache_bin, "--nginx-bin", nginx_bin, timeout=300)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, json.dumps(doc["differences"], indent=1)[-3000:]
    assert doc["summary"]["compared"] >= 6
    statuses = {d["request"]: d["apache"] for d in doc["differences"] if d["field"] == "status"}
    # the one known difference: httpd's 500 for the forbidden directive, the translation's 403
    assert statuses and all("files-only" in r for r in statuses), statuses
    assert set(statuses.values()) == {500}


def test_servers_reading_different_access_files_refuse_the_directory(tmp_path):
    """A virtual host whose AccessFileName names another file of a directory than the main server's reads
    another file there (or none): the directory is refused, an error, rather than one file applied to all."""
    site = tmp_path / "site"
    (site / "d").mkdir(parents=True)
    (site / "d" / ".acl").write_text("Require all granted\n")
    (site / "e").mkdir()
    (site / "e" / ".htaccess").write_text("Require all denied\n")
    (tmp_path / "site.conf").write_text(
        "Listen 80\nListen 8080\nDocumentRoot /srv/site\n<Directory /srv/site>\nAllowOverride All\n</Directory>\n"
        "<VirtualHost *:80>\nServerName a.test\nAccessFileName .acl\n</VirtualHost>\n"
        "<VirtualHost *:8080>\nServerName b.test\nAccessFileName .acl\n</VirtualHost>\n"
        "<VirtualHost *:80>\nServerName c.test\n</VirtualHost>\n")
    proc = run_cli("convert", str(tmp_path / "site.conf"), "--docroot", f"{site}=/srv/site", "--format", "json")
    doc = json.loads(proc.stdout)
    refused = [d for d in doc["diagnostics"] if d["code"] == "A2N779"]
    assert len(refused) == 2 and refused[0]["severity"] == "error"     # d/ and e/: .acl read by some servers only
    text = "".join(doc["output"].values())
    for prefix in ("/d/", "/e/"):
        assert "deny all" in text.split(f"location ^~ {prefix}")[1].split("}")[0]
