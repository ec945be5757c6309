"""A mutation fuzzer of `convert`: real Apache files, damaged the ways hostile input is damaged, must
each end in a translation that nginx's parser reads or in the product's own located diagnostics --
never an exception escaping `convert`, a hang, or output crossplane refuses.

    python bench/fuzz_convert.py [--inputs N] [--seed S] [--timeout SECONDS] [--jobs J] [SOURCE ...]

SOURCE: Apache files or directories of them (default: fixtures/cases/*/apache.conf and ../shared/corpus).
Prints the counts (inputs, fatal diagnostics, internal errors, hangs, refused outputs) and each distinct
signature (exception type and the innermost apache2nginx frame) with how often it was seen and the
seed of one input that shows it (`--show SEED-INDEX` prints that input).

Each input is converted in a forked worker process (memory capped with RLIMIT_AS); a worker that takes
longer than the timeout has its stack dumped (faulthandler) and is replaced. Nothing is written outside
a temporary directory and no network traffic is made.
"""
from __future__ import annotations

import argparse
import faulthandler
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_CASES = ROOT / "fixtures" / "cases"
CORPUS = ROOT.parent / "shared" / "corpus"
MEMORY_LIMIT = 3 << 30          # bytes of address space a worker may use

# ----------------------------------------------------------------------------- sources


def fixture_inputs() -> list[Path]:
    return sorted(FIXTURE_CASES.glob("*/apache.conf"))


def corpus_inputs(root: Path = CORPUS) -> list[Path]:
    listing = root / "INPUTS.txt"
    if listing.is_file():
        paths = [root / line.strip() for line in listing.read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
        return [p for p in paths if p.is_file()]
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.suffix == ".conf" or p.name == ".htaccess")
                  and "nginx-ref" not in p.parts)


def gather(sources: list[str]) -> list[Path]:
    out: list[Path] = []
    for s in sources:
        p = Path(s)
        if p.is_dir():
            out.extend(corpus_inputs(p))
        elif p.is_file():
            out.append(p)
    return out

# ----------------------------------------------------------------------------- mutations


SECTIONS = ["VirtualHost *:80", "Directory /var/www", "Location /", "Files x", "IfModule mod_ssl.c",
            "IfDefine X", "LocationMatch ^/a", "DirectoryMatch .", "FilesMatch \\.php$", "Proxy *", "If \"%{HTTPS} == 'on'\"",
            "Macro M $a", "VirtualHost [::1]:443", "Limit GET", "LimitExcept POST", "RequireAll", "Else"]
SNIPPETS = ["<", ">", "\"", "'", "\\", "${X}", "${", "}", "%{", "$1", "\t", " ", "\\\n", "\r", "\x00", "é",
            "\xff", "\u202e", "\U0001f600", "#", "*", "/", "..", "[", "]", "(", ")", "^", "$", "|", "?", "=", "!",
            ",", ";", "{", "@", "%", ":", "-", "0", "-1", "65536", "99999999999999999999", "1e9", "0x10",
            "9" * 5000, "a" * 3000, "/" * 100]
DIRECTIVES = ["Listen", "ServerName", "ServerAlias", "Redirect", "RedirectMatch", "Alias", "AliasMatch",
              "RewriteRule", "RewriteCond", "RewriteEngine On", "Timeout", "KeepAliveTimeout", "Header set",
              "ErrorDocument", "ProxyPass", "ProxyPassReverse", "DocumentRoot", "Include", "IncludeOptional",
              "Define", "Use", "SetEnvIf", "Require", "Options", "AllowOverride", "DirectoryIndex", "Expires",
              "ExpiresDefault", "LimitRequestBody", "SSLEngine on", "SSLCertificateFile", "AddType", "AddHandler",
              "Order", "Allow from", "Deny from", "Satisfy", "LogFormat", "CustomLog", "ErrorLog", "Action",
              "ScriptAlias", "FallbackResource", "RequestHeader", "ProxyTimeout", "MaxKeepAliveRequests"]
ARGS = ["/", "/x", "x", "", "\"\"", "*:80", "[R=301,L]", "[R=999999999999999999999]", "^/(.*)$", "$1",
        "http://example.com/", "https://a", "%{HTTP_HOST}", "301", "gone", "permanent", "on", "off", "-1",
        "99999999999999999999", "0", "none", "all", "granted", "env=X", "\"a b\"", "'c'", "${A}", "${A}${A}"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(rng: random.Random, data: bytes, donors: list[bytes], most: int = 4) -> bytes:
    """One to `most` random damages of `data` (Apache configuration bytes)."""
    for _ in range(rng.randint(1, most)):
        data = rng.choice(MUTATIONS)(rng, data, donors)
    return data


def _m_delete(rng, data, donors):
    lines = _lines(data)
    if len(lines) > 1:
        i = rng.randrange(len(lines))
        del lines[i:i + rng.choice([1, 1, 1, 2, 5])]
    return b"\n".join(lines)


def _m_duplicate(rng, data, donors):
    lines = _lines(data)
    i = rng.randrange(len(lines))
    j = min(len(lines), i + rng.choice([1, 1, 3, 10]))
    return b"\n".join(lines[:j] + lines[i:j] * rng.choice([1, 2, 50]) + lines[j:])


def _m_swap(rng, data, donors):
    lines = _lines(data)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _m_truncate(rng, data, donors):
    return data[:rng.randrange(len(data) + 1)]


def _m_insert(rng, data, donors):
    pos = rng.randrange(len(data) + 1)
    return data[:pos] + rng.choice(SNIPPETS).encode("utf-8", "surrogateescape") + data[pos:]


def _m_byte(rng, data, donors):
    if not data:
        return data
    pos = rng.randrange(len(data))
    return data[:pos] + bytes([rng.choice([0, 0x80, 0xc3, 0xff, ord("<"), ord(">"), ord('"'), ord("\\"),
                                           ord("\n"), ord("$"), ord("{"), ord("}"), ord(" ")])]) + data[pos + 1:]


def _m_number(rng, data, donors):
    numbers = list(re.finditer(rb"\d+", data))
    if not numbers:
        return data
    m = rng.choice(numbers)
    big = rng.choice([b"0", b"-1", b"65536", b"4294967296", b"99999999999999999999", b"9" * 5000])
    return data[:m.start()] + big + data[m.end():]


def _m_nest(rng, data, donors):
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    j = rng.randrange(i, len(lines) + 1)
    sec = rng.choice(SECTIONS)
    name = sec.split()[0]
    depth = rng.choice([1, 1, 2, 5, 150])
    opener, closer = [f"<{sec}>".encode()] * depth, [f"</{name}>".encode()] * depth
    if rng.random() < 0.2:
        closer = []                       # left unclosed
    return b"\n".join(lines[:i] + opener + lines[i:j] + closer + lines[j:])


def _m_directive(rng, data, donors):
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    args = " ".join(rng.choice(ARGS) for _ in range(rng.randint(0, 3)))
    line = f"{rng.choice(DIRECTIVES)} {args}".encode()
    return b"\n".join(lines[:i] + [line] + lines[i:])


def _m_splice(rng, data, donors):
    """A few lines of another input (crossover)."""
    if not donors:
        return data
    other = _lines(rng.choice(donors))
    k = rng.randrange(len(other))
    piece = other[k:k + rng.choice([1, 3, 10, 40])]
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    return b"\n".join(lines[:i] + piece + lines[i:])


def _m_define(rng, data, donors):
    lines = _lines(data)
    i = rng.randrange(len(lines) + 1)
    extra = rng.choice([[b"Define A x${A}${A}"] * 40, [b"Define X ${X}"], [b"Define A \"<\""],
                        [b"Define P /", b"Alias ${P} ${P}"], [b"UnDefine A"]])
    return b"\n".join(lines[:i] + extra + lines[i:])


MUTATIONS = [_m_delete, _m_duplicate, _m_swap, _m_truncate, _m_insert, _m_insert, _m_byte, _m_number,
             _m_nest, _m_directive, _m_directive, _m_splice, _m_define]

# ----------------------------------------------------------------------------- the worker


def _signature_of(tb) -> str:
    """The innermost frame in apache2nginx of a traceback (else the innermost frame at all)."""
    frames = traceback.extract_tb(tb)
    ours = [f for f in frames if "apache2nginx" in f.filename]
    f = (ours or frames or [None])[-1]
    if f is None:
        return "?"
    return f"{Path(f.filename).name}:{f.lineno} ({f.name})"


def _message_signature(text: str) -> str:
    """A self-check message without its numbers and temporary file names."""
    text = re.sub(r" in \S+\.conf:\d+", "", text)
    return re.sub(r"\d+", "N", text)[:120]


def convert_one(data: bytes) -> tuple[str, str]:
    """Convert `data` as stdin is converted; ("ok"|"fatal"|"internal"|"unparsable", detail)."""
    import crossplane  # noqa: F401

    from apache2nginx.convert import ConvertOptions, InputSpec, convert
    from apache2nginx.diagnostics import Diagnostics
    from apache2nginx.emit.render import self_check
    diags = Diagnostics()
    try:
        result = convert([InputSpec("<stdin>", None, data)], ConvertOptions(jobs=1), diags)
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - that is what is measured
        return "internal", f"{type(exc).__name__} at {_signature_of(exc.__traceback__)}"
    # A2N904: an undefined Apache ${VAR} reached the output, where nginx would refuse it as an unknown variable
    bad = [d for d in diags if d.code in ("A2N900", "A2N904")]
    if bad:
        return "unparsable", bad[0].code + " " + _message_signature(bad[0].message.split(": ", 1)[-1])
    if result.fatal:
        return "fatal", ""
    for text in result.outputs.values():
        errors = self_check(text, full="\nhttp {" in text or text.startswith("events"))
        if errors:
            return "unparsable", _message_signature(errors[0])
    return "ok", ""


def _worker(conn, dump_path: str, timeout: float, workdir: str) -> None:
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    os.chdir(workdir)       # the runner's: it removes it, even when this process is killed
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    dump = open(dump_path, "w")
    while True:
        try:
            data = conn.recv_bytes()
        except EOFError:
            return
        dump.seek(0)
        dump.truncate()
        faulthandler.dump_traceback_later(timeout, exit=True, file=dump)
        try:
            outcome = convert_one(data)
        except MemoryError:
            outcome = ("internal", "MemoryError (outside convert)")
        finally:
            faulthandler.cancel_dump_traceback_later()
        conn.send(outcome)


class Runner:
    """One worker process with a per-input deadline; replaced when it hangs or dies."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        fd, self.dump_path = tempfile.mkstemp(prefix="a2n-fuzz-dump-")
        os.close(fd)
        self.workdir = tempfile.mkdtemp(prefix="a2n-fuzz-")
        self.proc = None
        self.conn = None

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.dump_path, self.timeout, self.workdir), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def run(self, data: bytes) -> tuple[str, str]:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send_bytes(data)
        if self.conn.poll(self.timeout + 5):
            try:
                return self.conn.recv()
            except EOFError:
                pass
        # the worker timed out (faulthandler dumped its stack and exited) or died
        self.proc.join(2)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        code = self.proc.exitcode
        self.proc = None
        stack = Path(self.dump_path).read_text(errors="replace") if os.path.exists(self.dump_path) else ""
        frames = re.findall(r'File "([^"]*apache2nginx[^"]*)", line (\d+) in (\w+)', stack)
        if "Timeout" in stack or code == 1 and stack:
            where = f"{Path(frames[0][0]).name}:{frames[0][1]} ({frames[0][2]})" if frames else "?"
            return "hang", where
        return "internal", f"worker died (exit {code})"

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.conn.close()
            self.proc.join(5)
            if self.proc.is_alive():
                self.proc.kill()
        try:
            os.unlink(self.dump_path)
        except OSError:
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)


@dataclass
class Report:
    inputs: int = 0
    outcomes: Counter = field(default_factory=Counter)
    signatures: dict = field(default_factory=dict)      # (outcome, detail) -> [count, first input id]

    def add(self, ident: str, outcome: str, detail: str) -> None:
        self.inputs += 1
        self.outcomes[outcome] += 1
        if outcome in ("internal", "hang", "unparsable"):
            entry = self.signatures.setdefault((outcome, detail), [0, ident])
            entry[0] += 1

    @property
    def failures(self) -> int:
        return self.outcomes["internal"] + self.outcomes["hang"] + self.outcomes["unparsable"]

    def text(self) -> str:
        lines = [f"inputs: {self.inputs}  ok: {self.outcomes['ok']}  fatal diagnostics: {self.outcomes['fatal']}  "
                 f"internal errors: {self.outcomes['internal']}  hangs: {self.outcomes['hang']}  "
                 f"unparsable outputs: {self.outcomes['unparsable']}"]
        for (outcome, detail), (count, ident) in sorted(self.signatures.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"  {count:5d}  {outcome:10s}  {detail}  (e.g. --show {ident})")
        return "\n".join(lines)


def make_input(files: list[Path], seed: int, index: int, donors: list[bytes], most: int = 4) -> tuple[str, bytes, str]:
    rng = random.Random(f"{seed}-{index}")
    path = rng.choice(files)
    return f"{seed}-{index}", mutate(rng, path.read_bytes(), donors, most), str(path)


def fuzz(files: list[Path], count: int, seed: int, timeout: float = 10.0, jobs: int = 1,
         deadline: float | None = None, on_result=None, most: int = 4) -> Report:
    """Convert `count` mutated inputs (stopping early at `deadline`, a time.monotonic() value)."""
    donors = [p.read_bytes() for p in files[:200]]
    report = Report()
    lock = threading.Lock()
    indices = iter(range(count))

    def work() -> None:
        runner = Runner(timeout)
        try:
            while True:
                with lock:
                    index = next(indices, None)
                if index is None or (deadline is not None and time.monotonic() > deadline):
                    return
                ident, data, origin = make_input(files, seed, index, donors, most)
                outcome, detail = runner.run(data)
                with lock:
                    report.add(ident, outcome, detail)
                    if on_result:
                        on_result(ident, origin, outcome, detail)
        finally:
            runner.close()

    threads = [threading.Thread(target=work) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="*", help="Apache files or directories (default: fixtures and ../shared/corpus)")
    ap.add_argument("--inputs", type=int, default=4000, help="mutated inputs to convert")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds one conversion may take")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--mutations", type=int, default=4, help="at most this many damages per input")
    ap.add_argument("--show", metavar="SEED-INDEX", help="print the mutated input with this id and exit")
    ap.add_argument("--verbose", action="store_true", help="print every failure as it happens")
    args = ap.parse_args()
    files = gather(args.sources) if args.sources else fixture_inputs() + (corpus_inputs() if CORPUS.is_dir() else [])
    if not files:
        print("no input files", file=sys.stderr)
        return 2
    if args.show:
        seed, index = args.show.rsplit("-", 1)
        _, data, origin = make_input(files, int(seed), int(index), [p.read_bytes() for p in files[:200]],
                                     args.mutations)
        sys.stderr.write(f"# mutated from {origin}\n")
        sys.stdout.buffer.write(data)
        return 0

    def verbose(ident, origin, outcome, detail):
        if args.verbose and outcome in ("internal", "hang", "unparsable"):
            print(f"{ident} {outcome} {detail} (from {origin})", flush=True)

    start = time.monotonic()
    report = fuzz(files, args.inputs, args.seed, args.timeout, args.jobs, on_result=verbose, most=args.mutations)
    print(f"{len(files)} source files, seed {args.seed}, up to {args.mutations} mutations each, "
          f"{time.monotonic() - start:.0f} s")
    print(report.text())
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
