"""`apache2nginx check`: is a committed nginx file still what `convert` makes of its Apache source?

Made for pre-commit and CI. Each pair (Apache input(s) → nginx file) is converted again with
the same code path as `convert -o`, and both sides are compared as nginx reads them: crossplane
parses each into a directive tree, so whitespace, indentation, quoting that does not change a
token, and comments (including the `# apache.conf:42` source comments) do not count. Any other
difference is drift: a unified diff of the two normalized trees is printed on stdout.

Pairs come from the command line (`check APACHE_INPUT NGINX_FILE`) or from `.apache2nginx.toml`
at the repository root (`git rev-parse --show-toplevel`, else the current directory):

    [convert]                      # options for every pair (all optional)
    nginx_version = "1.22"
    defines = ["PROD", "PORT=8080"]
    env = { APP_ROOT = "/srv/app" }  # or ["APP_ROOT=/srv/app"]: the environment httpd starts with
    modules = ["ssl"]

    [[pair]]
    apache = "apache/site.conf"    # a string, or a list of inputs converted together
    nginx = "nginx/site.conf"
    source_comments = false        # options for this pair only (or under [pair.convert])

Exit codes: 0 every pair in sync (or rewritten with --fix); 1 drift; 2 bad usage, an unreadable
or unconvertible input, or an invalid configuration file.
"""
from __future__ import annotations

import difflib
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import crossplane

from .convert import ConvertOptions, convert, gather_inputs, parse_version
from .diagnostics import Diagnostics, render
from .emit.render import crossplane_parse_text
from .fileio import write_atomic
from .syntax.loader import LoadOptions
from .syntax.parser import InputRefused, read_text

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_NAME = ".apache2nginx.toml"
IN_SYNC, DRIFT, UNUSABLE = 0, 1, 2

# The convert options a configuration file may set, and the value type each takes.
OPTION_KEYS = {
    "nginx_version": str, "defines": (list, dict), "env": (list, dict), "modules": list, "without_modules": list,
    "server_root": str, "docroot": str, "htaccess_dir": str, "source_comments": bool,
    "missing_includes": str,
}


class CheckError(Exception):
    """Input that cannot be used: reported, and the exit code is 2."""


@dataclass
class Pair:
    apache: list[str]
    nginx: str
    options: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- options

def _defines(value) -> dict[str, str | None]:
    """As convert's --define: NAME=VALUE is a Define, NAME alone a -D parameter (for <IfDefine> only)."""
    if isinstance(value, dict):
        return {str(k): "" if v is None else str(v) for k, v in value.items()}
    out: dict[str, str | None] = {}
    for item in value:
        name, eq, val = str(item).partition("=")
        out[name] = val if eq else None
    return out


def _env(value) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    out = {}
    for item in value:
        name, eq, val = str(item).partition("=")
        if not eq or not name:
            raise CheckError(f"env: {item!r} is not NAME=VALUE")
        out[name] = val
    return out


def build_options(opts: dict) -> ConvertOptions:
    """ConvertOptions from the option names of this module (as `convert` would build them)."""
    try:
        version = parse_version(str(opts.get("nginx_version") or "1.22"))
    except ValueError as exc:
        raise CheckError(str(exc)) from None
    missing = opts.get("missing_includes") or "error"
    if missing not in ("error", "warn"):
        raise CheckError(f"missing_includes must be error or warn, not {missing!r}")
    options = ConvertOptions(
        load=LoadOptions(server_root=opts.get("server_root"), defines=_defines(opts.get("defines") or []),
                         env=_env(opts.get("env") or []), modules=set(opts.get("modules") or ()),
                         without_modules=set(opts.get("without_modules") or ()), missing_includes=missing),
        nginx_version=version, source_comments=opts.get("source_comments", True),
        htaccess_dir=opts.get("htaccess_dir"))
    if opts.get("docroot"):
        directory, _, stands_for = str(opts["docroot"]).partition("=")
        if not Path(directory).is_dir():
            raise CheckError(f"docroot {directory} is not a directory")
        options.docroot, options.docroot_for = Path(directory), stands_for or None
    return options


def regenerate(apache: list[str], opts: dict) -> str:
    """The nginx text `convert APACHE... -o FILE` writes with these options; CheckError when it would fail."""
    options = build_options(opts)
    diags = Diagnostics()
    specs = gather_inputs(list(apache), diags)
    result = convert(specs, options, diags)
    if result.fatal:
        shown = render(diags.sorted(), "text", None, False) if len(diags) else ""
        raise CheckError(f"cannot convert {' '.join(apache)}:\n{shown}".rstrip())
    return "".join(result.outputs.values())


# ----------------------------------------------------------------------------- comparison

def _strip(block: list[dict]) -> list[dict]:
    out = []
    for d in block:
        item = {"directive": d["directive"], "args": list(d["args"])}
        if "block" in d:
            item["block"] = _strip(d["block"])
        out.append(item)
    return out


def normalize(text: str) -> tuple[list[dict], str]:
    """(directive tree, canonical text) of an nginx file as nginx reads it; ValueError when it does not parse."""
    payload = crossplane_parse_text(text, check=False)
    errors = payload.get("errors") or []
    if errors:
        first = errors[0]
        raise ValueError(f"line {first.get('line')}: {first.get('error')}")
    tree = _strip(payload["config"][0]["parsed"])
    canonical = crossplane.build(tree, indent=4) if tree else ""
    return tree, canonical + ("\n" if canonical else "")


def compare(committed: str | None, regenerated: str, nginx_name: str, apache_name: str) -> str:
    """The unified diff between a committed nginx text and the regenerated one ('' when in sync).

    Both are normalized first; a committed file that does not parse is compared as it is."""
    tree_new, new = normalize(regenerated)
    if committed is None:
        old, label = "", f"{nginx_name} (missing)"
    else:
        try:
            tree_old, old = normalize(committed)
        except ValueError as exc:
            old, label = committed, f"{nginx_name} (does not parse: {exc})"
        else:
            if tree_old == tree_new:
                return ""
            label = f"{nginx_name} (committed, normalized)"
    diff = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                fromfile=label, tofile=f"{nginx_name} (regenerated from {apache_name}, normalized)")
    text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    return text or f"--- {label}\n+++ regenerated\n"


def refused_target(pair: Pair, root: Path | None) -> str | None:
    """Why the pair's nginx file must not be written (or compared): it is one of its Apache inputs, or
    (with `root`, for pairs of a configuration file) it resolves outside the repository."""
    target = Path(pair.nginx).resolve()
    for apache in pair.apache:
        if Path(apache).resolve() == target:
            return f"nginx = {pair.nginx} is the Apache input {apache}"
    if root is not None:
        base = root.resolve()
        if target != base and base not in target.parents:
            return (f"nginx = {pair.nginx} resolves to {target}, outside the repository {base}; "
                    "a configuration file only names files inside it")
    return None


def check_pair(pair: Pair, fix: bool, root: Path | None = None) -> int:
    """Check (or with fix, rewrite) one pair; prints the diff on stdout and status on stderr.

    The nginx file is read as convert reads an input (parser.read_text): a device, pipe or socket is refused
    before it is opened (a FIFO blocked the open for ever, /dev/zero was read until memory ran out) and a
    file over the input limit is refused (A2N013, A2N011)."""
    apache_name = " ".join(pair.apache)
    refused = refused_target(pair, root)
    if refused:
        click.echo(f"apache2nginx check: refusing the pair: {refused}", err=True)
        return UNUSABLE
    try:
        regenerated = regenerate(pair.apache, pair.options)
    except CheckError as exc:
        click.echo(f"apache2nginx check: {exc}", err=True)
        return UNUSABLE
    target = Path(pair.nginx)
    committed: str | None = None
    if target.exists() or target.is_symlink():
        try:
            committed = read_text(target, errors="strict")
        except InputRefused as exc:
            click.echo(f"apache2nginx check: {pair.nginx}: error[{exc.code}]: {pair.nginx} {exc}", err=True)
            return UNUSABLE
        except (OSError, UnicodeDecodeError) as exc:
            click.echo(f"apache2nginx check: cannot read {pair.nginx}: {exc}", err=True)
            return UNUSABLE
    diff = compare(committed, regenerated, pair.nginx, apache_name)
    if not diff:
        return IN_SYNC
    if fix:
        try:
            write_atomic(target, regenerated)
        except OSError as exc:
            click.echo(f"apache2nginx check: cannot write {pair.nginx}: {exc}", err=True)
            return UNUSABLE
        click.echo(f"apache2nginx check: rewrote {pair.nginx} from {apache_name}", err=True)
        return IN_SYNC
    sys.stdout.write(diff)
    state = "is missing" if committed is None else "differs from"
    click.echo(f"apache2nginx check: {pair.nginx} {state} the conversion of {apache_name}; "
               f"run check with --fix to rewrite it", err=True)
    return DRIFT


# ----------------------------------------------------------------------------- configuration file

def repository_root(start: Path | None = None) -> Path:
    start = start or Path.cwd()
    try:
        proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.SubprocessError):
        return start
    top = proc.stdout.strip()
    return Path(top) if proc.returncode == 0 and top else start


def _options_of(table: dict, where: str) -> dict:
    out = {}
    for key, value in table.items():
        if key not in OPTION_KEYS:
            raise CheckError(f"{where}: unknown option {key!r} (known: {', '.join(sorted(OPTION_KEYS))})")
        if not isinstance(value, OPTION_KEYS[key]):
            raise CheckError(f"{where}: {key} has the wrong type ({type(value).__name__})")
        out[key] = value
    return out


def load_config(path: Path) -> list[Pair]:
    """The pairs of a .apache2nginx.toml, with their options merged (pair over [convert]).

    Paths stay as written: they are relative to the file's directory, where the caller runs them."""
    try:
        doc = tomllib.loads(read_text(path, errors="strict"))
    except InputRefused as exc:
        raise CheckError(f"{path}: error[{exc.code}]: {path} {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CheckError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CheckError(f"{path} is not valid TOML: {exc}") from None
    unknown = set(doc) - {"convert", "pair"}
    if unknown:
        raise CheckError(f"{path}: unknown table(s) {', '.join(sorted(unknown))} (expected [convert] and [[pair]])")
    common = _options_of(doc.get("convert", {}), f"{path} [convert]")
    pairs = []
    raw_pairs = doc.get("pair", [])
    if not isinstance(raw_pairs, list) or not raw_pairs:
        raise CheckError(f"{path} has no [[pair]] (apache = ..., nginx = ...)")
    for n, raw in enumerate(raw_pairs, 1):
        where = f"{path} pair {n}"
        raw = dict(raw)
        apache, nginx = raw.pop("apache", None), raw.pop("nginx", None)
        if isinstance(apache, str):
            apache = [apache]
        if not apache or not all(isinstance(a, str) for a in apache) or not isinstance(nginx, str):
            raise CheckError(f"{where}: needs apache = \"FILE\" (or a list) and nginx = \"FILE\"")
        own = _options_of(raw.pop("convert", {}), f"{where} [pair.convert]")
        own.update(_options_of(raw, where))
        pairs.append(Pair(apache, nginx, {**common, **own}))
    return pairs


# ----------------------------------------------------------------------------- the command

def _cli_options(nginx_version, defines, modules, without_modules, server_root, docroot, htaccess_dir,
                 source_comments, missing_includes, env=()) -> dict:
    """Only the options given on the command line (they override the configuration file)."""
    given = {"nginx_version": nginx_version, "defines": list(defines) or None, "env": list(env) or None,
             "modules": list(modules) or None,
             "without_modules": list(without_modules) or None, "server_root": server_root, "docroot": docroot,
             "htaccess_dir": htaccess_dir, "source_comments": source_comments, "missing_includes": missing_includes}
    return {k: v for k, v in given.items() if v is not None}


@click.command("check")
@click.argument("files", nargs=-1)
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help=f"Check the pairs of this file (default without a pair of arguments: {CONFIG_NAME} "
                   "at the repository root). File arguments are then ignored: every pair is checked.")
@click.option("--fix", is_flag=True, help="Rewrite each nginx file that drifted (atomically) instead of failing.")
@click.option("--nginx-version", default=None, help="The nginx version to generate for [default: 1.22].")
@click.option("--module", "modules", multiple=True, metavar="NAME", help="A module the Apache server loads.")
@click.option("--without-module", "without_modules", multiple=True, metavar="NAME",
              help="A module the Apache server does NOT load.")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]", help="A -D parameter or Define.")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE",
              help="A variable of the environment httpd starts with, over what envvars exports.")
@click.option("--server-root", default=None, help="Resolve relative Include paths here.")
@click.option("--missing-includes", type=click.Choice(["error", "warn"]), default=None,
              help="A missing Include stops the conversion (error, the default) or is skipped (warn).")
@click.option("--htaccess-dir", default=None, metavar="URLPATH", help="The input is a .htaccess for this URL path.")
@click.option("--docroot", default=None, metavar="DIR[=PATH]", help="Read every .htaccess under DIR, as convert does.")
@click.option("--source-comments/--no-source-comments", default=None,
              help="Source comments in what --fix writes (comments never count as drift) [default: on].")
def check_command(files, config_path, fix, nginx_version, modules, without_modules, defines, env, server_root,
                  missing_includes, htaccess_dir, docroot, source_comments):
    """Fail when an nginx file is not what `convert` makes of its Apache input now.

    \b
    apache2nginx check APACHE_INPUT NGINX_FILE   one pair, options from the command line
    apache2nginx check [--config FILE]           the pairs of .apache2nginx.toml (repository root)

    Both sides are compared as nginx parses them: whitespace, indentation and comments do not
    count. Drift is printed as a unified diff; exit 1 on drift, 2 on unusable input.
    With other than two file arguments (as pre-commit passes them), the configuration file is used.
    """
    cli = _cli_options(nginx_version, defines, modules, without_modules, server_root, docroot, htaccess_dir,
                       source_comments, missing_includes, env)
    if config_path is None and len(files) == 2:
        sys.exit(check_pair(Pair([files[0]], files[1], cli), fix))
    path = Path(config_path) if config_path else repository_root() / CONFIG_NAME
    if not path.is_file():
        click.echo(f"apache2nginx check: give APACHE_INPUT NGINX_FILE, or list the pairs in {path}", err=True)
        sys.exit(UNUSABLE)
    try:
        pairs = load_config(path)
    except CheckError as exc:
        click.echo(f"apache2nginx check: {exc}", err=True)
        sys.exit(UNUSABLE)
    # Paths in the file are relative to its directory: run there, as `convert` run from the root would.
    here = Path.cwd()
    os.chdir(path.resolve().parent)
    try:
        root = repository_root(Path.cwd())
        status = 0
        for pair in pairs:
            pair.options.update(cli)
            status = max(status, check_pair(pair, fix, root))
    finally:
        os.chdir(here)
    if status == IN_SYNC and not fix:
        click.echo(f"apache2nginx check: {len(pairs)} pair(s) in sync", err=True)
    sys.exit(status)
