"""The files verify's servers serve: a sandbox directory for every DocumentRoot and Alias target holding
the files the probes ask for, and stand-ins for password and group files."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..syntax.loader import LoadedConfig
from .paths import normalized_path
from .probes import Probe


def synthesize_docroots(config: LoadedConfig, probes: list[Probe], base: Path,
                        user_docroot: str | None) -> dict[str, str]:
    """A sandbox directory for every DocumentRoot and Alias target, holding the files the probes ask for."""
    from ..passes.core import DEFAULT_DOCUMENT_ROOT
    originals: list[str] = [DEFAULT_DOCUMENT_ROOT]
    # literal local rewrite targets exist too, so that where a rule leads shows in the response
    targets = []
    # no files under a <Location> whose handler answers itself (server-status, ...): a directory there would
    # make httpd's mod_dir redirect where a real server has none
    handled = [n.args[0].rstrip("/") for n in config.walk() if n.is_section and n.key == "location" and n.args
               and any(c.key == "sethandler" and c.args and c.args[0].lower() not in ("none", "default-handler")
                       for c in n.children if not c.is_section)]
    for node in config.walk():
        if node.is_section:
            continue
        if node.key == "rewriterule" and len(node.args) > 1 and node.args[1].startswith("/") \
                and not re.search(r"[$%]", node.args[1]):
            targets.append(node.args[1].split("?", 1)[0])
        if node.key == "documentroot" and node.args:
            originals.append(node.args[0])
        elif node.key in ("alias",) and len(node.args) >= 2:
            originals.append(node.args[1])
    # a target under a document root or alias target is that file (httpd reads it as a file path)
    targets += [t[len(o.rstrip("/")):] for t in list(targets) for o in originals
                if t.startswith(o.rstrip("/") + "/")]
    paths: dict[str, str] = {}
    for i, original in enumerate(dict.fromkeys(originals)):
        if user_docroot:
            paths[original] = user_docroot
            continue
        root = base / f"root{i}"
        root.mkdir(parents=True, exist_ok=True)
        (root / "index.html").write_text(f"index of {original}\n")
        (root / ".htaccess").write_text("# a file both servers must refuse\n")
        (root / ".htpasswd").write_text("user:$apr1$x$y\n")
        (root / "a.txt").write_text(f"a.txt of {original}\n")
        wanted_dirs = set()
        requested = [c for c in (normalized_path(p.path) for p in probes if "%" not in p.path)
                     if not any(c == h or c.startswith(h + "/") for h in handled)]
        # a name with an extension requested as a file stays a file (path-info probes go through it)
        files_wanted = {c.strip("/") for c in requested if not c.endswith("/") and "." in c.rsplit("/", 1)[-1]}
        for clean in requested:
            if ".." in clean or "//" in clean:
                continue
            parts = [s for s in clean.split("/") if s]
            for j in range(1, len(parts) + (1 if clean.endswith("/") else 0)):
                if "/".join(parts[:j]) not in files_wanted:
                    wanted_dirs.add("/".join(parts[:j]))
        for d in wanted_dirs:
            (root / d).mkdir(parents=True, exist_ok=True)
            (root / d / "index.html").write_text(f"index of {original}/{d}\n")
        for clean in requested + targets:
            if clean.endswith("/") or ".." in clean or "//" in clean:
                continue
            rel = clean.lstrip("/")
            parents = rel.split("/")[:-1]
            if any("/".join(parents[:k + 1]) in files_wanted for k in range(len(parents))):
                continue    # path info after a file: the file itself is what exists
            if rel and rel not in wanted_dirs and not (root / rel).exists():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                # httpd parses a .htaccess it finds (its default is to honour them): keep it a comment
                comment = "# " if rel.rsplit("/", 1)[-1].startswith(".ht") else ""
                (root / rel).write_text(f"{comment}{rel} of {original}\n")
        paths[original] = str(root)
    # password files: the user's own where it exists, else one with the user verify:verify
    for node in config.walk():
        if not node.is_section and node.key in ("authuserfile", "authgroupfile") and node.args:
            name = node.args[0]
            original = name if name.startswith("/") else \
                (config.server_root or "/etc/apache2").rstrip("/") + "/" + name
            if original in paths:
                continue
            found = config.locate(name) if config.locate else None
            target = base / f"htpasswd{len(paths)}"
            if found is not None:
                shutil.copy(found, target)
            elif node.key == "authgroupfile":
                target.write_text("")
            else:
                target.write_text(f"{VERIFY_USER}:{_apr1(VERIFY_PASSWORD)}\n")
            paths[original] = str(target)
    for dirpath, dirnames, filenames in os.walk(base):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return paths


VERIFY_USER, VERIFY_PASSWORD = "verify", "verify"


def _apr1(password: str) -> str:
    return subprocess.run(["openssl", "passwd", "-apr1", password], check=True, capture_output=True,
                          text=True, timeout=30).stdout.strip()
