"""The translation driver: walks the loaded Apache tree through the passes.

Each directive is looked up in the merged directive table of all passes.
Known directives without a rule are `unsupported` (A2N101); names httpd and
its common modules do not define are `unknown` (A2N100, with the closest
known name as a hint). Directives inside sections that are not translated
yet are reported as unsupported too, since their effect is scoped to that
section. Config-time directives the loader resolved count as exact.
"""
from __future__ import annotations

import re

from ..catalogue import closest, known, known_section
from ..diagnostics import Diagnostics, Severity, Span
from ..model import NginxModel, Server
from ..syntax.loader import LoadedConfig
from ..syntax.tree import Directive, Section
from ..emit.layout import lay_out
from . import (access, alias, core, expires, fastcgi, headers, include, log, mime, misc, process, proxy, proxy_html,
               rewrite, ssl)
from .base import Context, Disposition, Rule, Tally

PASSES = (core, ssl, process, proxy, proxy_html, alias, headers, log, misc, expires, include, mime, fastcgi, rewrite,
          access)


def _merged_rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for module in PASSES:
        for key, rule in module.RULES.items():
            assert key not in rules, f"{key} owned twice"
            rules[key] = rule
    return rules


RULES = _merged_rules()
# What a region's access depends on: left out, such a line would grant more than httpd does
GOVERNS_ACCESS = access.ACCESS_DIRECTIVES | access.TLS_PER_PATH | {
    "requireall", "requireany", "requirenone", "limit", "limitexcept", "files", "filesmatch", "if", "elseif",
    "else", "options"}


class Translator:
    def __init__(self, loaded: LoadedConfig, diags: Diagnostics, options: dict | None = None):
        self.loaded = loaded
        self.diags = diags
        self.tally = Tally()
        self.model = NginxModel(full=loaded.full_server_config)
        main = Server(span=None, is_main=True)
        self.model.main_server = main
        self.ctx = Context(self.model, diags, main, main, options=dict(options or {}))
        self.ctx.walk = self.walk
        self.ctx.redispose = self.redispose
        self.ctx.count = self.count
        self.dispositions: dict[int, Disposition] = {}
        self.model.nginx_version = self.ctx.options.get("nginx_version", (1, 22))

    def run(self) -> tuple[NginxModel, Tally]:
        for node in self.loaded.consumed:
            # an Include or a condition with an undefined ${VAR} (A2N022) read its text as written
            disposition = Disposition.EXACT if node.unresolved is None else Disposition.UNSUPPORTED
            self.dispositions[id(node)] = disposition
            self.tally.add(disposition, ("<" + node.name) if node.is_section else node.name)
        self.ctx.options.update(_input_facts(self.loaded))
        self.model.main_server.settings["early_request_headers"] = _early_request_headers(self.loaded)
        # where a diagnostic about the main server as a whole points (it has no section line of its own)
        # (a directive outside every section: a section's line would narrow it to the section's region)
        self.ctx.options["main_span"] = _main_span(self.loaded.children)
        self.walk(self.loaded.children, untranslated=None)
        # Servers are completed once everything is read: httpd merges the whole main server config
        # into every virtual host, wherever in the file it stands.
        for server in self.model.servers:
            ssl.inherit_engine(self.ctx, server)
        for server in [self.ctx.main] + self.model.servers:
            self.finish(server)
        core.resolve_sockets(self.ctx)
        for module in PASSES:
            hook = getattr(module, "finish_model", None)
            if hook is not None:
                hook(self.ctx)
        core.content_type_maps(self.ctx)   # once every condition and AddType is known
        lay_out(self.model, self.diags, proxy.emitter(self.model, self.ctx.main, self.diags))
        nodes = list(self.loaded.consumed) + list(self.loaded.walk())
        self.settle(nodes)
        loose = (Disposition.APPROXIMATE, Disposition.UNSUPPORTED)
        self.tally.inexact = [(n.span, ("<" if n.is_section else "") + n.name, self.dispositions[id(n)])
                              for n in nodes if self.dispositions.get(id(n)) in loose]
        self.tally.files = {}
        for n in nodes:
            disposition = self.dispositions.get(id(n))
            if disposition is not None and n.span is not None:
                self.tally.add_file(n.span.file, disposition)
        return self.model, self.tally

    def settle(self, nodes) -> None:
        """The tally says what the diagnostics say, once everything is reported (some errors come only when a
        server or region is laid out): a directive an error points at is unsupported (nothing, or nothing that
        works as httpd's does, stands for it), and an unsupported directive no error names (its own line, or
        as a related line: a RewriteCond by its rule's error) is approximate, since only a warning says what
        differs."""
        at: dict[tuple[str, int], list] = {}
        for n in nodes:
            if n.span is not None and id(n) in self.dispositions:
                at.setdefault((n.span.file, n.span.line), []).append(n)
        named: set[tuple[str, int]] = set()
        for d in self.diags:
            if d.severity is not Severity.ERROR:
                continue
            named.update((s.file, s.line) for s in d.related)
            if d.span is None:
                continue
            named.add((d.span.file, d.span.line))
            for n in at.get((d.span.file, d.span.line), ()):
                if self.dispositions[id(n)] not in (Disposition.UNSUPPORTED, Disposition.UNKNOWN):
                    self.redispose(n, Disposition.UNSUPPORTED)
        for n in nodes:
            if self.dispositions.get(id(n)) is Disposition.UNSUPPORTED and n.span is not None \
                    and (n.span.file, n.span.line) not in named:
                self.redispose(n, Disposition.APPROXIMATE)

    def count(self, directive: Directive, disposition: Disposition) -> None:
        self.dispositions[id(directive)] = disposition
        self.tally.add(disposition, directive.name)

    def redispose(self, directive: Directive, disposition: Disposition) -> None:
        """A pass learned a directive's real fate only once its whole context was read (mod_rewrite)."""
        old = self.dispositions.get(id(directive))
        if old is None or old is disposition:
            return
        label = ("<" if directive.is_section else "") + directive.name
        self.tally.remove(old, label)
        self.tally.add(disposition, label)
        self.dispositions[id(directive)] = disposition

    def finish(self, server: Server) -> None:
        """Let each pass complete a server once all its directives are seen."""
        for module in PASSES:
            hook = getattr(module, "finish_server", None)
            if hook is not None:
                hook(self.ctx, server)

    def walk(self, nodes, untranslated: Section | None = None) -> None:
        # (a section's own lines are read again once everything is: setenvif.EnvReader.settle)
        for node in (_setenvif_first(list(nodes)) if self.ctx.scope is None else nodes):
            before = len(self.diags)
            if node.unresolved is not None:
                self.unresolved(node, untranslated)
            elif node.is_section:
                self.section(node, untranslated)
            else:
                self.directive(node, untranslated)
            if node.include_chain:
                self._name_use_lines(node, before)

    def unresolved(self, node: Directive, untranslated: Section | None) -> None:
        """A directive or section holding an undefined ${VAR} (the loader reported it, A2N022) is left out:
        nginx would read the text as a variable of its own. Left out, an access rule would widen what its
        region grants, so its region is refused to everyone instead."""
        label = ("<" + node.name) if node.is_section else node.name
        self.dispositions[id(node)] = Disposition.UNSUPPORTED
        self.tally.add(Disposition.UNSUPPORTED, label)
        if untranslated is None and node.key in GOVERNS_ACCESS:
            access.refuse_here(self.ctx, f"{label}{'>' if node.is_section else ''} with an undefined variable",
                               node.span)
        if node.is_section:
            self.walk(node.children, untranslated or node)

    def section(self, section: Section, untranslated: Section | None) -> None:
        key = "<" + section.key
        rule = RULES.get(key)
        if rule is not None and rule.handler is not None and untranslated is None:
            disposition = rule.handler(self.ctx, section) or rule.disposition
            self.tally.add(disposition, "<" + section.name)
            self.dispositions[id(section)] = disposition
            return
        self.report(section, rule.disposition if rule else None, untranslated)
        self.walk(section.children, untranslated or section)

    def directive(self, d: Directive, untranslated: Section | None) -> None:
        rule = RULES.get(d.key)
        if rule is None:
            self.report(d, None, untranslated)
            return
        directory = None
        if untranslated is not None and untranslated.key == "directory" and d.key in rewrite.PER_DIRECTORY \
                and d.parent is untranslated and untranslated.unresolved is None:
            # mod_rewrite inside <Directory> is translated (per-directory context) even though the section's
            # access semantics are not yet: the rules are compiled for the URL path the directory serves.
            directory = untranslated
        elif untranslated is not None and headers.regex_directory_section(self.ctx, d, untranslated) is not None:
            # a Header line of a <DirectoryMatch>: sent where the name httpd's walk stops at matches (headers)
            self.ctx.filename_regex = headers.regex_directory_section(self.ctx, d, untranslated)
            try:
                self.directive(d, None)
            finally:
                self.ctx.filename_regex = None
            return
        elif untranslated is not None and rule.disposition is not Disposition.NOT_APPLICABLE:
            if d.key == "options":
                access.untranslated_options(self.ctx, d, untranslated)
                access.record_unplaced_options(self.ctx, d, untranslated)
            self.report(d, Disposition.UNSUPPORTED, untranslated)
            return
        scope = self.ctx.scope
        if scope is not None and scope.kind != "location" and rule.disposition is not Disposition.NOT_APPLICABLE \
                and d.key not in {"directory": access.IN_DIRECTORY, "limit": access.IN_LIMIT}.get(scope.kind,
                                                                                                 access.IN_FILES):
            self.report(d, Disposition.UNSUPPORTED, d.parent if isinstance(d.parent, Section) else None,
                        reason=f"not translated inside a <{scope.kind.capitalize()}> section yet")
            return
        if scope is not None and scope.kind == "directory" and d.key in rewrite.PER_DIRECTORY:
            directory = scope.settings["section"]
        self.ctx.directory = directory
        disposition = rule.disposition
        before = len(self.diags)
        if rule.handler is not None:
            disposition = rule.handler(self.ctx, d) or disposition
        # An unsupported directive always carries a diagnostic; the handler's own one says best why, else a
        # generic error. (One that reported a warning only is counted approximate when the run is settled.)
        reported = any(x.severity in (Severity.ERROR, Severity.WARNING) for x in self.diags.since(before))
        self.dispositions[id(d)] = disposition
        if disposition is Disposition.NOT_APPLICABLE and rule.note:
            self.diags.add("A2N102", f"{d.name}: not applicable to nginx: {rule.note}", d.span, directive=d.name)
        elif disposition is Disposition.UNSUPPORTED and rule.handler is not None and not reported:
            self.diags.add("A2N101", f"{d.name} {' '.join(d.args)}: this form is not translated; nothing was "
                           "emitted for it", d.span, directive=d.name)
        self.tally.add(disposition, d.name)

    def _name_use_lines(self, node, before: int) -> None:
        """A directive expanded from a macro: what its translation reported also names the Use line(s)."""
        chain = node.include_chain
        if not chain:
            return
        for diag in self.diags.since(before):
            if diag.span is not None and diag.span.file == node.file and not set(chain) & set(diag.related):
                diag.related = list(diag.related) + list(chain)

    def report(self, node: Directive, disposition: Disposition | None, untranslated: Section | None,
               reason: str | None = None) -> None:
        label = ("<" + node.name + ">") if node.is_section else node.name
        if disposition is None:
            info = known_section(node.name) if node.is_section else known(node.name)
            if info is None:
                guess = closest(("<" if node.is_section else "") + node.name)
                hint = (f"did you mean {guess}?" if guess else
                        "if a third-party module provides it, translate its effect by hand")
                self.diags.add("A2N100", f"unknown directive {label}", node.name_span, directive=label, hint=hint)
                self.dispositions[id(node)] = Disposition.UNKNOWN
                self.tally.add(Disposition.UNKNOWN, label)
                return
            disposition = Disposition.UNSUPPORTED
        if disposition is Disposition.UNSUPPORTED:
            where = f" inside <{untranslated.name} {' '.join(untranslated.args)}>" if untranslated else ""
            why = reason or ("the section holds an undefined variable" if untranslated is not None and
                             untranslated.unresolved is not None else "no nginx translation for it yet")
            self.diags.add("A2N101", f"{label}{where}: {why}; nothing was emitted for it", node.span,
                           directive=label, related=[untranslated.span] if untranslated else [])
        self.dispositions[id(node)] = disposition
        self.tally.add(disposition, label)


def _input_facts(loaded: LoadedConfig) -> dict[str, bool]:
    """What some settings' effect depends on anywhere in the input, whatever the order they stand in."""
    listings = proxy_html = False
    # a whole server configuration (not a snippet meant for an including context): httpd's defaults hold
    whole = any(node.key in _WHOLE_CONFIG for node in list(loaded.consumed) + list(loaded.walk()))
    # every word of the input but the names env= conditions read: a variable none of them names is set by
    # no directive of the input (setenvif.resolve)
    words: set[str] = set()
    # the same, of the nodes outside every <VirtualHost> (shared) and of each virtual host's own (by its span):
    # a variable that only another virtual host's lines name is never set for a host's requests
    shared: set[str] = set()
    by_host: dict = {}
    for node in loaded.walk():
        if node.args:
            text = " ".join(a for a in node.args if not a.lower().startswith(("env=", "!")))
            found = {w.lower() for w in _INPUT_WORD.findall(text)}
            words.update(found)
            host = _virtual_host(node)
            (shared if host is None else by_host.setdefault(host.span, set())).update(found)
        if node.key == "options":
            # mod_autoindex settings matter only if some Options enables listings (All includes Indexes)
            listings = listings or any(a.lower().lstrip("+") in ("indexes", "all") for a in node.args)
        elif node.key == "proxyhtmlenable":
            proxy_html = proxy_html or (node.args[:1] or [""])[0].lower() == "on"
    return {"listings": listings, "proxy_html": proxy_html, "whole_config": whole, "input_words": words,
            "input_words_shared": shared, "input_words_by_host": by_host}


def _early_request_headers(loaded: LoadedConfig) -> dict:
    """The request headers a `RequestHeader ... early` line changes, as nginx variables, by the span of the
    <VirtualHost> it stands in (None: the main server's, which every host merges): httpd runs it when the
    request is read (post_read_request, before mod_setenvif's server lines), so every later reader sees the
    changed header, wherever the line stands in the file (access_cond refuses the decisions that read one)."""
    out: dict = {}
    for node in loaded.walk():
        if node.is_section or node.key != "requestheader" or len(node.args) < 2 or \
                not any(a.lower() == "early" for a in node.args[2:]):
            continue
        host = _virtual_host(node)
        out.setdefault(host.span if host is not None else None, set()).add(
            "http_" + re.sub(r"[^a-z0-9]", "_", node.args[1].lower()))
    return out


def _virtual_host(node) -> Section | None:
    """The <VirtualHost> NODE stands in (or is), if any."""
    while node is not None:
        if node.is_section and node.key == "virtualhost":
            return node
        node = node.parent
    return None


# the directives that set a request's variables as it is read (mod_setenvif's post_read_request and
# header_parser hooks), before any other module of httpd reads them
_SETS_ENV = frozenset({"setenvif", "setenvifnocase", "browsermatch", "browsermatchnocase"})


def _env_read(node) -> set[str]:
    """The variables NODE, or a node inside it, reads in an `env=` condition (Header, RequestHeader, CustomLog)."""
    out = set()
    for n in [node] + (list(node.walk()) if node.is_section else []):
        out.update(a[4:].lstrip("!").lower() for a in n.args if a.lower().startswith("env="))
    return out


def _env_set(node) -> set[str]:
    """The variables a SetEnvIf-family line sets (or unsets)."""
    if node.is_section or node.key not in _SETS_ENV:
        return set()
    assignments = node.args[1:] if node.key.startswith("browsermatch") else node.args[2:]
    return {a.lstrip("!").partition("=")[0].lower() for a in assignments}


def _setenvif_first(nodes: list) -> list:
    """NODES with their SetEnvIf lines moved, in their own order, before the first `env=` reader of a variable
    one of them sets: httpd sets the variables as it reads the request, before any directive reads them,
    wherever the lines stand in the configuration (a `Header ... env=!X` above `SetEnvIf ... X` tests the
    line's X). A <VirtualHost> counts as a reader of every variable: mod_setenvif's server merge puts the
    main server's lines before the host's own (base conditionals, then the host's), so a main-server line
    written after the host applies in it too, first. Unchanged where every reader comes after the lines it
    reads."""
    sets = [_env_set(n) for n in nodes]
    last: dict[str, int] = {}       # each variable -> the last line of NODES setting it
    for index, names in enumerate(sets):
        for name in names:
            last[name] = index
    if not last:
        return nodes
    first = next((index for index, node in enumerate(nodes)
                  if not sets[index] and any(last.get(name, -1) > index for name in _env_read(node) | (
                      set(last) if node.is_section and node.key == "virtualhost" else set()))), None)
    if first is None:
        return nodes
    moved = [n for i, n in enumerate(nodes) if i > first and sets[i]]
    return nodes[:first] + moved + [n for i, n in enumerate(nodes) if i >= first and not (i > first and sets[i])]


_INPUT_WORD = re.compile(r"[A-Za-z0-9_.-]+")
_WHOLE_CONFIG = frozenset({"listen", "virtualhost", "serverroot", "loadmodule"})


def translate(loaded: LoadedConfig, diags: Diagnostics, options: dict | None = None) -> tuple[NginxModel, Tally]:
    return Translator(loaded, diags, options).run()


def _main_span(children) -> Span | None:
    """Where a diagnostic about the main server as a whole points: its first directive outside every section,
    else the file's first line when no section starts there (a section's line would narrow the diagnostic
    to the section's region)."""
    first = next((n.span for n in children), None)
    loose = next((n.span for n in children if not n.is_section), None)
    if loose is not None or first is None or first.line == 1:
        return loose or first
    return Span(first.file, 1, 1, 1, 1)
