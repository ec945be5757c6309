""".htaccess trees: `convert --docroot DIR` reads every .htaccess file httpd would honour.

httpd reads a directory's .htaccess on every request, as a <Directory> section for that directory that
merges right after the configuration's own. Which directives it may hold is up to AllowOverride (and
AllowOverrideList) on the directory: None means the file is never read; a directive outside the allowed
classes makes httpd answer 500 for every request there. Without any AllowOverride in the configuration
httpd 2.4 reads them all (checked on httpd 2.4.71).

This module walks a document root on disk, decides per file what httpd would do, parses the honoured
files (on every core for large trees) and hands them to the translation as <Directory> sections.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import catalogue
from .diagnostics import Diagnostics
from .syntax.loader import LoadedConfig, LoadOptions, load
from .syntax.span import Span
from .syntax.tree import Section
from .workers import quiet_worker

OVERRIDE_CLASSES = {"authconfig", "fileinfo", "indexes", "limit", "options"}
PARALLEL_FROM = 200          # below this many files one process is faster than starting workers


@dataclass
class Override:
    """What AllowOverride (and AllowOverrideList) permit in one directory."""

    classes: set[str] = field(default_factory=lambda: set(OVERRIDE_CLASSES))   # httpd's default: All
    names: set[str] = field(default_factory=set)                               # AllowOverrideList
    span: Span | None = None

    @property
    def none(self) -> bool:
        return not self.classes and not self.names


def overrides_by_directory(config: LoadedConfig) -> list[tuple[str, Override]]:
    """(directory, Override) for every plain <Directory> that says AllowOverride, in config order."""
    out: list[tuple[str, Override]] = []
    for node in config.walk():
        if not node.is_section or node.key != "directory" or not node.args or node.args[0] == "~":
            continue
        path = node.args[0].rstrip("/") or "/"
        for child in node.children:
            if child.is_section or child.key not in ("allowoverride", "allowoverridelist"):
                continue
            current = next((o for p, o in out if p == path), None)
            if current is None:
                current = Override(span=child.span)
                out.append((path, current))
            words = [a.lower() for a in child.args]
            if child.key == "allowoverride":
                current.classes = set(OVERRIDE_CLASSES) if "all" in words else \
                    {w.split("=", 1)[0] for w in words if w.split("=", 1)[0] in OVERRIDE_CLASSES}
                current.span = child.span
            else:
                current.names = set() if words == ["none"] else set(words)
    return out


def effective_override(overrides: list[tuple[str, Override]], directory: str) -> Override:
    """The deepest <Directory> covering `directory` that sets AllowOverride decides (httpd's default: All)."""
    best: tuple[int, Override] | None = None
    for path, override in overrides:
        if path == "/" or directory == path or directory.startswith(path + "/"):
            depth = 0 if path == "/" else path.count("/")
            if best is None or depth >= best[0]:
                best = (depth, override)
    return best[1] if best else Override()


def permitted(name: str, override: Override) -> bool:
    """May a .htaccess under `override` hold this directive (httpd's per-directive override class)?"""
    if name.lower() in override.names:
        return True
    info = catalogue.known(name)
    if info is None:
        return True                      # unknown directives are reported on their own
    context = info.context
    if ".htaccess" not in context:
        return False
    if "isn't None" in context:
        return bool(override.classes)
    needed = {c.lower() for c in ("AuthConfig", "FileInfo", "Indexes", "Limit", "Options") if c in context}
    return bool(needed & override.classes)


def _parse(job: tuple[str, LoadOptions]) -> tuple[str, list, list]:
    """Worker: load one .htaccess; returns its nodes and the diagnostics loading gave."""
    path, options = job
    diags = Diagnostics()
    loaded = load(path, options, diags)
    return path, (loaded.children if loaded is not None else []), list(diags)


@dataclass
class HtaccessResult:
    sections: list[Section]
    read: int = 0
    skipped: int = 0        # files AllowOverride None hides from httpd
    refused: dict[str, tuple[str, Span]] = field(default_factory=dict)   # directory -> why httpd answers 500


def collect(docroot: Path, config_root: str, config: LoadedConfig, diags: Diagnostics, jobs: int = 0,
            progress=None) -> HtaccessResult:
    """Every .htaccess under `docroot` (which stands for `config_root` in the configuration), as the
    <Directory> sections httpd would merge; `jobs` worker processes (0: every core for large trees)."""
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(docroot):
        dirnames.sort()
        if ".htaccess" in filenames:
            files.append(Path(dirpath) / ".htaccess")
    overrides = overrides_by_directory(config)
    wanted: list[tuple[Path, str, Override]] = []
    result = HtaccessResult([])
    for f in files:
        rel = f.parent.relative_to(docroot).as_posix()
        directory = config_root.rstrip("/") + ("/" + rel if rel != "." else "") or "/"
        override = effective_override(overrides, directory)
        if override.none:
            result.skipped += 1
            continue
        wanted.append((f, directory, override))
    workers = jobs or (os.cpu_count() or 1)
    # httpd reads a .htaccess with the Defines and the environment the server configuration ended with
    options = LoadOptions(missing_includes="warn", defines=dict(config.defines), env=dict(config.env),
                          env_only=True)
    paths = [(str(f), options) for f, _, _ in wanted]
    if workers > 1 and len(paths) >= PARALLEL_FROM:
        with ProcessPoolExecutor(max_workers=workers, initializer=quiet_worker) as pool:
            parsed = list(_tracked(pool.map(_parse, paths, chunksize=64), len(paths), progress))
    else:
        parsed = list(_tracked(map(_parse, paths), len(paths), progress))
    for (f, directory, override), (_, children, file_diags) in zip(wanted, parsed):
        diags.extend(file_diags)
        kept = []
        for node in children:
            if node.is_section or permitted(node.name, override):
                kept.append(node)
                continue
            why = f"{node.name} is not allowed in .htaccess here (AllowOverride)"
            diags.add("A2N748", f"{f}: {why}: httpd answers 500 Internal Server Error for every request under "
                      f"{directory}, the translation refuses them", node.span, directive=node.name,
                      hint="remove the directive from the file or widen AllowOverride")
            result.refused.setdefault(directory, (why, node.span))
        section = Section("Directory", [directory], str(f), 1, 1, 1, 1, [(1, 1, 1, 1)], [False])
        section.children = kept
        for node in kept:
            node.parent = section
        result.sections.append(section)
        result.read += 1
    return result


def _tracked(iterable, total: int, progress):
    if progress is None:
        yield from iterable
        return
    with progress(length=total, label="reading .htaccess files", file=sys.stderr) as bar:
        for item in iterable:
            bar.update(1)
            yield item
