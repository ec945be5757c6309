"""Loading a configuration the way httpd reads it at startup.

Owns the config-time constructs that httpd executes while reading
(EXEC_ON_READ): Include/IncludeOptional (globs, directories, relative to
ServerRoot, loop detection), Define/UnDefine and `${VAR}`, LoadModule and
ServerRoot as they affect later lines, and the conditional sections
`<IfModule>`, `<IfDefine>`, `<IfVersion>`, `<IfFile>`, `<IfDirective>`,
`<IfSection>`, and mod_macro's `<Macro>`/`Use`/`UndefMacro`. The result is
one tree of the directives that take effect, each keeping the span of the
file it came from (an expanded macro's directives point into the macro body).
"""
from __future__ import annotations

import gc
import glob
import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import catalogue
from ..diagnostics import Diagnostics, Severity
from .modules import ModuleProfile, module_id
from .parser import (DEFAULT_MAX_INPUT, HUGE_NUMBER, MAX_DIGITS, MAX_NESTING, parse_bytes, parse_file, parse_text,
                     read_text)
from .span import Span
from .tree import Directive, Node, Section

MAX_INCLUDE_DEPTH = 64
MAX_INCLUDE_MATCHES = 4096   # files one Include may name under directories it names (walked recursively)
MAX_GLOB_MATCHES = 65536     # names one Include's glob may match (one file per site: mass hosting has thousands)
MAX_TOTAL_FACTOR = 4         # an input with all it includes: at most this many times --max-input-size bytes
MAX_EXPANDED_ARG = 1 << 16   # characters of one argument after ${VAR} substitution
DEFAULT_APACHE_VERSION = (2, 4, 62)
MACRO_CHARS_PER_WORD = 128   # macro expansions may hold at most --max-input-size / this many words (512 Ki by default)
_WORD = re.compile(r"\S+")
MAX_UNBOUNDED_REPEATS = 8    # of one regular expression run by Python's re (no match limit) when PCRE2 is missing

# Debian's /etc/apache2/envvars, which apache2ctl exports before httpd reads its config: the environment
# assumed for an input with no envvars file beside it and no other distribution's layout (a site file alone).
DEBIAN_ENVVARS = {
    "APACHE_RUN_USER": "www-data", "APACHE_RUN_GROUP": "www-data",
    "APACHE_PID_FILE": "/var/run/apache2/apache2.pid", "APACHE_RUN_DIR": "/var/run/apache2",
    "APACHE_LOCK_DIR": "/var/lock/apache2", "APACHE_LOG_DIR": "/var/log/apache2",
    "APACHE_ULIMIT_MAX_FILES": "ulimit -n 65536", "LANG": "C",
}

CONDITIONALS = {"ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"}
CONSUMED = {"include", "includeoptional", "define", "undefine"}
MACRO_DIRECTIVES = {"use", "undefmacro", "macroignoreemptyargs", "macroignorebadnesting"}
_MACRO_FLAGS = ("/ignoreemptyargs", "/ignorebadnesting")

_VAR = re.compile(r"\$\{([^}]*)\}")
_SHELL_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_ENVVAR_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _closed(text: str) -> tuple[str, str]:
    """TEXT up to its last `}`, and the rest: no ${NAME} ends in the rest, where _VAR would scan from every
    `${` to the end of the text (quadratic in a value of unclosed `${`, as a Define doubling one builds)."""
    end = text.rfind("}") + 1
    return text[:end], text[end:]


@dataclass
class LoadOptions:
    server_root: str | None = None
    # --define: NAME=VALUE is `Define NAME VALUE`; NAME alone (None) is httpd's -D NAME, for <IfDefine> only
    defines: dict[str, str | None] = field(default_factory=dict)
    # --env: variables of the environment httpd starts with, over what envvars exports
    env: dict[str, str] = field(default_factory=dict)
    env_only: bool = False                   # `env` is the whole environment: no envvars file or default read
    modules: set[str] = field(default_factory=set)
    without_modules: set[str] = field(default_factory=set)
    missing_includes: str = "error"          # or "warn"
    max_input_size: int = DEFAULT_MAX_INPUT
    apache_version: tuple[int, int, int] = DEFAULT_APACHE_VERSION


@dataclass
class LoadedConfig:
    """The directives that take effect, plus what loading learned on the way."""

    name: str
    children: list[Node]
    files: list[str]
    lines: int
    profile: ModuleProfile
    defines: dict[str, str]          # the Define'd variables with a value, as they stand at the end
    consumed: list[Directive]        # config-time directives resolved while loading
    skipped: int = 0                 # directives inside false conditionals
    full_server_config: bool = False  # the input is a whole server config, not a site file
    locate: Callable[[str], Path | None] | None = None  # a file the config names (map files), found as httpd would
    server_root: str | None = None    # the ServerRoot the input names (relative file names are under it)
    env: dict[str, str] = field(default_factory=dict)   # the environment ${VAR} was resolved in
    undefined: set[str] = field(default_factory=set)    # the ${NAME}s left undefined where they landed


    def walk(self):
        stack = [iter(self.children)]
        while stack:
            for node in stack[-1]:
                yield node
                if node.is_section:
                    stack.append(iter(node.children))
                    break
            else:
                stack.pop()


def _walk_files(root: Path, limit: int) -> list[Path]:
    """The files under `root` in os.walk's order (each directory's files by name, then its subdirectories
    by name; symbolic links to directories are not followed), at most `limit` of them. Iterative: a
    directory tree of any depth is no recursion."""
    out: list[Path] = []
    stack = [str(root)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not entry.is_symlink():
                    subdirs.append(entry.path)
                continue
            out.append(Path(entry.path))
            if len(out) >= limit:
                return out
        stack.extend(reversed(subdirs))
    return out


def display_path(path: Path) -> str:
    """How a file is named in diagnostics and source comments: relative to the working directory when it
    lies below it (so outputs do not depend on where a checkout lives), else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


@dataclass
class _Macro:
    """A `<Macro name $a $b>` definition: its body as raw lines, as mod_macro keeps it."""

    name: str                   # as written (httpd compares names case-insensitively)
    params: list[str]
    lines: list[str]
    file: str
    first_line: int             # the source line of lines[0]
    span: Span                  # the <Macro ...> opener
    chain: tuple[Span, ...]     # the Use lines a definition inside an expansion came through

    @property
    def where(self) -> str:
        return f"macro '{self.name.lower()}' (defined on line {self.span.line} of {self.span.file})"

    def expand(self, values: list[str]) -> tuple[list[str], dict[int, list[tuple[int, int, int, int]]]]:
        """mod_macro's substitution: on each line, repeatedly the leftmost parameter name (the longest
        one where several start there) is replaced by its value, scanning on after the value; a
        parameter spelt `@name` is replaced by the value in double quotes, `"` and `\\` escaped.
        Returns the lines and, per changed line, (expanded start, expanded end, source start,
        source end) columns of each replacement."""
        if not self.params:
            return self.lines, {}
        order = sorted(range(len(self.params)), key=lambda i: -len(self.params[i]))
        pattern = re.compile("|".join(re.escape(self.params[i]) for i in order))
        repl = {}
        for name, value in zip(self.params, values):
            if name.startswith("@"):
                value = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            repl[name] = value
        out: list[str] = []
        maps: dict[int, list[tuple[int, int, int, int]]] = {}
        for i, line in enumerate(self.lines):
            if pattern.search(line) is None:
                out.append(line)
                continue
            pieces: list[str] = []
            segs: list[tuple[int, int, int, int]] = []
            pos = exp = 0
            for m in pattern.finditer(line):
                pieces.append(line[pos:m.start()])
                exp += m.start() - pos
                value = repl[m.group()]
                segs.append((exp + 1, exp + 1 + len(value), m.start() + 1, m.end() + 1))
                pieces.append(value)
                exp += len(value)
                pos = m.end()
            pieces.append(line[pos:])
            out.append("".join(pieces))
            maps[i] = segs
        return out, maps


def _map_column(segs: list[tuple[int, int, int, int]] | None, col: int, end: bool = False) -> int:
    """A column of an expanded line back on the macro body's source line."""
    if not segs:
        return col
    shift = 0
    for exp_start, exp_end, src_start, src_end in segs:
        if col < exp_start:
            break
        if col < exp_end or (end and col == exp_end):
            return src_end if end else src_start
        shift = exp_end - src_end
    return col - shift


class _Loader:
    def __init__(self, name: str, base_dir: Path, options: LoadOptions, diags: Diagnostics):
        self.name = name
        self.options = options
        self.diags = diags
        self.profile = ModuleProfile(options.modules, options.without_modules)
        # httpd resolves ${NAME} from its Defines first (a Define with a value), then from its process
        # environment; <IfDefine> tests the -D parameters and every Define'd name, with a value or not.
        self.env: dict[str, str] = dict(options.env) if options.env_only else self._environment(base_dir, options.env)
        self.defines: dict[str, str] = {k: v for k, v in options.defines.items() if v is not None}
        self.parameters: set[str] = set(options.defines)
        self.define_spans: dict[str, Span] = {}   # where each Define with a value stands (for A2N022)
        self.undefined: set[str] = set()
        self.rewrite_chain: dict[int, tuple[list[Directive], list]] = {}  # parent -> (RewriteConds, their A2N022s)
        self.base_dir = base_dir
        self.server_root: str | None = options.server_root
        self.files: list[str] = []
        self.lines = 0
        self.consumed: list[Directive] = []
        self.skipped = 0
        self.include_stack: list[str] = []
        self.full = False
        self.macros: dict[str, _Macro] = {}
        self.macro_defined = False                # a <Macro> was read (httpd's messages differ)
        self.expanding: list[str] = []            # the macros being expanded, outermost first
        self.expanded = 0                         # characters of macro and ${VAR} text expanded so far
        self.macro_words = 0                      # words of macro expansions so far
        self.depth = 0                            # sections open across files and macro expansions
        self.total_bytes = 0                      # bytes of every file read so far
        self.chain: tuple[Span, ...] = ()         # the Use lines the current text comes through
        # The text the nodes being processed come from: a file's text (split into lines when a macro
        # is defined in it) or an expanded macro body, with the source line of its first line.
        self.source: list = ["", 1]
        self.reported: list = []                  # the A2N022s of the last substitute()

    @classmethod
    def _environment(cls, base: Path, given: dict[str, str]) -> dict[str, str]:
        """The environment httpd starts with: Debian's envvars beside the input (or above it), as apache2ctl
        exports it; none on a Red Hat layout (conf/ and conf.modules.d/ side by side: systemd starts httpd
        with no such file); Debian's stock values for an input in neither layout (a site file alone);
        then --env over all of it. The environment of this program itself is never consulted: httpd
        would not see a variable of the converting user's shell."""
        env = cls._envvars_file(base)
        if env is None:
            redhat = any(os.path.isdir(d / "conf.modules.d") for d in (base, base.parent))
            env = {} if redhat else dict(DEBIAN_ENVVARS)
        env.update(given)
        return env

    @staticmethod
    def _envvars_file(base: Path) -> dict[str, str] | None:
        env: dict[str, str] = {}
        for cand in (base / "envvars", base.parent / "envvars"):
            if os.path.isfile(cand):
                try:
                    for line in read_text(cand, 1 << 20).splitlines():
                        m = _ENVVAR_LINE.match(line)
                        value = m.group(2).strip() if m else ""
                        if not m or "$(" in value or "`" in value or re.search(r"\$\{\w+[#%:/]", value):
                            continue        # a command or a shell operator: not a value to read
                        quoted = value[:1] == "'"
                        value = value.strip("'\"")
                        if not quoted:
                            # the shell expands what was set before (an unset name is empty): Debian's
                            # APACHE_LOG_DIR=/var/log/apache2$SUFFIX
                            value = _SHELL_VAR.sub(lambda v: env.get(v.group(1) or v.group(2), ""), value)
                        env[m.group(1)] = value
                except OSError:
                    pass
                return env
        return None

    # -- variables ---------------------------------------------------------
    def value(self, name: str) -> str | None:
        """${NAME} as httpd resolves it (ap_resolve_env): a Define's value, else the environment's."""
        found = self.defines.get(name)
        return found if found is not None else self.env.get(name)

    def substitute(self, node: Directive, report: bool = True, consequence: str | None = None) -> list[str]:
        """Replace each ${NAME} in the arguments by its value, in one pass as httpd does (a value is not
        expanded again). Returns the names left undefined; each is an error (A2N022) where it stands,
        unless `report` is false (a Use line or a Define: the text lands elsewhere and is reported
        there). `${map:key}` is never a variable: Define names cannot hold `:`, and httpd is silent."""
        args = node.args
        missing: list[str] = []
        self.reported = []
        for i, arg in enumerate(args):
            if "${" in arg:
                # The length is known before the text is built: a Define that doubles itself
                # (Define A ${A}${A}) must not grow without bound.
                head, tail = _closed(arg)
                pieces = _VAR.split(head)
                pieces[-1] += tail
                size = sum(len(p) for p in pieces[0::2]) + sum(
                    len(self._lookup(name)) for name in pieces[1::2])
                limit = self.options.max_input_size
                if size > MAX_EXPANDED_ARG or self.expanded + size > limit:
                    self.diags.add("A2N011", f"expanding ${{VAR}} in this argument makes {size:,} characters, "
                                   f"over the limit of {min(MAX_EXPANDED_ARG, limit):,}; it is kept unexpanded",
                                   node.arg_span(i), directive=node.name, related=list(node.include_chain),
                                   hint="check the Define lines that build this value")
                    continue
                self.expanded += size
                value = _VAR.sub(lambda m: self._lookup(m.group(1)), head) + tail
                if HUGE_NUMBER.search(value):
                    self.diags.add("A2N015", f"expanding ${{VAR}} in this argument makes a number of {MAX_DIGITS:,} "
                                   "digits or more: no httpd directive takes one this large", node.arg_span(i),
                                   directive=node.name, related=list(node.include_chain))
                    continue
                args[i] = value
                names = list(dict.fromkeys(n for n in _VAR.findall(_closed(value)[0]) if ":" not in n))
                if names and report:
                    for name in names:
                        self.reported.append(self._undefined(node, i, name, arg, consequence))
                missing.extend(n for n in names if n not in missing)
        return missing

    def _lookup(self, name: str) -> str:
        found = self.value(name)
        return found if found is not None else "${" + name + "}"

    def _undefined(self, node: Directive, index: int, name: str, source: str, consequence: str | None):
        """A2N022 where an undefined ${NAME} lands (an error: the directive is not translated)."""
        self.undefined.add(name)
        via = next((v for v in dict.fromkeys(_VAR.findall(_closed(source)[0])) if v != name
                    and "${" + name + "}" in (self.value(v) or "")), None)
        how = ""
        if via is not None:
            how = f" (it is in the value of ${{{via}}}: httpd expands a value once, as it was when defined)"
        elif name in self.parameters:
            how = " (a Define without a value serves <IfDefine> only)"
        related = [self.define_spans[via]] if via in self.define_spans else []
        label = ("<" + node.name) if node.is_section else node.name
        if consequence is None:
            consequence = (f"{label}> and what it holds are not translated" if node.is_section else
                           f"{label} is not translated")
        return self.diags.add(
            "A2N022", f"${{{name}}} is not defined{how}: httpd keeps the text as it is, which nginx would read as "
            f"a variable of its own; {consequence}", node.arg_span(index), directive=label,
            related=related + list(node.include_chain),
            hint=f"give its value with --env {name}=VALUE (the environment, as envvars exports it) or "
                 f"--define {name}=VALUE (a Define)")

    # -- includes ----------------------------------------------------------
    def roots(self) -> list[Path]:
        """Where relative paths are looked up: --server-root alone when given; otherwise the copy's
        own ServerRoot, then the input's own directory and its parent (Debian keeps apache2.conf in
        its ServerRoot, Red Hat keeps httpd.conf in conf/ below it), before the ServerRoot the file
        names, so a copy never silently picks up this machine's /etc/apache2 or /etc/httpd."""
        if self.options.server_root:
            return [Path(self.options.server_root)]
        roots = [self.base_dir, self.base_dir.parent]
        if self.server_root:
            copy = self.copy_root()
            if copy is not None:
                roots.insert(0, copy)
            if os.path.isdir(self.server_root):
                roots.append(Path(self.server_root))
        return list(dict.fromkeys(roots))

    def copy_root(self) -> Path | None:
        """The directory of a copied tree that stands for the ServerRoot the input names: the input's
        directory or the nearest one above it whose path ends as the ServerRoot does
        (/backup/etc/httpd/conf/httpd.conf with ServerRoot /etc/httpd: /backup/etc/httpd). The input
        read in place is its own copy."""
        wanted = [p for p in Path(self.server_root).parts if p not in ("/", "")]
        if not wanted or not os.path.isabs(self.server_root):
            return None
        for cand in (self.base_dir, *self.base_dir.parents):
            if list(cand.parts[-len(wanted):]) == wanted:
                return cand
        return None

    def resolve(self, pattern: str, node: Directive | None = None) -> list[Path] | None:
        candidates: list[Path] = []
        if os.path.isabs(pattern):
            candidates.append(Path(pattern))
            # A copy of a server tree: re-base absolute paths under ServerRoot onto the local copy.
            if self.server_root:
                root = self.server_root.rstrip("/")
                if pattern.startswith(root + "/"):
                    rest = pattern[len(root) + 1:]
                    candidates.extend(r / rest for r in self.roots())
        else:
            candidates.extend(r / pattern for r in self.roots())
        for cand in candidates:
            text = str(cand)
            if glob.has_magic(text):
                matches = []
                for m in glob.iglob(text):
                    matches.append(m)
                    if len(matches) > MAX_GLOB_MATCHES:
                        break
                if matches:
                    return self._expand(sorted(matches), pattern, node, MAX_GLOB_MATCHES)
            elif os.path.exists(cand):     # False for any OSError (a name too long) too
                return self._expand([text], pattern, node)
        return None

    def locate(self, path: str) -> Path | None:
        """A single file the configuration names (not an include pattern), looked up like an include."""
        candidates = [Path(path)] if os.path.isabs(path) else [r / path for r in self.roots()]
        if os.path.isabs(path) and self.server_root and path.startswith(self.server_root.rstrip("/") + "/"):
            candidates.extend(r / path[len(self.server_root.rstrip("/")) + 1:] for r in self.roots())
        return next((c for c in candidates if os.path.isfile(c)), None)

    def _expand(self, paths: list[str], pattern: str, node: Directive | None,
                limit: int = MAX_INCLUDE_MATCHES) -> list[Path]:
        """The files a glob's matches or a directory name: at most LIMIT of them, and at most
        MAX_INCLUDE_MATCHES found under directories (counted while the tree is walked, so `Include /` stops
        early instead of listing the whole disk)."""
        out: list[Path] = []
        walked = 0
        for p in paths:
            path = Path(p)
            if os.path.isdir(path):
                found = _walk_files(path, MAX_INCLUDE_MATCHES + 1 - walked)
                walked += len(found)
                out.extend(found)
            else:
                out.append(path)
            cap = MAX_INCLUDE_MATCHES if walked > MAX_INCLUDE_MATCHES else limit if len(out) > limit else None
            if cap is not None:
                self.diags.add("A2N013", f"{pattern} names more than {cap:,} files"
                               + (" under directories" if cap == MAX_INCLUDE_MATCHES and limit != cap else "")
                               + "; nothing of it was read", node.arg_span(node.args.index(pattern))
                               if node is not None and pattern in node.args else Span.point(self.name),
                               directive=node.name if node is not None else None,
                               hint="name the configuration files or directory precisely")
                return []
        return out

    def include(self, node: Directive, out: list[Node], parent: Section | None, optional: bool) -> None:
        self.consumed.append(node)
        if not node.args:
            self.diags.add("A2N001", f"{node.name} requires a path", node.span, directive=node.name)
            return
        for index, pattern in enumerate(node.args):
            files = self.resolve(pattern, node)
            if files is None:
                if optional:
                    continue
                sev = None if self.options.missing_includes == "error" else "warning"
                self.diags.add("A2N020", f"{node.name} {pattern}: no such file or directory"
                               + (" (translated without it)" if sev else ""), node.arg_span(0),
                               directive=node.name, severity=Severity.WARNING if sev else None,
                               related=list(node.include_chain))
                continue
            for path in files:
                if not self.include_file(path, node, out, parent, node.arg_span(index)):
                    break   # one refused file (a device, a binary file, too much input) stops the pattern

    def include_file(self, path: Path, via: Directive | None, out: list[Node], parent: Section | None,
                     where: Span | None = None) -> bool:
        """Read one included file in place; False when it was refused (nothing of it was read)."""
        real = os.path.realpath(path)
        if real in self.include_stack:
            chain = " -> ".join(self.include_stack[self.include_stack.index(real):] + [real])
            self.diags.add("A2N021", f"include loop: {chain}", via.span if via else Span.point(str(path)),
                           directive=via.name if via else None)
            return False
        if len(self.include_stack) >= MAX_INCLUDE_DEPTH:
            self.diags.add("A2N021", f"includes nested more than {MAX_INCLUDE_DEPTH} deep at {path}",
                           via.span if via else Span.point(str(path)))
            return False
        name = display_path(path)
        where = where or (via.span if via is not None else None)
        budget = self.options.max_input_size * MAX_TOTAL_FACTOR - self.total_bytes
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0      # parse_file reports it
        if size > budget:
            self.diags.add("A2N011", f"{name}: the input with the files it includes is over the limit of "
                           f"{self.options.max_input_size * MAX_TOTAL_FACTOR:,} bytes", where or Span.point(name),
                           directive=via.name if via else None, related=list(via.include_chain) if via else [])
            return False
        cf = parse_file(path, self.diags, self.options.max_input_size, name, where)
        if cf is None:
            return False
        self.total_bytes += len(cf.text)
        self.files.append(name)
        self.lines += cf.line_count
        self.include_stack.append(real)
        saved, self.source = self.source, [cf.text, 1]
        saved_chain, self.chain = self.chain, ()
        try:
            self.process(cf.children, out, parent, cf.has_variables)
        finally:
            self.include_stack.pop()
            self.source, self.chain = saved, saved_chain
        return True

    # -- conditionals ------------------------------------------------------
    def condition(self, section: Section) -> bool:
        key = section.key
        args = section.args
        if not args:
            self.diags.add("A2N001", f"<{section.name}> directive requires additional arguments",
                           section.span, directive="<" + section.name)
            return False
        arg = " ".join(args) if key == "ifmodule" else args[0]
        negate = arg.startswith("!")
        if negate:
            arg = arg[1:]
        if key == "ifmodule":
            result = self.profile.has(arg)
            if not result and not negate and section.children:
                count = sum(1 for _ in section.walk())
                if self.profile.from_input:
                    # what httpd itself does with this input: a note, not a guess
                    self.diags.add("A2N024", f"<IfModule {arg}>: no LoadModule before it loads {module_id(arg)}; "
                                   f"its {count} directive(s) were skipped, as httpd skips them", section.span,
                                   directive="<IfModule", severity=Severity.INFO, related=list(section.include_chain),
                                   hint=f"load the module with LoadModule (or pass --module {module_id(arg)}) if "
                                        "the server should have it")
                else:
                    self.diags.add("A2N024", f"<IfModule {arg}>: {module_id(arg)} is not in the module profile; "
                                   f"its {count} directive(s) were skipped", section.span, directive="<IfModule",
                                   hint=f"pass --module {module_id(arg)} if the server loads it",
                                   related=list(section.include_chain))
        elif key == "ifdefine":
            result = arg in self.parameters
        elif key == "ifversion":
            result = self._version(section)
            negate = False
        elif key == "iffile":
            path = arg.strip('"')
            result = any(os.path.exists(Path(path) if os.path.isabs(path) else r / path) for r in self.roots())
            self.diags.add("A2N023", f"<IfFile {section.args[0]}> evaluated on this machine: "
                           f"{'present' if result else 'absent'}", section.span, directive="<IfFile")
        elif key == "ifdirective":
            info = catalogue.known(arg)
            result = bool(info) and (info.module.endswith(".c") and (self.profile.has(info.module) or
                                                                     info.module in ("core.c", "http_core.c")))
        else:  # ifsection
            info = catalogue.known_section(arg)
            result = bool(info) and self.profile.has(info.module)
        return (not result) if negate else result

    def _version(self, section: Section) -> bool:
        args = list(section.args)
        op = "="
        if len(args) >= 2:
            op, want = args[0], args[1]
        else:
            want = args[0]
        negate = op.startswith("!")
        if negate:
            op = op[1:]
        have = ".".join(map(str, self.options.apache_version))
        if op in ("~",) or (want.startswith("/") and want.endswith("/") and len(want) > 1):
            pattern = want.strip("/") if want.startswith("/") else want
            result = self._version_matches(section, pattern, have)
        else:
            def parts(v: str) -> tuple[int, ...]:
                nums = [int(x) for x in re.findall(r"\d+", v)[:3]]
                return tuple(nums + [0] * (3 - len(nums)))
            a, b = parts(have), parts(want)
            # mod_version's compare_version fills a missing minor or patch with 0, for "=" too: <IfVersion 2.4>
            # means 2.4.0, false on 2.4.62 (observed: httpd 2.4.71 skips it)
            result = {"=": a == b, "==": a == b, ">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}.get(op, False)
        self.diags.add("A2N023", f"<IfVersion {' '.join(section.args)}> evaluated for Apache {have}: "
                       f"{'true' if result != negate else 'false'}", section.span, directive="<IfVersion")
        return result != negate

    def _version_matches(self, section: Section, pattern: str, have: str) -> bool:
        """`<IfVersion ~ regex>`: mod_version runs the pattern with ap_regexec, PCRE2 under its match limit, so
        a pattern that backtracks without end (`^.*.*...x`, `(.?)*(.?)*...`) is answered at once: PCRE2 gives
        up and the section is false (httpd 2.4.71: `apache2 -t` says Syntax OK in 0.04 s). Python's re has no
        such limit and ran for ever: the match runs on PCRE2 itself; without that library, a pattern with
        nested or many unbounded repeats is refused (false, an error) before re would run it."""
        from ..passes import pcre
        try:
            found = pcre.search(pattern, have)
        except ValueError:
            return False
        except pcre.MatchGaveUp:
            self.diags.add("A2N023", f"<IfVersion {' '.join(section.args)}>: the regular expression backtracks "
                           "past PCRE's match limit; httpd answers no match, so the section is false",
                           section.span, directive="<IfVersion", severity=Severity.WARNING)
            return False
        if found is not None:
            return found
        if _backtracks_without_bound(pattern):
            self.diags.add("A2N023", f"<IfVersion {' '.join(section.args)}>: the regular expression has nested or "
                           f"more than {MAX_UNBOUNDED_REPEATS} unbounded repeats and no PCRE2 library is loaded to "
                           "run it with a match limit; the section is taken as false",
                           section.span, directive="<IfVersion", severity=Severity.ERROR)
            return False
        try:
            return re.search(pattern, have) is not None
        except re.error:
            return False

    # -- mod_macro ---------------------------------------------------------
    @property
    def macro_enabled(self) -> bool:
        return self.profile.has("macro_module")

    @property
    def macro_word_limit(self) -> int:
        return max(1, self.options.max_input_size // MACRO_CHARS_PER_WORD)

    def _count_macro_words(self, text: str) -> bool:
        """Add the words (directive names and arguments) of a macro expansion to the run's count; False once
        the count passes macro_word_limit. The character budget alone let a macro used inside another
        multiply a long value into some 30 million arguments within 64 MB, each parsed and built into
        objects: minutes and gigabytes. Counting stops at the limit, so it costs at most that many steps."""
        room = self.macro_word_limit - self.macro_words
        self.macro_words += sum(1 for _ in itertools.islice(_WORD.finditer(text), room + 1))
        return self.macro_words <= self.macro_word_limit

    def macro_error(self, code: str, message: str, node: Directive, hint: str | None = None) -> None:
        self.diags.add(code, message, node.span, directive=("<" + node.name) if node.is_section else node.name,
                       related=list(self.chain), hint=hint)

    def define_macro(self, section: Section) -> None:
        """`<Macro name params...>`: httpd reads the body as raw lines up to the matching </Macro>
        and keeps it, whatever section it stands in, until it is redefined or UndefMacro'd."""
        self.consumed.append(section)
        args = list(section.args)
        if not args:
            self.macro_error("A2N027", "<Macro> macro definition: name not found", section)
            return
        name = args.pop(0)
        while args and args[0].startswith("/") and args[0].lower() in _MACRO_FLAGS:
            args.pop(0)
        for i, param in enumerate(args):
            if not param:
                self.macro_error("A2N027", f"macro '{name.lower()}': empty argument #{i + 1} name", section)
                return
            if param in args[i + 1:]:
                self.macro_error("A2N027", f"argument name conflict in macro '{name.lower()}': argument "
                                 f"'{param}': #{i + 1} and #{args.index(param, i + 1) + 1}", section,
                                 hint="give every parameter its own name")
                return
        src = self.source
        if isinstance(src[0], str):
            src[0] = src[0].split("\n")
        lines, first = src[0], src[1]
        opener_end = max([section.line] + [p[2] for p in section.arg_pos])
        close = section.close_line if section.close_line > opener_end else opener_end + 1
        body = lines[opener_end + 1 - first:close - first] if section.children or close > opener_end + 1 else []
        self.macro_defined = True
        self.macros[name.lower()] = _Macro(name, args, body, section.file, opener_end + 1, section.span, self.chain)

    def use_macro(self, node: Directive, out: list[Node], parent: Section | None) -> None:
        """`Use name values...`: the body with each parameter replaced, read in place of the Use line."""
        self.consumed.append(node)
        if not node.args or not node.args[0]:
            self.macro_error("A2N026", "no macro name specified with Use", node)
            return
        name = node.args[0].lower()
        macro = self.macros.get(name)
        if macro is None:
            self.macro_error("A2N026", f"macro '{name}' undefined" if self.macro_defined else
                             "no macro defined before Use", node,
                             hint="define the macro with <Macro> before the Use line")
            return
        if name in self.expanding:
            self.macro_error("A2N026", f"recursive use of macro '{name}' is invalid", node)
            return
        if len(self.expanding) >= MAX_NESTING:
            self.macro_error("A2N026", f"macros used inside each other more than {MAX_NESTING} levels deep", node)
            return
        values = node.args[1:]
        if len(values) != len(macro.params):
            self.macro_error("A2N026", f"{macro.where} used with {len(values)} arguments instead of "
                             f"{len(macro.params)}", node, hint="pass one value per macro parameter")
            return
        lines, maps = macro.expand(values)
        text = "\n".join(lines)
        self.expanded += len(text)
        if self.expanded > self.options.max_input_size:
            self.macro_error("A2N011", f"macro expansion exceeds the input limit of "
                             f"{self.options.max_input_size:,} characters at Use {name}", node)
            return
        if not self._count_macro_words(text):
            self.macro_error("A2N011", f"macro expansion exceeds the limit of {self.macro_word_limit:,} words "
                             f"(--max-input-size / {MACRO_CHARS_PER_WORD}) at Use {name}", node)
            return
        chain = (node.span,) + node.include_chain
        if HUGE_NUMBER.search(text):
            self.macro_error("A2N015", f"the expansion of {macro.where} holds a number of {MAX_DIGITS:,} digits or "
                             "more: no httpd directive takes one this large", node)
            return
        sub = Diagnostics()
        cf = parse_text(macro.file, text, sub)
        shift = macro.first_line - 1
        for d in sub:
            if d.span is not None and d.span.file == macro.file:
                sp = d.span
                d.span = Span(sp.file, sp.line + shift, _map_column(maps.get(sp.line - 1), sp.column),
                              sp.end_line + shift, _map_column(maps.get(sp.end_line - 1), sp.end_column, True))
            d.related = list(d.related) + list(chain)
            self.diags.extend([d])
        self._relocate(cf.children, shift, maps, chain)
        saved_source, saved_chain = self.source, self.chain
        self.source, self.chain = [lines, macro.first_line], chain
        self.expanding.append(name)
        try:
            self.process(cf.children, out, parent, True)
        finally:
            self.expanding.pop()
            self.source, self.chain = saved_source, saved_chain

    @staticmethod
    def _relocate(nodes: list[Node], shift: int, maps: dict, chain: tuple[Span, ...]) -> None:
        """Point the nodes parsed from an expansion at the macro body's lines and columns."""
        stack = list(nodes)
        while stack:
            n = stack.pop()
            pos = n.arg_pos
            n.arg_pos = [(line + shift, _map_column(maps.get(line - 1), col), eline + shift,
                          _map_column(maps.get(eline - 1), ecol, True)) for line, col, eline, ecol in pos]
            n.column = _map_column(maps.get(n.line - 1), n.column)
            n.end_column = _map_column(maps.get(n.end_line - 1), n.end_column, True)
            n.line += shift
            n.end_line += shift
            n.include_chain = chain
            if n.is_section:
                n.close_line += shift  # type: ignore[union-attr]
                stack.extend(n.children)  # type: ignore[union-attr]

    def undef_macro(self, node: Directive) -> None:
        self.consumed.append(node)
        if not self.macro_defined:
            self.macro_error("A2N026", "no macro defined before UndefMacro", node)
            return
        if not node.args or not node.args[0]:
            self.macro_error("A2N026", "no macro name specified with UndefMacro", node)
            return
        name = node.args[0].lower()
        if self.macros.pop(name, None) is None:
            self.macro_error("A2N026", f"cannot remove undefined macro '{name}'", node)

    # -- the walk ----------------------------------------------------------
    def process(self, nodes: list[Node], out: list[Node], parent: Section | None, variables: bool = True) -> None:
        for node in nodes:
            key = node.name.lower()
            if node.is_section:
                missing: list[str] = []
                if variables:
                    # a <Macro>'s parameters are names (mod_macro's `${name}` style), not variables
                    macro = key == "macro" and self.macro_enabled
                    missing = self.substitute(node, report=not macro,
                                              consequence="the condition is evaluated with the text as written"
                                              if key in CONDITIONALS else None)
                    if missing and not macro:
                        node.unresolved = tuple(missing)
                if self.depth >= MAX_NESTING:
                    # each file is checked on its own; sections open across includes and macros add up
                    self.diags.add("A2N012", f"sections nested more than {MAX_NESTING} levels deep (counting "
                                   "the files and macros they come through)", node.span,
                                   directive="<" + node.name, related=list(self.chain or node.include_chain))
                    continue
                if key == "macro" and self.macro_enabled:
                    self.define_macro(node)  # type: ignore[arg-type]
                    continue
                self.depth += 1
                try:
                    if key in CONDITIONALS:
                        self.consumed.append(node)
                        if self.condition(node):  # type: ignore[arg-type]
                            self.process(node.children, out, parent, variables)  # type: ignore[union-attr]
                        else:
                            self.skipped += sum(1 for _ in node.walk())  # type: ignore[union-attr]
                        continue
                    children = node.children  # type: ignore[union-attr]
                    node.children = []  # type: ignore[union-attr]
                    node.parent = parent
                    out.append(node)
                    self.process(children, node.children, node, variables)  # type: ignore[union-attr]
                finally:
                    self.depth -= 1
                continue
            if key in CONSUMED:
                if key == "include" or key == "includeoptional":
                    missing = self.substitute(node, consequence="the path is looked up as written")
                    if missing:
                        node.unresolved = tuple(missing)
                    self.include(node, out, parent, optional=(key == "includeoptional"))
                elif key == "define":
                    # httpd warns here already; the error is where the value lands (a Define used nowhere
                    # changes nothing)
                    self.substitute(node, report=False)
                    self.consumed.append(node)
                    if node.args:
                        name = node.args[0]
                        self.parameters.add(name)
                        if len(node.args) > 1:     # `Define NAME` alone gives ${NAME} no value (core.c)
                            self.defines[name] = node.args[1]
                            self.define_spans[name] = node.span
                else:
                    self.consumed.append(node)
                    for a in node.args:
                        self.defines.pop(a, None)
                        self.define_spans.pop(a, None)
                        self.parameters.discard(a)
                continue
            missing = []
            if variables and any("${" in a for a in node.args):
                # a Use line's values land in the macro's body, and are reported there
                missing = self.substitute(node, report=not (key == "use" and self.macro_enabled))
            if key in MACRO_DIRECTIVES and self.macro_enabled:
                if key == "use":
                    self.use_macro(node, out, parent)
                elif key == "undefmacro":
                    self.undef_macro(node)
                else:
                    self.consumed.append(node)
                continue
            if missing:
                node.unresolved = tuple(missing)
            if key == "rewritecond" or key == "rewriterule":
                self.rewrite_link(node, parent)
            if key == "loadmodule":
                self.full = True
                if node.args and not missing:
                    self.profile.load(node.args[0], node.args[1] if len(node.args) > 1 else "")
            elif key == "serverroot":
                self.full = True
                if node.args and not missing:
                    self.server_root = node.args[0]
            node.parent = parent
            out.append(node)

    def rewrite_link(self, node: Directive, parent: Section | None) -> None:
        """RewriteConds belong to the RewriteRule after them: when one of the chain holds an undefined
        variable the whole chain is left out (a rule translated without its condition would apply to
        every request; conditions kept without their rule would restrict the next one)."""
        conds, reports = self.rewrite_chain.setdefault(id(parent), ([], []))
        if node.unresolved is not None:
            reports.extend((node, diag) for diag in self.reported)
        if node.key == "rewritecond":
            conds.append(node)
            return
        del self.rewrite_chain[id(parent)]
        chain = conds + [node]
        if len(chain) == 1 or not any(n.unresolved is not None for n in chain):
            return
        for n in chain:
            if n.unresolved is None:
                n.unresolved = ()            # left out with its chain; the chain's A2N022 names it
        for holder, diag in reports:
            diag.message += f", nor are the {len(chain) - 1} other line(s) of its rewrite rule"
            diag.related = list(diag.related) + [n.span for n in chain if n is not holder]

def load(path: str | Path, options: LoadOptions | None, diags: Diagnostics,
         data: bytes | None = None, display_name: str | None = None) -> LoadedConfig | None:
    """Load a configuration file (or `data` read from stdin) with everything it includes."""
    options = options or LoadOptions()
    name = display_name or str(path)
    base = Path(path).resolve().parent if data is None else Path.cwd()
    # Loading only allocates (the tree's parent links are live cycles, never garbage): the cyclic
    # collector would rescan the whole growing tree at every gen-2 pass, superlinear in input size.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _load(path, options, diags, data, display_name, name, base)
    finally:
        if gc_was_enabled:
            gc.enable()


def _load(path, options, diags, data, display_name, name, base):
    loader = _Loader(name, base, options, diags)
    out: list[Node] = []
    if data is None:
        loader.include_stack.append(os.path.realpath(path))
        cf = parse_file(path, diags, options.max_input_size, display_name)
    else:
        cf = parse_bytes(name, data, diags, options.max_input_size)
    if cf is None:
        return None
    loader.files.append(name)
    loader.lines += cf.line_count
    loader.source = [cf.text, 1]
    loader.process(cf.children, out, None, cf.has_variables)
    if not out and not loader.consumed and not diags.has_errors:
        diags.add("A2N025", "the input holds no directives", Span.point(name))
    return LoadedConfig(name, out, loader.files, loader.lines, loader.profile, loader.defines, loader.consumed,
                        loader.skipped, loader.full, loader.locate, loader.server_root, loader.env,
                        loader.undefined)


def _backtracks_without_bound(pattern: str) -> bool:
    """Whether PATTERN holds an unbounded repeat inside another, or more than MAX_UNBOUNDED_REPEATS of them:
    what makes a backtracking engine without a match limit take exponential or high-polynomial time."""
    try:
        import re._parser as sre_parse   # Python 3.11+
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse
    try:
        tree = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    count = 0

    def walk(items, inside: bool) -> bool:
        nonlocal count
        for op, av in items:
            if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, getattr(sre_parse, "POSSESSIVE_REPEAT", None)):
                unbounded = av[1] == sre_parse.MAXREPEAT
                if unbounded:
                    count += 1
                    if inside or count > MAX_UNBOUNDED_REPEATS:
                        return True
                if walk(av[2], inside or unbounded):
                    return True
            elif op == sre_parse.SUBPATTERN and walk(av[-1], inside):
                return True
            elif op == sre_parse.BRANCH and any(walk(b, inside) for b in av[1]):
                return True
            elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT) and walk(av[1], inside):
                return True
        return False
    return walk(tree, False)
