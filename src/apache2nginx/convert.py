"""The `convert` job: inputs → load → translate → render → self-check.

Owns how inputs are gathered (files, directories of `*.conf`, stdin), how
several inputs combine (in order, as if one Include'd the next, so virtual
hosts on the same socket see each other), and which output each server goes
to. Nothing is written here: the caller writes the outputs atomically only
when the run is not fatal.
"""
from __future__ import annotations

import gc
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostics, Severity
from .emit.render import Renderer, self_check_scan
from .emit.tree import LAYOUTS, PARAMETER_FILES, Tree, build as build_tree, detect_layout
from .model import NginxModel
from .nginx_variables import Scan
from .passes.base import Tally
from .passes.translate import translate
from .syntax.loader import LoadedConfig, LoadOptions, load
from .syntax.span import Span
from .workers import quiet_worker, worker_count

NGINX_VERSION_DEFAULT = "1.22"
# Errors found while loading that do not stop the conversion: the directive is left out of the translation
# and the run ends with a finding (exit 1). Any other loading error leaves no configuration to translate.
LOADING_FINDINGS = frozenset({"A2N022"})
SHARED_OUTPUT = "00-apache2nginx-shared.conf"
SERVER_CONFIG_NAMES = ("apache2.conf", "httpd.conf")   # a whole server's main file, by the distributions' names
PARALLEL_FROM = 16       # below this many inputs (or outputs) one process is faster than starting workers


@dataclass
class ConvertOptions:
    load: LoadOptions = field(default_factory=LoadOptions)
    nginx_version: tuple[int, ...] = (1, 22)
    source_comments: bool = True
    split_outputs: bool = False   # one output per input (--out-dir)
    layout: str | None = None     # with split_outputs: a deployable tree (emit.tree.LAYOUTS), "fragments"
                                  # (one file per input), or None: a tree for a whole server, else fragments
    htaccess_dir: str | None = None  # the URL path a .htaccess input governs
    docroot: Path | None = None      # a document root on disk whose .htaccess files are read
    docroot_for: str | None = None   # the DocumentRoot it stands for (default: the configuration's)
    jobs: int = 0                    # worker processes for many inputs/outputs and large .htaccess trees (0: every core)
    progress: object = None          # click.progressbar-like factory, for a TTY


@dataclass
class ConvertResult:
    outputs: dict[str, str]
    diagnostics: Diagnostics
    tally: Tally
    fatal: bool
    lines: int = 0
    model: NginxModel | None = None
    config: LoadedConfig | None = None    # the loaded Apache configuration (for verify)
    tree: Tree | None = None              # the deployable tree, when one was asked for (outputs are its texts)


@dataclass
class InputSpec:
    display: str
    path: Path | None = None
    data: bytes | None = None


def parse_version(text: str) -> tuple[int, ...]:
    parts = text.strip().split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"not an nginx version: {text!r} (expected e.g. 1.22 or 1.25.3)")
    return tuple(int(p) for p in parts)


def gather_inputs(args: list[str], diags: Diagnostics, stdin: bytes | None = None) -> list[InputSpec]:
    specs: list[InputSpec] = []
    for arg in args:
        if arg == "-":
            specs.append(InputSpec("<stdin>", None, stdin if stdin is not None else b""))
            continue
        path = Path(arg)
        if os.path.isdir(path):
            try:
                files = sorted(p for p in path.iterdir() if os.path.isfile(p) and (p.suffix == ".conf"
                                                                                   or p.name == ".htaccess"))
            except OSError as exc:
                diags.add("A2N013", f"cannot read {arg}: {exc.strerror or exc}", Span.point(arg))
                continue
            if not files:
                diags.add("A2N014", f"{arg} holds no *.conf file", Span.point(arg))
            specs.extend(InputSpec(_display(arg, p), p) for p in files)
        elif os.path.lexists(path):
            specs.append(InputSpec(arg, path))
        else:
            diags.add("A2N013", f"cannot read {arg}: no such file or directory", Span.point(arg))
    return specs


def _display(arg: str, p: Path) -> str:
    return str(Path(arg) / p.name)


def _output_name(spec: InputSpec, taken: set[str], full: bool) -> str:
    base = "nginx.conf" if full else (Path(spec.display).stem + ".conf" if spec.path else "stdin.conf")
    name, n = base, 2
    while name in taken:
        name = f"{Path(base).stem}-{n}.conf"
        n += 1
    taken.add(name)
    return name


def combine(loaded: list[LoadedConfig]) -> LoadedConfig:
    first = loaded[0]
    if len(loaded) == 1:
        return first
    children = [n for lc in loaded for n in lc.children]
    return LoadedConfig(
        name=first.name, children=children, files=[f for lc in loaded for f in lc.files],
        lines=sum(lc.lines for lc in loaded), profile=first.profile, defines=first.defines,
        consumed=[d for lc in loaded for d in lc.consumed], skipped=sum(lc.skipped for lc in loaded),
        full_server_config=any(lc.full_server_config for lc in loaded),
        locate=lambda path: next((found for lc in loaded if lc.locate and (found := lc.locate(path))), None),
        server_root=next((lc.server_root for lc in loaded if lc.server_root), None), env=first.env,
        undefined=set().union(*(lc.undefined for lc in loaded)))


def _load_failed(diags: Diagnostics) -> bool:
    return any(d.severity is Severity.ERROR and d.code not in LOADING_FINDINGS for d in diags)


def _read_htaccess_tree(config: LoadedConfig, options: ConvertOptions, diags: Diagnostics):
    """--docroot: the honoured .htaccess files join the configuration as <Directory> sections (the main
    server's, or a virtual host's where the servers read a file differently)."""
    from . import htaccess
    from .passes.core import DEFAULT_DOCUMENT_ROOT
    root = options.docroot_for or next((n.args[0] for n in config.walk() if not n.is_section
                                        and n.key == "documentroot" and n.args), DEFAULT_DOCUMENT_ROOT)
    result = htaccess.collect(options.docroot, root, config, diags, options.jobs, options.progress)
    config.children.extend(result.sections)
    diags.add("A2N749", f"{options.docroot}: {result.read} .htaccess file(s) read as <Directory> sections under "
              f"{root}" + (f"; {result.skipped} not read by httpd either (AllowOverride None)" if result.skipped
                           else ""), Span.point(str(options.docroot)))
    return result


def _workers(options: ConvertOptions, tasks: int) -> int:
    """Worker processes for `tasks` independent pieces of work (1: do them here)."""
    if tasks < PARALLEL_FROM:
        return 1
    return worker_count(options.jobs, tasks)


def _progress(options: ConvertOptions):
    if options.progress is not None:
        return options.progress
    if sys.stderr.isatty():
        import click
        return click.progressbar
    return None


def _tracked(iterable, total: int, progress, label: str):
    if progress is None:
        yield from iterable
        return
    with progress(length=total, label=label, file=sys.stderr) as bar:
        for item in iterable:
            bar.update(1)
            yield item


def _load_one(job: tuple[InputSpec, LoadOptions]) -> tuple[LoadedConfig | None, list]:
    """Worker: load one input on its own; returns the configuration and the diagnostics loading gave."""
    spec, load_options = job
    file_diags = Diagnostics()
    lc = load(spec.path or spec.display, load_options, file_diags, data=spec.data, display_name=spec.display)
    return lc, list(file_diags)


def _load_inputs(specs: list[InputSpec], options: ConvertOptions, diags: Diagnostics) -> list[LoadedConfig]:
    """Every input loaded on its own (in worker processes when there are many), in input order."""
    workers = _workers(options, len(specs))
    if workers > 1:
        chunk = max(1, len(specs) // (workers * 4))
        with ProcessPoolExecutor(max_workers=workers, initializer=quiet_worker) as pool:
            results = list(_tracked(pool.map(_load_one, [(s, options.load) for s in specs], chunksize=chunk),
                                    len(specs), _progress(options), "reading inputs"))
        found = Diagnostics()
        for _, file_diags in results:
            found.extend(file_diags)
        # An input loaded after an error reads differently (no "holds no directives" report): on errors the
        # inputs are read again one after the other, as the sequential run does.
        if not _load_failed(found):
            diags.extend(found)
            return [lc for lc, _ in results if lc is not None]
    loaded: list[LoadedConfig] = []
    for spec in specs:
        lc = load(spec.path or spec.display, options.load, diags, data=spec.data, display_name=spec.display)
        if lc is not None:
            loaded.append(lc)
    return loaded


def _check_one(text: str) -> tuple[list[str], Scan]:
    return self_check_scan(text, full="\nhttp {" in text or text.startswith("events"))


def _check_outputs(texts: list[str], options: ConvertOptions) -> list[tuple[list[str], Scan]]:
    """The self-check of every output (in worker processes when there are many), in output order."""
    workers = _workers(options, len(texts))
    if workers == 1:
        return [_check_one(text) for text in texts]
    with ProcessPoolExecutor(max_workers=workers, initializer=quiet_worker) as pool:
        return list(pool.map(_check_one, texts, chunksize=max(1, len(texts) // (workers * 4))))


def _undefined_names(config: LoadedConfig, diags: Diagnostics) -> set[str]:
    names = set(config.undefined)
    if any(d.code == "A2N022" for d in diags):
        # .htaccess files read with --docroot are loaded apart: their nodes carry what they left undefined
        names.update(n for node in config.walk() if node.unresolved for n in node.unresolved)
    return names


def _undefined_in_outputs(outputs: dict[str, str], names: set[str], diags: Diagnostics) -> bool:
    """The last guard: an Apache ${NAME} left undefined must never reach nginx, which would read it as a
    variable of its own (and refuse it, or worse, expand one of its own). Its directive is left out of
    the translation; one that leaked through another's translation is a bug, and nothing is written."""
    leaked = False
    for output, text in outputs.items():
        for name in sorted(names):
            at = text.find("${" + name + "}")
            if at >= 0:
                diags.add("A2N904", f"generated {output} holds ${{{name}}} (line {text.count(chr(10), 0, at) + 1}), "
                          "an Apache variable left undefined", None)
                leaked = True
    return leaked


def _unknown_in_outputs(outputs: dict[str, str], scans: list[Scan], diags: Diagnostics) -> bool:
    """A directive reading a variable nginx does not know makes nginx refuse the whole configuration: the
    translator wrote it, so it is a bug and nothing is written. The outputs are one configuration (nginx
    declares variables for the whole http block), so a declaration in any of them counts."""
    every = Scan()
    for scan in scans:
        every.merge(scan)
    if every.lenient:
        return False
    unknown = {var for var, _ in every.unknown()}
    if not unknown:
        return False
    for (output, text), scan in zip(outputs.items(), scans):
        for var in dict.fromkeys(var for var, _ in scan.reads if var in unknown):
            m = re.search(r"\$(?:\{" + re.escape(var) + r"\}|" + re.escape(var) + r"(?![A-Za-z0-9_]))", text, re.I)
            line = text.count("\n", 0, m.start()) + 1 if m and var else 0
            what, why = (f"reads ${var}", "a variable nginx does not know") if var else \
                ("writes a `$` that no variable name follows", "which nginx refuses (invalid variable name)")
            diags.add("A2N905", f"generated {output} {what}" + (f" (line {line})" if line else "")
                      + f", {why} (nginx -t would refuse the configuration)", None)
    return True


def is_htaccess_name(name: str) -> bool:
    """A file read as a .htaccess for the site's root: `.htaccess`, `htaccess` or `NAME.htaccess`."""
    return name in (".htaccess", "htaccess") or name.endswith(".htaccess")


def convert(specs: list[InputSpec], options: ConvertOptions, diags: Diagnostics) -> ConvertResult:
    # The cyclic collector would walk the whole tree and model again and again while they grow (a third
    # of the time at 100k lines) and finds nothing to free: they are alive until the end. Rendering, whose
    # template contexts do leave cycles behind, runs with the collector on and the model frozen out of its
    # sight (_convert).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _convert(specs, options, diags, gc_was_enabled)
    finally:
        if gc_was_enabled:
            gc.unfreeze()
            gc.enable()


def _convert(specs: list[InputSpec], options: ConvertOptions, diags: Diagnostics,
             collect_while_rendering: bool = True) -> ConvertResult:
    tally = Tally()
    if diags.has_errors or not specs:
        return ConvertResult({}, diags, tally, True)
    loaded = _load_inputs(specs, options, diags)
    lines = sum(lc.lines for lc in loaded)
    if _load_failed(diags) or not loaded:
        return ConvertResult({}, diags, tally, True, lines)
    if options.docroot is None and all(not lc.children and not lc.consumed for lc in loaded):
        # Nothing at all to translate (an empty file, empty stdin): a generated default server would
        # hide the mistake. An empty file among others is only a warning.
        for d in diags:
            if d.code == "A2N025":
                d.severity = Severity.ERROR
                d.message = "the input holds no directives: there is nothing to convert"
        return ConvertResult({}, diags, tally, True, lines)
    combined = combine(loaded)
    htaccess_dir = options.htaccess_dir
    if htaccess_dir is None and len(specs) == 1 and specs[0].path is not None \
            and is_htaccess_name(specs[0].path.name):
        htaccess_dir = "/"
    refused: dict = {}
    inserted: list = []
    docroot_tree = None
    own_nodes = len(combined.children)
    if options.docroot is not None:
        tree = _read_htaccess_tree(combined, options, diags)
        refused, inserted, docroot_tree = tree.refused, tree.inserted, tree.tree
    model, tally = translate(combined, diags, {"nginx_version": options.nginx_version,
                                               "refused_directories": refused, "docroot_tree": docroot_tree,
                                               "htaccess_dir": htaccess_dir, "locate": combined.locate,
                                               "server_root": combined.server_root})
    undefined = _undefined_names(combined, diags)
    # the configuration as httpd reads it (verify re-emits it; httpd reads the .htaccess files itself)
    del combined.children[own_nodes:]
    for vhost, section in inserted:
        vhost.children.remove(section)
    if collect_while_rendering:
        gc.freeze()
        gc.enable()
    renderer = Renderer(options.source_comments, diags)
    outputs: dict[str, str] = {}
    tree = None
    layout = options.layout
    if options.split_outputs and layout is None and len(specs) == 1 and specs[0].path is not None \
            and (model.full or specs[0].path.name in SERVER_CONFIG_NAMES):
        layout = detect_layout(str(specs[0].path))
    if options.split_outputs and layout in LAYOUTS:
        tree = build_tree(model, renderer, list(combined.files), layout)
        outputs = {name: text for name, text in tree.texts().items() if name not in PARAMETER_FILES}
    elif options.split_outputs and len(specs) > 1 and not model.full:
        # One file per input with its servers, plus one shared file with what they all rely on
        # (upstreams, maps, log formats, main-server settings): include it once, before the others.
        taken: set[str] = {SHARED_OUTPUT}
        outputs[SHARED_OUTPUT] = renderer.render(model, servers=[], inputs=[s.display for s in specs], full=False)
        for spec, lc in zip(specs, loaded):
            files = set(lc.files)
            servers = [s for s in model.servers if (s.span.file if s.span else loaded[0].name) in files]
            outputs[_output_name(spec, taken, False)] = renderer.render(
                model, servers=servers, inputs=[spec.display], full=False, shared=False)
    else:
        name = _output_name(specs[0], set(), model.full) if len(specs) == 1 else "nginx.conf" if model.full \
            else "sites.conf"
        outputs[name] = renderer.render(model, inputs=[s.display for s in specs])
    fatal = renderer.refused
    checked = _check_outputs(list(outputs.values()), options)
    for name, (errors, _) in zip(outputs, checked):
        for err in errors:
            diags.add("A2N900", f"generated {name} does not re-parse: {err}", None, severity=Severity.ERROR)
            fatal = True
    fatal = _unknown_in_outputs(outputs, [scan for _, scan in checked], diags) or fatal
    if tree is not None:
        outputs = tree.texts()
    fatal = _undefined_in_outputs(outputs, undefined, diags) or fatal
    return ConvertResult(outputs, diags, tally, fatal, lines, model, combined, tree)
