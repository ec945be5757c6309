"""Rendering the model to nginx text through the jinja2 templates, and the
crossplane self-check every output passes before it is written.
"""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import replace
from functools import lru_cache

import crossplane
from crossplane.analyzer import enter_block_ctx as crossplane_block_ctx
from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.filters import do_indent

from .. import __version__
from ..model import ARRAY_FAMILIES, Location, NginxModel, Server, Stmt, written_literally
from ..nginx_variables import Scan
from .hashes import server_names_hash, variables_hash
from . import dirindex
from .refusal_alternatives import Alternatives
from .inherit import (early_failures, effective, error_pages_with_headers, file_section_refusal, header_order,
                      if_blocks, late_unset, merge, served_tests,
                      refused_headers, server_block, _last_error_pages as last_error_pages)
from .limits import out_of_range
from .selfcheck import fast_clean
from ..syntax.span import Span

# valid in server and location blocks but not at http level
SERVER_ONLY = frozenset({"try_files", "return"})
_LOCATION_QUOTE = re.compile(r"[\s;{}\"'#]")
_NEEDS_QUOTE = re.compile(r"[\s;{}\"'#]|\\$")


def quote(arg: str) -> str:
    """An nginx argument, quoted only when nginx's tokenizer requires it (memoised: arguments repeat)."""
    try:
        return _QUOTED[arg]
    except KeyError:
        pass
    if len(_QUOTED) >= 1 << 16:
        _QUOTED.clear()
    quoted = _QUOTED[arg] = _quote(arg)
    return quoted


_QUOTED: dict[str, str] = {}


def _quote(arg: str) -> str:
    """An nginx argument, quoted only when nginx's tokenizer requires it.

    Unquoted, nginx keeps a backslash before any character other than its own
    escapes; inside quotes `\\` and `\"` are escapes, so both are doubled there.
    """
    if arg and not _NEEDS_QUOTE.search(arg):
        # nginx folds `\\` to `\` in every token (quoted or not): keep a literal double backslash
        return arg.replace("\\\\", "\\\\\\\\") if "\\\\" in arg else arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Renderer:
    def __init__(self, source_comments: bool = True, diags=None):
        self.source_comments = source_comments
        env = _environment()
        self.env = env
        self.diags = diags           # where a value nginx would refuse is reported (A2N015)
        self.refused = False         # such a value was met: the output must not be written
        self._reported: set = set()
        self._gated: dict = {}       # the model's onsuccess variables (see passes.headers.onsuccess)

    def source(self, span: Span | None, label: str = "") -> str:
        if not self.source_comments or span is None:
            return f"  # {label}" if (label and self.source_comments) else ""
        text = f"{comment_safe(span.file)}:{span.line}"
        return f"  # {label + ' ' if label else ''}{text}"

    def directive(self, name: str, args: list[str], span: Span | None = None, opens_block: bool = False,
                  comment: str | None = None) -> str:
        if name == "if":
            # the condition is written as nginx reads it: `if ($var ~ re)`, never quoted as one argument
            line = "if " + " ".join(args) + (" {" if opens_block else ";")
        else:
            if name == "add_header" and len(args) == 2 and args[1] in self._gated:
                # an onsuccess header: its variable is empty wherever httpd does not send it
                args = [*args, "always"]
            elif name == "index":
                # the names as httpd reads them, `$` and all (passes.core.directory_index): index reads variables
                args = [written_literally(a) for a in dirindex.written(args)]
            line = " ".join([name] + [quote(a) for a in args]) + (" {" if opens_block else ";")
            if self.diags is not None and (why := out_of_range(name, args)):
                self._refuse(why, span)
        return line + self.source(span, comment or "")

    def _refuse(self, why: str, span: Span | None) -> None:
        self.refused = True
        if span not in self._reported:       # once per Apache line, however many statements it makes
            self._reported.add(span)
            self.diags.add("A2N015", f"the translation would write `{why}`; nginx refuses it", span)

    def _undecided_header(self, name: str, span: Span | None) -> None:
        """A `Header always NAME` line gated on the status that a refusal sends beside the header's onsuccess
        lines (inherit._undecided): once per Apache line, however many locations refuse under it."""
        self.diags.add_once(
            "A2N884", f"Header always {name}: its condition reads the response's status, in a region the "
            "translation refuses (403) where an onsuccess line sets the header too; httpd answers there with a "
            "success (the onsuccess value) or an error (this line's value, where its condition holds), which the "
            "refusal cannot always tell apart: where it cannot (a file, in a region it serves from), it sends both "
            "values, which follow neither answer", span,
            directive="Header", hint="give the line an unconditional value (or none), or make the refused "
            "section one the translation can place")

    def statements(self, stmts: list, depth: int) -> str:
        """Statements at `depth`, with their nested blocks (if, limit_except), one a line."""
        out: list[str] = []
        self._statements(stmts, depth, out)
        return "".join(out)

    def _statements(self, stmts: list, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        directive = self.directive
        for stmt in stmts:
            if stmt.block is not None:
                out.append(pad + directive(stmt.name, stmt.args, stmt.span, True, stmt.comment) + "\n")
                self._statements(stmt.block, depth + 1, out)
                out.append(pad + "}\n")
            else:
                out.append(pad + directive(stmt.name, stmt.args, stmt.span, False, stmt.comment) + "\n")

    def location(self, loc: Location, depth: int) -> str:
        """A location block with its statements and nested locations."""
        out: list[str] = []
        self._location(loc, depth, out)
        return "".join(out)

    def _location(self, loc: Location, depth: int, out: list[str]) -> None:
        pad = "    " * depth
        path = loc.path
        if _LOCATION_QUOTE.search(path):
            # a blank, `;`, a brace, a quote or `#` would end the token (AliasMatch "a b" ...)
            path = '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out.append(f"{pad}location {(loc.modifier + ' ') if loc.modifier else ''}{path} {{{self.source(loc.span)}\n")
        self._statements(loc.statements, depth + 1, out)
        for inner in loc.locations:
            self._location(inner, depth + 1, out)
        out.append(pad + "}\n")

    def render(self, model: NginxModel, servers: list[Server] | None = None, inputs: list[str] | None = None,
               full: bool | None = None, shared: bool = True, definitions: bool | None = None,
               around: tuple[list[Stmt], list[Stmt]] = ([], [])) -> str:
        """The nginx text for `servers` (all by default); `shared` adds the http-level parts (log formats,
        maps, upstreams, settings of Apache's main server) that every server relies on. `definitions`
        (default: as `shared`) says whether the log formats, maps and upstreams are among them; `around`
        are statements written before and after the http-level settings (a tree's includes)."""
        full = model.full if full is None else full
        header = generated_header(inputs)
        chosen = model.servers if servers is None else servers
        main = model.main_server
        unless = _unless(model)
        if self.diags is not None:
            unless.ungate.report = self._undecided_header
        self._gated = model.onsuccess_ungated
        # (one error_page per status there too: httpd's main server keeps its latest ErrorDocument for a
        # status, nginx would answer with the first error_page naming it)
        http_level = last_error_pages(header_order(
            list(model.http_statements) + (main.statements if main is not None else []), 0, unless))
        first = shared or full
        defined = first if definitions is None else definitions
        # The main server's statements are written at http level, where nginx refuses a few that are valid
        # in a server (FallbackResource's try_files, a whole-server Redirect's return): those go into every
        # server that sets none of its own.
        pushed = [s for s in http_level if s.name in SERVER_ONLY]
        if pushed:
            http_level = [s for s in http_level if s.name not in SERVER_ONLY]

        # what the servers merge under: the http level, and the markers of the main server's <If> unsets
        # (header_order leaves them out of the http level, and they act on the lines of every block inside)
        under = http_level + [s for s in (main.statements if main is not None else []) if late_unset(s)]

        def server_block_of(server: Server):
            # (the main server's `statements` are the http level's already)
            return server_block(under, server.own_statements, [] if server.is_main else server.statements,
                                unless)

        def server_statements(server: Server):
            out = server_block_of(server)[0]
            if pushed:
                own = {s.name for s in out}
                # (not a FallbackResource the server disables)
                out = out + [s for s in pushed if s.name not in own
                             and not (s.name == "try_files" and server.settings.get("FallbackResource") == "")]
            return out

        def locations(server: Server):
            parent = server_block_of(server)[1]
            located = dirindex.with_headers(parent, early_failures(server.locations, parent=parent), unless)
            files = _file_sections(located)
            paged = error_pages_with_headers(parent, located, unless)
            others = Alternatives(parent, located, unless, paged)
            # (the main server's `index` is written at http level, which PARENT does not hold)
            index = next((s.args for s in parent if s.name == "index"), None) or \
                next((s.args for s in http_level if s.name == "index"), None)
            out = [_merged(loc, parent, unless, files=files if loc.modifier in ("~", "~*") else (), others=others,
                           index=index)
                   for loc in paged]
            return out + list(others.copies.values())

        if (model.conditional_header_sets or _refuses(model)) and not model.inherited_maps_made:
            # Merging can add maps (a conditional Header set over an earlier one): make them all before any
            # output is rendered, since the file holding the maps may be rendered first.
            for server in model.servers:
                server_statements(server)
                locations(server)
            model.inherited_maps_made = True

        context = dict(
            header=header,
            # A server with no socket is one httpd never serves (A2N200): nginx would put it on port 80.
            servers=[s for s in chosen if s.listens],
            http_statements=((server_names_hash(model) if full else []) + variables_hash(model) + around[0]
                             + http_level + around[1])
            if first else [],
            main_statements=model.main_statements,
            log_formats=list(model.log_formats.values()) if defined else [],
            maps=model.maps if defined else [],
            upstreams=[u for u in model.upstreams.values() if u.servers] if defined else [],
            server_statements=server_statements,
            locations=locations,
            source=self.source,
            directive=self.directive,
            statements=self.statements,
            location=self.location,
            quote=quote,
            written_root=_written_root,
        )
        # One server block at a time: jinja collects every piece of a template's output before joining
        # them, which for a whole large configuration holds millions of small strings at once.
        server_template = self.env.get_template("server.j2")
        # The templates around the servers are rendered with a marker standing for each server's text, and
        # the whole is joined once, each server indented (in a full nginx.conf) as it is rendered: indenting,
        # collapsing and prefixing the large text as a whole made a copy of it at each step (a third of
        # convert's peak memory at 100k lines).
        texts: list[str] = []
        plain = True    # no empty server, no line break str.splitlines knows besides \n
        for server in context["servers"]:
            text = server_template.render(context, server=server)
            plain = plain and bool(text[:1].strip("\n")) and not _LINE_BREAKS.search(text)
            texts.append(_indent(text)[4:] if full and plain else text)   # the marker's line is indented
        frame = self.env.get_template("http.j2").render(dict(context, server_texts=[_SERVER_MARK] * len(texts)))
        if full:
            frame = self.env.get_template("nginx.conf.j2").render(context, http_body=_indent(frame))
        parts = frame.split(_SERVER_MARK)
        if not plain or len(parts) != len(texts) + 1 or _LINE_BREAKS.search(frame):
            # the whole text at once, as jinja's indent filter reads it
            texts = [server_template.render(context, server=server) for server in context["servers"]]
            text = self.env.get_template("http.j2").render(dict(context, server_texts=texts))
            if full:
                text = self.env.get_template("nginx.conf.j2").render(context, http_body=_indent(text))
            return _finish(text, header, full)
        pieces = [parts[0]]
        for i, after in enumerate(parts[1:]):
            pieces += [texts[i], after]
            texts[i] = ""
        return _finish_pieces(pieces, header, full)


HEADER_INPUTS = 3   # input names a header lists before "and N more"
_SERVER_MARK = "\x00a2n-server\x00"   # where a server's text goes in the frame (no output holds a NUL)
# (`\n\n\n+` rather than `\n{3,}`: a literal prefix lets the engine skip ahead, ten times faster)
_BLANK_RUN = re.compile(r"\n\n\n+")


def _finish(text: str, header: str, full: bool) -> str:
    """At most one blank line in a row, no blank lines around, the header line first unless FULL has it."""
    text = _BLANK_RUN.sub("\n\n", text).strip("\n") + "\n"
    return text if full else header + "\n" + text


def _finish_pieces(pieces: list[str], header: str, full: bool) -> str:
    """`_finish` of the text PIECES make, joined once: runs of blank lines are collapsed in each piece and
    again where two pieces meet (rare: the text is copied only then)."""
    pieces = [_BLANK_RUN.sub("\n\n", p) for p in pieces]
    while pieces and not pieces[0].strip("\n"):
        pieces.pop(0)
    while pieces and not pieces[-1].strip("\n"):
        pieces.pop()
    if pieces:
        pieces[0] = pieces[0].lstrip("\n")
        pieces[-1] = pieces[-1].rstrip("\n")
    text = "".join(([] if full else [header, "\n"]) + pieces + ["\n"])
    return _BLANK_RUN.sub("\n\n", text)


def generated_header(inputs: list[str] | None) -> str:
    """The comment line every output starts with; it names at most a few inputs, so it stays one short line
    however many files a server has."""
    named = ""
    if inputs:
        shown = inputs if len(inputs) <= HEADER_INPUTS else inputs[:1]
        named = " from " + ", ".join(comment_safe(name) for name in shown)
        if len(inputs) > len(shown):
            named += f" and {len(inputs) - len(shown):,} more files"
    return (f"{GENERATED_MARK} {__version__}{named}. "
            "Regenerate with `apache2nginx convert` rather than editing by hand.")


GENERATED_MARK = "# Generated by apache2nginx"
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


@lru_cache(maxsize=4096)
def comment_safe(text: str) -> str:
    """`text` (a file name) as it can stand in a comment: a line break in it would end the comment and
    make the rest of the name nginx directives."""
    return _CONTROL.sub("?", text)

_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _indent(text: str) -> str:
    """jinja's `indent(4, first=True, blank=False)` filter (every line but blank ones four spaces in; the
    first line always), without its list of every line."""
    if _LINE_BREAKS.search(text):
        return do_indent(text, 4, first=True, blank=False)   # str.splitlines breaks there too
    out = "    " + text.replace("\n", "\n    ")
    while "\n    \n" in out:            # a blank line stays empty (each pass empties every other one of a run)
        out = out.replace("\n    \n", "\n\n")
    return out[:-4] if out.endswith("\n    ") else out


def _unless(model: NginxModel):
    """The `unless` of inherit.merge: a map in MODEL giving VALUE where a conditional header's variable is
    empty (its condition does not hold), and nothing where it holds."""
    ungated, values = model.onsuccess_ungated, model.header_values

    def unless(variable: str, value: str) -> str:
        out = model.shared_map("a2n_hdr_", variable, [('""', value)], '""')
        if value in values or (value and "$" not in value and value != '""'):
            # a header line's value where sent, now where VARIABLE is empty too (inherit._combine)
            values.setdefault(out, values.get(value, value))
        if value in ungated and out not in ungated:
            # an onsuccess header kept where a later conditional one is empty: onsuccess too (its value
            # wherever httpd sends the table is made when a refused location needs it: `ungate`)
            ungated[out] = (variable, value)
        return out

    def gated(variable: str) -> str:
        """The value of an onsuccess header's VARIABLE wherever httpd sends its onsuccess table."""
        found = ungated[variable]
        if isinstance(found, str):
            return found
        condition, value = found
        return model.shared_map("a2n_hdr_", gated(condition) if condition in ungated else condition,
                                [('""', gated(value))], '""')

    def ungate(variable: str) -> str:
        """That value (`gated`) as a refusal the translation writes sends it: at any status (any_status)."""
        return any_status(model, gated(variable))
    def join(value: str, old: str, new: str, conditional: bool = False) -> str | None:
        """An add_header's VALUE (OLD itself, or an onsuccess gate sending OLD; with CONDITIONAL, a map
        sending OLD where a condition holds, or an onsuccess gate sending one) sending NEW instead, on the
        same answers; None where VALUE is none of those."""
        if value == old:
            return new
        found = ungated.get(value)
        if found != old and not (conditional and (found is None or isinstance(found, str))):
            return None
        out = _swapped(model, value, old, new)
        if conditional and found != old and out == value:
            return None     # no entry of the map sends OLD
        if out is not None and found is not None:
            ungated.setdefault(out, new if found == old else _swapped(model, found, old, new) or found)
        return out
    def from_gate(variable: str) -> bool:
        """Whether an add_header VARIABLE is an onsuccess gate's (or is made from one), rather than a
        `Header always` line's condition."""
        from ..passes.headers import GATE_SOURCE
        found = ungated.get(variable)
        if isinstance(found, tuple):
            return any(from_gate(v) for v in found)
        if variable in gates:
            return True
        block = next((b for b in model.maps if b.variable == variable), None)
        return block is not None and block.source == GATE_SOURCE
    refused: dict[str, str] = {}

    def refusal(value: str, otherwise: str, statuses: tuple[str, ...] = ("403",)) -> str:
        """VALUE where the answer is a 403 (the refusal's, or one of its STATUSES), OTHERWISE elsewhere (see
        inherit.on_refusal). A status written `401?REGEXES` sends VALUE where the request's file name matches
        one of REGEXES alone (one a line: where a section the translation leaves out may lift the refusal,
        layout._lift_own_refusals); the map is volatile, as the file name changes on a redirect."""
        def on(status: str) -> str:
            keys = status.partition("?")[2]
            if not keys:
                return value
            from .layout import _quote_if_needed
            gate = model.shared_map("a2n_lifted_", "$request_filename",
                                    [(_quote_if_needed("~" + k), "1") for k in keys.split("\n")], '""', volatile=True)
            return model.shared_map("a2n_hdr_", gate, [("1", value)], '""')
        variable = model.shared_map("a2n_refused_", "$status", [(c.partition("?")[0], on(c)) for c in statuses],
                                    otherwise)
        refused[variable] = value
        if value in served_variables:
            served_variables.add(variable)
        return variable
    def reread(value: str, rereads: tuple[tuple[str, str], ...]) -> str:
        """VALUE, an add_header's on a refusal whose 403 stands for a local ErrorDocument page's (Stmt.rereads:
        the variables httpd's redirect to the page sets again, each with the variable of its value there), sent
        where it is sent as the request's own path sets them or, failing that, as the page's path does: httpd
        answers those URLs either with the page (a 403) or with what it serves there."""
        swaps = dict(rereads)
        blocks = {b.variable: b for b in model.maps}
        done: dict[str, str] = {}

        def copy(variable: str, depth: int) -> str:
            if variable in swaps:
                return swaps[variable]
            block = blocks.get(variable)
            if variable in done or block is None or block.hostnames or depth > 50:
                return done.get(variable, variable)
            done[variable] = variable       # (a map reading itself again is left as it is)
            source, default = text(block.source, depth), text(block.default, depth)
            entries = [(k, text(v, depth)) for k, v in block.entries]
            if (source, entries, default) != (block.source, list(block.entries), block.default):
                prefix = re.sub(r"[0-9]+$", "", variable.lstrip("$"))
                done[variable] = model.shared_map(prefix if prefix.endswith("_") else prefix + "_", source, entries,
                                                  default, block.span, volatile=block.volatile)
            return done[variable]

        def text(value: str | None, depth: int) -> str | None:
            if not value or "$" not in value:
                return value
            return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: "${%s}" % copy("$" + m[1], depth + 1).lstrip("$")
                          if m[1] else copy("$" + m[2], depth + 1), value)

        def either(variable: str) -> str:
            there = copy(variable, 0)
            if there == variable:
                return variable
            out = model.shared_map("a2n_hdr_", variable, [('""', there)], variable)
            if variable in served_variables:
                served_variables.add(out)
            return out
        if not re.fullmatch(r"\$\w+", value):
            return value
        block = blocks.get(value)
        if value not in refused or block is None:
            return either(value)
        # (a map over the status, `refusal`: the page answers the 403 alone)
        on = either(refused[value])
        if on == refused[value]:
            return value
        out = model.shared_map("a2n_refused_", block.source, [(k, on if v == refused[value] else v)
                                                              for k, v in block.entries], block.default, block.span)
        refused[out] = on
        if value in served_variables:
            served_variables.add(out)
        return out
    def served(value: str, absent: bool = False) -> str:
        """VALUE where the refused location found the file httpd serves (inherit.SERVED), else nothing; with
        ABSENT, VALUE where it found none (httpd answers with an error), else nothing."""
        from .inherit import SERVED
        variable = model.shared_map("a2n_hdr_", SERVED, [("1", '""')] if absent else [("1", value)],
                                    value if absent else '""')
        served_variables.add(variable)
        return variable
    served_variables: set[str] = set()      # the variables reading SERVED (a location sending one sets it)

    def at_status(variable: str, status: str) -> str | None:
        """The value a header's VARIABLE (maps over the response's status, through other maps) takes on an
        answer with STATUS, or None where it reads anything but the status."""
        blocks = {b.variable: b for b in model.maps}

        def text(value: str | None, depth: int) -> str | None:
            value = '""' if value is None else value
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            out = []
            for part in re.split(r"(\$\w+|\$\{\w+\})", value):
                if not part.startswith("$"):
                    out.append(part)
                    continue
                name = "$" + part.strip("${}")
                found = status if name == "$status" else looked(blocks.get(name), depth + 1)
                if found is None:
                    return None
                out.append(found)
            return "".join(out)

        def looked(block, depth: int) -> str | None:
            if block is None or not block.source or block.hostnames or depth > 50:
                return None
            key = text(block.source, depth)
            if key is None:
                return None
            for k, v in block.entries:
                # (nginx compares a map's plain strings ignoring case)
                plain = k[1:-1] if len(k) >= 2 and k[0] == k[-1] == '"' else k.lstrip("\\")
                if not k.startswith("~") and plain.lower() == key.lower():
                    return text(v, depth)
            for k, v in block.entries:
                if k.startswith("~"):
                    try:
                        hit = re.search(k[2:], key, re.I) if k.startswith("~*") else re.search(k[1:], key)
                    except re.error:
                        return None
                    if hit:
                        return text(v, depth)
            return text(block.default, depth)
        return text(variable, 0)

    def index_of(name: str) -> str:
        """NAME where the URL ends in a slash (a directory's index file), else `/.`, which names no file."""
        return model.shared_map("a2n_index_", "$uri", [("~/$", name)], '"/."')
    def carried(variable: str) -> str | None:
        """The map a server rewrite rule's carried header VARIABLE is over its onsuccess values ungated
        (model.carried_ungated), or None where it has none."""
        found = model.carried_ungated.get(variable)
        if found is None:
            return None
        source, entries, span = found
        return model.shared_map("a2n_rwhdr_", source, [(key, carried(value) or value) for key, value in entries],
                                '""', span=span)
    def geo(entries: tuple[tuple[str, str], ...], default: str) -> str:
        """The variable of a geo block over the client's address with ENTRIES and DEFAULT."""
        return model.shared_map("a2n_refused_addr_", "", list(entries), default)
    ungate.refusal = refusal
    ungate.gated = gated
    ungate.geo = geo
    ungate.served = served
    ungate.reread = reread
    ungate.at_status = at_status
    ungate.served_variables = served_variables
    ungate.index_of = index_of
    ungate.refused = refused        # such a variable -> its value on the 403
    ungate.carried = carried
    unless.ungate = ungate
    unless.join = join

    def value_map(lines: list[str | None], entries: list[tuple[str, str]], default: str) -> str:
        """A map over which of the header lines' variables LINES are not empty (digits joined with `:`; None: a
        line sent always) giving a line's value (inherit._combine). Over onsuccess lines (their gates) the
        line is an onsuccess one too, whose value wherever httpd sends that table is the same map over the
        variables ungated (`ungate`)."""
        def over(variables: list[str | None]) -> str:
            return ":".join(model.shared_map("a2n_hdr_", v, [('""', "0")], "1") if v else "1" for v in variables)
        out = model.shared_map("a2n_hdr_", over(lines), entries, default)
        if any(lines) and all(v in ungated for v in lines if v) and out not in ungated:
            bare = [ungate(v) if v else None for v in lines]
            otherwise = ungate(default) if default in ungated else default
            ungated[out] = model.shared_map("a2n_hdr_", over([v if v and v.startswith("$") else None for v in bare]),
                                            entries, otherwise if otherwise.startswith(("$", '"')) else quote(otherwise))
            gates.add(out)
        return out
    gates: set[str] = set()     # value_map's onsuccess lines
    unless.map = value_map
    unless.values = values
    unless.from_gate = from_gate
    return unless


def _refuses(model: NginxModel) -> bool:
    """Whether a location refuses with `deny all` or `return 403`: the headers its refusal sends are maps
    over the status made while its location is rendered (inherit.on_refusal)."""
    def refuses(statements: list[Stmt]) -> bool:
        return any((s.name == "deny" and s.args == ["all"]) or (s.name == "return" and s.args[:1] == ["403"])
                   or (s.block and refuses(s.block)) for s in statements)

    def walk(locations) -> bool:
        return any(refuses(loc.statements) or walk(loc.locations) for loc in locations)
    return any(walk(server.locations) for server in model.servers)


def _swapped(model: NginxModel, variable: str, old: str, new: str) -> str | None:
    """A copy of the map of VARIABLE giving NEW where it gives OLD (also through the maps its entries name:
    an onsuccess gate's ErrorDocument entries), None where VARIABLE is no map's."""
    block = next((b for b in model.maps if b.variable == variable), None)
    if block is None or not block.source or block.hostnames or block.volatile:
        return None

    def value(v: str | None) -> str | None:
        if v == old:
            return new
        if v == quote(old):
            return quote(new)
        if v is not None and v.startswith("$") and v != variable and any(b.variable == v for b in model.maps):
            return _swapped(model, v, old, new) or v
        return v
    prefix = re.sub(r"[0-9]+$", "", block.variable.lstrip("$"))
    return model.shared_map(prefix, block.source, [(k, value(v)) for k, v in block.entries], value(block.default),
                            block.span)


def any_status(model: NginxModel, value: str, status: str | None = None) -> str:
    """VALUE, an onsuccess header's value wherever httpd sends its table (maps over the response's status, through
    other maps), as it is where some status sends it: a map over `$status` reads as its first value that is not
    empty (its entries in order, then its default). On a refusal the translation writes, nginx's 403 says nothing
    of httpd's status there: httpd answered path info after a file (/a.txt/x) with 404 and its ErrorDocument
    page, carrying an onsuccess `Header append Referrer-Policy no-referrer "expr=%{REQUEST_STATUS} == 404"`,
    where the refusal read the map at 403 and sent nothing. A security header is never to be lost, so the
    refusal sends it, as it sends a `Header always` line gated so (passes.headers). With STATUS, each such map
    is read at that status (a named location answering it). VALUE where it reads no such map."""
    blocks = {b.variable: b for b in model.maps}
    done: dict[str, str] = {}

    def bare(v: str | None) -> str:
        v = '""' if v is None else v
        return v[1:-1] if len(v) >= 2 and v[0] == v[-1] == '"' else v

    def copy(variable: str, depth: int) -> str:
        """VARIABLE's copy (a variable), or the text it reads as (no map: VARIABLE)."""
        block = blocks.get(variable)
        if variable in done or block is None or block.hostnames or block.volatile or depth > 50:
            return done.get(variable, variable)
        done[variable] = variable       # (a map reading itself again is left as it is)
        if block.source == "$status" and status is not None:
            done[variable] = text(_looked_up(status, list(block.entries), block.default or '""'), depth)
            return done[variable]
        if block.source == "$status":
            sent = [v for v in [v for _, v in block.entries] + [block.default] if bare(v)]
            done[variable] = text(sent[0], depth) if sent else ""
            return done[variable]
        source = text(block.source, depth)
        entries = [(k, text(v, depth)) for k, v in block.entries]
        default = text(block.default, depth)
        if "$" not in source:
            done[variable] = _looked_up(source, entries, default)
        elif (source, [(k, bare(v)) for k, v in block.entries], bare(block.default)) != \
                (block.source, entries, default):
            prefix = re.sub(r"[0-9]+$", "", variable.lstrip("$"))
            done[variable] = model.shared_map(prefix if prefix.endswith("_") else prefix + "_", source,
                                              [(k, v or '""') for k, v in entries], default or '""', block.span)
        return done[variable]

    def text(v: str | None, depth: int) -> str:
        v = bare(v)
        if "$" not in v:
            return v

        def read(m: re.Match) -> str:
            found = copy("$" + (m[1] or m[2]), depth + 1)
            return "${%s}" % found[1:] if m[1] and found.startswith("$") else found
        out = ""
        for m in re.finditer(r"\$\{(\w+)\}|\$(\w+)|[^$]+|\$", v):
            out = _joined(out, read(m) if m[1] or m[2] else m[0])
        return out
    return text(value, 0)


def _joined(left: str, right: str) -> str:
    """LEFT then RIGHT as nginx reads them: a variable ending LEFT unbraced is braced where RIGHT begins with a
    character of a name. A map key over `$a$b` whose `$b` (a map over the status) reads as the constant 1 at some
    status is `${a}1` there: written `$a1`, nginx would read a variable of another name, one never defined."""
    m = re.search(r"\$(\w+)$", left)
    if m and re.match(r"\w", right):
        left = left[:m.start()] + "${%s}" % m[1]
    return left + right


def _looked_up(key: str, entries: list[tuple[str, str]], default: str) -> str:
    """The value of a map with ENTRIES and DEFAULT (as they read) for the plain KEY: nginx compares its plain
    strings ignoring case, then tries its regular expressions in order."""
    for k, v in entries:
        plain = k[1:-1] if len(k) >= 2 and k[0] == k[-1] == '"' else k.lstrip("\\")
        if not k.startswith("~") and plain.lower() == key.lower():
            return v
    for k, v in entries:
        if k.startswith("~"):
            try:
                hit = re.search(k[2:], key, re.I) if k.startswith("~*") else re.search(k[1:], key)
            except re.error:
                continue
            if hit:
                return v
    return default


# the start of a file section's regex location (<Files>, <FilesMatch>: the last name of the URL)
_FILE_SECTION = "(?:^|/)"


def _file_sections(locations: list[Location]) -> list[Location]:
    """The file sections' locations nested in the server's prefix locations, one of each regex and header
    list (two sections of the same regex are two locations)."""
    out: dict[tuple, Location] = {}
    for loc in locations:
        if loc.modifier in ("", "^~"):
            for inner in loc.locations:
                if inner.modifier in ("~", "~*") and inner.path.startswith(_FILE_SECTION):
                    headers = tuple(tuple(s.args) for s in inner.statements if s.name == "add_header")
                    out.setdefault((inner.key(), headers), inner)
    return list(out.values())


def _merged(loc: Location, parent: list, unless, nested: bool = False, files: list | tuple = (),
            others: Alternatives | None = None, outer: list | tuple = (), index: list[str] | None = None) -> Location:
    """`loc` with the enclosing block's members of every array family it defines itself (add_header...),
    and the same for the locations nested in it. A nested location's allow/deny are left as they are: the
    access pass gives each one the complete list of its region, and a parent's allow would widen it.
    FILES: for a server-level regex location (a <LocationMatch>), the server's file sections, which nginx
    nests in prefix locations only: where the translation refuses the regex location, httpd may serve a
    file there (a directory's index.html), with a file section's headers (see refused_headers). OTHERS: the
    server's locations, whose headers a refusal sends for the URLs httpd answers from them (a rule's
    rewritten URL, a directory's index file: see refusal_alternatives). INDEX: the `index` names the location
    inherits (its enclosing block's, the server's, the http level's), which the refusal's tests of the file
    httpd serves look a directory's index file up with where the location sets none (served_tests)."""
    index = next((s.args for s in loc.statements if s.name == "index"), None) or index
    inherited = [s for s in parent if s.name not in ("allow", "deny")] if nested else parent
    if not nested and loc.not_inherited:
        # (a server-level location sending a list of its own: a copy of a message page or of the
        # DirectoryIndex-disabled target, see error_pages_with_headers and dirindex.with_headers)
        inherited = [s for s in inherited if s not in loc.not_inherited]
    merged = merge(inherited, loc.statements, unless)
    refused = refused_headers(merged, inherited, unless.ungate, loc.locations or files, unless)
    if loc.modifier in ("~", "~*") and loc.path.startswith(_FILE_SECTION):
        refused = file_section_refusal(refused, inherited, unless.ungate, unless.from_gate)
    # the add_header list of the location is its refusal's (see _own_headers)
    refusal = [s for s in refused if s.name == "add_header"]
    if [tuple(s.args) for s in refusal] == [tuple(s.args) for s in merged if s.name == "add_header"]:
        refusal = []
    if others is not None:
        refused = others.add(refused, loc, inherited, outer)
    own = if_blocks(refused, inherited, unless)
    if others is not None:
        own = others.answered(own, inherited)
    own = served_tests(own, inherited, unless.ungate, index)
    if not loc.locations:
        return Location(loc.modifier, loc.path, own, loc.span, [], loc.runs_scripts, loc.static_only)
    inner = effective(inherited, loc.statements, unless)
    return Location(loc.modifier, loc.path, own, loc.span,
                    [_nested(_own_headers(i, refusal, inner), inner, unless, others, loc.statements, index)
                     for i in loc.locations],
                    loc.runs_scripts, loc.static_only)


def _own_headers(loc: Location, refusal: list[Stmt], inner: list[Stmt]) -> Location:
    """LOC, nested in a location whose add_header list is its refusal's (REFUSAL, empty where it is not:
    refused_headers sends the onsuccess headers always on the 403, and those of the file sections under it)
    rather than what applies inside it (INNER): nginx would inherit the refusal's list into LOC, which may
    grant (a file section's), and send those headers on its own errors (a 404) where httpd does not. LOC
    without an add_header of its own gets INNER's (an empty value where INNER has none, which stops the
    inheritance); a refusal of its own then sends what applies to it (refused_headers again)."""
    headers = [s for s in inner if s.name == "add_header" and s not in (loc.not_inherited or ())]
    if not refusal or any(s.name == "add_header" for s in loc.statements):
        return loc
    if not headers:
        headers = [Stmt("add_header", [refusal[0].args[0], "", "always"], loc.span,
                        comment="the enclosing refusal's headers are not this location's")]
    return replace(loc, statements=list(headers) + loc.statements)


_FAMILY_OF = {name: family for family in ARRAY_FAMILIES for name in family}


def _nested(loc: Location, parent: list[Stmt], unless, others: Alternatives | None = None,
            outer: list | tuple = (), index: list[str] | None = None) -> Location:
    """A location nested in a block whose effective list is PARENT, without the statements httpd does not
    apply to its URLs (`not_inherited`): nginx inherits a family (add_header...) only where the location sets
    none of it, so the family's other members are repeated here; a dropped header is named with an empty value
    (which nginx never sends), and an error_page for a status nginx never answers by itself stops the
    inheritance of the pages where none is left. allow/deny are the layout's (`_detached`)."""
    if not loc.not_inherited:
        return _merged(loc, parent, unless, True, others=others, outer=outer, index=index)
    kept = [s for s in parent if s not in loc.not_inherited]
    dropped = [s for s in parent if s in loc.not_inherited and s.name in _FAMILY_OF
               and s.name not in ("allow", "deny")]
    used = {_FAMILY_OF[s.name] for s in loc.statements if s.name in _FAMILY_OF}
    extra: list[Stmt] = []
    named = {s.args[0].lower() for s in kept + loc.statements if s.name == "add_header" and s.args}
    for name in dict.fromkeys(s.args[0] for s in dropped if s.name == "add_header" and s.args):
        if name.lower() not in named:
            # (the header named empty says what is meant; the kept ones are repeated, this block using the family)
            named.add(name.lower())
            extra.append(Stmt("add_header", [name, "", "always"], loc.span,
                              comment="not inherited: httpd does not apply the enclosing location's header here"))
    used |= {_FAMILY_OF[s.name] for s in extra}
    for family in dict.fromkeys(_FAMILY_OF[s.name] for s in dropped):
        if family in used:
            continue
        members = [s for s in kept if s.name in family]
        if members:
            extra.extend(members)
        elif "error_page" in family:
            # (nginx never answers 599 by itself: a page for it only stops the inheritance)
            extra.append(Stmt("error_page", ["599", "/"], loc.span,
                              comment="not inherited: httpd does not apply the enclosing location's pages here"))
    return _merged(replace(loc, statements=extra + loc.statements), kept, unless, True, others=others, outer=outer,
                   index=index)


def _written_root(server: Server) -> str:
    """The server's `root`: httpd reads a `$` in DocumentRoot as itself, nginx's root reads variables (the
    client's `$host` would pick the directory), so a path is written as NginxModel.literal writes it; a
    VirtualDocumentRoot's root is an expression already."""
    return server.root if server.root_expression else written_literally(server.root)


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(loader=PackageLoader("apache2nginx.templates", "."), trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True, undefined=StrictUndefined, autoescape=False)


def crossplane_parse_text(text: str, *, check: bool) -> dict:
    """crossplane's payload for nginx TEXT (crossplane reads files: the text goes through a temporary one).
    `check`: also check contexts and arguments, as nginx does."""
    fd, path = tempfile.mkstemp(suffix=".conf", prefix="a2n-check-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        return crossplane.parse(path, single=True, check_ctx=check, check_args=check, comments=False)
    finally:
        os.unlink(path)


def self_check(text: str, full: bool) -> list[str]:
    """Re-parse generated nginx with crossplane; returns the errors (empty when fine)."""
    return self_check_scan(text, full)[0]


def self_check_scan(text: str, full: bool) -> tuple[list[str], Scan]:
    """self_check's errors, and the variables the text reads and declares (nginx_variables.Scan, read in
    the same pass; empty when the text does not parse)."""
    body = text if full else "events {}\nhttp {\n" + text + "\n}\n"
    scan = Scan()
    if fast_clean(body, scan.statement):
        return [], scan
    payload = crossplane_parse_text(body, check=True)
    errors = [f"line {e.get('line')}: {e.get('error')}" for e in payload.get("errors", [])]
    scan = Scan()
    if not errors:
        for config in payload.get("config", []):
            _scan_payload(config.get("parsed", []), (), scan)
    return errors, scan


def _scan_payload(items: list[dict], ctx: tuple[str, ...], scan: Scan) -> None:
    stack = [(d, ctx) for d in reversed(items)]
    while stack:
        d, where = stack.pop()
        scan.statement(d["directive"], d.get("args", []), where)
        if "block" in d:
            inner = crossplane_block_ctx(d, where)
            stack.extend((c, inner) for c in reversed(d["block"]))
