""".htaccess trees: `convert --docroot DIR` reads every .htaccess file httpd would honour.

httpd reads a directory's .htaccess on every request, as a <Directory> section for that directory that
merges right after the configuration's own. Which directives it may hold is up to AllowOverride (and
AllowOverrideList) on the directory: None means the file is never read; a directive outside the allowed
classes makes httpd answer 500 for every request there. Without any AllowOverride covering the directory
httpd 2.4 still reads the file and allows nothing in it (500 for any directive; checked on httpd 2.4).
A virtual host's own <Directory> sections decide for that virtual host alone.

This module walks a document root on disk, decides per file what httpd would do, parses the honoured
files (on every core for large trees) and hands them to the translation as <Directory> sections.
"""
from __future__ import annotations

import os
import sys
from fnmatch import fnmatchcase
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import catalogue
from .diagnostics import Diagnostics
from .syntax.loader import LoadedConfig, LoadOptions, load
from .syntax.span import Span

# the reason given for a directory whose .htaccess httpd refuses to apply (after the directive's name): every
# request there is a 500 in httpd
NOT_ALLOWED = "is not allowed in .htaccess here (AllowOverride)"
from .syntax.tree import Section
from .workers import quiet_worker, worker_count

OVERRIDE_CLASSES = {"authconfig", "fileinfo", "indexes", "limit", "options"}
PARALLEL_FROM = 200          # below this many files one process is faster than starting workers


@dataclass
class Override:
    """What AllowOverride (and AllowOverrideList) permit in one directory. `unset`: no AllowOverride covers
    the directory; httpd 2.4 still reads its .htaccess (the compiled-in default is OR_UNSET|OR_NONE, which
    is not zero) and refuses every directive in it but those AllowOverrideList names ("not allowed here",
    500; checked on httpd 2.4)."""

    classes: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)                               # AllowOverrideList
    span: Span | None = None
    unset: bool = False

    @property
    def none(self) -> bool:
        """httpd never opens the .htaccess (AllowOverride None and no AllowOverrideList)."""
        return not self.classes and not self.names and not self.unset


@dataclass
class _Setting:
    """One <Directory>'s AllowOverride / AllowOverrideList, each None where the section does not say it."""

    classes: set[str] | None = None
    names: set[str] | None = None
    span: Span | None = None


def overrides_by_directory(config: LoadedConfig, vhost: Section | None = None) -> list[tuple[str, _Setting]]:
    """(directory, setting) for every plain <Directory> that says AllowOverride or AllowOverrideList and
    applies to `vhost` (None: the main server), in httpd's merge order: the main server's sections, then
    the virtual host's own (core merges a virtual host's <Directory> list after the main server's)."""
    main: list[tuple[str, _Setting]] = []
    own: list[tuple[str, _Setting]] = []

    def visit(children, holder: Section | None) -> None:
        for node in children:
            if not node.is_section:
                continue
            if node.key == "virtualhost":
                visit(node.children, node)
                continue
            if node.key != "directory" or not node.args or node.args[0] == "~":
                visit(node.children, holder)        # <IfModule>, <IfDefine>, ...
                continue
            setting = _Setting()
            for child in node.children:
                if child.is_section or child.key not in ("allowoverride", "allowoverridelist"):
                    continue
                words = [a.lower() for a in child.args]
                if child.key == "allowoverride":
                    setting.classes = set(OVERRIDE_CLASSES) if "all" in words else \
                        {w.split("=", 1)[0] for w in words if w.split("=", 1)[0] in OVERRIDE_CLASSES}
                    setting.span = child.span
                else:
                    setting.names = set() if words == ["none"] else set(words)
                    setting.span = setting.span or child.span
            if setting.classes is None and setting.names is None:
                continue
            path = node.args[0].rstrip("/") or "/"
            if holder is None:
                main.append((path, setting))
            elif holder is vhost:
                own.append((path, setting))

    visit(config.children, None)
    return main + own


def effective_override(overrides: list[tuple[str, _Setting]], directory: str) -> Override:
    """What httpd allows in `directory`'s .htaccess: the deepest covering <Directory> that says AllowOverride
    decides the classes, the deepest that says AllowOverrideList the names (core_opts_merge takes each on
    its own); a later section of the same depth wins. With none, the file is read and nothing is allowed."""
    classes: tuple[int, _Setting] | None = None
    names: tuple[int, _Setting] | None = None
    for path, setting in overrides:
        if _covers(path, directory):
            depth = 0 if path == "/" else path.count("/")
            if setting.classes is not None and (classes is None or depth >= classes[0]):
                classes = (depth, setting)
            if setting.names is not None and (names is None or depth >= names[0]):
                names = (depth, setting)
    return Override(classes=set(classes[1].classes) if classes else set(),
                    names=set(names[1].names) if names else set(),
                    span=classes[1].span if classes else names[1].span if names else None,
                    unset=classes is None)


def _covers(path: str, directory: str) -> bool:
    """Does the <Directory PATH> section apply to DIRECTORY? A wildcard path (`*`, `?`, `[...]`, none of them
    crossing a `/`) is matched, as httpd's directory walk matches it (apr_fnmatch with FNM_PATHNAME), against
    DIRECTORY's leading components of the same number, and so covers what lies below them too."""
    if path == "/" or directory == path or directory.startswith(path + "/"):
        return True
    if not any(c in path for c in "*?["):
        return False
    depth = path.count("/")
    parts = directory.split("/")
    return len(parts) > depth and fnmatchcase("/".join(parts[:depth + 1]), path)


def access_names(config: LoadedConfig, vhost: Section | None) -> tuple[str, ...]:
    """The per-directory file names httpd looks for in VHOST's directories (None: the main server's):
    the last AccessFileName of the server (a virtual host without one keeps the main server's), by default
    `.htaccess`. httpd reads the first of them a directory holds, and only that one (observed with two)."""
    found: dict[Section | None, tuple[str, ...]] = {}
    for node in config.walk():
        if node.is_section or node.key != "accessfilename" or not node.args:
            continue
        holder = node.parent
        while holder is not None and holder.key != "virtualhost":
            holder = holder.parent
        found[holder] = tuple(node.args)
    return found.get(vhost) or found.get(None) or (".htaccess",)


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
    # directory, or (virtual host's span, directory) -> why httpd answers 500 there
    refused: dict = field(default_factory=dict)
    inserted: list[tuple[Section, Section]] = field(default_factory=list)   # (virtual host, its own section)
    tree: tuple[str, Path] | None = None    # (the DocumentRoot, the directory on disk that stands for it)


def missing_from_tree(tree: tuple[str, Path], directory: str) -> str | None:
    """Where the tree read (see HtaccessResult.tree) puts DIRECTORY, when DIRECTORY lies under the document root
    it stands for and is no directory there; None when it is one, or lies elsewhere (nothing is known)."""
    root, disk = tree
    root = root.rstrip("/") or "/"
    if directory != root and not directory.startswith(root.rstrip("/") + "/"):
        return None
    place = disk / directory[len(root):].lstrip("/")
    return None if place.is_dir() else str(place)


def virtual_hosts(config: LoadedConfig) -> list[Section]:
    """The <VirtualHost> sections, in order (also those inside <IfModule>/<IfDefine>)."""
    return [n for n in config.walk() if n.is_section and n.key == "virtualhost"]


def main_answers(config: LoadedConfig, vhosts: list[Section]) -> bool:
    """Can a request reach the main server itself: no virtual host, or a Listen port no wildcard virtual
    host covers (a virtual host on one address leaves the port's other addresses to the main server)."""
    if not vhosts:
        return True
    ports = set()
    for node in config.walk():
        if not node.is_section and node.key == "listen" and node.args:
            port = node.args[0].rpartition(":")[2]
            ports.add(port if port.isdigit() else node.args[0])
    covered = set()
    for v in vhosts:
        for addr in v.args:
            host, _, port = addr.rpartition(":")
            if not port.isdigit():
                host, port = addr, "*"
            if host in ("*", "_default_", "[::]", "0.0.0.0"):
                covered.add(port)
    return "*" not in covered and bool(ports - covered)


def _verdict(children: list, override: Override) -> tuple | None:
    """What httpd makes of a parsed .htaccess under `override`: None (never read), else (the indexes of
    the nodes it applies, the first node it refuses or None)."""
    if override.none:
        return None
    kept = tuple(i for i, n in enumerate(children) if _refused_in(n, override) is None)
    refused = next((r for r in (_refused_in(n, override) for n in children) if r is not None), None)
    return kept, refused


def _label(node) -> str:
    return ("<" + node.name) if node.is_section else node.name


def _refused_in(node, override: Override):
    """The first directive (or section) of NODE httpd refuses under `override`, or None. A section is checked as
    a directive of its own (<RequireAll> needs AuthConfig, <Limit> AuthConfig or Limit, <Files> and <If> any
    override), then what it holds: httpd reads a section's contents with the .htaccess file's override."""
    if not permitted(_label(node), override):
        return node
    for child in node.children if node.is_section else ():
        refused = _refused_in(child, override)
        if refused is not None:
            return refused
    return None


def _applied(children: list, kept: tuple, refused) -> list:
    """What httpd applies of a .htaccess: nothing when it refuses a directive of it (the file fails to parse,
    every request under the directory is a 500 without the file's headers), else the permitted directives."""
    return [] if refused is not None else [children[i] for i in kept]


def _section(directory: str, f: Path, children: list) -> Section:
    section = Section("Directory", [directory], str(f), 1, 1, 1, 1, [(1, 1, 1, 1)], [False])
    section.children = list(children)
    for node in section.children:
        node.parent = section
    return section


def _report_refusals(f: Path, directory: str, verdicts: list, servers: int, diags: Diagnostics) -> None:
    """A2N748 once for each directive some followed server refuses."""
    said: set[int] = set()
    for verdict in verdicts:
        if verdict is None or verdict[1] is None or id(verdict[1]) in said:
            continue
        said.add(id(verdict[1]))
        node = verdict[1]
        why = f"{_label(node)} is not allowed in .htaccess here (AllowOverride)"
        diags.add("A2N748", f"{f}: {why}: httpd answers 500 Internal Server Error for every request under "
                  f"{directory}" + ("" if servers == 1 else " in the servers where it is not allowed")
                  + ", the translation refuses them", node.span, directive=node.name,
                  hint="remove the directive from the file or widen AllowOverride")


def collect(docroot: Path, config_root: str, config: LoadedConfig, diags: Diagnostics, jobs: int = 0,
            progress=None) -> HtaccessResult:
    """Every .htaccess under `docroot` (which stands for `config_root` in the configuration), as the
    <Directory> sections httpd would merge; `jobs` worker processes (0: every core for large trees).

    AllowOverride is decided per server: a virtual host's own <Directory> sections count for it alone.
    Where the servers agree the file joins the main server (every virtual host inherits it); where they
    differ each virtual host gets the file as it reads it, or, when the main server answers requests too
    (its section would reach every virtual host), the directory is refused everywhere (A2N778)."""
    vhosts = virtual_hosts(config)
    servers: list[Section | None] = [None] + vhosts
    names = list(dict.fromkeys(access_names(config, v) for v in servers))
    files: list[Path] = []
    disagree: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(docroot):
        dirnames.sort()
        present = set(filenames)
        chosen = {next((n for n in each if n in present), None) for each in names}
        if len(chosen) > 1:
            disagree.append(Path(dirpath))
        elif None not in chosen:
            files.append(Path(dirpath) / chosen.pop())
    overrides = [overrides_by_directory(config, v) for v in servers]
    wanted: list[tuple[Path, str, list[Override]]] = []
    result = HtaccessResult([], tree=(config_root, Path(docroot)))
    for f in files:
        rel = f.parent.relative_to(docroot).as_posix()
        directory = config_root.rstrip("/") + ("/" + rel if rel != "." else "") or "/"
        per_server = [effective_override(o, directory) for o in overrides]
        if all(o.none for o in per_server):
            result.skipped += 1
            continue
        wanted.append((f, directory, per_server))
    # httpd reads a .htaccess with the Defines and the environment the server configuration ended with
    options = LoadOptions(missing_includes="warn", defines=dict(config.defines), env=dict(config.env),
                          env_only=True)
    paths = [(str(f), options) for f, _, _ in wanted]
    workers = worker_count(jobs, len(paths))
    if workers > 1 and len(paths) >= PARALLEL_FROM:
        with ProcessPoolExecutor(max_workers=workers, initializer=quiet_worker) as pool:
            parsed = list(_tracked(pool.map(_parse, paths, chunksize=64), len(paths), progress))
    else:
        parsed = list(_tracked(map(_parse, paths), len(paths), progress))
    for where in disagree:
        rel = where.relative_to(docroot).as_posix()
        directory = config_root.rstrip("/") + ("/" + rel if rel != "." else "") or "/"
        node = next(n for n in config.walk() if not n.is_section and n.key == "accessfilename")
        diags.add("A2N779", f"{where}: the servers' AccessFileName lists name different files of this directory, "
                  f"so httpd reads one file for one server and another (or none) for the next: every request "
                  f"under {directory} is refused (deny all)", node.span, directive="AccessFileName",
                  hint="give every server the same AccessFileName")
        result.refused.setdefault(directory, ("the servers read different per-directory files here", node.span))
        result.sections.append(_section(directory, where / names[0][0], []))
    answers = main_answers(config, vhosts)
    for (f, directory, per_server), (_, children, file_diags) in zip(wanted, parsed):
        diags.extend(file_diags)
        verdicts = [_verdict(children, o) for o in per_server]
        agreed = all(v == verdicts[0] for v in verdicts)
        split = not agreed and answers
        # the servers that answer: every one, or the virtual hosts alone (the main server's reading is then
        # never served)
        _report_refusals(f, directory, verdicts if agreed or split else verdicts[1:], len(servers), diags)
        result.read += 1
        if agreed:
            kept, refused = verdicts[0]
            if refused is not None:
                result.refused.setdefault(directory, (f"{_label(refused)} {NOT_ALLOWED}", refused.span))
            result.sections.append(_section(directory, f, _applied(children, kept, refused)))
            continue
        if split:
            span = next((o.span for o in per_server if o.span is not None), Span.point(str(f)))
            why = f"the servers read {f} under different AllowOverride settings"
            diags.add("A2N778", f"{f}: the servers read this .htaccess under different AllowOverride "
                      "settings, and the main server answers requests too, so a section for one server would "
                      f"reach the others: every request under {directory} is refused (deny all)", span,
                      directive="AllowOverride",
                      hint="give every server the same AllowOverride for the directory, or serve the "
                           "directory from virtual hosts only")
            result.refused.setdefault(directory, (why, span))
            result.sections.append(_section(directory, f, []))
            continue
        for vhost, verdict in zip(vhosts, verdicts[1:]):
            if verdict is None:
                continue
            kept, refused = verdict
            if refused is not None:
                result.refused.setdefault((vhost.span, directory), (f"{_label(refused)} {NOT_ALLOWED}",
                                                                     refused.span))
            section = _section(directory, f, _applied(children, kept, refused))
            section.parent = vhost
            vhost.children.append(section)
            result.inserted.append((vhost, section))
    return result


def _tracked(iterable, total: int, progress):
    if progress is None:
        yield from iterable
        return
    with progress(length=total, label="reading .htaccess files", file=sys.stderr) as bar:
        for item in iterable:
            bar.update(1)
            yield item
