"""Atomic output: a file is replaced only by a complete new one, never half-written; several files are
written all or none (each is staged beside its target first and renamed only when every one is staged)."""
from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


class OutputError(OSError):
    """An output that cannot be written where it was asked for (a plain message for the user)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.strerror = message

    def __str__(self) -> str:
        return self.strerror


@dataclass(frozen=True)
class Link:
    """A symbolic link to write (its target as the link will hold it, usually relative)."""
    target: str


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _make_parent(path: Path, created: list[Path]) -> Path:
    """The directory `path` goes in, created (with its missing ancestors, noted in `created`) if need be."""
    directory = path.parent if str(path.parent) else Path(".")
    missing = []
    probe = directory
    while not probe.exists() and not probe.is_symlink():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise OutputError(f"cannot write {path}: {probe} is a file, not a directory")
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            if not d.is_dir():
                raise OutputError(f"cannot write {path}: {d} is a file, not a directory") from None
            continue
        except OSError as exc:
            raise OutputError(f"cannot create the directory {d} for {path}: {_reason(exc)}") from None
        created.append(d)
    return directory


def _special_kind(path: Path) -> str | None:
    """What PATH (followed through symlinks) is when it exists and is neither a regular file nor a
    directory: a character device, a pipe or socket, a block device; else None. A link to one of the
    process's own descriptors (/dev/stdout -> /proc/self/fd/1) is a stream whatever the descriptor is: a
    rename would replace the link itself."""
    hop = str(path)
    for _ in range(8):
        if not os.path.islink(hop):
            break
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
        if hop.startswith(("/proc/", "/dev/fd/")):
            return "stream"
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "stream"
    return None


WRITE_CHUNK = 1 << 20   # characters encoded and written at once
# A file name that is not UTF-8 (Linux allows any bytes) is read as surrogate escapes and reaches the generated
# text in its source comments: written back as the bytes it was read from, as on standard output.
ENCODING_ERRORS = "surrogateescape"


def _check_inside(path: Path, root: Path) -> None:
    """Refuse `path` when the directory it goes in, its symbolic links followed, is not under `root`: a
    link planted in an output tree (out/conf.d -> ../elsewhere) would otherwise carry the write outside."""
    if not path.parent.resolve().is_relative_to(root.resolve()):
        raise OutputError(f"cannot write {path}: a symbolic link on its way leads outside {root}")


def write_all(files: list[tuple[str | Path, "str | Link"]], root: Path | None = None) -> None:
    """Write every (path, text or Link) or, on any failure (OutputError), none: nothing is left behind but
    the files as they were. With `root`, every file must land inside it (links followed)."""
    if root is not None:
        for target, _ in files:
            _check_inside(Path(target), root)
    staged: list[tuple[str, Path]] = []
    streams: list[tuple[Path, str]] = []
    created: list[Path] = []
    try:
        for target, text in files:
            path = Path(target)
            if path.is_dir() and not path.is_symlink():
                raise OutputError(f"cannot write {path}: it is a directory")
            kind = _special_kind(path)
            if kind == "block device":
                raise OutputError(f"cannot write {path}: it is a block device")
            if kind is not None and not isinstance(text, Link):
                # a character device or a pipe (/dev/null, /dev/stdout): written into as it is, never replaced
                # by a regular file of the same name (renaming over it would destroy the device node)
                streams.append((path, text))
                continue
            directory = _make_parent(path, created)
            if isinstance(text, Link):
                staged.append((_stage_link(path, directory, text.target), path))
                continue
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
            staged.append((tmp, path))
            try:
                with os.fdopen(fd, "w", encoding="utf-8", errors=ENCODING_ERRORS) as fh:
                    for start in range(0, len(text), WRITE_CHUNK):   # encoded a piece at a time, not whole
                        fh.write(text[start:start + WRITE_CHUNK])
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
            mode = 0o644
            if path.exists():
                try:
                    mode = path.stat().st_mode & 0o7777
                except OSError:
                    pass
            try:
                os.chmod(tmp, mode)
            except OSError:
                pass
        renamed = 0
        for tmp, path in staged:
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {_reason(exc)}"
                                  + (f" ({renamed} other file(s) were already replaced)" if renamed else "")) from None
            renamed += 1
        staged = []
        for path, text in streams:
            try:
                with open(path, "w", encoding="utf-8", errors=ENCODING_ERRORS) as fh:
                    fh.write(text)
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
    except BaseException:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                pass
        raise


def _stage_link(path: Path, directory: Path, target: str) -> str:
    """A link to `target` beside `path` under a temporary name (renamed over `path` with the files)."""
    for attempt in range(100):
        tmp = directory / f".{path.name}.{os.getpid()}.{attempt}.tmp"
        try:
            os.symlink(target, tmp)
            return str(tmp)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_reason(exc)}") from None
    raise OutputError(f"cannot write {path}: no free temporary name beside it")


def write_atomic(path: str | Path, text: str) -> None:
    write_all([(path, text)])
