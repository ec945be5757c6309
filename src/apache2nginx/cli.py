"""The command line: `apache2nginx` (and its short name `a2n`).

Exit codes: 0 success; 1 findings (convert: an unknown directive, an undefined
${VAR}, or with `--strict` any warning or error diagnostic; lint: a finding); 2 bad usage, or
input that cannot be read or parsed (nothing is written then). Diagnostics go to stderr; outputs go to stdout or are written
atomically with `-o`/`--out-dir`.
"""
from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path

import click

from . import __version__
from .codes import CODES
from .convert import ConvertOptions, convert, gather_inputs, is_htaccess_name, parse_version
from .diagnostics import Diagnostics, Severity, SourceCache, hidden_line, render, render_report
from .emit.tree import leftovers
from .fileio import Link, OutputError, write_all, write_atomic
from .sites import file_rows, site_table
from .syntax.loader import LoadOptions
from .syntax.span import Span
from .syntax.parser import DEFAULT_MAX_INPUT, read_text

FORMATS = click.Choice(["text", "json", "sarif"])


def _colour(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    return sys.stderr.isatty()


def _emit_diagnostics(diags: Diagnostics, fmt: str, colour: bool, sources: SourceCache | None = None) -> None:
    items = diags.sorted()
    if fmt == "text" and not items:
        return
    sys.stderr.write(render(items, fmt, sources, colour))


MAIN_EPILOG = """\b
Examples:
  apache2nginx convert /etc/apache2/apache2.conf -o nginx.conf
  apache2nginx lint nginx.conf
  apache2nginx check apache.conf nginx.conf
  apache2nginx verify apache.conf --requests requests.txt
  apache2nginx explain A2N960

\b
Shell completion (commands, options, choices; also for the short name a2n):
  bash: eval "$(_APACHE2NGINX_COMPLETE=bash_source apache2nginx)"   in ~/.bashrc
  zsh:  eval "$(_APACHE2NGINX_COMPLETE=zsh_source apache2nginx)"    in ~/.zshrc
  fish: _APACHE2NGINX_COMPLETE=fish_source apache2nginx | source    in ~/.config/fish/completions/apache2nginx.fish
  (for a2n use _A2N_COMPLETE=..._source a2n)"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=MAIN_EPILOG)
@click.version_option(__version__, prog_name="apache2nginx")
def main() -> None:
    """Migrate Apache httpd configurations to nginx, reporting every divergence.

    Each command has examples in its --help; `apache2nginx explain CODE` explains a diagnostic.
    """


def _world_readable(path: Path) -> bool:
    """Can an unprivileged worker reach `path` (x on every directory above it, r+x on it)?"""
    import os
    import stat
    path = path.resolve()
    for parent in list(path.parents)[:-1]:
        if not os.stat(parent).st_mode & stat.S_IXOTH:
            return False
    mode = os.stat(path).st_mode
    return bool(mode & stat.S_IROTH and mode & stat.S_IXOTH)


def _defines(values: tuple[str, ...]) -> dict[str, str | None]:
    """--define NAME=VALUE is `Define NAME VALUE`; NAME alone is httpd's -D NAME (for <IfDefine> only)."""
    out: dict[str, str | None] = {}
    for v in values:
        name, eq, value = v.partition("=")
        out[name] = value if eq else None
    return out


def _env(values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for v in values:
        name, eq, value = v.partition("=")
        if not eq or not name:
            raise click.BadParameter(f"{v!r} is not NAME=VALUE", param_hint="--env")
        out[name] = value
    return out


CONVERT_EPILOG = """\b
Examples:
  apache2nginx convert /etc/apache2/apache2.conf -o /etc/nginx/nginx.conf
  apache2nginx convert /etc/apache2/apache2.conf --out-dir out && nginx -t -p out -c nginx.conf
  apache2nginx convert /etc/apache2/sites-enabled/ --out-dir /etc/nginx/conf.d
  apache2nginx convert site.conf --module ssl --define PRODUCTION --strict
  apache2nginx convert /etc/httpd/conf/httpd.conf --env APP_ROOT=/srv/app -o nginx.conf
  apache2nginx convert site.conf --format json > translation.json
  apache2nginx convert site.conf --diagnostics sarif -o nginx.conf 2> convert.sarif
  apache2nginx convert /etc/apache2/apache2.conf -o nginx.conf --quiet
  apache2nginx convert /etc/apache2/apache2.conf -o nginx.conf --severity warning --no-group
  apache2nginx convert public/.htaccess --htaccess-dir /blog
  cat vhost.conf | apache2nginx convert - --no-source-comments

\b
On stderr: the diagnostics (a code repeating many times as one entry with its
count and first locations), a table of the sites (files with virtual hosts)
when several files were read, and the tally of what the directives became.

\b
Exit status: 0 converted; 1 an unknown directive, a syntax error or an
undefined ${VAR} (with --strict: any warning or error); 2 bad usage or
unreadable input."""


@main.command(epilog=CONVERT_EPILOG)
@click.argument("inputs", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the nginx configuration to FILE.")
@click.option("--out-dir", type=click.Path(file_okay=False),
              help="Write into DIR: for a whole server (apache2.conf, httpd.conf) an nginx tree to install as "
                   "/etc/nginx; for site files one nginx file per input.")
@click.option("--layout", type=click.Choice(["debian", "rhel", "flat", "fragments"]),
              help="With --out-dir: debian (nginx.conf, conf.d/, sites-available/, sites-enabled/), rhel "
                   "(nginx.conf, conf.d/), flat (nginx.conf and the files it includes), or fragments (one file per "
                   "input and a shared one, for an existing nginx's conf.d). Default: the input's own layout "
                   "for a whole server, fragments otherwise.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: nginx configuration; json: outputs, diagnostics and summary as one JSON document.")
@click.option("--diagnostics", "diag_format", type=FORMATS, default="text", show_default=True,
              help="How diagnostics are printed on stderr (json and sarif list every one, whatever --severity).")
@click.option("--severity", "threshold", type=click.Choice(["error", "warning", "info"]), default=None,
              help="The lowest severity of the diagnostics printed as text (default: info; error with --quiet).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print only the errors (as --severity error; a grouped entry as its one line), the sites "
                   "with errors and the tally.")
@click.option("--group/--no-group", "grouped", default=True, show_default=True,
              help="Print a code repeating many times (infos: more than 3, others: more than 10) as one entry "
                   "with its count and first locations; --no-group prints every one.")
@click.option("--nginx-version", default="1.22", show_default=True, help="The nginx version to generate for.")
@click.option("--strict", is_flag=True, help="Exit 1 when any warning or error diagnostic is reported.")
@click.option("--module", "modules", multiple=True, metavar="NAME",
              help="A module the Apache server loads (for <IfModule>), e.g. ssl or mod_ssl.c.")
@click.option("--without-module", "without_modules", multiple=True, metavar="NAME",
              help="A module the Apache server does NOT load, taken out of the default profile.")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]",
              help="A -D parameter (NAME, for <IfDefine>) or Define (NAME=VALUE, also for ${NAME}) of the Apache "
                   "server.")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE",
              help="A variable of the environment httpd starts with (for ${NAME}), over what envvars exports.")
@click.option("--server-root", type=click.Path(file_okay=False), help="Resolve relative Include paths here.")
@click.option("--missing-includes", type=click.Choice(["error", "warn"]), default="error", show_default=True,
              help="A missing Include stops the conversion (error) or is reported and skipped (warn).")
@click.option("--htaccess-dir", metavar="URLPATH",
              help="The input is a .htaccess governing this URL path (detected for files named .htaccess: /).")
@click.option("--docroot", metavar="DIR[=PATH]",
              help="Read every .htaccess under DIR that httpd would honour; DIR stands for the DocumentRoot PATH "
                   "(default: the configuration's DocumentRoot).")
@click.option("--jobs", type=int, default=0, show_default=True,
              help="Worker processes for reading many inputs, checking many outputs and reading large .htaccess "
                   "trees (0: every core).")
# read(max + 1) takes an index-sized integer: a larger bound raised OverflowError (an internal error)
@click.option("--max-input-size", type=click.IntRange(max=sys.maxsize - 1), default=DEFAULT_MAX_INPUT,
              show_default=True,
              help="Refuse input files larger than this many bytes.")
@click.option("--source-comments/--no-source-comments", default=True, show_default=True,
              help="Mark emitted lines with the Apache file:line they come from.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
def convert_cmd(inputs, output, out_dir, layout, out_format, diag_format, threshold, quiet, grouped, nginx_version,
                strict, modules, without_modules, defines, env, server_root, missing_includes, htaccess_dir, docroot,
                jobs, max_input_size, source_comments, color):
    """Translate Apache configuration INPUTS (files, directories, or - for stdin) to nginx."""
    if output and out_dir:
        raise click.UsageError("use either -o/--output or --out-dir, not both")
    if layout and not out_dir:
        raise click.UsageError("--layout goes with --out-dir")
    try:
        version = parse_version(nginx_version)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--nginx-version")
    diags = Diagnostics()
    # read no more than the cap allows: an endless stream (< /dev/zero) grew without bound before the check
    stdin = sys.stdin.buffer.read(max_input_size + 1) if "-" in inputs else None
    specs = gather_inputs(list(inputs), diags, stdin)
    options = ConvertOptions(
        load=LoadOptions(server_root=server_root, defines=_defines(defines), modules=set(modules), without_modules=set(without_modules),
                         missing_includes=missing_includes, max_input_size=max_input_size, env=_env(env)),
        nginx_version=version, source_comments=source_comments, split_outputs=bool(out_dir), layout=layout,
        htaccess_dir=htaccess_dir, jobs=max(jobs, 0))
    if docroot:
        directory, _, stands_for = docroot.partition("=")
        if not Path(directory).is_dir():
            raise click.BadParameter(f"{directory} is not a directory", param_hint="--docroot")
        options.docroot, options.docroot_for = Path(directory), stands_for or None
        options.progress = click.progressbar if sys.stderr.isatty() else None
    sources = SourceCache()
    if stdin is not None:
        sources.remember("<stdin>", stdin.decode("utf-8", "replace"))
    result = convert(specs, options, diags)
    # What convert built lives until this process exits: the collector need not walk it again (several
    # full passes over millions of objects while the report is sorted and written, a tenth of the run)
    gc.freeze()
    colour = _colour(color)

    files: list[tuple[Path, str | Link]] = []
    stale: list[Path] = []
    if not result.fatal and output:
        files = [(Path(output), "".join(result.outputs.values()))]
    elif not result.fatal and out_dir and result.tree is not None:
        files = [(Path(out_dir) / name, text) for name, text in result.tree.files.items()]
        stale = _leftovers(Path(out_dir), result.tree, diags)
    elif not result.fatal and out_dir:
        files = [(Path(out_dir) / name, text) for name, text in result.outputs.items()]
    rows = file_rows(result.tally, diags, result.config)
    if out_format == "json":
        doc = {"output": {} if result.fatal else result.outputs,
               "diagnostics": [d.to_json() for d in diags.sorted()],
               "summary": result.tally.summary(),
               "files": [r.to_json() for r in rows]}
        _write_outputs(files, specs, result, stale, Path(out_dir) if out_dir else None)
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        if diag_format == "text":
            level = Severity(threshold or ("error" if quiet else "info"))
            sys.stderr.write(render_report(diags.sorted(), sources, colour, severity=level, grouped=grouped,
                                           detail=not quiet))
        else:
            _emit_diagnostics(diags, diag_format, colour, sources)
        if not result.fatal:
            if files:
                _write_outputs(files, specs, result, stale, Path(out_dir) if out_dir else None)
            else:
                sys.stdout.write("".join(result.outputs.values()))
        if diag_format == "text":
            sys.stderr.write(site_table(rows, quiet=quiet))
            hidden = hidden_line(diags, level)
            if hidden:
                sys.stderr.write(hidden + "\n")
            sys.stderr.write(("conversion failed: no output written. " if result.fatal else "")
                             + result.tally.line() + "\n")
    if result.fatal:
        sys.exit(2)
    if (strict and diags.at_least(Severity.WARNING)) or any(d.code in ("A2N001", "A2N022", "A2N100") for d in diags):
        # A syntax error or an unknown directive is a finding even without --strict: httpd refuses it too. So is
        # an undefined ${VAR}: its directive could not be translated.
        sys.exit(1)


convert_cmd.name = "convert"


def _leftovers(out_dir: Path, tree, diags: Diagnostics) -> list[Path]:
    """Files of an earlier run that this tree no longer has (removed once the tree is written), and a
    warning for each file in an included place that apache2nginx did not write."""
    stale, foreign = leftovers(out_dir, tree)
    for path in stale:
        diags.add("A2N016", f"{path}: written by an earlier run for a site or file that is gone; removed",
                  Span.point(str(path)))
    for path in foreign:
        diags.add("A2N017", f"{path}: not written by apache2nginx, and nginx.conf includes it with the tree",
                  Span.point(str(path)))
    return stale


def _write_outputs(files: list[tuple[Path, str | Link]], specs, result, stale: list[Path] = (),
                   root: Path | None = None) -> None:
    """Write every output or none; a target that cannot be written, or that is one of the Apache files
    read, is a usage error (exit 2) with a plain message. `stale` files go once all are written."""
    if not files:
        return
    read = {spec.path for spec in specs if spec.path is not None}
    if result.config is not None:
        read.update(Path(name) for name in result.config.files)
    inputs = {p.resolve(): p for p in read if p.exists()}
    for target, _ in files:
        hit = inputs.get(target.resolve())
        if hit is not None:
            click.echo(f"apache2nginx: refusing to write {target}: it is the Apache file {hit} this conversion "
                       "reads; no output was written", err=True)
            sys.exit(2)
    try:
        write_all(files, root)
    except OutputError as exc:
        click.echo(f"apache2nginx: {exc}; no output was written", err=True)
        sys.exit(2)
    for path in stale:
        try:
            path.unlink()
        except OSError as exc:
            click.echo(f"apache2nginx: cannot remove {path}: {exc.strerror or exc}", err=True)


VERIFY_EPILOG = """\b
Examples:
  apache2nginx verify apache.conf
  apache2nginx verify apache.conf --requests requests.txt
  apache2nginx verify apache.conf --access-log /var/log/apache2/access.log --format json
  apache2nginx verify apache.conf --access-log access.log --all --concurrency 32
  apache2nginx verify apache.conf --nginx nginx.conf --docroot /srv/www
  apache2nginx verify apache.conf --down backend.internal:8080 --ignore-header Date

\b
A requests file has one request a line: METHOD URL [Header:value]...
  GET /api/v1/users
  POST /login Content-Type:application/x-www-form-urlencoded

\b
Exit status: 0 every difference explained; 1 an unexplained difference, a
WIDENED ACCESS or LOST SECURITY HEADER (never explained), or more explained
requests than --max-explained allows; 2 bad usage, unreadable input, or no
apache2/nginx binary."""


@main.command(epilog=VERIFY_EPILOG)
@click.argument("apache_input")
@click.option("--nginx", "nginx_file", type=click.Path(dir_okay=False, exists=True),
              help="Verify this nginx file (hand-written or edited) instead of the translation.")
@click.option("--requests", "requests_file", type=click.Path(dir_okay=False, exists=True),
              help="Requests to replay, one a line: METHOD URL [Header:value]...")
@click.option("--access-log", type=click.Path(dir_okay=False, exists=True),
              help="Replay the requests of an Apache common/combined access log: each distinct request once, "
                   "at most 5000 of them chosen across hosts, status classes and paths (see --all).")
@click.option("--all", "replay_all", is_flag=True, help="Replay every distinct request of --access-log.")
@click.option("--concurrency", type=click.IntRange(1, 256), default=None, metavar="N",
              help="Requests in flight at once (fewer where a server's limits would queue or refuse them). "
                   "Default: 16 when replaying --access-log, else 1.")
@click.option("--docroot", type=click.Path(file_okay=False, exists=True),
              help="Serve this tree as every document root instead of a synthesised one (a path under a "
                   "document root is its place in the tree; an Alias target outside them stays synthesised).")
@click.option("--down", multiple=True, metavar="HOST:PORT", help="A backend that should fail (no listener).")
@click.option("--ignore-header", multiple=True, metavar="NAME", help="A response header not to compare.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--apache", "apache_path", help="The httpd binary (default: apache2 or httpd on $PATH).")
@click.option("--nginx-bin", "nginx_path", help="The nginx binary (default: nginx on $PATH or /usr/sbin/nginx).")
@click.option("--module", "modules", multiple=True, metavar="NAME")
@click.option("--define", "defines", multiple=True, metavar="NAME[=VALUE]")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE",
              help="A variable of the environment httpd starts with (for ${NAME}), over what envvars exports.")
@click.option("--server-root", type=click.Path(file_okay=False))
@click.option("--htaccess-dir", metavar="URLPATH", help="The input is a .htaccess governing this URL path.")
@click.option("--nginx-version", default="1.22", help="Accepted for symmetry with convert; verify runs the local nginx.")
@click.option("--max-explained", type=click.FloatRange(0, 100), metavar="PERCENT",
              help="Fail (exit 1) when more than PERCENT of the compared requests differ with an explanation.")
def verify(apache_input, nginx_file, requests_file, access_log, replay_all, concurrency, docroot, down,
           ignore_header, out_format, apache_path, nginx_path, modules, defines, env, server_root, htaccess_dir,
           nginx_version, max_explained):
    """Run real httpd on APACHE_INPUT and real nginx on its translation side by side on loopback, replay the
    same requests, and report every difference; exit 1 on any difference no diagnostic explains."""
    import tempfile
    from .lint.sandbox import find_nginx
    from .verify import probes as probe_mod
    if replay_all and not access_log:
        raise click.UsageError("--all replays every distinct request of --access-log, which is not given")
    from .verify.report import Progress, text_report
    from .verify.run import find_apache, verify as run_verify
    diags = Diagnostics()
    specs = gather_inputs([apache_input], diags)
    options = ConvertOptions(load=LoadOptions(server_root=server_root, defines=_defines(defines),
                                              modules=set(modules), missing_includes="warn", env=_env(env)),
                             htaccess_dir=htaccess_dir,
                             docroot=Path(docroot) if docroot and nginx_file is None else None)
    if docroot and not _world_readable(Path(docroot)):
        click.echo(f"apache2nginx: warning: {docroot} (or a directory above it) is not readable by other users; "
                   "the servers' workers will refuse every request in it, on both sides", err=True)
    result = convert(specs, options, diags)
    if htaccess_dir is None and is_htaccess_name(Path(apache_input).name):
        htaccess_dir = "/"
    if result.fatal or result.config is None:
        _emit_diagnostics(diags, "text", _colour("auto"))
        sys.exit(2)
    apache_bin, nginx_bin = find_apache() if not apache_path else apache_path, find_nginx(nginx_path)
    if not apache_bin or not nginx_bin:
        click.echo(f"apache2nginx: verify needs both servers: "
                   f"{'apache2 ' if not apache_bin else ''}{'nginx' if not nginx_bin else ''} not found", err=True)
        sys.exit(2)
    probes = probe_mod.generate(result.config)
    vhosts = probe_mod.vhosts_of(result.config)
    default_port = vhosts[0].ports[0] if vhosts and vhosts[0].ports else 80
    default_host = vhosts[0].names[0] if vhosts else "localhost"
    if requests_file:
        try:
            probes += probe_mod.parse_request_file(read_text(requests_file), default_port)
        except (OSError, probe_mod.RequestLineError) as exc:
            raise click.BadParameter(f"{requests_file}: {exc}", param_hint="--requests") from None
    log_report = None
    if access_log:
        schemes = {}
        for vh in vhosts:
            for port in vh.ports:
                schemes[port] = "https" if vh.ssl or schemes.get(port) == "https" else "http"
        try:
            log_text = read_text(access_log)
        except OSError as exc:
            raise click.BadParameter(f"{access_log}: {exc}", param_hint="--access-log") from None
        log = probe_mod.read_access_log(log_text, default_host, default_port, schemes.get(default_port, "http"),
                                        schemes)
        cap = None if replay_all else probe_mod.DEFAULT_REPLAY_CAP
        chosen = log.select(cap)
        probes += chosen
        log_report = log.report(len(chosen), cap)
    progress = Progress()
    with tempfile.TemporaryDirectory(prefix="a2n-verify-src-") as tmp:
        target = nginx_file
        if target is None:
            target = str(Path(tmp) / "nginx.conf")
            Path(target).write_text("".join(result.outputs.values()))
        try:
            outcome = run_verify(result.config, target, probes, list(diags), apache_bin, nginx_bin, docroot,
                                 set(down), explain=nginx_file is None, ignored_headers={h.lower() for h in
                                                                                         ignore_header},
                                 htaccess_dir=htaccess_dir, progress=progress,
                                 concurrency=concurrency or (16 if access_log else 1))
        except (RuntimeError, OSError) as exc:
            progress.close()
            click.echo(f"apache2nginx: verify could not run the servers: {exc}", err=True)
            sys.exit(2)
    progress.close()
    outcome.access_log = log_report
    stats = outcome.summary()
    if out_format == "json":
        doc = {"summary": stats, "replay": outcome.replay_info(), "notes": outcome.notes,
               "differences": [d.to_json() for d in outcome.differences]}
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        click.echo(text_report(outcome.differences, stats, outcome.notes, replay=outcome.replay_info()))
    too_many = max_explained is not None and stats["explained_share"] > max_explained
    if too_many:
        click.echo(f"apache2nginx: {stats['explained_share']}% of the requests were explained, more than "
                   f"--max-explained {max_explained:g}%", err=True)
    sys.exit(1 if outcome.unexplained or too_many else 0)


EXPLAIN_EPILOG = """\b
Examples:
  apache2nginx explain A2N960
  apache2nginx explain a2n101
  apache2nginx explain | grep error"""


@main.command(epilog=EXPLAIN_EPILOG)
@click.argument("code", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every code (the default without CODE).")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: each code with its severity, title and the differences it can explain in verify.")
def explain(code: str | None, list_all: bool, out_format: str) -> None:
    """Explain diagnostic CODE (or list every code), with the differences it can explain in verify."""
    from .codes import explains
    from .effects import declaration_json, describe_effects
    if list_all or not code:
        if out_format == "json":
            doc = [{"code": i.code, "severity": i.severity, "title": i.summary,
                    "explains": declaration_json(i.code)} for i in CODES.values()]
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
            return
        for info in CODES.values():
            click.echo(f"{info.code}  {info.severity:<7}  {info.summary}")
        return
    info = CODES.get(code.upper())
    if info is None:
        click.echo(f"apache2nginx: unknown code {code}; `apache2nginx explain` lists them", err=True)
        sys.exit(2)
    declared = explains(info.code)
    if out_format == "json":
        sys.stdout.write(json.dumps({"code": info.code, "severity": info.severity, "title": info.summary,
                                     "explain": info.explain, "hint": info.hint,
                                     "explains": declaration_json(info.code)}, indent=2) + "\n")
        return
    click.echo(f"{info.code} ({info.name}, {info.severity}): {info.summary}\n")
    click.echo(info.explain)
    click.echo("\nIn verify, it can explain: " + (describe_effects(declared) if declared else
                                                   "no difference (it does not change what a client sees)"))


LINT_EPILOG = """\b
Examples:
  apache2nginx lint /etc/nginx/nginx.conf
  apache2nginx lint --diagnostics sarif -o lint.sarif nginx/*.conf
  apache2nginx lint --severity error --no-gixy site.conf
  apache2nginx lint --source-root apache/ --gixy ~/.local/bin/gixy nginx.conf
  A2N_GIXY=/opt/gixy/bin/gixy apache2nginx lint --gixy-skip version_disclosure nginx.conf

\b
Exit status: 0 no finding at or above --severity; 1 findings; 2 bad usage,
an unreadable file, or no nginx binary."""


@main.command(epilog=LINT_EPILOG)
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--nginx", "nginx_path", help="The nginx binary (default: nginx on $PATH or /usr/sbin/nginx).")
@click.option("--gixy", "gixy_path", metavar="PATH",
              help="The gixy (gixy-ng) program (default: $A2N_GIXY, else gixy on $PATH; skipped when none).")
@click.option("--no-gixy", is_flag=True, help="Do not run gixy even when it is installed.")
@click.option("--gixy-skip", "gixy_skips", multiple=True, metavar="PLUGIN",
              help="A gixy check not to run, e.g. version_disclosure (repeatable).")
@click.option("--source-root", type=click.Path(file_okay=False),
              help="Where the Apache files named in source comments (# apache.conf:42) are "
                   "(default: beside the nginx file, then the working directory).")
@click.option("--prefix", "conf_prefix", type=click.Path(file_okay=False),
              help="Where relative include paths resolve, as nginx's configuration prefix (default: the directory "
                   "of each FILE).")
@click.option("--allow-include", "allow_include", multiple=True, type=click.Path(file_okay=False), metavar="DIR",
              help="A directory includes may also read (repeatable; default: only FILE's directory tree, --prefix "
                   "and /etc/nginx).")
@click.option("--diagnostics", "diag_format", type=FORMATS, default="text", show_default=True,
              help="How findings are printed (on stderr, or to --output).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the findings to FILE instead of stderr.")
@click.option("--severity", "threshold", type=click.Choice(["info", "warning", "error"]), default="warning",
              show_default=True, help="Report findings of this severity and above; exit 1 when there is any.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
def lint(files, nginx_path, gixy_path, no_gixy, gixy_skips, source_root, conf_prefix, allow_include, diag_format,
         output, threshold, color):
    """Check nginx configuration FILES: the real `nginx -t` in a sandbox, structural checks for the mistakes a
    migration makes (lost add_header, alias traversal, if in location, upstreams without keep-alive, variables
    in proxy_pass without a resolver, prefixes wider than the Apache section they come from), and gixy's
    security checks when gixy is installed."""
    from .lint.gixy import find_gixy
    from .lint.run import LintOptions, lint_file
    from .lint.sandbox import find_nginx
    from .syntax.span import Span
    diags = Diagnostics()
    nginx = find_nginx(nginx_path)
    if nginx is None:
        diags.add("A2N902", "nginx not found" + (f" at {nginx_path}" if nginx_path else ""), Span.point(files[0]))
        _lint_report(diags, diag_format, output, color)
        sys.exit(2)
    gixy = None
    if not no_gixy:
        gixy = find_gixy(gixy_path)
        if gixy_path and gixy is None:
            raise click.BadParameter(f"{gixy_path} is not a program", param_hint="--gixy")
    options = LintOptions(nginx=nginx, gixy=gixy, gixy_skips=tuple(gixy_skips), source_root=source_root,
                          prefix=conf_prefix, allow_include=tuple(allow_include))
    for f in files:
        lint_file(f, options, diags)
    level = Severity(threshold)
    shown = Diagnostics()
    shown.extend(d for d in diags if d.severity.rank >= level.rank or d.code == "A2N013")
    _lint_report(shown, diag_format, output, color)
    if options.unreadable:
        sys.exit(2)
    if len(shown):
        sys.exit(1)


def _lint_report(diags: Diagnostics, fmt: str, output: str | None, color: str) -> None:
    if output:
        try:
            write_atomic(output, render(diags.sorted(), fmt, None, False))
        except OutputError as exc:
            click.echo(f"apache2nginx: {exc}", err=True)
            sys.exit(2)
    else:
        _emit_diagnostics(diags, fmt, _colour(color))


def run() -> None:
    """Entry point: an unexpected error is reported as a bug, never as a traceback."""
    # `python -m apache2nginx` is the same program: same usage line, same completion variable.
    prog = "apache2nginx" if Path(sys.argv[0]).name == "__main__.py" else None
    try:
        # Not click's standalone mode: it turns Ctrl-C into "Aborted!" and exit 1, drift's exit code.
        code = main.main(prog_name=prog, standalone_mode=False)
    except SystemExit:
        raise
    except (KeyboardInterrupt, click.exceptions.Abort):
        _interrupted()
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except RecursionError:
        sys.stderr.write("apache2nginx: the input is nested too deeply to convert; no output was written\n")
        sys.exit(2)
    except MemoryError:
        sys.stderr.write("apache2nginx: out of memory converting the input; no output was written\n")
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        sys.stderr.write(f"apache2nginx: internal error: {type(exc).__name__}: {exc}\n"
                         "This is a bug in apache2nginx, not in your input; no output was written. "
                         "Please report it with the input that caused it.\n")
        sys.exit(2)
    else:
        sys.exit(code if isinstance(code, int) else 0)


def _interrupted() -> None:
    try:
        sys.stderr.write("apache2nginx: interrupted; no output was written\n")
        sys.stderr.flush()
    finally:
        os._exit(130)   # at once: no worker process or atexit handler may print a traceback after this


if __name__ == "__main__":  # pragma: no cover
    run()
from .check import check_command  # noqa: E402  (registered last: check.py does not import cli)
main.add_command(check_command)
