"""Reading an untrusted nginx configuration and the files it includes, safely.

`load()` reads the file given and follows its `include`s the way nginx
resolves them (a relative path against the configuration prefix, which is the
directory of the file given unless `--prefix` says otherwise; globs expanded
and sorted as glob(3) does; a relative file missing there is looked up in the
system nginx directory, as a site file included from Debian's nginx.conf
would be). Every file is checked before it is opened and read by this module
only, never by nginx or crossplane:

* it must lie (symlinks resolved) inside the input's directory tree, the
  prefix, the system nginx directory or an `--allow-include` directory;
* it must be a regular file (never a device, FIFO, socket or directory: it is
  stat'ed first and opened non-blocking, without following a last symlink);
* all files together stay under MAX_TOTAL bytes, a glob under MAX_GLOB files,
  and the include graph under MAX_EXPANSIONS file readings as nginx expands it;
* an include loop is refused where it closes.

A refused include is a Refusal (file, line, column, message) and is not
followed; the sandbox points it at an empty file.
"""
from __future__ import annotations

import glob as globmod
import os
import stat
from dataclasses import dataclass, field

from .lexer import Parsed, Stmt, parse, walk

MAX_TOTAL = 10 * 1024 * 1024
MAX_GLOB = 1000
MAX_EXPANSIONS = 100_000
MAX_DEPTH = 100      # nested blocks: nginx -t takes thousands, lint's checks walk the tree recursively


class _Problem(str):
    """Why a file was not read, with the line and column it concerns (1:1 when it is the whole file)."""
    line = 1
    column = 1
SYSTEM_DIR = "/etc/nginx"
# Blocks whose handler reads `include` as a key, not as an include.
NO_INCLUDE_BLOCKS = {"split_clients", "charset_map"}
_GLOB_CHARS = "*?["


@dataclass
class Refusal:
    file: str
    line: int
    column: int
    message: str


@dataclass
class SourceFile:
    path: str              # normalised absolute path, as the configuration names it
    real: str              # symlinks resolved
    text: str              # latin-1: offsets are byte offsets
    parsed: Parsed
    context: str = "main"  # the block the file was first included in


@dataclass
class Include:
    """What one `include` statement names: the files it reads, in nginx's order, or why it is refused."""
    stmt: Stmt
    targets: list[str] = field(default_factory=list)   # normalised paths of vetted files
    missing: str | None = None      # a plain path that does not exist: nginx reports it
    refused: bool = False


@dataclass
class Source:
    main: str                                   # normalised absolute path of the file given
    prefix: str
    roots: list[str]
    files: dict[str, SourceFile] = field(default_factory=dict)      # by normalised path
    includes: dict[tuple[str, int], Include] = field(default_factory=dict)   # (file, stmt offset)
    refusals: list[Refusal] = field(default_factory=list)
    total: int = 0
    done: set[str] = field(default_factory=set)
    by_file: dict[str, list[Include]] = field(default_factory=dict)

    def refuse(self, file: str, word_or_stmt, message: str) -> None:
        text = self.files[file].text if file in self.files else ""
        start = word_or_stmt.start
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        self.refusals.append(Refusal(file, word_or_stmt.line, column, message))


def _real(path: str) -> str:
    return os.path.realpath(path)


def _inside(real: str, roots: list[str]) -> bool:
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)


def load(path: str, prefix: str | None = None, allow: tuple[str, ...] = (),
         system_dir: str = SYSTEM_DIR) -> Source:
    main = os.path.normpath(os.path.abspath(path))
    pfx = os.path.normpath(os.path.abspath(prefix)) if prefix else os.path.dirname(main)
    roots = list(dict.fromkeys(_real(r) for r in (os.path.dirname(main), pfx, system_dir, *allow)))
    src = Source(main, pfx, roots)
    problem = _read(src, main)
    if isinstance(problem, str):
        src.refusals.append(Refusal(main, getattr(problem, "line", 1), getattr(problem, "column", 1), problem))
        return src
    _follow(src, main, "main", [main], system_dir)
    expanded = _expansions(src, main, {})
    if expanded > MAX_EXPANSIONS:
        src.refusals.append(Refusal(main, 1, 1, f"the includes expand to {expanded} file readings (more than "
                                                  f"{MAX_EXPANSIONS}): refused, nginx -t would not finish"))
    return src


def _read(src: Source, path: str) -> SourceFile | str:
    """Read one vetted file, or say why it may not be read."""
    if path in src.files:
        return src.files[path]
    real = _real(path)
    try:
        st = os.stat(real)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        return f"{path} is {kind}, not a regular file: not read"
    if src.total + st.st_size > MAX_TOTAL:
        return f"{path} would take the configuration over lint's {MAX_TOTAL // (1024 * 1024)} MB limit: not read"
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    try:
        st2 = os.fstat(fd)
        if not stat.S_ISREG(st2.st_mode) or (st2.st_dev, st2.st_ino) != (st.st_dev, st.st_ino):
            return f"{path} changed while it was read: not read"
        chunks, left = [], MAX_TOTAL - src.total + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    finally:
        os.close(fd)
    if src.total + len(data) > MAX_TOTAL:
        return f"{path} would take the configuration over lint's {MAX_TOTAL // (1024 * 1024)} MB limit: not read"
    src.total += len(data)
    text = data.decode("latin-1")
    sf = SourceFile(path, real, text, parse(text))
    deep = _too_deep(sf)
    if deep is not None:
        return deep
    src.files[path] = sf
    return sf


def _too_deep(sf: SourceFile) -> _Problem | None:
    """The first block opened more than MAX_DEPTH blocks deep in `sf`, as a located refusal, else None.

    nginx -t accepts thousands of nested blocks (5000 nested locations pass); lint's checks visit the
    tree recursively, so past MAX_DEPTH the file is refused where the block opens instead of failing whole."""
    for st in walk(sf.parsed.stmts):
        if st.block is None:
            continue
        depth, up = 1, st.parent
        while up is not None and depth <= MAX_DEPTH:
            depth, up = depth + 1, up.parent
        if depth > MAX_DEPTH:
            problem = _Problem(f"{sf.path} nests blocks more than {MAX_DEPTH} deep (line {st.line}): not read")
            problem.line = st.line
            problem.column = st.start - (sf.text.rfind("\n", 0, st.start) + 1) + 1
            return problem
    return None


def _follow(src: Source, path: str, context: str, stack: list[str], system_dir: str) -> None:
    """Depth first through the include graph: each file is followed once, a loop refused where it closes."""
    sf = src.files[path]
    sf.context = context
    src.done.add(path)
    for st in walk(sf.parsed.stmts):
        if st.name != "include" or st.block is not None:
            continue
        parent = st.parent.name if st.parent else context
        if parent in NO_INCLUDE_BLOCKS:
            continue
        inc = Include(st)
        src.includes[(path, st.start)] = inc
        src.by_file.setdefault(path, []).append(inc)
        if len(st.words) != 2:
            continue      # nginx reports the number of arguments
        word = st.words[1]
        inc.refused = not _resolve(src, path, word, inc, system_dir)
        for target in [] if inc.refused else inc.targets:
            if target in stack:
                chain = " -> ".join(os.path.basename(p) for p in stack[stack.index(target):] + [target])
                src.refuse(path, word, f"include loop ({chain}): not followed")
                inc.refused = True
                break
            problem = _read(src, target)
            if isinstance(problem, str):
                src.refuse(path, word, problem)
                inc.refused = True
                break
        if inc.refused:
            inc.targets = []
            continue
        for target in inc.targets:
            if target not in src.done:
                _follow(src, target, parent, stack + [target], system_dir)


def _resolve(src: Source, path: str, word, inc: Include, system_dir: str) -> bool:
    """Fill inc.targets (or inc.missing) for an include's argument; False when it is refused."""
    value = word.value
    if "\0" in value:
        src.refuse(path, word, "include path holds a NUL byte: not followed")
        return False
    pattern = value if os.path.isabs(value) else os.path.join(src.prefix, value)
    pattern = os.path.normpath(pattern)
    if not any(c in value for c in _GLOB_CHARS):
        if not os.path.lexists(pattern) and not os.path.isabs(value):
            fallback = os.path.normpath(os.path.join(system_dir, value))
            if os.path.lexists(fallback) and _inside(_real(fallback), [_real(system_dir)]):
                pattern = fallback
        real = _real(pattern)
        if not _inside(real, src.roots):
            src.refuse(path, word, f"include {value} reads {real}, outside the directories lint may read "
                                   f"({', '.join(src.roots)}; --allow-include DIR adds one): not followed")
            return False
        if not os.path.lexists(pattern):
            inc.missing = pattern
            return True
        inc.targets = [pattern]
        return True
    literal = pattern[: min(i for i in (pattern.find(c) for c in _GLOB_CHARS) if i >= 0)]
    base = literal if literal.endswith("/") else os.path.dirname(literal)
    if not _inside(_real(base or "/"), src.roots):
        src.refuse(path, word, f"include {value} looks in {_real(base or '/')}, outside the directories lint may "
                               f"read ({', '.join(src.roots)}; --allow-include DIR adds one): not followed")
        return False
    matches = []
    for m in globmod.iglob(pattern):
        matches.append(m)
        if len(matches) > MAX_GLOB:
            src.refuse(path, word, f"include {value} matches more than {MAX_GLOB} files: not followed")
            return False
    matches.sort(key=os.fsencode)
    for m in matches:
        if not _inside(_real(m), src.roots):
            src.refuse(path, word, f"include {value} matches {m}, which leads outside the directories lint may "
                                   f"read ({', '.join(src.roots)}): not followed")
            return False
    inc.targets = [os.path.normpath(m) for m in matches]
    return True


def _expansions(src: Source, path: str, memo: dict[str, int]) -> int:
    """How many file readings nginx makes for `path` with its includes expanded (each include site anew)."""
    if path in memo:
        return memo[path]
    memo[path] = MAX_EXPANSIONS + 1       # a loop (already refused) must not recurse
    total = 1
    for inc in src.by_file.get(path, ()):
        for t in inc.targets:
            total += _expansions(src, t, memo)
            if total > MAX_EXPANSIONS:
                memo[path] = total
                return total
    memo[path] = total
    return total
