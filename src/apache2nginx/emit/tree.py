"""The deployable nginx tree `convert --out-dir` writes for a whole Apache server.

Owns the layouts (where each part of the translation goes, as the distributions lay nginx out), the
output names (safe, unique, never hidden from `*.conf`), the parameter files the generated text
includes, and which files an earlier run left behind. Rendering stays in `render`; writing (all or
nothing) in `fileio`.

  debian  nginx.conf, conf.d/00-apache2nginx-shared.conf (log formats, maps, upstreams: each once),
          conf.d/<file>.conf for servers outside site files, sites-available/<site>.conf for each
          Apache site file, sites-enabled/<site>.conf links mirroring Apache's sites-enabled/
  rhel    nginx.conf, conf.d/00-apache2nginx-shared.conf, conf.d/<file>.conf for every file with servers
  flat    nginx.conf, 00-apache2nginx-shared.conf and <file>.conf side by side, included by name

Relative paths in nginx resolve against the directory of nginx.conf, so `nginx -t -p DIR -c nginx.conf`
reads the tree as it is written, and so does an nginx installed with DIR as /etc/nginx.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..fileio import Link
from ..model import NginxModel, Server, Stmt
from .render import GENERATED_MARK, Renderer

LAYOUTS = ("debian", "rhel", "flat")
SHARED = "00-apache2nginx-shared.conf"
# Files of nginx's own distribution that generated text may include by a relative name.
PARAMETER_FILES = {"mime.types": "nginx-mime.types", "fastcgi_params": "nginx-fastcgi_params",
                   "uwsgi_params": "nginx-uwsgi_params", "scgi_params": "nginx-scgi_params"}
_INCLUDED = re.compile(r"^\s*include (" + "|".join(re.escape(n) for n in PARAMETER_FILES) + r");", re.M)
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]")
_SITE_DIRS = ("sites-enabled", "sites-available")


@dataclass
class Tree:
    """Relative path -> text (or Link) of every file of the tree, in writing order."""
    layout: str
    files: dict[str, "str | Link"] = field(default_factory=dict)
    site_files: dict[str, str] = field(default_factory=dict)     # output path -> the Apache file it comes from

    def texts(self) -> dict[str, str]:
        return {name: text for name, text in self.files.items() if isinstance(text, str)}


def detect_layout(config_path: str | None) -> str:
    """The layout of the Apache tree `config_path` belongs to: Debian's apache2.conf with sites-enabled/,
    RHEL's conf/httpd.conf with conf.d/ or conf.modules.d/ beside conf/, otherwise flat."""
    if not config_path:
        return "flat"
    path = Path(config_path)
    here = path.parent
    if path.name == "apache2.conf" or any((here / d).is_dir() for d in _SITE_DIRS):
        return "debian"
    root = here.parent if here.name == "conf" else here
    if path.name == "httpd.conf" or any((root / d).is_dir() for d in ("conf.d", "conf.modules.d")):
        return "rhel"
    return "flat"


def safe_name(name: str) -> str:
    """An output file name from an Apache file name: only letters, digits and `._+-`, not hidden (a leading
    dot would keep it out of `*.conf`), ending in `.conf`."""
    stem = name[:-5] if name.endswith(".conf") else name
    stem = _UNSAFE.sub("_", stem).lstrip(".-") or "site"
    return stem[:120] + ".conf"


class _Names:
    """Unique names within one directory of the tree (a second `x.conf` becomes `x-2.conf`)."""

    def __init__(self, *reserved: str):
        self.taken = set(reserved)

    def claim(self, name: str) -> str:
        candidate, n = name, 2
        while candidate in self.taken:
            candidate = f"{name[:-5]}-{n}.conf"
            n += 1
        self.taken.add(candidate)
        return candidate


def _site_of(file: str) -> tuple[str, str] | None:
    """For an Apache site file (in sites-enabled/ or sites-available/): (the name it is enabled as, the
    name of the file it stands for in sites-available/)."""
    path = Path(file)
    if path.parent.name not in _SITE_DIRS:
        return None
    available = path.name
    if path.is_symlink():
        try:
            available = Path(os.readlink(path)).name or path.name
        except OSError:
            pass
    return path.name, available


def build(model: NginxModel, renderer: Renderer, files: list[str], layout: str) -> Tree:
    """The tree for `model`, whose servers come from the Apache `files` (in the order httpd read them)."""
    tree = Tree(layout)
    main_file = files[0] if files else ""
    groups: dict[str, list[Server]] = {}
    for server in model.servers:
        groups.setdefault(server.span.file if server.span else main_file, []).append(server)
    sub = "" if layout == "flat" else "conf.d/"
    conf_names = _Names(SHARED, "nginx.conf", *PARAMETER_FILES)
    available_names, enabled_names = _Names(), _Names()
    placed: list[tuple[str, str, list[Server]]] = []     # (output path, Apache file, servers)
    links: list[tuple[str, str]] = []
    for file in [f for f in dict.fromkeys(files) if f in groups] + [f for f in groups if f not in files]:
        site = _site_of(file) if layout == "debian" else None
        if site is None:
            placed.append((sub + conf_names.claim(safe_name(Path(file).name)), file, groups[file]))
            continue
        enabled, available = site
        name = available_names.claim(safe_name(available))
        placed.append(("sites-available/" + name, file, groups[file]))
        links.append(("sites-enabled/" + enabled_names.claim(safe_name(enabled)), "../sites-available/" + name))

    includes = ([f"{sub}*.conf"] if layout != "flat" else [SHARED] + [path for path, _, _ in placed])
    after = ["sites-enabled/*.conf"] if layout == "debian" else []
    tree.files["nginx.conf"] = renderer.render(
        model, servers=[], inputs=[main_file] if main_file else None, full=True, definitions=False,
        around=([Stmt("include", [i]) for i in includes], [Stmt("include", [i]) for i in after]))
    tree.files[sub + SHARED] = renderer.render(model, servers=[], inputs=files, full=False, shared=False,
                                               definitions=True)
    for path, file, servers in placed:
        tree.files[path] = renderer.render(model, servers=servers, inputs=[file], full=False, shared=False)
        tree.site_files[path] = file
    for link, target in links:
        tree.files[link] = Link(target)
    used = {name for text in tree.texts().values() for name in _INCLUDED.findall(text)}
    data = resources.files("apache2nginx.data")
    for name in sorted(used):
        tree.files[name] = data.joinpath(PARAMETER_FILES[name]).read_text("utf-8")
    return tree


def _managed(out_dir: Path, layout: str) -> list[Path]:
    """The places of DIR a tree of `layout` writes to (and nginx.conf includes from)."""
    places = [out_dir] + [out_dir / d for d in ("conf.d", "sites-available", "sites-enabled")]
    return [p for p in places if p.is_dir() and not p.is_symlink()]


def _generated(path: Path) -> bool:
    """Whether `path` is a file an earlier run wrote: it starts with the generated header (nginx's own
    parameter files carry their own first line), or is a link into sites-available/."""
    if path.is_symlink():
        return path.parent.name == "sites-enabled" and os.readlink(path).startswith("../sites-available/")
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    return first.startswith(GENERATED_MARK.encode()) or first.startswith(b"# nginx's stock ")


def leftovers(out_dir: Path, tree: Tree) -> tuple[list[Path], list[Path]]:
    """Files in DIR that this tree does not write: (ones an earlier run generated, to remove; others, which
    nginx would include along with the tree, to report)."""
    keep = {out_dir / name for name in tree.files}
    stale, foreign = [], []
    for place in _managed(out_dir, tree.layout):
        try:
            entries = sorted(place.iterdir())
        except OSError:
            continue
        for path in entries:
            if path in keep or (path.is_dir() and not path.is_symlink()) or path.name.startswith("."):
                continue
            if _generated(path):
                stale.append(path)
            elif place != out_dir and (path.suffix == ".conf" or place.name == "sites-enabled"):
                foreign.append(path)
    return stale, foreign
