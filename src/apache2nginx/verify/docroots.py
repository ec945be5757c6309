"""The files verify's servers serve: a sandbox directory for every DocumentRoot, Alias and ScriptAlias target
holding the files the probes ask for (or a user's --docroot tree), and stand-ins for password and group files."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ..syntax.loader import LoadedConfig
from .paths import normalized_path
from .probes import Probe


# The longest name a filesystem here takes for one path segment, and the longest path and the deepest tree the
# synthesised roots hold: a request beyond them finds no file (on both servers alike).
MAX_SEGMENT = 255
MAX_PATH = 3000
MAX_DEPTH = 64


class SandboxPaths(dict):
    """Original filesystem path -> its sandbox stand-in. `base`: where synthesised roots live, each under the
    same absolute path as its original (`<base>/var/www/html`), so that httpd's sandbox can move every
    <Directory> along with them; None for a user's --docroot. `notes`: the stand-ins written, for the report.
    httpd's sandbox adds the stand-ins it writes for other files (DH parameters, maps...), so that nginx's reads
    the same ones."""

    def __init__(self, *args, base: str | None = None, notes: list[str] | None = None, work: str | None = None):
        super().__init__(*args)
        self.base = base
        self.notes = notes if notes is not None else []
        self.work = work   # a directory that outlives both servers' runs: stand-ins both of them read


def _storable(rel: str) -> bool:
    """Whether a relative path can be a file here: no segment too long for the filesystem, not too long or too
    deep (the tree is made and removed without recursion limits in mind)."""
    parts = rel.split("/")
    return (len(rel.encode("utf-8", "surrogateescape")) <= MAX_PATH and len(parts) <= MAX_DEPTH
            and all(len(p.encode("utf-8", "surrogateescape")) <= MAX_SEGMENT for p in parts))


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
    except OSError:
        pass    # a file and a directory wanted at the same place, or a name the filesystem refuses


def _new_file(path: str, text: str, made: set[str]) -> None:
    """Write a file where nothing exists yet (else leave what is there), as `_write` would; MADE holds the
    directories known to exist (syscalls saved per file: a replayed access log can ask for 100,000 names)."""
    parent = path.rpartition("/")[0]
    try:
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            os.write(fd, text.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    except OSError:
        pass    # a file and a directory wanted at the same place, or a name the filesystem refuses


def _mkdir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass


# Directives mapping a URL prefix onto a directory: a ScriptAlias target is one as an Alias's is (httpd applies
# its <Directory> sections to what it serves there)
_ALIASES = ("alias", "scriptalias")


def _vhost_roots(config: LoadedConfig) -> tuple[dict[str, set[str] | None], set[str]]:
    """(DocumentRoot/Alias target -> the host names of the virtual hosts that name it, or None where a root
    is also named outside every virtual host; every name a virtual host has)."""
    roots: dict[str, set[str] | None] = {}
    known: set[str] = set()
    inside: set[int] = set()
    for vhost in config.children:
        if not (vhost.is_section and vhost.key == "virtualhost"):
            continue
        names = {c.args[0].split("://")[-1].split(":")[0].lower() for c in vhost.walk()
                 if not c.is_section and c.key in ("servername", "serveralias") and c.args}
        names |= {a.lower() for c in vhost.walk() if not c.is_section and c.key == "serveralias" for a in c.args}
        wildcard = any("*" in n or "?" in n for n in names)
        known |= {n for n in names if "*" not in n and "?" not in n}
        for node in vhost.walk():
            inside.add(id(node))
            root = node.args[0] if not node.is_section and node.key == "documentroot" and node.args else \
                node.args[1] if not node.is_section and node.key in _ALIASES and len(node.args) >= 2 else None
            if root is None:
                continue
            if wildcard or not names or roots.get(root, set()) is None:
                roots[root] = None            # a wildcard or nameless host: any request may reach it
            else:
                roots.setdefault(root, set()).update(names)
    for node in config.walk():
        if id(node) not in inside and not node.is_section and node.key in ("documentroot", *_ALIASES) and node.args:
            roots[node.args[0] if node.key == "documentroot" else node.args[-1]] = None
    return roots, known


def _place_in_tree(path: str, document_roots: list[str], tree: str) -> str | None:
    """Where a user's --docroot TREE holds PATH (an absolute DocumentRoot, Alias or AliasMatch target): the tree
    itself for a document root (the tree stands for every one), the same place inside it for a path under one
    (`Alias /media /srv/www/blog` with DocumentRoot /srv/www: TREE/blog, where httpd applies the <Directory>
    of /srv/www/blog); None for a path outside every document root, which the tree does not describe: it gets
    a synthesised stand-in as without --docroot (taking the tree for it served the tree's files there, and
    where the target is a file, answered the directory redirect httpd never sends)."""
    target = os.path.normpath(path)
    best = None
    for root in document_roots:
        root = os.path.normpath(root)
        if target == root:
            return tree
        if target.startswith(root.rstrip("/") + "/") and (best is None or len(root) > len(best)):
            best = root
    if best is None:
        return None
    return os.path.join(tree, target[len(best.rstrip("/")) + 1:])


def _file_targets(config: LoadedConfig) -> set[str]:
    """The Alias targets that name a file (`Alias /fb.html /srv/alt/fb.html`): a target whose last segment has
    an extension, mapped only by URLs without a trailing slash and named by nothing else (a DocumentRoot, a
    ScriptAlias). httpd serves the file at the URL and answers 404 under it (path info after a file); a
    directory synthesised there made it redirect the URL to a slash instead."""
    files: set[str] = set()
    directories: set[str] = set()
    for node in config.walk():
        if node.is_section or not node.args:
            continue
        if node.key == "alias" and len(node.args) >= 2:
            url, target = node.args[0], node.args[1]
            named_file = not url.endswith("/") and not target.endswith("/") \
                and "." in target.rsplit("/", 1)[-1].lstrip(".")
            (files if named_file else directories).add(target)
        elif node.key in ("documentroot", "scriptalias"):
            directories.add(node.args[-1])
    return files - directories


def synthesize_docroots(config: LoadedConfig, probes: list[Probe], base: Path,
                        user_docroot: str | None, htaccess_nodes=()) -> SandboxPaths:
    """A sandbox directory for every DocumentRoot, Alias and ScriptAlias target, holding the files the probes
    ask for (a file for an Alias target that names one); a stand-in for every password file the configuration
    (or a .htaccess of HTACCESS_NODES) names. With USER_DOCROOT, the tree stands for every document root and
    what lies under one; only targets outside them are synthesised."""
    from ..passes.core import DEFAULT_DOCUMENT_ROOT
    base = Path(os.path.abspath(base))
    if user_docroot:
        # the servers run elsewhere: a relative --docroot means the one under the current directory
        user_docroot = os.path.abspath(user_docroot)
    originals: list[str] = [DEFAULT_DOCUMENT_ROOT]
    # literal local rewrite targets exist too, so that where a rule leads shows in the response
    targets = []
    alias_urls: dict[str, list[str]] = {}     # an Alias target -> the URL prefixes it serves
    # no files under a <Location> whose handler answers itself (server-status, ...): a directory there would
    # make httpd's mod_dir redirect where a real server has none
    handled = [n.args[0].rstrip("/") for n in config.walk() if n.is_section and n.key == "location" and n.args
               and any(c.key == "sethandler" and c.args and c.args[0].lower() not in ("none", "default-handler")
                       for c in n.children if not c.is_section)]
    server_root = (config.server_root or "/etc/apache2").rstrip("/")
    for node in config.walk():
        if node.is_section:
            continue
        if node.key == "rewriterule" and len(node.args) > 1 and node.args[1].startswith("/") \
                and not re.search(r"[$%]", node.args[1]):
            targets.append(node.args[1].split("?", 1)[0])
        if node.key == "errordocument" and len(node.args) > 1 and node.args[1].startswith("/") \
                and not node.args[1].startswith("//"):
            # a local error document: the page both servers answer with
            targets.append(node.args[1].split("?", 1)[0])
        if node.key == "documentroot" and node.args:
            originals.append(node.args[0])
        elif node.key in _ALIASES and len(node.args) >= 2:
            originals.append(node.args[1])
            alias_urls.setdefault(node.args[1], []).append(node.args[0].rstrip("/"))
        elif node.key in ("aliasmatch", "scriptaliasmatch") and len(node.args) >= 2 and node.args[1].startswith("/"):
            # the directory an AliasMatch target names before its first substitution
            fixed = re.split(r"\$\d", node.args[1], maxsplit=1)[0]
            if "$" in node.args[1] and fixed.rfind("/") > 0:
                originals.append(fixed[:fixed.rfind("/")])
    # a target under a document root or alias target is that file (httpd reads it as a file path)
    targets += [t[len(o.rstrip("/")):] for t in list(targets) for o in originals
                if t.startswith(o.rstrip("/") + "/")]
    paths = SandboxPaths(base=None if user_docroot else str(base / "fs"), work=str(base))
    # Each root gets the files of the requests that may reach it: a virtual host's own roots those sent to
    # its names (and to names no host has, which its address's default host may answer); the others every
    # request. A server of thousands of sites would otherwise hold every site's files in every root.
    hosts_of_root, known = _vhost_roots(config)
    file_targets = _file_targets(config)
    document_roots = [DEFAULT_DOCUMENT_ROOT] + [n.args[0] for n in config.walk()
                                                if not n.is_section and n.key == "documentroot" and n.args]
    document_roots = [r if r.startswith("/") else server_root + "/" + r for r in document_roots]
    by_host: dict[str, dict[str, bool]] = {}     # host -> path -> asked for with GET or HEAD
    for p in probes:
        if "%" not in p.path:
            seen = by_host.setdefault(p.server_name.lower(), {})
            path = normalized_path(p.path)
            seen[path] = seen.get(path, False) or p.method in ("GET", "HEAD")
    unknown = [h for h in by_host if h not in known]
    for original in dict.fromkeys(originals):
        names = hosts_of_root.get(original)
        reaching: dict[str, bool] = {}
        for host in (by_host if names is None else [*names, *unknown]):
            for path, safe in by_host.get(host, {}).items():
                reaching[path] = reaching.get(path, False) or safe
        requested_all = list(reaching)
        requested_safe = [c for c, safe in reaching.items() if safe]
        absolute = original if original.startswith("/") else server_root + "/" + original
        in_tree = _place_in_tree(absolute, document_roots, user_docroot) if user_docroot else None
        if in_tree is not None:
            paths[original] = in_tree
            continue
        if user_docroot:
            paths.notes.append(f"synthesised a stand-in for {original}, outside every document root --docroot "
                               f"stands for")
        root = base / "fs" / os.path.normpath(absolute).lstrip("/")
        if original in file_targets:
            _write(root, f"{original}\n")
            paths[original] = str(root)
            continue
        _mkdir(root)
        _write(root / "index.html", f"index of {original}\n")
        _write(root / ".htaccess", "# a file both servers must refuse\n")
        _write(root / ".htpasswd", "user:$apr1$x$y\n")
        _write(root / "a.txt", f"a.txt of {original}\n")
        wanted_dirs = set()
        # under an Alias, the part of the path after its URL prefix is the file's place in the target
        # (what GET and HEAD ask for: a POST probe stays one at a missing file)
        under_alias = [c[len(u):] or "/" for u in alias_urls.get(original, ()) for c in requested_safe
                       if u and c.startswith(u + "/")]
        requested = [c for c in requested_all + under_alias
                     if not any(c == h or c.startswith(h + "/") for h in handled) and _storable(c.strip("/"))]
        # a name with an extension requested as a file stays a file (path-info probes go through it)
        files_wanted = {c.strip("/") for c in requested if not c.endswith("/") and "." in c.rsplit("/", 1)[-1]}
        for clean in requested:
            if ".." in clean or "//" in clean:
                continue
            parts = [s for s in clean.split("/") if s]
            for j in range(1, len(parts) + (1 if clean.endswith("/") else 0)):
                if "/".join(parts[:j]) not in files_wanted:
                    wanted_dirs.add("/".join(parts[:j]))
        top = str(root)
        made = {top}
        for d in sorted(wanted_dirs, key=len):
            _mkdir(root / d)
            made.add(f"{top}/{d}")
            _write(root / d / "index.html", f"index of {original}/{d}\n")
        for clean in dict.fromkeys(requested + targets):
            if clean.endswith("/") or ".." in clean or "//" in clean or not _storable(clean.strip("/")):
                continue
            rel = clean.lstrip("/")
            parents = rel.split("/")[:-1]
            if any("/".join(parents[:k + 1]) in files_wanted for k in range(len(parents))):
                continue    # path info after a file: the file itself is what exists
            if rel and rel not in wanted_dirs:
                # httpd parses a .htaccess it finds (its default is to honour them): keep it a comment
                comment = "# " if rel.rsplit("/", 1)[-1].startswith(".ht") else ""
                _new_file(f"{top}/{rel}", f"{comment}{rel} of {original}\n", made)
        paths[original] = top
    # the translation writes these paths cleaned of `.`, `..` and `//` (as httpd reads them): the same stand-in
    from ..passes.base import clean_path
    for original in dict.fromkeys(originals):
        if original in paths and clean_path(original) not in paths:
            paths[clean_path(original)] = paths[original]
    # password files: the user's own where it exists, else one with the user verify:verify
    (base / "auth").mkdir(parents=True, exist_ok=True)
    for node in list(config.walk()) + list(htaccess_nodes):
        if not node.is_section and node.key in ("authuserfile", "authgroupfile") and node.args:
            name = node.args[0]
            original = name if name.startswith("/") else server_root + "/" + name
            if original in paths:
                continue
            # httpd reads a relative name under ServerRoot; the translation may keep it as written, or read
            # it under a relative ServerRoot: every spelling leads to the same stand-in
            spellings = [original, name, os.path.abspath(original)]
            found = config.locate(name) if config.locate else None
            target = base / "auth" / f"htpasswd{len(paths)}"
            if found is not None and Path(found).is_file():
                shutil.copy(found, target)
            elif node.key == "authgroupfile":
                target.write_text("")
                paths.notes.append(f"stand-in (empty group file) for {name} ({node.name}, "
                                   f"{node.file}:{node.line})")
            else:
                target.write_text(f"{VERIFY_USER}:{_apr1(VERIFY_PASSWORD)}\n")
                paths.notes.append(f"stand-in (user {VERIFY_USER}, password {VERIFY_PASSWORD}) for {name} "
                                   f"({node.name}, {node.file}:{node.line})")
            for spelling in spellings:
                paths.setdefault(spelling, str(target))
    _open_to_workers(base)
    return paths


def _open_to_workers(base: Path) -> None:
    """Make the tree readable by the servers' workers, without recursion (a tree may be deep)."""
    stack = [str(base)]
    while stack:
        top = stack.pop()
        try:
            os.chmod(top, 0o755)
            with os.scandir(top) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        os.chmod(entry.path, 0o644)
        except OSError:
            continue


VERIFY_USER, VERIFY_PASSWORD = "verify", "verify"


def _apr1(password: str) -> str:
    return subprocess.run(["openssl", "passwd", "-apr1", password], check=True, capture_output=True,
                          text=True, timeout=30).stdout.strip()
